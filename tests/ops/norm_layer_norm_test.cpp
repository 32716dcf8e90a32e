#include "test_util.h"

namespace opstest {
namespace {

TensorDesc uf8(std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dtype::kUfixed8, std::move(dims));
  t.quant.present = true;
  t.quant.scale = scale;
  t.quant.offset = offset;
  return t;
}

Param axes_param(std::vector<uint32_t> axes) {
  const uint32_t m = static_cast<uint32_t>(axes.size());
  return u32_tensor_param("axes", {m}, std::move(axes));
}

// Naive reference over the trailing `cols` elements of each row, in double.
std::vector<double> trailing_norm(bool rms, const std::vector<float>& x, size_t cols, double eps,
                                  const std::vector<float>* gamma, const std::vector<float>* beta) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r < x.size() / cols; ++r) {
    double mean = 0, ms = 0;
    for (size_t c = 0; c < cols; ++c) mean += x[r * cols + c];
    mean /= cols;
    if (rms) mean = 0;
    for (size_t c = 0; c < cols; ++c) ms += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
    ms /= cols;
    for (size_t c = 0; c < cols; ++c) {
      double v = (x[r * cols + c] - mean) / std::sqrt(ms + eps);
      if (gamma) v *= (*gamma)[c];
      if (beta) v += (*beta)[c];
      y[r * cols + c] = v;
    }
  }
  return y;
}

TEST(LayerNorm, HandComputed) {
  // Row {1, 3}: mean 2, var 1; epsilon 0 -> {-1, 1}; gamma {2, 3}, beta {10, 20} -> {8, 23}.
  // Row {4, 6}: mean 5, var 1 -> the same.
  Node n{"LayerNorm", "ln", {f32({2, 2}), f32({2}), f32({2})}, {f32({2, 2})},
         {axes_param({1}), f32_param("epsilon", 0.0f)}};
  std::vector<float> x{1, 3, 4, 6}, g{2, 3}, b{10, 20};
  std::vector<float> y = n.run({&x, &g, &b});
  EXPECT_FLOAT_EQ(y[0], 8.0f);
  EXPECT_FLOAT_EQ(y[1], 23.0f);
  EXPECT_FLOAT_EQ(y[2], 8.0f);
  EXPECT_FLOAT_EQ(y[3], 23.0f);
  // Default epsilon 0.001 and no gamma/beta: {1, 3} -> +-1/sqrt(1.001).
  Node d{"LayerNorm", "ln", {f32({1, 2})}, {f32({1, 2})}, {axes_param({1})}};
  std::vector<float> x2{1, 3};
  y = d.run({&x2});
  EXPECT_NEAR(y[0], -1.0 / std::sqrt(1.001), 1e-7);
  EXPECT_NEAR(y[1], 1.0 / std::sqrt(1.001), 1e-7);
  // Two trailing axes, given out of order: the whole [2,2] block is one row:
  // {0, 2, 4, 6}: mean 3, var 5 -> (x - 3) / sqrt(5), epsilon 0, gamma NULL, beta given.
  Node two{"LayerNorm", "ln", {f32({1, 2, 2}), null_tensor(), f32({2, 2})}, {f32({1, 2, 2})},
           {axes_param({2, 1}), f32_param("epsilon", 0.0f)}};
  std::vector<float> x3{0, 2, 4, 6}, b3{1, 1, 1, 1};
  y = two.run({&x3, nullptr, &b3});
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(y[i], (x3[i] - 3.0) / std::sqrt(5.0) + 1.0, 1e-6) << i;
}

TEST(LayerNorm, RandomAgainstDouble) {
  std::mt19937 rng(81);
  for (int iter = 0; iter < 50; ++iter) {
    const uint32_t rank = rand_int(rng, 1, 5);
    std::vector<uint32_t> dims(rank);
    for (auto& d : dims) d = rand_int(rng, 1, 6);
    const uint32_t m = rand_int(rng, 1, rank);
    std::vector<uint32_t> axes;
    for (uint32_t a = rank - m; a < rank; ++a) axes.push_back(a);
    std::shuffle(axes.begin(), axes.end(), rng);
    std::vector<uint32_t> block(dims.end() - m, dims.end());
    const size_t cols = count(block);
    std::vector<float> x = random_floats(rng, count(dims), -5.0f, 5.0f);
    for (float& v : x) v += 100.0f;  // a large common offset: the mean must be subtracted first
    std::vector<float> g = random_floats(rng, cols, -2.0f, 2.0f), b = random_floats(rng, cols);
    const bool with_g = iter % 2, with_b = iter % 3;
    Node n{"LayerNorm", "ln", {f32(dims), with_g ? f32(block) : null_tensor(), with_b ? f32(block) : null_tensor()},
           {f32(dims)}, {axes_param(axes), f32_param("epsilon", 0.01f)}};
    std::vector<float> y = n.run({&x, with_g ? &g : nullptr, with_b ? &b : nullptr});
    std::vector<double> want = trailing_norm(false, x, cols, 0.01f, with_g ? &g : nullptr, with_b ? &b : nullptr);
    for (size_t i = 0; i < y.size(); ++i) {
      ASSERT_NEAR(y[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << "iter " << iter << " at " << i;
    }
  }
}

TEST(LayerNorm, QuantizedUfixed8) {
  // in0 real = (q - 128) * 0.5: q {126,126,130,130} -> {-1,-1,1,1}: mean 0, var 1,
  //   default epsilon -> normalized +-1/sqrt(1.001) = +-0.99950.
  // gamma real = (q - 128) * 0.5: q {132,129,130,126} -> {2, 0.5, 1, -1}.
  // beta  real = (q - 128) * 0.25: q {129,128,126,128} -> {0.25, 0, -0.5, 0}.
  // y = {-1.99900+0.25, -0.49975, 0.99950-0.5, -0.99950} = {-1.74900, -0.49975, 0.49950, -0.99950}.
  // out real = (q - 128) / 32: q = round(32 y) + 128 = {-56,-16,16,-32} + 128 = {72,112,144,96}.
  Node n{"LayerNorm", "lnq", {uf8({1, 4}, 0.5f, -128), uf8({4}, 0.5f, -128), uf8({4}, 0.25f, -128)},
         {uf8({1, 4}, 1.0f / 32, -128)}, {axes_param({1})}};
  std::vector<uint8_t> x{126, 126, 130, 130}, g{132, 129, 130, 126}, b{129, 128, 126, 128}, y(4, 0);
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  ASSERT_TRUE(s.ok()) << s.message;
  std::vector<const void*> ins{x.data(), g.data(), b.data()};
  std::vector<void*> outs{y.data()};
  k->run(ins, outs);
  EXPECT_EQ(y, (std::vector<uint8_t>{72, 112, 144, 96}));
}

TEST(LayerNormRules, All) {
  Node n{"LayerNorm", "ln1", {f32({2, 3, 4}), f32({4}), f32({4})}, {f32({2, 3, 4})}, {axes_param({2})}};
  EXPECT_TRUE(n.prepare().ok());
  Node p = n;
  p.params = {};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "LayerNorm 'ln1': mandatory parameter 'axes' is missing");
  p.params = {axes_param({3})};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' element 0 is 3, expected < rank 3");
  p.params = {axes_param({2, 2})};
  p.inputs.resize(1);
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' lists axis 2 twice");
  p.params = {axes_param({0, 1, 2, 2})};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' has 4 entries, expected 1 to rank 3");
  p.params = {axes_param({1})};
  EXPECT_STATUS(p.prepare(), StatusCode::kUnsupported, "parameter 'axes' includes axis 1; only a block of trailing axes");
  p.params = {u32_param("axes", 2)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' is a scalar");
  p.params = {axes_param({2}), f32_param("epsilon", -1.0f)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'epsilon' is -1, expected >= 0");
  // gamma / beta must have the normalized block's dims.
  p = n;
  p.inputs[1] = f32({3});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[1] (gamma) dims are [3], expected [4]");
  p = n;
  p.inputs[2] = f32({1, 4});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[2] (beta) dims are [1,4], expected [4]");
  p = n;
  p.params = {axes_param({1, 2})};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[1] (gamma) dims are [4], expected [3,4]");
  p = n;
  p.outputs[0] = f32({2, 3, 3});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] dim 2 is 3, expected 4");
}

TEST(RmsNorm, HandComputed) {
  // Row {3, 4}: mean(x^2) = 12.5; epsilon 0 -> / sqrt(12.5) = 3.5355.
  // gamma {2, 1}, beta {0, 1}: {6/3.5355, 4/3.5355 + 1} = {1.69706, 2.13137}.
  Node n{"RmsNorm", "rms", {f32({1, 2}), f32({2}), f32({2})}, {f32({1, 2})},
         {axes_param({1}), f32_param("epsilon", 0.0f)}};
  std::vector<float> x{3, 4}, g{2, 1}, b{0, 1};
  std::vector<float> y = n.run({&x, &g, &b});
  EXPECT_NEAR(y[0], 6.0 / std::sqrt(12.5), 1e-6);
  EXPECT_NEAR(y[1], 4.0 / std::sqrt(12.5) + 1.0, 1e-6);
  // Default epsilon 1e-6, no gamma/beta, and no mean subtraction: {2, 2} -> 2/sqrt(4 + 1e-6).
  Node d{"RmsNorm", "rms", {f32({2})}, {f32({2})}, {axes_param({0})}};
  std::vector<float> x2{2, 2};
  y = d.run({&x2});
  EXPECT_NEAR(y[0], 2.0 / std::sqrt(4.000001), 1e-7);
  EXPECT_NEAR(y[1], 2.0 / std::sqrt(4.000001), 1e-7);
  EXPECT_NE(y[0], 1.0f);  // epsilon was applied
}

TEST(RmsNorm, RandomAgainstDouble) {
  std::mt19937 rng(82);
  for (int iter = 0; iter < 40; ++iter) {
    const uint32_t rank = rand_int(rng, 1, 4);
    std::vector<uint32_t> dims(rank);
    for (auto& d : dims) d = rand_int(rng, 1, 7);
    const uint32_t m = rand_int(rng, 1, rank);
    std::vector<uint32_t> axes;
    for (uint32_t a = rank - m; a < rank; ++a) axes.push_back(a);
    std::vector<uint32_t> block(dims.end() - m, dims.end());
    const size_t cols = count(block);
    std::vector<float> x = random_floats(rng, count(dims), -3.0f, 3.0f);
    std::vector<float> g = random_floats(rng, cols, -2.0f, 2.0f), b = random_floats(rng, cols);
    Node n{"RmsNorm", "rms", {f32(dims), f32(block), f32(block)}, {f32(dims)}, {axes_param(axes)}};
    std::vector<float> y = n.run({&x, &g, &b});
    std::vector<double> want = trailing_norm(true, x, cols, 1e-6f, &g, &b);
    for (size_t i = 0; i < y.size(); ++i) {
      ASSERT_NEAR(y[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << "iter " << iter << " at " << i;
    }
  }
}

TEST(RmsNormRules, All) {
  Node n{"RmsNorm", "rms1", {f32({2, 4}), f32({4})}, {f32({2, 4})}, {axes_param({1})}};
  EXPECT_TRUE(n.prepare().ok());
  Node p = n;
  p.params = {};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "RmsNorm 'rms1': mandatory parameter 'axes' is missing");
  p.params = {axes_param({5})};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' element 0 is 5, expected < rank 2");
  p.params = {axes_param({1}), u32_param("gamma", 1)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'gamma'");
  p = n;
  p.inputs[1] = f32({2});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[1] (gamma) dims are [2], expected [4]");
  p = n;
  p.outputs[0] = f32({8});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 1, expected 2");
}

}  // namespace
}  // namespace opstest
