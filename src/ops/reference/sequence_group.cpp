// The sequence family (see op_defs.h): recurrent ops over a time axis —
// Lstm, Gru. Listed after every other family so the earlier ops keep
// their places.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

// Float kernels (op_flags::kAdaptTypes): lstm.cpp, gru.cpp.
OpDef lstm_def();
OpDef gru_def();

std::vector<OpDef> sequence_group() { return {lstm_def(), gru_def()}; }

}  // namespace openhtp::ops::detail
