// QDQ weights: DequantizeLinear(int8/uint8 constant) feeding a Conv or Gemm
// weight keeps its integers and encoding through the quantized conversion.
// Every expected integer, scale and offset below is written out by hand from
// the values the model is built with.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "QnnOpDef.h"
#include "model_builder.h"
#include "onnx/importer.h"
#include "onnx/quantization.h"

namespace {

using namespace openhtp::onnx_import;
using onnx_test::ModelBuilder;

constexpr int32_t kOnnxUint8 = 2, kOnnxInt8 = 3;

// Conv weights O=3, I=2, kh=1, kw=2 in OIHW order:
//   o0: i0 [1, -2]    i1 [3, -4]
//   o1: i0 [127, -128] i1 [0, 5]
//   o2: i0 [-7, 8]    i1 [9, -10]
const std::vector<int32_t> kConvWeights = {1, -2, 3, -4, 127, -128, 0, 5, -7, 8, 9, -10};
// The same in QNN HWIO [1, 2, 2, 3] order (kw, i, o), written out by hand.
const std::vector<int8_t> kConvWeightsHwio = {1, 127, -7, 3, 0, 9, -2, -128, 8, -4, 5, -10};

// x [1, 2, 3, 3] -> Conv(DequantizeLinear(wq, ws, wz, axis), bias) -> y.
onnx::ModelProto qdq_conv_model(const std::vector<float>& scales, int64_t axis) {
  ModelBuilder b;
  b.input("x", {1, 2, 3, 3}).output("y", {1, 3, 3, 2});
  b.int8_initializer("wq", kOnnxInt8, {3, 2, 1, 2}, kConvWeights);
  b.initializer("ws", {static_cast<int64_t>(scales.size())}, scales);
  b.int8_initializer("wz", kOnnxInt8, {static_cast<int64_t>(scales.size())}, std::vector<int32_t>(scales.size(), 0));
  b.initializer("bias", {3}, {0.5f, -1.0f, 2.0f});
  auto& dq = b.node("DequantizeLinear", "dq", {"wq", "ws", "wz"}, {"w"});
  ModelBuilder::i(dq, "axis", axis);
  b.node("Conv", "conv", {"x", "w", "bias"}, {"y"});
  return b.model();
}

// x [1, 2] -> Gemm(x, DequantizeLinear(B uint8 [2, 3], 0.02, 128), alpha) -> y [1, 3].
onnx::ModelProto qdq_gemm_model(float alpha) {
  ModelBuilder b;
  b.input("x", {1, 2}).output("y", {1, 3});
  b.int8_initializer("bq", kOnnxUint8, {2, 3}, {0, 255, 128, 10, 200, 3});
  b.initializer("bs", {}, {0.02f});
  b.int8_initializer("bz", kOnnxUint8, {}, {128});
  b.node("DequantizeLinear", "dq", {"bq", "bs", "bz"}, {"b"});
  auto& g = b.node("Gemm", "gemm", {"x", "b"}, {"y"});
  ModelBuilder::f(g, "alpha", alpha);
  return b.model();
}

struct Converted {
  QnnGraphDesc graph;
  std::vector<std::string> notes;
};

// Prepares, lowers and quantizes without a backend: every activation gets
// the calibrated range [-1, 1].
void convert(const onnx::ModelProto& proto, Converted* out, bool per_channel = false) {
  ImportOptions o;
  o.quantize = true;
  o.quant.per_channel = per_channel;
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(proto, o, &p, &error)) << error;
  ASSERT_TRUE(build_graph_desc(p, o, &out->graph, &error)) << error;
  std::map<std::string, TensorRange> ranges;
  for (const QTensor& t : out->graph.tensors) ranges[t.name] = {-1.0f, 1.0f};
  ASSERT_TRUE(quantize_graph(&out->graph, ranges, p.encoding_overrides, o.quant, &error, p.qdq_weights, &out->notes))
      << error;
}

const QNode& only_node(const QnnGraphDesc& g, const std::string& type) {
  const QNode* found = nullptr;
  for (const QNode& n : g.nodes) {
    if (n.type == type) {
      EXPECT_EQ(found, nullptr) << "several " << type << " nodes";
      found = &n;
    }
  }
  EXPECT_NE(found, nullptr) << "no " << type << " node";
  return *found;
}

std::vector<int8_t> as_int8(const std::vector<uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

TEST(OnnxQdqWeights, PerChannelInt8ConvKeepsIntegersAndScales) {
  Converted c;
  ASSERT_NO_FATAL_FAILURE(convert(qdq_conv_model({0.5f, 0.25f, 0.125f}, 0), &c));
  EXPECT_TRUE(c.notes.empty());
  const QNode& conv = only_node(c.graph, QNN_OP_CONV_2D);
  const QTensor& w = *c.graph.find(conv.inputs[1]);
  EXPECT_EQ(w.dims, (std::vector<uint32_t>{1, 2, 2, 3}));
  EXPECT_EQ(w.dtype, QNN_DATATYPE_SFIXED_POINT_8);
  EXPECT_EQ(as_int8(w.data), kConvWeightsHwio);
  ASSERT_EQ(w.encoding.kind, Encoding::Kind::kPerAxis);
  EXPECT_EQ(w.encoding.axis, 3);  // ONNX axis 0 (output channels) -> HWIO axis 3
  EXPECT_EQ(w.encoding.scales, (std::vector<float>{0.5f, 0.25f, 0.125f}));
  EXPECT_EQ(w.encoding.offsets, (std::vector<int32_t>{0, 0, 0}));
  // Bias: SFIXED_POINT_32 with scale in_scale * w_scale per channel; the
  // input's range [-1, 1] gives in_scale 2/255.
  const QTensor& b = *c.graph.find(conv.inputs[2]);
  EXPECT_EQ(b.dtype, QNN_DATATYPE_SFIXED_POINT_32);
  ASSERT_EQ(b.encoding.kind, Encoding::Kind::kPerAxis);
  ASSERT_EQ(b.encoding.scales.size(), 3u);
  const float in_scale = 2.0f / 255.0f;
  EXPECT_FLOAT_EQ(b.encoding.scales[0], in_scale * 0.5f);
  EXPECT_FLOAT_EQ(b.encoding.scales[1], in_scale * 0.25f);
  EXPECT_FLOAT_EQ(b.encoding.scales[2], in_scale * 0.125f);
}

TEST(OnnxQdqWeights, PerTensorInt8ConvStaysPerTensorEvenWithPerChannelOption) {
  Converted c;
  ASSERT_NO_FATAL_FAILURE(convert(qdq_conv_model({0.75f}, 1), &c, /*per_channel=*/true));
  EXPECT_TRUE(c.notes.empty());
  const QTensor& w = *c.graph.find(only_node(c.graph, QNN_OP_CONV_2D).inputs[1]);
  EXPECT_EQ(w.dtype, QNN_DATATYPE_SFIXED_POINT_8);
  EXPECT_EQ(as_int8(w.data), kConvWeightsHwio);
  ASSERT_EQ(w.encoding.kind, Encoding::Kind::kPerTensor);
  EXPECT_EQ(w.encoding.scale, 0.75f);
  EXPECT_EQ(w.encoding.offset, 0);
}

TEST(OnnxQdqWeights, Uint8PerTensorGemmKeepsIntegersAndZeroPoint) {
  Converted c;
  ASSERT_NO_FATAL_FAILURE(convert(qdq_gemm_model(1.0f), &c));
  EXPECT_TRUE(c.notes.empty());
  const QTensor& w = *c.graph.find(only_node(c.graph, QNN_OP_FULLY_CONNECTED).inputs[1]);
  // B [K=2, N=3] = [[0, 255, 128], [10, 200, 3]] -> FC weights [N, K].
  EXPECT_EQ(w.dims, (std::vector<uint32_t>{3, 2}));
  EXPECT_EQ(w.dtype, QNN_DATATYPE_UFIXED_POINT_8);
  EXPECT_EQ(w.data, (std::vector<uint8_t>{0, 10, 255, 200, 128, 3}));
  ASSERT_EQ(w.encoding.kind, Encoding::Kind::kPerTensor);
  EXPECT_EQ(w.encoding.scale, 0.02f);
  EXPECT_EQ(w.encoding.offset, -128);
}

// x [2, 2] -> MatMul(x, DequantizeLinear(B [2, 3])) -> y [2, 3]: QNN MatMul
// (not FullyConnected, x has two rows), B a plain "other static tensor".
onnx::ModelProto qdq_matmul_model(int32_t type, const std::vector<float>& scales, const std::vector<int32_t>& zps,
                                  int64_t axis) {
  ModelBuilder b;
  b.input("x", {2, 2}).output("y", {2, 3});
  b.int8_initializer("bq", type, {2, 3}, {0, 100, -100, 7, -8, 9});
  const int64_t n = static_cast<int64_t>(scales.size());
  b.initializer("bs", n == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{n}, scales);
  b.int8_initializer("bz", type, n == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{n}, zps);
  ModelBuilder::i(b.node("DequantizeLinear", "dq", {"bq", "bs", "bz"}, {"b"}), "axis", axis);
  b.node("MatMul", "mm", {"x", "b"}, {"y"});
  return b.model();
}

TEST(OnnxQdqWeights, MatMulConstantKeepsIntegersPerTensorAndPerAxis) {
  Converted c;
  ASSERT_NO_FATAL_FAILURE(convert(qdq_matmul_model(kOnnxInt8, {0.5f}, {0}, 1), &c));
  EXPECT_TRUE(c.notes.empty());
  const QNode* mm = nullptr;
  for (const QNode& n : c.graph.nodes) {
    if (n.type == QNN_OP_MAT_MUL) mm = &n;
  }
  ASSERT_NE(mm, nullptr);
  const QTensor& w = *c.graph.find(mm->inputs[1]);
  EXPECT_EQ(w.dtype, QNN_DATATYPE_SFIXED_POINT_8);
  EXPECT_EQ(as_int8(w.data), (std::vector<int8_t>{0, 100, -100, 7, -8, 9}));
  ASSERT_EQ(w.encoding.kind, Encoding::Kind::kPerTensor);
  EXPECT_EQ(w.encoding.scale, 0.5f);
  EXPECT_EQ(w.encoding.offset, 0);
  // Per axis 1 (the 3 output columns), zero points 1, 0, -1 -> offsets -1, 0, 1.
  Converted pa;
  ASSERT_NO_FATAL_FAILURE(convert(qdq_matmul_model(kOnnxInt8, {0.5f, 0.25f, 2.0f}, {1, 0, -1}, 1), &pa));
  EXPECT_TRUE(pa.notes.empty());
  for (const QNode& n : pa.graph.nodes) {
    if (n.type != QNN_OP_MAT_MUL) continue;
    const QTensor& wa = *pa.graph.find(n.inputs[1]);
    EXPECT_EQ(as_int8(wa.data), (std::vector<int8_t>{0, 100, -100, 7, -8, 9}));
    ASSERT_EQ(wa.encoding.kind, Encoding::Kind::kPerAxis);
    EXPECT_EQ(wa.encoding.axis, 1);
    EXPECT_EQ(wa.encoding.scales, (std::vector<float>{0.5f, 0.25f, 2.0f}));
    EXPECT_EQ(wa.encoding.offsets, (std::vector<int32_t>{-1, 0, 1}));
  }
}

TEST(OnnxQdqWeights, PerAxisOnInputChannelsFallsBackToRequantization) {
  // Scales on ONNX axis 1 (input channels) land on HWIO axis 2, which the
  // kernels cannot take: the weight is requantized symmetrically per tensor.
  Converted c;
  ASSERT_NO_FATAL_FAILURE(convert(qdq_conv_model({0.5f, 0.25f}, 1), &c));
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("weight 'w'"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[0].find("output-channel axis 3"), std::string::npos) << c.notes[0];
  const QTensor& w = *c.graph.find(only_node(c.graph, QNN_OP_CONV_2D).inputs[1]);
  EXPECT_EQ(w.dtype, QNN_DATATYPE_SFIXED_POINT_8);
  ASSERT_EQ(w.encoding.kind, Encoding::Kind::kPerTensor);
  // Largest |real weight|: -128 * 0.5 = -64 -> scale 64 / 127.
  EXPECT_FLOAT_EQ(w.encoding.scale, 64.0f / 127.0f);
  EXPECT_EQ(w.encoding.offset, 0);
}

TEST(OnnxQdqWeights, WeightsChangedAfterDequantizeFallBack) {
  // Gemm alpha = 2 is folded into the weights, so they are no longer the
  // DequantizeLinear values: requantized (real values 2 * (q - 128) * 0.02,
  // largest |.| = 2 * 128 * 0.02 = 5.12 -> scale 5.12 / 127).
  Converted c;
  ASSERT_NO_FATAL_FAILURE(convert(qdq_gemm_model(2.0f), &c));
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("changed after DequantizeLinear"), std::string::npos) << c.notes[0];
  const QTensor& w = *c.graph.find(only_node(c.graph, QNN_OP_FULLY_CONNECTED).inputs[1]);
  EXPECT_EQ(w.dtype, QNN_DATATYPE_SFIXED_POINT_8);
  EXPECT_FLOAT_EQ(w.encoding.scale, 5.12f / 127.0f);
}

TEST(OnnxQdqWeights, FloatConversionIsUnchanged) {
  // No --input_list: nothing is recorded and the weight stays FLOAT_32.
  ImportOptions o;
  PreparedModel p;
  std::string error;
  ASSERT_TRUE(prepare_model(qdq_conv_model({0.5f, 0.25f, 0.125f}, 0), o, &p, &error)) << error;
  EXPECT_TRUE(p.qdq_weights.empty());
  QnnGraphDesc g;
  ASSERT_TRUE(build_graph_desc(p, o, &g, &error)) << error;
  const QTensor& w = *g.find(only_node(g, QNN_OP_CONV_2D).inputs[1]);
  EXPECT_EQ(w.dtype, QNN_DATATYPE_FLOAT_32);
  // HWIO element (kw 0, i 0, o 1) = 127 * 0.25.
  float v;
  std::memcpy(&v, w.data.data() + 4 * 1, 4);
  EXPECT_EQ(v, 127 * 0.25f);
}

}  // namespace
