// Skel modules loaded into the DSP process, and the handles opened on them.
//
// remote_handle64_open("file:///libX.so?iface_skel_handle_invoke&...") loads
// libX.so from ADSP_LIBRARY_PATH (';'-separated, as on a device) or from the
// DSP executable's own folder, resolves the named invoke function and, if the
// module has them, `iface_open` / `iface_close` (the names qaic gives them).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "remote.h"

namespace openhtp::dsp {

class ModuleTable {
  using InvokeFn = int (*)(remote_handle64, uint32_t, remote_arg*);
  using OpenFn = int (*)(const char*, remote_handle64*);
  using CloseFn = int (*)(remote_handle64);
  struct Handle {
    InvokeFn invoke;
    CloseFn close;
    remote_handle64 module_handle;
  };

 public:
  // One caller's memo of its last handle lookup (each slot thread keeps one),
  // valid while no handle has been closed since: a call on the same handle
  // as the previous one takes no lock.
  class InvokeMemo {
    friend class ModuleTable;
    uint64_t handle = 0;
    uint64_t closes = ~0ull;
    Handle h{};
  };

  ModuleTable();
  ~ModuleTable();
  // Returns an AEE code; *handle is the DSP-side handle.
  int open(const std::string& uri, uint64_t* handle);
  int invoke(uint64_t handle, uint32_t scalars, remote_arg* args, InvokeMemo* memo);
  int close(uint64_t handle);

 private:
  std::string find_library(const std::string& name) const;

  std::mutex mu_;
  std::map<std::string, void*> libraries_;
  std::map<uint64_t, Handle> handles_;
  std::atomic<uint64_t> closes_{0};  // bumped (under mu_) by every close
  uint64_t next_handle_ = 1;
  std::string exe_dir_;
};

}  // namespace openhtp::dsp
