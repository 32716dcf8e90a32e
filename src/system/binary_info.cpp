#include "system/binary_info.h"

#include <limits>

#include "HTP/QnnHtpCommon.h"
#include "htp/graph_spec.h"

namespace openhtp::system {
namespace {

Qnn_Version_t to_qnn(const binary::ApiVersion& v) { return Qnn_Version_t{v.major, v.minor, v.patch}; }

// A tensor exactly as a client passes it to graphExecute after graphRetrieve:
// id, name, type, data type, quantization and shape filled in; RAW memory with
// an empty client buffer for the client to point at its data.
Qnn_Tensor_t to_qnn(htp::TensorSpec& t) {
  Qnn_Tensor_t q = QNN_TENSOR_INIT;
  q.version = QNN_TENSOR_VERSION_1;
  q.v1.id = t.id;
  q.v1.name = t.name.c_str();
  q.v1.type = static_cast<Qnn_TensorType_t>(t.type);
  q.v1.dataFormat = QNN_TENSOR_DATA_FORMAT_DENSE;
  q.v1.dataType = static_cast<Qnn_DataType_t>(t.dtype);
  if (t.quant.present) {
    q.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
    q.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_SCALE_OFFSET;
    q.v1.quantizeParams.scaleOffsetEncoding.scale = t.quant.scale;
    q.v1.quantizeParams.scaleOffsetEncoding.offset = t.quant.offset;
  }
  q.v1.rank = static_cast<uint32_t>(t.dims.size());
  q.v1.dimensions = t.dims.empty() ? nullptr : t.dims.data();
  q.v1.memType = QNN_TENSORMEMTYPE_RAW;
  q.v1.clientBuf = QNN_CLIENT_BUFFER_INIT;
  return q;
}

// Pointer to a vector's elements, NULL when it has none (what clients expect
// next to a count of 0).
template <typename T>
T* data_or_null(std::vector<T>& v) {
  return v.empty() ? nullptr : v.data();
}

}  // namespace

uint32_t vtcm_megabytes(uint64_t bytes) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  const uint64_t mb = bytes / kMiB + (bytes % kMiB != 0 ? 1 : 0);
  return mb > std::numeric_limits<uint32_t>::max() ? std::numeric_limits<uint32_t>::max() : static_cast<uint32_t>(mb);
}

BinaryInfo::BinaryInfo(binary::ContextImage image, uint64_t binary_size) : image_(std::move(image)) {
  // Sized once, before any pointer into them is taken.
  graphs_.resize(image_.graphs.size());
  graph_infos_.resize(image_.graphs.size());
  for (size_t i = 0; i < image_.graphs.size(); ++i) {
    binary::GraphImage& gi = image_.graphs[i];
    Graph& g = graphs_[i];
    // Creation order, which is also the order the backend reports and expects.
    for (htp::TensorSpec& t : gi.spec.tensors) {
      if (t.is_graph_input()) g.inputs.push_back(to_qnn(t));
      if (t.is_graph_output()) g.outputs.push_back(to_qnn(t));
    }
    g.blob.version = QNN_SYSTEM_CONTEXT_HTP_GRAPH_INFO_BLOB_VERSION_V1;
    auto& b = g.blob.contextBinaryGraphBlobInfoV1;
    b.spillFillBufferSize = gi.spill_fill_bytes;
    b.vtcmSize = vtcm_megabytes(gi.vtcm_bytes);
    // Graph configs (optimization level, HVX threads) are not recorded in the
    // binary; 0 means "the backend's default", DLBC is never applied.
    b.optimizationLevel = 0;
    b.htpDlbc = 0;
    b.numHvxThreads = 0;

    QnnSystemContext_GraphInfo_t& info = graph_infos_[i];
    info = QNN_SYSTEM_CONTEXT_GRAPH_INFO_INIT;
    info.version = QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_3;
    info.graphInfoV3 = QNN_SYSTEM_CONTEXT_GRAPH_INFO_V3_INIT;
    auto& v3 = info.graphInfoV3;
    v3.graphName = gi.spec.name.c_str();
    v3.numGraphInputs = static_cast<uint32_t>(g.inputs.size());
    v3.graphInputs = data_or_null(g.inputs);
    v3.numGraphOutputs = static_cast<uint32_t>(g.outputs.size());
    v3.graphOutputs = data_or_null(g.outputs);
    v3.numUpdateableTensors = 0;  // the backend has no updatable tensors
    v3.updateableTensors = nullptr;
    v3.graphBlobInfoSize = sizeof(QnnHtpSystemContext_GraphBlobInfo_t);
    v3.graphBlobInfo = &g.blob;
    // The whole graph: ops [0, n). A binary never holds a partial graph.
    v3.startOpIndex = 0;
    v3.endOpIndex = static_cast<uint32_t>(gi.spec.nodes.size());
  }

  context_blob_.version = QNN_SYSTEM_CONTEXT_HTP_CONTEXT_INFO_BLOB_VERSION_V1;
  context_blob_.contextBinaryContextBlobInfoV1.dspArch = image_.dsp_arch;

  info_.version = QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_3;
  info_.contextBinaryInfoV3 = QNN_SYSTEM_CONTEXT_BINARY_INFO_V3_INIT;
  auto& v3 = info_.contextBinaryInfoV3;
  v3.backendId = QNN_BACKEND_ID_HTP;
  v3.buildId = image_.build_id.c_str();
  v3.coreApiVersion = to_qnn(image_.core_api);
  v3.backendApiVersion = to_qnn(image_.backend_api);
  // The binary records the SoC model and DSP arch as numbers (socModel,
  // contextMetadata); there is no SoC version string to report.
  v3.socVersion = "";
  v3.contextBlobVersion = Qnn_Version_t{QNN_HTP_CONTEXT_BLOB_VERSION_MAJOR, QNN_HTP_CONTEXT_BLOB_VERSION_MINOR,
                                        QNN_HTP_CONTEXT_BLOB_VERSION_PATCH};
  v3.contextBlobSize = binary_size;
  v3.numContextTensors = 0;  // no context tensors in this backend
  v3.contextTensors = nullptr;
  v3.numGraphs = static_cast<uint32_t>(graph_infos_.size());
  v3.graphs = data_or_null(graph_infos_);
  v3.platformInfo = nullptr;
  v3.contextMetadataSize = sizeof(QnnHtpSystemContext_ContextBlobInfo_t);
  v3.contextMetadata = &context_blob_;
  v3.socModel = image_.soc_model;
}

}  // namespace openhtp::system
