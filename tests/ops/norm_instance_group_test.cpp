// InstanceNorm, GroupNorm and Batchnorm: the per-channel normalizations of
// channel-last tensors.
#include "test_util.h"

namespace opstest {
namespace {

// ---- InstanceNorm ----------------------------------------------------------

// Naive reference on x viewed as [N, S, C], in double.
std::vector<double> instance_norm(const std::vector<float>& x, size_t N, size_t S, size_t C, uint32_t mode,
                                  uint32_t region, bool normalize_variance, double eps,
                                  const std::vector<float>& g, const std::vector<float>* b) {
  std::vector<double> y(x.size());
  auto at = [&](size_t n, size_t s, size_t c) { return (n * S + s) * C + c; };
  // Every element's statistics group, by region: (n, c) / (n, s) / n.
  auto same_group = [&](size_t n1, size_t s1, size_t c1, size_t n2, size_t s2, size_t c2) {
    if (n1 != n2) return false;
    if (region == 0) return c1 == c2;
    if (region == 1) return s1 == s2;
    return true;
  };
  for (size_t n = 0; n < N; ++n)
    for (size_t s = 0; s < S; ++s)
      for (size_t c = 0; c < C; ++c) {
        double sum = 0, cnt = 0;
        for (size_t s2 = 0; s2 < S; ++s2)
          for (size_t c2 = 0; c2 < C; ++c2)
            if (same_group(n, s, c, n, s2, c2)) sum += x[at(n, s2, c2)], cnt += 1;
        const double center = mode == 0 ? sum / cnt : 0.0;
        double sq = 0;
        for (size_t s2 = 0; s2 < S; ++s2)
          for (size_t c2 = 0; c2 < C; ++c2)
            if (same_group(n, s, c, n, s2, c2)) sq += (x[at(n, s2, c2)] - center) * (x[at(n, s2, c2)] - center);
        double v = x[at(n, s, c)] - center;
        if (normalize_variance) v /= std::sqrt(sq / cnt + eps);
        y[at(n, s, c)] = v * g[c] + (b ? (*b)[c] : 0.0);
      }
  return y;
}

TEST(InstanceNorm, HandComputed) {
  // [N=1, S=2, C=2]: channel 0 = {1, 3}, channel 1 = {10, 30}; gamma {1, 2}, beta {0, 5}.
  std::vector<float> x{1, 10, 3, 30}, g{1, 2}, b{0, 5};
  Node n{"InstanceNorm", "in", {f32({1, 2, 2}), f32({2}), f32({2})}, {f32({1, 2, 2})}, {f32_param("epsilon", 0.0f)}};
  // ACROSS_SPATIAL (default): each channel -> {-1, 1}; y = {-1, -2+5, 1, 2+5}.
  EXPECT_EQ(n.run({&x, &g, &b}), (std::vector<float>{-1, 3, 1, 7}));
  // ACROSS_CHANNEL: position 0 = {1, 10}, position 1 = {3, 30}: each -> {-1, 1}.
  n.params.push_back(u32_param("region", 1));
  EXPECT_EQ(n.run({&x, &g, &b}), (std::vector<float>{-1, 7, -1, 7}));
  // ACROSS_ALL: mean 11, deviations {-10, -1, -8, 19}, var 526/4 = 131.5.
  n.params.back() = u32_param("region", 2);
  std::vector<float> y = n.run({&x, &g, &b});
  const double sd = std::sqrt(131.5);
  EXPECT_NEAR(y[0], -10 / sd, 1e-6);
  EXPECT_NEAR(y[1], 2 * -1 / sd + 5, 1e-6);
  EXPECT_NEAR(y[2], -8 / sd, 1e-6);
  EXPECT_NEAR(y[3], 2 * 19 / sd + 5, 1e-6);
  // normalize_variance = 0, MU_SIGMA, ACROSS_SPATIAL: only the mean goes:
  // {1-2, (10-20)*2+5, 3-2, (30-20)*2+5}.
  n.params = {bool_param("normalize_variance", false)};
  EXPECT_EQ(n.run({&x, &g, &b}), (std::vector<float>{-1, -15, 1, 25}));
  // RMS, ACROSS_SPATIAL, no beta: channel 0 mean(x^2) = 5, channel 1 = 500:
  // {1/sqrt5, 2*10/sqrt500, 3/sqrt5, 2*30/sqrt500}.
  Node r{"InstanceNorm", "in", {f32({1, 2, 2}), f32({2})}, {f32({1, 2, 2})}, {u32_param("mode", 1), f32_param("epsilon", 0.0f)}};
  y = r.run({&x, &g});
  EXPECT_NEAR(y[0], 1 / std::sqrt(5.0), 1e-6);
  EXPECT_NEAR(y[1], 20 / std::sqrt(500.0), 1e-6);
  EXPECT_NEAR(y[2], 3 / std::sqrt(5.0), 1e-6);
  EXPECT_NEAR(y[3], 60 / std::sqrt(500.0), 1e-6);
}

TEST(InstanceNorm, RandomAgainstDouble) {
  std::mt19937 rng(91);
  for (int iter = 0; iter < 48; ++iter) {
    const uint32_t rank = rand_int(rng, 3, 5);
    std::vector<uint32_t> dims(rank);
    for (auto& d : dims) d = rand_int(rng, 1, 4);
    const size_t N = dims[0], C = dims.back(), S = count(dims) / N / C;
    const uint32_t mode = iter % 2, region = (iter / 2) % 3;
    const bool nv = (iter / 6) % 2 == 0;
    const bool with_beta = (iter / 12) % 2;
    std::vector<float> x = random_floats(rng, count(dims), -4.0f, 4.0f);
    std::vector<float> g = random_floats(rng, C, -2.0f, 2.0f), b = random_floats(rng, C);
    Node n{"InstanceNorm", "in", {f32(dims), f32({(uint32_t)C}), with_beta ? f32({(uint32_t)C}) : null_tensor()},
           {f32(dims)},
           {u32_param("mode", mode), u32_param("region", region), bool_param("normalize_variance", nv),
            f32_param("epsilon", 0.01f)}};
    std::vector<float> y = n.run({&x, &g, with_beta ? &b : nullptr});
    std::vector<double> want = instance_norm(x, N, S, C, mode, region, nv, 0.01f, g, with_beta ? &b : nullptr);
    for (size_t i = 0; i < y.size(); ++i) {
      ASSERT_NEAR(y[i], want[i], 1e-5 * (1 + std::fabs(want[i])))
          << "mode " << mode << " region " << region << " nv " << nv << " at " << i;
    }
  }
}

TEST(InstanceNormRules, All) {
  Node n{"InstanceNorm", "in1", {f32({1, 3, 3, 4}), f32({4}), f32({4})}, {f32({1, 3, 3, 4})}, {}};
  EXPECT_TRUE(n.prepare().ok());
  Node p = n;
  p.inputs.resize(1);  // gamma is mandatory
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "InstanceNorm 'in1': has 1 inputs, expected 2 to 3");
  p = n;
  p.inputs[1] = null_tensor();
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[1] (gamma) is mandatory but absent");
  p = n;
  p.inputs[1] = f32({3});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[1] (gamma) dims are [3], expected [4]");
  p = n;
  p.inputs[2] = f32({1, 4});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[2] (beta) dims are [1,4], expected [4]");
  p = n;
  p.params = {u32_param("mode", 2)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'mode' is 2, expected 0 (MU_SIGMA) or 1 (RMS)");
  p.params = {u32_param("region", 3)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'region' is 3, expected 0 (ACROSS_SPATIAL)");
  p.params = {f32_param("epsilon", -0.5f)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'epsilon' is -0.5, expected >= 0");
  p.params = {u32_param("axis", 0)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'axis'");
  Node r2{"InstanceNorm", "in1", {f32({3, 4}), f32({4})}, {f32({3, 4})}, {}};
  EXPECT_STATUS(r2.prepare(), StatusCode::kInvalidArgument, "in[0] rank is 2, expected 3 to 5");
  p = n;
  p.outputs[0] = f32({1, 3, 3, 5});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] dim 3 is 5, expected 4");
}

// ---- GroupNorm -------------------------------------------------------------

TEST(GroupNorm, HandComputed) {
  // [1, 1, 4], 2 groups: {1, 3} -> mean 2, var 1 -> {-1, 1}; {10, 20} -> mean 15, var 25 -> {-1, 1}.
  // gamma {1, 1, 2, 2}, beta {0, 0, 1, 1} -> {-1, 1, -1, 3}.
  Node n{"GroupNorm", "gn", {f32({1, 1, 4}), f32({4}), f32({4})}, {f32({1, 1, 4})},
         {f32_param("epsilon", 0.0f), u32_param("group", 2)}};
  std::vector<float> x{1, 3, 10, 20}, g{1, 1, 2, 2}, b{0, 0, 1, 1};
  EXPECT_EQ(n.run({&x, &g, &b}), (std::vector<float>{-1, 1, -1, 3}));
  // Two spatial positions, 2 channels, 1 group: one group of all four
  // {0, 2, 4, 6} -> mean 3, var 5; epsilon 4 -> divide by 3; no gamma/beta.
  Node one{"GroupNorm", "gn", {f32({1, 2, 2})}, {f32({1, 2, 2})}, {f32_param("epsilon", 4.0f), u32_param("group", 1)}};
  std::vector<float> x2{0, 2, 4, 6};
  std::vector<float> y = one.run({&x2});
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(y[i], (x2[i] - 3.0) / 3.0, 1e-7) << i;
  // Groups take consecutive channels across all positions: [1, 2, 4], 2
  // groups; group 0 = channels 0,1 at both positions = {0, 1, 4, 5} (mean
  // 2.5, var 4.25), group 1 = {2, 3, 6, 7} (mean 4.5, var 4.25).
  Node sp{"GroupNorm", "gn", {f32({1, 2, 4})}, {f32({1, 2, 4})}, {f32_param("epsilon", 0.0f), u32_param("group", 2)}};
  std::vector<float> x3{0, 1, 2, 3, 4, 5, 6, 7};
  y = sp.run({&x3});
  const double sd = std::sqrt(4.25);
  const double want[8] = {-2.5, -1.5, -2.5, -1.5, 1.5, 2.5, 1.5, 2.5};
  for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(y[i], want[i] / sd, 1e-6) << i;
}

TEST(GroupNorm, RandomAgainstDouble) {
  std::mt19937 rng(92);
  for (int iter = 0; iter < 40; ++iter) {
    const uint32_t rank = rand_int(rng, 2, 5);
    std::vector<uint32_t> dims(rank);
    for (auto& d : dims) d = rand_int(rng, 1, 4);
    const uint32_t groups = rand_int(rng, 1, 4), per = rand_int(rng, 1, 3);
    dims.back() = groups * per;
    const size_t N = dims[0], C = dims.back(), S = count(dims) / N / C;
    std::vector<float> x = random_floats(rng, count(dims), -4.0f, 4.0f);
    for (float& v : x) v -= 50.0f;
    std::vector<float> g = random_floats(rng, C, -2.0f, 2.0f), b = random_floats(rng, C);
    Node n{"GroupNorm", "gn", {f32(dims), f32({(uint32_t)C}), f32({(uint32_t)C})}, {f32(dims)},
           {f32_param("epsilon", 1e-3f), u32_param("group", groups)}};
    std::vector<float> y = n.run({&x, &g, &b});
    for (size_t bi = 0; bi < N; ++bi) {
      for (size_t grp = 0; grp < groups; ++grp) {
        double sum = 0, sq = 0;
        for (size_t s = 0; s < S; ++s)
          for (size_t c = grp * per; c < (grp + 1) * per; ++c) sum += x[(bi * S + s) * C + c];
        const double mean = sum / (S * per);
        for (size_t s = 0; s < S; ++s)
          for (size_t c = grp * per; c < (grp + 1) * per; ++c)
            sq += std::pow(x[(bi * S + s) * C + c] - mean, 2);
        const double sd = std::sqrt(sq / (S * per) + 1e-3f);
        for (size_t s = 0; s < S; ++s)
          for (size_t c = grp * per; c < (grp + 1) * per; ++c) {
            const size_t i = (bi * S + s) * C + c;
            const double want = (x[i] - mean) / sd * g[c] + b[c];
            ASSERT_NEAR(y[i], want, 1e-5 * (1 + std::fabs(want))) << "iter " << iter << " at " << i;
          }
      }
    }
  }
}

TEST(GroupNormRules, All) {
  Node n{"GroupNorm", "gn1", {f32({1, 2, 2, 6}), f32({6}), f32({6})}, {f32({1, 2, 2, 6})},
         {f32_param("epsilon", 1e-5f), u32_param("group", 3)}};
  EXPECT_TRUE(n.prepare().ok());
  Node p = n;
  p.params = {u32_param("group", 3)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "GroupNorm 'gn1': mandatory parameter 'epsilon' is missing");
  p.params = {f32_param("epsilon", 1e-5f)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'group' is missing");
  p.params = {f32_param("epsilon", 1e-5f), u32_param("group", 4)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'group' is 4, expected >= 1 and dividing the channel count 6");
  p.params = {f32_param("epsilon", 1e-5f), u32_param("group", 0)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'group' is 0");
  p.params = {f32_param("epsilon", -1e-5f), u32_param("group", 3)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'epsilon' is -1e-05, expected >= 0");
  p = n;
  p.inputs[1] = f32({3});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[1] (gamma) dims are [3], expected [6]");
  p = n;
  p.inputs[2] = f32({6, 1});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[2] (beta) dims are [6,1], expected [6]");
  p = n;
  p.outputs[0] = f32({1, 2, 2, 3});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] dim 3 is 3, expected 6");
  Node r1{"GroupNorm", "gn1", {f32({6})}, {f32({6})}, {f32_param("epsilon", 1e-5f), u32_param("group", 3)}};
  EXPECT_STATUS(r1.prepare(), StatusCode::kInvalidArgument, "in[0] rank is 1, expected 2 to 5");
}

// ---- Batchnorm -------------------------------------------------------------

TEST(Batchnorm, HandComputed) {
  // [2 positions, 2 channels], w {10, 100}, b {1, 2}: {1*10+1, 2*100+2, 3*10+1, 4*100+2}.
  Node n{"Batchnorm", "bn", {f32({2, 2}), f32({2}), f32({2})}, {f32({2, 2})}, {}};
  std::vector<float> x{1, 2, 3, 4}, w{10, 100}, b{1, 2};
  EXPECT_EQ(n.run({&x, &w, &b}), (std::vector<float>{11, 202, 31, 402}));
  // No biases (omitted, or NULL): x * w only.
  n.inputs.resize(2);
  EXPECT_EQ(n.run({&x, &w}), (std::vector<float>{10, 200, 30, 400}));
  n.inputs.push_back(null_tensor());
  EXPECT_EQ(n.run({&x, &w, nullptr}), (std::vector<float>{10, 200, 30, 400}));
}

TEST(Batchnorm, RandomAgainstDouble) {
  std::mt19937 rng(93);
  for (int iter = 0; iter < 30; ++iter) {
    const uint32_t rank = rand_int(rng, 1, 5);
    std::vector<uint32_t> dims(rank);
    for (auto& d : dims) d = rand_int(rng, 1, 5);
    const uint32_t C = dims.back();
    std::vector<float> x = random_floats(rng, count(dims), -10.0f, 10.0f);
    std::vector<float> w = random_floats(rng, C, -3.0f, 3.0f), b = random_floats(rng, C);
    Node n{"Batchnorm", "bn", {f32(dims), f32({C}), f32({C})}, {f32(dims)}, {}};
    std::vector<float> y = n.run({&x, &w, &b});
    for (size_t i = 0; i < y.size(); ++i) {
      const double want = (double)x[i] * w[i % C] + b[i % C];
      ASSERT_NEAR(y[i], want, 1e-6 * (1 + std::fabs(want))) << "iter " << iter << " at " << i;
    }
  }
}

TEST(BatchnormRules, All) {
  Node n{"Batchnorm", "bn1", {f32({1, 2, 2, 3}), f32({3}), f32({3})}, {f32({1, 2, 2, 3})}, {}};
  EXPECT_TRUE(n.prepare().ok());
  Node p = n;
  p.inputs.resize(1);
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "Batchnorm 'bn1': has 1 inputs, expected 2 to 3");
  p = n;
  p.inputs[1] = null_tensor();
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[1] (weights) is mandatory but absent");
  p = n;
  p.inputs[1] = f32({2});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[1] (weights) dims are [2], expected [3]");
  p = n;
  p.inputs[2] = f32({1, 3});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "in[2] (biases) dims are [1,3], expected [3]");
  p = n;
  p.params = {f32_param("epsilon", 1e-5f)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'epsilon'");
  p = n;
  p.outputs[0] = f32({1, 2, 2});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 3, expected 4");
}

}  // namespace
}  // namespace opstest
