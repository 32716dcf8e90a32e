// The HTP perf infrastructure (QnnDevice_getInfrastructure): power config ids
// and the power / memory votes made through them.
//
// The emulated HTP has no clocks or voltage rails to vote on, so most votes
// are validated against the ranges QnnHtpPerfInfrastructure.h documents and
// recorded, nothing more. One has a real meaning here: the RPC polling vote
// sets how long a FastRPC caller spins for its reply before it sleeps
// (openhtp_fastrpc_set_call_spin_us), the same latency-for-CPU trade the
// vote makes on a phone. OpenHtp_getPerfVotes (openhtp/qnn_ext.h) reports the
// votes in force.
#pragma once

#include "HTP/QnnHtpDevice.h"

namespace openhtp::qnn {

// The process-lifetime table QnnDevice_getInfrastructure hands out. It is
// never destroyed: clients keep the pointer and call through it from static
// destructors at exit.
QnnHtpDevice_Infrastructure_t* perf_infrastructure() noexcept;

}  // namespace openhtp::qnn
