// memRegister / memDeRegister rules, each broken on purpose: the right QNN
// error code, one log line that names the rule and the value, and nothing
// registered or lost by the failed call.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "openhtp/qnn_ext.h"
#include "qnn_test_util.h"
#include "race.h"
#include "rpcmem.h"

using namespace qnntest;

namespace {

class MemRules : public QnnFixture {
 protected:
  Qnn_MemDescriptor_t ion(int fd, std::vector<uint32_t>& dims, Qnn_DataType_t dt = QNN_DATATYPE_FLOAT_32) {
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    d.memShape = {static_cast<uint32_t>(dims.size()), dims.data(), nullptr};
    d.dataType = dt;
    d.memType = QNN_MEM_TYPE_ION;
    d.ionInfo.fd = fd;
    return d;
  }
  Qnn_MemDescriptor_t shared(QnnMemHtp_Descriptor_t* htp, int fd, uint64_t size, uint64_t offset,
                             std::vector<uint32_t>& dims) {
    *htp = QnnMemHtp_Descriptor_t{};
    htp->type = QNN_HTP_MEM_SHARED_BUFFER;
    htp->size = size;
    htp->sharedBufferConfig = {fd, offset};
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    d.memShape = {static_cast<uint32_t>(dims.size()), dims.data(), nullptr};
    d.dataType = QNN_DATATYPE_FLOAT_32;
    d.memType = QNN_MEM_TYPE_CUSTOM;
    d.customInfo = htp;
    return d;
  }
  // add_relu's a, b and out (n floats each) as three handles on one rpcmem
  // buffer of `floats` floats, at 0, n and 2n; a and b hold 1.0, and one
  // execute through them has produced out = 2.0.
  struct ThreeHandles {
    std::vector<uint32_t> full;
    QnnMemHtp_Descriptor_t htp[3];
    Qnn_MemDescriptor_t d[3];
    Qnn_MemHandle_t h[3];
    float* buf = nullptr;
    int fd = -1;
  };
  void register_three(uint32_t n, uint32_t floats, ThreeHandles* t) {
    build_add_relu(n);
    t->buf = static_cast<float*>(rpcmem_alloc(25, 1, floats * 4));
    ASSERT_NE(t->buf, nullptr);
    t->fd = rpcmem_to_fd(t->buf);
    t->full = {n};
    for (uint32_t i = 0; i < 3; ++i) t->d[i] = shared(&t->htp[i], t->fd, floats * 4, i * n * 4, t->full);
    ASSERT_EQ(api().memRegister(context_, t->d, 3, t->h), QNN_SUCCESS);
    for (uint32_t i = 0; i < 2 * n; ++i) t->buf[i] = 1.0f;
    ASSERT_EQ(run(t->h[0], t->h[1], t->h[2]), QNN_SUCCESS);
    ASSERT_FLOAT_EQ(t->buf[2 * n], 2.0f);
  }
  // Executes add_relu with every tensor bound to the given handles/buffers.
  Qnn_ErrorHandle_t run(Qnn_MemHandle_t a, Qnn_MemHandle_t b, Qnn_MemHandle_t out) {
    Qnn_Tensor_t in[] = {a_, b_};
    in[0].v1.memType = in[1].v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
    in[0].v1.memHandle = a;
    in[1].v1.memHandle = b;
    Qnn_Tensor_t o = out_;
    o.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
    o.v1.memHandle = out;
    return api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr);
  }
  static std::string s(uint64_t v) { return std::to_string(v); }
};

}  // namespace

TEST_F(MemRules, NeedsALiveContext) {
  std::vector<uint32_t> dims{4};
  void* p = rpcmem_alloc(25, 1, 16);
  auto d = ion(rpcmem_to_fd(p), dims);
  Qnn_MemHandle_t h = reinterpret_cast<Qnn_MemHandle_t>(0x1234);
  EXPECT_EQ(api().memRegister(reinterpret_cast<Qnn_ContextHandle_t>(0xdead), &d, 1, &h), QNN_MEM_ERROR_INVALID_HANDLE);
  EXPECT_EQ(h, nullptr) << "outputs are cleared first";
  EXPECT_TRUE(LogCapture::instance().has_line_with({"memRegister", "not a live context"}));
  rpcmem_free(p);
}

TEST_F(MemRules, BadFdIsRefused) {
  std::vector<uint32_t> dims{4};
  Qnn_MemHandle_t h = nullptr;
  auto d = ion(-1, dims);
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"fd -1", "not an open file descriptor"}));
  d = ion(987654, dims);
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"fd 987654"}));
  // A regular file is not shareable memory.
  char path[] = "/tmp/openhtp-memrules-XXXXXX";
  int file = mkstemp(path);
  ASSERT_GE(file, 0);
  ASSERT_EQ(ftruncate(file, 4096), 0);
  d = ion(file, dims);
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"fd " + std::to_string(file), "not shareable memory"}));
  close(file);
  unlink(path);
  EXPECT_EQ(h, nullptr);
}

// A memfd of the client's own is accepted when it can be held to its size
// (it is sealed against shrinking, so the DSP's mapping can never fault);
// one made without MFD_ALLOW_SEALING could shrink under the DSP: refused.
TEST_F(MemRules, ForeignMemfdIsSealedOrRefused) {
  int fd = memfd_create("not-rpcmem", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_EQ(ftruncate(fd, 64), 0);
  std::vector<uint32_t> dims{16};
  auto d = ion(fd, dims);
  Qnn_MemHandle_t h = nullptr;
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_SUCCESS);
  EXPECT_NE(h, nullptr);
  EXPECT_NE(fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK, 0);
  EXPECT_NE(ftruncate(fd, 32), 0);  // it can no longer shrink
  EXPECT_EQ(api().memDeRegister(&h, 1), QNN_SUCCESS);
  close(fd);

  int unsealable = memfd_create("no-sealing", MFD_CLOEXEC);
  ASSERT_EQ(ftruncate(unsealable, 64), 0);
  d = ion(unsealable, dims);
  LogCapture::instance().clear();
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"could shrink under the DSP", "MFD_ALLOW_SEALING"}));
  EXPECT_EQ(ftruncate(unsealable, 32), 0);  // still the client's to resize: nothing was registered
  close(unsealable);
}

// Issue 11 item 8: a buffer the client may pass but the DSP cannot map is
// reported as a mapping failure (QNN_MEM_ERROR_MAPPING, with the reason), not
// as a lost DSP, and the session goes on. A read-only descriptor of sealed
// shared memory is such a buffer: the client checks that it is shareable and
// cannot shrink (both true), the DSP maps every registered buffer read-write
// and the kernel refuses that (EACCES). The DSP's own mmap is the one that fails.
TEST_F(MemRules, BufferTheDspCannotMapIsAMappingErrorAndTheSessionGoesOn) {
  const uint32_t n = 16;
  build_add_relu(n);
  int rw = memfd_create("read-only-view", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_GE(rw, 0);
  ASSERT_EQ(ftruncate(rw, n * 4), 0);
  ASSERT_EQ(fcntl(rw, F_ADD_SEALS, F_SEAL_SHRINK), 0);
  const std::string path = "/proc/self/fd/" + std::to_string(rw);
  int ro = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(ro, 0);
  std::vector<uint32_t> dims{n};
  auto d = ion(ro, dims);
  Qnn_MemHandle_t h = reinterpret_cast<Qnn_MemHandle_t>(0x1234);
  LogCapture::instance().clear();
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_MAPPING);
  EXPECT_EQ(h, nullptr);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"memRegister", "cannot map the buffer", "Permission denied"}));
  EXPECT_FALSE(LogCapture::instance().has_line_with({"DSP process"})) << "a failed mapping is not a lost DSP";
  close(ro);

  // Nothing was lost: buffers the DSP can map register and execute as before.
  float* ptrs[3];
  int fds[3];
  Qnn_MemHandle_t hs[3];
  for (int i = 0; i < 3; ++i) {
    fds[i] = memfd_create("client", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    ASSERT_EQ(ftruncate(fds[i], n * 4), 0);
    ptrs[i] = static_cast<float*>(mmap(nullptr, n * 4, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0));
    ASSERT_NE(ptrs[i], MAP_FAILED);
    auto di = ion(fds[i], dims);
    ASSERT_EQ(api().memRegister(context_, &di, 1, &hs[i]), QNN_SUCCESS);
  }
  for (uint32_t i = 0; i < n; ++i) {
    ptrs[0][i] = static_cast<float>(i);
    ptrs[1][i] = -3.0f;
  }
  ASSERT_EQ(run(hs[0], hs[1], hs[2]), QNN_SUCCESS);
  for (uint32_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(ptrs[2][i], std::max(0.0f, static_cast<float>(i) - 3.0f)) << i;
  EXPECT_EQ(api().memDeRegister(hs, 3), QNN_SUCCESS);
  for (int i = 0; i < 3; ++i) {
    munmap(ptrs[i], n * 4);
    close(fds[i]);
  }
  close(rw);
}

TEST_F(MemRules, IonShapeLargerThanTheBufferIsRefused) {
  void* p = rpcmem_alloc(25, 1, 4096);  // one page
  std::vector<uint32_t> dims{1025};     // 4100 bytes of float
  auto d = ion(rpcmem_to_fd(p), dims);
  Qnn_MemHandle_t h = nullptr;
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"4100 described bytes", "4096"}));
  std::vector<uint32_t> zero{0};
  d = ion(rpcmem_to_fd(p), zero);
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_SHAPE);
  d = ion(rpcmem_to_fd(p), dims, QNN_DATATYPE_UNDEFINED);
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_SHAPE);
  rpcmem_free(p);
}

TEST_F(MemRules, SharedBufferOffsetOrSizePastTheRealBufferIsRefused) {
  void* p = rpcmem_alloc(25, 1, 8192);
  const int fd = rpcmem_to_fd(p);
  std::vector<uint32_t> dims{256};  // 1024 bytes
  QnnMemHtp_Descriptor_t htp;
  Qnn_MemHandle_t h = nullptr;
  // size claims more than the fd has
  auto d = shared(&htp, fd, 1 << 20, 0, dims);
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"size 1048576", "real size 8192"}));
  // offset + tensor bytes past size
  d = shared(&htp, fd, 8192, 7500, dims);
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"offset 7500", "1024 described bytes", "8192"}));
  // unaligned offsets are fine
  d = shared(&htp, fd, 8192, 7168 - 3, dims);
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_SUCCESS);
  EXPECT_EQ(api().memDeRegister(&h, 1), QNN_SUCCESS);
  rpcmem_free(p);
}

TEST_F(MemRules, DuplicateRegistrationIs8002AndChangesNothing) {
  void* p = rpcmem_alloc(25, 1, 8192);
  const int fd = rpcmem_to_fd(p);
  std::vector<uint32_t> dims{256};
  QnnMemHtp_Descriptor_t h1, h2;
  Qnn_MemDescriptor_t d[2] = {shared(&h1, fd, 8192, 0, dims), shared(&h2, fd, 8192, 1024, dims)};
  Qnn_MemHandle_t first = nullptr;
  ASSERT_EQ(api().memRegister(context_, &d[0], 1, &first), QNN_SUCCESS);
  // Registering [offset 1024, offset 0] in one call: the second is a
  // duplicate, so the whole call fails and the first is not left behind.
  Qnn_MemDescriptor_t batch[2] = {d[1], d[0]};
  Qnn_MemHandle_t out[2] = {nullptr, nullptr};
  EXPECT_EQ(api().memRegister(context_, batch, 2, out), QNN_MEM_ERROR_ALREADY_REGISTERED);
  EXPECT_EQ(QNN_MEM_ERROR_ALREADY_REGISTERED, 8002u);
  EXPECT_EQ(out[0], nullptr);
  EXPECT_EQ(out[1], nullptr);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"fd " + std::to_string(fd), "offset 0", "already registered"}));
  // offset 1024 is free again (the failed call registered nothing).
  Qnn_MemHandle_t second = nullptr;
  EXPECT_EQ(api().memRegister(context_, &d[1], 1, &second), QNN_SUCCESS);
  // The same region on another context is a different registration.
  Qnn_ContextHandle_t other = nullptr;
  ASSERT_EQ(api().contextCreate(backend_, nullptr, nullptr, &other), QNN_SUCCESS);
  Qnn_MemHandle_t on_other = nullptr;
  EXPECT_EQ(api().memRegister(other, &d[0], 1, &on_other), QNN_SUCCESS);
  api().contextFree(other, nullptr);
  Qnn_MemHandle_t both[] = {first, second};
  EXPECT_EQ(api().memDeRegister(both, 2), QNN_SUCCESS);
  rpcmem_free(p);
}

TEST_F(MemRules, DoubleDeregisterIsRefused) {
  void* p = rpcmem_alloc(25, 1, 64);
  std::vector<uint32_t> dims{16};
  auto d = ion(rpcmem_to_fd(p), dims);
  Qnn_MemHandle_t h = nullptr;
  ASSERT_EQ(api().memRegister(context_, &d, 1, &h), QNN_SUCCESS);
  EXPECT_EQ(api().memDeRegister(&h, 1), QNN_SUCCESS);
  EXPECT_EQ(api().memDeRegister(&h, 1), QNN_MEM_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"memDeRegister", "not registered"}));
  Qnn_MemHandle_t garbage = reinterpret_cast<Qnn_MemHandle_t>(0x41);
  EXPECT_EQ(api().memDeRegister(&garbage, 1), QNN_MEM_ERROR_INVALID_HANDLE);
  rpcmem_free(p);
}

TEST_F(MemRules, UnsupportedMemTypesAreRefusedWithTheirCode) {
  void* p = rpcmem_alloc(25, 1, 4096);
  std::vector<uint32_t> dims{16};
  Qnn_MemHandle_t h = nullptr;
  QnnMemHtp_Descriptor_t htp{};
  Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
  d.memShape = {1, dims.data(), nullptr};
  d.dataType = QNN_DATATYPE_FLOAT_32;
  d.memType = QNN_MEM_TYPE_CUSTOM;
  d.customInfo = &htp;
  htp.type = QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER;
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER", "FastRPC"}));
  htp.type = QNN_HTP_MEM_QURT;
  LogCapture::instance().clear();
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"QNN_HTP_MEM_QURT", "not supported in the FastRPC domain"}));
  htp.type = QNN_HTP_MEM_WEIGHTS_BUFFER;
  htp.size = 4096;
  htp.weightsBufferConfig = {rpcmem_to_fd(p), 0};
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_NOT_SUPPORTED);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"QNN_HTP_MEM_WEIGHTS_BUFFER", "DEFER_GRAPH_INIT"}));
  d.customInfo = nullptr;
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  d.memType = static_cast<Qnn_MemType_t>(77);
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE);
  rpcmem_free(p);
}

TEST_F(MemRules, DmaBufTypeNeedsTheClientPointer) {
  const int n = 64;
  auto* p = static_cast<float*>(rpcmem_alloc(25, 1, n * 4));
  std::vector<uint32_t> dims{static_cast<uint32_t>(n)};
  Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
  d.memShape = {1, dims.data(), nullptr};
  d.dataType = QNN_DATATYPE_FLOAT_32;
  d.memType = QNN_MEM_TYPE_DMA_BUF;
  d.dmaBufInfo.fd = rpcmem_to_fd(p);
  d.dmaBufInfo.data = nullptr;
  Qnn_MemHandle_t h = nullptr;
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"QNN_MEM_TYPE_DMA_BUF", "dmaBufInfo.data"}));
  d.dmaBufInfo.data = p;
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_SUCCESS);
  EXPECT_EQ(api().memDeRegister(&h, 1), QNN_SUCCESS);
  rpcmem_free(p);
}

// Execute-time rules for handles: deregistered, foreign, too small.
TEST_F(MemRules, ExecuteRefusesDeregisteredForeignAndTooSmallHandles) {
  const uint32_t n = 64;
  ThreeHandles t;
  ASSERT_NO_FATAL_FAILURE(register_three(n, 4 * n, &t));
  float* const buf = t.buf;
  const int fd = t.fd;
  Qnn_MemHandle_t* const h = t.h;
  Qnn_MemDescriptor_t* const d = t.d;
  std::vector<uint32_t> small{n - 1};
  QnnMemHtp_Descriptor_t small_htp;

  // Too small: a handle describing n-1 floats bound to an n-float tensor.
  Qnn_MemHandle_t tiny = nullptr;
  auto ds = shared(&small_htp, fd, 4 * n * 4, 3 * n * 4, small);
  ASSERT_EQ(api().memRegister(context_, &ds, 1, &tiny), QNN_SUCCESS);
  LogCapture::instance().clear();
  EXPECT_EQ(run(h[0], h[1], tiny), QNN_GRAPH_ERROR_INVALID_TENSOR);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'out'", "needs " + s(n * 4) + " bytes", "covers only " + s((n - 1) * 4)}));

  // Another context's handle.
  Qnn_ContextHandle_t other = nullptr;
  ASSERT_EQ(api().contextCreate(backend_, nullptr, nullptr, &other), QNN_SUCCESS);
  Qnn_MemHandle_t foreign = nullptr;
  ASSERT_EQ(api().memRegister(other, &d[0], 1, &foreign), QNN_SUCCESS);
  LogCapture::instance().clear();
  EXPECT_EQ(run(foreign, h[1], h[2]), QNN_GRAPH_ERROR_INVALID_TENSOR);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'a'", "another context"}));
  api().contextFree(other, nullptr);

  // Deregistered.
  ASSERT_EQ(api().memDeRegister(&h[1], 1), QNN_SUCCESS);
  LogCapture::instance().clear();
  EXPECT_EQ(run(h[0], h[1], h[2]), QNN_GRAPH_ERROR_INVALID_TENSOR);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'b'", "not registered"}));
  // The failed executes changed nothing: the good handles still work.
  Qnn_MemHandle_t again = nullptr;
  ASSERT_EQ(api().memRegister(context_, &d[1], 1, &again), QNN_SUCCESS);
  EXPECT_EQ(run(h[0], again, h[2]), QNN_SUCCESS);
  rpcmem_free(buf);
}

// An execute that repeats the last one (same graph, same handles) reuses
// its checked bindings, but not across a deregistration: the handle is then
// refused by libQnnHtp's own rule, as on a first execute.
TEST_F(MemRules, ARepeatedExecuteSeesADeregistrationInBetween) {
  const uint32_t n = 64;
  ThreeHandles t;
  ASSERT_NO_FATAL_FAILURE(register_three(n, 3 * n, &t));
  float* const buf = t.buf;
  Qnn_MemHandle_t* const h = t.h;
  buf[0] = 5.0f;  // the repeat reads the new bytes
  ASSERT_EQ(run(h[0], h[1], h[2]), QNN_SUCCESS);
  EXPECT_FLOAT_EQ(buf[2 * n], 6.0f);
  ASSERT_EQ(api().memDeRegister(&h[1], 1), QNN_SUCCESS);
  LogCapture::instance().clear();
  EXPECT_EQ(run(h[0], h[1], h[2]), QNN_GRAPH_ERROR_INVALID_TENSOR);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"'b'", "not registered"}));
  rpcmem_free(buf);
}

TEST_F(MemRules, FdClosedByTheClientAfterRegistrationStillWorks) {
  const uint32_t n = 32;
  build_add_relu(n);
  // A memfd the client maps, registers, then closes.
  int fds[3];
  float* ptrs[3];
  Qnn_MemHandle_t h[3];
  std::vector<uint32_t> dims{n};
  for (int i = 0; i < 3; ++i) {
    fds[i] = memfd_create("client", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    ASSERT_EQ(ftruncate(fds[i], n * 4), 0);
    ptrs[i] = static_cast<float*>(mmap(nullptr, n * 4, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0));
    auto d = ion(fds[i], dims);
    ASSERT_EQ(api().memRegister(context_, &d, 1, &h[i]), QNN_SUCCESS);
    close(fds[i]);
  }
  for (uint32_t i = 0; i < n; ++i) {
    ptrs[0][i] = static_cast<float>(i);
    ptrs[1][i] = -1.0f;
  }
  ASSERT_EQ(run(h[0], h[1], h[2]), QNN_SUCCESS);
  EXPECT_FLOAT_EQ(ptrs[2][0], 0.0f);
  EXPECT_FLOAT_EQ(ptrs[2][5], 4.0f);
  EXPECT_EQ(api().memDeRegister(h, 3), QNN_SUCCESS);
  for (float* p : ptrs) munmap(p, n * 4);
}

TEST_F(MemRules, ContextFreeReleasesItsHandles) {
  Qnn_ContextHandle_t ctx = nullptr;
  ASSERT_EQ(api().contextCreate(backend_, nullptr, nullptr, &ctx), QNN_SUCCESS);
  void* p = rpcmem_alloc(25, 1, 64);
  std::vector<uint32_t> dims{16};
  auto d = ion(rpcmem_to_fd(p), dims);
  Qnn_MemHandle_t h = nullptr;
  ASSERT_EQ(api().memRegister(ctx, &d, 1, &h), QNN_SUCCESS);
  ASSERT_EQ(api().contextFree(ctx, nullptr), QNN_SUCCESS);
  rpcmem_free(p);  // right after contextFree, as Genie does
  EXPECT_EQ(api().memDeRegister(&h, 1), QNN_MEM_ERROR_INVALID_HANDLE);
}

TEST_F(MemRules, RpcmemFreeBeforeDeregisterIsSafe) {
  const uint32_t n = 16;
  build_add_relu(n);
  std::vector<uint32_t> dims{n};
  Qnn_MemHandle_t h[3];
  float* p[3];
  for (int i = 0; i < 3; ++i) {
    p[i] = static_cast<float*>(rpcmem_alloc(25, 1, n * 4));
    auto d = ion(rpcmem_to_fd(p[i]), dims);
    ASSERT_EQ(api().memRegister(context_, &d, 1, &h[i]), QNN_SUCCESS);
  }
  // Free one input's memory while it is still registered: the client can no
  // longer touch it, the DSP keeps its own mapping, nothing crashes.
  rpcmem_free(p[1]);
  EXPECT_EQ(run(h[0], h[1], h[2]), QNN_SUCCESS);
  EXPECT_EQ(api().memDeRegister(h, 3), QNN_SUCCESS);
  rpcmem_free(p[0]);
  rpcmem_free(p[2]);
}

// Two calls registering the same (context, fd, offset) at once: exactly one
// gets the handle and the other 8002, as when they come one after the other.
// The duplicate check and the claim of the region are one step; a remote
// call sits between check and insert otherwise, and both calls got a handle
// (adversarial probe p15: 298 of 300 rounds).
TEST_F(MemRules, RacingRegistrationsOfOneRegionGiveOneHandle) {
  void* p = rpcmem_alloc(25, 1, 8192);
  ASSERT_NE(p, nullptr);
  const int fd = rpcmem_to_fd(p);
  std::vector<uint32_t> dims{256};
  Qnn_MemHandle_t h[2];
  Qnn_ErrorHandle_t e[2];
  int both = 0, neither = 0, other_codes = 0;
  auto reg = [&](int k) {
    QnnMemHtp_Descriptor_t htp;
    auto d = shared(&htp, fd, 8192, 64, dims);
    e[k] = api().memRegister(context_, &d, 1, &h[k]);
  };
  race(
      200, [&](int) { h[0] = h[1] = nullptr; }, [&](int) { reg(0); }, [&](int) { reg(1); },
      [&](int) {
        const int ok = (e[0] == QNN_SUCCESS) + (e[1] == QNN_SUCCESS);
        both += ok == 2;
        neither += ok == 0;
        for (int k = 0; k < 2; ++k) {
          if (e[k] != QNN_SUCCESS && e[k] != QNN_MEM_ERROR_ALREADY_REGISTERED) ++other_codes;
          if (e[k] == QNN_SUCCESS) {
            EXPECT_EQ(api().memDeRegister(&h[k], 1), QNN_SUCCESS);
          }
        }
      });
  EXPECT_EQ(both, 0) << "rounds in which both calls got a handle for one region";
  EXPECT_EQ(neither, 0) << "rounds in which neither call registered it";
  EXPECT_EQ(other_codes, 0);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"fd " + std::to_string(fd), "offset 64", "already registered"}));
  // Nothing is left claimed: the region registers again.
  QnnMemHtp_Descriptor_t htp;
  auto d = shared(&htp, fd, 8192, 64, dims);
  Qnn_MemHandle_t again = nullptr;
  EXPECT_EQ(api().memRegister(context_, &d, 1, &again), QNN_SUCCESS);
  EXPECT_EQ(api().memDeRegister(&again, 1), QNN_SUCCESS);
  rpcmem_free(p);
}

// memRegister racing contextFree on the same context: no handle outlives its
// context. Either the register fails with 8001 (the context is not live) or
// it succeeded first and contextFree released the handle. Before the fix a
// handle committed after contextFree's release stayed registered (probe p18:
// about 1 round in 25).
TEST_F(MemRules, RegisterRacingContextFreeLeavesNoHandleBehind) {
  std::vector<void*> bufs;
  for (int i = 0; i < 4; ++i) bufs.push_back(rpcmem_alloc(25, 1, 4096));
  std::vector<uint32_t> dims{16};
  Qnn_ContextHandle_t ctx = nullptr;
  Qnn_MemHandle_t h = nullptr;
  Qnn_ErrorHandle_t er = QNN_SUCCESS, ef = QNN_SUCCESS;
  int survivors = 0, bad_codes = 0, registered_first = 0;
  race(
      300,
      [&](int) {
        h = nullptr;
        ASSERT_EQ(api().contextCreate(backend_, nullptr, nullptr, &ctx), QNN_SUCCESS);
      },
      [&](int r) {
        auto d = ion(rpcmem_to_fd(bufs[r % bufs.size()]), dims);
        er = api().memRegister(ctx, &d, 1, &h);
      },
      [&](int r) {
        // A varying head start for the register, so that contextFree lands
        // at every point of it across the rounds.
        std::this_thread::sleep_for(std::chrono::microseconds(r % 60));
        ef = api().contextFree(ctx, nullptr);
      },
      [&](int) {
        EXPECT_EQ(ef, QNN_SUCCESS);
        if (er == QNN_SUCCESS) {
          ++registered_first;
          if (api().memDeRegister(&h, 1) != QNN_MEM_ERROR_INVALID_HANDLE) ++survivors;
        } else if (er != QNN_MEM_ERROR_INVALID_HANDLE) {
          ++bad_codes;
        }
      });
  EXPECT_EQ(survivors, 0) << "handles still registered after contextFree returned";
  EXPECT_EQ(bad_codes, 0) << "a register losing to contextFree answers 8001, as for any freed context";
  EXPECT_GT(registered_first, 0) << "the race never let the register win: it tests nothing";
  for (void* b : bufs) rpcmem_free(b);
}

// Two calls deregistering the same handles at once: each handle is released
// once, so the two calls cannot both succeed (before the fix each checked
// every handle, then removed them, and both answered QNN_SUCCESS). An array
// of handles widens the window between check and removal that the old code
// had, so that the race is hit in most runs rather than 1 round in 60; with
// one handle, one call gets QNN_SUCCESS and the other 8001.
TEST_F(MemRules, RacingDeregistrationsReleaseEachHandleOnce) {
  constexpr uint32_t kHandles = 16;
  void* p = rpcmem_alloc(25, 1, kHandles * 64);
  const int fd = rpcmem_to_fd(p);
  std::vector<uint32_t> dims{16};
  QnnMemHtp_Descriptor_t htp[kHandles];
  Qnn_MemDescriptor_t d[kHandles];
  for (uint32_t i = 0; i < kHandles; ++i) d[i] = shared(&htp[i], fd, kHandles * 64, i * 64, dims);
  Qnn_MemHandle_t h[kHandles];
  Qnn_ErrorHandle_t e[2];
  int both = 0, neither_alone = 0, survivors = 0;
  race(
      400,
      [&](int r) { ASSERT_EQ(api().memRegister(context_, d, r % 2 ? kHandles : 1, h), QNN_SUCCESS); },
      [&](int r) { e[0] = api().memDeRegister(h, r % 2 ? kHandles : 1); },
      [&](int r) { e[1] = api().memDeRegister(h, r % 2 ? kHandles : 1); },
      [&](int r) {
        const uint32_t n = r % 2 ? kHandles : 1;
        const int ok = (e[0] == QNN_SUCCESS) + (e[1] == QNN_SUCCESS);
        both += ok == 2;
        if (n == 1) neither_alone += ok == 0;  // interleaved arrays may each lose some handles: both 8001
        for (auto code : e) EXPECT_TRUE(code == QNN_SUCCESS || code == QNN_MEM_ERROR_INVALID_HANDLE) << code;
        for (uint32_t i = 0; i < n; ++i) survivors += api().memDeRegister(&h[i], 1) != QNN_MEM_ERROR_INVALID_HANDLE;
      });
  EXPECT_EQ(both, 0) << "rounds in which both calls released the same handles";
  EXPECT_EQ(neither_alone, 0) << "rounds in which neither call released the one handle";
  EXPECT_EQ(survivors, 0) << "handles left registered";
  rpcmem_free(p);
}

// deRegister releases every valid handle of the array even when others are
// not (include/QNN/QnnMem.h), and answers 8001 with one line per invalid one;
// a handle twice in one array is invalid the second time.
TEST_F(MemRules, DeregisterReleasesEveryValidHandleAndNamesTheInvalidOnes) {
  void* p = rpcmem_alloc(25, 1, 8192);
  const int fd = rpcmem_to_fd(p);
  std::vector<uint32_t> dims{256};
  QnnMemHtp_Descriptor_t htp[2];
  Qnn_MemDescriptor_t d[2] = {shared(&htp[0], fd, 8192, 0, dims), shared(&htp[1], fd, 8192, 1024, dims)};
  Qnn_MemHandle_t h[2];
  ASSERT_EQ(api().memRegister(context_, d, 2, h), QNN_SUCCESS);
  Qnn_MemHandle_t bogus = reinterpret_cast<Qnn_MemHandle_t>(0x1234);
  Qnn_MemHandle_t mixed[] = {h[0], bogus, h[1]};
  LogCapture::instance().clear();
  EXPECT_EQ(api().memDeRegister(mixed, 3), QNN_MEM_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"memDeRegister", "handle 1 (0x1234)", "not registered"}));
  EXPECT_EQ(LogCapture::instance().lines().size(), 1u) << "one line, for the one invalid handle";
  // h[0] and h[1] were released: they are gone, and their regions free.
  EXPECT_EQ(api().memDeRegister(&h[0], 1), QNN_MEM_ERROR_INVALID_HANDLE);
  EXPECT_EQ(api().memDeRegister(&h[1], 1), QNN_MEM_ERROR_INVALID_HANDLE);
  ASSERT_EQ(api().memRegister(context_, d, 2, h), QNN_SUCCESS);

  // [h, h]: released by the first, the second is invalid.
  Qnn_MemHandle_t twice[] = {h[0], h[0]};
  LogCapture::instance().clear();
  EXPECT_EQ(api().memDeRegister(twice, 2), QNN_MEM_ERROR_INVALID_HANDLE);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"memDeRegister", "handle 1", "is handle 0 again"}));
  EXPECT_EQ(api().memDeRegister(&h[0], 1), QNN_MEM_ERROR_INVALID_HANDLE) << "the first of the pair was released";
  EXPECT_EQ(api().memDeRegister(&h[1], 1), QNN_SUCCESS);
  rpcmem_free(p);
}

// A shape whose byte count does not fit 64 bits is 8004 with a line saying
// so and naming the dims (it said "describe no bytes", which is not what is
// wrong).
TEST_F(MemRules, ShapeWhoseBytesOverflowSaysSo) {
  void* p = rpcmem_alloc(25, 1, 4096);
  std::vector<uint32_t> dims{2147483648u, 2147483648u};  // 2^62 floats: 2^64 bytes
  auto d = ion(rpcmem_to_fd(p), dims);
  Qnn_MemHandle_t h = nullptr;
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_SHAPE);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"descriptor 0", "{2147483648, 2147483648}", "overflows"}));
  EXPECT_FALSE(LogCapture::instance().has_line_with({"describe no bytes"}));
  rpcmem_free(p);
}

// A device node is not memory: /dev/zero lives on devtmpfs, which has
// tmpfs's magic, and was reported as an unsealable memfd. The line says
// what the fd is.
TEST_F(MemRules, DeviceFdIsNamedAsADevice) {
  const int zero = open("/dev/zero", O_RDWR | O_CLOEXEC);
  ASSERT_GE(zero, 0);
  std::vector<uint32_t> dims{16};
  auto d = ion(zero, dims);
  Qnn_MemHandle_t h = nullptr;
  EXPECT_EQ(api().memRegister(context_, &d, 1, &h), QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with(
      {"descriptor 0", "fd " + std::to_string(zero), "a character device", "not shareable memory"}));
  EXPECT_FALSE(LogCapture::instance().has_line_with({"could shrink"}));
  close(zero);
}

// rpcmem_free of an allocation a memory handle still names is said, by
// libcdsprpc, once: the DSP keeps its mapping, so executes through the
// handle would write memory the program has freed (the Non-RPC domain says
// the same of a free() of a registered block). Freed after its handle is
// deregistered — or after contextFree, which releases it — it says nothing.
TEST_F(MemRules, FreeingRpcmemAHandleStillNamesIsSaid) {
  std::vector<uint32_t> dims{16};
  void* p = rpcmem_alloc(25, 1, 4096);
  ASSERT_NE(p, nullptr);
  auto d = ion(rpcmem_to_fd(p), dims);
  Qnn_MemHandle_t h = nullptr;
  ASSERT_EQ(api().memRegister(context_, &d, 1, &h), QNN_SUCCESS);
  testing::internal::CaptureStderr();
  rpcmem_free(p);
  std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("is still registered with QNN (1 memory handle(s))"), std::string::npos) << said;
  EXPECT_EQ(api().memDeRegister(&h, 1), QNN_SUCCESS);

  void* q = rpcmem_alloc(25, 1, 4096);
  ASSERT_NE(q, nullptr);
  d = ion(rpcmem_to_fd(q), dims);
  ASSERT_EQ(api().memRegister(context_, &d, 1, &h), QNN_SUCCESS);
  ASSERT_EQ(api().memDeRegister(&h, 1), QNN_SUCCESS);
  testing::internal::CaptureStderr();
  rpcmem_free(q);
  said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(said.find("still registered"), std::string::npos) << said;
}
