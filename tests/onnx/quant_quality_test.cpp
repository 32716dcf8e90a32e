// Quantization quality: per-channel MatMul weights, percentile / MSE
// calibration ranges, finite encodings for ±inf constants. Expected values
// are computed here independently (sorting, brute-force search, max|w|/127).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "QnnInterface.h"
#include "QnnOpDef.h"
#include "model_builder.h"
#include "onnx/backend_session.h"
#include "onnx/calibration.h"
#include "onnx/importer.h"
#include "onnx/quantization.h"

namespace {

using namespace openhtp::onnx_import;
using onnx_test::f32_bytes;
using onnx_test::ModelBuilder;

constexpr float kInf = std::numeric_limits<float>::infinity();

void add_tensor(QnnGraphDesc* g, const std::string& name, Qnn_TensorType_t type, std::vector<uint32_t> dims,
                std::vector<float> data = {}) {
  QTensor t;
  t.name = name;
  t.type = type;
  t.dims = std::move(dims);
  t.data.resize(data.size() * 4);
  if (!data.empty()) std::memcpy(t.data.data(), data.data(), t.data.size());
  g->add(std::move(t));
}

// x [2, 3] x W (static) -> y [2, 2]; W [3, 2], or [2, 3] with transpose_in1.
QnnGraphDesc matmul_graph(bool transpose_in1) {
  QnnGraphDesc g;
  add_tensor(&g, "x", QNN_TENSOR_TYPE_APP_WRITE, {2, 3});
  // Columns (output channels) of the [3, 2] form: {0.5, -1, 0.25} and {2, 1, -4}.
  if (!transpose_in1) {
    add_tensor(&g, "W", QNN_TENSOR_TYPE_STATIC, {3, 2}, {0.5f, 2.0f, -1.0f, 1.0f, 0.25f, -4.0f});
  } else {
    add_tensor(&g, "W", QNN_TENSOR_TYPE_STATIC, {2, 3}, {0.5f, -1.0f, 0.25f, 2.0f, 1.0f, -4.0f});
  }
  add_tensor(&g, "y", QNN_TENSOR_TYPE_APP_READ, {2, 2});
  g.nodes.push_back({"mm", QNN_OP_MAT_MUL, {"x", "W"}, {"y"},
                     {param_bool(QNN_OP_MAT_MUL_PARAM_TRANSPOSE_IN0, false),
                      param_bool(QNN_OP_MAT_MUL_PARAM_TRANSPOSE_IN1, transpose_in1)},
                     "MatMul 'mm'"});
  g.inputs = {"x"};
  g.outputs = {"y"};
  return g;
}

TEST(OnnxQuantQuality, MatMulConstantOperandPerOutputColumn) {
  for (bool t : {false, true}) {
    QnnGraphDesc g = matmul_graph(t);
    QuantOptions o;
    o.per_channel = true;
    std::string error;
    ASSERT_TRUE(quantize_graph(&g, {{"x", {-1.0f, 1.0f}}, {"y", {-5.0f, 5.0f}}}, {}, o, &error)) << error;
    const QTensor& w = *g.find("W");
    EXPECT_EQ(w.dtype, QNN_DATATYPE_SFIXED_POINT_8);
    ASSERT_EQ(w.encoding.kind, Encoding::Kind::kPerAxis);
    EXPECT_EQ(w.encoding.axis, t ? 0 : 1);
    ASSERT_EQ(w.encoding.scales.size(), 2u);
    EXPECT_FLOAT_EQ(w.encoding.scales[0], 1.0f / 127.0f);  // max |{0.5, -1, 0.25}|
    EXPECT_FLOAT_EQ(w.encoding.scales[1], 4.0f / 127.0f);  // max |{2, 1, -4}|
    EXPECT_EQ(w.encoding.offsets, (std::vector<int32_t>{0, 0}));
    // -4 -> -127 (column 1), 0.5 -> round(63.5) = 64 (half to even), 2 -> round(63.5) = 64.
    const auto* q = reinterpret_cast<const int8_t*>(w.data.data());
    if (!t) {
      EXPECT_EQ(q[0], 64);
      EXPECT_EQ(q[1], 64);
      EXPECT_EQ(q[5], -127);
    } else {
      EXPECT_EQ(q[0], 64);
      EXPECT_EQ(q[3], 64);
      EXPECT_EQ(q[5], -127);
    }
  }
  // Without --use_per_channel_quantization: an 8-bit per-tensor static, as before.
  QnnGraphDesc g = matmul_graph(false);
  std::string error;
  ASSERT_TRUE(quantize_graph(&g, {{"x", {-1.0f, 1.0f}}, {"y", {-5.0f, 5.0f}}}, {}, {}, &error)) << error;
  EXPECT_EQ(g.find("W")->encoding.kind, Encoding::Kind::kPerTensor);
}

// Values of a known distribution: a fine grid over [-1, 1] plus 20 outliers at 40.
std::vector<float> grid_with_outliers() {
  std::vector<float> v;
  const int n = 100000;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<float>(-1.0 + 2.0 * i / (n - 1)));
  for (int i = 0; i < 20; ++i) v.push_back(40.0f);
  return v;
}

Histogram histogram_of(const std::vector<float>& v) {
  Histogram h;
  h.lo = *std::min_element(v.begin(), v.end());
  h.hi = *std::max_element(v.begin(), v.end());
  h.add(v.data(), v.size());
  return h;
}

TEST(OnnxQuantQuality, PercentileRangeMatchesSortedValues) {
  const std::vector<float> v = grid_with_outliers();
  const Histogram h = histogram_of(v);
  std::vector<float> s = v;
  std::sort(s.begin(), s.end());
  const double bin = (h.hi - h.lo) / static_cast<double>(kHistogramBins);
  for (double p : {99.9, 99.99, 99.0}) {
    const TensorRange r = percentile_range(h, p);
    const size_t n = s.size();
    const float want_hi = s[static_cast<size_t>(std::ceil(p / 100.0 * n)) - 1];
    const float want_lo = s[static_cast<size_t>(std::floor((1.0 - p / 100.0) * n))];
    EXPECT_NEAR(r.max, want_hi, bin) << p;
    EXPECT_NEAR(r.min, want_lo, bin) << p;
  }
  // 99.99 % of 100020 values leaves 10 above: the 20 outliers are kept.
  EXPECT_GT(percentile_range(h, 99.99).max, 39.0f);
  // 99.9 % leaves 100 above: they are clipped away.
  EXPECT_LT(percentile_range(h, 99.9).max, 1.01f);
  EXPECT_EQ(percentile_range(h, 100.0).max, 40.0f);
}

// Exact quantization MSE of `v` under the asymmetric `bits`-bit encoding of
// [lo, hi] (range widened to contain 0, integer zero point), written here.
double exact_mse(const std::vector<float>& v, double lo, double hi, int bits) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  const double steps = std::pow(2.0, bits) - 1.0;
  const double scale = (hi - lo) / steps;
  const double zp = std::clamp(std::round(-lo / scale), 0.0, steps);
  double e = 0.0;
  for (float x : v) {
    const double q = std::clamp(std::nearbyint(x / scale) + zp, 0.0, steps);
    const double d = (q - zp) * scale - x;
    e += d * d;
  }
  return e / static_cast<double>(v.size());
}

TEST(OnnxQuantQuality, MseRangeIsNearTheBruteForceOptimum) {
  // Laplace(0, 1) by its inverse CDF on a grid: heavy tails, where clipping pays.
  std::vector<float> v;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const double u = (i + 0.5) / n - 0.5;
    v.push_back(static_cast<float>((u < 0 ? 1.0 : -1.0) * std::log(1.0 - 2.0 * std::fabs(u))));
  }
  const Histogram h = histogram_of(v);
  for (int bits : {4, 8}) {
    const TensorRange r = mse_range(h, bits);
    const double got = exact_mse(v, r.min, r.max, bits);
    const double minmax = exact_mse(v, h.lo, h.hi, bits);
    double best = minmax;
    for (int i = 1; i <= 60; ++i) {
      for (int j = 1; j <= 60; ++j) best = std::min(best, exact_mse(v, h.lo * i / 60.0, h.hi * j / 60.0, bits));
    }
    EXPECT_LE(got, best * 1.05) << bits << " bit: [" << r.min << ", " << r.max << "]";
    if (bits == 4) {
      EXPECT_LT(got, 0.5 * minmax);
    }
    EXPECT_LE(got, minmax * 1.0001);
    EXPECT_LT(r.max, h.hi);
    EXPECT_GT(r.min, h.lo);
  }
  // A tensor of one value: the range is that value (widened to 0 later).
  Histogram one;
  one.lo = one.hi = 2.0;
  const float twos[] = {2.0f, 2.0f};
  one.add(twos, 2);
  EXPECT_EQ(mse_range(one, 8).max, 2.0f);
  EXPECT_EQ(percentile_range(one, 99.99).max, 2.0f);
}

TEST(OnnxQuantQuality, InfiniteConstantGetsAFiniteSaturatingEncoding) {
  QnnGraphDesc g;
  add_tensor(&g, "x", QNN_TENSOR_TYPE_APP_WRITE, {1, 4});
  add_tensor(&g, "mask", QNN_TENSOR_TYPE_STATIC, {1, 4}, {0.0f, -kInf, 0.0f, -kInf});
  add_tensor(&g, "y", QNN_TENSOR_TYPE_APP_READ, {1, 4});
  g.nodes.push_back({"add", QNN_OP_ELEMENT_WISE_ADD, {"x", "mask"}, {"y"}, {}, "Add 'add'"});
  g.inputs = {"x"};
  g.outputs = {"y"};
  std::string error;
  std::vector<std::string> notes;
  TensorRange y{-3.0f, 3.0f};
  y.neg_inf = true;  // as calibration records x + (-inf)
  ASSERT_TRUE(quantize_graph(&g, {{"x", {-3.0f, 3.0f}}, {"y", y}}, {}, {}, &error, {}, &notes)) << error;
  const QTensor& m = *g.find("mask");
  EXPECT_EQ(m.dtype, QNN_DATATYPE_UFIXED_POINT_8);
  ASSERT_TRUE(std::isfinite(m.encoding.scale));
  // The range is [-2 * 3, 0] (2 x the largest calibrated magnitude): 0 is
  // code 255, -inf saturates to code 0 = -6.
  EXPECT_FLOAT_EQ(m.encoding.scale, 6.0f / 255.0f);
  EXPECT_EQ(m.encoding.offset, -255);
  EXPECT_EQ(m.data, (std::vector<uint8_t>{255, 0, 255, 0}));
  EXPECT_TRUE(std::isfinite(g.find("y")->encoding.scale));
  EXPECT_FLOAT_EQ(g.find("y")->encoding.scale, 6.0f / 255.0f);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("'y'"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("'mask'"), std::string::npos) << notes[1];
  // quantize_values never casts inf or nan: they saturate / give the zero point.
  const Encoding e = asymmetric_encoding(-1.0f, 1.0f, 8);
  const auto q = quantize_values({kInf, -kInf, std::nanf("")}, {3}, e, QNN_DATATYPE_UFIXED_POINT_8);
  EXPECT_EQ(q, (std::vector<uint8_t>{255, 0, static_cast<uint8_t>(-e.offset)}));
  // A non-finite end never makes a scale.
  EXPECT_TRUE(std::isfinite(asymmetric_encoding(-kInf, 1.0f, 8).scale));
}


// Imports `proto` quantized with `calibration` (float inputs), runs it on
// `x` (quantized here with the graph input's encoding); returns the
// dequantized output.
std::vector<float> run_quantized(const onnx::ModelProto& proto, const std::vector<std::vector<float>>& calibration,
                                 const std::vector<float>& x, bool per_channel, QnnGraphDesc* desc,
                                 const std::map<std::string, ActivationOverride>& overrides = {}) {
  ImportOptions options;
  options.quantize = true;
  options.quant.per_channel = per_channel;
  options.quant.activation_overrides = overrides;
  for (const auto& c : calibration) options.calibration.push_back({f32_bytes(c)});
  PreparedModel prepared;
  std::string error;
  EXPECT_TRUE(prepare_model(proto, options, &prepared, &error)) << error;
  BackendSession session;
  EXPECT_TRUE(session.open(QnnInterface_getProviders, &error, true)) << error;
  Qnn_ContextHandle_t ctx = nullptr;
  EXPECT_TRUE(session.create_context(&ctx, &error)) << error;
  std::vector<float> y;
  if (ctx == nullptr) return y;
  SubmittedGraph graph;
  if (import_model(prepared, options, session.api, session.backend, ctx, &graph, desc, &error)) {
    const QTensor& in = *desc->find(desc->inputs[0]);
    std::vector<uint8_t> xq(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      xq[i] = static_cast<uint8_t>(std::clamp<double>(std::nearbyint(x[i] / in.encoding.scale) - in.encoding.offset, 0, 255));
    }
    std::vector<std::vector<uint8_t>> outputs;
    EXPECT_TRUE(execute_graph(session.api, graph, {xq}, &outputs, &error)) << error;
    const QTensor& out = *desc->find(desc->outputs[0]);
    EXPECT_EQ(out.dtype, QNN_DATATYPE_UFIXED_POINT_8);
    if (!outputs.empty()) {
      for (uint8_t q : outputs[0]) y.push_back((static_cast<float>(q) + out.encoding.offset) * out.encoding.scale);
    }
  } else {
    ADD_FAILURE() << error;
  }
  session.api.contextFree(ctx, nullptr);
  return y;
}

std::vector<float> wave(size_t n, double a, double b) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(std::sin(a * static_cast<double>(i) + b) * 2.0);
  return v;
}

TEST(OnnxQuantQuality, MinusInfMaskSaturatesEndToEnd) {
  const std::vector<float> mask = {0, 0, -kInf, 0, -kInf, 0, 0, -kInf};
  ModelBuilder b;
  b.input("x", {1, 8}).output("y", {1, 8}).initializer("mask", {1, 8}, mask);
  b.node("Add", "add", {"x", "mask"}, {"y"});
  std::vector<std::vector<float>> calibration;
  for (int k = 0; k < 4; ++k) calibration.push_back(wave(8, 0.7, 0.3 * k));
  const std::vector<float> x = wave(8, 0.7, 0.45);
  QnnGraphDesc desc;
  const std::vector<float> y = run_quantized(b.model(), calibration, x, false, &desc);
  ASSERT_EQ(y.size(), 8u);
  const Encoding& e = desc.find("y")->encoding;
  ASSERT_TRUE(std::isfinite(e.scale) && e.scale > 0.0f);
  const float lowest = static_cast<float>(e.offset) * e.scale;
  for (size_t i = 0; i < 8; ++i) {
    if (std::isinf(mask[i])) {
      EXPECT_FLOAT_EQ(y[i], lowest) << "masked y[" << i << "] saturates to the lowest code";
    } else {
      EXPECT_NEAR(y[i], x[i], 1.01 * e.scale) << "y[" << i << "]";
    }
  }
}

TEST(OnnxQuantQuality, PerChannelMatMulRunsEndToEnd) {
  // y = x [4, 8] . W [8, 6], W's columns of very different magnitudes.
  constexpr int kM = 4, kK = 8, kN = 6;
  std::vector<float> w(kK * kN);
  for (int k = 0; k < kK; ++k) {
    for (int n = 0; n < kN; ++n) w[k * kN + n] = static_cast<float>(std::cos(1.3 * k + 0.7 * n) * std::pow(4.0, n - 3));
  }
  ModelBuilder b;
  b.input("x", {kM, kK}).output("y", {kM, kN}).initializer("W", {kK, kN}, w);
  b.node("MatMul", "mm", {"x", "W"}, {"y"});
  std::vector<std::vector<float>> calibration;
  for (int k = 0; k < 4; ++k) calibration.push_back(wave(kM * kK, 0.9, 0.2 * k));
  const std::vector<float> x = wave(kM * kK, 0.9, 0.3);
  QnnGraphDesc desc;
  const std::vector<float> y = run_quantized(b.model(), calibration, x, true, &desc);
  ASSERT_EQ(y.size(), static_cast<size_t>(kM * kN));
  const QTensor* wq = nullptr;
  for (const QTensor& t : desc.tensors) {
    if (t.type == QNN_TENSOR_TYPE_STATIC && t.dims == std::vector<uint32_t>{kK, kN}) wq = &t;
  }
  ASSERT_NE(wq, nullptr);
  ASSERT_EQ(wq->encoding.kind, Encoding::Kind::kPerAxis);
  EXPECT_EQ(wq->encoding.axis, 1);
  const Encoding& xe = desc.find("x")->encoding;
  const Encoding& ye = desc.find("y")->encoding;
  for (int n = 0; n < kN; ++n) {
    float m = 0.0f;
    for (int k = 0; k < kK; ++k) m = std::max(m, std::fabs(w[k * kN + n]));
    EXPECT_FLOAT_EQ(wq->encoding.scales[n], m / 127.0f) << n;
  }
  for (int i = 0; i < kM; ++i) {
    for (int n = 0; n < kN; ++n) {
      double want = 0.0, bound = 0.0;
      for (int k = 0; k < kK; ++k) {
        want += static_cast<double>(x[i * kK + k]) * w[k * kN + n];
        // input and weight rounding, half a step each
        bound += 0.5 * xe.scale * std::fabs(w[k * kN + n]) + 0.5 * wq->encoding.scales[n] * std::fabs(x[i * kK + k]);
      }
      EXPECT_NEAR(y[i * kN + n], want, bound + ye.scale) << "y[" << i << "," << n << "]";
    }
  }
}

// Mixed precision end to end: s = x + c with a constant c of wide range, then
// y = s - c (= x). At 8 bits the wide sum's step (~200 / 255) swamps x; the
// same graph with s overridden to 16 bits gives x back to within y's own
// step, so the 16-bit operand really travels through both kernels.
TEST(OnnxQuantQuality, A16BitActivationInAn8BitGraphRunsEndToEnd) {
  constexpr int kN = 16;
  std::vector<float> c(kN, 0.0f);
  c[3] = 98.0f;
  c[11] = -98.0f;
  ModelBuilder b;
  b.input("x", {1, kN}).output("y", {1, kN}).initializer("c", {1, kN}, c);
  b.node("Add", "add", {"x", "c"}, {"s"});
  b.node("Sub", "sub", {"s", "c"}, {"y"});
  std::vector<std::vector<float>> calibration;
  for (int k = 0; k < 4; ++k) calibration.push_back(wave(kN, 0.7, 0.3 * k));
  const std::vector<float> x = wave(kN, 0.7, 0.45);
  auto max_error = [&](const std::vector<float>& y) {
    double m = 0.0;
    for (int i = 0; i < kN; ++i) m = std::max(m, std::fabs(static_cast<double>(y[i]) - x[i]));
    return m;
  };
  QnnGraphDesc plain;
  const std::vector<float> y8 = run_quantized(b.model(), calibration, x, false, &plain);
  ASSERT_EQ(y8.size(), static_cast<size_t>(kN));
  EXPECT_EQ(plain.find("s")->dtype, QNN_DATATYPE_UFIXED_POINT_8);
  const float s8_step = plain.find("s")->encoding.scale;
  QnnGraphDesc mixed;
  const std::vector<float> y16 =
      run_quantized(b.model(), calibration, x, false, &mixed, {{"s", ActivationOverride{16, false, 0.0f, 0.0f}}});
  ASSERT_EQ(y16.size(), static_cast<size_t>(kN));
  EXPECT_EQ(mixed.find("s")->dtype, QNN_DATATYPE_UFIXED_POINT_16);
  EXPECT_EQ(mixed.find("x")->dtype, QNN_DATATYPE_UFIXED_POINT_8);
  EXPECT_EQ(mixed.find("y")->dtype, QNN_DATATYPE_UFIXED_POINT_8);
  const Encoding& ye = mixed.find("y")->encoding;
  const Encoding& xe = mixed.find("x")->encoding;
  const float s16_step = mixed.find("s")->encoding.scale;
  // 8-bit: somewhere the sum's rounding shows (its step is ~50 x x's range / 255).
  EXPECT_GT(max_error(y8), 4.0 * ye.scale) << "s step " << s8_step;
  // 16-bit s: x's, s's and y's rounding, half a step each, and no more.
  EXPECT_LE(max_error(y16), 0.5 * xe.scale + 0.5 * s16_step + 0.5 * ye.scale + 1e-6);
}

}  // namespace
