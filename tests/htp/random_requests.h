// Random buffer requests for the planner tests (memory_planner_test.cpp,
// vtcm_planner_test.cpp): min_n + rng() % spread requests, each live over a
// random [first, last] within [0, ops), 1 to max_size bytes; with_slack: a
// quarter of them ask for 64 bytes of read slack. The draws are made in a
// fixed order, so a seed gives the same requests on every compiler.
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include "htp/memory_planner.h"

namespace planner_test {

inline std::vector<openhtp::htp::BufferRequest> random_requests(std::mt19937& rng, int min_n, int spread, int ops,
                                                                 size_t max_size, bool with_slack = false) {
  std::vector<openhtp::htp::BufferRequest> r;
  const int n = min_n + static_cast<int>(rng() % static_cast<unsigned>(spread));
  for (int i = 0; i < n; ++i) {
    const int a = static_cast<int>(rng() % static_cast<unsigned>(ops));
    const int b = static_cast<int>(rng() % static_cast<unsigned>(ops));
    const size_t size = 1 + rng() % max_size;
    const size_t slack = with_slack && rng() % 4 == 0 ? 64 : 0;
    r.push_back({size, std::min(a, b), std::max(a, b), slack});
  }
  return r;
}

}  // namespace planner_test
