#include "htp/fusion.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "common/env_switch.h"

namespace openhtp::htp {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kNeuronRelu = 4, kNeuronReluMinMax = 5, kNeuronSigmoid = 6;  // QNN_OP_ELEMENT_WISE_NEURON_OPERATION_*

bool is_producer(std::string_view type) {
  return type == "Conv2d" || type == "DepthWiseConv2d" || type == "TransposeConv2d" || type == "FullyConnected" ||
         type == "MatMul";
}

const ops::Param* param(const NodeSpec& n, std::string_view name) {
  for (const ops::Param& p : n.params) {
    if (p.name == name && !p.is_tensor) return &p;
  }
  return nullptr;
}

// The bounds of a clamp-like node; false for anything else.
bool clamp_bounds(const NodeSpec& n, float* lo, float* hi) {
  if (n.inputs.size() != 1 || n.outputs.size() != 1) return false;
  auto min_max = [&] {
    const ops::Param* a = param(n, "min_value");
    const ops::Param* b = param(n, "max_value");
    if (a == nullptr || b == nullptr || !(a->f <= b->f)) return false;
    *lo = static_cast<float>(a->f);
    *hi = static_cast<float>(b->f);
    return true;
  };
  if (n.type == "Relu" && n.params.empty()) {
    *lo = 0.0f, *hi = kInf;
    return true;
  }
  if (n.type == "Relu6" && n.params.empty()) {
    *lo = 0.0f, *hi = 6.0f;
    return true;
  }
  if (n.type == "Relu1" && n.params.empty()) {
    *lo = -1.0f, *hi = 1.0f;
    return true;
  }
  if (n.type == "ReluMinMax") return n.params.size() == 2 && min_max();
  if (n.type == "ElementWiseNeuron") {
    const ops::Param* op = param(n, "operation");
    if (op == nullptr) return false;
    // Only the parameters the operation reads (others would be checked by
    // the node's own prepare, which fusion must not bypass: leave it alone).
    if (op->i == kNeuronRelu && n.params.size() == 1) {
      *lo = 0.0f, *hi = kInf;
      return true;
    }
    return op->i == kNeuronReluMinMax && n.params.size() == 3 && min_max();
  }
  return false;
}

bool is_8bit(uint32_t dt) { return dt == ops::dtype::kUfixed8 || dt == ops::dtype::kSfixed8; }

bool same_encoding(const ops::Quant& a, const ops::Quant& b) {
  return a.present && b.present && !a.per_channel() && !b.per_channel() && a.scale == b.scale && a.offset == b.offset;
}

// A bound is a whole code of `q` (real = (code + offset) * scale) or rounds
// to an end of the 8-bit type's codes or beyond (as the fast paths read it:
// xnn::output_clamp).
bool on_grid(float bound, const ops::Quant& q, uint32_t dt) {
  const double qmin = dt == ops::dtype::kUfixed8 ? 0 : -128, qmax = dt == ops::dtype::kUfixed8 ? 255 : 127;
  const double v = double{bound} / q.scale - q.offset, r = std::nearbyint(v);
  return r <= qmin || r >= qmax || std::fabs(v - r) <= 1e-3;
}

// Rule b (fusion.h): quantizing into the clamp's output encoding `out`
// already clamps — lo and hi round to codes at or beyond the ends of `out`
// — and the intermediate's encoding `in` cuts less than one output code off
// either end of what `out` holds (converters calibrate both on the same
// values, then nudge each range so that 0 is a code: the ends agree to a
// fraction of an output step — up to 0.97 of one in MobileNetV2 — not
// exactly). A value the intermediate saturates then lands at most one code
// from where the fused step puts it.
bool within_output_range(float lo, float hi, const ops::Quant& in, const ops::Quant& out, uint32_t dt) {
  const double qmin = dt == ops::dtype::kUfixed8 ? 0 : -128, qmax = dt == ops::dtype::kUfixed8 ? 255 : 127;
  if (!in.present || !out.present || in.per_channel() || out.per_channel() || !(in.scale > 0.0f) ||
      !(out.scale > 0.0f)) {
    return false;
  }
  const double s = out.scale;
  const bool saturation_clamps =
      std::nearbyint(double{lo} / s - out.offset) <= qmin && std::nearbyint(double{hi} / s - out.offset) >= qmax;
  const double out_min = (qmin + out.offset) * s, out_max = (qmax + out.offset) * s;
  const double in_min = (qmin + in.offset) * double{in.scale}, in_max = (qmax + in.offset) * double{in.scale};
  return saturation_clamps && in_min < out_min + s && in_max > out_max - s;
}

// Element-wise ops: each output element depends only on the same element of
// each input (a chain of them on one 8-bit tensor is a table of its codes).
bool is_pointwise(std::string_view t) {
  static constexpr std::string_view kTypes[] = {
      "Relu", "ReluMinMax", "Relu1", "Relu6", "Sigmoid", "Tanh", "Gelu", "HardSwish", "Elu", "Logit",
      "ElementWiseNeuron", "ElementWiseUnary", "ElementWiseAbs", "ElementWiseAsin", "ElementWiseAtan",
      "ElementWiseCeil", "ElementWiseCos", "ElementWiseExp", "ElementWiseFloor", "ElementWiseLog", "ElementWiseNeg",
      "ElementWiseRound", "ElementWiseRsqrt", "ElementWiseSign", "ElementWiseSin", "ElementWiseSquareRoot",
      "ElementWiseSoftplus", "ElementWiseAdd", "ElementWiseSubtract", "ElementWiseMultiply", "ElementWiseDivide",
      "ElementWiseMaximum", "ElementWiseMinimum", "ElementWisePower", "ElementWiseSquaredDifference",
      "ElementWiseBinary"};
  for (std::string_view k : kTypes) {
    if (k == t) return true;
  }
  return false;
}

// How each finder looks the graph up: tensors by id, the nodes reading each
// tensor (one entry per reading input, in node order), and the nodes an
// earlier finder already holds (a node is in one fused step at most).
struct GraphIndex {
  std::unordered_map<uint32_t, const TensorSpec*> tensor;
  std::unordered_map<uint32_t, std::vector<int>> readers;
  std::unordered_map<uint32_t, int> producer;  // the first node writing each tensor
  std::vector<bool> taken;

  GraphIndex(const GraphSpec& spec, const std::vector<Fusion>& fusions, const std::vector<PointwiseChain>& chains)
      : taken(spec.nodes.size(), false) {
    for (const TensorSpec& t : spec.tensors) tensor[t.id] = &t;
    for (int n = 0; n < static_cast<int>(spec.nodes.size()); ++n) {
      for (uint32_t id : spec.nodes[n].inputs) {
        if (id != kNoTensor) readers[id].push_back(n);
      }
      for (uint32_t id : spec.nodes[n].outputs) producer.emplace(id, n);
    }
    for (const Fusion& f : fusions) {
      for (int n : f.nodes()) {
        if (n >= 0) taken[n] = true;
      }
    }
    for (const PointwiseChain& c : chains) {
      for (int n : c.nodes) taken[n] = true;
    }
  }
  const TensorSpec* get(uint32_t id) const {
    auto it = tensor.find(id);
    return it == tensor.end() ? nullptr : it->second;
  }
  // The single reader of `id` after node `after`, if `id` may disappear:
  // NATIVE (so not a graph output) and read by exactly one input.
  int sole_reader(uint32_t id, int after) const {
    const TensorSpec* t = get(id);
    if (t == nullptr || t->type != tensor_type::kNative) return -1;
    auto it = readers.find(id);
    if (it == readers.end() || it->second.size() != 1 || it->second[0] <= after) return -1;
    return it->second[0];
  }
};

// Nodes a chain may grow over before it must be closed, and the most nodes
// one chain holds: chains are short (SiLU is two), the bound keeps the
// search linear.
constexpr int kChainWindow = 16;
constexpr size_t kChainMaxNodes = 8;

}  // namespace

std::vector<PointwiseChain> find_pointwise_chains(const GraphSpec& spec, const std::vector<Fusion>& fusions) {
  GraphIndex index(spec, fusions, {});
  auto& readers = index.readers;
  auto& taken = index.taken;
  const int n_nodes = static_cast<int>(spec.nodes.size());
  auto get = [&](uint32_t id) { return index.get(id); };
  // A one-element static operand (GELU's 0.5, HardSwish's 3 and 6 written
  // out): the same for every element, so it may join a chain.
  auto static_scalar = [&](uint32_t id) {
    const TensorSpec* t = get(id);
    return t != nullptr && t->type == tensor_type::kStatic && t->dims.size() <= 5 &&
           std::all_of(t->dims.begin(), t->dims.end(), [](uint32_t d) { return d == 1; });
  };
  // A node that may be a link: ours, element-wise, one output, every input present and of `dims`.
  auto linkable = [&](int n, const std::vector<uint32_t>& dims) {
    const NodeSpec& node = spec.nodes[n];
    if (taken[n] || !is_pointwise(node.type) || node.outputs.size() != 1 || node.inputs.empty()) return false;
    if (!node.package.empty() && node.package != ops::kPackageName) return false;
    const TensorSpec* o = get(node.outputs[0]);
    if (o == nullptr || o->dims != dims || o->quant.per_channel()) return false;
    for (uint32_t id : node.inputs) {
      const TensorSpec* t = id == kNoTensor ? nullptr : get(id);
      if (t == nullptr || (t->dims != dims && !static_scalar(id))) return false;
    }
    return true;
  };

  // The convolution that may write the chain's output itself (fusion.h,
  // "producer table"), or -1: x is its only output, NATIVE, and it is in no
  // fusion; whether every reader of x is in the chain is checked per prefix.
  auto table_producer = [&](uint32_t x) {
    auto it = index.producer.find(x);
    if (it == index.producer.end() || taken[it->second]) return -1;
    const NodeSpec& p = spec.nodes[it->second];
    const bool conv = p.type == "Conv2d" || p.type == "DepthWiseConv2d";
    if (!conv || p.outputs.size() != 1 || (!p.package.empty() && p.package != ops::kPackageName)) return -1;
    return get(x)->type == tensor_type::kNative ? it->second : -1;
  };

  std::vector<PointwiseChain> out;
  for (int a = 0; a < n_nodes; ++a) {
    if (taken[a] || spec.nodes[a].inputs.empty()) continue;
    const uint32_t x = spec.nodes[a].inputs[0];
    const TensorSpec* xs = get(x);
    if (xs == nullptr || !is_8bit(xs->dtype) || !xs->quant.present || xs->quant.per_channel()) continue;
    if (!linkable(a, xs->dims)) continue;
    const int producer = table_producer(x);
    // Grow: a node joins when all its inputs are x or outputs of the chain.
    std::vector<int> chain;
    std::unordered_map<uint32_t, bool> avail{{x, true}};
    for (int n = a; n < n_nodes && n < a + kChainWindow && chain.size() < kChainMaxNodes; ++n) {
      if (!linkable(n, xs->dims)) continue;
      bool ok = true;
      for (uint32_t id : spec.nodes[n].inputs) ok = ok && (avail.count(id) != 0 || static_scalar(id));
      if (!ok) continue;
      chain.push_back(n);
      avail[spec.nodes[n].outputs[0]] = true;
    }
    // The longest prefix whose only escaping value is its last node's
    // output: two nodes or more, or one when the producer writes its table
    // (its own step is then gone, not just merged into another).
    for (size_t k = chain.size(); k >= 1; --k) {
      std::vector<int> prefix(chain.begin(), chain.begin() + static_cast<long>(k));
      auto inside = [&](int n) { return std::find(prefix.begin(), prefix.end(), n) != prefix.end(); };
      bool ok = true;
      std::vector<uint32_t> eliminated;
      for (size_t j = 0; j + 1 < k && ok; ++j) {
        const uint32_t id = spec.nodes[prefix[j]].outputs[0];
        const TensorSpec* t = get(id);
        ok = t != nullptr && t->type == tensor_type::kNative;
        for (int r : readers[id]) ok = ok && inside(r);
        eliminated.push_back(id);
      }
      if (!ok) continue;
      const TensorSpec* y = get(spec.nodes[prefix.back()].outputs[0]);
      bool with_producer = producer >= 0 && y != nullptr && is_8bit(y->dtype);
      for (int r : readers[x]) with_producer = with_producer && inside(r);
      if (k < 2 && !with_producer) continue;
      PointwiseChain c;
      c.input = x;
      c.nodes = std::move(prefix);
      c.eliminated = std::move(eliminated);
      if (with_producer) c.producer = producer;
      for (int n : c.nodes) taken[n] = true;
      if (with_producer) taken[producer] = true;
      out.push_back(std::move(c));
      break;
    }
  }
  return out;
}

std::string chain_name(const GraphSpec& spec, const PointwiseChain& c) {
  std::string s;
  for (int n : c.nodes) s += (s.empty() ? "" : "+") + spec.nodes[n].name;
  return s;
}

std::string chain_type(const GraphSpec& spec, const PointwiseChain& c) {
  std::string s;
  for (int n : c.nodes) s += (s.empty() ? "" : "+") + spec.nodes[n].type;
  return s;
}

std::string producer_table_name(const GraphSpec& spec, const PointwiseChain& c) {
  return spec.nodes[c.producer].name + "+" + chain_name(spec, c);
}

std::string producer_table_type(const GraphSpec& spec, const PointwiseChain& c) {
  return spec.nodes[c.producer].type + "+" + chain_type(spec, c);
}

namespace {

// Rule list: fusion.h, "Channel scale". Fills f's scale fields when the
// producer p's input 0 is such a product.
void find_channel_scale(const GraphSpec& spec, const GraphIndex& index, const std::vector<bool>& taken, int p,
                        Fusion* f) {
  const NodeSpec& prod = spec.nodes[p];
  const uint32_t m = prod.inputs[0];
  auto made = index.producer.find(m);
  if (made == index.producer.end() || made->second >= p || index.sole_reader(m, made->second) != p) return;
  const int q = made->second;
  const NodeSpec& mul = spec.nodes[q];
  if (taken[q] || mul.type != "ElementWiseMultiply" || mul.inputs.size() != 2 || mul.outputs.size() != 1 ||
      !mul.params.empty() || (!mul.package.empty() && mul.package != ops::kPackageName) || mul.outputs[0] != m) {
    return;
  }
  const TensorSpec* ms = index.get(m);
  const TensorSpec* out = prod.outputs.empty() ? nullptr : index.get(prod.outputs[0]);
  if (ms == nullptr || out == nullptr || ms->dtype != ops::dtype::kFloat32 || ms->dims.size() != 4 ||
      out->dims.size() != 4) {
    return;
  }
  const uint32_t channels = ms->dims[3];
  auto is_scale = [&](uint32_t id) {
    const TensorSpec* t = index.get(id);
    return t != nullptr && t->dtype == ops::dtype::kFloat32 &&
           t->dims == std::vector<uint32_t>{1, 1, 1, channels};
  };
  auto is_map = [&](uint32_t id) {
    const TensorSpec* t = index.get(id);
    return t != nullptr && t->dtype == ops::dtype::kFloat32 && t->dims == ms->dims;
  };
  const uint32_t a = mul.inputs[0], b = mul.inputs[1];
  if (a == b || a == kNoTensor || b == kNoTensor) return;
  uint32_t x, s;
  if (is_map(a) && is_scale(b)) {
    x = a, s = b;
  } else if (is_map(b) && is_scale(a)) {
    x = b, s = a;
  } else {
    return;
  }
  // Rescaling Cout x C weights each execute against a pass over H x W x C.
  if (uint64_t{out->dims[3]} * 4 > uint64_t{ms->dims[1]} * ms->dims[2]) return;
  f->scale = q;
  f->scaled = x;
  f->channel_scale = s;
  f->eliminated.insert(f->eliminated.begin(), m);
}

// Rule list: fusion.h, "Channel mean". The ReduceMean node over f's
// output, or -1.
int find_channel_mean(const GraphSpec& spec, const GraphIndex& index, const std::vector<bool>& taken, const Fusion& f) {
  const uint32_t y = spec.nodes[f.last()].outputs[0];
  const TensorSpec* ys = index.get(y);
  if (ys == nullptr || ys->dtype != ops::dtype::kFloat32 || ys->dims.size() != 4 || ys->dims[0] != 1) return -1;
  auto rd = index.readers.find(y);
  if (rd == index.readers.end()) return -1;
  for (int r : rd->second) {
    const NodeSpec& n = spec.nodes[r];
    if (taken[r] || n.type != "ReduceMean" || n.inputs.size() != 1 || n.outputs.size() != 1 ||
        (!n.package.empty() && n.package != ops::kPackageName)) {
      continue;
    }
    bool axes_hw = false, others = false;
    for (const ops::Param& p : n.params) {
      if (p.name == "axes" && p.is_tensor && p.data.size() == 8) {
        uint32_t a[2];
        std::memcpy(a, p.data.data(), 8);
        axes_hw = (a[0] == 1 && a[1] == 2) || (a[0] == 2 && a[1] == 1);
      } else if (p.name != "keep_dims") {
        others = true;
      }
    }
    const TensorSpec* g = index.get(n.outputs[0]);
    if (!axes_hw || others || g == nullptr || g->dtype != ops::dtype::kFloat32) continue;
    uint64_t elements = 1;
    for (uint32_t d : g->dims) elements *= d;
    if (elements == ys->dims[3]) return r;
  }
  return -1;
}

}  // namespace

Fusion Fusion::without_scale() const {
  Fusion f = *this;
  if (f.scale >= 0) f.eliminated.erase(f.eliminated.begin());
  f.scale = -1;
  f.scaled = f.channel_scale = kNoTensor;
  return f;
}

std::vector<Fusion> find_fusions(const GraphSpec& spec) {
  const GraphIndex index(spec, {}, {});
  const auto& readers = index.readers;
  const int n_nodes = static_cast<int>(spec.nodes.size());
  auto get = [&](uint32_t id) { return index.get(id); };
  auto sole_reader = [&](uint32_t id, int after) { return index.sole_reader(id, after); };
  // The next node's output has the intermediate's dims and type.
  auto same_shape = [&](uint32_t a, uint32_t b) {
    const TensorSpec* x = get(a);
    const TensorSpec* y = get(b);
    return x && y && x->dtype == y->dtype && x->dims == y->dims;
  };

  std::vector<Fusion> out;
  std::vector<bool> taken(spec.nodes.size(), false);
  for (int p = 0; p < n_nodes; ++p) {
    const NodeSpec& prod = spec.nodes[p];
    if (taken[p] || !is_producer(prod.type) || prod.outputs.size() != 1) continue;
    if (!prod.package.empty() && prod.package != ops::kPackageName) continue;
    const uint32_t t = prod.outputs[0];
    const TensorSpec* ts = get(t);
    if (ts == nullptr) continue;
    const bool f32 = ts->dtype == ops::dtype::kFloat32;
    const bool f16 = ts->dtype == ops::dtype::kFloat16;
    if (!f32 && !f16 && !is_8bit(ts->dtype)) continue;
    Fusion f;
    f.producer = p;
    // 0. A channel scale in front (FLOAT_32 Conv2d).
    if (f32 && prod.type == "Conv2d" && !prod.inputs.empty()) find_channel_scale(spec, index, taken, p, &f);
    uint32_t cur = t;  // the tensor the next epilogue node would read
    int e = sole_reader(cur, p);
    // 1. A residual add: other operand available before p. 8-bit: every
    // operand per-tensor, not when a LayerNorm alone reads the sum (fusion.h).
    const bool q8 = is_8bit(ts->dtype);
    if (e >= 0 && spec.nodes[e].type == "ElementWiseAdd" && spec.nodes[e].inputs.size() == 2 &&
        spec.nodes[e].outputs.size() == 1 && spec.nodes[e].params.empty()) {
      const NodeSpec& add = spec.nodes[e];
      const uint32_t other = add.inputs[0] == cur ? add.inputs[1] : add.inputs[0];
      const TensorSpec* os = get(other);
      bool available = false;
      if (os != nullptr && other != cur) {
        auto made = index.producer.find(other);
        available = os->type == tensor_type::kStatic || os->is_graph_input() ||
                    (made != index.producer.end() && made->second < p);
      }
      auto per_tensor = [&](uint32_t id) {
        const TensorSpec* x = get(id);
        return x != nullptr && x->quant.present && !x->quant.per_channel() && x->quant.scale > 0.0f;
      };
      if (q8) {
        const int norm = sole_reader(add.outputs[0], e);
        const bool into_norm = norm >= 0 && spec.nodes[norm].type == "LayerNorm" &&
                               !spec.nodes[norm].inputs.empty() && spec.nodes[norm].inputs[0] == add.outputs[0];
        available = available && !into_norm && per_tensor(cur) && per_tensor(other) && per_tensor(add.outputs[0]);
      }
      if (available && same_shape(cur, other) && same_shape(cur, add.outputs[0])) {
        f.add = e;
        f.residual = other;
        f.eliminated.push_back(cur);
        cur = add.outputs[0];
        e = sole_reader(cur, e);
      }
    }
    // 2. SiLU (FLOAT_32): cur read by exactly a Sigmoid and the Multiply of
    // cur and the Sigmoid's output, which nothing else reads.
    if (f32) {
      const TensorSpec* cs = get(cur);
      auto rd = readers.find(cur);
      if (cs != nullptr && cs->type == tensor_type::kNative && rd != readers.end() && rd->second.size() == 2) {
        const int a = std::min(rd->second[0], rd->second[1]), m = std::max(rd->second[0], rd->second[1]);
        auto ours = [&](int n) {
          return !taken[n] && (spec.nodes[n].package.empty() || spec.nodes[n].package == ops::kPackageName);
        };
        const NodeSpec& sn = spec.nodes[a];
        const NodeSpec& mn = spec.nodes[m];
        const bool is_sigmoid = sn.inputs.size() == 1 && sn.outputs.size() == 1 &&
                                ((sn.type == "Sigmoid" && sn.params.empty()) ||
                                 (sn.type == "ElementWiseNeuron" && sn.params.size() == 1 && param(sn, "operation") &&
                                  param(sn, "operation")->i == kNeuronSigmoid));
        const bool is_product = mn.type == "ElementWiseMultiply" && mn.inputs.size() == 2 && mn.outputs.size() == 1 &&
                                mn.params.empty() && is_sigmoid &&
                                ((mn.inputs[0] == cur && mn.inputs[1] == sn.outputs[0]) ||
                                 (mn.inputs[1] == cur && mn.inputs[0] == sn.outputs[0]));
        if (a > (f.add >= 0 ? f.add : p) && ours(a) && ours(m) && is_product && sole_reader(sn.outputs[0], a) == m &&
            same_shape(cur, sn.outputs[0]) && same_shape(cur, mn.outputs[0])) {
          f.sigmoid = a;
          f.multiply = m;
          f.eliminated.push_back(cur);
          f.eliminated.push_back(sn.outputs[0]);
          cur = mn.outputs[0];
          e = sole_reader(cur, m);
        }
      }
    }
    // 3. A clamp.
    float lo, hi;
    if (e >= 0 && !taken[e] && (spec.nodes[e].package.empty() || spec.nodes[e].package == ops::kPackageName) &&
        clamp_bounds(spec.nodes[e], &lo, &hi) && same_shape(cur, spec.nodes[e].outputs[0])) {
      // 8-bit after a residual Add: any clamp — the kernel maps the Add's
      // codes through the clamp node's own answer for each (fusion.h).
      bool ok = true;
      if (is_8bit(ts->dtype) && f.add < 0) {
        const TensorSpec* in = get(cur);
        const TensorSpec* o = get(spec.nodes[e].outputs[0]);
        ok = (same_encoding(in->quant, o->quant) && on_grid(lo, o->quant, o->dtype) &&
              on_grid(hi, o->quant, o->dtype)) ||
             within_output_range(lo, hi, in->quant, o->quant, o->dtype);
      }
      if (ok) {
        f.clamp = e;
        f.lo = lo;
        f.hi = hi;
        f.eliminated.push_back(cur);
      }
    }
    // 4. A channel mean of the SiLU's output.
    if (f.multiply >= 0) f.mean = find_channel_mean(spec, index, taken, f);
    if (!f.has_epilogue() && f.scale < 0) continue;
    for (int n : f.nodes()) {
      if (n >= 0) taken[n] = true;
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<AddLayerNorm> find_add_layer_norms(const GraphSpec& spec, const std::vector<Fusion>& fusions,
                                               const std::vector<PointwiseChain>& chains) {
  GraphIndex index(spec, fusions, chains);
  const int n_nodes = static_cast<int>(spec.nodes.size());
  auto get = [&](uint32_t id) { return index.get(id); };
  auto ours = [&](int n) {
    return !index.taken[n] && (spec.nodes[n].package.empty() || spec.nodes[n].package == ops::kPackageName);
  };
  auto q8_per_tensor = [&](uint32_t id) {
    const TensorSpec* t = id == kNoTensor ? nullptr : get(id);
    return t != nullptr && is_8bit(t->dtype) && t->quant.present && !t->quant.per_channel();
  };

  std::vector<AddLayerNorm> out;
  for (int a = 0; a < n_nodes; ++a) {
    const NodeSpec& add = spec.nodes[a];
    if (!ours(a) || add.type != "ElementWiseAdd" || add.inputs.size() != 2 || add.outputs.size() != 1 ||
        !add.params.empty()) {
      continue;
    }
    const uint32_t s = add.outputs[0];
    if (!q8_per_tensor(add.inputs[0]) || !q8_per_tensor(add.inputs[1]) || !q8_per_tensor(s)) continue;
    const TensorSpec* st = get(s);
    if (get(add.inputs[0])->dims != st->dims || get(add.inputs[1])->dims != st->dims) continue;
    const int m = index.sole_reader(s, a);
    if (m < 0) continue;
    const NodeSpec& norm = spec.nodes[m];
    if (!ours(m) || norm.type != "LayerNorm" || norm.inputs.empty() || norm.inputs[0] != s ||
        norm.outputs.size() != 1) {
      continue;
    }
    bool affine_static = true;
    for (size_t i = 1; i < norm.inputs.size(); ++i) {
      const TensorSpec* t = norm.inputs[i] == kNoTensor ? nullptr : get(norm.inputs[i]);
      affine_static = affine_static && (norm.inputs[i] == kNoTensor || (t && t->type == tensor_type::kStatic));
    }
    if (!affine_static) continue;
    index.taken[a] = index.taken[m] = true;
    out.push_back({a, m, s});
  }
  return out;
}

namespace {

// The fused nodes' names (or types), in order, joined by '+'.
std::string joined(const GraphSpec& spec, const Fusion& f, std::string NodeSpec::*field) {
  std::string s;
  for (int n : f.nodes()) {
    if (n < 0) continue;
    if (!s.empty()) s += "+";
    s += spec.nodes[n].*field;
  }
  return s;
}

}  // namespace

std::string fused_name(const GraphSpec& spec, const Fusion& f) { return joined(spec, f, &NodeSpec::name); }

std::string fused_type(const GraphSpec& spec, const Fusion& f) { return joined(spec, f, &NodeSpec::type); }

std::string add_layer_norm_name(const GraphSpec& spec, const AddLayerNorm& f) {
  return spec.nodes[f.add].name + "+" + spec.nodes[f.norm].name;
}

std::string add_layer_norm_type(const GraphSpec& spec, const AddLayerNorm& f) {
  return spec.nodes[f.add].type + "+" + spec.nodes[f.norm].type;
}

bool fusion_enabled_by_env() {
  static const bool on = env_switch_on("OPENHTP_FUSION");
  return on;
}

}  // namespace openhtp::htp
