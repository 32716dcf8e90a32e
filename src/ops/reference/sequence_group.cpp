// The sequence family (see op_defs.h): recurrent ops over a time axis —
// Lstm, Gru. Listed after every other family so the earlier ops keep
// their places.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

std::vector<OpDef> sequence_group() { return {}; }

}  // namespace openhtp::ops::detail
