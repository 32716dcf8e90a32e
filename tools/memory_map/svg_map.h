// One graph's memory plan drawn as an SVG document (text), no scripts:
//   - x: op index, one equal column per op, scaled so that the plot stays
//     about 1100 px wide (never under 6 px per op, never over 48);
//   - panel "vtcm": VTCM offset upwards from 0, the budget as a dashed line
//     (pinned to the top edge, marked "off scale", when it is far above what
//     the graph uses, so that the boxes stay readable);
//   - panel "spill-fill": spill-fill offset upwards from 0;
//   - lane "weights-io": weights and graph inputs/outputs, packed in rows
//     (they have no offset in a shared arena, only a lifetime);
//   - an op strip under the panels, one cell per op, naming it on hover.
// Each tensor is a <rect class="tensor"> with a <title> (the tooltip) and
// data-* attributes (id, name, region, offset, bytes, first, last); each
// panel's <g> carries its scale (data-x0, data-op-width, data-y-base,
// data-px-per-byte) so that a test can check the geometry.
#pragma once

#include <string>

#include "memory_plan.h"

namespace openhtp::memory_map {

inline constexpr double kMinBoxPx = 3.0;  // a box is never thinner or narrower than this

std::string render_svg(const tools::GraphMemoryPlan& plan);

// Text for XML content and attribute values.
std::string xml_escape(const std::string& s);

// "96 KiB", "1.5 MiB", "40 B".
std::string human_bytes(uint64_t bytes);

}  // namespace openhtp::memory_map
