// The FastRPC channel between libcdsprpc (client) and the DSP process.
//
// Setup: the client creates a SOCK_SEQPACKET socketpair, starts the DSP
// process with one end as fd 3 and sends it a Hello carrying the doorbell page
// and one socket per call slot. Nobody else can reach the DSP process: there
// is no path in the file system, only the inherited socket.
//
// A call: the client takes a free slot, writes its frame (a short header and
// a length word per argument when every argument is copied, else a CallHeader
// + ArgDescs; then the bytes of copied input buffers) into the slot's control
// lines when it fits, else into the slot's transport buffer (a memfd both
// sides map), sends any file descriptors the call needs over the slot's socket in
// one message, then bumps slot.request. The DSP's slot thread wakes, picks
// up the fds, runs the call and bumps slot.response. The control path is
// shared memory + futex; sockets carry only fds.
//
// The DSP process exits as soon as the control socket reports EOF, i.e. when
// the client process is gone however it died.
#pragma once

#include <cstddef>
#include <atomic>
#include <cstdint>

#include "ipc/futex_word.h"

namespace openhtp::ipc {

inline constexpr uint32_t kProtocolMagic = 0x4f485450;  // "OHTP"
inline constexpr uint32_t kProtocolVersion = 5;
inline constexpr uint32_t kNumSlots = 8;
inline constexpr uint32_t kNoFd = 0xffffffffu;
inline constexpr uint16_t kNoFd16 = 0xffffu;  // SlotControl::transport_fd_index: none
inline constexpr int kDspControlFd = 3;  // where the DSP process finds its socket

// Identity of a shareable buffer that both processes can compute from their
// own fd (fstat): stable while either side keeps the buffer alive.
struct BufferKey {
  uint64_t dev = 0;
  uint64_t ino = 0;
  bool operator==(const BufferKey& o) const { return dev == o.dev && ino == o.ino; }
  bool operator<(const BufferKey& o) const { return dev != o.dev ? dev < o.dev : ino < o.ino; }
};

// Control-socket messages, client → DSP.
enum class ControlOp : uint32_t { kHello = 1, kReleaseMappings = 2 };

struct HelloMsg {  // fds: doorbell page, then one socket per slot
  ControlOp op = ControlOp::kHello;
  uint32_t magic = kProtocolMagic;
  uint32_t version = kProtocolVersion;
  uint32_t num_slots = kNumSlots;
};

struct HelloAck {  // DSP → client
  uint32_t magic = kProtocolMagic;
  uint32_t version = kProtocolVersion;
  int32_t pid = 0;
  uint32_t reserved = 0;
};

inline constexpr uint32_t kMaxReleasePerMsg = 32;
struct ReleaseMsg {  // the client freed these buffers; drop the DSP's mappings
  ControlOp op = ControlOp::kReleaseMappings;
  uint32_t count = 0;
  BufferKey keys[kMaxReleasePerMsg];
};

inline constexpr size_t kInlineOutBytes = 40;
inline constexpr size_t kSlotFrameBytes = 176;
// The part of the frame that shares the request word's line.
inline constexpr size_t kFirstLineFrameBytes = 48;

// How SlotControl::frame is laid out.
enum class FrameKind : uint16_t {
  kLong = 0,   // CallHeader + ArgDescs + copied input bytes (any call)
  kShort = 1,  // ShortCallHeader + ArgWords + copied input bytes (see below)
};

// One call slot in the doorbell page. Each side writes its own lines and
// reads the other's, and everything a signal needs travels in or beside the
// line that carries it:
// - client → DSP: the request word shares its line with the start of the
//   call's frame whenever the frame fits in kSlotFrameBytes, which every HTP
//   call except a large graph or binary does. A short frame (below) of at most
//   kFirstLineFrameBytes — a tiny execute with memory handles, most small
//   calls — is wholly in that one line: the DSP's wake-up read fetches the
//   call, and the client's publish waits for one line, not three. A longer
//   frame spills into the next two lines, which the DSP prefetches together
//   the moment it wakes; a still larger one goes in the transport buffer.
// - DSP → client: the result, an open's handle and a small output buffer (the
//   HTP skel's status block) share the response word's line.
// Copied OUTPUT bytes always live in the transport buffer.
// What the client writes beside the request word. It stages a call's copy in
// its own memory and writes it into the slot in one burst just before the
// request: the DSP spins reading this line, and every store that found the
// line shared would have to take it back from that reader.
struct SlotRequest {
  uint16_t num_fds;                 // fds sent on the slot socket for this call
  uint16_t transport_fd_index;      // which of them replaces the transport buffer (kNoFd16: none)
  uint16_t frame_bytes;             // > 0: the frame is `frame`; 0: it is in the transport
  FrameKind frame_kind;
  alignas(8) uint8_t frame[kSlotFrameBytes];
};

struct SlotControl {
  // Written by the client.
  alignas(64) FutexWord request;         // bumped to post a call
  SlotRequest call;
  // Written by the DSP, in one burst before the response word (as above).
  alignas(64) FutexWord response;        // set to the request's value when done
  int32_t result = 0;                    // AEE status of the call
  uint32_t reserved = 0;
  uint64_t out_handle = 0;               // result of an open
  uint8_t inline_out[kInlineOutBytes];   // an ArgKind::kInlineOut buffer
};
static_assert(offsetof(SlotControl, call) + offsetof(SlotRequest, frame) == 64 - kFirstLineFrameBytes);
static_assert(offsetof(SlotControl, response) == 192 && sizeof(SlotControl) == 256);

// How often the DSP process's watchdog thread bumps DoorbellPage::heartbeat.
// A client waiting for a call that sees no beat for its deadline knows the
// process is stopped (SIGSTOP, a debugger) or wedged as a whole, not busy.
inline constexpr int64_t kHeartbeatPeriodNs = 10'000'000;

struct DoorbellPage {
  uint32_t magic;
  uint32_t version;
  uint32_t num_slots;
  uint32_t reserved;
  alignas(64) std::atomic<uint64_t> heartbeat;  // written by the DSP only, in a line of its own
  SlotControl slots[kNumSlots];
};

enum class CallOp : uint32_t { kPing = 0, kOpen = 1, kInvoke = 2, kClose = 3 };

enum class ArgKind : uint32_t {
  kCopy = 0,  // input: bytes live in the frame at `offset`; output: in the transport at `offset`
  kRef = 1,   // bytes live in a shared buffer (key) at `offset`; fd_index set on first use
  kDma = 2,   // a remote_dma_handle: fds[fd_index] at `offset`
  kInlineOut = 3,  // a small output buffer returned in SlotControl::inline_out
};

struct ArgDesc {
  ArgKind kind;
  uint32_t fd_index;
  uint64_t len;
  uint64_t offset;
  BufferKey key;
};

struct CallHeader {
  CallOp op;
  uint32_t scalars;     // REMOTE_SCALARS of an invoke
  uint64_t handle;      // remote handle of an invoke/close
  uint32_t num_args;
  uint32_t reserved;
  // ArgDesc args[num_args] follow, then copied data.
};

// The short frame: an invoke whose every argument is a copied input in the
// frame, a copied output in the transport buffer or the one inline output,
// with no file descriptor to send and a handle below 2^32. Per argument it
// carries a 16-bit word instead of a 40-byte ArgDesc, since such arguments
// need only a length: the offsets follow from the lengths by one rule on
// both sides (InSlotLayout: inputs packed at 8 bytes after the words, outputs at 64 in the
// transport from 0).
struct ShortCallHeader {
  uint32_t scalars;
  uint32_t handle;
  // uint16_t arg_words[REMOTE_SCALARS_LENGTH(scalars)] follow, then (8-byte
  // aligned) the copied input bytes.
};
inline constexpr uint16_t kShortInlineOut = 0x8000;  // arg word: returned in SlotControl::inline_out
inline constexpr uint16_t kShortLenMask = 0x7fff;
inline constexpr uint32_t kMaxShortArgs = 16;

inline constexpr uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Where the copied arguments of a frame in the slot go, in argument order:
// inputs packed at 8 bytes in the frame from the end of its header, outputs
// at 64 in the transport from 0. The client lays both frame forms out with
// it; the DSP re-derives a short frame's offsets with it.
struct InSlotLayout {
  uint64_t in_cursor;   // next input's offset in the frame
  uint64_t out_cursor = 0;  // next output's offset in the transport
  uint64_t place_input(uint64_t len) {
    const uint64_t at = in_cursor;
    in_cursor = align_up(in_cursor + len, 8);
    return at;
  }
  uint64_t place_output(uint64_t len) {
    const uint64_t at = out_cursor;
    out_cursor = align_up(out_cursor + len, 64);
    return at;
  }
};

}  // namespace openhtp::ipc
