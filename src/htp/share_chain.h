// Which of a graph's steps may start while the step before it is still
// running on the other threads (threads/team.h UnjoinedShares).
//
// Steps whose kernels split their work one share per thread and say what
// each share touches (ops::OpKernel::chained_shares, share_access) form a
// chain: thread t runs share t of each step in turn, with no barrier between
// them, when nothing one thread does in a later step can meet what another
// thread does in an earlier one. A chain goes on from the last step that
// joined (the last barrier), so a step joins the chain when, for every two
// different threads t and u:
//   - share t of the step reads nothing share u of a chained step writes
//     (what it reads from the chain, thread t itself wrote), and
//   - share t of the step writes nothing share u of a chained step reads or
//     writes (no pending share's input or output is overwritten; this is
//     also why a buffer the memory plan reuses breaks a chain, unless each
//     thread's part of the new tensor falls on its own part of the old).
// Same-thread order needs no check: thread t runs its shares in step order.
// When a step meets an earlier chained step but not the one right before
// it, it still chains: before it starts, the master waits until every
// thread ended that earlier step (it usually has: the threads are seldom
// more than a step apart), and the steps up to it leave the chain.
//
// Why: MobileNetV2's depthwise and pointwise convolutions split in row and
// pixel slabs that line up (onednn_slabs.h), and a barrier between two of
// them costs a handoff and every share's wait for the slowest
// (docs/performance.md, "Session 25").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ops/op.h"

namespace openhtp::htp {

// Whether chains are on for this process (OPENHTP_SHARE_CHAINS=off turns
// them off, for comparisons; read once).
bool share_chains_enabled();

// Whether a step that does not chain after the step before it, both split
// in the same shares, is fenced (threads::FencedShares) instead of joined
// after that step (OPENHTP_SHARE_FENCES=off turns it off, for comparisons;
// read once). Needs chains on.
bool share_fences_enabled();

class ShareChain {
 public:
  explicit ShareChain(size_t threads) : threads_(threads) {}

  // How a step may start after the ones added before it.
  struct Start {
    bool chained = false;      // false: only after the step before it joined
    size_t wait_for = SIZE_MAX;  // chained: the step whose shares must all have ended first; SIZE_MAX: none
  };
  // A step whose shares touch `shares` (one per thread) comes next (steps
  // are numbered from 0 in the order added). An empty `shares`, or one
  // whose spans overflowed, is a step that does not chain: not chained, and
  // the chain is empty after it.
  Start add(std::span<const ops::ShareAccess> shares);

 private:
  struct Step {
    size_t number;
    std::vector<ops::ShareAccess> shares;  // [thread]
  };
  // Whether share t of `later` can meet share u != t of `earlier`.
  static bool conflict(std::span<const ops::ShareAccess> later, std::span<const ops::ShareAccess> earlier);

  size_t threads_;
  size_t added_ = 0;
  std::vector<Step> pending_;  // the chain's steps that may still be running, oldest first
};

}  // namespace openhtp::htp
