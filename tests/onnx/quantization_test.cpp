// Quantization encoding math (derived by hand) and the input list parser.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "QnnOpDef.h"
#include "onnx/input_list.h"
#include "onnx/quantization.h"

namespace {

using namespace openhtp::onnx_import;

TEST(OnnxQuantization, AsymmetricEncodingByHand) {
  // [-1, 3], 8 bit: scale = 4 / 255; zero point = round(1 / scale) =
  // round(63.75) = 64; QNN offset = -64.
  Encoding e = asymmetric_encoding(-1.0f, 3.0f, 8);
  EXPECT_EQ(e.kind, Encoding::Kind::kPerTensor);
  EXPECT_FLOAT_EQ(e.scale, 4.0f / 255.0f);
  EXPECT_EQ(e.offset, -64);
  // Zero is exactly representable: real(q = 64) = (64 - 64) * scale = 0.
  EXPECT_EQ((64 + e.offset) * e.scale, 0.0f);
}

TEST(OnnxQuantization, RangeIsWidenedToContainZero) {
  // [2, 4] becomes [0, 4]: scale 4/255, zero point 0.
  Encoding e = asymmetric_encoding(2.0f, 4.0f, 8);
  EXPECT_FLOAT_EQ(e.scale, 4.0f / 255.0f);
  EXPECT_EQ(e.offset, 0);
  // [-3, -1] becomes [-3, 0]: zero point 255.
  e = asymmetric_encoding(-3.0f, -1.0f, 8);
  EXPECT_FLOAT_EQ(e.scale, 3.0f / 255.0f);
  EXPECT_EQ(e.offset, -255);
  // A constant tensor (min == max == 0) still gets a usable 1e-4 range.
  e = asymmetric_encoding(0.0f, 0.0f, 8);
  EXPECT_FLOAT_EQ(e.scale, 1e-4f / 255.0f);
}

TEST(OnnxQuantization, SixteenBitActivations) {
  // [-1, 1]: scale 2 / 65535; zero point round(32767.5) = 32768.
  Encoding e = asymmetric_encoding(-1.0f, 1.0f, 16);
  EXPECT_FLOAT_EQ(e.scale, 2.0f / 65535.0f);
  EXPECT_EQ(e.offset, -32768);
}

TEST(OnnxQuantization, SymmetricWeights) {
  Encoding e = symmetric_encoding({-2.0f, 1.0f, 0.5f});
  EXPECT_FLOAT_EQ(e.scale, 2.0f / 127.0f);
  EXPECT_EQ(e.offset, 0);
  // Per axis 1 of [[1, -4], [2, 0.5]]: channel 0 max|.| = 2, channel 1 = 4.
  Encoding p = symmetric_per_axis_encoding({1.0f, -4.0f, 2.0f, 0.5f}, {2, 2}, 1);
  EXPECT_EQ(p.kind, Encoding::Kind::kPerAxis);
  EXPECT_EQ(p.axis, 1);
  ASSERT_EQ(p.scales.size(), 2u);
  EXPECT_FLOAT_EQ(p.scales[0], 2.0f / 127.0f);
  EXPECT_FLOAT_EQ(p.scales[1], 4.0f / 127.0f);
  EXPECT_EQ(p.offsets, (std::vector<int32_t>{0, 0}));
  // Quantized: 1 / (2/127) = 63.5 -> 64 (half to even), -4 -> -127, 2 -> 127, 0.5 -> 15.875 -> 16.
  const auto q = quantize_values({1.0f, -4.0f, 2.0f, 0.5f}, {2, 2}, p, QNN_DATATYPE_SFIXED_POINT_8);
  EXPECT_EQ(static_cast<int8_t>(q[0]), 64);
  EXPECT_EQ(static_cast<int8_t>(q[1]), -127);
  EXPECT_EQ(static_cast<int8_t>(q[2]), 127);
  EXPECT_EQ(static_cast<int8_t>(q[3]), 16);
}

TEST(OnnxQuantization, QuantizeValuesUnsignedByHand) {
  // scale 4/255, offset -64: q = round(v / scale) + 64, clamped to [0, 255].
  Encoding e = asymmetric_encoding(-1.0f, 3.0f, 8);
  const auto q = quantize_values({-1.0f, 0.0f, 3.0f, 10.0f, -5.0f}, {5}, e, QNN_DATATYPE_UFIXED_POINT_8);
  EXPECT_EQ(q, (std::vector<uint8_t>{0, 64, 255, 255, 0}));  // -63.75 -> -64; 191.25 -> 191; then clamps
}

// A FullyConnected graph: x [1, 3] (APP_WRITE), W [2, 3], b [2], y [1, 2].
QnnGraphDesc fc_graph() {
  QnnGraphDesc g;
  auto add = [&](const std::string& name, Qnn_TensorType_t type, std::vector<uint32_t> dims,
                 std::vector<float> data = {}) {
    QTensor t;
    t.name = name;
    t.type = type;
    t.dims = std::move(dims);
    t.data.resize(data.size() * 4);
    if (!data.empty()) std::memcpy(t.data.data(), data.data(), t.data.size());
    g.add(std::move(t));
  };
  add("x", QNN_TENSOR_TYPE_APP_WRITE, {1, 3});
  add("W", QNN_TENSOR_TYPE_STATIC, {2, 3}, {0.5f, -1.0f, 0.25f, 2.0f, 1.0f, -0.5f});
  add("b", QNN_TENSOR_TYPE_STATIC, {2}, {0.1f, -0.3f});
  add("y", QNN_TENSOR_TYPE_APP_READ, {1, 2});
  g.nodes.push_back({"fc", QNN_OP_FULLY_CONNECTED, {"x", "W", "b"}, {"y"}, {}, "Gemm 'fc'"});
  g.inputs = {"x"};
  g.outputs = {"y"};
  return g;
}

TEST(OnnxQuantization, PerChannelWeightsAndBiasScale) {
  QnnGraphDesc g = fc_graph();
  QuantOptions o;
  o.per_channel = true;
  std::string error;
  ASSERT_TRUE(quantize_graph(&g, {{"x", {-1.0f, 3.0f}}, {"y", {-2.0f, 2.0f}}}, {}, o, &error)) << error;
  const QTensor& x = *g.find("x");
  EXPECT_EQ(x.dtype, QNN_DATATYPE_UFIXED_POINT_8);
  EXPECT_FLOAT_EQ(x.encoding.scale, 4.0f / 255.0f);
  const QTensor& w = *g.find("W");
  EXPECT_EQ(w.dtype, QNN_DATATYPE_SFIXED_POINT_8);
  ASSERT_EQ(w.encoding.kind, Encoding::Kind::kPerAxis);
  EXPECT_EQ(w.encoding.axis, 0);  // FullyConnected weights are [out, in]
  EXPECT_FLOAT_EQ(w.encoding.scales[0], 1.0f / 127.0f);
  EXPECT_FLOAT_EQ(w.encoding.scales[1], 2.0f / 127.0f);
  const QTensor& b = *g.find("b");
  EXPECT_EQ(b.dtype, QNN_DATATYPE_SFIXED_POINT_32);
  ASSERT_EQ(b.encoding.kind, Encoding::Kind::kPerAxis);
  const float s0 = (4.0f / 255.0f) * (1.0f / 127.0f), s1 = (4.0f / 255.0f) * (2.0f / 127.0f);
  EXPECT_FLOAT_EQ(b.encoding.scales[0], s0);
  EXPECT_FLOAT_EQ(b.encoding.scales[1], s1);
  int32_t q[2];
  std::memcpy(q, b.data.data(), 8);
  EXPECT_EQ(q[0], static_cast<int32_t>(std::nearbyint(0.1 / s0)));
  EXPECT_EQ(q[1], static_cast<int32_t>(std::nearbyint(-0.3 / s1)));
  EXPECT_EQ(g.find("y")->dtype, QNN_DATATYPE_UFIXED_POINT_8);
}

TEST(OnnxQuantization, PerTensorWeightsWithoutPerChannelOption) {
  QnnGraphDesc g = fc_graph();
  std::string error;
  ASSERT_TRUE(quantize_graph(&g, {{"x", {-1.0f, 3.0f}}, {"y", {-2.0f, 2.0f}}}, {}, {}, &error)) << error;
  EXPECT_EQ(g.find("W")->encoding.kind, Encoding::Kind::kPerTensor);
  EXPECT_FLOAT_EQ(g.find("W")->encoding.scale, 2.0f / 127.0f);
  EXPECT_FLOAT_EQ(g.find("b")->encoding.scale, (4.0f / 255.0f) * (2.0f / 127.0f));
}

TEST(OnnxQuantization, OverridesWinAndRulesAreEnforced) {
  QnnGraphDesc g = fc_graph();
  Encoding fixed;
  fixed.kind = Encoding::Kind::kPerTensor;
  fixed.scale = 0.5f;
  fixed.offset = -10;
  std::string error;
  ASSERT_TRUE(quantize_graph(&g, {{"x", {-1.0f, 3.0f}}, {"y", {-2.0f, 2.0f}}}, {{"x", fixed}}, {}, &error)) << error;
  EXPECT_EQ(g.find("x")->encoding.scale, 0.5f);
  EXPECT_EQ(g.find("x")->encoding.offset, -10);
  // A missing calibration range is an error naming the tensor.
  QnnGraphDesc h = fc_graph();
  EXPECT_FALSE(quantize_graph(&h, {{"x", {-1.0f, 3.0f}}}, {}, {}, &error));
  EXPECT_NE(error.find("'y'"), std::string::npos) << error;
  // Unsupported bit widths are refused.
  QuantOptions o;
  o.act_bitwidth = 4;
  EXPECT_FALSE(quantize_graph(&h, {}, {}, o, &error));
  EXPECT_NE(error.find("--act_bitwidth 4"), std::string::npos) << error;
}

// --quantization_overrides (mixed precision): an overridden activation gets
// its own bit width, on the calibrated range or the one given; everything
// else keeps act_bitwidth; an override that matches nothing is refused.
TEST(OnnxQuantization, ActivationOverridesSetBitWidthAndRange) {
  QnnGraphDesc g = fc_graph();
  QuantOptions o;
  o.activation_overrides["x"] = ActivationOverride{16, false, 0.0f, 0.0f};
  o.activation_overrides["y"] = ActivationOverride{8, true, -4.0f, 4.0f};
  std::string error;
  ASSERT_TRUE(quantize_graph(&g, {{"x", {-1.0f, 3.0f}}, {"y", {-2.0f, 2.0f}}}, {}, o, &error)) << error;
  const QTensor& x = *g.find("x");
  EXPECT_EQ(x.dtype, QNN_DATATYPE_UFIXED_POINT_16);
  EXPECT_FLOAT_EQ(x.encoding.scale, 4.0f / 65535.0f);  // the calibrated [-1, 3] at 16 bits
  EXPECT_EQ(x.encoding.offset, -16384);                 // round(1 / (4 / 65535)) = round(16383.75)
  const QTensor& y = *g.find("y");
  EXPECT_EQ(y.dtype, QNN_DATATYPE_UFIXED_POINT_8);
  EXPECT_FLOAT_EQ(y.encoding.scale, 8.0f / 255.0f);  // the given [-4, 4], not the calibrated [-2, 2]
  EXPECT_EQ(y.encoding.offset, -128);                 // round(127.5) to even = 128
  // The bias scale follows the input's (16-bit) scale.
  EXPECT_FLOAT_EQ(g.find("b")->encoding.scale, (4.0f / 65535.0f) * (2.0f / 127.0f));

  // A name the graph does not have is an error naming it; a note instead
  // when the overrides serve several graphs.
  QnnGraphDesc h = fc_graph();
  QuantOptions bad;
  bad.activation_overrides["/layers.0/Add_output_0"] = ActivationOverride{16, false, 0.0f, 0.0f};
  EXPECT_FALSE(quantize_graph(&h, {{"x", {-1.0f, 3.0f}}, {"y", {-2.0f, 2.0f}}}, {}, bad, &error));
  EXPECT_NE(error.find("'/layers.0/Add_output_0'"), std::string::npos) << error;
  QnnGraphDesc k = fc_graph();
  bad.every_override_here = false;
  std::vector<std::string> notes;
  ASSERT_TRUE(quantize_graph(&k, {{"x", {-1.0f, 3.0f}}, {"y", {-2.0f, 2.0f}}}, {}, bad, &error, {}, &notes)) << error;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("no such activation"), std::string::npos) << notes[0];
  // Bit widths and ranges a kernel cannot take are refused.
  QnnGraphDesc m = fc_graph();
  QuantOptions four;
  four.activation_overrides["x"] = ActivationOverride{4, false, 0.0f, 0.0f};
  EXPECT_FALSE(quantize_graph(&m, {{"x", {-1.0f, 3.0f}}, {"y", {-2.0f, 2.0f}}}, {}, four, &error));
  EXPECT_NE(error.find("bitwidth 4"), std::string::npos) << error;
  QuantOptions inverted;
  inverted.activation_overrides["x"] = ActivationOverride{8, true, 3.0f, -1.0f};
  EXPECT_FALSE(quantize_graph(&m, {{"x", {-1.0f, 3.0f}}, {"y", {-2.0f, 2.0f}}}, {}, inverted, &error));
  EXPECT_NE(error.find("min <= max"), std::string::npos) << error;
}

TEST(OnnxInputList, NamedAndPositionalLines) {
  std::vector<InputListEntry> entries;
  std::string error;
  ASSERT_TRUE(parse_input_list("#header\nb:=b0.raw a:=a0.raw\n\na1.raw b1.raw\n%out\n", {"a", "b"}, &entries, &error))
      << error;
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0], (InputListEntry{"a0.raw", "b0.raw"}));
  EXPECT_EQ(entries[1], (InputListEntry{"a1.raw", "b1.raw"}));
}

TEST(OnnxInputList, BadLinesAreRefused) {
  std::vector<InputListEntry> entries;
  std::string error;
  EXPECT_FALSE(parse_input_list("a0.raw\n", {"a", "b"}, &entries, &error));
  EXPECT_NE(error.find("1 files for 2 graph inputs"), std::string::npos) << error;
  EXPECT_FALSE(parse_input_list("c:=x.raw b:=y.raw\n", {"a", "b"}, &entries, &error));
  EXPECT_NE(error.find("'c' is not a graph input"), std::string::npos) << error;
  EXPECT_FALSE(parse_input_list("a:=x.raw y.raw\n", {"a", "b"}, &entries, &error));
  EXPECT_FALSE(parse_input_list("\n\n", {"a"}, &entries, &error));
}

}  // namespace
