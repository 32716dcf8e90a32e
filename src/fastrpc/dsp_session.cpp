#include "fastrpc/dsp_session.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <algorithm>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "common/library_location.h"
#include "common/cpu_mask.h"
#include "common/log.h"
#include "common/openmp_places.h"
#include "fastrpc/buffer_registry.h"
#include "fastrpc/parallel_copy.h"
#include "ipc/fd_socket.h"
#include "ipc/shareable_fd.h"
#include "ipc/short_frame.h"

extern char** environ;

namespace openhtp::fastrpc {
namespace {
// Process-wide spin budget override, ns; -1 = none (use the machine default).
// Relaxed is enough: each call reads it once, and a vote only has to be seen
// by the calls that start after it.
std::atomic<int64_t> g_call_spin_ns{-1};

std::mutex g_mu;
std::shared_ptr<DspSession>* g_session = nullptr;  // leaked on purpose: see instance()
uint32_t g_generation = 0;
// Generation of the session in g_session (0: none). Lets current() answer from
// a per-thread cache without taking g_mu on every call.
std::atomic<uint32_t> g_live_generation{0};
std::once_flag g_atfork_once;

// How long a caller sleeps between liveness checks of the DSP process while it
// waits for a call to finish: how soon a call learns that the DSP died under
// it (a waitpid(WNOHANG) per period: nothing for a call that runs minutes).
constexpr int64_t kLivenessCheckNs = 10'000'000;

// File descriptors one call may send (buffers passed by reference for the
// first time, DMA handles, a new transport): far below the DSP process's
// RLIMIT_NOFILE, which it also needs for its mappings' lifetime.
constexpr size_t kMaxFdsPerCall = 512;

// The deadlines of a waiting caller (docs/user-guide.md, "Bounded calls"):
// no DSP heartbeat for OPENHTP_DSP_HEARTBEAT_MS (default 2 s: the process is
// stopped or wedged as a whole), or one call running longer than
// OPENHTP_CALL_DEADLINE_MS (default 10 min, longer than any legitimate call
// here), and the DSP process is ended and the call fails as after a crash.
int64_t deadline_from_env(const char* name, int64_t default_ms) {
  const char* v = getenv(name);
  if (v == nullptr || *v == '\0') return default_ms * 1'000'000;
  char* end = nullptr;
  const long long ms = strtoll(v, &end, 10);
  if (end == v || *end != '\0' || ms <= 0) {
    log(LogLevel::kWarn, "fastrpc", "%s=%s is not a positive number of milliseconds; using %lld", name, v,
        static_cast<long long>(default_ms));
    return default_ms * 1'000'000;
  }
  return static_cast<int64_t>(ms) * 1'000'000;
}

int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// How much of a slot's transport stays resident between calls (see
// DspSession::settle_transport): executes with copied client buffers up to
// this size reuse warm pages, and so does a run of larger calls of one size.
constexpr uint64_t kTransportResidentBytes = 16u << 20;

// The DSP side beside this library (common/library_location.h: the SDK's
// folder even when the client loaded us through a symlink or a copy).

std::string dsp_executable_path() {
  if (const char* env = getenv("OPENHTP_CDSP_EXE"); env != nullptr && *env != '\0') return env;
  std::string searched;
  std::string path = find_sdk_file(reinterpret_cast<const void*>(&remote_handle64_open), "dsp/openhtp-cdsp", &searched);
  if (path.empty()) {
    log(LogLevel::kError, "fastrpc", "the DSP process executable dsp/openhtp-cdsp is not in any of: %s",
        searched.c_str());
    return "openhtp-cdsp";
  }
  return path;
}

}  // namespace

void fork_child_handler() {
  parallel_copy_after_fork();
  // The child of a fork must not share the parent's DSP process: close our
  // ends (so the DSP still sees EOF when the parent dies) and start afresh.
  if (g_session != nullptr && *g_session) (*g_session)->forget_after_fork();
  if (g_session != nullptr) {
    new (g_session) std::shared_ptr<DspSession>();  // drop without destroying
  }
  g_live_generation.store(0);
  new (&g_mu) std::mutex();
}

namespace {

// Per-thread state, each behind a function of its own: in a shared library
// every use of a thread_local may cost a __tls_get_addr call, and GCC redoes
// it at each use rather than keep the address; a call returns it once.
struct CachedSession {
  std::shared_ptr<DspSession> session;
  uint32_t generation = 0;
};
[[gnu::noinline]] CachedSession& cached_session() {
  thread_local CachedSession cached;
  return cached;
}

struct CallScratch {
  std::vector<ipc::ArgDesc> descs;
  std::vector<int> fds;
  std::vector<ipc::BufferKey> newly_mapped;
};
[[gnu::noinline]] CallScratch& call_scratch() {
  thread_local CallScratch scratch;
  return scratch;
}

}  // namespace

const std::shared_ptr<DspSession>& DspSession::current() {
  CachedSession& cached = cached_session();
  const uint32_t live = g_live_generation.load(std::memory_order_acquire);
  if (live != 0 && live == cached.generation) return cached.session;
  std::lock_guard lock(g_mu);
  cached.session = g_session != nullptr ? *g_session : nullptr;
  cached.generation = cached.session ? cached.session->generation_ : 0;
  return cached.session;
}

std::shared_ptr<DspSession> DspSession::get(int* err) {
  std::call_once(g_atfork_once, [] { pthread_atfork(nullptr, nullptr, fork_child_handler); });
  std::lock_guard lock(g_mu);
  if (g_session == nullptr) g_session = new std::shared_ptr<DspSession>();
  if (*g_session && !(*g_session)->alive()) {
    log(LogLevel::kWarn, "fastrpc", "DSP process %d is gone; starting a new one", static_cast<int>((*g_session)->pid_));
    g_session->reset();
    g_live_generation.store(0, std::memory_order_release);
    BufferRegistry::instance().clear_dsp_mapped();
  }
  if (!*g_session) {
    std::shared_ptr<DspSession> s(new DspSession);
    s->generation_ = ++g_generation;
    int rc = s->start();
    if (rc != 0) {
      *err = rc;
      return nullptr;
    }
    *g_session = std::move(s);
    g_live_generation.store((*g_session)->generation_, std::memory_order_release);
  }
  return *g_session;
}

void DspSession::close_current() {
  std::shared_ptr<DspSession> s;
  {
    std::lock_guard lock(g_mu);
    if (g_session != nullptr) s = std::move(*g_session);
    g_live_generation.store(0, std::memory_order_release);
  }
  if (s) {
    s->kill_and_reap();
    BufferRegistry::instance().clear_dsp_mapped();
  }
}

DspSession::~DspSession() {
  kill_and_reap();
  for (Slot& s : slots_) {
    if (s.sock >= 0) close(s.sock);
  }
  if (control_sock_ >= 0) close(control_sock_);
}

void DspSession::forget_after_fork() {
  for (Slot& s : slots_) {
    if (s.sock >= 0) close(s.sock);
    s.sock = -1;
  }
  if (control_sock_ >= 0) close(control_sock_);
  control_sock_ = -1;
  pid_ = -1;
}

void DspSession::kill_and_reap() {
  std::lock_guard lock(life_mu_);
  if (pid_ > 0 && !dead_) {
    kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    dead_ = true;
    mark_lost();
  }
}

void DspSession::mark_lost() {
  lost_.store(true, std::memory_order_seq_cst);
  std::lock_guard lock(slot_mu_);
  slot_cv_.notify_all();
}

bool DspSession::alive() {
  std::lock_guard lock(life_mu_);
  if (dead_ || pid_ <= 0) return false;
  int status = 0;
  pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r < 0 && errno == ECHILD) {
    // Reaped by someone else (a client's SIGCHLD handler waiting for any
    // child): it is gone all the same.
    dead_ = true;
    mark_lost();
    log(LogLevel::kError, "fastrpc", "DSP process %d is gone (reaped outside libcdsprpc)", static_cast<int>(pid_));
    return false;
  }
  if (r == pid_) {
    dead_ = true;
    mark_lost();
    if (WIFSIGNALED(status)) {
      log(LogLevel::kError, "fastrpc", "DSP process %d was killed by signal %d", static_cast<int>(pid_),
          WTERMSIG(status));
    } else {
      log(LogLevel::kError, "fastrpc", "DSP process %d exited with status %d", static_cast<int>(pid_),
          WEXITSTATUS(status));
    }
    return false;
  }
  return true;
}

int DspSession::start() {
  const std::string exe = dsp_executable_path();
  // The emulated DSP places its own threads, as the device does: the
  // client's OpenMP binding (OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY) is
  // not passed on, and the DSP process starts with every CPU of the client's
  // OpenMP places, not the one CPU libgomp bound this thread to
  // (common/openmp_places.h). All of it is made first: what can throw
  // (bad_alloc) comes before anything that would need undoing.
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view v = *e;
    if (!v.starts_with("OMP_PROC_BIND=") && !v.starts_with("OMP_PLACES=") && !v.starts_with("GOMP_CPU_AFFINITY=")) {
      env.push_back(*e);
    }
  }
  env.push_back(nullptr);
  const std::vector<int> places = openmp_place_cpus();
  std::string fd_arg = std::to_string(ipc::kDspControlFd);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return AEE_EFAILED;
  control_sock_ = sv[0];
  // Move the child's end above the low fds so that dup2 onto kDspControlFd is
  // a real dup (which clears close-on-exec) and not a no-op.
  int child_end = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
  close(sv[1]);
  if (child_end < 0) return AEE_EFAILED;

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, child_end, ipc::kDspControlFd);
  posix_spawn_file_actions_addclosefrom_np(&fa, ipc::kDspControlFd + 1);
  char* argv[] = {const_cast<char*>(exe.c_str()), const_cast<char*>("--control-fd"), fd_arg.data(), nullptr};
  cpu_set_t saved;
  const bool widened =
      !places.empty() && sched_getaffinity(0, sizeof saved, &saved) == 0 && set_calling_thread_cpus(places);
  int rc = posix_spawn(&pid_, exe.c_str(), &fa, nullptr, argv, env.data());
  if (widened) sched_setaffinity(0, sizeof saved, &saved);
  posix_spawn_file_actions_destroy(&fa);
  close(child_end);
  if (rc != 0) {
    log(LogLevel::kError, "fastrpc", "cannot start the DSP process %s: %s", exe.c_str(), strerror(rc));
    pid_ = -1;
    return AEE_EUNSUPPORTED;
  }

  heartbeat_deadline_ns_ = deadline_from_env("OPENHTP_DSP_HEARTBEAT_MS", 2'000);
  call_deadline_ns_ = deadline_from_env("OPENHTP_CALL_DEADLINE_MS", 600'000);
  if (doorbell_.create("openhtp-doorbell", sizeof(ipc::DoorbellPage)) != 0) return AEE_ENOMEMORY;
  page_ = new (doorbell_.data()) ipc::DoorbellPage{ipc::kProtocolMagic, ipc::kProtocolVersion, ipc::kNumSlots, 0, {0}, {}};

  std::vector<int> send_fds{doorbell_.fd()};
  std::vector<int> dsp_ends;
  for (Slot& s : slots_) {
    int p[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p) != 0) return AEE_EFAILED;
    s.sock = p[0];
    dsp_ends.push_back(p[1]);
    send_fds.push_back(p[1]);
  }
  ipc::HelloMsg hello;
  rc = ipc::send_with_fds(control_sock_, &hello, sizeof hello, send_fds.data(), send_fds.size());
  for (int fd : dsp_ends) close(fd);
  ipc::HelloAck ack{};
  long n = rc == 0 ? ipc::recv_with_fds(control_sock_, &ack, sizeof ack, nullptr) : -1;
  if (n != static_cast<long>(sizeof ack) || ack.magic != ipc::kProtocolMagic || ack.version != ipc::kProtocolVersion) {
    log(LogLevel::kError, "fastrpc", "the DSP process %s (pid %d) did not come up", exe.c_str(), static_cast<int>(pid_));
    kill_and_reap();
    return AEE_EFAILED;
  }
  log(LogLevel::kInfo, "fastrpc", "DSP process %d started (%s)", static_cast<int>(pid_), exe.c_str());
  return 0;
}

int DspSession::acquire_slot() {
  // Fast path: claim a free bit without a lock. Only when all slots are busy
  // does a caller sleep on the condition variable.
  for (;;) {
    uint32_t mask = free_mask_.load(std::memory_order_acquire);
    while (mask != 0) {
      const int i = __builtin_ctz(mask);
      if (free_mask_.compare_exchange_weak(mask, mask & ~(1u << i), std::memory_order_acq_rel)) return i;
    }
    std::unique_lock lock(slot_mu_);
    slot_sleepers_.fetch_add(1, std::memory_order_seq_cst);
    slot_cv_.wait(lock, [&] {
      return free_mask_.load(std::memory_order_seq_cst) != 0 || lost_.load(std::memory_order_seq_cst);
    });
    slot_sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    if (lost_.load(std::memory_order_seq_cst)) return -1;
  }
}

void DspSession::release_slot(int index) {
  // seq_cst on both sides (here and the sleeper's increment and re-check of
  // free_mask_): either we see the sleeper or it sees the freed slot, so the
  // lock is taken only when someone may be waiting.
  free_mask_.fetch_or(1u << index, std::memory_order_seq_cst);
  if (slot_sleepers_.load(std::memory_order_seq_cst) == 0) return;
  std::lock_guard lock(slot_mu_);
  slot_cv_.notify_one();
}

void DspSession::note_freed(const ipc::BufferKey& key) {
  if (calls_with_refs_.load(std::memory_order_acquire) == 0) return;
  std::lock_guard lock(refs_mu_);
  for (Slot& slot : slots_) {
    for (const ipc::BufferKey& k : slot.ref_keys) {
      if (k == key) slot.ref_freed = true;
    }
  }
}

void DspSession::release_mappings(std::span<const ipc::BufferKey> keys) {
  std::lock_guard lock(control_mu_);
  if (control_sock_ < 0) return;
  while (!keys.empty()) {
    ipc::ReleaseMsg msg;
    msg.count = static_cast<uint32_t>(std::min<size_t>(keys.size(), ipc::kMaxReleasePerMsg));
    for (uint32_t i = 0; i < msg.count; ++i) msg.keys[i] = keys[i];
    ipc::send_with_fds(control_sock_, &msg, sizeof msg, nullptr, 0);
    keys = keys.subspan(msg.count);
  }
}

bool DspSession::try_short_call(uint32_t scalars, uint32_t handle, remote_arg* args, CallStats* stats, int* rc) {
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(scalars);
  const uint32_t n_args = n_in + REMOTE_SCALARS_OUTBUFS(scalars);
  const BufferRegistry& registry = BufferRegistry::instance();
  // The request is staged here as it is classified. An argument that may be
  // shared memory (passed by reference), one the frame cannot describe, or a
  // malformed one sends the call down the general path, which decides.
  ipc::SlotRequest staged;
  // A frame that fits the slot's first line goes as that whole line: a copy
  // of constant size is a few vector moves, one of the frame's own size a
  // `rep movs` (~4 ns here). So the line starts zeroed, and nothing of this
  // stack travels beyond the frame.
  constexpr size_t kFirstLineRequestBytes = offsetof(ipc::SlotRequest, frame) + ipc::kFirstLineFrameBytes;
  std::memset(&staged, 0, kFirstLineRequestBytes);
  const ipc::ShortCallHeader hdr{scalars, handle};
  std::memcpy(staged.frame, &hdr, sizeof hdr);
  ipc::InSlotLayout layout{ipc::short_frame_head_bytes(n_args)};
  uint64_t out_at[ipc::kMaxShortArgs];
  uint32_t inline_index = UINT32_MAX;
  uint64_t copied_in = 0, copied_out = 0;
  for (uint32_t i = 0; i < n_args; ++i) {
    const remote_buf& b = args[i].buf;
    if (b.nLen > ipc::kShortLenMask || (b.nLen > 0 && (b.pv == nullptr || registry.may_hold(b.pv)))) return false;
    bool inline_out = false;
    if (i < n_in) {
      if (layout.in_cursor + b.nLen > ipc::kSlotFrameBytes) return false;
      const uint64_t at = layout.place_input(b.nLen);
      if (b.nLen > 0) std::memcpy(staged.frame + at, b.pv, b.nLen);
      copied_in += b.nLen;
    } else {
      // The first small output comes back in the line that signals completion.
      inline_out = inline_index == UINT32_MAX && b.nLen > 0 && b.nLen <= ipc::kInlineOutBytes;
      if (inline_out) {
        inline_index = i;
      } else {
        out_at[i] = layout.place_output(b.nLen);
      }
      copied_out += b.nLen;
    }
    const uint16_t word = ipc::short_arg_word(b.nLen, inline_out);
    std::memcpy(staged.frame + sizeof hdr + i * sizeof word, &word, sizeof word);
  }
  if (layout.in_cursor > ipc::kSlotFrameBytes) return false;  // the words alone overflow (no input reached the check)

  const int si = acquire_slot();
  if (si < 0) {
    *rc = AEE_EBADSTATE;  // the DSP process died while this call waited for a slot
    return true;
  }
  Slot& slot = slots_[si];
  // Copied outputs go to the transport the DSP already holds: a short frame
  // sends no fd, so it cannot bring a new one.
  if (layout.out_cursor > 0 && (slot.transport.size() < layout.out_cursor || !slot.transport_sent)) {
    release_slot(si);
    return false;
  }
  ipc::SlotControl& ctl = page_->slots[si];
  staged.num_fds = 0;
  staged.transport_fd_index = ipc::kNoFd16;
  staged.frame_bytes = static_cast<uint16_t>(layout.in_cursor);
  staged.frame_kind = ipc::FrameKind::kShort;
  if (layout.in_cursor <= ipc::kFirstLineFrameBytes) {
    std::memcpy(&ctl.call, &staged, kFirstLineRequestBytes);
  } else {
    std::memcpy(&ctl.call, &staged, offsetof(ipc::SlotRequest, frame) + layout.in_cursor);
  }
  const uint32_t seq = ++slot.seq;
  ipc::futex_publish(ctl.request, seq);
  if (stats) {
    stats->bytes_copied_in += copied_in;
    stats->bytes_copied_out += copied_out;
  }
  if (const int e = await_response(ctl, seq); e != AEE_SUCCESS) {
    *rc = e;
    return true;
  }
  *rc = ctl.result;
  if (*rc == AEE_SUCCESS) {
    const uint8_t* const t = slot.transport.data();
    for (uint32_t i = n_in; i < n_args; ++i) {
      const remote_buf& b = args[i].buf;
      if (b.nLen == 0) continue;
      std::memcpy(b.pv, i == inline_index ? ctl.inline_out : t + out_at[i], b.nLen);
    }
  }
  settle_transport(slot, layout.out_cursor);
  release_slot(si);
  return true;
}

int DspSession::await_response(ipc::SlotControl& ctl, uint32_t seq) {
  const int64_t spins = call_spin_ns();
  int64_t started = 0, last_beat_at = 0;
  uint64_t last_beat = 0;
  for (;;) {
    uint32_t v = ipc::futex_wait_change(ctl.response, seq - 1, spins, kLivenessCheckNs);
    if (v == seq) return AEE_SUCCESS;
    // A slow call: every kLivenessCheckNs, is the DSP process still there,
    // still running, and within the call deadline? A failed check leaves the
    // slot out of the pool: its state is unknown.
    if (!alive()) return AEE_EFAILED;
    const int64_t now = monotonic_ns();
    const uint64_t beat = page_->heartbeat.load(std::memory_order_relaxed);
    if (started == 0 || beat != last_beat) {
      if (started == 0) started = now - kLivenessCheckNs;
      last_beat = beat;
      last_beat_at = now;
    }
    const bool stalled = now - last_beat_at >= heartbeat_deadline_ns_;
    if (stalled || now - started >= call_deadline_ns_) {
      log(LogLevel::kError, "fastrpc",
          stalled ? "DSP process %d has not run for %lld ms (stopped or wedged; OPENHTP_DSP_HEARTBEAT_MS): ending it"
                  : "a call to DSP process %d has run for %lld ms (OPENHTP_CALL_DEADLINE_MS): ending the process",
          static_cast<int>(pid_), static_cast<long long>((stalled ? now - last_beat_at : now - started) / 1'000'000));
      kill_and_reap();
      return AEE_EFAILED;
    }
  }
}

int DspSession::call(ipc::CallOp op, uint64_t handle, uint32_t scalars, remote_arg* args, uint64_t* out_handle,
                     CallStats* stats) {
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(scalars);
  const uint32_t n_out = REMOTE_SCALARS_OUTBUFS(scalars);
  const uint32_t n_hin = REMOTE_SCALARS_INHANDLES(scalars);
  if (REMOTE_SCALARS_OUTHANDLES(scalars) != 0) {
    log(LogLevel::kError, "fastrpc", "output handles are not supported (scalars 0x%08x)", scalars);
    return AEE_EUNSUPPORTED;
  }
  const uint32_t n_args = n_in + n_out + n_hin;
  if (n_args > 0 && args == nullptr) return AEE_EBADPARM;
  if (lost_.load(std::memory_order_relaxed)) return AEE_EBADSTATE;  // the DSP process is gone
  if (op == ipc::CallOp::kInvoke && n_hin == 0 && n_args <= ipc::kMaxShortArgs && handle <= UINT32_MAX) {
    int rc = AEE_SUCCESS;
    if (try_short_call(scalars, static_cast<uint32_t>(handle), args, stats, &rc)) return rc;
  }
  return call_general(op, handle, scalars, args, out_handle, stats);
}

int DspSession::call_general(ipc::CallOp op, uint64_t handle, uint32_t scalars, remote_arg* args,
                             uint64_t* out_handle, CallStats* stats) {
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(scalars);
  const uint32_t n_out = REMOTE_SCALARS_OUTBUFS(scalars);
  const uint32_t n_hin = REMOTE_SCALARS_INHANDLES(scalars);
  const uint32_t n_args = n_in + n_out + n_hin;

  // Decide, per argument, copy or reference, and which fds must travel.
  // Scratch is per thread and reused: no allocation on the call path.
  CallScratch& scratch = call_scratch();
  auto& descs = scratch.descs;
  auto& fds = scratch.fds;
  auto& newly_mapped = scratch.newly_mapped;
  descs.assign(n_args, ipc::ArgDesc{});
  fds.clear();
  newly_mapped.clear();
  // Pass 1: per argument, copy or reference or inline output, and which fds
  // must travel. Pass 2 (below) lays the frame out.
  uint64_t copied_in_bytes = 0;
  bool inline_out_used = false;
  for (uint32_t i = 0; i < n_in + n_out; ++i) {
    const remote_buf& b = args[i].buf;
    ipc::ArgDesc& d = descs[i];
    d.fd_index = ipc::kNoFd;
    d.len = b.nLen;
    if (b.nLen > 0 && b.pv == nullptr) return AEE_EBADPARM;
    std::optional<ClientBuffer> shared;
    if (b.nLen > 0) shared = BufferRegistry::instance().find_containing(b.pv, b.nLen);
    if (shared) {
      d.kind = ipc::ArgKind::kRef;
      d.key = shared->key;
      d.offset = shared->fd_offset + static_cast<uint64_t>(static_cast<uint8_t*>(b.pv) - shared->base);
      if (!shared->dsp_mapped) {
        bool already = false;
        for (const auto& k : newly_mapped) already |= (k == shared->key);
        if (!already) {
          d.fd_index = static_cast<uint32_t>(fds.size());
          fds.push_back(shared->fd);
          newly_mapped.push_back(shared->key);
        }
      }
      if (stats) stats->bytes_by_reference += b.nLen;
    } else if (i >= n_in && b.nLen > 0 && b.nLen <= ipc::kInlineOutBytes && !inline_out_used) {
      // Returned inside the line that signals completion: no extra transfer.
      d.kind = ipc::ArgKind::kInlineOut;
      d.offset = 0;
      inline_out_used = true;
      if (stats) stats->bytes_copied_out += b.nLen;
    } else {
      d.kind = ipc::ArgKind::kCopy;
      if (i < n_in) copied_in_bytes += ipc::align_up(b.nLen, 8);
      if (stats) (i < n_in ? stats->bytes_copied_in : stats->bytes_copied_out) += b.nLen;
    }
  }
  for (uint32_t i = n_in + n_out; i < n_args; ++i) {
    const remote_dma_handle& h = args[i].dma;
    ipc::ArgDesc& d = descs[i];
    d.kind = ipc::ArgKind::kDma;
    d.offset = h.offset;
    d.len = 0;
    if (h.fd < 0) return AEE_EBADPARM;
    // The DSP maps it for the call: it must not shrink meanwhile.
    if (!ipc::seal_against_shrinking(h.fd, ipc::shareable_memory_of(h.fd))) {
      log(LogLevel::kError, "fastrpc",
          "DMA handle fd %d is not shareable memory that stays its size (rpcmem, a DMA-BUF or a sealable memfd)", h.fd);
      return AEE_EBADPARM;
    }
    d.fd_index = static_cast<uint32_t>(fds.size());
    fds.push_back(h.fd);
  }
  // The fds travel in as many socket messages as they need
  // (ipc::kMaxFdsPerMessage each); the bound is the DSP process's own.
  if (fds.size() + 1 > kMaxFdsPerCall) {
    log(LogLevel::kError, "fastrpc", "a call needs %zu file descriptors sent with it; at most %zu can be", fds.size() + 1,
        kMaxFdsPerCall);
    return AEE_EBADPARM;
  }
  for (int fd : fds) {
    // Checked before any is sent: a bad one in a later message would leave
    // the earlier ones queued for the next call on the slot.
    if (fcntl(fd, F_GETFD) < 0) {
      log(LogLevel::kError, "fastrpc", "fd %d of the call is not an open file descriptor", fd);
      return AEE_EBADPARM;
    }
  }

  // Pass 2: the frame's form and layout. A short frame when the call allows
  // one (call_protocol.h, ShortCallHeader), else the long one in the slot's
  // own lines when it fits (inputs packed at 8 bytes, outputs in the transport
  // from offset 0), else in the transport (everything 64-byte aligned after
  // the header).
  enum class Form { kShort, kLongInSlot, kLongInTransport };
  bool short_ok = op == ipc::CallOp::kInvoke && handle <= UINT32_MAX && n_hin == 0 && n_args <= ipc::kMaxShortArgs &&
                  fds.empty();
  for (uint32_t i = 0; i < n_args && short_ok; ++i) short_ok = ipc::fits_short_frame(descs[i]);
  const uint64_t short_head = ipc::short_frame_head_bytes(n_args);
  const uint64_t long_head = sizeof(ipc::CallHeader) + n_args * sizeof(ipc::ArgDesc);
  const Form long_form =
      ipc::align_up(long_head, 8) + copied_in_bytes <= ipc::kSlotFrameBytes ? Form::kLongInSlot : Form::kLongInTransport;
  uint64_t frame_end = 0;  // bytes of an in-slot frame
  // Sets each copied argument's offset; returns the transport bytes the call uses.
  auto lay_out = [&](Form form) -> uint64_t {
    if (form == Form::kLongInTransport) {
      uint64_t cursor = ipc::align_up(long_head, 64);
      for (uint32_t i = 0; i < n_in + n_out; ++i) {
        if (descs[i].kind != ipc::ArgKind::kCopy) continue;
        descs[i].offset = cursor;
        cursor = ipc::align_up(cursor + descs[i].len, 64);
      }
      frame_end = 0;
      return cursor;
    }
    ipc::InSlotLayout layout{form == Form::kShort ? short_head : ipc::align_up(long_head, 8)};
    for (uint32_t i = 0; i < n_in + n_out; ++i) {
      ipc::ArgDesc& d = descs[i];
      if (d.kind == ipc::ArgKind::kCopy) d.offset = i < n_in ? layout.place_input(d.len) : layout.place_output(d.len);
    }
    frame_end = layout.in_cursor;
    return layout.out_cursor;
  };
  Form form = short_ok && short_head + copied_in_bytes <= ipc::kSlotFrameBytes ? Form::kShort : long_form;
  uint64_t transport_bytes = lay_out(form);

  const int si = acquire_slot();
  if (si < 0) return AEE_EBADSTATE;  // the DSP process died while this call waited for a slot
  Slot& slot = slots_[si];
  ipc::SlotControl& ctl = page_->slots[si];
  // A short frame sends no fd: it cannot bring the DSP a new transport.
  if (form == Form::kShort && transport_bytes > 0 &&
      (slot.transport.size() < transport_bytes || !slot.transport_sent)) {
    form = long_form;
    transport_bytes = lay_out(form);
  }
  const bool in_slot = form != Form::kLongInTransport;
  uint32_t transport_index = ipc::kNoFd;
  if (slot.transport.size() < transport_bytes) {
    size_t want = std::max<size_t>(transport_bytes, std::max<size_t>(64 * 1024, slot.transport.size() * 2));
    ipc::SharedRegion bigger;
    if (bigger.create("openhtp-transport", want) != 0) {
      release_slot(si);
      return AEE_ENOMEMORY;
    }
    slot.transport = std::move(bigger);
    slot.transport_sent = false;
  }
  if (!slot.transport_sent) {
    transport_index = static_cast<uint32_t>(fds.size());
    fds.push_back(slot.transport.fd());
  }

  uint8_t* const t = slot.transport.data();
  ipc::SlotRequest staged;  // copied into the slot just before the request (call_protocol.h)
  uint8_t* const frame = in_slot ? staged.frame : t;
  if (form == Form::kShort) {
    ipc::write_short_frame_head(frame, scalars, static_cast<uint32_t>(handle), descs.data(), n_args);
  } else {
    auto* hdr = reinterpret_cast<ipc::CallHeader*>(frame);
    *hdr = ipc::CallHeader{op, scalars, handle, n_args, 0};
    auto* wire_args = reinterpret_cast<ipc::ArgDesc*>(frame + sizeof(ipc::CallHeader));
    for (uint32_t i = 0; i < n_args; ++i) wire_args[i] = descs[i];
  }
  const int64_t copy_in_start = !in_slot && stats ? monotonic_ns() : 0;
  for (uint32_t i = 0; i < n_in; ++i) {
    if (descs[i].kind == ipc::ArgKind::kCopy && descs[i].len > 0) {
      if (in_slot) {
        std::memcpy(frame + descs[i].offset, args[i].buf.pv, descs[i].len);
      } else {
        parallel_copy(frame + descs[i].offset, args[i].buf.pv, descs[i].len);
      }
    }
  }
  if (copy_in_start != 0) stats->copy_in_ns = static_cast<uint64_t>(monotonic_ns() - copy_in_start);

  if (!fds.empty()) {
    char tag = 'F';
    for (size_t sent = 0; sent < fds.size(); sent += ipc::kMaxFdsPerMessage) {
      const size_t n = std::min(ipc::kMaxFdsPerMessage, fds.size() - sent);
      if (ipc::send_with_fds(slot.sock, &tag, 1, fds.data() + sent, n) != 0) {
        // Nothing was sent, or the DSP process is going (the socket failed
        // after a message went): in the second case the slot holds fds no
        // call will claim, so it stays out of the pool.
        if (sent == 0) release_slot(si);
        alive();
        return AEE_EFAILED;
      }
    }
    if (stats) stats->fds_sent += static_cast<uint32_t>(fds.size());
    slot.transport_sent = true;
  }
  // Buffers passed by reference: if the client frees one while the call
  // runs (note_freed), the call fails rather than report success for data
  // that is gone. Only calls with such buffers pay for the bookkeeping.
  bool with_refs = false;
  for (uint32_t i = 0; i < n_in + n_out && !with_refs; ++i) with_refs = descs[i].kind == ipc::ArgKind::kRef;
  if (with_refs) {
    std::lock_guard lock(refs_mu_);
    for (uint32_t i = 0; i < n_in + n_out; ++i) {
      if (descs[i].kind == ipc::ArgKind::kRef) slot.ref_keys.push_back(descs[i].key);
    }
    slot.ref_freed = false;
    calls_with_refs_.fetch_add(1, std::memory_order_release);
  }
  // Whichever way the call ends, the slot forgets its buffers.
  struct RefsDone {
    DspSession* session;
    Slot* slot;
    bool on;
    ~RefsDone() {
      if (!on) return;
      std::lock_guard lock(session->refs_mu_);
      slot->ref_keys.clear();
      slot->ref_freed = false;
      session->calls_with_refs_.fetch_sub(1, std::memory_order_release);
    }
  } refs_done{this, &slot, with_refs};
  staged.num_fds = static_cast<uint16_t>(fds.size());
  staged.transport_fd_index = transport_index == ipc::kNoFd ? ipc::kNoFd16 : static_cast<uint16_t>(transport_index);
  staged.frame_bytes = static_cast<uint16_t>(frame_end);
  staged.frame_kind = form == Form::kShort ? ipc::FrameKind::kShort : ipc::FrameKind::kLong;
  std::memcpy(&ctl.call, &staged, offsetof(ipc::SlotRequest, frame) + frame_end);
  const uint32_t seq = ++slot.seq;
  ipc::futex_publish(ctl.request, seq);

  if (const int e = await_response(ctl, seq); e != AEE_SUCCESS) return e;
  int result = ctl.result;
  if (with_refs && result == AEE_SUCCESS) {
    std::lock_guard lock(refs_mu_);
    if (slot.ref_freed) {
      log(LogLevel::kError, "fastrpc",
          "a buffer the call passed by reference was freed (rpcmem_free) while the call ran: what the DSP wrote to it "
          "is lost, so the call fails; free buffers only after the calls that use them return");
      result = AEE_EBADSTATE;
    }
  }
  if (result == AEE_SUCCESS) {
    int64_t copy_out_start = 0;
    for (uint32_t i = n_in; i < n_in + n_out; ++i) {
      if (descs[i].kind == ipc::ArgKind::kCopy && descs[i].len > 0) {
        if (stats && copy_out_start == 0) copy_out_start = monotonic_ns();  // only calls that copy pay for it
        parallel_copy(args[i].buf.pv, t + descs[i].offset, descs[i].len);
      } else if (descs[i].kind == ipc::ArgKind::kInlineOut) {
        std::memcpy(args[i].buf.pv, ctl.inline_out, descs[i].len);
      }
    }
    if (copy_out_start != 0) stats->copy_out_ns = static_cast<uint64_t>(monotonic_ns() - copy_out_start);
    if (out_handle) *out_handle = ctl.out_handle;
    for (const auto& k : newly_mapped) BufferRegistry::instance().mark_dsp_mapped(k);
  }
  settle_transport(slot, transport_bytes);
  release_slot(si);
  return result;
}

void DspSession::settle_transport(Slot& slot, uint64_t bytes) {
  // A run of calls larger than kTransportResidentBytes and of the same size
  // (an execute loop with big copied client buffers) keeps its pages: giving
  // them back after each call made the next one fault every page in again
  // in both processes (16 MiB in + 16 MiB out: 4096 DSP faults a call, a
  // third of memcpy's bandwidth). A one-off large call (a graph with big
  // static tensors, a context binary) still gives back what is beyond
  // kTransportResidentBytes, and so does the first smaller call after a run.
  const bool run_of_large = bytes > kTransportResidentBytes && slot.last_transport_bytes >= bytes;
  if (run_of_large) {
    slot.kept_transport_bytes = std::max(slot.kept_transport_bytes, bytes);
  } else if (bytes > kTransportResidentBytes || slot.kept_transport_bytes > kTransportResidentBytes) {
    slot.transport.discard_pages_from(kTransportResidentBytes);
    slot.kept_transport_bytes = kTransportResidentBytes;
  }
  slot.last_transport_bytes = bytes;
}

void set_call_spin_ns(int64_t ns) noexcept { g_call_spin_ns.store(ns < 0 ? -1 : ns, std::memory_order_relaxed); }

int64_t call_spin_ns() noexcept {
  const int64_t ns = g_call_spin_ns.load(std::memory_order_relaxed);
  return ns < 0 ? ipc::default_spin_ns() : ns;
}

}  // namespace openhtp::fastrpc
