#include "raw_pingpong.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <new>

#include "ipc/futex_word.h"

namespace bench {

using openhtp::ipc::FutexWord;

struct PingPongPage {
  alignas(64) FutexWord ping;  // the parent posts sequence numbers here
  alignas(64) FutexWord pong;  // the child echoes them back here
  alignas(64) std::atomic<uint32_t> stop{0};
};

namespace {

// The child: echo every ping. Only futex syscalls, atomics and the vDSO
// clock, so it is safe after fork() even if the parent had threads.
[[noreturn]] void echo_loop(PingPongPage* page, int64_t spins, int reply_delay_us) {
  uint32_t seen = 0;
  for (;;) {
    uint32_t v = openhtp::ipc::futex_wait_change(page->ping, seen, spins, 0);
    if (page->stop.load(std::memory_order_acquire) != 0) _exit(0);
    if (v == seen) continue;
    seen = v;
    if (reply_delay_us > 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(reply_delay_us);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    openhtp::ipc::futex_publish(page->pong, v);
  }
}

}  // namespace

RawPingPong::RawPingPong(const Options& options) {
  spins_ = options.spins < 0 ? openhtp::ipc::default_spin_ns() : options.spins;
  // A fresh anonymous shared page: inherited by the child at the same address.
  void* mem = mmap(nullptr, sizeof(PingPongPage), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    error_ = "mmap of the shared page failed";
    return;
  }
  page_ = new (mem) PingPongPage;
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    error_ = "fork failed";
    return;
  }
  if (child == 0) {
    // Never outlive the bench, whatever happens to it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    if (options.child_cpu >= 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(options.child_cpu, &one);
      if (sched_setaffinity(0, sizeof one, &one) != 0) _exit(1);
    }
    echo_loop(page_, spins_, options.reply_delay_us);
  }
  child_ = child;
}

RawPingPong::~RawPingPong() {
  if (child_ > 0) {
    page_->stop.store(1, std::memory_order_release);
    openhtp::ipc::futex_publish(page_->ping, ++seq_);
    int status = 0;
    while (waitpid(child_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (page_ != nullptr) munmap(page_, sizeof(PingPongPage));
}

void RawPingPong::round_trip() {
  openhtp::ipc::futex_publish(page_->ping, ++seq_);
  while (openhtp::ipc::futex_wait_change(page_->pong, seq_ - 1, spins_, 0) != seq_) {
  }
}

void RawPingPong::warm_up() {
  const auto warm_end = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  for (int i = 0; i < 1000 && std::chrono::steady_clock::now() < warm_end; ++i) round_trip();
}

double RawPingPong::timed_round_trip() {
  const auto t0 = std::chrono::steady_clock::now();
  round_trip();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count();
}

}  // namespace bench
