#include "onnx/rank_collapse.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "onnx/attributes.h"
#include "onnx/graph_rewrite.h"

namespace openhtp::onnx_import {

namespace {

constexpr size_t kMaxRank = 5;

const std::set<std::string> kElementwise = {
    "Add",  "Sub",     "Mul",     "Div",        "Pow",         "Max",         "Min",      "Sum",      "Mean",
    "Where", "Equal",  "Less",    "Greater",    "LessOrEqual", "GreaterOrEqual", "And",   "Or",       "Xor",
    "Mod",  "Neg",     "Abs",     "Exp",        "Log",         "Sqrt",        "Relu",     "Sigmoid",  "Tanh",
    "Cast", "Not",     "Reciprocal", "Floor",   "Ceil",        "Round",       "Sign",     "Erf",      "Softplus",
    "Softsign", "LeakyRelu", "Elu", "Selu",     "HardSigmoid", "HardSwish",   "Sin",      "Cos",      "IsNaN",
    "IsInf", "Clip",   "ThresholdedRelu", "Celu", "Gelu",      "Mish"};

const std::set<std::string> kReductions = {"ReduceSum",  "ReduceMean", "ReduceMax",       "ReduceMin",
                                           "ReduceProd", "ReduceL1",   "ReduceL2",        "ReduceLogSum",
                                           "ReduceLogSumExp", "ReduceSumSquare"};

const std::set<std::string> kReshapes = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};

bool is_default_domain(const onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; }

int64_t product(const std::vector<int64_t>& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= d[i];
  return p;
}

// d with its trailing m axes merged into one.
std::vector<int64_t> merged(const std::vector<int64_t>& d, size_t m) {
  std::vector<int64_t> v(d.begin(), d.end() - static_cast<std::ptrdiff_t>(m));
  v.push_back(product(d, d.size() - m, d.size()));
  return v;
}

struct Collapser {
  Model& m;
  NameGen names;
  explicit Collapser(Model& model) : m(model), names(model) {}

  const ValueInfo* info(const std::string& v) const {
    const ValueInfo* i = v.empty() ? nullptr : m.info(v);
    return i != nullptr && i->is_static() ? i : nullptr;
  }
  bool high(const std::string& v) const {
    const ValueInfo* i = info(v);
    return i != nullptr && i->dims.size() > kMaxRank;
  }
  bool touches_high(const onnx::NodeProto& n) const {
    for (const auto& i : n.input()) {
      if (high(i)) return true;
    }
    for (const auto& o : n.output()) {
      if (high(o)) return true;
    }
    return false;
  }
  void set_info(const std::string& v, int32_t type, std::vector<int64_t> dims) {
    m.values[v] = ValueInfo{type, std::move(dims), true};
  }

  // ---- graph inputs and outputs ----
  size_t view_graph_io(std::vector<onnx::NodeProto>* nodes) {
    auto rank5 = [](const std::vector<int64_t>& d) { return merged(d, d.size() - (kMaxRank - 1)); };
    auto rename_uses = [&](const std::string& from, const std::string& to) {
      for (auto& n : *nodes) {
        for (auto& i : *n.mutable_input()) {
          if (i == from) i = to;
        }
      }
    };
    std::vector<onnx::NodeProto> before, after;
    const std::set<std::string> outs(m.outputs.begin(), m.outputs.end());
    for (const std::string& x : m.inputs) {
      if (!high(x) || outs.count(x) != 0) continue;
      const ValueInfo v = *info(x);
      const std::string full = names.fresh(x + "_full_rank");
      rename_uses(x, full);
      set_info(full, v.elem_type, v.dims);
      set_info(x, v.elem_type, rank5(v.dims));
      m.io_views[x] = v.dims;
      before.push_back(reshape_node(&m, names, x, v.dims, full, names.fresh(full + "_reshape")));
    }
    for (const std::string& y : m.outputs) {
      if (!high(y) || m.is_constant(y) || std::count(m.inputs.begin(), m.inputs.end(), y) != 0) continue;
      const ValueInfo v = *info(y);
      const std::string full = names.fresh(y + "_full_rank");
      rename_uses(y, full);
      for (auto& n : *nodes) {
        for (auto& o : *n.mutable_output()) {
          if (o == y) o = full;
        }
      }
      set_info(full, v.elem_type, v.dims);
      set_info(y, v.elem_type, rank5(v.dims));
      m.io_views[y] = v.dims;
      after.push_back(reshape_node(&m, names, full, rank5(v.dims), y, names.fresh(y + "_reshape")));
    }
    const size_t added = before.size() + after.size();
    before.insert(before.end(), nodes->begin(), nodes->end());
    before.insert(before.end(), after.begin(), after.end());
    *nodes = std::move(before);
    return added;
  }

  // ---- views around one node ----
  struct Part {
    bool output;
    int index;
    size_t free;        // trailing axes the op does not act on
    bool ones = false;  // its trailing axes are all 1 (a kept reduced axis), not the shared dims
  };

  // The value's name for part p of n.
  static const std::string& name_of(const onnx::NodeProto& n, const Part& p) {
    return p.output ? n.output(p.index) : n.input(p.index);
  }

  // Rewrites n on views with the trailing `mm` axes of each part merged.
  void emit(onnx::NodeProto n, const std::vector<Part>& parts, size_t mm, std::vector<onnx::NodeProto>* out) {
    std::vector<onnx::NodeProto> after;
    for (const Part& p : parts) {
      const std::string orig = name_of(n, p);
      const ValueInfo v = *info(orig);
      const std::vector<int64_t> view = merged(v.dims, mm);
      const std::string c = names.fresh(orig + "_view");
      set_info(c, v.elem_type, view);
      if (p.output) {
        n.set_output(p.index, c);
        after.push_back(reshape_node(&m, names, c, v.dims, orig, names.fresh(orig + "_unview")));
      } else if (const Tensor* t = m.constant(orig)) {
        Tensor tv = *t;
        tv.dims = view;
        m.constants[c] = std::move(tv);
        n.set_input(p.index, c);
      } else {
        out->push_back(reshape_node(&m, names, orig, view, c, names.fresh(c + "_reshape")));
        n.set_input(p.index, c);
      }
    }
    out->push_back(n);
    out->insert(out->end(), after.begin(), after.end());
  }

  // The largest m (>= 2) for which every part's trailing m axes are free and
  // the same (or all 1 for `ones` parts) and every view has rank <= 5; 0 if none.
  size_t choose(const onnx::NodeProto& n, const std::vector<Part>& parts) const {
    size_t max_free = SIZE_MAX, need = 0;
    for (const Part& p : parts) {
      const ValueInfo* v = info(name_of(n, p));
      if (v == nullptr) return 0;
      max_free = std::min(max_free, std::min(p.free, v->dims.size()));
      if (v->dims.size() > kMaxRank) need = std::max(need, v->dims.size() - kMaxRank + 1);
    }
    for (size_t mm = max_free; mm >= 2 && mm >= need; --mm) {
      const std::vector<int64_t>* ref = nullptr;
      bool ok = true;
      for (const Part& p : parts) {
        const auto& d = info(name_of(n, p))->dims;
        if (p.ones) {
          ok = ok && std::all_of(d.end() - static_cast<std::ptrdiff_t>(mm), d.end(), [](int64_t x) { return x == 1; });
          continue;
        }
        if (ref == nullptr) {
          ref = &d;
        } else {
          ok = ok && std::equal(d.end() - static_cast<std::ptrdiff_t>(mm), d.end(),
                                ref->end() - static_cast<std::ptrdiff_t>(mm));
        }
      }
      if (ok) return mm;
    }
    return 0;
  }

  bool collapse_elementwise(const onnx::NodeProto& n, std::vector<onnx::NodeProto>* out) {
    if (n.output_size() != 1) return false;
    const ValueInfo* o = info(n.output(0));
    if (o == nullptr) return false;
    const size_t r = o->dims.size();
    const bool like = n.op_type() == "CastLike";
    for (size_t mm = r; mm >= 2 && r - mm + 1 <= kMaxRank; --mm) {
      const size_t new_rank = r - mm + 1;
      bool ok = true;
      std::vector<std::pair<int, std::vector<int64_t>>> views;  // input index -> view dims
      for (int i = 0; i < n.input_size() && ok; ++i) {
        if (n.input(i).empty() || (like && i == 1)) continue;
        const ValueInfo* v = info(n.input(i));
        if (v == nullptr) {
          ok = false;
          break;
        }
        const auto& d = v->dims;
        const size_t ri = d.size();
        if (product(d, 0, ri) == 1) {
          if (ri > new_rank) views.push_back({i, {1}});
          continue;
        }
        if (ri < mm) {
          ok = false;
          break;
        }
        bool equal = true, ones = true;
        for (size_t k = 0; k < mm; ++k) {
          equal = equal && d[ri - mm + k] == o->dims[r - mm + k];
          ones = ones && d[ri - mm + k] == 1;
        }
        ok = equal || ones;
        views.push_back({i, merged(d, mm)});
      }
      if (!ok) continue;
      onnx::NodeProto c = n;
      for (const auto& [i, view] : views) {
        const ValueInfo v = *info(n.input(i));
        const std::string name = names.fresh(n.input(i) + "_view");
        set_info(name, v.elem_type, view);
        if (const Tensor* t = m.constant(n.input(i))) {
          Tensor tv = *t;
          tv.dims = view;
          m.constants[name] = std::move(tv);
        } else {
          out->push_back(reshape_node(&m, names, n.input(i), view, name, names.fresh(name + "_reshape")));
        }
        c.set_input(i, name);
      }
      const std::string y = names.fresh(n.output(0) + "_view");
      set_info(y, o->elem_type, merged(o->dims, mm));
      c.set_output(0, y);
      out->push_back(c);
      out->push_back(reshape_node(&m, names, y, o->dims, n.output(0), names.fresh(n.output(0) + "_unview")));
      return true;
    }
    return false;
  }

  static void set_int_attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
    for (auto& a : *n->mutable_attribute()) {
      if (a.name() == name) {
        a.set_i(v);
        return;
      }
    }
    set_attr_int(n, name, v);
  }

  // Axes of n (attribute `axes` or constant input `input`), normalized; false if not known.
  bool axes_of(const onnx::NodeProto& n, int input, size_t rank, std::vector<int64_t>* axes, bool* given) const {
    std::vector<int64_t> a;
    *given = false;
    if (has_attr(n, "axes")) {
      a = attr_ints(n, "axes");
      *given = true;
    } else if (input >= 0 && !input_name(n, input).empty()) {
      const Tensor* t = m.constant(n.input(input));
      if (t == nullptr) return false;
      a = t->to_ints();
      *given = true;
    }
    for (auto& x : a) x = normalize_axis(x, rank);
    *axes = a;
    return true;
  }
  static int64_t normalize_axis(int64_t a, size_t r) { return a < 0 ? a + static_cast<int64_t>(r) : a; }

  void set_axes(onnx::NodeProto* n, int input, const std::vector<int64_t>& axes) {
    for (auto& a : *n->mutable_attribute()) {
      if (a.name() == "axes") {
        a.clear_ints();
        for (int64_t x : axes) a.add_ints(x);
        return;
      }
    }
    if (input >= 0 && !input_name(*n, input).empty()) {
      n->set_input(input, add_int64s(&m, names, n->output(0) + "_axes", {static_cast<int64_t>(axes.size())}, axes));
    }
  }

  bool collapse_fixed(const onnx::NodeProto& n0, std::vector<onnx::NodeProto>* out) {
    onnx::NodeProto n = n0;
    const std::string& t = n.op_type();
    const ValueInfo* x = info(input_name(n, 0));
    if (x == nullptr) return false;
    const size_t r = x->dims.size();
    std::vector<Part> parts;
    if (t == "GatherElements") {
      const int64_t a = normalize_axis(attr_int(n, "axis", 0), r);
      const size_t f = r - 1 - static_cast<size_t>(a);
      set_int_attr(&n, "axis", a);
      parts = {{false, 0, f}, {false, 1, f}, {true, 0, f}};
    } else if (t == "Gather") {
      const int64_t a = normalize_axis(attr_int(n, "axis", 0), r);
      const ValueInfo* idx = info(input_name(n, 1));
      if (idx == nullptr || a != static_cast<int64_t>(r) - 1 || high(n.input(0))) return false;
      set_int_attr(&n, "axis", a);
      parts = {{false, 1, idx->dims.size()}, {true, 0, idx->dims.size()}};
    } else if (t == "Softmax" || t == "LogSoftmax" || t == "Hardmax") {
      const int64_t a = normalize_axis(attr_int(n, "axis", m.opset >= 13 ? -1 : 1), r);
      set_int_attr(&n, "axis", a);
      parts = {{false, 0, r - 1 - static_cast<size_t>(a)}, {true, 0, r - 1 - static_cast<size_t>(a)}};
    } else if (t == "Slice") {
      if (m.opset < 10) return false;
      const Tensor* starts = m.constant(input_name(n, 1));
      if (starts == nullptr) return false;
      std::vector<int64_t> axes;
      bool given = false;
      if (!axes_of(n, 3, r, &axes, &given)) return false;
      if (!given) {
        axes.resize(starts->count());
        std::iota(axes.begin(), axes.end(), 0);
      } else {
        set_axes(&n, 3, axes);
      }
      const int64_t hi = axes.empty() ? -1 : *std::max_element(axes.begin(), axes.end());
      parts = {{false, 0, r - 1 - static_cast<size_t>(hi)}, {true, 0, r - 1 - static_cast<size_t>(hi)}};
    } else if (kReductions.count(t) != 0) {
      const int axes_input = (t == "ReduceSum" && m.opset >= 13) || m.opset >= 18 ? 1 : -1;
      std::vector<int64_t> axes;
      bool given = false;
      if (!axes_of(n, axes_input, r, &axes, &given)) return false;
      if (axes.empty() && attr_int(n, "noop_with_empty_axes", 0) != 0) return false;
      const bool keep = attr_int(n, "keepdims", 1) != 0;
      std::set<int64_t> s(axes.begin(), axes.end());
      const bool all = axes.empty() || s.size() == r;
      if (all) {
        // Reduce everything: the view is reduced whole.
        if (axes_input >= 0 && n.input_size() > axes_input) n.set_input(axes_input, "");
        n.mutable_attribute()->erase(
            std::remove_if(n.mutable_attribute()->begin(), n.mutable_attribute()->end(),
                           [](const onnx::AttributeProto& a) { return a.name() == "axes"; }),
            n.mutable_attribute()->end());
        parts = {{false, 0, r}};
        if (keep) parts.push_back({true, 0, r, true});
      } else {
        set_axes(&n, axes_input, axes);
        const size_t f = r - 1 - static_cast<size_t>(*s.rbegin());
        parts = {{false, 0, f}, {true, 0, f}};
      }
    } else if (t == "NegativeLogLikelihoodLoss" || t == "SoftmaxCrossEntropyLoss") {
      if (r < 3) return false;
      parts = {{false, 0, r - 2}, {false, 1, r - 1}};
      if (attr_string(n, "reduction", "mean") == "none") parts.push_back({true, 0, r - 1});
      if (!output_name(n, 1).empty()) parts.push_back({true, 1, r - 2});
    } else {
      return false;
    }
    // Every rank > 5 value of the node must be a part.
    std::set<std::string> covered;
    for (const Part& p : parts) covered.insert(name_of(n0, p));
    for (const auto& v : n0.input()) {
      if (high(v) && covered.count(v) == 0) return false;
    }
    for (const auto& v : n0.output()) {
      if (high(v) && covered.count(v) == 0) return false;
    }
    const size_t mm = choose(n, parts);
    if (mm == 0) return false;
    emit(n, parts, mm, out);
    return true;
  }

  bool collapse_transpose(const onnx::NodeProto& n, std::vector<onnx::NodeProto>* out) {
    const ValueInfo* x = info(n.input(0));
    const ValueInfo* y = info(n.output(0));
    if (x == nullptr || y == nullptr) return false;
    const size_t r = x->dims.size();
    std::vector<int64_t> perm = attr_ints(n, "perm");
    if (perm.empty()) {
      for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
    }
    // Axes of size 1 carry no order: left out of the view, they let the axes
    // around them meet (MaxViT's window partition moves a [1, C, 8, 7, 8, 7]
    // map to [1, 8, 8, 7, 7, C], rank 5 without its batch axis).
    std::vector<int64_t> dims, axis_in_view(r, -1);
    for (size_t a = 0; a < r; ++a) {
      if (x->dims[a] == 1) continue;
      axis_in_view[a] = static_cast<int64_t>(dims.size());
      dims.push_back(x->dims[a]);
    }
    // Runs of the other input axes that stay adjacent and in order in the output.
    std::vector<std::pair<int64_t, int64_t>> runs;  // [first, last] axes of `dims`, in output order
    for (int64_t p : perm) {
      if (p < 0 || static_cast<size_t>(p) >= r) return false;
      const int64_t a = axis_in_view[static_cast<size_t>(p)];
      if (a < 0) continue;
      if (!runs.empty() && a == runs.back().second + 1) {
        runs.back().second = a;
      } else {
        runs.push_back({a, a});
      }
    }
    if (runs.empty()) {  // every axis of size 1: one element, a view of rank 1
      dims = {1};
      runs.push_back({0, 0});
    }
    if (runs.size() > kMaxRank || runs.size() == r) return false;
    std::vector<size_t> order(runs.size());  // runs in input order
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return runs[a].first < runs[b].first; });
    std::vector<int64_t> in_dims, out_dims, new_perm(runs.size());
    for (size_t k = 0; k < order.size(); ++k) {
      const auto& run = runs[order[k]];
      in_dims.push_back(product(dims, static_cast<size_t>(run.first), static_cast<size_t>(run.second) + 1));
    }
    for (size_t j = 0; j < runs.size(); ++j) {
      const size_t pos = static_cast<size_t>(std::find(order.begin(), order.end(), j) - order.begin());
      new_perm[j] = static_cast<int64_t>(pos);
      out_dims.push_back(in_dims[pos]);
    }
    const std::string xv = names.fresh(n.input(0) + "_view");
    const std::string yv = names.fresh(n.output(0) + "_view");
    set_info(xv, x->elem_type, in_dims);
    set_info(yv, y->elem_type, out_dims);
    out->push_back(reshape_node(&m, names, n.input(0), in_dims, xv, names.fresh(xv + "_reshape")));
    onnx::NodeProto c = make_node("Transpose", {xv}, {yv}, n.name());
    set_attr_ints(&c, "perm", new_perm);
    out->push_back(c);
    out->push_back(reshape_node(&m, names, yv, y->dims, n.output(0), names.fresh(n.output(0) + "_unview")));
    return true;
  }

  bool collapse(const onnx::NodeProto& n, std::vector<onnx::NodeProto>* out) {
    if (!is_default_domain(n)) return false;
    if (kElementwise.count(n.op_type()) != 0 || n.op_type() == "CastLike") return collapse_elementwise(n, out);
    if (n.op_type() == "Transpose") return collapse_transpose(n, out);
    return collapse_fixed(n, out);
  }

  // One round: reshape-likes to static Reshapes reading past rank > 5
  // reshapes, other nodes onto views, dead rank > 5 reshapes removed.
  bool round(std::vector<onnx::NodeProto>* nodes) {
    std::map<std::string, const onnx::NodeProto*> producer;
    for (const auto& n : *nodes) {
      for (const auto& o : n.output()) producer[o] = &n;
    }
    bool changed = false;
    std::vector<onnx::NodeProto> out;
    for (const auto& n : *nodes) {
      if (!touches_high(n)) {
        out.push_back(n);
        continue;
      }
      const bool reshape_like = is_default_domain(n) && kReshapes.count(n.op_type()) != 0 && n.output_size() == 1;
      if (reshape_like && info(n.output(0)) != nullptr) {
        std::string src = n.input(0);
        for (auto it = producer.find(src); it != producer.end() && it->second->op_type() == "Reshape" && high(src);
             it = producer.find(src)) {
          src = it->second->input(0);
        }
        const std::vector<int64_t>& dims = info(n.output(0))->dims;
        const Tensor* shape = n.op_type() == "Reshape" ? m.constant(input_name(n, 1)) : nullptr;
        if (src == n.input(0) && shape != nullptr && shape->to_ints() == dims) {
          out.push_back(n);
          continue;
        }
        out.push_back(reshape_node(&m, names, src, dims, n.output(0), n.name()));
        changed = true;
        continue;
      }
      if (collapse(n, &out)) {
        changed = true;
      } else {
        out.push_back(n);
      }
    }
    // Drop Reshapes nothing reads any more.
    std::set<std::string> used(m.outputs.begin(), m.outputs.end());
    for (const auto& n : out) {
      for (const auto& i : n.input()) used.insert(i);
      for (const auto& a : n.attribute()) {
        if (a.has_g()) collect_graph_names(a.g(), &used);
      }
    }
    std::vector<onnx::NodeProto> kept;
    for (auto& n : out) {
      if (n.op_type() == "Reshape" && n.output_size() == 1 && high(n.output(0)) && used.count(n.output(0)) == 0) {
        changed = true;
        continue;
      }
      kept.push_back(std::move(n));
    }
    *nodes = std::move(kept);
    return changed;
  }
};

}  // namespace

bool collapse_high_ranks(Model* model, size_t* rewritten, std::string* error) {
  *rewritten = 0;
  Collapser c(*model);
  bool any = false;
  for (const auto& n : model->nodes) any = any || c.touches_high(n);
  for (const auto& o : model->outputs) any = any || c.high(o);
  if (!any) return true;
  // All or nothing: when some rank > 5 value stays, the model is refused
  // anyway, and the original nodes name what cannot be expressed.
  Model original = *model;
  std::vector<onnx::NodeProto> nodes = model->nodes;
  size_t count = c.view_graph_io(&nodes);
  for (int r = 0; r < 64 && c.round(&nodes); ++r) ++count;
  bool left = false;
  for (const auto& n : nodes) left = left || c.touches_high(n);
  if (left) {
    *model = std::move(original);
    return true;
  }
  model->nodes = std::move(nodes);
  *rewritten = count;
  return infer_shapes(model, error);
}

}  // namespace openhtp::onnx_import
