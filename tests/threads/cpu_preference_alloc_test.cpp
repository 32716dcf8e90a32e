// threads::CpuPreference on the execute path allocates nothing
// (prepared_graph.h's contract; the Non-RPC domain's heap is the DSP heap).
// This executable replaces the global operator new to count the calling
// thread's allocations, so it is kept apart from the other thread tests.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <new>

#include "threads/cpu_preference.h"

#include "common/cpu_mask.h"

namespace {
thread_local bool g_counting = false;
thread_local int g_allocations = 0;
// Out of line: a free() inlined into a caller that got the pointer from
// operator new trips -Wmismatched-new-delete, although it is the right pair.
[[gnu::noinline]] void release(void* p) noexcept { std::free(p); }
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n != 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }

namespace openhtp::threads {
namespace {

TEST(CpuPreference, AProbedExecuteAllocatesNothing) {
  CpuPreference p;  // sized at construction, like a graph's at prepare
  g_allocations = 0;
  g_counting = true;
  // Long enough (200 us) that every execute is probed, the first ones
  // sampled, the CPU mask read and, where the CPUs differ, a move tried.
  for (int i = 0; i < 100; ++i) {
    const CpuPreference::Probe probe = p.begin();
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (std::chrono::steady_clock::now() < until) {
    }
    p.end(probe, false);
  }
  g_counting = false;
  EXPECT_EQ(g_allocations, 0);
  bool sampled = false;
  for (int c : calling_thread_cpus()) sampled = sampled || p.estimate(c) != 0;
  EXPECT_TRUE(sampled) << "the loop should have recorded samples";
}

}  // namespace
}  // namespace openhtp::threads
