// oneDNN plumbing shared by the onednn_* fast paths.
//
// A prepared oneDNN kernel owns one primitive (JIT-compiled at prepare), its
// stream and one memory object per argument. Its scratchpad (user mode, so
// execute allocates nothing) is the kernel's workspace (op.h): sized at
// prepare, planned by the runtime with the node's other scratch, bound before
// the first run. run() only swaps data handles and executes through
// the C API with a prebuilt argument array: the C++ execute() takes an
// std::unordered_map, which would allocate on every call.
//
// Threads: the Debian build's CPU runtime is OpenMP, so oneDNN cannot use
// the graph's pthreadpool. run() sets omp_set_num_threads(env->num_threads)
// (cheap) so its OpenMP pool is sized the same as the graph's pool, but it
// is a separate set of threads.
#pragma once

#include <dnnl.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ops/op.h"
#include "ops/workspace.h"

namespace openhtp::kernels::onednn {

// The process's CPU engine (engines are thread-safe; created once).
const dnnl::engine& engine();

// Threads for oneDNN at run time: the graph's count, 1 without an env.
inline int threads_of(const ops::NodeDesc& node) {
  return node.env ? static_cast<int>(node.env->num_threads) : 1;
}

// Sets this thread's OpenMP team size to the graph's thread count. Called
// before a primitive is created: oneDNN plans its work split for
// omp_get_max_threads() at creation, and a primitive planned for 2 threads but
// run on 1 was 1.6x slower (ResNet-18 fp32 in the DSP process).
void use_graph_threads(const ops::NodeDesc& node);

class Executor {
 public:
  // Takes the primitive and its descriptor (for the scratchpad size).
  Executor(dnnl::primitive prim, const dnnl::memory::desc& scratchpad_md, int threads);

  // Adds an argument whose data is bound at run (returns its slot) or one
  // that stays fixed (packed weights, bias): the memory is kept alive here.
  size_t add_bound(int arg, const dnnl::memory::desc& md);
  void add_fixed(int arg, dnnl::memory mem);

  void bind(size_t slot, const void* data) {
    dnnl_memory_set_data_handle(args_[slot].memory, const_cast<void*>(data));
  }
  // The scratchpad, as the kernel's workspace.
  size_t workspace_bytes() const { return scratchpad_.bytes(); }
  void set_workspace(void* memory) { scratchpad_.bind(memory); }
  // Planned for several threads: execute() opens OpenMP regions.
  bool multi_threaded() const { return threads_ > 1; }
  void execute();

 private:
  dnnl::primitive prim_;
  dnnl::stream stream_;
  int threads_;
  std::vector<dnnl::memory> keep_;     // owners of the memories in args_
  std::vector<dnnl_exec_arg_t> args_;  // what dnnl_primitive_execute gets
  ops::Workspace scratchpad_;
  size_t scratchpad_slot_ = 0;
  void* scratchpad_bound_ = nullptr;   // the data handle args_ holds
};

// Attributes every fast path uses: user-managed scratchpad, so nothing is
// allocated inside execute.
dnnl::primitive_attr default_attr();

// Whether oneDNN's int8 (u8/s8 x s8) convolutions give exact integer sums on
// this CPU. Without VNNI they multiply pairs with vpmaddubsw, whose int16
// result saturates for full-range weights (up to 33 LSB off, measured on
// AVX2), so the int8 path needs both:
//  - the CPU reports avx512vnni or avxvnni, and
//  - int8_self_test() passes (oneDNN may still dispatch to a non-VNNI
//    kernel, e.g. under ONEDNN_MAX_CPU_ISA).
// Decided once per process, at first call; false means false forever.
bool int8_convolution_exact();

// The self-test itself: small u8 and s8 convolutions (3x3, 1x1, depthwise)
// with full-range [-127, 127] weights and saturating input patterns, s32
// output, compared exactly with a plain integer sum. Exposed for tests.
bool int8_self_test();

}  // namespace openhtp::kernels::onednn
