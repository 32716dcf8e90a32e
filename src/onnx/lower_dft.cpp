// DFT (opset 17) as two real MatMuls with static cosine / sine matrices
// (ONNX layout, float): the signal axis is moved last (Transpose) and
// flattened to [rows, N]; with C[n][k] = cos(2 pi k n / N), S[n][k] =
// sin(2 pi k n / N):
//   forward  Re = xr C + xi S,         Im = xi C - xr S
//   inverse  Re = (xr C - xi S) / N,   Im = (xi C + xr S) / N
// K = the output's length on the axis (N, or N / 2 + 1 with onesided).
// The results go back to the axis' place and are concatenated on the last
// (real, imaginary) axis. A real input ([..., 1]) has xi = 0. dft_length
// must be absent or equal to N (no zero padding or truncation).
#include <cmath>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

std::string check_dft(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* v = model.info(node.input(0));
  if (v != nullptr && v->elem_type != onnx_type::kFloat && v->elem_type != onnx_type::kDouble) {
    return "only float inputs are supported";
  }
  if (v == nullptr || v->dims.size() < 2 || (v->dims.back() != 1 && v->dims.back() != 2)) {
    return "input must be [..., 1] (real) or [..., 2] (complex)";
  }
  const int64_t r = static_cast<int64_t>(v->dims.size());
  const int64_t axis = normalize_axis(attr_int(node, "axis", 1), static_cast<size_t>(r));
  if (axis < 0 || axis >= r - 1) return "axis " + std::to_string(axis) + " is not a signal axis";
  if (const std::string l = input_name(node, 1); !l.empty()) {
    const Tensor* c = model.constant(l);
    if (c == nullptr || c->get_int(0) != v->dims[static_cast<size_t>(axis)]) {
      return "dft_length must be a constant equal to the axis' size (no padding or truncation)";
    }
  }
  if (attr_int(node, "inverse", 0) != 0 && attr_int(node, "onesided", 0) != 0) return "onesided inverse DFT is not supported";
  return "";
}

void lower_dft(const onnx::NodeProto& node, LoweringContext& ctx) {
  const std::string x = ctx.as_is(node.input(0));
  const std::vector<uint32_t> xd = ctx.qtensor(x).dims;
  const size_t r = xd.size();
  const size_t axis = static_cast<size_t>(normalize_axis(attr_int(node, "axis", 1), r));
  const uint32_t n = xd[axis];
  const uint32_t k = ctx.dims_u32(node.output(0))[axis];
  const bool inverse = attr_int(node, "inverse", 0) != 0;
  const std::string hint = node.output(0);
  std::vector<uint32_t> sig(xd.begin(), xd.end() - 1);  // signal dims, without the complex axis
  std::vector<uint32_t> ones = sig;
  ones.push_back(1);
  std::string xr = x, xi;
  if (xd.back() == 2) {
    xr = ctx.native(hint + "_re_in", QNN_DATATYPE_FLOAT_32, ones);
    xi = ctx.native(hint + "_im_in", QNN_DATATYPE_FLOAT_32, ones);
    ctx.add_node(QNN_OP_SPLIT, {x}, {xr, xi},
                 {param_u32(QNN_OP_SPLIT_PARAM_AXIS, static_cast<uint32_t>(r - 1)), param_u32_tensor(QNN_OP_SPLIT_PARAM_SPLIT_INDEX, {1}, {1})});
  }
  // Axis last: perm over the r - 1 signal dims.
  std::vector<uint32_t> perm;
  for (size_t a = 0; a + 1 < r; ++a) {
    if (a != axis) perm.push_back(static_cast<uint32_t>(a));
  }
  perm.push_back(static_cast<uint32_t>(axis));
  uint32_t rows = 1;
  for (size_t a = 0; a + 1 < r; ++a) rows *= a == axis ? 1 : sig[a];
  auto to_rows = [&](const std::string& t) {
    std::string s = ctx.reshape(t, sig);
    if (!is_identity_perm(perm)) s = ctx.transpose(s, perm);
    return ctx.reshape(s, {rows, n});
  };
  const double scale = inverse ? 1.0 / n : 1.0;
  std::vector<float> cm(size_t{n} * k), sm(size_t{n} * k);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t j = 0; j < k; ++j) {
      const double th = 2.0 * M_PI * static_cast<double>((uint64_t{i} * j) % n) / n;
      cm[size_t{i} * k + j] = static_cast<float>(std::cos(th) * scale);
      sm[size_t{i} * k + j] = static_cast<float>(std::sin(th) * scale * (inverse ? -1.0 : 1.0));
    }
  }
  // With S' = S (forward) or -S / N (inverse), C' = C (/ N):
  //   Re = xr C' + xi S',  Im = xi C' - xr S'.
  const std::string c = ctx.static_f32(hint + "_cos", {n, k}, cm), s = ctx.static_f32(hint + "_sin", {n, k}, sm);
  auto matmul = [&](const std::string& a, const std::string& b) {
    const std::string out = ctx.native(hint + "_mm", QNN_DATATYPE_FLOAT_32, {rows, k});
    ctx.add_node(QNN_OP_MAT_MUL, {a, b}, {out});
    return out;
  };
  auto binary = [&](const char* op, const std::string& a, const std::string& b) {
    const std::string out = ctx.native(hint + "_t", QNN_DATATYPE_FLOAT_32, {rows, k});
    ctx.add_node(op, {a, b}, {out});
    return out;
  };
  const std::string r_rows = to_rows(xr);
  std::string re = matmul(r_rows, c);
  std::string im = ctx.native(hint + "_neg", QNN_DATATYPE_FLOAT_32, {rows, k});
  ctx.add_node(QNN_OP_ELEMENT_WISE_UNARY, {matmul(r_rows, s)}, {im},
               {param_u32(QNN_OP_ELEMENT_WISE_UNARY_PARAM_OPERATION, QNN_OP_ELEMENT_WISE_UNARY_OPERATION_NEG)});
  if (!xi.empty()) {
    const std::string i_rows = to_rows(xi);
    re = binary(QNN_OP_ELEMENT_WISE_ADD, re, matmul(i_rows, s));
    im = binary(QNN_OP_ELEMENT_WISE_ADD, im, matmul(i_rows, c));
  }
  // Back to the signal layout, with the axis of size k, then [..., 1] each.
  std::vector<uint32_t> moved;
  for (uint32_t p : perm) moved.push_back(p == axis ? k : sig[p]);
  std::vector<uint32_t> out_ones = sig;
  out_ones[axis] = k;
  out_ones.push_back(1);
  auto back = [&](const std::string& t) {
    std::string v = ctx.reshape(t, moved);
    if (!is_identity_perm(perm)) v = ctx.transpose(v, inverse_perm(perm));
    return ctx.reshape(v, out_ones);
  };
  ctx.add_node(QNN_OP_CONCAT, {back(re), back(im)}, {ctx.output(node.output(0))},
               {param_u32(QNN_OP_CONCAT_PARAM_AXIS, static_cast<uint32_t>(r - 1))});
}

}  // namespace

std::vector<OpLowering> dft_lowerings() { return {{"DFT", check_dft, lower_dft}}; }

}  // namespace openhtp::onnx_import
