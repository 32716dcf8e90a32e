#include "binary_graphs.h"

#include <dlfcn.h>

#include <cstdio>

#include "System/QnnSystemInterface.h"
#include "shared_library.h"

namespace examples {

size_t IoTensor::elements() const {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

size_t IoTensor::element_bytes() const {
  switch (dtype()) {
    case QNN_DATATYPE_FLOAT_32:
    case QNN_DATATYPE_INT_32:
    case QNN_DATATYPE_UINT_32: return 4;
    case QNN_DATATYPE_UFIXED_POINT_8:
    case QNN_DATATYPE_SFIXED_POINT_8: return 1;
    case QNN_DATATYPE_UFIXED_POINT_16:
    case QNN_DATATYPE_SFIXED_POINT_16: return 2;
    default: return 0;
  }
}

bool IoTensor::quantized() const {
  switch (dtype()) {
    case QNN_DATATYPE_UFIXED_POINT_8:
    case QNN_DATATYPE_SFIXED_POINT_8:
    case QNN_DATATYPE_UFIXED_POINT_16:
    case QNN_DATATYPE_SFIXED_POINT_16: return true;
    default: return false;
  }
}

std::string IoTensor::describe() const {
  std::string s = "'" + name + "' [";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  s += "] ";
  char q[96];
  switch (dtype()) {
    case QNN_DATATYPE_FLOAT_32: return s + "float32";
    case QNN_DATATYPE_INT_32: return s + "int32";
    case QNN_DATATYPE_UINT_32: return s + "uint32";
    case QNN_DATATYPE_UFIXED_POINT_8: s += "uint8"; break;
    case QNN_DATATYPE_SFIXED_POINT_8: s += "int8"; break;
    case QNN_DATATYPE_UFIXED_POINT_16: s += "uint16"; break;
    case QNN_DATATYPE_SFIXED_POINT_16: s += "int16"; break;
    default: return s + "dtype 0x" + std::to_string(dtype());
  }
  std::snprintf(q, sizeof q, " (scale %.6g, offset %d)", scale(), offset());
  return s + q;
}

const IoTensor* GraphIo::input(const std::string& name) const {
  for (const IoTensor& t : inputs) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const IoTensor* GraphIo::output(const std::string& name) const {
  for (const IoTensor& t : outputs) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

namespace {

bool check_io_supported(const IoTensor& t, std::string* error) {
  if (t.element_bytes() == 0) {
    *error = "tensor " + t.describe() + ": data type not handled (float32, int32, u/int8, u/int16 are)";
    return false;
  }
  if (t.quantized() && (t.tensor.v1.quantizeParams.encodingDefinition != QNN_DEFINITION_DEFINED ||
                        t.tensor.v1.quantizeParams.quantizationEncoding != QNN_QUANTIZATION_ENCODING_SCALE_OFFSET)) {
    *error = "tensor " + t.describe() + ": quantized graph I/O must have a per-tensor SCALE_OFFSET encoding";
    return false;
  }
  return true;
}

std::vector<IoTensor> copy_tensors(const Qnn_Tensor_t* tensors, uint32_t n) {
  std::vector<IoTensor> out(n);
  for (uint32_t i = 0; i < n; ++i) {
    // Versions 1 and 2 share the v1 fields; v2's extras (dynamic dims,
    // sparsity) do not apply to these graphs.
    out[i].tensor = tensors[i];
    out[i].name = tensors[i].v1.name != nullptr ? tensors[i].v1.name : "";
    out[i].dims.assign(tensors[i].v1.dimensions, tensors[i].v1.dimensions + tensors[i].v1.rank);
    out[i].tensor.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
    out[i].tensor.v1.memHandle = nullptr;
    out[i].fix_pointers();
  }
  return out;
}

}  // namespace

bool read_binary_graphs(const std::vector<uint8_t>& binary, std::vector<GraphIo>* out, std::string* error) {
  std::string path;
  void* lib = open_shared_library("libQnnSystem.so", &path, error);
  if (lib == nullptr) return false;
  using GetProvidersFn = Qnn_ErrorHandle_t (*)(const QnnSystemInterface_t***, uint32_t*);
  auto get_providers = reinterpret_cast<GetProvidersFn>(dlsym(lib, "QnnSystemInterface_getProviders"));
  const QnnSystemInterface_t** providers = nullptr;
  uint32_t count = 0;
  if (get_providers == nullptr || get_providers(&providers, &count) != QNN_SUCCESS || count == 0) {
    *error = path + ": no QnnSystemInterface provider";
    dlclose(lib);
    return false;
  }
  const QNN_SYSTEM_INTERFACE_VER_TYPE* api = nullptr;
  for (uint32_t i = 0; i < count && api == nullptr; ++i) {
    if (providers[i] != nullptr && providers[i]->systemApiVersion.major == QNN_SYSTEM_API_VERSION_MAJOR) {
      api = &providers[i]->QNN_SYSTEM_INTERFACE_VER_NAME;
    }
  }
  QnnSystemContext_Handle_t sys = nullptr;
  const QnnSystemContext_BinaryInfo_t* info = nullptr;
  Qnn_ContextBinarySize_t info_size = 0;
  bool ok = api != nullptr && api->systemContextCreate(&sys) == QNN_SUCCESS &&
            api->systemContextGetBinaryInfo(sys, const_cast<uint8_t*>(binary.data()), binary.size(), &info,
                                            &info_size) == QNN_SUCCESS &&
            info != nullptr;
  if (!ok) *error = path + ": QnnSystemContext_getBinaryInfo failed (not a context binary?)";
  uint32_t num_graphs = 0;
  const QnnSystemContext_GraphInfo_t* graphs = nullptr;
  if (ok) {
    switch (info->version) {
      case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_1:
        num_graphs = info->contextBinaryInfoV1.numGraphs, graphs = info->contextBinaryInfoV1.graphs;
        break;
      case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_2:
        num_graphs = info->contextBinaryInfoV2.numGraphs, graphs = info->contextBinaryInfoV2.graphs;
        break;
      case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_3:
        num_graphs = info->contextBinaryInfoV3.numGraphs, graphs = info->contextBinaryInfoV3.graphs;
        break;
      default: break;
    }
    if (num_graphs == 0 || graphs == nullptr) {
      *error = "the binary holds no graphs (or an unknown info version)";
      ok = false;
    }
  }
  if (ok) {
    out->assign(num_graphs, GraphIo{});
    for (uint32_t k = 0; k < num_graphs && ok; ++k) {
      // The V1 members lead V2 and V3 as well.
      const QnnSystemContext_GraphInfoV1_t& g = graphs[k].graphInfoV1;
      GraphIo& io = (*out)[k];
      io.graph_name = g.graphName != nullptr ? g.graphName : "";
      io.inputs = copy_tensors(g.graphInputs, g.numGraphInputs);
      io.outputs = copy_tensors(g.graphOutputs, g.numGraphOutputs);
      for (auto* list : {&io.inputs, &io.outputs}) {
        for (const IoTensor& t : *list) ok = ok && check_io_supported(t, error);
      }
    }
  }
  if (sys != nullptr) api->systemContextFree(sys);
  dlclose(lib);
  return ok;
}

}  // namespace examples
