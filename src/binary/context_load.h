// Loading a decoded context binary into a runtime context: what both doors
// (the skel, and libQnnHtp's in-process stub) do for
// QnnContext_createFromBinary once the bytes are a ContextImage.
#pragma once

#include <cstdint>
#include <vector>

#include "binary/context_codec.h"
#include "htp/runtime.h"

namespace openhtp::binary {

// Prepares each of `graphs` in the context, in order, each held to the plan
// the binary stored (none stored: planned afresh), and appends its info to
// `infos`. The specs are consumed. On the first refusal it stops and returns
// it: the graphs prepared so far belong to the context and go with it.
htp::Status prepare_image_graphs(htp::Runtime& rt, uint64_t context_id, std::vector<GraphImage>&& graphs,
                                 std::vector<htp::GraphInfo>* infos, const htp::CallControl* control);

}  // namespace openhtp::binary
