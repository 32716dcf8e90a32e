#include "htp/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace openhtp::htp {
namespace {

size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

bool lifetimes_overlap(const BufferRequest& a, const BufferRequest& b) {
  return a.first_use <= b.last_use && b.first_use <= a.last_use;
}

// Layout::kThreadHalves (memory_planner.h).
MemoryPlan plan_in_lanes(std::span<const BufferRequest> requests, size_t alignment) {
  struct Lane {
    size_t size = 0;  // aligned: its first (largest) buffer with its read slack
    std::vector<size_t> members;
  };
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (requests[a].size != requests[b].size) return requests[a].size > requests[b].size;
    return requests[a].first_use < requests[b].first_use;
  });
  // The offset within a lane of `lane_size` that centres r there.
  auto centred = [&](const BufferRequest& r, size_t lane_size) {
    return (lane_size - align_up(r.size, alignment)) / 2 / alignment * alignment;
  };
  std::vector<Lane> lanes;
  std::vector<size_t> lane_of(requests.size()), offset_in_lane(requests.size());
  for (size_t idx : order) {
    const BufferRequest& r = requests[idx];
    size_t l = 0;
    for (; l < lanes.size(); ++l) {
      if (end_with_slack(r, centred(r, lanes[l].size), alignment) > lanes[l].size) continue;
      const bool free = std::none_of(lanes[l].members.begin(), lanes[l].members.end(),
                                     [&](size_t m) { return lifetimes_overlap(r, requests[m]); });
      if (free) break;
    }
    if (l == lanes.size()) lanes.push_back({end_with_slack(r, 0, alignment), {}});
    lanes[l].members.push_back(idx);
    lane_of[idx] = l;
    offset_in_lane[idx] = centred(r, lanes[l].size);
  }
  std::vector<size_t> base(lanes.size(), 0);
  MemoryPlan plan;
  for (size_t l = 0; l < lanes.size(); ++l) {
    base[l] = plan.total_size;
    plan.total_size += lanes[l].size;
  }
  plan.offsets.resize(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) plan.offsets[i] = base[lane_of[i]] + offset_in_lane[i];
  return plan;
}

}  // namespace

size_t end_with_slack(const BufferRequest& r, size_t offset, size_t alignment) {
  return offset + align_up(r.size + r.read_slack, alignment);
}

MemoryPlan plan_memory(std::span<const BufferRequest> requests, size_t alignment, std::span<const size_t> fixed,
                       Layout layout) {
  const bool any_fixed = std::any_of(fixed.begin(), fixed.end(), [](size_t f) { return f != kNotFixed; });
  if (layout == Layout::kThreadHalves && !any_fixed) return plan_in_lanes(requests, alignment);
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<size_t> order;
  std::vector<size_t> placed;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!fixed.empty() && fixed[i] != kNotFixed) {
      plan.offsets[i] = fixed[i];
      plan.total_size = std::max(plan.total_size, end_with_slack(requests[i], fixed[i], alignment));
      placed.push_back(i);
    } else {
      order.push_back(i);
    }
  }
  // Largest first; ties broken by earlier first use, then index, for a
  // deterministic plan.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (requests[a].size != requests[b].size) return requests[a].size > requests[b].size;
    return requests[a].first_use < requests[b].first_use;
  });
  for (size_t idx : order) {
    const BufferRequest& r = requests[idx];
    const size_t need = align_up(r.size, alignment);
    // Collect the address ranges of placed buffers alive at the same time,
    // sorted by offset, and take the first gap big enough.
    std::vector<std::pair<size_t, size_t>> busy;
    for (size_t p : placed) {
      if (lifetimes_overlap(r, requests[p])) {
        busy.emplace_back(plan.offsets[p], plan.offsets[p] + align_up(requests[p].size, alignment));
      }
    }
    std::sort(busy.begin(), busy.end());
    size_t candidate = 0;
    for (const auto& [start, end] : busy) {
      if (candidate + need <= start) break;
      candidate = std::max(candidate, end);
    }
    plan.offsets[idx] = candidate;
    plan.total_size = std::max(plan.total_size, end_with_slack(r, candidate, alignment));
    placed.push_back(idx);
  }
  return plan;
}

size_t peak_live_bytes(std::span<const BufferRequest> requests, size_t alignment) {
  int last_op = -1;
  for (const auto& r : requests) last_op = std::max(last_op, r.last_use);
  size_t peak = 0;
  for (int op = 0; op <= last_op; ++op) {
    size_t live = 0;
    for (const auto& r : requests) {
      if (r.first_use <= op && op <= r.last_use) live += align_up(r.size, alignment);
    }
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace openhtp::htp
