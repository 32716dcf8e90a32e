#include "chain_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "HTP/QnnHtpGraph.h"
#include "QnnOpDef.h"
#include "qnn_session.h"

namespace examples::chain_graph {

Weights make_weights() {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> scale(0.5f, 1.5f), bias(-0.5f, 0.5f);
  Weights w{std::vector<float>(kElements), std::vector<float>(kElements), std::vector<float>(kElements)};
  for (size_t i = 0; i < kElements; ++i) {
    w.scale[i] = scale(rng);
    w.bias[i] = bias(rng);
    w.shift[i] = bias(rng);
  }
  return w;
}

std::vector<std::vector<float>> make_inputs(size_t count) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::vector<float>> inputs(count, std::vector<float>(kElements));
  for (auto& in : inputs) {
    for (float& v : in) v = u(rng);
  }
  return inputs;
}

std::vector<float> reference(const Weights& w, const std::vector<float>& x) {
  std::vector<float> out(kElements);
  for (size_t i = 0; i < kElements; ++i) {
    const float a = x[i] * w.scale[i];
    const float b = a + w.bias[i];
    const float c = b > 0.0f ? b : 0.0f;
    const float d = c * a;
    const float e = d + b;
    out[i] = e + w.shift[i];
  }
  return out;
}

double max_abs_diff(const float* got, const std::vector<float>& want) {
  double worst = 0.0;
  for (size_t k = 0; k < want.size(); ++k) {
    const double d = std::fabs(static_cast<double>(got[k]) - want[k]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return worst;
}

bool ChainGraphBuilder::build(Qnn_ContextHandle_t context, const char* graph_name, std::string* error) {
  QnnHtpGraph_CustomConfig_t htp_cfg{};
  htp_cfg.option = QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES;
  htp_cfg.vtcmSizeInBytes = kVtcmBudgetBytes;
  QnnGraph_Config_t cfg = QNN_GRAPH_CONFIG_INIT;
  cfg.option = QNN_GRAPH_CONFIG_OPTION_CUSTOM;
  cfg.customConfig = &htp_cfg;
  const QnnGraph_Config_t* cfgs[] = {&cfg, nullptr};
  if (Qnn_ErrorHandle_t e = api_.graphCreate(context, graph_name, cfgs, &graph_); e != QNN_SUCCESS) {
    *error = "graphCreate: " + describe_qnn_error(api_, e);
    return false;
  }
  Qnn_Tensor_t x = tensor("x", QNN_TENSOR_TYPE_APP_WRITE);
  Qnn_Tensor_t w_scale = tensor("w_scale", QNN_TENSOR_TYPE_STATIC, &w_.scale);
  Qnn_Tensor_t w_bias = tensor("w_bias", QNN_TENSOR_TYPE_STATIC, &w_.bias);
  Qnn_Tensor_t w_shift = tensor("w_shift", QNN_TENSOR_TYPE_STATIC, &w_.shift);
  Qnn_Tensor_t a = tensor("a", QNN_TENSOR_TYPE_NATIVE), b = tensor("b", QNN_TENSOR_TYPE_NATIVE);
  Qnn_Tensor_t c = tensor("c", QNN_TENSOR_TYPE_NATIVE), d = tensor("d", QNN_TENSOR_TYPE_NATIVE);
  Qnn_Tensor_t e = tensor("e", QNN_TENSOR_TYPE_NATIVE);
  Qnn_Tensor_t out = tensor("out", QNN_TENSOR_TYPE_APP_READ);
  for (Qnn_Tensor_t* t : {&x, &w_scale, &w_bias, &w_shift, &a, &b, &c, &d, &e, &out}) {
    if (Qnn_ErrorHandle_t err = api_.tensorCreateGraphTensor(graph_, t); err != QNN_SUCCESS) {
      *error = std::string("tensorCreateGraphTensor(") + t->v1.name + "): " + describe_qnn_error(api_, err);
      return false;
    }
  }
  const bool ok = node("mul_scale", QNN_OP_ELEMENT_WISE_MULTIPLY, {x, w_scale}, a, error) &&
                  node("add_bias", QNN_OP_ELEMENT_WISE_ADD, {a, w_bias}, b, error) &&
                  node("relu", QNN_OP_RELU, {b}, c, error) &&
                  node("mul_gate", QNN_OP_ELEMENT_WISE_MULTIPLY, {c, a}, d, error) &&
                  node("add_skip", QNN_OP_ELEMENT_WISE_ADD, {d, b}, e, error) &&
                  node("add_shift", QNN_OP_ELEMENT_WISE_ADD, {e, w_shift}, out, error);
  if (!ok) return false;
  if (Qnn_ErrorHandle_t err = api_.graphFinalize(graph_, nullptr, nullptr); err != QNN_SUCCESS) {
    *error = "graphFinalize: " + describe_qnn_error(api_, err);
    return false;
  }
  input_ = x;
  output_ = out;
  return true;
}

Qnn_Tensor_t ChainGraphBuilder::tensor(const char* name, Qnn_TensorType_t type, const std::vector<float>* data) {
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  t.v1.name = name;
  t.v1.type = type;
  t.v1.dataType = QNN_DATATYPE_FLOAT_32;
  t.v1.rank = 4;
  t.v1.dimensions = dims_;
  t.v1.memType = QNN_TENSORMEMTYPE_RAW;
  if (data != nullptr) {
    t.v1.clientBuf = {const_cast<float*>(data->data()), static_cast<uint32_t>(data->size() * sizeof(float))};
  }
  return t;
}

bool ChainGraphBuilder::node(const char* name, const char* type, std::vector<Qnn_Tensor_t> inputs, Qnn_Tensor_t output,
                             std::string* error) {
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  op.v1.name = name;
  op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
  op.v1.typeName = type;
  op.v1.numOfInputs = static_cast<uint32_t>(inputs.size());
  op.v1.inputTensors = inputs.data();
  op.v1.numOfOutputs = 1;
  op.v1.outputTensors = &output;
  if (Qnn_ErrorHandle_t e = api_.graphAddNode(graph_, op); e != QNN_SUCCESS) {
    *error = std::string("graphAddNode(") + name + "): " + describe_qnn_error(api_, e);
    return false;
  }
  ++nodes_;
  return true;
}

bool get_context_binary(const QNN_INTERFACE_VER_TYPE& api, Qnn_ContextHandle_t context, std::vector<uint8_t>* binary,
                        std::string* error) {
  Qnn_ContextBinarySize_t size = 0;
  if (Qnn_ErrorHandle_t e = api.contextGetBinarySize(context, &size); e != QNN_SUCCESS) {
    *error = "contextGetBinarySize: " + describe_qnn_error(api, e);
    return false;
  }
  binary->resize(size);
  Qnn_ContextBinarySize_t written = 0;
  if (Qnn_ErrorHandle_t e = api.contextGetBinary(context, binary->data(), size, &written); e != QNN_SUCCESS) {
    *error = "contextGetBinary: " + describe_qnn_error(api, e);
    return false;
  }
  binary->resize(written);
  return true;
}

bool get_custom_property(const QNN_INTERFACE_VER_TYPE& api, Qnn_ContextHandle_t context,
                         QnnHtpContext_GetPropertyOption_t option, uint64_t* value, std::string* error) {
  QnnHtpContext_CustomProperty_t custom = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  custom.option = option;
  custom.weightsBufferSize = static_cast<uint64_t>(-1);  // the union's members are all one uint64_t
  QnnContext_Property_t property = QNN_CONTEXT_PROPERTY_INIT;
  property.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
  property.customProperty = &custom;
  QnnContext_Property_t* properties[] = {&property, nullptr};
  if (Qnn_ErrorHandle_t e = api.contextGetProperty(context, properties); e != QNN_SUCCESS) {
    *error = "contextGetProperty: " + describe_qnn_error(api, e);
    return false;
  }
  switch (option) {
    case QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE: *value = custom.weightsBufferSize; break;
    case QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE: *value = custom.spillfillBufferSize; break;
    case QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE: *value = custom.vtcmBackupBufferSize; break;
    case QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT: *value = custom.bufferStartAlignment; break;
    default: *value = custom.weightsBufferSize; break;
  }
  return true;
}

}  // namespace examples::chain_graph
