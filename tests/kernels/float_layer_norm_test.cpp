// The fp32 LayerNorm / RmsNorm fast path (src/kernels/float_layer_norm.h)
// against the reference: the same bytes, over random shapes and blocks of
// trailing axes, gamma and beta present or absent (static or not), at one
// and two threads. Inputs with a large common offset (|mean| >> std) check
// that the statistics are the reference's two-pass ones.
#include <algorithm>

#include "kernel_check.h"

namespace kernelstest {
namespace {

TEST(Float32TrailingNorm, MatchesReferenceExactlyOverRandomShapes) {
  std::mt19937 rng(29);
  for (const char* type : {"LayerNorm", "RmsNorm"}) {
    for (int iter = 0; iter < 30; ++iter) {
      const std::vector<uint32_t> dx = random_rows(rng, iter, 4);
      const uint32_t rank = static_cast<uint32_t>(dx.size());
      const uint32_t m = rank > 1 && iter % 4 == 3 ? 2 : 1;
      const std::vector<uint32_t> block(dx.end() - m, dx.end());
      std::vector<uint32_t> axes;
      for (uint32_t a = rank - m; a < rank; ++a) axes.push_back(a);
      if (iter % 5 == 2) std::reverse(axes.begin(), axes.end());  // any order
      Node n{type, "norm", {typed(dtype::kFloat32, dx)}, {typed(dtype::kFloat32, dx)},
             {u32_tensor_param("axes", {m}, axes), f32_param("epsilon", iter % 2 ? 1e-5f : 1e-3f)}};
      const float offset = iter % 7 == 1 ? 1000.0f : 0.0f;
      std::vector<float> x = random_floats(rng, count(dx), offset - 3.0f, offset + 3.0f);
      std::vector<Bytes> data{to_bytes(x)};
      const int affine = iter % 4;  // 0: none, 1: gamma and beta static, 2: gamma only, 3: both dynamic
      if (affine != 0) {
        const int k = affine == 2 ? 1 : 2;
        for (int i = 0; i < k; ++i) {
          n.inputs.push_back(typed(dtype::kFloat32, block));
          data.push_back(to_bytes(random_floats(rng, count(block), -1.5f, 1.5f)));
        }
        if (affine != 3) {
          for (size_t i = 1; i < n.inputs.size(); ++i) n.inputs[i].static_data = data[i].data();
        }
      }
      const Bytes want = run_case(n, data, false, 1, nullptr);
      for (size_t threads : {1, 2}) {
        EXPECT_EQ(run_case(n, data, true, threads, "vectorized"), want)
            << type << " " << dims_str(dx) << " axes " << m << " affine " << affine << " threads " << threads;
      }
    }
  }
}

// The path takes float nodes only, with the reference's own checks: an
// 8-bit input, or gamma of the wrong dims, is not taken.
TEST(Float32TrailingNorm, LeavesWhatItDoesNotCover) {
  std::unique_ptr<OpKernel> k;
  Node q{"LayerNorm", "ln", {typed(dtype::kUfixed8, {4, 8})}, {typed(dtype::kFloat32, {4, 8})},
         {u32_tensor_param("axes", {1}, {1})}};
  q.inputs[0].quant = openhtp::ops::Quant{};
  EXPECT_FALSE(fast_path("LayerNorm", "vectorized").prepare(q.desc(), &k));
  Node g{"LayerNorm", "ln", {typed(dtype::kFloat32, {4, 8}), typed(dtype::kFloat32, {7})},
         {typed(dtype::kFloat32, {4, 8})}, {u32_tensor_param("axes", {1}, {1})}};
  EXPECT_FALSE(fast_path("LayerNorm", "vectorized").prepare(g.desc(), &k));
}

}  // namespace
}  // namespace kernelstest
