#include "htp/vtcm_plan.h"

#include <algorithm>

namespace openhtp::htp {
namespace {

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

}  // namespace

const char* region_name(Region r) {
  switch (r) {
    case Region::kVtcm: return "VTCM";
    case Region::kSpillFill: return "spill-fill";
  }
  return "?";
}

VtcmPlan plan_vtcm(std::span<const BufferRequest> requests, size_t vtcm_budget_bytes, size_t alignment) {
  VtcmPlan out;
  out.placements.resize(requests.size());
  const MemoryPlan whole = plan_memory(requests, alignment);

  std::vector<BufferRequest> spilled;
  std::vector<size_t> spilled_index;  // spilled[k] is requests[spilled_index[k]]
  for (size_t i = 0; i < requests.size(); ++i) {
    const size_t end = whole.offsets[i] + align_up(requests[i].size, alignment);
    if (end <= vtcm_budget_bytes) {
      out.placements[i] = {Region::kVtcm, whole.offsets[i]};
      out.vtcm_bytes = std::max(out.vtcm_bytes, end);
    } else {
      spilled.push_back(requests[i]);
      spilled_index.push_back(i);
    }
  }
  if (spilled.empty()) return out;

  // Same algorithm, same lifetimes, only the spilled set: a valid plan of its
  // own in a separate memory.
  const MemoryPlan spill = plan_memory(spilled, alignment);
  for (size_t k = 0; k < spilled.size(); ++k) {
    out.placements[spilled_index[k]] = {Region::kSpillFill, spill.offsets[k]};
  }
  out.spill_fill_bytes = spill.total_size;
  return out;
}

}  // namespace openhtp::htp
