// The log as a Chrome trace-event JSON ({"traceEvents": [...]}, complete
// events "ph":"X" with ts/dur in µs), which chrome://tracing and
// ui.perfetto.dev load.
//
// QNN events carry durations, not start times, so the layout is built, not
// measured: a phase's top-level events end at the phase's end_us, one after
// the other; time sub-events (unit µs) lie one after the other from their
// parent's start, clipped to it; node events and the other time sub-events
// of an execute lie inside its accelerator (EXECUTE_DEVICE) slice when it
// has one. Zero-length sub-events other than nodes get no slice. Non-time
// sub-events (bytes, counts, cycles) become the slice's args; an execute's
// byte events are also a counter ("ph":"C"). Tracks (tid): 1 for init,
// finalize and de-init, 2 + k for execute #k.
#pragma once

#include <nlohmann/json.hpp>

#include "common/profile_log.h"

namespace openhtp::tools {

nlohmann::json chrome_trace(const ProfileLog& log);

}  // namespace openhtp::tools
