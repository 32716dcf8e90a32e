// Helpers shared by the QNN API tests: the provider's function table, a log
// capture, and a small graph builder.
#pragma once

#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "HTP/QnnHtpGraph.h"
#include "HTP/QnnHtpMem.h"
#include "QnnInterface.h"
#include "QnnOpDef.h"


// The suite runs twice (CTest qnn.* and qnn_inproc.*): through the FastRPC
// door and with the runtime in this process (OPENHTP_HTP_TRANSPORT=inproc).
// Copy accounting differs by design: in-process nothing is copied.
inline bool in_process_transport() {
  const char* t = std::getenv("OPENHTP_HTP_TRANSPORT");
  return t != nullptr && std::string(t) == "inproc";
}

namespace qnntest {

// A process's memory figure from /proc/<pid>/status ("VmRSS:", "VmHWM:",
// "RssShmem:"), in KB; -1 if unreadable.
inline long status_kb(int pid, const char* key) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/status").c_str(), "r");
  long v = -1;
  char line[256];
  while (f != nullptr && std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, key, std::strlen(key)) == 0) v = std::atol(line + std::strlen(key));
  }
  if (f != nullptr) std::fclose(f);
  return v;
}
// Resets this process's VmHWM to its VmRSS, so the next VmHWM is the peak of
// what runs in between.
inline void reset_peak_rss() {
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w"); f != nullptr) std::fputs("5", f), std::fclose(f);
}
// Whether RSS is the program's own: ASan's quarantine and TSan's shadow keep
// memory resident that the program freed, so RSS bounds hold only without them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kRssIsTheProgramsOwn = false;
#else
inline constexpr bool kRssIsTheProgramsOwn = true;
#endif

// The HTP provider's table, obtained the way clients do.
inline const QNN_INTERFACE_VER_TYPE& api() {
  static const QNN_INTERFACE_VER_TYPE* table = [] {
    const QnnInterface_t** providers = nullptr;
    uint32_t n = 0;
    if (QnnInterface_getProviders(&providers, &n) != QNN_SUCCESS || n != 1) std::abort();
    return &providers[0]->QNN_INTERFACE_VER_NAME;
  }();
  return *table;
}

// Collects every line the backend logs.
class LogCapture {
 public:
  static LogCapture& instance() {
    static LogCapture c;
    return c;
  }
  void clear() {
    std::lock_guard l(mu_);
    lines_.clear();
  }
  std::vector<std::string> lines() {
    std::lock_guard l(mu_);
    return lines_;
  }
  // True if exactly one captured line contains every needle.
  bool has_line_with(std::initializer_list<std::string> needles) {
    std::lock_guard l(mu_);
    for (const auto& line : lines_) {
      bool all = true;
      for (const auto& n : needles) all &= line.find(n) != std::string::npos;
      if (all) return true;
    }
    return false;
  }
  static void callback(const char* fmt, QnnLog_Level_t level, uint64_t, va_list args) {
    if (level != QNN_LOG_LEVEL_ERROR) return;
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, args);
    std::lock_guard l(instance().mu_);
    instance().lines_.push_back(buf);
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

inline Qnn_Tensor_t make_tensor(const char* name, Qnn_TensorType_t type, std::vector<uint32_t>& dims,
                                Qnn_DataType_t dt = QNN_DATATYPE_FLOAT_32) {
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  t.v1.name = name;
  t.v1.type = type;
  t.v1.dataType = dt;
  t.v1.rank = static_cast<uint32_t>(dims.size());
  t.v1.dimensions = dims.data();
  t.v1.memType = QNN_TENSORMEMTYPE_RAW;
  return t;
}

// Adds a qti.aisw node without parameters (single output); returns addNode's code.
inline Qnn_ErrorHandle_t add_node(Qnn_GraphHandle_t graph, const char* name, const char* type, Qnn_Tensor_t* inputs,
                                  uint32_t num_inputs, Qnn_Tensor_t* output) {
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  op.v1.name = name;
  op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
  op.v1.typeName = type;
  op.v1.numOfInputs = num_inputs;
  op.v1.inputTensors = inputs;
  op.v1.numOfOutputs = 1;
  op.v1.outputTensors = output;
  return api().graphAddNode(graph, op);
}

// Builds and finalizes y = relu(x) on `graph` (FLOAT_32, `dims`); the
// tensors are left in *x / *y with their ids. Returns the first failing code.
inline Qnn_ErrorHandle_t build_relu(Qnn_GraphHandle_t graph, std::vector<uint32_t>& dims, Qnn_Tensor_t* x,
                                    Qnn_Tensor_t* y) {
  *x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, dims);
  *y = make_tensor("y", QNN_TENSOR_TYPE_APP_READ, dims);
  for (Qnn_Tensor_t* t : {x, y}) {
    if (Qnn_ErrorHandle_t e = api().tensorCreateGraphTensor(graph, t); e != QNN_SUCCESS) return e;
  }
  if (Qnn_ErrorHandle_t e = add_node(graph, "relu", QNN_OP_RELU, x, 1, y); e != QNN_SUCCESS) return e;
  return api().graphFinalize(graph, nullptr, nullptr);
}

// Backend + context with a log capture, torn down in reverse.
// A graph config list holding one HTP custom config (NUM_HVX_THREADS, VTCM
// size, ...): set `htp`'s fields, pass list() to graphCreate/graphSetConfig.
struct HtpGraphConfig {
  explicit HtpGraphConfig(QnnHtpGraph_ConfigOption_t option) {
    htp.option = option;
    cfg.option = QNN_GRAPH_CONFIG_OPTION_CUSTOM;
    cfg.customConfig = &htp;
  }
  HtpGraphConfig(const HtpGraphConfig&) = delete;
  HtpGraphConfig& operator=(const HtpGraphConfig&) = delete;
  const QnnGraph_Config_t** list() { return entries; }

  QnnHtpGraph_CustomConfig_t htp{};
  QnnGraph_Config_t cfg = QNN_GRAPH_CONFIG_INIT;
  const QnnGraph_Config_t* entries[2] = {&cfg, nullptr};
};

// Executes `graph` with a BASIC profile and returns the "Number of HVX
// threads used" the backend reported for that execute (0 when absent or
// when the execute failed).
inline uint64_t hvx_threads_of_execute(Qnn_BackendHandle_t backend, Qnn_GraphHandle_t graph,
                                       const Qnn_Tensor_t* inputs, uint32_t num_inputs, Qnn_Tensor_t* outputs,
                                       uint32_t num_outputs) {
  Qnn_ProfileHandle_t prof = nullptr;
  if (api().profileCreate(backend, QNN_PROFILE_LEVEL_BASIC, &prof) != QNN_SUCCESS) return 0;
  uint64_t threads = 0;
  if (api().graphExecute(graph, inputs, num_inputs, outputs, num_outputs, prof, nullptr) == QNN_SUCCESS) {
    const QnnProfile_EventId_t* events = nullptr;
    uint32_t n = 0;
    if (api().profileGetEvents(prof, &events, &n) == QNN_SUCCESS && n == 1) {
      const QnnProfile_EventId_t* subs = nullptr;
      uint32_t nsub = 0;
      api().profileGetSubEvents(events[0], &subs, &nsub);
      for (uint32_t i = 0; i < nsub; ++i) {
        QnnProfile_EventData_t d{};
        if (api().profileGetEventData(subs[i], &d) == QNN_SUCCESS && d.identifier != nullptr &&
            std::string(d.identifier) == "Number of HVX threads used") {
          threads = d.value;
        }
      }
    }
  }
  api().profileFree(prof);
  return threads;
}

class QnnFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    LogCapture::instance().clear();
    ASSERT_EQ(api().logCreate(LogCapture::callback, QNN_LOG_LEVEL_ERROR, &log_), QNN_SUCCESS);
    ASSERT_EQ(api().backendCreate(log_, nullptr, &backend_), QNN_SUCCESS);
    ASSERT_EQ(api().contextCreate(backend_, nullptr, nullptr, &context_), QNN_SUCCESS);
  }
  void TearDown() override {
    if (context_ != nullptr) api().contextFree(context_, nullptr);
    if (backend_ != nullptr) api().backendFree(backend_);
    if (log_ != nullptr) api().logFree(log_);
  }

  // out = relu(a + b) over `n` floats: a minimal two-node graph. Tensors are
  // left in a_/b_/out_ with their ids filled in.
  void build_add_relu(uint32_t n, const char* name = "add_relu") {
    dims_ = {1, n};
    a_ = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims_);
    b_ = make_tensor("b", QNN_TENSOR_TYPE_APP_WRITE, dims_);
    sum_ = make_tensor("sum", QNN_TENSOR_TYPE_NATIVE, dims_);
    out_ = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, dims_);
    ASSERT_EQ(api().graphCreate(context_, name, nullptr, &graph_), QNN_SUCCESS);
    for (Qnn_Tensor_t* t : {&a_, &b_, &sum_, &out_}) ASSERT_EQ(api().tensorCreateGraphTensor(graph_, t), QNN_SUCCESS);
    Qnn_Tensor_t add_in[] = {a_, b_};
    Qnn_OpConfig_t add = QNN_OPCONFIG_INIT;
    add.v1.name = "add";
    add.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
    add.v1.typeName = QNN_OP_ELEMENT_WISE_ADD;
    add.v1.numOfInputs = 2;
    add.v1.inputTensors = add_in;
    add.v1.numOfOutputs = 1;
    add.v1.outputTensors = &sum_;
    ASSERT_EQ(api().graphAddNode(graph_, add), QNN_SUCCESS);
    Qnn_OpConfig_t relu = QNN_OPCONFIG_INIT;
    relu.v1.name = "relu";
    relu.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
    relu.v1.typeName = QNN_OP_RELU;
    relu.v1.numOfInputs = 1;
    relu.v1.inputTensors = &sum_;
    relu.v1.numOfOutputs = 1;
    relu.v1.outputTensors = &out_;
    ASSERT_EQ(api().graphAddNode(graph_, relu), QNN_SUCCESS);
    ASSERT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_SUCCESS);
  }

  Qnn_LogHandle_t log_ = nullptr;
  Qnn_BackendHandle_t backend_ = nullptr;
  Qnn_ContextHandle_t context_ = nullptr;
  Qnn_GraphHandle_t graph_ = nullptr;
  std::vector<uint32_t> dims_;
  Qnn_Tensor_t a_, b_, sum_, out_;
};

}  // namespace qnntest
