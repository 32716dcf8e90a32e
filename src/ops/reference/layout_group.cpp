// The layout family (see op_defs.h).
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

std::vector<OpDef> layout_group() {
  return {};
}

}  // namespace openhtp::ops::detail
