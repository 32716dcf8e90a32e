// MatMul and FullyConnected with 8-bit activations through oneDNN's int8
// matmul. MatMul: a and out[0] UFIXED_POINT_8 or SFIXED_POINT_8 per tensor
// (any zero point), in[1] the same, static (a layer's weights) or not
// (attention's Q.K^T and P.V), or static symmetric SFIXED_POINT_8 per output
// column; no bias. Either may carry a fused clamp or residual Add
// (onednn_int8.h, int8_epilogue), which the paths after this one decline.
//
// Why: the 8-bit MatMul path before this one (q8, quantized_elementwise.cpp)
// dequantizes both operands, runs the fp32 GEMM and quantizes the result, so
// an 8-bit transformer ran slower than its fp32 twin (its MatMuls are ~70 % of
// the graph). With VNNI the int8 GEMM does four times the multiply-adds per
// instruction and reads a quarter of the bytes.
//
// Arithmetic, as the int8 convolutions (onednn_int8_convolution.cpp): acc =
// sum (a - a_zp)(b - b_zp) in int32, exact; y = round(acc * a_scale * b_scale /
// y_scale) + y_zp, saturated. The reference computes the same in float, so a
// rounding tie can put the two 1 LSB apart; the tests allow that. Exactness
// needs VNNI: prepare declines unless onednn::int8_convolution_exact() holds.
//
// oneDNN takes s8 weights only, so a UFIXED_POINT_8 in[1] is moved to s8 by
// subtracting 128 from its codes and from its zero point (the same reals):
// once at prepare for static weights (packed into oneDNN's layout when 2-D),
// on every run for a dynamic one, into the kernel's workspace.
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "kernels/onednn_int8.h"
#include "kernels/onednn_paths.h"
#include "kernels/onednn_runtime.h"
#include "kernels/quant_params.h"

namespace openhtp::kernels::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

bool prepare(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& a = node.inputs[0];
  const ops::TensorDesc& b = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  if (a.static_data != nullptr) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // the reference validates dims and transpose parameters
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  const auto xa = int8_operand(a), xy = int8_operand(y);
  if (!xa || !xy) return false;
  MatMulLayout l;
  if (!matmul_layout(node, &l)) return false;
  const size_t n_cols = y.dims.back();

  // in[1] as s8 codes, its zero point and its scale: per tensor (any 8-bit
  // encoding), or, for static weights, symmetric s8 per output column (the
  // converter's --use_per_channel_quantization: axis rank-1, rank-2 when
  // transposed).
  std::vector<float> b_scales;
  bool b_u8 = false;
  int32_t b_zp = 0;
  if (b.quant.per_channel()) {
    if (b.static_data == nullptr || b.dims.size() < 2) return false;
    const auto s = symmetric_s8_scales(b, b.dims.size() - (l.tb ? 2 : 1), n_cols);
    if (!s) return false;
    b_scales = *s;
  } else {
    const auto xb = int8_operand(b);
    if (!xb) return false;
    b_u8 = xb->type == dt::u8;
    b_zp = b_u8 ? xb->zero_point - 128 : xb->zero_point;
    b_scales.assign(1, xb->scale);
  }
  std::vector<int8_t> b_static;
  if (b.static_data != nullptr) {
    b_static.resize(b.num_elements());
    if (b_u8) {
      u8_to_s8(static_cast<const uint8_t*>(b.static_data), b_static.size(), b_static.data());
    } else {
      std::memcpy(b_static.data(), b.static_data, b_static.size());
    }
  }

  dnnl::primitive_attr attr = default_attr();
  const auto epilogue = int8_epilogue(node, *xy, &attr);  // a fused clamp or residual Add
  if (!epilogue) return false;
  const float unit_scale = epilogue->unit_scale;
  const Int8Operand& written = epilogue->written;
  std::vector<float> out_scales(b_scales.size());
  bool per_column = false;
  for (size_t c = 0; c < b_scales.size(); ++c) {
    out_scales[c] = static_cast<float>(double{xa->scale} * b_scales[c] / unit_scale);
    per_column |= out_scales[c] != out_scales[0];
  }
  if (!per_column) out_scales.resize(1);
  attr.set_output_scales(per_column ? 1 << (l.rank - 1) : 0, out_scales);  // dst's last dim: the columns
  ZeroPoints zero_points;
  zero_points.add(DNNL_ARG_SRC, xa->zero_point);
  zero_points.add(DNNL_ARG_WEIGHTS, b_zp);
  zero_points.add(DNNL_ARG_DST, written.zero_point);
  zero_points.declare(&attr);

  const memory::desc src = matmul_operand(l.a_dims, l.rank, l.ta, xa->type);
  const memory::desc wei = matmul_operand(b.dims, l.rank, l.tb, dt::s8);
  const memory::desc dst(memory::dims(l.y_dims.begin(), l.y_dims.end()), written.type,
                         l.rank == 2 ? tag::ab : l.rank == 3 ? tag::abc : tag::abcd);
  // Static 2-D weights are packed once into the layout oneDNN picks.
  const bool pack = !b_static.empty() && l.rank == 2;
  const memory::desc wei_md = pack ? memory::desc(wei.dims(), dt::s8, tag::any) : wei;
  use_graph_threads(node);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, wei_md, dst), attr, engine());
  // oneDNN's reference implementation is exact but slower than the
  // dequantizing path after this one: leave those cases to it.
  if (std::string_view(pd.impl_info_str()).starts_with("ref")) return false;

  Executor ex(dnnl::matmul(pd), pd.scratchpad_desc(), threads_of(node));
  zero_points.bind(&ex);
  const size_t s = ex.add_bound(DNNL_ARG_SRC, src);
  size_t w = 0;
  bool bind_weights = false;
  size_t flip_bytes = 0;
  if (pack) {
    memory w_packed(pd.weights_desc(), engine());
    memory w_src(wei, engine(), b_static.data());
    dnnl::stream st(engine());
    dnnl::reorder(w_src, w_packed).execute(st, w_src, w_packed);
    st.wait();
    ex.add_fixed(DNNL_ARG_WEIGHTS, w_packed);
  } else if (!b_static.empty()) {
    // Static but batched: kept as stored, in a memory of the kernel's own.
    memory w_mem(wei, engine());
    std::memcpy(w_mem.get_data_handle(), b_static.data(), b_static.size());
    ex.add_fixed(DNNL_ARG_WEIGHTS, w_mem);
  } else {
    w = ex.add_bound(DNNL_ARG_WEIGHTS, wei);
    bind_weights = true;
    if (b_u8) flip_bytes = b.num_elements();
  }
  const size_t o = ex.add_bound(DNNL_ARG_DST, dst);
  *kernel = with_int8_epilogue(std::make_unique<Int8Kernel>(std::move(ex), s, o, w, bind_weights, flip_bytes), node,
                               *epilogue);
  return true;
}

constexpr memory::dim kMinFcRows = 8;

// FullyConnected: x [batch, n] (any dims of batch * n elements), weights
// [m, n] symmetric s8 (per tensor or per output channel), int32 bias in units
// of x_scale * w_scale[c] (int32_bias), output [batch, m].
bool prepare_fc(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& w = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  if (x.static_data != nullptr || w.static_data == nullptr || w.dims.size() != 2 || y.dims.size() != 2) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // the reference validates dims, bias and keep_dims
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  const auto xa = int8_operand(x), xy = int8_operand(y);
  if (!xa || !xy) return false;
  const memory::dim m = w.dims[0], n = w.dims[1], batch = y.dims[0];
  if (x.num_elements() != static_cast<size_t>(batch * n) || y.dims[1] != static_cast<uint32_t>(m)) return false;
  // A few rows are a matrix-vector product, memory-bound, where XNNPACK's
  // kernels (after this path) are faster: a CNN's batch-1 classifier took
  // 0.022 ms there against 0.035-0.043 here (ResNet-18, 512 -> 1000), while
  // the transformer's 128-row projection took 0.048 here against 0.125.
  if (batch < kMinFcRows) return false;
  const auto w_scales = symmetric_s8_scales(w, 0, static_cast<size_t>(m));
  if (!w_scales) return false;
  dnnl::primitive_attr attr = default_attr();
  const auto epilogue = int8_epilogue(node, *xy, &attr);  // a fused clamp or residual Add
  if (!epilogue) return false;
  const float unit_scale = epilogue->unit_scale;
  const Int8Operand& written = epilogue->written;
  std::vector<int32_t> bias;
  if (!int32_bias(node, xa->scale, *w_scales, unit_scale, &bias)) return false;

  std::vector<float> out_scales(static_cast<size_t>(m));
  bool per_channel = false;
  for (size_t c = 0; c < out_scales.size(); ++c) {
    out_scales[c] = static_cast<float>(double{xa->scale} * (*w_scales)[c] / unit_scale);
    per_channel |= out_scales[c] != out_scales[0];
  }
  if (!per_channel) out_scales.resize(1);
  attr.set_output_scales(per_channel ? 1 << 1 : 0, out_scales);  // dst {batch, m}: m is dim 1
  ZeroPoints zero_points;
  zero_points.add(DNNL_ARG_SRC, xa->zero_point);
  zero_points.add(DNNL_ARG_DST, written.zero_point);
  zero_points.declare(&attr);

  const memory::desc src({batch, n}, xa->type, tag::ab);
  const memory::desc dst({batch, m}, written.type, tag::ab);
  // Weights [m][n] are B^T: B = {n, m} with strides {1, n}.
  const memory::desc w_user({n, m}, dt::s8, memory::dims{1, n});
  const memory::desc w_any({n, m}, dt::s8, tag::any);
  const memory::desc bias_md({1, m}, dt::s32, tag::ab);
  use_graph_threads(node);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, w_any, bias_md, dst), attr, engine());
  if (std::string_view(pd.impl_info_str()).starts_with("ref")) return false;
  memory w_packed(pd.weights_desc(), engine());
  {
    memory w_src(w_user, engine(), const_cast<void*>(w.static_data));
    dnnl::stream st(engine());
    dnnl::reorder(w_src, w_packed).execute(st, w_src, w_packed);
    st.wait();
  }
  memory b(bias_md, engine());
  std::memcpy(b.get_data_handle(), bias.data(), bias.size() * sizeof(int32_t));
  Executor ex(dnnl::matmul(pd), pd.scratchpad_desc(), threads_of(node));
  ex.add_fixed(DNNL_ARG_WEIGHTS, w_packed);
  ex.add_fixed(DNNL_ARG_BIAS, b);
  zero_points.bind(&ex);
  const size_t s = ex.add_bound(DNNL_ARG_SRC, src);
  const size_t o = ex.add_bound(DNNL_ARG_DST, dst);
  *kernel = with_int8_epilogue(std::make_unique<Int8Kernel>(std::move(ex), s, o), node, *epilogue);
  return true;
}

}  // namespace

bool prepare_fully_connected_int8(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() < 2 || node.inputs.size() > 3 || node.outputs.size() != 1) return false;
  if (node.inputs[1].dtype != ops::dtype::kSfixed8) return false;
  if (!int8_convolution_exact()) return false;
  try {
    return prepare_fc(node, kernel);
  } catch (const dnnl::error&) {
    return false;
  }
}

bool prepare_matmul_int8(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  if (!int8_convolution_exact()) return false;  // the same VNNI condition as the int8 convolutions
  try {
    return prepare(node, kernel);
  } catch (const dnnl::error&) {
    return false;  // oneDNN has no implementation for this case: next path
  }
}

}  // namespace openhtp::kernels::onednn
