// The one internal kernel interface every op implements.
//
// Lifecycle (after XNNPACK): an op is *prepared* once from a NodeDesc — shapes,
// data types and parameters are validated there and anything expensive (weight
// packing, index tables) is done there — and the resulting OpKernel is *run*
// many times with nothing but data pointers. Validation (graphAddNode,
// backendValidateOpConfig) is the same prepare call with no kernel requested,
// so the rules live in exactly one place.
//
// This header is deliberately free of QNN headers: the DSP side and the client
// side both use it, and tests can drive kernels without the QNN API. Data type
// codes are Qnn_DataType_t's numeric values so no translation table is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace openhtp::ops {

// Qnn_DataType_t values (see include/QNN/QnnTypes.h); only the ones kernels use.
namespace dtype {
inline constexpr uint32_t kInt8 = 0x0008;
inline constexpr uint32_t kInt16 = 0x0016;
inline constexpr uint32_t kInt32 = 0x0032;
inline constexpr uint32_t kInt64 = 0x0064;
inline constexpr uint32_t kUint8 = 0x0108;
inline constexpr uint32_t kUint16 = 0x0116;
inline constexpr uint32_t kUint32 = 0x0132;
inline constexpr uint32_t kUint64 = 0x0164;
inline constexpr uint32_t kFloat16 = 0x0216;
inline constexpr uint32_t kFloat32 = 0x0232;
inline constexpr uint32_t kSfixed8 = 0x0308;
inline constexpr uint32_t kSfixed16 = 0x0316;
inline constexpr uint32_t kSfixed32 = 0x0332;
inline constexpr uint32_t kUfixed8 = 0x0408;
inline constexpr uint32_t kUfixed16 = 0x0416;
inline constexpr uint32_t kBool8 = 0x0508;
// Bytes per element, 0 for unknown/undefined types.
size_t element_size(uint32_t dt);
// Human-readable name ("FLOAT_32") for log lines.
const char* name(uint32_t dt);
}  // namespace dtype

// Per-tensor quantization (QNN convention: real = (q + offset) * scale).
struct Quant {
  bool present = false;
  float scale = 0.0f;
  int32_t offset = 0;
};

// What a kernel knows about one tensor at prepare time.
struct TensorDesc {
  bool present = true;          // false for an omitted optional input (QNN NULL tensor)
  uint32_t dtype = 0;           // Qnn_DataType_t value
  std::vector<uint32_t> dims;   // row-major, NHWC for activations
  Quant quant;
  const void* static_data = nullptr;  // non-null for STATIC tensors (weights, bias)

  size_t num_elements() const;
  size_t num_bytes() const { return num_elements() * dtype::element_size(dtype); }
};

// One node parameter: a scalar or a (static) tensor, as in Qnn_Param_t.
struct Param {
  std::string name;
  bool is_tensor = false;
  uint32_t dtype = 0;            // Qnn_DataType_t of the scalar or tensor elements
  // Scalar value. Integers and booleans are in `i`, floats in `f`; the QNN layer
  // fills both from the Qnn_Scalar_t so a kernel may read either.
  int64_t i = 0;
  double f = 0.0;
  // Tensor value.
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;     // raw little-endian elements of `dtype`
};

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // shapes/params/types break the op definition
  kUnsupported,      // valid QNN, but not supported by this backend
};

struct Status {
  StatusCode code = StatusCode::kOk;
  std::string message;  // names the rule and the offending value
  bool ok() const { return code == StatusCode::kOk; }
  static Status Ok() { return {}; }
  static Status Invalid(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
  static Status Unsupported(std::string msg) { return {StatusCode::kUnsupported, std::move(msg)}; }
};

// Everything prepare needs about one node.
struct NodeDesc {
  std::string_view name;      // node name, for messages
  std::string_view type;      // e.g. "Conv2d"
  std::span<const TensorDesc> inputs;
  std::span<const TensorDesc> outputs;
  std::span<const Param> params;

  // Parameter lookup; nullptr when absent.
  const Param* find_param(std::string_view param_name) const;
};

// A prepared node. run() must not allocate on the hot path beyond what prepare
// decided, and must be safe to call repeatedly.
class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // in[i] / out[i] point at tensor data laid out as the TensorDescs given to
  // prepare. Absent optional inputs are nullptr.
  virtual void run(std::span<const void* const> in, std::span<void* const> out) = 0;
};

// Validates `node`; when `kernel` is non-null also builds the kernel.
using PrepareFn = Status (*)(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel);

struct OpDef {
  std::string_view type_name;  // QNN op type name in package qti.aisw
  PrepareFn prepare;
};

inline constexpr std::string_view kPackageName = "qti.aisw";

// Every op this backend supports, in a stable order.
std::span<const OpDef> all_ops();
// nullptr when the op type is unknown.
const OpDef* find_op(std::string_view type_name);

}  // namespace openhtp::ops
