// External weights and spill-fill buffers (tutorial: "FastRPC Use Case"):
// the flow works, the weights are really read from the client's buffer, and
// every requirement is enforced by breaking it.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpDevice.h"
#include "HTP/QnnHtpGraph.h"
#include "openhtp/fastrpc_ext.h"
#include "openhtp/qnn_ext.h"
#include "qnn_test_util.h"
#include "spill_graph.h"
#include "remote.h"
#include "rpcmem.h"

using namespace qnntest;

namespace {

class ExternalBuffers : public SpillGraphFixture {
 protected:
  Qnn_ContextHandle_t load_deferred(const std::vector<uint8_t>& bin, const QnnContext_Config_t* extra = nullptr) {
    defer_cfg_ = QNN_CONTEXT_CONFIG_INIT;
    defer_cfg_.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
    defer_cfg_.isGraphInitDeferred = 1;
    cfgs_[0] = &defer_cfg_;
    cfgs_[1] = extra;
    cfgs_[2] = nullptr;
    Qnn_ContextHandle_t ctx = nullptr;
    EXPECT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs_, bin.data(), bin.size(), &ctx, nullptr),
              QNN_SUCCESS);
    return ctx;
  }

  uint64_t property(Qnn_ContextHandle_t ctx, QnnHtpContext_GetPropertyOption_t option) {
    QnnHtpContext_CustomProperty_t p = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
    p.option = option;
    QnnContext_Property_t prop = QNN_CONTEXT_PROPERTY_INIT;
    prop.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
    prop.customProperty = &p;
    QnnContext_Property_t* props[] = {&prop, nullptr};
    EXPECT_EQ(api().contextGetProperty(ctx, props), QNN_SUCCESS);
    return p.weightsBufferSize;  // all union members are one uint64_t
  }

  Qnn_ErrorHandle_t register_external(Qnn_ContextHandle_t ctx, QnnHtpMem_Type_t type, int fd, uint64_t offset,
                                      uint64_t size, Qnn_MemHandle_t* h) {
    QnnMemHtp_Descriptor_t htp{};
    htp.type = type;
    htp.size = size;
    if (type == QNN_HTP_MEM_WEIGHTS_BUFFER) {
      htp.weightsBufferConfig = {fd, offset};
    } else {
      htp.spillfillBufferConfig = {fd, offset};
    }
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    d.memType = QNN_MEM_TYPE_CUSTOM;
    d.customInfo = &htp;
    return api().memRegister(ctx, &d, 1, h);
  }

  std::vector<float> run(Qnn_ContextHandle_t ctx, const std::vector<float>& x) {
    Qnn_GraphHandle_t g = nullptr;
    EXPECT_EQ(api().graphRetrieve(ctx, "g", &g), QNN_SUCCESS);
    std::vector<float> out(kN, -1.0f);
    Qnn_Tensor_t in = x_, o = out_;
    in.v1.clientBuf = {const_cast<float*>(x.data()), kN * 4};
    o.v1.clientBuf = {out.data(), kN * 4};
    EXPECT_EQ(api().graphExecute(g, &in, 1, &o, 1, nullptr, nullptr), QNN_SUCCESS);
    return out;
  }

  QnnContext_Config_t defer_cfg_;
  const QnnContext_Config_t* cfgs_[3];
};

}  // namespace

TEST_F(ExternalBuffers, TutorialFlowUsesBothBuffers) {
  auto bin = make_binary();
  Qnn_ContextHandle_t ctx = load_deferred(bin);
  const uint64_t weights_size = property(ctx, QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE);
  const uint64_t spill_size = property(ctx, QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE);
  EXPECT_EQ(property(ctx, QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT), 4096u);
  EXPECT_EQ(weights_size, kN * 4u);  // one 16 KiB weight tensor, page aligned
  EXPECT_EQ(spill_size, kN * 4u);    // one spilled 16 KiB intermediate
  auto* wbuf = static_cast<float*>(rpcmem_alloc(25, 1, static_cast<int>(weights_size)));
  auto* sbuf = static_cast<uint8_t*>(rpcmem_alloc(25, 1, static_cast<int>(spill_size)));
  std::memset(sbuf, 0xEE, spill_size);
  Qnn_MemHandle_t wh = nullptr, sh = nullptr;
  ASSERT_EQ(register_external(ctx, QNN_HTP_MEM_WEIGHTS_BUFFER, rpcmem_to_fd(wbuf), 0, weights_size, &wh), QNN_SUCCESS);
  ASSERT_EQ(register_external(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, rpcmem_to_fd(sbuf), 0, spill_size, &sh),
            QNN_SUCCESS);
  ASSERT_EQ(api().contextFinalize(ctx, nullptr), QNN_SUCCESS);
  // contextFinalize copied the weights into the client's buffer.
  EXPECT_EQ(std::memcmp(wbuf, weights_.data(), kN * 4), 0);
  // A new HVX thread count before the first execute prepares the kernels
  // again: they must find the weights where they live now, in wbuf.
  {
    Qnn_GraphHandle_t g = nullptr;
    ASSERT_EQ(api().graphRetrieve(ctx, "g", &g), QNN_SUCCESS);
    HtpGraphConfig threads(QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS);
    threads.htp.numHvxThreads = 3;
    ASSERT_EQ(api().graphSetConfig(g, threads.list()), QNN_SUCCESS);
  }
  std::vector<float> x(kN);
  for (uint32_t i = 0; i < kN; ++i) x[i] = 0.01f * static_cast<float>(i % 200) - 1.0f;
  EXPECT_EQ(run(ctx, x), reference(x, weights_));
  // The spilled activation lives in the client's spill-fill buffer.
  int touched = 0;
  for (uint64_t i = 0; i < spill_size; ++i) touched += sbuf[i] != 0xEE;
  EXPECT_GT(touched, 0);
  // Execution reads the weights from the external buffer: change them there
  // and the outputs follow.
  std::vector<float> w2(kN, 0.5f);
  std::memcpy(wbuf, w2.data(), kN * 4);
  EXPECT_EQ(run(ctx, x), reference(x, w2));
  // In use since finalize: no deregistration; contextFree releases them.
  EXPECT_EQ(api().memDeRegister(&wh, 1), QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"in use since contextFinalize"}));
  ASSERT_EQ(api().contextFree(ctx, nullptr), QNN_SUCCESS);
  EXPECT_EQ(api().memDeRegister(&sh, 1), QNN_MEM_ERROR_INVALID_HANDLE);
  rpcmem_free(wbuf);
  rpcmem_free(sbuf);
}

TEST_F(ExternalBuffers, NeitherRegisteredMeansInternalBuffers) {
  auto bin = make_binary();
  Qnn_ContextHandle_t ctx = load_deferred(bin);
  ASSERT_EQ(api().contextFinalize(ctx, nullptr), QNN_SUCCESS);
  std::vector<float> x(kN, 0.25f);
  EXPECT_EQ(run(ctx, x), reference(x, weights_));
  api().contextFree(ctx, nullptr);
}

TEST_F(ExternalBuffers, EveryRequirementIsEnforced) {
  auto bin = make_binary();
  Qnn_ContextHandle_t ctx = load_deferred(bin);
  const uint64_t need = kN * 4;
  auto* big = static_cast<uint8_t*>(rpcmem_alloc(25, 1, 8 * need));
  const int fd = rpcmem_to_fd(big);
  Qnn_MemHandle_t h = nullptr;
  auto& log = LogCapture::instance();
  // Not a context created from a binary with DEFER_GRAPH_INIT.
  EXPECT_EQ(register_external(context_, QNN_HTP_MEM_WEIGHTS_BUFFER, fd, 0, need, &h), QNN_MEM_ERROR_NOT_SUPPORTED);
  // fd + offset not aligned to BUFFER_START_ALIGNMENT.
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_WEIGHTS_BUFFER, fd, 100, need, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(log.has_line_with({"offset 100", "not aligned", "4096"}));
  // Smaller than required, or past the fd.
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_WEIGHTS_BUFFER, fd, 0, need - 4096, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(log.has_line_with({"required " + std::to_string(need)}));
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_WEIGHTS_BUFFER, fd, 8 * need, need, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  // Not a DMA buffer (a regular file).
  char path[] = "/tmp/openhtp-ext-XXXXXX";
  int file = mkstemp(path);
  ASSERT_EQ(ftruncate(file, 8 * need), 0);
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_WEIGHTS_BUFFER, file, 0, need, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  close(file);
  unlink(path);
  // fd mapped with fastrpc_mmap.
  void* mapped = rpcmem_alloc(25, 1, static_cast<int>(need));
  const int mfd = rpcmem_to_fd(mapped);
  ASSERT_EQ(fastrpc_mmap(CDSP_DOMAIN_ID, mfd, mapped, 0, need, FASTRPC_MAP_FD), 0);
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_WEIGHTS_BUFFER, mfd, 0, need, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(log.has_line_with({"fastrpc_mmap"}));
  fastrpc_munmap(CDSP_DOMAIN_ID, mfd, mapped, need);
  rpcmem_free(mapped);
  // One weights buffer per context; its fd then serves nothing else.
  Qnn_MemHandle_t wh = nullptr;
  ASSERT_EQ(register_external(ctx, QNN_HTP_MEM_WEIGHTS_BUFFER, fd, 0, need, &wh), QNN_SUCCESS);
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_WEIGHTS_BUFFER, fd, 4 * need, need, &h),
            QNN_MEM_ERROR_ALREADY_REGISTERED);
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, fd, 4 * need, need, &h),
            QNN_MEM_ERROR_INVALID_ARGUMENT);
  std::vector<uint32_t> dims{16};
  Qnn_MemDescriptor_t ion = QNN_MEM_DESCRIPTOR_INIT;
  ion.memShape = {1, dims.data(), nullptr};
  ion.dataType = QNN_DATATYPE_FLOAT_32;
  ion.memType = QNN_MEM_TYPE_ION;
  ion.ionInfo.fd = fd;
  EXPECT_EQ(api().memRegister(ctx, &ion, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(log.has_line_with({"cannot be used for other buffer types"}));
  // Another context may not reuse this weights buffer.
  Qnn_ContextHandle_t ctx2 = load_deferred(bin);
  EXPECT_EQ(register_external(ctx2, QNN_HTP_MEM_WEIGHTS_BUFFER, fd, 4 * need, need, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(log.has_line_with({"unique per context"}));
  // Before finalize it may be deregistered; then another may take its place.
  EXPECT_EQ(api().memDeRegister(&wh, 1), QNN_SUCCESS);
  // After finalize nothing more can be registered.
  ASSERT_EQ(api().contextFinalize(ctx, nullptr), QNN_SUCCESS);
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, fd, 0, need, &h), QNN_MEM_ERROR_NOT_SUPPORTED);
  api().contextFree(ctx2, nullptr);
  api().contextFree(ctx, nullptr);
  rpcmem_free(big);
}

// One spill-fill buffer per context, as one weights buffer: a second one was
// taken silently and only the last used (the first still held its fd).
TEST_F(ExternalBuffers, OneSpillFillBufferPerContext) {
  auto bin = make_binary();
  Qnn_ContextHandle_t ctx = load_deferred(bin);
  const uint64_t spill = property(ctx, QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE);
  void* first = rpcmem_alloc(25, 1, static_cast<int>(spill));
  void* second = rpcmem_alloc(25, 1, static_cast<int>(spill));
  Qnn_MemHandle_t h1 = nullptr, h2 = nullptr;
  ASSERT_EQ(register_external(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, rpcmem_to_fd(first), 0, spill, &h1),
            QNN_SUCCESS);
  LogCapture::instance().clear();
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, rpcmem_to_fd(second), 0, spill, &h2),
            QNN_MEM_ERROR_ALREADY_REGISTERED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"already has a", "SPILLFILL", "one per context"}));
  // Deregistered before finalize, the first makes room for another.
  ASSERT_EQ(api().memDeRegister(&h1, 1), QNN_SUCCESS);
  ASSERT_EQ(register_external(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, rpcmem_to_fd(second), 0, spill, &h2),
            QNN_SUCCESS);
  ASSERT_EQ(api().contextFinalize(ctx, nullptr), QNN_SUCCESS);
  api().contextFree(ctx, nullptr);
  rpcmem_free(first);
  rpcmem_free(second);
}

TEST_F(ExternalBuffers, IncompatibleFeaturesAreRefused) {
  auto bin = make_binary();
  QnnHtpContext_CustomConfig_t group = QNN_HTP_CONTEXT_CUSTOM_CONFIG_INIT;
  group.option = QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_MULTI_CONTEXTS;
  group.groupRegistration.firstGroupHandle = nullptr;
  group.groupRegistration.maxSpillFillBuffer = 1 << 20;
  QnnContext_Config_t custom = QNN_CONTEXT_CONFIG_INIT;
  custom.option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
  custom.customConfig = &group;
  Qnn_ContextHandle_t ctx = load_deferred(bin, &custom);
  void* p = rpcmem_alloc(25, 1, kN * 4);
  Qnn_MemHandle_t h = nullptr;
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, rpcmem_to_fd(p), 0, kN * 4, &h),
            QNN_MEM_ERROR_NOT_SUPPORTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"REGISTER_MULTI_CONTEXTS"}));
  api().contextFree(ctx, nullptr);
  rpcmem_free(p);
}

// Concurrent spill-fill + VTCM-backup sharing is the Non-RPC domain's
// (tests/qnn/nonrpc_test.cpp); over FastRPC the config itself is refused.
TEST_F(ExternalBuffers, ConcurrentResourceSharingIsRefusedInTheFastRpcDomain) {
  auto bin = make_binary();
  QnnHtpContext_CustomConfig_t sharing = QNN_HTP_CONTEXT_CUSTOM_CONFIG_INIT;
  sharing.option = QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING;
  QnnContext_Config_t custom = QNN_CONTEXT_CONFIG_INIT;
  custom.option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
  custom.customConfig = &sharing;
  QnnContext_Config_t defer = QNN_CONTEXT_CONFIG_INIT;
  defer.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  defer.isGraphInitDeferred = 1;
  const QnnContext_Config_t* cfgs[] = {&custom, &defer, nullptr};
  Qnn_ContextHandle_t ctx = nullptr;
  LogCapture::instance().clear();
  EXPECT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &ctx, nullptr),
            QNN_CONTEXT_ERROR_INVALID_CONFIG);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"REGISTER_CONCURRENT_RESOURCE_SHARING", "FastRPC domain"}));
}

TEST_F(ExternalBuffers, OverlappingExecutesSharingASpillFillBufferAreRefused) {
  auto bin = make_binary();
  // Two contexts from the same binary share one external spill-fill buffer.
  Qnn_ContextHandle_t c1 = load_deferred(bin);
  Qnn_ContextHandle_t c2 = load_deferred(bin);
  const uint64_t spill = property(c1, QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE);
  void* sbuf = rpcmem_alloc(25, 1, static_cast<int>(spill));
  Qnn_MemHandle_t h1 = nullptr, h2 = nullptr;
  ASSERT_EQ(register_external(c1, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, rpcmem_to_fd(sbuf), 0, spill, &h1), QNN_SUCCESS);
  ASSERT_EQ(register_external(c2, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, rpcmem_to_fd(sbuf), 0, spill, &h2), QNN_SUCCESS);
  ASSERT_EQ(api().contextFinalize(c1, nullptr), QNN_SUCCESS);
  ASSERT_EQ(api().contextFinalize(c2, nullptr), QNN_SUCCESS);
  std::vector<float> x(kN, 0.5f);
  const auto want = reference(x, weights_);
  // One after the other: fine.
  EXPECT_EQ(run(c1, x), want);
  EXPECT_EQ(run(c2, x), want);
  // At the same time: the later one is refused, naming the other graph; the
  // ones that ran computed correctly.
  std::atomic<int> refused{0}, wrong{0}, ready{0};
  auto worker = [&](Qnn_ContextHandle_t ctx) {
    Qnn_GraphHandle_t g = nullptr;
    api().graphRetrieve(ctx, "g", &g);
    ++ready;
    while (ready.load() < 2) std::this_thread::yield();  // start together
    for (int i = 0; i < 5000 && refused.load() == 0; ++i) {
      std::vector<float> out(kN);
      Qnn_Tensor_t in = x_, o = out_;
      in.v1.clientBuf = {x.data(), kN * 4};
      o.v1.clientBuf = {out.data(), kN * 4};
      Qnn_ErrorHandle_t e = api().graphExecute(g, &in, 1, &o, 1, nullptr, nullptr);
      if (e == QNN_COMMON_ERROR_RESOURCE_UNAVAILABLE) {
        ++refused;
      } else if (e != QNN_SUCCESS || out != want) {
        ++wrong;
      }
    }
  };
  std::thread t1(worker, c1), t2(worker, c2);
  t1.join();
  t2.join();
  EXPECT_GT(refused.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"graph 'g' is executing with the same external spill-fill buffer"}));
  api().contextFree(c1, nullptr);
  api().contextFree(c2, nullptr);
  rpcmem_free(sbuf);
}

namespace {
struct Notified {
  std::vector<std::string> graphs;
  Qnn_ContextHandle_t context = nullptr;
  Qnn_ErrorHandle_t status = 1;
  int context_inits = 0;
};
void on_notify(Qnn_ContextHandle_t ctx, Qnn_GraphHandle_t, const char* graph_name,
               QnnContext_createFromBinaryAsyncNotifyType_t type, void* param, Qnn_ErrorHandle_t status) {
  auto* n = static_cast<Notified*>(param);
  if (type == QNN_CONTEXT_NOTIFY_TYPE_GRAPH_INIT) {
    n->graphs.push_back(graph_name);
  } else {
    n->context = ctx;
    n->status = status;
    ++n->context_inits;
  }
}
}  // namespace

TEST_F(ExternalBuffers, ListAsyncCreatesContextsAndExcludesExternalBuffers) {
  auto bin = make_binary();
  Notified n1, n2;
  QnnContext_Params_t p1{}, p2{};
  p1.version = p2.version = QNN_CONTEXT_PARAMS_VERSION_1;
  QnnContext_ParamsV1_t v1a{nullptr, bin.data(), bin.size(), nullptr, on_notify, &n1};
  QnnContext_ParamsV1_t v1b{nullptr, bin.data(), bin.size(), nullptr, on_notify, &n2};
  std::memcpy(static_cast<void*>(&p1.v1), &v1a, sizeof v1a);
  std::memcpy(static_cast<void*>(&p2.v1), &v1b, sizeof v1b);
  const QnnContext_Params_t* params[] = {&p1, &p2, nullptr};
  ASSERT_EQ(api().contextCreateFromBinaryListAsync(backend_, nullptr, params, nullptr, nullptr), QNN_SUCCESS);
  for (Notified* n : {&n1, &n2}) {
    EXPECT_EQ(n->status, QNN_SUCCESS);
    EXPECT_EQ(n->context_inits, 1);
    EXPECT_EQ(n->graphs, std::vector<std::string>{"g"});
    ASSERT_NE(n->context, nullptr);
    std::vector<float> x(kN, 1.0f);
    EXPECT_EQ(run(n->context, x), reference(x, weights_));
  }
  EXPECT_NE(n1.context, n2.context);
  // A deferred context from ListAsync may not take external buffers.
  QnnContext_Config_t defer = QNN_CONTEXT_CONFIG_INIT;
  defer.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  defer.isGraphInitDeferred = 1;
  const QnnContext_Config_t* cfgs[] = {&defer, nullptr};
  Notified n3;
  QnnContext_ParamsV1_t v1c{cfgs, bin.data(), bin.size(), nullptr, on_notify, &n3};
  QnnContext_Params_t p3{};
  p3.version = QNN_CONTEXT_PARAMS_VERSION_1;
  std::memcpy(static_cast<void*>(&p3.v1), &v1c, sizeof v1c);
  const QnnContext_Params_t* one[] = {&p3, nullptr};
  ASSERT_EQ(api().contextCreateFromBinaryListAsync(backend_, nullptr, one, nullptr, nullptr), QNN_SUCCESS);
  void* sbuf = rpcmem_alloc(25, 1, kN * 4);
  Qnn_MemHandle_t h = nullptr;
  EXPECT_EQ(register_external(n3.context, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, rpcmem_to_fd(sbuf), 0, kN * 4, &h),
            QNN_MEM_ERROR_NOT_SUPPORTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"contextCreateFromBinaryListAsync"}));
  // A corrupt binary is reported through the notify function too.
  std::vector<uint8_t> junk(64, 1);
  Notified n4;
  QnnContext_ParamsV1_t v1d{nullptr, junk.data(), junk.size(), nullptr, on_notify, &n4};
  std::memcpy(static_cast<void*>(&p3.v1), &v1d, sizeof v1d);
  EXPECT_EQ(api().contextCreateFromBinaryListAsync(backend_, nullptr, one, nullptr, nullptr),
            QNN_CONTEXT_ERROR_CREATE_FROM_BINARY);
  EXPECT_EQ(n4.status, QNN_CONTEXT_ERROR_CREATE_FROM_BINARY);
  for (auto* c : {n1.context, n2.context, n3.context}) api().contextFree(c, nullptr);
  rpcmem_free(sbuf);
}

TEST_F(ExternalBuffers, SpillFillGroupsFollowTheRegistrationRules) {
  auto bin = make_binary();
  auto group_cfg = [](QnnHtpContext_CustomConfig_t* htp, QnnContext_Config_t* cfg, Qnn_ContextHandle_t first,
                      uint64_t max) {
    *htp = QNN_HTP_CONTEXT_CUSTOM_CONFIG_INIT;
    htp->option = QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_MULTI_CONTEXTS;
    htp->groupRegistration.firstGroupHandle = first;
    htp->groupRegistration.maxSpillFillBuffer = max;
    *cfg = QNN_CONTEXT_CONFIG_INIT;
    cfg->option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
    cfg->customConfig = htp;
  };
  QnnHtpContext_CustomConfig_t htp;
  QnnContext_Config_t cfg;
  const QnnContext_Config_t* cfgs[] = {&cfg, nullptr};
  Qnn_ContextHandle_t first = nullptr, second = nullptr, bad = nullptr;
  group_cfg(&htp, &cfg, nullptr, 0);  // a new group needs maxSpillFillBuffer > 0
  EXPECT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &bad, nullptr),
            QNN_CONTEXT_ERROR_INVALID_CONFIG);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"maxSpillFillBuffer > 0"}));
  group_cfg(&htp, &cfg, nullptr, kN * 4);
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &first, nullptr), QNN_SUCCESS);
  group_cfg(&htp, &cfg, reinterpret_cast<Qnn_ContextHandle_t>(0xC1000000000999), kN * 4);
  EXPECT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &bad, nullptr),
            QNN_CONTEXT_ERROR_INVALID_CONFIG);
  group_cfg(&htp, &cfg, first, 0);  // members pass the first context's handle
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &second, nullptr),
            QNN_SUCCESS);
  std::vector<float> x(kN, -0.25f);
  EXPECT_EQ(run(first, x), reference(x, weights_));
  EXPECT_EQ(run(second, x), reference(x, weights_));
  api().contextFree(second, nullptr);  // members first, as clients do
  api().contextFree(first, nullptr);
}

TEST_F(ExternalBuffers, SecurePdDeviceExcludesExternalBuffers) {
  auto bin = make_binary();
  QnnHtpDevice_CustomConfig_t secure{};
  secure.option = QNN_HTP_DEVICE_CONFIG_OPTION_SECUREPD;
  secure.useSecureProcessDomain.useSecureProcessDomain = true;
  QnnDevice_Config_t dcfg = QNN_DEVICE_CONFIG_INIT;
  dcfg.option = QNN_DEVICE_CONFIG_OPTION_CUSTOM;
  dcfg.customConfig = &secure;
  const QnnDevice_Config_t* dcfgs[] = {&dcfg, nullptr};
  Qnn_DeviceHandle_t dev = nullptr;
  ASSERT_EQ(api().deviceCreate(log_, dcfgs, &dev), QNN_SUCCESS);
  QnnContext_Config_t defer = QNN_CONTEXT_CONFIG_INIT;
  defer.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  defer.isGraphInitDeferred = 1;
  const QnnContext_Config_t* cfgs[] = {&defer, nullptr};
  Qnn_ContextHandle_t ctx = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, dev, cfgs, bin.data(), bin.size(), &ctx, nullptr), QNN_SUCCESS);
  void* w = rpcmem_alloc(25, 1, kN * 4);
  Qnn_MemHandle_t h = nullptr;
  EXPECT_EQ(register_external(ctx, QNN_HTP_MEM_WEIGHTS_BUFFER, rpcmem_to_fd(w), 0, kN * 4, &h),
            QNN_MEM_ERROR_NOT_SUPPORTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"secure PD"}));
  api().contextFree(ctx, nullptr);
  api().deviceFree(dev);
  rpcmem_free(w);
}

namespace {
std::string write_temp(const std::string& text) {
  char path[] = "/tmp/openhtp-ext-json-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  return path;
}
}  // namespace

TEST_F(ExternalBuffers, BackendExtensionFileProvidesBuffersAndVtcmSize) {
  auto bin = make_binary();
  const std::string json = write_temp(R"({
    "graphs": [{"graph_names": ["chain"], "vtcm_mb": 1}],
    "context_configs": {"spill_fill_buffer": -1, "weights_buffer": 1048576}
  })");
  const std::string opt = "backend_extensions=" + json;
  QnnBackend_Config_t platform = QNN_BACKEND_CONFIG_INIT;
  platform.option = QNN_BACKEND_CONFIG_OPTION_PLATFORM;
  platform.platformOption = opt.c_str();
  const QnnBackend_Config_t* bcfgs[] = {&platform, nullptr};
  Qnn_BackendHandle_t backend = nullptr;
  ASSERT_EQ(api().backendCreate(log_, bcfgs, &backend), QNN_SUCCESS);
  // Loaded without DEFER_GRAPH_INIT: the runtime allocates and registers the
  // buffers itself (-1: the size QNN reports; N: exactly N) and finalizes.
  Qnn_ContextHandle_t ctx = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend, nullptr, nullptr, bin.data(), bin.size(), &ctx, nullptr), QNN_SUCCESS);
  uint64_t w = 0, sf = 0;
  ASSERT_EQ(OpenHtp_getRuntimeProvidedBuffers(ctx, &w, &sf), QNN_SUCCESS);
  EXPECT_EQ(w, 1048576u);
  EXPECT_EQ(sf, kN * 4u);
  std::vector<float> x(kN, 0.75f);
  EXPECT_EQ(run(ctx, x), reference(x, weights_));
  api().contextFree(ctx, nullptr);
  // vtcm_mb applies to graphs it names: two live 1 MiB intermediates spill at 1 MB.
  Qnn_ContextHandle_t online = nullptr;
  ASSERT_EQ(api().contextCreate(backend, nullptr, nullptr, &online), QNN_SUCCESS);
  Qnn_GraphHandle_t g = nullptr;
  ASSERT_EQ(api().graphCreate(online, "chain", nullptr, &g), QNN_SUCCESS);
  std::vector<uint32_t> dims{1, 1 << 18};  // 1 MiB of float
  Qnn_Tensor_t in = make_tensor("in", QNN_TENSOR_TYPE_APP_WRITE, dims);
  Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_NATIVE, dims);
  Qnn_Tensor_t b = make_tensor("b", QNN_TENSOR_TYPE_NATIVE, dims);
  Qnn_Tensor_t out = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, dims);
  for (Qnn_Tensor_t* t : {&in, &a, &b, &out}) ASSERT_EQ(api().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
  auto node = [&](const char* name, const char* type, Qnn_Tensor_t* ins, uint32_t n, Qnn_Tensor_t* o) {
    EXPECT_EQ(add_node(g, name, type, ins, n, o), QNN_SUCCESS);
  };
  node("r1", QNN_OP_RELU, &in, 1, &a);
  node("r2", QNN_OP_RELU, &a, 1, &b);
  Qnn_Tensor_t ab[] = {a, b};
  node("add", QNN_OP_ELEMENT_WISE_ADD, ab, 2, &out);
  ASSERT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_EQ(property(online, QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE), 1u << 20);
  api().contextFree(online, nullptr);
  api().backendFree(backend);
  // A broken file is refused at backendCreate, naming the problem.
  const std::string bad = write_temp(R"({"context_configs": {"weights_buffer": -7}})");
  const std::string bad_opt = "backend_extensions=" + bad;
  platform.platformOption = bad_opt.c_str();
  EXPECT_EQ(api().backendCreate(log_, bcfgs, &backend), QNN_BACKEND_ERROR_INVALID_CONFIG);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"weights_buffer must be -1, 0 or a positive byte count"}));
  unlink(json.c_str());
  unlink(bad.c_str());
}
