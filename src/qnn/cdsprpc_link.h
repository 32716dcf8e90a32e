// libQnnHtp's link to libcdsprpc.so, made at run time.
//
// libQnnHtp has no DT_NEEDED on libcdsprpc: a client that copies or
// symlinks only libQnnHtp.so next to its binary (what SDK build scripts do)
// must still load it. The first use finds libcdsprpc, in this order:
//   1. the one already in the process (the client linked or dlopened it
//      for rpcmem: there must be exactly one, or its buffers would be
//      unknown to ours);
//   2. the SDK's copy, found from libQnnHtp's own location
//      (common/library_location.h: symlinks resolved, $QNN_SDK_ROOT, the
//      install prefix);
//   3. the loader's search path (LD_LIBRARY_PATH, ld.so.cache).
// When none is found, cdsprpc_found() says why (the folders searched; the
// FastRPC stub logs it at backendCreate), and the table holds stand-ins that fail the way libcdsprpc fails without a DSP
// (no handle, no memory), so every caller's existing error path applies.
#pragma once

#include <string>

#include "openhtp/fastrpc_ext.h"
#include "remote.h"
#include "rpcmem.h"

namespace openhtp::qnn {

struct CdsprpcApi {
  decltype(&::remote_handle64_open) remote_handle64_open;
  decltype(&::remote_handle64_invoke) remote_handle64_invoke;
  decltype(&::remote_handle64_close) remote_handle64_close;
  decltype(&::rpcmem_alloc2) rpcmem_alloc2;
  decltype(&::rpcmem_free) rpcmem_free;
  decltype(&::rpcmem_to_fd) rpcmem_to_fd;
  decltype(&::openhtp_fastrpc_last_call_stats) last_call_stats;
  decltype(&::openhtp_fastrpc_last_call_copy_ns) last_call_copy_ns;
  decltype(&::openhtp_fastrpc_fd_is_mapped) fd_is_mapped;
  decltype(&::openhtp_fastrpc_note_qnn_registration) note_qnn_registration;
  decltype(&::openhtp_fastrpc_handle_lost) handle_lost;
  decltype(&::openhtp_fastrpc_set_call_spin_us) set_call_spin_us;
  decltype(&::openhtp_fastrpc_call_spin_ns) call_spin_ns;
};

// The table (loaded on first call; never null members).
const CdsprpcApi& cdsprpc();

// Whether the real libcdsprpc was found; otherwise `why` (optional) gets the
// reason that was logged.
bool cdsprpc_found(std::string* why = nullptr);

}  // namespace openhtp::qnn
