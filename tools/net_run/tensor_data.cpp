#include "tensor_data.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace openhtp::netrun {
namespace {

// IEEE half <-> float, round to nearest even (no dependency on F16C).
uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504: inf
  if (abs < 0x38800000u) {                                               // subnormal half or zero
    float a;
    std::memcpy(&a, &abs, 4);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
  }
  const uint32_t mant_odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xfffu + mant_odd;
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

float half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  float out;
  if (exp == 0) {
    out = std::ldexp(static_cast<float>(mant), -24);
    return sign != 0 ? -out : out;
  }
  uint32_t bits = exp == 31 ? (sign | 0x7f800000u | (mant << 13)) : (sign | ((exp + 112) << 23) | (mant << 13));
  std::memcpy(&out, &bits, 4);
  return out;
}

template <typename T>
T saturate(double v) {
  if (std::isnan(v)) return T{0};
  const double r = std::nearbyint(v);
  if (r <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (r >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(r);
}

template <typename T>
void quantize(const TensorDesc& d, const float* in, size_t n, void* out) {
  T* o = static_cast<T*>(out);
  for (size_t i = 0; i < n; ++i) o[i] = saturate<T>(static_cast<double>(in[i]) / d.scale - d.offset);
}

template <typename T>
void dequantize(const TensorDesc& d, const void* in, size_t n, float* out) {
  const T* q = static_cast<const T*>(in);
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<float>((static_cast<double>(q[i]) + d.offset) * static_cast<double>(d.scale));
  }
}

template <typename T>
void cast_in(const float* in, size_t n, void* out) {
  T* o = static_cast<T*>(out);
  for (size_t i = 0; i < n; ++i) o[i] = saturate<T>(in[i]);
}

template <typename T>
void cast_out(const void* in, size_t n, float* out) {
  const T* v = static_cast<const T*>(in);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(v[i]);
}

bool is_fixed_point(Qnn_DataType_t t) {
  return (t >> 8) == 0x03 || (t >> 8) == 0x04;
}

bool no_conversion(const TensorDesc& d, std::string* error) {
  *error = "tensor '" + d.name + "' (" + d.describe() +
           (is_fixed_point(d.data_type) && !d.has_scale_offset ? ", not a per-tensor scale/offset encoding" : "") +
           ") has no float32 conversion here; use native files (--use_native_input_files / "
           "--use_native_output_files)";
  return false;
}

}  // namespace

size_t TensorDesc::element_count() const {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

size_t TensorDesc::element_size() const {
  switch (data_type) {
    case QNN_DATATYPE_INT_8: case QNN_DATATYPE_UINT_8: case QNN_DATATYPE_SFIXED_POINT_8:
    case QNN_DATATYPE_UFIXED_POINT_8: case QNN_DATATYPE_BOOL_8: case QNN_DATATYPE_FLOAT_8:
      return 1;
    case QNN_DATATYPE_INT_16: case QNN_DATATYPE_UINT_16: case QNN_DATATYPE_SFIXED_POINT_16:
    case QNN_DATATYPE_UFIXED_POINT_16: case QNN_DATATYPE_FLOAT_16: case QNN_DATATYPE_BFLOAT_16:
      return 2;
    case QNN_DATATYPE_INT_32: case QNN_DATATYPE_UINT_32: case QNN_DATATYPE_SFIXED_POINT_32:
    case QNN_DATATYPE_UFIXED_POINT_32: case QNN_DATATYPE_FLOAT_32:
      return 4;
    case QNN_DATATYPE_INT_64: case QNN_DATATYPE_UINT_64: case QNN_DATATYPE_FLOAT_64:
      return 8;
    default:
      return 0;
  }
}

std::string data_type_name(Qnn_DataType_t t) {
  switch (t) {
    case QNN_DATATYPE_INT_8: return "INT_8";
    case QNN_DATATYPE_INT_16: return "INT_16";
    case QNN_DATATYPE_INT_32: return "INT_32";
    case QNN_DATATYPE_INT_64: return "INT_64";
    case QNN_DATATYPE_UINT_8: return "UINT_8";
    case QNN_DATATYPE_UINT_16: return "UINT_16";
    case QNN_DATATYPE_UINT_32: return "UINT_32";
    case QNN_DATATYPE_UINT_64: return "UINT_64";
    case QNN_DATATYPE_FLOAT_16: return "FLOAT_16";
    case QNN_DATATYPE_BFLOAT_16: return "BFLOAT_16";
    case QNN_DATATYPE_FLOAT_32: return "FLOAT_32";
    case QNN_DATATYPE_FLOAT_64: return "FLOAT_64";
    case QNN_DATATYPE_SFIXED_POINT_8: return "SFIXED_POINT_8";
    case QNN_DATATYPE_SFIXED_POINT_16: return "SFIXED_POINT_16";
    case QNN_DATATYPE_SFIXED_POINT_32: return "SFIXED_POINT_32";
    case QNN_DATATYPE_UFIXED_POINT_8: return "UFIXED_POINT_8";
    case QNN_DATATYPE_UFIXED_POINT_16: return "UFIXED_POINT_16";
    case QNN_DATATYPE_UFIXED_POINT_32: return "UFIXED_POINT_32";
    case QNN_DATATYPE_BOOL_8: return "BOOL_8";
    default: return "data type " + std::to_string(static_cast<unsigned>(t));
  }
}

std::string TensorDesc::describe() const {
  std::string s = data_type_name(data_type) + " [";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

TensorDesc describe_tensor(const Qnn_Tensor_t& t) {
  const Qnn_TensorV1_t& v = t.v1;  // v2 shares v1's leading fields
  TensorDesc d;
  d.id = v.id;
  d.name = v.name != nullptr ? v.name : "";
  d.type = v.type;
  d.data_format = v.dataFormat;
  d.data_type = v.dataType;
  if (v.dimensions != nullptr) d.dims.assign(v.dimensions, v.dimensions + v.rank);
  const Qnn_QuantizeParams_t& q = v.quantizeParams;
  if (q.encodingDefinition == QNN_DEFINITION_DEFINED) {
    if (q.quantizationEncoding == QNN_QUANTIZATION_ENCODING_SCALE_OFFSET) {
      d.has_scale_offset = true;
      d.scale = q.scaleOffsetEncoding.scale;
      d.offset = q.scaleOffsetEncoding.offset;
    } else if (q.quantizationEncoding == QNN_QUANTIZATION_ENCODING_BW_SCALE_OFFSET) {
      d.has_scale_offset = true;
      d.scale = q.bwScaleOffsetEncoding.scale;
      d.offset = q.bwScaleOffsetEncoding.offset;
    }
  }
  return d;
}

Qnn_Tensor_t make_exec_tensor(const TensorDesc& d, void* data, uint32_t size, Qnn_MemHandle_t mem) {
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  t.v1.id = d.id;
  t.v1.name = d.name.c_str();
  t.v1.type = d.type;
  t.v1.dataFormat = d.data_format;
  t.v1.dataType = d.data_type;
  t.v1.rank = static_cast<uint32_t>(d.dims.size());
  t.v1.dimensions = const_cast<uint32_t*>(d.dims.data());
  if (mem != nullptr) {
    t.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
    t.v1.memHandle = mem;
  } else {
    t.v1.memType = QNN_TENSORMEMTYPE_RAW;
    t.v1.clientBuf = {data, size};
  }
  return t;
}

bool float_to_native(const TensorDesc& d, const float* in, size_t n, void* out, std::string* error) {
  if (is_fixed_point(d.data_type) && !d.has_scale_offset) return no_conversion(d, error);
  switch (d.data_type) {
    case QNN_DATATYPE_FLOAT_32: std::memcpy(out, in, n * 4); return true;
    case QNN_DATATYPE_FLOAT_64: {
      double* o = static_cast<double*>(out);
      for (size_t i = 0; i < n; ++i) o[i] = in[i];
      return true;
    }
    case QNN_DATATYPE_FLOAT_16: {
      uint16_t* o = static_cast<uint16_t*>(out);
      for (size_t i = 0; i < n; ++i) o[i] = float_to_half(in[i]);
      return true;
    }
    case QNN_DATATYPE_UFIXED_POINT_8: quantize<uint8_t>(d, in, n, out); return true;
    case QNN_DATATYPE_UFIXED_POINT_16: quantize<uint16_t>(d, in, n, out); return true;
    case QNN_DATATYPE_UFIXED_POINT_32: quantize<uint32_t>(d, in, n, out); return true;
    case QNN_DATATYPE_SFIXED_POINT_8: quantize<int8_t>(d, in, n, out); return true;
    case QNN_DATATYPE_SFIXED_POINT_16: quantize<int16_t>(d, in, n, out); return true;
    case QNN_DATATYPE_SFIXED_POINT_32: quantize<int32_t>(d, in, n, out); return true;
    case QNN_DATATYPE_INT_8: cast_in<int8_t>(in, n, out); return true;
    case QNN_DATATYPE_INT_16: cast_in<int16_t>(in, n, out); return true;
    case QNN_DATATYPE_INT_32: cast_in<int32_t>(in, n, out); return true;
    case QNN_DATATYPE_INT_64: cast_in<int64_t>(in, n, out); return true;
    case QNN_DATATYPE_UINT_8: cast_in<uint8_t>(in, n, out); return true;
    case QNN_DATATYPE_UINT_16: cast_in<uint16_t>(in, n, out); return true;
    case QNN_DATATYPE_UINT_32: cast_in<uint32_t>(in, n, out); return true;
    case QNN_DATATYPE_UINT_64: cast_in<uint64_t>(in, n, out); return true;
    case QNN_DATATYPE_BOOL_8: {
      uint8_t* o = static_cast<uint8_t*>(out);
      for (size_t i = 0; i < n; ++i) o[i] = in[i] != 0.0f ? 1 : 0;
      return true;
    }
    default: return no_conversion(d, error);
  }
}

bool native_to_float(const TensorDesc& d, const void* in, size_t n, float* out, std::string* error) {
  if (is_fixed_point(d.data_type) && !d.has_scale_offset) return no_conversion(d, error);
  switch (d.data_type) {
    case QNN_DATATYPE_FLOAT_32: std::memcpy(out, in, n * 4); return true;
    case QNN_DATATYPE_FLOAT_64: cast_out<double>(in, n, out); return true;
    case QNN_DATATYPE_FLOAT_16: {
      const uint16_t* h = static_cast<const uint16_t*>(in);
      for (size_t i = 0; i < n; ++i) out[i] = half_to_float(h[i]);
      return true;
    }
    case QNN_DATATYPE_UFIXED_POINT_8: dequantize<uint8_t>(d, in, n, out); return true;
    case QNN_DATATYPE_UFIXED_POINT_16: dequantize<uint16_t>(d, in, n, out); return true;
    case QNN_DATATYPE_UFIXED_POINT_32: dequantize<uint32_t>(d, in, n, out); return true;
    case QNN_DATATYPE_SFIXED_POINT_8: dequantize<int8_t>(d, in, n, out); return true;
    case QNN_DATATYPE_SFIXED_POINT_16: dequantize<int16_t>(d, in, n, out); return true;
    case QNN_DATATYPE_SFIXED_POINT_32: dequantize<int32_t>(d, in, n, out); return true;
    case QNN_DATATYPE_INT_8: cast_out<int8_t>(in, n, out); return true;
    case QNN_DATATYPE_INT_16: cast_out<int16_t>(in, n, out); return true;
    case QNN_DATATYPE_INT_32: cast_out<int32_t>(in, n, out); return true;
    case QNN_DATATYPE_INT_64: cast_out<int64_t>(in, n, out); return true;
    case QNN_DATATYPE_UINT_8: cast_out<uint8_t>(in, n, out); return true;
    case QNN_DATATYPE_UINT_16: cast_out<uint16_t>(in, n, out); return true;
    case QNN_DATATYPE_UINT_32: cast_out<uint32_t>(in, n, out); return true;
    case QNN_DATATYPE_UINT_64: cast_out<uint64_t>(in, n, out); return true;
    case QNN_DATATYPE_BOOL_8: cast_out<uint8_t>(in, n, out); return true;
    default: return no_conversion(d, error);
  }
}

}  // namespace openhtp::netrun
