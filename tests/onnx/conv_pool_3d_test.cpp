// Lowering of the 3-D spatial pools and ConvTranspose (rank-5, NCDHW ->
// NDHWC) and of dilated 2-D ConvTranspose (QNN TransposeConv2d has no
// dilation: the kernel is dilated with zeros). Checks the QNN node sequence,
// params and converted weights; expected values are worked out by hand here.
// The numbers themselves are checked end to end by the ONNX conformance
// runner (test_maxpool_3d_default, test_averagepool_3d_default,
// test_convtranspose_3d, test_convtranspose_dilations).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <tuple>

#include "QnnOpDef.h"
#include "model_builder.h"
#include "onnx/importer.h"
#include "onnx/layout.h"

namespace {

using namespace openhtp::onnx_import;
using onnx_test::ModelBuilder;

bool lower(const onnx::ModelProto& proto, QnnGraphDesc* g, std::string* error) {
  ImportOptions options;
  PreparedModel p;
  if (!prepare_model(proto, options, &p, error)) return false;
  return build_graph_desc(p, options, g, error);
}

std::vector<std::string> node_types(const QnnGraphDesc& g) {
  std::vector<std::string> v;
  for (const auto& n : g.nodes) v.push_back(n.type);
  return v;
}

const QNode* find_node(const QnnGraphDesc& g, const std::string& type) {
  for (const QNode& n : g.nodes) {
    if (n.type == type) return &n;
  }
  return nullptr;
}

// A tensor param's dims and uint32 values, or a scalar's value as {value}.
struct ParamValue {
  std::vector<uint32_t> dims;
  std::vector<uint32_t> values;
  bool operator==(const ParamValue&) const = default;
};
std::ostream& operator<<(std::ostream& os, const ParamValue& p) {
  os << "dims [";
  for (uint32_t d : p.dims) os << d << ' ';
  os << "] values [";
  for (uint32_t v : p.values) os << v << ' ';
  return os << ']';
}

ParamValue param(const QNode& n, const std::string& name) {
  for (const QParam& p : n.params) {
    if (p.name != name) continue;
    if (!p.is_tensor) return {{}, {p.scalar.dataType == QNN_DATATYPE_BOOL_8 ? p.scalar.bool8Value : p.scalar.uint32Value}};
    std::vector<uint32_t> v(p.data.size() / 4);
    std::memcpy(v.data(), p.data.data(), v.size() * 4);
    return {p.dims, v};
  }
  ADD_FAILURE() << "node " << n.name << " has no param " << name;
  return {};
}

std::vector<float> as_f32(const std::vector<uint8_t>& bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

TEST(OnnxConvPool3d, MaxPoolRank5BecomesPoolMax3dOnNdhwc) {
  // x [1, 2, 5, 6, 7]; kernel (3, 2, 2), strides (2, 1, 2), pads begins
  // (1, 0, 1) ends (0, 1, 0): D = (1+5-3)/2+1 = 2, H = (6+1-2)/1+1 = 6,
  // W = (1+7-2)/2+1 = 4.
  ModelBuilder b;
  b.input("x", {1, 2, 5, 6, 7}).output("y", {1, 2, 2, 6, 4});
  auto& n = b.node("MaxPool", "mp", {"x"}, {"y"});
  ModelBuilder::ints(n, "kernel_shape", {3, 2, 2});
  ModelBuilder::ints(n, "strides", {2, 1, 2});
  ModelBuilder::ints(n, "pads", {1, 0, 1, 0, 1, 0});
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(b.model(), &g, &error)) << error;
  ASSERT_EQ(node_types(g), (std::vector<std::string>{QNN_OP_TRANSPOSE, QNN_OP_POOL_MAX_3D, QNN_OP_TRANSPOSE}));
  const QNode& pool = g.nodes[1];
  // Channel moves last: [N, D, H, W, C].
  EXPECT_EQ(g.find(pool.inputs[0])->dims, (std::vector<uint32_t>{1, 5, 6, 7, 2}));
  EXPECT_EQ(g.find(pool.outputs[0])->dims, (std::vector<uint32_t>{1, 2, 6, 4, 2}));
  EXPECT_EQ(param(g.nodes[0], QNN_OP_TRANSPOSE_PARAM_PERM), (ParamValue{{5}, {0, 2, 3, 4, 1}}));
  EXPECT_EQ(param(g.nodes[2], QNN_OP_TRANSPOSE_PARAM_PERM), (ParamValue{{5}, {0, 4, 1, 2, 3}}));
  EXPECT_EQ(param(pool, QNN_OP_POOL_MAX_3D_PARAM_FILTER_SIZE), (ParamValue{{3}, {3, 2, 2}}));
  EXPECT_EQ(param(pool, QNN_OP_POOL_MAX_3D_PARAM_STRIDE), (ParamValue{{3}, {2, 1, 2}}));
  // ONNX [b_d, b_h, b_w, e_d, e_h, e_w] -> QNN [[b_d, e_d], [b_h, e_h], [b_w, e_w]].
  EXPECT_EQ(param(pool, QNN_OP_POOL_MAX_3D_PARAM_PAD_AMOUNT), (ParamValue{{3, 2}, {1, 0, 0, 1, 1, 0}}));
  EXPECT_EQ(param(pool, QNN_OP_POOL_MAX_3D_PARAM_ROUNDING_MODE),
            (ParamValue{{}, {QNN_OP_POOL_MAX_3D_ROUNDING_MODE_FLOOR}}));
  // Breaking it: a dilated MaxPool stays refused (QNN pools have no dilation).
  ModelBuilder d;
  d.input("x", {1, 2, 5, 6, 7}).output("y", {1, 2, 1, 5, 6});
  auto& dn = d.node("MaxPool", "mp", {"x"}, {"y"});
  ModelBuilder::ints(dn, "kernel_shape", {3, 2, 2});
  ModelBuilder::ints(dn, "dilations", {2, 1, 1});
  QnnGraphDesc gd;
  EXPECT_FALSE(lower(d.model(), &gd, &error));
  EXPECT_NE(error.find("dilations other than 1"), std::string::npos) << error;
}

TEST(OnnxConvPool3d, AveragePoolRank5BecomesPoolAvg3d) {
  // kernel 2x2x2, ceil_mode, count_include_pad: D = ceil((3-2)/1)+1 = 2,
  // H = W = ceil((4-2)/2)+1 = 2.
  ModelBuilder b;
  b.input("x", {2, 3, 3, 4, 4}).output("y", {2, 3, 2, 2, 2});
  auto& n = b.node("AveragePool", "ap", {"x"}, {"y"});
  ModelBuilder::ints(n, "kernel_shape", {2, 2, 2});
  ModelBuilder::ints(n, "strides", {1, 2, 2});
  ModelBuilder::i(n, "ceil_mode", 1);
  ModelBuilder::i(n, "count_include_pad", 1);
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(b.model(), &g, &error)) << error;
  const QNode* pool = find_node(g, QNN_OP_POOL_AVG_3D);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(g.find(pool->outputs[0])->dims, (std::vector<uint32_t>{2, 2, 2, 2, 3}));
  EXPECT_EQ(param(*pool, QNN_OP_POOL_AVG_3D_PARAM_PAD_AMOUNT), (ParamValue{{3, 2}, {0, 0, 0, 0, 0, 0}}));
  EXPECT_EQ(param(*pool, QNN_OP_POOL_AVG_3D_PARAM_ROUNDING_MODE),
            (ParamValue{{}, {QNN_OP_POOL_AVG_3D_ROUNDING_MODE_CEIL}}));
  EXPECT_EQ(param(*pool, QNN_OP_POOL_AVG_3D_PARAM_COUNT_PAD_FOR_EDGES), (ParamValue{{}, {1}}));
  // Breaking it: a kernel_shape of the wrong length names both counts.
  ModelBuilder w;
  w.input("x", {2, 3, 3, 4, 4}).output("y", {2, 3, 3, 3, 3});
  ModelBuilder::ints(w.node("AveragePool", "ap", {"x"}, {"y"}), "kernel_shape", {2, 2});
  QnnGraphDesc gw;
  EXPECT_FALSE(lower(w.model(), &gw, &error));
  EXPECT_NE(error.find("'kernel_shape' has 2 entries, expected 3"), std::string::npos) << error;
}

TEST(OnnxConvPool3d, ConvTranspose3dWeightsBecomeDhwio) {
  // ONNX [Cin, Cout/g, kd, kh, kw] = [2, 3, 2, 1, 2] -> QNN [2, 1, 2, 2, 3]:
  // q[kd][kh][kw][i][o] = w[i][o][kd][kh][kw].
  std::vector<float> t(2 * 3 * 2 * 1 * 2);
  for (size_t i = 0; i < t.size(); ++i) t[i] = float(i);
  Tensor q = conv_transpose3d_weight_to_qnn(Tensor::from_floats({2, 3, 2, 1, 2}, t));
  EXPECT_EQ(q.dims, (std::vector<int64_t>{2, 1, 2, 2, 3}));
  const int kd = 1, kw = 1, i = 1, o = 2;  // kh = 0
  EXPECT_EQ(q.to_floats()[((kd * 2 + kw) * 2 + i) * 3 + o], t[((i * 3 + o) * 2 + kd) * 2 + kw]);
}

TEST(OnnxConvPool3d, ConvTransposeRank5BecomesTransposeConv3d) {
  // x [1, 2, 3, 3, 3], constant weight [2, 1, 2, 2, 2], strides 2, dilations
  // (1, 2, 1), pads begins (1, 0, 0) ends (0, 0, 1): out = 2*(3-1) +
  // d*(2-1) + 1 - pads = D 4+1+1-1 = 5, H 4+2+1 = 7, W 4+1+1-1 = 5.
  ModelBuilder b;
  std::vector<float> w(2 * 1 * 2 * 2 * 2);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(i) + 1;
  b.input("x", {1, 2, 3, 3, 3}).initializer("w", {2, 1, 2, 2, 2}, w).output("y", {1, 1, 5, 7, 5});
  auto& n = b.node("ConvTranspose", "ct", {"x", "w"}, {"y"});
  ModelBuilder::ints(n, "strides", {2, 2, 2});
  ModelBuilder::ints(n, "dilations", {1, 2, 1});
  ModelBuilder::ints(n, "pads", {1, 0, 0, 0, 0, 1});
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(b.model(), &g, &error)) << error;
  ASSERT_EQ(node_types(g),
            (std::vector<std::string>{QNN_OP_TRANSPOSE, QNN_OP_TRANSPOSE_CONV_3D, QNN_OP_TRANSPOSE}));
  const QNode& tc = g.nodes[1];
  EXPECT_EQ(g.find(tc.outputs[0])->dims, (std::vector<uint32_t>{1, 5, 7, 5, 1}));
  const QTensor* wq = g.find(tc.inputs[1]);
  ASSERT_NE(wq, nullptr);
  EXPECT_EQ(wq->type, QNN_TENSOR_TYPE_STATIC);
  EXPECT_EQ(wq->dims, (std::vector<uint32_t>{2, 2, 2, 2, 1}));
  // q[kd][kh][kw][i][0] = w[i][0][kd][kh][kw]: q[1][0][1][1] = w[1][0][1][0][1] = index 13 -> 14.
  EXPECT_EQ(as_f32(wq->data)[((1 * 2 + 0) * 2 + 1) * 2 + 1], 14.0f);
  EXPECT_EQ(param(tc, QNN_OP_TRANSPOSE_CONV_3D_PARAM_STRIDE), (ParamValue{{3}, {2, 2, 2}}));
  EXPECT_EQ(param(tc, QNN_OP_TRANSPOSE_CONV_3D_PARAM_DILATION), (ParamValue{{3}, {1, 2, 1}}));
  EXPECT_EQ(param(tc, QNN_OP_TRANSPOSE_CONV_3D_PARAM_PAD_AMOUNT), (ParamValue{{3, 2}, {1, 0, 0, 0, 0, 1}}));
  EXPECT_EQ(param(tc, QNN_OP_TRANSPOSE_CONV_3D_PARAM_OUTPUT_PADDING), (ParamValue{{3}, {0, 0, 0}}));
  EXPECT_EQ(param(tc, QNN_OP_TRANSPOSE_CONV_3D_PARAM_GROUP), (ParamValue{{}, {1}}));
}

TEST(OnnxConvPool3d, DilatedConvTranspose2dWithConstantWeightGetsADilatedKernel) {
  // Weight [1, 1, 2, 2] = [1 2; 3 4], dilations (2, 3): the QNN kernel is
  // [2*1+1, 3*1+1, 1, 1] = [3, 4] with the taps at rows 0, 2 and columns 0, 3.
  // x [1, 1, 3, 3], stride 1, pads (1, 0, 0, 1): out = 2 + 3 - 1 = 4 rows,
  // 2 + 4 - 1 = 5 columns (the effective kernel size sets the output).
  ModelBuilder b;
  b.input("x", {1, 1, 3, 3}).initializer("w", {1, 1, 2, 2}, {1, 2, 3, 4}).output("y", {1, 1, 4, 5});
  auto& n = b.node("ConvTranspose", "ct", {"x", "w"}, {"y"});
  ModelBuilder::ints(n, "dilations", {2, 3});
  ModelBuilder::ints(n, "pads", {1, 0, 0, 1});
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(b.model(), &g, &error)) << error;
  ASSERT_EQ(node_types(g),
            (std::vector<std::string>{QNN_OP_TRANSPOSE, QNN_OP_TRANSPOSE_CONV_2D, QNN_OP_TRANSPOSE}));
  const QNode& tc = g.nodes[1];
  const QTensor* wq = g.find(tc.inputs[1]);
  ASSERT_NE(wq, nullptr);
  EXPECT_EQ(wq->type, QNN_TENSOR_TYPE_STATIC);
  EXPECT_EQ(wq->dims, (std::vector<uint32_t>{3, 4, 1, 1}));
  EXPECT_EQ(as_f32(wq->data), (std::vector<float>{1, 0, 0, 2,  //
                                                  0, 0, 0, 0,  //
                                                  3, 0, 0, 4}));
  EXPECT_EQ(g.find(tc.outputs[0])->dims, (std::vector<uint32_t>{1, 4, 5, 1}));
  EXPECT_EQ(param(tc, QNN_OP_TRANSPOSE_CONV_2D_PARAM_PAD_AMOUNT), (ParamValue{{2, 2}, {1, 0, 0, 1}}));
  // output_shape given instead of pads: total padding uses the effective
  // kernel, 1*(3-1) + 0 + 3 - 4 = 1 rows and 2 + 4 - 5 = 1 column, split
  // begin = total - total/2 (NOTSET is not SAME_UPPER) -> (1, 0), (1, 0).
  ModelBuilder s;
  s.input("x", {1, 1, 3, 3}).initializer("w", {1, 1, 2, 2}, {1, 2, 3, 4}).output("y", {1, 1, 4, 5});
  auto& sn = s.node("ConvTranspose", "ct", {"x", "w"}, {"y"});
  ModelBuilder::ints(sn, "dilations", {2, 3});
  ModelBuilder::ints(sn, "output_shape", {4, 5});
  QnnGraphDesc gs;
  ASSERT_TRUE(lower(s.model(), &gs, &error)) << error;
  const QNode* tcs = find_node(gs, QNN_OP_TRANSPOSE_CONV_2D);
  ASSERT_NE(tcs, nullptr);
  EXPECT_EQ(param(*tcs, QNN_OP_TRANSPOSE_CONV_2D_PARAM_PAD_AMOUNT), (ParamValue{{2, 2}, {1, 0, 1, 0}}));
}

TEST(OnnxConvPool3d, DilatedConvTranspose2dWithRuntimeWeightSpreadsItInTheGraph) {
  // Weight [Cin 1, Cout 1, 2, 2] at run time, dilations (2, 1): after the
  // [kh, kw, Cin, Cout] Transpose, rows get one zero row after each (Reshape
  // [2, 1, 2] + Concat with zeros [2, 1, 2] + Reshape [4, 2, 1, 1]); the one
  // extra trailing zero row is cancelled by one more bottom pad. Columns
  // (dilation 1) are left alone. Out = 1*(3-1) + 2*(2-1)+1 = 5 rows, 4 cols.
  ModelBuilder b;
  b.input("x", {1, 1, 3, 3}).input("w", {1, 1, 2, 2}).output("y", {1, 1, 5, 4});
  ModelBuilder::ints(b.node("ConvTranspose", "ct", {"x", "w"}, {"y"}), "dilations", {2, 1});
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(b.model(), &g, &error)) << error;
  ASSERT_EQ(node_types(g), (std::vector<std::string>{QNN_OP_TRANSPOSE, QNN_OP_TRANSPOSE, QNN_OP_RESHAPE,
                                                     QNN_OP_CONCAT, QNN_OP_RESHAPE, QNN_OP_TRANSPOSE_CONV_2D,
                                                     QNN_OP_TRANSPOSE}));
  const QNode& concat = g.nodes[3];
  EXPECT_EQ(param(concat, QNN_OP_CONCAT_PARAM_AXIS), (ParamValue{{}, {1}}));
  EXPECT_EQ(g.find(concat.inputs[0])->dims, (std::vector<uint32_t>{2, 1, 2}));
  const QTensor* zeros = g.find(concat.inputs[1]);
  ASSERT_NE(zeros, nullptr);
  EXPECT_EQ(zeros->type, QNN_TENSOR_TYPE_STATIC);
  EXPECT_EQ(zeros->dims, (std::vector<uint32_t>{2, 1, 2}));
  EXPECT_EQ(as_f32(zeros->data), (std::vector<float>{0, 0, 0, 0}));
  const QNode& tc = g.nodes[5];
  EXPECT_EQ(tc.inputs[1], g.nodes[4].outputs[0]);
  EXPECT_EQ(g.find(tc.inputs[1])->dims, (std::vector<uint32_t>{4, 2, 1, 1}));
  EXPECT_EQ(param(tc, QNN_OP_TRANSPOSE_CONV_2D_PARAM_PAD_AMOUNT), (ParamValue{{2, 2}, {0, 1, 0, 0}}));
  EXPECT_EQ(g.find(tc.outputs[0])->dims, (std::vector<uint32_t>{1, 5, 4, 1}));
  // Breaking it: without dilation the weight goes straight from its
  // Transpose into TransposeConv2d.
  ModelBuilder p;
  p.input("x", {1, 1, 3, 3}).input("w", {1, 1, 2, 2}).output("y", {1, 1, 4, 4});
  p.node("ConvTranspose", "ct", {"x", "w"}, {"y"});
  QnnGraphDesc gp;
  ASSERT_TRUE(lower(p.model(), &gp, &error)) << error;
  EXPECT_EQ(node_types(gp), (std::vector<std::string>{QNN_OP_TRANSPOSE, QNN_OP_TRANSPOSE,
                                                      QNN_OP_TRANSPOSE_CONV_2D, QNN_OP_TRANSPOSE}));
}

}  // namespace

namespace {

// MaxPool 2x2, dilations 2, stride 1 on a 1x1x5x5 input: output 3x3, taps at
// offsets (0,0), (0,2), (2,0), (2,2) of the padded input.
onnx::ModelProto dilated_max_pool(int32_t type, int64_t k) {
  ModelBuilder b;
  b.input("x", {1, 1, 5, 5}, type).output("y", {1, 1, 5 - 2 * (k - 1), 5 - 2 * (k - 1)}, type);
  auto& n = b.node("MaxPool", "mp", {"x"}, {"y"});
  ModelBuilder::ints(n, "kernel_shape", {k, k});
  ModelBuilder::ints(n, "dilations", {2, 2});
  return b.model();
}

}  // namespace

TEST(OnnxConvPool3d, DilatedMaxPoolIsPadSlicesAndMaximum) {
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(dilated_max_pool(1, 2), &g, &error)) << error;
  std::vector<std::string> types = node_types(g);
  // Transpose to NHWC, Pad, 4 slices interleaved with 3 maxima, Transpose back.
  EXPECT_EQ(std::count(types.begin(), types.end(), std::string(QNN_OP_STRIDED_SLICE)), 4);
  EXPECT_EQ(std::count(types.begin(), types.end(), std::string(QNN_OP_ELEMENT_WISE_MAXIMUM)), 3);
  EXPECT_EQ(std::count(types.begin(), types.end(), std::string(QNN_OP_PAD)), 1);
  EXPECT_EQ(find_node(g, QNN_OP_POOL_MAX_2D), nullptr);
  // The last tap starts at (2, 2) and takes 3 rows/cols at stride 1.
  const QNode* last = nullptr;
  for (const QNode& n : g.nodes) {
    if (n.type == QNN_OP_STRIDED_SLICE) last = &n;
  }
  ASSERT_NE(last, nullptr);
  const QParam* ranges = nullptr;
  for (const QParam& p : last->params) {
    if (p.name == QNN_OP_STRIDED_SLICE_PARAM_RANGES) ranges = &p;
  }
  ASSERT_NE(ranges, nullptr);
  std::vector<int32_t> r(ranges->data.size() / 4);
  std::memcpy(r.data(), ranges->data.data(), r.size() * 4);
  EXPECT_EQ(r, (std::vector<int32_t>{0, 1, 1, 2, 5, 1, 2, 5, 1, 0, 1, 1}));
}

TEST(OnnxConvPool3d, DilatedMaxPoolOnIntegersOrHugeWindowsIsRefusedWithTheReason) {
  for (auto [type, k, why] : {std::tuple{3, int64_t{2}, "float 2-D MaxPool only"},
                              std::tuple{1, int64_t{17}, "289-tap window"}}) {
    ModelBuilder b;
    b.input("x", {1, 1, 40, 40}, type).output("y", {1, 1, 40 - 2 * (k - 1), 40 - 2 * (k - 1)}, type);
    auto& n = b.node("MaxPool", "mp", {"x"}, {"y"});
    ModelBuilder::ints(n, "kernel_shape", {k, k});
    ModelBuilder::ints(n, "dilations", {2, 2});
    PreparedModel p;
    std::string error;
    ASSERT_TRUE(prepare_model(b.model(), {}, &p, &error)) << error;
    const auto bad = find_unsupported(p.model);
    ASSERT_EQ(bad.size(), 1u) << why;
    EXPECT_NE(bad[0].reason.find(why), std::string::npos) << bad[0].reason;
  }
}

TEST(OnnxConvPool3d, MaxPoolIndicesOnIntegersOrRank5AreRefusedWithTheReason) {
  for (auto [type, rank5] : {std::tuple{3, false}, std::tuple{1, true}}) {
    ModelBuilder b;
    const std::vector<int64_t> xd = rank5 ? std::vector<int64_t>{1, 1, 4, 4, 4} : std::vector<int64_t>{1, 1, 4, 4};
    const std::vector<int64_t> yd = rank5 ? std::vector<int64_t>{1, 1, 2, 2, 2} : std::vector<int64_t>{1, 1, 2, 2};
    b.input("x", xd, type).output("y", yd, type).output("z", yd, 7);
    auto& n = b.node("MaxPool", "mp", {"x"}, {"y", "z"});
    ModelBuilder::ints(n, "kernel_shape", rank5 ? std::vector<int64_t>{2, 2, 2} : std::vector<int64_t>{2, 2});
    ModelBuilder::ints(n, "strides", rank5 ? std::vector<int64_t>{2, 2, 2} : std::vector<int64_t>{2, 2});
    PreparedModel p;
    std::string error;
    ASSERT_TRUE(prepare_model(b.model(), {}, &p, &error)) << error;
    const auto bad = find_unsupported(p.model);
    ASSERT_EQ(bad.size(), 1u);
    EXPECT_NE(bad[0].reason.find("MaxPool's indices output is supported for float 2-D MaxPool only"), std::string::npos)
        << bad[0].reason;
  }
}

TEST(OnnxConvPool3d, TfCropAndResizeFormsWithoutACropAndResizeAreRefusedWithTheReason) {
  struct Case {
    const char* mode;
    const char* nearest_mode;
    std::vector<float> roi;
    const char* why;
  };
  const Case cases[] = {
      {"cubic", "round_prefer_floor", {0, 0, 0, 0, 1, 1, 1, 1}, "mode 'cubic' is not supported"},
      {"nearest", "round_prefer_floor", {0, 0, 0, 0, 1, 1, 1, 1}, "nearest_mode 'round_prefer_floor'"},
      {"linear", "round_prefer_floor", {0, 0.5f, 0, 0, 1, 1, 1, 1}, "crops N or C"},
  };
  for (const Case& c : cases) {
    ModelBuilder b(13);
    b.input("x", {1, 2, 4, 4}).output("y", {1, 2, 3, 3});
    b.initializer("roi", {8}, c.roi);
    b.int64_initializer("sizes", {4}, {1, 2, 3, 3});
    auto& n = b.node("Resize", "r", {"x", "roi", "", "sizes"}, {"y"});
    for (auto [name, value] : {std::pair<const char*, const char*>{"coordinate_transformation_mode", "tf_crop_and_resize"},
                               std::pair<const char*, const char*>{"mode", c.mode},
                               std::pair<const char*, const char*>{"nearest_mode", c.nearest_mode}}) {
      auto* a = n.add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(value);
    }
    PreparedModel p;
    std::string error;
    ASSERT_TRUE(prepare_model(b.model(), {}, &p, &error)) << error;
    const auto bad = find_unsupported(p.model);
    ASSERT_EQ(bad.size(), 1u) << c.why;
    EXPECT_NE(bad[0].reason.find(c.why), std::string::npos) << bad[0].reason;
  }
}
