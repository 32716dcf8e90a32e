// Conv2d and DepthWiseConv2d with 8-bit activations through oneDNN's int8
// kernels: UFIXED_POINT_8 or SFIXED_POINT_8 activations (per-tensor, any
// zero point), SFIXED_POINT_8 symmetric weights (per-channel on axis 3 or
// per-tensor), SFIXED_POINT_32 bias, 8-bit output with its zero point.
//
// Why: with VNNI, oneDNN's int8 kernels are exact and scale with threads,
// where this XNNPACK build's qc8/qu8 barely gains from a second thread.
// Without VNNI they are wrong (int16 saturation), so prepare declines unless
// onednn::int8_convolution_exact() (CPU check + self-test) holds, and XNNPACK
// (listed after this path) takes the node.
//
// Arithmetic: acc = sum (x - x_zp) * w + bias in int32 (exact), then
// y = round(acc * in_scale * w_scale[c] / out_scale) + y_zp, saturated. The
// reference computes the same in float, so a tie or float error can put the
// two 1 LSB apart; the tests allow that.
//
// The HWIO filter is reordered once at prepare into the kernel's layout
// (with oneDNN's zero-point / s8 compensation); the kernel keeps no pointer
// to the node's buffers. run() only swaps the src/dst data handles.
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "kernels/onednn_paths.h"
#include "kernels/onednn_runtime.h"
#include "kernels/quant_params.h"
#include "kernels/xnnpack_convolution.h"  // output_clamp
#include "ops/parsed_params.h"

namespace openhtp::kernels::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;
using ops::ConvGeometry;

class Int8ConvKernel final : public ops::OpKernel {
 public:
  Int8ConvKernel(Executor ex, size_t src, size_t dst) : ex_(std::move(ex)), src_(src), dst_(dst) {}
  size_t workspace_bytes() const override { return ex_.workspace_bytes(); }
  void set_workspace(void* memory) override { ex_.set_workspace(memory); }
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    ex_.bind(src_, in[0]);
    ex_.bind(dst_, out[0]);
    ex_.execute();
  }

 private:
  Executor ex_;
  size_t src_, dst_;
};

// An 8-bit per-tensor activation encoding in oneDNN's terms.
struct Act {
  dt type;
  int32_t zero_point;
  float scale;
};
std::optional<Act> activation(const ops::TensorDesc& t) {
  if (auto zp = u8_zero_point(t)) return Act{dt::u8, *zp, t.quant.scale};
  if (auto zp = s8_zero_point(t)) return Act{dt::s8, *zp, t.quant.scale};
  return std::nullopt;
}

// The QNN filter [kh][kw][Cin/g][Cout] as s8 oneDNN weights (as in
// onednn_convolution.cpp): {Cout, Cin, KH, KW} without groups,
// {G, Cout/G, Cin/G, KH, KW} with them (output channel g*Cout/G + o).
memory::desc user_weights(const ConvGeometry& g) {
  const memory::dim cin_g = g.cin_g(), cout = g.Cout, kw = g.KW;
  const memory::dim s_i = cout, s_w = cin_g * cout, s_h = kw * cin_g * cout;
  if (g.group == 1) return memory::desc({cout, cin_g, g.KH, g.KW}, dt::s8, memory::dims{1, s_i, s_h, s_w});
  const memory::dim cout_g = g.cout_g();
  return memory::desc({memory::dim{g.group}, cout_g, cin_g, g.KH, g.KW}, dt::s8,
                      memory::dims{cout_g, 1, s_i, s_h, s_w});
}

// A one-element s32 memory holding a zero point (oneDNN reads runtime zero
// points from memory arguments).
memory zero_point_memory(int32_t zp) {
  memory m({{1}, dt::s32, tag::x}, engine());
  *static_cast<int32_t*>(m.get_data_handle()) = zp;
  return m;
}

bool prepare_int8(const ops::NodeDesc& node, const ConvGeometry& g, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& w = node.inputs[1];
  if (w.static_data == nullptr) return false;  // weights are reordered once; dynamic ones are not
  const auto x = activation(node.inputs[0]);
  const auto y = activation(node.outputs[0]);
  if (!x || !y) return false;
  const auto w_scales = symmetric_s8_scales(w, 3, g.Cout);
  if (!w_scales) return false;
  std::vector<int32_t> bias;
  if (!int32_bias(node, x->scale, *w_scales, y->scale, &bias)) return false;

  // Requantization multiplier per output channel, one value when all agree.
  std::vector<float> out_scales(g.Cout);
  bool per_channel = false;
  for (size_t c = 0; c < g.Cout; ++c) {
    out_scales[c] = static_cast<float>(double{x->scale} * (*w_scales)[c] / y->scale);
    per_channel |= out_scales[c] != out_scales[0];
  }
  if (!per_channel) out_scales.resize(1);

  dnnl::primitive_attr attr = default_attr();
  attr.set_output_scales(per_channel ? 1 << 1 : 0, out_scales);  // dst dims {N, C, H, W}: C is dim 1
  // Zero points only when non-zero: the kernels skip the compensation then.
  if (x->zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  if (y->zero_point != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
  if (!int8_output_clip(node, y->type == dt::u8, y->zero_point, &attr)) return false;

  const memory::desc src({g.N, g.Cin, g.H, g.W}, x->type, tag::nhwc);
  const memory::desc dst({g.N, g.Cout, g.Ho, g.Wo}, y->type, tag::nhwc);
  const memory::desc w_user = user_weights(g);
  const memory::desc w_any(w_user.dims(), dt::s8, tag::any);
  const memory::desc bias_md({memory::dim{g.Cout}}, dt::s32, tag::x);
  // oneDNN's dilation counts the gaps: QNN's 1 is its 0.
  const memory::dims strides{g.sh, g.sw}, dilates{g.dh - 1, g.dw - 1};
  const memory::dims pad_l{g.pt, g.pl}, pad_r{g.pb, g.pr};
  using conv = dnnl::convolution_forward;
  // The bias is always given (zeros when absent): one primitive shape.
  const conv::primitive_desc pd(conv::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                           src, w_any, bias_md, dst, strides, dilates, pad_l, pad_r),
                                attr, engine());
  // oneDNN's reference implementation is exact but far slower than
  // XNNPACK: leave those cases to it.
  if (std::string_view(pd.impl_info_str()).starts_with("ref")) return false;

  memory w_packed(pd.weights_desc(), engine());
  {
    memory w_src(w_user, engine(), const_cast<void*>(w.static_data));
    dnnl::stream s(engine());
    dnnl::reorder(w_src, w_packed).execute(s, w_src, w_packed);
    s.wait();
  }
  memory b(bias_md, engine());
  std::memcpy(b.get_data_handle(), bias.data(), bias.size() * sizeof(int32_t));

  Executor ex(conv(pd), pd.scratchpad_desc(), threads_of(node));
  ex.add_fixed(DNNL_ARG_WEIGHTS, w_packed);
  ex.add_fixed(DNNL_ARG_BIAS, b);
  if (x->zero_point != 0) ex.add_fixed(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_point_memory(x->zero_point));
  if (y->zero_point != 0) ex.add_fixed(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, zero_point_memory(y->zero_point));
  const size_t src_slot = ex.add_bound(DNNL_ARG_SRC, src);
  const size_t dst_slot = ex.add_bound(DNNL_ARG_DST, dst);
  *kernel = std::make_unique<Int8ConvKernel>(std::move(ex), src_slot, dst_slot);
  return true;
}

}  // namespace

bool int8_output_clip(const ops::NodeDesc& node, bool y_u8, int32_t y_zero_point, dnnl::primitive_attr* attr) {
  if (!node.has_epilogue()) return true;
  if (node.epilogue->residual != nullptr) return false;
  // oneDNN applies post-ops to the scaled accumulator before the dst zero
  // point is added, so the bounds are codes minus the zero point. Only
  // whole-code bounds (as XNNPACK's output min/max), so rounding then
  // clamping is exact.
  const int32_t qmin = y_u8 ? 0 : -128, qmax = y_u8 ? 255 : 127;
  int32_t lo, hi;
  if (!xnn::output_clamp(node, qmin, qmax, &lo, &hi)) return false;
  if (lo > qmin || hi < qmax) {
    dnnl::post_ops po;
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, static_cast<float>(lo - y_zero_point),
                      static_cast<float>(hi - y_zero_point));
    attr->set_post_ops(po);
  }
  return true;
}

bool prepare_conv2d_int8(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  use_graph_threads(node);
  const ConvGeometry* g = ops::parsed_as<ConvGeometry>(node);
  if (g == nullptr || node.inputs[1].dtype != ops::dtype::kSfixed8) return false;
  if (!int8_convolution_exact()) return false;  // checked last: the first call runs the self-test
  try {
    return prepare_int8(node, *g, kernel);
  } catch (const dnnl::error&) {
    return false;  // oneDNN has no implementation for this case: next path
  }
}

}  // namespace openhtp::kernels::onednn
