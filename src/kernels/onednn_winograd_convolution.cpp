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

#include "kernels/onednn_paths.h"
#include "kernels/onednn_runtime.h"
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

class WinogradConvKernel final : public ops::OpKernel {
 public:
  // conv's src/dst slots are bound to the blocked copies; res_in: the run()
  // input the residual is read from, when the node has one.
  WinogradConvKernel(Executor conv, size_t conv_src, size_t conv_dst, Reorder to_blocked, Reorder to_nhwc,
                     std::optional<Reorder> residual, size_t res_in, size_t src_bytes, size_t dst_bytes)
      : conv_(std::move(conv)),
        to_blocked_(std::move(to_blocked)),
        to_nhwc_(std::move(to_nhwc)),
        residual_(std::move(residual)),
        conv_src_(conv_src),
        conv_dst_(conv_dst),
        res_in_(res_in),
        src_bytes_(ops::align_workspace(src_bytes)),
        dst_bytes_(ops::align_workspace(dst_bytes)),
        ws_(parts_bytes() + src_bytes_ + dst_bytes_) {}

  // [conv scratchpad][reorder scratchpads][blocked src][blocked dst]
  size_t workspace_bytes() const override { return ws_.bytes(); }
  void set_workspace(void* memory) override { ws_.bind(memory); }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    if (uint8_t* base = ws_.data(); base != carved_) carve(base);  // first run, or the regions moved
    to_blocked_.run(in[0], src_);
    if (residual_) residual_->run(in[res_in_], dst_);  // the `sum` post-op adds onto it
    conv_.execute();
    to_nhwc_.run(dst_, out[0]);
    tail_.apply(out[0]);
  }
  void set_tail(EpilogueTail tail) { tail_ = tail; }

 private:
  std::array<Executor*, 4> parts() {
    return {&conv_, &to_blocked_.ex, &to_nhwc_.ex, residual_ ? &residual_->ex : nullptr};
  }
  size_t parts_bytes() {
    size_t bytes = 0;
    for (Executor* e : parts()) bytes += e ? ops::align_workspace(e->workspace_bytes()) : 0;
    return bytes;
  }
  void carve(uint8_t* base) {
    uint8_t* p = base;
    for (Executor* e : parts()) {
      if (e == nullptr) continue;
      e->set_workspace(p);
      p += ops::align_workspace(e->workspace_bytes());
    }
    src_ = p;
    dst_ = p + src_bytes_;
    conv_.bind(conv_src_, src_);
    conv_.bind(conv_dst_, dst_);
    carved_ = base;
  }

  Executor conv_;
  Reorder to_blocked_, to_nhwc_;
  std::optional<Reorder> residual_;
  size_t conv_src_, conv_dst_, res_in_;
  size_t src_bytes_, dst_bytes_;
  ops::Workspace ws_;  // planned by the runtime, or the kernel's own when driven directly
  EpilogueTail tail_;  // SiLU (and its clamp), after the output is NHWC again
  uint8_t* carved_ = nullptr;
  uint8_t* src_ = nullptr;
  uint8_t* dst_ = nullptr;
};

bool prepare_winograd(const ops::NodeDesc& node, const ConvGeometry& g, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs[1].static_data == nullptr || (g.has_bias && node.inputs[2].static_data == nullptr)) return false;
  const int threads = threads_of(node);
  omp_set_num_threads(threads);

  const memory::dims src_dims{g.N, g.Cin, g.H, g.W}, dst_dims{g.N, g.Cout, g.Ho, g.Wo};
  const memory::desc src_nhwc(src_dims, dt::f32, tag::nhwc), dst_nhwc(dst_dims, dt::f32, tag::nhwc);
  const memory::desc src_any(src_dims, dt::f32, tag::any), dst_any(dst_dims, dt::f32, tag::any);
  // The Winograd kernels have no binary post-op: the residual is `sum`, onto
  // the output it was first reordered into.
  dnnl::primitive_attr attr = default_attr();
  add_epilogue(node, dst_nhwc, &attr, ResidualAs::kSum);
  dnnl::convolution_forward::primitive_desc pd;  // make_conv_f32 throws when oneDNN has no Winograd kernel
  Executor cx =
      make_conv_f32(node, g, dnnl::algorithm::convolution_winograd, src_any, dst_any, attr, threads, &pd);
  const size_t conv_src = cx.add_bound(DNNL_ARG_SRC, pd.src_desc());
  const size_t conv_dst = cx.add_bound(DNNL_ARG_DST, pd.dst_desc());
  std::optional<Reorder> residual;
  if (has_residual(node)) residual.emplace(dst_nhwc, pd.dst_desc(), threads);
  auto k = std::make_unique<WinogradConvKernel>(std::move(cx), conv_src, conv_dst,
                                                Reorder(src_nhwc, pd.src_desc(), threads),
                                                Reorder(pd.dst_desc(), dst_nhwc, threads), std::move(residual),
                                                residual_input(node), pd.src_desc().get_size(),
                                                pd.dst_desc().get_size());
  k->set_tail(EpilogueTail(node));
  *kernel = std::move(k);
  return true;
}

}  // namespace

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
