// Typed access to an ONNX node's attributes, with defaults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace openhtp::onnx_import {

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name);
bool has_attr(const onnx::NodeProto& node, const std::string& name);
int64_t attr_int(const onnx::NodeProto& node, const std::string& name, int64_t fallback);
float attr_float(const onnx::NodeProto& node, const std::string& name, float fallback);
std::string attr_string(const onnx::NodeProto& node, const std::string& name, const std::string& fallback);
std::vector<int64_t> attr_ints(const onnx::NodeProto& node, const std::string& name,
                               std::vector<int64_t> fallback = {});
std::vector<float> attr_floats(const onnx::NodeProto& node, const std::string& name);

// Input i's name, or "" when absent (past the end or an empty name).
std::string input_name(const onnx::NodeProto& node, int i);
std::string output_name(const onnx::NodeProto& node, int i);

// "Conv 'conv1'" (the node name, or its first output when unnamed) for messages.
std::string describe_node(const onnx::NodeProto& node);

}  // namespace openhtp::onnx_import
