// ONNX external data: initializers whose bytes live in a file beside the
// model (TensorProto.data_location = EXTERNAL, keys location / offset /
// length). PyTorch writes them for models over 2 GB, and two graphs can point
// at one weights file (the LLM demo's prefill and decode graphs do).
//
// The bytes are read into raw_data once, when the model is loaded, so every
// later pass sees an ordinary initializer. The file is untrusted input: the
// location must be a relative path inside the model's folder (no "..", no
// absolute path) and the range must lie inside the file and match the
// tensor's size.
#pragma once

#include <string>

#include "onnx/onnx_pb.h"

namespace openhtp::onnx_import {

// Resolves every external tensor of `model` (graph initializers and Constant
// nodes' tensors) against `model_dir`. False with one line naming the tensor
// and the rule it broke.
bool load_external_data(const std::string& model_dir, onnx::ModelProto* model, std::string* error);

}  // namespace openhtp::onnx_import
