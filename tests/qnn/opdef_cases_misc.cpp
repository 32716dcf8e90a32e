// The misc family (src/ops/reference/misc_group.cpp): Shape, ConstantOfShape,
// NonZero, Nv12ToRgb, Nv21ToRgb, Im2Col, Col2Im, ExtractPatches,
// HadamardTransform, Stft, ImageProjectionTransform. Expected values worked by hand or from the formula
// written here.
#include <algorithm>
#include <cmath>

#include "opdef_cases.h"

namespace qnntest::opdef {

OPDEF_CASES(misc) {
  CaseList cases;

  // Shape of a [2,3,4] tensor, dims [1, 3): {3, 4}.
  cases.push_back({"Shape", "dims start..end",
                   {f32({2, 3, 4}, std::vector<double>(24, 1.0))},
                   {scalar_i32("start", 1), scalar_i32("end", 3)},
                   {i32({2}, {3, 4})},
                   0.0});

  // ConstantOfShape: a static shape [2, 3] filled with 2.5.
  cases.push_back({"ConstantOfShape", "static shape, float value",
                   {fixed_static(i32({2}, {2, 3}))},
                   {scalar_f32("value", 2.5f)},
                   {f32({2, 3}, std::vector<double>(6, 2.5))},
                   0.0});

  // NonZero of [[0, 1, 0], [-2, 0, 3]]: (0,1), (1,0), (1,2), then 3 padding rows; count 3.
  cases.push_back({"NonZero", "indices row-major, padded, with count",
                   {f32({2, 3}, {0, 1, 0, -2, 0, 3})},
                   {},
                   {i32({6, 2}, {0, 1, 1, 0, 1, 2, 0, 0, 0, 0, 0, 0}), u32({1}, {3})},
                   0.0});

  // Nv12ToRgb / Nv21ToRgb, a 2x2 image (one chroma block U 90, V 170), BT.601
  // full range: R = Y + 1.402 (V-128), G = Y - 0.344136 (U-128) - 0.714136 (V-128),
  // B = Y + 1.772 (U-128), rounded, clamped to [0, 255].
  {
    const double Y[4] = {10, 50, 100, 200}, U = 90 - 128.0, V = 170 - 128.0;
    auto px = [](double v) { return std::min(255.0, std::max(0.0, std::round(v))); };
    std::vector<double> rgb, bgr;
    for (double y : Y) {
      const double r = px(y + 1.402 * V), g = px(y - 0.344136 * U - 0.714136 * V), b = px(y + 1.772 * U);
      rgb.insert(rgb.end(), {r, g, b});
      bgr.insert(bgr.end(), {b, g, r});
    }
    cases.push_back({"Nv12ToRgb", "2x2, BT.601 full range, RGB",
                     {Tensor{QNN_DATATYPE_UINT_8, {1, 6}, {10, 50, 100, 200, 90, 170}}},
                     {},
                     {Tensor{QNN_DATATYPE_UINT_8, {1, 2, 2, 3}, rgb}},
                     0.0});
    cases.push_back({"Nv21ToRgb", "2x2, V before U, BGR",
                     {Tensor{QNN_DATATYPE_UINT_8, {1, 3, 2}, {10, 50, 100, 200, 170, 90}}},
                     {scalar_u32("output_order", 1)},
                     {Tensor{QNN_DATATYPE_UINT_8, {1, 2, 2, 3}, bgr}},
                     0.0});
  }

  // Im2Col of a 3x3 image 1..9 with a 2x2 kernel, stride 1: four windows in (i, j) order.
  const std::vector<double> img = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  cases.push_back({"Im2Col", "2x2 windows of a 3x3 image",
                   {f32({1, 3, 3, 1}, img)},
                   {tensor_u32("kernel_size", {2}, {2, 2})},
                   {f32({1, 4, 4}, {1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9})}});

  // Col2Im of all-ones columns (2x2 kernel, stride 1, 3x3 image): each pixel
  // gets the number of windows covering it.
  cases.push_back({"Col2Im", "ones fold to window counts",
                   {f32({1, 4, 4}, std::vector<double>(16, 1.0))},
                   {tensor_u32("kernel_size", {2}, {2, 2})},
                   {f32({1, 3, 3, 1}, {1, 2, 1, 2, 4, 2, 1, 2, 1})}});

  // ExtractPatches SAME, 2x2 patches, stride 2: Ho = ceil(3/2) = 2, one row /
  // column of zero padding after the image.
  cases.push_back({"ExtractPatches", "SAME padding, stride 2",
                   {f32({1, 3, 3, 1}, img)},
                   {tensor_u32("size", {2}, {2, 2}), tensor_u32("stride", {2}, {2, 2}),
                    tensor_u32("rate", {2}, {1, 1}), scalar_u32("padding", 1)},
                   {f32({1, 2, 2, 4}, {1, 2, 4, 5, 3, 0, 6, 0, 7, 8, 0, 0, 9, 0, 0, 0})}});

  // HadamardTransform over the last axis (n = 8), scale 1/sqrt(8):
  // y_i = scale * sum_j (-1)^popcount(i & j) x_j.
  {
    std::vector<double> x, y;
    for (int r = 0; r < 2; ++r)
      for (int j = 0; j < 8; ++j) x.push_back(std::sin(1.0 + r * 8 + j));
    const double scale = 1.0 / std::sqrt(8.0);
    for (int r = 0; r < 2; ++r)
      for (int i = 0; i < 8; ++i) {
        double s = 0;
        for (int j = 0; j < 8; ++j) s += (__builtin_popcount(i & j) % 2 ? -1.0 : 1.0) * x[r * 8 + j];
        y.push_back(scale * s);
      }
    cases.push_back({"HadamardTransform", "n = 8, orthonormal scale",
                     {f32({2, 8}, x)},
                     {scalar_f32("scale", static_cast<float>(scale))},
                     {f32({2, 8}, y)},
                     1e-5});
  }
  // Stft, one real signal of 8 samples, frames of 4 with step 2 (3 frames),
  // one-sided (3 bins): X[f, k] = sum_n x[2f + n] exp(-2 pi i k n / 4).
  {
    const std::vector<double> x = {1, 0.5, -1, 2, 0, -0.5, 1.5, 1};
    std::vector<double> y;
    for (int f = 0; f < 3; ++f)
      for (int k = 0; k < 3; ++k) {
        double re = 0, im = 0;
        for (int n = 0; n < 4; ++n) {
          re += x[2 * f + n] * std::cos(2 * M_PI * k * n / 4);
          im -= x[2 * f + n] * std::sin(2 * M_PI * k * n / 4);
        }
        y.insert(y.end(), {re, im});
      }
    cases.push_back({"Stft", "real signal, rectangular window, one-sided",
                     {f32({1, 8}, x)},
                     {scalar_u32("frame_step", 2), scalar_u32("frame_length", 4)},
                     {f32({1, 3, 3, 2}, y)},
                     1e-5});
  }
  // ImageProjectionTransform, bilinear, x' = x + 0.5, y' = y + 1 on the 2x3
  // image {1,2,3 / 4,5,6}: row 0 reads row 1 between pixels: (4+5)/2, (5+6)/2,
  // (6+0)/2; row 1 reads below the image: 0.
  cases.push_back({"ImageProjectionTransform", "bilinear translation, fill 0",
                   {f32({1, 2, 3, 1}, {1, 2, 3, 4, 5, 6}), f32({1, 8}, {1, 0, 0.5, 0, 1, 1, 0, 0})},
                   {scalar_u32("interpolation_mode", 0)},
                   {f32({1, 2, 3, 1}, {4.5, 5.5, 3, 0, 0, 0})},
                   1e-6});
  return cases;
}

}  // namespace qnntest::opdef
