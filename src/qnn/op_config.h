// Qnn_OpConfig_t → the kernel interface's NodeDesc, shared by
// backendValidateOpConfig (tensors described inline) and graphAddNode
// (tensors looked up in the graph), so both apply exactly the same rules.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "QnnOpDef.h"
#include "QnnTensor.h"
#include "QnnTypes.h"
#include "ops/op.h"

namespace openhtp::qnn {

// Converts the node's parameters. False + *why on malformed input.
bool convert_params(const Qnn_OpConfigV1_t& op, std::vector<ops::Param>* params, std::string* why);

// Qnn_QuantizeParams_t → ops::Quant. Accepts SCALE_OFFSET, BW_SCALE_OFFSET,
// AXIS_SCALE_OFFSET and BW_AXIS_SCALE_OFFSET (the bitwidth is the container's
// here: 8/16/32-bit types only); UNDEFINED leaves *out empty. False + *why
// for other encodings (kind = "unsupported") or malformed ones (arrays
// missing, counts not matching the axis).
bool convert_quant(const Qnn_QuantizeParams_t& q, std::span<const uint32_t> dims, ops::Quant* out,
                   std::string* why);

// The code for a quantizeParams convert_quant refused: INVALID_TENSOR_PARAM
// for an encoding it takes whose values were wrong and for values QNN does
// not define; UNSUPPORTED_TENSOR_PARAM for QNN encodings it does not take.
Qnn_ErrorHandle_t quant_refusal(const Qnn_QuantizeParams_t& q);

// Describes a client tensor for the kernels (static data pointer included).
// False + *why when the tensor struct itself is unusable.
bool describe_tensor(const Qnn_Tensor_t& t, ops::TensorDesc* desc, std::string* why);

// Package/type/name checks common to both paths. False + *why.
bool check_op_identity(const Qnn_OpConfig_t& op, std::string* why);

// Runs the op's prepare() without building a kernel; returns the QNN error
// (QNN_SUCCESS, or `invalid_code` / `unsupported_code`) and logs the reason.
Qnn_ErrorHandle_t validate_node(const ops::NodeDesc& node, Qnn_ErrorHandle_t invalid_code,
                                Qnn_ErrorHandle_t unsupported_code);

}  // namespace openhtp::qnn
