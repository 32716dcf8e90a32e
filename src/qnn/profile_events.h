// Profile handles and their events. Event ids are global so that
// profileGetSubEvents / profileGetEventData work from an id alone, as the API
// requires.
#pragma once

#include <vector>

#include "qnn/objects.h"

namespace openhtp::qnn {

// Adds a top-level event (with sub-events) to `profile`; a NULL profile
// handle records nothing. An invalid handle is logged and ignored.
void profile_record(Qnn_ProfileHandle_t profile, ProfileEvent top, std::vector<ProfileEvent> children);

// True when `profile` is a live profile at DETAILED or BACKEND level: its
// executes get one QNN_PROFILE_EVENTTYPE_NODE event per graph step.
bool profile_wants_node_events(Qnn_ProfileHandle_t profile);

}  // namespace openhtp::qnn
