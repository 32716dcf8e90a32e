// "Sequential execution only": graphs that share an external spill-fill
// buffer (one context's graphs, or several contexts registering the same
// buffer) must not execute at the same time. On a device such executes would
// interleave and corrupt each other's spilled activations; the emulator
// refuses the later one at once, naming the buffer and the graph holding it,
// instead of quietly serializing them behind its queue.
//
// Only executes of contexts with an external spill-fill buffer pay for this
// (one mutex); the DSP process serves one client, so this client-side check
// sees every execute that could collide.
#pragma once

#include <cstdint>
#include <string>

#include "qnn/objects.h"

namespace openhtp::qnn {

class SpillFillClaim {
 public:
  SpillFillClaim() = default;
  ~SpillFillClaim() {
    if (held_) release();
  }
  SpillFillClaim(const SpillFillClaim&) = delete;
  SpillFillClaim& operator=(const SpillFillClaim&) = delete;

  // Claims `ctx`'s external spill-fill buffer for `graph`; false (and one log
  // line) when another graph's execute holds it.
  // Inline: most contexts have no external spill-fill buffer.
  bool claim(Context& ctx, const std::string& graph) {
    return !ctx.has_external_spill_fill.load(std::memory_order_acquire) || claim_registered(ctx, graph);
  }

 private:
  bool claim_registered(Context& ctx, const std::string& graph);
  void release();

  bool held_ = false;
  uint64_t dev_ = 0, ino_ = 0;
};

}  // namespace openhtp::qnn
