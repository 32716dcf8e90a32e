// A small mutation fuzzer for the suite: starts from real context binaries and
// applies random bit flips, byte overwrites, truncations, insertions and
// splices for a bounded time, feeding each result to LLVMFuzzerTestOneInput.
//   fuzz_context_binary [seconds] [seed]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "binary/context_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<uint8_t> seed_binary(int graphs) {
  using namespace openhtp;
  binary::ContextImage image;
  image.build_id = "fuzz";
  for (int gi = 0; gi < graphs; ++gi) {
    binary::GraphImage g;
    g.spec.name = "g" + std::to_string(gi);
    g.spec.tensors.push_back({1, "x", htp::tensor_type::kAppWrite, ops::dtype::kFloat32, {1, 8}, {}, {}});
    g.spec.tensors.push_back(
        {2, "w", htp::tensor_type::kStatic, ops::dtype::kFloat32, {8}, ops::Quant::per_tensor(0.1f, -2), std::vector<uint8_t>(32, 3)});
    g.spec.tensors.push_back({3, "y", htp::tensor_type::kAppRead, ops::dtype::kFloat32, {1, 8}, {}, {}});
    g.spec.nodes.push_back({"add", "qti.aisw", "ElementWiseAdd", {}, {1, 2}, {3}});
    g.arena_bytes = 64;
    image.graphs.push_back(g);
  }
  return binary::encode_context(image);
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
  std::mt19937_64 rng(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1);
  const std::vector<std::vector<uint8_t>> seeds = {seed_binary(1), seed_binary(3)};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = 0;
  for (const auto& s : seeds) LLVMFuzzerTestOneInput(s.data(), s.size());
  while (std::chrono::steady_clock::now() < deadline) {
    std::vector<uint8_t> in = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits && !in.empty(); ++e) {
      switch (rng() % 5) {
        case 0: in[rng() % in.size()] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
        case 1: in[rng() % in.size()] = static_cast<uint8_t>(rng()); break;
        case 2: in.resize(rng() % in.size()); break;
        case 3: in.insert(in.begin() + static_cast<long>(rng() % in.size()), static_cast<uint8_t>(rng())); break;
        case 4: {  // copy a run of bytes from elsewhere (length and offset fields love this)
          const size_t from = rng() % in.size(), to = rng() % in.size();
          const size_t n = std::min<size_t>(rng() % 16, in.size() - std::max(from, to));
          for (size_t i = 0; i < n; ++i) in[to + i] = in[from + i];
          break;
        }
      }
    }
    LLVMFuzzerTestOneInput(in.data(), in.size());
    ++runs;
  }
  std::printf("fuzz_context_binary: %llu inputs in %.1f s, no crash\n", static_cast<unsigned long long>(runs), seconds);
  return 0;
}
