// The C ABI never throws (issue 9): an exception inside an exported function
// of libQnnHtp, libcdsprpc or libQnnSystem comes back as an error code and one
// log line naming the API, never as an abort of the client.
//
// This executable replaces the global operator new, and the libraries resolve
// their allocations to it through the dynamic linker, so a test can make the
// n-th allocation on its own thread throw std::bad_alloc: a real allocation
// failure deep inside the library, not a mock. Every call under test is made
// through c_caller(), which is noexcept as a C frame is in effect: an
// exception that escapes the library terminates the test, as it would a C
// client. The replacement lives in its own executable so that the other QNN
// tests never run on it; it is plain malloc/free underneath, which ASan and
// TSan intercept as usual.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "QnnInterface.h"
#include "System/QnnSystemContext.h"
#include "System/QnnSystemLog.h"
#include "qnn_test_util.h"
#include "remote.h"
#include "rpcmem.h"

// ---- the allocation failure injector -----------------------------------------

namespace {

// Per thread, so the DSP session's and the log's other threads never consume
// the countdown: 0 is disarmed; n > 0 makes the n-th allocation from now
// throw. With t_keep_failing, every allocation after it throws too (memory
// that stays exhausted, so the guard's own log line cannot allocate either).
thread_local int t_countdown = 0;
thread_local bool t_keep_failing = false;
thread_local bool t_fired = false;

bool injected_failure() {
  if (t_countdown == 0) return false;
  if (t_countdown == 1) {
    t_fired = true;
    if (!t_keep_failing) t_countdown = 0;
    return true;
  }
  --t_countdown;
  return false;
}

void* allocate(std::size_t n) {
  if (injected_failure()) throw std::bad_alloc();
  if (void* p = std::malloc(n != 0 ? n : 1)) return p;
  throw std::bad_alloc();
}

void* allocate_aligned(std::size_t n, std::align_val_t a) {
  if (injected_failure()) throw std::bad_alloc();
  void* p = nullptr;
  const std::size_t align = std::max(static_cast<std::size_t>(a), sizeof(void*));
  if (posix_memalign(&p, align, n != 0 ? n : 1) == 0) return p;
  throw std::bad_alloc();
}

// Out of line: a free() inlined into a caller that got the pointer from
// operator new trips -Wmismatched-new-delete, although it is the right pair here.
[[gnu::noinline]] void release(void* p) noexcept { std::free(p); }

template <class F>
void* nothrow(F f) noexcept {
  try {
    return f();
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

#define OPENHTP_EXPORT __attribute__((visibility("default")))
OPENHTP_EXPORT void* operator new(std::size_t n) { return allocate(n); }
OPENHTP_EXPORT void* operator new[](std::size_t n) { return allocate(n); }
OPENHTP_EXPORT void* operator new(std::size_t n, std::align_val_t a) { return allocate_aligned(n, a); }
OPENHTP_EXPORT void* operator new[](std::size_t n, std::align_val_t a) { return allocate_aligned(n, a); }
OPENHTP_EXPORT void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return nothrow([&] { return allocate(n); });
}
OPENHTP_EXPORT void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return nothrow([&] { return allocate(n); });
}
OPENHTP_EXPORT void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return nothrow([&] { return allocate_aligned(n, a); });
}
OPENHTP_EXPORT void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return nothrow([&] { return allocate_aligned(n, a); });
}
OPENHTP_EXPORT void operator delete(void* p) noexcept { release(p); }
OPENHTP_EXPORT void operator delete[](void* p) noexcept { release(p); }
OPENHTP_EXPORT void operator delete(void* p, std::size_t) noexcept { release(p); }
OPENHTP_EXPORT void operator delete[](void* p, std::size_t) noexcept { release(p); }
OPENHTP_EXPORT void operator delete(void* p, std::align_val_t) noexcept { release(p); }
OPENHTP_EXPORT void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
OPENHTP_EXPORT void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
OPENHTP_EXPORT void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
OPENHTP_EXPORT void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
OPENHTP_EXPORT void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
OPENHTP_EXPORT void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
OPENHTP_EXPORT void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }

namespace {

using qnntest::LogCapture;

// Runs `call` with the n-th allocation on this thread failing; reports whether
// the failure was reached (false: the call needed fewer allocations than n).
template <class F>
auto with_nth_allocation_failing(int n, bool keep_failing, F call, bool* fired) {
  t_fired = false;
  t_keep_failing = keep_failing;
  t_countdown = n;
  auto result = call();
  t_countdown = 0;
  t_keep_failing = false;
  *fired = t_fired;
  return result;
}

// A C frame: nothing may unwind through it.
template <class F>
auto c_caller(F f) noexcept {
  return f();
}

int open_fds() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (readdir(d) != nullptr) ++n;
    closedir(d);
  }
  return n;
}

class NoThrow : public ::testing::Test {
 protected:
  void SetUp() override {
    LogCapture::instance().clear();
    ASSERT_EQ(QnnLog_create(LogCapture::callback, QNN_LOG_LEVEL_ERROR, &log_), QNN_SUCCESS);
  }
  void TearDown() override {
    if (log_ != nullptr) QnnLog_free(log_);
  }
  size_t lines_with(const std::string& needle) {
    size_t n = 0;
    for (const auto& l : LogCapture::instance().lines()) n += l.find(needle) != std::string::npos;
    return n;
  }
  Qnn_LogHandle_t log_ = nullptr;
};

// ---- libQnnHtp ----------------------------------------------------------------

TEST_F(NoThrow, BackendCreateReportsEveryAllocationFailureAndThenWorks) {
  // The first backend starts the DSP process; a second one, made while it is
  // held, goes through backendCreate's own allocations. Each one in turn is
  // made to fail, until the call needs no more than were allowed.
  Qnn_BackendHandle_t first = nullptr;
  ASSERT_EQ(QnnBackend_create(log_, nullptr, &first), QNN_SUCCESS);
  int failures = 0;
  for (int n = 1; n < 100; ++n) {
    LogCapture::instance().clear();
    Qnn_BackendHandle_t b = nullptr;
    bool fired = false;
    const Qnn_ErrorHandle_t e = with_nth_allocation_failing(
        n, false, [&] { return c_caller([&] { return QnnBackend_create(log_, nullptr, &b); }); }, &fired);
    if (!fired) {
      ASSERT_EQ(e, QNN_SUCCESS) << "allocation " << n;
      EXPECT_EQ(QnnBackend_free(b), QNN_SUCCESS);
      break;
    }
    ++failures;
    EXPECT_EQ(e, QNN_COMMON_ERROR_MEM_ALLOC) << "allocation " << n;
    EXPECT_EQ(b, nullptr) << "a failed backendCreate handed out a handle";
    EXPECT_EQ(lines_with("backendCreate: internal error: std::bad_alloc"), 1u) << "allocation " << n;
  }
  EXPECT_GE(failures, 2) << "backendCreate allocates its object and its handle-table entry";
  // Nothing was left behind: the backend made first is still the only one and works.
  Qnn_ProfileHandle_t prof = nullptr;
  EXPECT_EQ(QnnProfile_create(first, QNN_PROFILE_LEVEL_BASIC, &prof), QNN_SUCCESS);
  EXPECT_EQ(QnnProfile_free(prof), QNN_SUCCESS);
  EXPECT_EQ(QnnBackend_free(first), QNN_SUCCESS);
}

TEST_F(NoThrow, FirstBackendCreateSurvivesEveryAllocationFailureOnTheWayToTheDspProcess) {
  // The first backend opens the skel in a new DSP process, through libcdsprpc.
  // A failure there comes back as that library's AEE code, which the stub
  // reports as SYSTEM_COMMUNICATION with a line of its own.
  int failures = 0;
  for (int n = 1; n < 1000; ++n) {
    LogCapture::instance().clear();
    Qnn_BackendHandle_t b = nullptr;
    bool fired = false;
    const Qnn_ErrorHandle_t e = with_nth_allocation_failing(
        n, false, [&] { return c_caller([&] { return QnnBackend_create(log_, nullptr, &b); }); }, &fired);
    if (!fired) {
      ASSERT_EQ(e, QNN_SUCCESS) << "allocation " << n;
      EXPECT_EQ(QnnBackend_free(b), QNN_SUCCESS);
      break;
    }
    ++failures;
    EXPECT_TRUE(e == QNN_COMMON_ERROR_MEM_ALLOC || e == QNN_COMMON_ERROR_SYSTEM_COMMUNICATION)
        << "allocation " << n << ": " << e;
    EXPECT_EQ(b, nullptr);
    EXPECT_EQ(LogCapture::instance().lines().size(), 1u) << "allocation " << n;
  }
  EXPECT_GE(failures, 3);
}

TEST_F(NoThrow, ProfileCreateFailsCleanlyAndTheBackendStaysUsable) {
  Qnn_BackendHandle_t backend = nullptr;
  ASSERT_EQ(QnnBackend_create(log_, nullptr, &backend), QNN_SUCCESS);
  Qnn_ProfileHandle_t prof = nullptr;
  bool fired = false;
  const Qnn_ErrorHandle_t e = with_nth_allocation_failing(
      1, false, [&] { return c_caller([&] { return QnnProfile_create(backend, QNN_PROFILE_LEVEL_BASIC, &prof); }); },
      &fired);
  ASSERT_TRUE(fired);
  EXPECT_EQ(e, QNN_PROFILE_ERROR_MEM_ALLOC);
  EXPECT_EQ(prof, nullptr);
  EXPECT_EQ(lines_with("profileCreate: internal error: std::bad_alloc"), 1u);
  // The verbose message of the code is that line, as for any rule.
  const char* verbose = nullptr;
  ASSERT_EQ(QnnError_getVerboseMessage(e, &verbose), QNN_SUCCESS);
  EXPECT_NE(std::string(verbose).find("profileCreate: internal error"), std::string::npos) << verbose;
  QnnError_freeVerboseMessage(verbose);

  ASSERT_EQ(QnnProfile_create(backend, QNN_PROFILE_LEVEL_BASIC, &prof), QNN_SUCCESS);
  EXPECT_EQ(QnnProfile_free(prof), QNN_SUCCESS);
  EXPECT_EQ(QnnBackend_free(backend), QNN_SUCCESS);
}

TEST_F(NoThrow, SupportedOperationsListIsBuiltOnTheNextCallAfterAFailure) {
  Qnn_BackendHandle_t backend = nullptr;
  ASSERT_EQ(QnnBackend_create(log_, nullptr, &backend), QNN_SUCCESS);
  uint32_t n = 0;
  const QnnBackend_OperationName_t* ops = nullptr;
  bool fired = false;
  const Qnn_ErrorHandle_t e = with_nth_allocation_failing(
      1, false, [&] { return c_caller([&] { return QnnBackend_getSupportedOperations(backend, &n, &ops); }); },
      &fired);
  ASSERT_TRUE(fired);
  EXPECT_EQ(e, QNN_BACKEND_ERROR_MEM_ALLOC);
  EXPECT_EQ(lines_with("backendGetSupportedOperations: internal error: std::bad_alloc"), 1u);
  ASSERT_EQ(QnnBackend_getSupportedOperations(backend, &n, &ops), QNN_SUCCESS);
  EXPECT_GT(n, 50u);
  EXPECT_EQ(QnnBackend_free(backend), QNN_SUCCESS);
}

TEST_F(NoThrow, UnsupportedEntryReportsMemoryExhaustionEvenWhenItsLogLineCannotBeBuilt) {
  // NOT_SUPPORTED entries only log; with memory exhausted from the first
  // allocation on, neither that line nor the guard's can be delivered through
  // the log callbacks (their fan-out allocates). The code still says why.
  bool fired = false;
  const Qnn_ErrorHandle_t e = with_nth_allocation_failing(
      1, true, [&] { return c_caller([&] { return QnnContext_releaseIncrementalBinary(nullptr, nullptr, 0); }); }, &fired);
  ASSERT_TRUE(fired);
  EXPECT_EQ(e, QNN_COMMON_ERROR_MEM_ALLOC);
  // Once memory is back, the same call says NOT_SUPPORTED and logs it.
  EXPECT_EQ(QnnContext_releaseIncrementalBinary(nullptr, nullptr, 0), QNN_COMMON_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(lines_with("QnnContext_releaseIncrementalBinary is not supported"), 1u);
}

// ---- libcdsprpc -----------------------------------------------------------------

TEST_F(NoThrow, RpcmemAllocReturnsNullOnEveryAllocationFailureAndLeaksNothing) {
  const int fds = open_fds();
  int failures = 0;
  for (int n = 1; n < 100; ++n) {
    bool fired = false;
    testing::internal::CaptureStderr();
    void* p = with_nth_allocation_failing(
        n, false,
        [&] { return c_caller([&] { return rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 4096); }); }, &fired);
    const std::string err = testing::internal::GetCapturedStderr();
    if (!fired) {
      ASSERT_NE(p, nullptr) << "allocation " << n;
      EXPECT_GE(rpcmem_to_fd(p), 0);
      rpcmem_free(p);
      break;
    }
    ++failures;
    EXPECT_EQ(p, nullptr) << "allocation " << n;
    EXPECT_NE(err.find("rpcmem_alloc: internal error: std::bad_alloc"), std::string::npos) << err;
    // The shareable memory made before the failure went back: no fd is left open.
    EXPECT_EQ(open_fds(), fds) << "allocation " << n;
  }
  EXPECT_GE(failures, 1) << "registering an allocation allocates";
  EXPECT_EQ(open_fds(), fds);
}

TEST_F(NoThrow, RpcmemAlloc2WithAnAbsurdSizeReturnsNull) {
  for (size_t size : {SIZE_MAX / 2, SIZE_MAX - 4095, SIZE_MAX}) {
    testing::internal::CaptureStderr();
    void* p = c_caller([&] { return rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, size); });
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(p, nullptr) << size;
    EXPECT_NE(err.find("rpcmem"), std::string::npos) << "no line for size " << size;
  }
  void* p = rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 1);
  EXPECT_NE(p, nullptr);
  rpcmem_free(p);
}

TEST_F(NoThrow, RemoteOpenReportsNoMemory) {
  // The URI is copied before anything else happens; long enough not to fit in
  // a short-string buffer, so that copy is an allocation.
  remote_handle64 h = 0;
  bool fired = false;
  testing::internal::CaptureStderr();
  const int rc = with_nth_allocation_failing(
      1, false,
      [&] {
        return c_caller(
            [&] { return remote_handle64_open("file:///libopenhtp_test_skel.so?no_such_function&_dom=cdsp", &h); });
      },
      &fired);
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(fired);
  EXPECT_EQ(rc, AEE_ENOMEMORY);
  EXPECT_NE(err.find("remote_handle64_open: internal error: std::bad_alloc"), std::string::npos) << err;
}

// ---- libQnnSystem ---------------------------------------------------------------

std::vector<std::string>& system_lines() {
  static std::vector<std::string> lines;
  return lines;
}
void system_callback(const char* fmt, QnnLog_Level_t, uint64_t, va_list args) {
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, args);
  system_lines().push_back(buf);
}

TEST(NoThrowSystem, SystemContextCreateReportsEveryAllocationFailureAndThenWorks) {
  Qnn_LogHandle_t log = nullptr;
  ASSERT_EQ(QnnSystemLog_create(system_callback, QNN_LOG_LEVEL_ERROR, &log), QNN_SUCCESS);
  int failures = 0;
  for (int n = 1; n < 100; ++n) {
    system_lines().clear();
    QnnSystemContext_Handle_t ctx = nullptr;
    bool fired = false;
    const Qnn_ErrorHandle_t e = with_nth_allocation_failing(
        n, false, [&] { return c_caller([&] { return QnnSystemContext_create(&ctx); }); }, &fired);
    if (!fired) {
      ASSERT_EQ(e, QNN_SUCCESS) << "allocation " << n;
      EXPECT_EQ(QnnSystemContext_free(ctx), QNN_SUCCESS);
      break;
    }
    ++failures;
    EXPECT_EQ(e, QNN_COMMON_ERROR_MEM_ALLOC) << "allocation " << n;
    EXPECT_EQ(ctx, nullptr);
    ASSERT_EQ(system_lines().size(), 1u) << "allocation " << n;
    EXPECT_NE(system_lines()[0].find("systemContextCreate: internal error: std::bad_alloc"), std::string::npos)
        << system_lines()[0];
  }
  EXPECT_GE(failures, 2) << "a system context allocates its object and its table entry";
  EXPECT_EQ(QnnSystemLog_free(log), QNN_SUCCESS);
}

}  // namespace
