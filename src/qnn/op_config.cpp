#include "qnn/op_config.h"

#include <cstring>

#include "qnn/logger.h"
#include "qnn/tensor_view.h"

namespace openhtp::qnn {

bool check_op_identity(const Qnn_OpConfig_t& op, std::string* why) {
  if (op.version != QNN_OPCONFIG_VERSION_1) {
    *why = "op config version " + std::to_string(op.version) + " is not supported (only 1)";
    return false;
  }
  const Qnn_OpConfigV1_t& v = op.v1;
  if (v.typeName == nullptr) {
    *why = "op config has no typeName";
    return false;
  }
  if (v.packageName == nullptr || std::strcmp(v.packageName, ops::kPackageName.data()) != 0) {
    *why = std::string("op '") + (v.name ? v.name : "?") + "': package '" + (v.packageName ? v.packageName : "(null)") +
           "' is not registered (only " + std::string(ops::kPackageName) + ")";
    return false;
  }
  if ((v.numOfInputs > 0 && v.inputTensors == nullptr) || (v.numOfOutputs > 0 && v.outputTensors == nullptr) ||
      (v.numOfParams > 0 && v.params == nullptr)) {
    *why = std::string("op '") + (v.name ? v.name : "?") + "': a tensor or param count is non-zero but its array is NULL";
    return false;
  }
  return true;
}

bool convert_quant(const Qnn_QuantizeParams_t& q, std::span<const uint32_t> dims, ops::Quant* out,
                   std::string* why) {
  *out = ops::Quant{};
  if (q.encodingDefinition != QNN_DEFINITION_DEFINED) {
    if (q.encodingDefinition == QNN_DEFINITION_IMPL_GENERATED || q.encodingDefinition == QNN_DEFINITION_UNDEFINED) {
      return true;  // no encoding given
    }
    *why = "quantizeParams.encodingDefinition " + std::to_string(static_cast<int>(q.encodingDefinition)) +
           " is not IMPL_GENERATED (0), DEFINED (1) or UNDEFINED";
    return false;
  }
  auto per_axis = [&](int32_t axis, uint32_t count) {
    if (axis < 0 || static_cast<size_t>(axis) >= dims.size()) {
      *why = "per-channel quantization axis " + std::to_string(axis) + " is outside rank " + std::to_string(dims.size());
      return false;
    }
    if (count != dims[static_cast<size_t>(axis)]) {
      *why = "per-channel quantization has " + std::to_string(count) + " entries, axis " + std::to_string(axis) +
             " has " + std::to_string(dims[static_cast<size_t>(axis)]) + " channels";
      return false;
    }
    out->present = true;
    out->axis = axis;
    out->scales.resize(count);
    out->offsets.assign(count, 0);
    return true;
  };
  switch (q.quantizationEncoding) {
    case QNN_QUANTIZATION_ENCODING_SCALE_OFFSET:
      *out = ops::Quant::per_tensor(q.scaleOffsetEncoding.scale, q.scaleOffsetEncoding.offset);
      return true;
    case QNN_QUANTIZATION_ENCODING_BW_SCALE_OFFSET:
      *out = ops::Quant::per_tensor(q.bwScaleOffsetEncoding.scale, q.bwScaleOffsetEncoding.offset);
      return true;
    case QNN_QUANTIZATION_ENCODING_AXIS_SCALE_OFFSET: {
      const Qnn_AxisScaleOffset_t& a = q.axisScaleOffsetEncoding;
      if (a.numScaleOffsets > 0 && a.scaleOffset == nullptr) {
        *why = "AXIS_SCALE_OFFSET has numScaleOffsets " + std::to_string(a.numScaleOffsets) + " but scaleOffset is NULL";
        return false;
      }
      if (!per_axis(a.axis, a.numScaleOffsets)) return false;
      for (uint32_t c = 0; c < a.numScaleOffsets; ++c) {
        out->scales[c] = a.scaleOffset[c].scale;
        out->offsets[c] = a.scaleOffset[c].offset;
      }
      return true;
    }
    case QNN_QUANTIZATION_ENCODING_BW_AXIS_SCALE_OFFSET: {
      const Qnn_BwAxisScaleOffset_t& a = q.bwAxisScaleOffsetEncoding;
      if (a.numElements > 0 && a.scales == nullptr) {
        *why = "BW_AXIS_SCALE_OFFSET has numElements " + std::to_string(a.numElements) + " but scales is NULL";
        return false;
      }
      if (!per_axis(a.axis, a.numElements)) return false;
      for (uint32_t c = 0; c < a.numElements; ++c) {
        out->scales[c] = a.scales[c];
        out->offsets[c] = a.offsets ? a.offsets[c] : 0;  // NULL offsets = symmetric
      }
      return true;
    }
    default:
      *why = "quantization encoding " + std::to_string(static_cast<int>(q.quantizationEncoding)) +
             " is not supported (SCALE_OFFSET, BW_SCALE_OFFSET, AXIS_SCALE_OFFSET, BW_AXIS_SCALE_OFFSET are)";
      return false;
  }
}

Qnn_ErrorHandle_t quant_refusal(const Qnn_QuantizeParams_t& q) {
  if (q.encodingDefinition != QNN_DEFINITION_DEFINED) return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  switch (q.quantizationEncoding) {
    case QNN_QUANTIZATION_ENCODING_SCALE_OFFSET:
    case QNN_QUANTIZATION_ENCODING_BW_SCALE_OFFSET:
    case QNN_QUANTIZATION_ENCODING_AXIS_SCALE_OFFSET:
    case QNN_QUANTIZATION_ENCODING_BW_AXIS_SCALE_OFFSET:
      return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;  // taken here: a value of it was wrong
    default:
      return q.quantizationEncoding <= QNN_QUANTIZATION_ENCODING_ARRAY_OF ? QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM
                                                                          : QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
}

bool describe_tensor(const Qnn_Tensor_t& t, ops::TensorDesc* desc, std::string* why) {
  TensorView v(&t);
  if (!v.version_known()) {
    *why = "tensor struct version " + std::to_string(t.version) + " is unknown";
    return false;
  }
  desc->present = v.type() != QNN_TENSOR_TYPE_NULL;
  desc->dtype = static_cast<uint32_t>(v.data_type());
  desc->dims.assign(v.dims(), v.dims() + (v.dims() ? v.rank() : 0));
  if (v.rank() > 0 && v.dims() == nullptr) {
    *why = "tensor " + v.display_name() + " has rank " + std::to_string(v.rank()) + " but no dimensions";
    return false;
  }
  if (read_sparsity(v, &desc->sparse, why) != QNN_SUCCESS) {
    *why = "tensor " + v.display_name() + ": " + *why;
    return false;
  }
  desc->quant = ops::Quant{};
  if (!convert_quant(v.quant(), desc->dims, &desc->quant, why)) {
    *why = "tensor " + v.display_name() + ": " + *why;
    return false;
  }
  desc->static_data = nullptr;
  if (v.type() == QNN_TENSOR_TYPE_STATIC) {
    if (v.mem_type() != QNN_TENSORMEMTYPE_RAW || v.client_buf().data == nullptr) {
      *why = "static tensor " + v.display_name() + " has no data (memType must be RAW with clientBuf set)";
      return false;
    }
    if (v.num_bytes() == 0 || v.client_buf().dataSize != v.num_bytes()) {
      *why = "static tensor " + v.display_name() + " has clientBuf.dataSize " +
             std::to_string(v.client_buf().dataSize) + ", its shape and type need " + std::to_string(v.num_bytes());
      return false;
    }
    desc->static_data = v.client_buf().data;
  }
  return true;
}

bool convert_params(const Qnn_OpConfigV1_t& op, std::vector<ops::Param>* params, std::string* why) {
  const std::string node = std::string("op '") + (op.name ? op.name : "?") + "'";
  for (uint32_t i = 0; i < op.numOfParams; ++i) {
    const Qnn_Param_t& p = op.params[i];
    if (p.name == nullptr) {
      *why = node + ": param " + std::to_string(i) + " has no name";
      return false;
    }
    ops::Param out;
    out.name = p.name;
    if (p.paramType == QNN_PARAMTYPE_SCALAR) {
      const Qnn_Scalar_t& s = p.scalarParam;
      out.dtype = static_cast<uint32_t>(s.dataType);
      switch (s.dataType) {
        case QNN_DATATYPE_FLOAT_32: out.f = s.floatValue; out.i = static_cast<int64_t>(s.floatValue); break;
        case QNN_DATATYPE_FLOAT_64: out.f = s.doubleValue; out.i = static_cast<int64_t>(s.doubleValue); break;
        case QNN_DATATYPE_BOOL_8: out.i = s.bool8Value ? 1 : 0; out.f = static_cast<double>(out.i); break;
        case QNN_DATATYPE_UINT_8: out.i = s.uint8Value; out.f = static_cast<double>(out.i); break;
        case QNN_DATATYPE_INT_8: out.i = s.int8Value; out.f = static_cast<double>(out.i); break;
        case QNN_DATATYPE_UINT_16: out.i = s.uint16Value; out.f = static_cast<double>(out.i); break;
        case QNN_DATATYPE_INT_16: out.i = s.int16Value; out.f = static_cast<double>(out.i); break;
        case QNN_DATATYPE_UINT_32: out.i = s.uint32Value; out.f = static_cast<double>(out.i); break;
        case QNN_DATATYPE_INT_32: out.i = s.int32Value; out.f = static_cast<double>(out.i); break;
        case QNN_DATATYPE_UINT_64: out.i = static_cast<int64_t>(s.uint64Value); out.f = static_cast<double>(s.uint64Value); break;
        case QNN_DATATYPE_INT_64: out.i = s.int64Value; out.f = static_cast<double>(out.i); break;
        default:
          *why = node + ": scalar param '" + out.name + "' has unsupported data type 0x" +
                 [&] { char b[16]; snprintf(b, sizeof b, "%04x", static_cast<unsigned>(s.dataType)); return std::string(b); }();
          return false;
      }
    } else if (p.paramType == QNN_PARAMTYPE_TENSOR) {
      out.is_tensor = true;
      TensorView v(&p.tensorParam);
      if (!v.version_known()) {
        *why = node + ": tensor param '" + out.name + "' has an unknown tensor version";
        return false;
      }
      out.dtype = static_cast<uint32_t>(v.data_type());
      const size_t bytes = v.num_bytes();
      if (bytes == 0 || v.client_buf().data == nullptr || v.client_buf().dataSize < bytes) {
        *why = node + ": tensor param '" + out.name + "' needs " + std::to_string(bytes) +
               " bytes of data in clientBuf, has " + std::to_string(v.client_buf().dataSize);
        return false;
      }
      out.dims.assign(v.dims(), v.dims() + v.rank());
      const auto* d = static_cast<const uint8_t*>(v.client_buf().data);
      out.data.assign(d, d + bytes);
    } else {
      *why = node + ": param '" + out.name + "' has paramType " + std::to_string(p.paramType) + " (must be SCALAR or TENSOR)";
      return false;
    }
    params->push_back(std::move(out));
  }
  return true;
}

Qnn_ErrorHandle_t validate_node(const ops::NodeDesc& node, Qnn_ErrorHandle_t invalid_code,
                                Qnn_ErrorHandle_t unsupported_code) {
  const ops::OpDef* def = ops::find_op(node.type);
  if (def == nullptr) {
    QNN_LOG_ERROR("op '%.*s': type '%.*s' is not supported by the HTP backend (see backendGetSupportedOperations)",
                  static_cast<int>(node.name.size()), node.name.data(), static_cast<int>(node.type.size()),
                  node.type.data());
    return unsupported_code;
  }
  ops::Status st = ops::prepare_node(node, nullptr);
  if (!st.ok()) {
    QNN_LOG_ERROR("%s", st.message.c_str());
    return st.code == ops::StatusCode::kUnsupported ? unsupported_code : invalid_code;
  }
  return QNN_SUCCESS;
}

}  // namespace openhtp::qnn
