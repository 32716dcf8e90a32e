#include <algorithm>

#include "test_util.h"

namespace opstest {
namespace {

Param axes_param(std::vector<uint32_t> axes) {
  const uint32_t m = static_cast<uint32_t>(axes.size());
  return u32_tensor_param("axes", {m}, std::move(axes));
}

const char* const kReduceOps[] = {"ReduceMean", "ReduceSum",  "ReduceMax",
                                  "ReduceMin",  "ReduceProd", "ReduceSumSquare"};

TEST(Reduce, HandComputed) {
  // x [2,3] = {{1, 2, 3}, {4, 5, 9}}.
  std::vector<float> x{1, 2, 3, 4, 5, 9};
  Node n{"ReduceSum", "r", {f32({2, 3})}, {f32({2})}, {axes_param({1})}};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{6, 18}));
  n.type = "ReduceMean";
  EXPECT_EQ(n.run({&x}), (std::vector<float>{2, 6}));
  n.type = "ReduceMax";
  EXPECT_EQ(n.run({&x}), (std::vector<float>{3, 9}));
  n.type = "ReduceMin";
  EXPECT_EQ(n.run({&x}), (std::vector<float>{1, 4}));
  n.type = "ReduceProd";
  EXPECT_EQ(n.run({&x}), (std::vector<float>{6, 180}));  // 1*2*3, 4*5*9
  n.type = "ReduceSumSquare";
  EXPECT_EQ(n.run({&x}), (std::vector<float>{14, 122}));  // 1+4+9, 16+25+81
  // axis 0 with keep_dims: [1,3] = column sums {5, 7, 12}.
  Node k{"ReduceSum", "r", {f32({2, 3})}, {f32({1, 3})}, {axes_param({0}), bool_param("keep_dims", true)}};
  EXPECT_EQ(k.run({&x}), (std::vector<float>{5, 7, 12}));
  k.type = "ReduceProd";
  EXPECT_EQ(k.run({&x}), (std::vector<float>{4, 10, 27}));
  // Signs multiply; a zero makes the product 0. Rows {-2, 0.5, -3}, {-1, 0, 7}.
  std::vector<float> xs{-2, 0.5f, -3, -1, 0, 7};
  n.type = "ReduceProd";
  EXPECT_EQ(n.run({&xs}), (std::vector<float>{3, 0}));
  n.type = "ReduceSumSquare";  // 4 + 0.25 + 9, 1 + 0 + 49
  EXPECT_EQ(n.run({&xs}), (std::vector<float>{13.25f, 50}));
  // Every axis, axes listed in reverse, no keep_dims: output [1] (rank max(1, N-M)).
  Node all{"ReduceMean", "r", {f32({2, 3})}, {f32({1})}, {axes_param({1, 0})}};
  EXPECT_EQ(all.run({&x}), (std::vector<float>{4}));
  all.outputs[0] = f32({1, 1});
  all.params.push_back(bool_param("keep_dims", true));
  EXPECT_EQ(all.run({&x}), (std::vector<float>{4}));
  // Non-adjacent axes of [2,2,2]: reduce 0 and 2, keep 1.
  // x[a][b][c] = 4a + 2b + c: b=0 -> {0,1,4,5} sum 10, b=1 -> {2,3,6,7} sum 18.
  std::vector<float> x3{0, 1, 2, 3, 4, 5, 6, 7};
  Node mid{"ReduceSum", "r", {f32({2, 2, 2})}, {f32({2})}, {axes_param({0, 2})}};
  EXPECT_EQ(mid.run({&x3}), (std::vector<float>{10, 18}));
  mid.type = "ReduceMax";
  EXPECT_EQ(mid.run({&x3}), (std::vector<float>{5, 7}));
  mid.type = "ReduceProd";  // 0*1*4*5, 2*3*6*7
  EXPECT_EQ(mid.run({&x3}), (std::vector<float>{0, 252}));
  mid.type = "ReduceSumSquare";  // 0+1+16+25, 4+9+36+49
  EXPECT_EQ(mid.run({&x3}), (std::vector<float>{42, 98}));
}

TEST(Reduce, RandomAgainstDouble) {
  std::mt19937 rng(101);
  for (int iter = 0; iter < 120; ++iter) {
    const char* op = kReduceOps[iter % 6];
    const std::string s = op;
    const uint32_t rank = rand_int(rng, 1, 5);
    std::vector<uint32_t> dims(rank);
    for (auto& d : dims) d = rand_int(rng, 1, 5);
    std::vector<uint32_t> perm(rank);
    for (uint32_t i = 0; i < rank; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<uint32_t> axes(perm.begin(), perm.begin() + rand_int(rng, 1, rank));
    const bool keep = rand_int(rng, 0, 1);
    std::vector<bool> red(rank, false);
    for (uint32_t a : axes) red[a] = true;
    std::vector<uint32_t> out_dims;
    for (uint32_t i = 0; i < rank; ++i) {
      if (!red[i]) out_dims.push_back(dims[i]);
      else if (keep) out_dims.push_back(1);
    }
    if (out_dims.empty()) out_dims.push_back(1);
    std::vector<float> x = random_floats(rng, count(dims), -10.0f, 10.0f);
    if (s == "ReduceProd") {
      // Up to 5^5 factors: magnitudes near 1 (random signs) keep the
      // product well inside float range.
      x = random_floats(rng, count(dims), 0.8f, 1.25f);
      for (float& f : x) f = rand_int(rng, 0, 1) ? -f : f;
    }
    Node n{op, "r", {f32(dims)}, {f32(out_dims)}, {axes_param(axes)}};
    if (keep || iter % 3 == 0) n.params.push_back(bool_param("keep_dims", keep));
    std::vector<float> y = n.run({&x});
    // For every output position, walk the whole input and collect the
    // elements whose kept coordinates match.
    std::vector<size_t> kept_sizes;
    for (uint32_t i = 0; i < rank; ++i) if (!red[i]) kept_sizes.push_back(dims[i]);
    ASSERT_EQ(y.size(), count(std::vector<uint32_t>(kept_sizes.begin(), kept_sizes.end())));
    for (size_t o = 0; o < y.size(); ++o) {
      double sum = 0, mx = -INFINITY, mn = INFINITY, cnt = 0, prod = 1, sumsq = 0;
      for (size_t e = 0; e < x.size(); ++e) {
        // Input coordinates of e, then the row-major index of its kept ones.
        size_t rem = e, flat = 0, mul = 1;
        std::vector<size_t> coord(rank);
        for (uint32_t i = rank; i-- > 0;) coord[i] = rem % dims[i], rem /= dims[i];
        for (uint32_t i = rank; i-- > 0;) {
          if (!red[i]) flat += coord[i] * mul, mul *= dims[i];
        }
        if (flat != o) continue;
        const double v = x[e];
        sum += v, mx = std::max(mx, v), mn = std::min(mn, v), cnt += 1, prod *= v, sumsq += v * v;
      }
      const double want = s == "ReduceSum"    ? sum
                          : s == "ReduceMean" ? sum / cnt
                          : s == "ReduceMax"  ? mx
                          : s == "ReduceMin"  ? mn
                          : s == "ReduceProd" ? prod
                                              : sumsq;
      ASSERT_NEAR(y[o], want, 1e-6 * (1 + std::fabs(want))) << op << " iter " << iter << " at " << o;
    }
  }
}

TEST(Reduce, QuantizedMeanUfixed8) {
  // in real = (q - 10) * 0.1: rows q {10, 20, 30} -> {0, 1, 2}, q {40, 50, 61} -> {3, 4, 5.1}.
  // Means {1, 4.0333}; out real = q * 0.05 (offset 0): q = round(mean / 0.05) = {20, round(80.667) = 81}.
  TensorDesc in = typed(dtype::kUfixed8, {2, 3});
  in.quant.present = true;
  in.quant.scale = 0.1f;
  in.quant.offset = -10;
  TensorDesc out = typed(dtype::kUfixed8, {2});
  out.quant.present = true;
  out.quant.scale = 0.05f;
  out.quant.offset = 0;
  Node n{"ReduceMean", "rq", {in}, {out}, {axes_param({1})}};
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  ASSERT_TRUE(s.ok()) << s.message;
  std::vector<uint8_t> x{10, 20, 30, 40, 50, 61}, y(2, 0);
  std::vector<const void*> ins{x.data()};
  std::vector<void*> outs{y.data()};
  k->run(ins, outs);
  EXPECT_EQ(y, (std::vector<uint8_t>{20, 81}));
}

TEST(Reduce, QuantizedSumSquareUfixed8) {
  // in real = (q - 10) * 0.1: rows q {10, 20, 30} -> {0, 1, 2}, q {0, 41, 50} -> {-1, 3.1, 4}.
  // Sums of squares {5, 1 + 9.61 + 16 = 26.61}; out real = q * 0.25 (offset 0):
  // q = round(5 / 0.25) = 20, round(26.61 / 0.25 = 106.44) = 106.
  TensorDesc in = typed(dtype::kUfixed8, {2, 3});
  in.quant.present = true;
  in.quant.scale = 0.1f;
  in.quant.offset = -10;
  TensorDesc out = typed(dtype::kUfixed8, {2});
  out.quant.present = true;
  out.quant.scale = 0.25f;
  out.quant.offset = 0;
  Node n{"ReduceSumSquare", "rq", {in}, {out}, {axes_param({1})}};
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  ASSERT_TRUE(s.ok()) << s.message;
  std::vector<uint8_t> x{10, 20, 30, 0, 41, 50}, y(2, 0);
  std::vector<const void*> ins{x.data()};
  std::vector<void*> outs{y.data()};
  k->run(ins, outs);
  EXPECT_EQ(y, (std::vector<uint8_t>{20, 106}));
}

TEST(ReduceRules, All) {
  for (const char* op : kReduceOps) {
    Node n{op, "r1", {f32({2, 3, 4})}, {f32({2, 4})}, {axes_param({1})}};
    EXPECT_TRUE(n.prepare().ok()) << op;
    Node p = n;
    p.params = {};
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, op, "'r1': mandatory parameter 'axes' is missing");
    p.params = {axes_param({3})};
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' element 0 is 3, expected < rank 3");
    p.params = {axes_param({1, 1})};
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' lists axis 1 twice");
    p.params = {axes_param({0, 1, 2, 0})};
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' has 4 entries, expected 1 to rank 3");
    p.params = {u32_tensor_param("axes", {1, 1}, {1})};
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' dims are [1,1], expected [M]");
    p.params = {i32_tensor_param("axes", {1}, {-1})};
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axes' element 0 is -1");
    // Output dims must follow keep_dims.
    p.params = {axes_param({1}), bool_param("keep_dims", true)};
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 2, expected 3 (computed output dims [2,1,4])");
    p = n;
    p.outputs[0] = f32({2, 3});
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] dim 1 is 3, expected 4");
    Node r6{op, "r1", {f32({1, 1, 1, 1, 1, 2})}, {f32({1, 1, 1, 1, 1})}, {axes_param({5})}};
    EXPECT_STATUS(r6.prepare(), StatusCode::kUnsupported, "in[0] rank is 6");
  }
}

}  // namespace
}  // namespace opstest
