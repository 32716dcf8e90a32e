// The client end of the FastRPC channel: starts this process's DSP process on
// first use, owns the doorbell page, the call slots and their transport
// buffers, and turns one remote call into one round trip.
//
// One DSP process per client process. It is a child started with posix_spawn
// that can only be reached through the socket it inherits, and it exits when
// that socket reports EOF, so it never outlives the client.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "ipc/call_protocol.h"
#include "ipc/shared_region.h"
#include "remote.h"

namespace openhtp::fastrpc {

struct CallStats {
  uint64_t bytes_copied_in = 0;
  uint64_t bytes_copied_out = 0;
  uint64_t bytes_by_reference = 0;
  uint32_t fds_sent = 0;
  // Time spent copying through the transport (zero for calls whose frame
  // fits in the slot: those bytes ride along with the doorbell).
  uint64_t copy_in_ns = 0;
  uint64_t copy_out_ns = 0;
};

// The spin budget of a call's wait for its reply (openhtp_fastrpc_set_call_spin_us):
// a negative value restores the machine default (ipc::default_spin_ns()).
void set_call_spin_ns(int64_t ns) noexcept;
int64_t call_spin_ns() noexcept;

class DspSession {
 public:
  // The running session, starting the DSP process if needed. On failure
  // returns nullptr and sets *err (an AEE code).
  static std::shared_ptr<DspSession> get(int* err);
  // The running session or nullptr; never starts one. The reference is to
  // this thread's cache: valid until the thread's next current().
  static const std::shared_ptr<DspSession>& current();
  // Ends the DSP process (FASTRPC_SESSION_CLOSE / REMOTE_PROCESS_KILL).
  static void close_current();

  ~DspSession();

  // One call. `args` follows the remote_arg convention of `scalars` (for
  // kOpen: one input buffer holding the URI). Returns an AEE code.
  int call(ipc::CallOp op, uint64_t handle, uint32_t scalars, remote_arg* args, uint64_t* out_handle,
           CallStats* stats);

  // Tells the DSP process to drop its mappings of these buffers.
  void release_mappings(std::span<const ipc::BufferKey> keys);
  // rpcmem_free of a buffer: a call running with it by reference fails
  // (its data in that buffer is lost) instead of returning success.
  void note_freed(const ipc::BufferKey& key);

  pid_t pid() const { return pid_; }
  // Session generation: remote handles carry it so that a handle from a
  // closed session is refused instead of reaching a new DSP process.
  uint32_t generation() const { return generation_; }
  // False once the DSP process is gone (reaps it if it just died).
  bool alive();

 private:
  struct Slot {
    int sock = -1;
    ipc::SharedRegion transport;
    // False from the moment `transport` is replaced until a call has handed
    // the DSP its fd: a call that fails before that (a buffer's fd closed
    // under it, say) must not leave the DSP reading an older transport.
    bool transport_sent = true;
    uint32_t seq = 0;
    // The buffers the running call passes by reference, and whether one was
    // freed while it ran (both under refs_mu_; empty between calls).
    std::vector<ipc::BufferKey> ref_keys;
    bool ref_freed = false;
    // What settle_transport() knows: the last call's transport bytes, and
    // how far the transport may still be resident.
    uint64_t last_transport_bytes = 0;
    uint64_t kept_transport_bytes = 0;
  };

  DspSession() = default;
  int start();
  // call()'s fast path, for an invoke whose every argument is a copy that a
  // short frame can carry (ipc/short_frame.h) with nothing to send beside it:
  // one pass over the arguments, straight into the staged request. False when
  // the call needs the general path (nothing was sent then); true with *rc set
  // otherwise.
  bool try_short_call(uint32_t scalars, uint32_t handle, remote_arg* args, CallStats* stats, int* rc);
  // call()'s general path (any call the short frame cannot carry): apart,
  // so that a short call does not pay for its large frame.
  int call_general(ipc::CallOp op, uint64_t handle, uint32_t scalars, remote_arg* args, uint64_t* out_handle,
                   CallStats* stats);
  // Waits for the slot's answer to call `seq`, checking that the DSP process
  // still runs and keeps its deadlines: AEE_SUCCESS, or AEE_EFAILED when it
  // died or was ended (the slot then stays out of the pool: its state is
  // unknown).
  int await_response(ipc::SlotControl& ctl, uint32_t seq);
  // After a call that used `bytes` of the slot's transport: gives back the
  // pages beyond kTransportResidentBytes unless calls of this size repeat.
  void settle_transport(Slot& slot, uint64_t bytes);
  int acquire_slot();
  void release_slot(int index);
  void kill_and_reap();
  void forget_after_fork();
  friend void fork_child_handler();

  pid_t pid_ = -1;
  uint32_t generation_ = 0;
  int64_t heartbeat_deadline_ns_ = 0;  // see deadline_from_env in the .cpp
  int64_t call_deadline_ns_ = 0;
  int control_sock_ = -1;
  ipc::SharedRegion doorbell_;
  ipc::DoorbellPage* page_ = nullptr;
  Slot slots_[ipc::kNumSlots];

  std::atomic<uint32_t> free_mask_{(1u << ipc::kNumSlots) - 1};
  std::mutex slot_mu_;  // only for callers waiting for a slot
  std::condition_variable slot_cv_;
  std::atomic<int> slot_sleepers_{0};  // changed under slot_mu_

  std::mutex refs_mu_;                  // Slot::ref_keys / ref_freed
  std::atomic<int> calls_with_refs_{0};  // lets note_freed skip the lock when none run
  std::mutex life_mu_;
  bool dead_ = false;
  // dead_, readable without life_mu_: once the DSP process is gone every call
  // fails at once, and callers waiting for a slot are woken to fail too —
  // the slots of calls that were in flight when it died are never returned.
  std::atomic<bool> lost_{false};
  void mark_lost();
  std::mutex control_mu_;
};

void fork_child_handler();

}  // namespace openhtp::fastrpc
