// systemContextGetBinaryInfo / GetMetaData on binaries libQnnHtp wrote:
// binary info v3, graph info v3, tensors a client can execute with, HTP blobs.
#include <cstring>
#include <string>

#include "HTP/QnnHtpCommon.h"
#include "HTP/QnnHtpSystemContext.h"
#include "QnnSdkBuildId.h"
#include "binary/context_codec.h"
#include "system/openhtp_system_ext.h"
#include "system_test_util.h"

using namespace systest;

namespace {

const QnnSystemContext_GraphInfoV3_t* find_graph(const QnnSystemContext_BinaryInfoV3_t& bi, const char* name) {
  for (uint32_t i = 0; i < bi.numGraphs; ++i) {
    if (bi.graphs[i].version == QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_3 &&
        std::strcmp(bi.graphs[i].graphInfoV3.graphName, name) == 0) {
      return &bi.graphs[i].graphInfoV3;
    }
  }
  return nullptr;
}

// What the system library reports against what the client created.
void expect_same_tensor(const Qnn_Tensor_t& got, const Qnn_Tensor_t& created) {
  ASSERT_EQ(got.version, QNN_TENSOR_VERSION_1);
  SCOPED_TRACE(created.v1.name);
  EXPECT_EQ(got.v1.id, created.v1.id);
  EXPECT_STREQ(got.v1.name, created.v1.name);
  EXPECT_EQ(got.v1.type, created.v1.type);
  EXPECT_EQ(got.v1.dataType, created.v1.dataType);
  EXPECT_EQ(got.v1.dataFormat, QNN_TENSOR_DATA_FORMAT_DENSE);
  ASSERT_EQ(got.v1.rank, created.v1.rank);
  for (uint32_t i = 0; i < got.v1.rank; ++i) EXPECT_EQ(got.v1.dimensions[i], created.v1.dimensions[i]) << i;
  EXPECT_EQ(got.v1.memType, QNN_TENSORMEMTYPE_RAW);
  EXPECT_EQ(got.v1.clientBuf.data, nullptr);
  EXPECT_EQ(got.v1.clientBuf.dataSize, 0u);
  EXPECT_EQ(got.v1.quantizeParams.encodingDefinition, QNN_DEFINITION_UNDEFINED);
}

}  // namespace

using SystemContextBinary = BinaryFixture;

TEST_F(SystemContextBinary, BinaryInfoIsVersion3WithTheContextFields) {
  const QnnSystemContext_BinaryInfo_t* bi = info();
  ASSERT_NE(bi, nullptr);
  ASSERT_EQ(bi->version, QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_3);
  const auto& v3 = bi->contextBinaryInfoV3;
  EXPECT_EQ(v3.backendId, static_cast<uint32_t>(QNN_BACKEND_ID_HTP));
  EXPECT_STREQ(v3.buildId, QNN_SDK_BUILD_ID);
  EXPECT_EQ(v3.coreApiVersion.major, static_cast<uint32_t>(QNN_API_VERSION_MAJOR));
  EXPECT_EQ(v3.coreApiVersion.minor, static_cast<uint32_t>(QNN_API_VERSION_MINOR));
  EXPECT_EQ(v3.backendApiVersion.major, static_cast<uint32_t>(QNN_HTP_API_VERSION_MAJOR));
  EXPECT_EQ(v3.backendApiVersion.minor, static_cast<uint32_t>(QNN_HTP_API_VERSION_MINOR));
  EXPECT_EQ(v3.contextBlobVersion.major, static_cast<uint32_t>(QNN_HTP_CONTEXT_BLOB_VERSION_MAJOR));
  EXPECT_EQ(v3.contextBlobVersion.minor, static_cast<uint32_t>(QNN_HTP_CONTEXT_BLOB_VERSION_MINOR));
  EXPECT_EQ(v3.contextBlobVersion.patch, static_cast<uint32_t>(QNN_HTP_CONTEXT_BLOB_VERSION_PATCH));
  EXPECT_EQ(v3.contextBlobSize, binary_.size());
  ASSERT_NE(v3.socVersion, nullptr);
  EXPECT_EQ(v3.numContextTensors, 0u);
  EXPECT_EQ(v3.contextTensors, nullptr);
  EXPECT_EQ(v3.numGraphs, 2u);
  ASSERT_NE(v3.contextMetadata, nullptr);
  ASSERT_EQ(v3.contextMetadataSize, sizeof(QnnHtpSystemContext_ContextBlobInfo_t));
  const auto* meta = static_cast<const QnnHtpSystemContext_ContextBlobInfo_t*>(v3.contextMetadata);
  EXPECT_EQ(meta->version, QNN_SYSTEM_CONTEXT_HTP_CONTEXT_INFO_BLOB_VERSION_V1);
  EXPECT_GT(meta->contextBinaryContextBlobInfoV1.dspArch, 0u);
  EXPECT_GT(v3.socModel, 0u);
}

TEST_F(SystemContextBinary, GraphsListTheirInputsAndOutputsAsCreated) {
  const auto& v3 = info()->contextBinaryInfoV3;
  for (uint32_t i = 0; i < v3.numGraphs; ++i) EXPECT_EQ(v3.graphs[i].version, QNN_SYSTEM_CONTEXT_GRAPH_INFO_VERSION_3);
  const auto* g = find_graph(v3, "add_relu");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->numGraphInputs, 2u);
  expect_same_tensor(g->graphInputs[0], a_);
  expect_same_tensor(g->graphInputs[1], b_);
  ASSERT_EQ(g->numGraphOutputs, 1u);
  expect_same_tensor(g->graphOutputs[0], out_);
  EXPECT_EQ(g->numUpdateableTensors, 0u);
  EXPECT_EQ(g->startOpIndex, 0u);
  EXPECT_EQ(g->endOpIndex, 2u);
  // The weights graph: the STATIC tensor is neither input nor output.
  const auto* wg = find_graph(v3, "add_bias");
  ASSERT_NE(wg, nullptr);
  ASSERT_EQ(wg->numGraphInputs, 1u);
  expect_same_tensor(wg->graphInputs[0], x_);
  ASSERT_EQ(wg->numGraphOutputs, 1u);
  expect_same_tensor(wg->graphOutputs[0], y_);
}

TEST_F(SystemContextBinary, GraphBlobInfoCarriesSpillFillAndVtcm) {
  const auto& v3 = info()->contextBinaryInfoV3;
  for (const char* name : {"add_relu", "add_bias"}) {
    const auto* g = find_graph(v3, name);
    ASSERT_NE(g, nullptr);
    ASSERT_NE(g->graphBlobInfo, nullptr);
    ASSERT_EQ(g->graphBlobInfoSize, sizeof(QnnHtpSystemContext_GraphBlobInfo_t));
    const auto* blob = static_cast<const QnnHtpSystemContext_GraphBlobInfo_t*>(g->graphBlobInfo);
    ASSERT_EQ(blob->version, QNN_SYSTEM_CONTEXT_HTP_GRAPH_INFO_BLOB_VERSION_V1);
    // Tiny graphs fit VTCM: a little of it (at most one MB, rounded up), no spill-fill.
    EXPECT_LE(blob->contextBinaryGraphBlobInfoV1.vtcmSize, 1u) << name;
    EXPECT_EQ(blob->contextBinaryGraphBlobInfoV1.spillFillBufferSize, 0u) << name;
  }
}

TEST_F(SystemContextBinary, WeightsSizeExtensionCountsTheStaticTensor) {
  uint64_t w = 0;
  QnnSystemContext_Handle_t fresh = nullptr;
  ASSERT_EQ(sys().systemContextCreate(&fresh), QNN_SUCCESS);
  EXPECT_EQ(OpenHtpSystemContext_getWeightsSize(fresh, &w), QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT);  // nothing read yet
  sys().systemContextFree(fresh);
  info();
  ASSERT_EQ(OpenHtpSystemContext_getWeightsSize(sys_, &w), QNN_SUCCESS);
  EXPECT_GE(w, weights_.size() * sizeof(float));
  EXPECT_EQ(OpenHtpSystemContext_getWeightsSize(sys_, nullptr), QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(OpenHtpSystemContext_getWeightsSize(fresh, &w), QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE);
}

// The client flow the System API exists for: read the graph names and I/O
// from the binary alone, load it, retrieve by name, execute with those tensors.
TEST_F(SystemContextBinary, ReportedGraphsCanBeRetrievedAndExecuted) {
  const auto& v3 = info()->contextBinaryInfoV3;
  Qnn_ContextHandle_t loaded = nullptr;
  ASSERT_EQ(htp().contextCreateFromBinary(backend_, nullptr, nullptr, binary_.data(), binary_.size(), &loaded, nullptr),
            QNN_SUCCESS);
  for (uint32_t i = 0; i < v3.numGraphs; ++i) {
    const auto& g = v3.graphs[i].graphInfoV3;
    SCOPED_TRACE(g.graphName);
    Qnn_GraphHandle_t gh = nullptr;
    ASSERT_EQ(htp().graphRetrieve(loaded, g.graphName, &gh), QNN_SUCCESS);
    // Buffers of all-ones for every input; outputs poisoned.
    std::vector<std::vector<float>> in_data, out_data;
    std::vector<Qnn_Tensor_t> ins(g.graphInputs, g.graphInputs + g.numGraphInputs);
    std::vector<Qnn_Tensor_t> outs(g.graphOutputs, g.graphOutputs + g.numGraphOutputs);
    for (auto* list : {&ins, &outs}) {
      for (Qnn_Tensor_t& t : *list) {
        uint64_t bytes = 0;
        ASSERT_EQ(sys().systemTensorGetMemoryFootprint(t, &bytes), QNN_SUCCESS);
        auto& store = list == &ins ? in_data : out_data;
        store.emplace_back(bytes / sizeof(float), list == &ins ? 1.0f : -99.0f);
        t.v1.clientBuf = {store.back().data(), static_cast<uint32_t>(bytes)};
      }
    }
    ASSERT_EQ(htp().graphExecute(gh, ins.data(), static_cast<uint32_t>(ins.size()), outs.data(),
                                 static_cast<uint32_t>(outs.size()), nullptr, nullptr),
              QNN_SUCCESS);
    ASSERT_EQ(out_data.size(), 1u);
    for (size_t k = 0; k < out_data[0].size(); ++k) {
      const float expect = std::strcmp(g.graphName, "add_relu") == 0 ? 2.0f : 1.0f + weights_[k];
      ASSERT_EQ(out_data[0][k], expect) << k;
    }
  }
  htp().contextFree(loaded, nullptr);
}

TEST_F(SystemContextBinary, MetadataEqualsBinaryInfoAndReplacesIt) {
  const QnnSystemContext_BinaryInfo_t* a = nullptr;
  ASSERT_EQ(sys().systemContextGetMetaData(sys_, binary_.data(), binary_.size(), &a), QNN_SUCCESS);
  ASSERT_EQ(a->version, QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_3);
  EXPECT_EQ(a->contextBinaryInfoV3.numGraphs, 2u);
  // A failed read leaves the previous info valid and unchanged.
  const std::string name = a->contextBinaryInfoV3.graphs[0].graphInfoV3.graphName;
  const QnnSystemContext_BinaryInfo_t* b = nullptr;
  std::vector<uint8_t> junk(100, 0x42);
  EXPECT_EQ(sys().systemContextGetMetaData(sys_, junk.data(), junk.size(), &b), QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY);
  EXPECT_EQ(b, nullptr);
  EXPECT_EQ(name, a->contextBinaryInfoV3.graphs[0].graphInfoV3.graphName);
  // Two handles are independent.
  QnnSystemContext_Handle_t other = nullptr;
  ASSERT_EQ(sys().systemContextCreate(&other), QNN_SUCCESS);
  const QnnSystemContext_BinaryInfo_t* c = nullptr;
  ASSERT_EQ(sys().systemContextGetMetaData(other, binary_.data(), binary_.size(), &c), QNN_SUCCESS);
  EXPECT_NE(c, a);
  ASSERT_EQ(sys().systemContextFree(other), QNN_SUCCESS);
  EXPECT_EQ(name, a->contextBinaryInfoV3.graphs[0].graphInfoV3.graphName);
  Qnn_ContextBinarySize_t size = 0;
  ASSERT_EQ(sys().systemContextGetBinaryInfo(sys_, binary_.data(), binary_.size(), &b, &size), QNN_SUCCESS);
  EXPECT_EQ(size, sizeof(QnnSystemContext_BinaryInfo_t));
}

// Fields libQnnHtp's graphs here do not exercise (quantization, READWRITE,
// rank 0, VTCM and spill-fill sizes), through a context image written directly.
TEST(SystemContextImage, QuantAndSizesAreReported) {
  using namespace openhtp;
  binary::ContextImage image;
  image.build_id = "test-build";
  image.core_api = {2, 39, 0};
  image.backend_api = {5, 50, 0};
  image.soc_model = 60;
  image.dsp_arch = 75;
  binary::GraphImage g;
  g.spec.name = "quantized";
  htp::TensorSpec in;
  in.id = 7;
  in.name = "in";
  in.type = htp::tensor_type::kAppWrite;
  in.dtype = QNN_DATATYPE_UFIXED_POINT_8;
  in.dims = {1, 4};
  in.quant = openhtp::ops::Quant::per_tensor(0.25f, -128);
  htp::TensorSpec io = in;
  io.id = 9;
  io.name = "io";
  io.type = htp::tensor_type::kAppReadWrite;
  io.dims = {};
  htp::TensorSpec out = in;
  out.id = 11;
  out.name = "out";
  out.type = htp::tensor_type::kAppRead;
  g.spec.tensors = {in, io, out};
  htp::NodeSpec relu;
  relu.name = "relu";
  relu.package = QNN_OP_PACKAGE_NAME_QTI_AISW;
  relu.type = QNN_OP_RELU;
  relu.inputs = {7};
  relu.outputs = {11};
  g.spec.nodes = {relu};
  g.vtcm_bytes = (3u << 20) + 1;  // just over 3 MB
  g.spill_fill_bytes = 12345;
  image.graphs.push_back(g);
  image.weights_bytes = 4096;
  const std::vector<uint8_t> bin = binary::encode_context(image);

  QnnSystemContext_Handle_t ctx = nullptr;
  ASSERT_EQ(sys().systemContextCreate(&ctx), QNN_SUCCESS);
  const QnnSystemContext_BinaryInfo_t* bi = nullptr;
  ASSERT_EQ(sys().systemContextGetMetaData(ctx, bin.data(), bin.size(), &bi), QNN_SUCCESS);
  const auto& v3 = bi->contextBinaryInfoV3;
  EXPECT_STREQ(v3.buildId, "test-build");
  EXPECT_EQ(v3.coreApiVersion.minor, 39u);
  EXPECT_EQ(v3.socModel, 60u);
  EXPECT_EQ(static_cast<const QnnHtpSystemContext_ContextBlobInfo_t*>(v3.contextMetadata)
                ->contextBinaryContextBlobInfoV1.dspArch,
            75u);
  ASSERT_EQ(v3.numGraphs, 1u);
  const auto& gi = v3.graphs[0].graphInfoV3;
  // READWRITE is both an input and an output.
  ASSERT_EQ(gi.numGraphInputs, 2u);
  ASSERT_EQ(gi.numGraphOutputs, 2u);
  EXPECT_STREQ(gi.graphInputs[0].v1.name, "in");
  EXPECT_STREQ(gi.graphInputs[1].v1.name, "io");
  EXPECT_STREQ(gi.graphOutputs[0].v1.name, "io");
  EXPECT_STREQ(gi.graphOutputs[1].v1.name, "out");
  const Qnn_TensorV1_t& q = gi.graphInputs[0].v1;
  EXPECT_EQ(q.id, 7u);
  EXPECT_EQ(q.dataType, QNN_DATATYPE_UFIXED_POINT_8);
  EXPECT_EQ(q.quantizeParams.encodingDefinition, QNN_DEFINITION_DEFINED);
  EXPECT_EQ(q.quantizeParams.quantizationEncoding, QNN_QUANTIZATION_ENCODING_SCALE_OFFSET);
  EXPECT_EQ(q.quantizeParams.scaleOffsetEncoding.scale, 0.25f);
  EXPECT_EQ(q.quantizeParams.scaleOffsetEncoding.offset, -128);
  EXPECT_EQ(gi.graphInputs[1].v1.rank, 0u);
  EXPECT_EQ(gi.graphInputs[1].v1.dimensions, nullptr);
  const auto& blob = static_cast<const QnnHtpSystemContext_GraphBlobInfo_t*>(gi.graphBlobInfo)->contextBinaryGraphBlobInfoV1;
  EXPECT_EQ(blob.vtcmSize, 4u);  // MB, rounded up
  EXPECT_EQ(blob.spillFillBufferSize, 12345u);
  uint64_t w = 0;
  ASSERT_EQ(OpenHtpSystemContext_getWeightsSize(ctx, &w), QNN_SUCCESS);
  EXPECT_EQ(w, 4096u);
  EXPECT_EQ(sys().systemContextFree(ctx), QNN_SUCCESS);
}
