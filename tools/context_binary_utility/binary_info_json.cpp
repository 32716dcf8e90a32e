#include "binary_info_json.h"

#include <string>

#include "HTP/QnnHtpCommon.h"
#include "HTP/QnnHtpSystemContext.h"
#include "enum_names.h"

namespace openhtp::tools {
namespace {

using nlohmann::json;

std::string version_string(const Qnn_Version_t& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

// A C string that may be NULL (the API allows it for several fields).
json str(const char* s) { return s != nullptr ? json(s) : json(nullptr); }

json quant_to_json(const Qnn_QuantizeParams_t& q) {
  json j;
  j["definition"] = definition_name(q.encodingDefinition);
  j["quantizationEncoding"] = quantization_encoding_name(q.quantizationEncoding);
  if (q.encodingDefinition == QNN_DEFINITION_DEFINED) {
    switch (q.quantizationEncoding) {
      case QNN_QUANTIZATION_ENCODING_SCALE_OFFSET:
        j["scaleOffset"] = {{"scale", q.scaleOffsetEncoding.scale}, {"offset", q.scaleOffsetEncoding.offset}};
        break;
      case QNN_QUANTIZATION_ENCODING_AXIS_SCALE_OFFSET: {
        const auto& a = q.axisScaleOffsetEncoding;
        json list = json::array();
        for (uint32_t i = 0; a.scaleOffset != nullptr && i < a.numScaleOffsets; ++i) {
          list.push_back({{"scale", a.scaleOffset[i].scale}, {"offset", a.scaleOffset[i].offset}});
        }
        j["axisScaleOffset"] = {{"axis", a.axis}, {"numScaleOffsets", a.numScaleOffsets}, {"scaleOffsets", list}};
        break;
      }
      default:
        break;  // named above; the parameters of other encodings are not dumped
    }
  }
  return j;
}

// Tensor versions 1 and 2 share these leading fields.
json tensor_to_json(const Qnn_Tensor_t& t) {
  json j;
  j["version"] = static_cast<uint32_t>(t.version);
  if (t.version != QNN_TENSOR_VERSION_1 && t.version != QNN_TENSOR_VERSION_2) {
    j["info"] = nullptr;  // a layout this tool does not know
    return j;
  }
  const Qnn_TensorV1_t& v = t.v1;
  json dims = json::array();
  for (uint32_t i = 0; v.dimensions != nullptr && i < v.rank; ++i) dims.push_back(v.dimensions[i]);
  j["info"] = {
      {"id", v.id},
      {"name", str(v.name)},
      {"type", tensor_type_name(v.type)},
      {"dataFormat", static_cast<uint32_t>(v.dataFormat)},
      {"dataType", data_type_name(v.dataType)},
      {"quantizeParams", quant_to_json(v.quantizeParams)},
      {"rank", v.rank},
      {"dimensions", dims},
      {"memType", mem_type_name(v.memType)},
  };
  return j;
}

json tensors_to_json(const Qnn_Tensor_t* tensors, uint32_t n) {
  json list = json::array();
  for (uint32_t i = 0; tensors != nullptr && i < n; ++i) list.push_back(tensor_to_json(tensors[i]));
  return list;
}

json htp_graph_blob_to_json(const void* blob, uint32_t size) {
  if (blob == nullptr || size < sizeof(QnnHtpSystemContext_GraphInfoBlobVersion_t)) return nullptr;
  const auto* b = static_cast<const QnnHtpSystemContext_GraphBlobInfo_t*>(blob);
  json j;
  j["version"] = static_cast<uint32_t>(b->version);
  if (b->version == QNN_SYSTEM_CONTEXT_HTP_GRAPH_INFO_BLOB_VERSION_V1 && size >= sizeof(*b)) {
    const auto& v1 = b->contextBinaryGraphBlobInfoV1;
    j["info"] = {
        {"spillFillBufferSize", v1.spillFillBufferSize},  // bytes
        {"vtcmSize", v1.vtcmSize},                        // MB
        {"optimizationLevel", v1.optimizationLevel},
        {"htpDlbc", v1.htpDlbc},
        {"numHvxThreads", v1.numHvxThreads},
    };
  } else {
    j["info"] = nullptr;
  }
  return j;
}

json htp_context_metadata_to_json(const void* blob, uint32_t size) {
  if (blob == nullptr || size < sizeof(QnnHtpSystemContext_ContextBlobInfo_t)) return nullptr;
  const auto* b = static_cast<const QnnHtpSystemContext_ContextBlobInfo_t*>(blob);
  json j;
  j["version"] = static_cast<uint32_t>(b->version);
  if (b->version == QNN_SYSTEM_CONTEXT_HTP_CONTEXT_INFO_BLOB_VERSION_V1) {
    j["info"] = {{"dspArch", b->contextBinaryContextBlobInfoV1.dspArch}};
  } else {
    j["info"] = nullptr;
  }
  return j;
}

json graph_to_json(const QnnSystemContext_GraphInfo_t& g, bool htp) {
  json j;
  j["version"] = static_cast<uint32_t>(g.version);
  // V1 fields lead V2 and V3 at the same offsets.
  switch (g.version) {
    case QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_1:
    case QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_2:
    case QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_3:
      break;
    default:
      j["info"] = nullptr;
      return j;
  }
  const auto& v1 = g.graphInfoV1;
  json info = {
      {"graphName", str(v1.graphName)},
      {"numGraphInputs", v1.numGraphInputs},
      {"graphInputs", tensors_to_json(v1.graphInputs, v1.numGraphInputs)},
      {"numGraphOutputs", v1.numGraphOutputs},
      {"graphOutputs", tensors_to_json(v1.graphOutputs, v1.numGraphOutputs)},
  };
  if (g.version >= QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_2) {
    const auto& v2 = g.graphInfoV2;
    info["numUpdateableTensors"] = v2.numUpdateableTensors;
    info["updateableTensors"] = tensors_to_json(v2.updateableTensors, v2.numUpdateableTensors);
  }
  if (g.version == QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_3) {
    const auto& v3 = g.graphInfoV3;
    info["graphBlobInfo"] = htp ? htp_graph_blob_to_json(v3.graphBlobInfo, v3.graphBlobInfoSize) : json(nullptr);
    info["startOpIndex"] = v3.startOpIndex;
    info["endOpIndex"] = v3.endOpIndex;
  }
  j["info"] = std::move(info);
  return j;
}

json graphs_to_json(const QnnSystemContext_GraphInfo_t* graphs, uint32_t n, bool htp) {
  json list = json::array();
  for (uint32_t i = 0; graphs != nullptr && i < n; ++i) list.push_back(graph_to_json(graphs[i], htp));
  return list;
}

// Fields every binary-info version has under the same names.
template <typename V>
json common_fields(const V& v) {
  const bool htp = v.backendId == QNN_BACKEND_ID_HTP;
  return {
      {"backendId", v.backendId},
      {"buildId", str(v.buildId)},
      {"coreApiVersion", version_string(v.coreApiVersion)},
      {"backendApiVersion", version_string(v.backendApiVersion)},
      {"socVersion", str(v.socVersion)},
      {"contextBlobVersion", version_string(v.contextBlobVersion)},
      {"contextBlobSize", v.contextBlobSize},
      {"numContextTensors", v.numContextTensors},
      {"contextTensors", tensors_to_json(v.contextTensors, v.numContextTensors)},
      {"numGraphs", v.numGraphs},
      {"graphs", graphs_to_json(v.graphs, v.numGraphs, htp)},
  };
}

template <typename V>
void add_hw_info_blob(json* info, const V& v) {
  (*info)["hwInfoBlobVersion"] = version_string(v.hwInfoBlobVersion);
  (*info)["hwInfoBlobSize"] = v.hwInfoBlobSize;
  if (v.backendId == QNN_BACKEND_ID_HTP && v.hwInfoBlob != nullptr &&
      v.hwInfoBlobSize >= sizeof(QnnHtpSystemContext_HwBlobInfo_t)) {
    const auto* b = static_cast<const QnnHtpSystemContext_HwBlobInfo_t*>(v.hwInfoBlob);
    (*info)["hwInfoBlob"] = {{"version", static_cast<uint32_t>(b->version)},
                             {"info",
                              {{"graphListIndex", b->contextBinaryHwInfoBlobV1_t.graphListIndex},
                               {"spillFillBufferSize", b->contextBinaryHwInfoBlobV1_t.spillFillBufferSize}}}};
  } else {
    (*info)["hwInfoBlob"] = nullptr;
  }
}

}  // namespace

json binary_info_to_json(const QnnSystemContext_BinaryInfo_t& bi, std::optional<uint64_t> weights_bytes) {
  json info;
  switch (bi.version) {
    case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_1:
      info = common_fields(bi.contextBinaryInfoV1);
      add_hw_info_blob(&info, bi.contextBinaryInfoV1);
      break;
    case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_2:
      info = common_fields(bi.contextBinaryInfoV2);
      add_hw_info_blob(&info, bi.contextBinaryInfoV2);
      break;
    case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_3: {
      const auto& v3 = bi.contextBinaryInfoV3;
      info = common_fields(v3);
      info["socModel"] = v3.socModel;
      info["contextMetadata"] = v3.backendId == QNN_BACKEND_ID_HTP
                                    ? htp_context_metadata_to_json(v3.contextMetadata, v3.contextMetadataSize)
                                    : json(nullptr);
      break;
    }
    default:
      info = nullptr;
      break;
  }
  if (weights_bytes && info.is_object()) info["weights"] = *weights_bytes;
  return {{"version", static_cast<uint32_t>(bi.version)}, {"info", std::move(info)}};
}

}  // namespace openhtp::tools
