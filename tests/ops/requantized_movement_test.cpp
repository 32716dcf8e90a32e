// The requantizing path of every data-movement kernel (RequantizedOutput in
// src/ops/reference/data_movement.h): an 8-bit input with scale 0.5 moved to
// an output with scale 0.25, so each moved code doubles (worked out by hand
// per op); with equal encodings the bytes move unchanged.
#include "ops/quant.h"
#include "test_util.h"

namespace opstest {
namespace {

TensorDesc u8q(std::vector<uint32_t> dims, float scale) {
  TensorDesc t = typed(dtype::kUfixed8, std::move(dims));
  t.quant = Quant::per_tensor(scale, 0);
  return t;
}
TensorDesc i32(std::vector<uint32_t> dims) { return typed(dtype::kInt32, std::move(dims)); }

std::vector<uint8_t> run_moved(const Node& n, std::vector<uint8_t> x, std::vector<int32_t> idx = {}) {
  std::vector<uint8_t> ib = bytes_of(idx);
  std::vector<const std::vector<uint8_t>*> ins{&x};
  if (!idx.empty()) ins.push_back(&ib);
  return run_raw_outputs(n, ins)[0];
}
using V = std::vector<uint8_t>;

TEST(RequantizedMovement, EachKernelRescalesWhatItMoves) {
  EXPECT_EQ(run_moved({"Transpose", "t", {u8q({2, 3}, 0.5f)}, {u8q({3, 2}, 0.25f)}, {u32_tensor_param("perm", {2}, {1, 0})}},
               {1, 2, 3, 4, 5, 6}),
            (V{2, 8, 4, 10, 6, 12}));
  EXPECT_EQ(run_moved({"Pad", "p", {u8q({2}, 0.5f)}, {u8q({4}, 0.25f)},
                {u32_param("scheme", 0), u32_tensor_param("pad_amount", {1, 2}, {1, 1}), f32_param("pad_constant_value", 1.0f)}},
               {1, 2}),
            (V{4, 2, 4, 4}));
  EXPECT_EQ(run_moved({"StridedSlice", "s", {u8q({4}, 0.5f)}, {u8q({2}, 0.25f)}, {i32_tensor_param("ranges", {1, 3}, {0, 4, 2})}},
               {1, 2, 3, 4}),
            (V{2, 6}));
  Param axis0 = scalar_param("axis", dtype::kInt32, 0);
  EXPECT_EQ(run_moved({"Gather", "g", {u8q({3}, 0.5f), i32({2})}, {u8q({2}, 0.25f)}, {axis0}}, {1, 2, 3}, {2, 0}), (V{6, 2}));
  EXPECT_EQ(run_moved({"BatchPermutation", "b", {u8q({3, 1}, 0.5f), i32({3})}, {u8q({3, 1}, 0.25f)}, {}}, {1, 2, 3}, {2, 0, 1}),
            (V{6, 2, 4}));
  EXPECT_EQ(run_moved({"GatherElements", "ge", {u8q({3}, 0.5f), i32({2})}, {u8q({2}, 0.25f)}, {}}, {1, 2, 3}, {1, -1}),
            (V{4, 6}));
  EXPECT_EQ(run_moved({"GatherNd", "gn", {u8q({3}, 0.5f), i32({2, 1})}, {u8q({2}, 0.25f)}, {}}, {1, 2, 3}, {2, 0}), (V{6, 2}));
  EXPECT_EQ(run_moved({"ArgbToRgb", "a", {u8q({1, 1, 1, 4}, 0.5f)}, {u8q({1, 1, 1, 3}, 0.25f)}, {bool_param("reverse_output", false)}}, {9, 1, 2, 3}),
            (V{2, 4, 6}));
  EXPECT_EQ(run_moved({"Tile", "ti", {u8q({2}, 0.5f)}, {u8q({4}, 0.25f)}, {u32_tensor_param("multiples", {1}, {2})}}, {1, 2}),
            (V{2, 4, 2, 4}));
  // Same encoding: bit for bit, straight into out.
  EXPECT_EQ(run_moved({"Transpose", "t", {u8q({2, 3}, 0.5f)}, {u8q({3, 2}, 0.5f)}, {u32_tensor_param("perm", {2}, {1, 0})}},
               {1, 2, 3, 4, 5, 6}),
            (V{1, 4, 2, 5, 3, 6}));
}

// Large 8-bit tensors requantize through a table of the 256 codes' answers
// (data_movement.cpp): a Concat of a uint8 and an int8 input, each with an
// encoding of its own, into a third — every code of both, 4096 and more
// elements — must give, element by element, the code the float route gives
// (dequantize with the input's encoding, quantize_one into the output's).
TEST(RequantizedMovement, LargeByteTensorsGiveTheFloatRoutesCodes) {
  const uint32_t n = 4096 + 17;
  TensorDesc a = typed(dtype::kUfixed8, {1, n}), b = typed(dtype::kSfixed8, {1, n}), y = typed(dtype::kUfixed8, {2, n});
  a.quant = Quant::per_tensor(0.0371f, -131);
  b.quant = Quant::per_tensor(0.0193f, 7);
  y.quant = Quant::per_tensor(0.0457f, -96);
  std::vector<uint8_t> xa(n), xb(n);
  for (uint32_t i = 0; i < n; ++i) {
    xa[i] = static_cast<uint8_t>(i * 7 + 3);
    xb[i] = static_cast<uint8_t>(i * 13 + 5);
  }
  const Node concat{"Concat", "c", {a, b}, {y}, {u32_param("axis", 0)}};
  const std::vector<uint8_t> got = run_raw_outputs(concat, {&xa, &xb})[0];
  ASSERT_EQ(got.size(), 2u * n);
  auto want = [&](const TensorDesc& t, uint8_t code) {
    const int64_t q = t.dtype == dtype::kSfixed8 ? int64_t{int8_t(code)} : int64_t{code};
    const float real = static_cast<float>((q + t.quant.offset) * double{t.quant.scale});
    return static_cast<uint8_t>(openhtp::ops::quant::quantize_one(real, y.quant.scale, y.quant.offset, 0, 255));
  };
  size_t moved = 0;
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], want(a, xa[i])) << "a " << i;
    ASSERT_EQ(got[n + i], want(b, xb[i])) << "b " << i;
    moved += got[i] != xa[i];
  }
  EXPECT_GT(moved, n / 2) << "the codes changed";
}

}  // namespace
}  // namespace opstest
