// ElementWiseBinary's operation codes, and the reference's per-element
// functions of its float operations that are more than one operator: numpy's NaN-propagating
// maximum/minimum, floor division and floor modulo. One definition, used by
// the reference kernel (elementwise.cpp) and by the fast paths that compute
// the same expression (kernels/xnnpack_binary.cpp, kernels/float_binary.cpp),
// so those are bit for bit the reference by construction.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace openhtp::ops::binary_fns {

// ElementWiseBinary's `operation` codes, QNN's values (QnnOpDef.h
// QNN_OP_ELEMENT_WISE_BINARY_OPERATION_*), which the standalone op types
// (ElementWiseFloorDiv, ElementWiseEqual, ...) imply.
enum class BinaryOp : uint32_t {
  kAdd = 0, kAnd, kDivide, kEqual, kFloorDiv, kFmod, kGreater, kGreaterEqual, kLess, kLessEqual,
  kMaximum, kMinimum, kMod, kMultiply, kNotEqual, kOr, kPower, kSquaredDifference, kSubtract, kXor,
};
inline constexpr uint32_t kNumBinaryOps = 20;

// numpy's maximum/minimum: a NaN on either side gives NaN (std::fmax would
// drop it).
inline float nan_max(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  return a > b ? a : b;
}
inline float nan_min(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  return a < b ? a : b;
}

// MOD (numpy mod / ONNX Mod fmod=0 / Python %): the result has the sign of the
// divisor. fmod gives the sign of the dividend; shift by one divisor when the
// signs disagree.
inline float floor_mod(float a, float b) {
  float m = std::fmod(a, b);
  if (m != 0.0f && ((m < 0.0f) != (b < 0.0f))) m += b;
  return m;
}

// FLOOR_DIV (numpy floor_divide / Python //): chosen so that
// a == b * floor_div(a, b) + floor_mod(a, b) holds as closely as floats allow.
// It is derived from the exact remainder rather than floor(a / b), because the
// rounded quotient can cross an integer: 1 // 0.1 is 9, while floor(1 / 0.1f)
// is 10 in float.
inline float floor_div(float a, float b) {
  if (b == 0.0f) return a / b;  // +-inf, or NaN for 0/0
  const float m = std::fmod(a, b);
  float q = (a - m) / b;  // an integer up to rounding
  if (m != 0.0f && ((m < 0.0f) != (b < 0.0f))) q -= 1.0f;
  if (q == 0.0f) return std::copysign(0.0f, a / b);
  // (a - m) / b can land just below or above the integer it stands for.
  const float f = std::floor(q);
  return q - f > 0.5f ? f + 1.0f : f;
}

}  // namespace openhtp::ops::binary_fns
