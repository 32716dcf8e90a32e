#include "tiny_cnn.h"

#include "QnnOpDef.h"
#include "qnn_session.h"

namespace examples {

using namespace tiny_cnn;

Qnn_Tensor_t TinyCnnGraph::make_tensor(const char* name, Qnn_TensorType_t type, std::vector<uint32_t> dims) {
  std::vector<uint32_t>& d = u32_storage_.emplace_back(std::move(dims));
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  t.v1.name = names_.emplace_back(name).c_str();
  t.v1.type = type;
  t.v1.dataType = QNN_DATATYPE_FLOAT_32;
  t.v1.rank = static_cast<uint32_t>(d.size());
  t.v1.dimensions = d.data();
  t.v1.memType = QNN_TENSORMEMTYPE_RAW;
  return t;
}

// Weights: STATIC tensors whose RAW client buffer holds exactly their bytes.
Qnn_Tensor_t TinyCnnGraph::make_static(const char* name, std::vector<uint32_t> dims, const std::vector<float>& data) {
  Qnn_Tensor_t t = make_tensor(name, QNN_TENSOR_TYPE_STATIC, std::move(dims));
  t.v1.clientBuf.data = const_cast<float*>(data.data());
  t.v1.clientBuf.dataSize = static_cast<uint32_t>(data.size() * sizeof(float));
  return t;
}

// Op parameters such as stride are small static UINT_32 tensors.
Qnn_Param_t TinyCnnGraph::u32_tensor_param(const char* node, const char* param, std::vector<uint32_t> dims,
                                           std::vector<uint32_t> values) {
  std::vector<uint32_t>& d = u32_storage_.emplace_back(std::move(dims));
  std::vector<uint32_t>& v = u32_storage_.emplace_back(std::move(values));
  Qnn_Param_t p = QNN_PARAM_INIT;
  p.paramType = QNN_PARAMTYPE_TENSOR;
  p.name = param;
  p.tensorParam = QNN_TENSOR_INIT;
  p.tensorParam.v1.name = names_.emplace_back(std::string(node) + "_" + param).c_str();
  p.tensorParam.v1.type = QNN_TENSOR_TYPE_STATIC;
  p.tensorParam.v1.dataType = QNN_DATATYPE_UINT_32;
  p.tensorParam.v1.rank = static_cast<uint32_t>(d.size());
  p.tensorParam.v1.dimensions = d.data();
  p.tensorParam.v1.memType = QNN_TENSORMEMTYPE_RAW;
  p.tensorParam.v1.clientBuf.data = v.data();
  p.tensorParam.v1.clientBuf.dataSize = static_cast<uint32_t>(v.size() * sizeof(uint32_t));
  return p;
}

bool TinyCnnGraph::create(Qnn_Tensor_t* t, std::string* error) {
  // The backend writes the tensor's id into *t; later references use it.
  if (Qnn_ErrorHandle_t e = api_.tensorCreateGraphTensor(graph_, t); e != QNN_SUCCESS) {
    *error = std::string("tensorCreateGraphTensor(") + t->v1.name + "): " + describe_qnn_error(api_, e);
    return false;
  }
  return true;
}

bool TinyCnnGraph::add_node(const char* name, const char* type, std::vector<Qnn_Tensor_t> inputs, Qnn_Tensor_t output,
                            std::vector<Qnn_Param_t> params, std::string* error) {
  // Tensor parameters are graph tensors too (as QNN's SampleApp model code
  // creates them), so every tensor an op refers to has an id.
  for (Qnn_Param_t& p : params) {
    if (p.paramType == QNN_PARAMTYPE_TENSOR && !create(&p.tensorParam, error)) return false;
  }
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  op.v1.name = name;
  op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
  op.v1.typeName = type;
  op.v1.numOfParams = static_cast<uint32_t>(params.size());
  op.v1.params = params.empty() ? nullptr : params.data();
  op.v1.numOfInputs = static_cast<uint32_t>(inputs.size());
  op.v1.inputTensors = inputs.data();
  op.v1.numOfOutputs = 1;
  op.v1.outputTensors = &output;
  if (Qnn_ErrorHandle_t e = api_.graphAddNode(graph_, op); e != QNN_SUCCESS) {
    *error = std::string("graphAddNode(") + name + ", " + type + "): " + describe_qnn_error(api_, e);
    return false;
  }
  ++node_count_;
  return true;
}

bool TinyCnnGraph::build(Qnn_ContextHandle_t context, const char* graph_name, std::string* error) {
  if (Qnn_ErrorHandle_t e = api_.graphCreate(context, graph_name, nullptr, &graph_); e != QNN_SUCCESS) {
    *error = "graphCreate: " + describe_qnn_error(api_, e);
    return false;
  }

  // Activations: the graph input (APP_WRITE) and output (APP_READ) are the
  // client's; everything in between is NATIVE, owned by the backend.
  input_ = make_tensor("input", QNN_TENSOR_TYPE_APP_WRITE, {1, kInH, kInW, kInC});
  Qnn_Tensor_t conv1 = make_tensor("conv1_out", QNN_TENSOR_TYPE_NATIVE, {1, kInH, kInW, kConv1Out});
  Qnn_Tensor_t relu1 = make_tensor("relu1_out", QNN_TENSOR_TYPE_NATIVE, {1, kInH, kInW, kConv1Out});
  Qnn_Tensor_t pool1 = make_tensor("pool1_out", QNN_TENSOR_TYPE_NATIVE, {1, kPoolH, kPoolW, kConv1Out});
  Qnn_Tensor_t conv2 = make_tensor("conv2_out", QNN_TENSOR_TYPE_NATIVE, {1, kConv2H, kConv2W, kConv2Out});
  Qnn_Tensor_t relu2 = make_tensor("relu2_out", QNN_TENSOR_TYPE_NATIVE, {1, kConv2H, kConv2W, kConv2Out});
  Qnn_Tensor_t flat = make_tensor("flat", QNN_TENSOR_TYPE_NATIVE, {1, kFlat});
  Qnn_Tensor_t logits = make_tensor("logits", QNN_TENSOR_TYPE_NATIVE, {1, kClasses});
  output_ = make_tensor("probabilities", QNN_TENSOR_TYPE_APP_READ, {1, kClasses});

  Qnn_Tensor_t conv1_w = make_static("conv1_filter", {kKernel, kKernel, kInC, kConv1Out}, weights_.conv1_filter);
  Qnn_Tensor_t conv1_b = make_static("conv1_bias", {kConv1Out}, weights_.conv1_bias);
  Qnn_Tensor_t conv2_w = make_static("conv2_filter", {kKernel, kKernel, kConv1Out, kConv2Out}, weights_.conv2_filter);
  Qnn_Tensor_t conv2_b = make_static("conv2_bias", {kConv2Out}, weights_.conv2_bias);
  Qnn_Tensor_t fc_w = make_static("fc_weights", {kClasses, kFlat}, weights_.fc_weights);
  Qnn_Tensor_t fc_b = make_static("fc_bias", {kClasses}, weights_.fc_bias);

  for (Qnn_Tensor_t* t : {&input_, &conv1, &relu1, &pool1, &conv2, &relu2, &flat, &logits, &output_, &conv1_w, &conv1_b,
                          &conv2_w, &conv2_b, &fc_w, &fc_b}) {
    if (!create(t, error)) return false;
  }

  // Convolution parameters; pad_amount is [[top, bottom], [left, right]].
  auto conv_params = [&](const char* node, uint32_t stride) {
    Qnn_Param_t group = QNN_PARAM_INIT;
    group.paramType = QNN_PARAMTYPE_SCALAR;
    group.name = QNN_OP_CONV_2D_PARAM_GROUP;
    group.scalarParam.dataType = QNN_DATATYPE_UINT_32;
    group.scalarParam.uint32Value = 1;
    return std::vector<Qnn_Param_t>{
        u32_tensor_param(node, QNN_OP_CONV_2D_PARAM_STRIDE, {2}, {stride, stride}),
        u32_tensor_param(node, QNN_OP_CONV_2D_PARAM_PAD_AMOUNT, {2, 2}, {1, 1, 1, 1}),
        u32_tensor_param(node, QNN_OP_CONV_2D_PARAM_DILATION, {2}, {1, 1}),
        group,
    };
  };

  Qnn_Param_t rounding = QNN_PARAM_INIT;
  rounding.paramType = QNN_PARAMTYPE_SCALAR;
  rounding.name = QNN_OP_POOL_MAX_2D_PARAM_ROUNDING_MODE;
  rounding.scalarParam.dataType = QNN_DATATYPE_UINT_32;
  rounding.scalarParam.uint32Value = QNN_OP_POOL_MAX_2D_ROUNDING_MODE_FLOOR;
  const std::vector<Qnn_Param_t> pool_params = {
      u32_tensor_param("pool1", QNN_OP_POOL_MAX_2D_PARAM_FILTER_SIZE, {2}, {2, 2}),
      u32_tensor_param("pool1", QNN_OP_POOL_MAX_2D_PARAM_STRIDE, {2}, {2, 2}),
      u32_tensor_param("pool1", QNN_OP_POOL_MAX_2D_PARAM_PAD_AMOUNT, {2, 2}, {0, 0, 0, 0}),
      rounding,
  };

  Qnn_Param_t keep_dims = QNN_PARAM_INIT;
  keep_dims.paramType = QNN_PARAMTYPE_SCALAR;
  keep_dims.name = QNN_OP_FULLY_CONNECTED_PARAM_KEEP_DIMS;
  keep_dims.scalarParam.dataType = QNN_DATATYPE_BOOL_8;
  keep_dims.scalarParam.bool8Value = 0;

  Qnn_Param_t beta = QNN_PARAM_INIT;
  beta.paramType = QNN_PARAMTYPE_SCALAR;
  beta.name = QNN_OP_SOFTMAX_PARAM_BETA;
  beta.scalarParam.dataType = QNN_DATATYPE_FLOAT_32;
  beta.scalarParam.floatValue = 1.0f;

  const bool ok =
      add_node("conv1", QNN_OP_CONV_2D, {input_, conv1_w, conv1_b}, conv1, conv_params("conv1", 1), error) &&
      add_node("relu1", QNN_OP_RELU, {conv1}, relu1, {}, error) &&
      add_node("pool1", QNN_OP_POOL_MAX_2D, {relu1}, pool1, pool_params, error) &&
      add_node("conv2", QNN_OP_CONV_2D, {pool1, conv2_w, conv2_b}, conv2, conv_params("conv2", 2), error) &&
      add_node("relu2", QNN_OP_RELU, {conv2}, relu2, {}, error) &&
      // Reshape takes its target shape from the output tensor.
      add_node("flatten", QNN_OP_RESHAPE, {relu2}, flat, {}, error) &&
      add_node("fc", QNN_OP_FULLY_CONNECTED, {flat, fc_w, fc_b}, logits, {keep_dims}, error) &&
      add_node("softmax", QNN_OP_SOFTMAX, {logits}, output_, {beta}, error);
  if (!ok) return false;

  if (Qnn_ErrorHandle_t e = api_.graphFinalize(graph_, nullptr, nullptr); e != QNN_SUCCESS) {
    *error = "graphFinalize: " + describe_qnn_error(api_, e);
    return false;
  }
  return true;
}

}  // namespace examples
