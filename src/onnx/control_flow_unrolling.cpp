#include "onnx/control_flow_unrolling.h"

#include <algorithm>

#include "onnx/attributes.h"
#include "onnx/constant_folding.h"
#include "onnx/graph_rewrite.h"
#include "onnx/subgraph_inlining.h"

namespace openhtp::onnx_import {

namespace {

// 1: unrolled; 0: refused (*why); -1: error (*error).
enum Result { kError = -1, kRefused = 0, kDone = 1 };

const onnx::GraphProto* graph_attr(const onnx::NodeProto& n, const std::string& name) {
  const auto* a = find_attr(n, name);
  return a != nullptr && a->has_g() ? &a->g() : nullptr;
}

size_t index_of(const Model& m, const std::string& output) {
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    for (const auto& o : m.nodes[i].output()) {
      if (o == output) return i;
    }
  }
  return m.nodes.size();
}

void replace_node(Model* m, size_t idx, std::vector<onnx::NodeProto> with) {
  m->nodes.erase(m->nodes.begin() + static_cast<std::ptrdiff_t>(idx));
  m->nodes.insert(m->nodes.begin() + static_cast<std::ptrdiff_t>(idx), with.begin(), with.end());
}

// out = x taken at `index` along `axis` (the axis removed).
std::string take(Model* m, NameGen& names, const std::string& x, int64_t index, int64_t axis, const std::string& base,
                 std::vector<onnx::NodeProto>* out) {
  const std::string idx = add_constant(m, names, base + "_index", Tensor::from_ints(onnx_type::kInt64, {}, {index}));
  const std::string o = names.fresh(base);
  onnx::NodeProto n = make_node("Gather", {x, idx}, {o}, names.fresh(base + "_gather"));
  set_attr_int(&n, "axis", axis);
  out->push_back(n);
  return o;
}

// `result` = the values stacked along a new axis `axis`.
void stack(Model* m, NameGen& names, const std::vector<std::string>& values, int64_t axis, const std::string& result,
           std::vector<onnx::NodeProto>* out) {
  std::vector<std::string> parts;
  for (const auto& v : values) {
    const std::string o = values.size() == 1 ? result : names.fresh(result + "_part");
    out->push_back(axes_node(m, names, "Unsqueeze", v, {axis}, o, names.fresh(result + "_unsqueeze")));
    parts.push_back(o);
  }
  if (values.size() > 1) out->push_back(concat_node(parts, axis, result, names.fresh(result + "_concat")));
}

void identity(NameGen& names, const std::string& from, const std::string& to, std::vector<onnx::NodeProto>* out) {
  out->push_back(make_node("Identity", {from}, {to}, names.fresh(to + "_identity")));
}

int rank_of(const Model& m, const std::string& v) {
  const ValueInfo* i = m.info(v);
  return i != nullptr && i->has_shape ? static_cast<int>(i->dims.size()) : -1;
}

Result unroll_if(Model* m, size_t idx, std::string* why, std::string* error) {
  const onnx::NodeProto node = m->nodes[idx];
  NameGen names(*m);
  const onnx::GraphProto* then_g = graph_attr(node, "then_branch");
  const onnx::GraphProto* else_g = graph_attr(node, "else_branch");
  if (then_g == nullptr || else_g == nullptr) {
    *error = describe_node(node) + ": missing then_branch or else_branch";
    return kError;
  }
  const std::string base = node_base(node);
  std::vector<onnx::NodeProto> out;
  std::vector<std::string> then_out, else_out;
  if (const Tensor* c = m->constant(node.input(0))) {
    const bool taken = c->count() > 0 && c->get(0) != 0.0;
    if (!inline_subgraph(m, names, taken ? *then_g : *else_g, {}, base + (taken ? "_then_" : "_else_"), &out, &then_out,
                         error)) {
      return kError;
    }
    for (int k = 0; k < node.output_size() && k < static_cast<int>(then_out.size()); ++k) {
      if (!node.output(k).empty()) identity(names, then_out[k], node.output(k), &out);
    }
    replace_node(m, idx, std::move(out));
    return kDone;
  }
  if (!inline_subgraph(m, names, *then_g, {}, base + "_then_", &out, &then_out, error) ||
      !inline_subgraph(m, names, *else_g, {}, base + "_else_", &out, &else_out, error)) {
    return kError;
  }
  if (then_out.size() != else_out.size()) {
    *why = "the branches give " + std::to_string(then_out.size()) + " and " + std::to_string(else_out.size()) +
           " outputs";
    return kRefused;
  }
  for (int k = 0; k < node.output_size() && k < static_cast<int>(then_out.size()); ++k) {
    if (!node.output(k).empty()) {
      out.push_back(make_node("Where", {node.input(0), then_out[k], else_out[k]}, {node.output(k)},
                              names.fresh(node.output(k) + "_select")));
    }
  }
  replace_node(m, idx, std::move(out));
  if (!infer_shapes(m, error)) return kError;
  for (size_t k = 0; k < then_out.size(); ++k) {
    const ValueInfo* a = m->info(then_out[k]);
    const ValueInfo* b = m->info(else_out[k]);
    const std::string which = "output " + std::to_string(k);
    if (a == nullptr || b == nullptr || a->elem_type == 0 || b->elem_type == 0) {
      *why = "the condition is only known at run time and " + which + " of a branch is not a tensor of known type";
      return kRefused;
    }
    if (a->elem_type != b->elem_type || !a->is_static() || !b->is_static() || a->dims != b->dims) {
      *why = "the condition is only known at run time and the branches give " + which + " as " +
             onnx_type::name(a->elem_type) + " " + (a->is_static() ? dims_to_string(a->dims) : "(no static shape)") +
             " and " + onnx_type::name(b->elem_type) + " " +
             (b->is_static() ? dims_to_string(b->dims) : "(no static shape)") +
             " (both inlined and selected with Where, which needs one type and one static shape)";
      return kRefused;
    }
  }
  return kDone;
}

// The scan proper: `states` carried, each of `scans` sliced at step t along
// in_axes (from the end where in_dirs is 1). Per-step scan output values in
// *steps[k] (in step order), final states in *finals.
Result scan_steps(Model* m, NameGen& names, const onnx::GraphProto& body, std::vector<std::string> states,
                  const std::vector<std::string>& scans, const std::vector<int64_t>& in_axes,
                  const std::vector<int64_t>& in_dirs, int64_t length, const std::string& base,
                  std::vector<onnx::NodeProto>* out, std::vector<std::string>* finals,
                  std::vector<std::vector<std::string>>* steps, std::string* error) {
  const size_t n = states.size();
  const size_t k_out = static_cast<size_t>(body.output_size()) - n;
  steps->assign(k_out, {});
  for (int64_t t = 0; t < length; ++t) {
    const std::string prefix = base + "_step" + std::to_string(t) + "_";
    std::vector<std::string> args = states;
    for (size_t j = 0; j < scans.size(); ++j) {
      const int64_t at = in_dirs[j] != 0 ? length - 1 - t : t;
      args.push_back(take(m, names, scans[j], at, in_axes[j], prefix + "slice" + std::to_string(j), out));
    }
    std::vector<std::string> outs;
    if (!inline_subgraph(m, names, body, args, prefix, out, &outs, error)) return kError;
    for (size_t i = 0; i < n; ++i) states[i] = outs[i];
    for (size_t k = 0; k < k_out; ++k) (*steps)[k].push_back(outs[n + k]);
  }
  *finals = states;
  return kDone;
}

Result unroll_scan(Model* m, size_t idx, std::string* why, std::string* error) {
  const onnx::NodeProto node = m->nodes[idx];
  NameGen names(*m);
  const onnx::GraphProto* body = graph_attr(node, "body");
  const int64_t m_in = attr_int(node, "num_scan_inputs", 0);
  if (body == nullptr || m_in <= 0) {
    *error = describe_node(node) + ": needs a body and num_scan_inputs >= 1";
    return kError;
  }
  const bool batched = m->opset < 9;  // opset 8: sequence_lens, then batch-major inputs
  const int first = batched ? 1 : 0;
  const int n = node.input_size() - first - static_cast<int>(m_in);
  if (n < 0 || body->output_size() < n) {
    *error = describe_node(node) + ": inputs do not match num_scan_inputs and the body";
    return kError;
  }
  const std::string base = node_base(node);
  std::vector<std::string> states, scans;
  for (int i = 0; i < n; ++i) states.push_back(node.input(first + i));
  for (int j = 0; j < m_in; ++j) scans.push_back(node.input(first + n + j));
  std::vector<int64_t> in_axes = attr_ints(node, "scan_input_axes", std::vector<int64_t>(m_in, 0));
  std::vector<int64_t> in_dirs =
      attr_ints(node, batched ? "directions" : "scan_input_directions", std::vector<int64_t>(m_in, 0));
  const int k_out = body->output_size() - n;
  std::vector<int64_t> out_axes = attr_ints(node, "scan_output_axes", std::vector<int64_t>(k_out, 0));
  std::vector<int64_t> out_dirs = attr_ints(node, "scan_output_directions", std::vector<int64_t>(k_out, 0));
  if (static_cast<int64_t>(in_axes.size()) != m_in || static_cast<int64_t>(in_dirs.size()) != m_in ||
      static_cast<int>(out_axes.size()) != k_out || static_cast<int>(out_dirs.size()) != k_out) {
    *error = describe_node(node) + ": scan axes/directions attributes do not match the inputs and outputs";
    return kError;
  }
  // Scan inputs' static shapes give the length.
  int64_t length = -1, batch = 1;
  for (int j = 0; j < m_in; ++j) {
    const ValueInfo* v = m->info(scans[j]);
    if (v == nullptr || !v->is_static()) {
      *why = "scan input '" + scans[j] + "' has no static shape (the scan length must be known)";
      return kRefused;
    }
    const int64_t rank = static_cast<int64_t>(v->dims.size());
    if (batched) {
      in_axes[j] = 1;
      if (rank < 2) {
        *error = describe_node(node) + ": opset 8 scan input '" + scans[j] + "' needs [batch, sequence, ...]";
        return kError;
      }
      batch = v->dims[0];
    }
    const int64_t a = in_axes[j] < 0 ? in_axes[j] + rank : in_axes[j];
    if (a < 0 || a >= rank) {
      *error = describe_node(node) + ": scan_input_axes out of range for '" + scans[j] + "'";
      return kError;
    }
    in_axes[j] = a;
    if (length >= 0 && v->dims[a] != length) {
      *why = "scan inputs have different lengths (" + std::to_string(length) + " and " + std::to_string(v->dims[a]) + ")";
      return kRefused;
    }
    length = v->dims[a];
  }
  if (batched && !input_name(node, 0).empty()) {
    const Tensor* lens = m->constant(node.input(0));
    bool full = lens != nullptr;
    for (size_t i = 0; full && i < lens->count(); ++i) full = lens->get_int(i) == length;
    if (!full) {
      *why = "sequence_lens (input 0) must be a constant equal to the scan length " + std::to_string(length) +
             " for every batch element (QNN graphs have static shapes)";
      return kRefused;
    }
  }
  if (length <= 0) {
    *why = "the scan length is 0 (its scan outputs would be empty, and QNN has no empty tensors)";
    return kRefused;
  }
  if (length > kMaxUnrolledIterations) {
    *why = "scan length " + std::to_string(length) + " is more than " + std::to_string(kMaxUnrolledIterations) +
           " steps to unroll";
    return kRefused;
  }
  for (int k = 0; k < k_out; ++k) {
    if (out_axes[k] >= 0) continue;
    const int r = rank_of(*m, output_name(node, n + k));
    if (r < 0) {
      *why = "scan output " + std::to_string(k) + " has a negative axis and no known rank";
      return kRefused;
    }
    out_axes[k] += r;
  }
  std::vector<onnx::NodeProto> out;
  // Final states and per-step scan outputs, one set per batch element
  // (one set, unbatched, from opset 9).
  std::vector<std::vector<std::string>> finals(static_cast<size_t>(batch));
  std::vector<std::vector<std::string>> stacked(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<std::string> st = states, sc = scans;
    std::vector<int64_t> axes = in_axes;
    const std::string bbase = batched ? base + "_batch" + std::to_string(b) : base;
    if (batched) {
      for (auto& s : st) s = take(m, names, s, b, 0, bbase + "_state", &out);
      for (auto& s : sc) s = take(m, names, s, b, 0, bbase + "_input", &out);
      for (auto& a : axes) a -= 1;
    }
    std::vector<std::vector<std::string>> steps;
    if (Result r = scan_steps(m, names, *body, st, sc, axes, in_dirs, length, bbase, &out, &finals[b], &steps, error);
        r != kDone) {
      return r;
    }
    for (int k = 0; k < k_out; ++k) {
      if (out_dirs[k] != 0) std::reverse(steps[k].begin(), steps[k].end());
      const std::string o = output_name(node, n + k);
      if (o.empty()) {
        stacked[b].push_back("");
        continue;
      }
      const std::string target = batched ? names.fresh(bbase + "_scan" + std::to_string(k)) : o;
      stack(m, names, steps[k], batched ? 0 : out_axes[k], target, &out);
      stacked[b].push_back(target);
    }
  }
  for (int i = 0; i < n; ++i) {
    const std::string o = output_name(node, i);
    if (o.empty()) continue;
    if (!batched) {
      identity(names, finals[0][i], o, &out);
    } else {
      std::vector<std::string> per_batch;
      for (int64_t b = 0; b < batch; ++b) per_batch.push_back(finals[b][i]);
      stack(m, names, per_batch, 0, o, &out);
    }
  }
  if (batched) {
    for (int k = 0; k < k_out; ++k) {
      const std::string o = output_name(node, n + k);
      if (o.empty()) continue;
      std::vector<std::string> per_batch;
      for (int64_t b = 0; b < batch; ++b) per_batch.push_back(stacked[b][k]);
      stack(m, names, per_batch, 0, o, &out);
    }
  }
  replace_node(m, idx, std::move(out));
  return kDone;
}

// The constant behind `v`, looking through Identity nodes.
const Tensor* constant_through_identity(const Model& m, std::string v) {
  for (int hops = 0; hops < 64; ++hops) {
    if (const Tensor* c = m.constant(v)) return c;
    const size_t i = index_of(m, v);
    if (i == m.nodes.size() || m.nodes[i].op_type() != "Identity" || m.nodes[i].input_size() != 1) return nullptr;
    v = m.nodes[i].input(0);
  }
  return nullptr;
}

Result unroll_loop(Model* m, size_t idx, std::string* why, std::string* error, bool keep_dequantize) {
  const onnx::NodeProto node = m->nodes[idx];
  NameGen names(*m);
  const onnx::GraphProto* body = graph_attr(node, "body");
  if (body == nullptr || node.input_size() < 2 || body->output_size() < node.input_size() - 1) {
    *error = describe_node(node) + ": needs a body with 1 + N outputs for N loop-carried inputs";
    return kError;
  }
  const std::string trip_name = input_name(node, 0), cond_name0 = input_name(node, 1);
  if (trip_name.empty() && cond_name0.empty()) {
    *why = "has neither a trip count nor a condition (it never ends)";
    return kRefused;
  }
  int64_t trip = kMaxUnrolledIterations + 1;
  if (!trip_name.empty()) {
    const Tensor* c = m->constant(trip_name);
    if (c == nullptr || c->count() != 1) {
      *why = "the trip count (input 0, '" + trip_name +
             "') is not a constant: QNN graphs have no loops, so the iterations are unrolled at conversion time";
      return kRefused;
    }
    trip = c->get_int(0);
  }
  bool go = true;
  std::string cond = cond_name0;
  if (!cond.empty()) {
    const Tensor* c = m->constant(cond);
    if (c == nullptr || c->count() != 1) {
      *why = "the condition (input 1, '" + cond + "') is not a constant: QNN graphs have no loops";
      return kRefused;
    }
    go = c->get(0) != 0.0;
  } else {
    cond = add_constant(m, names, node_base(node) + "_true", Tensor::from_ints(onnx_type::kBool, {}, {1}));
  }
  const int n = node.input_size() - 2;
  const int k_out = body->output_size() - 1 - n;
  const std::string base = node_base(node);
  const std::string anchor = [&] {
    for (const auto& o : node.output()) {
      if (!o.empty()) return o;
    }
    return std::string();
  }();
  if (anchor.empty()) {  // nothing is read from it
    replace_node(m, idx, {});
    return kDone;
  }
  std::vector<std::string> carried;
  for (int i = 0; i < n; ++i) carried.push_back(node.input(2 + i));
  std::vector<std::vector<std::string>> scans(static_cast<size_t>(k_out));
  int64_t i = 0;
  for (; go && i < trip; ++i) {
    if (i >= kMaxUnrolledIterations) {
      *why = "runs more than " + std::to_string(kMaxUnrolledIterations) + " iterations, too many to unroll";
      return kRefused;
    }
    const std::string prefix = base + "_iter" + std::to_string(i) + "_";
    std::vector<std::string> args = {
        add_constant(m, names, prefix + "iteration_num", Tensor::from_ints(onnx_type::kInt64, {}, {i})), cond};
    args.insert(args.end(), carried.begin(), carried.end());
    std::vector<onnx::NodeProto> nodes;
    std::vector<std::string> outs;
    if (!inline_subgraph(m, names, *body, args, prefix, &nodes, &outs, error)) return kError;
    const size_t at = index_of(*m, anchor);
    m->nodes.insert(m->nodes.begin() + static_cast<std::ptrdiff_t>(at), nodes.begin(), nodes.end());
    cond = outs[0];
    for (int c = 0; c < n; ++c) carried[c] = outs[1 + c];
    for (int k = 0; k < k_out; ++k) scans[k].push_back(outs[1 + n + k]);
    if (i + 1 >= trip) continue;  // the last iteration: its condition decides nothing
    const Tensor* c = constant_through_identity(*m, cond);
    if (c == nullptr) {
      if (!fold_constants(m, error, nullptr, keep_dequantize)) return kError;
      c = constant_through_identity(*m, cond);
    }
    if (c == nullptr || c->count() != 1) {
      *why = "the condition computed by iteration " + std::to_string(i) + " ('" + body->output(0).name() +
             "') is not a constant (it depends on run-time values): QNN graphs have no loops, so the iterations "
             "must be known at conversion time";
      return kRefused;
    }
    go = c->get(0) != 0.0;
  }
  std::vector<onnx::NodeProto> out;
  for (int c = 0; c < n; ++c) {
    if (!output_name(node, c).empty()) identity(names, carried[c], node.output(c), &out);
  }
  for (int k = 0; k < k_out; ++k) {
    const std::string o = output_name(node, n + k);
    if (o.empty()) continue;
    if (i == 0) {
      *why = "runs no iteration, so scan output '" + o + "' would be empty (QNN has no empty tensors)";
      return kRefused;
    }
    stack(m, names, scans[k], 0, o, &out);
  }
  replace_node(m, index_of(*m, anchor), std::move(out));
  return kDone;
}

}  // namespace

bool unroll_control_flow(Model* model, size_t* unrolled, std::string* error, bool keep_dequantize) {
  *unrolled = 0;
  for (size_t idx = 0; idx < model->nodes.size(); ++idx) {
    const onnx::NodeProto& node = model->nodes[idx];
    const std::string& t = node.op_type();
    if ((!node.domain().empty() && node.domain() != "ai.onnx") || (t != "If" && t != "Loop" && t != "Scan")) continue;
    const std::string key = node_base(node);
    Model trial = *model;
    std::string why;
    Result r = t == "If"     ? unroll_if(&trial, idx, &why, error)
               : t == "Scan" ? unroll_scan(&trial, idx, &why, error)
                             : unroll_loop(&trial, idx, &why, error, keep_dequantize);
    if (r == kError) return false;
    if (r == kRefused) {
      model->rewrite_refusals[key] = why;
      continue;
    }
    trial.rewrite_refusals.erase(key);
    if (!infer_shapes(&trial, error)) return false;
    *model = std::move(trial);
    ++*unrolled;
    --idx;  // the inlined nodes start here and may hold control flow themselves
  }
  return true;
}

}  // namespace openhtp::onnx_import
