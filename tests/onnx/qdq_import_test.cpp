// QDQ models as PyTorch exports them (torch.ao fake-quant / convert_fx),
// built here as ONNX protos: scales and zero points behind Identity nodes or
// Shape/Where/ReduceProd chains, a no-op Cast between QuantizeLinear and
// DequantizeLinear, graph outputs made by a DequantizeLinear. In quantized
// mode each converts with the QDQ encodings on the QNN tensors (QNN offset =
// -zero_point), keeps its ONNX input/output names, and runs on libQnnHtp
// within one output quantization step of the reference, which is computed
// here from the ONNX QuantizeLinear/DequantizeLinear formulas. A Q/DQ that
// cannot fold is refused at import by node name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "QnnInterface.h"
#include "QnnOpDef.h"
#include "model_builder.h"
#include "onnx/backend_session.h"
#include "onnx/importer.h"

namespace {

using namespace openhtp::onnx_import;
using onnx_test::f32_bytes;
using onnx_test::ModelBuilder;

constexpr int32_t kU8 = 2, kI8 = 3;


// ONNX QuantizeLinear then DequantizeLinear (uint8): round half to even.
double fake_quant(double x, double s, int zp) {
  const double q = std::clamp(std::nearbyint(x / s) + zp, 0.0, 255.0);
  return (q - zp) * s;
}

std::vector<float> wave(size_t n, double a, double b) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(0.95 * std::sin(a * static_cast<double>(i) + b));
  return v;
}

const QTensor& tensor(const QnnGraphDesc& g, const std::string& name) {
  const QTensor* t = g.find(name);
  EXPECT_NE(t, nullptr) << "no QNN tensor '" << name << "'";
  static const QTensor none;
  return t != nullptr ? *t : none;
}

size_t count_nodes(const QnnGraphDesc& g, const std::string& type) {
  return static_cast<size_t>(std::count_if(g.nodes.begin(), g.nodes.end(), [&](const QNode& n) { return n.type == type; }));
}

size_t count_onnx(const Model& m, const std::string& type) {
  return static_cast<size_t>(
      std::count_if(m.nodes.begin(), m.nodes.end(), [&](const onnx::NodeProto& n) { return n.op_type() == type; }));
}

ImportOptions quantized(const std::vector<std::vector<float>>& samples) {
  ImportOptions o;
  o.quantize = true;
  for (const auto& s : samples) o.calibration.push_back({f32_bytes(s)});
  return o;
}

// Quantized import into libQnnHtp and one run on `x` (float, quantized here
// with the graph input's encoding). *desc: the graph as submitted; returns
// the output dequantized with the output's encoding.
std::vector<double> run_quantized(const onnx::ModelProto& proto, const std::vector<std::vector<float>>& samples,
                                  const std::vector<float>& x, QnnGraphDesc* desc, PreparedModel* prepared_out) {
  const ImportOptions options = quantized(samples);
  PreparedModel prepared;
  std::string error;
  EXPECT_TRUE(prepare_model(proto, options, &prepared, &error)) << error;
  BackendSession session;
  EXPECT_TRUE(session.open(QnnInterface_getProviders, &error, true)) << error;
  Qnn_ContextHandle_t ctx = nullptr;
  EXPECT_TRUE(session.create_context(&ctx, &error)) << error;
  std::vector<double> y;
  if (ctx == nullptr) return y;
  SubmittedGraph graph;
  if (import_model(prepared, options, session.api, session.backend, ctx, &graph, desc, &error)) {
    const QTensor& in = tensor(*desc, desc->inputs.at(0));
    const QTensor& out = tensor(*desc, desc->outputs.at(0));
    EXPECT_EQ(in.dtype, QNN_DATATYPE_UFIXED_POINT_8);
    EXPECT_EQ(out.dtype, QNN_DATATYPE_UFIXED_POINT_8);
    std::vector<uint8_t> xb(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      xb[i] = static_cast<uint8_t>(
          std::clamp<double>(std::nearbyint(x[i] / in.encoding.scale) - in.encoding.offset, 0.0, 255.0));
    }
    std::vector<std::vector<uint8_t>> outputs;
    EXPECT_TRUE(execute_graph(session.api, graph, {xb}, &outputs, &error)) << error;
    if (outputs.size() == 1) {
      for (uint8_t q : outputs[0]) y.push_back((static_cast<double>(q) + out.encoding.offset) * out.encoding.scale);
    }
    // The names a client sees in the submitted graph.
    EXPECT_EQ(graph.inputs.size(), 1u);
    EXPECT_EQ(graph.outputs.size(), 1u);
    if (graph.outputs.size() == 1) {
      EXPECT_EQ(std::string(graph.outputs[0].v1.name), desc->outputs[0]);
    }
  } else {
    ADD_FAILURE() << error;
  }
  session.api.contextFree(ctx, nullptr);
  if (prepared_out != nullptr) *prepared_out = std::move(prepared);
  return y;
}

// ---- Gemm: activation zero point and scale behind Identity chains, a QDQ
// weight whose scale is behind an Identity, the output made by a DQ. ----
//
//   x [1,4] -> Q(x, sx, zx) -> DQ -> Gemm(., DQ(wq, ws, 0), B, transB) ->
//   "/fc/Gemm_output_0" -> Q(sy, zy) -> DQ -> "output"
constexpr float kSx = 2.0f / 255.0f, kSy = 0.02f, kWs = 0.01f;
constexpr int kZx = 128, kZy = 100;
const std::vector<int32_t> kWq = {10, -20, 30, -40, 50, 60, -70, 80, -90, 100, 110, -120};
const std::vector<float> kGemmBias = {0.1f, -0.3f, 0.25f};

onnx::ModelProto gemm_model() {
  ModelBuilder b;
  b.input("x", {1, 4}).output("output", {1, 3});
  b.initializer("sx_raw", {}, {kSx});
  b.int8_initializer("zx_raw", kU8, {}, {kZx});
  b.node("Identity", "/quant/sx_id0", {"sx_raw"}, {"sx0"});
  b.node("Identity", "/quant/sx_id1", {"sx0"}, {"sx"});
  b.node("Identity", "/quant/zx_id", {"zx_raw"}, {"zx"});
  b.node("QuantizeLinear", "/quant/QuantizeLinear", {"x", "sx", "zx"}, {"xq"});
  b.node("DequantizeLinear", "/quant/DequantizeLinear", {"xq", "sx", "zx"}, {"xd"});
  b.int8_initializer("wq", kI8, {3, 4}, kWq);
  b.initializer("ws_raw", {}, {kWs});
  b.int8_initializer("wz", kI8, {}, {0});
  b.node("Identity", "/fc/ws_id", {"ws_raw"}, {"ws"});
  b.node("DequantizeLinear", "/fc/weight_dq", {"wq", "ws", "wz"}, {"w"});
  b.initializer("B", {3}, kGemmBias);
  ModelBuilder::i(b.node("Gemm", "/fc/Gemm", {"xd", "w", "B"}, {"/fc/Gemm_output_0"}), "transB", 1);
  b.initializer("sy", {}, {kSy});
  b.int8_initializer("zy_raw", kU8, {}, {kZy});
  b.node("Identity", "/out/zy_id", {"zy_raw"}, {"zy"});
  b.node("QuantizeLinear", "/out/QuantizeLinear", {"/fc/Gemm_output_0", "sy", "zy"}, {"yq"});
  b.node("DequantizeLinear", "/out/DequantizeLinear", {"yq", "sy", "zy"}, {"output"});
  return b.model();
}

std::vector<double> gemm_reference(const std::vector<float>& x) {
  std::vector<double> y(3);
  for (int o = 0; o < 3; ++o) {
    double acc = kGemmBias[o];
    for (int i = 0; i < 4; ++i) acc += kWq[o * 4 + i] * static_cast<double>(kWs) * fake_quant(x[i], kSx, kZx);
    y[o] = fake_quant(acc, kSy, kZy);
  }
  return y;
}

TEST(OnnxQdqImport, IdentityBehindScalesAndZeroPointsFoldsBeforePairMatching) {
  const ImportOptions o = quantized({wave(4, 0.9, 0.0)});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(gemm_model(), o, &p, &error)) << error;
  EXPECT_EQ(p.folded_qdq_pairs, 2u);
  EXPECT_EQ(count_onnx(p.model, "QuantizeLinear"), 0u);
  EXPECT_EQ(count_onnx(p.model, "DequantizeLinear"), 0u);
  EXPECT_EQ(count_onnx(p.model, "Identity"), 0u);
  EXPECT_TRUE(find_unsupported(p.model).empty());
  // Graph I/O keep their ONNX names; the Gemm now makes "output".
  EXPECT_EQ(p.model.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(p.model.outputs, std::vector<std::string>{"output"});
  ASSERT_EQ(p.model.nodes.size(), 1u);
  EXPECT_EQ(p.model.nodes[0].output(0), "output");
  // Encodings: QNN offset = -zero_point.
  ASSERT_EQ(p.encoding_overrides.count("x"), 1u);
  EXPECT_EQ(p.encoding_overrides["x"].scale, kSx);
  EXPECT_EQ(p.encoding_overrides["x"].offset, -kZx);
  ASSERT_EQ(p.encoding_overrides.count("output"), 1u);
  EXPECT_EQ(p.encoding_overrides["output"].scale, kSy);
  EXPECT_EQ(p.encoding_overrides["output"].offset, -kZy);
  EXPECT_EQ(p.encoding_overrides.count("/fc/Gemm_output_0"), 0u);
  // The weight DQ (scale behind an Identity) is recorded with its integers.
  ASSERT_EQ(p.qdq_weights.count("w"), 1u);
  EXPECT_EQ(p.qdq_weights["w"].values, kWq);
  EXPECT_EQ(p.qdq_weights["w"].scales, std::vector<float>{kWs});
}

TEST(OnnxQdqImport, GemmWithIdentityZeroPointsRunsWithItsEncodings) {
  std::vector<std::vector<float>> samples;
  for (int k = 0; k < 3; ++k) samples.push_back(wave(4, 0.9, k));
  const std::vector<float> x = wave(4, 1.3, 0.4);
  QnnGraphDesc desc;
  PreparedModel p;
  const std::vector<double> y = run_quantized(gemm_model(), samples, x, &desc, &p);
  EXPECT_EQ(desc.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(desc.outputs, std::vector<std::string>{"output"});
  EXPECT_EQ(tensor(desc, "x").encoding.scale, kSx);
  EXPECT_EQ(tensor(desc, "x").encoding.offset, -kZx);
  EXPECT_EQ(tensor(desc, "output").encoding.scale, kSy);
  EXPECT_EQ(tensor(desc, "output").encoding.offset, -kZy);
  EXPECT_EQ(count_nodes(desc, QNN_OP_QUANTIZE), 0u);
  EXPECT_EQ(count_nodes(desc, QNN_OP_DEQUANTIZE), 0u);
  // The FC weight keeps the QDQ scale.
  bool found_fc = false;
  for (const QNode& n : desc.nodes) {
    if (n.type != QNN_OP_FULLY_CONNECTED) continue;
    found_fc = true;
    EXPECT_EQ(tensor(desc, n.inputs[1]).encoding.scale, kWs);
  }
  EXPECT_TRUE(found_fc);
  const std::vector<double> want = gemm_reference(x);
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y[i], want[i], kSy * 1.001) << "output[" << i << "]";
}

// ---- Conv with a no-op Cast (to uint8, which the QuantizeLinear output
// already is) between each QuantizeLinear and its DequantizeLinear; the
// graph output is the last DQ's. ----
constexpr int kC = 2, kH = 4, kW = 4, kO = 3;
constexpr float kSc = 0.03f;
constexpr int kZc = 90;
const std::vector<float> kConvBias = {0.05f, -0.1f, 0.2f};

// Multiples of 1/127 with max |w| = 1: the symmetric 8-bit weight encoding
// (scale max|w| / 127) holds them exactly.
std::vector<float> conv_weights() {
  std::vector<float> w(kO * kC * 9);
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = static_cast<float>(std::nearbyint(60.0 * std::cos(0.7 * static_cast<double>(i)))) / 127.0f;
  }
  w[5] = 1.0f;
  return w;
}

onnx::ModelProto conv_model() {
  ModelBuilder b;
  b.input("input", {1, kC, kH, kW}).output("y", {1, kO, kH, kW});
  b.initializer("sx", {}, {kSx});
  b.int8_initializer("zx", kU8, {}, {kZx});
  b.node("QuantizeLinear", "q_in", {"input", "sx", "zx"}, {"xq"});
  ModelBuilder::i(b.node("Cast", "cast_in", {"xq"}, {"xq_cast"}), "to", kU8);
  b.node("DequantizeLinear", "dq_in", {"xq_cast", "sx", "zx"}, {"xd"});
  b.initializer("W", {kO, kC, 3, 3}, conv_weights()).initializer("B", {kO}, kConvBias);
  ModelBuilder::ints(b.node("Conv", "conv", {"xd", "W", "B"}, {"c"}), "pads", {1, 1, 1, 1});
  b.initializer("sc", {}, {kSc});
  b.int8_initializer("zc", kU8, {}, {kZc});
  b.node("QuantizeLinear", "q_out", {"c", "sc", "zc"}, {"cq"});
  ModelBuilder::i(b.node("Cast", "cast_out", {"cq"}, {"cq_cast"}), "to", kU8);
  b.node("DequantizeLinear", "dq_out", {"cq_cast", "sc", "zc"}, {"y"});
  return b.model();
}

TEST(OnnxQdqImport, NoOpCastBetweenQuantizeAndDequantizeFolds) {
  const ImportOptions o = quantized({wave(kC * kH * kW, 0.3, 0.0)});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(conv_model(), o, &p, &error)) << error;
  EXPECT_EQ(p.folded_qdq_pairs, 2u);
  EXPECT_EQ(count_onnx(p.model, "Cast"), 0u);
  EXPECT_EQ(count_onnx(p.model, "QuantizeLinear"), 0u);
  EXPECT_EQ(count_onnx(p.model, "DequantizeLinear"), 0u);
  EXPECT_EQ(p.model.outputs, std::vector<std::string>{"y"});
  EXPECT_EQ(p.encoding_overrides["input"].offset, -kZx);
  EXPECT_EQ(p.encoding_overrides["y"].scale, kSc);
  EXPECT_EQ(p.encoding_overrides["y"].offset, -kZc);
}

TEST(OnnxQdqImport, ConvWithNoOpCastsRunsWithItsEncodings) {
  std::vector<std::vector<float>> samples;
  for (int k = 0; k < 3; ++k) samples.push_back(wave(kC * kH * kW, 0.3, k));
  const std::vector<float> x = wave(kC * kH * kW, 0.41, 1.0);
  QnnGraphDesc desc;
  const std::vector<double> y = run_quantized(conv_model(), samples, x, &desc, nullptr);
  EXPECT_EQ(desc.inputs, std::vector<std::string>{"input"});
  EXPECT_EQ(desc.outputs, std::vector<std::string>{"y"});
  EXPECT_EQ(tensor(desc, "input").encoding.scale, kSx);
  EXPECT_EQ(tensor(desc, "input").encoding.offset, -kZx);
  EXPECT_EQ(tensor(desc, "y").encoding.scale, kSc);
  EXPECT_EQ(tensor(desc, "y").encoding.offset, -kZc);
  EXPECT_EQ(count_nodes(desc, QNN_OP_CAST), 0u);
  EXPECT_EQ(count_nodes(desc, QNN_OP_QUANTIZE), 0u);
  // Reference: conv of the fake-quantized input, fake-quantized output.
  std::vector<double> xd(x.size());
  for (size_t i = 0; i < x.size(); ++i) xd[i] = fake_quant(x[i], kSx, kZx);
  const std::vector<float> w = conv_weights();
  int oh = 0, ow = 0;
  std::vector<double> want = onnx_test::naive_conv(xd, 1, kC, kH, kW, {w.begin(), w.end()},
                                                   {kConvBias.begin(), kConvBias.end()}, kO, 3, 1, 1, &oh, &ow);
  for (double& v : want) v = fake_quant(v, kSc, kZc);
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y[i], want[i], kSc * 1.001) << "y[" << i << "]";
}

// ---- A pair straight from a graph input to a graph output: the output
// keeps its name (an Identity stands in for the pair). ----
TEST(OnnxQdqImport, PairFromGraphInputToGraphOutputKeepsBothNames) {
  ModelBuilder b;
  b.input("x", {1, 8}).output("y", {1, 8});
  b.initializer("s", {}, {kSx});
  b.int8_initializer("z", kU8, {}, {kZx});
  b.node("QuantizeLinear", "q", {"x", "s", "z"}, {"xq"});
  b.node("DequantizeLinear", "dq", {"xq", "s", "z"}, {"y"});
  std::vector<std::vector<float>> samples = {wave(8, 0.5, 0.0)};
  const std::vector<float> x = wave(8, 0.77, 0.2);
  QnnGraphDesc desc;
  const std::vector<double> y = run_quantized(b.model(), samples, x, &desc, nullptr);
  EXPECT_EQ(desc.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(desc.outputs, std::vector<std::string>{"y"});
  ASSERT_EQ(y.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(y[i], fake_quant(x[i], kSx, kZx), 1e-6) << "y[" << i << "]";
}

// ---- Scale and zero point computed by Shape/Gather/Equal/Where and
// ReduceProd chains of constants: folded, then the pair folds. ----
TEST(OnnxQdqImport, ShapeWhereReduceProdChainsFoldBeforePairMatching) {
  ModelBuilder b(13);
  b.input("x", {1, 6}).output("y", {1, 6});
  // scale = ReduceProd([0.5, 0.1], keepdims 0) = 0.05
  b.initializer("scale_parts", {2}, {0.5f, 0.1f});
  auto& rp = b.node("ReduceProd", "scale_prod", {"scale_parts"}, {"s"});
  ModelBuilder::i(rp, "keepdims", 0);
  // zero point = Where(Shape(x)[0] == 1, 120, 7) = 120 (uint8)
  b.node("Shape", "shape", {"x"}, {"shp"});
  b.int64_initializer("zero", {}, {0});
  ModelBuilder::i(b.node("Gather", "batch", {"shp", "zero"}, {"n"}), "axis", 0);
  b.int64_initializer("one", {}, {1});
  b.node("Equal", "is_one", {"n", "one"}, {"cond"});
  b.int8_initializer("z_yes", kU8, {}, {120});
  b.int8_initializer("z_no", kU8, {}, {7});
  b.node("Where", "pick_zp", {"cond", "z_yes", "z_no"}, {"z"});
  b.node("QuantizeLinear", "q", {"x", "s", "z"}, {"xq"});
  b.node("DequantizeLinear", "dq", {"xq", "s", "z"}, {"xd"});
  b.node("Relu", "relu", {"xd"}, {"y"});
  const ImportOptions o = quantized({wave(6, 0.5, 0.0)});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), o, &p, &error)) << error;
  EXPECT_EQ(p.folded_qdq_pairs, 1u);
  ASSERT_EQ(p.model.nodes.size(), 1u);
  EXPECT_EQ(p.model.nodes[0].op_type(), "Relu");
  EXPECT_EQ(p.model.nodes[0].input(0), "x");
  ASSERT_EQ(p.encoding_overrides.count("x"), 1u);
  EXPECT_FLOAT_EQ(p.encoding_overrides["x"].scale, 0.05f);
  EXPECT_EQ(p.encoding_overrides["x"].offset, -120);
}

// ---- Back-to-back pairs on one value (Q -> DQ -> Q -> DQ) and a graph
// output behind a pair whose value is also read by another node. ----
TEST(OnnxQdqImport, BackToBackPairsAndSharedOutputValueFold) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 4}).output("z", {1, 4});
  b.initializer("s", {}, {0.1f});
  b.int8_initializer("zp", kU8, {}, {128});
  b.node("QuantizeLinear", "q1", {"x", "s", "zp"}, {"q1o"});
  b.node("DequantizeLinear", "dq1", {"q1o", "s", "zp"}, {"d1"});
  b.node("QuantizeLinear", "q2", {"d1", "s", "zp"}, {"q2o"});
  b.node("DequantizeLinear", "dq2", {"q2o", "s", "zp"}, {"d2"});
  b.node("Relu", "relu", {"d2"}, {"r"});
  b.node("QuantizeLinear", "q3", {"r", "s", "zp"}, {"q3o"});
  b.node("DequantizeLinear", "dq3", {"q3o", "s", "zp"}, {"y"});
  b.node("Neg", "neg", {"y"}, {"z"});  // reads the graph output y
  const ImportOptions o = quantized({wave(4, 0.5, 0.0)});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), o, &p, &error)) << error;
  EXPECT_EQ(p.folded_qdq_pairs, 3u);
  ASSERT_EQ(p.model.nodes.size(), 2u);
  EXPECT_EQ(p.model.nodes[0].op_type(), "Relu");
  EXPECT_EQ(p.model.nodes[0].input(0), "x");
  EXPECT_EQ(p.model.nodes[0].output(0), "y");
  EXPECT_EQ(p.model.nodes[1].op_type(), "Neg");
  EXPECT_EQ(p.model.nodes[1].input(0), "y");
  EXPECT_EQ(p.model.outputs, (std::vector<std::string>{"y", "z"}));
  EXPECT_EQ(p.encoding_overrides["y"].offset, -128);
  QnnGraphDesc desc;
  ASSERT_TRUE(build_graph_desc(p, o, &desc, &error)) << error;
  EXPECT_EQ(desc.outputs, (std::vector<std::string>{"y", "z"}));
}

// A pair from a graph input to a graph output that another node reads: the
// reader reads the input (topological order kept), an Identity makes "y".
TEST(OnnxQdqImport, OutputBehindPairFromInputIsAnIdentityAndReadersReadTheInput) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 4}).output("z", {1, 4});
  b.initializer("s", {}, {0.1f});
  b.int8_initializer("zp", kU8, {}, {128});
  b.node("QuantizeLinear", "q", {"x", "s", "zp"}, {"xq"});
  b.node("DequantizeLinear", "dq", {"xq", "s", "zp"}, {"y"});
  b.node("Neg", "neg", {"y"}, {"z"});
  const ImportOptions o = quantized({wave(4, 0.5, 0.0)});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), o, &p, &error)) << error;
  ASSERT_EQ(p.model.nodes.size(), 2u);
  EXPECT_EQ(p.model.nodes[0].op_type(), "Neg");
  EXPECT_EQ(p.model.nodes[0].input(0), "x");
  EXPECT_EQ(p.model.nodes[1].op_type(), "Identity");
  EXPECT_EQ(p.model.nodes[1].input(0), "x");
  EXPECT_EQ(p.model.nodes[1].output(0), "y");
  QnnGraphDesc desc;
  ASSERT_TRUE(build_graph_desc(p, o, &desc, &error)) << error;
  EXPECT_EQ(desc.inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(desc.outputs, (std::vector<std::string>{"y", "z"}));
}

// Where and ReduceProd of constants fold (numbers worked out by hand).
TEST(OnnxQdqImport, WhereAndReduceProdOfConstantsFold) {
  ModelBuilder b(13);
  b.input("x", {2, 1}).output("y", {2, 1});
  b.int64_initializer("v", {2, 3}, {1, 2, 3, 4, 5, 6});
  auto& rp = b.node("ReduceProd", "rp", {"v"}, {"p"});  // [[6], [120]]
  ModelBuilder::ints(rp, "axes", {1});
  b.int64_initializer("lim", {}, {100});
  b.node("Less", "lt", {"p", "lim"}, {"small"});  // not folded by the folder: stays
  b.initializer("c", {2, 1}, {1.0f, 0.0f});
  b.initializer("a", {1, 2}, {10.0f, 20.0f});
  b.initializer("e", {}, {-1.0f});
  b.node("Where", "w", {"c", "a", "e"}, {"sel"});  // c != 0 picks a: [[10, 20], [-1, -1]]
  b.node("ReduceSum", "rs", {"sel"}, {"t"});
  b.node("Add", "add", {"x", "x"}, {"y"});
  ImportOptions o;
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), o, &p, &error)) << error;
  ASSERT_NE(p.model.constant("p"), nullptr);
  EXPECT_EQ(p.model.constant("p")->dims, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(p.model.constant("p")->to_ints(), (std::vector<int64_t>{6, 120}));
  ASSERT_NE(p.model.constant("sel"), nullptr);
  EXPECT_EQ(p.model.constant("sel")->dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(p.model.constant("sel")->to_floats(), (std::vector<float>{10.0f, 20.0f, -1.0f, -1.0f}));
}

// ---- What cannot fold is refused at import, by node name. ----
onnx::ModelProto mismatched_pair_model() {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 4});
  b.initializer("s1", {}, {0.1f}).initializer("s2", {}, {0.2f});
  b.int8_initializer("z", kU8, {}, {128});
  b.node("QuantizeLinear", "q_bad", {"x", "s1", "z"}, {"xq"});
  b.node("DequantizeLinear", "dq_bad", {"xq", "s2", "z"}, {"xd"});
  b.node("Relu", "relu", {"xd"}, {"y"});
  return b.model();
}

TEST(OnnxQdqImport, UnfoldableQuantizeDequantizeIsRefusedByName) {
  const ImportOptions o = quantized({wave(4, 0.5, 0.0)});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(mismatched_pair_model(), o, &p, &error)) << error;
  const auto bad = find_unsupported(p.model);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[0].name, "q_bad");
  EXPECT_EQ(bad[0].op_type, "QuantizeLinear");
  EXPECT_NE(bad[0].reason.find("'dq_bad'"), std::string::npos) << bad[0].reason;
  EXPECT_NE(bad[0].reason.find("another scale or zero point"), std::string::npos) << bad[0].reason;
  EXPECT_EQ(bad[1].name, "dq_bad");
  QnnGraphDesc desc;
  EXPECT_FALSE(build_graph_desc(p, o, &desc, &error));
  EXPECT_NE(error.find("QuantizeLinear 'q_bad'"), std::string::npos) << error;
  EXPECT_NE(error.find("DequantizeLinear 'dq_bad'"), std::string::npos) << error;
}

TEST(OnnxQdqImport, QuantizeReadByANonDequantizeIsRefusedByName) {
  ModelBuilder b;
  b.input("x", {1, 4}).output("y", {1, 4});
  b.initializer("s", {}, {0.1f});
  b.int8_initializer("z", kU8, {}, {128});
  b.node("QuantizeLinear", "q_alone", {"x", "s", "z"}, {"xq"});
  ModelBuilder::i(b.node("Cast", "cast_q", {"xq"}, {"y"}), "to", 1);  // uint8 -> float: not a no-op
  const ImportOptions o = quantized({wave(4, 0.5, 0.0)});
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(b.model(), o, &p, &error)) << error;
  bool seen = false;
  for (const auto& n : find_unsupported(p.model)) {
    if (n.name != "q_alone") continue;
    seen = true;
    EXPECT_NE(n.reason.find("Cast 'cast_q'"), std::string::npos) << n.reason;
  }
  EXPECT_TRUE(seen);
}

TEST(OnnxQdqImport, FloatConversionStillLowersQuantizeDequantize) {
  ImportOptions o;  // float: Q/DQ are ops
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(mismatched_pair_model(), o, &p, &error)) << error;
  EXPECT_TRUE(find_unsupported(p.model).empty());
  QnnGraphDesc desc;
  EXPECT_TRUE(build_graph_desc(p, o, &desc, &error)) << error;
}

}  // namespace
