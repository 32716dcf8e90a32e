#include "qnn/cdsprpc_link.h"

#include <dlfcn.h>

#include "AEEStdErr.h"
#include "common/library_location.h"

namespace openhtp::qnn {
namespace {

constexpr const char* kLibrary = "libcdsprpc.so";

// Stand-ins for a process with no libcdsprpc: each fails as libcdsprpc does
// when there is no DSP to reach.
int no_open(const char*, remote_handle64* h) {
  if (h != nullptr) *h = 0;
  return AEE_ENOSUCH;
}
int no_invoke(remote_handle64, uint32_t, remote_arg*) { return AEE_ENOSUCH; }
int no_close(remote_handle64) { return AEE_ENOSUCH; }
void* no_alloc(int, uint32_t, size_t) { return nullptr; }
void no_free(void*) {}
int no_to_fd(void*) { return -1; }
void no_stats(openhtp_fastrpc_call_stats* out) {
  if (out != nullptr) *out = openhtp_fastrpc_call_stats{};
}
void no_copy_ns(uint64_t* in, uint64_t* out) {
  if (in != nullptr) *in = 0;
  if (out != nullptr) *out = 0;
}
int no_fd_is_mapped(int) { return 0; }
void no_note_registration(uint64_t, uint64_t, int) {}
int no_handle_lost(remote_handle64) { return 1; }
int no_set_spin(uint32_t) { return AEE_ENOSUCH; }
int64_t no_spin_ns() { return 0; }

constexpr CdsprpcApi kMissing{no_open,         no_invoke,           no_close,       no_alloc,
                              no_free,         no_to_fd,            no_stats,       no_copy_ns,
                              no_fd_is_mapped, no_note_registration, no_handle_lost, no_set_spin,
                              no_spin_ns};

struct Link {
  CdsprpcApi api = kMissing;
  bool found = false;
  std::string why;
};

// Fills `api` from `lib`; false (and `why`) if a symbol is missing: then it
// is some other libcdsprpc, not openhtp's.
bool bind(void* lib, const std::string& where, CdsprpcApi* api, std::string* why) {
  CdsprpcApi got{};
  bool ok = true;
  auto sym = [&](auto& slot, const char* name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(lib, name));
    if (slot == nullptr && ok) {
      ok = false;
      *why = where + " has no " + name + ": it is not openhtp's libcdsprpc";
    }
  };
  sym(got.remote_handle64_open, "remote_handle64_open");
  sym(got.remote_handle64_invoke, "remote_handle64_invoke");
  sym(got.remote_handle64_close, "remote_handle64_close");
  sym(got.rpcmem_alloc2, "rpcmem_alloc2");
  sym(got.rpcmem_free, "rpcmem_free");
  sym(got.rpcmem_to_fd, "rpcmem_to_fd");
  sym(got.last_call_stats, "openhtp_fastrpc_last_call_stats");
  sym(got.last_call_copy_ns, "openhtp_fastrpc_last_call_copy_ns");
  sym(got.fd_is_mapped, "openhtp_fastrpc_fd_is_mapped");
  sym(got.note_qnn_registration, "openhtp_fastrpc_note_qnn_registration");
  sym(got.handle_lost, "openhtp_fastrpc_handle_lost");
  sym(got.set_call_spin_us, "openhtp_fastrpc_set_call_spin_us");
  sym(got.call_spin_ns, "openhtp_fastrpc_call_spin_ns");
  if (ok) *api = got;
  return ok;
}

Link load() {
  Link link;
  // Handles are kept for the life of the process: the library owns the DSP
  // session and its threads.
  std::string where = std::string(kLibrary) + " (already loaded)";
  void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  std::string searched;
  if (lib == nullptr) {
    where = find_sdk_file(reinterpret_cast<const void*>(&cdsprpc), kLibrary, &searched);
    if (!where.empty()) lib = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (lib == nullptr) {
    where = std::string(kLibrary) + " (loader search path)";
    lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  }
  if (lib == nullptr) {
    link.why = std::string(kLibrary) + " not found beside libQnnHtp.so (searched: " + searched +
               "), nor on the loader's path: set QNN_SDK_ROOT to the openhtp install, or put its "
               "lib/x86_64-linux-clang on LD_LIBRARY_PATH";
  } else if (bind(lib, where, &link.api, &link.why)) {
    link.found = true;
  }
  return link;  // the callers log `why` with what they could not do
}

const Link& the_link() {
  static const Link link = load();
  return link;
}

}  // namespace

const CdsprpcApi& cdsprpc() { return the_link().api; }

bool cdsprpc_found(std::string* why) {
  const Link& l = the_link();
  if (!l.found && why != nullptr) *why = l.why;
  return l.found;
}

}  // namespace openhtp::qnn
