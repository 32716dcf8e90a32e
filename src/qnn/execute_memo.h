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

 private:
  static constexpr size_t kMaxMems = 32;  // a linear scan must stay short

  uint64_t removals_ = ~0ull;
  uint64_t graph_handle_ = 0;
  std::weak_ptr<Graph> graph_;
  std::vector<Mem> mems_;
};

}  // namespace openhtp::qnn
