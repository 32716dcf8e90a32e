// The ONNX ops mapped onto the indexing / image / composed QNN ops
// (lower_indexing.cpp, lower_vision.cpp, lower_composite.cpp): each model is
// built here, imported into a context of libQnnHtp, run, and compared with
// the op's formula written in the test (numpy-style loops).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "QnnInterface.h"
#include "import_and_run.h"
#include "model_builder.h"
#include "onnx/backend_session.h"
#include "onnx/importer.h"

namespace {

using namespace openhtp::onnx_import;
using onnx_test::ModelBuilder;
using onnx_test::as_f32;
using onnx_test::f32_bytes;
using onnx_test::i32_bytes;
using onnx_test::run_model;

constexpr int32_t kF = 1, kI64 = 7, kBool = 9;


std::vector<float> ramp(size_t n, double a, double b) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(std::sin(a * static_cast<double>(i) + b) * 2.0);
  return v;
}

void expect_close(const std::vector<float>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol + 1e-5 * std::fabs(want[i])) << "[" << i << "]";
}

TEST(OnnxNewOps, WhereSelectsWithBroadcasting) {
  ModelBuilder b;
  b.input("c", {2, 1}, kBool).input("a", {2, 3}).input("x", {3}).output("y", {2, 3});
  b.node("Where", "w", {"c", "a", "x"}, {"y"});
  const std::vector<float> a = ramp(6, 0.7, 0.1), x = {10.0f, 20.0f, 30.0f};
  const auto out = run_model(b.model(), {{1, 0}, f32_bytes(a), f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) want.push_back(i == 0 ? a[i * 3 + j] : x[j]);
  expect_close(as_f32(out[0]), want, 0.0);
}

TEST(OnnxNewOps, GatherElementsWithNegativeIndices) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("y", {2, 2});
  b.int64_initializer("i", {2, 2}, {0, -1, 2, 1});
  ModelBuilder::i(b.node("GatherElements", "g", {"x", "i"}, {"y"}), "axis", 1);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  // y[i][j] = x[i][idx[i][j] mod 3]
  expect_close(as_f32(out[0]), {1, 3, 6, 5}, 0.0);
}

TEST(OnnxNewOps, GatherNdPicksTuples) {
  ModelBuilder b;
  b.input("x", {2, 2, 2}).output("y", {2, 2});
  b.int64_initializer("i", {2, 2}, {0, 1, 1, 0});
  b.node("GatherND", "g", {"x", "i"}, {"y"});
  const std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7};
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  expect_close(as_f32(out[0]), {2, 3, 4, 5}, 0.0);  // x[0][1][:], x[1][0][:]
}

TEST(OnnxNewOps, ScatterElementsAddAndScatterNd) {
  ModelBuilder b(16);
  b.input("x", {2, 3}).input("u", {2, 2}).input("v", {1, 3}).output("y", {2, 3}).output("z", {2, 3});
  b.int64_initializer("i", {2, 2}, {2, 2, 0, 1});
  b.int64_initializer("t", {1, 1}, {1});
  auto& s = b.node("ScatterElements", "s", {"x", "i", "u"}, {"y"});
  ModelBuilder::i(s, "axis", 1);
  auto* r = s.add_attribute();
  r->set_name("reduction");
  r->set_type(onnx::AttributeProto::STRING);
  r->set_s("add");
  b.node("ScatterND", "n", {"x", "t", "v"}, {"z"});
  const std::vector<float> x = {1, 2, 3, 4, 5, 6}, u = {10, 20, 30, 40}, v = {7, 8, 9};
  const auto out = run_model(b.model(), {f32_bytes(x), f32_bytes(u), f32_bytes(v)});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> y(x.begin(), x.end());
  const int idx[4] = {2, 2, 0, 1};
  for (int k = 0; k < 4; ++k) y[(k / 2) * 3 + idx[k]] += u[k];
  expect_close(as_f32(out[0]), y, 0.0);
  expect_close(as_f32(out[1]), {1, 2, 3, 7, 8, 9}, 0.0);
}

// MaxPool's indices output (ONNX output 1, INT64 -> INT_32): the flat offset
// of each window's first maximum in X, row-major or (storage_order 1)
// column-major over the spatial axes, computed here by scanning each window.
TEST(OnnxNewOps, MaxPoolIndicesAreTheFirstMaximumsFlatOffsets) {
  constexpr int64_t N = 2, C = 3, H = 5, W = 6, K = 3, S = 2, P = 1;
  constexpr int64_t Ho = (H + 2 * P - K) / S + 1, Wo = (W + 2 * P - K) / S + 1;
  // Values with ties (rounded to 0.5), so "first maximum" is exercised.
  std::vector<float> x = ramp(N * C * H * W, 0.91, 0.3);
  for (float& v : x) v = std::round(v * 2.0f) / 2.0f;
  for (int64_t order : {0, 1}) {
    ModelBuilder b;
    b.input("x", {N, C, H, W}).output("y", {N, C, Ho, Wo}).output("z", {N, C, Ho, Wo}, kI64);
    auto& n = b.node("MaxPool", "mp", {"x"}, {"y", "z"});
    ModelBuilder::ints(n, "kernel_shape", {K, K});
    ModelBuilder::ints(n, "strides", {S, S});
    ModelBuilder::ints(n, "pads", {P, P, P, P});
    ModelBuilder::i(n, "storage_order", order);
    const auto out = run_model(b.model(), {f32_bytes(x)});
    ASSERT_EQ(out.size(), 2u);
    std::vector<double> want_y;
    std::vector<int32_t> want_z;
    for (int64_t ni = 0; ni < N; ++ni)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t oh = 0; oh < Ho; ++oh)
          for (int64_t ow = 0; ow < Wo; ++ow) {
            float best = -INFINITY;
            int64_t at = -1;
            for (int64_t kh = 0; kh < K; ++kh)
              for (int64_t kw = 0; kw < K; ++kw) {
                const int64_t h = oh * S - P + kh, w = ow * S - P + kw;
                if (h < 0 || h >= H || w < 0 || w >= W) continue;
                const float v = x[((ni * C + c) * H + h) * W + w];
                if (v > best) {
                  best = v;
                  at = (ni * C + c) * H * W + (order == 0 ? h * W + w : w * H + h);
                }
              }
            want_y.push_back(best);
            want_z.push_back(static_cast<int32_t>(at));
          }
    expect_close(as_f32(out[0]), want_y, 0.0);
    std::vector<int32_t> z(out[1].size() / 4);
    std::memcpy(z.data(), out[1].data(), out[1].size());
    EXPECT_EQ(z, want_z) << "storage_order " << order;
  }
}

// Resize with tf_crop_and_resize: TensorFlow's crop_and_resize (QNN's
// CropAndResize), each image cropped to the roi's H and W range and sampled
// bilinearly; samples outside the image are extrapolation_value. The formula
// is ONNX's, written out here.
TEST(OnnxNewOps, ResizeTfCropAndResizeSamplesTheRoi) {
  constexpr int64_t N = 2, C = 2, H = 5, W = 6, Ho = 4, Wo = 5;
  const std::vector<float> roi = {0, 0, 0.2f, 0.1f, 1, 1, 0.9f, 1.15f};  // x ends past the image
  const std::vector<float> x = ramp(N * C * H * W, 0.37, 0.2);
  ModelBuilder b(13);
  b.input("x", {N, C, H, W}).output("y", {N, C, Ho, Wo});
  b.initializer("roi", {8}, roi);
  b.int64_initializer("sizes", {4}, {N, C, Ho, Wo});
  auto& n = b.node("Resize", "r", {"x", "roi", "", "sizes"}, {"y"});
  for (auto [name, value] : {std::pair{"coordinate_transformation_mode", "tf_crop_and_resize"},
                             std::pair{"mode", "linear"}}) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(value);
  }
  ModelBuilder::f(n, "extrapolation_value", 7.0f);
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  auto coord = [](double start, double end, int64_t in, int64_t out_len, int64_t o) {
    return start * (in - 1) + o * (end - start) * (in - 1) / static_cast<double>(out_len - 1);
  };
  std::vector<double> want;
  for (int64_t ni = 0; ni < N; ++ni)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t oh = 0; oh < Ho; ++oh)
        for (int64_t ow = 0; ow < Wo; ++ow) {
          const double yc = coord(roi[2], roi[6], H, Ho, oh), xc = coord(roi[3], roi[7], W, Wo, ow);
          if (yc < 0 || yc > H - 1 || xc < 0 || xc > W - 1) {
            want.push_back(7.0);
            continue;
          }
          const int64_t y0 = static_cast<int64_t>(std::floor(yc)), x0 = static_cast<int64_t>(std::floor(xc));
          const int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
          const double fy = yc - y0, fx = xc - x0;
          auto at = [&](int64_t h, int64_t w) { return double{x[((ni * C + c) * H + h) * W + w]}; };
          want.push_back((1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x1)) +
                         fy * ((1 - fx) * at(y1, x0) + fx * at(y1, x1)));
        }
  expect_close(as_f32(out[0]), want, 1e-5);
}

// Resize forms QNN Resize cannot express (scales with no whole multiple of
// the input size; cubic exclude_outside off the size ratio) are lowered as
// per-axis interpolation matrices. Checked against ONNX's formulas written
// out here: bilinear half_pixel with the coordinate clamped to the input,
// nearest asymmetric rounding down, and Keys cubic (a = -0.5) with the taps
// outside the input dropped and the rest renormalised.
onnx::ModelProto resize_by_scales(const std::string& mode, const std::string& ctm, int64_t h, int64_t w,
                                  int64_t oh, int64_t ow, float sh, float sw, bool exclude_outside,
                                  const std::string& nearest_mode = "floor") {
  ModelBuilder b(13);
  b.input("x", {1, 2, h, w}).output("y", {1, 2, oh, ow});
  b.initializer("roi", {0}, {});
  b.initializer("scales", {4}, {1, 1, sh, sw});
  auto& n = b.node("Resize", "r", {"x", "roi", "scales"}, {"y"});
  for (auto [name, value] : {std::pair{"coordinate_transformation_mode", ctm}, std::pair{"mode", mode},
                             std::pair{"nearest_mode", nearest_mode}}) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(value);
  }
  if (mode == "cubic") ModelBuilder::f(n, "cubic_coeff_a", -0.5f);
  ModelBuilder::i(n, "exclude_outside", exclude_outside ? 1 : 0);
  return b.model();
}

TEST(OnnxNewOps, ResizeWithoutAQnnFormRunsAsInterpolationMatrices) {
  constexpr int64_t H = 5, W = 7;
  const float sh = 0.70710678f, sw = 1.41421356f;  // no whole multiple of 5 * sh or 7 * sw up to 64x
  const int64_t OH = 3, OW = 9;                     // floor(5 * sh), floor(7 * sw)
  const std::vector<float> x = ramp(2 * H * W, 0.61, -3.0);
  auto at = [&](int64_t c, int64_t i, int64_t j) { return double{x[(c * H + i) * W + j]}; };
  {
    QnnGraphDesc desc;
    const auto out =
        run_model(resize_by_scales("linear", "half_pixel", H, W, OH, OW, sh, sw, false), {f32_bytes(x)}, &desc);
    ASSERT_EQ(out.size(), 1u);
    size_t matmuls = 0, resizes = 0;
    for (const auto& node : desc.nodes) {
      matmuls += node.type == "MatMul" ? 1 : 0;
      resizes += node.type == "Resize" ? 1 : 0;
    }
    EXPECT_EQ(matmuls, 2u);
    EXPECT_EQ(resizes, 0u);
    auto coord = [](int64_t o, double s, int64_t in) {
      return std::clamp((o + 0.5) / s - 0.5, 0.0, static_cast<double>(in - 1));
    };
    std::vector<double> want;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t o = 0; o < OH; ++o)
        for (int64_t p = 0; p < OW; ++p) {
          const double yc = coord(o, sh, H), xc = coord(p, sw, W);
          const int64_t y0 = static_cast<int64_t>(yc), x0 = static_cast<int64_t>(xc);
          const int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
          const double fy = yc - y0, fx = xc - x0;
          want.push_back((1 - fy) * ((1 - fx) * at(c, y0, x0) + fx * at(c, y0, x1)) +
                         fy * ((1 - fx) * at(c, y1, x0) + fx * at(c, y1, x1)));
        }
    expect_close(as_f32(out[0]), want, 1e-5);
  }
  {
    const auto out = run_model(resize_by_scales("nearest", "asymmetric", H, W, OH, OW, sh, sw, false), {f32_bytes(x)});
    ASSERT_EQ(out.size(), 1u);
    std::vector<double> want;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t o = 0; o < OH; ++o)
        for (int64_t p = 0; p < OW; ++p) {
          want.push_back(at(c, std::min<int64_t>(static_cast<int64_t>(o / static_cast<double>(sh)), H - 1),
                            std::min<int64_t>(static_cast<int64_t>(p / static_cast<double>(sw)), W - 1)));
        }
    expect_close(as_f32(out[0]), want, 0.0);
  }
  {
    // Cubic, exclude_outside, scale 0.8 on 5 -> 4 and 7 -> 5 (floor 5.6).
    const int64_t oh = 4, ow = 5;
    const auto out = run_model(resize_by_scales("cubic", "half_pixel", H, W, oh, ow, 0.8f, 0.8f, true), {f32_bytes(x)});
    ASSERT_EQ(out.size(), 1u);
    auto keys = [](double d) {  // a = -0.5
      d = std::fabs(d);
      return d <= 1 ? (1.5 * d - 2.5) * d * d + 1 : d < 2 ? ((-0.5 * d + 2.5) * d - 4) * d + 2 : 0.0;
    };
    auto weights = [&](int64_t o, int64_t in) {  // tap index -> weight, renormalised over the input
      const double xc = (o + 0.5) / static_cast<double>(0.8f) - 0.5;
      std::vector<double> wt(in, 0.0);
      double sum = 0;
      for (int64_t i = 0; i < in; ++i) {
        if (std::fabs(xc - i) < 2) wt[i] = keys(xc - i);
        sum += wt[i];
      }
      for (double& v : wt) v /= sum;
      return wt;
    };
    std::vector<double> want;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t o = 0; o < oh; ++o)
        for (int64_t p = 0; p < ow; ++p) {
          const std::vector<double> wy = weights(o, H), wx = weights(p, W);
          double v = 0;
          for (int64_t i = 0; i < H; ++i)
            for (int64_t j = 0; j < W; ++j) v += wy[i] * wx[j] * at(c, i, j);
          want.push_back(v);
        }
    expect_close(as_f32(out[0]), want, 1e-5);
  }
}

// Nearest with a float scale that is not out/in exactly (0.6f is
// 0.60000002, 0.8f 0.80000001): ONNX samples x = o / s with the float scale,
// so 3 / 0.6f = 4.9999998 floors to 4 and 2 / 0.8f = 2.49999996 rounds (ties
// up) to 2, where the size ratio 10/6 or 5/4 would give 5 and 3. Such axes
// are picked by Gathers of the samples ONNX's rule gives.
TEST(OnnxNewOps, ResizeNearestFollowsTheFloatScaleAtTies) {
  constexpr int64_t H = 10, W = 5, OH = 6, OW = 4;
  const float sh = 0.6f, sw = 0.8f;
  std::vector<float> x(2 * H * W);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  for (const std::string nm : {"floor", "round_prefer_ceil"}) {
    QnnGraphDesc desc;
    const auto out = run_model(resize_by_scales("nearest", "asymmetric", H, W, OH, OW, sh, sw, false, nm),
                               {f32_bytes(x)}, &desc);
    ASSERT_EQ(out.size(), 1u);
    size_t gathers = 0;
    for (const auto& node : desc.nodes) gathers += node.type == "Gather" ? 1 : 0;
    EXPECT_EQ(gathers, 2u) << nm;
    auto pick = [&](int64_t o, float s, int64_t in) {
      const double c = o / static_cast<double>(s);
      const double f = std::floor(c);
      const int64_t i = nm == "floor" ? static_cast<int64_t>(f) : static_cast<int64_t>(c - f >= 0.5 ? f + 1 : f);
      return std::min(i, in - 1);
    };
    std::vector<double> want;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t o = 0; o < OH; ++o)
        for (int64_t p = 0; p < OW; ++p) want.push_back(x[(c * H + pick(o, sh, H)) * W + pick(p, sw, W)]);
    expect_close(as_f32(out[0]), want, 0.0);
  }
}

TEST(OnnxNewOps, TileRepeats) {
  ModelBuilder b;
  b.input("x", {2, 2}).output("y", {4, 6});
  b.int64_initializer("r", {2}, {2, 3});
  b.node("Tile", "t", {"x", "r"}, {"y"});
  const std::vector<float> x = {1, 2, 3, 4};
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) want.push_back(x[(i % 2) * 2 + j % 2]);
  expect_close(as_f32(out[0]), want, 0.0);
}

TEST(OnnxNewOps, CumSumConstantAndRunTimeAxis) {
  for (int axis : {1, -2, 0}) {
    SCOPED_TRACE(axis);
    ModelBuilder b;
    b.input("x", {2, 3}).input("a", {}, kI64).output("y", {2, 3});
    auto& n = b.node("CumSum", "c", {"x", "a"}, {"y"});
    ModelBuilder::i(n, "reverse", 1);
    const std::vector<float> x = {1, 2, 3, 4, 5, 6};
    const auto out = run_model(b.model(), {f32_bytes(x), i32_bytes({axis})});
    ASSERT_EQ(out.size(), 1u);
    const int ax = axis < 0 ? axis + 2 : axis;
    std::vector<double> want(6, 0.0);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = ax == 0 ? i : j; k < (ax == 0 ? 2 : 3); ++k) want[i * 3 + j] += ax == 0 ? x[k * 3 + j] : x[i * 3 + k];
    expect_close(as_f32(out[0]), want, 0.0);
  }
}

TEST(OnnxNewOps, OneHotWithConstantDepthAndValues) {
  ModelBuilder b;
  b.input("i", {3}, kI64).output("y", {4, 3});
  b.int64_initializer("d", {}, {4});
  b.initializer("v", {2}, {-1.0f, 5.0f});
  ModelBuilder::i(b.node("OneHot", "o", {"i", "d", "v"}, {"y"}), "axis", 0);
  const std::vector<int32_t> idx = {0, 3, -1};
  const auto out = run_model(b.model(), {i32_bytes(idx)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want;
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < 3; ++k) want.push_back(((idx[k] + 4) % 4) == d ? 5.0 : -1.0);
  expect_close(as_f32(out[0]), want, 0.0);
}

TEST(OnnxNewOps, IsInfAndIsNan) {
  ModelBuilder b;
  b.input("x", {4}).output("p", {4}, kBool).output("n", {4}, kBool);
  ModelBuilder::i(b.node("IsInf", "inf", {"x"}, {"p"}), "detect_negative", 0);
  b.node("IsNaN", "nan", {"x"}, {"n"});
  const std::vector<float> x = {INFINITY, -INFINITY, NAN, 1.0f};
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(out[1], (std::vector<uint8_t>{0, 0, 1, 0}));
}

// DepthToSpace (CRD) on NCHW, through the NHWC layout.
TEST(OnnxNewOps, DepthToSpaceCrd) {
  ModelBuilder b;
  b.input("x", {1, 8, 2, 3}).output("y", {1, 2, 4, 6});
  auto& d = b.node("DepthToSpace", "d2s", {"x"}, {"y"});
  ModelBuilder::i(d, "blocksize", 2);
  auto* m = d.add_attribute();
  m->set_name("mode");
  m->set_type(onnx::AttributeProto::STRING);
  m->set_s("CRD");
  std::vector<float> x(48);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  // CRD: y[c][h*2+i][w*2+j] = x[c*4 + i*2 + j][h][w]
  std::vector<double> y(48);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 3; ++w)
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j) y[(c * 4 + h * 2 + i) * 6 + w * 2 + j] = x[((c * 4 + i * 2 + j) * 2 + h) * 3 + w];
  expect_close(as_f32(out[0]), y, 0.0);
}

TEST(OnnxNewOps, SpaceToDepth) {
  ModelBuilder b;
  b.input("x", {1, 2, 4, 4}).output("z", {1, 8, 2, 2});
  ModelBuilder::i(b.node("SpaceToDepth", "s2d", {"x"}, {"z"}), "blocksize", 2);
  std::vector<float> x(32);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  // z[(i*2+j)*C + c][h][w] = x[c][h*2+i][w*2+j]
  std::vector<double> z(32);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 2; ++w)
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j) z[(((i * 2 + j) * 2 + c) * 2 + h) * 2 + w] = x[(c * 4 + h * 2 + i) * 4 + w * 2 + j];
  expect_close(as_f32(out[0]), z, 0.0);
}

TEST(OnnxNewOps, LrnDividesAlphaBySize) {
  ModelBuilder b;
  b.input("x", {1, 5, 2, 2}).output("y", {1, 5, 2, 2});
  auto& n = b.node("LRN", "lrn", {"x"}, {"y"});
  ModelBuilder::i(n, "size", 3);
  ModelBuilder::f(n, "alpha", 0.3f);
  ModelBuilder::f(n, "beta", 0.75f);
  ModelBuilder::f(n, "bias", 2.0f);
  const std::vector<float> x = ramp(20, 0.9, 0.3);
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want(20);
  for (int c = 0; c < 5; ++c)
    for (int p = 0; p < 4; ++p) {
      double sq = 0.0;
      for (int k = std::max(0, c - 1); k <= std::min(4, c + 1); ++k) sq += double{x[k * 4 + p]} * x[k * 4 + p];
      want[c * 4 + p] = x[c * 4 + p] / std::pow(2.0 + 0.3 / 3.0 * sq, 0.75);
    }
  expect_close(as_f32(out[0]), want, 1e-5);
}

// GridSample nearest, align_corners: grid points at pixel centres pick pixels.
TEST(OnnxNewOps, GridSampleNearestPicksPixels) {
  ModelBuilder b(16);
  b.input("x", {1, 2, 3, 3}).input("g", {1, 1, 3, 2}).output("y", {1, 2, 1, 3});
  auto& n = b.node("GridSample", "gs", {"x", "g"}, {"y"});
  ModelBuilder::i(n, "align_corners", 1);
  auto* m = n.add_attribute();
  m->set_name("mode");
  m->set_type(onnx::AttributeProto::STRING);
  m->set_s("nearest");
  std::vector<float> x(18);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  // (x, y) normalized: (-1,-1) -> (0,0); (0,1) -> col 1,row 2; (1,0) -> col 2,row 1.
  const std::vector<float> g = {-1, -1, 0, 1, 1, 0};
  const auto out = run_model(b.model(), {f32_bytes(x), f32_bytes(g)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want;
  const int rows[3] = {0, 2, 1}, cols[3] = {0, 1, 2};
  for (int c = 0; c < 2; ++c)
    for (int k = 0; k < 3; ++k) want.push_back(x[(c * 3 + rows[k]) * 3 + cols[k]]);
  expect_close(as_f32(out[0]), want, 0.0);
}

// RoiAlign avg on x[c][h][w] = w + 10c (linear in w): every bin's bilinear
// mean is its centre's w; rois inside the map, sampling_ratio 2, half_pixel.
TEST(OnnxNewOps, RoiAlignAveragesBins) {
  ModelBuilder b(16);
  b.input("x", {1, 2, 6, 6}).input("r", {1, 4}).output("y", {1, 2, 2, 2});
  b.int64_initializer("bi", {1}, {0});
  auto& n = b.node("RoiAlign", "ra", {"x", "r", "bi"}, {"y"});
  ModelBuilder::i(n, "output_height", 2);
  ModelBuilder::i(n, "output_width", 2);
  ModelBuilder::i(n, "sampling_ratio", 2);
  std::vector<float> x(72);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 6; ++h)
      for (int w = 0; w < 6; ++w) x[(c * 6 + h) * 6 + w] = static_cast<float>(w + 10 * c);
  const std::vector<float> roi = {1.5f, 1.5f, 4.5f, 3.5f};  // x1, y1, x2, y2
  const auto out = run_model(b.model(), {f32_bytes(x), f32_bytes(roi)});
  ASSERT_EQ(out.size(), 1u);
  // half_pixel: roi on the map x in [1, 4]; bins of width 1.5, centres 1.75 and 3.25.
  std::vector<double> want;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) want.push_back((j == 0 ? 1.75 : 3.25) + 10 * c);
  expect_close(as_f32(out[0]), want, 1e-5);
}

// The lone-Erf composition against std::erf over [-6, 6]: max error < 2e-7.
TEST(OnnxNewOps, ErfCompositionIsAccurate) {
  constexpr int kN = 24001;
  ModelBuilder b;
  b.input("x", {kN}).output("y", {kN});
  b.node("Erf", "erf", {"x"}, {"y"});
  std::vector<float> x(kN);
  for (int i = 0; i < kN; ++i) x[i] = static_cast<float>(-6.0 + 12.0 * i / (kN - 1));
  x[kN / 2] = 0.0f;
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> y = as_f32(out[0]);
  double worst = 0.0;
  float at = 0.0f;
  for (int i = 0; i < kN; ++i) {
    const double e = std::fabs(double{y[i]} - std::erf(double{x[i]}));
    if (e > worst) worst = e, at = x[i];
  }
  EXPECT_LT(worst, 2e-7) << "at x = " << at;
  EXPECT_EQ(y[kN / 2], 0.0f);
}

// x * 0.5 * (1 + Erf(x / sqrt 2)) in the three usual orders -> one QNN Gelu.
TEST(OnnxNewOps, GeluPatternBecomesQnnGelu) {
  for (int order = 0; order < 3; ++order) {
    SCOPED_TRACE(order);
    ModelBuilder b;
    b.input("x", {8}).output("y", {8});
    b.initializer("s2", {}, {1.41421356f}).initializer("one", {}, {1.0f}).initializer("half", {}, {0.5f});
    b.node("Div", "d", {"x", "s2"}, {"d"});
    b.node("Erf", "e", {"d"}, {"e"});
    b.node("Add", "a", {"e", "one"}, {"a"});
    if (order == 0) {
      b.node("Mul", "m1", {"x", "a"}, {"m1"});
      b.node("Mul", "m2", {"m1", "half"}, {"y"});
    } else if (order == 1) {
      b.node("Mul", "h", {"x", "half"}, {"h"});
      b.node("Mul", "m1", {"h", "a"}, {"y"});
    } else {
      b.node("Mul", "m1", {"a", "half"}, {"m1"});
      b.node("Mul", "m2", {"x", "m1"}, {"y"});
    }
    const std::vector<float> x = ramp(8, 0.8, 0.2);
    QnnGraphDesc desc;
    const auto out = run_model(b.model(), {f32_bytes(x)}, &desc);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(desc.nodes.size(), 1u);
    EXPECT_EQ(desc.nodes[0].type, "Gelu");
    std::vector<double> want;
    for (float v : x) want.push_back(v * 0.5 * (1.0 + std::erf(v / std::sqrt(2.0))));
    expect_close(as_f32(out[0]), want, 1e-6);
  }
}

// The nine-node LayerNorm exporters write below opset 17 becomes one QNN
// LayerNorm (src/onnx/layer_norm_fusion.h): with Pow or Mul(d, d) as the
// square, with and without beta, gamma/beta on either side; the values match
// the formula written here. An intermediate that is also a graph output
// keeps the pattern as it is (and still computes the same).
TEST(OnnxNewOps, DecomposedLayerNormBecomesQnnLayerNorm) {
  const int64_t rows = 3, c = 8;
  const std::vector<float> x = ramp(rows * c, -1.3, 0.37);
  std::vector<float> gamma(c), beta(c);
  for (int64_t k = 0; k < c; ++k) gamma[k] = 0.5f + 0.1f * k, beta[k] = -0.2f + 0.05f * k;
  const float eps = 1e-5f;
  auto reference = [&](bool with_beta) {
    std::vector<double> y;
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t k = 0; k < c; ++k) mean += x[r * c + k];
      mean /= c;
      for (int64_t k = 0; k < c; ++k) var += (x[r * c + k] - mean) * (x[r * c + k] - mean);
      var /= c;
      for (int64_t k = 0; k < c; ++k) {
        y.push_back((x[r * c + k] - mean) / std::sqrt(var + eps) * gamma[k] + (with_beta ? beta[k] : 0.0));
      }
    }
    return y;
  };
  for (int variant = 0; variant < 4; ++variant) {
    SCOPED_TRACE(variant);
    const bool with_beta = variant != 2, mul_square = variant == 1, exposed = variant == 3;
    ModelBuilder b;
    b.input("x", {rows, c}).output("y", {rows, c});
    if (exposed) b.output("d", {rows, c});
    b.initializer("two", {}, {2.0f}).initializer("eps", {}, {eps});
    b.initializer("gamma", {c}, gamma).initializer("beta", {c}, beta);
    ModelBuilder::ints(b.node("ReduceMean", "m", {"x"}, {"m"}), "axes", {-1});
    b.node("Sub", "sub", {"x", "m"}, {"d"});
    if (mul_square) b.node("Mul", "sq", {"d", "d"}, {"p"});
    else b.node("Pow", "sq", {"d", "two"}, {"p"});
    ModelBuilder::ints(b.node("ReduceMean", "v", {"p"}, {"v"}), "axes", {1});
    b.node("Add", "ve", {"eps", "v"}, {"ve"});
    b.node("Sqrt", "s", {"ve"}, {"s"});
    b.node("Div", "n", {"d", "s"}, {"n"});
    b.node("Mul", "g", {"gamma", "n"}, {with_beta ? "g" : "y"});
    if (with_beta) b.node("Add", "bias", {"g", "beta"}, {"y"});
    QnnGraphDesc desc;
    const auto out = run_model(b.model(), {f32_bytes(x)}, &desc);
    ASSERT_GE(out.size(), 1u);
    size_t layer_norms = 0;
    for (const auto& n : desc.nodes) layer_norms += n.type == "LayerNorm";
    EXPECT_EQ(layer_norms, exposed ? 0u : 1u);
    if (!exposed) {
      EXPECT_EQ(desc.nodes.size(), 1u);
    }
    expect_close(as_f32(out[0]), reference(with_beta), 1e-5);
  }
}

TEST(OnnxNewOps, ComposedActivationsMatchTheirFormulas) {
  struct Case {
    const char* op;
    std::function<double(double)> f;
    double lo, hi;
  };
  const double selu_a = 1.6732632423543772, selu_g = 1.0507009873554805;
  const std::vector<Case> cases = {
      {"Selu", [&](double v) { return v > 0 ? selu_g * v : selu_g * selu_a * (std::exp(v) - 1); }, -3, 3},
      {"Celu", [](double v) { return std::max(0.0, v) + std::min(0.0, std::exp(v) - 1); }, -3, 3},
      {"Softsign", [](double v) { return v / (1 + std::fabs(v)); }, -3, 3},
      {"ThresholdedRelu", [](double v) { return v > 1.0 ? v : 0.0; }, -3, 3},
      {"Shrink", [](double v) { return v < -0.5 ? v : v > 0.5 ? v : 0.0; }, -3, 3},
      {"Tan", [](double v) { return std::tan(v); }, -1.2, 1.2},
      {"Sinh", [](double v) { return std::sinh(v); }, -3, 3},
      {"Cosh", [](double v) { return std::cosh(v); }, -3, 3},
      {"Asinh", [](double v) { return std::asinh(v); }, -3, 3},
      {"Acosh", [](double v) { return std::acosh(v); }, 1.5, 5},
      {"Atanh", [](double v) { return std::atanh(v); }, -0.9, 0.9},
      {"Acos", [](double v) { return std::acos(v); }, -0.95, 0.95},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    ModelBuilder b;
    b.input("x", {2, 9}).output("y", {2, 9});
    b.node(c.op, "n", {"x"}, {"y"});
    std::vector<float> x(18);
    for (int i = 0; i < 18; ++i) x[i] = static_cast<float>(c.lo + (c.hi - c.lo) * (i + 0.37) / 18.0);
    const auto out = run_model(b.model(), {f32_bytes(x)});
    ASSERT_EQ(out.size(), 1u);
    std::vector<double> want;
    for (float v : x) want.push_back(c.f(v));
    expect_close(as_f32(out[0]), want, 2e-5);
  }
}

TEST(OnnxNewOps, ComposedReductionsMatchTheirFormulas) {
  for (const char* op : {"ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}) {
    SCOPED_TRACE(op);
    ModelBuilder b;
    b.input("x", {2, 3, 4}).output("y", {2, 4});
    auto& n = b.node(op, "r", {"x"}, {"y"});
    ModelBuilder::ints(n, "axes", {1});
    ModelBuilder::i(n, "keepdims", 0);
    std::vector<float> x = ramp(24, 0.61, 0.4);
    if (std::string(op) == "ReduceLogSum") {
      for (float& v : x) v = std::fabs(v) + 0.1f;
    }
    if (std::string(op) == "ReduceLogSumExp") x[5] = 100.0f;  // exp(100) overflows float without the max shift
    const auto out = run_model(b.model(), {f32_bytes(x)});
    ASSERT_EQ(out.size(), 1u);
    std::vector<double> want;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) {
        double l1 = 0, l2 = 0, s = 0, se = 0;
        for (int j = 0; j < 3; ++j) {
          const double v = x[(i * 3 + j) * 4 + k];
          l1 += std::fabs(v), l2 += v * v, s += v, se += std::exp(v);
        }
        const std::string o = op;
        want.push_back(o == "ReduceL1" ? l1 : o == "ReduceL2" ? std::sqrt(l2) : o == "ReduceLogSum" ? std::log(s) : std::log(se));
      }
    expect_close(as_f32(out[0]), want, 1e-5);
  }
}

}  // namespace

namespace {

// Hardmax (opset 13, axis -1): 1 at the first maximum of each row.
TEST(OnnxNewOps, HardmaxMarksTheFirstMaximum) {
  ModelBuilder b;
  b.input("x", {3, 4}).output("y", {3, 4});
  b.node("Hardmax", "h", {"x"}, {"y"});
  const std::vector<float> x = {1, 3, 3, 2, -1, -5, -0.5f, -2, 7, 0, 0, 7};
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want(12, 0.0);
  for (int i = 0; i < 3; ++i) {
    int best = 0;
    for (int j = 1; j < 4; ++j) best = x[i * 4 + j] > x[i * 4 + best] ? j : best;
    want[i * 4 + best] = 1.0;
  }
  expect_close(as_f32(out[0]), want, 0.0);
}

// Trilu with a run-time k: upper keeps j - i >= k, lower j - i <= k.
TEST(OnnxNewOps, TriluWithRunTimeK) {
  for (int upper : {1, 0}) {
    for (int k : {-1, 0, 2}) {
      SCOPED_TRACE(std::to_string(upper) + " k " + std::to_string(k));
      ModelBuilder b(14);
      b.input("x", {2, 3, 4}).input("k", {}, kI64).output("y", {2, 3, 4});
      ModelBuilder::i(b.node("Trilu", "t", {"x", "k"}, {"y"}), "upper", upper);
      const std::vector<float> x = ramp(24, 0.5, 1.0);
      const auto out = run_model(b.model(), {f32_bytes(x), i32_bytes({k})});
      ASSERT_EQ(out.size(), 1u);
      std::vector<double> want;
      for (int n = 0; n < 2; ++n)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 4; ++j) {
            const bool keep = upper ? j - i >= k : j - i <= k;
            want.push_back(keep ? x[(n * 3 + i) * 4 + j] : 0.0);
          }
      expect_close(as_f32(out[0]), want, 0.0);
    }
  }
}

// Scatter (opset 10) is ScatterElements without reduction.
TEST(OnnxNewOps, LegacyScatterReplaces) {
  ModelBuilder b(10);
  b.input("x", {2, 3}).input("u", {1, 2}).output("y", {2, 3});
  b.int64_initializer("i", {1, 2}, {1, 0});
  ModelBuilder::i(b.node("Scatter", "s", {"x", "i", "u"}, {"y"}), "axis", 0);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6}, u = {10, 20};
  const auto out = run_model(b.model(), {f32_bytes(x), f32_bytes(u)});
  ASSERT_EQ(out.size(), 1u);
  // y[idx[0][j]][j] = u[0][j]: y[1][0] = 10, y[0][1] = 20.
  expect_close(as_f32(out[0]), {1, 20, 3, 10, 5, 6}, 0.0);
}

}  // namespace

namespace {

// x [1, 5, 8] times W [8, 6] plus B as `bias_dims`, then Relu: PyTorch's
// Linear on a 3-D input. With `product_out`, the MatMul's product is also a
// graph output (the Add may then not be folded into it).
onnx::ModelProto linear_relu(const std::vector<int64_t>& bias_dims, bool product_out) {
  ModelBuilder b;
  b.input("x", {1, 5, 8}).output("y", {1, 5, 6});
  if (product_out) b.output("t", {1, 5, 6});
  b.initializer("W", {8, 6}, ramp(48, 0.05, -1.1));
  b.initializer("B", bias_dims, ramp(6, 0.3, -0.8));
  b.node("MatMul", "mm", {"x", "W"}, {"t"});
  b.node("Add", "add", {"t", "B"}, {"u"});
  b.node("Relu", "relu", {"u"}, {"y"});
  return b.model();
}

}  // namespace

// A float Linear (MatMul + Add of a static row) runs as one MatMul with QNN's
// bias input (onnx/matmul_bias_folding.h), within float rounding of the
// formula computed here in double; not when the product is a graph output.
TEST(OnnxMatMulBias, FloatLinearIsOneMatMulWithBias) {
  const std::vector<float> x = ramp(40, 0.07, -1.3);
  const std::vector<float> w = ramp(48, 0.05, -1.1), bias = ramp(6, 0.3, -0.8);
  std::vector<double> want;
  for (int r = 0; r < 5; ++r) {
    for (int j = 0; j < 6; ++j) {
      double acc = bias[j];
      for (int k = 0; k < 8; ++k) acc += double{x[r * 8 + k]} * w[k * 6 + j];
      want.push_back(std::max(acc, 0.0));
    }
  }
  for (const std::vector<int64_t>& bias_dims : {std::vector<int64_t>{6}, std::vector<int64_t>{1, 1, 6}}) {
    for (const bool product_out : {false, true}) {
      QnnGraphDesc desc;
      const auto out = run_model(linear_relu(bias_dims, product_out), {f32_bytes(x)}, &desc);
      ASSERT_EQ(out.size(), product_out ? 2u : 1u);
      expect_close(as_f32(out[0]), want, 1e-5);
      size_t adds = 0, with_bias = 0;
      for (const auto& node : desc.nodes) {
        adds += node.type == "ElementWiseAdd" ? 1 : 0;
        with_bias += node.type == "MatMul" && node.inputs.size() == 3 ? 1 : 0;
      }
      EXPECT_EQ(adds, product_out ? 1u : 0u) << "bias rank " << bias_dims.size();
      EXPECT_EQ(with_bias, product_out ? 0u : 1u) << "bias rank " << bias_dims.size();
    }
  }
}

// Expand is a Tile of the input at the output's rank: no STATIC tensor of the
// output's size (it used to add a zeros constant of that shape, which made a
// [1,1] -> [20000,20000] Expand a 1.6 GB context binary), and the values are
// ONNX's broadcast: a rank-2 [3,1] expanded to [2,3,4].
TEST(OnnxNewOps, ExpandTilesWithoutAnOutputSizedConstant) {
  ModelBuilder b;
  b.input("x", {3, 1}).output("y", {2, 3, 4});
  b.int64_initializer("shape", {3}, {2, 1, 4});
  b.node("Expand", "e", {"x", "shape"}, {"y"});
  const std::vector<float> x = {1.5f, -2.0f, 7.0f};
  QnnGraphDesc desc;
  const auto out = run_model(b.model(), {f32_bytes(x)}, &desc);
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> want;
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) want.push_back(x[i]);
  expect_close(as_f32(out[0]), want, 0.0);
  for (const auto& t : desc.tensors) {
    EXPECT_FALSE(t.type == QNN_TENSOR_TYPE_STATIC && t.data.size() >= 24 * 4) << "static tensor " << t.name;
  }
  bool tile = false;
  for (const auto& n : desc.nodes) tile = tile || n.type == QNN_OP_TILE;
  EXPECT_TRUE(tile);
}
