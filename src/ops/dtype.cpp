// Qnn_DataType_t helpers. Codes are the QNN numeric values (see op.h).
#include "ops/op.h"

namespace openhtp::ops::dtype {

namespace {
// Codes op.h does not name because no kernel uses them yet.
constexpr uint32_t kSfixed4 = 0x0304;
constexpr uint32_t kUfixed4 = 0x0404;
constexpr uint32_t kUfixed32 = 0x0432;
constexpr uint32_t kString = 0x0608;
constexpr uint32_t kUndefined = 0x7FFFFFFF;
}  // namespace

size_t element_size(uint32_t dt) {
  switch (dt) {
    case kInt8: case kUint8: case kSfixed8: case kUfixed8: case kBool8:
      return 1;
    // 4-bit fixed point travels one value per byte in client buffers (the
    // bitwidth field says how many of the 8 bits are used), so one byte each.
    case kSfixed4: case kUfixed4:
      return 1;
    case kInt16: case kUint16: case kFloat16: case kBfloat16: case kSfixed16: case kUfixed16:
      return 2;
    case kInt32: case kUint32: case kFloat32: case kSfixed32: case kUfixed32:
      return 4;
    case kInt64: case kUint64: case kFloat64:
      return 8;
    default:  // STRING has no fixed element size; UNDEFINED and unknown codes none at all
      return 0;
  }
}

const char* name(uint32_t dt) {
  switch (dt) {
    case kInt8: return "INT_8";
    case kInt16: return "INT_16";
    case kInt32: return "INT_32";
    case kInt64: return "INT_64";
    case kUint8: return "UINT_8";
    case kUint16: return "UINT_16";
    case kUint32: return "UINT_32";
    case kUint64: return "UINT_64";
    case kFloat16: return "FLOAT_16";
    case kFloat32: return "FLOAT_32";
    case kFloat64: return "FLOAT_64";
    case kBfloat16: return "BFLOAT_16";
    case kSfixed4: return "SFIXED_POINT_4";
    case kSfixed8: return "SFIXED_POINT_8";
    case kSfixed16: return "SFIXED_POINT_16";
    case kSfixed32: return "SFIXED_POINT_32";
    case kUfixed4: return "UFIXED_POINT_4";
    case kUfixed8: return "UFIXED_POINT_8";
    case kUfixed16: return "UFIXED_POINT_16";
    case kUfixed32: return "UFIXED_POINT_32";
    case kBool8: return "BOOL_8";
    case kString: return "STRING";
    case kUndefined: return "UNDEFINED";
    default: return "UNKNOWN";
  }
}

}  // namespace openhtp::ops::dtype
