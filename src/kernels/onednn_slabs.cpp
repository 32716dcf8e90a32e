#include "kernels/onednn_slabs.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "kernels/onednn_paths.h"
#include "kernels/parallel_tiles.h"
#include "kernels/silu.h"

namespace openhtp::kernels::onednn {

OneThreadPlanning::OneThreadPlanning() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
OneThreadPlanning::~OneThreadPlanning() { omp_set_num_threads(saved_); }

namespace {

bool pointwise(const ops::ConvGeometry& g) {
  return g.KH == 1 && g.KW == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pb == 0 && g.pl == 0 && g.pr == 0 &&
         g.group == 1;
}

// A 1x1 convolution with a stride (ResNet's downsampling shortcut): each
// output row reads one input row. oneDNN's own split of these did not scale:
// ResNet-18's three int8 shortcuts (fused with the residual Add and the ReLU)
// took 34-40 us on one thread and 34-44 us on two; 25-31 us on two in row
// slabs (docs/performance.md, "Session 22").
bool strided_pointwise(const ops::ConvGeometry& g) {
  return g.KH == 1 && g.KW == 1 && g.pt == 0 && g.pb == 0 && g.pl == 0 && g.pr == 0 && g.group == 1;
}

// A convolution of the input image itself (a few channels, one group: the
// 7x7/2 and 3x3/2 stems of ResNet, MobileNet and EfficientNet): its output
// is the largest map of the network and its weights are a few KiB, so row
// slabs cost a few halo rows and nothing else, where oneDNN's own split
// also ended the graph's thread team around it (docs/performance.md,
// "Session 24").
constexpr uint32_t kStemMaxChannels = 4;
bool stem(const ops::ConvGeometry& g) { return g.group == 1 && g.Cin <= kStemMaxChannels; }

}  // namespace

bool slab_shape(const ops::ConvGeometry& g, size_t threads) {
  if (threads < 2 || g.N != 1) return false;
  if (pointwise(g)) return uint64_t{g.Ho} * g.Wo >= 2 * threads;
  const bool depthwise = g.group > 1 && g.group == g.Cin && g.Cout == g.Cin;
  return (depthwise || strided_pointwise(g) || stem(g)) && g.Ho >= 2 * threads;
}

std::vector<SlabExtent> slab_extents(const ops::ConvGeometry& g, size_t threads) {
  std::vector<SlabExtent> slabs;
  if (pointwise(g)) {
    const uint64_t pixels = uint64_t{g.Ho} * g.Wo;
    for (size_t t = 0; t < threads; ++t) {
      const uint64_t p0 = pixels * t / threads, p1 = pixels * (t + 1) / threads;
      SlabExtent s{g, p0, p0};
      s.g.H = s.g.Ho = 1;
      s.g.W = s.g.Wo = static_cast<uint32_t>(p1 - p0);
      slabs.push_back(s);
    }
    return slabs;
  }
  const int64_t span = int64_t{g.KH - 1} * g.dh + 1;  // input rows one output row reads
  for (size_t t = 0; t < threads; ++t) {
    const int64_t o0 = int64_t{g.Ho} * t / threads, o1 = int64_t{g.Ho} * (t + 1) / threads;
    // Input rows [top, bottom) of the padded image; the slab reads the real
    // ones [i0, i1) and pads the rest.
    const int64_t top = o0 * g.sh - g.pt, bottom = (o1 - 1) * g.sh - g.pt + span;
    const int64_t i0 = std::max<int64_t>(0, top), i1 = std::min<int64_t>(g.H, bottom);
    SlabExtent s{g, static_cast<size_t>(i0) * g.W, static_cast<size_t>(o0) * g.Wo};
    s.g.H = static_cast<uint32_t>(i1 - i0);
    s.g.Ho = static_cast<uint32_t>(o1 - o0);
    s.g.pt = static_cast<uint32_t>(i0 - top);
    s.g.pb = static_cast<uint32_t>(bottom - i1);
    slabs.push_back(s);
  }
  return slabs;
}

std::function<void(void* out, size_t bytes, float* sums)> silu_on_slab(const ops::NodeDesc& node) {
  if (!node.has_epilogue() || !node.epilogue->swish) return {};
  float lo, hi;
  silu_clamp_bounds(*node.epilogue, &lo, &hi);
  const size_t channels = node.outputs[0].dims.empty() ? 1 : node.outputs[0].dims.back();
  return [lo, hi, channels](void* out, size_t bytes, float* sums) {
    const size_t n = bytes / sizeof(float);
    if (sums == nullptr) {
      silu_clamp_f32(static_cast<float*>(out), n, lo, hi);
    } else {
      silu_clamp_f32_sums(static_cast<float*>(out), n / channels, channels, lo, hi, sums);
    }
  };
}

SlabKernel::SlabKernel(std::vector<Slab> slabs, size_t res_in, pthreadpool_t pool, After after, Before before,
                       size_t mean_channels)
    : slabs_(std::move(slabs)),
      res_in_(res_in),
      pool_(pool),
      after_(std::move(after)),
      before_(std::move(before)),
      mean_channels_(mean_channels) {
  if (mean_channels_ > 0) {
    partial_sums_.assign(slabs_.size() * mean_channels_, 0.0f);
    size_t bytes = 0;
    for (const Slab& sl : slabs_) bytes += sl.out_bytes;
    pixels_ = bytes / sizeof(float) / mean_channels_;
  }
  size_t bytes = 0;
  for (const Slab& sl : slabs_) {
    ws_offsets_.push_back(bytes);
    bytes += ops::align_workspace(sl.ex.workspace_bytes());
  }
  ws_ = ops::Workspace(bytes);
}

void SlabKernel::carve(uint8_t* base) {
  for (size_t i = 0; i < slabs_.size(); ++i) slabs_[i].ex.set_workspace(base + ws_offsets_[i]);
  carved_ = true;
  carved_at_ = base;
}

size_t SlabKernel::chained_shares() const {
  const bool one_share_each = threads::pool_threads(pool_) == slabs_.size() && slabs_.size() > 1;
  return one_share_each && !before_ && mean_channels_ == 0 ? slabs_.size() : 0;
}

void SlabKernel::share_access(std::span<const void* const> in, std::span<void* const> out, size_t t,
                              ops::ShareAccess* access) const {
  const Slab& sl = slabs_[t];
  const uint8_t* x = static_cast<const uint8_t*>(in[0]);
  uint8_t* y = static_cast<uint8_t*>(out[0]);
  access->read(x + sl.in_offset, sl.in_bytes);
  if (res_in_ != SIZE_MAX) access->read(static_cast<const uint8_t*>(in[res_in_]) + sl.out_offset, sl.out_bytes);
  access->write(y + sl.out_offset, sl.out_bytes);
  if (const uint8_t* ws = ws_.current(); ws != nullptr) access->write(ws + ws_offsets_[t], sl.ex.workspace_bytes());
}

namespace {
void prefetch_bytes(const uint8_t* p, size_t bytes) {
  for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch(p + o, 0, 3);
}
}  // namespace

void SlabKernel::run_slab(size_t i) {
  Slab& sl = slabs_[i];
  // A row slab's edge rows were written by the neighbouring slabs' threads
  // (their producer split the map the same way), so they come from the other
  // core's cache, at ~600 ns a line round trip on this project's VMs. Asked
  // for all at once before the primitive starts, their transfers overlap:
  // the bottom slab of a 7x7x960 uint8 depthwise took 6.9 us with its own
  // rows, 8.3 with a halo row from the other core, 7.1 prefetched; in
  // MobileNetV2 at two threads, -2 % (docs/performance.md, "Session 25").
  if (sl.in_row_bytes > 0) {
    if (i > 0) prefetch_bytes(x_ + sl.in_offset, sl.in_row_bytes);
    if (i + 1 < slabs_.size()) prefetch_bytes(x_ + sl.in_offset + sl.in_bytes - sl.in_row_bytes, sl.in_row_bytes);
  }
  sl.ex.bind(sl.src, x_ + sl.in_offset);
  sl.ex.bind(sl.dst, y_ + sl.out_offset);
  if (r_ != nullptr && sl.res != SIZE_MAX) {
    sl.ex.bind(sl.res, r_ + sl.out_offset);
  } else if (r_ != nullptr && r_ != y_) {  // oneDNN's `sum` adds onto dst
    std::memcpy(y_ + sl.out_offset, r_ + sl.out_offset, sl.out_bytes);
  }
  sl.ex.execute();
  if (after_) {
    after_(y_ + sl.out_offset, sl.out_bytes, mean_channels_ > 0 ? &partial_sums_[i * mean_channels_] : nullptr);
  }
}

void SlabKernel::run(std::span<const void* const> in, std::span<void* const> out) {
  if (uint8_t* base = ws_.data(); !carved_ || base != carved_at_) carve(base);  // first run, or the regions moved
  if (before_) before_(in);
  x_ = static_cast<const uint8_t*>(in[0]);
  r_ = res_in_ != SIZE_MAX ? static_cast<const uint8_t*>(in[res_in_]) : nullptr;
  y_ = static_cast<uint8_t*>(out[0]);
  if (mean_channels_ > 0) std::fill(partial_sums_.begin(), partial_sums_.end(), 0.0f);
  if (pool_ == nullptr || slabs_.size() <= 1) {
    for (size_t i = 0; i < slabs_.size(); ++i) run_slab(i);
  } else {
    // The context is the kernel itself, which outlives an unjoined loop.
    threads::parallelize_1d_tile_1d(
        pool_,
        [](void* self, size_t start, size_t count) {
          for (size_t i = start; i < start + count; ++i) static_cast<SlabKernel*>(self)->run_slab(i);
        },
        this, slabs_.size(), 1, 0);
  }
  if (mean_channels_ > 0) {
    finish_channel_mean(partial_sums_.data(), slabs_.size(), mean_channels_, pixels_, static_cast<float*>(out[1]));
  }
}

}  // namespace openhtp::kernels::onednn
