// Context binaries: online graph -> binary -> load (with and without
// DEFER_GRAPH_INIT) -> the same outputs; broken binaries get the right code.
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <random>

#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpGraph.h"
#include "qnn_test_util.h"

using namespace qnntest;

namespace {

class ContextBinary : public QnnFixture {
 protected:
  std::vector<uint8_t> binary_of_add_relu(uint32_t n) {
    build_add_relu(n, "add_relu");
    Qnn_ContextBinarySize_t size = 0;
    EXPECT_EQ(api().contextGetBinarySize(context_, &size), QNN_SUCCESS);
    std::vector<uint8_t> bin(size);
    Qnn_ContextBinarySize_t written = 0;
    EXPECT_EQ(api().contextGetBinary(context_, bin.data(), bin.size(), &written), QNN_SUCCESS);
    EXPECT_EQ(written, size);
    return bin;
  }
  // Executes graph `g` of `ctx` (retrieved by name) on a/b; returns out.
  std::vector<float> run(Qnn_ContextHandle_t ctx, const std::vector<float>& a, const std::vector<float>& b) {
    Qnn_GraphHandle_t g = nullptr;
    EXPECT_EQ(api().graphRetrieve(ctx, "add_relu", &g), QNN_SUCCESS);
    const uint32_t n = static_cast<uint32_t>(a.size());
    std::vector<float> out(n, -7.0f);
    Qnn_Tensor_t in[] = {a_, b_};
    in[0].v1.clientBuf = {const_cast<float*>(a.data()), n * 4};
    in[1].v1.clientBuf = {const_cast<float*>(b.data()), n * 4};
    Qnn_Tensor_t o = out_;
    o.v1.clientBuf = {out.data(), n * 4};
    EXPECT_EQ(api().graphExecute(g, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
    return out;
  }
};

std::vector<float> random_vec(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-2, 2);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace

TEST_F(ContextBinary, RoundTripGivesTheSameOutputs) {
  const uint32_t n = 257;
  auto bin = binary_of_add_relu(n);
  auto a = random_vec(n, 1), b = random_vec(n, 2);
  const auto online = run(context_, a, b);
  for (bool defer : {false, true}) {
    QnnContext_Config_t cfg = QNN_CONTEXT_CONFIG_INIT;
    cfg.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
    cfg.isGraphInitDeferred = 1;
    const QnnContext_Config_t* cfgs[] = {&cfg, nullptr};
    Qnn_ContextHandle_t loaded = nullptr;
    ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, defer ? cfgs : nullptr, bin.data(), bin.size(), &loaded,
                                            nullptr),
              QNN_SUCCESS);
    if (defer) {
      ASSERT_EQ(api().contextFinalize(loaded, nullptr), QNN_SUCCESS);
    }
    EXPECT_EQ(run(loaded, a, b), online) << "defer " << defer;
    // A loaded context does not serialize itself again.
    Qnn_ContextBinarySize_t size = 0;
    EXPECT_EQ(api().contextGetBinarySize(loaded, &size), QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED);
    EXPECT_EQ(api().contextFree(loaded, nullptr), QNN_SUCCESS);
  }
}

// Loading a binary holds its weights once on the way (issue 11 item 6): the
// client's description, kept until the context is finalized, and nothing more
// (the binary travels in a sealed memfd the DSP decodes in place, not in a
// transport copy); once loaded, the client holds none of them (a loaded
// context never serializes itself again) and the graph runs from them.
TEST_F(ContextBinary, LoadingABinaryHoldsItsWeightsOnceAndThenNotInTheClient) {

  const uint32_t n = 12u << 20;  // 48 MiB of FLOAT_32 weights
  std::vector<uint8_t> bin;
  std::vector<uint32_t> dims = {n};
  Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
  Qnn_Tensor_t out = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, dims);
  {  // the weights the client gave go with this scope
    Qnn_Tensor_t w = make_tensor("w", QNN_TENSOR_TYPE_STATIC, dims);
    std::vector<float> weights(n, 0.5f);
    w.v1.memType = QNN_TENSORMEMTYPE_RAW;
    w.v1.clientBuf = {weights.data(), n * 4};
    ASSERT_EQ(api().graphCreate(context_, "big", nullptr, &graph_), QNN_SUCCESS);
    for (Qnn_Tensor_t* t : {&a, &w, &out}) ASSERT_EQ(api().tensorCreateGraphTensor(graph_, t), QNN_SUCCESS);
    Qnn_Tensor_t in[] = {a, w};
    ASSERT_EQ(add_node(graph_, "add", QNN_OP_ELEMENT_WISE_ADD, in, 2, &out), QNN_SUCCESS);
    ASSERT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_SUCCESS);
    Qnn_ContextBinarySize_t size = 0, written = 0;
    ASSERT_EQ(api().contextGetBinarySize(context_, &size), QNN_SUCCESS);
    bin.resize(size);
    ASSERT_EQ(api().contextGetBinary(context_, bin.data(), size, &written), QNN_SUCCESS);
    ASSERT_EQ(api().contextFree(context_, nullptr), QNN_SUCCESS);
    context_ = nullptr;
    graph_ = nullptr;
  }
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  const long data_kb = static_cast<long>(n) * 4 / 1024;
  const long before = status_kb(getpid(), "VmRSS:");
  reset_peak_rss();
  Qnn_ContextHandle_t loaded = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, nullptr, bin.data(), bin.size(), &loaded, nullptr),
            QNN_SUCCESS);
  const long peak = status_kb(getpid(), "VmHWM:") - before;
  Qnn_GraphHandle_t g = nullptr;
  ASSERT_EQ(api().graphRetrieve(loaded, "big", &g), QNN_SUCCESS);
  a.v1.clientBuf = {x.data(), n * 4};
  out.v1.clientBuf = {y.data(), n * 4};
  ASSERT_EQ(api().graphExecute(g, &a, 1, &out, 1, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_FLOAT_EQ(y[n - 1], 1.5f);
  if (kRssIsTheProgramsOwn) {
    EXPECT_LT(peak, data_kb * 13 / 10 + 8 * 1024) << "contextCreateFromBinary peaked " << peak << " KB above the client's "
                                                  << "RSS for " << data_kb << " KB of weights";
  }
  if (kRssIsTheProgramsOwn && !in_process_transport()) {
    malloc_trim(0);
    EXPECT_LT(status_kb(getpid(), "VmRSS:") - before, data_kb / 4 + 8 * 1024) << "the loaded context's records hold no weights";
  }
  EXPECT_EQ(api().contextFree(loaded, nullptr), QNN_SUCCESS);
}

// QNN lets a client set NUM_HVX_THREADS on a graph retrieved from a binary
// (the binary may carry another count) until that graph's first execute.
TEST_F(ContextBinary, RetrievedGraphTakesAThreadCountUntilItsFirstExecute) {
  const uint32_t n = 4096;
  auto bin = binary_of_add_relu(n);
  auto a = random_vec(n, 3), b = random_vec(n, 4);
  const auto online = run(context_, a, b);
  Qnn_ContextHandle_t loaded = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, nullptr, bin.data(), bin.size(), &loaded, nullptr),
            QNN_SUCCESS);
  Qnn_GraphHandle_t g = nullptr;
  ASSERT_EQ(api().graphRetrieve(loaded, "add_relu", &g), QNN_SUCCESS);
  HtpGraphConfig threads(QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS);
  threads.htp.numHvxThreads = 3;
  ASSERT_EQ(api().graphSetConfig(g, threads.list()), QNN_SUCCESS);
  std::vector<float> out(n, -7.0f);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.clientBuf = {a.data(), n * 4};
  in[1].v1.clientBuf = {b.data(), n * 4};
  Qnn_Tensor_t o = out_;
  o.v1.clientBuf = {out.data(), n * 4};
  EXPECT_EQ(hvx_threads_of_execute(backend_, g, in, 2, &o, 1), 3u);
  EXPECT_EQ(out, online);
  threads.htp.numHvxThreads = 2;
  EXPECT_EQ(api().graphSetConfig(g, threads.list()), QNN_GRAPH_ERROR_GRAPH_FINALIZED);
  EXPECT_EQ(api().contextFree(loaded, nullptr), QNN_SUCCESS);
}

TEST_F(ContextBinary, DeferredContextReportsBufferProperties) {
  auto bin = binary_of_add_relu(64);
  QnnContext_Config_t cfg = QNN_CONTEXT_CONFIG_INIT;
  cfg.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  cfg.isGraphInitDeferred = 1;
  const QnnContext_Config_t* cfgs[] = {&cfg, nullptr};
  Qnn_ContextHandle_t loaded = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &loaded, nullptr),
            QNN_SUCCESS);
  QnnHtpContext_CustomProperty_t align = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  align.option = QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT;
  QnnHtpContext_CustomProperty_t weights = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  weights.option = QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE;
  QnnContext_Property_t p1 = QNN_CONTEXT_PROPERTY_INIT, p2 = QNN_CONTEXT_PROPERTY_INIT;
  p1.option = p2.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
  p1.customProperty = &align;
  p2.customProperty = &weights;
  QnnContext_Property_t* props[] = {&p1, &p2, nullptr};
  ASSERT_EQ(api().contextGetProperty(loaded, props), QNN_SUCCESS);
  EXPECT_EQ(align.bufferStartAlignment, 4096u);
  EXPECT_EQ(weights.weightsBufferSize, 0u);  // add_relu has no static tensors
  // Finalizing twice, or a context that was not deferred, is refused.
  ASSERT_EQ(api().contextFinalize(loaded, nullptr), QNN_SUCCESS);
  EXPECT_EQ(api().contextFinalize(loaded, nullptr), QNN_CONTEXT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(api().contextFinalize(context_, nullptr), QNN_CONTEXT_ERROR_INVALID_ARGUMENT);
  api().contextFree(loaded, nullptr);
}

TEST_F(ContextBinary, BinaryChangedBeforeFinalizeIsRefused) {
  auto bin = binary_of_add_relu(16);
  QnnContext_Config_t cfg = QNN_CONTEXT_CONFIG_INIT;
  cfg.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  cfg.isGraphInitDeferred = 1;
  const QnnContext_Config_t* cfgs[] = {&cfg, nullptr};
  Qnn_ContextHandle_t loaded = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &loaded, nullptr),
            QNN_SUCCESS);
  bin[bin.size() / 2] ^= 0xff;
  EXPECT_EQ(api().contextFinalize(loaded, nullptr), QNN_CONTEXT_ERROR_CREATE_FROM_BINARY);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"changed before finalize"}));
  api().contextFree(loaded, nullptr);
}

// A deferred context's binary and configs are lent until contextFinalize.
// A client that unmaps them early (the binary was a mapped file it closed,
// the configs lived on a freed page) gets the rule's error at finalize, never
// a SIGSEGV: they are read only through the guarded reader.
TEST_F(ContextBinary, LentBinaryOrConfigsUnmappedBeforeFinalizeAreRefusedNotRead) {
  const auto bin = binary_of_add_relu(16);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto map_pages = [](size_t bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(p, MAP_FAILED);
    return p;
  };
  enum class Gone { kBinary, kConfigArray, kConfigStruct, kCustomConfig };
  for (Gone gone : {Gone::kBinary, Gone::kConfigArray, Gone::kConfigStruct, Gone::kCustomConfig}) {
    SCOPED_TRACE(static_cast<int>(gone));
    const size_t bin_bytes = (bin.size() + page - 1) / page * page;
    auto* bin_copy = static_cast<uint8_t*>(map_pages(bin_bytes));
    std::memcpy(bin_copy, bin.data(), bin.size());
    // One page each for the array, the configs and the HTP custom config.
    auto* array = static_cast<const QnnContext_Config_t**>(map_pages(page));
    auto* configs = static_cast<QnnContext_Config_t*>(map_pages(page));
    auto* custom = static_cast<QnnHtpContext_CustomConfig_t*>(map_pages(page));
    configs[0] = QNN_CONTEXT_CONFIG_INIT;
    configs[0].option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
    configs[0].isGraphInitDeferred = 1;
    *custom = QNN_HTP_CONTEXT_CUSTOM_CONFIG_INIT;
    custom->option = QNN_HTP_CONTEXT_CONFIG_OPTION_WEIGHT_SHARING_ENABLED;  // accepted (false: off)
    custom->weightSharingEnabled = false;
    configs[1] = QNN_CONTEXT_CONFIG_INIT;
    configs[1].option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
    configs[1].customConfig = custom;
    array[0] = &configs[0];
    array[1] = &configs[1];
    array[2] = nullptr;
    Qnn_ContextHandle_t loaded = nullptr;
    ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, array, bin_copy, bin.size(), &loaded, nullptr),
              QNN_SUCCESS);
    void* unmap = gone == Gone::kBinary        ? static_cast<void*>(bin_copy)
                  : gone == Gone::kConfigArray ? static_cast<void*>(array)
                  : gone == Gone::kConfigStruct ? static_cast<void*>(configs)
                                                : static_cast<void*>(custom);
    ASSERT_EQ(munmap(unmap, unmap == bin_copy ? bin_bytes : page), 0);
    LogCapture::instance().clear();
    const Qnn_ErrorHandle_t want =
        gone == Gone::kBinary ? QNN_CONTEXT_ERROR_CREATE_FROM_BINARY : QNN_CONTEXT_ERROR_INVALID_CONFIG;
    EXPECT_EQ(api().contextFinalize(loaded, nullptr), want);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"no longer readable", "until contextFinalize"}));
    EXPECT_EQ(api().contextFree(loaded, nullptr), QNN_SUCCESS);
    for (void* p : {static_cast<void*>(bin_copy), static_cast<void*>(array), static_cast<void*>(configs),
                    static_cast<void*>(custom)}) {
      if (p != unmap) munmap(p, p == bin_copy ? bin_bytes : page);
    }
  }
}

// Pointing the lent array at an equal config elsewhere is a change too: the
// rule is about the buffers the client lent, not about equal values.
TEST_F(ContextBinary, ConfigArrayRepointedBeforeFinalizeIsRefused) {
  auto bin = binary_of_add_relu(16);
  QnnContext_Config_t defer = QNN_CONTEXT_CONFIG_INIT;
  defer.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  defer.isGraphInitDeferred = 1;
  QnnContext_Config_t twin = defer;
  const QnnContext_Config_t* cfgs[] = {&defer, nullptr};
  Qnn_ContextHandle_t loaded = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &loaded, nullptr),
            QNN_SUCCESS);
  cfgs[0] = &twin;
  EXPECT_EQ(api().contextFinalize(loaded, nullptr), QNN_CONTEXT_ERROR_INVALID_CONFIG);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"configs passed to contextCreateFromBinary changed"}));
  cfgs[0] = &defer;
  EXPECT_EQ(api().contextFinalize(loaded, nullptr), QNN_SUCCESS);
  api().contextFree(loaded, nullptr);
}

TEST_F(ContextBinary, TruncatedCorruptedAndForeignBinariesAreRefused) {
  auto bin = binary_of_add_relu(32);
  Qnn_ContextHandle_t loaded = nullptr;
  // Every truncation.
  for (size_t len = 1; len < bin.size(); len += 7) {
    Qnn_ErrorHandle_t e = api().contextCreateFromBinary(backend_, nullptr, nullptr, bin.data(), len, &loaded, nullptr);
    ASSERT_EQ(e, QNN_CONTEXT_ERROR_CREATE_FROM_BINARY) << "length " << len;
  }
  // Random corruption: refused or (if only padding was hit) loaded intact.
  std::mt19937 rng(5);
  int refused = 0;
  for (int i = 0; i < 300; ++i) {
    auto bad = bin;
    bad[8 + rng() % (bad.size() - 8)] ^= static_cast<uint8_t>(1 + rng() % 255);
    Qnn_ErrorHandle_t e = api().contextCreateFromBinary(backend_, nullptr, nullptr, bad.data(), bad.size(), &loaded,
                                                        nullptr);
    if (e == QNN_SUCCESS) {
      api().contextFree(loaded, nullptr);
    } else {
      ASSERT_TRUE(e == QNN_CONTEXT_ERROR_CREATE_FROM_BINARY || e == QNN_CONTEXT_ERROR_BINARY_VERSION) << e;
      ++refused;
    }
  }
  EXPECT_GT(refused, 250);
  std::vector<uint8_t> junk(4096, 0x5a);
  EXPECT_EQ(api().contextCreateFromBinary(backend_, nullptr, nullptr, junk.data(), junk.size(), &loaded, nullptr),
            QNN_CONTEXT_ERROR_CREATE_FROM_BINARY);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"not an openhtp context binary"}));
  EXPECT_EQ(api().contextValidateBinary(backend_, nullptr, nullptr, bin.data(), bin.size()), QNN_SUCCESS);
  EXPECT_EQ(api().contextValidateBinary(backend_, nullptr, nullptr, junk.data(), junk.size()),
            QNN_CONTEXT_ERROR_CREATE_FROM_BINARY);
}

// A size larger than the binary (a buffer with more in it, or a size that
// is simply wrong) loads the binary alone, the same through either door:
// nothing past the binary's own bytes is read — here they end at a guard
// page, so a read past them (the upload to the DSP, a deferred load's
// check) would be a SIGSEGV — and the context computes as the original.
TEST_F(ContextBinary, ASizeLargerThanTheBinaryReadsOnlyTheBinary) {
  const uint32_t n = 64;
  auto bin = binary_of_add_relu(n);
  auto a = random_vec(n, 3), b = random_vec(n, 4);
  const auto online = run(context_, a, b);
  const long page = sysconf(_SC_PAGESIZE);
  const size_t pages = (bin.size() + page - 1) / page + 1;
  auto* region = static_cast<uint8_t*>(
      mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(region, MAP_FAILED);
  uint8_t* guard = region + (pages - 1) * page;
  ASSERT_EQ(mprotect(guard, page, PROT_NONE), 0);
  uint8_t* at = guard - bin.size();  // the binary's last byte is the guard page's neighbour
  std::memcpy(at, bin.data(), bin.size());
  for (const uint64_t declared : {uint64_t{bin.size()} + (1u << 20), ~uint64_t{0}}) {
    for (bool defer : {false, true}) {
      SCOPED_TRACE("declared " + std::to_string(declared) + (defer ? ", deferred" : ""));
      QnnContext_Config_t cfg = QNN_CONTEXT_CONFIG_INIT;
      cfg.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
      cfg.isGraphInitDeferred = 1;
      const QnnContext_Config_t* cfgs[] = {&cfg, nullptr};
      Qnn_ContextHandle_t loaded = nullptr;
      ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, defer ? cfgs : nullptr, at, declared, &loaded, nullptr),
                QNN_SUCCESS);
      if (defer) {
        ASSERT_EQ(api().contextFinalize(loaded, nullptr), QNN_SUCCESS);
      }
      EXPECT_EQ(run(loaded, a, b), online);
      EXPECT_EQ(api().contextFree(loaded, nullptr), QNN_SUCCESS);
    }
    EXPECT_EQ(api().contextValidateBinary(backend_, nullptr, nullptr, at, declared), QNN_SUCCESS);
  }
  munmap(region, pages * page);
}

// A PRIORITY that is not a QNN level is refused however the context is made
// (a binary's load took any value, and 0xFFFFFFFF outranked CRITICAL_PLUS).
TEST_F(ContextBinary, LoadPriorityMustBeAQnnLevel) {
  auto bin = binary_of_add_relu(8);
  QnnContext_Config_t cfg = QNN_CONTEXT_CONFIG_INIT;
  cfg.option = QNN_CONTEXT_CONFIG_OPTION_PRIORITY;
  const QnnContext_Config_t* cfgs[] = {&cfg, nullptr};
  for (uint32_t p : {501u, 0x7FFFFFFFu, 0xFFFFFFFFu}) {
    std::memcpy(&cfg.priority, &p, sizeof p);  // as a C client stores it: 0xFFFFFFFF is outside the C++ enum's range
    Qnn_ContextHandle_t loaded = nullptr;
    LogCapture::instance().clear();
    EXPECT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &loaded, nullptr),
              QNN_CONTEXT_ERROR_INVALID_CONFIG);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"PRIORITY " + std::to_string(p), "is not a QNN priority level"}));
    EXPECT_EQ(loaded, nullptr);
  }
  cfg.priority = QNN_PRIORITY_HIGH;
  Qnn_ContextHandle_t loaded = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &loaded, nullptr),
            QNN_SUCCESS);
  EXPECT_EQ(api().contextFree(loaded, nullptr), QNN_SUCCESS);
}

TEST_F(ContextBinary, UnfinalizedGraphsCannotBeSerialized) {
  Qnn_GraphHandle_t g = nullptr;
  ASSERT_EQ(api().graphCreate(context_, "open", nullptr, &g), QNN_SUCCESS);
  Qnn_ContextBinarySize_t size = 0;
  EXPECT_EQ(api().contextGetBinarySize(context_, &size), QNN_CONTEXT_ERROR_NOT_FINALIZED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'open' is not finalized"}));
}

namespace {

// x -> Relu -> a -> Relu -> b -> Add(a, b) -> out, with a VTCM budget that
// holds only one intermediate: `b` must spill.
Qnn_GraphHandle_t build_spilling_graph(Qnn_ContextHandle_t ctx, uint32_t n, uint32_t vtcm_bytes,
                                       std::vector<uint32_t>& dims, Qnn_Tensor_t* x, Qnn_Tensor_t* out) {
  HtpGraphConfig vtcm(QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES);
  vtcm.htp.vtcmSizeInBytes = vtcm_bytes;
  Qnn_GraphHandle_t g = nullptr;
  EXPECT_EQ(api().graphCreate(ctx, "spill", vtcm.list(), &g), QNN_SUCCESS);
  dims = {1, n};
  *x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, dims);
  Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_NATIVE, dims);
  Qnn_Tensor_t b = make_tensor("b", QNN_TENSOR_TYPE_NATIVE, dims);
  *out = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, dims);
  for (Qnn_Tensor_t* t : {x, &a, &b, out}) EXPECT_EQ(api().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
  auto node = [&](const char* name, const char* type, Qnn_Tensor_t* ins, uint32_t n, Qnn_Tensor_t* o) {
    EXPECT_EQ(add_node(g, name, type, ins, n, o), QNN_SUCCESS);
  };
  node("r1", QNN_OP_RELU, x, 1, &a);
  node("r2", QNN_OP_RELU, &a, 1, &b);
  Qnn_Tensor_t ab[] = {a, b};
  node("add", QNN_OP_ELEMENT_WISE_ADD, ab, 2, out);
  EXPECT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
  return g;
}

uint64_t spill_fill_property(Qnn_ContextHandle_t ctx) {
  QnnHtpContext_CustomProperty_t sf = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  sf.option = QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE;
  QnnContext_Property_t p = QNN_CONTEXT_PROPERTY_INIT;
  p.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
  p.customProperty = &sf;
  QnnContext_Property_t* props[] = {&p, nullptr};
  EXPECT_EQ(api().contextGetProperty(ctx, props), QNN_SUCCESS);
  return sf.spillfillBufferSize;
}

}  // namespace

TEST_F(ContextBinary, SmallVtcmBudgetSpillsAndStillComputesRight) {
  const uint32_t n = 4096;  // 16 KiB per tensor
  std::vector<uint32_t> dims;
  Qnn_Tensor_t x, out;
  Qnn_GraphHandle_t g = build_spilling_graph(context_, n, 16384, dims, &x, &out);
  EXPECT_EQ(spill_fill_property(context_), 16384u);
  auto in = random_vec(n, 3);
  std::vector<float> result(n);
  x.v1.clientBuf = {in.data(), n * 4};
  out.v1.clientBuf = {result.data(), n * 4};
  ASSERT_EQ(api().graphExecute(g, &x, 1, &out, 1, nullptr, nullptr), QNN_SUCCESS);
  for (uint32_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(result[i], 2 * std::max(in[i], 0.0f)) << i;
  // The plan travels in the binary: a deferred load reports it before finalize.
  Qnn_ContextBinarySize_t size = 0;
  ASSERT_EQ(api().contextGetBinarySize(context_, &size), QNN_SUCCESS);
  std::vector<uint8_t> bin(size);
  ASSERT_EQ(api().contextGetBinary(context_, bin.data(), size, &size), QNN_SUCCESS);
  QnnContext_Config_t cfg = QNN_CONTEXT_CONFIG_INIT;
  cfg.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  cfg.isGraphInitDeferred = 1;
  const QnnContext_Config_t* cfgs[] = {&cfg, nullptr};
  Qnn_ContextHandle_t loaded = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &loaded, nullptr),
            QNN_SUCCESS);
  EXPECT_EQ(spill_fill_property(loaded), 16384u);
  ASSERT_EQ(api().contextFinalize(loaded, nullptr), QNN_SUCCESS);
  Qnn_GraphHandle_t lg = nullptr;
  ASSERT_EQ(api().graphRetrieve(loaded, "spill", &lg), QNN_SUCCESS);
  std::vector<float> again(n);
  out.v1.clientBuf = {again.data(), n * 4};
  ASSERT_EQ(api().graphExecute(lg, &x, 1, &out, 1, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_EQ(again, result);
  api().contextFree(loaded, nullptr);
  // With the default 8 MiB nothing spills.
  Qnn_ContextHandle_t roomy = nullptr;
  ASSERT_EQ(api().contextCreate(backend_, nullptr, nullptr, &roomy), QNN_SUCCESS);
  build_spilling_graph(roomy, n, 8u << 20, dims, &x, &out);
  EXPECT_EQ(spill_fill_property(roomy), 0u);
  api().contextFree(roomy, nullptr);
}

TEST_F(ContextBinary, ConfigsChangedBeforeFinalizeAreRefused) {
  auto bin = binary_of_add_relu(16);
  QnnContext_Config_t defer = QNN_CONTEXT_CONFIG_INIT;
  defer.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  defer.isGraphInitDeferred = 1;
  QnnContext_Config_t prio = QNN_CONTEXT_CONFIG_INIT;
  prio.option = QNN_CONTEXT_CONFIG_OPTION_PRIORITY;
  prio.priority = QNN_PRIORITY_NORMAL;
  const QnnContext_Config_t* cfgs[] = {&defer, &prio, nullptr};
  Qnn_ContextHandle_t loaded = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, cfgs, bin.data(), bin.size(), &loaded, nullptr),
            QNN_SUCCESS);
  prio.priority = QNN_PRIORITY_HIGH;  // the client must leave them alone until finalize
  EXPECT_EQ(api().contextFinalize(loaded, nullptr), QNN_CONTEXT_ERROR_INVALID_CONFIG);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"configs passed to contextCreateFromBinary changed"}));
  prio.priority = QNN_PRIORITY_NORMAL;  // restored: finalize goes through
  EXPECT_EQ(api().contextFinalize(loaded, nullptr), QNN_SUCCESS);
  api().contextFree(loaded, nullptr);
}
