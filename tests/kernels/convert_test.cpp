// Convert and Dequantize's fast path (kernels/convert_shares.h) against the
// reference: pairs of float-like types (FLOAT_32, FLOAT_16, 8- and 16-bit
// fixed point, per tensor and per channel), random inputs (every bit
// pattern for the float types: NaNs, infinities, subnormals), sizes below and
// above the split, at 1 and 2 threads: the reference's bytes.
#include "kernel_check.h"

namespace kernelstest {
namespace {

TensorDesc of_type(uint32_t dt, std::vector<uint32_t> dims, bool by_channel, std::mt19937& rng) {
  if (dt == dtype::kFloat32 || dt == dtype::kFloat16) return typed(dt, std::move(dims));
  if (by_channel) {
    std::vector<float> scales(dims.back());
    for (auto& s : scales) s = rand_float(rng, 0.001f, 0.1f);
    Quant q = per_channel(static_cast<int32_t>(dims.size() - 1), scales);
    return quantized(dt, std::move(dims), q);
  }
  const bool is_signed = dt == dtype::kSfixed8 || dt == dtype::kSfixed16;
  return quantized(dt, std::move(dims), per_tensor(rand_float(rng, 0.001f, 0.2f), is_signed ? 0 : -7));
}

TEST(ConvertShares, TheReferencesBytes) {
  std::mt19937 rng(41);
  struct Pair {
    const char* op;
    uint32_t from, to;
    bool per_channel_in, per_channel_out;
  };
  const Pair pairs[] = {
      {"Convert", dtype::kFloat32, dtype::kFloat16, false, false},
      {"Convert", dtype::kFloat16, dtype::kFloat32, false, false},
      {"Convert", dtype::kFloat32, dtype::kUfixed16, false, false},
      {"Convert", dtype::kUfixed16, dtype::kFloat32, false, false},
      {"Convert", dtype::kSfixed16, dtype::kFloat16, false, false},
      {"Convert", dtype::kFloat16, dtype::kUfixed8, false, false},
      {"Convert", dtype::kUfixed16, dtype::kUfixed8, false, false},
      {"Convert", dtype::kFloat32, dtype::kSfixed8, false, true},
      {"Dequantize", dtype::kUfixed16, dtype::kFloat32, false, false},
      {"Dequantize", dtype::kSfixed16, dtype::kFloat16, false, false},
      {"Dequantize", dtype::kUfixed8, dtype::kFloat32, true, false},
  };
  for (const Pair& p : pairs) {
    for (const std::vector<uint32_t>& dims :
         {std::vector<uint32_t>{3, 5, 7}, std::vector<uint32_t>{4, 96, 97}, std::vector<uint32_t>{1, 70001}}) {
      Node n{p.op, "conv", {of_type(p.from, dims, p.per_channel_in, rng)}, {of_type(p.to, dims, p.per_channel_out, rng)},
             {}};
      Case c{n, {random_bytes(rng, n.inputs[0].num_bytes())}, {false}};
      c.bind_static();
      const Bytes ref = run_reference(c);
      for (size_t threads : {1, 2}) {
        ThreadEnv env(threads);
        const Bytes got = run_fast(c, fast_path(p.op, "vectorized"), env.env());
        ASSERT_EQ(got, ref) << p.op << " " << p.from << " -> " << p.to << " " << dims_str(dims) << " at " << threads
                            << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace kernelstest
