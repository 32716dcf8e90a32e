// Two calls at once, many times over: what the race tests of the QNN entry
// points share (a check and the action it guards must be one step).
#pragma once

#include <atomic>
#include <barrier>
#include <functional>
#include <thread>

namespace qnntest {

// Runs `first` and `second` on two threads at once, `rounds` times: `setup`
// runs alone before each round and `check` alone after it. The threads live
// for all rounds and meet at a barrier, then spin until both are past it:
// a barrier alone wakes them tens of microseconds apart, longer than the
// windows these races have, and a fresh pair of threads per round is worse.
// Every value the threads share is written and read on opposite sides of a
// barrier: no data race in the test itself.
inline void race(int rounds, const std::function<void(int)>& setup, const std::function<void(int)>& first,
                 const std::function<void(int)>& second, const std::function<void(int)>& check) {
  std::barrier start(3), end(3);
  std::atomic<int> awake{0};
  auto worker = [&](const std::function<void(int)>& op) {
    for (int r = 0; r < rounds; ++r) {
      start.arrive_and_wait();
      awake.fetch_add(1, std::memory_order_acq_rel);
      while (awake.load(std::memory_order_acquire) < 2 * (r + 1)) {
      }
      op(r);
      end.arrive_and_wait();
    }
  };
  std::thread a(worker, std::cref(first)), b(worker, std::cref(second));
  for (int r = 0; r < rounds; ++r) {
    setup(r);
    start.arrive_and_wait();
    end.arrive_and_wait();
    check(r);
  }
  a.join();
  b.join();
}

}  // namespace qnntest
