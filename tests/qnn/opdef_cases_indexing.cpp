// The indexing family (src/ops/reference/indexing_group.cpp): selection,
// fixed rearrangements, gathers/scatters, OneHot and CumulativeSum. Each
// expected output comes from the op's formula (an index formula written in
// the case) or a hand-worked example (ONNX's own examples for the ONNX-named
// ops), in double.
#include <cstdint>

#include "opdef_cases.h"

namespace qnntest::opdef {
namespace {

using D = double;

std::vector<D> iota(size_t n, D start = 0, D step = 1) {
  std::vector<D> v;
  for (size_t i = 0; i < n; ++i) v.push_back(start + step * D(i));
  return v;
}

}  // namespace

OPDEF_CASES(indexing) {
  CaseList cases;

  // ElementWiseSelect: cond [2,1,3], a [1,2,1], b [3] -> [2,2,3];
  //   y[i][j][k] = c[i][k] ? a[j] : b[k].
  {
    const std::vector<D> c = {1, 0, 1, 0, 0, 1}, a = {10, 20}, b = {-1, -2, -3};
    std::vector<D> y;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int k = 0; k < 3; ++k) y.push_back(c[i * 3 + k] != 0 ? a[j] : b[k]);
    cases.push_back({"ElementWiseSelect", "three-way broadcast",
                     {bool8({2, 1, 3}, c), f32({1, 2, 1}, a), f32({3}, b)}, {}, {f32({2, 2, 3}, y)}});
  }
  // ElementWiseSelect on INT_32 values, same shapes.
  cases.push_back({"ElementWiseSelect", "int32 values",
                   {bool8({4}, {0, 1, 1, 0}), i32({4}, {1, 2, 3, 4}), i32({4}, {-5, -6, -7, -8})},
                   {},
                   {i32({4}, {-5, 2, 3, -8})},
                   0});

  // Tile: x [2,3] by multiples [2,2] -> [4,6]; y[i][j] = x[i % 2][j % 3].
  {
    const std::vector<D> x = iota(6, 1);
    std::vector<D> y;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 6; ++j) y.push_back(x[(i % 2) * 3 + j % 3]);
    cases.push_back({"Tile", "2x3 by [2,2]", {f32({2, 3}, x)}, {tensor_u32("multiples", {2}, {2, 2})},
                     {f32({4, 6}, y)}});
  }
  // Tile on UFIXED_POINT_8 (scale 0.25, offset -8): the quantized bytes are
  // repeated, so the real values are: y = [x, x].
  cases.push_back({"Tile", "ufixed8 [3] by [2]",
                   {fixed(QNN_DATATYPE_UFIXED_POINT_8, {3}, {-1.0, 0.5, 10.0}, 0.25f, -8)},
                   {tensor_u32("multiples", {1}, {2})},
                   {fixed(QNN_DATATYPE_UFIXED_POINT_8, {6}, {-1.0, 0.5, 10.0, -1.0, 0.5, 10.0}, 0.25f, -8)},
                   0});

  // DepthToSpace / SpaceToDepth, NHWC. x [1,2,1,8], block [2,2] -> [1,4,2,2]:
  //   DCR: y[oh][ow][c] = x[oh/2][ow/2][((oh%2)*2 + ow%2)*2 + c];
  //   CRD: y[oh][ow][c] = x[oh/2][ow/2][c*4 + (oh%2)*2 + ow%2].
  for (int mode = 0; mode < 2; ++mode) {
    const std::vector<D> x = iota(16, 0.5);
    std::vector<D> y;
    for (int oh = 0; oh < 4; ++oh)
      for (int ow = 0; ow < 2; ++ow)
        for (int c = 0; c < 2; ++c) {
          const int i = oh % 2, j = ow % 2;
          const int d = mode == 0 ? (i * 2 + j) * 2 + c : c * 4 + i * 2 + j;
          y.push_back(x[((oh / 2) * 1 + ow / 2) * 8 + d]);
        }
    cases.push_back({"DepthToSpace", mode == 0 ? "DCR 2x2" : "CRD 2x2", {f32({1, 2, 1, 8}, x)},
                     {tensor_u32("block_size", {2}, {2, 2}), scalar_u32("mode", uint32_t(mode))},
                     {f32({1, 4, 2, 2}, y)}});
  }
  // SpaceToDepth: x [1,4,2,1], block [2,2] -> [1,2,1,4]; DCR: y[h][w][i*2+j] = x[h*2+i][w*2+j].
  {
    const std::vector<D> x = iota(8, 1);
    std::vector<D> y;
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) y.push_back(x[(h * 2 + i) * 2 + j]);
    cases.push_back({"SpaceToDepth", "DCR 2x2", {f32({1, 4, 2, 1}, x)}, {tensor_u32("block_size", {2}, {2, 2})},
                     {f32({1, 2, 1, 4}, y)}});
  }

  // ChannelShuffle: [1,1,1,6], 3 groups of 2: y[k*3 + g] = x[g*2 + k].
  {
    const std::vector<D> x = iota(6, 10);
    std::vector<D> y(6);
    for (int k = 0; k < 2; ++k)
      for (int g = 0; g < 3; ++g) y[k * 3 + g] = x[g * 2 + k];
    cases.push_back({"ChannelShuffle", "6 channels, 3 groups", {f32({1, 1, 1, 6}, x)}, {scalar_u32("num_groups", 3)},
                     {f32({1, 1, 1, 6}, y)}});
  }

  // ExpandDims / Squeeze: the data is unchanged, only the dims.
  cases.push_back({"ExpandDims", "axes [0,2]", {f32({2, 3}, iota(6, -2))}, {tensor_u32("axes", {2}, {0, 2})},
                   {f32({1, 2, 1, 3}, iota(6, -2))}});
  cases.push_back({"Squeeze", "axes [0]", {f32({1, 2, 1, 3}, iota(6, 3))}, {tensor_u32("axes", {1}, {0})},
                   {f32({2, 1, 3}, iota(6, 3))}});

  // Pack: three [2] inputs along axis 1 -> [2,3]; y[i][k] = in_k[i].
  cases.push_back({"Pack", "3 x [2] on axis 1",
                   {f32({2}, {1, 2}), f32({2}, {3, 4}), f32({2}, {5, 6})},
                   {scalar_u32("axis", 1)},
                   {f32({2, 3}, {1, 3, 5, 2, 4, 6})}});
  // UnPack: [2,3] along axis 1 -> three [2]; out_k[i] = x[i][k].
  cases.push_back({"UnPack", "[2,3] on axis 1",
                   {f32({2, 3}, {1, 2, 3, 4, 5, 6})},
                   {scalar_u32("axis", 1)},
                   {f32({2}, {1, 4}), f32({2}, {2, 5}), f32({2}, {3, 6})}});

  // GatherElements (ONNX example): data [[1,2],[3,4]], indices [[0,0],[1,0]], axis 1 -> [[1,1],[4,3]].
  cases.push_back({"GatherElements", "ONNX example, axis 1",
                   {f32({2, 2}, {1, 2, 3, 4}), i32({2, 2}, {0, 0, 1, 0})},
                   {scalar_u32("axis", 1)},
                   {f32({2, 2}, {1, 1, 4, 3})}});
  // GatherNd (ONNX example): data [[0,1],[2,3]], indices [[1],[0]] -> [[2,3],[0,1]];
  // and batch_dims 1 with static indices: [[[0,1],[2,3]],[[4,5],[6,7]]], [[1],[0]] -> [[2,3],[4,5]].
  cases.push_back({"GatherNd", "ONNX example, row slices",
                   {f32({2, 2}, {0, 1, 2, 3}), i32({2, 1}, {1, 0})}, {}, {f32({2, 2}, {2, 3, 0, 1})}});
  cases.push_back({"GatherNd", "batch_dims 1, static indices",
                   {f32({2, 2, 2}, iota(8)), fixed_static(i32({2, 1}, {1, 0}))},
                   {scalar_u32("batch_dims", 1)},
                   {f32({2, 2}, {2, 3, 4, 5})}});

  // ScatterElements (ONNX example): zeros [3,3], indices [[1,0,2],[0,2,1]],
  // updates [[1.0,1.1,1.2],[2.0,2.1,2.2]], axis 0 -> [[2.0,1.1,0],[1.0,0,2.2],[0,2.1,1.2]].
  cases.push_back({"ScatterElements", "ONNX example, axis 0",
                   {f32({3, 3}, std::vector<D>(9, 0.0)), i32({2, 3}, {1, 0, 2, 0, 2, 1}),
                    f32({2, 3}, {1.0, 1.1, 1.2, 2.0, 2.1, 2.2})},
                   {},
                   {f32({3, 3}, {2.0, 1.1, 0.0, 1.0, 0.0, 2.2, 0.0, 2.1, 1.2})}});
  // ScatterElements with reduction ADD and a repeated index: [1,2,3,4,5] += at 1: 1.1, 2.1.
  cases.push_back({"ScatterElements", "ADD, repeated index",
                   {f32({1, 5}, {1, 2, 3, 4, 5}), i32({1, 2}, {1, 1}), f32({1, 2}, {1.1, 2.1})},
                   {scalar_u32("axis", 1), scalar_u32("reduction", 1)},
                   {f32({1, 5}, {1, 2 + 1.1 + 2.1, 3, 4, 5})}});
  // ScatterNd (ONNX example): [1..8], indices [[4],[3],[1],[7]], updates [9,10,11,12] -> [1,11,3,10,9,6,7,12].
  cases.push_back({"ScatterNd", "ONNX example",
                   {f32({8}, iota(8, 1)), i32({4, 1}, {4, 3, 1, 7}), f32({4}, {9, 10, 11, 12})},
                   {},
                   {f32({8}, {1, 11, 3, 10, 9, 6, 7, 12})}});

  // OneHot: indices [0,2,-1,5], depth 3, on 5, off 0 (last axis): -1 wraps to 2 (ONNX), 5 is all off.
  cases.push_back({"OneHot", "depth 3, wrap and out of range",
                   {i32({4}, {0, 2, -1, 5})},
                   {scalar_u32("depth", 3), scalar_f32("on_value", 5), scalar_f32("off_value", 0)},
                   {f32({4, 3}, {5, 0, 0, 0, 0, 5, 0, 0, 5, 0, 0, 0})}});
  // OneHot into FLOAT_16 on axis 0: indices [1,0] (2), depth 2 -> [2,2]; y[d][i] = idx[i] == d ? 1 : 0.
  cases.push_back({"OneHot", "float16 output, axis 0",
                   {i32({2}, {1, 0})},
                   {scalar_u32("depth", 2), scalar_i32("axis", 0)},
                   {f16({2, 2}, {0, 1, 1, 0})},
                   0});

  // CumulativeSum on INT_32, exclusive: y[j] = sum_{k<j} x[k].
  cases.push_back({"CumulativeSum", "int32 exclusive",
                   {i32({4}, {5, -2, 7, 1})},
                   {scalar_u32("axis", 0), scalar_bool("exclusive", true)},
                   {i32({4}, {0, 5, 3, 10})},
                   0});

  // CumulativeSum along axis 1 of [2,4]: inclusive y[i][j] = sum_{k<=j} x[i][k];
  // exclusive + reverse y[i][j] = sum_{k>j} x[i][k].
  {
    const std::vector<D> x = {1, 2, 3, 4, -1, 0.5, 2, -3};
    std::vector<D> inc, exrev;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        D a = 0, b = 0;
        for (int k = 0; k < 4; ++k) {
          if (k <= j) a += x[i * 4 + k];
          if (k > j) b += x[i * 4 + k];
        }
        inc.push_back(a);
        exrev.push_back(b);
      }
    cases.push_back({"CumulativeSum", "inclusive, axis 1", {f32({2, 4}, x)}, {scalar_u32("axis", 1)},
                     {f32({2, 4}, inc)}});
    cases.push_back({"CumulativeSum", "exclusive reverse, axis 1", {f32({2, 4}, x)},
                     {scalar_u32("axis", 1), scalar_bool("exclusive", true), scalar_bool("reverse", true)},
                     {f32({2, 4}, exrev)}});
  }

  // SpaceToBatch: x [1,2,4,1] = 1..8, block [2,2], pad [[0,0],[0,0]] -> [4,1,2,1];
  //   y[(i*2 + j)][0][w] = x[i][2w + j].
  {
    const std::vector<D> x = iota(8, 1);
    std::vector<D> y;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int w = 0; w < 2; ++w) y.push_back(x[i * 4 + 2 * w + j]);
    cases.push_back({"SpaceToBatch", "2x2 block, no pad", {f32({1, 2, 4, 1}, x)},
                     {tensor_u32("block_size", {2}, {2, 2}), tensor_u32("pad_amount", {2, 2}, {0, 0, 0, 0})},
                     {f32({4, 1, 2, 1}, y)}});
    // BatchToSpace is its inverse: the same y back to x, then cropping the first column:
    //   crops [[0,0],[1,0]] -> [1,2,3,1], out[h][w] = x[h][w + 1].
    cases.push_back({"BatchToSpace", "inverse of SpaceToBatch", {f32({4, 1, 2, 1}, y)},
                     {tensor_u32("block_size", {2}, {2, 2}), tensor_u32("crops", {2, 2}, {0, 0, 0, 0})},
                     {f32({1, 2, 4, 1}, x)}});
    cases.push_back({"BatchToSpace", "crop one column", {f32({4, 1, 2, 1}, y)},
                     {tensor_u32("block_size", {2}, {2, 2}), tensor_u32("crops", {2, 2}, {0, 0, 1, 0})},
                     {f32({1, 2, 3, 1}, {2, 3, 4, 6, 7, 8})}});
  }
  // BatchPermutation: rows of [3,2] in the order [2,0,1].
  cases.push_back({"BatchPermutation", "3 rows",
                   {f32({3, 2}, {0, 1, 2, 3, 4, 5}), i32({3}, {2, 0, 1})}, {}, {f32({3, 2}, {4, 5, 0, 1, 2, 3})}});

  return cases;
}

}  // namespace qnntest::opdef
