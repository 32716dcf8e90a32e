// Every client buffer the DSP may use in place: rpcmem allocations and
// regions mapped with fastrpc_mmap. remote calls look their buffer arguments
// up here to decide between passing by reference and copying.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <shared_mutex>

#include "ipc/call_protocol.h"

namespace openhtp::fastrpc {

enum class BufferOrigin { kRpcmem, kFastrpcMmap };

struct ClientBuffer {
  uint8_t* base = nullptr;   // client address of byte 0 of the region
  size_t size = 0;
  // rpcmem: the bytes the client asked for; `size` is the whole (page-rounded)
  // mapping, which calls may pass by reference, but rpcmem_to_fd answers only
  // for the allocation itself. 0: the same as `size`.
  size_t requested = 0;
  int fd = -1;               // rpcmem: owned; fastrpc_mmap: the caller's
  uint64_t fd_offset = 0;    // offset of `base` within the fd
  ipc::BufferKey key;
  BufferOrigin origin = BufferOrigin::kRpcmem;
  bool dsp_mapped = false;   // the DSP process holds a mapping of `key`
  bool fastrpc_mapped = false;  // an rpcmem region the client also mapped with fastrpc_mmap
};

class BufferRegistry {
 public:
  static BufferRegistry& instance();

  // Returns false if a region already starts at buf.base.
  bool add(const ClientBuffer& buf);
  // Removes the region starting exactly at `base`.
  std::optional<ClientBuffer> remove(const void* base);
  // The region that contains [p, p + len), if any.
  std::optional<ClientBuffer> find_containing(const void* p, size_t len) const;
  // False when no region can hold `p` (outside the span of them all): the
  // answer without the lock that most copied arguments get.
  bool may_hold(const void* p) const {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    return a >= span_lo_.load(std::memory_order_acquire) && a <= span_hi_.load(std::memory_order_acquire);
  }
  // The fastrpc_mmap region of `fd` (by identity), if any.
  std::optional<ClientBuffer> find_mapped_fd(const ipc::BufferKey& key) const;
  // Marks (or unmarks) the rpcmem region starting at `base` as fastrpc_mmap'ed;
  // false if no rpcmem region starts there.
  bool set_fastrpc_mapped(const void* base, const ipc::BufferKey& key, bool mapped);
  // Records that the DSP now maps the buffer `key`.
  void mark_dsp_mapped(const ipc::BufferKey& key);
  // True while another live region still refers to `key` (so the DSP mapping
  // must stay).
  bool key_in_use(const ipc::BufferKey& key) const;
  // QNN memory handles referring to buffer `key` (libQnnHtp reports each
  // handle's start and end: openhtp_fastrpc_note_qnn_registration). Kept
  // apart from the regions: a handle outlives neither, but may name a buffer
  // that is not an rpcmem allocation at all (a memfd, a DMA-BUF).
  void note_qnn_registration(const ipc::BufferKey& key, int delta);
  int qnn_registrations(const ipc::BufferKey& key) const;
  // Forgets DSP mappings (after the DSP process went away).
  void clear_dsp_mapped();

 private:
  void update_span();  // caller holds mu_ exclusively

  mutable std::shared_mutex mu_;
  std::map<uintptr_t, ClientBuffer> by_base_;
  std::map<ipc::BufferKey, int> qnn_registrations_;
  // [span_lo_, span_hi_) covers every region (empty: lo >= hi). Most buffer
  // arguments (a stub's request and status blocks, plain client memory) lie
  // outside it and are answered without taking mu_. A region is added before
  // its address is handed out, so no caller can hold a pointer into it
  // before the span covers it.
  std::atomic<uintptr_t> span_lo_{UINTPTR_MAX}, span_hi_{0};
};

// fstat identity of an fd; false if fd is not valid.
bool key_of_fd(int fd, ipc::BufferKey* key, uint64_t* size);

}  // namespace openhtp::fastrpc
