#include "onnx/attributes.h"

namespace openhtp::onnx_import {

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

bool has_attr(const onnx::NodeProto& node, const std::string& name) { return find_attr(node, name) != nullptr; }

int64_t attr_int(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const auto* a = find_attr(node, name);
  return a != nullptr ? a->i() : fallback;
}

float attr_float(const onnx::NodeProto& node, const std::string& name, float fallback) {
  const auto* a = find_attr(node, name);
  return a != nullptr ? a->f() : fallback;
}

std::string attr_string(const onnx::NodeProto& node, const std::string& name, const std::string& fallback) {
  const auto* a = find_attr(node, name);
  return a != nullptr ? a->s() : fallback;
}

std::vector<int64_t> attr_ints(const onnx::NodeProto& node, const std::string& name, std::vector<int64_t> fallback) {
  const auto* a = find_attr(node, name);
  if (a == nullptr) return fallback;
  return {a->ints().begin(), a->ints().end()};
}

std::vector<float> attr_floats(const onnx::NodeProto& node, const std::string& name) {
  const auto* a = find_attr(node, name);
  if (a == nullptr) return {};
  return {a->floats().begin(), a->floats().end()};
}

std::string input_name(const onnx::NodeProto& node, int i) {
  return i < node.input_size() ? node.input(i) : std::string();
}

std::string output_name(const onnx::NodeProto& node, int i) {
  return i < node.output_size() ? node.output(i) : std::string();
}

std::string describe_node(const onnx::NodeProto& node) {
  std::string name = node.name();
  for (int i = 0; name.empty() && i < node.output_size(); ++i) name = node.output(i);
  return node.op_type() + " '" + name + "'";
}

}  // namespace openhtp::onnx_import
