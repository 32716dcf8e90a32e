// Greedy-by-size memory planner for intermediate tensors (after TFLite
// Micro's GreedyMemoryPlanner).
//
// Each request is a buffer of `size` bytes live from op `first_use` to op
// `last_use` (inclusive). Buffers are placed largest first, each at the lowest
// aligned offset that does not collide with an already placed buffer whose
// lifetime overlaps. Buffers that are never alive at the same time share
// memory, so a chain of ops needs about two buffers, not one per tensor.
// Simple, deterministic and usually within a few percent of optimal.
//
// Some buffers may come already placed (an offline plan, e.g. the offsets a
// context binary stored): they keep their offsets and the others are placed
// around them by the same rule, as TFLite Micro's planner honours
// offline-planned offsets. Placing them first is what makes that work: the
// greedy rule only ever asks "does this gap collide with something placed?".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace openhtp::htp {

struct BufferRequest {
  size_t size = 0;
  int first_use = 0;
  int last_use = 0;
  // Bytes a reader may read past the end (XNNPACK's XNN_EXTRA_BYTES,
  // ops::OpKernel::read_slack_bytes). They must be readable memory but may
  // hold anything — another buffer's bytes included — so they never make
  // two buffers collide; they only keep the region from ending too soon.
  size_t read_slack = 0;
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // one per request, aligned
  size_t total_size = 0;        // arena size needed
};

// `fixed`, when not empty, has one entry per request: kNotFixed, or the
// offset that request must take. Fixed offsets are the caller's to check
// (aligned, not colliding with each other): they are taken as they are.
inline constexpr size_t kNotFixed = SIZE_MAX;
MemoryPlan plan_memory(std::span<const BufferRequest> requests, size_t alignment, std::span<const size_t> fixed = {});

// The lower bound no plan can beat: the largest total size of buffers live at
// the same op. Used by tests and reported by tools.
size_t peak_live_bytes(std::span<const BufferRequest> requests, size_t alignment);

// Bytes of a region that a request at `offset` needs: its aligned slot, and
// its read slack.
size_t end_with_slack(const BufferRequest& r, size_t offset, size_t alignment);

}  // namespace openhtp::htp
