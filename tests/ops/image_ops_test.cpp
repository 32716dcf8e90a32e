// CropAndResize, RoiAlign and ArgbToRgb: hand-worked values (each with the formula
// that gives it) and every rule broken once.
#include "test_util.h"

namespace opstest {
namespace {

// ----------------------------------------------------------- CropAndResize

// A 3x3 image holding x[h][w] = 10 h + w: linear, so bilinear samples are
// exact at any position: value(y, x) = 10 y + x.
const std::vector<float> kRamp{0, 1, 2, 10, 11, 12, 20, 21, 22};

TensorDesc indices(std::vector<uint32_t> dims) { return typed(dtype::kInt32, std::move(dims)); }

std::vector<float> crop(const std::vector<float>& box, uint32_t ch, uint32_t cw, uint32_t mode = 0,
                        float extrapolation = 0.0f) {
  const std::vector<int32_t> idx{0};
  Node n{"CropAndResize", "c", {f32({1, 3, 3, 1}), f32({1, 4}), indices({1})}, {f32({1, ch, cw, 1})},
         {u32_tensor_param("resize_dims", {2}, {ch, cw}), u32_param("interpolation_mode", mode),
          f32_param("extrapolation_value", extrapolation)}};
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  EXPECT_TRUE(s.ok()) << s.message;
  if (!k) return {};
  std::vector<float> y(size_t{ch} * cw, std::nanf(""));
  const void* ins[] = {kRamp.data(), box.data(), idx.data()};
  void* outs[] = {y.data()};
  k->run(ins, outs);
  return y;
}

TEST(CropAndResize, WholeImageAndCorners) {
  // Box (0,0)-(1,1): normalized y maps to y * (H-1); a 3x3 crop samples
  // rows and columns 0, 1, 2 (the image itself), a 2x2 crop the corners.
  EXPECT_EQ(crop({0, 0, 1, 1}, 3, 3), kRamp);
  EXPECT_EQ(crop({0, 0, 1, 1}, 2, 2), (std::vector<float>{0, 2, 20, 22}));
  // A 1x1 crop samples the box centre: ((0.25+0.75)/2 * 2) = 1 -> 11.
  EXPECT_EQ(crop({0.25f, 0.25f, 0.75f, 0.75f}, 1, 1), (std::vector<float>{11}));
  // y1 > y2 flips the crop upside down.
  EXPECT_EQ(crop({1, 0, 0, 1}, 3, 3), (std::vector<float>{20, 21, 22, 10, 11, 12, 0, 1, 2}));
}

TEST(CropAndResize, BilinearNearestAndExtrapolation) {
  // Box (0,0)-(0.25,0.25), 2x2: samples at 0 and 0.25*2 = 0.5 per axis.
  // bilinear: 10 y + x -> 0, 0.5, 5, 5.5; nearest rounds 0.5 away from
  // zero to 1 -> 0, 1, 10, 11.
  EXPECT_EQ(crop({0, 0, 0.25f, 0.25f}, 2, 2, 0), (std::vector<float>{0, 0.5f, 5, 5.5f}));
  EXPECT_EQ(crop({0, 0, 0.25f, 0.25f}, 2, 2, 1), (std::vector<float>{0, 1, 10, 11}));
  // Box y in [0, 2] (past the image), 3x1: rows at 0, 2, 4 and the column at
  // the centre (0+1)/2 * 2 = 1: 1, 21, and row 4 lies outside -> -1.
  EXPECT_EQ(crop({0, 0, 2, 1}, 3, 1, 0, -1.0f), (std::vector<float>{1, 21, -1}));
}

TEST(CropAndResize, BoxesPickTheirImage) {
  // Two 1x2 images with two channels; box 0 reads image 1, box 1 image 0;
  // a 1x1 crop of the whole image samples its centre column 0.5.
  //   image 0: (0, 100) (2, 300) -> (1, 200); image 1: (4, 40) (6, 60) -> (5, 50)
  std::vector<float> x{0, 100, 2, 300, 4, 40, 6, 60}, boxes{0, 0, 1, 1, 0, 0, 1, 1};
  const std::vector<int32_t> idx{1, 0};
  Node n{"CropAndResize", "c", {f32({2, 1, 2, 2}), f32({2, 4}), indices({2})}, {f32({2, 1, 1, 2})},
         {u32_tensor_param("resize_dims", {2}, {1, 1})}};
  std::unique_ptr<OpKernel> k;
  ASSERT_TRUE(n.prepare(&k).ok()) << n.prepare().message;
  std::vector<float> y(4);
  const void* ins[] = {x.data(), boxes.data(), idx.data()};
  void* outs[] = {y.data()};
  k->run(ins, outs);
  EXPECT_EQ(y, (std::vector<float>{5, 50, 1, 200}));
  // A run-time index outside the batch yields a box of extrapolation_value (0).
  const std::vector<int32_t> bad{7, 0};
  const void* ins_bad[] = {x.data(), boxes.data(), bad.data()};
  k->run(ins_bad, outs);
  EXPECT_EQ(y, (std::vector<float>{0, 0, 1, 200}));
}

TEST(CropAndResize, Refusals) {
  const Node base{"CropAndResize", "c", {f32({1, 3, 3, 1}), f32({2, 4}), indices({2})}, {f32({2, 2, 2, 1})},
                  {u32_tensor_param("resize_dims", {2}, {2, 2})}};
  ASSERT_TRUE(base.prepare().ok()) << base.prepare().message;
  Node n = base;
  n.params.clear();
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "resize_dims");
  n = base;
  n.params[0] = u32_tensor_param("resize_dims", {2}, {0, 2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'resize_dims' is [0,2]");
  n = base;
  n.params.push_back(u32_param("interpolation_mode", 2));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'interpolation_mode' is 2");
  n = base;
  n.params.push_back(u32_param("align_corners", 1));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'align_corners'");
  n = base;
  n.inputs[1].dims = {2, 3};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (boxes) dim 1 is 3, expected 4");
  n = base;
  n.inputs[2].dims = {3};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (box_indices) dim 0 is 3", "num_boxes");
  n = base;
  n.inputs[2].dtype = dtype::kFloat32;
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (box_indices) data type is FLOAT_32");
  n = base;
  n.outputs[0].dims = {2, 2, 3, 1};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "[2,2,2,1]");
  n = base;
  n.inputs[0].dims = {3, 3, 1};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input)", "rank");
  n = base;
  n.inputs.resize(2);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "input");
  // A static index outside the batch is refused at prepare.
  const std::vector<int32_t> bad{0, 1};
  n = base;
  n.inputs[2].static_data = bad.data();
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (box_indices) element 1 is 1",
                "batch-1 = 0");
  const std::vector<int32_t> good{0, 0};
  n.inputs[2].static_data = good.data();
  EXPECT_TRUE(n.prepare().ok()) << n.prepare().message;
}

// --------------------------------------------------------------- ArgbToRgb

std::vector<uint8_t> argb(const std::vector<uint8_t>& x, uint32_t order, bool reverse) {
  Node n{"ArgbToRgb", "a", {typed(dtype::kUint8, {1, 1, 2, 4})}, {typed(dtype::kUint8, {1, 1, 2, 3})},
         {u32_param("input_order", order), bool_param("reverse_output", reverse)}};
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  EXPECT_TRUE(s.ok()) << s.message;
  if (!k) return {};
  std::vector<uint8_t> y(6, 0xEE);
  const void* ins[] = {x.data()};
  void* outs[] = {y.data()};
  k->run(ins, outs);
  return y;
}

TEST(ArgbToRgb, OrdersAndReverse) {
  // Two pixels: ARGB (255, 1, 2, 3) (128, 4, 5, 6): alpha dropped -> 1 2 3 4 5 6;
  // reverse_output gives BGR -> 3 2 1 6 5 4. The same colours as RGBA
  // (1, 2, 3, 255) (4, 5, 6, 128) give the same outputs.
  const std::vector<uint8_t> a{255, 1, 2, 3, 128, 4, 5, 6}, r{1, 2, 3, 255, 4, 5, 6, 128};
  EXPECT_EQ(argb(a, 0, false), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(argb(a, 0, true), (std::vector<uint8_t>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(argb(r, 1, false), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(argb(r, 1, true), (std::vector<uint8_t>{3, 2, 1, 6, 5, 4}));
}

TEST(ArgbToRgb, FloatWithDefaultOrder) {
  std::vector<float> x{0.5f, 1, 2, 3};
  Node n{"ArgbToRgb", "a", {f32({1, 1, 1, 4})}, {f32({1, 1, 1, 3})}, {bool_param("reverse_output", false)}};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{1, 2, 3}));
}

TEST(ArgbToRgb, Refusals) {
  const Node base{"ArgbToRgb", "a", {typed(dtype::kUint8, {1, 2, 2, 4})}, {typed(dtype::kUint8, {1, 2, 2, 3})},
                  {bool_param("reverse_output", false)}};
  ASSERT_TRUE(base.prepare().ok()) << base.prepare().message;
  Node n = base;
  n.params.clear();
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "reverse_output");
  n = base;
  n.params.push_back(u32_param("input_order", 2));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "parameter 'input_order' is 2");
  n = base;
  n.inputs[0].dims = {1, 2, 2, 3};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input) dim 3 is 3, expected 4");
  n = base;
  n.outputs[0].dims = {1, 2, 2, 4};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "[1,2,2,3]");
  n = base;
  n.inputs[0].dims = {2, 2, 4};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input)", "rank");
  n = base;
  n.outputs[0].dtype = dtype::kInt8;
  EXPECT_FALSE(n.prepare().ok());
  n = base;
  n.params.push_back(u32_param("output_order", 0));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'output_order'");
}

// ---------------------------------------------------------------- RoiAlign

Param ratio(float h, float w) {
  Param p;
  p.name = "img_size_ratio";
  p.is_tensor = true;
  p.dtype = dtype::kFloat32;
  p.dims = {2};
  const float v[2] = {h, w};
  p.data.resize(sizeof v);
  std::memcpy(p.data.data(), v, sizeof v);
  return p;
}

// A 4x4 map holding x[h][w] = 10 h + w: bilinear samples inside it are
// exact (10 y + x), and so is the mean of any set of them (the value at
// their mean position).
std::vector<float> roi_align(const std::vector<float>& roi, uint32_t ho, uint32_t wo, std::vector<Param> params) {
  std::vector<float> map(16);
  for (int h = 0; h < 4; ++h)
    for (int w = 0; w < 4; ++w) map[h * 4 + w] = static_cast<float>(10 * h + w);
  const std::vector<int32_t> idx{0};
  Node n{"RoiAlign", "r", {f32({1, 4, 4, 1}), f32({1, 4}), indices({1})}, {f32({1, ho, wo, 1})}, std::move(params)};
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  EXPECT_TRUE(s.ok()) << s.message;
  if (!k) return {};
  std::vector<float> y(size_t{ho} * wo, std::nanf(""));
  const void* ins[] = {map.data(), roi.data(), idx.data()};
  void* outs[] = {y.data()};
  k->run(ins, outs);
  return y;
}

TEST(RoiAlign, BinsAndSamples) {
  // Roi (0,0)-(4,4), 2x2 bins of size 2, one sample per bin at the bin
  // centres (1,1) (1,3) (3,1) (3,3): 11 13 31 33.
  const std::vector<float> whole{0, 0, 4, 4};
  EXPECT_EQ(roi_align(whole, 2, 2, {ratio(1, 1), u32_param("num_samples_y", 1), u32_param("num_samples_x", 1)}),
            (std::vector<float>{11, 13, 31, 33}));
  // Adaptive: ceil(2) = 2x2 samples per bin at 0.5 and 1.5 past the bin
  // start, so at 0.5 1.5 | 2.5 3.5 per axis; 3.5 lies within a pixel past
  // the last row/column and is clamped to 3. Mean positions per axis:
  // 1 and (2.5 + 3)/2 = 2.75 -> 11, 12.75, 28.5, 30.25.
  EXPECT_EQ(roi_align(whole, 2, 2, {ratio(1, 1)}), (std::vector<float>{11, 12.75f, 28.5f, 30.25f}));
  // img_size_ratio 2: image roi (0,0)-(8,8) is the map's (0,0)-(4,4).
  EXPECT_EQ(roi_align({0, 0, 8, 8}, 2, 2, {ratio(2, 2), u32_param("num_samples_y", 1), u32_param("num_samples_x", 1)}),
            (std::vector<float>{11, 13, 31, 33}));
  // aligned shifts by half a pixel: (0.5,0.5)-(4.5,4.5) -> (0,0)-(4,4).
  EXPECT_EQ(roi_align({0.5f, 0.5f, 4.5f, 4.5f}, 2, 2,
                      {ratio(1, 1), u32_param("num_samples_y", 1), u32_param("num_samples_x", 1),
                       bool_param("aligned", true)}),
            (std::vector<float>{11, 13, 31, 33}));
  // Without aligned a roi is at least 1 wide: (1,1)-(1,1) becomes 1x1, one
  // adaptive sample at (1.5, 1.5) -> 16.5.
  EXPECT_EQ(roi_align({1, 1, 1, 1}, 1, 1, {ratio(1, 1)}), (std::vector<float>{16.5f}));
}

TEST(RoiAlign, EdgesClampOrReadZero) {
  // Roi (2,2)-(6,6), one bin, 2x2 samples at 3 and 5 per axis: (3,3) = 33;
  // any sample at 5 lies more than a pixel past the 4-wide map -> 0:
  // mean 33/4.
  EXPECT_EQ(roi_align({2, 2, 6, 6}, 1, 1, {ratio(1, 1), u32_param("num_samples_y", 2), u32_param("num_samples_x", 2)}),
            (std::vector<float>{33.0f / 4}));
  // Roi (2,2)-(5,5), one sample at 3.5: within a pixel of the map, clamped
  // to its last row and column -> 33.
  EXPECT_EQ(roi_align({2, 2, 5, 5}, 1, 1, {ratio(1, 1), u32_param("num_samples_y", 1), u32_param("num_samples_x", 1)}),
            (std::vector<float>{33}));
}

TEST(RoiAlign, BatchIndexAndChannels) {
  // Two 1x1 maps with two channels: roi 0 reads map 1, roi 1 map 0.
  std::vector<float> x{1, 2, 3, 4}, rois{0, 0, 1, 1, 0, 0, 1, 1};
  const std::vector<int32_t> idx{1, 0};
  Node n{"RoiAlign", "r", {f32({2, 1, 1, 2}), f32({2, 4}), indices({2})}, {f32({2, 1, 1, 2})}, {ratio(1, 1)}};
  std::unique_ptr<OpKernel> k;
  ASSERT_TRUE(n.prepare(&k).ok()) << n.prepare().message;
  std::vector<float> y(4);
  const void* ins[] = {x.data(), rois.data(), idx.data()};
  void* outs[] = {y.data()};
  k->run(ins, outs);
  EXPECT_EQ(y, (std::vector<float>{3, 4, 1, 2}));
}

TEST(RoiAlign, Refusals) {
  const Node base{"RoiAlign", "r", {f32({1, 4, 4, 1}), f32({2, 4}), indices({2})}, {f32({2, 2, 2, 1})},
                  {ratio(1, 1)}};
  ASSERT_TRUE(base.prepare().ok()) << base.prepare().message;
  Node n = base;
  n.params.clear();
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'img_size_ratio' is mandatory");
  n = base;
  n.params[0] = u32_tensor_param("img_size_ratio", {2}, {1, 1});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'img_size_ratio' must be a FLOAT_32 tensor");
  n = base;
  n.params[0] = ratio(0, 1);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'img_size_ratio' is [0,1]");
  n = base;
  n.params.push_back(u32_tensor_param("num_samples_x", {1}, {2}));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'num_samples_x' is a tensor");
  n = base;
  n.params.push_back(u32_param("mode", 0));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'mode'");
  n = base;
  n.inputs[1].dims = {2, 5};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (rois) dim 1 is 5, expected 4");
  n = base;
  n.inputs[2].dims = {1};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) dim 0 is 1", "num_rois");
  n = base;
  n.inputs[2].dtype = dtype::kFloat32;
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) data type is FLOAT_32");
  n = base;
  n.outputs[0].dims = {3, 2, 2, 1};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "[2,2,2,1]");
  n = base;
  n.outputs[0].dims = {2, 2, 2};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]", "rank");
  n = base;
  n.inputs.resize(2);
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "input");
  // Static rois are held to x1 <= x2, y1 <= y2 unless allow_invalid_roi.
  const std::vector<float> inverted{0, 0, 2, 2, 3, 0, 1, 2};
  n = base;
  n.inputs[1].static_data = inverted.data();
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (rois) row 1", "'allow_invalid_roi' is 0");
  n.params.push_back(bool_param("allow_invalid_roi", true));
  EXPECT_TRUE(n.prepare().ok()) << n.prepare().message;
  // A static batch index outside the batch.
  const std::vector<int32_t> bad{0, 2};
  n = base;
  n.inputs[2].static_data = bad.data();
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (batch_indices) element 1 is 2");
}

}  // namespace
}  // namespace opstest
