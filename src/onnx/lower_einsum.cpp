// Einsum, composed of QNN Transpose, Reshape, ElementWiseMultiply and
// ReduceSum (ONNX layout, float):
//
//   1. "..." becomes one letter per broadcast axis (right-aligned across the
//      operands, as numpy); without "->" the output is the ellipsis axes then
//      the letters that occur once, sorted.
//   2. A letter repeated within one operand (a diagonal, "ii->i") is
//      x * eye (a static 0/1 mask over the two axes) summed over the second
//      axis.
//   3. Every letter gets one axis of a common order: the output's letters
//      (in output order) then the summed ones. Each operand is transposed to
//      that order and reshaped with size-1 axes for the letters it lacks;
//      the operands are multiplied (numpy broadcasting), the summed axes
//      reduced by ReduceSum, and the result reshaped into the output, which
//      is then in output order already.
// Refused: more than 5 letters in all (QNN HTP tensors have rank <= 5), and
// non-float operands.
#include <algorithm>
#include <map>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

struct Equation {
  std::vector<std::string> inputs;  // one letter per axis of each operand
  std::string output;
};

// Parses `eq` for operands of ranks `ranks`; "" or the reason it cannot be used.
std::string parse(std::string eq, const std::vector<size_t>& ranks, Equation* out) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  std::string lhs = eq, rhs;
  bool explicit_out = false;
  if (const size_t a = eq.find("->"); a != std::string::npos) {
    lhs = eq.substr(0, a);
    rhs = eq.substr(a + 2);
    explicit_out = true;
  }
  std::vector<std::string> terms;
  for (size_t b = 0;;) {
    const size_t c = lhs.find(',', b);
    terms.push_back(lhs.substr(b, c == std::string::npos ? std::string::npos : c - b));
    if (c == std::string::npos) break;
    b = c + 1;
  }
  if (terms.size() != ranks.size()) {
    return "equation has " + std::to_string(terms.size()) + " operand(s), node has " + std::to_string(ranks.size());
  }
  // Ellipsis axes: digits '0'.., the last ones shared right-aligned.
  size_t ell = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const size_t e = terms[k].find("...");
    if (e == std::string::npos) continue;
    const size_t named = terms[k].size() - 3;
    if (ranks[k] < named) return "operand " + std::to_string(k) + " has fewer axes than the equation names";
    ell = std::max(ell, ranks[k] - named);
  }
  if (ell > 9) return "too many ellipsis axes";
  std::string ell_letters;
  for (size_t i = 0; i < ell; ++i) ell_letters += static_cast<char>('0' + i);
  for (size_t k = 0; k < terms.size(); ++k) {
    std::string& t = terms[k];
    if (const size_t e = t.find("..."); e != std::string::npos) {
      const size_t n = ranks[k] - (t.size() - 3);
      t = t.substr(0, e) + ell_letters.substr(ell - n) + t.substr(e + 3);
    }
    for (char ch : t) {
      if (!std::isalpha(static_cast<unsigned char>(ch)) && !std::isdigit(static_cast<unsigned char>(ch))) {
        return std::string("unexpected character '") + ch + "' in the equation";
      }
    }
    if (t.size() != ranks[k]) {
      return "operand " + std::to_string(k) + " has rank " + std::to_string(ranks[k]) + ", the equation names " +
             std::to_string(t.size()) + " axes";
    }
  }
  if (explicit_out) {
    if (const size_t e = rhs.find("..."); e != std::string::npos) rhs = rhs.substr(0, e) + ell_letters + rhs.substr(e + 3);
  } else {
    std::map<char, int> count;
    for (const auto& t : terms) {
      for (char ch : t) ++count[ch];
    }
    rhs = ell_letters;
    for (const auto& [ch, n] : count) {
      if (n == 1 && !std::isdigit(static_cast<unsigned char>(ch))) rhs += ch;
    }
  }
  out->inputs = terms;
  out->output = rhs;
  return "";
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
  Equation e;
  if (std::string why = parse(attr_string(node, "equation", ""), ranks, &e); !why.empty()) return why;
  std::set<char> letters(e.output.begin(), e.output.end());
  for (const auto& t : e.inputs) letters.insert(t.begin(), t.end());
  if (letters.size() > 5) {
    return "the equation has " + std::to_string(letters.size()) +
           " distinct axes; the composition needs one tensor axis per axis (QNN HTP tensors have rank <= 5)";
  }
  return "";
}

void lower_einsum(const onnx::NodeProto& node, LoweringContext& ctx) {
  std::vector<size_t> ranks;
  for (const auto& in : node.input()) ranks.push_back(ctx.rank(in));
  Equation e;
  if (std::string why = parse(attr_string(node, "equation", ""), ranks, &e); !why.empty()) ctx.fail(why);
  const std::string hint = node.output(0);
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
