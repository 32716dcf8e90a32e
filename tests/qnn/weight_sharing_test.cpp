// WEIGHT_SHARING_ENABLED through the QNN API (and, in qnn.*, across the
// process boundary to the DSP process): a "prefill" and a "decode" graph of
// one context with the same FullyConnected weights and different biases.
// With the option the context binary holds the weights once (its size is
// measured against the same context without it), both graphs give the
// reference results before and after a round trip, and a loaded context
// freed next to another leaves it correct.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "HTP/QnnHtpContext.h"
#include "openhtp/fastrpc_ext.h"
#include "openhtp/qnn_ext.h"
#include "qnn_test_util.h"

using namespace qnntest;

namespace {

constexpr uint32_t kK = 64, kN = 64;  // FullyConnected: y[M,N] = x[M,K] · W[N,K]^T + b[N]

std::vector<float> random_vec(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// The reference: plain loops in double.
std::vector<float> fc_reference(const std::vector<float>& x, uint32_t m, const std::vector<float>& w,
                                const std::vector<float>& b) {
  std::vector<float> y(m * kN);
  for (uint32_t r = 0; r < m; ++r) {
    for (uint32_t n = 0; n < kN; ++n) {
      double acc = b[n];
      for (uint32_t k = 0; k < kK; ++k) acc += static_cast<double>(x[r * kK + k]) * w[n * kK + k];
      y[r * kN + n] = static_cast<float>(acc);
    }
  }
  return y;
}

class WeightSharingApi : public QnnFixture {
 protected:
  const std::vector<float> w_ = random_vec(kN * kK, 11);        // shared by both graphs
  const std::vector<float> b_prefill_ = random_vec(kN, 12);     // differs
  const std::vector<float> b_decode_ = random_vec(kN, 13);
  const std::vector<float> x_prefill_ = random_vec(4 * kK, 14);  // M = 4
  const std::vector<float> x_decode_ = random_vec(1 * kK, 15);   // M = 1

  Qnn_ContextHandle_t make_context(bool sharing) {
    QnnHtpContext_CustomConfig_t custom = QNN_HTP_CONTEXT_CUSTOM_CONFIG_INIT;
    custom.option = QNN_HTP_CONTEXT_CONFIG_OPTION_WEIGHT_SHARING_ENABLED;
    custom.weightSharingEnabled = sharing;
    QnnContext_Config_t cfg = QNN_CONTEXT_CONFIG_INIT;
    cfg.option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
    cfg.customConfig = &custom;
    const QnnContext_Config_t* list[] = {&cfg, nullptr};
    Qnn_ContextHandle_t ctx = nullptr;
    EXPECT_EQ(api().contextCreate(backend_, nullptr, list, &ctx), QNN_SUCCESS);
    return ctx;
  }
  void add_fc_graph(Qnn_ContextHandle_t ctx, const char* name, uint32_t m, const std::vector<float>& bias) {
    Qnn_GraphHandle_t g = nullptr;
    ASSERT_EQ(api().graphCreate(ctx, name, nullptr, &g), QNN_SUCCESS);
    std::vector<uint32_t> xd{m, kK}, wd{kN, kK}, bd{kN}, yd{m, kN};
    Qnn_Tensor_t x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, xd);
    Qnn_Tensor_t w = make_tensor("w", QNN_TENSOR_TYPE_STATIC, wd);
    w.v1.clientBuf = {const_cast<float*>(w_.data()), static_cast<uint32_t>(w_.size() * 4)};
    Qnn_Tensor_t b = make_tensor("b", QNN_TENSOR_TYPE_STATIC, bd);
    b.v1.clientBuf = {const_cast<float*>(bias.data()), static_cast<uint32_t>(bias.size() * 4)};
    Qnn_Tensor_t y = make_tensor("y", QNN_TENSOR_TYPE_APP_READ, yd);
    for (Qnn_Tensor_t* t : {&x, &w, &b, &y}) ASSERT_EQ(api().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
    tensor_ids_[name] = {x.v1.id, y.v1.id};  // a loaded context keeps them
    Qnn_Tensor_t ins[] = {x, w, b};
    ASSERT_EQ(add_node(g, "fc", QNN_OP_FULLY_CONNECTED, ins, 3, &y), QNN_SUCCESS);
    ASSERT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
  }
  std::vector<float> run(Qnn_ContextHandle_t ctx, const char* name, const std::vector<float>& xv, uint32_t m) {
    Qnn_GraphHandle_t g = nullptr;
    EXPECT_EQ(api().graphRetrieve(ctx, name, &g), QNN_SUCCESS);
    std::vector<uint32_t> xd{m, kK}, yd{m, kN};
    std::vector<float> out(m * kN, -99.0f);
    Qnn_Tensor_t x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, xd);
    Qnn_Tensor_t y = make_tensor("y", QNN_TENSOR_TYPE_APP_READ, yd);
    x.v1.id = tensor_ids_.at(name).first;
    y.v1.id = tensor_ids_.at(name).second;
    x.v1.clientBuf = {const_cast<float*>(xv.data()), static_cast<uint32_t>(xv.size() * 4)};
    y.v1.clientBuf = {out.data(), static_cast<uint32_t>(out.size() * 4)};
    EXPECT_EQ(api().graphExecute(g, &x, 1, &y, 1, nullptr, nullptr), QNN_SUCCESS);
    return out;
  }
  void expect_near(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << what << " element " << i;
    }
  }
  void check_both(Qnn_ContextHandle_t ctx, const char* when) {
    SCOPED_TRACE(when);
    expect_near(run(ctx, "prefill", x_prefill_, 4), fc_reference(x_prefill_, 4, w_, b_prefill_), "prefill");
    expect_near(run(ctx, "decode", x_decode_, 1), fc_reference(x_decode_, 1, w_, b_decode_), "decode");
  }
  std::vector<uint8_t> binary_of(Qnn_ContextHandle_t ctx) {
    Qnn_ContextBinarySize_t size = 0;
    EXPECT_EQ(api().contextGetBinarySize(ctx, &size), QNN_SUCCESS);
    std::vector<uint8_t> bin(size);
    Qnn_ContextBinarySize_t written = 0;
    EXPECT_EQ(api().contextGetBinary(ctx, bin.data(), bin.size(), &written), QNN_SUCCESS);
    bin.resize(written);
    return bin;
  }
  uint64_t weights_buffer_size(Qnn_ContextHandle_t ctx) {
    QnnHtpContext_CustomProperty_t htp{};
    htp.option = QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE;
    QnnContext_Property_t p = QNN_CONTEXT_PROPERTY_INIT;
    p.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
    p.customProperty = &htp;
    QnnContext_Property_t* list[] = {&p, nullptr};
    EXPECT_EQ(api().contextGetProperty(ctx, list), QNN_SUCCESS);
    return htp.weightsBufferSize;
  }
  // Both graphs in `ctx`, with the tensor ids the backend gave x and y.
  void build(Qnn_ContextHandle_t ctx) {
    add_fc_graph(ctx, "prefill", 4, b_prefill_);
    add_fc_graph(ctx, "decode", 1, b_decode_);
  }
  std::map<std::string, std::pair<uint32_t, uint32_t>> tensor_ids_;
};

}  // namespace

TEST_F(WeightSharingApi, OneCopyOfTheSharedWeightsInTheBinaryAndAfterLoading) {
  std::vector<uint8_t> bins[2];
  for (bool sharing : {false, true}) {
    SCOPED_TRACE(sharing ? "sharing" : "not sharing");
    Qnn_ContextHandle_t ctx = make_context(sharing);
    ASSERT_NE(ctx, nullptr);
    build(ctx);
    check_both(ctx, "online");
    bins[sharing] = binary_of(ctx);
    // Two contexts loaded from the binary; freeing one leaves the other, and
    // the online one, correct.
    Qnn_ContextHandle_t l1 = nullptr, l2 = nullptr;
    const auto& bin = bins[sharing];
    ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, nullptr, bin.data(), bin.size(), &l1, nullptr),
              QNN_SUCCESS);
    ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, nullptr, bin.data(), bin.size(), &l2, nullptr),
              QNN_SUCCESS);
    check_both(l1, "loaded");
    // What an external weights buffer must hold: the shared weights once.
    const uint64_t w_page = (kN * kK * 4 + 4095) / 4096 * 4096, b_page = 4096;
    EXPECT_EQ(weights_buffer_size(l1), sharing ? w_page + 2 * b_page : 2 * w_page + 2 * b_page);
    ASSERT_EQ(api().contextFree(l1, nullptr), QNN_SUCCESS);
    check_both(l2, "after freeing the other loaded context");
    check_both(ctx, "online, after freeing a loaded context");
    ASSERT_EQ(api().contextFree(l2, nullptr), QNN_SUCCESS);
    ASSERT_EQ(api().contextFree(ctx, nullptr), QNN_SUCCESS);
  }
  const size_t weights = kN * kK * 4;
  std::printf("context binary: %zu bytes without weight sharing, %zu with (shared weights %zu bytes)\n",
              bins[0].size(), bins[1].size(), weights);
  EXPECT_GT(bins[0].size(), 2 * weights);  // both graphs carry W
  EXPECT_LT(bins[1].size(), bins[0].size() - weights + 1024) << "W is not stored once";
  EXPECT_GT(bins[1].size(), weights);
}

// The backend-extension file's "weight_sharing_enabled" turns it on for every
// context of the backend.
TEST_F(WeightSharingApi, TheBackendExtensionKeyTurnsItOn) {
  char path[] = "/tmp/openhtp_ws_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = R"({"context": {"weight_sharing_enabled": true}})";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  const std::string opt = std::string("backend_extensions=") + path;
  QnnBackend_Config_t platform = QNN_BACKEND_CONFIG_INIT;
  platform.option = QNN_BACKEND_CONFIG_OPTION_PLATFORM;
  platform.platformOption = opt.c_str();
  const QnnBackend_Config_t* bcfgs[] = {&platform, nullptr};
  Qnn_BackendHandle_t backend = nullptr;
  ASSERT_EQ(api().backendCreate(log_, bcfgs, &backend), QNN_SUCCESS);
  std::swap(backend, backend_);
  Qnn_ContextHandle_t on = nullptr;
  ASSERT_EQ(api().contextCreate(backend_, nullptr, nullptr, &on), QNN_SUCCESS);
  build(on);
  check_both(on, "extension key");
  const auto shared = binary_of(on);
  api().contextFree(on, nullptr);
  std::swap(backend, backend_);
  api().backendFree(backend);
  Qnn_ContextHandle_t off = make_context(false);
  build(off);
  const auto plain = binary_of(off);
  api().contextFree(off, nullptr);
  EXPECT_LT(shared.size() + kN * kK * 4 - 1024, plain.size());
  // Loaded through a backend that only asks the runtime for a weights buffer
  // of the size QNN reports: that size holds W once, so the load succeeds
  // only if the loaded context's runtime (in the DSP process, for qnn.*)
  // places the shared W once — the binary's own flag turns sharing on.
  {
    const std::string only_buffer = R"({"context": {"weights_buffer": -1}})";
    FILE* f = std::fopen(path, "w");
    ASSERT_NE(f, nullptr);
    std::fwrite(only_buffer.data(), 1, only_buffer.size(), f);
    std::fclose(f);
    ASSERT_EQ(api().backendCreate(log_, bcfgs, &backend), QNN_SUCCESS);
    std::swap(backend, backend_);
    for (const auto* bin : {&shared, &plain}) {
      Qnn_ContextHandle_t loaded = nullptr;
      ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, nullptr, bin->data(), bin->size(), &loaded, nullptr),
                QNN_SUCCESS);
      uint64_t wb = 0, sf = 0;
      ASSERT_EQ(OpenHtp_getRuntimeProvidedBuffers(loaded, &wb, &sf), QNN_SUCCESS);
      const uint64_t w_page = (kN * kK * 4 + 4095) / 4096 * 4096;
      EXPECT_EQ(wb, (bin == &shared ? 1 : 2) * w_page + 2 * 4096);
      check_both(loaded, bin == &shared ? "shared binary, runtime weights buffer" : "plain binary, runtime weights buffer");
      api().contextFree(loaded, nullptr);
    }
    std::swap(backend, backend_);
    api().backendFree(backend);
  }
  // A wrong type is refused at backendCreate, naming the key.
  const std::string bad = R"({"context": {"weight_sharing_enabled": 1}})";
  FILE* f = std::fopen(path, "w");
  ASSERT_NE(f, nullptr);
  std::fwrite(bad.data(), 1, bad.size(), f);
  std::fclose(f);
  EXPECT_EQ(api().backendCreate(log_, bcfgs, &backend), QNN_BACKEND_ERROR_INVALID_CONFIG);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"weight_sharing_enabled must be true or false"}));
  unlink(path);
}

// Across the process boundary: the DSP process's memory after two graphs
// with one 48 MiB weight in common are finalized and run grows by one copy
// with the option and by two without (ElementWiseAdd reads its weight in
// place, no kernel packs a copy of its own; the run makes the DSP touch the
// uploaded pages it maps).
TEST_F(WeightSharingApi, TheDspProcessHoldsTheSharedWeightOnce) {
  if (in_process_transport()) GTEST_SKIP() << "no DSP process in-process";
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // ASan's quarantine keeps freed chunks resident (the copies the pool
  // replaces stay in RSS): the figure says nothing about sharing there.
  GTEST_SKIP() << "RSS is not the program's own under a sanitizer";
#endif

  const uint32_t n = 12u << 20;  // 48 MiB of floats
  const long data_kb = static_cast<long>(n) * 4 / 1024;
  std::vector<float> weights(n, 0.25f);
  long grew[2] = {0, 0};
  for (bool sharing : {true, false}) {  // sharing first: it cannot reuse pages the other run freed
    SCOPED_TRACE(sharing ? "sharing" : "not sharing");
    Qnn_ContextHandle_t ctx = make_context(sharing);
    const int dsp = openhtp_fastrpc_dsp_pid();
    ASSERT_GT(dsp, 0);
    const long before = status_kb(dsp, "VmRSS:");
    for (const char* name : {"prefill", "decode"}) {
      Qnn_GraphHandle_t g = nullptr;
      ASSERT_EQ(api().graphCreate(ctx, name, nullptr, &g), QNN_SUCCESS);
      std::vector<uint32_t> dims = {n};
      Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
      Qnn_Tensor_t w = make_tensor("w", QNN_TENSOR_TYPE_STATIC, dims);
      w.v1.clientBuf = {weights.data(), n * 4};
      Qnn_Tensor_t out = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, dims);
      for (Qnn_Tensor_t* t : {&a, &w, &out}) ASSERT_EQ(api().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
      Qnn_Tensor_t in[] = {a, w};
      ASSERT_EQ(add_node(g, "add", QNN_OP_ELEMENT_WISE_ADD, in, 2, &out), QNN_SUCCESS);
      ASSERT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
      std::vector<float> x(n, 1.0f), y(n, 0.0f);
      a.v1.clientBuf = {x.data(), n * 4};
      out.v1.clientBuf = {y.data(), n * 4};
      ASSERT_EQ(api().graphExecute(g, &a, 1, &out, 1, nullptr, nullptr), QNN_SUCCESS);
      EXPECT_FLOAT_EQ(y[n - 1], 1.25f);
    }
    grew[sharing] = status_kb(dsp, "VmRSS:") - before;
    api().contextFree(ctx, nullptr);
  }
  std::printf("DSP process RSS after two finalizes and runs: +%ld KB without weight sharing, +%ld KB with (weight %ld KB)\n",
              grew[0], grew[1], data_kb);
  EXPECT_GT(grew[0], data_kb * 18 / 10) << "without sharing each graph holds its copy";
  EXPECT_GT(grew[1], data_kb * 9 / 10);
  EXPECT_LT(grew[1], data_kb * 13 / 10 + 20 * 1024) << "with sharing the DSP must hold the weight once";
}
