#include "onnx/constant_folding.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "onnx/attributes.h"
#include "onnx/layout.h"

namespace openhtp::onnx_import {

namespace {

int64_t norm_axis(int64_t a, size_t r) { return a < 0 ? a + static_cast<int64_t>(r) : a; }

std::vector<size_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<size_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * static_cast<size_t>(dims[i]);
  return s;
}

// Element-wise binary op with numpy broadcasting, computed in double.
template <typename F>
Tensor broadcast_binary(const Tensor& a, const Tensor& b, int32_t out_type, F f) {
  const size_t r = std::max(a.dims.size(), b.dims.size());
  std::vector<int64_t> ad(r, 1), bd(r, 1), od(r, 1);
  std::copy(a.dims.begin(), a.dims.end(), ad.begin() + (r - a.dims.size()));
  std::copy(b.dims.begin(), b.dims.end(), bd.begin() + (r - b.dims.size()));
  for (size_t i = 0; i < r; ++i) od[i] = ad[i] == 1 ? bd[i] : ad[i];
  Tensor out = Tensor::zeros(out_type, od);
  const auto as = strides_of(ad), bs = strides_of(bd);
  std::vector<int64_t> idx(r, 0);
  for (size_t o = 0; o < out.count(); ++o) {
    size_t ia = 0, ib = 0;
    for (size_t i = 0; i < r; ++i) {
      ia += (ad[i] == 1 ? 0 : idx[i]) * as[i];
      ib += (bd[i] == 1 ? 0 : idx[i]) * bs[i];
    }
    if (out_type == onnx_type::kInt64 && a.elem_type == onnx_type::kInt64 && b.elem_type == onnx_type::kInt64) {
      const int64_t v = static_cast<int64_t>(f(static_cast<double>(a.get_int(ia)), static_cast<double>(b.get_int(ib))));
      std::memcpy(out.data.data() + 8 * o, &v, 8);
    } else {
      out.set(o, f(a.get(ia), b.get(ib)));
    }
    for (size_t i = r; i-- > 0;) {
      if (++idx[i] < od[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

Tensor cast_to(const Tensor& t, int32_t type) {
  Tensor out = Tensor::zeros(type, t.dims);
  for (size_t i = 0; i < t.count(); ++i) {
    if (type == onnx_type::kInt64 || t.elem_type == onnx_type::kInt64) {
      if (type == onnx_type::kInt64) {
        const int64_t v = t.elem_type == onnx_type::kFloat || t.elem_type == onnx_type::kDouble
                              ? static_cast<int64_t>(t.get(i))
                              : t.get_int(i);
        std::memcpy(out.data.data() + 8 * i, &v, 8);
        continue;
      }
    }
    out.set(i, t.get(i));
  }
  return out;
}

class Folder {
 public:
  Folder(Model* m, bool keep_dequantize) : m_(*m), keep_dequantize_(keep_dequantize) {}

  // True when `node` was evaluated (outputs stored as constants).
  bool try_fold(const onnx::NodeProto& node, std::string* error) {
    const std::string& t = node.op_type();
    if (!node.domain().empty() && node.domain() != "ai.onnx") return false;
    if (t == "Constant") return fold_constant(node, error);
    if (t == "Shape" || t == "Size") return fold_shape(node);
    for (const auto& in : node.input()) {
      if (!in.empty() && !m_.is_constant(in)) return false;
    }
    if (node.input_size() == 0 && t != "ConstantOfShape") return false;
    std::vector<const Tensor*> in;
    for (const auto& i : node.input()) in.push_back(i.empty() ? nullptr : m_.constant(i));
    auto out_type = [&](int k) {
      const ValueInfo* v = m_.info(node.output(k));
      return v != nullptr && v->elem_type != 0 ? v->elem_type : in[0]->elem_type;
    };
    auto out_dims = [&](int k) -> const std::vector<int64_t>* {
      const ValueInfo* v = m_.info(node.output(k));
      return v != nullptr && v->is_static() ? &v->dims : nullptr;
    };
    if (t == "Identity" || (t == "Dropout" && node.output_size() == 1)) return put(node, 0, *in[0]);
    if (t == "Reshape" || t == "Flatten" || t == "Squeeze" || t == "Unsqueeze") {
      const auto* d = out_dims(0);
      if (d == nullptr) return false;
      Tensor r = *in[0];
      r.dims = *d;
      return put(node, 0, r);
    }
    if (t == "Cast") return put(node, 0, cast_to(*in[0], static_cast<int32_t>(attr_int(node, "to", 1))));
    if (t == "Transpose") {
      std::vector<int64_t> p = attr_ints(node, "perm");
      const size_t r = in[0]->dims.size();
      if (p.empty()) for (size_t i = 0; i < r; ++i) p.push_back(static_cast<int64_t>(r - 1 - i));
      return put(node, 0, permute_tensor(*in[0], {p.begin(), p.end()}));
    }
    if (t == "Concat") return fold_concat(node, in);
    if (t == "Gather") return fold_gather(node, in);
    if (t == "Slice" && m_.opset >= 10) return fold_slice(node, in);
    if (t == "ConstantOfShape") return fold_constant_of_shape(node, in);
    if (t == "Range") {
      const double start = in[0]->get(0), limit = in[1]->get(0), delta = in[2]->get(0);
      const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / delta)));
      Tensor r = Tensor::zeros(in[0]->elem_type, {n});
      for (int64_t i = 0; i < n; ++i) {
        if (r.elem_type == onnx_type::kInt64) {
          const int64_t v = in[0]->get_int(0) + i * in[2]->get_int(0);
          std::memcpy(r.data.data() + 8 * i, &v, 8);
        } else {
          r.set(i, start + i * delta);
        }
      }
      return put(node, 0, r);
    }
    if (t == "DequantizeLinear") return !keep_dequantize_ && fold_dequantize(node, in);
    if (t == "Where" && node.input_size() == 3 && in[0] && in[1] && in[2]) return fold_where(node, in);
    if (t == "ReduceProd" && in[0]) return fold_reduce_prod(node, in);
    if (node.input_size() == 2 && in[0] && in[1]) {
      const int32_t ot = out_type(0);
      const bool is_int = ot == onnx_type::kInt64 || ot == onnx_type::kInt32;
      if (t == "Add") return put(node, 0, broadcast_binary(*in[0], *in[1], ot, [](double a, double b) { return a + b; }));
      if (t == "Sub") return put(node, 0, broadcast_binary(*in[0], *in[1], ot, [](double a, double b) { return a - b; }));
      if (t == "Mul") return put(node, 0, broadcast_binary(*in[0], *in[1], ot, [](double a, double b) { return a * b; }));
      if (t == "Div") {
        return put(node, 0, broadcast_binary(*in[0], *in[1], ot, [is_int](double a, double b) {
                     return is_int ? std::trunc(a / b) : a / b;
                   }));
      }
      if (t == "Equal") return put(node, 0, broadcast_binary(*in[0], *in[1], onnx_type::kBool, [](double a, double b) { return a == b ? 1.0 : 0.0; }));
      // Window and patch padding (Swin: pad = (window - size % window) % window).
      // ONNX Mod: fmod=0 (integers only) takes the divisor's sign, as
      // Python's %; fmod=1 the dividend's, as C's fmod.
      if (t == "Mod") {
        const bool c_fmod = attr_int(node, "fmod", 0) != 0;
        if (!c_fmod && !is_int) return false;  // fmod=0 on floats is invalid ONNX: left to the checker
        return put(node, 0, broadcast_binary(*in[0], *in[1], ot, [c_fmod](double a, double b) {
                     if (b == 0.0) return 0.0;  // ONNX leaves x % 0 undefined; 0 keeps the fold total
                     const double r = std::fmod(a, b);
                     return !c_fmod && r != 0.0 && (r < 0.0) != (b < 0.0) ? r + b : r;
                   }));
      }
      if (t == "Min") return put(node, 0, broadcast_binary(*in[0], *in[1], ot, [](double a, double b) { return std::min(a, b); }));
      if (t == "Max") return put(node, 0, broadcast_binary(*in[0], *in[1], ot, [](double a, double b) { return std::max(a, b); }));
      auto compare = [&](auto f) { return put(node, 0, broadcast_binary(*in[0], *in[1], onnx_type::kBool, f)); };
      if (t == "Less") return compare([](double a, double b) { return a < b ? 1.0 : 0.0; });
      if (t == "Greater") return compare([](double a, double b) { return a > b ? 1.0 : 0.0; });
      if (t == "LessOrEqual") return compare([](double a, double b) { return a <= b ? 1.0 : 0.0; });
      if (t == "GreaterOrEqual") return compare([](double a, double b) { return a >= b ? 1.0 : 0.0; });
      if (t == "And") return compare([](double a, double b) { return a != 0.0 && b != 0.0 ? 1.0 : 0.0; });
      if (t == "Or") return compare([](double a, double b) { return a != 0.0 || b != 0.0 ? 1.0 : 0.0; });
    }
    if (node.input_size() == 1 && in[0]) {
      auto unary = [&](auto f) {
        Tensor r = *in[0];
        for (size_t i = 0; i < r.count(); ++i) r.set(i, f(r.get(i)));
        return put(node, 0, r);
      };
      if (t == "Neg") return unary([](double v) { return -v; });
      if (t == "Sqrt") return unary([](double v) { return std::sqrt(v); });
      if (t == "Reciprocal") return unary([](double v) { return 1.0 / v; });
      // Trip counts of expanded Range functions: Relu(Ceil((limit - start) / delta)).
      if (t == "Ceil") return unary([](double v) { return std::ceil(v); });
      if (t == "Floor") return unary([](double v) { return std::floor(v); });
      if (t == "Relu") return unary([](double v) { return v > 0.0 ? v : 0.0; });
      if (t == "Abs") return unary([](double v) { return std::fabs(v); });
      if (t == "Not") return unary([](double v) { return v == 0.0 ? 1.0 : 0.0; });
    }
    return false;
  }

 private:
  bool put(const onnx::NodeProto& node, int k, Tensor t) {
    m_.values[node.output(k)] = ValueInfo{t.elem_type, t.dims, true};
    m_.constants[node.output(k)] = std::move(t);
    return true;
  }

  bool fold_constant(const onnx::NodeProto& node, std::string* error) {
    Tensor t;
    if (const auto* a = find_attr(node, "value")) {
      if (!tensor_from_proto(a->t(), &t, error)) return false;
    } else if (const auto* f = find_attr(node, "value_float")) {
      t = Tensor::from_floats({}, {f->f()});
    } else if (const auto* fs = find_attr(node, "value_floats")) {
      t = Tensor::from_floats({fs->floats_size()}, {fs->floats().begin(), fs->floats().end()});
    } else if (const auto* i = find_attr(node, "value_int")) {
      t = Tensor::from_ints(onnx_type::kInt64, {}, {i->i()});
    } else if (const auto* is = find_attr(node, "value_ints")) {
      t = Tensor::from_ints(onnx_type::kInt64, {is->ints_size()}, {is->ints().begin(), is->ints().end()});
    } else {
      *error = describe_node(node) + ": no supported value attribute (sparse_value and strings are not supported)";
      return false;
    }
    return put(node, 0, std::move(t));
  }

  bool fold_shape(const onnx::NodeProto& node) {
    const ValueInfo* v = m_.info(node.input(0));
    if (v == nullptr || !v->is_static()) return false;
    if (node.op_type() == "Size") {
      int64_t n = 1;
      for (int64_t d : v->dims) n *= d;
      return put(node, 0, Tensor::from_ints(onnx_type::kInt64, {}, {n}));
    }
    const int64_t r = static_cast<int64_t>(v->dims.size());
    int64_t start = attr_int(node, "start", 0), end = attr_int(node, "end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<int64_t>(start, 0, r);
    end = std::clamp<int64_t>(end, start, r);
    std::vector<int64_t> d(v->dims.begin() + start, v->dims.begin() + end);
    return put(node, 0, Tensor::from_ints(onnx_type::kInt64, {static_cast<int64_t>(d.size())}, d));
  }

  bool fold_concat(const onnx::NodeProto& node, const std::vector<const Tensor*>& in) {
    const size_t r = in[0]->dims.size();
    const int64_t axis = norm_axis(attr_int(node, "axis", 0), r);
    std::vector<int64_t> od = in[0]->dims;
    od[axis] = 0;
    for (const Tensor* t : in) od[axis] += t->dims[axis];
    Tensor out = Tensor::zeros(in[0]->elem_type, od);
    const size_t esize = onnx_type::element_size(out.elem_type);
    size_t outer = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= static_cast<size_t>(od[i]);
    size_t pos = 0;
    for (size_t o = 0; o < outer; ++o) {
      for (const Tensor* t : in) {
        const size_t chunk = t->count() / std::max<size_t>(outer, 1) * esize;
        std::memcpy(out.data.data() + pos, t->data.data() + o * chunk, chunk);
        pos += chunk;
      }
    }
    return put(node, 0, std::move(out));
  }

  bool fold_gather(const onnx::NodeProto& node, const std::vector<const Tensor*>& in) {
    const Tensor& data = *in[0];
    const Tensor& idx = *in[1];
    const size_t r = data.dims.size();
    const int64_t axis = norm_axis(attr_int(node, "axis", 0), r);
    std::vector<int64_t> od(data.dims.begin(), data.dims.begin() + axis);
    od.insert(od.end(), idx.dims.begin(), idx.dims.end());
    od.insert(od.end(), data.dims.begin() + axis + 1, data.dims.end());
    Tensor out = Tensor::zeros(data.elem_type, od);
    const size_t esize = onnx_type::element_size(data.elem_type);
    size_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i) outer *= static_cast<size_t>(data.dims[i]);
    for (size_t i = axis + 1; i < r; ++i) inner *= static_cast<size_t>(data.dims[i]);
    const int64_t d = data.dims[axis];
    size_t pos = 0;
    for (size_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < idx.count(); ++k) {
        int64_t j = idx.get_int(k);
        if (j < 0) j += d;
        if (j < 0 || j >= d) return false;
        std::memcpy(out.data.data() + pos, data.data.data() + ((o * d + j) * inner) * esize, inner * esize);
        pos += inner * esize;
      }
    }
    return put(node, 0, std::move(out));
  }

  bool fold_slice(const onnx::NodeProto& node, const std::vector<const Tensor*>& in) {
    const Tensor& x = *in[0];
    const size_t r = x.dims.size();
    std::vector<int64_t> starts = in[1]->to_ints(), ends = in[2]->to_ints();
    std::vector<int64_t> axes, steps;
    if (in.size() > 3 && in[3]) axes = in[3]->to_ints();
    if (in.size() > 4 && in[4]) steps = in[4]->to_ints();
    if (axes.empty()) for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    std::vector<int64_t> b(r, 0), s(r, 1), n(x.dims);
    for (size_t k = 0; k < axes.size(); ++k) {
      const int64_t a = norm_axis(axes[k], r), d = x.dims[a], st = steps[k];
      if (st == 0) return false;
      int64_t lo = starts[k], hi = ends[k];
      if (lo < 0) lo += d;
      if (hi < 0) hi += d;
      if (st > 0) {
        lo = std::clamp<int64_t>(lo, 0, d);
        hi = std::clamp<int64_t>(hi, 0, d);
        n[a] = std::max<int64_t>(0, (hi - lo + st - 1) / st);
      } else {
        lo = std::clamp<int64_t>(lo, 0, d - 1);
        hi = std::clamp<int64_t>(hi, -1, d - 1);
        n[a] = std::max<int64_t>(0, (lo - hi + (-st) - 1) / (-st));
      }
      b[a] = lo;
      s[a] = st;
    }
    Tensor out = Tensor::zeros(x.elem_type, n);
    const size_t esize = onnx_type::element_size(x.elem_type);
    const auto xs = strides_of(x.dims);
    std::vector<int64_t> idx(r, 0);
    for (size_t o = 0; o < out.count(); ++o) {
      size_t src = 0;
      for (size_t i = 0; i < r; ++i) src += static_cast<size_t>(b[i] + idx[i] * s[i]) * xs[i];
      std::memcpy(out.data.data() + o * esize, x.data.data() + src * esize, esize);
      for (size_t i = r; i-- > 0;) {
        if (++idx[i] < n[i]) break;
        idx[i] = 0;
      }
    }
    return put(node, 0, std::move(out));
  }

  bool fold_constant_of_shape(const onnx::NodeProto& node, const std::vector<const Tensor*>& in) {
    if (in.empty() || in[0] == nullptr) return false;
    Tensor value = Tensor::from_floats({1}, {0.0f});
    if (const auto* a = find_attr(node, "value")) {
      std::string ignored;
      if (!tensor_from_proto(a->t(), &value, &ignored)) return false;
    }
    Tensor out = Tensor::zeros(value.elem_type, in[0]->to_ints());
    const size_t esize = onnx_type::element_size(value.elem_type);
    for (size_t i = 0; i < out.count(); ++i) std::memcpy(out.data.data() + i * esize, value.data.data(), esize);
    return put(node, 0, std::move(out));
  }

  bool fold_dequantize(const onnx::NodeProto& node, const std::vector<const Tensor*>& in) {
    const Tensor& x = *in[0];
    const Tensor& s = *in[1];
    const Tensor* zp = in.size() > 2 ? in[2] : nullptr;
    const size_t r = x.dims.size();
    const int64_t axis = norm_axis(attr_int(node, "axis", 1), r);
    Tensor out = Tensor::zeros(onnx_type::kFloat, x.dims);
    size_t inner = 1;
    for (size_t i = axis + 1; i < r; ++i) inner *= static_cast<size_t>(x.dims[i]);
    for (size_t i = 0; i < x.count(); ++i) {
      const size_t c = s.count() == 1 ? 0 : (i / inner) % static_cast<size_t>(x.dims[axis]);
      const double z = zp != nullptr ? zp->get(c) : 0.0;
      out.set(i, (x.get(i) - z) * s.get(c));
    }
    return put(node, 0, std::move(out));
  }

  // Where(cond, a, b) with numpy broadcasting over all three.
  bool fold_where(const onnx::NodeProto& node, const std::vector<const Tensor*>& in) {
    const Tensor& c = *in[0];
    const Tensor& a = *in[1];
    const Tensor& b = *in[2];
    if (a.elem_type != b.elem_type) return false;
    const size_t r = std::max({c.dims.size(), a.dims.size(), b.dims.size()});
    auto padded = [r](const std::vector<int64_t>& d) {
      std::vector<int64_t> p(r, 1);
      std::copy(d.begin(), d.end(), p.begin() + (r - d.size()));
      return p;
    };
    const std::vector<int64_t> cd = padded(c.dims), ad = padded(a.dims), bd = padded(b.dims);
    std::vector<int64_t> od(r, 1);
    for (size_t i = 0; i < r; ++i) {
      od[i] = std::max({cd[i], ad[i], bd[i]});
      for (int64_t d : {cd[i], ad[i], bd[i]}) {
        if (d != 1 && d != od[i]) return false;
      }
    }
    Tensor out = Tensor::zeros(a.elem_type, od);
    const size_t esize = onnx_type::element_size(a.elem_type);
    const auto cs = strides_of(cd), as = strides_of(ad), bs = strides_of(bd);
    std::vector<int64_t> idx(r, 0);
    for (size_t o = 0; o < out.count(); ++o) {
      size_t ic = 0, ia = 0, ib = 0;
      for (size_t i = 0; i < r; ++i) {
        ic += (cd[i] == 1 ? 0 : idx[i]) * cs[i];
        ia += (ad[i] == 1 ? 0 : idx[i]) * as[i];
        ib += (bd[i] == 1 ? 0 : idx[i]) * bs[i];
      }
      const bool take_a = c.get(ic) != 0.0;
      std::memcpy(out.data.data() + o * esize, (take_a ? a : b).data.data() + (take_a ? ia : ib) * esize, esize);
      for (size_t i = r; i-- > 0;) {
        if (++idx[i] < od[i]) break;
        idx[i] = 0;
      }
    }
    return put(node, 0, std::move(out));
  }

  // ReduceProd over `axes` (attribute, or input 1 from opset 18; none: all
  // axes unless noop_with_empty_axes), keepdims as given (default 1).
  bool fold_reduce_prod(const onnx::NodeProto& node, const std::vector<const Tensor*>& in) {
    const Tensor& x = *in[0];
    const size_t r = x.dims.size();
    std::vector<int64_t> axes = attr_ints(node, "axes");
    if (in.size() > 1 && in[1] != nullptr) axes = in[1]->to_ints();
    if (axes.empty() && attr_int(node, "noop_with_empty_axes", 0) != 0) return put(node, 0, x);
    std::vector<bool> reduced(r, axes.empty());
    for (int64_t a : axes) {
      const int64_t k = norm_axis(a, r);
      if (k < 0 || k >= static_cast<int64_t>(r)) return false;
      reduced[k] = true;
    }
    const bool keep = attr_int(node, "keepdims", 1) != 0;
    std::vector<int64_t> kd(r), od;
    for (size_t i = 0; i < r; ++i) {
      kd[i] = reduced[i] ? 1 : x.dims[i];
      if (!reduced[i] || keep) od.push_back(kd[i]);
    }
    Tensor out = Tensor::zeros(x.elem_type, od);
    const bool is_int = x.elem_type == onnx_type::kInt64 || x.elem_type == onnx_type::kInt32;
    std::vector<double> acc(out.count(), 1.0);
    std::vector<int64_t> iacc(out.count(), 1);
    const auto ks = strides_of(kd);
    std::vector<int64_t> idx(r, 0);
    for (size_t i = 0; i < x.count(); ++i) {
      size_t o = 0;
      for (size_t k = 0; k < r; ++k) o += (reduced[k] ? 0 : idx[k]) * ks[k];
      if (is_int) {
        iacc[o] *= x.get_int(i);
      } else {
        acc[o] *= x.get(i);
      }
      for (size_t k = r; k-- > 0;) {
        if (++idx[k] < x.dims[k]) break;
        idx[k] = 0;
      }
    }
    for (size_t o = 0; o < out.count(); ++o) {
      if (x.elem_type == onnx_type::kInt64) {
        std::memcpy(out.data.data() + 8 * o, &iacc[o], 8);
      } else {
        out.set(o, is_int ? static_cast<double>(iacc[o]) : acc[o]);
      }
    }
    return put(node, 0, std::move(out));
  }

  Model& m_;
  bool keep_dequantize_;
};

}  // namespace

bool fold_constants(Model* model, std::string* error, size_t* folded, bool keep_dequantize) {
  size_t removed = 0;
  error->clear();
  // An empty graph input (a 0 in its static shape) has no values to give:
  // it is a known empty constant (e.g. "no axes").
  for (auto it = model->inputs.begin(); it != model->inputs.end();) {
    const ValueInfo* v = model->info(*it);
    bool empty = false;
    if (v != nullptr && v->is_static() && onnx_type::element_size(v->elem_type) != 0) {
      for (int64_t d : v->dims) empty = empty || d == 0;
    }
    if (empty) {
      model->constants[*it] = Tensor::zeros(v->elem_type, v->dims);
      it = model->inputs.erase(it);
    } else {
      ++it;
    }
  }
  // Folding a node can make its consumers foldable and can sharpen shapes
  // (a folded Reshape target), so alternate with shape inference until
  // nothing changes. No cap on the rounds: each one removes a node or ends
  // the loop, and a model whose shapes are computed stage after stage needs
  // one or more per stage (torchvision's Swin-T: a window padding per block
  // computed from the previous block's output shape; 8 rounds, the old cap,
  // left its third stage's shapes unknown).
  for (;;) {
    Folder folder(model, keep_dequantize);
    std::vector<onnx::NodeProto> kept;
    size_t now = 0;
    for (const auto& n : model->nodes) {
      bool did = false;
      try {
        did = folder.try_fold(n, error);
      } catch (const TensorTooLarge& e) {
        // A result over the limits is refused, not allocated (model.h).
        *error = describe_node(n) + ": its constant result cannot be computed: " + e.what();
        return false;
      }
      if (did) {
        ++now;
        continue;
      }
      if (!error->empty()) return false;
      kept.push_back(n);
    }
    model->nodes = std::move(kept);
    removed += now;
    if (now == 0) break;
    if (!infer_shapes(model, error)) return false;
  }
  // A folded graph output stays a constant; the lowering copies it out.
  if (folded != nullptr) *folded = removed;
  return true;
}

}  // namespace openhtp::onnx_import
