#include <dirent.h>
// Graph and tensor rules broken on purpose, and a client killed in the middle
// of an execute.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>

#include "openhtp/fastrpc_ext.h"
#include "rpcmem.h"
#include "qnn_test_util.h"
#include "race.h"

using namespace qnntest;

namespace {
class GraphRules : public QnnFixture {};

// Runs `body` in a forked child (which starts its own DSP process) and
// returns the child's exit status: `body` ends it with _exit(step) on a
// failed step, or returns normally for 0. A child that hangs past
// `deadline` or dies of a signal fails the test here and gives -1, so a
// hang is caught by the test, not by CTest's timeout.
int child_exit_status(const std::function<void()>& body, std::chrono::milliseconds deadline, const std::string& what) {
  const pid_t child = fork();
  if (child < 0) {
    ADD_FAILURE() << what << ": fork failed";
    return -1;
  }
  if (child == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  pid_t done = 0;
  for (auto waited = std::chrono::milliseconds(0); waited < deadline && (done = waitpid(child, &status, WNOHANG)) == 0;
       waited += std::chrono::milliseconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (done != child) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    ADD_FAILURE() << what << ": the client hung";
    return -1;
  }
  if (!WIFEXITED(status)) {
    ADD_FAILURE() << what << ": the client died of signal " << WTERMSIG(status);
    return -1;
  }
  return WEXITSTATUS(status);
}
}  // namespace

TEST_F(GraphRules, TensorCreationRules) {
  ASSERT_EQ(api().graphCreate(context_, "g", nullptr, &graph_), QNN_SUCCESS);
  std::vector<uint32_t> dims{2, 2}, zero{2, 0};
  Qnn_Tensor_t t = make_tensor("t", QNN_TENSOR_TYPE_APP_WRITE, dims);
  ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &t), QNN_SUCCESS);
  EXPECT_NE(t.v1.id, 0u) << "the backend writes the id";
  Qnn_Tensor_t dup = make_tensor("t", QNN_TENSOR_TYPE_APP_WRITE, dims);
  EXPECT_EQ(api().tensorCreateGraphTensor(graph_, &dup), QNN_TENSOR_ERROR_ALREADY_EXISTS);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"already has a tensor named 't'"}));
  Qnn_Tensor_t bad = make_tensor("z", QNN_TENSOR_TYPE_NATIVE, zero);
  EXPECT_EQ(api().tensorCreateGraphTensor(graph_, &bad), QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  float data[4] = {};
  Qnn_Tensor_t w = make_tensor("w", QNN_TENSOR_TYPE_STATIC, dims);
  w.v1.clientBuf = {data, 12};  // needs 16
  EXPECT_EQ(api().tensorCreateGraphTensor(graph_, &w), QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'w'", "16 bytes", "has 12"}));
  Qnn_Tensor_t app = make_tensor("in_with_data", QNN_TENSOR_TYPE_APP_WRITE, dims);
  app.v1.clientBuf = {data, 16};
  EXPECT_EQ(api().tensorCreateGraphTensor(graph_, &app), QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  Qnn_Tensor_t noname = make_tensor(nullptr, QNN_TENSOR_TYPE_APP_WRITE, dims);
  EXPECT_EQ(api().tensorCreateGraphTensor(graph_, &noname), QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  Qnn_Tensor_t v9 = make_tensor("v9", QNN_TENSOR_TYPE_APP_WRITE, dims);
  v9.version = static_cast<Qnn_TensorVersion_t>(9);
  EXPECT_EQ(api().tensorCreateGraphTensor(graph_, &v9), QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
}

TEST_F(GraphRules, AddNodeRules) {
  ASSERT_EQ(api().graphCreate(context_, "g", nullptr, &graph_), QNN_SUCCESS);
  Qnn_GraphHandle_t again = nullptr;
  EXPECT_EQ(api().graphCreate(context_, "g", nullptr, &again), QNN_GRAPH_ERROR_INVALID_NAME);
  std::vector<uint32_t> dims{1, 4}, other{1, 5};
  Qnn_Tensor_t x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, dims);
  Qnn_Tensor_t y = make_tensor("y", QNN_TENSOR_TYPE_NATIVE, other);
  ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &x), QNN_SUCCESS);
  ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &y), QNN_SUCCESS);
  Qnn_OpConfig_t relu = QNN_OPCONFIG_INIT;
  relu.v1.name = "r";
  relu.v1.packageName = "qti.aisw";
  relu.v1.typeName = QNN_OP_RELU;
  relu.v1.numOfInputs = 1;
  relu.v1.inputTensors = &x;
  relu.v1.numOfOutputs = 1;
  relu.v1.outputTensors = &y;
  // Shape mismatch between input and output.
  EXPECT_EQ(api().graphAddNode(graph_, relu), QNN_GRAPH_ERROR_INVALID_OP_CONFIG);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"Relu 'r'"}));
  // A tensor that was never created in this graph.
  Qnn_Tensor_t stranger = make_tensor("stranger", QNN_TENSOR_TYPE_APP_WRITE, dims);
  stranger.v1.id = 999999;
  relu.v1.inputTensors = &stranger;
  EXPECT_EQ(api().graphAddNode(graph_, relu), QNN_GRAPH_ERROR_INVALID_TENSOR);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'stranger'", "was not created"}));
  // Unknown package / op.
  relu.v1.inputTensors = &x;
  relu.v1.packageName = "my.ops";
  EXPECT_EQ(api().graphAddNode(graph_, relu), QNN_GRAPH_ERROR_INVALID_OP_CONFIG);
  relu.v1.packageName = "qti.aisw";
  relu.v1.typeName = "Frobnicate";
  EXPECT_EQ(api().graphAddNode(graph_, relu), QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"Frobnicate"}));
  // Unknown parameter name.
  relu.v1.typeName = QNN_OP_RELU;
  Qnn_Tensor_t y4 = make_tensor("y4", QNN_TENSOR_TYPE_APP_READ, dims);
  ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &y4), QNN_SUCCESS);
  relu.v1.outputTensors = &y4;
  Qnn_Param_t p = QNN_PARAM_INIT;
  p.paramType = QNN_PARAMTYPE_SCALAR;
  p.name = "colour";
  p.scalarParam.dataType = QNN_DATATYPE_UINT_32;
  p.scalarParam.uint32Value = 3;
  relu.v1.numOfParams = 1;
  relu.v1.params = &p;
  EXPECT_EQ(api().graphAddNode(graph_, relu), QNN_GRAPH_ERROR_INVALID_OP_CONFIG);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"colour"}));
  // Executing or finalizing too early.
  EXPECT_EQ(api().graphExecute(graph_, nullptr, 0, nullptr, 0, nullptr, nullptr), QNN_GRAPH_ERROR_GRAPH_NOT_FINALIZED);
  EXPECT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_GRAPH_ERROR_FINALIZE_FAILED);
  relu.v1.numOfParams = 0;
  ASSERT_EQ(api().graphAddNode(graph_, relu), QNN_SUCCESS);
  // The same output twice.
  EXPECT_EQ(api().graphAddNode(graph_, relu), QNN_GRAPH_ERROR_INVALID_TENSOR);
  ASSERT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_GRAPH_ERROR_GRAPH_FINALIZED);
  EXPECT_EQ(api().graphAddNode(graph_, relu), QNN_GRAPH_ERROR_GRAPH_FINALIZED);
  Qnn_GraphHandle_t found = nullptr;
  EXPECT_EQ(api().graphRetrieve(context_, "g", &found), QNN_SUCCESS);
  EXPECT_EQ(found, graph_);
  EXPECT_EQ(api().graphRetrieve(context_, "nope", &found), QNN_GRAPH_ERROR_GRAPH_DOES_NOT_EXIST);
}

TEST_F(GraphRules, EveryGraphOutputMustBeProduced) {
  ASSERT_EQ(api().graphCreate(context_, "g", nullptr, &graph_), QNN_SUCCESS);
  std::vector<uint32_t> dims{4};
  Qnn_Tensor_t x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, dims);
  Qnn_Tensor_t y = make_tensor("y", QNN_TENSOR_TYPE_APP_READ, dims);
  Qnn_Tensor_t orphan = make_tensor("orphan", QNN_TENSOR_TYPE_APP_READ, dims);
  for (Qnn_Tensor_t* t : {&x, &y, &orphan}) ASSERT_EQ(api().tensorCreateGraphTensor(graph_, t), QNN_SUCCESS);
  Qnn_OpConfig_t relu = QNN_OPCONFIG_INIT;
  relu.v1.name = "r";
  relu.v1.packageName = "qti.aisw";
  relu.v1.typeName = QNN_OP_RELU;
  relu.v1.numOfInputs = 1;
  relu.v1.inputTensors = &x;
  relu.v1.numOfOutputs = 1;
  relu.v1.outputTensors = &y;
  ASSERT_EQ(api().graphAddNode(graph_, relu), QNN_SUCCESS);
  EXPECT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_GRAPH_ERROR_FINALIZE_FAILED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"graph output 'orphan'", "not produced"}));
}

TEST_F(GraphRules, ExecuteBindingRules) {
  const uint32_t n = 8;
  build_add_relu(n);
  std::vector<float> a(n, 1), b(n, 1), out(n);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.clientBuf = {a.data(), n * 4};
  in[1].v1.clientBuf = {b.data(), n * 4};
  Qnn_Tensor_t o = out_;
  o.v1.clientBuf = {out.data(), n * 4};
  // Too few inputs.
  EXPECT_EQ(api().graphExecute(graph_, in, 1, &o, 1, nullptr, nullptr), QNN_GRAPH_ERROR_INVALID_TENSOR);
  // Counts the arrays do not hold are refused before any tensor is read:
  // the two-element array is not read past (ASan would see it), and no
  // binding is sized by the count (4294967295 was a bad_alloc, error 1002).
  for (uint32_t count : {3u, 100000u, 0xFFFFFFFFu}) {
    LogCapture::instance().clear();
    EXPECT_EQ(api().graphExecute(graph_, in, count, &o, 1, nullptr, nullptr), QNN_GRAPH_ERROR_INVALID_TENSOR);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"graph has 2 inputs, execute passed " + std::to_string(count)}));
    LogCapture::instance().clear();
    EXPECT_EQ(api().graphExecute(graph_, in, 2, &o, count, nullptr, nullptr), QNN_GRAPH_ERROR_INVALID_TENSOR);
    EXPECT_TRUE(LogCapture::instance().has_line_with({"graph has 1 outputs, execute passed " + std::to_string(count)}));
  }
  // The output passed as an input.
  Qnn_Tensor_t wrong[] = {in[0], o};
  EXPECT_EQ(api().graphExecute(graph_, wrong, 2, &o, 1, nullptr, nullptr), QNN_GRAPH_ERROR_INVALID_TENSOR);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'out'", "is not a graph input"}));
  // A client buffer that is too small.
  in[1].v1.clientBuf.dataSize = n * 4 - 1;
  EXPECT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_GRAPH_ERROR_INVALID_TENSOR);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'b'", "32 bytes", "31 bytes"}));
  in[1].v1.clientBuf.dataSize = n * 4;
  // The same input twice.
  Qnn_Tensor_t twice[] = {in[0], in[0]};
  EXPECT_EQ(api().graphExecute(graph_, twice, 2, &o, 1, nullptr, nullptr), QNN_GRAPH_ERROR_INVALID_TENSOR);
  // Nothing was harmed: a correct execute still works.
  ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_FLOAT_EQ(out[0], 2.0f);
}

// graphCreate racing contextFree on the same context: no graph outlives its
// context. Either the create fails (INVALID_CONTEXT, as for any freed
// context) or it came first and contextFree took the graph with it. Before,
// a graph added after contextFree's release stayed live, its handle
// usable on a context the DSP had already dropped.
TEST_F(GraphRules, GraphCreateRacingContextFreeLeavesNoGraphBehind) {
  Qnn_ContextHandle_t ctx = nullptr;
  Qnn_GraphHandle_t g = nullptr;
  Qnn_ErrorHandle_t ec = QNN_SUCCESS, ef = QNN_SUCCESS;
  int survivors = 0, bad_codes = 0, created_first = 0;
  // Configs the create reads between its lookup of the context and its lock
  // on it: they widen that window to tens of microseconds (with 256 the
  // race was caught in 2 runs of 5 without the check; with these, every run).
  QnnHtpGraph_CustomConfig_t precision{};
  precision.option = QNN_HTP_GRAPH_CONFIG_OPTION_PRECISION;
  precision.precision = QNN_PRECISION_FLOAT16;
  QnnGraph_Config_t one = QNN_GRAPH_CONFIG_INIT;
  one.option = QNN_GRAPH_CONFIG_OPTION_CUSTOM;
  one.customConfig = &precision;
  std::vector<const QnnGraph_Config_t*> configs(4096, &one);
  configs.push_back(nullptr);
  race(
      1000,
      [&](int) {
        g = nullptr;
        ASSERT_EQ(api().contextCreate(backend_, nullptr, nullptr, &ctx), QNN_SUCCESS);
      },
      [&](int) { ec = api().graphCreate(ctx, "g", configs.data(), &g); },
      [&](int r) {
        // A head start for the create of 0 to 20 us, spun (a sleep this short
        // oversleeps), so that contextFree lands at every point of it.
        const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(500 * (r % 41));
        while (std::chrono::steady_clock::now() < until) {
        }
        ef = api().contextFree(ctx, nullptr);
      },
      [&](int) {
        EXPECT_EQ(ef, QNN_SUCCESS);
        if (ec == QNN_SUCCESS) {
          ++created_first;
          if (api().graphSetConfig(g, nullptr) != QNN_GRAPH_ERROR_INVALID_HANDLE) ++survivors;
        } else if (ec != QNN_GRAPH_ERROR_INVALID_CONTEXT) {
          ++bad_codes;
        }
      });
  EXPECT_EQ(survivors, 0) << "graphs still live after contextFree returned";
  EXPECT_EQ(bad_codes, 0);
  EXPECT_GT(created_first, 0) << "the race never let the create win: it tests nothing";
}

TEST(ClientLifetime, KilledMidExecuteLeavesNoDspProcess) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t client = fork();
  ASSERT_GE(client, 0);
  if (client == 0) {
    close(pipefd[0]);
    Qnn_BackendHandle_t backend = nullptr;
    Qnn_ContextHandle_t ctx = nullptr;
    Qnn_GraphHandle_t g = nullptr;
    if (api().backendCreate(nullptr, nullptr, &backend) || api().contextCreate(backend, nullptr, nullptr, &ctx) ||
        api().graphCreate(ctx, "mm", nullptr, &g)) {
      _exit(2);
    }
    // A MatMul big enough to keep the DSP busy for a while per execute.
    const uint32_t m = 384;
    std::vector<uint32_t> dims{m, m};
    Qnn_Tensor_t x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, dims);
    Qnn_Tensor_t y = make_tensor("y", QNN_TENSOR_TYPE_APP_WRITE, dims);
    Qnn_Tensor_t z = make_tensor("z", QNN_TENSOR_TYPE_APP_READ, dims);
    for (Qnn_Tensor_t* t : {&x, &y, &z}) {
      if (api().tensorCreateGraphTensor(g, t)) _exit(3);
    }
    Qnn_Tensor_t ins[] = {x, y};
    Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
    op.v1.name = "mm";
    op.v1.packageName = "qti.aisw";
    op.v1.typeName = QNN_OP_MAT_MUL;
    op.v1.numOfInputs = 2;
    op.v1.inputTensors = ins;
    op.v1.numOfOutputs = 1;
    op.v1.outputTensors = &z;
    if (api().graphAddNode(g, op) || api().graphFinalize(g, nullptr, nullptr)) _exit(4);
    int dsp = openhtp_fastrpc_dsp_pid();
    if (write(pipefd[1], &dsp, sizeof dsp) != sizeof dsp) _exit(5);
    std::vector<float> a(m * m, 1.0f), out(m * m);
    ins[0].v1.clientBuf = {a.data(), m * m * 4};
    ins[1].v1.clientBuf = {a.data(), m * m * 4};
    z.v1.clientBuf = {out.data(), m * m * 4};
    for (;;) api().graphExecute(g, ins, 2, &z, 1, nullptr, nullptr);
  }
  close(pipefd[1]);
  int dsp_pid = -1;
  ASSERT_EQ(read(pipefd[0], &dsp_pid, sizeof dsp_pid), static_cast<ssize_t>(sizeof dsp_pid));
  close(pipefd[0]);
  ASSERT_GT(dsp_pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(dsp_pid, 0), 0);
  kill(client, SIGKILL);
  int st;
  waitpid(client, &st, 0);
  bool gone = false;
  for (int i = 0; i < 250 && !gone; ++i) {
    gone = waitpid(dsp_pid, &st, WNOHANG) == dsp_pid;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "DSP process " << dsp_pid << " outlived its client";
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

// An allocation the runtime cannot make is an error code and one log line,
// never an abort of the client or of the DSP process, which then goes on
// serving the same backend. The child process (and the DSP process it
// starts, which inherits the limit) gets 4 GiB of address space; the graph's
// two 4 GiB intermediates, alive together, need an 8 GiB spill-fill region.
// Not built into the sanitizer trees: their shadow memory alone needs more
// address space than the limit leaves, so there it could only be skipped.
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
// Tensors of garbage (what a client with a stale or uninitialised array
// passes): every one is refused, and naming it in the error line never
// dereferences its name pointer. Without the guarded read, an unmapped name
// is a SIGSEGV in the client while the message is built.
TEST_F(GraphRules, GarbageTensorsAreRefusedWithoutReadingTheirNames) {
  const uint32_t n = 8;
  build_add_relu(n);
  const long page = sysconf(_SC_PAGESIZE);
  void* gone = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(gone, MAP_FAILED);
  ASSERT_EQ(munmap(gone, page), 0);  // an address that is certainly not mapped now
  std::vector<float> out(n);
  Qnn_Tensor_t o = out_;
  o.v1.clientBuf = {out.data(), n * 4};
  std::mt19937 rng(12345);
  int refused = 0;
  for (int i = 0; i < 64; ++i) {
    Qnn_Tensor_t junk[2];
    for (Qnn_Tensor_t& t : junk) {
      auto* bytes = reinterpret_cast<uint8_t*>(&t);
      for (size_t k = 0; k < sizeof t; ++k) bytes[k] = static_cast<uint8_t>(rng());
      t.version = QNN_TENSOR_VERSION_1;                  // plausible: a known version ...
      t.v1.id = 1000 + static_cast<uint32_t>(rng() % 1000);  // ... an id the graph does not have
      t.v1.name = (i % 2 == 0) ? static_cast<const char*>(gone)
                               : reinterpret_cast<const char*>(static_cast<uintptr_t>(rng()) << 12);
    }
    LogCapture::instance().clear();
    if (api().graphExecute(graph_, junk, 2, &o, 1, nullptr, nullptr) == QNN_GRAPH_ERROR_INVALID_TENSOR) ++refused;
    if (i == 0) {
      EXPECT_TRUE(LogCapture::instance().has_line_with({"<unreadable at", "is not a graph input"}));
    }
  }
  EXPECT_EQ(refused, 64);
  // The graph is unharmed.
  std::vector<float> a(n, 1), b(n, 2);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.clientBuf = {a.data(), n * 4};
  in[1].v1.clientBuf = {b.data(), n * 4};
  ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_FLOAT_EQ(out[0], 3.0f);
}

// Finalize sends a graph's static data to the DSP once, in a sealed memfd
// (ipc/static_upload.h) the DSP maps and keeps: once the graph has run (its
// kernel read the weights in place), the DSP process holds the data once, not
// once more in a transport or a private copy, and the client's finalize made
// no transient copy of it.
TEST_F(GraphRules, FinalizeLeavesStaticDataOnceInTheDsp) {
  if (in_process_transport()) GTEST_SKIP() << "no DSP process in-process";

  const uint32_t n = 12u << 20;  // 48 MiB of floats
  std::vector<uint32_t> dims = {n};
  Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
  Qnn_Tensor_t w = make_tensor("w", QNN_TENSOR_TYPE_STATIC, dims);
  Qnn_Tensor_t out = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, dims);
  std::vector<float> weights(n, 0.5f);
  w.v1.memType = QNN_TENSORMEMTYPE_RAW;
  w.v1.clientBuf = {weights.data(), n * 4};
  ASSERT_EQ(api().graphCreate(context_, "big_static", nullptr, &graph_), QNN_SUCCESS);
  for (Qnn_Tensor_t* t : {&a, &w, &out}) ASSERT_EQ(api().tensorCreateGraphTensor(graph_, t), QNN_SUCCESS);
  Qnn_Tensor_t in[] = {a, w};
  ASSERT_EQ(add_node(graph_, "add", QNN_OP_ELEMENT_WISE_ADD, in, 2, &out), QNN_SUCCESS);
  const int dsp = openhtp_fastrpc_dsp_pid();
  ASSERT_GT(dsp, 0);
  std::vector<float> x(n, 1.0f), y(n, 0.0f);
  const long before = status_kb(dsp, "VmRSS:");
  const long client_before = status_kb(getpid(), "VmRSS:");
  reset_peak_rss();  // the client's peak during finalize
  ASSERT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_SUCCESS);
  const long client_peak = status_kb(getpid(), "VmHWM:") - client_before;
  a.v1.clientBuf = {x.data(), n * 4};
  out.v1.clientBuf = {y.data(), n * 4};
  ASSERT_EQ(api().graphExecute(graph_, &a, 1, &out, 1, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_FLOAT_EQ(y[n - 1], 1.5f);
  const long grew = status_kb(dsp, "VmRSS:") - before;
  const long data_kb = static_cast<long>(n) * 4 / 1024;
  if (kRssIsTheProgramsOwn) {
    EXPECT_LT(client_peak, data_kb / 4 + 8 * 1024) << "the client's finalize peaked " << client_peak << " KB above its "
                                                 << "RSS for " << data_kb << " KB of static data it already holds";
  }
  EXPECT_GT(grew, data_kb * 9 / 10) << "the DSP must hold the static data";
  EXPECT_LT(grew, data_kb * 13 / 10 + 20 * 1024) << "DSP RSS grew " << grew << " KB for " << data_kb
                                                  << " KB of static data (RssShmem now "
                                                  << status_kb(dsp, "RssShmem:") << " KB)";
}

TEST_F(GraphRules, AnAllocationTheRuntimeCannotMakeIsAnErrorNotACrash) {
  // Done in a child with a fresh backend: the limit must not reach this
  // process's other tests, nor a DSP process started before it.
  if (context_ != nullptr) api().contextFree(context_, nullptr), context_ = nullptr;
  if (backend_ != nullptr) api().backendFree(backend_), backend_ = nullptr;
  const int step = child_exit_status([this] {
    auto fail = [](int code) { _exit(code); };
    struct rlimit lim {uint64_t{4} << 30, uint64_t{4} << 30};
    if (setrlimit(RLIMIT_AS, &lim) != 0) fail(2);
    // Past the memory budget's check (a machine with little memory would
    // refuse the graph there): this test is of the allocation itself.
    setenv("OPENHTP_DSP_MEMORY_BUDGET_MB", "1048576", 1);
    LogCapture::instance().clear();
    Qnn_BackendHandle_t backend = nullptr;
    Qnn_ContextHandle_t ctx = nullptr;
    Qnn_GraphHandle_t g = nullptr;
    if (api().backendCreate(log_, nullptr, &backend) != QNN_SUCCESS) fail(3);
    if (api().contextCreate(backend, nullptr, nullptr, &ctx) != QNN_SUCCESS) fail(4);
    if (api().graphCreate(ctx, "huge", nullptr, &g) != QNN_SUCCESS) fail(5);
    std::vector<uint32_t> big{1, 1u << 30};  // 4 GiB of FLOAT_32
    Qnn_Tensor_t in = make_tensor("in", QNN_TENSOR_TYPE_APP_WRITE, big);
    Qnn_Tensor_t m1 = make_tensor("m1", QNN_TENSOR_TYPE_NATIVE, big);
    Qnn_Tensor_t m2 = make_tensor("m2", QNN_TENSOR_TYPE_NATIVE, big);
    Qnn_Tensor_t out = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, big);
    for (Qnn_Tensor_t* t : {&in, &m1, &m2, &out}) {
      if (api().tensorCreateGraphTensor(g, t) != QNN_SUCCESS) fail(6);
    }
    Qnn_Tensor_t both[] = {m1, m2};
    if (add_node(g, "relu1", QNN_OP_RELU, &in, 1, &m1) != QNN_SUCCESS ||
        add_node(g, "relu2", QNN_OP_RELU, &in, 1, &m2) != QNN_SUCCESS ||
        add_node(g, "add", QNN_OP_ELEMENT_WISE_ADD, both, 2, &out) != QNN_SUCCESS) {
      fail(7);
    }
    if (api().graphFinalize(g, nullptr, nullptr) != QNN_COMMON_ERROR_MEM_ALLOC) fail(8);
    if (!LogCapture::instance().has_line_with({"out of memory"})) fail(9);
    // The runtime survived: a small graph on the same context prepares and runs.
    Qnn_GraphHandle_t small = nullptr;
    std::vector<uint32_t> dims{1, 8};
    Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
    Qnn_Tensor_t r = make_tensor("r", QNN_TENSOR_TYPE_APP_READ, dims);
    if (api().graphCreate(ctx, "small", nullptr, &small) != QNN_SUCCESS ||
        api().tensorCreateGraphTensor(small, &a) != QNN_SUCCESS ||
        api().tensorCreateGraphTensor(small, &r) != QNN_SUCCESS ||
        add_node(small, "relu", QNN_OP_RELU, &a, 1, &r) != QNN_SUCCESS ||
        api().graphFinalize(small, nullptr, nullptr) != QNN_SUCCESS) {
      fail(10);
    }
    float x[8] = {-1, 2, -3, 4, -5, 6, -7, 8}, y[8] = {};
    a.v1.clientBuf = {x, sizeof x};
    r.v1.clientBuf = {y, sizeof y};
    if (api().graphExecute(small, &a, 1, &r, 1, nullptr, nullptr) != QNN_SUCCESS) fail(11);
    for (int i = 0; i < 8; ++i) {
      if (y[i] != std::max(0.0f, x[i])) fail(12);
    }
    api().contextFree(ctx, nullptr);
    api().backendFree(backend);
  }, std::chrono::seconds(60), "an allocation the runtime cannot make");
  EXPECT_EQ(step, 0) << "step " << step << " of the child failed";
}
#endif

// The DSP process killed under a live backend: every later call fails at
// once with SYSTEM_COMMUNICATION (the code clients treat as a subsystem
// restart) — however many calls come, even once the slots of the calls in
// flight at the time are gone — and freeing the objects returns. Run in a
// child so a hang is caught by the deadline, not by CTest's timeout.
TEST(DspProcessLoss, CallsAfterTheDspDiesFailAtOnceAndNeverHang) {
  const int step = child_exit_status([] {
    Qnn_BackendHandle_t backend = nullptr;
    Qnn_ContextHandle_t ctx = nullptr;
    Qnn_GraphHandle_t g = nullptr;
    std::vector<uint32_t> dims{1, 8};
    Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
    Qnn_Tensor_t r = make_tensor("r", QNN_TENSOR_TYPE_APP_READ, dims);
    Qnn_LogHandle_t log = nullptr;
    if (api().logCreate(LogCapture::callback, QNN_LOG_LEVEL_ERROR, &log) != QNN_SUCCESS ||
        api().backendCreate(log, nullptr, &backend) != QNN_SUCCESS ||
        api().contextCreate(backend, nullptr, nullptr, &ctx) != QNN_SUCCESS ||
        api().graphCreate(ctx, "g", nullptr, &g) != QNN_SUCCESS || api().tensorCreateGraphTensor(g, &a) != QNN_SUCCESS ||
        api().tensorCreateGraphTensor(g, &r) != QNN_SUCCESS || add_node(g, "relu", QNN_OP_RELU, &a, 1, &r) != QNN_SUCCESS ||
        api().graphFinalize(g, nullptr, nullptr) != QNN_SUCCESS) {
      _exit(2);
    }
    float x[8] = {}, y[8] = {};
    a.v1.clientBuf = {x, sizeof x};
    r.v1.clientBuf = {y, sizeof y};
    if (api().graphExecute(g, &a, 1, &r, 1, nullptr, nullptr) != QNN_SUCCESS) _exit(3);
    const int dsp = openhtp_fastrpc_dsp_pid();
    if (dsp <= 0 || kill(dsp, SIGKILL) != 0) _exit(4);
    // More calls than there are call slots (16).
    LogCapture::instance().clear();
    for (int i = 0; i < 40; ++i) {
      if (api().graphExecute(g, &a, 1, &r, 1, nullptr, nullptr) != QNN_COMMON_ERROR_SYSTEM_COMMUNICATION) _exit(5);
    }
    // The line says what happened and what to do.
    if (!LogCapture::instance().has_line_with({"the DSP process is gone", "make new objects"})) _exit(6);
    api().contextFree(ctx, nullptr);  // the DSP side is gone; the call must return
    api().backendFree(backend);
  }, std::chrono::seconds(30), "calls after the DSP died");
  EXPECT_EQ(step, 0) << "step " << step << " of the child failed";
}

namespace {
class DspProcessLossFixture : public QnnFixture {};
}  // namespace

// A call whose fds cannot be sent (the fd of a by-reference buffer closed
// under it) fails cleanly — and leaves nothing stale behind. The call also
// had to grow its slot's transport buffer; the DSP never received the new
// one, so the next call on that slot must send it again (it used to read the
// old transport and answer with a stale status). Deterministic: the fd is
// closed before the call, and the slot is the same (one thread).
TEST_F(DspProcessLossFixture, AFailedFdSendLeavesNoStaleTransport) {
  constexpr uint32_t n = 1u << 20;  // 4 MiB per tensor: more than the slot's transport holds so far
  build_add_relu(n, "big");
  std::vector<float> b(n, 1.0f), out(n, -1.0f);
  // A placeholder taken before the buffer's fd, so it has a lower number:
  // freed with it, it is what the call's new transport takes (the lowest
  // free fd), and the buffer's fd number stays closed until the call sends it.
  const int placeholder = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(placeholder, 0);
  auto* a = static_cast<float*>(rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, size_t{n} * 4));
  ASSERT_NE(a, nullptr);
  std::fill(a, a + n, -2.0f);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.clientBuf = {a, n * 4};  // rpcmem: passed by reference, its fd sent with this first call
  in[1].v1.clientBuf = {b.data(), n * 4};
  Qnn_Tensor_t o = out_;
  o.v1.clientBuf = {out.data(), n * 4};
  const int fd = rpcmem_to_fd(a);
  ASSERT_LT(placeholder, fd);
  const int saved = fcntl(fd, F_DUPFD_CLOEXEC, fd + 100);  // out of the way of the lowest numbers
  ASSERT_GE(saved, 0);
  ASSERT_EQ(close(placeholder), 0);
  ASSERT_EQ(close(fd), 0);
  // The client's own mistake, not a lost DSP process: refused as an argument.
  EXPECT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_COMMON_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(fcntl(fd, F_GETFD), -1) << "the test meant the call to find fd " << fd << " closed";
  ASSERT_EQ(dup2(saved, fd), fd);  // rpcmem's fd is whole again
  close(saved);
  // The same slot again, with the buffer's fd back: a right answer, and the
  // next one too.
  for (float x : {3.0f, -5.0f}) {
    std::fill(a, a + n, x);
    ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS) << x;
    EXPECT_EQ(out[0], std::max(0.0f, x + 1.0f)) << x;
    EXPECT_EQ(out[n - 1], std::max(0.0f, x + 1.0f)) << x;
  }
  rpcmem_free(a);
}

// A subsystem restart as clients handle it: after 1007 they make new objects
// and carry on, often before freeing the stale ones. A new context on the
// same backend, and a new backend, each get a fresh DSP process while the
// dead one's objects still exist; those keep failing with 1007 and are freed
// without a hang. Several cycles, in a child under a deadline.
TEST(DspProcessLoss, NewObjectsGetAFreshDspWhileStaleOnesStillExist) {
  const int step = child_exit_status([] {
    std::vector<uint32_t> dims{1, 8};
    // Builds a one-Relu graph in a new context of `backend`; 0 on success.
    auto make = [&](Qnn_BackendHandle_t backend, Qnn_ContextHandle_t* ctx, Qnn_GraphHandle_t* g, Qnn_Tensor_t* a,
                    Qnn_Tensor_t* r) {
      *a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
      *r = make_tensor("r", QNN_TENSOR_TYPE_APP_READ, dims);
      if (api().contextCreate(backend, nullptr, nullptr, ctx) != QNN_SUCCESS) return 1;
      if (api().graphCreate(*ctx, "g", nullptr, g) != QNN_SUCCESS || api().tensorCreateGraphTensor(*g, a) != QNN_SUCCESS ||
          api().tensorCreateGraphTensor(*g, r) != QNN_SUCCESS || add_node(*g, "relu", QNN_OP_RELU, a, 1, r) != QNN_SUCCESS ||
          api().graphFinalize(*g, nullptr, nullptr) != QNN_SUCCESS) {
        return 2;
      }
      return 0;
    };
    float x[8] = {-1, 2, -3, 4, -5, 6, -7, 8}, y[8] = {};
    auto run = [&](Qnn_GraphHandle_t g, Qnn_Tensor_t a, Qnn_Tensor_t r) {
      a.v1.clientBuf = {x, sizeof x};
      r.v1.clientBuf = {y, sizeof y};
      std::fill(y, y + 8, -1.0f);
      const Qnn_ErrorHandle_t e = api().graphExecute(g, &a, 1, &r, 1, nullptr, nullptr);
      if (e == QNN_SUCCESS && (y[0] != 0.0f || y[1] != 2.0f || y[7] != 8.0f)) return Qnn_ErrorHandle_t{1};
      return e;
    };
    Qnn_BackendHandle_t backend = nullptr;
    if (api().backendCreate(nullptr, nullptr, &backend) != QNN_SUCCESS) _exit(2);
    Qnn_ContextHandle_t ctx = nullptr;
    Qnn_GraphHandle_t g = nullptr;
    Qnn_Tensor_t a, r;
    if (make(backend, &ctx, &g, &a, &r) != 0 || run(g, a, r) != QNN_SUCCESS) _exit(3);
    for (int cycle = 0; cycle < 5; ++cycle) {
      const int dsp = openhtp_fastrpc_dsp_pid();
      if (dsp <= 0 || kill(dsp, SIGKILL) != 0) _exit(10 + cycle);
      if (cycle % 2 == 1) {
        // As a client's own SIGCHLD handler would: the DSP process is our
        // child, and reaped here, libcdsprpc must still see it gone.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        waitpid(dsp, nullptr, 0);
      }
      if (run(g, a, r) != QNN_COMMON_ERROR_SYSTEM_COMMUNICATION) _exit(20 + cycle);
      // A new context on the same backend, the stale one still alive.
      Qnn_ContextHandle_t ctx2 = nullptr;
      Qnn_GraphHandle_t g2 = nullptr;
      Qnn_Tensor_t a2, r2;
      if (make(backend, &ctx2, &g2, &a2, &r2) != 0) _exit(30 + cycle);
      if (run(g2, a2, r2) != QNN_SUCCESS) _exit(40 + cycle);
      if (openhtp_fastrpc_dsp_pid() == dsp) _exit(50 + cycle);
      if (run(g, a, r) != QNN_COMMON_ERROR_SYSTEM_COMMUNICATION) _exit(60 + cycle);  // stale stays stale
      api().contextFree(ctx, nullptr);  // returns; the DSP side of it is gone
      ctx = ctx2, g = g2, a = a2, r = r2;
    }
    // A new backend while the old one lives, after one more crash.
    kill(openhtp_fastrpc_dsp_pid(), SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Qnn_BackendHandle_t backend2 = nullptr;
    Qnn_ContextHandle_t ctx3 = nullptr;
    Qnn_GraphHandle_t g3 = nullptr;
    Qnn_Tensor_t a3, r3;
    if (api().backendCreate(nullptr, nullptr, &backend2) != QNN_SUCCESS) _exit(70);
    if (make(backend2, &ctx3, &g3, &a3, &r3) != 0 || run(g3, a3, r3) != QNN_SUCCESS) _exit(71);
    api().contextFree(ctx, nullptr);
    api().backendFree(backend);
    api().contextFree(ctx3, nullptr);
    api().backendFree(backend2);
  }, std::chrono::seconds(60), "recovering from DSP crashes");
  EXPECT_EQ(step, 0) << "step " << step << " of the child failed";
}

// A DSP process that died a moment ago, before anything noticed (it is a
// zombie nobody has reaped): the next new context must still come up, in a
// fresh DSP process, not fail with 1007 because the death was not seen yet.
TEST(DspProcessLoss, ANewContextRightAfterAnUnnoticedCrashGetsAFreshDsp) {
  const int step = child_exit_status([] {
    Qnn_BackendHandle_t backend = nullptr;
    if (api().backendCreate(nullptr, nullptr, &backend) != QNN_SUCCESS) _exit(2);
    Qnn_ContextHandle_t first = nullptr;
    if (api().contextCreate(backend, nullptr, nullptr, &first) != QNN_SUCCESS) _exit(3);
    const int dsp = openhtp_fastrpc_dsp_pid();
    if (dsp <= 0 || kill(dsp, SIGKILL) != 0) _exit(4);
    // Dead but unreaped: /proc says Z. Only then is the crash certain and
    // still unnoticed by libcdsprpc (which reaps it when it looks).
    for (int i = 0; i < 500; ++i) {
      char path[64], state = '?';
      std::snprintf(path, sizeof path, "/proc/%d/stat", dsp);
      if (FILE* f = std::fopen(path, "r")) {
        if (std::fscanf(f, "%*d %*s %c", &state) != 1) state = '?';
        std::fclose(f);
      }
      if (state == 'Z') break;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::vector<uint32_t> dims{1, 8};
    Qnn_ContextHandle_t ctx = nullptr;
    Qnn_GraphHandle_t g = nullptr;
    Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
    Qnn_Tensor_t r = make_tensor("r", QNN_TENSOR_TYPE_APP_READ, dims);
    if (api().contextCreate(backend, nullptr, nullptr, &ctx) != QNN_SUCCESS) _exit(5);
    if (api().graphCreate(ctx, "g", nullptr, &g) != QNN_SUCCESS || api().tensorCreateGraphTensor(g, &a) != QNN_SUCCESS ||
        api().tensorCreateGraphTensor(g, &r) != QNN_SUCCESS || add_node(g, "relu", QNN_OP_RELU, &a, 1, &r) != QNN_SUCCESS ||
        api().graphFinalize(g, nullptr, nullptr) != QNN_SUCCESS) {
      _exit(6);
    }
    float x[8] = {-1, 2, -3, 4, -5, 6, -7, 8}, y[8] = {};
    a.v1.clientBuf = {x, sizeof x};
    r.v1.clientBuf = {y, sizeof y};
    if (api().graphExecute(g, &a, 1, &r, 1, nullptr, nullptr) != QNN_SUCCESS || y[1] != 2.0f || y[0] != 0.0f) _exit(7);
    if (openhtp_fastrpc_dsp_pid() == dsp) _exit(8);
    if (api().contextFree(first, nullptr) != QNN_SUCCESS) _exit(9);
    api().contextFree(ctx, nullptr);
    api().backendFree(backend);
  }, std::chrono::seconds(30), "a new context after an unnoticed crash");
  EXPECT_EQ(step, 0) << "step " << step << " of the child failed";
}

// 100 subsystem restarts in a row, as a client recovering each time: every
// DSP process dies at its second execute (OPENHTP_SSR_AT=execute:2); the
// client sees 1007 there, frees the dead context (which succeeds), makes a
// new one on the same backend (a fresh DSP process) and runs again. At the
// end: 100 recoveries, no hang, no zombie, and the client's fds and memory
// where they were after the first cycles.
TEST(DspProcessLoss, AHundredRestartsRecoverWithFdsAndMemoryBackToBaseline) {
  const int step = child_exit_status([] {
    setenv("OPENHTP_SSR_AT", "execute:2", 1);  // each fresh DSP process dies at its 2nd execute
    auto count_fds = [] {
      int n = 0;
      if (DIR* d = opendir("/proc/self/fd")) {
        while (readdir(d) != nullptr) ++n;
        closedir(d);
      }
      return n;
    };
    auto rss_kib = [] {
      long pages = 0, resident = 0;
      FILE* f = std::fopen("/proc/self/statm", "r");
      if (f == nullptr || std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
      if (f != nullptr) std::fclose(f);
      return resident * (sysconf(_SC_PAGESIZE) / 1024);
    };
    std::vector<uint32_t> dims{1, 8};
    float x[8] = {-1, 2, -3, 4, -5, 6, -7, 8}, y[8] = {};
    Qnn_BackendHandle_t backend = nullptr;
    if (api().backendCreate(nullptr, nullptr, &backend) != QNN_SUCCESS) _exit(2);
    int baseline_fds = 0;
    long baseline_rss = 0;
    for (int cycle = 0; cycle < 100; ++cycle) {
      Qnn_ContextHandle_t ctx = nullptr;
      Qnn_GraphHandle_t g = nullptr;
      Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
      Qnn_Tensor_t r = make_tensor("r", QNN_TENSOR_TYPE_APP_READ, dims);
      if (api().contextCreate(backend, nullptr, nullptr, &ctx) != QNN_SUCCESS ||
          api().graphCreate(ctx, "g", nullptr, &g) != QNN_SUCCESS || api().tensorCreateGraphTensor(g, &a) != QNN_SUCCESS ||
          api().tensorCreateGraphTensor(g, &r) != QNN_SUCCESS || add_node(g, "relu", QNN_OP_RELU, &a, 1, &r) != QNN_SUCCESS ||
          api().graphFinalize(g, nullptr, nullptr) != QNN_SUCCESS) {
        _exit(3);
      }
      a.v1.clientBuf = {x, sizeof x};
      r.v1.clientBuf = {y, sizeof y};
      y[1] = -1.0f;
      if (api().graphExecute(g, &a, 1, &r, 1, nullptr, nullptr) != QNN_SUCCESS || y[1] != 2.0f) _exit(4);
      if (api().graphExecute(g, &a, 1, &r, 1, nullptr, nullptr) != QNN_COMMON_ERROR_SYSTEM_COMMUNICATION) _exit(5);
      if (api().contextFree(ctx, nullptr) != QNN_SUCCESS) _exit(6);  // freeing a dead object succeeds
      if (cycle == 4) {
        baseline_fds = count_fds();
        baseline_rss = rss_kib();
      }
    }
    if (count_fds() != baseline_fds) _exit(7);
    if (rss_kib() - baseline_rss > 4096) _exit(8);  // 95 cycles may not grow the client by 4 MiB
    // Every DSP process was reaped: no zombie child is left.
    api().backendFree(backend);
    if (waitpid(-1, nullptr, WNOHANG) > 0) _exit(9);
  }, std::chrono::seconds(120), "100 restarts");
  EXPECT_EQ(step, 0) << "step " << step << " of the child failed";
}

// SSR on demand (OPENHTP_SSR_AT, src/dsp/htp_skel/ssr_trigger.h): the DSP
// process dies at the chosen call, the client sees 1007 there and not
// before, and recovers with a fresh DSP process.
TEST(DspProcessLoss, SsrOnDemandStopsTheDspAtTheChosenCall) {
  for (const char* point : {"execute:3", "prepare:2"}) {
    const int step = child_exit_status([point] {
      setenv("OPENHTP_SSR_AT", point, 1);  // inherited by the DSP process the first call starts
      const bool at_execute = std::strcmp(point, "execute:3") == 0;
      std::vector<uint32_t> dims{1, 8};
      float x[8] = {-1, 2, -3, 4, -5, 6, -7, 8}, y[8] = {};
      Qnn_BackendHandle_t backend = nullptr;
      if (api().backendCreate(nullptr, nullptr, &backend) != QNN_SUCCESS) _exit(2);
      // One context and graph; the graph's finalize is a prepare.
      auto make = [&](Qnn_ContextHandle_t* ctx, Qnn_GraphHandle_t* g, Qnn_Tensor_t* a, Qnn_Tensor_t* r) {
        *a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
        *r = make_tensor("r", QNN_TENSOR_TYPE_APP_READ, dims);
        if (api().contextCreate(backend, nullptr, nullptr, ctx) != QNN_SUCCESS ||
            api().graphCreate(*ctx, "g", nullptr, g) != QNN_SUCCESS || api().tensorCreateGraphTensor(*g, a) != QNN_SUCCESS ||
            api().tensorCreateGraphTensor(*g, r) != QNN_SUCCESS || add_node(*g, "relu", QNN_OP_RELU, a, 1, r) != QNN_SUCCESS) {
          return Qnn_ErrorHandle_t{1};
        }
        return api().graphFinalize(*g, nullptr, nullptr);
      };
      auto run = [&](Qnn_GraphHandle_t g, Qnn_Tensor_t a, Qnn_Tensor_t r) {
        a.v1.clientBuf = {x, sizeof x};
        r.v1.clientBuf = {y, sizeof y};
        return api().graphExecute(g, &a, 1, &r, 1, nullptr, nullptr);
      };
      Qnn_ContextHandle_t c1 = nullptr, c2 = nullptr;
      Qnn_GraphHandle_t g1 = nullptr, g2 = nullptr;
      Qnn_Tensor_t a1, r1, a2, r2;
      if (make(&c1, &g1, &a1, &r1) != QNN_SUCCESS) _exit(3);  // prepare 1
      if (at_execute) {
        if (run(g1, a1, r1) != QNN_SUCCESS || run(g1, a1, r1) != QNN_SUCCESS) _exit(4);  // executes 1, 2
        if (run(g1, a1, r1) != QNN_COMMON_ERROR_SYSTEM_COMMUNICATION) _exit(5);          // execute 3
      } else {
        if (run(g1, a1, r1) != QNN_SUCCESS) _exit(6);
        if (make(&c2, &g2, &a2, &r2) != QNN_COMMON_ERROR_SYSTEM_COMMUNICATION) _exit(7);  // prepare 2
      }
      unsetenv("OPENHTP_SSR_AT");  // the fresh DSP process runs normally
      Qnn_ContextHandle_t c3 = nullptr;
      Qnn_GraphHandle_t g3 = nullptr;
      Qnn_Tensor_t a3, r3;
      if (make(&c3, &g3, &a3, &r3) != QNN_SUCCESS || run(g3, a3, r3) != QNN_SUCCESS) _exit(8);
      if (y[1] != 2.0f || y[2] != 0.0f) _exit(9);
      api().contextFree(c1, nullptr);
      if (c2 != nullptr) api().contextFree(c2, nullptr);
      api().contextFree(c3, nullptr);
      api().backendFree(backend);
    }, std::chrono::seconds(30), point);
    EXPECT_EQ(step, 0) << point << ": step " << step << " of the child failed";
  }
}
