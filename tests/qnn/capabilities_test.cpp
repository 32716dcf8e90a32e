// propertyHasCapability answers truthfully (issue 12 item 4): every key of
// QnnProperty.h and HTP/QnnHtpProperty.h is known, and each key answering
// SUPPORTED is checked here by using its feature right after asking.
#include <atomic>
#include <cstring>

#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpDevice.h"
#include "HTP/QnnHtpProperty.h"
#include "QnnProperty.h"
#include "QnnSignal.h"
#include "qnn_test_util.h"
#include "rpcmem.h"

using namespace qnntest;

namespace {

bool supported(QnnProperty_Key_t key) { return api().propertyHasCapability(key) == QNN_PROPERTY_SUPPORTED; }

class Capabilities : public QnnFixture {
 protected:
  std::vector<uint8_t> binary() {
    build_add_relu(16);
    Qnn_ContextBinarySize_t size = 0;
    EXPECT_EQ(api().contextGetBinarySize(context_, &size), QNN_SUCCESS);
    std::vector<uint8_t> bin(size);
    EXPECT_EQ(api().contextGetBinary(context_, bin.data(), size, &size), QNN_SUCCESS);
    return bin;
  }
  Qnn_ErrorHandle_t run(Qnn_GraphHandle_t g, Qnn_SignalHandle_t signal = nullptr) {
    std::vector<float> a(16, 1.0f), b(16, -3.0f), out(16, 5.0f);
    Qnn_Tensor_t in[2] = {a_, b_};
    Qnn_Tensor_t o = out_;
    in[0].v1.clientBuf = {a.data(), 64};
    in[1].v1.clientBuf = {b.data(), 64};
    o.v1.clientBuf = {out.data(), 64};
    const Qnn_ErrorHandle_t e = api().graphExecute(g, in, 2, &o, 1, nullptr, signal);
    if (e == QNN_SUCCESS && out[0] != 0.0f) return QNN_GRAPH_ERROR_GENERAL;  // relu(1 - 3)
    return e;
  }
};

TEST(CapabilityKeys, EveryKeyOfTheHeadersHasAnAnswerAndUnknownOnesDoNot) {
  // Spot checks at the ends of each group, and keys that are not keys.
  for (QnnProperty_Key_t key :
       {QNN_PROPERTY_GROUP_CORE, QNN_PROPERTY_BACKEND_SUPPORT_CUSTOM_PROPERTY, QNN_PROPERTY_CONTEXT_SUPPORT_BINARY_SECTION_UPDATES,
        QNN_PROPERTY_GRAPH_SUPPORT_UPDATABLE_WEIGHTS_BINARY_SECTION_CREATION, QNN_PROPERTY_OP_PACKAGE_SUPPORTS_DUPLICATE_NAMES,
        QNN_PROPERTY_TENSOR_SUPPORT_QUANTIZATION_ENCODING_BW_FLOAT_BLOCK, QNN_PROPERTY_ERROR_GET_VERBOSE_MESSAGE,
        QNN_PROPERTY_SIGNAL_SUPPORT_TIMEOUT, QNN_PROPERTY_LOG_SUPPORTS_DEFAULT_STREAM,
        QNN_PROPERTY_PROFILE_SUPPORT_OPTRACE_CONFIG, QNN_PROPERTY_DEVICE_SUPPORT_INFRASTRUCTURE,
        QNN_PROPERTY_CUSTOM_HTP_UNSIGNED_PD_SUPPORT}) {
    const Qnn_ErrorHandle_t e = api().propertyHasCapability(key);
    EXPECT_TRUE(e == QNN_PROPERTY_SUPPORTED || e == QNN_PROPERTY_NOT_SUPPORTED) << key;
  }
  EXPECT_EQ(api().propertyHasCapability(0x7fffff00u), QNN_PROPERTY_ERROR_UNKNOWN_KEY);
  EXPECT_EQ(api().propertyHasCapability(QNN_PROPERTY_GROUP_CONTEXT + 99), QNN_PROPERTY_ERROR_UNKNOWN_KEY);
  // What is accepted but not carried out says so.
  EXPECT_FALSE(supported(QNN_PROPERTY_BACKEND_SUPPORT_OP_PACKAGE));
  EXPECT_FALSE(supported(QNN_PROPERTY_CONTEXT_SUPPORT_CONFIG_MEMORY_LIMIT_HINT));
  EXPECT_FALSE(supported(QNN_PROPERTY_TENSOR_SUPPORT_DYNAMIC_DIMENSIONS));
}

TEST_F(Capabilities, ContextCachingValidationDeferredInitPropertiesSignalsAndListAsync) {
  const auto bin = binary();
  ASSERT_TRUE(supported(QNN_PROPERTY_CONTEXT_SUPPORT_CACHING));
  ASSERT_FALSE(bin.empty());
  ASSERT_TRUE(supported(QNN_PROPERTY_CONTEXT_SUPPORT_VALIDATE_BINARY));
  EXPECT_EQ(api().contextValidateBinary(backend_, nullptr, nullptr, bin.data(), bin.size()), QNN_SUCCESS);
  ASSERT_TRUE(supported(QNN_PROPERTY_CONTEXT_SUPPORT_CONFIGURATION));
  ASSERT_TRUE(supported(QNN_PROPERTY_CONTEXT_SUPPORT_DEFERRED_GRAPH_INIT));
  QnnContext_Config_t defer = QNN_CONTEXT_CONFIG_INIT;
  defer.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  defer.isGraphInitDeferred = 1;
  const QnnContext_Config_t* cfgs[] = {&defer, nullptr};
  Qnn_ContextHandle_t ctx = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &ctx, nullptr), QNN_SUCCESS);
  ASSERT_TRUE(supported(QNN_PROPERTY_CONTEXT_SUPPORT_CUSTOM_PROPERTY));
  QnnHtpContext_CustomProperty_t p = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  p.option = QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT;
  QnnContext_Property_t prop = QNN_CONTEXT_PROPERTY_INIT;
  prop.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
  prop.customProperty = &p;
  QnnContext_Property_t* props[] = {&prop, nullptr};
  EXPECT_EQ(api().contextGetProperty(ctx, props), QNN_SUCCESS);
  EXPECT_EQ(p.bufferStartAlignment, 4096u);
  EXPECT_EQ(api().contextFinalize(ctx, nullptr), QNN_SUCCESS);
  Qnn_GraphHandle_t g = nullptr;
  ASSERT_EQ(api().graphRetrieve(ctx, "add_relu", &g), QNN_SUCCESS);
  EXPECT_EQ(run(g), QNN_SUCCESS);
  api().contextFree(ctx, nullptr);

  ASSERT_TRUE(supported(QNN_PROPERTY_CONTEXT_SUPPORT_CREATE_FROM_BINARY_WITH_SIGNALS));
  Qnn_SignalHandle_t s = nullptr;
  ASSERT_EQ(api().signalCreate(backend_, nullptr, &s), QNN_SUCCESS);
  ASSERT_EQ(api().contextCreateFromBinaryWithSignal(backend_, nullptr, nullptr, bin.data(), bin.size(), &ctx, nullptr, s),
            QNN_SUCCESS);
  api().contextFree(ctx, nullptr);
  api().signalFree(s);

  ASSERT_TRUE(supported(QNN_PROPERTY_CONTEXT_SUPPORT_CREATE_FROM_BINARY_LIST_ASYNC));
  static std::atomic<int> inits;
  inits = 0;
  auto notify = [](Qnn_ContextHandle_t c, Qnn_GraphHandle_t, const char*, QnnContext_createFromBinaryAsyncNotifyType_t t,
                   void*, Qnn_ErrorHandle_t status) {
    if (t == QNN_CONTEXT_NOTIFY_TYPE_CONTEXT_INIT && status == QNN_SUCCESS) {
      ++inits;
      api().contextFree(c, nullptr);
    }
  };
  QnnContext_ParamsV1_t v1{nullptr, bin.data(), bin.size(), nullptr, notify, nullptr};
  QnnContext_Params_t params{};
  params.version = QNN_CONTEXT_PARAMS_VERSION_1;
  std::memcpy(static_cast<void*>(&params.v1), &v1, sizeof v1);
  const QnnContext_Params_t* list[] = {&params, nullptr};
  EXPECT_EQ(api().contextCreateFromBinaryListAsync(backend_, nullptr, list, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_EQ(inits.load(), 1);
}

TEST_F(Capabilities, GraphConfigPrioritySignalsExecuteAsyncAndOnlinePrepare) {
  ASSERT_TRUE(supported(QNN_PROPERTY_GRAPH_SUPPORT_ONLINE_PREPARE));
  ASSERT_TRUE(supported(QNN_PROPERTY_GRAPH_SUPPORT_EXECUTE));
  build_add_relu(16);  // graphFinalize prepares online
  EXPECT_EQ(run(graph_), QNN_SUCCESS);
  ASSERT_TRUE(supported(QNN_PROPERTY_GRAPH_SUPPORT_CONFIG));
  ASSERT_TRUE(supported(QNN_PROPERTY_GRAPH_SUPPORT_PRIORITY_CONTROL));
  QnnGraph_Config_t prio = QNN_GRAPH_CONFIG_INIT;
  prio.option = QNN_GRAPH_CONFIG_OPTION_PRIORITY;
  prio.priority = QNN_PRIORITY_HIGH;
  const QnnGraph_Config_t* gcfg[] = {&prio, nullptr};
  EXPECT_EQ(api().graphSetConfig(graph_, gcfg), QNN_SUCCESS);
  ASSERT_TRUE(supported(QNN_PROPERTY_GRAPH_SUPPORT_SIGNALS));
  ASSERT_TRUE(supported(QNN_PROPERTY_GRAPH_SUPPORT_EXECUTE_SIGNAL));
  Qnn_SignalHandle_t s = nullptr;
  ASSERT_EQ(api().signalCreate(backend_, nullptr, &s), QNN_SUCCESS);
  EXPECT_EQ(run(graph_, s), QNN_SUCCESS);
  ASSERT_TRUE(supported(QNN_PROPERTY_GRAPH_SUPPORT_FINALIZE_SIGNAL));
  Qnn_GraphHandle_t g2 = nullptr;
  std::vector<uint32_t> dims{1, 4};
  Qnn_Tensor_t x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, dims), y = make_tensor("y", QNN_TENSOR_TYPE_APP_READ, dims);
  ASSERT_EQ(api().graphCreate(context_, "second", nullptr, &g2), QNN_SUCCESS);
  ASSERT_EQ(api().tensorCreateGraphTensor(g2, &x), QNN_SUCCESS);
  ASSERT_EQ(api().tensorCreateGraphTensor(g2, &y), QNN_SUCCESS);
  ASSERT_EQ(add_node(g2, "relu", QNN_OP_RELU, &x, 1, &y), QNN_SUCCESS);
  EXPECT_EQ(api().graphFinalize(g2, nullptr, s), QNN_SUCCESS);
  ASSERT_TRUE(supported(QNN_PROPERTY_GRAPH_SUPPORT_ASYNC_EXECUTION));
  ASSERT_TRUE(supported(QNN_PROPERTY_GRAPH_SUPPORT_EXECUTE_ASYNC_SIGNAL));
  static std::atomic<int> notified;
  notified = 0;
  float xin[4] = {-1, 2, -3, 4}, yout[4] = {};
  x.v1.clientBuf = {xin, sizeof xin};
  y.v1.clientBuf = {yout, sizeof yout};
  EXPECT_EQ(api().graphExecuteAsync(g2, &x, 1, &y, 1, nullptr, s, [](void*, Qnn_NotifyStatus_t) { ++notified; }, nullptr),
            QNN_SUCCESS);
  EXPECT_EQ(notified.load(), 1);
  EXPECT_EQ(yout[1], 2.0f);
  EXPECT_EQ(yout[0], 0.0f);
  api().signalFree(s);
}

TEST_F(Capabilities, TensorsMemoryErrorsSignalsProfileAndDevice) {
  build_add_relu(16);
  ASSERT_TRUE(supported(QNN_PROPERTY_TENSOR_SUPPORT_CONTEXT_TENSORS));
  std::vector<uint32_t> dims{1, 4};
  Qnn_Tensor_t ct = make_tensor("shared_ct", QNN_TENSOR_TYPE_NATIVE, dims);
  EXPECT_EQ(api().tensorCreateContextTensor(context_, &ct), QNN_SUCCESS);
  // Every supported quantization encoding is taken by tensor creation.
  Qnn_GraphHandle_t qg = nullptr;
  ASSERT_EQ(api().graphCreate(context_, "quant", nullptr, &qg), QNN_SUCCESS);
  ASSERT_TRUE(supported(QNN_PROPERTY_TENSOR_SUPPORT_QUANTIZATION_ENCODING_SCALE_OFFSET));
  Qnn_Tensor_t q = make_tensor("q", QNN_TENSOR_TYPE_APP_WRITE, dims, QNN_DATATYPE_UFIXED_POINT_8);
  q.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
  q.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_SCALE_OFFSET;
  q.v1.quantizeParams.scaleOffsetEncoding = {0.5f, -3};
  EXPECT_EQ(api().tensorCreateGraphTensor(qg, &q), QNN_SUCCESS);
  ASSERT_TRUE(supported(QNN_PROPERTY_TENSOR_SUPPORT_QUANTIZATION_ENCODING_BW_SCALE_OFFSET));
  Qnn_Tensor_t qb = make_tensor("qb", QNN_TENSOR_TYPE_APP_WRITE, dims, QNN_DATATYPE_UFIXED_POINT_8);
  qb.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
  qb.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_BW_SCALE_OFFSET;
  qb.v1.quantizeParams.bwScaleOffsetEncoding = {8, 0.5f, -3};
  EXPECT_EQ(api().tensorCreateGraphTensor(qg, &qb), QNN_SUCCESS);
  ASSERT_TRUE(supported(QNN_PROPERTY_TENSOR_SUPPORT_QUANTIZATION_ENCODING_AXIS_SCALE_OFFSET));
  ASSERT_TRUE(supported(QNN_PROPERTY_TENSOR_SUPPORT_QUANTIZATION_ENCODING_BW_AXIS_SCALE_OFFSET));
  std::vector<uint32_t> wdims{1, 1, 2, 2};
  Qnn_ScaleOffset_t so[2] = {{0.5f, 0}, {0.25f, 0}};
  std::vector<uint8_t> wdata(4, 1);
  Qnn_Tensor_t w = make_tensor("w", QNN_TENSOR_TYPE_STATIC, wdims, QNN_DATATYPE_SFIXED_POINT_8);
  w.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
  w.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_AXIS_SCALE_OFFSET;
  w.v1.quantizeParams.axisScaleOffsetEncoding = {3, 2, so};
  w.v1.clientBuf = {wdata.data(), 4};
  EXPECT_EQ(api().tensorCreateGraphTensor(qg, &w), QNN_SUCCESS);
  float scales[2] = {0.5f, 0.25f};
  Qnn_Tensor_t wb = make_tensor("wb", QNN_TENSOR_TYPE_STATIC, wdims, QNN_DATATYPE_SFIXED_POINT_8);
  wb.v1.quantizeParams.encodingDefinition = QNN_DEFINITION_DEFINED;
  wb.v1.quantizeParams.quantizationEncoding = QNN_QUANTIZATION_ENCODING_BW_AXIS_SCALE_OFFSET;
  wb.v1.quantizeParams.bwAxisScaleOffsetEncoding = {8, 3, 2, scales, nullptr};
  wb.v1.clientBuf = {wdata.data(), 4};
  EXPECT_EQ(api().tensorCreateGraphTensor(qg, &wb), QNN_SUCCESS);

  ASSERT_TRUE(supported(QNN_PROPERTY_MEMORY_SUPPORT_MEM_TYPE_ION));
  ASSERT_TRUE(supported(QNN_PROPERTY_TENSOR_SUPPORT_MEMHANDLE_TYPE));
  void* buf = rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 64);
  Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
  std::vector<uint32_t> mdims{1, 16};
  d.memShape = {2, mdims.data(), nullptr};
  d.dataType = QNN_DATATYPE_FLOAT_32;
  d.memType = QNN_MEM_TYPE_ION;
  d.ionInfo.fd = rpcmem_to_fd(buf);
  Qnn_MemHandle_t h = nullptr;
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_SUCCESS);
  EXPECT_EQ(api().memDeRegister(&h, 1), QNN_SUCCESS);
  rpcmem_free(buf);

  ASSERT_TRUE(supported(QNN_PROPERTY_ERROR_GET_VERBOSE_MESSAGE));
  const Qnn_ErrorHandle_t e = api().graphCreate(context_, "", nullptr, &qg);  // refused: an empty name
  ASSERT_NE(e, QNN_SUCCESS);
  const char* verbose = nullptr;
  EXPECT_EQ(api().errorGetVerboseMessage(e, &verbose), QNN_SUCCESS);
  EXPECT_NE(verbose, nullptr);
  EXPECT_EQ(api().errorFreeVerboseMessage(verbose), QNN_SUCCESS);

  ASSERT_TRUE(supported(QNN_PROPERTY_SIGNAL_SUPPORT_TIMEOUT));
  ASSERT_TRUE(supported(QNN_PROPERTY_SIGNAL_SUPPORT_ABORT));
  QnnSignal_Config_t sc = QNN_SIGNAL_CONFIG_INIT;
  sc.option = QNN_SIGNAL_CONFIG_OPTION_TIMEOUT;
  sc.timeoutDurationUs = 1;
  const QnnSignal_Config_t* scs[] = {&sc, nullptr};
  Qnn_SignalHandle_t s = nullptr;
  ASSERT_EQ(api().signalCreate(backend_, scs, &s), QNN_SUCCESS);
  EXPECT_EQ(api().signalTrigger(s), QNN_SIGNAL_ERROR_SIGNAL_IDLE);  // abort applies to a call in flight
  api().signalFree(s);

  ASSERT_TRUE(supported(QNN_PROPERTY_PROFILE_SUPPORT_MAX_EVENTS_CONFIG));
  Qnn_ProfileHandle_t prof = nullptr;
  ASSERT_EQ(api().profileCreate(backend_, QNN_PROFILE_LEVEL_BASIC, &prof), QNN_SUCCESS);
  QnnProfile_Config_t pc = QNN_PROFILE_CONFIG_INIT;
  pc.option = QNN_PROFILE_CONFIG_OPTION_MAX_EVENTS;
  pc.numMaxEvents = 1;
  const QnnProfile_Config_t* pcs[] = {&pc, nullptr};
  EXPECT_EQ(api().profileSetConfig(prof, pcs), QNN_SUCCESS);
  std::vector<float> a(16, 1.0f), b(16, 1.0f), out(16);
  Qnn_Tensor_t in[2] = {a_, b_};
  Qnn_Tensor_t o = out_;
  in[0].v1.clientBuf = {a.data(), 64};
  in[1].v1.clientBuf = {b.data(), 64};
  o.v1.clientBuf = {out.data(), 64};
  for (int i = 0; i < 3; ++i) ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, prof, nullptr), QNN_SUCCESS);
  const QnnProfile_EventId_t* events = nullptr;
  uint32_t n = 0;
  EXPECT_EQ(api().profileGetEvents(prof, &events, &n), QNN_SUCCESS);
  EXPECT_EQ(n, 1u);  // capped at the configured maximum
  api().profileFree(prof);

  ASSERT_TRUE(supported(QNN_PROPERTY_DEVICE_SUPPORT_INFRASTRUCTURE));
  QnnDevice_Infrastructure_t infra = nullptr;
  ASSERT_EQ(api().deviceGetInfrastructure(&infra), QNN_SUCCESS);
  const auto* htp = reinterpret_cast<const QnnHtpDevice_Infrastructure_t*>(infra);
  ASSERT_NE(htp, nullptr);
  EXPECT_EQ(htp->infraType, QNN_HTP_DEVICE_INFRASTRUCTURE_TYPE_PERF);
  EXPECT_NE(htp->perfInfra.createPowerConfigId, nullptr);

  // Unsigned PD: the DSP side runs the backend's skel without any signing.
  ASSERT_TRUE(supported(QNN_PROPERTY_CUSTOM_HTP_UNSIGNED_PD_SUPPORT));
  EXPECT_EQ(run(graph_), QNN_SUCCESS);
}

// Sparse tensors: a NATIVE HYBRID_COO tensor between CreateSparse and
// SparseToDense (tests/qnn/sparse_tensor_test.cpp has the rules).
TEST_F(Capabilities, SparseTensors) {
  ASSERT_TRUE(supported(QNN_PROPERTY_TENSOR_SUPPORT_SPARSITY));
  std::vector<uint32_t> idx_dims{1, 1}, val_dims{1, 2}, dims{2, 2};
  Qnn_Tensor_t idx = make_tensor("idx", QNN_TENSOR_TYPE_APP_WRITE, idx_dims, QNN_DATATYPE_INT_32);
  Qnn_Tensor_t vals = make_tensor("vals", QNN_TENSOR_TYPE_APP_WRITE, val_dims);
  Qnn_Tensor_t sp = QNN_TENSOR_INIT;
  sp.version = QNN_TENSOR_VERSION_2;
  Qnn_TensorV2_t v2 = QNN_TENSOR_V2_INIT;
  v2.name = "sp";
  v2.type = QNN_TENSOR_TYPE_NATIVE;
  v2.dataFormat = QNN_TENSOR_DATA_FORMAT_SPARSE;
  v2.dataType = QNN_DATATYPE_FLOAT_32;
  v2.rank = 2;
  v2.dimensions = dims.data();
  v2.memType = QNN_TENSORMEMTYPE_RAW;
  v2.sparseParams.type = QNN_SPARSE_LAYOUT_HYBRID_COO;
  v2.sparseParams.hybridCoo = {1, 1};  // one row of two
  sp.v2 = v2;
  Qnn_Tensor_t dense = make_tensor("dense", QNN_TENSOR_TYPE_APP_READ, dims);
  Qnn_GraphHandle_t g = nullptr;
  ASSERT_EQ(api().graphCreate(context_, "sparse", nullptr, &g), QNN_SUCCESS);
  for (Qnn_Tensor_t* t : {&idx, &vals, &sp, &dense}) ASSERT_EQ(api().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
  Qnn_Tensor_t create_in[] = {idx, vals};
  ASSERT_EQ(add_node(g, "create", QNN_OP_CREATE_SPARSE, create_in, 2, &sp), QNN_SUCCESS);
  ASSERT_EQ(add_node(g, "to_dense", QNN_OP_SPARSE_TO_DENSE, &sp, 1, &dense), QNN_SUCCESS);
  ASSERT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
  int32_t row = 1;
  float v[2] = {5, 6}, out[4] = {-1, -1, -1, -1};
  create_in[0].v1.clientBuf = {&row, 4};
  create_in[1].v1.clientBuf = {v, 8};
  dense.v1.clientBuf = {out, 16};
  ASSERT_EQ(api().graphExecute(g, create_in, 2, &dense, 1, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{0, 0, 5, 6}));  // row 1 = [5, 6]
}

}  // namespace
