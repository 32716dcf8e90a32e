#include "dsp/client_channel.h"

#include <unistd.h>

#include <chrono>
#include <cstring>

#include "common/log.h"
#include "ipc/fd_socket.h"
#include "ipc/short_frame.h"
#include "remote.h"

namespace openhtp::dsp {

int ClientChannel::handshake() {
  ipc::HelloMsg hello{};
  std::vector<int> fds;
  long n = ipc::recv_with_fds(control_fd_, &hello, sizeof hello, &fds);
  if (n != static_cast<long>(sizeof hello) || hello.op != ipc::ControlOp::kHello || hello.magic != ipc::kProtocolMagic ||
      hello.version != ipc::kProtocolVersion || hello.num_slots != ipc::kNumSlots ||
      fds.size() != 1 + ipc::kNumSlots) {
    log(LogLevel::kError, "cdsp", "bad hello from client");
    for (int fd : fds) close(fd);
    return 1;
  }
  if (doorbell_.adopt(fds[0]) != 0 || doorbell_.size() < sizeof(ipc::DoorbellPage)) {
    log(LogLevel::kError, "cdsp", "cannot map the doorbell page");
    return 1;
  }
  page_ = reinterpret_cast<ipc::DoorbellPage*>(doorbell_.data());
  slots_.resize(ipc::kNumSlots);
  for (uint32_t i = 0; i < ipc::kNumSlots; ++i) slots_[i].sock = fds[1 + i];
  ipc::HelloAck ack;
  ack.pid = getpid();
  return ipc::send_with_fds(control_fd_, &ack, sizeof ack, nullptr, 0) == 0 ? 0 : 1;
}

int ClientChannel::run() {
  if (handshake() != 0) return 1;
  for (uint32_t i = 0; i < ipc::kNumSlots; ++i) {
    std::thread([this, i] { slot_loop(static_cast<int>(i)); }).detach();
  }
  // The heartbeat: proof to a waiting client that this process still runs
  // (call_protocol.h). It stops with the whole process, and only then.
  std::thread([this] {
    for (;;) {
      page_->heartbeat.fetch_add(1, std::memory_order_relaxed);
      std::this_thread::sleep_for(std::chrono::nanoseconds(ipc::kHeartbeatPeriodNs));
    }
  }).detach();
  // The control socket: releases, and EOF when the client process is gone.
  for (;;) {
    ipc::ReleaseMsg msg;
    long n = ipc::recv_with_fds(control_fd_, &msg, sizeof msg, nullptr);
    if (n <= 0) {
      log(LogLevel::kInfo, "cdsp", "client gone; exiting");
      // _exit: slot threads may be in the middle of a call; nothing they hold
      // needs an orderly shutdown and waiting for them could take forever.
      _exit(0);
    }
    if (static_cast<size_t>(n) >= sizeof(uint32_t) * 2 && msg.op == ipc::ControlOp::kReleaseMappings) {
      for (uint32_t i = 0; i < msg.count && i < ipc::kMaxReleasePerMsg; ++i) mappings_.release(msg.keys[i]);
    }
  }
}

void ClientChannel::slot_loop(int index) {
  Slot& slot = slots_[static_cast<size_t>(index)];
  ipc::SlotControl& ctl = page_->slots[index];
  uint32_t seen = 0;  // both sides start counting at 0; the client may post before we run
  const int64_t spins = ipc::default_spin_ns();
  for (;;) {
    uint32_t v = ipc::futex_wait_change(ctl.request, seen, spins, 0);
    if (v == seen) continue;
    seen = v;
    // The rest of the client's lines, if the frame spills into them, fetched
    // together rather than as the decode reaches them (call_protocol.h,
    // SlotControl).
    if (ctl.call.frame_bytes > ipc::kFirstLineFrameBytes) {
      __builtin_prefetch(reinterpret_cast<const uint8_t*>(&ctl) + 64);
      __builtin_prefetch(reinterpret_cast<const uint8_t*>(&ctl) + 128);
    }
    const int result =
        ctl.call.frame_kind == ipc::FrameKind::kShort ? serve_short_call(slot, ctl) : serve_call(slot, ctl);
    // The response line in one burst: the client spins reading it
    // (call_protocol.h, SlotRequest).
    std::memcpy(ctl.inline_out, slot.inline_out, sizeof ctl.inline_out);
    ctl.result = result;
    ipc::futex_publish(ctl.response, seen);
  }
}

int ClientChannel::serve_short_call(Slot& slot, ipc::SlotControl& ctl) {
  // No fds come with a short frame (the client sends none), so nothing here
  // needs closing or pinning, and the arguments live on the stack.
  if (ctl.call.num_fds != 0 || ctl.call.transport_fd_index != ipc::kNoFd16) return AEE_EBADPARM;
  ipc::ShortCall call;
  const bool has_transport = slot.transport.valid();
  const int rc = ipc::decode_short_frame(ctl.call.frame, ctl.call.frame_bytes,
                                         has_transport ? slot.transport.data() : nullptr,
                                         has_transport ? slot.transport.size() : 0, slot.inline_out, &call);
  if (rc != AEE_SUCCESS) return rc;
  return modules_.invoke(call.handle, call.scalars, call.args, &slot.invoke_memo);
}

int ClientChannel::serve_call(Slot& slot, ipc::SlotControl& ctl) {
  std::vector<int>& fds = slot.fds;
  std::vector<remote_arg>& args = slot.args;
  fds.clear();
  if (ctl.call.num_fds > 0) {
    // As many messages as the client needed (ipc::kMaxFdsPerMessage each).
    while (fds.size() < ctl.call.num_fds) {
      char tag;
      const long n = ipc::recv_with_fds(slot.sock, &tag, 1, &fds);
      if (n <= 0) break;
    }
    if (fds.size() != ctl.call.num_fds) {
      for (int fd : fds) close(fd);
      log(LogLevel::kError, "cdsp", "expected %u fds with the call, got %zu", ctl.call.num_fds, fds.size());
      return AEE_EFAILED;
    }
  }
  // Every received fd is closed on the way out unless something adopted it.
  struct FdGuard {
    std::vector<int>& fds;
    ~FdGuard() {
      for (int fd : fds) {
        if (fd >= 0) close(fd);
      }
    }
  } guard{fds};
  // Unpinned when the call returns, whichever way.
  struct PinGuard {
    std::vector<std::shared_ptr<ipc::FdMapping>>& pinned;
    ~PinGuard() { pinned.clear(); }
  } pins{slot.pinned};

  if (ctl.call.transport_fd_index != ipc::kNoFd16) {
    if (ctl.call.transport_fd_index >= fds.size() || slot.transport.adopt(fds[ctl.call.transport_fd_index]) != 0) {
      fds[ctl.call.transport_fd_index < fds.size() ? ctl.call.transport_fd_index : 0] = -1;
      return AEE_EFAILED;
    }
    fds[ctl.call.transport_fd_index] = -1;
  }
  // The frame: in the slot's own lines, or at the start of the transport.
  uint8_t* const t = slot.transport.valid() ? slot.transport.data() : nullptr;
  const size_t tsize = slot.transport.valid() ? slot.transport.size() : 0;
  const uint32_t in_slot_bytes = ctl.call.frame_bytes;
  if (in_slot_bytes > ipc::kSlotFrameBytes) return AEE_EBADPARM;
  uint8_t* const frame = in_slot_bytes > 0 ? ctl.call.frame : t;
  const size_t frame_size = in_slot_bytes > 0 ? in_slot_bytes : tsize;
  if (frame == nullptr || frame_size < sizeof(ipc::CallHeader)) return AEE_EFAILED;
  const ipc::CallHeader hdr = *reinterpret_cast<const ipc::CallHeader*>(frame);
  const uint32_t n_args = hdr.num_args;
  if (n_args > 255 + 255 + 15 || sizeof(ipc::CallHeader) + n_args * sizeof(ipc::ArgDesc) > frame_size) {
    return AEE_EBADPARM;
  }
  auto* descs = reinterpret_cast<ipc::ArgDesc*>(frame + sizeof(ipc::CallHeader));
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(hdr.scalars);

  args.assign(n_args, remote_arg{});
  for (uint32_t i = 0; i < n_args; ++i) {
    const ipc::ArgDesc& d = descs[i];
    switch (d.kind) {
      case ipc::ArgKind::kCopy: {
        // Inputs live in the frame, outputs in the transport.
        uint8_t* const base = i < n_in ? frame : t;
        const size_t size = i < n_in ? frame_size : tsize;
        if (d.len == 0) {  // an empty buffer: nothing to point at (the transport may not exist yet)
          args[i].buf.pv = base;
          args[i].buf.nLen = 0;
          break;
        }
        if (base == nullptr || d.offset > size || d.len > size - d.offset) return AEE_EBADPARM;
        args[i].buf.pv = base + d.offset;
        args[i].buf.nLen = d.len;
        break;
      }
      case ipc::ArgKind::kRef: {
        if (d.fd_index != ipc::kNoFd) {
          if (d.fd_index >= fds.size() || fds[d.fd_index] < 0) return AEE_EBADPARM;
          std::string why;
          const bool ok = mappings_.add(d.key, fds[d.fd_index], &why);
          fds[d.fd_index] = -1;
          if (!ok) {
            // A buffer the DSP cannot map fails this call as what it is;
            // the session goes on (docs/design.md §5).
            log(LogLevel::kError, "cdsp", "by-reference argument %u: cannot map the buffer: %s", i, why.c_str());
            return AEE_EMMAP;
          }
        }
        std::shared_ptr<ipc::FdMapping> m = mappings_.lookup(d.key);
        if (!m || !m->contains(d.offset, d.len)) {
          log(LogLevel::kError, "cdsp", "by-reference argument %u is not mapped or out of bounds", i);
          return AEE_EBADPARM;
        }
        args[i].buf.pv = m->base() + d.offset;
        args[i].buf.nLen = d.len;
        slot.pinned.push_back(std::move(m));
        break;
      }
      case ipc::ArgKind::kInlineOut:
        if (d.len > ipc::kInlineOutBytes) return AEE_EBADPARM;
        args[i].buf.pv = slot.inline_out;
        args[i].buf.nLen = d.len;
        break;
      case ipc::ArgKind::kDma:
        if (d.fd_index >= fds.size() || d.offset > UINT32_MAX) return AEE_EBADPARM;
        args[i].dma.fd = fds[d.fd_index];
        args[i].dma.offset = static_cast<uint32_t>(d.offset);
        break;
      default:
        return AEE_EBADPARM;
    }
  }

  switch (hdr.op) {
    case ipc::CallOp::kPing:
      return AEE_SUCCESS;
    case ipc::CallOp::kOpen: {
      if (n_args != 1 || args[0].buf.nLen == 0) return AEE_EBADPARM;
      const char* s = static_cast<const char*>(args[0].buf.pv);
      std::string uri(s, strnlen(s, args[0].buf.nLen));
      uint64_t h = 0;
      int rc = modules_.open(uri, &h);
      ctl.out_handle = h;
      return rc;
    }
    case ipc::CallOp::kInvoke:
      if (REMOTE_SCALARS_LENGTH(hdr.scalars) != n_args) return AEE_EBADPARM;
      return modules_.invoke(hdr.handle, hdr.scalars, args.data(), &slot.invoke_memo);
    case ipc::CallOp::kClose:
      return modules_.close(hdr.handle);
  }
  return AEE_EBADPARM;
}

}  // namespace openhtp::dsp
