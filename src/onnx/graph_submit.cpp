#include "onnx/graph_submit.h"

#include "HTP/QnnHtpGraph.h"

#include <cstdio>
#include <map>

#include "QnnOpDef.h"

namespace openhtp::onnx_import {

std::string describe_qnn_error(const QNN_INTERFACE_VER_TYPE& api, Qnn_ErrorHandle_t e) {
  std::string s = "error " + std::to_string(e);
  const char* message = nullptr;
  if (api.errorGetMessage != nullptr && api.errorGetMessage(e, &message) == QNN_SUCCESS && message != nullptr &&
      *message != '\0') {
    s += std::string(" (") + message + ")";
  }
  return s;
}

size_t tensor_bytes(Qnn_DataType_t dtype, const std::vector<uint32_t>& dims) {
  size_t n = qnn_element_size(dtype);
  for (uint32_t d : dims) n *= d;
  return n;
}

namespace {

class Submitter {
 public:
  Submitter(const QNN_INTERFACE_VER_TYPE& api, SubmittedGraph* out) : api_(api), out_(out) {}

  Qnn_Tensor_t make(const std::string& name, Qnn_TensorType_t type, Qnn_DataType_t dtype,
                    const std::vector<uint32_t>& dims, const Encoding& enc, const void* data, size_t bytes) {
    Qnn_Tensor_t t = QNN_TENSOR_INIT;
    t.version = QNN_TENSOR_VERSION_1;
    t.v1.name = out_->names.emplace_back(name).c_str();
    t.v1.type = type;
    t.v1.dataType = dtype;
    std::vector<uint32_t>& d = out_->dims.emplace_back(dims);
    t.v1.rank = static_cast<uint32_t>(d.size());
    t.v1.dimensions = d.empty() ? nullptr : d.data();
    t.v1.memType = QNN_TENSORMEMTYPE_RAW;
    if (enc.kind == Encoding::Kind::kPerTensor) {
      t.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
      t.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_SCALE_OFFSET;
      t.v1.quantizeParams.scaleOffsetEncoding.scale = enc.scale;
      t.v1.quantizeParams.scaleOffsetEncoding.offset = enc.offset;
    } else if (enc.kind == Encoding::Kind::kPerAxis) {
      std::vector<Qnn_ScaleOffset_t>& so = out_->scale_offsets.emplace_back(enc.scales.size());
      for (size_t i = 0; i < so.size(); ++i) so[i] = {enc.scales[i], enc.offsets[i]};
      t.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
      t.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_AXIS_SCALE_OFFSET;
      t.v1.quantizeParams.axisScaleOffsetEncoding.axis = enc.axis;
      t.v1.quantizeParams.axisScaleOffsetEncoding.numScaleOffsets = static_cast<uint32_t>(so.size());
      t.v1.quantizeParams.axisScaleOffsetEncoding.scaleOffset = so.data();
    }
    if (data != nullptr) {
      t.v1.clientBuf.data = const_cast<void*>(data);
      t.v1.clientBuf.dataSize = static_cast<uint32_t>(bytes);
    }
    return t;
  }

  bool create(Qnn_GraphHandle_t graph, Qnn_Tensor_t* t, std::string* error) {
    if (Qnn_ErrorHandle_t e = api_.tensorCreateGraphTensor(graph, t); e != QNN_SUCCESS) {
      *error = std::string("tensorCreateGraphTensor '") + t->v1.name + "': " + describe_qnn_error(api_, e);
      return false;
    }
    return true;
  }

 private:
  const QNN_INTERFACE_VER_TYPE& api_;
  SubmittedGraph* out_;
};

}  // namespace

bool submit_graph(const QNN_INTERFACE_VER_TYPE& api, Qnn_ContextHandle_t context, const QnnGraphDesc& desc,
                  SubmittedGraph* out, std::string* error, const ProgressFn& progress) {
  Submitter s(api, out);
  // NUM_HVX_THREADS travels as an HTP custom graph config and is kept in the
  // context binary, so the loaded graph runs on that many threads.
  QnnHtpGraph_CustomConfig_t htp_threads{};
  htp_threads.option = QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS;
  htp_threads.numHvxThreads = desc.num_hvx_threads;
  QnnGraph_Config_t threads_config = QNN_GRAPH_CONFIG_INIT;
  threads_config.option = QNN_GRAPH_CONFIG_OPTION_CUSTOM;
  threads_config.customConfig = &htp_threads;
  const QnnGraph_Config_t* configs[] = {&threads_config, nullptr};
  if (Qnn_ErrorHandle_t e = api.graphCreate(context, desc.name.c_str(), desc.num_hvx_threads ? configs : nullptr,
                                            &out->graph);
      e != QNN_SUCCESS) {
    *error = "graphCreate '" + desc.name + "': " + describe_qnn_error(api, e);
    return false;
  }
  std::map<std::string, Qnn_Tensor_t> created;
  for (const QTensor& t : desc.tensors) {
    Qnn_Tensor_t q = s.make(t.name, t.type, t.dtype, t.dims, t.encoding, t.data.empty() ? nullptr : t.data.data(),
                            t.data.size());
    if (!s.create(out->graph, &q, error)) return false;
    created[t.name] = q;
  }
  size_t done = 0;
  for (const QNode& n : desc.nodes) {
    std::vector<Qnn_Param_t> params;
    for (const QParam& p : n.params) {
      Qnn_Param_t qp = QNN_PARAM_INIT;
      qp.name = out->names.emplace_back(p.name).c_str();
      if (p.is_tensor) {
        qp.paramType = QNN_PARAMTYPE_TENSOR;
        qp.tensorParam = s.make(n.name + "_" + p.name, QNN_TENSOR_TYPE_STATIC, p.dtype, p.dims, Encoding{},
                                p.data.empty() ? nullptr : p.data.data(), p.data.size());
        if (!s.create(out->graph, &qp.tensorParam, error)) return false;
      } else {
        qp.paramType = QNN_PARAMTYPE_SCALAR;
        qp.scalarParam = p.scalar;
      }
      params.push_back(qp);
    }
    std::vector<Qnn_Tensor_t> inputs, outputs;
    for (const std::string& name : n.inputs) {
      if (name.empty()) {
        Qnn_Tensor_t null_tensor = QNN_TENSOR_INIT;
        null_tensor.v1.type = QNN_TENSOR_TYPE_NULL;
        inputs.push_back(null_tensor);
      } else {
        inputs.push_back(created.at(name));
      }
    }
    for (const std::string& name : n.outputs) outputs.push_back(created.at(name));
    Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
    op.v1.name = n.name.c_str();
    op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
    op.v1.typeName = n.type.c_str();
    op.v1.numOfParams = static_cast<uint32_t>(params.size());
    op.v1.params = params.empty() ? nullptr : params.data();
    op.v1.numOfInputs = static_cast<uint32_t>(inputs.size());
    op.v1.inputTensors = inputs.empty() ? nullptr : inputs.data();
    op.v1.numOfOutputs = static_cast<uint32_t>(outputs.size());
    op.v1.outputTensors = outputs.data();
    if (Qnn_ErrorHandle_t e = api.graphAddNode(out->graph, op); e != QNN_SUCCESS) {
      *error = "graphAddNode " + n.type + " '" + n.name + "' (from ONNX " + n.onnx_node + "): " +
               describe_qnn_error(api, e);
      return false;
    }
    report_progress(progress, "adding nodes", ++done, desc.nodes.size());
  }
  if (Qnn_ErrorHandle_t e = api.graphFinalize(out->graph, nullptr, nullptr); e != QNN_SUCCESS) {
    *error = "graphFinalize '" + desc.name + "': " + describe_qnn_error(api, e);
    return false;
  }
  for (const std::string& name : desc.inputs) out->inputs.push_back(created.at(name));
  for (const std::string& name : desc.outputs) out->outputs.push_back(created.at(name));
  return true;
}

bool execute_graph(const QNN_INTERFACE_VER_TYPE& api, SubmittedGraph& graph,
                   const std::vector<std::vector<uint8_t>>& inputs, std::vector<std::vector<uint8_t>>* outputs,
                   std::string* error) {
  if (inputs.size() != graph.inputs.size()) {
    *error = "execute: " + std::to_string(inputs.size()) + " input buffers for " +
             std::to_string(graph.inputs.size()) + " graph inputs";
    return false;
  }
  std::vector<Qnn_Tensor_t> in = graph.inputs, out = graph.outputs;
  for (size_t i = 0; i < in.size(); ++i) {
    const size_t want = tensor_bytes(in[i].v1.dataType, {in[i].v1.dimensions, in[i].v1.dimensions + in[i].v1.rank});
    if (inputs[i].size() != want) {
      *error = std::string("execute: input '") + in[i].v1.name + "' has " + std::to_string(inputs[i].size()) +
               " bytes, expected " + std::to_string(want);
      return false;
    }
    in[i].v1.clientBuf.data = const_cast<uint8_t*>(inputs[i].data());
    in[i].v1.clientBuf.dataSize = static_cast<uint32_t>(want);
  }
  outputs->resize(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    (*outputs)[i].assign(
        tensor_bytes(out[i].v1.dataType, {out[i].v1.dimensions, out[i].v1.dimensions + out[i].v1.rank}), 0);
    out[i].v1.clientBuf.data = (*outputs)[i].data();
    out[i].v1.clientBuf.dataSize = static_cast<uint32_t>((*outputs)[i].size());
  }
  if (Qnn_ErrorHandle_t e = api.graphExecute(graph.graph, in.data(), static_cast<uint32_t>(in.size()), out.data(),
                                             static_cast<uint32_t>(out.size()), nullptr, nullptr);
      e != QNN_SUCCESS) {
    *error = "graphExecute: " + describe_qnn_error(api, e);
    return false;
  }
  return true;
}

}  // namespace openhtp::onnx_import
