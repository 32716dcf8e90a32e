#include "ipc/short_frame.h"

#include <cstring>

#include "AEEStdErr.h"

namespace openhtp::ipc {

void write_short_frame_head(uint8_t* frame, uint32_t scalars, uint32_t handle, const ArgDesc* descs, uint32_t n_args) {
  const ShortCallHeader hdr{scalars, handle};
  std::memcpy(frame, &hdr, sizeof hdr);
  for (uint32_t i = 0; i < n_args; ++i) {
    const uint16_t word = short_arg_word(descs[i].len, descs[i].kind == ArgKind::kInlineOut);
    std::memcpy(frame + sizeof hdr + i * sizeof word, &word, sizeof word);
  }
}

int decode_short_frame(uint8_t* frame, size_t frame_bytes, uint8_t* transport, size_t transport_bytes,
                       uint8_t* inline_out, ShortCall* call) {
  if (frame_bytes > kSlotFrameBytes || frame_bytes < sizeof(ShortCallHeader)) return AEE_EBADPARM;
  ShortCallHeader hdr;
  std::memcpy(&hdr, frame, sizeof hdr);
  const uint32_t n_args = REMOTE_SCALARS_LENGTH(hdr.scalars);
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(hdr.scalars);
  if (n_args > kMaxShortArgs || REMOTE_SCALARS_INHANDLES(hdr.scalars) != 0 ||
      REMOTE_SCALARS_OUTHANDLES(hdr.scalars) != 0) {
    return AEE_EBADPARM;
  }
  InSlotLayout layout{short_frame_head_bytes(n_args)};
  if (layout.in_cursor > frame_bytes) return AEE_EBADPARM;
  call->scalars = hdr.scalars;
  call->handle = hdr.handle;
  bool inline_used = false;
  for (uint32_t i = 0; i < n_args; ++i) {
    uint16_t word;
    std::memcpy(&word, frame + sizeof hdr + i * sizeof word, sizeof word);
    const uint64_t len = word & kShortLenMask;
    remote_buf& b = call->args[i].buf;
    if ((word & kShortInlineOut) != 0) {
      if (i < n_in || inline_used || len > kInlineOutBytes) return AEE_EBADPARM;
      inline_used = true;
      b = {inline_out, len};
    } else if (i < n_in) {
      if (layout.in_cursor > frame_bytes || len > frame_bytes - layout.in_cursor) return AEE_EBADPARM;
      b = {frame + layout.place_input(len), len};
    } else {
      const uint64_t at = layout.out_cursor;
      if (len > 0 && (transport == nullptr || at > transport_bytes || len > transport_bytes - at)) return AEE_EBADPARM;
      b = {transport != nullptr ? transport + layout.place_output(len) : nullptr, len};
    }
  }
  return AEE_SUCCESS;
}

}  // namespace openhtp::ipc
