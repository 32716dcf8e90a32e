// What a thread keeps from one QnnGraph_execute to the next: the objects its
// last executes resolved, and the scratch the request is built in.
//
// Resolving a handle through the ObjectTable takes its mutex, a hash lookup
// and a shared_ptr copy, three times for a graph with two memhandles. A
// thread that executes the same graph again can skip all of that while
// ObjectTable::removals() is unchanged: handles are never reused, so nothing
// it resolved has gone away since. The memo holds a weak reference only, so it
// never keeps a freed graph (and through it its context and backend) alive.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "htp/runtime.h"
#include "qnn/objects.h"

namespace openhtp::qnn {

class ExecuteMemo {
 public:
  // The memo of the calling thread.
  static ExecuteMemo& of_this_thread();

  // Drops what was resolved before the latest removal; returns the removal
  // count the memo is now valid for.
  void revalidate();

  // The live graph (which holds its context), or null; memoized.
  std::shared_ptr<Graph> graph(const void* handle);

  // What execute needs of a mem handle, copied out; false if it is not live.
  struct Mem {
    uint64_t handle = 0;
    uint64_t context_handle = 0;
    uint64_t bytes = 0;
    uint64_t remote_id = 0;
  };
  bool mem(const void* handle, Mem* out);

  // Scratch, reused across executes: the hot path does not allocate.
  std::vector<htp::ExecBinding> inputs, outputs;

  // Whether this execute names the same graph and the same tensors, the same
  // way (id, memory type, memHandle or client buffer), as the last one whose
  // tensors all bound: then `inputs`/`outputs` hold its bindings already,
  // and every check they passed still holds while nothing was removed — the
  // usual loop over the same buffers skips them.
  bool same_request(const void* graph, const Qnn_Tensor_t* in, uint32_t n_in, const Qnn_Tensor_t* out,
                    uint32_t n_out) const;
  void remember_request(const void* graph, const Qnn_Tensor_t* in, uint32_t n_in, const Qnn_Tensor_t* out,
                        uint32_t n_out, uint64_t memhandle_bytes);
  void forget_request() { request_graph_ = nullptr; }
  uint64_t request_memhandle_bytes() const { return request_memhandle_bytes_; }

 private:
  static constexpr size_t kMaxMems = 32;  // a linear scan must stay short

  uint64_t removals_ = ~0ull;
  uint64_t graph_handle_ = 0;
  std::weak_ptr<Graph> graph_;
  std::vector<Mem> mems_;
  struct TensorKey {
    uint32_t id = 0;
    int32_t mem_type = 0;
    const void* where = nullptr;  // the memHandle, or the client buffer's data
    uint32_t size = 0;            // the client buffer's dataSize
    // Whether tensor t is bound the way this key records.
    bool matches(const Qnn_Tensor_t& t) const;
  };
  static TensorKey key_of(const Qnn_Tensor_t& t);
  const void* request_graph_ = nullptr;
  std::vector<TensorKey> request_;  // inputs, then outputs
  uint32_t request_inputs_ = 0;
  uint64_t request_memhandle_bytes_ = 0;
};

}  // namespace openhtp::qnn
