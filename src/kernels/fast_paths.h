// The fast kernels this build links, in the order prepare_node() tries them.
#pragma once

#include <span>

#include "ops/op.h"

namespace openhtp::kernels {

// Every fast path (XNNPACK and oneDNN). Each declines (returns false) the
// cases it does not cover, so the reference kernel runs for those.
std::span<const ops::FastPath> fast_paths();

}  // namespace openhtp::kernels
