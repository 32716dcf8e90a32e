// The misc family (src/ops/reference/misc_group.cpp): Shape, ConstantOfShape,
// NonZero, Nv12ToRgb/Nv21ToRgb, Im2Col, Col2Im, ExtractPatches,
// HadamardTransform, Stft, ImageProjectionTransform, and the op types refused
// by name (If, Buffer, RandomUniformLike). Expected values are worked by hand
// or computed here by a different method than the kernel's (direct
// convolution, the Hadamard matrix by popcount, the DFT by std::complex, index
// unravelling by division, the adjoint identity).
#include <bit>
#include <cmath>
#include <complex>

#include "test_util.h"

namespace opstest {
namespace {

template <typename T>
std::vector<T> run_one(const Node& n, const std::vector<std::vector<uint8_t>>& ins, size_t out = 0) {
  std::vector<const std::vector<uint8_t>*> ptrs;
  for (const auto& b : ins) ptrs.push_back(&b);
  const auto outs = run_raw_outputs(n, ptrs);
  return as<T>(outs[out]);
}

Param i32_scalar(std::string name, int32_t v) { return scalar_param(std::move(name), dtype::kInt32, v); }

// ---- Shape ----

Node shape_node(std::vector<uint32_t> in_dims, uint32_t out_n, uint32_t out_dt = dtype::kInt32) {
  Node n;
  n.type = "Shape";
  n.inputs = {f32(std::move(in_dims))};
  n.outputs = {typed(out_dt, {out_n})};
  return n;
}

TEST(Shape, AllDimsAndASlice) {
  const std::vector<uint8_t> x(2 * 3 * 4 * 5 * 4, 0);
  EXPECT_EQ(run_one<int32_t>(shape_node({2, 3, 4, 5}, 4), {x}), (std::vector<int32_t>{2, 3, 4, 5}));
  Node n = shape_node({2, 3, 4, 5}, 2, dtype::kUint32);
  n.params = {i32_scalar("start", 1), i32_scalar("end", -1)};  // dims [1, 3)
  EXPECT_EQ(run_one<uint32_t>(n, {x}), (std::vector<uint32_t>{3, 4}));
  Node m = shape_node({2, 3, 4, 5}, 2, dtype::kInt64);
  m.params = {i32_scalar("start", -2), i32_scalar("end", 100)};  // clamped: [2, 4)
  EXPECT_EQ(run_one<int64_t>(m, {x}), (std::vector<int64_t>{4, 5}));
}

TEST(Shape, Refusals) {
  {
    Node n = shape_node({2, 3}, 1);
    n.params = {i32_scalar("start", 1), i32_scalar("end", 1)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'start' = 1 and 'end' = 1 select no dims");
  }
  EXPECT_STATUS(shape_node({2, 3}, 3).prepare(), StatusCode::kInvalidArgument, "out[0]");
  EXPECT_STATUS(shape_node({2, 3}, 2, dtype::kFloat32).prepare(), StatusCode::kInvalidArgument,
                "out[0] data type is FLOAT_32");
  {
    Node n = shape_node({2, 3}, 2);
    n.params = {f32_param("start", 0.5f)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'start' is a float");
  }
  {
    Node n = shape_node({2, 3}, 2);
    n.params = {i32_scalar("axis", 0)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "axis");
  }
}

// ---- ConstantOfShape ----

Node cos_node(std::vector<uint32_t> out_dims, uint32_t out_dt, const std::vector<int32_t>* static_shape) {
  Node n;
  n.type = "ConstantOfShape";
  n.inputs = {typed(dtype::kInt32, {static_cast<uint32_t>(out_dims.size())})};
  if (static_shape) n.inputs[0].static_data = static_shape->data();
  n.outputs = {typed(out_dt, std::move(out_dims))};
  return n;
}

TEST(ConstantOfShape, FillsWithValue) {
  static const std::vector<int32_t> shape{2, 3};
  const auto in = bytes_of(shape);
  Node n = cos_node({2, 3}, dtype::kFloat32, &shape);
  n.params = {f32_param("value", 1.5f)};
  EXPECT_EQ(run_one<float>(n, {in}), std::vector<float>(6, 1.5f));
  Node d = cos_node({2, 3}, dtype::kFloat32, nullptr);  // default value 0, dynamic shape not read
  EXPECT_EQ(run_one<float>(d, {in}), std::vector<float>(6, 0.0f));
  Node i = cos_node({4}, dtype::kInt32, nullptr);
  i.params = {i32_scalar("value", -7)};
  EXPECT_EQ(run_one<int32_t>(i, {bytes_of(std::vector<int32_t>{4})}), std::vector<int32_t>(4, -7));
}

TEST(ConstantOfShape, Refusals) {
  static const std::vector<int32_t> wrong{2, 4};
  EXPECT_STATUS(cos_node({2, 3}, dtype::kFloat32, &wrong).prepare(), StatusCode::kInvalidArgument,
                "in[0] (shape) element 1 is 4, expected out[0] dim 1 = 3");
  {
    Node n = cos_node({2, 3}, dtype::kFloat32, nullptr);
    n.inputs[0].dims = {3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (shape) has 3 elements, expected out[0]'s rank 2");
  }
  {
    Node n = cos_node({2, 3}, dtype::kFloat32, nullptr);
    n.inputs[0].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (shape) data type is FLOAT_32");
  }
  {
    Node n = cos_node({2}, dtype::kInt32, nullptr);
    n.params = {f32_param("value", 2.5f)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'value' is 2.5, expected an integer");
  }
  {
    Node n = cos_node({2}, dtype::kUfixed8, nullptr);
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "fixed point is not supported");
  }
}

// ---- NonZero ----

Node nz_node(TensorDesc x, uint32_t rows, bool count) {
  Node n;
  n.type = "NonZero";
  const uint32_t rank = static_cast<uint32_t>(x.dims.size());
  n.inputs = {std::move(x)};
  n.outputs = {typed(dtype::kInt32, {rows, rank})};
  if (count) n.outputs.push_back(typed(dtype::kUint32, {1}));
  return n;
}

TEST(NonZero, HandWorked) {
  // [[0, 1, 0], [-2, 0, 3]]: non-zero at (0,1), (1,0), (1,2); rows 3..5 padding 0.
  const auto x = bytes_of(std::vector<float>{0, 1, 0, -2, 0, 3});
  const Node n = nz_node(f32({2, 3}), 6, true);
  const auto outs = run_raw_outputs(n, {&x});
  EXPECT_EQ(as<int32_t>(outs[0]), (std::vector<int32_t>{0, 1, 1, 0, 1, 2, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(as<uint32_t>(outs[1]), (std::vector<uint32_t>{3}));
  // K = 2: the first two rows only, count 2.
  const auto cut = run_raw_outputs(nz_node(f32({2, 3}), 2, true), {&x});
  EXPECT_EQ(as<int32_t>(cut[0]), (std::vector<int32_t>{0, 1, 1, 0}));
  EXPECT_EQ(as<uint32_t>(cut[1]), (std::vector<uint32_t>{2}));
}

TEST(NonZero, RandomAgainstUnravel) {
  std::mt19937 rng(7);
  const std::vector<uint32_t> dims{3, 4, 5};
  std::vector<int8_t> v(60);
  for (auto& e : v) e = rand_int(rng, 0, 2) == 0 ? int8_t(rand_int(rng, 1, 100)) - 50 : 0;
  std::vector<int32_t> want;
  for (int e = 0; e < 60; ++e) {
    if (v[e] == 0) continue;
    want.insert(want.end(), {e / 20, (e / 5) % 4, e % 5});
  }
  const size_t found = want.size() / 3;
  want.resize(60 * 3, 0);
  const auto x = bytes_of(v);
  const auto outs = run_raw_outputs(nz_node(typed(dtype::kInt8, dims), 60, true), {&x});
  EXPECT_EQ(as<int32_t>(outs[0]), want);
  EXPECT_EQ(as<uint32_t>(outs[1]), (std::vector<uint32_t>{static_cast<uint32_t>(found)}));
}

TEST(NonZero, FixedPointZeroIsTheZeroPoint) {
  // UFIXED_8 with offset -128: q 128 is real 0.
  TensorDesc t = typed(dtype::kUfixed8, {4});
  t.quant = Quant::per_tensor(0.5f, -128);
  const auto x = bytes_of(std::vector<uint8_t>{128, 0, 129, 128});
  const auto outs = run_raw_outputs(nz_node(t, 4, false), {&x});
  EXPECT_EQ(as<int32_t>(outs[0]), (std::vector<int32_t>{1, 2, 0, 0}));
}

TEST(NonZero, Refusals) {
  {
    Node n = nz_node(f32({2, 3}), 6, false);
    n.outputs[0].dims = {6, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dims are [6,3], expected [K, 2]");
  }
  EXPECT_STATUS(nz_node(f32({2, 3}), 7, false).prepare(), StatusCode::kInvalidArgument, "1 <= K <= 6");
  {
    Node n = nz_node(f32({2, 3}), 6, false);
    n.outputs[0].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] data type is FLOAT_32");
  }
  {
    Node n = nz_node(f32({2, 3}), 6, true);
    n.outputs[1].dims = {2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1]");
  }
  EXPECT_STATUS(nz_node(typed(dtype::kInt64, {4}), 4, false).prepare(), StatusCode::kUnsupported,
                "in[0] data type is INT_64");
}

// ---- Nv12ToRgb / Nv21ToRgb ----

Node nv_node(const char* type, std::vector<uint32_t> in_dims, uint32_t h, uint32_t w) {
  Node n;
  n.type = type;
  n.inputs = {typed(dtype::kUint8, std::move(in_dims))};
  n.outputs = {typed(dtype::kUint8, {1, h, w, 3})};
  return n;
}

TEST(NvToRgb, HandWorkedBt601FullRange) {
  // A 2x4 image: Y rows {10, 50, 0, 255} / {100, 200, 128, 30}; chroma block 0
  // U 90 V 170 (U-128 = -38, V-128 = 42), block 1 U = V = 128 (grey: RGB = Y).
  //   block 0: R = Y + 58.884, G = Y + 13.077 - 29.994 = Y - 16.917, B = Y - 67.336
  //   Y 10  -> (68.9, -6.9, -57.3)  -> (69, 0, 0)
  //   Y 50  -> (108.9, 33.1, -17.3) -> (109, 33, 0)
  //   Y 100 -> (158.9, 83.1, 32.7)  -> (159, 83, 33)
  //   Y 200 -> (258.9, 183.1, 132.7) -> (255, 183, 133)
  const std::vector<uint8_t> y{10, 50, 0, 255, 100, 200, 128, 30};
  const std::vector<uint8_t> want{69, 0, 0, 109, 33, 0, 0, 0, 0, 255, 255, 255,
                                  159, 83, 33, 255, 183, 133, 128, 128, 128, 30, 30, 30};
  std::vector<uint8_t> nv12 = y, nv21 = y;
  nv12.insert(nv12.end(), {90, 170, 128, 128});
  nv21.insert(nv21.end(), {170, 90, 128, 128});
  EXPECT_EQ(run_one<uint8_t>(nv_node("Nv12ToRgb", {1, 3, 4}, 2, 4), {nv12}), want);
  EXPECT_EQ(run_one<uint8_t>(nv_node("Nv21ToRgb", {1, 12}, 2, 4), {nv21}), want);
  Node bgr = nv_node("Nv12ToRgb", {1, 3, 4, 1}, 2, 4);
  bgr.params = {u32_param("output_order", 1)};
  std::vector<uint8_t> want_bgr = want;
  for (size_t p = 0; p < want_bgr.size(); p += 3) std::swap(want_bgr[p], want_bgr[p + 2]);
  EXPECT_EQ(run_one<uint8_t>(bgr, {nv12}), want_bgr);
}

TEST(NvToRgb, Refusals) {
  const Node good = nv_node("Nv21ToRgb", {1, 3, 4}, 2, 4);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  EXPECT_STATUS(nv_node("Nv21ToRgb", {1, 3, 4}, 3, 4).prepare(), StatusCode::kInvalidArgument,
                "out[0] height x width is 3x4, expected both even");
  EXPECT_STATUS(nv_node("Nv21ToRgb", {1, 4, 4}, 2, 4).prepare(), StatusCode::kInvalidArgument,
                "in[0] holds 16 bytes per image, expected H*W*3/2 = 12");
  {
    Node n = good;
    n.params = {u32_param("output_order", 2)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'output_order' is 2, expected RGB 0 or BGR 1");
  }
  {
    Node n = good;
    n.inputs[0].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[0] data type is FLOAT_32, only UINT_8");
  }
  {
    Node n = good;
    n.outputs[0].dims = {1, 2, 4, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dim 3 is 4, expected 3");
  }
}

// ---- Im2Col / Col2Im / ExtractPatches ----

std::vector<float> iota(size_t n, float first) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = first + float(i);
  return v;
}

Node im2col_node(std::vector<uint32_t> in_dims, std::vector<uint32_t> out_dims, std::vector<Param> params) {
  Node n;
  n.type = "Im2Col";
  n.inputs = {f32(std::move(in_dims))};
  n.outputs = {f32(std::move(out_dims))};
  n.params = std::move(params);
  return n;
}

TEST(Im2Col, HandWorkedWindows) {
  // 3x3 image 1..9, 2x2 kernel, stride 1: four windows, (i, j) order.
  const auto x = iota(9, 1);
  EXPECT_EQ(im2col_node({1, 3, 3, 1}, {1, 4, 4}, {u32_tensor_param("kernel_size", {2}, {2, 2})}).run({&x}),
            (std::vector<float>{1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9}));
  // pad 1 on every side, stride 2: Ho = (3 + 2 - 2) / 2 + 1 = 2; windows start at -1 and 1.
  EXPECT_EQ(im2col_node({1, 3, 3, 1}, {1, 4, 4},
                        {u32_tensor_param("kernel_size", {2}, {2, 2}), u32_tensor_param("stride", {2}, {2, 2}),
                         u32_tensor_param("pad_amount", {2, 2}, {1, 1, 1, 1})})
                .run({&x}),
            (std::vector<float>{0, 0, 0, 1, 0, 0, 2, 3, 0, 4, 0, 7, 5, 6, 8, 9}));
}

TEST(Im2Col, TimesFilterIsDirectConvolution) {
  // x [1,5,6,2], filter [3,3,2,3] (HWIO), stride (1,2), dilation (2,1), pad (1,0)/(2,1).
  std::mt19937 rng(3);
  const uint32_t H = 5, W = 6, C = 2, K = 3, O = 3, sh = 1, sw = 2, dh = 2, dw = 1, pt = 1, pb = 0, pl = 2, pr = 1;
  const uint32_t Ho = (H + pt + pb - ((K - 1) * dh + 1)) / sh + 1, Wo = (W + pl + pr - ((K - 1) * dw + 1)) / sw + 1;
  const auto x = random_floats(rng, H * W * C), f = random_floats(rng, K * K * C * O);
  const Node n = im2col_node({1, H, W, C}, {1, Ho * Wo, K * K * C},
                             {u32_tensor_param("kernel_size", {2}, {K, K}), u32_tensor_param("stride", {2}, {sh, sw}),
                              u32_tensor_param("dilation", {2}, {dh, dw}),
                              u32_tensor_param("pad_amount", {2, 2}, {pt, pb, pl, pr})});
  const auto cols = n.run({&x});
  ASSERT_EQ(cols.size(), size_t{Ho} * Wo * K * K * C);
  for (uint32_t oh = 0; oh < Ho; ++oh)
    for (uint32_t ow = 0; ow < Wo; ++ow)
      for (uint32_t o = 0; o < O; ++o) {
        double direct = 0, via = 0;
        for (uint32_t i = 0; i < K; ++i)
          for (uint32_t j = 0; j < K; ++j)
            for (uint32_t c = 0; c < C; ++c) {
              const int h = int(oh * sh + i * dh) - int(pt), w = int(ow * sw + j * dw) - int(pl);
              const double fv = f[((i * K + j) * C + c) * O + o];
              if (h >= 0 && h < int(H) && w >= 0 && w < int(W)) direct += x[(h * W + w) * C + c] * fv;
              via += cols[(oh * Wo + ow) * K * K * C + (i * K + j) * C + c] * fv;
            }
        EXPECT_NEAR(via, direct, 1e-5) << oh << "," << ow << "," << o;
      }
}

TEST(Im2Col, Refusals) {
  EXPECT_STATUS(im2col_node({1, 3, 3, 1}, {1, 4, 4}, {}).prepare(), StatusCode::kInvalidArgument,
                "'kernel_size' is missing");
  EXPECT_STATUS(im2col_node({1, 3, 3, 1}, {1, 4, 4}, {u32_tensor_param("kernel_size", {2}, {2, 0})}).prepare(),
                StatusCode::kInvalidArgument, "'kernel_size' element 1 is 0");
  EXPECT_STATUS(im2col_node({1, 3, 3, 1}, {1, 4, 4}, {u32_tensor_param("kernel_size", {2}, {4, 2})}).prepare(),
                StatusCode::kInvalidArgument, "dilated kernel 4x2 is larger than the padded image 3x3");
  EXPECT_STATUS(im2col_node({1, 3, 3, 1}, {1, 4, 5}, {u32_tensor_param("kernel_size", {2}, {2, 2})}).prepare(),
                StatusCode::kInvalidArgument, "out[0]");
  EXPECT_STATUS(im2col_node({3, 3, 1}, {1, 4, 4}, {u32_tensor_param("kernel_size", {2}, {2, 2})}).prepare(),
                StatusCode::kInvalidArgument, "rank is 3, expected 4");
}

Node col2im_node(std::vector<uint32_t> in_dims, std::vector<uint32_t> out_dims, std::vector<Param> params) {
  Node n = im2col_node(std::move(in_dims), std::move(out_dims), std::move(params));
  n.type = "Col2Im";
  return n;
}

TEST(Col2Im, OnesCountTheWindowsOverEachPixel) {
  const std::vector<float> ones(16, 1.0f);
  EXPECT_EQ(col2im_node({1, 4, 4}, {1, 3, 3, 1}, {u32_tensor_param("kernel_size", {2}, {2, 2})}).run({&ones}),
            (std::vector<float>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
}

TEST(Col2Im, IsTheAdjointOfIm2Col) {
  // <Im2Col(x), c> = <x, Col2Im(c)> for every x and c.
  std::mt19937 rng(5);
  const std::vector<Param> p = {u32_tensor_param("kernel_size", {2}, {2, 3}), u32_tensor_param("stride", {2}, {2, 1}),
                                u32_tensor_param("dilation", {2}, {1, 2}),
                                u32_tensor_param("pad_amount", {2, 2}, {1, 0, 1, 2})};
  // H 5, W 4: Ho = (5+1-2)/2+1 = 3, Wo = (4+3-5)/1+1 = 3; C 2.
  const auto x = random_floats(rng, 2 * 5 * 4 * 2), c = random_floats(rng, 2 * 9 * 12);
  const auto cols = im2col_node({2, 5, 4, 2}, {2, 9, 12}, p).run({&x});
  const auto img = col2im_node({2, 9, 12}, {2, 5, 4, 2}, p).run({&c});
  ASSERT_EQ(cols.size(), c.size());
  ASSERT_EQ(img.size(), x.size());
  double a = 0, b = 0;
  for (size_t i = 0; i < c.size(); ++i) a += double{cols[i]} * c[i];
  for (size_t i = 0; i < x.size(); ++i) b += double{x[i]} * img[i];
  EXPECT_NEAR(a, b, 1e-4);
}

TEST(Col2Im, Refusals) {
  EXPECT_STATUS(col2im_node({1, 4, 3}, {1, 3, 3, 1}, {u32_tensor_param("kernel_size", {2}, {2, 2})}).prepare(),
                StatusCode::kInvalidArgument, "in[0] (columns) dims are [1,4,3], expected [1,4,4]");
  EXPECT_STATUS(col2im_node({1, 4, 4}, {1, 3, 3, 1}, {u32_tensor_param("kernel_size", {2}, {2, 2}),
                                                      u32_param("group", 1)})
                    .prepare(),
                StatusCode::kInvalidArgument, "group");
}

Node patches_node(std::vector<uint32_t> out_dims, uint32_t padding, std::vector<uint32_t> rate = {1, 1}) {
  Node n;
  n.type = "ExtractPatches";
  n.inputs = {f32({1, 3, 3, 1})};
  n.outputs = {f32(std::move(out_dims))};
  n.params = {u32_tensor_param("size", {2}, {2, 2}), u32_tensor_param("stride", {2}, {2, 2}),
              u32_tensor_param("rate", {2}, rate), u32_param("padding", padding)};
  return n;
}

TEST(ExtractPatches, ValidAndSame) {
  const auto x = iota(9, 1);
  // VALID: Ho = (3 - 2) / 2 + 1 = 1: the top-left patch only.
  EXPECT_EQ(patches_node({1, 1, 1, 4}, 0).run({&x}), (std::vector<float>{1, 2, 4, 5}));
  // SAME: Ho = ceil(3/2) = 2, pad total (2-1)*2 + 2 - 3 = 1: 0 before, 1 after.
  EXPECT_EQ(patches_node({1, 2, 2, 4}, 1).run({&x}),
            (std::vector<float>{1, 2, 4, 5, 3, 0, 6, 0, 7, 8, 0, 0, 9, 0, 0, 0}));
  // rate 2, VALID: effective patch 3x3 -> one patch of the corners.
  EXPECT_EQ(patches_node({1, 1, 1, 4}, 0, {2, 2}).run({&x}), (std::vector<float>{1, 3, 7, 9}));
}

TEST(ExtractPatches, Refusals) {
  EXPECT_STATUS(patches_node({1, 1, 1, 4}, 2).prepare(), StatusCode::kInvalidArgument,
                "'padding' is 2, expected VALID 0 or SAME 1");
  EXPECT_STATUS(patches_node({1, 1, 1, 4}, 0, {0, 1}).prepare(), StatusCode::kInvalidArgument,
                "'rate' element 0 is 0");
  EXPECT_STATUS(patches_node({1, 1, 1, 4}, 0, {3, 1}).prepare(), StatusCode::kInvalidArgument,
                "padding VALID: the dilated patch 4x2 is larger than the image 3x3");
  EXPECT_STATUS(patches_node({1, 1, 1, 4}, 1).prepare(), StatusCode::kInvalidArgument, "out[0]");
  {
    Node n = patches_node({1, 1, 1, 4}, 0);
    n.params.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'padding'");
  }
}

// ---- HadamardTransform ----

Node hadamard_node(std::vector<uint32_t> dims) {
  Node n;
  n.type = "HadamardTransform";
  n.inputs = {f32(dims)};
  n.outputs = {f32(dims)};
  return n;
}

TEST(HadamardTransform, HandWorked) {
  // H4 rows (+,+,+,+) (+,-,+,-) (+,+,-,-) (+,-,-,+) on (1,2,3,4).
  const std::vector<float> x{1, 2, 3, 4};
  EXPECT_EQ(hadamard_node({4}).run({&x}), (std::vector<float>{10, -2, -4, 0}));
  Node n = hadamard_node({1, 4});
  n.params = {f32_param("scale", 0.5f)};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{5, -1, -2, 0}));
}

TEST(HadamardTransform, MatchesThePopcountMatrix) {
  std::mt19937 rng(11);
  const auto x = random_floats(rng, 3 * 16);
  Node n = hadamard_node({3, 16});
  n.params = {f32_param("scale", 0.25f)};
  const auto y = n.run({&x});
  for (size_t r = 0; r < 3; ++r)
    for (unsigned i = 0; i < 16; ++i) {
      double want = 0;
      for (unsigned j = 0; j < 16; ++j) want += (std::popcount(i & j) % 2 ? -1.0 : 1.0) * x[r * 16 + j];
      EXPECT_NEAR(y[r * 16 + i], 0.25 * want, 1e-5);
    }
}

TEST(HadamardTransform, Refusals) {
  EXPECT_STATUS(hadamard_node({2, 6}).prepare(), StatusCode::kInvalidArgument, "last dim is 6, expected a power of two");
  {
    Node n = hadamard_node({2, 4});
    n.outputs[0].dims = {2, 8};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  }
  {
    Node n = hadamard_node({4});
    n.params = {u32_param("axis", 0)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "axis");
  }
}

// ---- Stft ----

Node stft_node(std::vector<uint32_t> x_dims, std::vector<uint32_t> out_dims, std::vector<Param> params,
               int window = -1) {
  Node n;
  n.type = "Stft";
  n.inputs = {f32(std::move(x_dims))};
  if (window > 0) n.inputs.push_back(f32({static_cast<uint32_t>(window)}));
  n.outputs = {f32(std::move(out_dims))};
  n.params = std::move(params);
  return n;
}

TEST(Stft, CosineLandsInItsBin) {
  // x[n] = cos(2 pi 2 n / 8), frames of 8 with step 8 over 16 samples: each
  // frame holds two whole periods, so X[2] = 8/2 = 4 and every other bin 0.
  std::vector<float> x(16);
  for (int n = 0; n < 16; ++n) x[n] = static_cast<float>(std::cos(2 * M_PI * 2 * n / 8));
  const auto y = stft_node({1, 16}, {1, 2, 5, 2}, {u32_param("frame_step", 8), u32_param("frame_length", 8)}).run({&x});
  ASSERT_EQ(y.size(), 20u);
  for (int f = 0; f < 2; ++f)
    for (int k = 0; k < 5; ++k) {
      EXPECT_NEAR(y[(f * 5 + k) * 2], k == 2 ? 4.0 : 0.0, 1e-5) << f << "," << k;
      EXPECT_NEAR(y[(f * 5 + k) * 2 + 1], 0.0, 1e-5) << f << "," << k;
    }
}

TEST(Stft, ComplexWindowedTwoSidedAgainstStdComplex) {
  // batch 2, 11 complex samples, window of 4, step 3: frames (11-4)/3+1 = 3, bins 4.
  std::mt19937 rng(13);
  const auto x = random_floats(rng, 2 * 11 * 2), w = random_floats(rng, 4, 0.0f, 1.0f);
  const auto y = stft_node({2, 11, 2}, {2, 3, 4, 2}, {u32_param("frame_step", 3), bool_param("onesided", false)}, 4)
                     .run({&x, &w});
  ASSERT_EQ(y.size(), 2u * 3 * 4 * 2);
  for (int b = 0; b < 2; ++b)
    for (int f = 0; f < 3; ++f)
      for (int k = 0; k < 4; ++k) {
        std::complex<double> acc = 0;
        for (int n = 0; n < 4; ++n) {
          const int t = (b * 11 + f * 3 + n) * 2;
          acc += std::complex<double>(x[t], x[t + 1]) * double{w[n]} * std::polar(1.0, -2 * M_PI * k * n / 4);
        }
        const int o = ((b * 3 + f) * 4 + k) * 2;
        EXPECT_NEAR(y[o], acc.real(), 1e-5);
        EXPECT_NEAR(y[o + 1], acc.imag(), 1e-5);
      }
}

TEST(Stft, Refusals) {
  const std::vector<Param> p = {u32_param("frame_step", 2), u32_param("frame_length", 4)};
  ASSERT_TRUE(stft_node({1, 8}, {1, 3, 3, 2}, p).prepare().ok());
  EXPECT_STATUS(stft_node({1, 8}, {1, 3, 3, 2}, {u32_param("frame_step", 0), u32_param("frame_length", 4)}).prepare(),
                StatusCode::kInvalidArgument, "'frame_step' is 0");
  EXPECT_STATUS(stft_node({1, 8}, {1, 3, 3, 2}, {u32_param("frame_step", 2), u32_param("frame_length", 9)}).prepare(),
                StatusCode::kInvalidArgument, "'frame_length' is 9, expected 1 to the signal length 8");
  EXPECT_STATUS(stft_node({1, 8}, {1, 3, 3, 2}, {u32_param("frame_step", 2)}).prepare(), StatusCode::kInvalidArgument,
                "'frame_length' is missing");
  EXPECT_STATUS(stft_node({1, 8}, {1, 3, 3, 2}, p, 5).prepare(), StatusCode::kInvalidArgument,
                "'frame_length' is 4, expected the window's length 5");
  EXPECT_STATUS(stft_node({1, 8, 2}, {1, 3, 3, 2}, p).prepare(), StatusCode::kInvalidArgument,
                "'onesided' is 1 with a complex signal");
  EXPECT_STATUS(stft_node({1, 8, 3}, {1, 3, 3, 2}, p).prepare(), StatusCode::kInvalidArgument,
                "in[0] (signal) dim 2 is 3");
  EXPECT_STATUS(stft_node({1, 8}, {1, 3, 4, 2}, p).prepare(), StatusCode::kInvalidArgument, "out[0] dim 2 is 4");
}

// ---- ImageProjectionTransform ----

Node warp_node(std::vector<uint32_t> in_dims, uint32_t t_rows, std::vector<uint32_t> out_dims, uint32_t mode) {
  Node n;
  n.type = "ImageProjectionTransform";
  n.inputs = {f32(std::move(in_dims)), f32({t_rows, 8})};
  n.outputs = {f32(std::move(out_dims))};
  n.params = {u32_param("interpolation_mode", mode)};
  return n;
}

TEST(ImageProjectionTransform, IdentityAndTranslation) {
  const auto x = iota(6, 1);  // [1,2,3,1]: rows {1,2,3} {4,5,6}
  const std::vector<float> id{1, 0, 0, 0, 1, 0, 0, 0};
  EXPECT_EQ(warp_node({1, 2, 3, 1}, 1, {1, 2, 3, 1}, 0).run({&x, &id}), x);
  // x' = x + 1, nearest: each row moves one pixel left, the last column reads 0.
  const std::vector<float> shift{1, 0, 1, 0, 1, 0, 0, 0};
  EXPECT_EQ(warp_node({1, 2, 3, 1}, 1, {1, 2, 3, 1}, 1).run({&x, &shift}), (std::vector<float>{2, 3, 0, 5, 6, 0}));
  // x' = x + 0.5, bilinear: means of neighbours; the last reads half of 0.
  const std::vector<float> half{1, 0, 0.5f, 0, 1, 0, 0, 0};
  EXPECT_EQ(warp_node({1, 2, 3, 1}, 1, {1, 2, 3, 1}, 0).run({&x, &half}),
            (std::vector<float>{1.5f, 2.5f, 1.5f, 4.5f, 5.5f, 3.0f}));
}

TEST(ImageProjectionTransform, ProjectiveNearestHandWorked) {
  // a = (2,0,0, 0,2,0, 1,0): k = x + 1, x' = 2x/k, y' = 2y/k. On the 3x3 image
  // v = 3y + x + 1: (x,y) (0,0) -> (0,0) = 1; (1,0) -> (1,0) = 2;
  // (0,1) -> (0,2) = 7; (1,1) -> (1,1) = 5.
  const auto x = iota(9, 1);
  const std::vector<float> t{2, 0, 0, 0, 2, 0, 1, 0};
  EXPECT_EQ(warp_node({1, 3, 3, 1}, 1, {1, 2, 2, 1}, 1).run({&x, &t}), (std::vector<float>{1, 2, 7, 5}));
}

TEST(ImageProjectionTransform, OneTransformPerImage) {
  // Batch 2, C 2: image 0 under identity, image 1 under y' = y + 1 (bottom row 0).
  const auto x = iota(2 * 2 * 2 * 2, 0);
  const std::vector<float> t{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0};
  const auto y = warp_node({2, 2, 2, 2}, 2, {2, 2, 2, 2}, 0).run({&x, &t});
  EXPECT_EQ(y, (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 0, 0, 0, 0}));
}

TEST(ImageProjectionTransform, Refusals) {
  EXPECT_STATUS(warp_node({1, 2, 3, 1}, 1, {1, 2, 3, 1}, 2).prepare(), StatusCode::kInvalidArgument,
                "'interpolation_mode' is 2, expected BILINEAR 0 or NEAREST_NEIGHBOR 1");
  EXPECT_STATUS(warp_node({2, 2, 3, 1}, 3, {2, 2, 3, 1}, 0).prepare(), StatusCode::kInvalidArgument,
                "in[1] (transforms) dims are [3,8], expected [2,8] or [1,8]");
  EXPECT_STATUS(warp_node({1, 2, 3, 1}, 1, {1, 2, 3, 2}, 0).prepare(), StatusCode::kInvalidArgument,
                "out[0] dims are [1,2,3,2]");
  {
    Node n = warp_node({1, 2, 3, 1}, 1, {1, 2, 3, 1}, 0);
    n.inputs[1].dims = {1, 6};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (transforms) dims are [1,6]");
  }
}

// ---- refused by name ----

TEST(RefusedOps, NameTheReason) {
  const TensorDesc t = f32({4});
  for (const auto& [type, why] : std::vector<std::pair<std::string, std::string>>{
           {"If", "control flow"}, {"Buffer", "state across graphExecute"}, {"RandomUniformLike", "random"}}) {
    const NodeDesc d{"n1", type, std::span<const TensorDesc>(&t, 1), std::span<const TensorDesc>(&t, 1), {}};
    EXPECT_STATUS(prepare_reference(d, nullptr), StatusCode::kUnsupported, "not supported by openhtp", why.c_str());
    EXPECT_EQ(find_op(type), nullptr) << type;
  }
}

}  // namespace
}  // namespace opstest
