#include "ops/parsed_params.h"

namespace openhtp::ops {

Status parse_params(const NodeDesc& node, ParsedParams* out) {
  *out = ParsedParams{};
  const OpDef* def = find_op(node.type);
  if (def == nullptr || def->parse == nullptr) return Status::Ok();
  return def->parse(node, out);
}

}  // namespace openhtp::ops
