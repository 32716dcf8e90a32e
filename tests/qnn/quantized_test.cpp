// Quantized graphs through the QNN API and across the process boundary:
// per-channel encodings as clients write them, rules on malformed encodings,
// the NUM_HVX_THREADS graph config, and the supported-operations list.
// Expected outputs are worked out by hand from QNN's real = (q + offset) * scale.
#include <cstring>
#include <set>
#include <string>

#include "HTP/QnnHtpGraph.h"
#include "qnn_test_util.h"

using namespace qnntest;

namespace {

class Quantized : public QnnFixture {};

Qnn_Tensor_t u8_tensor(const char* name, Qnn_TensorType_t type, std::vector<uint32_t>& dims, float scale,
                       int32_t offset) {
  Qnn_Tensor_t t = make_tensor(name, type, dims, QNN_DATATYPE_UFIXED_POINT_8);
  t.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
  t.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_SCALE_OFFSET;
  t.v1.quantizeParams.scaleOffsetEncoding = {scale, offset};
  return t;
}

}  // namespace

TEST_F(Quantized, PerChannelFullyConnectedRunsOnTheDsp) {
  ASSERT_EQ(api().graphCreate(context_, "qfc", nullptr, &graph_), QNN_SUCCESS);
  std::vector<uint32_t> xd{1, 2}, wd{2, 2}, bd{2}, yd{1, 2};
  Qnn_Tensor_t x = u8_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, xd, 0.5f, 0);
  // Weights [out=2, in=2] SFIXED_8, per output channel (axis 0): scales 0.1, 0.2.
  int8_t wq[4] = {10, -20, 5, 5};  // real [[1, -2], [1, 1]]
  Qnn_ScaleOffset_t wso[2] = {{0.1f, 0}, {0.2f, 0}};
  Qnn_Tensor_t w = make_tensor("w", QNN_TENSOR_TYPE_STATIC, wd, QNN_DATATYPE_SFIXED_POINT_8);
  w.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
  w.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_AXIS_SCALE_OFFSET;
  w.v1.quantizeParams.axisScaleOffsetEncoding = {0, 2, wso};
  w.v1.clientBuf = {wq, sizeof wq};
  // Bias SFIXED_32 per channel with BW_AXIS_SCALE_OFFSET (offsets NULL = symmetric): 0.05, 0.1.
  int32_t bq[2] = {20, -10};  // real 1.0, -1.0
  float bscales[2] = {0.05f, 0.1f};
  Qnn_Tensor_t b = make_tensor("b", QNN_TENSOR_TYPE_STATIC, bd, QNN_DATATYPE_SFIXED_POINT_32);
  b.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
  b.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_BW_AXIS_SCALE_OFFSET;
  b.v1.quantizeParams.bwAxisScaleOffsetEncoding = {32, 0, 2, bscales, nullptr};
  b.v1.clientBuf = {bq, sizeof bq};
  Qnn_Tensor_t y = u8_tensor("y", QNN_TENSOR_TYPE_APP_READ, yd, 0.25f, -128);
  for (Qnn_Tensor_t* t : {&x, &w, &b, &y}) ASSERT_EQ(api().tensorCreateGraphTensor(graph_, t), QNN_SUCCESS);
  Qnn_Tensor_t ins[] = {x, w, b};
  ASSERT_EQ(add_node(graph_, "fc", QNN_OP_FULLY_CONNECTED, ins, 3, &y), QNN_SUCCESS);
  ASSERT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_SUCCESS);

  uint8_t xq[2] = {6, 2};  // real 3, 1
  uint8_t yq[2] = {0, 0};
  Qnn_Tensor_t in = x, out = y;
  in.v1.clientBuf = {xq, 2};
  out.v1.clientBuf = {yq, 2};
  ASSERT_EQ(api().graphExecute(graph_, &in, 1, &out, 1, nullptr, nullptr), QNN_SUCCESS);
  // y0 = 3*1 + 1*(-2) + 1 = 2 -> 2/0.25 + 128 = 136; y1 = 3 + 1 - 1 = 3 -> 140.
  EXPECT_EQ(yq[0], 136);
  EXPECT_EQ(yq[1], 140);
}

TEST_F(Quantized, MalformedAndUnknownEncodingsAreRefused) {
  ASSERT_EQ(api().graphCreate(context_, "g", nullptr, &graph_), QNN_SUCCESS);
  std::vector<uint32_t> wd{2, 3};
  int8_t wq[6] = {};
  Qnn_ScaleOffset_t so[2] = {{0.1f, 0}, {0.2f, 0}};
  Qnn_Tensor_t w = make_tensor("w", QNN_TENSOR_TYPE_STATIC, wd, QNN_DATATYPE_SFIXED_POINT_8);
  w.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
  w.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_AXIS_SCALE_OFFSET;
  w.v1.quantizeParams.axisScaleOffsetEncoding = {1, 2, so};  // axis 1 has 3 channels
  w.v1.clientBuf = {wq, sizeof wq};
  EXPECT_EQ(api().tensorCreateGraphTensor(graph_, &w), QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'w'", "2 entries", "axis 1 has 3 channels"}));
  w.v1.quantizeParams.axisScaleOffsetEncoding = {2, 2, so};  // rank is 2
  EXPECT_EQ(api().tensorCreateGraphTensor(graph_, &w), QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"axis 2 is outside rank 2"}));
  w.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_VECTOR;
  EXPECT_EQ(api().tensorCreateGraphTensor(graph_, &w), QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"quantization encoding 6 is not supported"}));
}

TEST_F(Quantized, FixedPointWithoutEncodingFailsAtAddNodeNamingTheTensor) {
  ASSERT_EQ(api().graphCreate(context_, "g", nullptr, &graph_), QNN_SUCCESS);
  std::vector<uint32_t> d{1, 4};
  Qnn_Tensor_t x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, d, QNN_DATATYPE_UFIXED_POINT_8);
  Qnn_Tensor_t y = make_tensor("y", QNN_TENSOR_TYPE_APP_READ, d, QNN_DATATYPE_UFIXED_POINT_8);
  ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &x), QNN_SUCCESS);
  ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &y), QNN_SUCCESS);
  EXPECT_EQ(add_node(graph_, "relu", QNN_OP_RELU, &x, 1, &y), QNN_GRAPH_ERROR_INVALID_OP_CONFIG);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"Relu 'relu'", "UFIXED_POINT_8 needs a quantization encoding"}));
}

TEST_F(Quantized, NumHvxThreadsConfig) {
  HtpGraphConfig threads(QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS);
  QnnHtpGraph_CustomConfig_t& htp = threads.htp;
  const QnnGraph_Config_t** list = threads.list();
  htp.numHvxThreads = 0;
  EXPECT_EQ(api().graphCreate(context_, "zero", list, &graph_), QNN_GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"NUM_HVX_THREADS is 0"}));
  htp.numHvxThreads = 2;
  ASSERT_EQ(api().graphCreate(context_, "two", list, &graph_), QNN_SUCCESS);
  std::vector<uint32_t> d{1, 8};
  Qnn_Tensor_t x, y;
  ASSERT_EQ(build_relu(graph_, d, &x, &y), QNN_SUCCESS);
  EXPECT_EQ(api().graphSetConfig(graph_, list), QNN_SUCCESS) << "same value after finalize is fine";
  // Until the first execute the thread count may still change: the DSP
  // prepares the kernels again on a pool of the new size.
  htp.numHvxThreads = 3;
  EXPECT_EQ(api().graphSetConfig(graph_, list), QNN_SUCCESS);
  float xv[8] = {-1, 2, -3, 4, -5, 6, -7, 8}, yv[8] = {};
  Qnn_Tensor_t in = x, out = y;
  in.v1.clientBuf = {xv, sizeof xv};
  out.v1.clientBuf = {yv, sizeof yv};
  EXPECT_EQ(hvx_threads_of_execute(backend_, graph_, &in, 1, &out, 1), 3u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(yv[i], xv[i] > 0 ? xv[i] : 0.0f) << i;
  htp.numHvxThreads = 1;
  EXPECT_EQ(api().graphSetConfig(graph_, list), QNN_GRAPH_ERROR_GRAPH_FINALIZED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"NUM_HVX_THREADS (3) cannot change after the first execute"}));
  // The VTCM size is planned at finalize: it cannot change at all afterwards.
  HtpGraphConfig vtcm(QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE);
  vtcm.htp.vtcmSizeInMB = 2;
  EXPECT_EQ(api().graphSetConfig(graph_, vtcm.list()), QNN_GRAPH_ERROR_GRAPH_FINALIZED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"VTCM size", "can no longer change"}));
  EXPECT_EQ(hvx_threads_of_execute(backend_, graph_, &in, 1, &out, 1), 3u) << "a refused change changes nothing";
}

TEST_F(Quantized, SupportedOperationsAreExactlyWhatValidateKnows) {
  uint32_t n = 0;
  const QnnBackend_OperationName_t* ops = nullptr;
  ASSERT_EQ(api().backendGetSupportedOperations(backend_, &n, &ops), QNN_SUCCESS);
  ASSERT_GT(n, 0u);
  std::set<std::string> names;
  for (uint32_t i = 0; i < n; ++i) {
    EXPECT_STREQ(ops[i].packageName, "qti.aisw");
    EXPECT_TRUE(names.insert(ops[i].name).second) << "listed twice: " << ops[i].name;
    // A listed op with no tensors at all is invalid (wrong I/O count), never "not supported".
    Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
    op.v1.name = "probe";
    op.v1.packageName = "qti.aisw";
    op.v1.typeName = ops[i].name;
    EXPECT_EQ(api().backendValidateOpConfig(backend_, op), QNN_BACKEND_ERROR_INVALID_ARGUMENT) << ops[i].name;
  }
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  op.v1.name = "probe";
  op.v1.packageName = "qti.aisw";
  op.v1.typeName = "If";  // a real qti.aisw op this backend refuses by decision (docs/ops.md)
  ASSERT_EQ(names.count("If"), 0u);
  EXPECT_EQ(api().backendValidateOpConfig(backend_, op), QNN_BACKEND_ERROR_NOT_SUPPORTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'If'", "not supported"}));
}
