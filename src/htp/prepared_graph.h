// A finalized graph, ready to run: every node's kernel prepared once, every
// intermediate tensor given an offset in the graph's arena by the memory
// planner, and a pointer table so that execute() only binds the caller's
// input/output buffers and runs the kernels in order.
//
// Outputs are written straight into the buffers the caller binds — for a
// memhandle tensor that is the client's shared buffer itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "htp/graph_spec.h"
#include "ops/op.h"

namespace openhtp::htp {

struct TensorBinding {
  uint32_t tensor_id = 0;
  void* data = nullptr;
  size_t bytes = 0;  // bytes available at `data`
};

enum class GraphError {
  kNone = 0,
  kInvalidGraph,    // structural problem (QNN_GRAPH_ERROR_INVALID_TENSOR / FINALIZE_FAILED)
  kInvalidOp,       // a node fails its op definition (QNN_GRAPH_ERROR_INVALID_OP_CONFIG)
  kUnsupportedOp,   // valid QNN, unsupported here
  kBadBinding,      // execute: missing/unknown/too small I/O buffer
};

class PreparedGraph {
 public:
  static std::unique_ptr<PreparedGraph> create(GraphSpec spec, GraphError* err, std::string* message);

  // Runs the graph. `inputs`/`outputs` must bind every graph input/output
  // exactly once. Thread-safe (executions of one graph are serialized).
  GraphError execute(std::span<const TensorBinding> inputs, std::span<const TensorBinding> outputs,
                     std::string* message);

  const GraphSpec& spec() const { return spec_; }
  size_t arena_bytes() const { return arena_.size(); }
  const std::vector<uint32_t>& input_ids() const { return input_ids_; }
  const std::vector<uint32_t>& output_ids() const { return output_ids_; }

 private:
  struct Step {
    std::unique_ptr<ops::OpKernel> kernel;
    std::vector<int> in_slots;   // index into pointers_, -1 for an omitted input
    std::vector<int> out_slots;
  };
  PreparedGraph() = default;
  GraphError bind(std::span<const TensorBinding> bindings, bool outputs, std::string* message);

  GraphSpec spec_;
  std::vector<Step> steps_;
  std::vector<uint8_t> arena_;
  std::vector<void*> pointers_;                 // one per tensor (index in spec_.tensors)
  std::unordered_map<uint32_t, int> slot_of_id_;
  std::vector<uint32_t> input_ids_, output_ids_;
  // Slot of input_ids_[i] / output_ids_[i]: a caller binding in that order
  // (the usual case) needs no map lookup.
  std::vector<int> input_slots_, output_slots_;
  std::vector<size_t> slot_bytes_;              // num_bytes() of each tensor, computed once
  std::vector<const void*> const_in_;           // scratch for one step's inputs
  std::vector<void*> out_;                      // scratch for one step's outputs
  std::mutex run_mu_;
};

const char* graph_error_name(GraphError e);

}  // namespace openhtp::htp
