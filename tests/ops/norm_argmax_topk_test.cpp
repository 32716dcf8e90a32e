// Argmax, Argmin and TopK: selections whose index outputs are INT_32 / UINT_32.
#include <algorithm>
#include <numeric>

#include "test_util.h"

namespace opstest {
namespace {

// Prepares (through the type adapter where types need it) and runs once on
// raw buffers.
void run_raw(const Node& n, std::vector<const void*> ins, std::vector<void*> outs) {
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  ASSERT_TRUE(s.ok()) << s.message;
  k->run(ins, outs);
}

// ---- Argmax / Argmin -------------------------------------------------------

std::vector<int32_t> arg_select(const Node& n, const std::vector<float>& x) {
  std::vector<int32_t> y(n.outputs[0].num_elements(), -7);
  run_raw(n, {x.data()}, {y.data()});
  return y;
}

TEST(Argmax, HandComputed) {
  // [2,3] = {{1, 5, 5}, {7, -1, 7}}: ties -> first index.
  std::vector<float> x{1, 5, 5, 7, -1, 7};
  Node n{"Argmax", "am", {f32({2, 3})}, {typed(dtype::kInt32, {2})}, {u32_param("axis", 1)}};
  EXPECT_EQ(arg_select(n, x), (std::vector<int32_t>{1, 0}));
  // axis 0: columns {1,7} {5,-1} {5,7} -> {1, 0, 1}; UINT_32 output, keep_dims -> [1,3].
  Node c{"Argmax", "am", {f32({2, 3})}, {typed(dtype::kUint32, {1, 3})},
         {u32_param("axis", 0), bool_param("keep_dims", true)}};
  EXPECT_EQ(arg_select(c, x), (std::vector<int32_t>{1, 0, 1}));
  // Rank 1 without keep_dims: output [1]. NaN is skipped.
  std::vector<float> v{NAN, -3, 2, 2, NAN};
  Node r1{"Argmax", "am", {f32({5})}, {typed(dtype::kInt32, {1})}, {u32_param("axis", 0)}};
  EXPECT_EQ(arg_select(r1, v), (std::vector<int32_t>{2}));
}

TEST(Argmin, HandComputed) {
  // [2,3] = {{1, 5, 5}, {7, -1, 7}}: minima 1 at 0, -1 at 1.
  std::vector<float> x{1, 5, 5, 7, -1, 7};
  Node n{"Argmin", "an", {f32({2, 3})}, {typed(dtype::kInt32, {2})}, {u32_param("axis", 1)}};
  EXPECT_EQ(arg_select(n, x), (std::vector<int32_t>{0, 1}));
  // Ties -> first index: {{3, 1, 1}, {2, 2, 2}} -> {1, 0}.
  std::vector<float> t{3, 1, 1, 2, 2, 2};
  EXPECT_EQ(arg_select(n, t), (std::vector<int32_t>{1, 0}));
  // axis 0: columns {1,7} {5,-1} {5,7} -> {0, 1, 0}; UINT_32 output, keep_dims -> [1,3].
  Node c{"Argmin", "an", {f32({2, 3})}, {typed(dtype::kUint32, {1, 3})},
         {u32_param("axis", 0), bool_param("keep_dims", true)}};
  EXPECT_EQ(arg_select(c, x), (std::vector<int32_t>{0, 1, 0}));
  // Rank 1 without keep_dims: output [1]. NaN is skipped, the first -2 wins.
  std::vector<float> v{NAN, 4, -2, -2, NAN};
  Node r1{"Argmin", "an", {f32({5})}, {typed(dtype::kInt32, {1})}, {u32_param("axis", 0)}};
  EXPECT_EQ(arg_select(r1, v), (std::vector<int32_t>{2}));
}

TEST(ArgSelect, RandomAgainstNaive) {
  std::mt19937 rng(111);
  for (int iter = 0; iter < 100; ++iter) {
    const bool is_max = (iter / 2) % 2 == 0;
    const uint32_t rank = rand_int(rng, 1, 5);
    std::vector<uint32_t> dims(rank);
    for (auto& d : dims) d = rand_int(rng, 1, 5);
    const uint32_t axis = rand_int(rng, 0, rank - 1);
    const bool keep = iter % 2;
    std::vector<uint32_t> out_dims;
    for (uint32_t i = 0; i < rank; ++i) {
      if (i != axis) out_dims.push_back(dims[i]);
      else if (keep) out_dims.push_back(1);
    }
    if (out_dims.empty()) out_dims.push_back(1);
    // Small integers: plenty of ties.
    std::vector<float> x(count(dims));
    for (float& f : x) f = static_cast<float>(rand_int(rng, 0, 3));
    Node n{is_max ? "Argmax" : "Argmin", "am", {f32(dims)}, {typed(dtype::kInt32, out_dims)},
           {u32_param("axis", axis), bool_param("keep_dims", keep)}};
    std::vector<int32_t> y = arg_select(n, x);
    size_t inner = 1, outer = 1;
    for (uint32_t i = axis + 1; i < rank; ++i) inner *= dims[i];
    for (uint32_t i = 0; i < axis; ++i) outer *= dims[i];
    for (size_t o = 0; o < outer; ++o) {
      for (size_t in = 0; in < inner; ++in) {
        // First index holding the maximum (minimum).
        double best = is_max ? -INFINITY : INFINITY;
        int32_t want = -1;
        for (size_t k = 0; k < dims[axis]; ++k) {
          const double v = x[(o * dims[axis] + k) * inner + in];
          if (is_max ? v > best : v < best) best = v, want = static_cast<int32_t>(k);
        }
        ASSERT_EQ(y[o * inner + in], want) << n.type << " iter " << iter;
      }
    }
  }
}

TEST(Argmax, QuantizedUfixed8) {
  // real = (q - 4) * 0.5: row 0 q {3, 9, 9, 1} -> {-0.5, 2.5, 2.5, -1.5} -> 1 (first of the tie);
  // row 1 q {0, 1, 2, 7} -> {-2, -1.5, -1, 1.5} -> 3.
  TensorDesc in = typed(dtype::kUfixed8, {2, 4});
  in.quant.present = true;
  in.quant.scale = 0.5f;
  in.quant.offset = -4;
  Node n{"Argmax", "amq", {in}, {typed(dtype::kInt32, {2})}, {u32_param("axis", 1)}};
  std::vector<uint8_t> x{3, 9, 9, 1, 0, 1, 2, 7};
  std::vector<int32_t> y(2, -7);
  run_raw(n, {x.data()}, {y.data()});
  EXPECT_EQ(y, (std::vector<int32_t>{1, 3}));
}

TEST(Argmin, QuantizedUfixed8) {
  // real = (q - 4) * 0.5: row 0 q {3, 9, 1, 1} -> {-0.5, 2.5, -1.5, -1.5} -> 2 (first of the tie);
  // row 1 q {7, 5, 6, 0} -> {1.5, 0.5, 1, -2} -> 3.
  TensorDesc in = typed(dtype::kUfixed8, {2, 4});
  in.quant.present = true;
  in.quant.scale = 0.5f;
  in.quant.offset = -4;
  Node n{"Argmin", "anq", {in}, {typed(dtype::kUint32, {2})}, {u32_param("axis", 1)}};
  std::vector<uint8_t> x{3, 9, 1, 1, 7, 5, 6, 0};
  std::vector<uint32_t> y(2, 7);
  run_raw(n, {x.data()}, {y.data()});
  EXPECT_EQ(y, (std::vector<uint32_t>{2, 3}));
}

TEST(ArgSelectRules, All) {
  for (const char* op : {"Argmax", "Argmin"}) {
    Node n{op, "am1", {f32({2, 3, 4})}, {typed(dtype::kInt32, {2, 4})}, {u32_param("axis", 1)}};
    EXPECT_TRUE(n.prepare().ok());
    Node p = n;
    p.params = {};
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, op, "'am1': mandatory parameter 'axis' is missing");
    p.params = {u32_param("axis", 3)};
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'axis' is 3, expected < rank 3");
    p.params = {u32_param("axis", 1), bool_param("keep_dims", true)};
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] rank is 2, expected 3 (computed output dims [2,1,4])");
    p = n;
    p.outputs[0] = typed(dtype::kInt32, {2, 3});
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] dim 1 is 3, expected 4");
    p = n;
    p.outputs[0] = f32({2, 4});
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] data type is FLOAT_32, expected INT_32 or UINT_32");
    p.outputs[0] = typed(dtype::kInt64, {2, 4});
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] data type is INT_64");
    p.outputs[0] = typed(0x4242, {2, 4});
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] has unknown data type 0x4242");
    p = n;
    p.inputs[0].dtype = dtype::kInt32;
    EXPECT_STATUS(p.prepare(), StatusCode::kUnsupported, "in[0] data type is INT_32");
    p = n;
    p.params.push_back(u32_param("k", 1));
    EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'k'");
  }
}

// ---- TopK ------------------------------------------------------------------

struct TopKResult {
  std::vector<float> values;
  std::vector<int32_t> indices;
};

TopKResult top_k(const Node& n, const std::vector<float>& x) {
  TopKResult r;
  r.values.assign(n.outputs[0].num_elements(), NAN);
  r.indices.assign(n.outputs[1].num_elements(), -7);
  run_raw(n, {x.data()}, {r.values.data(), r.indices.data()});
  return r;
}

TEST(TopK, HandComputed) {
  // {3, 9, 1, 9, 5}, k 3, largest: {9, 9, 5}; the tied 9s at indices 1 and 3
  // come larger index first (§4.2 of the op facts): indices {3, 1, 4}.
  std::vector<float> x{3, 9, 1, 9, 5};
  Node n{"TopK", "tk", {f32({5})}, {f32({3}), typed(dtype::kInt32, {3})}, {u32_param("k", 3)}};
  TopKResult r = top_k(n, x);
  EXPECT_EQ(r.values, (std::vector<float>{9, 9, 5}));
  EXPECT_EQ(r.indices, (std::vector<int32_t>{3, 1, 4}));
  // largest = 0: the 2 smallest {1, 3} at {2, 0}; UINT_32 indices.
  Node s{"TopK", "tk", {f32({5})}, {f32({2}), typed(dtype::kUint32, {2})}, {u32_param("k", 2), bool_param("largest", false)}};
  r = top_k(s, x);
  EXPECT_EQ(r.values, (std::vector<float>{1, 3}));
  EXPECT_EQ(r.indices, (std::vector<int32_t>{2, 0}));
  // Two rows, k = full width: each row fully sorted; row {2, 2, 2} -> indices {2, 1, 0}.
  std::vector<float> x2{0, 5, -5, 2, 2, 2};
  Node two{"TopK", "tk", {f32({2, 3})}, {f32({2, 3}), typed(dtype::kInt32, {2, 3})}, {u32_param("k", 3)}};
  r = top_k(two, x2);
  EXPECT_EQ(r.values, (std::vector<float>{5, 0, -5, 2, 2, 2}));
  EXPECT_EQ(r.indices, (std::vector<int32_t>{1, 0, 2, 2, 1, 0}));
}

TEST(TopK, RandomAgainstNaive) {
  std::mt19937 rng(112);
  for (int iter = 0; iter < 50; ++iter) {
    const uint32_t rank = rand_int(rng, 1, 4);
    std::vector<uint32_t> dims(rank);
    for (auto& d : dims) d = rand_int(rng, 1, 4);
    dims.back() = rand_int(rng, 1, 12);
    const uint32_t cols = dims.back(), k = rand_int(rng, 1, cols);
    const bool largest = iter % 2 == 0;
    std::vector<float> x(count(dims));
    for (float& f : x) f = static_cast<float>(rand_int(rng, 0, 5));  // many ties
    std::vector<uint32_t> out_dims = dims;
    out_dims.back() = k;
    Node n{"TopK", "tk", {f32(dims)}, {f32(out_dims), typed(dtype::kInt32, out_dims)}, {u32_param("k", k)}};
    if (!largest || iter % 4 == 0) n.params.push_back(bool_param("largest", largest));
    TopKResult r = top_k(n, x);
    for (size_t row = 0; row < x.size() / cols; ++row) {
      // Selection by repeated scan: take the best remaining element each
      // time, the later one among equals.
      std::vector<bool> taken(cols, false);
      for (uint32_t j = 0; j < k; ++j) {
        int best = -1;
        for (uint32_t c = 0; c < cols; ++c) {
          if (taken[c]) continue;
          const float v = x[row * cols + c];
          if (best < 0) { best = (int)c; continue; }
          const float b = x[row * cols + best];
          if (largest ? v >= b : v <= b) best = (int)c;
        }
        taken[best] = true;
        ASSERT_EQ(r.indices[row * k + j], best) << "iter " << iter << " row " << row << " j " << j;
        ASSERT_EQ(r.values[row * k + j], x[row * cols + best]);
      }
    }
  }
}

TEST(TopKRules, All) {
  Node n{"TopK", "tk1", {f32({2, 6})}, {f32({2, 4}), typed(dtype::kInt32, {2, 4})}, {u32_param("k", 4)}};
  EXPECT_TRUE(n.prepare().ok());
  Node p = n;
  p.params = {};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "TopK 'tk1': mandatory parameter 'k' is missing");
  p.params = {u32_param("k", 7)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'k' is 7, expected 1 to the last dim of in[0] (6)");
  p.params = {u32_param("k", 0)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "parameter 'k' is 0");
  p = n;
  p.outputs[0] = f32({2, 6});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[0] dim 1 is 6, expected 4");
  p = n;
  p.outputs[1] = typed(dtype::kInt32, {2, 3});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[1] dim 1 is 3, expected 4");
  p = n;
  p.outputs[1] = f32({2, 4});
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "out[1] (indices) data type is FLOAT_32, expected INT_32 or UINT_32");
  p = n;
  p.outputs.resize(1);
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "has 1 outputs, expected 2");
  p = n;
  p.params.push_back(u32_param("axis", 1));
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'axis'");
}

}  // namespace
}  // namespace opstest
