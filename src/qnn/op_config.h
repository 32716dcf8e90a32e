// Qnn_OpConfig_t → the kernel interface's NodeDesc, shared by
// backendValidateOpConfig (tensors described inline) and graphAddNode
// (tensors looked up in the graph), so both apply exactly the same rules.
#pragma once

#include <string>
#include <vector>

#include "QnnOpDef.h"
#include "QnnTypes.h"
#include "ops/op.h"

namespace openhtp::qnn {

// Converts the node's parameters. False + *why on malformed input.
bool convert_params(const Qnn_OpConfigV1_t& op, std::vector<ops::Param>* params, std::string* why);

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
