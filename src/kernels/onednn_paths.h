// The oneDNN fast paths (fast_paths.cpp lists them). FLOAT_32, plus 8-bit
// convolutions where the CPU has VNNI: without it oneDNN's int8 kernels
// saturate, so prepare_conv2d_int8 declines unless
// onednn::int8_convolution_exact() (onednn_runtime.h) holds.
#pragma once

#include <dnnl.hpp>

#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "kernels/onednn_channel_scale.h"
#include "kernels/onednn_runtime.h"
#include "threads/threadpool.h"
#include "ops/conv_geometry.h"
#include "ops/op.h"

namespace openhtp::kernels::onednn {

bool prepare_conv2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);  // + DepthWiseConv2d
// FLOAT_32 3x3 stride-1 Conv2d by Winograd (onednn_winograd_convolution.cpp);
// declines every other convolution, which prepare_conv2d then takes.
bool prepare_conv2d_winograd(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// Conv2d / DepthWiseConv2d, u8/s8 activations, symmetric s8 weights.
bool prepare_conv2d_int8(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_fully_connected(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// FLOAT_32 TransposeConv2d by oneDNN's deconvolution (onednn_transpose_convolution.cpp).
bool prepare_transpose_conv2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
bool prepare_matmul(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// MatMul with 8-bit per-tensor operands (u8/s8, any zero points): int32 sums
// in oneDNN's int8 matmul, where the CPU makes them exact (as the int8 convs);
// a fused clamp or residual Add (onednn_int8.h).
bool prepare_matmul_int8(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);
// FullyConnected the same way: u8/s8 activations, symmetric s8 weights (per
// tensor or per output channel), SFIXED_POINT_32 bias, a fused clamp or
// residual Add.
bool prepare_fully_connected_int8(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

// A MatMul as oneDNN's matmul sees it: every operand at `rank` dims (leading
// 1s added), and [..., M, K] x a 2-D in[1] collapsed into one GEMM of
// batch * M rows. False when oneDNN cannot take it (rank < 2 or > 4).
struct MatMulLayout {
  size_t rank = 0;
  std::vector<uint32_t> a_dims, y_dims;  // in[0] and out[0] as the GEMM sees them
  bool ta = false, tb = false;           // transpose_in0 / transpose_in1
};
bool matmul_layout(const ops::NodeDesc& node, MatMulLayout* out);
// A stored row-major [..., r, c] operand seen as logical [..., rows, cols]
// padded to `rank` dims, transposed (rows = c, cols = r) when `transpose`.
dnnl::memory::desc matmul_operand(const std::vector<uint32_t>& stored, size_t rank, bool transpose,
                                  dnnl::memory::data_type type);

// A FLOAT_32 convolution of `node` by `alg` (direct or Winograd), its input
// and output described by `src` / `dst` (tag::any lets oneDNN pick a layout):
// the primitive with the node's weights packed once into oneDNN's layout and
// its bias copied, both fixed in the returned executor; *pd gets the
// primitive's descriptor (for the bound arguments' layouts). Throws
// dnnl::error when oneDNN has no implementation for the case.
// Output channels [first, first + g.Cout) of a convolution of `full`
// output channels (one group): the weights and bias are read at that slice.
struct OutputChannels {
  uint32_t first = 0, full = 0;
};
Executor make_conv_f32(const ops::NodeDesc& node, const ops::ConvGeometry& g, dnnl::algorithm alg,
                       const dnnl::memory::desc& src, const dnnl::memory::desc& dst, const dnnl::primitive_attr& attr,
                       int threads, dnnl::convolution_forward::primitive_desc* pd,
                       dnnl::memory* shared_weights = nullptr,
                       std::shared_ptr<ChannelScaledWeights>* scaled_weights = nullptr,
                       const OutputChannels* slice = nullptr);
// shared_weights: packed weights to use when they are in the layout the
// primitive wants (else it packs its own and, when given, stores them there
// for the next caller): the slabs of one convolution share one copy.
// scaled_weights (a node with NodeDesc::input_scale): the primitive reads
// channel-scaled weights (onednn_channel_scale.h) — *scaled_weights when
// they are in its layout, else new ones, stored there; the caller applies
// the scale before each execute. slice: the primitive computes those output
// channels only (g.Cout of them); not with scaled_weights.

// The QNN filter [kh][kw][Cin/g][Cout] as oneDNN weights: {Cout, Cin, KH, KW}
// without groups, {G, Cout/G, Cin/G, KH, KW} with (output channel g*Cout/G + o).
dnnl::memory::desc user_weights(const ops::ConvGeometry& g);

// A node's fused epilogue (ops::Epilogue) as fp32 post-ops on `attr`: a
// binary add of the residual (a tensor laid out like `dst`, bound at run as
// residual_arg()), a SiLU, then an eltwise relu or clip, so the producer
// writes its output once. ResidualAs::kSum makes the residual oneDNN's `sum`
// post-op instead (for kernels without binary post-ops, Winograd's): the
// caller copies the residual into dst first. No epilogue: attr unchanged.
// The SiLU and the clamp after it are oneDNN's swish and clip post-ops on
// more than one thread, the node's EpilogueTail on one (silu_after_primitive).
// SiluAs::kPass leaves a SiLU (and the clamp after it) to the caller's own
// pass on any thread count (the slab kernel's).
enum class ResidualAs { kBinary, kSum };
enum class SiluAs { kAuto, kPass };
void add_epilogue(const ops::NodeDesc& node, const dnnl::memory::desc& dst, dnnl::primitive_attr* attr,
                  ResidualAs residual = ResidualAs::kBinary, SiluAs silu = SiluAs::kAuto);

// Where a fused SiLU runs. oneDNN 2.6's swish post-op costs ~0.3 ns an
// element on this machine; openhtp's pass (kernels/silu.h) 0.14-0.21 ns,
// re-reading the output the primitive just wrote. On one thread the
// pass wins: EfficientNet-B0 fp32 6.37-6.63 ms a run against 6.85-7.15 with
// the post-op (openhtp-graph-profile, the two alternated six times). On two
// it loses (5.85-6.06 against 5.18-6.36 ms, and 0.96-1.02x ORT against
// 0.91x): each oneDNN thread applies the post-op to the part of the output
// it wrote, in its own cache, and a pass split over the pool does not split
// the output the way the primitive did (bench_cache_locality). A node with a
// channel mean (NodeDesc::channel_mean) takes the pass on any number of
// threads: the sums are taken in it.
bool silu_after_primitive(const ops::NodeDesc& node);

// A pointwise or depthwise convolution of one image on several threads, run
// as one slab per thread (onednn_slabs.h: of pixels, or of output rows).
bool slab_convolution(const ops::NodeDesc& node);

// The threads a convolution that is not run in slabs is planned for: the
// graph's, or one below kSmallConvMacs multiply-adds (squeeze-excite's 1x1
// convolutions of a 1x1 map: 19K-55K in EfficientNet-B0). Split, such a
// convolution costs more in its OpenMP region (~2.5 us on these VMs, two
// system calls) than the work it halves, and it would end the graph's
// thread team around it (threads/team.h); its input is a few hundred
// values, so no cache holds much of it.
inline constexpr uint64_t kSmallConvMacs = uint64_t{1} << 20;
int conv_threads(const ops::NodeDesc& node, const ops::ConvGeometry& g);
// A Winograd convolution (3x3, stride 1) of one image on several threads,
// run as one slab of output rows per thread, each a one-thread Winograd
// primitive with its own reorders: from kMinSlabRows (28) rows a slab on.
bool winograd_slab_convolution(const ops::NodeDesc& node);
// One that runs instead as one part of the output channels per thread, each
// a one-thread primitive over the whole map (where the weights are at least
// 4x the input map: ResNet-18's 14x14 and 7x7 layers).
bool winograd_channel_part_convolution(const ops::NodeDesc& node);

// The clamp after a fused SiLU as the pass's bounds (+-infinity without one).
inline void silu_clamp_bounds(const ops::Epilogue& e, float* lo, float* hi) {
  *lo = e.clamp ? e.lo : -std::numeric_limits<float>::infinity();
  *hi = e.clamp ? e.hi : std::numeric_limits<float>::infinity();
}

// What of a fused epilogue runs after the primitive, on the output in place:
// SiLU and the clamp after it, when silu_after_primitive(node), and with
// them the node's channel mean (NodeDesc::channel_mean) when it has one.
// Inactive (apply does nothing) otherwise.
class EpilogueTail {
 public:
  EpilogueTail() = default;
  explicit EpilogueTail(const ops::NodeDesc& node);  // from node.epilogue
  // out: the node's FLOAT_32 output; mean: the channel mean's C floats
  // (written when the node has one).
  void apply(void* out, void* mean = nullptr) const;

 private:
  bool active_ = false;
  size_t n_ = 0;
  size_t channels_ = 0;  // > 0: a channel mean over n_ / channels_ pixels
  float lo_ = 0.0f, hi_ = 0.0f;
};

// Whether `node`'s channel mean (if any) is one a SiLU pass can take: the
// node fuses a SiLU, its output is [1, H, W, C] and the mean C FLOAT_32s.
bool channel_mean_fits(const ops::NodeDesc& node);

// The channel mean from per-part channel sums ([part][channel], added in
// part order, as the ReduceMean kernel adds pixels in order): mean[c] =
// (sum over parts) / pixels. `mean` may be `sums` itself when parts is 1.
void finish_channel_mean(const float* sums, size_t parts, size_t channels, size_t pixels, float* mean);

// The execute argument the residual is bound to (post-op 0's second source).
inline constexpr int residual_arg() { return DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1; }
// Whether the node's epilogue has a residual, and its run() input index.
inline bool has_residual(const ops::NodeDesc& node) { return node.has_epilogue() && node.epilogue->residual; }
inline size_t residual_input(const ops::NodeDesc& node) { return node.inputs.size(); }
// Every present input and the one output FLOAT_32.
inline bool all_f32(const ops::NodeDesc& node) {
  for (const ops::TensorDesc& t : node.inputs) {
    if (t.present && t.dtype != ops::dtype::kFloat32) return false;
  }
  return node.outputs.size() == 1 && node.outputs[0].dtype == ops::dtype::kFloat32;
}
// An fp32 path takes an epilogue whose residual is FLOAT_32 and shaped like
// out[0] (the fusion pass only makes such ones; checked, not assumed).
inline bool epilogue_fits_f32(const ops::NodeDesc& node) {
  if (!has_residual(node)) return true;
  const ops::TensorDesc& r = *node.epilogue->residual;
  return r.dtype == ops::dtype::kFloat32 && node.outputs.size() == 1 && r.dims == node.outputs[0].dims;
}

}  // namespace openhtp::kernels::onednn
