#include "qnn/htp_stub.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace openhtp::qnn {
namespace {

std::mutex g_mu;
// One stub per transport, shared by the backends that use it. The transport
// is read at each backendCreate, so one process can hold a FastRPC backend
// and an in-process backend side by side (the bench compares them in one run).
std::weak_ptr<HtpStub> g_fastrpc_stub, g_inproc_stub;

}  // namespace

std::shared_ptr<HtpStub> HtpStub::get(Qnn_ErrorHandle_t* err) {
  std::lock_guard lock(g_mu);
  const char* transport = std::getenv("OPENHTP_HTP_TRANSPORT");
  const bool inproc = transport != nullptr && std::strcmp(transport, "inproc") == 0;
  std::weak_ptr<HtpStub>& slot = inproc ? g_inproc_stub : g_fastrpc_stub;
  if (auto s = slot.lock()) return s;
  auto s = inproc ? make_inproc_stub(err) : make_fastrpc_stub(err);
  if (s) slot = s;
  return s;
}

}  // namespace openhtp::qnn
