// XNNPACK plumbing shared by the xnnpack_* fast paths: one-time library
// initialisation, operator ownership, and the XNN_EXTRA_BYTES input rule.
#pragma once

#include <xnnpack.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ops/op.h"
#include "ops/workspace.h"

namespace openhtp::kernels::xnn {

// xnn_initialize(nullptr), done once per process; false when it failed (every
// XNNPACK fast path then declines and the reference kernels run).
bool ready();

struct OperatorDelete {
  void operator()(xnn_operator_t op) const { xnn_delete_operator(op); }
};
using Operator = std::unique_ptr<xnn_operator, OperatorDelete>;

// Flags every operator is created with: none. XNN_FLAG_YIELD_WORKERS (made
// for pthreadpool's own workers, which spun after each operator) means
// nothing to openhtp's pool: its workers are the graph's OpenMP team, and
// OpenMP's wait policy decides how they wait (src/threads).
inline constexpr uint32_t kRunFlags = 0;

// Whether XNNPACK's pthreadpool calls reach openhtp's pool (src/threads),
// checked once by running a tiny operator. They do unless this process had
// loaded another pthreadpool into its global scope first; then XNNPACK must
// not be given openhtp's pools (another implementation would misread them)
// and its operators run on the caller's thread, with one warning line.
bool shares_graph_pool();

// The graph's pool for an XNNPACK operator (null = run on the caller's thread).
inline pthreadpool_t pool_of(const ops::NodeDesc& node) {
  return node.env && node.env->pool && shares_graph_pool() ? node.env->pool : nullptr;
}

// The pool for an operator doing `work` multiply-adds (or element visits),
// or null to run it on the caller's thread. With the graph's workers
// spinning between regions (src/threads) a split costs a few microseconds,
// and a node after a convolution on all threads finds half its input in the
// other core's cache, so splitting pays from ~1M: at 2 threads EfficientNet-B0
// fp32 7.51 -> 7.06 ms with this and the element-wise thresholds lowered
// (xnnpack_elementwise.h; docs/performance.md, session 6). The 16M it
// replaced was measured with sleeping workers on two separate pools.
inline constexpr uint64_t kParallelMinWork = uint64_t{1} << 20;
inline pthreadpool_t pool_for(const ops::NodeDesc& node, uint64_t work) {
  return work >= kParallelMinWork ? pool_of(node) : nullptr;
}

// XNNPACK's micro-kernels may read up to XNN_EXTRA_BYTES past the end of an
// input. Where that is safe:
//   - a planned input (TensorDesc::planned): the runtime keeps the kernel's
//     read_slack_bytes() readable after every tensor it plans, so XNNPACK
//     reads it in place, always;
//   - anything else — a graph input in the client's buffer, a weight in an
//     external weights buffer — may end on the last byte of a mapped page,
//     where the over-read would fault. tail_readable() checks (cheaply, with
//     the pointer and size) whether the over-read stays on the page of the
//     last byte; only when it does not is the input copied, into the node's
//     workspace (op.h), which has room for the copy and its padding. 4096 is
//     the smallest page size, so larger pages only make the check
//     conservative.
// Nothing is copied for the graph's life: the copy, when one is needed, lives
// in memory the planner shares between nodes.
inline constexpr size_t kReadSlack = XNN_EXTRA_BYTES;

bool tail_readable(const void* p, size_t bytes);

class ReadableInput {
 public:
  // At prepare, from TensorDesc::planned of the input: a planned input needs
  // no copy and so no workspace.
  void prepare(bool planned, size_t bytes);
  // Workspace bytes for the copy: 0 for a planned input.
  size_t workspace_bytes() const { return copy_bytes_; }
  // `p` itself, or its copy in `copy` (workspace_bytes() of the node's
  // workspace) when reading past its end could fault.
  const void* readable(const void* p, uint8_t* copy) const;

 private:
  size_t bytes_ = 0, copy_bytes_ = 0;
};

// Some valid address for the setup calls made at prepare, which size the
// operators' indirection buffers before any data exists; XNNPACK only
// computes addresses from it (later setups re-point them by an offset).
const void* setup_placeholder();

// XOR 0x80 on every byte: uint8 with zero point z <-> int8 with zero point
// z - 128, exactly (the value q - z is unchanged).
void flip_sign_bits(const uint8_t* src, uint8_t* dst, size_t n);

}  // namespace openhtp::kernels::xnn
