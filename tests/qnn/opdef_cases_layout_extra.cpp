// Later additions to the layout family (src/ops/reference/layout_group.cpp):
// the 1-D convolutions, Conv3d, L2Pool2d, GridSample, CropAndResize,
// RoiAlign and ArgbToRgb. Expected values from the formula in each case, in double.
#include <cmath>

#include "opdef_cases.h"

namespace qnntest::opdef {

OPDEF_CASES(layout_extra) {
  using D = double;
  CaseList cases;

  // Conv1d: x = 1 2 3 4 as [1,4,1], filter taps (1, 10) as [2,1,1], bias
  // 0.5, stride 1: y[i] = x[i] + 10 x[i+1] + 0.5 = 21.5, 32.5, 43.5.
  cases.push_back({"Conv1d", "[1,4,1] by 2 taps + bias, hand-worked",
                   {f32({1, 4, 1}, {1, 2, 3, 4}), fixed_static(f32({2, 1, 1}, {1, 10})), fixed_static(f32({1}, {0.5}))},
                   {scalar_u32("stride", 1), tensor_u32("pad_amount", {2}, {0, 0})},
                   {f32({1, 3, 1}, {21.5, 32.5, 43.5})}});
  // The same in UFIXED_POINT_8: x on a 0.5 grid, filter (0.5, 1.5) on a
  // 0.5 grid, y = 0.5 x[i] + 1.5 x[i+1] quantized at 0.25: exact.
  {
    const std::vector<D> x = {1, 2, 3, 4};
    std::vector<D> y;
    for (int i = 0; i < 3; ++i) y.push_back(0.5 * x[i] + 1.5 * x[i + 1]);
    cases.push_back({"Conv1d", "ufixed8",
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {1, 4, 1}, x, 0.5f, 0),
                      fixed_static(fixed(QNN_DATATYPE_UFIXED_POINT_8, {2, 1, 1}, {0.5, 1.5}, 0.5f, 0))},
                     {scalar_u32("stride", 1), tensor_u32("pad_amount", {2}, {0, 0})},
                     {fixed(QNN_DATATYPE_UFIXED_POINT_8, {1, 3, 1}, y, 0.25f, 0)},
                     0.25});
  }

  // DepthWiseConv1d: two channels, multiplier 1, one tap each of
  // (2, -1): y[w] = (2 x[w][0], -x[w][1]).
  cases.push_back({"DepthWiseConv1d", "2 channels, 1 tap, hand-worked",
                   {f32({1, 2, 2}, {1, 10, 2, 20}), fixed_static(f32({1, 1, 2}, {2, -1}))},
                   {scalar_u32("stride", 1), tensor_u32("pad_amount", {2}, {0, 0})},
                   {f32({1, 2, 2}, {2, -10, 4, -20})}});

  // TransposeConv1d: x = 1 2, taps (1, 10), stride 2: each input stamps the
  // scaled filter into its own block: 1 10 2 20.
  cases.push_back({"TransposeConv1d", "[1,2,1] stride 2, hand-worked",
                   {f32({1, 2, 1}, {1, 2}), fixed_static(f32({2, 1, 1}, {1, 10}))},
                   {scalar_u32("stride", 2), tensor_u32("pad_amount", {2}, {0, 0})},
                   {f32({1, 4, 1}, {1, 10, 2, 20})}});

  // Conv3d: x[d][h][w] = 1 + 4d + 2h + w over 2x2x2, filter 2x1x1 along D
  // (taps 1, 10): y[h][w] = x[0][h][w] + 10 x[1][h][w] = 51 62 73 84.
  cases.push_back({"Conv3d", "2x2x2 by a 2-tap D filter, hand-worked",
                   {f32({1, 2, 2, 2, 1}, {1, 2, 3, 4, 5, 6, 7, 8}), fixed_static(f32({2, 1, 1, 1, 1}, {1, 10}))},
                   {tensor_u32("stride", {3}, {1, 1, 1}), tensor_u32("pad_amount", {3, 2}, {0, 0, 0, 0, 0, 0})},
                   {f32({1, 1, 2, 2, 1}, {51, 62, 73, 84})}});

  // L2Pool2d: 2x2 windows at stride 2 over a 2x4 input:
  // sqrt((9+16+0+0)/4) = 2.5 and sqrt((1+1+1+1)/4) = 1.
  cases.push_back({"L2Pool2d", "2x4 by 2x2 stride 2, hand-worked",
                   {f32({1, 2, 4, 1}, {3, 4, 1, -1, 0, 0, 1, -1})},
                   {tensor_u32("filter_size", {2}, {2, 2}), tensor_u32("stride", {2}, {2, 2}),
                    tensor_u32("pad_amount", {2, 2}, {0, 0, 0, 0})},
                   {f32({1, 1, 2, 1}, {std::sqrt(25.0 / 4), 1.0})}});

  // GridSample, bilinear, align_corners = 1 on x = 1 2 / 3 4:
  // ix = (gx+1)/2 * (W-1), iy likewise; (-1,-1) -> 1, (1,1) -> 4, (0,0) ->
  // the mean 2.5, (0,-1) -> halfway along row 0 -> 1.5.
  cases.push_back({"GridSample", "2x2 bilinear align_corners, hand-worked",
                   {f32({1, 2, 2, 1}, {1, 2, 3, 4}), f32({1, 1, 4, 2}, {-1, -1, 1, 1, 0, 0, 0, -1})},
                   {scalar_bool("align_corners", true), scalar_u32("mode", 0), scalar_u32("padding_mode", 0)},
                   {f32({1, 1, 4, 1}, {1, 4, 2.5, 1.5})}});

  // CropAndResize on x[h][w] = 10 h + w (3x3): box (0,0)-(1,1) maps to
  // rows/columns 0..2, so a 2x2 crop takes the corners 0 2 20 22; a second
  // box (0,0)-(0.25,0.25) samples 0 and 0.5 per axis: 10 y + x = 0 0.5 5 5.5.
  cases.push_back({"CropAndResize", "two boxes of a 3x3 ramp, hand-worked",
                   {f32({1, 3, 3, 1}, {0, 1, 2, 10, 11, 12, 20, 21, 22}), f32({2, 4}, {0, 0, 1, 1, 0, 0, 0.25, 0.25}),
                    i32({2}, {0, 0})},
                   {tensor_u32("resize_dims", {2}, {2, 2})},
                   {f32({2, 2, 2, 1}, {0, 2, 20, 22, 0, 0.5, 5, 5.5})}});

  // RoiAlign on a 4x4 map x[h][w] = 10 h + w: roi (0,0)-(4,4) at
  // img_size_ratio 1, 2x2 bins of size 2, one sample per bin at the bin
  // centres (1,1) (1,3) (3,1) (3,3): 11 13 31 33.
  {
    std::vector<D> map;
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < 4; ++w) map.push_back(10.0 * h + w);
    cases.push_back({"RoiAlign", "4x4 ramp, 2x2 bins, one sample each",
                     {f32({1, 4, 4, 1}, map), f32({1, 4}, {0, 0, 4, 4}), i32({1}, {0})},
                     {Param{"img_size_ratio", QNN_DATATYPE_FLOAT_32, {2}, {1, 1}}, scalar_i32("num_samples_y", 1),
                      scalar_i32("num_samples_x", 1)},
                     {f32({1, 2, 2, 1}, {11, 13, 31, 33})}});
  }

  // ArgbToRgb: UINT_8 ARGB pixels (255,1,2,3) (128,4,5,6), reversed to BGR.
  cases.push_back({"ArgbToRgb", "uint8 ARGB to BGR",
                   {Tensor{QNN_DATATYPE_UINT_8, {1, 1, 2, 4}, {255, 1, 2, 3, 128, 4, 5, 6}}},
                   {scalar_u32("input_order", 0), scalar_bool("reverse_output", true)},
                   {Tensor{QNN_DATATYPE_UINT_8, {1, 1, 2, 3}, {3, 2, 1, 6, 5, 4}}},
                   0.0});
  return cases;
}

}  // namespace qnntest::opdef
