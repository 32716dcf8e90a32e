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

std::shared_ptr<HtpStub> HtpStub::get(Domain domain, Qnn_ErrorHandle_t* err) {
  std::lock_guard lock(g_mu);
  const char* transport = std::getenv("OPENHTP_HTP_TRANSPORT");
  const bool inproc =
      domain == Domain::kNonRpc || (transport != nullptr && std::strcmp(transport, "inproc") == 0);
  std::weak_ptr<HtpStub>& slot = inproc ? g_inproc_stub : g_fastrpc_stub;
  // A stub whose DSP process died serves only the objects made through it;
  // new ones get a fresh process (what a client does after a subsystem
  // restart), even while stale objects still exist.
  if (auto s = slot.lock(); s && !s->lost()) return s;
  auto s = inproc ? make_inproc_stub(err) : make_fastrpc_stub(err);
  if (s) slot = s;
  return s;
}

}  // namespace openhtp::qnn
