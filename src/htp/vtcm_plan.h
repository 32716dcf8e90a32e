// Splitting a graph's intermediate tensors between VTCM and the spill-fill
// region (docs/design.md §3), on top of the greedy planner in memory_planner.h.
//
// VTCM is the HTP's small on-chip memory; a graph is prepared against a VTCM
// budget (graph config VTCM_SIZE_IN_MB / _IN_BYTES, default 8 MiB). What does
// not fit goes to DDR, into the graph's spill-fill region.
//
// Algorithm
//   1. Plan every request with plan_memory() as if there were one unbounded
//      arena (same lifetimes, same alignment).
//   2. A request whose planned slot [offset, offset + aligned size) lies
//      entirely below the budget is placed in VTCM at exactly that offset.
//   3. The remaining requests are planned again, among themselves only, with
//      plan_memory() — that plan's offsets are their spill-fill offsets.
//
// Why it is correct
//   - VTCM: the VTCM placements are a subset of one valid plan. Dropping
//     buffers from a valid plan cannot create a collision, so no two VTCM
//     tensors that are alive at the same op overlap, and every slot ends at
//     or below the budget by construction of step 2.
//   - Spill-fill: step 3 is a complete, valid plan of its own set of buffers,
//     so the same guarantee holds there.
//   - Across regions there is nothing to check: VTCM and spill-fill are
//     different memories, so a VTCM tensor never aliases a spilled one.
// Why this shape
//   - The greedy planner places the largest buffers first at the lowest
//     offsets, so the tensors kept in VTCM tend to be the large, long-lived
//     ones — exactly the ones whose DDR traffic would cost the most.
//   - Keeping VTCM offsets from the unbounded plan (instead of packing VTCM
//     anew) makes the result independent of the budget for every tensor that
//     fits: lowering the budget only moves tensors out, it never reshuffles
//     the ones that stay. That keeps plans stable and easy to reason about.
//   - It is not optimal: a spilled tensor might fit a VTCM gap the first plan
//     left. Real HTP inserts spill/fill ops per op instead; this planner keeps
//     a tensor in one place for its whole life, which is what execute needs.
//
// A tensor occupies its aligned slot, so region sizes are multiples of the
// alignment and base + offset is aligned whenever the region base is. A
// request's read slack (memory_planner.h) may run past its slot into another
// tensor's, but never past the end of its region: the region sizes include
// it, and a tensor keeps VTCM only if its slack fits the budget too.
//
// Fixed placements (an offline plan: what a context binary stored)
//   Some requests may come with the placement they must take. They are
//   checked first — aligned, inside the VTCM budget (slack included), inside
//   kMaxSpillFillBytes, and not overlapping another fixed request of the
//   same region whose lifetime overlaps — and then taken exactly. Any other
//   layout is legal, even one this planner would not make. The others are
//   planned around them with the same three steps: VTCM-fixed requests are
//   pre-placed in step 1's unbounded plan, spill-fill-fixed ones in step 3's.
//   Why it is still correct: the greedy planner never places a request over
//   one already placed (memory_planner.h), and pre-placed requests are placed
//   before any other, so steps 1 and 3 still produce valid plans, and the
//   argument above holds unchanged. With no fixed request this is exactly
//   the algorithm above, so online plans do not change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "htp/device_spec.h"
#include "htp/memory_planner.h"

namespace openhtp::htp {

// One HTP's VTCM when the graph does not ask for less (docs/design.md §3).
inline constexpr size_t kDefaultVtcmBytes = kDevice.vtcm_bytes;

enum class Region : uint8_t {
  kVtcm = 0,       // on-chip, per device
  kSpillFill = 1,  // DDR, per context (possibly the client's external buffer)
};

const char* region_name(Region r);

struct TensorPlacement {
  Region region = Region::kVtcm;
  size_t offset = 0;  // from the start of that region, aligned
};

// Where each NATIVE tensor lives, by tensor id: what a context binary
// stores, and what a graph prepared from one is held to (offline placements
// are honoured, PlanOptions::stored_placements).
using StoredPlan = std::unordered_map<uint32_t, TensorPlacement>;

struct VtcmPlan {
  std::vector<TensorPlacement> placements;  // one per request
  size_t vtcm_bytes = 0;        // peak VTCM end used; <= the budget
  size_t spill_fill_bytes = 0;  // spill-fill region peak; 0 when nothing spills
};

VtcmPlan plan_vtcm(std::span<const BufferRequest> requests, size_t vtcm_budget_bytes, size_t alignment);

// The furthest a fixed spill-fill placement may reach: the most one
// rpcmem_alloc (an int size) gives a client, so a stored plan never asks for
// a region no client could register and no runtime should allocate.
inline constexpr size_t kMaxSpillFillBytes = (size_t{1} << 31) - 1;

// Why a fixed placement was refused.
struct PlanError {
  static constexpr size_t kNone = SIZE_MAX;
  size_t request = kNone;  // the refused request
  size_t other = kNone;    // the fixed request it overlaps, when that is why
  std::string why;         // e.g. "is not a multiple of the 64-byte alignment"; "overlaps" when `other` is set
};

// `fixed`: empty, or one entry per request (nullopt: the planner chooses).
// False, with `error` filled and `plan` untouched, when a fixed placement
// breaks a rule above. `layout` (memory_planner.h) lays out both the whole
// arena and the spilled set. With fixed placements and kThreadHalves, the
// plan made without them is taken when it puts every fixed request where it
// is fixed — a stored plan made in that layout from the same requests, whose
// unstored requests (the kernels' workspaces) then land where they did when
// it was made, in their lanes; any other stored plan is honoured as it is,
// the rest packed around it.
bool plan_vtcm(std::span<const BufferRequest> requests, size_t vtcm_budget_bytes, size_t alignment,
               std::span<const std::optional<TensorPlacement>> fixed, VtcmPlan* plan, PlanError* error,
               Layout layout = Layout::kPacked);

}  // namespace openhtp::htp
