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

// How the buffers are laid out.
//
// kPacked: greedy by size, above — the smallest arena.
//
// kThreadHalves: for a graph run on two threads. Its kernels split a
// tensor's work into two contiguous halves, in order — convolution slabs of
// output rows, element-wise and lookup shares, a slab kernel's scratch
// ([slab 0's][slab 1's]) — so the first half of every buffer is written and
// read by one thread and the second half by the other. Packed, a byte is in
// the first half of one buffer and the second half of the next that reuses
// it, and the two cores keep taking its cache line from each other; where
// they share no cache (this project's "far" vCPU placement: a line's round
// trip ~600 ns) a memory-bound kernel pays for that on every line it
// writes. MobileNetV2's depthwise slabs took 57-59 us to claim their output
// lines where the other core had them, 12-20 us where they were their own
// (session 14, docs/performance.md). So here every buffer is centred in a
// lane: a lane is a slot as large as the largest buffer in it, buffers in
// one lane are never alive together, and each has its middle at the lane's
// middle (within `alignment`). An address below a lane's middle is then
// only ever in some buffer's first half, one above it only in a second
// half: each line stays with one core. Buffers are taken largest first,
// each into the first lane whose buffers' lifetimes it does not overlap and
// which holds it with its read slack, else into a new lane. The arena is
// larger than packed (the lanes' sizes add up): MobileNetV2 fp32 6.0 -> 7.7
// MB of VTCM.
enum class Layout : uint8_t { kPacked, kThreadHalves };

// `fixed`, when not empty, has one entry per request: kNotFixed, or the
// offset that request must take. Fixed offsets are the caller's to check
// (aligned, not colliding with each other): they are taken as they are, and
// the others packed around them whatever the layout (vtcm_plan.h reproduces
// a stored kThreadHalves plan before it gets here).
inline constexpr size_t kNotFixed = SIZE_MAX;
MemoryPlan plan_memory(std::span<const BufferRequest> requests, size_t alignment, std::span<const size_t> fixed = {},
                       Layout layout = Layout::kPacked);

// The lower bound no plan can beat: the largest total size of buffers live at
// the same op. Used by tests and reported by tools.
size_t peak_live_bytes(std::span<const BufferRequest> requests, size_t alignment);

// Bytes of a region that a request at `offset` needs: its aligned slot, and
// its read slack.
size_t end_with_slack(const BufferRequest& r, size_t offset, size_t alignment);

}  // namespace openhtp::htp
