// The core family (src/ops/reference/core_group.cpp): the ops openhtp
// started with. Expected values from the formula in each case, in double.
#include <algorithm>
#include <cmath>

#include "opdef_cases.h"

namespace qnntest::opdef {
namespace {

using D = double;

// Conv2d's definition, NHWC x [1, H, W, Cin], HWIO w [KH, KW, Cin/group, Cout]:
//   y[oh][ow][g*Cg + c] = b[g*Cg + c] + sum over kh, kw, ci of
//     x[oh*s - pad_top + kh*d][ow*s - pad_left + kw*d][g*Cin_g + ci] * w[kh][kw][ci][g*Cg + c]
// (taps in the padding read 0), with OH = (H + pad_top + pad_bottom - ((KH-1)*d + 1)) / s + 1.
struct Conv {
  uint32_t H, W, Cin, KH, KW, Cout, group = 1, stride = 1, pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0,
      dilation = 1;
  uint32_t out_h() const { return (H + pad_top + pad_bottom - ((KH - 1) * dilation + 1)) / stride + 1; }
  uint32_t out_w() const { return (W + pad_left + pad_right - ((KW - 1) * dilation + 1)) / stride + 1; }
  std::vector<D> run(const std::vector<D>& x, const std::vector<D>& w, const std::vector<D>& b) const {
    const uint32_t cin_g = Cin / group, cg = Cout / group;
    std::vector<D> y;
    for (uint32_t oh = 0; oh < out_h(); ++oh)
      for (uint32_t ow = 0; ow < out_w(); ++ow)
        for (uint32_t co = 0; co < Cout; ++co) {
          const uint32_t g = co / cg;
          D acc = b.empty() ? 0.0 : b[co];
          for (uint32_t kh = 0; kh < KH; ++kh)
            for (uint32_t kw = 0; kw < KW; ++kw) {
              const int ih = int(oh * stride + kh * dilation) - int(pad_top);
              const int iw = int(ow * stride + kw * dilation) - int(pad_left);
              if (ih < 0 || iw < 0 || ih >= int(H) || iw >= int(W)) continue;
              for (uint32_t ci = 0; ci < cin_g; ++ci)
                acc += x[(size_t(ih) * W + size_t(iw)) * Cin + g * cin_g + ci] * w[((kh * KW + kw) * cin_g + ci) * Cout + co];
            }
          y.push_back(acc);
        }
    return y;
  }
  std::vector<Param> params() const {
    return {tensor_u32("stride", {2}, {D(stride), D(stride)}),
            tensor_u32("pad_amount", {2, 2}, {D(pad_top), D(pad_bottom), D(pad_left), D(pad_right)}),
            tensor_u32("dilation", {2}, {D(dilation), D(dilation)}), scalar_u32("group", group)};
  }
};

// n values on a grid: start, start + step, ... wrapping every `wrap` steps.
std::vector<D> ramp(size_t n, D start, D step, size_t wrap) {
  std::vector<D> v;
  for (size_t i = 0; i < n; ++i) v.push_back(start + step * D(i % wrap));
  return v;
}

}  // namespace

OPDEF_CASES(core) {
  CaseList cases;
  const std::vector<D> x23 = {-1.5, 0.5, 2.0, 3.25, -0.75, 1.0};  // a [2, 3] input
  const std::vector<D> b3 = {0.5, -2.0, 1.5};                      // broadcast along the last axis

  // ElementWiseAdd / ElementWiseMultiply: [2, 3] op [3], numpy broadcasting.
  auto broadcast = [&](auto f) {
    std::vector<D> y;
    for (size_t i = 0; i < 6; ++i) y.push_back(f(x23[i], b3[i % 3]));
    return y;
  };
  cases.push_back({"ElementWiseAdd", "broadcast [2,3] + [3]", {f32({2, 3}, x23), f32({3}, b3)}, {},
                   {f32({2, 3}, broadcast([](D a, D b) { return a + b; }))}});
  cases.push_back({"ElementWiseMultiply", "broadcast [2,3] * [3]", {f32({2, 3}, x23), f32({3}, b3)}, {},
                   {f32({2, 3}, broadcast([](D a, D b) { return a * b; }))}});
  // UFIXED_POINT_8 (real = (q + offset) * scale): inputs on their grids
  // (0.25 and 0.125 steps), the product quantized at 1/32: one output step.
  {
    const std::vector<D> a = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, -1.0, -0.5};
    const std::vector<D> b = {1.0, 0.25, 2.0, 0.5, 1.5, 0.125, 1.0, 3.0};
    std::vector<D> y;
    for (size_t i = 0; i < a.size(); ++i) y.push_back(a[i] * b[i]);
    cases.push_back({"ElementWiseMultiply", "ufixed8",
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {8}, a, 0.25f, -8), fixed(QNN_DATATYPE_UFIXED_POINT_8, {8}, b, 0.125f, 0)},
                     {},
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {8}, y, 1.0f / 32, -64)},
                     1.0 / 32});
  }

  // Relu: max(x, 0), FLOAT_32 and FLOAT_16 (values exact in half).
  {
    std::vector<D> y;
    for (D v : x23) y.push_back(std::max(v, 0.0));
    cases.push_back({"Relu", "float32", {f32({2, 3}, x23)}, {}, {f32({2, 3}, y)}});
    cases.push_back({"Relu", "float16", {f16({2, 3}, x23)}, {}, {f16({2, 3}, y)}, 0.0});
  }

  // FullyConnected: x [2, 3], weights [4, 3] (static), bias [4];
  // y[b][j] = sum_k x[b][k] * w[j][k] + bias[j].
  {
    const std::vector<D> w = {1, 0, -1, 0.5, 0.5, 0.5, 2, -1, 0, -0.25, 1, 3};
    const std::vector<D> bias = {0.1, -0.2, 0.3, 0.0};
    std::vector<D> y;
    for (int b = 0; b < 2; ++b) {
      for (int j = 0; j < 4; ++j) {
        D acc = bias[j];
        for (int k = 0; k < 3; ++k) acc += x23[b * 3 + k] * w[j * 3 + k];
        y.push_back(acc);
      }
    }
    cases.push_back({"FullyConnected", "x[2,3] w[4,3] + bias",
                     {f32({2, 3}, x23), fixed_static(f32({4, 3}, w)), fixed_static(f32({4}, bias))}, {},
                     {f32({2, 4}, y)}});
  }

  // MatMul: A [2, 3] times B^T with B given as [2, 3] (transpose_in1).
  {
    const std::vector<D> b = {1, 2, 3, -1, 0.5, 4};
    std::vector<D> y;
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) {
        D acc = 0;
        for (int k = 0; k < 3; ++k) acc += x23[i * 3 + k] * b[j * 3 + k];
        y.push_back(acc);
      }
    }
    cases.push_back({"MatMul", "A[2,3] x B[2,3]^T", {f32({2, 3}, x23), f32({2, 3}, b)},
                     {scalar_bool("transpose_in1", true)}, {f32({2, 2}, y)}});
  }

  // Conv2d, worked by hand: x = 1..9 as 1x3x3x1, filter 2x2x1x1 = [[1, 2],
  // [3, 4]], bias 0.5, stride 1, no padding:
  //   y00 = 1*1 + 2*2 + 3*4 + 4*5 = 37,  y01 = 1*2 + 2*3 + 3*5 + 4*6 = 47,
  //   y10 = 1*4 + 2*5 + 3*7 + 4*8 = 67,  y11 = 1*5 + 2*6 + 3*8 + 4*9 = 77.
  cases.push_back({"Conv2d", "1x3x3x1 by 2x2, hand-worked",
                   {f32({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), fixed_static(f32({2, 2, 1, 1}, {1, 2, 3, 4})),
                    fixed_static(f32({1}, {0.5}))},
                   {tensor_u32("stride", {2}, {1, 1}), tensor_u32("pad_amount", {2, 2}, {0, 0, 0, 0})},
                   {f32({1, 2, 2, 1}, {37.5, 47.5, 67.5, 77.5})}});

  // Conv2d by its definition (struct Conv): stride 2, padding 1, 2 groups.
  {
    const Conv cv{.H = 4, .W = 4, .Cin = 4, .KH = 3, .KW = 3, .Cout = 4, .group = 2, .stride = 2, .pad_top = 1,
                  .pad_bottom = 1, .pad_left = 1, .pad_right = 1};
    const std::vector<D> x = ramp(64, -2.0, 0.25, 13), w = ramp(72, -1.0, 0.125, 11), b = {0.5, -0.5, 1.0, 0.0};
    cases.push_back({"Conv2d", "stride 2 pad 1 group 2",
                     {f32({1, 4, 4, 4}, x), fixed_static(f32({3, 3, 2, 4}, w)), fixed_static(f32({4}, b))},
                     cv.params(), {f32({1, cv.out_h(), cv.out_w(), 4}, cv.run(x, w, b))}, 1e-4});
  }
  // Dilation 2 (a 2x2 kernel spanning 3x3), no bias.
  {
    const Conv cv{.H = 5, .W = 5, .Cin = 1, .KH = 2, .KW = 2, .Cout = 2, .dilation = 2};
    const std::vector<D> x = ramp(25, -3.0, 0.5, 25), w = {1, -1, 0.5, 2, -0.25, 1, 3, 0};
    cases.push_back({"Conv2d", "dilation 2", {f32({1, 5, 5, 1}, x), fixed_static(f32({2, 2, 1, 2}, w))}, cv.params(),
                     {f32({1, cv.out_h(), cv.out_w(), 2}, cv.run(x, w, {}))}, 1e-4});
  }
  // Quantized: UFIXED_POINT_8 input (0.25 steps), SFIXED_POINT_8 weights per
  // output channel (scales 0.1 and 0.05), SFIXED_POINT_32 bias, UFIXED_POINT_8
  // output at 1/8 (offset -64: [-8, 23.875]): one output step allowed.
  {
    const Conv cv{.H = 3, .W = 3, .Cin = 2, .KH = 2, .KW = 2, .Cout = 2, .pad_bottom = 1, .pad_right = 1};
    const std::vector<D> x = ramp(18, 0.0, 0.25, 17);
    const std::vector<D> w = {0.5, -0.25, -1.0, 0.75, 0.2, 0.1, 1.2, -0.5, -0.3, 0.25, 0.4, 0.0, 0.1, -0.15, 0.6, 0.35};
    const std::vector<D> b = {0.5, -1.0};
    cases.push_back({"Conv2d", "ufixed8 with per-channel weights",
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {1, 3, 3, 2}, x, 0.25f, 0),
                      fixed_static(fixed_per_axis(QNN_DATATYPE_SFIXED_POINT_8, {2, 2, 2, 2}, w, 3, {0.1f, 0.05f})),
                      fixed_static(fixed(QNN_DATATYPE_SFIXED_POINT_32, {2}, b, 0.001f, 0))},
                     cv.params(),
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {1, cv.out_h(), cv.out_w(), 2}, cv.run(x, w, b), 0.125f, -64)},
                     0.125});
  }
  // FLOAT_16 (inputs exact in half; |y| <= 16: products and sums within 2^-7).
  {
    const Conv cv{.H = 3, .W = 3, .Cin = 1, .KH = 2, .KW = 2, .Cout = 1};
    const std::vector<D> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w = {0.5, -1, 0.25, 2};
    cases.push_back({"Conv2d", "float16", {f16({1, 3, 3, 1}, x), fixed_static(f16({2, 2, 1, 1}, w))}, cv.params(),
                     {f16({1, 2, 2, 1}, cv.run(x, w, {}))}, 1.0 / 64});
  }

  // PoolMax2d, worked by hand: x = [[3,1,4],[1,5,9],[2,6,5]], 2x2 windows at stride 1:
  //   max(3,1,1,5) = 5, max(1,4,5,9) = 9, max(1,5,2,6) = 6, max(5,9,6,5) = 9.
  cases.push_back({"PoolMax2d", "1x3x3x1 2x2 stride 1, hand-worked", {f32({1, 3, 3, 1}, {3, 1, 4, 1, 5, 9, 2, 6, 5})},
                   {tensor_u32("filter_size", {2}, {2, 2}), tensor_u32("stride", {2}, {1, 1}),
                    tensor_u32("pad_amount", {2, 2}, {0, 0, 0, 0})},
                   {f32({1, 2, 2, 1}, {5, 9, 6, 9})}});

  // PoolMax2d 3x3 windows at stride 2 over a 1x4x4x2 input padded by 1 (padding never wins).
  {
    const std::vector<D> x = ramp(32, -5.0, 0.75, 13);
    std::vector<D> y;
    for (int oh = 0; oh < 2; ++oh)
      for (int ow = 0; ow < 2; ++ow)
        for (int c = 0; c < 2; ++c) {
          D m = -1e300;
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
              const int ih = oh * 2 + kh - 1, iw = ow * 2 + kw - 1;
              if (ih >= 0 && iw >= 0 && ih < 4 && iw < 4) m = std::max(m, x[(ih * 4 + iw) * 2 + c]);
            }
          y.push_back(m);
        }
    cases.push_back({"PoolMax2d", "3x3 stride 2 pad 1", {f32({1, 4, 4, 2}, x)},
                     {tensor_u32("filter_size", {2}, {3, 3}), tensor_u32("stride", {2}, {2, 2}),
                      tensor_u32("pad_amount", {2, 2}, {1, 1, 1, 1})},
                     {f32({1, 2, 2, 2}, y)}});
  }

  // Reshape: the same row-major values under new dims.
  cases.push_back({"Reshape", "[2,3] to [3,2]", {f32({2, 3}, x23)}, {}, {f32({3, 2}, x23)}, 0.0});

  // Softmax along the last axis: y_i = exp(x_i) / sum_j exp(x_j) per row.
  {
    std::vector<D> y;
    for (int r = 0; r < 2; ++r) {
      D sum = 0;
      for (int j = 0; j < 3; ++j) sum += std::exp(x23[r * 3 + j]);
      for (int j = 0; j < 3; ++j) y.push_back(std::exp(x23[r * 3 + j]) / sum);
    }
    cases.push_back({"Softmax", "[2,3] last axis", {f32({2, 3}, x23)}, {}, {f32({2, 3}, y)}, 1e-6});
    // UFIXED_POINT_8: x on its grid (1/4, offset -16), y at 1/256: one step.
    cases.push_back({"Softmax", "ufixed8", {fixed(QNN_DATATYPE_UFIXED_POINT_8, {2, 3}, x23, 0.25f, -16)}, {},
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {2, 3}, y, 1.0f / 256, 0)}, 1.0 / 256});
  }
  // Softmax along axis 0 with beta 2: y = exp(2 x_i) / sum_j exp(2 x_j) down each column.
  {
    std::vector<D> y(6);
    for (int c = 0; c < 3; ++c) {
      const D sum = std::exp(2 * x23[c]) + std::exp(2 * x23[3 + c]);
      y[c] = std::exp(2 * x23[c]) / sum;
      y[3 + c] = std::exp(2 * x23[3 + c]) / sum;
    }
    cases.push_back({"Softmax", "axis 0 beta 2", {f32({2, 3}, x23)}, {scalar_u32("axis", 0), scalar_f32("beta", 2.0f)},
                     {f32({2, 3}, y)}, 1e-6});
  }
  // MatMul batched [2, 3, 2]^T x [2, 3, 2] (transpose_in0) plus bias [2].
  {
    const std::vector<D> a = ramp(12, -1.5, 0.5, 12), b = ramp(12, 2.0, -0.25, 12), bias = {1.0, -0.5};
    std::vector<D> y;
    for (int n = 0; n < 2; ++n)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          D acc = bias[j];
          for (int k = 0; k < 3; ++k) acc += a[n * 6 + k * 2 + i] * b[n * 6 + k * 2 + j];
          y.push_back(acc);
        }
    cases.push_back({"MatMul", "batched transpose_in0 with bias", {f32({2, 3, 2}, a), f32({2, 3, 2}, b), f32({2}, bias)},
                     {scalar_bool("transpose_in0", true)}, {f32({2, 2, 2}, y)}});
  }
  return cases;
}

}  // namespace qnntest::opdef
