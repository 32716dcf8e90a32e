// Einsum, in ONNX layout, float operands, one of two ways:
//
// A contraction of two operands (every letter in the output or in both
// operands, none twice in one operand: attention's "bhid,bhjd->bhij", a
// batched "bik,bkj->bij", a bilinear form) is a MatMul: the letters split
// into batch (both operands and the output), rows (first operand and the
// output), columns (second and the output) and summed (both operands only);
// each operand is transposed to [batch, rows, summed] / [batch, columns,
// summed] and reshaped to rank 3, one MatMul (second operand transposed)
// gives [batch, rows, columns], and a reshape and a transpose put it in the
// output's order. Letters of size 1 everywhere are left out first, so a unit
// batch axis does not count against QNN's rank 5, and any number of batch
// letters becomes one axis. No intermediate is larger than an operand or the
// output.
//
// Anything else is composed of Transpose, Reshape, ElementWiseMultiply and
// ReduceSum:
//   1. A letter repeated within one operand (a diagonal, "ii->i") is
//      x * eye (a static 0/1 mask over the two axes) summed over the second
//      axis.
//   2. Every letter gets one axis of a common order: the output's letters
//      (in output order) then the summed ones. Each operand is transposed to
//      that order and reshaped with size-1 axes for the letters it lacks;
//      the operands are multiplied (numpy broadcasting), the summed axes
//      reduced by ReduceSum, and the result reshaped into the output, which
//      is then in output order already.
// Refused: a composition of more than 5 letters in all (QNN HTP tensors have
// rank <= 5), and non-float operands. The equation itself is read by
// einsum_equation.cpp.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/einsum_equation.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

// The MatMul form of a two-operand contraction (see the top of the file),
// or nothing when the equation is not one.
struct MatMulPlan {
  std::string a, b, out;        // the operands' and the output's letters, unit letters left out
  std::string batch, rows, cols, summed;
  std::map<char, uint32_t> size;
};

std::optional<MatMulPlan> matmul_plan(const EinsumEquation& e, const std::vector<std::vector<uint32_t>>& dims) {
  if (e.inputs.size() != 2 || dims.size() != 2) return std::nullopt;
  MatMulPlan p;
  for (size_t k = 0; k < 2; ++k) {
    if (dims[k].size() != e.inputs[k].size()) return std::nullopt;
    for (size_t a = 0; a < dims[k].size(); ++a) {
      auto [it, fresh] = p.size.emplace(e.inputs[k][a], dims[k][a]);
      if (!fresh && it->second != dims[k][a]) return std::nullopt;  // broadcasting: the composition's
    }
  }
  auto without_units = [&](const std::string& letters) {
    std::string kept;
    for (char ch : letters) {
      if (p.size.count(ch) == 0) return std::string("?");  // an output letter no operand names
      if (p.size[ch] != 1) kept += ch;
    }
    return kept;
  };
  p.a = without_units(e.inputs[0]);
  p.b = without_units(e.inputs[1]);
  p.out = without_units(e.output);
  if (p.out.find('?') != std::string::npos) return std::nullopt;
  for (const std::string* t : {&p.a, &p.b, &p.out}) {
    if (std::set<char>(t->begin(), t->end()).size() != t->size()) return std::nullopt;  // a diagonal
  }
  auto in = [](const std::string& t, char ch) { return t.find(ch) != std::string::npos; };
  for (char ch : p.out) {
    if (in(p.a, ch) && in(p.b, ch)) {
      p.batch += ch;
    } else if (in(p.a, ch)) {
      p.rows += ch;
    } else {
      p.cols += ch;
    }
  }
  for (char ch : p.a) {
    if (in(p.out, ch)) continue;
    if (!in(p.b, ch)) return std::nullopt;  // summed within one operand: the composition's
    p.summed += ch;
  }
  for (char ch : p.b) {
    if (!in(p.out, ch) && !in(p.a, ch)) return std::nullopt;
  }
  // Every tensor on the way has rank <= 5: the operands without their unit
  // letters, and [batch, rows, columns] before the transpose to the output.
  if (p.a.size() > 5 || p.b.size() > 5 || p.out.size() > 5) return std::nullopt;
  return p;
}

std::vector<std::vector<uint32_t>> operand_dims(const onnx::NodeProto& node, const Model& model) {
  std::vector<std::vector<uint32_t>> dims;
  for (const auto& in : node.input()) {
    const ValueInfo* v = model.info(in);
    if (v == nullptr || !v->is_static()) return {};
    std::vector<uint32_t> d;
    for (int64_t x : v->dims) d.push_back(static_cast<uint32_t>(x));
    dims.push_back(d);
  }
  return dims;
}

std::string check_einsum(const onnx::NodeProto& node, const Model& model) {
  std::vector<size_t> ranks;
  for (const auto& in : node.input()) {
    const ValueInfo* v = model.info(in);
    if (v == nullptr) return "operand '" + in + "' has no known shape";
    if (v->elem_type != onnx_type::kFloat && v->elem_type != onnx_type::kDouble &&
        v->elem_type != onnx_type::kFloat16) {
      return "only float operands are supported (composed of float Multiply and ReduceSum)";
    }
    ranks.push_back(v->dims.size());
  }
  EinsumEquation e;
  if (std::string why = parse_einsum(attr_string(node, "equation", ""), ranks, &e); !why.empty()) return why;
  if (matmul_plan(e, operand_dims(node, model))) return "";
  std::set<char> letters(e.output.begin(), e.output.end());
  for (const auto& t : e.inputs) letters.insert(t.begin(), t.end());
  if (letters.size() > 5) {
    return "the equation has " + std::to_string(letters.size()) +
           " distinct axes; the composition needs one tensor axis per axis (QNN HTP tensors have rank <= 5)";
  }
  return "";
}

// One operand of rank `rank` whose axes are the letters `from` once its
// unit axes are left out, transposed to the letters `to` and reshaped to
// `shape`.
std::string arrange(const std::string& x, size_t rank, const std::string& from, const std::string& to,
                    const std::vector<uint32_t>& shape, const MatMulPlan& p, LoweringContext& ctx) {
  std::string y = x;
  std::vector<uint32_t> perm;
  for (char ch : to) perm.push_back(static_cast<uint32_t>(from.find(ch)));
  if (perm.size() > 1 && !is_identity_perm(perm)) {
    std::vector<uint32_t> squeezed;
    for (char ch : from) squeezed.push_back(p.size.at(ch));
    if (from.size() != rank) y = ctx.reshape(y, squeezed);
    y = ctx.transpose(y, perm);
  }
  if (ctx.qtensor(y).dims != shape) y = ctx.reshape(y, shape);
  return y;
}

void lower_as_matmul(const onnx::NodeProto& node, const MatMulPlan& p, LoweringContext& ctx) {
  auto product = [&](const std::string& letters) {
    uint32_t n = 1;
    for (char ch : letters) n *= p.size.at(ch);
    return n;
  };
  const uint32_t batch = product(p.batch), rows = product(p.rows), cols = product(p.cols), summed = product(p.summed);
  const std::string hint = node.output(0);
  // The summed letters in the first operand's order, in both.
  const std::string a = arrange(ctx.as_is(node.input(0)), ctx.rank(node.input(0)), p.a, p.batch + p.rows + p.summed,
                                {batch, rows, summed}, p, ctx);
  const std::string b = arrange(ctx.as_is(node.input(1)), ctx.rank(node.input(1)), p.b, p.batch + p.cols + p.summed,
                                {batch, cols, summed}, p, ctx);
  const Qnn_DataType_t dt = ctx.qtensor(a).dtype;
  std::string y = ctx.native(hint + "_matmul", dt, {batch, rows, cols});
  ctx.add_node(QNN_OP_MAT_MUL, {a, b}, {y},
               {param_bool(QNN_OP_MAT_MUL_PARAM_TRANSPOSE_IN0, false),
                param_bool(QNN_OP_MAT_MUL_PARAM_TRANSPOSE_IN1, true)});
  // [batch, rows, columns] -> the output's letters in its order.
  const std::string natural = p.batch + p.rows + p.cols;
  std::vector<uint32_t> natural_dims;
  for (char ch : natural) natural_dims.push_back(p.size.at(ch));
  std::vector<uint32_t> perm;
  for (char ch : p.out) perm.push_back(static_cast<uint32_t>(natural.find(ch)));
  if (perm.size() > 1 && !is_identity_perm(perm)) {
    if (natural_dims != ctx.qtensor(y).dims) y = ctx.reshape(y, natural_dims);
    y = ctx.transpose(y, perm);
  }
  ctx.add_node(QNN_OP_RESHAPE, {y}, {ctx.output(node.output(0))});
}

void lower_einsum(const onnx::NodeProto& node, LoweringContext& ctx) {
  std::vector<size_t> ranks;
  for (const auto& in : node.input()) ranks.push_back(ctx.rank(in));
  EinsumEquation e;
  if (std::string why = parse_einsum(attr_string(node, "equation", ""), ranks, &e); !why.empty()) ctx.fail(why);
  const std::string hint = node.output(0);
  std::vector<std::vector<uint32_t>> operand_dims;
  for (const auto& in : node.input()) operand_dims.push_back(ctx.dims_u32(in));
  if (const std::optional<MatMulPlan> plan = matmul_plan(e, operand_dims)) {
    lower_as_matmul(node, *plan, ctx);
    return;
  }
  // Size of each letter (broadcast size-1 axes take the other operand's).
  std::map<char, uint32_t> size;
  for (size_t k = 0; k < e.inputs.size(); ++k) {
    const std::vector<uint32_t> d = ctx.dims_u32(node.input(static_cast<int>(k)));
    for (size_t a = 0; a < e.inputs[k].size(); ++a) {
      uint32_t& s = size[e.inputs[k][a]];
      s = std::max(s, d.size() > a ? d[a] : 1u);
    }
  }
  // Common order: output letters, then the summed ones in order of appearance.
  std::string order = e.output;
  for (const auto& t : e.inputs) {
    for (char ch : t) {
      if (order.find(ch) == std::string::npos) order += ch;
    }
  }
  std::vector<uint32_t> full;
  for (char ch : order) full.push_back(size[ch]);
  std::string product;
  Qnn_DataType_t dt = QNN_DATATYPE_FLOAT_32;
  for (size_t k = 0; k < e.inputs.size(); ++k) {
    std::string x = ctx.as_is(node.input(static_cast<int>(k)));
    dt = ctx.qtensor(x).dtype;
    std::string subs = e.inputs[k];
    // Diagonals: a letter at axes p < q.
    for (bool again = true; again;) {
      again = false;
      for (size_t p = 0; p < subs.size() && !again; ++p) {
        const size_t q = subs.find(subs[p], p + 1);
        if (q == std::string::npos) continue;
        const std::vector<uint32_t> xd = ctx.qtensor(x).dims;
        const uint32_t n = std::min(xd[p], xd[q]);
        std::vector<uint32_t> md(xd.size(), 1);
        md[p] = xd[p];
        md[q] = xd[q];
        std::vector<float> mask(size_t{xd[p]} * xd[q], 0.0f);
        for (uint32_t i = 0; i < n; ++i) mask[size_t{i} * xd[q] + i] = 1.0f;
        const std::string m = ctx.static_f32(hint + "_eye", md, mask);
        const std::string masked = ctx.native(hint + "_diag", dt, xd);
        ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {x, m}, {masked});
        std::vector<uint32_t> rd = xd;
        rd.erase(rd.begin() + static_cast<std::ptrdiff_t>(q));
        if (rd.empty()) rd = {1};
        const std::string reduced = ctx.native(hint + "_diag_sum", dt, rd);
        ctx.add_node(QNN_OP_REDUCE_SUM, {masked}, {reduced},
                     {param_u32_tensor(QNN_OP_REDUCE_SUM_PARAM_AXES, {1}, {static_cast<uint32_t>(q)}),
                      param_bool(QNN_OP_REDUCE_SUM_PARAM_KEEP_DIMS, false)});
        x = reduced;
        subs.erase(q, 1);
        again = true;
      }
    }
    // Transpose to the common order, then size-1 axes for missing letters.
    std::vector<uint32_t> perm(subs.size());
    for (size_t a = 0; a < perm.size(); ++a) perm[a] = static_cast<uint32_t>(a);
    std::sort(perm.begin(), perm.end(), [&](uint32_t a, uint32_t b) { return order.find(subs[a]) < order.find(subs[b]); });
    if (!is_identity_perm(perm) && perm.size() > 1) x = ctx.transpose(x, perm);
    const std::vector<uint32_t> xd = ctx.qtensor(x).dims;
    std::vector<uint32_t> rd;
    for (char ch : order) {
      const size_t a = subs.find(ch);
      size_t pos = 0;  // position in the transposed operand
      if (a != std::string::npos) {
        for (size_t j = 0; j < subs.size(); ++j) pos += order.find(subs[j]) < order.find(ch) ? 1 : 0;
      }
      rd.push_back(a == std::string::npos ? 1u : xd[pos]);
    }
    if (rd != xd) x = ctx.reshape(x, rd);
    if (product.empty()) {
      product = x;
    } else {
      std::vector<uint32_t> pd = ctx.qtensor(product).dims;
      for (size_t a = 0; a < pd.size(); ++a) pd[a] = std::max(pd[a], rd[a]);
      const std::string p = ctx.native(hint + "_prod", dt, pd);
      ctx.add_node(QNN_OP_ELEMENT_WISE_MULTIPLY, {product, x}, {p});
      product = p;
    }
  }
  std::vector<uint32_t> axes;
  for (size_t a = e.output.size(); a < order.size(); ++a) axes.push_back(static_cast<uint32_t>(a));
  if (!axes.empty()) {
    std::vector<uint32_t> kd = ctx.qtensor(product).dims;
    for (uint32_t a : axes) kd[a] = 1;
    const std::string s = ctx.native(hint + "_sum", dt, kd);
    ctx.add_node(QNN_OP_REDUCE_SUM, {product}, {s},
                 {param_u32_tensor(QNN_OP_REDUCE_SUM_PARAM_AXES, {static_cast<uint32_t>(axes.size())}, axes),
                  param_bool(QNN_OP_REDUCE_SUM_PARAM_KEEP_DIMS, true)});
    product = s;
  }
  ctx.add_node(QNN_OP_RESHAPE, {product}, {ctx.output(node.output(0))});
}

}  // namespace

std::vector<OpLowering> einsum_lowerings() { return {{"Einsum", check_einsum, lower_einsum}}; }

}  // namespace openhtp::onnx_import
