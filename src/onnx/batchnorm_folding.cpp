#include "onnx/batchnorm_folding.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "onnx/attributes.h"

namespace openhtp::onnx_import {

namespace {

size_t consumers(const Model& m, const std::string& name) {
  size_t n = 0;
  for (const auto& node : m.nodes) {
    for (const auto& in : node.input()) n += in == name ? 1 : 0;
  }
  return n + static_cast<size_t>(std::count(m.outputs.begin(), m.outputs.end(), name));
}

std::string fresh_name(const Model& m, const std::string& base) {
  std::string name = base;
  for (int k = 1; m.values.count(name) != 0 || m.constants.count(name) != 0; ++k) name = base + "_" + std::to_string(k);
  return name;
}

// Folds `bn` into `producer`; false when the pattern does not apply.
bool fold_one(Model& m, onnx::NodeProto& producer, const onnx::NodeProto& bn) {
  const std::string& type = producer.op_type();
  if (type != "Conv" && type != "ConvTranspose" && type != "Gemm") return false;
  if (bn.input_size() < 5 || bn.output_size() != 1 || attr_int(bn, "training_mode", 0) != 0) return false;
  const Tensor* s = m.constant(bn.input(1));
  const Tensor* b = m.constant(bn.input(2));
  const Tensor* mean = m.constant(bn.input(3));
  const Tensor* var = m.constant(bn.input(4));
  const Tensor* w = m.constant(producer.input(1));
  const std::string bias_name = input_name(producer, 2);
  const Tensor* bias = bias_name.empty() ? nullptr : m.constant(bias_name);
  if (!s || !b || !mean || !var || !w || (!bias_name.empty() && !bias)) return false;
  if (w->elem_type != onnx_type::kFloat) return false;
  const size_t channels = s->count();
  const double eps = attr_float(bn, "epsilon", 1e-5f);
  std::vector<double> scale(channels), shift(channels);
  for (size_t c = 0; c < channels; ++c) {
    scale[c] = s->get(c) / std::sqrt(var->get(c) + eps);
    shift[c] = b->get(c) - mean->get(c) * scale[c];
  }
  // Output channel of weight element i.
  std::function<size_t(size_t)> channel_of;
  const std::vector<int64_t>& wd = w->dims;
  double bias_mult = 1.0;
  if (type == "Conv") {
    if (static_cast<size_t>(wd[0]) != channels) return false;
    const size_t per = w->count() / channels;
    channel_of = [per](size_t i) { return i / per; };
  } else if (type == "ConvTranspose") {
    const size_t group = static_cast<size_t>(attr_int(producer, "group", 1));
    const size_t cin = static_cast<size_t>(wd[0]), cout_g = static_cast<size_t>(wd[1]);
    if (cout_g * group != channels) return false;
    const size_t spatial = w->count() / (cin * cout_g);
    channel_of = [=](size_t i) {
      const size_t in_c = i / (cout_g * spatial), j = (i / spatial) % cout_g;
      return (in_c / (cin / group)) * cout_g + j;
    };
  } else {  // Gemm: Y[:, n] scales with column n of op(B)
    const bool trans_b = attr_int(producer, "transB", 0) != 0;
    const size_t n = static_cast<size_t>(trans_b ? wd[0] : wd[1]);
    if (n != channels) return false;
    const size_t cols = static_cast<size_t>(wd[1]);
    channel_of = trans_b ? std::function<size_t(size_t)>([cols](size_t i) { return i / cols; })
                         : std::function<size_t(size_t)>([cols](size_t i) { return i % cols; });
    bias_mult = attr_float(producer, "beta", 1.0f);
    if (bias != nullptr && bias->count() != channels && bias->count() != 1) return false;
  }
  Tensor nw = *w;
  for (size_t i = 0; i < nw.count(); ++i) nw.set(i, w->get(i) * scale[channel_of(i)]);
  Tensor nb = Tensor::zeros(onnx_type::kFloat, {static_cast<int64_t>(channels)});
  for (size_t c = 0; c < channels; ++c) {
    const double old = bias == nullptr ? 0.0 : bias->get(bias->count() == 1 ? 0 : c) * bias_mult;
    nb.set(c, old * scale[c] + shift[c]);
  }
  const std::string wname = fresh_name(m, producer.input(1) + "_bn_folded");
  const std::string bname = fresh_name(m, bn.output(0) + "_bn_bias");
  m.constants[wname] = nw;
  m.values[wname] = ValueInfo{nw.elem_type, nw.dims, true};
  m.constants[bname] = nb;
  m.values[bname] = ValueInfo{nb.elem_type, nb.dims, true};
  producer.set_input(1, wname);
  if (producer.input_size() > 2) producer.set_input(2, bname);
  else producer.add_input(bname);
  if (type == "Gemm") {
    // The bias now carries beta already.
    bool set = false;
    for (auto& a : *producer.mutable_attribute()) {
      if (a.name() == "beta") {
        a.set_f(1.0f);
        set = true;
      }
    }
    if (!set) {
      auto* a = producer.add_attribute();
      a->set_name("beta");
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(1.0f);
    }
  }
  producer.set_output(0, bn.output(0));
  return true;
}

}  // namespace

size_t fold_batchnorms(Model* model) {
  Model& m = *model;
  size_t folded = 0;
  std::map<std::string, size_t> producer_of;
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    for (const auto& o : m.nodes[i].output()) producer_of[o] = i;
  }
  std::vector<bool> drop(m.nodes.size(), false);
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const onnx::NodeProto& bn = m.nodes[i];
    if (bn.op_type() != "BatchNormalization" || bn.input_size() < 1) continue;
    auto it = producer_of.find(bn.input(0));
    if (it == producer_of.end() || drop[it->second]) continue;
    if (consumers(m, bn.input(0)) != 1) continue;
    if (fold_one(m, m.nodes[it->second], bn)) {
      drop[i] = true;
      ++folded;
    }
  }
  std::vector<onnx::NodeProto> kept;
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(m.nodes[i]));
  }
  m.nodes = std::move(kept);
  return folded;
}

}  // namespace openhtp::onnx_import
