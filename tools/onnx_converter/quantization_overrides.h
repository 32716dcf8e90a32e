// qnn-onnx-converter --quantization_overrides: the AIMET-style encodings file
// QNN's converters read, parsed once into typed per-tensor overrides.
//
//   {"activation_encodings": {"<tensor>": [{"bitwidth": 16, "dtype": "int",
//                                            "is_symmetric": "False",
//                                            "min": -4.0, "max": 4.0}]},
//    "param_encodings": {}}
//
// Per activation, one entry (per-tensor): bitwidth 8 or 16 (required), dtype
// "int" (the default), asymmetric, and optionally the range as min/max or as
// scale/offset (QNN's real = (q + offset) * scale); with neither the
// calibrated range is kept at the new bit width. Refused with a message:
// float dtypes, symmetric activations, several entries (per-channel) for an
// activation, and any param_encodings entry (weights are quantized by the
// converter; see docs/onnx-import.md).
#pragma once

#include <map>
#include <string>

#include "onnx/quantization.h"

namespace openhtp::onnx_converter {

bool read_quantization_overrides(const std::string& path,
                                 std::map<std::string, onnx_import::ActivationOverride>* out, std::string* error);
// The same from the file's text (`source` names it in messages).
bool parse_quantization_overrides(const std::string& text, const std::string& source,
                                  std::map<std::string, onnx_import::ActivationOverride>* out, std::string* error);

}  // namespace openhtp::onnx_converter
