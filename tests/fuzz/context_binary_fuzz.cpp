// Fuzz target: the context-binary loader on arbitrary bytes. It must return
// an error or a structurally valid image — never crash, hang or read out of
// bounds (run under ASan in the test suite). Built two ways: with libFuzzer
// (-DOPENHTP_LIBFUZZER=ON, clang) for long campaigns, and with fuzz_driver.cpp
// for a bounded run in every test pass.
#include <cstddef>
#include <cstdint>
#include <string>

#include "binary/context_codec.h"
#include "context_seeds.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The extent follows the envelope's offsets before anything verifies them.
  if (openhtp::binary::context_binary_extent(data, size) > size) __builtin_trap();
  openhtp::binary::ContextImage image;
  std::string error;
  if (openhtp::binary::decode_context(data, size, &image, &error) == openhtp::binary::BinaryError::kNone) {
    // Whatever decoded must be internally consistent: every node reference
    // resolves to a tensor of the same graph.
    for (const auto& g : image.graphs) {
      for (const auto& n : g.spec.nodes) {
        for (uint32_t id : n.outputs) {
          if (g.spec.find_tensor(id) == nullptr) __builtin_trap();
        }
      }
    }
  } else if (error.empty()) {
    __builtin_trap();  // every refusal explains itself
  }
  return 0;
}

namespace fuzz {
std::vector<std::vector<uint8_t>> seeds() { return context_binary_seeds(); }
bool unwrap(const std::vector<uint8_t>& input, std::vector<uint8_t>* inner) { return unwrap_context(input, inner); }
std::vector<uint8_t> wrap(const std::vector<uint8_t>& inner) { return wrap_context(inner); }
bool mutate_structure(std::vector<uint8_t>*, uint64_t) { return false; }  // the payload's bytes are mutated instead
}  // namespace fuzz
