// The indexing family (see op_defs.h): ops that move elements by index or
// change a shape's form — gather/scatter variants, tile, depth/space
// rearrangements, select and the like. Listed after every other family so
// the earlier ops keep their places.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

std::vector<OpDef> indexing_group() { return {}; }

}  // namespace openhtp::ops::detail
