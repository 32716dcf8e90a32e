// FLOAT_32 3x3 stride-1 Conv2d through oneDNN's Winograd kernels
// (jit_wino_4x3 / jit_fp32_wino_2x3 on AVX-512): F(4x4, 3x3) does a 3x3
// convolution in 36 multiplies per 16 outputs where the direct one does 144,
// so ResNet's 3x3 layers ran 1.25-3.7x faster than oneDNN's direct brgconv
// on one thread (docs/performance.md, "Winograd"). The transforms round more
// than a direct sum does: measured 2-4e-6 of the largest output on ResNet-18
// layers, inside every comparison openhtp makes with ONNX Runtime and
// PyTorch (1e-4), and bounded in tests/kernels/conv_test.cpp.
//
// oneDNN's Winograd kernels only read and write blocked layouts (nChw16c), so
// the kernel reorders the NHWC input into its workspace, runs, and reorders
// the output back: two passes over the activations, ~2-5% of the saving. A
// fused residual becomes oneDNN's `sum` post-op (the Winograd kernels have no
// binary post-op): the residual is reordered into the blocked output first
// and the convolution adds onto it (add_epilogue's ResidualAs::kSum).
#include <omp.h>

#include <algorithm>
#include <array>
#include <optional>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "kernels/onednn_paths.h"
#include "kernels/onednn_runtime.h"
#include "kernels/onednn_slabs.h"
#include "kernels/parallel_tiles.h"
#include "ops/conv_geometry.h"
#include "ops/parsed_params.h"

namespace openhtp::kernels::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;
using ops::ConvGeometry;

// Whether Winograd is worth its transforms for this convolution. Both
// kernels need a 3x3 window at stride 1 without dilation or groups. Below 16
// channels a side the transforms cost more than the multiplies they save
// (and oneDNN's kernels want whole 16-channel blocks), and a map smaller than
// one 4x4 output tile is mostly padding. The thresholds come from timing
// both algorithms on ResNet-18's and torchvision's 3x3 layers (the table in
// docs/performance.md).
constexpr uint32_t kMinChannels = 16;
constexpr uint32_t kMinOutputSide = 4;
bool winograd_shape(const ConvGeometry& g) {
  return g.group == 1 && g.KH == 3 && g.KW == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
         g.Cin >= kMinChannels && g.Cout >= kMinChannels && g.Cin % 16 == 0 && g.Cout % 16 == 0 &&
         std::min(g.Ho, g.Wo) >= kMinOutputSide;
}

// Whether a multi-threaded Winograd convolution runs as one slab of output
// rows per thread (onednn_slabs.h), each a one-thread primitive, rather than
// as one primitive split by oneDNN. oneDNN's split of a 56x56 layer gained
// nothing from a second thread (ResNet-18's 64->64 layers: 0.51-0.62 ms at 2
// threads, 0.65-0.69 at 1), slabs of 28 rows took 0.32-0.40. With fewer rows
// a slab pays for its partial 4x4 tiles and loses: 28x28 layers 0.40-0.48 ->
// 0.54-0.59 ms, 14x14 0.46-0.50 -> 0.80-0.91 (docs/performance.md, session 8).
constexpr uint32_t kMinSlabRows = 28;
bool winograd_slabs(const ConvGeometry& g, size_t threads) {
  return threads >= 2 && g.N == 1 && g.Ho / threads >= kMinSlabRows;
}

// Whether a multi-threaded Winograd convolution that does not run in row
// slabs runs as one part of the output channels per thread instead, each a
// one-thread primitive over the whole map with its own slice of the
// weights. Where the weights outweigh the map, what limits the layer is
// reading them, and oneDNN's split has both threads read all of them:
// 256 -> 256 channels at 14x14 (ResNet-18's layer3) took 0.35-0.43 ms in
// halves of the channels against 0.37-0.47 in oneDNN's split, both 1.8x
// one thread at best; at 28x28 (weights 1.5x the map) halves were level or
// worse (docs/performance.md, session 24). Each part reorders the whole
// input for itself; the parts need whole 16-channel blocks; a SiLU (a pass
// over contiguous rows) keeps oneDNN's split.
constexpr size_t kWeightsOverMap = 4;
bool winograd_channel_parts(const ops::NodeDesc& node, const ConvGeometry& g, size_t threads) {
  if (threads < 2 || g.N != 1 || g.Cout % (16 * threads) != 0) return false;
  if (node.has_epilogue() && node.epilogue->swish) return false;
  const uint64_t weights = uint64_t{g.KH} * g.KW * g.Cin * g.Cout, map = uint64_t{g.H} * g.W * g.Cin;
  return weights >= kWeightsOverMap * map;
}

// One reorder (NHWC <-> the kernels' blocked layout) as an executor: the same
// argument-array execute as the convolution's, its (usually empty)
// scratchpad in the kernel's workspace too.
struct Reorder {
  Executor ex;
  size_t from = 0, to = 0;  // executor slots

  Reorder(const memory::desc& from_md, const memory::desc& to_md, int threads)
      : ex([&] {
          const dnnl::reorder::primitive_desc pd(engine(), from_md, engine(), to_md, default_attr());
          return Executor(dnnl::reorder(pd), pd.scratchpad_desc(), threads);
        }()) {
    from = ex.add_bound(DNNL_ARG_FROM, from_md);
    to = ex.add_bound(DNNL_ARG_TO, to_md);
  }
  void run(const void* x, void* y) {
    ex.bind(from, x);
    ex.bind(to, y);
    ex.execute();
  }
};

// One Winograd convolution over a band of output rows: the primitive, the
// reorders around it and where its rows sit in the node's NHWC tensors.
struct WinogradPart {
  Executor conv;
  size_t conv_src = 0, conv_dst = 0;  // bound to the blocked copies
  Reorder to_blocked, to_nhwc;
  std::optional<Reorder> residual;  // the residual into the blocked output (the `sum` post-op adds onto it)
  size_t src_bytes = 0, dst_bytes = 0;  // blocked copies, aligned
  size_t in_offset = 0, out_offset = 0, out_bytes = 0;  // bytes into the NHWC input / output
  uint8_t* src = nullptr;
  uint8_t* dst = nullptr;

  std::array<Executor*, 4> executors() {
    return {&conv, &to_blocked.ex, &to_nhwc.ex, residual ? &residual->ex : nullptr};
  }
  size_t workspace_bytes() {
    size_t bytes = src_bytes + dst_bytes;
    for (Executor* e : executors()) bytes += e ? ops::align_workspace(e->workspace_bytes()) : 0;
    return bytes;
  }
  // [conv scratchpad][reorder scratchpads][blocked src][blocked dst]; returns the end.
  uint8_t* carve(uint8_t* p) {
    for (Executor* e : executors()) {
      if (e == nullptr) continue;
      e->set_workspace(p);
      p += ops::align_workspace(e->workspace_bytes());
    }
    src = p;
    dst = p + src_bytes;
    conv.bind(conv_src, src);
    conv.bind(conv_dst, dst);
    return dst + dst_bytes;
  }
  void run(const uint8_t* x, const uint8_t* r, uint8_t* y) {
    to_blocked.run(x + in_offset, src);
    if (residual) residual->run(r + out_offset, dst);
    conv.execute();
    to_nhwc.run(dst, y + out_offset);
  }
};

// The whole convolution as one part (one thread, or oneDNN's own split), or
// one part per thread: a slab of output rows (onednn_slabs.h's rows) or a
// slice of the output channels; each part planned for one thread.
class WinogradConvKernel final : public ops::OpKernel {
 public:
  using After = SlabKernel::After;
  WinogradConvKernel(std::vector<WinogradPart> parts, size_t res_in, pthreadpool_t pool, After after)
      : parts_(std::move(parts)), res_in_(res_in), pool_(pool), after_(std::move(after)) {
    size_t bytes = 0;
    for (WinogradPart& p : parts_) bytes += p.workspace_bytes();
    ws_ = ops::Workspace(bytes);
  }

  size_t workspace_bytes() const override { return ws_.bytes(); }
  bool uses_openmp_team() const override { return parts_.size() == 1 && parts_[0].conv.multi_threaded(); }
  void set_workspace(void* memory) override { ws_.bind(memory); }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    if (uint8_t* base = ws_.data(); base != carved_) carve(base);  // first run, or the regions moved
    const uint8_t* x = static_cast<const uint8_t*>(in[0]);
    const uint8_t* r = res_in_ != SIZE_MAX ? static_cast<const uint8_t*>(in[res_in_]) : nullptr;
    uint8_t* y = static_cast<uint8_t*>(out[0]);
    auto body = [&](size_t start, size_t count) {
      for (size_t i = start; i < start + count; ++i) {
        parts_[i].run(x, r, y);
        if (after_) after_(y + parts_[i].out_offset, parts_[i].out_bytes, nullptr);
      }
    };
    parallel_tiles(parts_.size() > 1 ? pool_ : nullptr, parts_.size(), 1, body);
  }

 private:
  void carve(uint8_t* base) {
    uint8_t* p = base;
    for (WinogradPart& part : parts_) p = part.carve(p);
    carved_ = base;
  }

  std::vector<WinogradPart> parts_;
  size_t res_in_;
  pthreadpool_t pool_;
  After after_;  // SiLU (and its clamp), on each part's NHWC rows
  ops::Workspace ws_;  // planned by the runtime, or the kernel's own when driven directly
  uint8_t* carved_ = nullptr;
};

// The part computing the output rows from pixel out_pixel on (g.Ho rows) of
// the node from the input rows from pixel in_pixel on (g.H rows); `g` is that
// band's geometry. With a slice, the part computes those output channels
// only (g.Cout of slice->full) over its rows, and writes them (and reads a
// residual) through a strided view of the node's NHWC tensor.
WinogradPart make_part(const ops::NodeDesc& node, const ConvGeometry& g, size_t in_pixel, size_t out_pixel,
                       int threads, SiluAs silu, dnnl::memory* shared_weights, const OutputChannels* slice = nullptr) {
  const memory::dims src_dims{g.N, g.Cin, g.H, g.W}, dst_dims{g.N, g.Cout, g.Ho, g.Wo};
  const memory::dim full = slice != nullptr ? slice->full : g.Cout;  // channels of a pixel in the node's output
  const memory::desc src_nhwc(src_dims, dt::f32, tag::nhwc);
  const memory::desc dst_nhwc(dst_dims, dt::f32, memory::dims{memory::dim{g.Ho} * g.Wo * full, 1, g.Wo * full, full});
  const memory::desc src_any(src_dims, dt::f32, tag::any), dst_any(dst_dims, dt::f32, tag::any);
  // The Winograd kernels have no binary post-op: the residual is `sum`, onto
  // the output it was first reordered into.
  dnnl::primitive_attr attr = default_attr();
  add_epilogue(node, dst_nhwc, &attr, ResidualAs::kSum, silu);
  dnnl::convolution_forward::primitive_desc pd;  // make_conv_f32 throws when oneDNN has no Winograd kernel
  Executor cx = make_conv_f32(node, g, dnnl::algorithm::convolution_winograd, src_any, dst_any, attr, threads, &pd,
                              shared_weights, nullptr, slice);
  const size_t conv_src = cx.add_bound(DNNL_ARG_SRC, pd.src_desc());
  const size_t conv_dst = cx.add_bound(DNNL_ARG_DST, pd.dst_desc());
  WinogradPart part{std::move(cx), conv_src, conv_dst, Reorder(src_nhwc, pd.src_desc(), threads),
                    Reorder(pd.dst_desc(), dst_nhwc, threads), std::nullopt};
  if (has_residual(node)) part.residual.emplace(dst_nhwc, pd.dst_desc(), threads);
  part.src_bytes = ops::align_workspace(pd.src_desc().get_size());
  part.dst_bytes = ops::align_workspace(pd.dst_desc().get_size());
  part.in_offset = in_pixel * g.Cin * sizeof(float);
  part.out_offset = (out_pixel * full + (slice != nullptr ? slice->first : 0)) * sizeof(float);
  part.out_bytes = size_t{g.Ho} * g.Wo * g.Cout * sizeof(float);  // contiguous only without a slice (after() needs it)
  return part;
}

bool prepare_winograd(const ops::NodeDesc& node, const ConvGeometry& g, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs[1].static_data == nullptr || (g.has_bias && node.inputs[2].static_data == nullptr)) return false;
  const int threads = threads_of(node);
  std::vector<WinogradPart> parts;
  WinogradConvKernel::After after;
  if (winograd_slabs(g, static_cast<size_t>(threads))) {
    const OneThreadPlanning one_thread;  // each slab's primitive is planned for one thread
    memory shared;
    for (const SlabExtent& r : slab_extents(g, static_cast<size_t>(threads))) {
      parts.push_back(make_part(node, r.g, r.in_pixel, r.out_pixel, 1, SiluAs::kPass, &shared));
    }
    after = silu_on_slab(node);
  } else if (winograd_channel_parts(node, g, static_cast<size_t>(threads))) {
    const OneThreadPlanning one_thread;  // each part's primitive is planned for one thread
    ConvGeometry part = g;
    part.Cout = g.Cout / static_cast<uint32_t>(threads);
    for (int t = 0; t < threads; ++t) {
      const OutputChannels slice{part.Cout * static_cast<uint32_t>(t), g.Cout};
      parts.push_back(make_part(node, part, 0, 0, 1, SiluAs::kPass, nullptr, &slice));
    }
  } else {
    omp_set_num_threads(threads);
    parts.push_back(make_part(node, g, 0, 0, threads, SiluAs::kAuto, nullptr));
    if (silu_after_primitive(node)) {
      after = [tail = EpilogueTail(node)](void* out, size_t, float*) { tail.apply(out); };
    }
  }
  *kernel = std::make_unique<WinogradConvKernel>(std::move(parts), has_residual(node) ? residual_input(node) : SIZE_MAX,
                                                 graph_pool(node), std::move(after));
  return true;
}

}  // namespace

bool winograd_slab_convolution(const ops::NodeDesc& node) {
  const ConvGeometry* g = ops::parsed_as<ConvGeometry>(node);
  return g != nullptr && winograd_slabs(*g, static_cast<size_t>(threads_of(node)));
}

bool winograd_channel_part_convolution(const ops::NodeDesc& node) {
  const ConvGeometry* g = ops::parsed_as<ConvGeometry>(node);
  const size_t threads = static_cast<size_t>(threads_of(node));
  return g != nullptr && !winograd_slabs(*g, threads) && winograd_channel_parts(node, *g, threads);
}

bool prepare_conv2d_winograd(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  const ConvGeometry* g = ops::parsed_as<ConvGeometry>(node);
  if (g == nullptr || node.type != "Conv2d" || node.inputs[0].dtype != ops::dtype::kFloat32 ||
      !epilogue_fits_f32(node) || !winograd_shape(*g)) {
    return false;
  }
  try {
    return prepare_winograd(node, *g, kernel);
  } catch (const dnnl::error&) {
    return false;  // no Winograd kernel for this case (CPU, padding): the direct path takes it
  }
}

}  // namespace openhtp::kernels::onednn
