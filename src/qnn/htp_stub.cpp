#include "qnn/htp_stub.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "common/openmp_policy.h"
#include <mutex>

#include "QnnContext.h"
#include "QnnGraph.h"
#include "QnnMem.h"
#include "openhtp/fastrpc_ext.h"
#include "qnn/logger.h"

namespace openhtp::qnn {
namespace {

std::mutex g_mu;
// One stub per transport, shared by the backends that use it. The transport is
// read from OPENHTP_HTP_TRANSPORT at each backendCreate, so one process can
// hold a FastRPC backend and an in-process backend side by side (the bench
// compares them in one run).
std::weak_ptr<HtpStub> g_fastrpc_stub, g_inproc_stub;

std::string own_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_dir), &info) == 0 || info.dli_fname == nullptr) return ".";
  std::string p = info.dli_fname;
  auto slash = p.rfind('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

}  // namespace

std::shared_ptr<HtpStub> HtpStub::get(Qnn_ErrorHandle_t* err) {
  std::lock_guard lock(g_mu);
  const char* transport = getenv("OPENHTP_HTP_TRANSPORT");
  const bool inproc = transport != nullptr && std::strcmp(transport, "inproc") == 0;
  std::weak_ptr<HtpStub>& slot = inproc ? g_inproc_stub : g_fastrpc_stub;
  if (auto s = slot.lock()) return s;
  std::shared_ptr<HtpStub> s(new HtpStub);
  if (inproc) {
    const std::string path = own_dir() + "/dsp/" + skel::kSkelLibrary;
    prefer_passive_openmp_wait();  // the skel brings oneDNN and libgomp into this process
    s->inproc_lib_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto open_fn = s->inproc_lib_ ? reinterpret_cast<int (*)(const char*, remote_handle64*)>(
                                        dlsym(s->inproc_lib_, skel::kOpenSymbol))
                                  : nullptr;
    s->inproc_invoke_ =
        s->inproc_lib_ ? reinterpret_cast<InvokeFn>(dlsym(s->inproc_lib_, skel::kInvokeSymbol)) : nullptr;
    if (open_fn == nullptr || s->inproc_invoke_ == nullptr || open_fn(skel::kSkelUri, &s->handle_) != 0) {
      QNN_LOG_ERROR("in-process transport: cannot load the HTP skel %s: %s", path.c_str(), dlerror());
      s->inproc_invoke_ = nullptr;
      *err = QNN_COMMON_ERROR_LOADING_BINARIES;
      return nullptr;
    }
  } else {
    int rc = remote_handle64_open(skel::kSkelUri, &s->handle_);
    if (rc != 0) {
      QNN_LOG_ERROR("cannot open the HTP skel in the DSP process (%s): FastRPC error %d", skel::kSkelUri, rc);
      *err = QNN_COMMON_ERROR_SYSTEM_COMMUNICATION;
      return nullptr;
    }
  }
  slot = s;
  return s;
}

HtpStub::~HtpStub() {
  if (inproc_invoke_ == nullptr && handle_ != 0) remote_handle64_close(handle_);
  // The in-process skel stays loaded: its runtime may still own threads.
}

Qnn_ErrorHandle_t HtpStub::call(uint32_t method, uint32_t n_in, uint32_t n_out, uint32_t n_hin, remote_arg* args,
                                skel::SkelStatus* status, TransferStats* stats) {
  const uint32_t sc = REMOTE_SCALARS_MAKEX(0, method, n_in, n_out, n_hin, 0);
  int rc;
  if (inproc_invoke_ != nullptr) {
    rc = inproc_invoke_(handle_, sc, args);
  } else {
    rc = remote_handle64_invoke(handle_, sc, args);
    if (stats != nullptr) {
      openhtp_fastrpc_call_stats fs{};
      openhtp_fastrpc_last_call_stats(&fs);
      stats->bytes_copied_in = fs.bytesCopiedIn;
      // The status block is transport overhead, not tensor data.
      stats->bytes_copied_out = fs.bytesCopiedOut >= sizeof(skel::SkelStatus) ? fs.bytesCopiedOut - sizeof(skel::SkelStatus) : 0;
      stats->bytes_by_reference = fs.bytesByReference;
    }
  }
  if (rc != 0) {
    QNN_LOG_ERROR("remote call %u to the DSP failed: FastRPC error %d (DSP process lost?)", method, rc);
    return QNN_COMMON_ERROR_SYSTEM_COMMUNICATION;
  }
  if (status->error != QNN_SUCCESS) log_error_message(status->id);
  return status->error;
}

void HtpStub::log_error_message(uint64_t ticket) {
  // A failure's text stays in the skel until asked for, so that successful
  // calls return only the 32-byte status (see skel::SkelStatus).
  skel::IdReq req{ticket};
  char message[skel::kErrorMessageBytes] = {};
  skel::SkelStatus st;
  remote_arg a[3];
  a[0].buf = {&req, sizeof req};
  a[1].buf = {message, sizeof message};
  a[2].buf = {&st, sizeof st};
  const uint32_t sc = REMOTE_SCALARS_MAKEX(0, skel::kErrorMessage, 1, 2, 0, 0);
  const int rc = inproc_invoke_ != nullptr ? inproc_invoke_(handle_, sc, a) : remote_handle64_invoke(handle_, sc, a);
  message[sizeof message - 1] = '\0';
  if (rc == 0 && message[0] != '\0') QNN_LOG_ERROR("%s", message);
}

Qnn_ErrorHandle_t HtpStub::id_call(uint32_t method, uint64_t id) {
  skel::IdReq req{id};
  skel::SkelStatus st;
  remote_arg a[2];
  a[0].buf = {&req, sizeof req};
  a[1].buf = {&st, sizeof st};
  return call(method, 1, 1, 0, a, &st);
}

Qnn_ErrorHandle_t HtpStub::context_create(uint32_t priority, uint64_t* id, uint64_t share_spill_fill_with,
                                          uint64_t reserve_spill_fill_bytes) {
  skel::ContextCreateReq req{priority, 0, share_spill_fill_with, reserve_spill_fill_bytes};
  skel::SkelStatus st;
  remote_arg a[2];
  a[0].buf = {&req, sizeof req};
  a[1].buf = {&st, sizeof st};
  Qnn_ErrorHandle_t e = call(skel::kContextCreate, 1, 1, 0, a, &st);
  *id = st.id;
  return e;
}

Qnn_ErrorHandle_t HtpStub::context_free(uint64_t id) { return id_call(skel::kContextFree, id); }

Qnn_ErrorHandle_t HtpStub::graph_prepare(uint64_t context_id, const std::vector<uint8_t>& blob, PreparedInfo* info) {
  skel::IdReq req{context_id};
  skel::PrepareResult result;
  skel::SkelStatus st;
  remote_arg a[4];
  a[0].buf = {&req, sizeof req};
  a[1].buf = {const_cast<uint8_t*>(blob.data()), blob.size()};
  a[2].buf = {&result, sizeof result};
  a[3].buf = {&st, sizeof st};
  Qnn_ErrorHandle_t e = call(skel::kGraphPrepare, 2, 2, 0, a, &st);
  info->remote_id = st.id;
  info->arena_bytes = st.arena_bytes;
  info->vtcm_bytes = result.vtcm_bytes;
  info->spill_fill_bytes = result.spill_fill_bytes;
  return e;
}

Qnn_ErrorHandle_t HtpStub::graph_free(uint64_t id) { return id_call(skel::kGraphFree, id); }

Qnn_ErrorHandle_t HtpStub::graph_set_threads(uint64_t id, uint32_t num_threads) {
  skel::GraphThreadsReq req{id, num_threads, 0};
  skel::SkelStatus st;
  remote_arg a[2];
  a[0].buf = {&req, sizeof req};
  a[1].buf = {&st, sizeof st};
  return call(skel::kGraphSetThreads, 1, 1, 0, a, &st);
}

Qnn_ErrorHandle_t HtpStub::mem_register(uint64_t context_id, int fd, uint64_t offset, uint64_t size, uint32_t kind,
                                        uint64_t* id) {
  skel::MemRegisterReq req{context_id, offset, size, kind, 0};
  skel::SkelStatus st;
  remote_arg a[3];
  a[0].buf = {&req, sizeof req};
  a[1].buf = {&st, sizeof st};
  a[2].dma = {fd, 0};
  Qnn_ErrorHandle_t e = call(skel::kMemRegister, 1, 1, 1, a, &st);
  *id = st.id;
  return e;
}

Qnn_ErrorHandle_t HtpStub::mem_deregister(uint64_t id) { return id_call(skel::kMemDeregister, id); }

Qnn_ErrorHandle_t HtpStub::execute(std::vector<remote_arg>& args, uint32_t n_in, uint32_t n_out, uint64_t* exec_ns,
                                   uint64_t* exec_threads, TransferStats* stats) {
  skel::SkelStatus st;
  remote_arg status_arg;
  status_arg.buf = {&st, sizeof st};
  args.push_back(status_arg);
  Qnn_ErrorHandle_t e = call(skel::kGraphExecute, n_in, n_out + 1, 0, args.data(), &st, stats);
  args.pop_back();
  *exec_ns = st.exec_ns;
  *exec_threads = st.exec_threads;
  return e;
}

Qnn_ErrorHandle_t HtpStub::query(skel::QueryResp* out) {
  skel::SkelStatus st;
  remote_arg a[2];
  a[0].buf = {out, sizeof *out};
  a[1].buf = {&st, sizeof st};
  return call(skel::kQuery, 0, 2, 0, a, &st);
}

}  // namespace openhtp::qnn
