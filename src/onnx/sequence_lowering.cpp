#include "onnx/sequence_lowering.h"

#include <map>
#include <set>

#include "onnx/attributes.h"
#include "onnx/graph_rewrite.h"

namespace openhtp::onnx_import {

namespace {

const std::set<std::string> kSequenceOps = {"SequenceEmpty", "SequenceConstruct", "SequenceInsert",
                                            "SequenceErase", "SequenceAt",        "SequenceLength",
                                            "SplitToSequence", "ConcatFromSequence"};

bool is_sequence_op(const onnx::NodeProto& n) {
  return (n.domain().empty() || n.domain() == "ai.onnx") && kSequenceOps.count(n.op_type()) != 0;
}

struct Lowering {
  Model& m;
  NameGen names;
  std::map<std::string, std::vector<std::string>> seqs;
  std::vector<onnx::NodeProto> out;
  std::string why;  // the refusal, for `failed`
  std::string failed;

  explicit Lowering(Model& model) : m(model), names(model) {}

  bool refuse(const onnx::NodeProto& n, const std::string& reason) {
    failed = node_base(n);
    why = reason;
    return false;
  }
  // The list behind sequence input `i` of n.
  const std::vector<std::string>* list(const onnx::NodeProto& n, int i) {
    auto it = seqs.find(input_name(n, i));
    if (it == seqs.end()) {
      refuse(n, "sequence '" + input_name(n, i) +
                    "' is not built in this graph from tensors (a graph input, or made by an op the importer does "
                    "not unroll): QNN graphs take tensors only");
      return nullptr;
    }
    return &it->second;
  }
  // Constant position input `i` normalized against `size` (inclusive end when insert).
  bool position(const onnx::NodeProto& n, int i, size_t size, bool insert, size_t* pos) {
    const std::string name = input_name(n, i);
    if (name.empty()) {
      if (!insert && size == 0) return refuse(n, "erases from an empty sequence");
      *pos = insert ? size : size - 1;
      return true;
    }
    const Tensor* c = m.constant(name);
    if (c == nullptr || c->count() != 1) {
      return refuse(n, "position (input " + std::to_string(i) + ", '" + name +
                           "') is not a constant: a sequence's elements are fixed at conversion time");
    }
    int64_t p = c->get_int(0);
    const int64_t s = static_cast<int64_t>(size);
    if (p < 0) p += s;
    if (p < 0 || p > s || (!insert && p == s)) {
      return refuse(n, "position " + std::to_string(c->get_int(0)) + " is outside the sequence of " +
                           std::to_string(size) + " element(s)");
    }
    *pos = static_cast<size_t>(p);
    return true;
  }

  bool split_to_sequence(const onnx::NodeProto& n) {
    const ValueInfo* x = m.info(n.input(0));
    if (x == nullptr || !x->is_static()) return refuse(n, "input '" + n.input(0) + "' has no static shape");
    const int64_t rank = static_cast<int64_t>(x->dims.size());
    int64_t axis = attr_int(n, "axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return refuse(n, "axis out of range");
    const int64_t dim = x->dims[axis];
    const std::string split = input_name(n, 1);
    std::vector<int64_t> sizes;
    bool squeeze = false;
    if (split.empty()) {
      sizes.assign(static_cast<size_t>(dim), 1);
      squeeze = attr_int(n, "keepdims", 1) == 0;
    } else {
      const Tensor* c = m.constant(split);
      if (c == nullptr) {
        return refuse(n, "split (input 1, '" + split + "') is not a constant: the sequence length is fixed at conversion time");
      }
      if (c->dims.empty()) {
        const int64_t s = c->get_int(0);
        if (s <= 0) return refuse(n, "split size must be positive");
        for (int64_t left = dim; left > 0; left -= s) sizes.push_back(std::min(s, left));
      } else {
        sizes = c->to_ints();
      }
    }
    int64_t total = 0;
    for (int64_t s : sizes) total += s;
    if (total != dim || sizes.empty()) return refuse(n, "split sizes do not add up to the axis's size " + std::to_string(dim));
    const std::string base = node_base(n);
    std::vector<std::string> parts, pieces;  // every element; the non-empty ones
    std::vector<int64_t> piece_sizes;
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (sizes[k] == 0) {
        // An empty element is an empty constant: QNN has no empty tensors,
        // so a node that reads it is refused, but its count is known.
        std::vector<int64_t> d = x->dims;
        d[axis] = 0;
        parts.push_back(add_constant(&m, names, base + "_" + std::to_string(k), Tensor::zeros(x->elem_type, d)));
        continue;
      }
      parts.push_back(names.fresh(base + "_" + std::to_string(k)));
      pieces.push_back(parts.back());
      piece_sizes.push_back(sizes[k]);
    }
    if (pieces.empty()) {
      // Every element is empty: nothing to compute.
    } else if (pieces.size() == 1) {
      out.push_back(make_node("Identity", {n.input(0)}, {pieces[0]}, names.fresh(base + "_identity")));
    } else {
      onnx::NodeProto s = make_node("Split", {n.input(0)}, pieces, names.fresh(base + "_split"));
      set_attr_int(&s, "axis", axis);
      if (m.opset >= 13) {
        s.add_input(
            add_int64s(&m, names, base + "_sizes", {static_cast<int64_t>(piece_sizes.size())}, piece_sizes));
      } else {
        set_attr_ints(&s, "split", piece_sizes);
      }
      out.push_back(s);
    }
    if (squeeze) {
      std::vector<int64_t> d = x->dims;
      d.erase(d.begin() + axis);
      for (auto& p : parts) {
        const std::string sq = names.fresh(p + "_squeezed");
        out.push_back(reshape_node(&m, names, p, d, sq, names.fresh(sq + "_reshape")));
        p = sq;
      }
    }
    seqs[n.output(0)] = parts;
    return true;
  }

  bool concat_from_sequence(const onnx::NodeProto& n) {
    const auto* l = list(n, 0);
    if (l == nullptr) return false;
    if (l->empty()) return refuse(n, "concatenates an empty sequence");
    const ValueInfo* first = m.info(l->front());
    if (first == nullptr || !first->has_shape) return refuse(n, "element '" + l->front() + "' has no known rank");
    const bool new_axis = attr_int(n, "new_axis", 0) != 0;
    const int64_t rank = static_cast<int64_t>(first->dims.size()) + (new_axis ? 1 : 0);
    int64_t axis = attr_int(n, "axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return refuse(n, "axis out of range");
    std::vector<std::string> parts = *l;
    if (new_axis) {
      for (auto& p : parts) {
        const std::string u = names.fresh(p + "_unsqueezed");
        out.push_back(axes_node(&m, names, "Unsqueeze", p, {axis}, u, names.fresh(u + "_node")));
        p = u;
      }
    }
    out.push_back(concat_node(parts, axis, n.output(0), names.fresh(node_base(n) + "_concat")));
    return true;
  }

  bool lower(const onnx::NodeProto& n) {
    const std::string& t = n.op_type();
    if (t == "SequenceEmpty") {
      seqs[n.output(0)] = {};
    } else if (t == "SequenceConstruct") {
      seqs[n.output(0)] = {n.input().begin(), n.input().end()};
    } else if (t == "SequenceInsert" || t == "SequenceErase") {
      const auto* l = list(n, 0);
      if (l == nullptr) return false;
      const bool insert = t == "SequenceInsert";
      size_t pos = 0;
      if (!position(n, insert ? 2 : 1, l->size(), insert, &pos)) return false;
      std::vector<std::string> v = *l;
      if (insert) {
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(pos), n.input(1));
      } else {
        v.erase(v.begin() + static_cast<std::ptrdiff_t>(pos));
      }
      seqs[n.output(0)] = std::move(v);
    } else if (t == "SequenceAt") {
      const auto* l = list(n, 0);
      if (l == nullptr) return false;
      size_t pos = 0;
      if (!position(n, 1, l->size(), false, &pos)) return false;
      out.push_back(make_node("Identity", {(*l)[pos]}, {n.output(0)}, names.fresh(node_base(n) + "_identity")));
    } else if (t == "SequenceLength") {
      const auto* l = list(n, 0);
      if (l == nullptr) return false;
      Tensor len = Tensor::from_ints(onnx_type::kInt64, {}, {static_cast<int64_t>(l->size())});
      m.values[n.output(0)] = ValueInfo{len.elem_type, len.dims, true};
      m.constants[n.output(0)] = std::move(len);
    } else if (t == "SplitToSequence") {
      return split_to_sequence(n);
    } else {
      return concat_from_sequence(n);
    }
    return true;
  }
};

}  // namespace

size_t lower_sequences(Model* model) {
  bool any = false;
  for (const auto& n : model->nodes) any = any || is_sequence_op(n);
  if (!any) return 0;
  Model trial = *model;
  Lowering l(trial);
  size_t replaced = 0;
  for (const auto& n : model->nodes) {
    if (!is_sequence_op(n)) {
      for (int i = 0; i < n.input_size(); ++i) {
        if (l.seqs.count(n.input(i)) != 0) {
          l.refuse(n, "reads sequence '" + n.input(i) + "', and only the sequence ops are written as lists of tensors");
          break;
        }
      }
      if (!l.failed.empty()) break;
      l.out.push_back(n);
      continue;
    }
    if (!l.lower(n)) break;
    ++replaced;
  }
  for (const auto& o : trial.outputs) {
    if (l.failed.empty() && l.seqs.count(o) != 0) {
      l.failed = o;
      for (const auto& n : model->nodes) {  // refuse the node that makes it
        for (const auto& out : n.output()) {
          if (out == o) l.failed = node_base(n);
        }
      }
      l.why = "sequence '" + o + "' is a graph output (QNN graphs give tensors only)";
    }
  }
  if (!l.failed.empty()) {
    model->rewrite_refusals[l.failed] = l.why;
    return 0;
  }
  trial.nodes = std::move(l.out);
  for (const auto& [name, v] : l.seqs) trial.values.erase(name);
  *model = std::move(trial);
  return replaced;
}

}  // namespace openhtp::onnx_import
