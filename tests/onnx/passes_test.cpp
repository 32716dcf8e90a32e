// Unit tests of the importer passes on small ModelProtos: layout
// conversion, BatchNormalization folding, constant folding, the
// unsupported-node report, the INT64 -> INT_32 rule, and the QNN node
// sequences of ops lowered to several nodes (ArgMax select_last_index,
// integer Clip, mixed-type Pow). Expected values are
// worked out by hand or by naive double-precision formulas here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>

#include "QnnOpDef.h"
#include "model_builder.h"
#include "onnx/attributes.h"
#include "onnx/batchnorm_folding.h"
#include "onnx/importer.h"
#include "onnx/layout.h"
#include "onnx/lowering.h"
#include "onnx/matmul_bias_folding.h"

namespace {

using namespace openhtp::onnx_import;
using onnx_test::ModelBuilder;

std::vector<float> iota_values(size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * scale + shift;
  return v;
}

size_t count_nodes(const QnnGraphDesc& g, const std::string& type) {
  size_t n = 0;
  for (const auto& node : g.nodes) n += node.type == type ? 1 : 0;
  return n;
}

bool lower(const onnx::ModelProto& proto, QnnGraphDesc* g, std::string* error, ImportOptions options = {}) {
  PreparedModel p;
  if (!prepare_model(proto, options, &p, error)) return false;
  return build_graph_desc(p, options, g, error);
}

TEST(OnnxLayout, PermuteTensorByHand) {
  Tensor t = Tensor::from_floats({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor p = permute_tensor(t, {1, 0});
  EXPECT_EQ(p.dims, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(p.to_floats(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(to_channel_last_perm(4), (std::vector<uint32_t>{0, 2, 3, 1}));
  EXPECT_EQ(from_channel_last_perm(4), (std::vector<uint32_t>{0, 3, 1, 2}));
  EXPECT_EQ(channel_last_axis(1, 4), 3u);  // C moves last
  EXPECT_EQ(channel_last_axis(2, 4), 1u);  // H moves forward
}

TEST(OnnxLayout, ConvWeightsBecomeHwio) {
  // OIHW [3, 2, 3, 3] -> HWIO [3, 3, 2, 3]: hwio[kh][kw][i][o] = oihw[o][i][kh][kw].
  const std::vector<float> w = iota_values(3 * 2 * 3 * 3, 1.0f, 0.0f);
  Tensor hwio = conv_weight_to_hwio(Tensor::from_floats({3, 2, 3, 3}, w));
  EXPECT_EQ(hwio.dims, (std::vector<int64_t>{3, 3, 2, 3}));
  const int o = 2, i = 1, kh = 1, kw = 2;
  EXPECT_EQ(hwio.to_floats()[((kh * 3 + kw) * 2 + i) * 3 + o], w[((o * 2 + i) * 3 + kh) * 3 + kw]);
  // ConvTranspose IOHW [2, 3, 2, 2] -> [kh, kw, I, O]: q[kh][kw][i][o] = w[i][o][kh][kw].
  const std::vector<float> t = iota_values(2 * 3 * 2 * 2, 1.0f, 0.0f);
  Tensor q = conv_transpose_weight_to_qnn(Tensor::from_floats({2, 3, 2, 2}, t));
  EXPECT_EQ(q.dims, (std::vector<int64_t>{2, 2, 2, 3}));
  EXPECT_EQ(q.to_floats()[((1 * 2 + 0) * 2 + 1) * 3 + 2], t[((1 * 3 + 2) * 2 + 1) * 2 + 0]);
}

onnx::ModelProto conv_relu_conv(bool softmax_between) {
  ModelBuilder b;
  b.input("x", {1, 2, 4, 4}).output("y", {1, 2, 4, 4});
  b.initializer("w1", {3, 2, 3, 3}, iota_values(54, 0.01f, -0.2f));
  b.initializer("w2", {2, 3, 1, 1}, iota_values(6, 0.1f, -0.3f));
  ModelBuilder::ints(b.node("Conv", "conv1", {"x", "w1"}, {"c1"}), "pads", {1, 1, 1, 1});
  b.node("Relu", "relu", {"c1"}, {"r"});
  std::string mid = "r";
  if (softmax_between) {
    b.node("Softmax", "sm", {"r"}, {"s"});
    mid = "s";
  }
  b.node("Conv", "conv2", {mid, "w2"}, {"y"});
  return b.model();
}

TEST(OnnxLayout, ChannelLastChainNeedsOneTransposeAtEachEnd) {
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(conv_relu_conv(false), &g, &error)) << error;
  // x -> NHWC before conv1, NHWC -> NCHW after conv2; Relu stays NHWC.
  EXPECT_EQ(count_nodes(g, QNN_OP_TRANSPOSE), 2u);
  EXPECT_EQ(count_nodes(g, QNN_OP_CONV_2D), 2u);
  const QTensor* w1 = g.find("w1_hwio");
  ASSERT_NE(w1, nullptr);
  EXPECT_EQ(w1->type, QNN_TENSOR_TYPE_STATIC);
  EXPECT_EQ(w1->dims, (std::vector<uint32_t>{3, 3, 2, 3}));
  // Graph I/O keep their names and ONNX layout.
  ASSERT_EQ(g.inputs, (std::vector<std::string>{"x"}));
  ASSERT_EQ(g.outputs, (std::vector<std::string>{"y"}));
  EXPECT_EQ(g.find("x")->dims, (std::vector<uint32_t>{1, 2, 4, 4}));
  EXPECT_EQ(g.find("y")->dims, (std::vector<uint32_t>{1, 2, 4, 4}));
}

TEST(OnnxLayout, LayoutSensitiveConsumerBetweenConvsCostsTwoMoreTransposes) {
  // Breaking the chain: Softmax over the ONNX last axis (W) needs NCHW, so
  // the value goes back to NCHW and then to NHWC again for conv2.
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(conv_relu_conv(true), &g, &error)) << error;
  EXPECT_EQ(count_nodes(g, QNN_OP_TRANSPOSE), 4u);
}

TEST(OnnxLayout, ChannelLastInputNeedsNoTranspose) {
  QnnGraphDesc g;
  std::string error;
  ImportOptions o;
  o.channel_last_inputs = {"x"};
  ASSERT_TRUE(lower(conv_relu_conv(false), &g, &error, o)) << error;
  EXPECT_EQ(count_nodes(g, QNN_OP_TRANSPOSE), 1u);
  EXPECT_EQ(g.find("x")->dims, (std::vector<uint32_t>{1, 4, 4, 2}));
}

// Conv + BN model: x [1,2,5,5], W [3,2,3,3], B [3], BN stats [3].
struct ConvBn {
  std::vector<float> w = iota_values(54, 0.03f, -0.7f);
  std::vector<float> b = {0.1f, -0.2f, 0.3f};
  std::vector<float> scale = {1.5f, 0.5f, -2.0f}, shift = {0.25f, 0.0f, -1.0f};
  std::vector<float> mean = {0.2f, -0.4f, 1.0f}, var = {0.5f, 2.0f, 0.25f};
  float eps = 1e-3f;

  onnx::ModelProto model(bool conv_output_also_graph_output) const {
    ModelBuilder m;
    m.input("x", {1, 2, 5, 5}).output("y", {1, 3, 5, 5});
    if (conv_output_also_graph_output) m.output("c", {1, 3, 5, 5});
    m.initializer("W", {3, 2, 3, 3}, w).initializer("B", {3}, b);
    m.initializer("s", {3}, scale).initializer("sh", {3}, shift).initializer("m", {3}, mean).initializer("v", {3}, var);
    ModelBuilder::ints(m.node("Conv", "conv", {"x", "W", "B"}, {"c"}), "pads", {1, 1, 1, 1});
    ModelBuilder::f(m.node("BatchNormalization", "bn", {"c", "s", "sh", "m", "v"}, {"y"}), "epsilon", eps);
    return m.model();
  }
};

TEST(OnnxBatchnormFolding, FoldedConvMatchesConvThenBatchnorm) {
  ConvBn cb;
  Model m;
  std::string error;
  ASSERT_TRUE(model_from_proto(cb.model(false), &m, &error)) << error;
  ASSERT_EQ(fold_batchnorms(&m), 1u);
  ASSERT_EQ(m.nodes.size(), 1u);
  EXPECT_EQ(m.nodes[0].op_type(), "Conv");
  EXPECT_EQ(m.nodes[0].output(0), "y");
  const Tensor* fw = m.constant(m.nodes[0].input(1));
  const Tensor* fb = m.constant(m.nodes[0].input(2));
  ASSERT_NE(fw, nullptr);
  ASSERT_NE(fb, nullptr);

  std::vector<double> x(50);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * static_cast<double>(i));
  int oh = 0, ow = 0;
  // Unfolded: conv in double, then BN's formula per channel.
  const std::vector<double> conv = onnx_test::naive_conv(x, 1, 2, 5, 5, {cb.w.begin(), cb.w.end()},
                                                         {cb.b.begin(), cb.b.end()}, 3, 3, 1, 1, &oh, &ow);
  const std::vector<double> folded =
      onnx_test::naive_conv(x, 1, 2, 5, 5, fw->to_doubles(), fb->to_doubles(), 3, 3, 1, 1, &oh, &ow);
  for (size_t i = 0; i < conv.size(); ++i) {
    const size_t c = i / 25;
    const double bn = (conv[i] - cb.mean[c]) / std::sqrt(static_cast<double>(cb.var[c]) + cb.eps) * cb.scale[c] +
                      cb.shift[c];
    EXPECT_NEAR(folded[i], bn, 1e-5) << "element " << i;
  }
}

TEST(OnnxBatchnormFolding, NotFoldedWhenConvOutputHasAnotherConsumer) {
  ConvBn cb;
  Model m;
  std::string error;
  ASSERT_TRUE(model_from_proto(cb.model(true), &m, &error)) << error;
  EXPECT_EQ(fold_batchnorms(&m), 0u);
  EXPECT_EQ(m.nodes.size(), 2u);
}

TEST(OnnxBatchnormFolding, NotFoldedWhenStatisticsAreRuntimeInputs) {
  ModelBuilder b;
  b.input("x", {1, 2, 3, 3}).input("mean", {2}).output("y", {1, 2, 3, 3});
  b.initializer("W", {2, 2, 1, 1}, {1, 0, 0, 1}).initializer("s", {2}, {1, 1}).initializer("sh", {2}, {0, 0});
  b.initializer("v", {2}, {1, 1});
  b.node("Conv", "conv", {"x", "W"}, {"c"});
  b.node("BatchNormalization", "bn", {"c", "s", "sh", "mean", "v"}, {"y"});
  Model m;
  std::string error;
  ASSERT_TRUE(model_from_proto(b.model(), &m, &error)) << error;
  EXPECT_EQ(fold_batchnorms(&m), 0u);
}

onnx::ModelProto shape_subgraph_model(bool static_input) {
  // y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), Constant[-1])) -> [2, 12]
  ModelBuilder b;
  b.input("x", {static_input ? 2 : -1, 3, 4});
  b.output("y", {2, 12});
  b.int64_initializer("zero", {}, {0}).int64_initializer("axes0", {1}, {0});
  b.node("Shape", "shape", {"x"}, {"sx"});
  b.node("Gather", "g", {"sx", "zero"}, {"n"});
  b.node("Unsqueeze", "u", {"n", "axes0"}, {"n1"});
  auto& c = b.node("Constant", "minus_one", {}, {"m1"});
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(7);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_int64_data(-1);
  ModelBuilder::i(b.node("Concat", "cat", {"n1", "m1"}, {"shape"}), "axis", 0);
  b.node("Reshape", "reshape", {"x", "shape"}, {"y"});
  onnx::ModelProto p = b.model();
  if (!static_input) {
    auto* dim = p.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
    dim->clear_dim_value();
    dim->set_dim_param("batch");
  }
  return p;
}

TEST(OnnxConstantFolding, ShapeSubgraphFoldsIntoReshapeTarget) {
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(shape_subgraph_model(true), {}, &p, &error)) << error;
  ASSERT_EQ(p.model.nodes.size(), 1u);
  const auto& r = p.model.nodes[0];
  EXPECT_EQ(r.op_type(), "Reshape");
  const Tensor* shape = p.model.constant(r.input(1));
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->to_ints(), (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(p.folded_constants, 5u);  // Shape, Gather, Unsqueeze, Constant, Concat
  EXPECT_EQ(p.model.info("y")->dims, (std::vector<int64_t>{2, 12}));
}

TEST(OnnxConstantFolding, ShapeOfADynamicDimensionNeedsDashDThenFolds) {
  PreparedModel p;
  std::string error;
  // A QNN graph has static shapes: the unknown batch is refused at once,
  // naming the fix, instead of failing later at every node that reads it.
  ASSERT_FALSE(prepare_model(shape_subgraph_model(false), {}, &p, &error));
  EXPECT_EQ(error, "graph input 'x' has symbolic dimension 'batch' at axis 0: give its shape with -d x 1,3,4 "
                   "(--input_dim)");
  // With the batch fixed (converter -d x 2,3,4) everything folds.
  ImportOptions o;
  o.input_dims["x"] = {2, 3, 4};
  ASSERT_TRUE(prepare_model(shape_subgraph_model(false), o, &p, &error)) << error;
  EXPECT_EQ(p.model.nodes.size(), 1u);
}

// The integer arithmetic exporters write for window and patch sizes (Swin's
// pad = (window - size % window) % window) folds. Expected values by hand:
// ONNX Mod with fmod=0 takes the divisor's sign (Python's %), fmod=1 the
// dividend's (C's fmod).
TEST(OnnxConstantFolding, IntegerShapeArithmeticFolds) {
  ModelBuilder b;
  b.input("x", {1}).output("x_out", {1});
  b.node("Identity", "keep", {"x"}, {"x_out"});
  b.int64_initializer("a", {4}, {-7, 7, 6, -6}).int64_initializer("b", {4}, {3, -3, 4, 4});
  const char* outs[] = {"mod", "fmod", "min", "max", "less", "greater", "le", "ge", "not_less", "and", "or"};
  b.node("Mod", "mod", {"a", "b"}, {"mod"});
  ModelBuilder::i(b.node("Mod", "fmod", {"a", "b"}, {"fmod"}), "fmod", 1);
  b.node("Min", "min", {"a", "b"}, {"min"});
  b.node("Max", "max", {"a", "b"}, {"max"});
  b.node("Less", "less", {"a", "b"}, {"less"});
  b.node("Greater", "greater", {"a", "b"}, {"greater"});
  b.node("LessOrEqual", "le", {"a", "b"}, {"le"});
  b.node("GreaterOrEqual", "ge", {"a", "b"}, {"ge"});
  b.node("Not", "not_less", {"less"}, {"not_less"});
  b.node("And", "and", {"less", "le"}, {"and"});
  b.node("Or", "or", {"less", "greater"}, {"or"});
  for (const char* o : outs) {
    const std::string n = o;
    const bool boolean = n != "mod" && n != "fmod" && n != "min" && n != "max";
    b.output(o, {4}, boolean ? 9 : 7);  // BOOL, INT64
  }
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), {}, &p, &error)) << error;
  const std::map<std::string, std::vector<int64_t>> want = {
      {"mod", {2, -2, 2, 2}},   {"fmod", {-1, 1, 2, -2}},   {"min", {-7, -3, 4, -6}}, {"max", {3, 7, 6, 4}},
      {"less", {1, 0, 0, 1}},   {"greater", {0, 1, 1, 0}},  {"le", {1, 0, 0, 1}},     {"ge", {0, 1, 1, 0}},
      {"not_less", {0, 1, 1, 0}}, {"and", {1, 0, 0, 1}},    {"or", {1, 1, 1, 1}}};
  for (const auto& [name, values] : want) {
    const Tensor* t = p.model.constant(name);
    ASSERT_NE(t, nullptr) << name << " was not folded";
    EXPECT_EQ(t->to_ints(), values) << name;
  }
  ASSERT_EQ(p.model.nodes.size(), 1u) << "only the Identity of the input is left";
}

// A model whose every stage reshapes by the Shape of the stage before needs
// one round of folding and shape inference per stage; twelve stages (a
// Swin-T has more) all fold, where a cap of 8 rounds left the last ones
// with unknown shapes.
TEST(OnnxConstantFolding, ShapesComputedStageAfterStageFoldToTheEnd) {
  constexpr int kStages = 12;
  ModelBuilder b;
  b.input("x", {2, 3, 4});
  b.output("y" + std::to_string(kStages), {2, 3, 4});
  std::string prev = "x";
  for (int i = 1; i <= kStages; ++i) {
    const std::string k = std::to_string(i);
    b.node("Shape", "shape" + k, {prev}, {"s" + k});
    b.node("Reshape", "reshape" + k, {prev, "s" + k}, {"y" + k});
    prev = "y" + k;
  }
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), {}, &p, &error)) << error;
  size_t reshapes = 0;
  for (const auto& n : p.model.nodes) {
    EXPECT_EQ(n.op_type(), "Reshape") << n.name();
    reshapes += n.op_type() == "Reshape" ? 1 : 0;
  }
  EXPECT_EQ(reshapes, static_cast<size_t>(kStages));
  EXPECT_EQ(p.model.info(prev)->dims, (std::vector<int64_t>{2, 3, 4}));
}

TEST(OnnxUnsupported, EveryUnsupportedNodeIsReportedByNameAndType) {
  ModelBuilder b;
  // A 4-D spatial Conv (rank 6): refused for its form (3-D Conv is lowered).
  b.input("x", {1, 2, 3, 3, 3}).input("x6", {1, 2, 1, 3, 3, 3});
  b.output("y", {1, 2, 3, 3, 3}).output("z", {1, 2, 1, 3, 3, 3});
  b.initializer("w", {2, 2, 1, 1, 1, 1}, std::vector<float>(4, 0.5f));
  b.node("Foo", "n1", {"x"}, {"y"});
  b.node("Conv", "c3d", {"x6", "w"}, {"z"});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), {}, &p, &error)) << error;
  const auto bad = find_unsupported(p.model);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0].name, "n1");
  EXPECT_EQ(bad[0].op_type, "Foo");
  EXPECT_NE(bad[0].reason.find("op type Foo is not supported"), std::string::npos) << bad[0].reason;
  EXPECT_EQ(bad[1].name, "c3d");
  EXPECT_EQ(bad[1].op_type, "Conv");
  EXPECT_NE(bad[1].reason.find("rank 6"), std::string::npos) << bad[1].reason;
  QnnGraphDesc g;
  ASSERT_FALSE(build_graph_desc(p, {}, &g, &error));
  EXPECT_NE(error.find("2 unsupported node(s)"), std::string::npos) << error;
  EXPECT_NE(error.find("Foo 'n1'"), std::string::npos) << error;
  EXPECT_NE(error.find("Conv 'c3d'"), std::string::npos) << error;
}

TEST(OnnxUnsupported, StringAndNonCastBfloat16AreRefusedWithTheirType) {
  ModelBuilder b;
  b.input("s", {4}, 8).output("f", {4}).input("h", {4}, 16).output("r", {4}, 16);
  ModelBuilder::i(b.node("Cast", "c", {"s"}, {"f"}), "to", 1);
  b.node("Relu", "relu", {"h"}, {"r"});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), {}, &p, &error)) << error;
  const auto bad = find_unsupported(p.model);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_NE(bad[0].reason.find("STRING"), std::string::npos) << bad[0].reason;
  EXPECT_NE(bad[1].reason.find("BFLOAT16, which only Cast takes"), std::string::npos) << bad[1].reason;
}

TEST(OnnxTypes, DoubleBecomesFloat32AndBfloat16StaysForCast) {
  ModelBuilder b;
  b.input("d", {4}, 11).output("y", {4}, 11).input("f", {4}).output("h", {4}, 16);
  b.node("Relu", "r", {"d"}, {"y"});
  ModelBuilder::i(b.node("Cast", "c", {"f"}, {"h"}), "to", 16);
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(b.model(), &g, &error)) << error;
  EXPECT_EQ(g.find("d")->dtype, QNN_DATATYPE_FLOAT_32);
  EXPECT_EQ(g.find("y")->dtype, QNN_DATATYPE_FLOAT_32);
  EXPECT_EQ(g.find("h")->dtype, QNN_DATATYPE_BFLOAT_16);
}

TEST(OnnxTypes, CastLikeTakesTheTypeAndDropsTheUnreadInput) {
  ModelBuilder b;
  b.input("x", {3}).input("like", {1}, 10).output("y", {3}, 10);
  b.node("CastLike", "c", {"x", "like"}, {"y"});
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(b.model(), &g, &error)) << error;
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].type, "Cast");
  EXPECT_EQ(g.find("y")->dtype, QNN_DATATYPE_FLOAT_16);
  EXPECT_EQ(g.inputs, std::vector<std::string>{"x"});  // 'like' only lends its type
  EXPECT_EQ(g.find("like"), nullptr);
}

TEST(OnnxTypes, Int64BecomesInt32) {
  ModelBuilder b;
  b.input("data", {5, 2}).input("idx", {3}, 7).output("y", {3, 2});
  b.node("Gather", "g", {"data", "idx"}, {"y"});
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(b.model(), &g, &error)) << error;
  EXPECT_EQ(g.find("idx")->dtype, QNN_DATATYPE_INT_32);
  EXPECT_EQ(g.find("data")->dtype, QNN_DATATYPE_FLOAT_32);
  // A constant int64 beyond int32 clamps rather than wraps (Slice "to the end").
  Tensor big = Tensor::from_ints(onnx_type::kInt64, {2}, {INT64_MAX, -5});
  const auto bytes = to_qnn_bytes(big, QNN_DATATYPE_INT_32);
  int32_t v[2];
  std::memcpy(v, bytes.data(), 8);
  EXPECT_EQ(v[0], INT32_MAX);
  EXPECT_EQ(v[1], -5);
}

TEST(OnnxSpatial1d, Conv1dIsLiftedToTwoDimensions) {
  ModelBuilder b;
  b.input("x", {1, 2, 7}).output("y", {1, 3, 4});
  b.initializer("w", {3, 2, 3}, iota_values(18, 0.1f, -0.5f));
  auto& c = b.node("Conv", "conv", {"x", "w"}, {"y"});
  ModelBuilder::ints(c, "pads", {1, 1});
  ModelBuilder::ints(c, "strides", {2});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), {}, &p, &error)) << error;
  ASSERT_EQ(p.model.nodes.size(), 3u);
  EXPECT_EQ(p.model.nodes[0].op_type(), "Unsqueeze");
  EXPECT_EQ(p.model.nodes[2].op_type(), "Squeeze");
  const auto& conv = p.model.nodes[1];
  EXPECT_EQ(p.model.info(conv.input(0))->dims, (std::vector<int64_t>{1, 2, 1, 7}));
  EXPECT_EQ(p.model.constant(conv.input(1))->dims, (std::vector<int64_t>{3, 2, 1, 3}));
  // pads [1, 1] -> [0, 1, 0, 1]; strides [2] -> [1, 2]; output [1, 3, 1, 4].
  EXPECT_EQ(attr_ints(conv, "pads"), (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(attr_ints(conv, "strides"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(p.model.info(conv.output(0))->dims, (std::vector<int64_t>{1, 3, 1, 4}));
  // The lifted model is fully supported.
  EXPECT_TRUE(find_unsupported(p.model).empty());
}

onnx::ModelProto qdq_model(int64_t dq_zero_point, int32_t zp_type) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 4});
  b.initializer("s", {}, {0.1f});
  auto zp = [&](const std::string& name, int64_t v) {
    auto* t = const_cast<onnx::ModelProto&>(b.model()).mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(zp_type);
    t->add_int32_data(static_cast<int32_t>(v));
  };
  zp("zq", zp_type == 3 ? 0 : 128);
  zp("zd", dq_zero_point);
  b.node("QuantizeLinear", "q", {"x", "s", "zq"}, {"xq"});
  b.node("DequantizeLinear", "dq", {"xq", "s", "zd"}, {"xd"});
  b.node("Relu", "relu", {"xd"}, {"y"});
  return b.model();
}

TEST(OnnxQdqFolding, PairBecomesTheEncodingOfItsInput) {
  ImportOptions o;
  o.quantize = true;
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(qdq_model(128, 2), o, &p, &error)) << error;
  EXPECT_EQ(p.folded_qdq_pairs, 1u);
  ASSERT_EQ(p.model.nodes.size(), 1u);
  EXPECT_EQ(p.model.nodes[0].op_type(), "Relu");
  EXPECT_EQ(p.model.nodes[0].input(0), "x");
  ASSERT_EQ(p.encoding_overrides.count("x"), 1u);
  EXPECT_FLOAT_EQ(p.encoding_overrides["x"].scale, 0.1f);
  EXPECT_EQ(p.encoding_overrides["x"].offset, -128);  // uint8 zero point 128
}

TEST(OnnxQdqFolding, SignedZeroPointIsShiftedOntoUnsigned) {
  ImportOptions o;
  o.quantize = true;
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(qdq_model(0, 3), o, &p, &error)) << error;
  ASSERT_EQ(p.encoding_overrides.count("x"), 1u);
  // int8 zero point 0 == uint8 zero point 128 for the same real values.
  EXPECT_EQ(p.encoding_overrides["x"].offset, -128);
}

TEST(OnnxQdqFolding, MismatchedPairOrFloatModeIsKept) {
  ImportOptions o;
  o.quantize = true;
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(qdq_model(127, 2), o, &p, &error)) << error;
  EXPECT_EQ(p.folded_qdq_pairs, 0u);
  EXPECT_EQ(p.model.nodes.size(), 3u);
  // Float conversion never folds: Q/DQ stay ops computing the fake quantization.
  ASSERT_TRUE(prepare_model(qdq_model(128, 2), {}, &p, &error)) << error;
  EXPECT_EQ(p.folded_qdq_pairs, 0u);
  EXPECT_EQ(p.model.nodes.size(), 3u);
}

TEST(OnnxModel, TensorProtoRawAndTypedFieldsAgree) {
  onnx::TensorProto typed, raw;
  typed.set_data_type(1);
  typed.add_dims(3);
  for (float f : {1.5f, -2.0f, 0.25f}) typed.add_float_data(f);
  raw.set_data_type(1);
  raw.add_dims(3);
  const float values[3] = {1.5f, -2.0f, 0.25f};
  raw.set_raw_data(std::string(reinterpret_cast<const char*>(values), sizeof values));
  Tensor a, b;
  std::string error;
  ASSERT_TRUE(tensor_from_proto(typed, &a, &error)) << error;
  ASSERT_TRUE(tensor_from_proto(raw, &b, &error)) << error;
  EXPECT_EQ(a.to_floats(), b.to_floats());
  // Breaking it: raw_data of the wrong size is refused with both sizes.
  raw.set_raw_data("abc");
  EXPECT_FALSE(tensor_from_proto(raw, &b, &error));
  EXPECT_NE(error.find("3 bytes, expected 12"), std::string::npos) << error;
}

// ---- lowering of single ops: the QNN node sequence ----

std::vector<std::string> node_types(const QnnGraphDesc& g) {
  std::vector<std::string> v;
  for (const auto& n : g.nodes) v.push_back(n.type);
  return v;
}

const QParam* find_param(const QNode& n, const std::string& name) {
  for (const QParam& p : n.params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<int32_t> as_i32(const std::vector<uint8_t>& bytes) {
  std::vector<int32_t> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

std::vector<float> as_f32(const std::vector<uint8_t>& bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

onnx::ModelProto argmax_model(int64_t select_last_index) {
  ModelBuilder b;
  b.input("x", {2, 3, 4}).output("y", {2, 1, 4}, 7);
  auto& n = b.node("ArgMax", "am", {"x"}, {"y"});
  ModelBuilder::i(n, "axis", -2);
  ModelBuilder::i(n, "keepdims", 1);
  ModelBuilder::i(n, "select_last_index", select_last_index);
  return b.model();
}

TEST(OnnxLowering, ArgMaxSelectLastIndexReversesTheAxisAndMapsTheIndexBack) {
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(argmax_model(1), &g, &error)) << error;
  ASSERT_EQ(node_types(g), (std::vector<std::string>{QNN_OP_STRIDED_SLICE, QNN_OP_ARGMAX,
                                                     QNN_OP_ELEMENT_WISE_SUBTRACT}));
  // Axis -2 of [2,3,4] is 1: dims 0 and 2 copied (0, dim, 1), dim 1 read
  // backwards from index 2 through index 0 (end -1 with stride -1).
  const QNode& slice = g.nodes[0];
  EXPECT_EQ(slice.inputs, (std::vector<std::string>{"x"}));
  const QParam* ranges = find_param(slice, QNN_OP_STRIDED_SLICE_PARAM_RANGES);
  ASSERT_NE(ranges, nullptr);
  EXPECT_EQ(ranges->dtype, QNN_DATATYPE_INT_32);
  EXPECT_EQ(ranges->dims, (std::vector<uint32_t>{3, 3}));
  EXPECT_EQ(as_i32(ranges->data), (std::vector<int32_t>{0, 2, 1, 2, -1, -1, 0, 4, 1}));
  const QTensor* reversed = g.find(slice.outputs[0]);
  ASSERT_NE(reversed, nullptr);
  EXPECT_EQ(reversed->dims, (std::vector<uint32_t>{2, 3, 4}));
  EXPECT_EQ(reversed->dtype, QNN_DATATYPE_FLOAT_32);
  // Argmax of the reversed tensor along axis 1.
  const QNode& arg = g.nodes[1];
  EXPECT_EQ(arg.inputs, (std::vector<std::string>{slice.outputs[0]}));
  const QParam* axis = find_param(arg, QNN_OP_ARGMAX_PARAM_AXIS);
  ASSERT_NE(axis, nullptr);
  EXPECT_EQ(axis->scalar.uint32Value, 1u);
  const QTensor* rev_index = g.find(arg.outputs[0]);
  ASSERT_NE(rev_index, nullptr);
  EXPECT_EQ(rev_index->dims, (std::vector<uint32_t>{2, 1, 4}));
  EXPECT_EQ(rev_index->dtype, QNN_DATATYPE_INT_32);
  // y = 2 - r: e.g. a column [5, 7, 7] reverses to [7, 7, 5], whose first
  // maximum is r = 0, so y = 2, the last 7.
  const QNode& sub = g.nodes[2];
  ASSERT_EQ(sub.inputs.size(), 2u);
  const QTensor* last = g.find(sub.inputs[0]);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->type, QNN_TENSOR_TYPE_STATIC);
  EXPECT_EQ(last->dtype, QNN_DATATYPE_INT_32);
  EXPECT_EQ(as_i32(last->data), (std::vector<int32_t>{2}));
  EXPECT_EQ(sub.inputs[1], arg.outputs[0]);
  EXPECT_EQ(sub.outputs, (std::vector<std::string>{"y"}));
  // Breaking it: select_last_index=0 is the plain Argmax on x.
  QnnGraphDesc plain;
  ASSERT_TRUE(lower(argmax_model(0), &plain, &error)) << error;
  ASSERT_EQ(node_types(plain), (std::vector<std::string>{QNN_OP_ARGMAX}));
  EXPECT_EQ(plain.nodes[0].inputs, (std::vector<std::string>{"x"}));
  EXPECT_EQ(plain.nodes[0].outputs, (std::vector<std::string>{"y"}));
}

TEST(OnnxLowering, ClipOfIntegersWithOneRuntimeBoundStaysInTheInputType) {
  // ONNX Clip(x, "", max) on int8: only a Minimum with max, and no float
  // stand-in for the absent lower bound.
  ModelBuilder b;
  b.input("x", {5}, 3).input("max", {}, 3).output("y", {5}, 3);
  b.node("Clip", "c", {"x", "", "max"}, {"y"});
  QnnGraphDesc g;
  std::string error;
  ASSERT_TRUE(lower(b.model(), &g, &error)) << error;
  ASSERT_EQ(node_types(g), (std::vector<std::string>{QNN_OP_ELEMENT_WISE_MINIMUM}));
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<std::string>{"x", "max"}));
  EXPECT_EQ(g.nodes[0].outputs, (std::vector<std::string>{"y"}));
  for (const QTensor& t : g.tensors) EXPECT_EQ(t.dtype, QNN_DATATYPE_INT_8) << t.name;
  // The mirror case: Clip(x, min, "") is one Maximum with min.
  ModelBuilder lo;
  lo.input("x", {5}, 3).input("min", {}, 3).output("y", {5}, 3);
  lo.node("Clip", "c", {"x", "min"}, {"y"});
  QnnGraphDesc gl;
  ASSERT_TRUE(lower(lo.model(), &gl, &error)) << error;
  ASSERT_EQ(node_types(gl), (std::vector<std::string>{QNN_OP_ELEMENT_WISE_MAXIMUM}));
  EXPECT_EQ(gl.nodes[0].inputs, (std::vector<std::string>{"x", "min"}));
  // Constant bounds on integers: ReluMinMax, the absent bound as -FLT_MAX
  // (the backend reads it as the integer type's limit).
  ModelBuilder k;
  k.input("x", {5}, 7).output("y", {5}, 7);
  k.int64_initializer("max", {}, {3});
  k.node("Clip", "c", {"x", "", "max"}, {"y"});
  QnnGraphDesc gk;
  ASSERT_TRUE(lower(k.model(), &gk, &error)) << error;
  ASSERT_EQ(node_types(gk), (std::vector<std::string>{QNN_OP_RELU_MIN_MAX}));
  const QParam* lo_p = find_param(gk.nodes[0], QNN_OP_RELU_MIN_MAX_PARAM_MIN_VALUE);
  const QParam* hi_p = find_param(gk.nodes[0], QNN_OP_RELU_MIN_MAX_PARAM_MAX_VALUE);
  ASSERT_NE(lo_p, nullptr);
  ASSERT_NE(hi_p, nullptr);
  EXPECT_EQ(lo_p->scalar.floatValue, -std::numeric_limits<float>::max());
  EXPECT_EQ(hi_p->scalar.floatValue, 3.0f);
  EXPECT_EQ(gk.find("x")->dtype, QNN_DATATYPE_INT_32);
}

QnnGraphDesc lower_pow(int32_t base_type, int32_t exponent_type, bool constant_exponent = false) {
  ModelBuilder b;
  b.input("x", {3}, base_type);
  if (constant_exponent) {
    b.int64_initializer("e", {3}, {4, 5, 6});
  } else {
    b.input("e", {3}, exponent_type);
  }
  b.output("z", {3}, base_type);
  b.node("Pow", "p", {"x", "e"}, {"z"});
  QnnGraphDesc g;
  std::string error;
  EXPECT_TRUE(lower(b.model(), &g, &error)) << error;
  return g;
}

void expect_power(const QNode& n) {
  EXPECT_EQ(n.type, QNN_OP_ELEMENT_WISE_BINARY);
  const QParam* op = find_param(n, QNN_OP_ELEMENT_WISE_BINARY_PARAM_OPERATION);
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->scalar.uint32Value, static_cast<uint32_t>(QNN_OP_ELEMENT_WISE_BINARY_OPERATION_POWER));
}

TEST(OnnxLowering, PowOfIntegerBaseAndFloatExponentRunsInFloatAndCastsBack) {
  const QnnGraphDesc g = lower_pow(onnx_type::kInt32, onnx_type::kFloat);
  ASSERT_EQ(node_types(g), (std::vector<std::string>{QNN_OP_CAST, QNN_OP_ELEMENT_WISE_BINARY, QNN_OP_CAST}));
  const QNode& to_float = g.nodes[0];
  EXPECT_EQ(to_float.inputs, (std::vector<std::string>{"x"}));
  ASSERT_NE(g.find(to_float.outputs[0]), nullptr);
  EXPECT_EQ(g.find(to_float.outputs[0])->dtype, QNN_DATATYPE_FLOAT_32);
  const QNode& power = g.nodes[1];
  expect_power(power);
  EXPECT_EQ(power.inputs, (std::vector<std::string>{to_float.outputs[0], "e"}));
  ASSERT_NE(g.find(power.outputs[0]), nullptr);
  EXPECT_EQ(g.find(power.outputs[0])->dtype, QNN_DATATYPE_FLOAT_32);
  EXPECT_EQ(g.find(power.outputs[0])->dims, (std::vector<uint32_t>{3}));
  const QNode& back = g.nodes[2];
  EXPECT_EQ(back.inputs, (std::vector<std::string>{power.outputs[0]}));
  EXPECT_EQ(back.outputs, (std::vector<std::string>{"z"}));
  EXPECT_EQ(g.find("z")->dtype, QNN_DATATYPE_INT_32);
}

TEST(OnnxLowering, PowOfFloatBaseAndIntegerExponentCastsTheExponent) {
  const QnnGraphDesc g = lower_pow(onnx_type::kFloat, onnx_type::kInt64);
  ASSERT_EQ(node_types(g), (std::vector<std::string>{QNN_OP_CAST, QNN_OP_ELEMENT_WISE_BINARY}));
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<std::string>{"e"}));
  EXPECT_EQ(g.find("e")->dtype, QNN_DATATYPE_INT_32);
  ASSERT_NE(g.find(g.nodes[0].outputs[0]), nullptr);
  EXPECT_EQ(g.find(g.nodes[0].outputs[0])->dtype, QNN_DATATYPE_FLOAT_32);
  expect_power(g.nodes[1]);
  EXPECT_EQ(g.nodes[1].inputs, (std::vector<std::string>{"x", g.nodes[0].outputs[0]}));
  EXPECT_EQ(g.nodes[1].outputs, (std::vector<std::string>{"z"}));
  // A constant integer exponent is converted at import: no Cast node.
  const QnnGraphDesc k = lower_pow(onnx_type::kFloat, onnx_type::kInt64, true);
  ASSERT_EQ(node_types(k), (std::vector<std::string>{QNN_OP_ELEMENT_WISE_BINARY}));
  const QTensor* e = k.find(k.nodes[0].inputs[1]);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->type, QNN_TENSOR_TYPE_STATIC);
  EXPECT_EQ(e->dtype, QNN_DATATYPE_FLOAT_32);
  EXPECT_EQ(as_f32(e->data), (std::vector<float>{4.0f, 5.0f, 6.0f}));
  // Breaking it: operands of one type need no Cast.
  const QnnGraphDesc same = lower_pow(onnx_type::kInt32, onnx_type::kInt32);
  ASSERT_EQ(node_types(same), (std::vector<std::string>{QNN_OP_ELEMENT_WISE_BINARY}));
  EXPECT_EQ(same.nodes[0].inputs, (std::vector<std::string>{"x", "e"}));
}

}  // namespace

namespace {

// A graph input with a symbolic (or no) shape is refused at once, naming the
// input, the axis and the option that fixes it; given with -d it imports.
TEST(OnnxInputShapes, SymbolicDimensionNamesTheInputAndSuggestsDashD) {
  ModelBuilder b;
  b.input("x", {1, 3, 4, 4}).output("y", {1, 3, 4, 4});
  b.node("Relu", "r", {"x"}, {"y"});
  onnx::ModelProto proto = b.model();
  auto* shape = proto.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(0)->set_dim_param("batch");
  PreparedModel prepared;
  std::string error;
  EXPECT_FALSE(prepare_model(proto, ImportOptions{}, &prepared, &error));
  EXPECT_EQ(error, "graph input 'x' has symbolic dimension 'batch' at axis 0: give its shape with -d x 1,3,4,4 "
                   "(--input_dim)");
  ImportOptions given;
  given.input_dims = {{"x", {1, 3, 4, 4}}};
  error.clear();
  EXPECT_TRUE(prepare_model(proto, given, &prepared, &error)) << error;

  proto.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  EXPECT_FALSE(prepare_model(proto, ImportOptions{}, &prepared, &error));
  EXPECT_EQ(error, "graph input 'x' has no shape: give its shape with -d x D0,D1,... (--input_dim)");
}

}  // namespace

namespace {

// MatMul(x, W) -> t -> Add(t, c) -> y, lowered; `c_static` false makes c a
// graph input.
QnnGraphDesc matmul_add(const std::vector<int64_t>& c_dims, bool c_static) {
  ModelBuilder b;
  b.input("x", {1, 4, 8}).output("y", {1, 4, 6});
  if (!c_static) b.input("c", c_dims);
  b.initializer("W", {8, 6}, iota_values(48, 0.01f, -0.2f));
  size_t n = 1;
  for (int64_t d : c_dims) n *= static_cast<size_t>(d);
  if (c_static) b.initializer("c", c_dims, iota_values(n, 0.1f, -0.3f));
  b.node("MatMul", "mm", {"x", "W"}, {"t"});
  b.node("Add", "add", {"t", "c"}, {"y"});
  QnnGraphDesc g;
  std::string error;
  EXPECT_TRUE(lower(b.model(), &g, &error)) << error;
  return g;
}

}  // namespace

// onnx/matmul_bias_folding.h: the Add of a static row folds into the MatMul
// as its bias [N] (a [1, 1, N] row is copied as [N], the original dropped);
// a full [M, N] addend or a dynamic one does not.
TEST(OnnxMatMulBiasFolding, FoldsAStaticRowOnlyAndKeepsTheGraphWhole) {
  for (const std::vector<int64_t>& dims : {std::vector<int64_t>{6}, std::vector<int64_t>{1, 1, 6}}) {
    QnnGraphDesc g = matmul_add(dims, true);
    const size_t tensors = g.tensors.size();
    ASSERT_EQ(fold_matmul_biases(&g), 1u);
    ASSERT_EQ(g.nodes.size(), 1u);
    const QNode& mm = g.nodes[0];
    EXPECT_EQ(mm.type, QNN_OP_MAT_MUL);
    ASSERT_EQ(mm.inputs.size(), 3u);
    EXPECT_EQ(mm.outputs[0], g.outputs[0]) << "the MatMul now writes the Add's output";
    const QTensor* bias = g.find(mm.inputs[2]);
    ASSERT_NE(bias, nullptr);
    EXPECT_EQ(bias->type, QNN_TENSOR_TYPE_STATIC);
    EXPECT_EQ(bias->dims, (std::vector<uint32_t>{6}));
    std::vector<float> v(6);
    ASSERT_EQ(bias->data.size(), sizeof(float) * 6);
    std::memcpy(v.data(), bias->data.data(), bias->data.size());
    EXPECT_EQ(v, iota_values(6, 0.1f, -0.3f));
    EXPECT_EQ(g.tensors.size(), tensors - 1) << "the product is gone (and a replaced [1, 1, N] row with it)";
    for (size_t i = 0; i < g.tensors.size(); ++i) EXPECT_EQ(g.index.at(g.tensors[i].name), i);
  }
  // A [1, 1, N] row's copy takes a name no tensor has.
  QnnGraphDesc taken = matmul_add({1, 1, 6}, true);
  QTensor squatter;
  squatter.name = taken.outputs[0] + "_bias";
  squatter.dims = {1};
  taken.add(squatter);
  ASSERT_EQ(fold_matmul_biases(&taken), 1u);
  EXPECT_NE(taken.nodes[0].inputs[2], squatter.name);
  EXPECT_EQ(taken.find(taken.nodes[0].inputs[2])->dims, (std::vector<uint32_t>{6}));
  QnnGraphDesc full = matmul_add({4, 6}, true);
  EXPECT_EQ(fold_matmul_biases(&full), 0u);
  EXPECT_EQ(full.nodes.size(), 2u);
  QnnGraphDesc dynamic = matmul_add({6}, false);
  EXPECT_EQ(fold_matmul_biases(&dynamic), 0u);
  EXPECT_EQ(dynamic.nodes.size(), 2u);
}
