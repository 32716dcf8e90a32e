#include "test_util.h"

namespace opstest {
namespace {

TEST(FullyConnected, HandComputed) {
  // x = [[1, 2, 3]], W = [[1, 0, -1], [2, 1, 0]], bias = [10, 20]
  //   y0 = 1*1 + 2*0 + 3*(-1) + 10 = 8
  //   y1 = 1*2 + 2*1 + 3*0   + 20 = 24
  Node n{"FullyConnected", "fc", {f32({1, 3}), f32({2, 3}), f32({2})}, {f32({1, 2})}, {}};
  std::vector<float> x{1, 2, 3}, w{1, 0, -1, 2, 1, 0}, b{10, 20};
  EXPECT_EQ(n.run({&x, &w, &b}), (std::vector<float>{8, 24}));
  // Same without bias, bias given as a NULL tensor: {-2, 4}.
  Node nb{"FullyConnected", "fc", {f32({1, 3}), f32({2, 3}), null_tensor()}, {f32({1, 2})}, {}};
  EXPECT_EQ(nb.run({&x, &w, nullptr}), (std::vector<float>{-2, 4}));
}

TEST(FullyConnected, RandomShapesAgainstDotProducts) {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 60; ++iter) {
    const uint32_t rank = rand_int(rng, 1, 4);
    std::vector<uint32_t> xd(rank);
    for (auto& d : xd) d = rand_int(rng, 1, 4);
    const uint32_t n_in = rand_int(rng, 1, 40);
    xd.back() = n_in;
    const uint32_t m = rand_int(rng, 1, 12);
    const bool with_bias = rand_int(rng, 0, 1) == 1;
    const size_t batch = count(xd) / n_in;
    std::vector<float> x = random_floats(rng, count(xd));
    std::vector<float> w = random_floats(rng, size_t{m} * n_in);
    std::vector<float> bias = random_floats(rng, m);

    Node node{"FullyConnected", "fc", {f32(xd), f32({m, n_in})},
              {f32({static_cast<uint32_t>(batch), m})}, {}};
    if (with_bias) node.inputs.push_back(f32({m}));
    if (iter % 3 == 0) node.params.push_back(bool_param("keep_dims", false));
    std::vector<float> got = node.run({&x, &w, with_bias ? &bias : nullptr});

    // Expected: one dot product per (batch row, weight row).
    std::vector<Expected> want(batch * m);
    for (size_t b = 0; b < batch; ++b) {
      for (size_t j = 0; j < m; ++j) {
        Expected& e = want[b * m + j];
        for (size_t k = 0; k < n_in; ++k) e.add(double(x[b * n_in + k]) * w[j * n_in + k]);
        if (with_bias) e.add(bias[j]);
      }
    }
    expect_near_sums(got, want, "FullyConnected iter " + std::to_string(iter));
  }
}

TEST(FullyConnectedRules, ShapeRelations) {
  Node base{"FullyConnected", "fc1", {f32({2, 3}), f32({4, 3}), f32({4})}, {f32({2, 4})}, {}};
  ASSERT_TRUE(base.prepare().ok());

  Node n = base;
  n.inputs[1] = f32({4, 5});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument,
                "FullyConnected 'fc1': in[0] (input) dim 1 is 3, expected n = in[1] (weights) dim 1 = 5");
  n = base;
  n.inputs[1] = f32({4, 3, 1});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (weights) rank is 3, expected 2");
  n = base;
  n.inputs[2] = f32({5});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (bias) dim 0 is 5, expected m = 4");
  n = base;
  n.inputs[2] = f32({1, 4});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (bias) rank is 2, expected 1");
  n = base;
  n.outputs[0] = f32({2, 5});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dim 1 is 5, expected 4");
  n = base;
  n.inputs[0] = f32({2, 2, 3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 2, expected 4");
  n = base;
  n.inputs[0] = f32({1, 1, 1, 2, 3});
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[0] (input) rank is 5");
}

TEST(FullyConnectedRules, KeepDims) {
  Node n{"FullyConnected", "fc1", {f32({2, 3}), f32({4, 3})}, {f32({2, 4})}, {bool_param("keep_dims", true)}};
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "'keep_dims' is 1");
  n.params = {u32_tensor_param("keep_dims", {1}, {0})};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'keep_dims' is a tensor");
}

}  // namespace
}  // namespace opstest
