// Fuzz target: libQnnSystem's QnnSystemContext_getBinaryInfo, what a client
// calls on a context binary before loading it (ONNX Runtime reads its graph
// names and tensors this way). Any bytes must give an error code or an info
// whose graphs' tensors the caller can walk; never a crash or an
// out-of-bounds read (ASan in the sanitizer pass).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "System/QnnSystemContext.h"
#include "context_seeds.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  QnnSystemContext_Handle_t h = nullptr;
  if (QnnSystemContext_create(&h) != QNN_SUCCESS) __builtin_trap();
  // The API takes a non-const buffer: hand it a copy, as a client would.
  std::vector<uint8_t> copy(data, data + size);
  const QnnSystemContext_BinaryInfo_t* info = nullptr;
  Qnn_ContextBinarySize_t info_size = 0;
  if (QnnSystemContext_getBinaryInfo(h, copy.empty() ? nullptr : copy.data(), copy.size(), &info, &info_size) ==
      QNN_SUCCESS) {
    if (info == nullptr) __builtin_trap();
    // Touch everything the info points at: names and dimensions must lie in
    // memory the library owns (ASan checks each read).
    if (info->version == QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_3) {
      const auto& v = info->contextBinaryInfoV3;
      for (uint32_t g = 0; g < v.numGraphs; ++g) {
        const QnnSystemContext_GraphInfo_t& gi = v.graphs[g];
        if (gi.version != QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_3) continue;
        const auto& gv = gi.graphInfoV3;
        size_t sink = gv.graphName != nullptr ? std::strlen(gv.graphName) : 0;
        for (uint32_t i = 0; i < gv.numGraphInputs; ++i) {
          const Qnn_Tensor_t& t = gv.graphInputs[i];
          sink += t.v1.name != nullptr ? std::strlen(t.v1.name) : 0;
          for (uint32_t d = 0; d < t.v1.rank; ++d) sink += t.v1.dimensions[d];
        }
        for (uint32_t i = 0; i < gv.numGraphOutputs; ++i) {
          const Qnn_Tensor_t& t = gv.graphOutputs[i];
          sink += t.v1.name != nullptr ? std::strlen(t.v1.name) : 0;
          for (uint32_t d = 0; d < t.v1.rank; ++d) sink += t.v1.dimensions[d];
        }
        volatile size_t keep = sink;  // the reads must happen
        (void)keep;
      }
    }
  }
  QnnSystemContext_free(h);
  return 0;
}

namespace fuzz {
std::vector<std::vector<uint8_t>> seeds() { return context_binary_seeds(); }
bool unwrap(const std::vector<uint8_t>& input, std::vector<uint8_t>* inner) { return unwrap_context(input, inner); }
std::vector<uint8_t> wrap(const std::vector<uint8_t>& inner) { return wrap_context(inner); }
bool mutate_structure(std::vector<uint8_t>*, uint64_t) { return false; }  // the payload's bytes are mutated instead
}  // namespace fuzz
