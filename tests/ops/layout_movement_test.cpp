// Type-generic data movement: Transpose, Concat, Split, StridedSlice, Gather,
// Pad (and Reshape, in relu_reshape_test.cpp). Every op runs on FLOAT_32,
// UFIXED_POINT_8 and INT_32 data; expected values are written out by hand or
// computed by index arithmetic in the test.
#include "test_util.h"

namespace opstest {
namespace {

// ---- raw (any dtype) driving ----

TensorDesc u8q(std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dtype::kUfixed8, std::move(dims));
  t.quant.present = true;
  t.quant.scale = scale;
  t.quant.offset = offset;
  return t;
}

// A per-tensor encoding.
Quant per_tensor(float scale, int32_t offset) {
  Quant q;
  q.present = true;
  q.scale = scale;
  q.offset = offset;
  return q;
}

TensorDesc i32(std::vector<uint32_t> dims) { return typed(dtype::kInt32, std::move(dims)); }

template <typename T>
std::vector<T> iota_vec(size_t n, T start = 0) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(start + static_cast<T>(i));
  return v;
}

// ---------------- Transpose ----------------

TEST(Transpose, HandComputed2d) {
  // [1 2 3; 4 5 6] transposed.
  Node n{"Transpose", "t", {f32({2, 3})}, {f32({3, 2})}, {u32_tensor_param("perm", {2}, {1, 0})}};
  std::vector<float> x{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

template <typename T>
void check_transpose_rank3(uint32_t dt) {
  // x dims [2,3,4] holding its own row-major index; perm [2,0,1] -> y dims
  // [4,2,3] with y[a][b][c] = x[b][c][a] = b*12 + c*4 + a.
  TensorDesc in = typed(dt, {2, 3, 4}), out = typed(dt, {4, 2, 3});
  if (dt == dtype::kUfixed8) {
    in.quant = per_tensor(0.1f, -3);
    out.quant = in.quant;
  }
  Node n{"Transpose", "t", {in}, {out}, {u32_tensor_param("perm", {3}, {2, 0, 1})}};
  std::vector<uint8_t> x = bytes_of(iota_vec<T>(24));
  std::vector<T> y = as<T>(run_raw_outputs(n, {&x})[0]);
  std::vector<T> want;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 3; ++c) want.push_back(static_cast<T>(b * 12 + c * 4 + a));
  EXPECT_EQ(y, want);
}

TEST(Transpose, Rank3OnUfixed8AndInt32) {
  check_transpose_rank3<uint8_t>(dtype::kUfixed8);
  check_transpose_rank3<int32_t>(dtype::kInt32);
}

TEST(Transpose, Rules) {
  Node missing{"Transpose", "t1", {f32({2, 3})}, {f32({3, 2})}, {}};
  EXPECT_STATUS(missing.prepare(), StatusCode::kInvalidArgument, "Transpose 't1'",
                "mandatory parameter 'perm' is missing");
  Node len{"Transpose", "t1", {f32({2, 3, 4, 5})}, {f32({2, 3, 4, 5})}, {u32_tensor_param("perm", {3}, {0, 1, 2})}};
  EXPECT_STATUS(len.prepare(), StatusCode::kInvalidArgument, "parameter 'perm' has 3 entries, expected rank 4");
  Node repeat{"Transpose", "t1", {f32({2, 3, 4})}, {f32({2, 3, 4})}, {u32_tensor_param("perm", {3}, {0, 1, 1})}};
  EXPECT_STATUS(repeat.prepare(), StatusCode::kInvalidArgument, "repeats axis 1", "[0,1,1] is not a permutation");
  Node range{"Transpose", "t1", {f32({2, 3})}, {f32({3, 2})}, {u32_tensor_param("perm", {2}, {1, 2})}};
  EXPECT_STATUS(range.prepare(), StatusCode::kInvalidArgument, "'perm' element 1 is 2, expected < rank 2");
  Node out{"Transpose", "t1", {f32({2, 3})}, {f32({2, 3})}, {u32_tensor_param("perm", {2}, {1, 0})}};
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 2, expected 3");
  Node types{"Transpose", "t1", {i32({2, 3})}, {f32({3, 2})}, {u32_tensor_param("perm", {2}, {1, 0})}};
  EXPECT_STATUS(types.prepare(), StatusCode::kInvalidArgument, "out[0] data type is FLOAT_32, expected INT_32");
  Node per_channel{"Transpose", "t1", {u8q({2, 3}, 1.0f, 0)}, {u8q({3, 2}, 1.0f, 0)},
                   {u32_tensor_param("perm", {2}, {1, 0})}};
  per_channel.inputs[0].quant.axis = 1;
  per_channel.inputs[0].quant.scales = {1, 1, 1};
  per_channel.inputs[0].quant.offsets = {0, 0, 0};
  EXPECT_STATUS(per_channel.prepare(), StatusCode::kUnsupported, "per-channel encoding");
}

// ---------------- Concat ----------------

TEST(Concat, HandComputedFloat) {
  // Default axis = last: [1 2; 3 4] ++ [5; 6] -> [1 2 5; 3 4 6].
  Node n{"Concat", "c", {f32({2, 2}), f32({2, 1})}, {f32({2, 3})}, {}};
  std::vector<float> a{1, 2, 3, 4}, b{5, 6};
  EXPECT_EQ(n.run({&a, &b}), (std::vector<float>{1, 2, 5, 3, 4, 6}));
  Node rows{"Concat", "c", {f32({2, 2}), f32({1, 2})}, {f32({3, 2})}, {u32_param("axis", 0)}};
  std::vector<float> c{7, 8};
  EXPECT_EQ(rows.run({&a, &c}), (std::vector<float>{1, 2, 3, 4, 7, 8}));
}

TEST(Concat, Int32Axis1) {
  Node n{"Concat", "c", {i32({2, 1}), i32({2, 2})}, {i32({2, 3})}, {u32_param("axis", 1)}};
  std::vector<uint8_t> a = bytes_of(std::vector<int32_t>{-1, -2}), b = bytes_of(std::vector<int32_t>{10, 11, 20, 21});
  EXPECT_EQ(as<int32_t>(run_raw_outputs(n, {&a, &b})[0]), (std::vector<int32_t>{-1, 10, 11, -2, 20, 21}));
}

TEST(Concat, DifferentEncodingsRequantizeToOutput) {
  // out: scale 0.5, offset -20 (zero point 20): q_out = round_half_even(r / 0.5) + 20, clamped to [0, 255].
  // in0: scale 0.5, offset 0: r = q * 0.5 -> 0, 5, 127.5 -> q_out 20, 30, 275 -> 255 (saturates).
  // in1: scale 0.25, offset -128: r = (q - 128) * 0.25
  //   128 -> 0     -> 20
  //   132 -> 1     -> 2 + 20 = 22
  //   0   -> -32   -> -64 + 20 = -44 -> 0 (saturates)
  //   129 -> 0.25  -> 0.5 rounds to even 0 -> 20
  //   131 -> 0.75  -> 1.5 rounds to even 2 -> 22
  // in2: exactly out's encoding: copied bit for bit: 7 -> 7.
  Node n{"Concat", "c", {u8q({3}, 0.5f, 0), u8q({5}, 0.25f, -128), u8q({1}, 0.5f, -20)}, {u8q({9}, 0.5f, -20)}, {}};
  std::vector<uint8_t> a{0, 10, 255}, b{128, 132, 0, 129, 131}, c{7};
  EXPECT_EQ(run_raw_outputs(n, {&a, &b, &c})[0], (std::vector<uint8_t>{20, 30, 255, 20, 22, 0, 20, 22, 7}));
}

TEST(Concat, SameEncodingUfixed8CopiesBytes) {
  Node n{"Concat", "c", {u8q({1, 2}, 0.3f, 5), u8q({1, 2}, 0.3f, 5)}, {u8q({2, 2}, 0.3f, 5)}, {u32_param("axis", 0)}};
  std::vector<uint8_t> a{0, 255}, b{17, 128};
  EXPECT_EQ(run_raw_outputs(n, {&a, &b})[0], (std::vector<uint8_t>{0, 255, 17, 128}));
}

TEST(Concat, Rules) {
  Node axis{"Concat", "c", {f32({2, 2}), f32({2, 2})}, {f32({4, 2})}, {u32_param("axis", 2)}};
  EXPECT_STATUS(axis.prepare(), StatusCode::kInvalidArgument, "parameter 'axis' is 2, expected < rank 2");
  Node dims{"Concat", "c", {f32({2, 2}), f32({3, 2})}, {f32({2, 4})}, {}};
  EXPECT_STATUS(dims.prepare(), StatusCode::kInvalidArgument, "in[1] dim 0 is 3, expected 2 as in[0]");
  Node rank{"Concat", "c", {f32({2, 2}), f32({2})}, {f32({2, 3})}, {}};
  EXPECT_STATUS(rank.prepare(), StatusCode::kInvalidArgument, "in[1] rank is 1, expected 2");
  Node mix{"Concat", "c", {f32({2}), i32({2})}, {f32({4})}, {}};
  EXPECT_STATUS(mix.prepare(), StatusCode::kInvalidArgument, "out[0] data type is FLOAT_32, expected INT_32 as in[1]");
  Node out{"Concat", "c", {f32({2}), f32({2})}, {f32({5})}, {}};
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 5, expected 4");
  Node no_enc{"Concat", "c", {typed(dtype::kUfixed8, {2})}, {u8q({2}, 1, 0)}, {}};
  EXPECT_STATUS(no_enc.prepare(), StatusCode::kInvalidArgument, "in[0] UFIXED_POINT_8 needs a quantization encoding");
}

// ---------------- Split ----------------

TEST(Split, HandComputedFloat) {
  // [0..5] split at 2 and 5 -> [0 1], [2 3 4], [5].
  Node n{"Split", "s", {f32({6})}, {f32({2}), f32({3}), f32({1})},
         {u32_param("axis", 0), u32_tensor_param("split_index", {2}, {2, 5})}};
  std::vector<uint8_t> x = bytes_of(std::vector<float>{0, 1, 2, 3, 4, 5});
  auto outs = run_raw_outputs(n, {&x});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(as<float>(outs[0]), (std::vector<float>{0, 1}));
  EXPECT_EQ(as<float>(outs[1]), (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(as<float>(outs[2]), (std::vector<float>{5}));
}

TEST(Split, Ufixed8AndInt32Axis1) {
  // x [2,4] = [0 1 2 3; 4 5 6 7], split along axis 1 at 1 -> [0; 4] and [1 2 3; 5 6 7].
  for (uint32_t dt : {dtype::kUfixed8, dtype::kInt32}) {
    TensorDesc in = typed(dt, {2, 4}), o0 = typed(dt, {2, 1}), o1 = typed(dt, {2, 3});
    if (dt == dtype::kUfixed8) in.quant = o0.quant = o1.quant = per_tensor(2.0f, 1);
    Node n{"Split", "s", {in}, {o0, o1}, {u32_param("axis", 1), u32_tensor_param("split_index", {1}, {1})}};
    if (dt == dtype::kUfixed8) {
      std::vector<uint8_t> x = iota_vec<uint8_t>(8);
      auto outs = run_raw_outputs(n, {&x});
      EXPECT_EQ(outs[0], (std::vector<uint8_t>{0, 4}));
      EXPECT_EQ(outs[1], (std::vector<uint8_t>{1, 2, 3, 5, 6, 7}));
    } else {
      std::vector<uint8_t> x = bytes_of(iota_vec<int32_t>(8, -100));
      auto outs = run_raw_outputs(n, {&x});
      EXPECT_EQ(as<int32_t>(outs[0]), (std::vector<int32_t>{-100, -96}));
      EXPECT_EQ(as<int32_t>(outs[1]), (std::vector<int32_t>{-99, -98, -97, -95, -94, -93}));
    }
  }
}

TEST(Split, OutputWithOtherEncodingIsRequantized) {
  // in scale 1, offset 0; out[1] scale 2, offset -1: q_out = round_half_even(q / 2) + 1:
  // 3 -> 1.5 -> 2 -> 3; 5 -> 2.5 -> 2 -> 3; 8 -> 4 -> 5.
  Node n{"Split", "s", {u8q({4}, 1.0f, 0)}, {u8q({1}, 1.0f, 0), u8q({3}, 2.0f, -1)},
         {u32_param("axis", 0), u32_tensor_param("split_index", {1}, {1})}};
  std::vector<uint8_t> x{9, 3, 5, 8};
  auto outs = run_raw_outputs(n, {&x});
  EXPECT_EQ(outs[0], (std::vector<uint8_t>{9}));
  EXPECT_EQ(outs[1], (std::vector<uint8_t>{3, 3, 5}));
}

TEST(Split, Rules) {
  auto node = [] {
    return Node{"Split", "s", {f32({6})}, {f32({2}), f32({4})},
                {u32_param("axis", 0), u32_tensor_param("split_index", {1}, {2})}};
  };
  EXPECT_TRUE(node().prepare().ok());
  Node no_axis = node();
  no_axis.params.erase(no_axis.params.begin());
  EXPECT_STATUS(no_axis.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'axis' is missing");
  Node no_index = node();
  no_index.params.pop_back();
  EXPECT_STATUS(no_index.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'split_index' is missing");
  Node order{"Split", "s", {f32({6})}, {f32({3}), f32({0}), f32({3})},
             {u32_param("axis", 0), u32_tensor_param("split_index", {2}, {3, 3})}};
  EXPECT_STATUS(order.prepare(), StatusCode::kInvalidArgument, "'split_index' element 1 is 3, expected > element 0 = 3");
  Node low = node();
  low.params[1] = u32_tensor_param("split_index", {1}, {0});
  EXPECT_STATUS(low.prepare(), StatusCode::kInvalidArgument, "'split_index' element 0 is 0, expected in [1, 5]");
  Node high = node();
  high.params[1] = u32_tensor_param("split_index", {1}, {6});
  EXPECT_STATUS(high.prepare(), StatusCode::kInvalidArgument, "'split_index' element 0 is 6, expected in [1, 5]");
  Node count = node();
  count.params[1] = u32_tensor_param("split_index", {2}, {1, 2});
  EXPECT_STATUS(count.prepare(), StatusCode::kInvalidArgument, "'split_index' has 2 entries, so 3 outputs are expected");
  Node axis = node();
  axis.params[0] = u32_param("axis", 1);
  EXPECT_STATUS(axis.prepare(), StatusCode::kInvalidArgument, "parameter 'axis' is 1, expected < rank 1");
  Node out = node();
  out.outputs[1] = f32({3});
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[1] dim 0 is 3, expected 4");
}

// ---------------- StridedSlice ----------------

Param ranges_p(std::vector<int32_t> v) {
  const uint32_t rows = static_cast<uint32_t>(v.size() / 3);
  return i32_tensor_param("ranges", {rows, 3}, std::move(v));
}

std::vector<float> slice1d(std::vector<int32_t> range, uint32_t out_len, std::vector<Param> extra = {}) {
  std::vector<Param> params{ranges_p(std::move(range))};
  for (Param& p : extra) params.push_back(std::move(p));
  Node n{"StridedSlice", "ss", {f32({10})}, {f32({out_len})}, params};
  std::vector<float> x(10);
  for (int i = 0; i < 10; ++i) x[i] = float(i);
  return n.run({&x});
}

TEST(StridedSlice, HandComputed1d) {
  EXPECT_EQ(slice1d({1, 8, 3}, 3), (std::vector<float>{1, 4, 7}));
  EXPECT_EQ(slice1d({8, 1, -3}, 3), (std::vector<float>{8, 5, 2}));     // negative stride
  EXPECT_EQ(slice1d({3, -1, -1}, 4), (std::vector<float>{3, 2, 1, 0}));  // end -1: through index 0
  EXPECT_EQ(slice1d({-3, 10, 1}, 3), (std::vector<float>{7, 8, 9}));     // negative begin counts from the end
  EXPECT_EQ(slice1d({2, -2, 2}, 3), (std::vector<float>{2, 4, 6}));      // negative end with positive stride
  EXPECT_EQ(slice1d({5, 100, 4}, 2), (std::vector<float>{5, 9}));        // end clamps
  EXPECT_EQ(slice1d({7, 3, 2}, 2, {u32_param("begin_mask", 1)}), (std::vector<float>{0, 2}));  // begin 7 ignored
}

TEST(StridedSlice, Masks) {
  // begin_mask with stride -2: from the last element: 9, 7, 5 (end 4 exclusive).
  EXPECT_EQ(slice1d({0, 4, -2}, 3, {u32_param("begin_mask", 1)}), (std::vector<float>{9, 7, 5}));
  // end_mask with stride -4 from 6: 6, 2 (runs to index 0 inclusive).
  EXPECT_EQ(slice1d({6, 9, -4}, 2, {u32_param("end_mask", 1)}), (std::vector<float>{6, 2}));
  // end_mask, positive stride: 7, 8, 9.
  EXPECT_EQ(slice1d({7, 0, 1}, 3, {u32_param("end_mask", 1)}), (std::vector<float>{7, 8, 9}));
}

TEST(StridedSlice, ShrinkAndNewAxesOnUfixed8AndInt32) {
  // x [3,4] = row-major index. Entry 0 (new axis) -> size-1 dim; entry 1
  // shrinks to row 1 (begin -2 -> 1); entry 2 takes cols 3, 1 (stride -2).
  // Output dims [1, 2]: x[1][3] = 7, x[1][1] = 5.
  for (uint32_t dt : {dtype::kUfixed8, dtype::kInt32}) {
    TensorDesc in = typed(dt, {3, 4}), out = typed(dt, {1, 2});
    if (dt == dtype::kUfixed8) in.quant = out.quant = per_tensor(0.5f, 0);
    Node n{"StridedSlice", "ss", {in}, {out},
           {ranges_p({0, 0, 1, -2, 0, 1, 3, 0, -2}), u32_param("new_axes_mask", 1), u32_param("shrink_axes", 2)}};
    if (dt == dtype::kUfixed8) {
      std::vector<uint8_t> x = iota_vec<uint8_t>(12);
      EXPECT_EQ(run_raw_outputs(n, {&x})[0], (std::vector<uint8_t>{7, 5}));
    } else {
      std::vector<uint8_t> x = bytes_of(iota_vec<int32_t>(12, -6));
      EXPECT_EQ(as<int32_t>(run_raw_outputs(n, {&x})[0]), (std::vector<int32_t>{1, -1}));
    }
  }
}

TEST(StridedSlice, Rank3AgainstIndexArithmetic) {
  // x [3,4,5] index-valued. Entry 0 (2, -4, -1): end -4 wraps to -1 and
  // clamps there, i.e. through row 0 -> rows 2, 1, 0. Entry 1 (0, 4, 3):
  // cols 0, 3. Entry 2 (1, 5, 2): depth 1, 3.
  Node n{"StridedSlice", "ss", {i32({3, 4, 5})}, {i32({3, 2, 2})}, {ranges_p({2, -4, -1, 0, 4, 3, 1, 5, 2})}};
  std::vector<uint8_t> x = bytes_of(iota_vec<int32_t>(60));
  std::vector<int32_t> want;
  for (int a : {2, 1, 0})
    for (int b : {0, 3})
      for (int c : {1, 3}) want.push_back(a * 20 + b * 5 + c);
  EXPECT_EQ(as<int32_t>(run_raw_outputs(n, {&x})[0]), want);
}

TEST(StridedSlice, Rules) {
  Node missing{"StridedSlice", "ss", {f32({4})}, {f32({4})}, {}};
  EXPECT_STATUS(missing.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'ranges' is missing");
  Node zero{"StridedSlice", "ss", {f32({4})}, {f32({4})}, {ranges_p({0, 4, 0})}};
  EXPECT_STATUS(zero.prepare(), StatusCode::kInvalidArgument, "'ranges' entry 0 stride is 0");
  Node count{"StridedSlice", "ss", {f32({4, 2})}, {f32({4})}, {ranges_p({0, 4, 1})}};
  EXPECT_STATUS(count.prepare(), StatusCode::kInvalidArgument, "expected in[0] rank 2");
  Node empty{"StridedSlice", "ss", {f32({4})}, {f32({1})}, {ranges_p({3, 1, 1})}};
  EXPECT_STATUS(empty.prepare(), StatusCode::kInvalidArgument, "(3, 1, 1) selects no element");
  Node bits{"StridedSlice", "ss", {f32({4})}, {f32({4})}, {ranges_p({0, 4, 1}), u32_param("end_mask", 2)}};
  EXPECT_STATUS(bits.prepare(), StatusCode::kInvalidArgument, "parameter 'end_mask' is 2");
  Node shrink{"StridedSlice", "ss", {f32({4})}, {f32({})}, {ranges_p({4, 5, 1}), u32_param("shrink_axes", 1)}};
  EXPECT_STATUS(shrink.prepare(), StatusCode::kInvalidArgument, "begin 4 selects no element of dim 0");
  Node out{"StridedSlice", "ss", {f32({4})}, {f32({3})}, {ranges_p({0, 4, 2})}};
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 3, expected 2");
  Node dims{"StridedSlice", "ss", {f32({4})}, {f32({2})}, {i32_tensor_param("ranges", {3}, {0, 4, 2})}};
  EXPECT_STATUS(dims.prepare(), StatusCode::kInvalidArgument, "parameter 'ranges' dims are [3], expected [m,3]");
}

// ---------------- Gather ----------------

Param axis_i32(int32_t a) { return scalar_param("axis", dtype::kInt32, a); }

TEST(Gather, HandComputedFloat) {
  // table [3,2] = [1 2; 3 4; 5 6], axis 0, indices [2, 0, -1] -> rows 2, 0, 2.
  Node n{"Gather", "g", {f32({3, 2}), i32({3})}, {f32({3, 2})}, {axis_i32(0)}};
  std::vector<float> table{1, 2, 3, 4, 5, 6};
  std::vector<int32_t> idx{2, 0, -1};
  std::unique_ptr<OpKernel> k;
  ASSERT_TRUE(n.prepare(&k).ok());
  std::vector<float> y(6);
  std::vector<const void*> ins{table.data(), idx.data()};
  std::vector<void*> outs{y.data()};
  k->run(ins, outs);
  EXPECT_EQ(y, (std::vector<float>{5, 6, 1, 2, 5, 6}));
}

TEST(Gather, NegativeAxisIndexTensorUfixed8AndInt32) {
  // table [3,2] index-valued, axis -1 (= 1), UINT_32 indices [[1],[0]] (dims
  // [2,1]) -> out dims [3,2,1], y[r][j][0] = x[r][idx[j]] = 2r + idx[j].
  for (uint32_t dt : {dtype::kUfixed8, dtype::kInt32}) {
    TensorDesc in = typed(dt, {3, 2}), out = typed(dt, {3, 2, 1});
    if (dt == dtype::kUfixed8) in.quant = out.quant = per_tensor(1.0f, -128);
    Node n{"Gather", "g", {in, typed(dtype::kUint32, {2, 1})}, {out}, {axis_i32(-1)}};
    std::vector<uint8_t> idx = bytes_of(std::vector<uint32_t>{1, 0});
    if (dt == dtype::kUfixed8) {
      std::vector<uint8_t> x = iota_vec<uint8_t>(6, 100);
      EXPECT_EQ(run_raw_outputs(n, {&x, &idx})[0], (std::vector<uint8_t>{101, 100, 103, 102, 105, 104}));
    } else {
      std::vector<uint8_t> x = bytes_of(iota_vec<int32_t>(6, -3));
      EXPECT_EQ(as<int32_t>(run_raw_outputs(n, {&x, &idx})[0]), (std::vector<int32_t>{-2, -3, 0, -1, 2, 1}));
    }
  }
}

TEST(Gather, OutOfRangeRuntimeIndicesClamp) {
  // Dim 3: 5 clamps to 2, -7 wraps to -4 and clamps to 0, -3 wraps to 0.
  Node n{"Gather", "g", {i32({3}), i32({3})}, {i32({3})}, {axis_i32(0)}};
  std::vector<uint8_t> x = bytes_of(std::vector<int32_t>{10, 20, 30});
  std::vector<uint8_t> idx = bytes_of(std::vector<int32_t>{5, -7, -3});
  EXPECT_EQ(as<int32_t>(run_raw_outputs(n, {&x, &idx})[0]), (std::vector<int32_t>{30, 10, 10}));
}

TEST(Gather, Rules) {
  Node missing{"Gather", "g", {f32({3, 2}), i32({2})}, {f32({2, 2})}, {}};
  EXPECT_STATUS(missing.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'axis' is missing");
  Node axis{"Gather", "g", {f32({3, 2}), i32({2})}, {f32({2, 2})}, {axis_i32(2)}};
  EXPECT_STATUS(axis.prepare(), StatusCode::kInvalidArgument, "parameter 'axis' is 2, expected in [-2, 1]");
  Node idx_type{"Gather", "g", {f32({3, 2}), f32({2})}, {f32({2, 2})}, {axis_i32(0)}};
  EXPECT_STATUS(idx_type.prepare(), StatusCode::kInvalidArgument, "in[1] (indices) data type is FLOAT_32");
  Node out{"Gather", "g", {f32({3, 2}), i32({2})}, {f32({3, 2})}, {axis_i32(0)}};
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 3, expected 2");
  std::vector<int32_t> bad{0, 3};
  Node stat{"Gather", "g", {f32({3, 2}), i32({2})}, {f32({2, 2})}, {axis_i32(0)}};
  stat.inputs[1].static_data = bad.data();
  EXPECT_STATUS(stat.prepare(), StatusCode::kInvalidArgument, "in[1] (indices) element 1 is 3, expected in [-3, 2]");
}

// ---------------- Pad ----------------

std::vector<Param> pad_params(uint32_t scheme, std::vector<uint32_t> dims, std::vector<uint32_t> amounts) {
  return {u32_param("scheme", scheme), u32_tensor_param("pad_amount", std::move(dims), std::move(amounts))};
}

TEST(Pad, HandComputedConstant) {
  // [1 2 3; 4 5 6], one row before, two columns after, value 9.
  Node n{"Pad", "p", {f32({2, 3})}, {f32({3, 5})}, pad_params(0, {2, 2}, {1, 0, 0, 2})};
  n.params.push_back(f32_param("pad_constant_value", 9));
  std::vector<float> x{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 4, 5, 6, 9, 9}));
  Node zero{"Pad", "p", {f32({2})}, {f32({3})}, pad_params(0, {1, 2}, {1, 0})};
  std::vector<float> two{7, 8};
  EXPECT_EQ(zero.run({&two}), (std::vector<float>{0, 7, 8}));  // default constant 0
}

TEST(Pad, HandComputedMirrorAndEdge) {
  // x = [1 2 3], two on each side.
  std::vector<float> x{1, 2, 3};
  auto run = [&](uint32_t scheme) {
    Node n{"Pad", "p", {f32({3})}, {f32({7})}, pad_params(scheme, {1, 2}, {2, 2})};
    return n.run({&x});
  };
  EXPECT_EQ(run(1), (std::vector<float>{2, 1, 1, 2, 3, 3, 2}));  // MIRROR_SYMMETRIC
  EXPECT_EQ(run(2), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));  // MIRROR_REFLECT
  EXPECT_EQ(run(3), (std::vector<float>{1, 1, 1, 2, 3, 3, 3}));  // EDGE
}

TEST(Pad, Ufixed8ConstantQuantizedWithInputEncoding) {
  // in/out scale 0.5, offset -10: 3.0 -> round(6) + 10 = 16; 1.25 -> 2.5
  // rounds to even 2 -> 12; -100 -> -200 + 10 saturates to 0.
  for (auto [value, q] : {std::pair{3.0f, 16}, std::pair{1.25f, 12}, std::pair{-100.0f, 0}}) {
    Node n{"Pad", "p", {u8q({2}, 0.5f, -10)}, {u8q({3}, 0.5f, -10)}, pad_params(0, {1, 2}, {0, 1})};
    n.params.push_back(f32_param("pad_constant_value", value));
    std::vector<uint8_t> x{200, 201};
    EXPECT_EQ(run_raw_outputs(n, {&x})[0], (std::vector<uint8_t>{200, 201, static_cast<uint8_t>(q)})) << value;
  }
}

TEST(Pad, Int32ReflectRank2AndConstant) {
  // x [2,3] = [0 1 2; 3 4 5], reflect 1 column each side, 1 row after:
  //   rows 0, 1, then row 0 again (reflect of row 2 = row 0 for dim 2).
  Node n{"Pad", "p", {i32({2, 3})}, {i32({3, 5})}, pad_params(2, {2, 2}, {0, 1, 1, 1})};
  std::vector<uint8_t> x = bytes_of(iota_vec<int32_t>(6));
  EXPECT_EQ(as<int32_t>(run_raw_outputs(n, {&x})[0]),
            (std::vector<int32_t>{1, 0, 1, 2, 1, 4, 3, 4, 5, 4, 1, 0, 1, 2, 1}));
  Node c{"Pad", "p", {i32({1})}, {i32({2})}, pad_params(0, {1, 2}, {1, 0})};
  c.params.push_back(scalar_param("pad_constant_value", dtype::kInt32, -5));
  std::vector<uint8_t> one = bytes_of(std::vector<int32_t>{42});
  EXPECT_EQ(as<int32_t>(run_raw_outputs(c, {&one})[0]), (std::vector<int32_t>{-5, 42}));
}

TEST(Pad, Rules) {
  Node no_scheme{"Pad", "p", {f32({3})}, {f32({5})}, {u32_tensor_param("pad_amount", {1, 2}, {1, 1})}};
  EXPECT_STATUS(no_scheme.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'scheme' is missing");
  Node no_amount{"Pad", "p", {f32({3})}, {f32({5})}, {u32_param("scheme", 0)}};
  EXPECT_STATUS(no_amount.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'pad_amount' is missing");
  Node scheme{"Pad", "p", {f32({3})}, {f32({5})}, pad_params(4, {1, 2}, {1, 1})};
  EXPECT_STATUS(scheme.prepare(), StatusCode::kInvalidArgument, "parameter 'scheme' is 4");
  Node reflect{"Pad", "p", {f32({3})}, {f32({6})}, pad_params(2, {1, 2}, {0, 3})};
  EXPECT_STATUS(reflect.prepare(), StatusCode::kInvalidArgument,
                "'pad_amount' after axis 0 is 3, MIRROR_REFLECT allows at most dim size - 1 = 2");
  Node symmetric{"Pad", "p", {f32({3})}, {f32({7})}, pad_params(1, {1, 2}, {4, 0})};
  EXPECT_STATUS(symmetric.prepare(), StatusCode::kInvalidArgument,
                "'pad_amount' before axis 0 is 4, MIRROR_SYMMETRIC allows at most the dim size 3");
  Node shape{"Pad", "p", {f32({3})}, {f32({5})}, pad_params(0, {2, 2}, {1, 1, 1, 1})};
  EXPECT_STATUS(shape.prepare(), StatusCode::kInvalidArgument, "'pad_amount' dims are [2,2], expected [1,2]");
  Node out{"Pad", "p", {f32({3})}, {f32({4})}, pad_params(0, {1, 2}, {1, 1})};
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 is 4, expected 5");
}

}  // namespace
}  // namespace opstest
