// The spin-wait hint: what a thread busy-waiting on a word another core will
// write does between reads (PAUSE on x86, YIELD on Arm), so the waiting core
// yields its pipeline to a sibling hyperthread and leaves the loop without a
// memory-order misspeculation when the write lands. Used by every spin in the
// project (ipc/futex_word.cpp, threads/team.cpp, the dispatch benchmark).
#pragma once

namespace openhtp {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace openhtp
