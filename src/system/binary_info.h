// The QNN view of a decoded context binary: QnnSystemContext_BinaryInfo_t
// version 3 with one graph-info version 3 per graph, and the HTP blobs they
// point to.
//
// Every pointer inside `info()` points into this object (the decoded image's
// strings and dimension vectors, and the vectors below), so it is built once,
// never resized afterwards, and neither copied nor moved.
#pragma once

#include <cstdint>
#include <vector>

#include "HTP/QnnHtpSystemContext.h"
#include "System/QnnSystemContext.h"
#include "binary/context_codec.h"

namespace openhtp::system {

class BinaryInfo {
 public:
  // `binary_size` is the size of the buffer the image was decoded from
  // (reported as contextBlobSize).
  BinaryInfo(binary::ContextImage image, uint64_t binary_size);
  BinaryInfo(const BinaryInfo&) = delete;
  BinaryInfo& operator=(const BinaryInfo&) = delete;

  const QnnSystemContext_BinaryInfo_t& info() const { return info_; }
  const binary::ContextImage& image() const { return image_; }

 private:
  struct Graph {
    std::vector<Qnn_Tensor_t> inputs, outputs;
    QnnHtpSystemContext_GraphBlobInfo_t blob{};
  };

  binary::ContextImage image_;
  QnnSystemContext_BinaryInfo_t info_ = QNN_SYSTEM_CONTEXT_BINARYINFO_INIT;
  QnnHtpSystemContext_ContextBlobInfo_t context_blob_{};
  std::vector<Graph> graphs_;
  std::vector<QnnSystemContext_GraphInfo_t> graph_infos_;
};

// VTCM bytes as the graph blob reports them: whole megabytes, rounded up so
// that a client sizing a VTCM reservation from it never gets too little.
uint32_t vtcm_megabytes(uint64_t bytes);

}  // namespace openhtp::system
