// The math family (see op_defs.h).
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

std::vector<OpDef> math_group() {
  return {};
}

}  // namespace openhtp::ops::detail
