// What one skel library holds for its whole process: the HTP runtime both
// doors call (the FastRPC codec in htp_skel.cpp, and libQnnHtp's in-process
// stub through openhtp_htp_runtime), the tickets of failed calls' messages,
// and the fd mappings registrations share. Each is made on first use and
// lives as long as the process (kernel threads may still run at exit).
#pragma once

#include "htp/runtime.h"
#include "ipc/error_tickets.h"
#include "ipc/fd_mapping.h"

namespace openhtp::skel {

// XNNPACK/oneDNN kernels unless OPENHTP_KERNELS selects otherwise
// (kernels::select_fast_paths: "reference" for the reference kernels only,
// "-library,..." to leave libraries out), read once. A selection that does
// not parse is logged and every fast path runs.
htp::Runtime& process_runtime();
ipc::ErrorTickets& error_tickets();
ipc::FdMappingCache& fd_mappings();

}  // namespace openhtp::skel
