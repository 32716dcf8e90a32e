// Greedy-by-size memory planner for intermediate tensors (after TFLite
// Micro's GreedyMemoryPlanner).
//
// Each request is a buffer of `size` bytes live from op `first_use` to op
// `last_use` (inclusive). Buffers are placed largest first, each at the lowest
// aligned offset that does not collide with an already placed buffer whose
// lifetime overlaps. Buffers that are never alive at the same time share
// memory, so a chain of ops needs about two buffers, not one per tensor.
// Simple, deterministic and usually within a few percent of optimal.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace openhtp::htp {

struct BufferRequest {
  size_t size = 0;
  int first_use = 0;
  int last_use = 0;
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // one per request, aligned
  size_t total_size = 0;        // arena size needed
};

MemoryPlan plan_memory(std::span<const BufferRequest> requests, size_t alignment);

// The lower bound no plan can beat: the largest total size of buffers live at
// the same op. Used by tests and reported by tools.
size_t peak_live_bytes(std::span<const BufferRequest> requests, size_t alignment);

}  // namespace openhtp::htp
