// The Non-RPC domain (tutorial: "Non-RPC Use Case"): this test program links
// the DSP heap, so libQnnHtp finds itself "on the DSP" — the HTP runtime runs
// in this process and buffers are named by QURT address. The tutorial's flow
// works (two contexts sharing one spill-fill and one VTCM-backup buffer,
// executed from several threads), and every rule is tested by breaking it.
//
// malloc is not interposed here (the sanitizer builds run this too): the
// buffers QNN is given come from the DSP heap's own API, which is what the
// program's malloc is under openhtp-dsp-run (tests/dsp_heap covers that).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <thread>

#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpDevice.h"
#include "HTP/QnnHtpGraph.h"
#include "dsp_heap/dsp_heap.h"
#include "openhtp/fastrpc_ext.h"
#include "openhtp/qnn_ext.h"
#include "qnn_test_util.h"
#include "spill_graph.h"

using namespace qnntest;

namespace {


QnnHtpMem_QurtAddress_t qurt(const void* p) {
  return static_cast<QnnHtpMem_QurtAddress_t>(reinterpret_cast<uintptr_t>(p));
}

// Every line the backend logs, at every level.
struct AllLines {
  static std::vector<std::string>& lines() {
    static std::vector<std::string> v;
    return v;
  }
  static std::mutex& mu() {
    static std::mutex m;
    return m;
  }
  static void callback(const char* fmt, QnnLog_Level_t, uint64_t, va_list args) {
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, args);
    std::lock_guard l(mu());
    lines().push_back(buf);
  }
  static bool has(std::initializer_list<std::string> needles) {
    std::lock_guard l(mu());
    for (const auto& line : lines()) {
      bool all = true;
      for (const auto& n : needles) all &= line.find(n) != std::string::npos;
      if (all) return true;
    }
    return false;
  }
};

// A block of the DSP heap, freed at scope exit.
struct HeapBuffer {
  explicit HeapBuffer(size_t n) : p(static_cast<uint8_t*>(openhtp_dsp_heap_alloc(n, 0))), size(n) {}
  ~HeapBuffer() {
    if (p != nullptr) openhtp_dsp_heap_free(p);
  }
  HeapBuffer(const HeapBuffer&) = delete;
  HeapBuffer& operator=(const HeapBuffer&) = delete;
  uint8_t* p;
  size_t size;
};

class NonRpc : public SpillGraphFixture {
 protected:
  // The tutorial's step 1 configs; `sharing` false leaves out
  // REGISTER_CONCURRENT_RESOURCE_SHARING, `defer` false DEFER_GRAPH_INIT,
  // `extra` is appended.
  struct Configs {
    QnnHtpContext_CustomConfig_t htp{};
    QnnContext_Config_t custom = QNN_CONTEXT_CONFIG_INIT;
    QnnContext_Config_t defer = QNN_CONTEXT_CONFIG_INIT;
    QnnContext_Config_t priority = QNN_CONTEXT_CONFIG_INIT;
    const QnnContext_Config_t* list[5] = {};
    Configs(bool sharing, bool defer_init, uint32_t prio, const QnnContext_Config_t* extra = nullptr) {
      htp.option = QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING;
      htp.concurrentGroupRegistration.firstGroupHandle = nullptr;  // not needed with deferred init
      htp.concurrentGroupRegistration.maxSpillFillBuffer = 0;
      custom.option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
      custom.customConfig = &htp;
      defer.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
      defer.isGraphInitDeferred = 1;
      priority.option = QNN_CONTEXT_CONFIG_OPTION_PRIORITY;
      priority.priority = static_cast<Qnn_Priority_t>(prio);
      int n = 0;
      if (sharing) list[n++] = &custom;
      if (defer_init) list[n++] = &defer;
      list[n++] = &priority;
      if (extra != nullptr) list[n++] = extra;
      list[n] = nullptr;
    }
  };

  Qnn_ErrorHandle_t load(const std::vector<uint8_t>& bin, const Configs& c, Qnn_ContextHandle_t* ctx) {
    return api().contextCreateFromBinary(backend_, nullptr, const_cast<const QnnContext_Config_t**>(c.list), bin.data(),
                                         bin.size(), ctx, nullptr);
  }

  uint64_t property(Qnn_ContextHandle_t ctx, QnnHtpContext_GetPropertyOption_t option) {
    QnnHtpContext_CustomProperty_t p = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
    p.option = option;
    QnnContext_Property_t prop = QNN_CONTEXT_PROPERTY_INIT;
    prop.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
    prop.customProperty = &p;
    QnnContext_Property_t* props[] = {&prop, nullptr};
    EXPECT_EQ(api().contextGetProperty(ctx, props), QNN_SUCCESS);
    return p.vtcmBackupBufferSize;  // all union members are one uint64_t
  }

  static Qnn_MemDescriptor_t qurt_descriptor(QnnMemHtp_Descriptor_t* htp, QnnHtpMem_Type_t type, const void* p,
                                             uint64_t size) {
    *htp = QnnMemHtp_Descriptor_t{};
    htp->type = type;
    htp->size = size;
    if (type == QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER) htp->sharedSpillfillBufferQurtAddress = qurt(p);
    if (type == QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER) htp->sharedVTCMBackupBufferQurtAddress = qurt(p);
    if (type == QNN_HTP_MEM_QURT) htp->qurtAddress = qurt(p);
    static uint32_t dims = 1;
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    d.memShape = {1, &dims, nullptr};
    d.dataType = QNN_DATATYPE_UINT_8;
    d.memType = QNN_MEM_TYPE_CUSTOM;
    d.customInfo = htp;
    return d;
  }

  Qnn_ErrorHandle_t register_one(Qnn_ContextHandle_t ctx, QnnHtpMem_Type_t type, const void* p, uint64_t size,
                                 Qnn_MemHandle_t* h = nullptr) {
    QnnMemHtp_Descriptor_t htp;
    Qnn_MemDescriptor_t d = qurt_descriptor(&htp, type, p, size);
    Qnn_MemHandle_t local = nullptr;
    return api().memRegister(ctx, &d, 1, h != nullptr ? h : &local);
  }

  // Step 4 for one context: both buffers in one memRegister call.
  Qnn_ErrorHandle_t register_both(Qnn_ContextHandle_t ctx, const HeapBuffer& spill, const HeapBuffer& backup) {
    QnnMemHtp_Descriptor_t hs, hv;
    Qnn_MemDescriptor_t d[2] = {qurt_descriptor(&hs, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, spill.p, spill.size),
                                qurt_descriptor(&hv, QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER, backup.p, backup.size)};
    Qnn_MemHandle_t h[2] = {nullptr, nullptr};
    return api().memRegister(ctx, d, 2, h);
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

  std::vector<float> reference(const std::vector<float>& x) const { return SpillGraphFixture::reference(x, weights_); }

  static std::vector<float> input(uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    std::vector<float> x(kN);
    for (float& v : x) v = u(rng);
    return x;
  }

};

TEST_F(NonRpc, TheBackendSaysWhichDomainItIsIn) {
  Qnn_LogHandle_t log = nullptr;
  Qnn_BackendHandle_t b = nullptr;
  ASSERT_EQ(api().logCreate(AllLines::callback, QNN_LOG_LEVEL_INFO, &log), QNN_SUCCESS);
  ASSERT_EQ(api().backendCreate(log, nullptr, &b), QNN_SUCCESS);
  EXPECT_TRUE(AllLines::has({"backend created", "Non-RPC domain"}));
  api().backendFree(b);
  api().logFree(log);
}

TEST_F(NonRpc, TheSupportTableRefusesFastRpcBufferTypes) {
  HeapBuffer buf(4096);
  for (QnnHtpMem_Type_t t : {QNN_HTP_MEM_SHARED_BUFFER, QNN_HTP_MEM_WEIGHTS_BUFFER}) {
    LogCapture::instance().clear();
    EXPECT_EQ(register_one(context_, t, buf.p, buf.size), QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE);
    const std::string name = t == QNN_HTP_MEM_SHARED_BUFFER ? "QNN_HTP_MEM_SHARED_BUFFER" : "QNN_HTP_MEM_WEIGHTS_BUFFER";
    EXPECT_TRUE(LogCapture::instance().has_line_with({name, "not supported in the Non-RPC domain"})) << name;
  }
  for (Qnn_MemType_t t : {QNN_MEM_TYPE_ION, QNN_MEM_TYPE_DMA_BUF}) {
    LogCapture::instance().clear();
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    uint32_t dims = 16;
    d.memShape = {1, &dims, nullptr};
    d.dataType = QNN_DATATYPE_UINT_8;
    d.memType = t;
    d.ionInfo.fd = 0;
    Qnn_MemHandle_t h = nullptr;
    EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"not supported in the Non-RPC domain"}));
  }
}

TEST_F(NonRpc, AQurtAddressMustLieInsideOneLiveHeapBlock) {
  build_add_relu(64);
  const uint64_t bytes = 64 * 4;
  {
    HeapBuffer ok(bytes);
    Qnn_MemHandle_t h = nullptr;
    ASSERT_EQ(register_one(context_, QNN_HTP_MEM_QURT, ok.p, bytes, &h), QNN_SUCCESS);
    EXPECT_EQ(api().memDeRegister(&h, 1), QNN_SUCCESS);
  }
  // A wild address: not in the heap at all.
  LogCapture::instance().clear();
  EXPECT_EQ(register_one(context_, QNN_HTP_MEM_QURT, reinterpret_cast<void*>(0x1000), bytes),
            QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"0x00001000", "256 bytes", "no DSP heap memory"}));
  // A block smaller than the size claimed.
  HeapBuffer small(bytes / 2);
  LogCapture::instance().clear();
  EXPECT_EQ(register_one(context_, QNN_HTP_MEM_QURT, small.p, bytes), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"ends before the range does"}));
  // A freed block.
  void* gone = openhtp_dsp_heap_alloc(bytes, 0);
  openhtp_dsp_heap_free(gone);
  LogCapture::instance().clear();
  EXPECT_EQ(register_one(context_, QNN_HTP_MEM_QURT, gone, bytes), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"not inside one live DSP heap allocation"}));
  // An interior address of a live block is fine.
  HeapBuffer big(bytes * 4);
  Qnn_MemHandle_t h = nullptr;
  EXPECT_EQ(register_one(context_, QNN_HTP_MEM_QURT, big.p + bytes, bytes, &h), QNN_SUCCESS);
  EXPECT_EQ(api().memDeRegister(&h, 1), QNN_SUCCESS);
}

TEST_F(NonRpc, ClientBuffersAndQurtTensorsAreUsedInPlace) {
  build_add_relu(64);
  std::vector<float> a(64), b(64), out(64, -1.0f);
  for (int i = 0; i < 64; ++i) {
    a[i] = static_cast<float>(i) - 30.0f;
    b[i] = 0.5f;
  }
  Qnn_Tensor_t in[2] = {a_, b_};
  Qnn_Tensor_t o = out_;
  in[0].v1.clientBuf = {a.data(), 256};
  in[1].v1.clientBuf = {b.data(), 256};
  o.v1.clientBuf = {out.data(), 256};
  ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], std::max(a[i] + b[i], 0.0f));
  OpenHtp_ExecuteStats_t st{};
  ASSERT_EQ(OpenHtp_getLastExecuteStats(graph_, &st), QNN_SUCCESS);
  EXPECT_EQ(st.bytesCopiedIn, 0u);
  EXPECT_EQ(st.bytesCopiedOut, 0u);
  EXPECT_EQ(st.bytesByReference, 3u * 256u);

  // The output as QURT tensor memory: the runtime writes the heap block.
  HeapBuffer obuf(256);
  std::memset(obuf.p, 0xff, 256);
  Qnn_MemHandle_t h = nullptr;
  ASSERT_EQ(register_one(context_, QNN_HTP_MEM_QURT, obuf.p, 256, &h), QNN_SUCCESS);
  o.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
  o.v1.memHandle = h;
  ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
  const auto* got = reinterpret_cast<const float*>(obuf.p);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(got[i], std::max(a[i] + b[i], 0.0f));
  EXPECT_EQ(api().memDeRegister(&h, 1), QNN_SUCCESS);
  // All of it ran in this process: no FastRPC session, no DSP process.
  EXPECT_LE(openhtp_fastrpc_dsp_pid(), 0);
}

// The tutorial's five steps, two contexts from one binary sharing one
// spill-fill and one VTCM-backup buffer, executed from two threads.
TEST_F(NonRpc, TutorialFlowTwoContextsShareBothBuffers) {
  const auto bin = make_binary();
  Configs c(true, true, QNN_PRIORITY_DEFAULT);
  Qnn_ContextHandle_t ctx[2] = {nullptr, nullptr};
  for (auto& x : ctx) ASSERT_EQ(load(bin, c, &x), QNN_SUCCESS);
  const uint64_t spill = property(ctx[0], QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE);
  const uint64_t vtcm = property(ctx[0], QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE);
  EXPECT_EQ(spill, kN * 4u);  // b spills
  EXPECT_GT(vtcm, 0u);        // a and out live in VTCM
  EXPECT_LE(vtcm, kN * 4u);   // within the graph's VTCM budget
  HeapBuffer sbuf(spill), vbuf(vtcm);
  std::memset(sbuf.p, 0xEE, spill);
  for (auto x : ctx) ASSERT_EQ(register_both(x, sbuf, vbuf), QNN_SUCCESS);
  openhtp_dsp_heap_stats_t hs{};
  openhtp_dsp_heap_stats(&hs);
  EXPECT_GE(hs.pins, 4u);  // each buffer pinned by each context
  for (auto x : ctx) ASSERT_EQ(api().contextFinalize(x, nullptr), QNN_SUCCESS);

  std::vector<std::vector<float>> got(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const auto x = input(static_cast<uint32_t>(t * 1000 + i));
        if (run(ctx[t], x) != reference(x)) got[t] = {1.0f};  // a mismatch
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(got[0].empty() && got[1].empty());
  // The spilled activation went through the shared buffer.
  int touched = 0;
  for (uint64_t i = 0; i < spill; ++i) touched += sbuf.p[i] != 0xEE;
  EXPECT_GT(touched, 0);
  // contextFree deregisters both buffers: nothing stays pinned.
  for (auto x : ctx) ASSERT_EQ(api().contextFree(x, nullptr), QNN_SUCCESS);
  openhtp_dsp_heap_stats(&hs);
  EXPECT_EQ(hs.pins, 0u);
}

TEST_F(NonRpc, ConcurrentSharingConfigRulesAreEnforced) {
  const auto bin = make_binary();
  Qnn_ContextHandle_t ctx = nullptr;
  // Not with an online context.
  {
    Configs c(true, false, QNN_PRIORITY_DEFAULT);
    Qnn_ContextHandle_t online = nullptr;
    LogCapture::instance().clear();
    EXPECT_EQ(api().contextCreate(backend_, nullptr, c.list, &online), QNN_CONTEXT_ERROR_INVALID_CONFIG);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"only supported with contextCreateFromBinary"}));
  }
  // DEFER_GRAPH_INIT is required.
  {
    Configs c(true, false, QNN_PRIORITY_DEFAULT);
    LogCapture::instance().clear();
    EXPECT_EQ(load(bin, c, &ctx), QNN_CONTEXT_ERROR_INVALID_CONFIG);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"needs QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT"}));
  }
  // Not with REGISTER_MULTI_CONTEXTS, udma64 or graph switching.
  {
    QnnHtpContext_CustomConfig_t multi{};
    multi.option = QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_MULTI_CONTEXTS;
    multi.groupRegistration.maxSpillFillBuffer = 1 << 20;
    QnnContext_Config_t mc = QNN_CONTEXT_CONFIG_INIT;
    mc.option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
    mc.customConfig = &multi;
    Configs c(true, true, QNN_PRIORITY_DEFAULT, &mc);
    LogCapture::instance().clear();
    EXPECT_EQ(load(bin, c, &ctx), QNN_CONTEXT_ERROR_INVALID_CONFIG);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"REGISTER_MULTI_CONTEXTS"}));

    QnnHtpContext_CustomConfig_t udma{};
    udma.option = QNN_HTP_CONTEXT_CONFIG_OPTION_USE_EXTENDED_UDMA;
    udma.useExtendedUdma = true;
    mc.customConfig = &udma;
    LogCapture::instance().clear();
    EXPECT_EQ(load(bin, c, &ctx), QNN_CONTEXT_ERROR_INVALID_CONFIG);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"udma64"}));

    // Graph switching: a persistent binary with a memory-limit hint.
    QnnContext_Config_t persistent = QNN_CONTEXT_CONFIG_INIT, limit = QNN_CONTEXT_CONFIG_INIT;
    persistent.option = QNN_CONTEXT_CONFIG_PERSISTENT_BINARY;
    persistent.isPersistentBinary = 1;
    limit.option = QNN_CONTEXT_CONFIG_MEMORY_LIMIT_HINT;
    limit.memoryLimitHint = 1 << 20;
    Configs gs(true, true, QNN_PRIORITY_DEFAULT);  // sharing, defer, priority
    const QnnContext_Config_t* switching[] = {gs.list[0], gs.list[1], gs.list[2], &persistent, &limit, nullptr};
    LogCapture::instance().clear();
    EXPECT_EQ(api().contextCreateFromBinary(backend_, nullptr, switching, bin.data(), bin.size(), &ctx, nullptr),
              QNN_CONTEXT_ERROR_INVALID_CONFIG);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"graph switching"}));
  }
  // Not on a secure PD device.
  {
    QnnHtpDevice_CustomConfig_t secure{};
    secure.option = QNN_HTP_DEVICE_CONFIG_OPTION_SECUREPD;
    secure.useSecureProcessDomain.useSecureProcessDomain = true;
    QnnDevice_Config_t dcfg = QNN_DEVICE_CONFIG_INIT;
    dcfg.option = QNN_DEVICE_CONFIG_OPTION_CUSTOM;
    dcfg.customConfig = &secure;
    const QnnDevice_Config_t* dcfgs[] = {&dcfg, nullptr};
    Qnn_DeviceHandle_t dev = nullptr;
    ASSERT_EQ(api().deviceCreate(log_, dcfgs, &dev), QNN_SUCCESS);
    Configs c(true, true, QNN_PRIORITY_DEFAULT);
    LogCapture::instance().clear();
    EXPECT_EQ(api().contextCreateFromBinary(backend_, dev, const_cast<const QnnContext_Config_t**>(c.list), bin.data(),
                                            bin.size(), &ctx, nullptr),
              QNN_CONTEXT_ERROR_INVALID_CONFIG);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"secure PD"}));
    api().deviceFree(dev);
  }
  // Not with contextCreateFromBinaryListAsync.
  {
    Configs c(true, true, QNN_PRIORITY_DEFAULT);
    static Qnn_ErrorHandle_t notified;
    notified = QNN_SUCCESS;
    auto on_notify = [](Qnn_ContextHandle_t, Qnn_GraphHandle_t, const char*,
                        QnnContext_createFromBinaryAsyncNotifyType_t, void*, Qnn_ErrorHandle_t status) {
      if (status != QNN_SUCCESS) notified = status;
    };
    QnnContext_ParamsV1_t v1{const_cast<const QnnContext_Config_t**>(c.list), bin.data(), bin.size(), nullptr,
                             on_notify, nullptr};
    QnnContext_Params_t p{};
    p.version = QNN_CONTEXT_PARAMS_VERSION_1;
    std::memcpy(static_cast<void*>(&p.v1), &v1, sizeof v1);
    const QnnContext_Params_t* list[] = {&p, nullptr};
    LogCapture::instance().clear();
    EXPECT_EQ(api().contextCreateFromBinaryListAsync(backend_, nullptr, list, nullptr, nullptr),
              QNN_CONTEXT_ERROR_INVALID_CONFIG);
    EXPECT_EQ(notified, QNN_CONTEXT_ERROR_INVALID_CONFIG);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"contextCreateFromBinaryListAsync"}));
  }
}

TEST_F(NonRpc, FinalizeNeedsBothBuffersOfTheRequiredSizes) {
  const auto bin = make_binary();
  Configs c(true, true, QNN_PRIORITY_DEFAULT);
  Qnn_ContextHandle_t ctx = nullptr;
  ASSERT_EQ(load(bin, c, &ctx), QNN_SUCCESS);
  const uint64_t spill = property(ctx, QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE);
  const uint64_t vtcm = property(ctx, QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE);
  HeapBuffer sbuf(spill), vbuf(vtcm), tiny(64);
  // Neither registered: finalize names the spill-fill buffer.
  LogCapture::instance().clear();
  EXPECT_EQ(api().contextFinalize(ctx, nullptr), QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"has no QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER registered"}));
  // Too small, each.
  LogCapture::instance().clear();
  EXPECT_EQ(register_one(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, tiny.p, 64), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"below the context's MAX_SPILLFILL_BUFFER_SIZE"}));
  LogCapture::instance().clear();
  EXPECT_EQ(register_one(ctx, QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER, tiny.p, 1), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"below the context's MAX_VTCMBACKUP_BUFFER_SIZE"}));
  // One buffer cannot be both: not at the same address, nor overlapping.
  Qnn_MemHandle_t sh = nullptr, vh = nullptr;
  ASSERT_EQ(register_one(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, sbuf.p, spill, &sh), QNN_SUCCESS);
  LogCapture::instance().clear();
  EXPECT_EQ(register_one(ctx, QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER, sbuf.p, vtcm), QNN_MEM_ERROR_ALREADY_REGISTERED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER", "serves one role"}));
  HeapBuffer both(spill + vtcm);
  Qnn_MemHandle_t bh = nullptr;
  ASSERT_EQ(register_one(ctx, QNN_HTP_MEM_QURT, both.p, spill, &bh), QNN_SUCCESS);  // tensor memory here
  LogCapture::instance().clear();
  EXPECT_EQ(register_one(ctx, QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER, both.p + 64, vtcm), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"overlaps this context's", "a buffer serves one role"}));
  EXPECT_EQ(api().memDeRegister(&bh, 1), QNN_SUCCESS);
  // One of each per context.
  EXPECT_EQ(register_one(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, vbuf.p, vtcm), QNN_MEM_ERROR_ALREADY_REGISTERED);
  // Only the VTCM-backup buffer missing now.
  LogCapture::instance().clear();
  EXPECT_EQ(api().contextFinalize(ctx, nullptr), QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"has no QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER registered"}));
  ASSERT_EQ(register_one(ctx, QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER, vbuf.p, vtcm, &vh), QNN_SUCCESS);
  ASSERT_EQ(api().contextFinalize(ctx, nullptr), QNN_SUCCESS);
  // In use since finalize: no deregistration; contextFree releases them.
  LogCapture::instance().clear();
  EXPECT_EQ(api().memDeRegister(&vh, 1), QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER", "in use since"}));
  // Not after finalize either: a new registration.
  EXPECT_EQ(register_one(ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, tiny.p, 64), QNN_MEM_ERROR_NOT_SUPPORTED);
  const auto x = input(7);
  EXPECT_EQ(run(ctx, x), reference(x));
  ASSERT_EQ(api().contextFree(ctx, nullptr), QNN_SUCCESS);
  EXPECT_EQ(api().memDeRegister(&sh, 1), QNN_MEM_ERROR_INVALID_HANDLE);
}

TEST_F(NonRpc, SharingNeedsTheConfigAndOnePriority) {
  const auto bin = make_binary();
  Configs normal(true, true, QNN_PRIORITY_NORMAL), high(true, true, QNN_PRIORITY_HIGH),
      plain(false, true, QNN_PRIORITY_NORMAL);
  Qnn_ContextHandle_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  ASSERT_EQ(load(bin, normal, &a), QNN_SUCCESS);
  ASSERT_EQ(load(bin, high, &b), QNN_SUCCESS);
  ASSERT_EQ(load(bin, plain, &c), QNN_SUCCESS);
  ASSERT_EQ(load(bin, normal, &d), QNN_SUCCESS);
  const uint64_t spill = property(a, QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE);
  const uint64_t vtcm = property(a, QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE);
  HeapBuffer sbuf(spill), vbuf(vtcm);
  ASSERT_EQ(register_both(a, sbuf, vbuf), QNN_SUCCESS);
  // Another priority: refused, naming both.
  LogCapture::instance().clear();
  EXPECT_EQ(register_both(b, sbuf, vbuf), QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"priority 100", "priority 200", "same priority"}));
  // A context without REGISTER_CONCURRENT_RESOURCE_SHARING cannot join.
  LogCapture::instance().clear();
  EXPECT_EQ(register_both(c, sbuf, vbuf), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"REGISTER_CONCURRENT_RESOURCE_SHARING", "this context"}));
  // The same priority joins; a later priority change of a member is refused.
  ASSERT_EQ(register_both(d, sbuf, vbuf), QNN_SUCCESS);
  QnnContext_Config_t p = QNN_CONTEXT_CONFIG_INIT;
  p.option = QNN_CONTEXT_CONFIG_OPTION_PRIORITY;
  p.priority = QNN_PRIORITY_HIGH;
  const QnnContext_Config_t* pl[] = {&p, nullptr};
  LogCapture::instance().clear();
  EXPECT_EQ(api().contextSetConfig(d, pl), QNN_CONTEXT_ERROR_INVALID_CONFIG);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"would split the group"}));
  p.priority = QNN_PRIORITY_NORMAL;
  EXPECT_EQ(api().contextSetConfig(d, pl), QNN_SUCCESS);  // unchanged: fine
  for (auto x : {a, b, c, d}) ASSERT_EQ(api().contextFree(x, nullptr), QNN_SUCCESS);
}

TEST_F(NonRpc, FreeingARegisteredBlockIsReportedAndDeferred) {
  const auto bin = make_binary();
  Configs c(true, true, QNN_PRIORITY_DEFAULT);
  Qnn_ContextHandle_t ctx = nullptr;
  ASSERT_EQ(load(bin, c, &ctx), QNN_SUCCESS);
  const uint64_t spill = property(ctx, QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE);
  const uint64_t vtcm = property(ctx, QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE);
  auto* s = static_cast<uint8_t*>(openhtp_dsp_heap_alloc(spill, 0));
  HeapBuffer vbuf(vtcm);
  QnnMemHtp_Descriptor_t hs, hv;
  Qnn_MemDescriptor_t d[2] = {qurt_descriptor(&hs, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, s, spill),
                              qurt_descriptor(&hv, QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER, vbuf.p, vtcm)};
  Qnn_MemHandle_t h[2] = {nullptr, nullptr};
  ASSERT_EQ(api().memRegister(ctx, d, 2, h), QNN_SUCCESS);
  ASSERT_EQ(api().contextFinalize(ctx, nullptr), QNN_SUCCESS);
  // The program frees the spill-fill buffer while QNN holds it: one error line
  // naming the context and the type, and the block stays usable.
  LogCapture::instance().clear();
  openhtp_dsp_heap_free(s);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER", "context 0x"}));
  openhtp_dsp_heap_block_t blk{};
  EXPECT_EQ(openhtp_dsp_heap_lookup(reinterpret_cast<uintptr_t>(s), spill, &blk), OPENHTP_DSP_HEAP_FREED_PENDING);
  for (uint32_t i = 0; i < 5; ++i) {
    const auto x = input(100 + i);
    EXPECT_EQ(run(ctx, x), reference(x));
  }
  // QNN lets it go at contextFree: now it is really free.
  ASSERT_EQ(api().contextFree(ctx, nullptr), QNN_SUCCESS);
  EXPECT_NE(openhtp_dsp_heap_lookup(reinterpret_cast<uintptr_t>(s), spill, &blk), OPENHTP_DSP_HEAP_FREED_PENDING);
  EXPECT_NE(openhtp_dsp_heap_lookup(reinterpret_cast<uintptr_t>(s), spill, &blk), OPENHTP_DSP_HEAP_LIVE);
}

// 4 contexts × 4 threads × 1,000 executes of a graph that really spills,
// all sharing one spill-fill and one VTCM-backup buffer: every output is
// compared bit for bit with a sequential run of the same inputs.
TEST_F(NonRpc, ManyThreadsOnSharedBuffersMatchASequentialRun) {
  constexpr int kContexts = 4, kThreads = 4, kExecutes = 1000, kInputs = 16;
  const auto bin = make_binary();
  Configs c(true, true, QNN_PRIORITY_DEFAULT);
  std::vector<Qnn_ContextHandle_t> ctx(kContexts, nullptr);
  for (auto& x : ctx) ASSERT_EQ(load(bin, c, &x), QNN_SUCCESS);
  const uint64_t spill = property(ctx[0], QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE);
  const uint64_t vtcm = property(ctx[0], QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE);
  ASSERT_GT(spill, 0u);
  HeapBuffer sbuf(spill), vbuf(vtcm);
  for (auto x : ctx) ASSERT_EQ(register_both(x, sbuf, vbuf), QNN_SUCCESS);
  for (auto x : ctx) ASSERT_EQ(api().contextFinalize(x, nullptr), QNN_SUCCESS);
  std::vector<std::vector<float>> inputs, sequential;
  for (int i = 0; i < kInputs; ++i) {
    inputs.push_back(input(static_cast<uint32_t>(i)));
    sequential.push_back(run(ctx[static_cast<size_t>(i % kContexts)], inputs.back()));
    ASSERT_EQ(sequential.back(), reference(inputs.back()));  // the sequential run itself is right
  }
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int ci = 0; ci < kContexts; ++ci) {
    Qnn_GraphHandle_t g = nullptr;
    ASSERT_EQ(api().graphRetrieve(ctx[static_cast<size_t>(ci)], "g", &g), QNN_SUCCESS);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, g, ci, t] {
        std::vector<float> out(kN);
        for (int i = 0; i < kExecutes; ++i) {
          const int k = (ci * 7 + t * 3 + i) % kInputs;
          Qnn_Tensor_t in = x_, o = out_;
          in.v1.clientBuf = {const_cast<float*>(inputs[static_cast<size_t>(k)].data()), kN * 4};
          o.v1.clientBuf = {out.data(), kN * 4};
          if (api().graphExecute(g, &in, 1, &o, 1, nullptr, nullptr) != QNN_SUCCESS) {
            failures.fetch_add(1);
            continue;
          }
          if (std::memcmp(out.data(), sequential[static_cast<size_t>(k)].data(), kN * 4) != 0) mismatches.fetch_add(1);
        }
      });
    }
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  for (auto x : ctx) ASSERT_EQ(api().contextFree(x, nullptr), QNN_SUCCESS);
}

}  // namespace
