// QnnSystemContext_BinaryInfo_t (any version) as JSON, in the shape QNN's
// qnn-context-binary-utility writes:
//   {"version": <binary info version>,
//    "info": {"backendId", "buildId", "coreApiVersion": "x.y.z", ...,
//             "graphs": [{"version": <graph info version>,
//                         "info": {"graphName", "graphInputs": [{"version", "info": {tensor}}],
//                                  "graphOutputs": [...],
//                                  "graphBlobInfo": {"version", "info": {"spillFillBufferSize",
//                                                                        "vtcmSize", ...}}}}]}}
// Keys are sorted (nlohmann::json's default object), as QNN's are.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "System/QnnSystemContext.h"

namespace openhtp::tools {

// `weights_bytes` (openhtp extension) is written as info.weights when known.
// graphBlobInfo / contextMetadata are read as HTP blobs when backendId is HTP.
nlohmann::json binary_info_to_json(const QnnSystemContext_BinaryInfo_t& info, std::optional<uint64_t> weights_bytes);

}  // namespace openhtp::tools
