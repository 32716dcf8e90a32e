#include "kernels/onednn_runtime.h"

#include <omp.h>

namespace openhtp::kernels::onednn {

const dnnl::engine& engine() {
  static const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::primitive_attr default_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

Executor::Executor(dnnl::primitive prim, const dnnl::memory::desc& scratchpad_md, int threads)
    : prim_(std::move(prim)), stream_(engine()), threads_(threads) {
  // Reserve so that args_ never reallocates after the memories are added.
  keep_.reserve(8);
  args_.reserve(8);
  add_fixed(DNNL_ARG_SCRATCHPAD, dnnl::memory(scratchpad_md, engine()));
}

size_t Executor::add_bound(int arg, const dnnl::memory::desc& md) {
  add_fixed(arg, dnnl::memory(md, engine(), DNNL_MEMORY_NONE));
  return args_.size() - 1;
}

void Executor::add_fixed(int arg, dnnl::memory mem) {
  args_.push_back({arg, mem.get()});
  keep_.push_back(std::move(mem));
}

void Executor::execute() {
  // Sizes oneDNN's OpenMP team like the graph's pthreadpool (see header).
  omp_set_num_threads(threads_);
  dnnl_primitive_execute(prim_.get(), stream_.get(), static_cast<int>(args_.size()), args_.data());
  dnnl_stream_wait(stream_.get());
}

}  // namespace openhtp::kernels::onednn
