// Memory-bound convolutions on several threads as one slab of the output
// per thread (rows; pixels for a pointwise one), each slab run by a
// single-threaded oneDNN primitive of its own.
//
// Why: pointwise and depthwise convolutions are memory-bound, and oneDNN's
// own split of them does not follow rows of pixels, so each thread read
// half its input from the other core's cache. MobileNetV2's 17 fp32
// depthwise convolutions took as long on two threads as on one (0.63 ms),
// and 1.13 ms on one thread inside the two-thread graph. With every
// pointwise and depthwise convolution split by rows, and the element-wise
// loops after them split the same way (parallel_tiles.h run_in_shares), a
// thread reads (all but the halo rows of) what it wrote itself.
//
// A slab's geometry is the convolution's over the input rows its output rows
// read, with the padding only the first and last slab have, so every slab
// computes exactly the rows the whole convolution would. A pointwise slab
// is a run of pixels as a one-row image: its output pixels read only their
// own input pixels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kernels/onednn_runtime.h"
#include "ops/conv_geometry.h"
#include "ops/workspace.h"
#include "threads/threadpool.h"

namespace openhtp::kernels::onednn {

// A pointwise (1x1, stride 1, unpadded, one group) convolution of one image
// with at least two output pixels per thread, or a depthwise one (one filter
// per channel), a strided 1x1 one (unpadded, one group) or an image stem (at
// most 4 input channels, one group) with at least two output rows per
// thread, on more than one thread.
bool slab_shape(const ops::ConvGeometry& g, size_t threads);

// Plans the primitives created while it lives for one thread (oneDNN sizes
// a primitive's work split by omp_get_max_threads() at creation), and puts
// the calling thread's team size back when it goes, a throw included.
class OneThreadPlanning {
 public:
  OneThreadPlanning();
  ~OneThreadPlanning();
  OneThreadPlanning(const OneThreadPlanning&) = delete;
  OneThreadPlanning& operator=(const OneThreadPlanning&) = delete;

 private:
  int saved_;
};

// One slab: its own geometry, and the first input and output pixels (in
// the whole image's row-major order) it covers.
struct SlabExtent {
  ops::ConvGeometry g;
  size_t in_pixel, out_pixel;
};
// One slab per thread, in order. A pointwise convolution reads nothing but
// its own pixel, so it is split by pixels, as evenly as they go, each slab a
// one-row image: a 7x7 map splits 25 + 24, not 4 + 3 rows (1.75x at best on
// two threads), and the split matches the element-wise loops' shares after
// it (threads/shares.h). Other shapes split by output rows, each slab with
// the input rows (halo included) its rows read.
std::vector<SlabExtent> slab_extents(const ops::ConvGeometry& g, size_t threads);

// The slabs of one convolution, run one per pool thread. Each slab's
// primitive binds src and dst at its rows (and a residual, laid out like
// dst, at dst's offset); after() runs on the slab's output right after it
// (the fp32 SiLU), on the same thread.
// What runs on each slab's output rows after its primitive: the node's fused
// SiLU (and the clamp after it) as openhtp's pass, which oneDNN's Winograd
// kernels have no post-op for and a slab's rows are still in cache for;
// empty without one. `sums` (may be null): C floats the pass adds each
// channel's results to (the node's channel mean).
std::function<void(void* out, size_t bytes, float* sums)> silu_on_slab(const ops::NodeDesc& node);

class SlabKernel final : public ops::OpKernel {
 public:
  struct Slab {
    Executor ex;
    // Bound slots. res: the residual's (a binary post-op); SIZE_MAX with a
    // residual: it is oneDNN's `sum` post-op, and its rows are copied into
    // the slab's output before the primitive runs.
    size_t src = 0, dst = 0, res = SIZE_MAX;
    size_t in_offset = 0, in_bytes = 0, out_offset = 0, out_bytes = 0;  // bytes
    // A row slab's input row (0 for a pointwise slab): its first and last
    // input rows are the ones the neighbouring slabs' producers wrote.
    size_t in_row_bytes = 0;
  };
  using After = std::function<void(void* out, size_t bytes, float* sums)>;
  // What runs once per run(), on the calling thread, before any slab (the
  // channel scale of the weights the slabs share); empty without one.
  using Before = std::function<void(std::span<const void* const> in)>;
  // res_in: the run() input the residual is read from (SIZE_MAX: none).
  // mean_channels > 0: the node's channel mean, out[1], from each slab's
  // sums in after() (which must then be set).
  SlabKernel(std::vector<Slab> slabs, size_t res_in, pthreadpool_t pool, After after = {}, Before before = {},
             size_t mean_channels = 0);
  // [slab 0 scratchpad][slab 1 scratchpad]...
  size_t workspace_bytes() const override { return ws_.bytes(); }
  void set_workspace(void* memory) override { ws_.bind(memory); }
  void run(std::span<const void* const> in, std::span<void* const> out) override;
  // Slab t on thread t, with no Before and no channel mean (both need the
  // calling thread around the loop).
  size_t chained_shares() const override;
  void share_access(std::span<const void* const> in, std::span<void* const> out, size_t t,
                    ops::ShareAccess* access) const override;

 private:
  void carve(uint8_t* base);
  void run_slab(size_t i);

  // What the slabs of the current run() read and write (the loop's context
  // lives here, not on run()'s stack: ops::OpKernel::chained_shares).
  const uint8_t* x_ = nullptr;
  const uint8_t* r_ = nullptr;
  uint8_t* y_ = nullptr;

  std::vector<Slab> slabs_;
  size_t res_in_;
  pthreadpool_t pool_;
  After after_;
  Before before_;
  size_t mean_channels_;
  std::vector<float> partial_sums_;  // [slab][channel], when mean_channels_ > 0
  size_t pixels_ = 0;                // of the whole output
  ops::Workspace ws_;
  std::vector<size_t> ws_offsets_;  // [slab]: where its scratchpad starts in ws_
  bool carved_ = false;
  uint8_t* carved_at_ = nullptr;
};

}  // namespace openhtp::kernels::onednn
