#include "test_util.h"

namespace opstest {
namespace {

TEST(MatMul, HandComputed) {
  // A = [[1, 2, 3],      B = [[1, 0],       A*B = [[1+0+3,  0+2+3],    = [[4, 5],
  //      [4, 5, 6]]           [0, 1],               [4+0+6,  0+5+6]]      [10, 11]]
  //                           [1, 1]]
  Node n{"MatMul", "mm", {f32({2, 3}), f32({3, 2})}, {f32({2, 2})}, {}};
  std::vector<float> a{1, 2, 3, 4, 5, 6}, b{1, 0, 0, 1, 1, 1};
  EXPECT_EQ(n.run({&a, &b}), (std::vector<float>{4, 5, 10, 11}));

  // Same product with both operands stored transposed: A^T is [3,2], B^T is [2,3].
  Node t{"MatMul", "mm", {f32({3, 2}), f32({2, 3})}, {f32({2, 2})},
         {bool_param("transpose_in0", true), bool_param("transpose_in1", true)}};
  std::vector<float> at{1, 4, 2, 5, 3, 6}, bt{1, 0, 1, 0, 1, 1};
  EXPECT_EQ(t.run({&at, &bt}), (std::vector<float>{4, 5, 10, 11}));

  // With bias [100, 200] added to every row.
  Node bi{"MatMul", "mm", {f32({2, 3}), f32({3, 2}), f32({2})}, {f32({2, 2})}, {}};
  std::vector<float> bias{100, 200};
  EXPECT_EQ(bi.run({&a, &b, &bias}), (std::vector<float>{104, 205, 110, 211}));
}

// Independent formulation: turn each operand into an explicit list of
// already-transposed [rows x cols] double matrices, one per output batch
// (batch broadcasting by div/mod on the output batch index), then multiply
// with the textbook triple loop.
std::vector<std::vector<double>> matrices(const std::vector<float>& data, const std::vector<uint32_t>& dims,
                                          bool transpose, const std::vector<uint32_t>& out_batch) {
  const size_t r = dims.size();
  const size_t rows = dims[r - 2], cols = dims[r - 1];
  const size_t lead = out_batch.size() - (r - 2);
  size_t n_out = 1;
  for (uint32_t d : out_batch) n_out *= d;
  std::vector<std::vector<double>> result;
  for (size_t ob = 0; ob < n_out; ++ob) {
    // Output batch multi-index, then this operand's own batch index.
    std::vector<size_t> idx(out_batch.size());
    size_t rem = ob;
    for (size_t ax = out_batch.size(); ax-- > 0;) {
      idx[ax] = rem % out_batch[ax];
      rem /= out_batch[ax];
    }
    size_t own = 0;
    for (size_t j = 0; j + 2 < r; ++j) own = own * dims[j] + (dims[j] == 1 ? 0 : idx[lead + j]);
    const float* m = data.data() + own * rows * cols;
    std::vector<double> mat(rows * cols);
    if (!transpose) {
      for (size_t i = 0; i < rows * cols; ++i) mat[i] = m[i];
    } else {  // result is [cols x rows]
      for (size_t i = 0; i < cols; ++i)
        for (size_t j = 0; j < rows; ++j) mat[i * rows + j] = m[j * cols + i];
    }
    result.push_back(std::move(mat));
  }
  return result;
}

TEST(MatMul, RandomBatchedBroadcastTransposed) {
  std::mt19937 rng(21);
  for (int iter = 0; iter < 80; ++iter) {
    const uint32_t M = rand_int(rng, 1, 7), N = rand_int(rng, 1, 7), K = rand_int(rng, 1, 20);
    const bool ta = rand_int(rng, 0, 1), tb = rand_int(rng, 0, 1);
    const bool with_bias = rand_int(rng, 0, 1);
    const uint32_t r0 = rand_int(rng, 2, 4), r1 = rand_int(rng, 2, 4);
    const size_t out_rank = std::max(r0, r1);
    std::vector<uint32_t> out_batch(out_rank - 2);
    for (auto& d : out_batch) d = rand_int(rng, 1, 3);
    auto batch_dims = [&](uint32_t r) {
      std::vector<uint32_t> b(out_batch.end() - (r - 2), out_batch.end());
      for (auto& d : b) if (rand_int(rng, 0, 2) == 0) d = 1;
      return b;
    };
    std::vector<uint32_t> d0 = batch_dims(r0), d1 = batch_dims(r1);
    // The output batch is what the two operands really broadcast to.
    for (size_t i = 0; i < out_batch.size(); ++i) {
      const size_t from_end = out_batch.size() - i;
      const uint32_t x = from_end <= d0.size() ? d0[d0.size() - from_end] : 1;
      const uint32_t y = from_end <= d1.size() ? d1[d1.size() - from_end] : 1;
      out_batch[i] = std::max(x, y);
    }
    if (ta) { d0.push_back(K); d0.push_back(M); } else { d0.push_back(M); d0.push_back(K); }
    if (tb) { d1.push_back(N); d1.push_back(K); } else { d1.push_back(K); d1.push_back(N); }
    std::vector<uint32_t> od = out_batch;
    od.push_back(M);
    od.push_back(N);

    std::vector<float> a = random_floats(rng, count(d0)), b = random_floats(rng, count(d1));
    std::vector<float> bias = random_floats(rng, N);
    Node node{"MatMul", "mm", {f32(d0), f32(d1)}, {f32(od)},
              {bool_param("transpose_in0", ta), bool_param("transpose_in1", tb)}};
    if (with_bias) node.inputs.push_back(f32({N}));
    std::vector<float> got = node.run({&a, &b, with_bias ? &bias : nullptr});

    auto A = matrices(a, d0, ta, out_batch);  // each [M x K]
    auto B = matrices(b, d1, tb, out_batch);  // each [K x N]
    std::vector<Expected> want;
    for (size_t bt = 0; bt < A.size(); ++bt)
      for (size_t i = 0; i < M; ++i)
        for (size_t j = 0; j < N; ++j) {
          Expected e;
          for (size_t k = 0; k < K; ++k) e.add(A[bt][i * K + k] * B[bt][k * N + j]);
          if (with_bias) e.add(bias[j]);
          want.push_back(e);
        }
    expect_near_sums(got, want, "MatMul iter " + std::to_string(iter));
  }
}

TEST(MatMulRules, ShapeRelations) {
  Node base{"MatMul", "mm1", {f32({2, 3, 4}), f32({4, 5}), f32({5})}, {f32({2, 3, 5})}, {}};
  ASSERT_TRUE(base.prepare().ok());

  Node n = base;
  n.inputs[1] = f32({6, 5});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "MatMul 'mm1': inner dimensions differ",
                "in[0] dim 2 is 4", "in[1] dim 0 is 6");
  n = base;
  n.params = {bool_param("transpose_in1", true)};  // B^T: in1 [4,5] read as [5,4]: K = 5 != 4
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] dim 1 is 5");
  n = base;
  n.inputs[1] = f32({3, 4, 5});
  n.outputs[0] = f32({3, 3, 5});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "batch dims not broadcastable",
                "in[0] dim 0 is 2", "in[1] dim 0 is 3");
  n = base;
  n.inputs[2] = f32({3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (bias) dim 0 is 3, expected N = 5");
  n = base;
  n.outputs[0] = f32({2, 3, 4});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dim 2 is 4, expected 5");
  n = base;
  n.outputs[0] = f32({1, 2, 3, 5});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 4, expected 3");
  n = base;
  n.inputs[0] = f32({4});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] rank is 1, expected >= 2");
  n = base;
  n.inputs[0] = f32({1, 1, 2, 3, 4});
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[0] rank is 5");
  n = base;
  n.params = {u32_param("transpose_in0", 0), f32_param("alpha", 1.0f)};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'alpha'");
}

TEST(MatMulRules, BatchBroadcastAccepted) {
  // [2,1,3,4] x [5,4,6] -> [2,5,3,6]
  Node n{"MatMul", "mm", {f32({2, 1, 3, 4}), f32({5, 4, 6})}, {f32({2, 5, 3, 6})}, {}};
  EXPECT_TRUE(n.prepare().ok()) << n.prepare().message;
}

}  // namespace
}  // namespace opstest
