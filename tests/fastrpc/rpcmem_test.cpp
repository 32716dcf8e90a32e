// rpcmem semantics: sizes, heaps, flags, fds, unknown and interior pointers,
// and that the memory really is shareable (a second mapping of the fd sees the
// same bytes).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <thread>
#include <vector>

#include "openhtp/fastrpc_ext.h"
#include "rpcmem.h"

TEST(Rpcmem, RefusesNonPositiveIntSizes) {
  EXPECT_EQ(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 0), nullptr);
  EXPECT_EQ(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, -1), nullptr);
  EXPECT_EQ(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, INT_MIN), nullptr);
  EXPECT_EQ(rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 0), nullptr);
}

TEST(Rpcmem, AcceptsDocumentedHeapsAndFlags) {
  const int heaps[] = {RPCMEM_HEAP_ID_SECURE, RPCMEM_HEAP_ID_CONTIG, RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_HEAP};
  const uint32_t flags[] = {RPCMEM_DEFAULT_FLAGS, RPCMEM_FLAG_UNCACHED, RPCMEM_DEFAULT_FLAGS | RPCMEM_TRY_MAP_STATIC,
                            RPCMEM_DEFAULT_FLAGS | RPCMEM_HEAP_NOREG,
                            RPCMEM_HEAP_UNCACHED | RPCMEM_HEAP_NOVA | RPCMEM_HEAP_NONCOHERENT};
  for (int heap : heaps) {
    for (uint32_t f : flags) {
      void* p = rpcmem_alloc(heap, f, 100);
      ASSERT_NE(p, nullptr) << "heap " << heap << " flags 0x" << std::hex << f;
      EXPECT_GE(rpcmem_to_fd(p), 0);
      std::memset(p, 0xab, 100);
      rpcmem_free(p);
    }
  }
}

TEST(Rpcmem, FdIsShareableMemoryOfTheSamePages) {
  const int size = 3 * 4096 + 17;
  auto* p = static_cast<uint8_t*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, size));
  ASSERT_NE(p, nullptr);
  const int fd = rpcmem_to_fd(p);
  ASSERT_GE(fd, 0);
  struct stat st {};
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_GE(st.st_size, size);
  auto* q = static_cast<uint8_t*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  ASSERT_NE(q, MAP_FAILED);
  for (int i = 0; i < size; ++i) p[i] = static_cast<uint8_t>(i * 7);
  for (int i = 0; i < size; i += 997) EXPECT_EQ(q[i], static_cast<uint8_t>(i * 7));
  q[5] = 0x42;
  EXPECT_EQ(p[5], 0x42);
  munmap(q, size);
  rpcmem_free(p);
  const std::string backing = openhtp_rpcmem_backing();
  EXPECT_TRUE(backing == "memfd" || backing == "dma_heap") << backing;
}

TEST(Rpcmem, InteriorPointerResolvesToItsAllocation) {
  auto* p = static_cast<uint8_t*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 8192));
  ASSERT_NE(p, nullptr);
  const int fd = rpcmem_to_fd(p);
  EXPECT_EQ(rpcmem_to_fd(p + 1), fd);
  EXPECT_EQ(rpcmem_to_fd(p + 8191), fd);
  // Freeing an interior pointer is not a free: the allocation stays usable.
  rpcmem_free(p + 64);
  EXPECT_EQ(rpcmem_to_fd(p), fd);
  p[8191] = 1;
  rpcmem_free(p);
  EXPECT_EQ(rpcmem_to_fd(p), -1);
}

TEST(Rpcmem, UnknownPointersAreHarmless) {
  int on_stack = 0;
  std::vector<char> heap(64);
  EXPECT_EQ(rpcmem_to_fd(&on_stack), -1);
  EXPECT_EQ(rpcmem_to_fd(heap.data()), -1);
  EXPECT_EQ(rpcmem_to_fd(nullptr), -1);
  rpcmem_free(&on_stack);
  rpcmem_free(heap.data());
  rpcmem_free(nullptr);
  void* p = rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 16);
  rpcmem_free(p);
  rpcmem_free(p);  // double free: the second is unknown and ignored
  SUCCEED();
}

TEST(Rpcmem, Alloc2TakesSizeT) {
  const size_t size = (size_t{1} << 20) + 3;
  auto* p = static_cast<uint8_t*>(rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, size));
  ASSERT_NE(p, nullptr);
  p[size - 1] = 9;
  EXPECT_EQ(rpcmem_to_fd(p + size - 1), rpcmem_to_fd(p));
  rpcmem_free(p);
}

TEST(Rpcmem, ConcurrentAllocFreeIsSafe) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) {
        auto* p = static_cast<uint8_t*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 64 + i));
        ASSERT_NE(p, nullptr);
        p[0] = static_cast<uint8_t>(t);
        ASSERT_EQ(rpcmem_to_fd(p + 10), rpcmem_to_fd(p));
        rpcmem_free(p);
      }
    });
  }
  for (auto& th : threads) th.join();
}

// The DSP process maps a registered buffer whole; shrinking it under that
// mapping would kill the DSP with SIGBUS at the next access. An rpcmem
// buffer therefore cannot shrink (memfd: sealed; DMA-BUF: not resizable).
TEST(Rpcmem, BufferCannotBeShrunkUnderItsMappings) {
  void* p = rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 64 * 1024);
  ASSERT_NE(p, nullptr);
  const int fd = rpcmem_to_fd(p);
  ASSERT_GE(fd, 0);
  struct stat before {};
  ASSERT_EQ(fstat(fd, &before), 0);
  EXPECT_NE(ftruncate(fd, 4096), 0) << "an rpcmem buffer was shrunk";
  struct stat after {};
  ASSERT_EQ(fstat(fd, &after), 0);
  EXPECT_EQ(after.st_size, before.st_size);
  static_cast<volatile char*>(p)[64 * 1024 - 1] = 1;  // still all there
  rpcmem_free(p);
}

// rpcmem_to_fd answers for [base, base + requested size) only: the mapping's
// page-rounded tail is not part of the allocation (it answered there, as
// for base + size itself). Interior pointers still resolve.
TEST(Rpcmem, PointerPastTheRequestedSizeHasNoFd) {
  auto* p = static_cast<uint8_t*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 10000));
  ASSERT_NE(p, nullptr);
  const int fd = rpcmem_to_fd(p);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(rpcmem_to_fd(p + 9999), fd);
  EXPECT_EQ(rpcmem_to_fd(p + 10000), -1);
  EXPECT_EQ(rpcmem_to_fd(p + 12287), -1);  // last byte of the third page, still mapped
  rpcmem_free(p);
}
