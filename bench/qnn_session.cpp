#include "qnn_session.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "QnnOpDef.h"

namespace bench {
namespace {

// Errors only: anything the backend logs during a run is a problem worth
// seeing next to the numbers, and a chattier level would cost time inside the
// measured calls.
void log_callback(const char* fmt, QnnLog_Level_t level, uint64_t, va_list args) {
  if (level != QNN_LOG_LEVEL_ERROR) return;
  std::fputs("qnn: ", stderr);
  std::vfprintf(stderr, fmt, args);
  std::fputc('\n', stderr);
}

std::unique_ptr<QnnSession> g_sessions[2];
std::mutex g_mu;

Qnn_Tensor_t make_tensor(const char* name, Qnn_TensorType_t type, std::vector<uint32_t>& dims) {
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  t.v1.name = name;
  t.v1.type = type;
  t.v1.dataType = QNN_DATATYPE_FLOAT_32;
  t.v1.rank = static_cast<uint32_t>(dims.size());
  t.v1.dimensions = dims.data();
  t.v1.memType = QNN_TENSORMEMTYPE_RAW;
  return t;
}

}  // namespace

const QNN_INTERFACE_VER_TYPE& qnn() {
  static const QNN_INTERFACE_VER_TYPE* table = [] {
    const QnnInterface_t** providers = nullptr;
    uint32_t n = 0;
    if (QnnInterface_getProviders(&providers, &n) != QNN_SUCCESS || n < 1) {
      std::fprintf(stderr, "bench: QnnInterface_getProviders found no provider\n");
      std::abort();
    }
    return &providers[0]->QNN_INTERFACE_VER_NAME;
  }();
  return *table;
}

std::string qnn_error(Qnn_ErrorHandle_t e) {
  const char* msg = nullptr;
  if (qnn().errorGetMessage != nullptr && qnn().errorGetMessage(e, &msg) == QNN_SUCCESS && msg != nullptr) {
    return std::to_string(e) + " (" + msg + ")";
  }
  return std::to_string(e);
}

QnnSession& QnnSession::get(Transport t) {
  std::lock_guard lock(g_mu);
  auto& slot = g_sessions[static_cast<int>(t)];
  if (!slot) slot.reset(new QnnSession(t));
  return *slot;
}

void QnnSession::teardown_all() {
  std::lock_guard lock(g_mu);
  for (auto& s : g_sessions) s.reset();
}

QnnSession::QnnSession(Transport t) : transport_(t) {
  auto die = [&](const char* what, Qnn_ErrorHandle_t e) {
    std::fprintf(stderr, "bench: %s failed (%s transport): %s\n", what, t == Transport::kInProc ? "inproc" : "FastRPC",
                 qnn_error(e).c_str());
    std::abort();
  };
  if (Qnn_ErrorHandle_t e = qnn().logCreate(log_callback, QNN_LOG_LEVEL_ERROR, &log_); e != QNN_SUCCESS) {
    die("logCreate", e);
  }
  // The backend reads OPENHTP_HTP_TRANSPORT at backendCreate only, so the
  // variable is set just around that call: the other transport's backend in
  // this same process stays unaffected.
  if (t == Transport::kInProc) {
    setenv("OPENHTP_HTP_TRANSPORT", "inproc", 1);
  } else {
    unsetenv("OPENHTP_HTP_TRANSPORT");
  }
  Qnn_ErrorHandle_t e = qnn().backendCreate(log_, nullptr, &backend_);
  unsetenv("OPENHTP_HTP_TRANSPORT");
  if (e != QNN_SUCCESS) die("backendCreate", e);
  if (e = qnn().contextCreate(backend_, nullptr, nullptr, &context_); e != QNN_SUCCESS) die("contextCreate", e);
}

QnnSession::~QnnSession() {
  if (!mems_.empty()) qnn().memDeRegister(mems_.data(), static_cast<uint32_t>(mems_.size()));
  if (context_ != nullptr) qnn().contextFree(context_, nullptr);  // frees its graphs too
  if (backend_ != nullptr) qnn().backendFree(backend_);
  if (log_ != nullptr) qnn().logFree(log_);
}

ReluGraph QnnSession::build_relu(const std::string& name, uint32_t n, std::string* error) {
  ReluGraph g;
  g.num_elements = n;
  g.dims = {1, n};
  g.in = make_tensor("in", QNN_TENSOR_TYPE_APP_WRITE, g.dims);
  g.out = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, g.dims);
  Qnn_GraphHandle_t h = nullptr;
  auto fail = [&](const char* what, Qnn_ErrorHandle_t e) {
    *error = std::string(what) + " failed: " + qnn_error(e);
    return ReluGraph{};
  };
  if (Qnn_ErrorHandle_t e = qnn().graphCreate(context_, name.c_str(), nullptr, &h); e != QNN_SUCCESS) {
    return fail("graphCreate", e);
  }
  for (Qnn_Tensor_t* t : {&g.in, &g.out}) {
    if (Qnn_ErrorHandle_t e = qnn().tensorCreateGraphTensor(h, t); e != QNN_SUCCESS) {
      return fail("tensorCreateGraphTensor", e);
    }
  }
  Qnn_OpConfig_t relu = QNN_OPCONFIG_INIT;
  relu.v1.name = "relu";
  relu.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
  relu.v1.typeName = QNN_OP_RELU;
  relu.v1.numOfInputs = 1;
  relu.v1.inputTensors = &g.in;
  relu.v1.numOfOutputs = 1;
  relu.v1.outputTensors = &g.out;
  if (Qnn_ErrorHandle_t e = qnn().graphAddNode(h, relu); e != QNN_SUCCESS) return fail("graphAddNode", e);
  if (Qnn_ErrorHandle_t e = qnn().graphFinalize(h, nullptr, nullptr); e != QNN_SUCCESS) {
    return fail("graphFinalize", e);
  }
  g.handle = h;
  return g;
}

Qnn_MemHandle_t QnnSession::register_ion(int fd, const ReluGraph& g, std::string* error) {
  Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
  d.memShape = {static_cast<uint32_t>(g.dims.size()), const_cast<uint32_t*>(g.dims.data()), nullptr};
  d.dataType = QNN_DATATYPE_FLOAT_32;
  d.memType = QNN_MEM_TYPE_ION;
  d.ionInfo.fd = fd;
  Qnn_MemHandle_t h = nullptr;
  if (Qnn_ErrorHandle_t e = qnn().memRegister(context_, &d, 1, &h); e != QNN_SUCCESS) {
    *error = "memRegister failed: " + qnn_error(e);
    return nullptr;
  }
  mems_.push_back(h);
  return h;
}

void QnnSession::deregister(Qnn_MemHandle_t h) {
  for (auto it = mems_.begin(); it != mems_.end(); ++it) {
    if (*it == h) {
      qnn().memDeRegister(&h, 1);
      mems_.erase(it);
      return;
    }
  }
}

}  // namespace bench
