#include "onnx/quantization.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <set>

#include "QnnOpDef.h"

namespace openhtp::onnx_import {

namespace {

std::vector<float> floats_of(const QTensor& t) {
  std::vector<float> v(t.data.size() / 4);
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), v.size() * 4);
  return v;
}

int64_t range_lo(Qnn_DataType_t dt) {
  switch (dt) {
    case QNN_DATATYPE_SFIXED_POINT_8: return -128;
    case QNN_DATATYPE_SFIXED_POINT_16: return -32768;
    case QNN_DATATYPE_SFIXED_POINT_32: return INT32_MIN;
    default: return 0;
  }
}

int64_t range_hi(Qnn_DataType_t dt) {
  switch (dt) {
    case QNN_DATATYPE_SFIXED_POINT_8: return 127;
    case QNN_DATATYPE_SFIXED_POINT_16: return 32767;
    case QNN_DATATYPE_SFIXED_POINT_32: return INT32_MAX;
    case QNN_DATATYPE_UFIXED_POINT_16: return 65535;
    default: return 255;
  }
}

bool is_weighted(const std::string& type) {
  return type == QNN_OP_CONV_2D || type == QNN_OP_DEPTH_WISE_CONV_2D || type == QNN_OP_TRANSPOSE_CONV_2D ||
         type == QNN_OP_TRANSPOSE_CONV_3D || type == QNN_OP_FULLY_CONNECTED;
}

bool is_data_movement(const std::string& type) {
  return type == QNN_OP_RESHAPE || type == QNN_OP_TRANSPOSE || type == QNN_OP_STRIDED_SLICE ||
         type == QNN_OP_GATHER || type == QNN_OP_SPLIT || type == QNN_OP_POOL_MAX_2D ||
         type == QNN_OP_POOL_MAX_3D;
}

// Makes weight `w` (FLOAT_32, converted from ONNX constant w.source_constant
// by w.source_perm) carry the integers and encoding of its QDQ source `src`.
// `out_axis` is the output-channel axis of a conv/FC weight, the only axis
// those kernels take per-axis encodings on; nullopt (other static tensors)
// takes the encoding on whichever axis it has. Returns "" or why it cannot.
std::string keep_qdq_weight(QTensor* w, const QdqWeight& src, std::optional<int32_t> out_axis) {
  const std::vector<uint32_t>& perm = w->source_perm;
  if (perm.size() != src.dims.size() || perm.size() != w->dims.size()) return "layout change unknown";
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] >= src.dims.size() || static_cast<int64_t>(w->dims[i]) != src.dims[perm[i]]) {
      return "QNN dims do not match the permuted ONNX dims";
    }
  }
  int32_t qnn_axis = -1;
  if (src.axis >= 0) {
    for (size_t i = 0; i < perm.size(); ++i) {
      if (static_cast<int64_t>(perm[i]) == src.axis) qnn_axis = static_cast<int32_t>(i);
    }
    if (out_axis && qnn_axis != *out_axis) {
      return "per-axis encoding on ONNX axis " + std::to_string(src.axis) + " (QNN axis " + std::to_string(qnn_axis) +
             "), but the kernels take per-axis weights only on the output-channel axis " + std::to_string(*out_axis);
    }
  }
  // ONNX row-major strides, to read the source element of each QNN element.
  std::vector<size_t> onnx_stride(src.dims.size(), 1);
  for (size_t i = src.dims.size(); i-- > 1;) onnx_stride[i - 1] = onnx_stride[i] * static_cast<size_t>(src.dims[i]);
  const std::vector<float> current = floats_of(*w);
  std::vector<uint8_t> data(current.size());
  std::vector<size_t> idx(w->dims.size(), 0);  // QNN multi-index
  for (size_t i = 0; i < current.size(); ++i) {
    size_t s = 0;
    for (size_t d = 0; d < idx.size(); ++d) s += idx[d] * onnx_stride[perm[d]];
    const size_t c = qnn_axis >= 0 ? idx[qnn_axis] : 0;
    const int32_t q = src.values[s];
    // The float weight must still be exactly the folded DequantizeLinear
    // (BatchNormalization folding or Gemm's alpha change it).
    const float dequantized = static_cast<float>((static_cast<double>(q) - src.zero_points[c]) * src.scales[c]);
    if (current[i] != dequantized) return "the weights were changed after DequantizeLinear (e.g. a folded BatchNormalization or Gemm alpha)";
    data[i] = static_cast<uint8_t>(q);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < w->dims[d]) break;
      idx[d] = 0;
    }
  }
  Encoding e;
  if (qnn_axis >= 0) {
    e.kind = Encoding::Kind::kPerAxis;
    e.axis = qnn_axis;
    e.scales = src.scales;
    for (int32_t z : src.zero_points) e.offsets.push_back(-z);
  } else {
    e.kind = Encoding::Kind::kPerTensor;
    e.scale = src.scales[0];
    e.offset = -src.zero_points[0];
  }
  w->encoding = e;
  w->dtype = src.is_signed ? QNN_DATATYPE_SFIXED_POINT_8 : QNN_DATATYPE_UFIXED_POINT_8;
  w->data = std::move(data);
  return "";
}

}  // namespace

Encoding asymmetric_encoding(float min, float max, int bitwidth) {
  // The range must contain 0 (zero exactly representable) and be at least
  // 1e-4 wide.
  // Never a scale from ±inf or nan: a non-finite end counts as 0.
  if (!std::isfinite(min)) min = 0.0f;
  if (!std::isfinite(max)) max = 0.0f;
  double lo = std::min(0.0, static_cast<double>(min)), hi = std::max(0.0, static_cast<double>(max));
  if (hi - lo < 1e-4) hi = lo + 1e-4;
  const double steps = std::pow(2.0, bitwidth) - 1.0;
  const double scale = (hi - lo) / steps;
  // Nudge: the zero point is an integer in [0, steps].
  const double zero_point = std::clamp(std::round(-lo / scale), 0.0, steps);
  Encoding e;
  e.kind = Encoding::Kind::kPerTensor;
  e.scale = static_cast<float>(scale);
  e.offset = static_cast<int32_t>(-zero_point);
  return e;
}

Encoding symmetric_encoding(const std::vector<float>& values) {
  float m = 0.0f;
  for (float v : values) {
    if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  }
  Encoding e;
  e.kind = Encoding::Kind::kPerTensor;
  e.scale = std::max(m / 127.0f, 1e-8f);
  e.offset = 0;
  return e;
}

Encoding symmetric_per_axis_encoding(const std::vector<float>& values, const std::vector<uint32_t>& dims,
                                     int32_t axis) {
  size_t inner = 1;
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
  const size_t channels = dims[axis];
  std::vector<float> m(channels, 0.0f);
  for (size_t i = 0; i < values.size(); ++i) {
    const size_t c = (i / inner) % channels;
    if (std::isfinite(values[i])) m[c] = std::max(m[c], std::fabs(values[i]));
  }
  Encoding e;
  e.kind = Encoding::Kind::kPerAxis;
  e.axis = axis;
  for (size_t c = 0; c < channels; ++c) {
    e.scales.push_back(std::max(m[c] / 127.0f, 1e-8f));
    e.offsets.push_back(0);
  }
  return e;
}

std::vector<uint8_t> quantize_values(const std::vector<float>& values, const std::vector<uint32_t>& dims,
                                     const Encoding& enc, Qnn_DataType_t dtype) {
  const size_t esize = qnn_element_size(dtype);
  std::vector<uint8_t> out(values.size() * esize);
  size_t inner = 1;
  if (enc.kind == Encoding::Kind::kPerAxis) {
    for (size_t i = enc.axis + 1; i < dims.size(); ++i) inner *= dims[i];
  }
  const int64_t lo = range_lo(dtype), hi = range_hi(dtype);
  for (size_t i = 0; i < values.size(); ++i) {
    float scale = enc.scale;
    int32_t offset = enc.offset;
    if (enc.kind == Encoding::Kind::kPerAxis) {
      const size_t c = (i / inner) % dims[enc.axis];
      scale = enc.scales[c];
      offset = enc.offsets[c];
    }
    // Half to even; ±inf (and beyond-range values) saturate, nan is the zero
    // point. Clamped as a double: no out-of-range float-to-integer cast.
    const double x = static_cast<double>(values[i]);
    const double q = std::isnan(x) ? -static_cast<double>(offset) : std::nearbyint(x / scale) - offset;
    const int64_t v = static_cast<int64_t>(std::clamp(q, static_cast<double>(lo), static_cast<double>(hi)));
    if (esize == 1) {
      out[i] = static_cast<uint8_t>(v);
    } else if (esize == 2) {
      const uint16_t w = static_cast<uint16_t>(v);
      std::memcpy(out.data() + 2 * i, &w, 2);
    } else {
      const int32_t w = static_cast<int32_t>(v);
      std::memcpy(out.data() + 4 * i, &w, 4);
    }
  }
  return out;
}

bool quantize_graph(QnnGraphDesc* graph, const std::map<std::string, TensorRange>& ranges,
                    const std::map<std::string, Encoding>& overrides, const QuantOptions& options,
                    std::string* error, const std::map<std::string, QdqWeight>& qdq_weights,
                    std::vector<std::string>* notes) {
  if (options.act_bitwidth != 8 && options.act_bitwidth != 16) {
    *error = "--act_bitwidth " + std::to_string(options.act_bitwidth) + " is not supported (8 or 16)";
    return false;
  }
  if (options.weights_bitwidth != 8) {
    *error = "--weights_bitwidth " + std::to_string(options.weights_bitwidth) + " is not supported (8)";
    return false;
  }
  if (options.bias_bitwidth != 32) {
    *error = "--bias_bitwidth " + std::to_string(options.bias_bitwidth) + " is not supported (32)";
    return false;
  }
  for (const auto& [name, o] : options.activation_overrides) {
    if (o.bitwidth != 8 && o.bitwidth != 16) {
      *error = "quantization override of '" + name + "': bitwidth " + std::to_string(o.bitwidth) +
               " is not supported (8 or 16)";
      return false;
    }
    if (o.has_range && !(std::isfinite(o.min) && std::isfinite(o.max) && o.min <= o.max)) {
      *error = "quantization override of '" + name + "': range [" + std::to_string(o.min) + ", " +
               std::to_string(o.max) + "] is not a finite min <= max";
      return false;
    }
  }
  const Qnn_DataType_t act_dt = options.act_bitwidth == 16 ? QNN_DATATYPE_UFIXED_POINT_16 : QNN_DATATYPE_UFIXED_POINT_8;
  // A tensor the layout pass made channel-last is the ONNX tensor of that
  // name without the suffix.
  auto onnx_name = [](const std::string& name) {
    return name.size() > 5 && name.compare(name.size() - 5, 5, "_nhwc") == 0 ? name.substr(0, name.size() - 5) : name;
  };
  auto find_override = [&](const std::string& name) -> const Encoding* {
    auto it = overrides.find(name);
    if (it == overrides.end()) it = overrides.find(onnx_name(name));
    return it == overrides.end() ? nullptr : &it->second;
  };
  std::set<std::string> overrides_used;
  auto find_activation_override = [&](const std::string& name) -> const ActivationOverride* {
    auto it = options.activation_overrides.find(name);
    if (it == options.activation_overrides.end()) it = options.activation_overrides.find(onnx_name(name));
    if (it == options.activation_overrides.end()) return nullptr;
    overrides_used.insert(it->first);
    return &it->second;
  };
  std::set<std::string> weights, biases;
  for (const QNode& n : graph->nodes) {
    if (!is_weighted(n.type)) continue;
    if (n.inputs.size() > 1) weights.insert(n.inputs[1]);
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) biases.insert(n.inputs[2]);
  }
  // 1. Activations, in graph order so data-movement outputs can inherit.
  auto quantize_activation = [&](QTensor& t) -> bool {
    if (t.dtype != QNN_DATATYPE_FLOAT_32 || t.type == QNN_TENSOR_TYPE_STATIC) return true;
    if (const Encoding* o = find_override(t.name)) {
      t.encoding = *o;
      if (find_activation_override(t.name) != nullptr && notes != nullptr) {
        notes->push_back("tensor '" + t.name + "': the model's QuantizeLinear/DequantizeLinear encoding wins over "
                         "its quantization override");
      }
    } else {
      auto it = ranges.find(t.name);
      if (it == ranges.end()) {
        *error = "no calibration range for tensor '" + t.name + "'";
        return false;
      }
      const TensorRange& r = it->second;
      if (const ActivationOverride* o = find_activation_override(t.name)) {
        t.encoding = asymmetric_encoding(o->has_range ? o->min : r.min, o->has_range ? o->max : r.max, o->bitwidth);
        t.dtype = o->bitwidth == 16 ? QNN_DATATYPE_UFIXED_POINT_16 : QNN_DATATYPE_UFIXED_POINT_8;
        return true;
      }
      t.encoding = asymmetric_encoding(r.min, r.max, options.act_bitwidth);
      if ((r.neg_inf || r.pos_inf) && notes != nullptr) {
        notes->push_back("tensor '" + t.name + "': calibration saw " +
                         (r.neg_inf && r.pos_inf ? "-inf and +inf" : r.neg_inf ? "-inf" : "+inf") +
                         "; encoded on the finite range [" + std::to_string(r.min) + ", " + std::to_string(r.max) +
                         "], infinities saturate");
      }
    }
    t.dtype = act_dt;
    return true;
  };
  for (const std::string& in : graph->inputs) {
    if (!quantize_activation(*graph->find(in))) return false;
  }
  for (const QNode& n : graph->nodes) {
    for (const std::string& o : n.outputs) {
      QTensor& t = *graph->find(o);
      if (t.dtype != QNN_DATATYPE_FLOAT_32) continue;
      const QTensor* src = n.inputs.empty() ? nullptr : graph->find(n.inputs[0]);
      if (is_data_movement(n.type) && src != nullptr && src->type != QNN_TENSOR_TYPE_STATIC &&
          src->encoding.kind == Encoding::Kind::kPerTensor && find_override(o) == nullptr &&
          options.activation_overrides.count(onnx_name(o)) == 0 && options.activation_overrides.count(o) == 0) {
        t.dtype = src->dtype;
        t.encoding = src->encoding;
        continue;
      }
      if (!quantize_activation(t)) return false;
    }
  }
  for (const auto& [name, o] : options.activation_overrides) {
    if (overrides_used.count(name) != 0) continue;
    const std::string why = "quantization override of '" + name +
                            "': no such activation in the converted graph (a misspelt name, a constant, or a tensor "
                            "folded or fused away, such as the inside of a fused LayerNorm)";
    if (options.every_override_here) {
      *error = why;
      return false;
    }
    if (notes != nullptr) notes->push_back(why);
  }
  // 2. Weights, then biases (which need the weights' and inputs' scales).
  for (const QNode& n : graph->nodes) {
    if (!is_weighted(n.type) || n.inputs.size() < 2) continue;
    QTensor& w = *graph->find(n.inputs[1]);
    if (w.type != QNN_TENSOR_TYPE_STATIC || w.dtype != QNN_DATATYPE_FLOAT_32) continue;
    // Output-channel axis: last for the conv family (HWIO), 0 for FC [out, in].
    const int32_t axis = n.type == QNN_OP_FULLY_CONNECTED ? 0 : static_cast<int32_t>(w.dims.size()) - 1;
    if (auto src = qdq_weights.find(w.source_constant); !w.source_constant.empty() && src != qdq_weights.end()) {
      const std::string why = keep_qdq_weight(&w, src->second, axis);
      if (why.empty()) continue;
      if (notes != nullptr) {
        notes->push_back("weight '" + w.source_constant + "' of " + n.onnx_node + ": QDQ encoding not kept (" + why +
                         "); requantized");
      }
    }
    const std::vector<float> v = floats_of(w);
    w.encoding = options.per_channel ? symmetric_per_axis_encoding(v, w.dims, axis) : symmetric_encoding(v);
    w.dtype = QNN_DATATYPE_SFIXED_POINT_8;
    w.data = quantize_values(v, w.dims, w.encoding, w.dtype);
  }
  // MatMul's static in[1] with per_channel: symmetric per output column.
  for (const QNode& n : graph->nodes) {
    if (!options.per_channel || n.type != QNN_OP_MAT_MUL || n.inputs.size() < 2) continue;
    QTensor& w = *graph->find(n.inputs[1]);
    if (w.type != QNN_TENSOR_TYPE_STATIC || w.dtype != QNN_DATATYPE_FLOAT_32 || w.dims.size() < 2) continue;
    if (!w.source_constant.empty() && qdq_weights.count(w.source_constant) != 0) continue;  // step 3 keeps it
    bool transpose_in1 = false;
    for (const QParam& p : n.params) {
      if (p.name == QNN_OP_MAT_MUL_PARAM_TRANSPOSE_IN1 && !p.is_tensor) transpose_in1 = p.scalar.bool8Value != 0;
    }
    const int32_t axis = static_cast<int32_t>(w.dims.size()) - (transpose_in1 ? 2 : 1);
    const std::vector<float> v = floats_of(w);
    w.encoding = symmetric_per_axis_encoding(v, w.dims, axis);
    w.dtype = QNN_DATATYPE_SFIXED_POINT_8;
    w.data = quantize_values(v, w.dims, w.encoding, w.dtype);
  }
  for (const QNode& n : graph->nodes) {
    if (!is_weighted(n.type) || n.inputs.size() < 3 || n.inputs[2].empty()) continue;
    QTensor& b = *graph->find(n.inputs[2]);
    if (b.type != QNN_TENSOR_TYPE_STATIC || b.dtype != QNN_DATATYPE_FLOAT_32) continue;
    const QTensor& in = *graph->find(n.inputs[0]);
    const QTensor& w = *graph->find(n.inputs[1]);
    if (in.encoding.kind != Encoding::Kind::kPerTensor || w.encoding.kind == Encoding::Kind::kNone) {
      *error = "bias '" + b.name + "': input or weight of " + n.name + " is not quantized";
      return false;
    }
    const std::vector<float> v = floats_of(b);
    Encoding e;
    if (w.encoding.kind == Encoding::Kind::kPerAxis) {
      e.kind = Encoding::Kind::kPerAxis;
      e.axis = 0;
      for (float ws : w.encoding.scales) {
        e.scales.push_back(in.encoding.scale * ws);
        e.offsets.push_back(0);
      }
    } else {
      e.kind = Encoding::Kind::kPerTensor;
      e.scale = in.encoding.scale * w.encoding.scale;
      e.offset = 0;
    }
    b.encoding = e;
    b.dtype = QNN_DATATYPE_SFIXED_POINT_32;
    b.data = quantize_values(v, b.dims, e, b.dtype);
  }
  // Largest finite magnitude of the calibrated activations: ±inf in a
  // constant is extended beyond it so it saturates what it meets.
  float activation_magnitude = 0.0f;
  for (const auto& [name, r] : ranges) {
    if (std::isfinite(r.min) && std::isfinite(r.max)) {
      activation_magnitude = std::max({activation_magnitude, std::fabs(r.min), std::fabs(r.max)});
    }
  }
  // 3. Remaining static float tensors (MatMul's constant operand, constants
  // of element-wise ops, ...). One behind a DequantizeLinear keeps its QDQ
  // integers and encoding (per tensor, or per axis on whichever axis it has).
  for (QTensor& t : graph->tensors) {
    if (t.type != QNN_TENSOR_TYPE_STATIC || t.dtype != QNN_DATATYPE_FLOAT_32) continue;
    if (weights.count(t.name) != 0 || biases.count(t.name) != 0) continue;
    if (auto src = qdq_weights.find(t.source_constant); !t.source_constant.empty() && src != qdq_weights.end()) {
      const std::string why = keep_qdq_weight(&t, src->second, std::nullopt);
      if (why.empty()) continue;
      if (notes != nullptr) {
        notes->push_back("constant '" + t.source_constant + "': QDQ encoding not kept (" + why + "); requantized");
      }
    }
    const std::vector<float> v = floats_of(t);
    float lo = 0.0f, hi = 0.0f;
    bool neg_inf = false, pos_inf = false, nan = false;
    for (float x : v) {
      if (std::isnan(x)) {
        nan = true;
      } else if (std::isinf(x)) {
        (x < 0 ? neg_inf : pos_inf) = true;
      } else {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
    }
    if (neg_inf || pos_inf) {
      const float big = 2.0f * std::max({activation_magnitude, std::fabs(lo), std::fabs(hi), 1.0f});
      if (neg_inf) lo = std::min(lo, -big);
      if (pos_inf) hi = std::max(hi, big);
    }
    if ((neg_inf || pos_inf || nan) && notes != nullptr) {
      std::string what = neg_inf ? "-inf" : "";
      if (pos_inf) what += std::string(what.empty() ? "" : ", ") + "+inf";
      if (nan) what += std::string(what.empty() ? "" : ", ") + "nan";
      notes->push_back("constant '" + (t.source_constant.empty() ? t.name : t.source_constant) + "' holds " + what +
                       ": encoded on [" + std::to_string(lo) + ", " + std::to_string(hi) + "]" +
                       (neg_inf || pos_inf ? ", infinities saturate to its ends" : "") + (nan ? ", nan as 0" : ""));
    }
    t.encoding = asymmetric_encoding(lo, hi, 8);
    t.dtype = QNN_DATATYPE_UFIXED_POINT_8;
    t.data = quantize_values(v, t.dims, t.encoding, t.dtype);
  }
  return true;
}

}  // namespace openhtp::onnx_import
