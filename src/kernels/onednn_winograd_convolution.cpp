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
// and the convolution adds onto it.
#include <omp.h>

#include <algorithm>
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

// One reorder as an executor: the same argument-array execute as the
// convolution's, with its (usually empty) scratchpad in the workspace too.
Executor make_reorder(const memory::desc& from, const memory::desc& to, int threads, size_t* from_slot,
                      size_t* to_slot) {
  const dnnl::reorder::primitive_desc pd(engine(), from, engine(), to, default_attr());
  Executor ex(dnnl::reorder(pd), pd.scratchpad_desc(), threads);
  *from_slot = ex.add_bound(DNNL_ARG_FROM, from);
  *to_slot = ex.add_bound(DNNL_ARG_TO, to);
  return ex;
}

class WinogradConvKernel final : public ops::OpKernel {
 public:
  WinogradConvKernel(Executor conv, size_t conv_src, size_t conv_dst, Executor to_blocked, size_t in_from,
                     size_t in_to, Executor to_nhwc, size_t out_from, size_t out_to, size_t src_bytes,
                     size_t dst_bytes)
      : conv_(std::move(conv)),
        to_blocked_(std::move(to_blocked)),
        to_nhwc_(std::move(to_nhwc)),
        conv_src_(conv_src),
        conv_dst_(conv_dst),
        in_from_(in_from),
        in_to_(in_to),
        out_from_(out_from),
        out_to_(out_to),
        src_bytes_(ops::align_workspace(src_bytes)),
        dst_bytes_(ops::align_workspace(dst_bytes)) {}

  // The residual's reorder into the blocked output (same layouts as in[0]'s
  // reorder, so the same kind of primitive), when the node has one.
  void add_residual(Executor ex, size_t from, size_t to, size_t res_in) {
    residual_.emplace_back(std::move(ex));
    res_from_ = from;
    res_to_ = to;
    res_in_ = res_in;
  }

  // [conv scratchpad][reorder scratchpads][blocked src][blocked dst]
  size_t workspace_bytes() const override {
    size_t bytes = ops::align_workspace(conv_.workspace_bytes()) + ops::align_workspace(to_blocked_.workspace_bytes()) +
                   ops::align_workspace(to_nhwc_.workspace_bytes()) + src_bytes_ + dst_bytes_;
    for (const Executor& r : residual_) bytes += ops::align_workspace(r.workspace_bytes());
    return bytes;
  }
  void set_workspace(void* memory) override {
    auto* p = static_cast<uint8_t*>(memory);
    auto take = [&p](size_t bytes) {
      uint8_t* at = p;
      p += ops::align_workspace(bytes);
      return at;
    };
    conv_.set_workspace(take(conv_.workspace_bytes()));
    to_blocked_.set_workspace(take(to_blocked_.workspace_bytes()));
    to_nhwc_.set_workspace(take(to_nhwc_.workspace_bytes()));
    for (Executor& r : residual_) r.set_workspace(take(r.workspace_bytes()));
    src_ = take(src_bytes_);
    dst_ = take(dst_bytes_);
    bound_ = true;
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    if (!bound_) own_workspace();
    to_blocked_.bind(in_from_, in[0]);
    to_blocked_.bind(in_to_, src_);
    to_blocked_.execute();
    if (!residual_.empty()) {
      residual_[0].bind(res_from_, in[res_in_]);
      residual_[0].bind(res_to_, dst_);
      residual_[0].execute();
    }
    conv_.bind(conv_src_, src_);
    conv_.bind(conv_dst_, dst_);
    conv_.execute();
    to_nhwc_.bind(out_from_, dst_);
    to_nhwc_.bind(out_to_, out[0]);
    to_nhwc_.execute();
  }

 private:
  // Driven directly (a unit test): one block of the kernel's own, carved as
  // the runtime would carve a planned one.
  void own_workspace() {
    own_ = ops::Workspace(workspace_bytes());
    set_workspace(own_.data());
  }

  Executor conv_, to_blocked_, to_nhwc_;
  std::vector<Executor> residual_;  // zero or one
  size_t conv_src_, conv_dst_, in_from_, in_to_, out_from_, out_to_;
  size_t res_from_ = 0, res_to_ = 0, res_in_ = 0;
  size_t src_bytes_, dst_bytes_;
  uint8_t* src_ = nullptr;
  uint8_t* dst_ = nullptr;
  bool bound_ = false;
  ops::Workspace own_;
};

// The fused epilogue in the Winograd kernels' terms: the residual as `sum`
// (onto the output the residual was reordered into), then swish or clamp as
// add_epilogue() makes them.
dnnl::primitive_attr winograd_attr(const ops::NodeDesc& node, const memory::desc& dst) {
  dnnl::primitive_attr attr = default_attr();
  add_epilogue(node, dst, &attr);
  if (!has_residual(node)) return attr;
  // add_epilogue put the residual first as a binary add: the same chain with
  // `sum` in its place.
  const dnnl::post_ops binary = attr.get_post_ops();
  dnnl::post_ops po;
  po.append_sum(1.0f);
  for (int i = 1; i < binary.len(); ++i) {
    dnnl::algorithm alg;
    float scale, alpha, beta;
    binary.get_params_eltwise(i, scale, alg, alpha, beta);
    po.append_eltwise(scale, alg, alpha, beta);
  }
  attr.set_post_ops(po);
  return attr;
}

bool prepare_winograd(const ops::NodeDesc& node, const ConvGeometry& g, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs[1].static_data == nullptr || (g.has_bias && node.inputs[2].static_data == nullptr)) return false;
  const int threads = threads_of(node);
  omp_set_num_threads(threads);

  const memory::dims src_dims{g.N, g.Cin, g.H, g.W}, dst_dims{g.N, g.Cout, g.Ho, g.Wo};
  const memory::desc src_nhwc(src_dims, dt::f32, tag::nhwc), dst_nhwc(dst_dims, dt::f32, tag::nhwc);
  const memory::desc src_any(src_dims, dt::f32, tag::any), dst_any(dst_dims, dt::f32, tag::any);
  dnnl::convolution_forward::primitive_desc pd;  // make_conv_f32 throws when oneDNN has no Winograd kernel
  Executor cx = make_conv_f32(node, g, dnnl::algorithm::convolution_winograd, src_any, dst_any,
                              winograd_attr(node, dst_nhwc), threads, &pd);
  const size_t conv_src = cx.add_bound(DNNL_ARG_SRC, pd.src_desc());
  const size_t conv_dst = cx.add_bound(DNNL_ARG_DST, pd.dst_desc());
  size_t in_from, in_to, out_from, out_to;
  Executor to_blocked = make_reorder(src_nhwc, pd.src_desc(), threads, &in_from, &in_to);
  Executor to_nhwc = make_reorder(pd.dst_desc(), dst_nhwc, threads, &out_from, &out_to);
  auto k = std::make_unique<WinogradConvKernel>(std::move(cx), conv_src, conv_dst, std::move(to_blocked), in_from,
                                                in_to, std::move(to_nhwc), out_from, out_to,
                                                pd.src_desc().get_size(), pd.dst_desc().get_size());
  if (has_residual(node)) {
    size_t from, to;
    Executor r = make_reorder(dst_nhwc, pd.dst_desc(), threads, &from, &to);
    k->add_residual(std::move(r), from, to, residual_input(node));
  }
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
