// The short frame of a FastRPC call (call_protocol.h, ShortCallHeader): the
// encoder the client uses and the decoder the DSP uses, one pair, so that the
// offsets both sides derive from the lengths follow one rule.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ipc/call_protocol.h"
#include "remote.h"

namespace openhtp::ipc {

// Bytes of the header and argument words: the first copied input starts here.
inline constexpr uint64_t short_frame_head_bytes(uint32_t n_args) {
  return align_up(sizeof(ShortCallHeader) + n_args * sizeof(uint16_t), 8);
}

// Whether an argument described by `d` can travel in a short frame.
inline bool fits_short_frame(const ArgDesc& d) {
  return (d.kind == ArgKind::kCopy || d.kind == ArgKind::kInlineOut) && d.len <= kShortLenMask;
}

// The argument word of a short frame: the length, and whether the output
// comes back inline.
inline uint16_t short_arg_word(uint64_t len, bool inline_out) {
  return static_cast<uint16_t>(len) | (inline_out ? kShortInlineOut : uint16_t{0});
}

// Writes the header and the argument words; the caller copies the inputs to
// the offsets in `descs`, laid out by the rule above.
void write_short_frame_head(uint8_t* frame, uint32_t scalars, uint32_t handle, const ArgDesc* descs, uint32_t n_args);

struct ShortCall {
  uint32_t scalars = 0;
  uint32_t handle = 0;
  remote_arg args[kMaxShortArgs];
};

// Decodes a short frame of `frame_bytes` into `call`: inputs point into the
// frame, copied outputs into `transport` (which may be null when no output
// is copied), the inline output at `inline_out` (kInlineOutBytes). AEE_EBADPARM
// for anything a client could not have written: too many arguments, handles,
// an input or output beyond its buffer, an inline input or two inline outputs.
int decode_short_frame(uint8_t* frame, size_t frame_bytes, uint8_t* transport, size_t transport_bytes,
                       uint8_t* inline_out, ShortCall* call);

}  // namespace openhtp::ipc
