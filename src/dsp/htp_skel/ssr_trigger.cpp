#include "dsp/htp_skel/ssr_trigger.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ipc/htp_protocol.h"

namespace openhtp::skel {

SsrTrigger& SsrTrigger::instance() {
  static SsrTrigger* t = new SsrTrigger;
  return *t;
}

SsrTrigger::SsrTrigger() {
  const char* env = std::getenv("OPENHTP_SSR_AT");
  if (env == nullptr || *env == '\0') return;
  const std::string v = env;
  const auto colon = v.find(':');
  const std::string name = v.substr(0, colon);
  char* end = nullptr;
  const unsigned long long n = colon == std::string::npos ? 0 : std::strtoull(v.c_str() + colon + 1, &end, 10);
  const SsrPoint p = name == "execute" ? SsrPoint::kExecute
                     : name == "prepare" ? SsrPoint::kPrepare
                     : name == "register" ? SsrPoint::kRegister
                                          : SsrPoint::kNone;
  if (p == SsrPoint::kNone || n == 0 || end == nullptr || *end != '\0') {
    std::fprintf(stderr, "openhtp-cdsp: OPENHTP_SSR_AT='%s' is not <execute|prepare|register>:<n >= 1>; ignored\n", env);
    return;
  }
  point_ = p;
  nth_ = n;
}

namespace {
SsrPoint point_of(uint32_t method) {
  namespace wire = ipc::htp_wire;
  switch (method) {
    case wire::kGraphExecute: return SsrPoint::kExecute;
    case wire::kGraphPrepare:
    case wire::kContextLoadBinary: return SsrPoint::kPrepare;
    case wire::kMemRegister: return SsrPoint::kRegister;
    default: return SsrPoint::kNone;
  }
}
}  // namespace

void SsrTrigger::count(uint32_t method) {
  if (point_of(method) != point_) return;
  if (seen_.fetch_add(1) + 1 != nth_) return;
  std::fprintf(stderr, "openhtp-cdsp: OPENHTP_SSR_AT reached: the DSP process stops now\n");
  kill(getpid(), SIGKILL);
}

}  // namespace openhtp::skel
