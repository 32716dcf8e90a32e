// What a fuzz target gives fuzz_driver.cpp besides LLVMFuzzerTestOneInput:
// valid inputs to start from, and, for structure-aware mutation, how to get
// at the part of an input worth mutating and how to make an input of it
// again — for a context binary, the payload inside its envelope, re-wrapped
// with its CRC recomputed, so that mutations reach the payload's decoder
// instead of dying at the CRC check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fuzz {

std::vector<std::vector<uint8_t>> seeds();
// False when the target has no framing (or `input` has none): the driver
// then mutates whole inputs only.
bool unwrap(const std::vector<uint8_t>& input, std::vector<uint8_t>* inner);
std::vector<uint8_t> wrap(const std::vector<uint8_t>& inner);
// A target that knows its input's structure better than any byte mutation
// can (a graph: change a dimension, a type, an op, a connection, then
// encode it again) does one such mutation of `input` here; false when it
// has none or cannot read `input`.
bool mutate_structure(std::vector<uint8_t>* input, uint64_t random);

}  // namespace fuzz
