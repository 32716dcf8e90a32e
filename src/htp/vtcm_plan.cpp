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

namespace {

bool lifetimes_overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_use <= b.last_use && b.first_use <= a.last_use;
}

// The fixed placements' own rules (vtcm_plan.h): false, with `error`
// filled, at the first one broken.
bool check_fixed(std::span<const BufferRequest> requests, size_t vtcm_budget_bytes, size_t alignment,
                 std::span<const std::optional<TensorPlacement>> fixed, PlanError* error) {
  auto refuse = [&](size_t i, std::string why) {
    error->request = i;
    error->why = std::move(why);
    return false;
  };
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!fixed[i]) continue;
    const TensorPlacement& p = *fixed[i];
    if (p.region != Region::kVtcm && p.region != Region::kSpillFill) return refuse(i, "names no known region");
    if (p.offset % alignment != 0) {
      return refuse(i, "is not a multiple of the " + std::to_string(alignment) + "-byte alignment");
    }
    const size_t limit = p.region == Region::kVtcm ? vtcm_budget_bytes : kMaxSpillFillBytes;
    // Compared without forming offset + size, which a stored offset could overflow.
    const size_t need = align_up(requests[i].size + requests[i].read_slack, alignment);
    if (p.offset > limit || need > limit - p.offset) {
      return refuse(i, "ends past " +
                           (p.region == Region::kVtcm
                                ? "the VTCM budget of " + std::to_string(vtcm_budget_bytes) + " bytes"
                                : "the " + std::to_string(kMaxSpillFillBytes) + " bytes a spill-fill region may have") +
                           " (the tensor needs " + std::to_string(need) + " bytes there)");
    }
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!fixed[i]) continue;
    for (size_t j = 0; j < i; ++j) {
      if (!fixed[j] || fixed[j]->region != fixed[i]->region || !lifetimes_overlap(requests[i], requests[j])) continue;
      const size_t a = fixed[i]->offset, b = fixed[j]->offset;
      if (a < b + align_up(requests[j].size, alignment) && b < a + align_up(requests[i].size, alignment)) {
        error->other = j;
        return refuse(i, "overlaps");
      }
    }
  }
  return true;
}

}  // namespace

bool plan_vtcm(std::span<const BufferRequest> requests, size_t vtcm_budget_bytes, size_t alignment,
               std::span<const std::optional<TensorPlacement>> fixed, VtcmPlan* plan, PlanError* error,
               Layout layout) {
  if (!fixed.empty() && fixed.size() != requests.size()) {
    error->why = "fixed placements given for " + std::to_string(fixed.size()) + " of " +
                 std::to_string(requests.size()) + " requests";
    return false;
  }
  const bool any_fixed = std::any_of(fixed.begin(), fixed.end(), [](const auto& f) { return f.has_value(); });
  if (any_fixed && layout == Layout::kThreadHalves) {
    // A stored plan this layout made from these requests: taken whole.
    VtcmPlan fresh;
    PlanError unused;
    plan_vtcm(requests, vtcm_budget_bytes, alignment, {}, &fresh, &unused, layout);  // nothing fixed: cannot fail
    bool same = true;
    for (size_t i = 0; i < requests.size() && same; ++i) {
      same = !fixed[i] || (fixed[i]->region == fresh.placements[i].region &&
                           fixed[i]->offset == fresh.placements[i].offset);
    }
    if (same) {
      *plan = std::move(fresh);
      return true;
    }
    layout = Layout::kPacked;
  }
  if (any_fixed && !check_fixed(requests, vtcm_budget_bytes, alignment, fixed, error)) return false;
  auto fixed_in = [&](size_t i, Region r) { return any_fixed && fixed[i] && fixed[i]->region == r; };

  VtcmPlan out;
  out.placements.resize(requests.size());
  // Step 1: everything but the spill-fill-fixed requests in one unbounded
  // arena, VTCM-fixed ones pre-placed.
  std::vector<BufferRequest> whole_req;
  std::vector<size_t> whole_fixed, whole_index;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (fixed_in(i, Region::kSpillFill)) continue;
    whole_req.push_back(requests[i]);
    whole_fixed.push_back(fixed_in(i, Region::kVtcm) ? fixed[i]->offset : kNotFixed);
    whole_index.push_back(i);
  }
  const MemoryPlan whole = plan_memory(whole_req, alignment, whole_fixed, layout);

  // Step 2: what fits stays in VTCM at its offset; the rest spills.
  std::vector<BufferRequest> spilled;
  std::vector<size_t> spilled_fixed, spilled_index;  // spilled[k] is requests[spilled_index[k]]
  for (size_t k = 0; k < whole_req.size(); ++k) {
    const size_t end = end_with_slack(whole_req[k], whole.offsets[k], alignment);
    if (end <= vtcm_budget_bytes) {  // always so for a VTCM-fixed request (checked)
      out.placements[whole_index[k]] = {Region::kVtcm, whole.offsets[k]};
      out.vtcm_bytes = std::max(out.vtcm_bytes, end);
    } else {
      spilled.push_back(whole_req[k]);
      spilled_fixed.push_back(kNotFixed);
      spilled_index.push_back(whole_index[k]);
    }
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!fixed_in(i, Region::kSpillFill)) continue;
    spilled.push_back(requests[i]);
    spilled_fixed.push_back(fixed[i]->offset);
    spilled_index.push_back(i);
  }
  if (!spilled.empty()) {
    // Step 3: same algorithm, same lifetimes, only the spilled set: a valid
    // plan of its own in a separate memory.
    const MemoryPlan spill = plan_memory(spilled, alignment, spilled_fixed, layout);
    for (size_t k = 0; k < spilled.size(); ++k) {
      out.placements[spilled_index[k]] = {Region::kSpillFill, spill.offsets[k]};
    }
    out.spill_fill_bytes = spill.total_size;
  }
  *plan = std::move(out);
  return true;
}

VtcmPlan plan_vtcm(std::span<const BufferRequest> requests, size_t vtcm_budget_bytes, size_t alignment) {
  VtcmPlan plan;
  PlanError unused;
  plan_vtcm(requests, vtcm_budget_bytes, alignment, {}, &plan, &unused);  // cannot fail: nothing is fixed
  return plan;
}

}  // namespace openhtp::htp
