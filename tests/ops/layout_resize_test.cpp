// Resize, ResizeBilinear, ResizeNearestNeighbor: hand-checked values per mode
// and a randomized comparison against a per-element double-precision
// evaluation of the ONNX formulas.
#include <algorithm>

#include "test_util.h"

namespace opstest {
namespace {

std::vector<Param> resize_params(uint32_t transform, uint32_t interp, uint32_t nearest = 0) {
  return {u32_param("transformation_mode", transform), u32_param("interpolation_mode", interp),
          u32_param("nearest_mode", nearest)};
}

constexpr uint32_t kHalfPixel = 0, kPytorchHalfPixel = 1, kAlignCorners = 2, kAsymmetric = 3;
constexpr uint32_t kNearest = 0, kLinear = 1, kCubic = 2;

TEST(Resize, HandNearestAsymmetricFloor) {
  // [1 2; 3 4] -> 4x4, x_in = o / 2 floored: 0 0 1 1 along both axes.
  Node n{"Resize", "r", {f32({1, 2, 2, 1})}, {f32({1, 4, 4, 1})}, resize_params(kAsymmetric, kNearest, 2)};
  std::vector<float> x{1, 2, 3, 4};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(Resize, HandNearestModesOnHalfPixelTies) {
  // 4 -> 2 with HALF_PIXEL: x_in = (o + 0.5) * 2 - 0.5 = 0.5, 2.5 (exact ties).
  std::vector<float> x{10, 20, 30, 40};
  auto run = [&](uint32_t mode) {
    Node n{"Resize", "r", {f32({1, 1, 4, 1})}, {f32({1, 1, 2, 1})}, resize_params(kHalfPixel, kNearest, mode)};
    return n.run({&x});
  };
  EXPECT_EQ(run(0), (std::vector<float>{10, 30}));  // ROUND_PREFER_FLOOR: 0, 2
  EXPECT_EQ(run(1), (std::vector<float>{20, 40}));  // ROUND_PREFER_CEIL: 1, 3
  EXPECT_EQ(run(2), (std::vector<float>{10, 30}));  // FLOOR
  EXPECT_EQ(run(3), (std::vector<float>{20, 40}));  // CEIL
}

TEST(Resize, HandLinear) {
  std::vector<float> x{0, 10};
  // ALIGN_CORNERS 2 -> 5: x_in = o/4 -> 0, 2.5, 5, 7.5, 10 (height 1 -> 1 stays 0).
  Node ac{"Resize", "r", {f32({1, 1, 2, 1})}, {f32({1, 1, 5, 1})}, resize_params(kAlignCorners, kLinear)};
  EXPECT_EQ(ac.run({&x}), (std::vector<float>{0, 2.5f, 5, 7.5f, 10}));
  // HALF_PIXEL 2 -> 4: x_in = -0.25, 0.25, 0.75, 1.25, clamped into [0, 1].
  Node hp{"Resize", "r", {f32({1, 1, 2, 1})}, {f32({1, 1, 4, 1})}, resize_params(kHalfPixel, kLinear)};
  EXPECT_EQ(hp.run({&x}), (std::vector<float>{0, 2.5f, 7.5f, 10}));
  // PYTORCH_HALF_PIXEL with out size 1 reads coordinate 0; HALF_PIXEL reads 0.5.
  Node pt{"Resize", "r", {f32({1, 1, 2, 1})}, {f32({1, 1, 1, 1})}, resize_params(kPytorchHalfPixel, kLinear)};
  EXPECT_EQ(pt.run({&x}), (std::vector<float>{0}));
  Node hp1{"Resize", "r", {f32({1, 1, 2, 1})}, {f32({1, 1, 1, 1})}, resize_params(kHalfPixel, kLinear)};
  EXPECT_EQ(hp1.run({&x}), (std::vector<float>{5}));
  // Bilinear in 2-D, ASYMMETRIC 2x2 -> 2x4 (height unchanged): x_in = o/2.
  //   row [1 3] -> 1, 2, 3, 3;  row [5 9] -> 5, 7, 9, 9.
  Node two{"Resize", "r", {f32({1, 2, 2, 1})}, {f32({1, 2, 4, 1})}, resize_params(kAsymmetric, kLinear)};
  std::vector<float> y{1, 3, 5, 9};
  EXPECT_EQ(two.run({&y}), (std::vector<float>{1, 2, 3, 3, 5, 7, 9, 9}));
  // Rank 3 ([N, W, C]) and two channels: [0 1; 10 11] -> 3 points, ALIGN_CORNERS.
  Node r3{"Resize", "r", {f32({1, 2, 2})}, {f32({1, 3, 2})}, resize_params(kAlignCorners, kLinear)};
  std::vector<float> z{0, 1, 10, 11};
  EXPECT_EQ(r3.run({&z}), (std::vector<float>{0, 1, 5, 6, 10, 11}));
}

TEST(Resize, HandCubic) {
  // Keys kernel, A = -0.75, at t = 0.5: w(0.5) = (A+2)/8 - (A+3)/4 + 1 = 0.59375,
  // w(1.5) = A*(27/8 - 45/4 + 12 - 4) = A/8 = -0.09375.
  // Input [0 1 0 0], ASYMMETRIC 4 -> 8: x_in = o/2.
  //   o = 3: x_in 1.5, taps 0..3 at distances 1.5, .5, .5, 1.5 -> 1 * w(0.5) = 0.59375
  //   o = 1: x_in 0.5, taps -1..2; index -1 clamps to 0 (value 0) -> 0.59375;
  //          with exclude_outside tap -1 is dropped and the rest renormalized:
  //          0.59375 / (1 - (-0.09375)) = 0.59375 / 1.09375.
  std::vector<float> x{0, 1, 0, 0};
  Node n{"Resize", "r", {f32({1, 1, 4, 1})}, {f32({1, 1, 8, 1})}, resize_params(kAsymmetric, kCubic)};
  std::vector<float> y = n.run({&x});
  EXPECT_NEAR(y[3], 0.59375, 1e-6);
  EXPECT_NEAR(y[1], 0.59375, 1e-6);
  EXPECT_NEAR(y[2], 1.0, 1e-6);  // x_in = 1: exactly on a sample
  n.params.push_back(bool_param("exclude_outside", true));
  std::vector<float> e = n.run({&x});
  EXPECT_NEAR(e[1], 0.59375 / 1.09375, 1e-6);
  EXPECT_NEAR(e[3], 0.59375, 1e-6);
  // A linear ramp is reproduced exactly in the interior for any A.
  std::vector<float> ramp{0, 1, 2, 3, 4, 5};
  Node lin{"Resize", "r", {f32({1, 1, 6, 1})}, {f32({1, 1, 12, 1})}, resize_params(kAsymmetric, kCubic)};
  lin.params.push_back(f32_param("cubic_coeff", -0.5f));
  std::vector<float> r = lin.run({&ramp});
  for (int o = 2; o <= 6; ++o) EXPECT_NEAR(r[o], o / 2.0, 1e-5) << o;
}

// Per-element evaluation of the ONNX Resize formulas for one output value
// (both spatial axes computed inline, no tap tables).
double onnx_resize_at(const std::vector<float>& x, uint32_t H, uint32_t W, uint32_t C, uint32_t n, uint32_t c,
                      uint32_t oh, uint32_t ow, uint32_t Ho, uint32_t Wo, uint32_t transform, uint32_t interp,
                      uint32_t nearest, bool exclude, double A) {
  auto coord = [&](double o, double in, double out) {
    switch (transform) {
      case kHalfPixel: return (o + 0.5) * in / out - 0.5;
      case kPytorchHalfPixel: return out > 1 ? (o + 0.5) * in / out - 0.5 : 0.0;
      case kAlignCorners: return out > 1 ? o * (in - 1) / (out - 1) : 0.0;
      default: return o * in / out;
    }
  };
  const double yh = coord(oh, H, Ho), xw = coord(ow, W, Wo);
  auto at = [&](int64_t h, int64_t w) {
    h = std::clamp<int64_t>(h, 0, H - 1);
    w = std::clamp<int64_t>(w, 0, W - 1);
    return double{x[((size_t{n} * H + h) * W + w) * C + c]};
  };
  if (interp == kNearest) {
    auto rnd = [&](double v) {
      const double fl = std::floor(v);
      if (nearest == 0) return v - fl == 0.5 ? fl : std::round(v);
      if (nearest == 1) return v - fl == 0.5 ? fl + 1 : std::round(v);
      return nearest == 2 ? fl : std::ceil(v);
    };
    return at(static_cast<int64_t>(rnd(yh)), static_cast<int64_t>(rnd(xw)));
  }
  if (interp == kLinear) {
    const double ch = std::clamp(yh, 0.0, H - 1.0), cw = std::clamp(xw, 0.0, W - 1.0);
    const int64_t h0 = static_cast<int64_t>(ch), w0 = static_cast<int64_t>(cw);
    const double dy = ch - h0, dx = cw - w0;
    return (1 - dy) * (1 - dx) * at(h0, w0) + (1 - dy) * dx * at(h0, w0 + 1) + dy * (1 - dx) * at(h0 + 1, w0) +
           dy * dx * at(h0 + 1, w0 + 1);
  }
  auto keys = [&](double d) {
    d = std::fabs(d);
    if (d <= 1) return (A + 2) * d * d * d - (A + 3) * d * d + 1;
    if (d < 2) return A * d * d * d - 5 * A * d * d + 8 * A * d - 4 * A;
    return 0.0;
  };
  double sum = 0, wsum = 0;
  for (int64_t h = static_cast<int64_t>(std::floor(yh)) - 1; h <= static_cast<int64_t>(std::floor(yh)) + 2; ++h)
    for (int64_t w = static_cast<int64_t>(std::floor(xw)) - 1; w <= static_cast<int64_t>(std::floor(xw)) + 2; ++w) {
      if (exclude && (h < 0 || h >= H || w < 0 || w >= W)) continue;
      const double wt = keys(yh - h) * keys(xw - w);
      sum += wt * at(h, w);
      wsum += wt;
    }
  return exclude ? sum / wsum : sum;
}

TEST(Resize, RandomAgainstOnnxFormulas) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 60; ++trial) {
    const uint32_t N = rand_int(rng, 1, 2), H = rand_int(rng, 1, 5), W = rand_int(rng, 1, 5), C = rand_int(rng, 1, 3);
    const uint32_t Ho = rand_int(rng, 1, 9), Wo = rand_int(rng, 1, 9);
    const uint32_t transform = rand_int(rng, 0, 3), interp = rand_int(rng, 0, 2), nearest = rand_int(rng, 0, 3);
    const bool exclude = rand_int(rng, 0, 1);
    const float A = trial % 2 ? -0.75f : -0.5f;
    Node n{"Resize", "r", {f32({N, H, W, C})}, {f32({N, Ho, Wo, C})}, resize_params(transform, interp, nearest)};
    n.params.push_back(bool_param("exclude_outside", exclude));
    n.params.push_back(f32_param("cubic_coeff", A));
    std::vector<float> x = random_floats(rng, size_t{N} * H * W * C);
    std::vector<float> y = n.run({&x});
    ASSERT_EQ(y.size(), size_t{N} * Ho * Wo * C);
    for (uint32_t nn = 0; nn < N; ++nn)
      for (uint32_t oh = 0; oh < Ho; ++oh)
        for (uint32_t ow = 0; ow < Wo; ++ow)
          for (uint32_t c = 0; c < C; ++c) {
            const double want = onnx_resize_at(x, H, W, C, nn, c, oh, ow, Ho, Wo, transform, interp, nearest, exclude, A);
            // 16 taps of |value| <= 1 with weights up to ~1.5 in magnitude.
            ASSERT_NEAR(y[((size_t{nn} * Ho + oh) * Wo + ow) * C + c], want, 2e-5)
                << "trial " << trial << " mode " << transform << "/" << interp << "/" << nearest;
          }
  }
}

TEST(Resize, Rules) {
  auto node = [] { return Node{"Resize", "r", {f32({1, 2, 2, 3})}, {f32({1, 4, 4, 3})}, {}}; };
  EXPECT_TRUE(node().prepare().ok());
  Node tm = node();
  tm.params.push_back(u32_param("transformation_mode", 4));
  EXPECT_STATUS(tm.prepare(), StatusCode::kInvalidArgument, "parameter 'transformation_mode' is 4");
  Node im = node();
  im.params.push_back(u32_param("interpolation_mode", 3));
  EXPECT_STATUS(im.prepare(), StatusCode::kInvalidArgument, "parameter 'interpolation_mode' is 3");
  Node nm = node();
  nm.params.push_back(u32_param("nearest_mode", 4));
  EXPECT_STATUS(nm.prepare(), StatusCode::kInvalidArgument, "parameter 'nearest_mode' is 4");
  Node ch = node();
  ch.outputs[0] = f32({1, 4, 4, 2});
  EXPECT_STATUS(ch.prepare(), StatusCode::kInvalidArgument, "out[0] dim 3 (channels) is 2, expected 3");
  Node batch = node();
  batch.outputs[0] = f32({2, 4, 4, 3});
  EXPECT_STATUS(batch.prepare(), StatusCode::kInvalidArgument, "out[0] dim 0 (batch) is 2, expected 1");
  Node rank{"Resize", "r", {f32({2, 3})}, {f32({2, 3})}, {}};
  EXPECT_STATUS(rank.prepare(), StatusCode::kInvalidArgument, "in[0] rank is 2, expected 3 to 5");
  Node flags = node();
  flags.params.push_back(bool_param("align_corners", true));
  EXPECT_STATUS(flags.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'align_corners'");
}

// ---------------- ResizeBilinear / ResizeNearestNeighbor ----------------

std::vector<float> tf_run(const char* type, std::vector<float> x, uint32_t out_w, bool align, bool half) {
  Node n{type, "r", {f32({1, 1, static_cast<uint32_t>(x.size()), 1})}, {f32({1, 1, out_w, 1})},
         {bool_param("align_corners", align), bool_param("half_pixel_centers", half)}};
  return n.run({&x});
}

TEST(ResizeBilinear, HandComputed) {
  // [0 10] -> 4. Neither flag: x_in = o/2 -> 0, .5, 1, 1.5 (clamped) -> 0 5 10 10.
  EXPECT_EQ(tf_run("ResizeBilinear", {0, 10}, 4, false, false), (std::vector<float>{0, 5, 10, 10}));
  // half_pixel_centers: x_in = (o+.5)/2 - .5 = -.25, .25, .75, 1.25 -> 0 2.5 7.5 10.
  EXPECT_EQ(tf_run("ResizeBilinear", {0, 10}, 4, false, true), (std::vector<float>{0, 2.5f, 7.5f, 10}));
  // align_corners: x_in = o/3 -> 0, 10/3, 20/3, 10.
  std::vector<float> ac = tf_run("ResizeBilinear", {0, 10}, 4, true, false);
  ASSERT_EQ(ac.size(), 4u);
  EXPECT_NEAR(ac[1], 10.0 / 3, 1e-5);
  EXPECT_NEAR(ac[2], 20.0 / 3, 1e-5);
  EXPECT_EQ(ac[3], 10);
}

TEST(ResizeNearestNeighbor, HandComputed) {
  // [10 20 30] -> 5.
  // Neither: floor(o * 3/5) = 0 0 1 1 2.
  EXPECT_EQ(tf_run("ResizeNearestNeighbor", {10, 20, 30}, 5, false, false), (std::vector<float>{10, 10, 20, 20, 30}));
  // align_corners: round_half_away(o * 2/4) = round(0, .5, 1, 1.5, 2) = 0 1 1 2 2.
  EXPECT_EQ(tf_run("ResizeNearestNeighbor", {10, 20, 30}, 5, true, false), (std::vector<float>{10, 20, 20, 30, 30}));
  // half_pixel_centers: floor((o + .5) * 3/5) = floor(.3, .9, 1.5, 2.1, 2.7) = 0 0 1 2 2.
  EXPECT_EQ(tf_run("ResizeNearestNeighbor", {10, 20, 30}, 5, false, true), (std::vector<float>{10, 10, 20, 30, 30}));
  // Downsampling 5 -> 2 with half_pixel_centers: floor(1.25), floor(3.75) = 1, 3.
  EXPECT_EQ(tf_run("ResizeNearestNeighbor", {1, 2, 3, 4, 5}, 2, false, true), (std::vector<float>{2, 4}));
}

TEST(ResizeBilinear, Rules) {
  for (const char* type : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    Node both{type, "rb", {f32({1, 2, 2, 1})}, {f32({1, 4, 4, 1})},
              {bool_param("align_corners", true), bool_param("half_pixel_centers", true)}};
    EXPECT_STATUS(both.prepare(), StatusCode::kInvalidArgument,
                  "'align_corners' and 'half_pixel_centers' are both 1");
    Node rank{type, "rb", {f32({1, 2, 1})}, {f32({1, 4, 1})}, {}};
    EXPECT_STATUS(rank.prepare(), StatusCode::kInvalidArgument, "in[0] rank is 3, expected 4");
    Node ch{type, "rb", {f32({1, 2, 2, 1})}, {f32({1, 4, 4, 2})}, {}};
    EXPECT_STATUS(ch.prepare(), StatusCode::kInvalidArgument, "out[0] dim 3 (channels) is 2, expected 1");
    Node unknown{type, "rb", {f32({1, 2, 2, 1})}, {f32({1, 4, 4, 1})}, {u32_param("interpolation_mode", 1)}};
    EXPECT_STATUS(unknown.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'interpolation_mode'");
  }
}

}  // namespace
}  // namespace opstest
