// The self-contained HTML page for one graph: a summary of the plan's
// totals, a legend, the SVG map (svg_map.h) and a table of the spilled
// tensors with the planner's reason. No scripts, no external fonts, styles
// or images: the page opens from disk with no network.
#pragma once

#include <string>

#include "memory_plan.h"

namespace openhtp::memory_map {

// `source` names the binary the plan came from (shown in the page).
std::string render_page(const tools::GraphMemoryPlan& plan, const std::string& source);

}  // namespace openhtp::memory_map
