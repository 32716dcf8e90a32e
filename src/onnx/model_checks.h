// Structural checks of a ModelProto before anything else reads it: what
// ONNX itself forbids (onnx.checker's rules the importer relies on) and the
// attribute values ONNX's own shape inference divides by. A model that fails
// one is refused with one line naming the node/tensor, the rule and the value;
// without them a stride of 0 kills the process with SIGFPE inside libonnx,
// two producers of one name silently keep the last one, and so on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace openhtp::onnx_import {

// Opsets of the default domain the importer reads: from ONNX's first to the
// newest the linked libonnx (1.12: 17) has schemas for. Above that, shape
// inference would silently use older schemas (opset 18's ReduceMean reads
// its axes from an input, 17's from an attribute).
int64_t min_supported_opset();
int64_t max_supported_opset();

// "" when the model is acceptable, else the one-line reason:
//   - ir_version above the one the linked libonnx knows;
//   - default-domain opset outside [min_supported_opset, max_supported_opset];
//   - no graph outputs;
//   - a name produced twice (graph inputs, initializers, node outputs: ONNX's
//     single-assignment rule), naming both producers;
//   - a node input or graph output that nothing produces;
//   - a cycle, naming a node on it;
//   - default-domain attributes of the wrong type for the op's schema, and
//     strides/dilations/group/kernel_shape/num_outputs below 1.
std::string check_model_structure(const onnx::ModelProto& proto);

}  // namespace openhtp::onnx_import
