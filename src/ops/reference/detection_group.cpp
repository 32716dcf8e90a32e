// The detection family (see op_defs.h): ops on boxes and scores —
// non-max suppression, RoI pooling, box transforms. Listed after every other family so the earlier ops keep
// their places.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

std::vector<OpDef> detection_group() { return {}; }

}  // namespace openhtp::ops::detail
