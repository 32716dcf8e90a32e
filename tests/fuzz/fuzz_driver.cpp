// A small mutation fuzzer for the suite: starts from a target's seeds
// (fuzz_target.h) and applies random bit flips, byte overwrites, truncations,
// insertions and splices for a bounded time, feeding each result to
// LLVMFuzzerTestOneInput. Half the inputs, where the target has framing, are
// mutated inside it and re-wrapped (structure-aware: past the CRC).
//   <fuzz binary> [seconds] [seed]
// The suite runs each target for a few seconds; a longer campaign is the same
// command with more seconds (docs/testing.md).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "fuzz_target.h"

namespace {

void mutate(std::vector<uint8_t>* in, std::mt19937_64& rng) {
  const int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits && !in->empty(); ++e) {
    std::vector<uint8_t>& v = *in;
    switch (rng() % 5) {
      case 0: v[rng() % v.size()] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
      case 1: v[rng() % v.size()] = static_cast<uint8_t>(rng()); break;
      case 2: v.resize(rng() % v.size()); break;
      case 3: v.insert(v.begin() + static_cast<long>(rng() % v.size()), static_cast<uint8_t>(rng())); break;
      case 4: {  // copy a run of bytes from elsewhere (length and offset fields love this)
        const size_t from = rng() % v.size(), to = rng() % v.size();
        const size_t n = std::min<size_t>(rng() % 16, v.size() - std::max(from, to));
        for (size_t i = 0; i < n; ++i) v[to + i] = v[from + i];
        break;
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
  std::mt19937_64 rng(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1);
  const std::vector<std::vector<uint8_t>> seeds = fuzz::seeds();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = 0, structured = 0;
  for (const auto& s : seeds) LLVMFuzzerTestOneInput(s.data(), s.size());
  std::vector<uint8_t> inner;
  while (std::chrono::steady_clock::now() < deadline) {
    std::vector<uint8_t> in = seeds[rng() % seeds.size()];
    if (rng() % 2 == 0 && fuzz::unwrap(in, &inner)) {
      mutate(&inner, rng);
      in = fuzz::wrap(inner);
      ++structured;
    } else if (rng() % 2 == 0 && fuzz::mutate_structure(&in, rng())) {
      for (int more = static_cast<int>(rng() % 4); more > 0; --more) fuzz::mutate_structure(&in, rng());
      ++structured;
    } else {
      mutate(&in, rng);
    }
    LLVMFuzzerTestOneInput(in.data(), in.size());
    ++runs;
  }
  std::printf("%s: %llu inputs (%llu structure-aware) in %.1f s, no crash\n", argv[0],
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(structured), seconds);
  return 0;
}
