// Context binaries to start from, and their envelope as the framing of a
// structure-aware fuzzer: shared by the targets that read context binaries
// (the loader, libQnnSystem's binary info).
#pragma once

#include <cstdint>
#include <vector>

namespace fuzz {

// Valid binaries: one and three small graphs (STATIC, quantized weights).
std::vector<std::vector<uint8_t>> context_binary_seeds();
bool unwrap_context(const std::vector<uint8_t>& input, std::vector<uint8_t>* payload);
std::vector<uint8_t> wrap_context(const std::vector<uint8_t>& payload);

}  // namespace fuzz
