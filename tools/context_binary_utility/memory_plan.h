// Each graph's memory plan as a context binary stores it (docs/context-
// binary.md: GraphRecord.placements, vtcm/spill-fill totals), read with the
// project's own verifying decoder (src/binary) and completed with what a
// reader can derive from the graph itself: lifetimes in op order, the size of
// every tensor, where weights land in the weights buffer, and why a tensor
// was spilled.
//
// Why the decoder and not libQnnSystem: QNN's System API has no field for a
// plan, and the plan is only meaningful for openhtp's own binaries, which the
// decoder reads fully and safely (it verifies before reading). Linking it
// keeps libQnnSystem's ABI untouched (docs/tools.md, "Where the plan comes
// from"). Shared by qnn-context-binary-utility (JSON) and openhtp-memory-map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace openhtp::tools {

// Where a tensor lives while the graph runs.
enum class MemoryRegion {
  kVtcm,       // on-chip VTCM, at `offset` from its base
  kSpillFill,  // DDR spill-fill region (the graph's DDR arena), at `offset`
  kWeights,    // STATIC data, at `offset` in the context's weights buffer
  kClientIo,   // APP_WRITE / APP_READ / APP_READWRITE: the client's buffer, no offset
  kUnplaced,   // NATIVE without a stored placement (a format-1.0 binary)
};

const char* memory_region_name(MemoryRegion r);

struct PlannedTensor {
  uint32_t id = 0;
  std::string name;
  uint32_t tensor_type = 0;  // Qnn_TensorType_t value
  uint32_t data_type = 0;    // Qnn_DataType_t value
  std::vector<uint32_t> dims;
  MemoryRegion region = MemoryRegion::kUnplaced;
  uint64_t offset = 0;        // VTCM, spill-fill, weights; 0 otherwise
  uint64_t bytes = 0;         // the tensor's data
  uint64_t slot_bytes = 0;    // bytes the plan reserves: VTCM/spill-fill aligned to the arena alignment
  int first_use = -1;         // op index; -1: no op uses it
  int last_use = -1;
  std::string spill_reason;   // kSpillFill only (see derive_spill_reason in memory_plan.cpp)
};

struct PlannedOp {
  std::string name;
  std::string type;
  std::vector<uint32_t> inputs;   // tensor ids (absent optional inputs left out)
  std::vector<uint32_t> outputs;
};

struct GraphMemoryPlan {
  std::string graph_name;
  bool stored = false;             // the binary carries placements (format >= 1.1)
  uint64_t alignment = 0;          // of VTCM / spill-fill slots
  uint64_t vtcm_budget_bytes = 0;  // what the graph was planned against
  uint64_t vtcm_bytes = 0;         // peak VTCM used (the binary's total)
  uint64_t spill_fill_bytes = 0;   // spill-fill region size (the binary's total)
  uint64_t arena_bytes = 0;        // vtcm + spill-fill (the binary's total)
  uint64_t weights_bytes = 0;      // this graph's STATIC data, as laid out in the weights buffer
  uint64_t client_io_bytes = 0;    // sum of its graph inputs and outputs
  std::vector<PlannedOp> ops;      // in execution order: the x axis of a map
  std::vector<PlannedTensor> tensors;  // every tensor some op uses, in creation order
};

// Decodes `bytes` (a whole context binary) and returns one plan per graph,
// in the binary's order. False with a one-line *error when the binary does
// not decode (not openhtp's, corrupted, a newer format).
bool read_memory_plans(const uint8_t* bytes, size_t size, std::vector<GraphMemoryPlan>* plans, std::string* error);

}  // namespace openhtp::tools
