#include "quantization_overrides.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/file_bytes.h"

namespace openhtp::onnx_converter {
namespace {

using nlohmann::json;

// AIMET writes booleans both as JSON booleans and as "True"/"False" strings.
bool as_bool(const json& v, bool* out) {
  if (v.is_boolean()) {
    *out = v.get<bool>();
    return true;
  }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "True" || s == "true") return *out = true, true;
    if (s == "False" || s == "false") return *out = false, true;
  }
  return false;
}

bool parse_entry(const json& list, onnx_import::ActivationOverride* o, std::string* why) {
  if (!list.is_array() || list.size() != 1 || !list[0].is_object()) {
    *why = "expected a list of one encoding (activations are per tensor)";
    return false;
  }
  const json& e = list[0];
  for (const auto& [key, value] : e.items()) {
    if (key != "bitwidth" && key != "dtype" && key != "is_symmetric" && key != "min" && key != "max" &&
        key != "scale" && key != "offset") {
      *why = "unknown field '" + key + "'";
      return false;
    }
    if (key != "dtype" && key != "is_symmetric" && !value.is_number()) {
      *why = "'" + key + "' is not a number";
      return false;
    }
  }
  if (!e.contains("bitwidth") || !e["bitwidth"].is_number_integer()) {
    *why = "'bitwidth' (an integer) is required";
    return false;
  }
  o->bitwidth = e["bitwidth"].get<int>();
  if (o->bitwidth != 8 && o->bitwidth != 16) {
    *why = "bitwidth " + std::to_string(o->bitwidth) + " is not supported for activations (8 or 16)";
    return false;
  }
  if (e.contains("dtype") && e["dtype"] != "int") {
    *why = "dtype " + e["dtype"].dump() + " is not supported (\"int\": fixed point)";
    return false;
  }
  bool symmetric = false;
  if (e.contains("is_symmetric") && (!as_bool(e["is_symmetric"], &symmetric) || symmetric)) {
    *why = "is_symmetric " + e["is_symmetric"].dump() + ": activations are asymmetric unsigned here";
    return false;
  }
  const bool has_min_max = e.contains("min") || e.contains("max");
  const bool has_scale = e.contains("scale") || e.contains("offset");
  if (has_min_max && !(e.contains("min") && e.contains("max"))) {
    *why = "give both 'min' and 'max', or neither";
    return false;
  }
  if (has_scale && !(e.contains("scale") && e.contains("offset"))) {
    *why = "give both 'scale' and 'offset', or neither";
    return false;
  }
  if (has_min_max) {
    o->has_range = true;
    o->min = e["min"].get<float>();
    o->max = e["max"].get<float>();
  } else if (has_scale) {
    // real = (q + offset) * scale for q in [0, 2^bw - 1].
    const double scale = e["scale"].get<double>(), offset = e["offset"].get<double>();
    if (!(scale > 0.0) || !std::isfinite(scale) || !std::isfinite(offset)) {
      *why = "scale must be positive and offset finite";
      return false;
    }
    o->has_range = true;
    o->min = static_cast<float>(offset * scale);
    o->max = static_cast<float>((offset + std::pow(2.0, o->bitwidth) - 1.0) * scale);
  }
  if (o->has_range && !(std::isfinite(o->min) && std::isfinite(o->max) && o->min <= o->max)) {
    *why = "the range is not a finite min <= max";
    return false;
  }
  return true;
}

}  // namespace

bool parse_quantization_overrides(const std::string& text, const std::string& source,
                                  std::map<std::string, onnx_import::ActivationOverride>* out, std::string* error) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    *error = "--quantization_overrides " + source + ": not a JSON object";
    return false;
  }
  for (const auto& [key, value] : doc.items()) {
    if (key == "activation_encodings") {
      if (!value.is_object()) {
        *error = "--quantization_overrides " + source + ": activation_encodings is not an object";
        return false;
      }
      for (const auto& [name, list] : value.items()) {
        onnx_import::ActivationOverride o;
        std::string why;
        if (!parse_entry(list, &o, &why)) {
          *error = "--quantization_overrides " + source + ": activation '" + name + "': " + why;
          return false;
        }
        (*out)[name] = o;
      }
    } else if (key == "param_encodings") {
      if (!value.is_object() || !value.empty()) {
        *error = "--quantization_overrides " + source + ": param_encodings (" +
                 std::to_string(value.is_object() ? value.size() : 0) +
                 " entries) are not supported: the converter quantizes weights itself (8-bit symmetric, "
                 "--use_per_channel_quantization); give activation_encodings only";
        return false;
      }
    } else if (key != "version" && key != "quantizer_args") {
      *error = "--quantization_overrides " + source + ": unknown section '" + key +
               "' (activation_encodings, param_encodings)";
      return false;
    }
  }
  return true;
}

bool read_quantization_overrides(const std::string& path,
                                 std::map<std::string, onnx_import::ActivationOverride>* out, std::string* error) {
  std::string text, why;
  if (!openhtp::read_file_text(path, &text, &why)) {
    *error = "--quantization_overrides " + path + ": " + why;
    return false;
  }
  return parse_quantization_overrides(text, path, out, error);
}

}  // namespace openhtp::onnx_converter
