// Skel modules loaded into the DSP process, and the handles opened on them.
//
// remote_handle64_open("file:///libX.so?iface_skel_handle_invoke&...") loads
// libX.so from ADSP_LIBRARY_PATH (';'-separated, as on a device) or from the
// DSP executable's own folder, resolves the named invoke function and, if the
// module has them, `iface_open` / `iface_close` (the names qaic gives them).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "remote.h"

namespace openhtp::dsp {

class ModuleTable {
 public:
  ModuleTable();
  ~ModuleTable();
  // Returns an AEE code; *handle is the DSP-side handle.
  int open(const std::string& uri, uint64_t* handle);
  int invoke(uint64_t handle, uint32_t scalars, remote_arg* args);
  int close(uint64_t handle);

 private:
  using InvokeFn = int (*)(remote_handle64, uint32_t, remote_arg*);
  using OpenFn = int (*)(const char*, remote_handle64*);
  using CloseFn = int (*)(remote_handle64);
  struct Handle {
    InvokeFn invoke;
    CloseFn close;
    remote_handle64 module_handle;
  };
  std::string find_library(const std::string& name) const;

  std::mutex mu_;
  std::map<std::string, void*> libraries_;
  std::map<uint64_t, Handle> handles_;
  uint64_t next_handle_ = 1;
  std::string exe_dir_;
};

}  // namespace openhtp::dsp
