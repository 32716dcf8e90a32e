// XNNPACK plumbing shared by the xnnpack_* fast paths: one-time library
// initialisation, operator ownership, and the XNN_EXTRA_BYTES input rule.
#pragma once

#include <xnnpack.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ops/op.h"

namespace openhtp::kernels::xnn {

// xnn_initialize(nullptr), done once per process; false when it failed (every
// XNNPACK fast path then declines and the reference kernels run).
bool ready();

struct OperatorDelete {
  void operator()(xnn_operator_t op) const { xnn_delete_operator(op); }
};
using Operator = std::unique_ptr<xnn_operator, OperatorDelete>;

// The graph's pool (null = run on the caller's thread).
inline pthreadpool_t pool_of(const ops::NodeDesc& node) { return node.env ? node.env->pool : nullptr; }

// XNNPACK's micro-kernels may read up to XNN_EXTRA_BYTES past the end of an
// input. Buffers we allocate have that slack, but a graph input can be a
// client buffer that ends exactly at the end of a mapped page, where the
// over-read would fault. readable() checks (cheaply, with the pointer and
// size) whether the over-read would touch a page the last byte does not
// live on, and only then copies the input into a padded scratch buffer sized
// once at prepare. 4096 is the smallest page size, so larger pages only make
// the check conservative.
class ReadableInput {
 public:
  void reserve(size_t bytes) { copy_.assign(bytes + XNN_EXTRA_BYTES, 0); }
  const void* readable(const void* p, size_t bytes);
  // A buffer of the reserved size + XNN_EXTRA_BYTES, for setup calls at
  // prepare time that need some valid pointer.
  uint8_t* scratch() { return copy_.data(); }

 private:
  std::vector<uint8_t> copy_;
};

// XOR 0x80 on every byte: uint8 with zero point z <-> int8 with zero point
// z - 128, exactly (the value q - z is unchanged).
void flip_sign_bits(const uint8_t* src, uint8_t* dst, size_t n);

}  // namespace openhtp::kernels::xnn
