#include "ops/param_reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {


bool is_integer_type(uint32_t dt) {
  switch (dt) {
    case dtype::kInt8: case dtype::kInt16: case dtype::kInt32: case dtype::kInt64:
    case dtype::kUint8: case dtype::kUint16: case dtype::kUint32: case dtype::kUint64:
    case dtype::kBool8:
      return true;
    default:
      return false;
  }
}

bool is_float_type(uint32_t dt) {
  return dt == dtype::kFloat16 || dt == dtype::kFloat32 || dt == dtype::kFloat64;
}

std::string type_str(uint32_t dt) {
  return cat(dtype::name(dt), " (0x", std::hex, dt, ")");
}

}  // namespace

Status ParamReader::check_names(std::initializer_list<std::string_view> known) const {
  for (size_t i = 0; i < node_.params.size(); ++i) {
    const std::string& name = node_.params[i].name;
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == name;
    if (!ok) return invalid(node_, "unknown parameter '", name, "'");
    for (size_t j = 0; j < i; ++j) {
      if (node_.params[j].name == name) return invalid(node_, "parameter '", name, "' given twice");
    }
  }
  return Status::Ok();
}

Status ParamReader::scalar_param(std::string_view name, bool mandatory, const Param** p) const {
  *p = node_.find_param(name);
  if (*p == nullptr) {
    if (mandatory) return invalid(node_, "mandatory parameter '", name, "' is missing");
    return Status::Ok();
  }
  if ((*p)->is_tensor) {
    return invalid(node_, "parameter '", name, "' is a tensor, expected a scalar");
  }
  if (!is_integer_type((*p)->dtype) && !is_float_type((*p)->dtype)) {
    return invalid(node_, "parameter '", name, "' has data type ", type_str((*p)->dtype),
                   ", expected an integer, bool or float scalar");
  }
  return Status::Ok();
}

Status ParamReader::u32_scalar(std::string_view name, std::optional<uint32_t> def,
                               uint32_t* out) const {
  const Param* p = nullptr;
  if (Status s = scalar_param(name, !def.has_value(), &p); !s.ok()) return s;
  if (p == nullptr) {
    *out = *def;
    return Status::Ok();
  }
  if (is_float_type(p->dtype)) {
    const double f = p->f;
    if (!(f >= 0.0 && f <= 4294967295.0) || std::floor(f) != f) {
      return invalid(node_, "parameter '", name, "' is ", f, ", expected an integer in [0, 2^32-1]");
    }
    *out = static_cast<uint32_t>(f);
    return Status::Ok();
  }
  if (p->i < 0 || p->i > int64_t{UINT32_MAX}) {
    return invalid(node_, "parameter '", name, "' is ", p->i, ", expected an integer in [0, 2^32-1]");
  }
  *out = static_cast<uint32_t>(p->i);
  return Status::Ok();
}

Status ParamReader::bool_scalar(std::string_view name, std::optional<bool> def, bool* out) const {
  const Param* p = nullptr;
  if (Status s = scalar_param(name, !def.has_value(), &p); !s.ok()) return s;
  if (p == nullptr) {
    *out = *def;
    return Status::Ok();
  }
  // QNN booleans are BOOL_8 (or any integer): zero is false, anything else true.
  *out = is_float_type(p->dtype) ? p->f != 0.0 : p->i != 0;
  return Status::Ok();
}

Status ParamReader::f32_scalar(std::string_view name, std::optional<float> def, float* out) const {
  const Param* p = nullptr;
  if (Status s = scalar_param(name, !def.has_value(), &p); !s.ok()) return s;
  if (p == nullptr) {
    *out = *def;
    return Status::Ok();
  }
  const double v = is_float_type(p->dtype) ? p->f : static_cast<double>(p->i);
  if (!std::isfinite(v) || std::fabs(v) > 3.4028234663852886e38) {
    return invalid(node_, "parameter '", name, "' is ", v, ", expected a finite float32 value");
  }
  *out = static_cast<float>(v);
  return Status::Ok();
}

Status ParamReader::u32_tensor(std::string_view name, std::span<const uint32_t> dims,
                               std::span<const uint32_t> def, std::vector<uint32_t>* out) const {
  size_t count = 1;
  for (uint32_t d : dims) count *= d;
  const Param* p = node_.find_param(name);
  if (p == nullptr) {
    if (def.empty()) return invalid(node_, "mandatory parameter '", name, "' is missing");
    out->assign(def.begin(), def.end());
    return Status::Ok();
  }
  if (!p->is_tensor) {
    return invalid(node_, "parameter '", name, "' is a scalar, expected a tensor of dims ",
                   dims_str(dims));
  }
  if (p->dtype != dtype::kUint32 && p->dtype != dtype::kInt32) {
    return invalid(node_, "parameter '", name, "' has data type ", type_str(p->dtype),
                   ", expected UINT_32 or INT_32");
  }
  if (p->dims.size() != dims.size() ||
      !std::equal(p->dims.begin(), p->dims.end(), dims.begin())) {
    return invalid(node_, "parameter '", name, "' dims are ", dims_str(p->dims), ", expected ",
                   dims_str(dims));
  }
  if (p->data.size() != count * 4) {
    return invalid(node_, "parameter '", name, "' holds ", p->data.size(), " bytes, expected ",
                   count * 4, " (", count, " x 4-byte elements)");
  }
  out->resize(count);
  for (size_t k = 0; k < count; ++k) {
    uint32_t v;
    // data is unaligned little-endian bytes; every target we build for is little-endian.
    std::memcpy(&v, p->data.data() + 4 * k, 4);
    if (p->dtype == dtype::kInt32 && static_cast<int32_t>(v) < 0) {
      return invalid(node_, "parameter '", name, "' element ", k, " is ", static_cast<int32_t>(v),
                     ", expected >= 0");
    }
    (*out)[k] = v;
  }
  return Status::Ok();
}

}  // namespace openhtp::ops::detail
