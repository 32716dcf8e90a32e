// The layout family (src/ops/reference/layout_group.cpp): conv/pool
// variants, resize, data movement and type conversion. Expected values from
// the formula in each case (an index formula, an interpolation formula or a
// hand-worked example), in double.
#include <algorithm>
#include <cmath>
#include <functional>

#include "opdef_cases.h"

namespace qnntest::opdef {
namespace {

using D = double;

std::vector<D> iota(size_t n, D start = 0, D step = 1) {
  std::vector<D> v;
  for (size_t i = 0; i < n; ++i) v.push_back(start + step * D(i));
  return v;
}

// Linear interpolation taps along one axis of length `in` at input coordinate
// `c` (clamped into the input, ONNX's edge rule): value = x[i0]*(1-f) + x[i1]*f.
struct Lerp {
  uint32_t i0, i1;
  D f;
};
Lerp lerp_at(D c, uint32_t in) {
  c = std::clamp(c, 0.0, D(in - 1));
  const uint32_t i0 = static_cast<uint32_t>(std::floor(c));
  return {i0, std::min(i0 + 1, in - 1), c - D(i0)};
}

// 2-D resize of x [1, H, W, 1] to [1, OH, OW, 1] given the input coordinate of
// an output position (per axis: (o, in, out) -> coordinate), bilinear.
std::vector<D> resize_linear(const std::vector<D>& x, uint32_t H, uint32_t W, uint32_t OH, uint32_t OW,
                             const std::function<D(uint32_t, uint32_t, uint32_t)>& coord) {
  std::vector<D> y;
  for (uint32_t oh = 0; oh < OH; ++oh) {
    const Lerp h = lerp_at(coord(oh, H, OH), H);
    for (uint32_t ow = 0; ow < OW; ++ow) {
      const Lerp w = lerp_at(coord(ow, W, OW), W);
      const D top = x[h.i0 * W + w.i0] * (1 - w.f) + x[h.i0 * W + w.i1] * w.f;
      const D bot = x[h.i1 * W + w.i0] * (1 - w.f) + x[h.i1 * W + w.i1] * w.f;
      y.push_back(top * (1 - h.f) + bot * h.f);
    }
  }
  return y;
}

// 1-D resize of x (length in) to length out: cubic (Keys kernel, A) with the
// taps floor-1 .. floor+2 clamped into the input, at coordinate coord(o).
std::vector<D> resize_cubic_1d(const std::vector<D>& x, uint32_t out, D A, const std::function<D(uint32_t)>& coord) {
  auto keys = [A](D t) {
    t = std::fabs(t);
    if (t <= 1) return (A + 2) * t * t * t - (A + 3) * t * t + 1;
    if (t < 2) return A * t * t * t - 5 * A * t * t + 8 * A * t - 4 * A;
    return 0.0;
  };
  const int in = int(x.size());
  std::vector<D> y;
  for (uint32_t o = 0; o < out; ++o) {
    const D c = coord(o);
    const int f = int(std::floor(c));
    D acc = 0;
    for (int k = f - 1; k <= f + 2; ++k) acc += x[std::clamp(k, 0, in - 1)] * keys(c - k);
    y.push_back(acc);
  }
  return y;
}

// Transposed convolution along one axis, as a scatter: input i, tap k land on
// output i*s - pad_begin + k (those inside [0, out)).
std::vector<D> scatter_1d(const std::vector<D>& x, const std::vector<D>& w, int s, int pad_begin, int out) {
  std::vector<D> y(size_t(out), 0.0);
  for (int i = 0; i < int(x.size()); ++i)
    for (int k = 0; k < int(w.size()); ++k) {
      const int o = i * s - pad_begin + k;
      if (o >= 0 && o < out) y[size_t(o)] += x[size_t(i)] * w[size_t(k)];
    }
  return y;
}

}  // namespace

OPDEF_CASES(layout) {
  CaseList cases;
  const auto no_pad2 = [] { return tensor_u32("pad_amount", {2, 2}, {0, 0, 0, 0}); };
  const auto stride2 = [](uint32_t s) { return tensor_u32("stride", {2}, {double(s), double(s)}); };

  // DepthWiseConv2d: x [1, 3, 3, 2], filter [2, 2, 1, 2], stride 1, no pad:
  //   y[oh][ow][c] = b[c] + sum_{kh,kw} x[oh+kh][ow+kw][c] * w[kh][kw][0][c].
  {
    const std::vector<D> x = iota(18, -4.0, 0.5);
    const std::vector<D> w = {1, -1, 2, 0.5, -0.5, 1, 0.25, 2};
    const std::vector<D> b = {0.5, -1};
    std::vector<D> y;
    for (int oh = 0; oh < 2; ++oh)
      for (int ow = 0; ow < 2; ++ow)
        for (int c = 0; c < 2; ++c) {
          D acc = b[c];
          for (int kh = 0; kh < 2; ++kh)
            for (int kw = 0; kw < 2; ++kw) acc += x[((oh + kh) * 3 + ow + kw) * 2 + c] * w[(kh * 2 + kw) * 2 + c];
          y.push_back(acc);
        }
    cases.push_back({"DepthWiseConv2d", "1x3x3x2 by 2x2",
                     {f32({1, 3, 3, 2}, x), fixed_static(f32({2, 2, 1, 2}, w)), fixed_static(f32({2}, b))},
                     {stride2(1), no_pad2()}, {f32({1, 2, 2, 2}, y)}});
  }

  // TransposeConv2d: x [1, 2, 2, 1], filter [2, 2, 1, 1], stride 2, no pad:
  // each input element scatters into its own 2x2 block, out[2i+a][2j+b] = x[i][j] * w[a][b].
  {
    const std::vector<D> x = {1, -2, 3, 0.5}, w = {1, 2, 3, 4};
    std::vector<D> y(16);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int a = 0; a < 2; ++a)
          for (int b = 0; b < 2; ++b) y[(2 * i + a) * 4 + 2 * j + b] = x[i * 2 + j] * w[a * 2 + b];
    cases.push_back({"TransposeConv2d", "stride 2 scatter into blocks",
                     {f32({1, 2, 2, 1}, x), fixed_static(f32({2, 2, 1, 1}, w))}, {stride2(2), no_pad2()},
                     {f32({1, 4, 4, 1}, y)}});
  }

  // TransposeConv3d: x [1, 1, 2, 2, 1], filter [1, 2, 2, 1, 1], stride 1, no
  // pad: overlapping scatter, out[h][w] = sum over i + k = (h, w) of x[i] * w[k].
  {
    const std::vector<D> x = {1, 2, 3, 4}, w = {1, -1, 0.5, 2};
    std::vector<D> y(9, 0.0);
    for (int ih = 0; ih < 2; ++ih)
      for (int iw = 0; iw < 2; ++iw)
        for (int kh = 0; kh < 2; ++kh)
          for (int kw = 0; kw < 2; ++kw) y[(ih + kh) * 3 + iw + kw] += x[ih * 2 + iw] * w[kh * 2 + kw];
    cases.push_back({"TransposeConv3d", "stride 1 overlapping scatter",
                     {f32({1, 1, 2, 2, 1}, x), fixed_static(f32({1, 2, 2, 1, 1}, w))},
                     {tensor_u32("stride", {3}, {1, 1, 1}), tensor_u32("pad_amount", {3, 2}, {0, 0, 0, 0, 0, 0})},
                     {f32({1, 1, 3, 3, 1}, y)}});
  }

  // PoolAvg2d, hand-worked: x = [[3,1,4],[1,5,9],[2,6,5]], 2x2 windows, stride 1:
  //   (3+1+1+5)/4 = 2.5, (1+4+5+9)/4 = 4.75, (1+5+2+6)/4 = 3.5, (5+9+6+5)/4 = 6.25.
  const std::vector<D> x33 = {3, 1, 4, 1, 5, 9, 2, 6, 5};
  cases.push_back({"PoolAvg2d", "1x3x3x1 2x2 stride 1, hand-worked", {f32({1, 3, 3, 1}, x33)},
                   {tensor_u32("filter_size", {2}, {2, 2}), stride2(1), no_pad2()},
                   {f32({1, 2, 2, 1}, {2.5, 4.75, 3.5, 6.25})}});
  // The same in UFIXED_POINT_8 (integers exact at scale 1/8; the averages are on the 1/8 grid).
  cases.push_back({"PoolAvg2d", "ufixed8", {fixed(QNN_DATATYPE_UFIXED_POINT_8, {1, 3, 3, 1}, x33, 0.125f, 0)},
                   {tensor_u32("filter_size", {2}, {2, 2}), stride2(1), no_pad2()},
                   {fixed(QNN_DATATYPE_UFIXED_POINT_8, {1, 2, 2, 1}, {2.5, 4.75, 3.5, 6.25}, 0.125f, 0)}, 1e-6});

  // PoolAvg3d / PoolMax3d: x [1, 2, 2, 2, 2], one 2x2x2 window per channel.
  {
    const std::vector<D> x = {1, -8, 2, 7, 3, -6, 4, 5, 5, -4, 6, 3, 7, -2, 8, 1.5};
    D sum[2] = {0, 0}, mx[2] = {-1e9, -1e9};
    for (int i = 0; i < 16; ++i) {
      sum[i % 2] += x[i];
      mx[i % 2] = std::max(mx[i % 2], x[i]);
    }
    const auto pool3 = [] {
      return std::vector<Param>{tensor_u32("filter_size", {3}, {2, 2, 2}), tensor_u32("stride", {3}, {1, 1, 1}),
                                tensor_u32("pad_amount", {3, 2}, {0, 0, 0, 0, 0, 0})};
    };
    cases.push_back({"PoolAvg3d", "one 2x2x2 window", {f32({1, 2, 2, 2, 2}, x)}, pool3(),
                     {f32({1, 1, 1, 1, 2}, {sum[0] / 8, sum[1] / 8})}});
    cases.push_back({"PoolMax3d", "one 2x2x2 window", {f32({1, 2, 2, 2, 2}, x)}, pool3(),
                     {f32({1, 1, 1, 1, 2}, {mx[0], mx[1]})}});
  }

  // Resize LINEAR (1) with ALIGN_CORNERS (2), [1,2,2,1] -> [1,3,3,1]:
  // coordinate o * (in - 1) / (out - 1).
  {
    const std::vector<D> x = {1, 3, 5, 11};
    auto align = [](uint32_t o, uint32_t in, uint32_t out) { return D(o) * (in - 1) / (out - 1); };
    cases.push_back({"Resize", "linear align_corners", {f32({1, 2, 2, 1}, x)},
                     {scalar_u32("interpolation_mode", 1), scalar_u32("transformation_mode", 2)},
                     {f32({1, 3, 3, 1}, resize_linear(x, 2, 2, 3, 3, align))}});
    // NEAREST (0) with ASYMMETRIC (3) and FLOOR (2), width 3 -> 6 (scale 2): x[floor(o / 2)].
    cases.push_back({"Resize", "nearest asymmetric floor", {f32({1, 1, 3, 1}, {4, -1, 2.5})},
                     {scalar_u32("interpolation_mode", 0), scalar_u32("transformation_mode", 3),
                      scalar_u32("nearest_mode", 2)},
                     {f32({1, 1, 6, 1}, {4, 4, -1, -1, 2.5, 2.5})}});
    // ResizeBilinear with half_pixel_centers: coordinate (o + 0.5) * in / out - 0.5, clamped.
    auto half = [](uint32_t o, uint32_t in, uint32_t out) { return (D(o) + 0.5) * in / out - 0.5; };
    cases.push_back({"ResizeBilinear", "half_pixel_centers 2x2 to 4x4", {f32({1, 2, 2, 1}, x)},
                     {scalar_bool("half_pixel_centers", true)}, {f32({1, 4, 4, 1}, resize_linear(x, 2, 2, 4, 4, half))}});
    // FLOAT_16 (inputs exact; results within half's rounding at |y| <= 11).
    cases.push_back({"ResizeBilinear", "float16 align_corners", {f16({1, 2, 2, 1}, x)},
                     {scalar_bool("align_corners", true)}, {f16({1, 3, 3, 1}, resize_linear(x, 2, 2, 3, 3, align))},
                     11.0 / 1024});
    // ResizeNearestNeighbor, neither flag: x[floor(o * in / out)].
    std::vector<D> y;
    for (uint32_t oh = 0; oh < 4; ++oh)
      for (uint32_t ow = 0; ow < 4; ++ow) y.push_back(x[(oh * 2 / 4) * 2 + ow * 2 / 4]);
    cases.push_back({"ResizeNearestNeighbor", "2x2 to 4x4", {f32({1, 2, 2, 1}, x)}, {}, {f32({1, 4, 4, 1}, y)}});
  }

  // Transpose [2, 3, 4] by perm [2, 0, 1]: out[k][i][j] = x[i][j][k].
  {
    const std::vector<D> x = iota(24, -5.0, 0.5);
    std::vector<D> y;
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) y.push_back(x[(i * 3 + j) * 4 + k]);
    cases.push_back({"Transpose", "perm 2,0,1", {f32({2, 3, 4}, x)}, {tensor_u32("perm", {3}, {2, 0, 1})},
                     {f32({4, 2, 3}, y)}, 0.0});
  }

  // Concat along axis 1 of [2, 2] and [2, 3], and Split of that back.
  {
    const std::vector<D> a = {1, 2, 3, 4}, b = {10, 20, 30, 40, 50, 60};
    std::vector<D> y;
    for (int r = 0; r < 2; ++r) {
      for (int c = 0; c < 2; ++c) y.push_back(a[r * 2 + c]);
      for (int c = 0; c < 3; ++c) y.push_back(b[r * 3 + c]);
    }
    cases.push_back({"Concat", "axis 1", {f32({2, 2}, a), f32({2, 3}, b)}, {scalar_u32("axis", 1)}, {f32({2, 5}, y)}});
    cases.push_back({"Concat", "int32 axis 0", {i32({2, 2}, a), i32({1, 2}, {-7, 8})}, {scalar_u32("axis", 0)},
                     {i32({3, 2}, {1, 2, 3, 4, -7, 8})}});
    cases.push_back({"Split", "axis 1 at 2", {f32({2, 5}, y)},
                     {scalar_u32("axis", 1), tensor_u32("split_index", {1}, {2})}, {f32({2, 2}, a), f32({2, 3}, b)}});
  }

  // StridedSlice of x [3, 4] (x[r][c] = 10r + c): rows 0:3:2, columns 3:0:-1.
  {
    std::vector<D> x, y;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) x.push_back(10 * r + c);
    for (int r = 0; r < 3; r += 2)
      for (int c = 3; c > 0; --c) y.push_back(10 * r + c);
    cases.push_back({"StridedSlice", "rows 0:3:2, cols 3:0:-1", {f32({3, 4}, x)},
                     {tensor_i32("ranges", {2, 3}, {0, 3, 2, 3, 0, -1})}, {f32({2, 3}, y)}});
  }

  // Gather along axis 0 of [3, 2] with indices [2, 0, 2].
  {
    const std::vector<D> x = {1.5, -1, 2.5, -2, 3.5, -3};
    const std::vector<D> idx = {2, 0, 2};
    std::vector<D> y;
    for (D i : idx)
      for (int c = 0; c < 2; ++c) y.push_back(x[size_t(i) * 2 + c]);
    cases.push_back({"Gather", "axis 0", {f32({3, 2}, x), fixed_static(i32({3}, idx))}, {scalar_i32("axis", 0)},
                     {f32({3, 2}, y)}});
  }

  // Pad [2, 2] by ((1, 0), (0, 2)): CONSTANT 9.5, and MIRROR_REFLECT (-1 -> 1, dim -> dim - 2).
  {
    const std::vector<D> x = {1, 2, 3, 4};
    auto padded = [&](const std::function<D(int, int)>& outside) {
      std::vector<D> y;
      for (int r = -1; r < 2; ++r)
        for (int c = 0; c < 4; ++c) y.push_back(r >= 0 && c < 2 ? x[r * 2 + c] : outside(r, c));
      return y;
    };
    auto reflect = [](int i, int dim) { return i < 0 ? -i : (i >= dim ? 2 * (dim - 1) - i : i); };
    cases.push_back({"Pad", "constant 9.5", {f32({2, 2}, x)},
                     {scalar_u32("scheme", 0), tensor_u32("pad_amount", {2, 2}, {1, 0, 0, 2}),
                      scalar_f32("pad_constant_value", 9.5f)},
                     {f32({3, 4}, padded([](int, int) { return 9.5; }))}});
    // Reflect needs each pad <= dim - 1: pads ((1, 0), (0, 1)) on [2, 2].
    std::vector<D> y;
    for (int r = -1; r < 2; ++r)
      for (int c = 0; c < 3; ++c) y.push_back(x[reflect(r, 2) * 2 + reflect(c, 2)]);
    cases.push_back({"Pad", "mirror reflect", {f32({2, 2}, x)},
                     {scalar_u32("scheme", 2), tensor_u32("pad_amount", {2, 2}, {1, 0, 0, 1})}, {f32({3, 3}, y)}});
  }

  // Quantize FLOAT_32 -> UFIXED_POINT_8 (scale 0.1, offset -128): the output
  // read back is (clamp(round(x / 0.1) - offset, 0, 255) + offset) * 0.1.
  {
    const std::vector<D> x = {-20.0, -1.26, -0.04, 0.0, 0.33, 3.14159, 12.7, 50.0};
    std::vector<D> y;
    for (D v : x) y.push_back((std::clamp(std::nearbyint(v / 0.1) + 128, 0.0, 255.0) - 128) * double(0.1f));
    cases.push_back({"Quantize", "float32 to ufixed8", {f32({8}, x)}, {},
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {8}, y, 0.1f, -128)}, 1e-6});
    // Dequantize: q on the grid, real = (q + offset) * scale exactly.
    cases.push_back({"Dequantize", "ufixed8 to float32", {fixed(QNN_DATATYPE_UFIXED_POINT_8, {8}, y, 0.1f, -128)}, {},
                     {f32({8}, y)}, 1e-6});
  }

  // Convert: a requantization UFIXED_POINT_8 (0.5, offset 0) -> (0.25, offset
  // -20), values on both grids; and FLOAT_32 -> FLOAT_16 (nearest half).
  {
    const std::vector<D> x = {0.0, 0.5, 1.0, 2.5, 10.0, 30.0, 45.5, 58.0};
    cases.push_back({"Convert", "ufixed8 requantized", {fixed(QNN_DATATYPE_UFIXED_POINT_8, {8}, x, 0.5f, 0)}, {},
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {8}, x, 0.25f, -20)}, 1e-6});
    const std::vector<D> f = {1.0, 1.0 + 1.0 / 4096, 3.14159265, -65504.0, 1e-3};
    std::vector<D> h;  // round to 11 significant bits: x = m * 2^e, m rounded to 2^-10 steps
    for (D v : f) {
      int e;
      const D m = std::frexp(v, &e);
      h.push_back(std::ldexp(std::nearbyint(std::ldexp(m, 11)), e - 11));
    }
    cases.push_back({"Convert", "float32 to float16", {f32({5}, f)}, {}, {f16({5}, h)}, 0.0});
  }

  // Cast FLOAT_32 -> INT_32 truncates toward zero; INT_32 -> BOOL_8 is x != 0.
  {
    const std::vector<D> x = {-2.7, -0.5, 0.5, 3.9, 100.25, -7.0};
    std::vector<D> y;
    for (D v : x) y.push_back(std::trunc(v));
    cases.push_back({"Cast", "float32 to int32", {f32({6}, x)}, {}, {i32({6}, y)}});
    cases.push_back({"Cast", "int32 to bool8", {i32({4}, {0, -3, 1, 0})}, {}, {bool8({4}, {0, 1, 1, 0})}});
  }

  // ---- further parameters of the same ops ------------------------------

  // DepthWiseConv2d with channel multiplier 2 (Cout = 2 * Cin) and padding 1,
  // output channel co filtering input channel co / 2.
  {
    const std::vector<D> x = iota(8, -1.0, 0.5);  // [1, 2, 2, 2]
    const std::vector<D> w = iota(16, 1.0, -0.25);  // [2, 2, 1, 4]
    std::vector<D> y;
    for (int oh = 0; oh < 3; ++oh)
      for (int ow = 0; ow < 3; ++ow)
        for (int co = 0; co < 4; ++co) {
          D acc = 0;
          for (int kh = 0; kh < 2; ++kh)
            for (int kw = 0; kw < 2; ++kw) {
              const int ih = oh + kh - 1, iw = ow + kw - 1;
              if (ih >= 0 && iw >= 0 && ih < 2 && iw < 2) acc += x[(ih * 2 + iw) * 2 + co / 2] * w[(kh * 2 + kw) * 4 + co];
            }
          y.push_back(acc);
        }
    cases.push_back({"DepthWiseConv2d", "multiplier 2, pad 1", {f32({1, 2, 2, 2}, x), fixed_static(f32({2, 2, 1, 4}, w))},
                     {stride2(1), tensor_u32("pad_amount", {2, 2}, {1, 1, 1, 1})}, {f32({1, 3, 3, 4}, y)}});
  }

  // TransposeConv2d, separable by construction (x [1, 1, 3, 1], filter [1, 3, 1, 1]):
  // width only, stride 2, pad (1, 0), output_padding 1: out = 2*(3-1) + 3 - 1 + 1 = 7.
  {
    const std::vector<D> x = {1, -2, 0.5}, w = {1, 2, -1};
    cases.push_back({"TransposeConv2d", "stride 2 pad 1 output_padding 1",
                     {f32({1, 1, 3, 1}, x), fixed_static(f32({1, 3, 1, 1}, w)), fixed_static(f32({1}, {0.25}))},
                     {stride2(2), tensor_u32("pad_amount", {2, 2}, {0, 0, 1, 0}),
                      tensor_u32("output_padding", {2}, {0, 1})},
                     {f32({1, 1, 7, 1}, [&] {
                        std::vector<D> y = scatter_1d(x, w, 2, 1, 7);
                        for (D& v : y) v += 0.25;
                        return y;
                      }())}});
  }

  // PoolAvg2d 2x2 stride 2 over [1, 3, 3, 1] padded by (0, 1) on each axis:
  // without count_pad_for_edges the edge windows average only real elements;
  // with it, the padding counts (adds 0).
  for (bool count_pad : {false, true}) {
    std::vector<D> y;
    for (int oh = 0; oh < 2; ++oh)
      for (int ow = 0; ow < 2; ++ow) {
        D sum = 0;
        int real = 0;
        for (int kh = 0; kh < 2; ++kh)
          for (int kw = 0; kw < 2; ++kw) {
            const int ih = oh * 2 + kh, iw = ow * 2 + kw;
            if (ih < 3 && iw < 3) sum += x33[ih * 3 + iw], ++real;
          }
        y.push_back(sum / (count_pad ? 4 : real));
      }
    cases.push_back({"PoolAvg2d", count_pad ? "pad counted" : "pad not counted", {f32({1, 3, 3, 1}, x33)},
                     {tensor_u32("filter_size", {2}, {2, 2}), stride2(2), tensor_u32("pad_amount", {2, 2}, {0, 1, 0, 1}),
                      scalar_bool("count_pad_for_edges", count_pad)},
                     {f32({1, 2, 2, 1}, y)}});
  }

  // Resize LINEAR with HALF_PIXEL (the default): 1x4 -> 1x6 along width,
  // 2 -> 3 along height; coordinate (o + 0.5) / scale - 0.5, clamped.
  {
    const std::vector<D> x = {1, 2, 4, 8, -1, 0, 3, 5};  // [1, 2, 4, 1]
    auto half = [](uint32_t o, uint32_t in, uint32_t out) { return (D(o) + 0.5) * in / out - 0.5; };
    cases.push_back({"Resize", "linear half_pixel 2x4 to 3x6", {f32({1, 2, 4, 1}, x)},
                     {scalar_u32("interpolation_mode", 1)}, {f32({1, 3, 6, 1}, resize_linear(x, 2, 4, 3, 6, half))}});
    // NEAREST, HALF_PIXEL, ROUND_PREFER_FLOOR (the defaults), 4 -> 3 along width:
    // coordinates 1/6, 1.5 (a tie: floor), 17/6 -> 0, 1, 3.
    cases.push_back({"Resize", "nearest half_pixel prefer floor 4 to 3", {f32({1, 1, 4, 1}, {10, 20, 30, 40})}, {},
                     {f32({1, 1, 3, 1}, {10, 20, 40})}});
    // ROUND_PREFER_CEIL (1) takes the tie up: 0, 2, 3.
    cases.push_back({"Resize", "nearest half_pixel prefer ceil 4 to 3", {f32({1, 1, 4, 1}, {10, 20, 30, 40})},
                     {scalar_u32("nearest_mode", 1)}, {f32({1, 1, 3, 1}, {10, 30, 40})}});
    // CUBIC (2), ALIGN_CORNERS, A = -0.5: 1x4 -> 1x7 (coordinate o / 2).
    const std::vector<D> c = {1, 4, 2, 6};
    cases.push_back({"Resize", "cubic align_corners A -0.5", {f32({1, 1, 4, 1}, c)},
                     {scalar_u32("interpolation_mode", 2), scalar_u32("transformation_mode", 2),
                      scalar_f32("cubic_coeff", -0.5f)},
                     {f32({1, 1, 7, 1}, resize_cubic_1d(c, 7, -0.5, [](uint32_t o) { return o * 3.0 / 6.0; }))}});
  }
  // ResizeNearestNeighbor align_corners: round(o * (in-1)/(out-1)) half away
  // from zero, 3 -> 5: 0, 0.5, 1, 1.5, 2 -> 0, 1, 1, 2, 2.
  cases.push_back({"ResizeNearestNeighbor", "align_corners 3 to 5", {f32({1, 1, 3, 1}, {7, 8, 9})},
                   {scalar_bool("align_corners", true)}, {f32({1, 1, 5, 1}, {7, 8, 8, 9, 9})}});
  // half_pixel_centers: floor((o + 0.5) * in / out), 2 -> 3: 1/3, 1, 5/3 -> 0, 1, 1.
  cases.push_back({"ResizeNearestNeighbor", "half_pixel_centers 2 to 3", {f32({1, 1, 2, 1}, {7, 8})},
                   {scalar_bool("half_pixel_centers", true)}, {f32({1, 1, 3, 1}, {7, 8, 8})}});
  // ResizeBilinear, neither flag (ASYMMETRIC: coordinate o * in / out).
  {
    const std::vector<D> x = {1, 3, 5, 11};
    auto asym = [](uint32_t o, uint32_t in, uint32_t out) { return D(o) * in / out; };
    cases.push_back({"ResizeBilinear", "asymmetric 2x2 to 3x4", {f32({1, 2, 2, 1}, x)}, {},
                     {f32({1, 3, 4, 1}, resize_linear(x, 2, 2, 3, 4, asym))}});
  }

  // Transpose of UFIXED_POINT_8 (same encoding in and out: bytes moved exactly).
  cases.push_back({"Transpose", "ufixed8 [2,3] perm 1,0",
                   {fixed(QNN_DATATYPE_UFIXED_POINT_8, {2, 3}, {0.5, 1, 1.5, 2, 2.5, 3}, 0.5f, 0)},
                   {tensor_u32("perm", {2}, {1, 0})},
                   {fixed(QNN_DATATYPE_UFIXED_POINT_8, {3, 2}, {0.5, 2, 1, 2.5, 1.5, 3}, 0.5f, 0)}, 0.0});

  // Split of [6, 1] at 1 and 4 into three outputs.
  cases.push_back({"Split", "three parts", {i32({6, 1}, {1, 2, 3, 4, 5, 6})},
                   {scalar_u32("axis", 0), tensor_u32("split_index", {2}, {1, 4})},
                   {i32({1, 1}, {1}), i32({3, 1}, {2, 3, 4}), i32({2, 1}, {5, 6})}});

  // StridedSlice masks on x [3, 4] (x[r][c] = 10r + c):
  //   shrink_axes bit 0 with begin -1: row 2 only, that dim dropped;
  //   begin_mask bit 1 and end 3: columns 0..2.
  {
    std::vector<D> x;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) x.push_back(10 * r + c);
    cases.push_back({"StridedSlice", "shrink row -1, begin_mask cols :3", {f32({3, 4}, x)},
                     {tensor_i32("ranges", {2, 3}, {-1, 0, 1, 2, 3, 1}), scalar_u32("shrink_axes", 1),
                      scalar_u32("begin_mask", 2)},
                     {f32({3}, {20, 21, 22})}});
    // new_axes_mask bit 0: a leading 1; the remaining entries slice rows 1: and every other column.
    cases.push_back({"StridedSlice", "new axis, end_mask", {f32({3, 4}, x)},
                     {tensor_i32("ranges", {3, 3}, {0, 0, 1, 1, 0, 1, 0, 4, 2}), scalar_u32("new_axes_mask", 1),
                      scalar_u32("end_mask", 2)},
                     {f32({1, 2, 2}, {10, 12, 20, 22})}});
  }

  // Gather along axis -1 (the last) of INT_32 [2, 3] with 2-D indices [2, 2]:
  // out[r][i][j] = x[r][idx[i][j]].
  {
    const std::vector<D> x = {100000001, -5, 7, 16777217, 0, -9};
    const std::vector<D> idx = {2, 0, 1, 1};
    std::vector<D> y;
    for (int r = 0; r < 2; ++r)
      for (D i : idx) y.push_back(x[size_t(r * 3 + int(i))]);
    cases.push_back({"Gather", "int32 axis -1, 2-D indices", {i32({2, 3}, x), i32({2, 2}, idx)}, {scalar_i32("axis", -1)},
                     {i32({2, 2, 2}, y)}});
  }

  // Pad EDGE (3) and MIRROR_SYMMETRIC (1) of [1, 3] by (0, 0), (2, 2).
  {
    const std::vector<D> x = {1, 2, 3};
    auto edge = [](int i) { return std::clamp(i, 0, 2); };
    auto sym = [](int i) { return i < 0 ? -i - 1 : (i >= 3 ? 5 - i : i); };
    std::vector<D> ye, ys;
    for (int c = -2; c < 5; ++c) ye.push_back(x[size_t(edge(c))]), ys.push_back(x[size_t(sym(c))]);
    cases.push_back({"Pad", "edge", {f32({1, 3}, x)}, {scalar_u32("scheme", 3), tensor_u32("pad_amount", {2, 2}, {0, 0, 2, 2})},
                     {f32({1, 7}, ye)}});
    cases.push_back({"Pad", "mirror symmetric", {f32({1, 3}, x)},
                     {scalar_u32("scheme", 1), tensor_u32("pad_amount", {2, 2}, {0, 0, 2, 2})}, {f32({1, 7}, ys)}});
  }

  // Quantize to UFIXED_POINT_16 and SFIXED_POINT_8: (clamp(round(x/s) - off) + off) * s.
  {
    const std::vector<D> x = {-3.0, -0.013, 0.0, 0.51, 1.2345, 7.9};
    auto q = [&](D s, D off, D lo, D hi) {
      std::vector<D> y;
      for (D v : x) y.push_back((std::clamp(std::nearbyint(v / s) - off, lo, hi) + off) * s);
      return y;
    };
    const D s16 = double(1.0f / 4096), s8 = double(1.0f / 32);
    cases.push_back({"Quantize", "float32 to ufixed16", {f32({6}, x)}, {},
                     {fixed(QNN_DATATYPE_UFIXED_POINT_16, {6}, q(s16, -16384, 0, 65535), 1.0f / 4096, -16384)}, 1e-6});
    cases.push_back({"Quantize", "float32 to sfixed8 saturating", {f32({6}, x)}, {},
                     {fixed(QNN_DATATYPE_SFIXED_POINT_8, {6}, q(s8, 0, -128, 127), 1.0f / 32, 0)}, 1e-6});
  }
  // Convert FLOAT_16 -> UFIXED_POINT_8 (values exact in half, on the 1/4 grid).
  cases.push_back({"Convert", "float16 to ufixed8", {f16({4}, {-1.0, 0.25, 3.5, 10.75})}, {},
                   {fixed(QNN_DATATYPE_UFIXED_POINT_8, {4}, {-1.0, 0.25, 3.5, 10.75}, 0.25f, -8)}, 1e-6});
  // Cast UINT_8 -> FLOAT_32, BOOL_8 -> INT_32, INT_32 -> INT_8 (wraps modulo 2^8).
  cases.push_back({"Cast", "uint8 to float32", {Tensor{QNN_DATATYPE_UINT_8, {4}, {0, 1, 128, 255}}}, {},
                   {f32({4}, {0, 1, 128, 255})}, 0.0});
  cases.push_back({"Cast", "bool8 to int32", {bool8({3}, {1, 0, 1})}, {}, {i32({3}, {1, 0, 1})}});
  {
    const std::vector<D> x = {127, 128, 300, -129, -1};
    std::vector<D> y;
    for (D v : x) {
      const int64_t m = ((int64_t(v) % 256) + 256) % 256;  // two's complement wrap
      y.push_back(D(m >= 128 ? m - 256 : m));
    }
    cases.push_back({"Cast", "int32 to int8 wraps", {i32({5}, x)}, {}, {Tensor{QNN_DATATYPE_INT_8, {5}, y}}});
  }
  return cases;
}

}  // namespace qnntest::opdef
