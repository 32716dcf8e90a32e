// libcdsprpc ↔ DSP process, across the real process boundary: calls,
// copy-vs-reference decisions (and their accounting), fd passing, the DSP
// process's lifetime, and failures.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "openhtp/fastrpc_ext.h"
#include "remote.h"
#include "rpcmem.h"
#include "test_skel_methods.h"

namespace {

remote_handle64 open_test_skel() {
  remote_handle64 h = 0;
  EXPECT_EQ(remote_handle64_open(kTestSkelUri, &h), 0);
  return h;
}

int echo(remote_handle64 h, void* in, void* out, size_t len, TestEchoInfo* info) {
  remote_arg a[3];
  a[0].buf = {in, len};
  a[1].buf = {out, len};
  a[2].buf = {info, sizeof *info};
  return remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestEcho, 1, 2), a);
}

openhtp_fastrpc_call_stats last_stats() {
  openhtp_fastrpc_call_stats s{};
  openhtp_fastrpc_last_call_stats(&s);
  return s;
}

bool process_exited_within(pid_t pid, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD && kill(pid, 0) != 0)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

TEST(Remote, RunsInASeparateDspProcess) {
  remote_handle64 h = open_test_skel();
  char in[16] = "hello dsp", out[16] = {};
  TestEchoInfo info{};
  ASSERT_EQ(echo(h, in, out, sizeof in, &info), 0);
  EXPECT_STREQ(out, "hello dsp");
  EXPECT_NE(info.dsp_pid, getpid());
  EXPECT_EQ(info.dsp_pid, openhtp_fastrpc_dsp_pid());
  // The DSP process is our child, reachable only through inherited sockets.
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", info.dsp_pid);
  FILE* f = fopen(path, "r");
  ASSERT_NE(f, nullptr);
  int pid = 0, ppid = 0;
  char comm[64], state;
  ASSERT_EQ(fscanf(f, "%d %63s %c %d", &pid, comm, &state, &ppid), 4);
  fclose(f);
  EXPECT_EQ(ppid, getpid());
  EXPECT_EQ(remote_handle64_close(h), 0);
}

TEST(Remote, PlainBuffersAreCopiedRpcmemBuffersAreNot) {
  remote_handle64 h = open_test_skel();
  const size_t len = 1 << 16;
  std::vector<uint8_t> in(len), out(len);
  for (size_t i = 0; i < len; ++i) in[i] = static_cast<uint8_t>(i * 31);
  TestEchoInfo info{};
  ASSERT_EQ(echo(h, in.data(), out.data(), len, &info), 0);
  EXPECT_EQ(in, out);
  auto s = last_stats();
  // Both buffers and the info struct travel through the transport.
  EXPECT_EQ(s.bytesCopiedIn, len);
  EXPECT_EQ(s.bytesCopiedOut, len + sizeof(TestEchoInfo));
  EXPECT_EQ(s.bytesByReference, 0u);

  auto* rin = static_cast<uint8_t*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, len));
  auto* rout = static_cast<uint8_t*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, len));
  std::memcpy(rin, in.data(), len);
  ASSERT_EQ(echo(h, rin, rout, len, &info), 0);
  EXPECT_EQ(std::memcmp(rout, in.data(), len), 0);
  s = last_stats();
  EXPECT_EQ(s.bytesCopiedIn, 0u);
  EXPECT_EQ(s.bytesCopiedOut, sizeof(TestEchoInfo));
  EXPECT_EQ(s.bytesByReference, 2 * len);
  EXPECT_EQ(s.fdsSent, 2u);  // first use: each buffer's fd crosses once

  // Second call with the same buffers: mapped once, no fds travel again.
  rin[0] = 0x77;
  ASSERT_EQ(echo(h, rin, rout, len, &info), 0);
  EXPECT_EQ(rout[0], 0x77);
  const uint64_t first_dsp_address = info.dsp_address;
  ASSERT_EQ(echo(h, rin, rout, len, &info), 0);
  EXPECT_EQ(last_stats().fdsSent, 0u);
  EXPECT_EQ(info.dsp_address, first_dsp_address);

  // An interior slice of an rpcmem buffer is passed by reference too.
  ASSERT_EQ(echo(h, rin + 100, rout + 200, 1000, &info), 0);
  EXPECT_EQ(std::memcmp(rout + 200, rin + 100, 1000), 0);
  EXPECT_EQ(last_stats().bytesByReference, 2000u);
  EXPECT_EQ(info.dsp_address, first_dsp_address + 100);

  rpcmem_free(rin);
  rpcmem_free(rout);
  remote_handle64_close(h);
}

// A call's frame travels in the slot's own cache lines when it fits
// (ipc::kSlotFrameBytes) and in the transport buffer when not; every length
// on either side of that limit, and across the transport's growth, must carry
// every byte both ways.
TEST(Remote, CallsOnEitherSideOfTheSlotFrameLimitCarryEveryByte) {
  remote_handle64 h = open_test_skel();
  for (size_t len = 0; len <= 400; ++len) {
    std::vector<uint8_t> in(len), out(len, 0xee);
    for (size_t i = 0; i < len; ++i) in[i] = static_cast<uint8_t>(i * 7 + len);
    TestEchoInfo info{};
    ASSERT_EQ(echo(h, in.data(), out.data(), len, &info), 0) << len;
    ASSERT_EQ(in, out) << len;
    EXPECT_EQ(info.dsp_pid, openhtp_fastrpc_dsp_pid());
    EXPECT_EQ(last_stats().bytesCopiedIn, len);
  }
  remote_handle64_close(h);
}

// Plain memory that lies between two rpcmem buffers is still plain memory:
// libcdsprpc's quick "cannot be shared" answer (outside the span of all
// rpcmem regions) does not hold there, and the call must take the full
// lookup and copy it, not pass it by reference or fail.
TEST(Remote, PlainMemoryAmongRpcmemBuffersIsCopied) {
  remote_handle64 h = open_test_skel();
  const size_t page = 4096;
  // Three pages in a row: the outer two a registered shared buffer each
  // (fastrpc_mmap of a memfd, at an address chosen here), the middle one
  // plain anonymous memory, so it lies inside the span of registered regions.
  void* region = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(region, MAP_FAILED);
  auto* base = static_cast<uint8_t*>(region);
  int fds[2];
  for (int k = 0; k < 2; ++k) {
    fds[k] = memfd_create("outer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    ASSERT_GE(fds[k], 0);
    ASSERT_EQ(ftruncate(fds[k], page), 0);
    uint8_t* at = base + (k == 0 ? 0 : 2 * page);
    ASSERT_EQ(mmap(at, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fds[k], 0), at);
    ASSERT_EQ(fastrpc_mmap(CDSP_DOMAIN_ID, fds[k], at, 0, page, FASTRPC_MAP_FD), 0);
  }
  uint8_t* plain = base + page;
  for (size_t len : {size_t{8}, size_t{24}, size_t{100}}) {
    for (size_t i = 0; i < len; ++i) plain[i] = static_cast<uint8_t>(i * 13 + len);
    std::vector<uint8_t> out(len, 0);
    TestEchoInfo info{};
    ASSERT_EQ(echo(h, plain, out.data(), len, &info), 0) << len;
    EXPECT_EQ(std::memcmp(out.data(), plain, len), 0) << len;
    const auto s = last_stats();
    EXPECT_EQ(s.bytesCopiedIn, len);
    EXPECT_EQ(s.bytesByReference, 0u);
  }
  // The registered neighbours themselves still go by reference.
  std::memset(base, 7, 64);
  std::vector<uint8_t> out(64, 0);
  TestEchoInfo info{};
  ASSERT_EQ(echo(h, base, out.data(), 64, &info), 0);
  EXPECT_EQ(out[63], 7);
  EXPECT_EQ(last_stats().bytesByReference, 64u);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(fastrpc_munmap(CDSP_DOMAIN_ID, fds[k], base + (k == 0 ? 0 : 2 * page), page), 0);
    close(fds[k]);
  }
  munmap(region, 3 * page);
  remote_handle64_close(h);
}

// The transport of a slot keeps what a run of same-size large calls uses
// (an execute loop with big copied client buffers would otherwise fault every
// page in again on each call), and gives back what one large call grew it by
// once a smaller call follows. Counted as the DSP process's minor faults.
TEST(Remote, ARunOfLargeCallsKeepsItsTransportPagesAOneOffGivesThemBack) {
  auto dsp_minor_faults = [] {
    const std::string path = "/proc/" + std::to_string(openhtp_fastrpc_dsp_pid()) + "/stat";
    FILE* f = std::fopen(path.c_str(), "r");
    if (f == nullptr) return -1L;
    char buf[1024] = {};
    const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    const char* p = std::strrchr(buf, ')');  // the command name may hold spaces
    if (n == 0 || p == nullptr) return -1L;
    long v = -1;
    // after ") ": state ppid pgrp session tty_nr tpgid flags minflt
    if (std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %ld", &v) != 1) return -1L;
    return v;
  };
  remote_handle64 h = open_test_skel();
  const size_t len = size_t{20} << 20;  // 20 MiB in + 20 MiB out: beyond the 16 MiB kept anyway
  std::vector<uint8_t> in(len, 0x3c), out(len, 0);
  TestEchoInfo info{};
  ASSERT_EQ(echo(h, in.data(), out.data(), len, &info), 0);
  ASSERT_EQ(echo(h, in.data(), out.data(), len, &info), 0);
  const long before = dsp_minor_faults();
  ASSERT_GE(before, 0);
  ASSERT_EQ(echo(h, in.data(), out.data(), len, &info), 0);
  const long repeat = dsp_minor_faults() - before;
  EXPECT_EQ(out, in);
  // 40 MiB are 10240 pages; a kept transport faults almost none of them.
  EXPECT_LT(repeat, 1024) << "the third same-size call faulted " << repeat << " pages in the DSP process";
  // A small call after the run gives the pages beyond 16 MiB back, so the
  // next large call faults them in again (at least the 24 MiB beyond).
  uint8_t small_in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, small_out[8] = {};
  ASSERT_EQ(echo(h, small_in, small_out, sizeof small_in, &info), 0);
  const long before_again = dsp_minor_faults();
  ASSERT_EQ(echo(h, in.data(), out.data(), len, &info), 0);
  const long again = dsp_minor_faults() - before_again;
  EXPECT_GE(again, 4096) << "after a small call the large one faulted only " << again << " pages";
  remote_handle64_close(h);
}

TEST(Remote, DspWritesAreVisibleToTheClientInPlace) {
  remote_handle64 h = open_test_skel();
  const size_t len = 4096 * 5;
  auto* buf = static_cast<uint8_t*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, len));
  uint8_t byte = 0x5a;
  remote_arg a[2];
  a[0].buf = {&byte, 1};
  a[1].buf = {buf, len};
  ASSERT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestFill, 1, 1), a), 0);
  for (size_t i = 0; i < len; i += 511) ASSERT_EQ(buf[i], 0x5a);
  EXPECT_EQ(last_stats().bytesCopiedOut, 0u);
  rpcmem_free(buf);
  remote_handle64_close(h);
}

TEST(Remote, DmaHandlesPassFileDescriptors) {
  remote_handle64 h = open_test_skel();
  const int fd = memfd_create("foreign", MFD_CLOEXEC | MFD_ALLOW_SEALING);  // not from rpcmem
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 8192), 0);
  auto* p = static_cast<uint8_t*>(mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  uint64_t expect = 0;
  for (int i = 0; i < 100; ++i) {
    p[4096 + i] = static_cast<uint8_t>(i);
    expect += static_cast<uint8_t>(i);
  }
  uint64_t len = 100, sum = 0;
  remote_arg a[3];
  a[0].buf = {&len, sizeof len};
  a[1].buf = {&sum, sizeof sum};
  a[2].dma = {fd, 4096};
  ASSERT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKEX(0, kTestDmaSum, 1, 1, 1, 0), a), 0);
  EXPECT_EQ(sum, expect);
  EXPECT_EQ(p[4096 + 10], 11);  // the DSP incremented every byte in place
  munmap(p, 8192);
  close(fd);
  remote_handle64_close(h);
}

TEST(Remote, FastrpcMmapMakesForeignMemoryPassByReference) {
  remote_handle64 h = open_test_skel();
  const int fd = memfd_create("mapped", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_EQ(ftruncate(fd, 16384), 0);
  auto* p = static_cast<uint8_t*>(mmap(nullptr, 16384, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  EXPECT_EQ(openhtp_fastrpc_fd_is_mapped(fd), 0);
  ASSERT_EQ(fastrpc_mmap(CDSP_DOMAIN_ID, fd, p, 0, 16384, FASTRPC_MAP_FD), 0);
  EXPECT_EQ(openhtp_fastrpc_fd_is_mapped(fd), 1);
  EXPECT_NE(fastrpc_mmap(CDSP_DOMAIN_ID, fd, p, 0, 16384, FASTRPC_MAP_FD), 0) << "double map";
  EXPECT_NE(fastrpc_mmap(ADSP_DOMAIN_ID, fd, p, 0, 16384, FASTRPC_MAP_FD), 0) << "domain not emulated";
  std::memset(p, 3, 1024);
  TestEchoInfo info{};
  ASSERT_EQ(echo(h, p, p + 8192, 1024, &info), 0);
  EXPECT_EQ(p[8192 + 1023], 3);
  EXPECT_EQ(last_stats().bytesByReference, 2048u);
  ASSERT_EQ(fastrpc_munmap(CDSP_DOMAIN_ID, fd, p, 16384), 0);
  EXPECT_EQ(openhtp_fastrpc_fd_is_mapped(fd), 0);
  EXPECT_NE(fastrpc_munmap(CDSP_DOMAIN_ID, fd, p, 16384), 0);
  ASSERT_EQ(echo(h, p, p + 8192, 1024, &info), 0);
  EXPECT_EQ(last_stats().bytesByReference, 0u);  // copied again once unmapped
  munmap(p, 16384);
  close(fd);
  remote_handle64_close(h);
}

// A buffer passed by reference and freed while its call runs: the DSP keeps
// its own mapping to the end of the call (nothing it touches goes away), and
// the call fails instead of reporting success for data nobody can see.
TEST(Remote, ABufferFreedWhileItsCallRunsFailsThatCall) {
  remote_handle64 h = open_test_skel();
  auto* buf = static_cast<uint8_t*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 4096));
  ASSERT_NE(buf, nullptr);
  uint32_t ms = 1;
  remote_arg a[2];
  a[0].buf = {&ms, sizeof ms};
  a[1].buf = {buf, 4096};
  // Left alone, the call succeeds and its write is seen in place.
  ASSERT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestSleep, 1, 1), a), 0);
  EXPECT_EQ(buf[0], 0x5A);
  EXPECT_EQ(last_stats().bytesByReference, 4096u);
  ms = 400;
  std::thread freer([buf] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // inside the call
    rpcmem_free(buf);
  });
  EXPECT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestSleep, 1, 1), a), AEE_EBADSTATE);
  freer.join();
  // The DSP process is unharmed and the slot reusable.
  remote_arg ping[1];
  EXPECT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestPing, 0, 0), ping), 0);
  ms = 1;
  a[0].buf = {&ms, sizeof ms};
  EXPECT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestSleep, 1, 0), a), 0);
  remote_handle64_close(h);
}

TEST(Remote, BadUrisAndHandlesAreRefused) {
  remote_handle64 h = 0;
  EXPECT_NE(remote_handle64_open("file:///libdoesnotexist.so?x_skel_handle_invoke&_dom=cdsp", &h), 0);
  EXPECT_NE(remote_handle64_open("file:///libopenhtp_test_skel.so?missing_fn&_dom=cdsp", &h), 0);
  EXPECT_NE(remote_handle64_open("http://x", &h), 0);
  EXPECT_EQ(remote_handle64_open(kTestSkelUri, nullptr), AEE_EBADPARM);
  EXPECT_EQ(remote_handle64_open("file:///libopenhtp_test_skel.so?openhtp_test_skel_handle_invoke&_dom=adsp", &h),
            AEE_EUNSUPPORTED);
  remote_arg a[1];
  EXPECT_NE(remote_handle64_invoke(0xdeadbeef, REMOTE_SCALARS_MAKE(kTestPing, 0, 0), a), 0);
  h = open_test_skel();
  EXPECT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestPing, 0, 0), nullptr), 0);
  EXPECT_EQ(remote_handle64_close(h), 0);
  EXPECT_NE(remote_handle64_close(h), 0);
  EXPECT_NE(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestPing, 0, 0), nullptr), 0);
}

TEST(Remote, SessionCloseEndsTheDspProcessAndInvalidatesHandles) {
  remote_handle64 h = open_test_skel();
  ASSERT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestPing, 0, 0), nullptr), 0);
  const int old_pid = openhtp_fastrpc_dsp_pid();
  ASSERT_GT(old_pid, 0);
  remote_rpc_session_close req{CDSP_DOMAIN_ID};
  ASSERT_EQ(remote_session_control(FASTRPC_SESSION_CLOSE, &req, sizeof req), 0);
  EXPECT_EQ(kill(old_pid, 0), -1);  // reaped
  EXPECT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestPing, 0, 0), nullptr), AEE_EBADHANDLE);
  remote_handle64 h2 = open_test_skel();
  EXPECT_EQ(remote_handle64_invoke(h2, REMOTE_SCALARS_MAKE(kTestPing, 0, 0), nullptr), 0);
  EXPECT_NE(openhtp_fastrpc_dsp_pid(), old_pid);
  remote_handle64_close(h2);
}

TEST(Remote, DspCrashIsReportedNotHung) {
  remote_handle64 h = open_test_skel();
  const int pid = openhtp_fastrpc_dsp_pid();
  EXPECT_NE(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestCrash, 0, 0), nullptr), 0);
  EXPECT_EQ(kill(pid, 0), -1);
  // The next open starts a fresh DSP process.
  remote_handle64 h2 = open_test_skel();
  EXPECT_EQ(remote_handle64_invoke(h2, REMOTE_SCALARS_MAKE(kTestPing, 0, 0), nullptr), 0);
  EXPECT_NE(openhtp_fastrpc_dsp_pid(), pid);
  remote_handle64_close(h2);
}

// A DSP process that stops running (SIGSTOP, a debugger) must not hang its
// client: a waiting call that sees no heartbeat for OPENHTP_DSP_HEARTBEAT_MS
// ends the process and fails, and the next call gets a fresh one. A call that
// is merely slow — the DSP busy for longer than that deadline — is not cut.
TEST(Remote, AStoppedDspFailsTheCallWithinTheHeartbeatDeadline) {
  remote_rpc_session_close req{CDSP_DOMAIN_ID};
  remote_session_control(FASTRPC_SESSION_CLOSE, &req, sizeof req);  // the deadline is read when a session starts
  setenv("OPENHTP_DSP_HEARTBEAT_MS", "300", 1);
  remote_handle64 h = open_test_skel();
  // Busy, not stopped: 800 ms of sleep outlasts the deadline and must pass.
  uint32_t ms = 800;
  remote_arg a[1];
  a[0].buf = {&ms, sizeof ms};
  EXPECT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestSleep, 1, 0), a), 0);
  const int pid = openhtp_fastrpc_dsp_pid();
  ASSERT_GT(pid, 0);
  ms = 200;
  std::thread stopper([pid] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // inside the call
    kill(pid, SIGSTOP);
  });
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_NE(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestSleep, 1, 0), a), 0);
  const auto waited = std::chrono::steady_clock::now() - t0;
  stopper.join();
  EXPECT_LT(waited, std::chrono::seconds(2));  // 300 ms deadline + one 10 ms liveness period, with room
  EXPECT_EQ(kill(pid, 0), -1);                 // ended and reaped
  remote_handle64 h2 = open_test_skel();
  EXPECT_EQ(remote_handle64_invoke(h2, REMOTE_SCALARS_MAKE(kTestPing, 0, 0), nullptr), 0);
  EXPECT_NE(openhtp_fastrpc_dsp_pid(), pid);
  remote_handle64_close(h2);
  unsetenv("OPENHTP_DSP_HEARTBEAT_MS");
}

// The DSP process is reachable only by its client: not dumpable (no ptrace,
// no /proc/<pid>/fd or pidfd_getfd for other processes of the user) and
// without new privileges; the client itself is left dumpable.
TEST(Remote, TheDspProcessIsNotDumpableAndTheClientIsLeftAsItWas) {
  remote_handle64 h = open_test_skel();
  TestProcessFlags f{-1, -1};
  remote_arg a[1];
  a[0].buf = {&f, sizeof f};
  ASSERT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestProcessFlags, 0, 1), a), 0);
  EXPECT_EQ(f.dumpable, 0);
  EXPECT_EQ(f.no_new_privs, 1);
  EXPECT_EQ(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
  EXPECT_EQ(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 0);
  remote_handle64_close(h);
}

// fastrpc_mmap takes memory both processes can share, nothing else: a
// regular file or a pipe is refused as a bad argument (not a lost DSP).
TEST(Remote, FastrpcMmapRefusesWhatIsNotShareableMemory) {
  char path[] = "/tmp/openhtp-mmap-XXXXXX";
  const int file = mkstemp(path);
  ASSERT_GE(file, 0);
  unlink(path);
  ASSERT_EQ(ftruncate(file, 4096), 0);
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
  ASSERT_NE(p, MAP_FAILED);
  EXPECT_EQ(fastrpc_mmap(CDSP_DOMAIN_ID, file, p, 0, 4096, FASTRPC_MAP_FD), AEE_EBADPARM);
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  EXPECT_EQ(fastrpc_mmap(CDSP_DOMAIN_ID, pipefd[0], p, 0, 4096, FASTRPC_MAP_FD), AEE_EBADPARM);
  munmap(p, 4096);
  close(file);
  close(pipefd[0]);
  close(pipefd[1]);
}

// Memory the DSP maps must keep its size while it is mapped: a memfd made
// without MFD_ALLOW_SEALING could be shrunk by the client and fault the DSP,
// so neither fastrpc_mmap nor a DMA-handle argument takes one; a sealable
// one is sealed against shrinking and taken.
TEST(Remote, MemoryThatCouldShrinkUnderTheDspIsRefused) {
  remote_handle64 h = open_test_skel();
  const int loose = memfd_create("loose", MFD_CLOEXEC);
  ASSERT_EQ(ftruncate(loose, 8192), 0);
  void* p = mmap(nullptr, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, loose, 0);
  ASSERT_NE(p, MAP_FAILED);
  EXPECT_EQ(fastrpc_mmap(CDSP_DOMAIN_ID, loose, p, 0, 8192, FASTRPC_MAP_FD), AEE_EBADPARM);
  uint64_t len = 10, sum = 0;
  remote_arg a[3];
  a[0].buf = {&len, sizeof len};
  a[1].buf = {&sum, sizeof sum};
  a[2].dma = {loose, 0};
  EXPECT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKEX(0, kTestDmaSum, 1, 1, 1, 0), a), AEE_EBADPARM);
  munmap(p, 8192);
  close(loose);

  const int sealable = memfd_create("sealable", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_EQ(ftruncate(sealable, 8192), 0);
  a[2].dma = {sealable, 0};
  EXPECT_EQ(remote_handle64_invoke(h, REMOTE_SCALARS_MAKEX(0, kTestDmaSum, 1, 1, 1, 0), a), 0);
  EXPECT_NE(ftruncate(sealable, 4096), 0);  // sealed against shrinking on the way
  close(sealable);
  remote_handle64_close(h);
}

TEST(Remote, ConcurrentCallsFromManyThreads) {
  remote_handle64 h = open_test_skel();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 12; ++t) {  // more threads than call slots
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        uint32_t in[8], out[8] = {};
        for (auto& v : in) v = static_cast<uint32_t>(t * 1000 + i);
        TestEchoInfo info{};
        if (echo(h, in, out, sizeof in, &info) != 0 || std::memcmp(in, out, sizeof in) != 0) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  remote_handle64_close(h);
}

TEST(Remote, KilledClientLeavesNoDspProcessBehind) {
  // Become a subreaper so the orphaned DSP process is reparented to us and we
  // can observe its exit.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t client = fork();
  ASSERT_GE(client, 0);
  if (client == 0) {
    close(pipefd[0]);
    remote_handle64 h = 0;
    if (remote_handle64_open(kTestSkelUri, &h) != 0) _exit(2);
    int dsp = openhtp_fastrpc_dsp_pid();
    if (write(pipefd[1], &dsp, sizeof dsp) != sizeof dsp) _exit(3);
    uint32_t ms = 60000;  // mid-call when killed
    remote_arg a[1];
    a[0].buf = {&ms, sizeof ms};
    remote_handle64_invoke(h, REMOTE_SCALARS_MAKE(kTestSleep, 1, 0), a);
    _exit(0);
  }
  close(pipefd[1]);
  int dsp_pid = -1;
  ASSERT_EQ(read(pipefd[0], &dsp_pid, sizeof dsp_pid), static_cast<ssize_t>(sizeof dsp_pid));
  close(pipefd[0]);
  ASSERT_GT(dsp_pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(kill(dsp_pid, 0), 0) << "DSP process should be running the call";
  kill(client, SIGKILL);
  int st;
  waitpid(client, &st, 0);
  EXPECT_TRUE(process_exited_within(dsp_pid, std::chrono::seconds(5)));
  prctl(PR_SET_CHILD_SUBREAPER, 0);
}

// A buffer the client may map but the DSP cannot (a read-only descriptor of
// sealed memory: the DSP maps by-reference buffers read-write) fails the call
// that uses it with AEE_EMMAP, "mmap failed", not as a lost DSP: the same
// session serves the next call.
TEST(Remote, ABufferTheDspCannotMapFailsOnlyThatCall) {
  remote_handle64 h = open_test_skel();
  const int rw = memfd_create("read-only-view", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_EQ(ftruncate(rw, 8192), 0);
  ASSERT_EQ(fcntl(rw, F_ADD_SEALS, F_SEAL_SHRINK), 0);
  const std::string path = "/proc/self/fd/" + std::to_string(rw);
  const int ro = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(ro, 0);
  auto* p = static_cast<uint8_t*>(mmap(nullptr, 8192, PROT_READ, MAP_SHARED, ro, 0));
  ASSERT_NE(p, MAP_FAILED);
  ASSERT_EQ(fastrpc_mmap(CDSP_DOMAIN_ID, ro, p, 0, 8192, FASTRPC_MAP_FD), 0);
  std::vector<uint8_t> out(1024, 0);
  TestEchoInfo info{};
  EXPECT_EQ(echo(h, p, out.data(), 1024, &info), AEE_EMMAP);
  // The session is alive and the same handle works for buffers it can map.
  std::vector<uint8_t> in(1024, 7);
  ASSERT_EQ(echo(h, in.data(), out.data(), 1024, &info), 0);
  EXPECT_EQ(out[1023], 7);
  ASSERT_EQ(fastrpc_munmap(CDSP_DOMAIN_ID, ro, p, 8192), 0);
  munmap(p, 8192);
  close(ro);
  close(rw);
  remote_handle64_close(h);
}

TEST(Remote, FastrpcMmapOfRpcmemMemoryIsRecordedNotDuplicated) {
  // llama.cpp's hexagon backend allocates with rpcmem and then maps the fd
  // with fastrpc_mmap; both must work and the buffer stays by-reference.
  const size_t len = 8192;
  auto* p = static_cast<uint8_t*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS | RPCMEM_HEAP_NOREG, len));
  const int fd = rpcmem_to_fd(p);
  EXPECT_EQ(openhtp_fastrpc_fd_is_mapped(fd), 0);
  ASSERT_EQ(fastrpc_mmap(CDSP_DOMAIN_ID, fd, p, 0, len, FASTRPC_MAP_FD), 0);
  EXPECT_EQ(openhtp_fastrpc_fd_is_mapped(fd), 1);
  remote_handle64 h = open_test_skel();
  TestEchoInfo info{};
  std::memset(p, 9, 100);
  ASSERT_EQ(echo(h, p, p + 4096, 100, &info), 0);
  EXPECT_EQ(p[4096 + 99], 9);
  EXPECT_EQ(last_stats().bytesByReference, 200u);
  ASSERT_EQ(fastrpc_munmap(CDSP_DOMAIN_ID, fd, p, len), 0);
  EXPECT_EQ(openhtp_fastrpc_fd_is_mapped(fd), 0);
  EXPECT_EQ(rpcmem_to_fd(p), fd) << "the allocation itself is untouched";
  rpcmem_free(p);
  remote_handle64_close(h);
}
