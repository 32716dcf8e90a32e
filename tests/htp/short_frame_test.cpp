// The FastRPC short frame (src/ipc/short_frame.h): what the client writes the
// DSP reads back at the same places, and a frame no client writes — forged
// counts, lengths past the frame or the transport, handles, an inline input —
// is refused, never read past.
#include "ipc/short_frame.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "AEEStdErr.h"

namespace ipc = openhtp::ipc;

namespace {

struct Encoded {
  uint8_t frame[ipc::kSlotFrameBytes] = {};
  size_t bytes = 0;
};

// A client's encoding of inputs (copied) and outputs (copied, or the one
// inline when `inline_out` names it), laid out as libcdsprpc lays it out.
Encoded encode(const std::vector<std::vector<uint8_t>>& inputs, const std::vector<size_t>& outputs, int inline_out,
               std::vector<ipc::ArgDesc>* descs_out = nullptr) {
  const uint32_t n_args = static_cast<uint32_t>(inputs.size() + outputs.size());
  std::vector<ipc::ArgDesc> descs(n_args);
  uint64_t in_cursor = ipc::short_frame_head_bytes(n_args), out_cursor = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    descs[i] = {ipc::ArgKind::kCopy, ipc::kNoFd, inputs[i].size(), in_cursor, {}};
    in_cursor = ipc::align_up(in_cursor + inputs[i].size(), 8);
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    ipc::ArgDesc& d = descs[inputs.size() + o];
    if (static_cast<int>(o) == inline_out) {
      d = {ipc::ArgKind::kInlineOut, ipc::kNoFd, outputs[o], 0, {}};
    } else {
      d = {ipc::ArgKind::kCopy, ipc::kNoFd, outputs[o], out_cursor, {}};
      out_cursor = ipc::align_up(out_cursor + outputs[o], 64);
    }
  }
  Encoded e;
  const uint32_t sc = REMOTE_SCALARS_MAKE(3, static_cast<uint32_t>(inputs.size()), static_cast<uint32_t>(outputs.size()));
  ipc::write_short_frame_head(e.frame, sc, 42, descs.data(), n_args);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].empty()) std::memcpy(e.frame + descs[i].offset, inputs[i].data(), inputs[i].size());
  }
  e.bytes = in_cursor;
  if (descs_out != nullptr) *descs_out = descs;
  return e;
}

TEST(ShortFrame, WhatTheClientWritesTheDspReadsInPlace) {
  const std::vector<std::vector<uint8_t>> inputs = {{1, 2, 3}, {}, {9, 8, 7, 6, 5, 4, 3, 2, 1}};
  std::vector<ipc::ArgDesc> descs;
  Encoded e = encode(inputs, {16, 40, 100}, 1, &descs);
  ASSERT_LE(e.bytes, ipc::kSlotFrameBytes);
  std::vector<uint8_t> transport(256);
  uint8_t inline_out[ipc::kInlineOutBytes];
  ipc::ShortCall call;
  ASSERT_EQ(ipc::decode_short_frame(e.frame, e.bytes, transport.data(), transport.size(), inline_out, &call),
            AEE_SUCCESS);
  EXPECT_EQ(call.handle, 42u);
  EXPECT_EQ(REMOTE_SCALARS_METHOD(call.scalars), 3u);
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_EQ(call.args[i].buf.nLen, inputs[i].size());
    EXPECT_EQ(call.args[i].buf.pv, e.frame + descs[i].offset) << i;
    EXPECT_EQ(std::memcmp(call.args[i].buf.pv, inputs[i].data(), inputs[i].size()), 0) << i;
  }
  EXPECT_EQ(call.args[3].buf.pv, transport.data() + descs[3].offset);
  EXPECT_EQ(call.args[4].buf.pv, inline_out);
  EXPECT_EQ(call.args[4].buf.nLen, 40u);
  EXPECT_EQ(call.args[5].buf.pv, transport.data() + descs[5].offset);
  EXPECT_EQ(call.args[5].buf.nLen, 100u);
}

TEST(ShortFrame, FramesNoClientWritesAreRefused) {
  std::vector<uint8_t> transport(128);
  uint8_t inline_out[ipc::kInlineOutBytes];
  ipc::ShortCall call;
  auto decode = [&](Encoded& e, size_t transport_bytes = 128) {
    return ipc::decode_short_frame(e.frame, e.bytes, transport.data(), transport_bytes, inline_out, &call);
  };
  auto set_word = [](Encoded& e, uint32_t i, uint16_t w) {
    std::memcpy(e.frame + sizeof(ipc::ShortCallHeader) + i * 2, &w, 2);
  };
  auto set_scalars = [](Encoded& e, uint32_t sc) { std::memcpy(e.frame, &sc, 4); };
  {  // an input longer than the frame holds
    Encoded e = encode({{1, 2, 3, 4}}, {8}, 0);
    set_word(e, 0, 200);
    EXPECT_EQ(decode(e), AEE_EBADPARM);
  }
  {  // the frame's own length beyond the slot, or shorter than its header
    Encoded e = encode({{1}}, {8}, 0);
    e.bytes = ipc::kSlotFrameBytes + 1;
    EXPECT_EQ(decode(e), AEE_EBADPARM);
    e.bytes = 3;
    EXPECT_EQ(decode(e), AEE_EBADPARM);
  }
  {  // a copied output past the transport, or with no transport at all
    Encoded e = encode({{1}}, {100}, -1);
    EXPECT_EQ(decode(e, 99), AEE_EBADPARM);
    EXPECT_EQ(ipc::decode_short_frame(e.frame, e.bytes, nullptr, 0, inline_out, &call), AEE_EBADPARM);
    EXPECT_EQ(decode(e, 100), AEE_SUCCESS);
  }
  {  // an inline input, two inline outputs, an inline output too long
    Encoded e = encode({{1}}, {8, 8}, 0);
    set_word(e, 0, 1 | ipc::kShortInlineOut);
    EXPECT_EQ(decode(e), AEE_EBADPARM);
    e = encode({{1}}, {8, 8}, 0);
    set_word(e, 2, 8 | ipc::kShortInlineOut);
    EXPECT_EQ(decode(e), AEE_EBADPARM);
    e = encode({{1}}, {8}, 0);
    set_word(e, 1, (ipc::kInlineOutBytes + 1) | ipc::kShortInlineOut);
    EXPECT_EQ(decode(e), AEE_EBADPARM);
  }
  {  // handles, or more arguments than a short frame has words for
    Encoded e = encode({{1}}, {8}, 0);
    set_scalars(e, REMOTE_SCALARS_MAKEX(0, 3, 1, 1, 1, 0));
    EXPECT_EQ(decode(e), AEE_EBADPARM);
    set_scalars(e, REMOTE_SCALARS_MAKEX(0, 3, 1, 1, 0, 1));
    EXPECT_EQ(decode(e), AEE_EBADPARM);
    set_scalars(e, REMOTE_SCALARS_MAKE(3, ipc::kMaxShortArgs, 1));
    EXPECT_EQ(decode(e), AEE_EBADPARM);
  }
}

}  // namespace
