#include "dsp/htp_skel/process_runtime.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "common/log.h"
#include "kernels/fast_paths.h"

namespace openhtp::skel {

htp::Runtime& process_runtime() {
  static htp::Runtime* r = [] {
    static std::vector<ops::FastPath> selected;
    htp::RuntimeOptions options;
    const char* kernels = std::getenv("OPENHTP_KERNELS");
    std::string why;
    if (!kernels::select_fast_paths(kernels ? kernels : "", &selected, &why)) {
      log(LogLevel::kError, "cdsp", "OPENHTP_KERNELS ignored: %s", why.c_str());
      kernels::select_fast_paths("fast", &selected, &why);
    }
    options.fast_paths = selected;
    return make_runtime(options).release();
  }();
  return *r;
}

ipc::ErrorTickets& error_tickets() {
  static ipc::ErrorTickets* m = new ipc::ErrorTickets;
  return *m;
}

ipc::FdMappingCache& fd_mappings() {
  static ipc::FdMappingCache* m = new ipc::FdMappingCache;
  return *m;
}

}  // namespace openhtp::skel
