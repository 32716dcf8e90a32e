// End to end: a tiny ONNX model built here -> qnn-onnx-converter -> context
// binary -> contextCreateFromBinary + graphRetrieve -> graphExecute, compared
// with a naive NCHW computation (conv 3x3 pad 1 + bias, Relu, MaxPool 2x2/2)
// written in this test. Float, then quantized with a calibration input list.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "QnnInterface.h"
#include "System/QnnSystemContext.h"
#include "model_builder.h"
#include "onnx/backend_session.h"

namespace {

namespace fs = std::filesystem;
using onnx_test::ModelBuilder;

constexpr int kC = 2, kH = 6, kW = 6, kO = 3;

std::vector<float> weights() {
  std::vector<float> w(kO * kC * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::cos(0.7 * static_cast<double>(i))) * 0.5f;
  return w;
}
const std::vector<float> kBias = {0.1f, -0.05f, 0.2f};

std::vector<float> input(int seed) {
  std::vector<float> x(kC * kH * kW);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(0.31 * static_cast<double>(i) + seed));
  return x;
}

// Naive NCHW: conv (pad 1) + bias, relu, maxpool 2x2 stride 2 -> [1, 3, 3, 3].
std::vector<double> reference(const std::vector<float>& x, const std::vector<float>& w = weights()) {
  int oh = 0, ow = 0;
  std::vector<double> conv = onnx_test::naive_conv({x.begin(), x.end()}, 1, kC, kH, kW, {w.begin(), w.end()},
                                                   {kBias.begin(), kBias.end()}, kO, 3, 1, 1, &oh, &ow);
  for (double& v : conv) v = std::max(v, 0.0);
  std::vector<double> y(kO * 3 * 3);
  for (int c = 0; c < kO; ++c)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double m = -1e30;
        for (int a = 0; a < 2; ++a)
          for (int b = 0; b < 2; ++b) m = std::max(m, conv[(c * kH + 2 * i + a) * kW + 2 * j + b]);
        y[(c * 3 + i) * 3 + j] = m;
      }
  return y;
}

onnx::ModelProto tiny_model() {
  ModelBuilder b;
  b.input("x", {1, kC, kH, kW}).output("y", {1, kO, 3, 3});
  b.initializer("W", {kO, kC, 3, 3}, weights()).initializer("B", {kO}, kBias);
  ModelBuilder::ints(b.node("Conv", "conv", {"x", "W", "B"}, {"c"}), "pads", {1, 1, 1, 1});
  b.node("Relu", "relu", {"c"}, {"r"});
  auto& pool = b.node("MaxPool", "pool", {"r"}, {"y"});
  ModelBuilder::ints(pool, "kernel_shape", {2, 2});
  ModelBuilder::ints(pool, "strides", {2, 2});
  return b.model();
}

// QDQ weights: int8 per output channel (scale max|w_o| / 127, zero point 0)
// or uint8 per tensor (scale 1/255, zero point 128) from weights(); the
// model's weight is DequantizeLinear of those integers.
struct QdqWeights {
  bool is_signed = true;
  std::vector<int32_t> q;
  std::vector<float> scales;
  std::vector<int32_t> zero_points;
  std::vector<float> dequantized() const {
    std::vector<float> w(q.size());
    const size_t per = q.size() / scales.size();
    for (size_t i = 0; i < q.size(); ++i) {
      const size_t c = i / per;
      w[i] = static_cast<float>((static_cast<double>(q[i]) - zero_points[c]) * scales[c]);
    }
    return w;
  }
};

QdqWeights qdq_weights(bool is_signed) {
  const std::vector<float> w = weights();
  QdqWeights r;
  r.is_signed = is_signed;
  const size_t per = w.size() / kO;
  if (is_signed) {
    for (int o = 0; o < kO; ++o) {
      double m = 0.0;
      for (size_t i = 0; i < per; ++i) m = std::max(m, std::fabs(static_cast<double>(w[o * per + i])));
      r.scales.push_back(static_cast<float>(m / 127.0));
      r.zero_points.push_back(0);
    }
  } else {
    r.scales = {1.0f / 255.0f};
    r.zero_points = {128};
  }
  const size_t per_scale = w.size() / r.scales.size();
  for (size_t i = 0; i < w.size(); ++i) {
    const size_t c = i / per_scale;
    const long v = std::lround(w[i] / r.scales[c]) + r.zero_points[c];
    r.q.push_back(static_cast<int32_t>(std::clamp<long>(v, is_signed ? -128 : 0, is_signed ? 127 : 255)));
  }
  return r;
}

onnx::ModelProto tiny_qdq_model(const QdqWeights& qw) {
  onnx::ModelProto m = tiny_model();
  auto* g = m.mutable_graph();
  // Replace initializer W by DequantizeLinear(Wq, Ws, Wz) -> W.
  for (int i = 0; i < g->initializer_size(); ++i) {
    if (g->initializer(i).name() == "W") g->mutable_initializer()->DeleteSubrange(i--, 1);
  }
  const int32_t type = qw.is_signed ? 3 : 2;
  auto add = [&](const std::string& name, int32_t t, std::vector<int64_t> dims) {
    auto* x = g->add_initializer();
    x->set_name(name);
    x->set_data_type(t);
    for (int64_t d : dims) x->add_dims(d);
    return x;
  };
  auto* wq = add("Wq", type, {kO, kC, 3, 3});
  for (int32_t v : qw.q) wq->add_int32_data(v);
  const std::vector<int64_t> sd = qw.scales.size() == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{kO};
  auto* ws = add("Ws", 1, sd);
  for (float v : qw.scales) ws->add_float_data(v);
  auto* wz = add("Wz", type, sd);
  for (int32_t v : qw.zero_points) wz->add_int32_data(v);
  onnx::ModelProto out = m;
  auto* og = out.mutable_graph();
  og->clear_node();
  auto* dq = og->add_node();
  dq->set_op_type("DequantizeLinear");
  dq->set_name("dq");
  dq->add_input("Wq");
  dq->add_input("Ws");
  dq->add_input("Wz");
  dq->add_output("W");
  auto* axis = dq->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  for (const auto& n : g->node()) *og->add_node() = n;
  return out;
}

class OnnxEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("onnx_e2e_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream f(dir_ / "tiny.onnx", std::ios::binary);
    tiny_model().SerializeToOstream(&f);
  }
  void TearDown() override { fs::remove_all(dir_); }

  int convert(const std::string& extra) {
    const std::string cmd = std::string(OPENHTP_ONNX_CONVERTER) + " -i " + (dir_ / "tiny.onnx").string() + " -o " +
                            (dir_ / "tiny.bin").string() + " " + extra + " > " + (dir_ / "log.txt").string() + " 2>&1";
    return std::system(cmd.c_str());
  }

  // Calibration inputs 0..count-1 as raw files and inputs.txt listing them.
  void write_input_list(int count) {
    std::ofstream list(dir_ / "inputs.txt");
    for (int k = 0; k < count; ++k) {
      const std::vector<float> x = input(k);
      const std::string name = "in" + std::to_string(k) + ".raw";
      std::ofstream f(dir_ / name, std::ios::binary);
      f.write(reinterpret_cast<const char*>(x.data()), static_cast<std::streamsize>(x.size() * 4));
      list << "x:=" << (dir_ / name).string() << "\n";
    }
  }

  std::string log() const {
    std::ifstream f(dir_ / "log.txt");
    return {std::istreambuf_iterator<char>(f), {}};
  }

  // Loads the binary, runs graph "test_graph" on `x_bytes`, returns the raw
  // output and the output tensor description (dtype, encoding) from the
  // binary's metadata, as a client reads it.
  std::vector<uint8_t> run(const std::vector<uint8_t>& x_bytes, Qnn_Tensor_t* in_desc, Qnn_Tensor_t* out_desc,
                           bool quantize_input, const std::vector<float>& x) {
    std::ifstream f(dir_ / "tiny.bin", std::ios::binary);
    std::vector<uint8_t> bin{std::istreambuf_iterator<char>(f), {}};
    EXPECT_FALSE(bin.empty());
    QnnSystemContext_Handle_t sys = nullptr;
    EXPECT_EQ(QnnSystemContext_create(&sys), QNN_SUCCESS);
    const QnnSystemContext_BinaryInfo_t* info = nullptr;
    EXPECT_EQ(QnnSystemContext_getMetadata(sys, bin.data(), bin.size(), &info), QNN_SUCCESS);
    std::vector<uint8_t> out;
    if (info == nullptr) return out;
    const QnnSystemContext_GraphInfo_t* graphs = info->version == QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_1
                                                     ? info->contextBinaryInfoV1.graphs
                                                 : info->version == QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_2
                                                     ? info->contextBinaryInfoV2.graphs
                                                     : info->contextBinaryInfoV3.graphs;
    const QnnSystemContext_GraphInfoV1_t& g = graphs[0].graphInfoV1;
    EXPECT_STREQ(g.graphName, "test_graph");
    EXPECT_EQ(g.numGraphInputs, 1u);
    EXPECT_EQ(g.numGraphOutputs, 1u);
    Qnn_Tensor_t in = g.graphInputs[0], o = g.graphOutputs[0];
    EXPECT_STREQ(in.v1.name, "x");
    EXPECT_STREQ(o.v1.name, "y");
    *in_desc = in;
    *out_desc = o;
    // The metadata (dims included) lives until QnnSystemContext_free.
    out_dims_.assign(o.v1.dimensions, o.v1.dimensions + o.v1.rank);
    std::vector<uint8_t> xb = x_bytes;
    if (quantize_input) {
      const float s = in.v1.quantizeParams.scaleOffsetEncoding.scale;
      const int32_t off = in.v1.quantizeParams.scaleOffsetEncoding.offset;
      xb.resize(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        xb[i] = static_cast<uint8_t>(std::clamp<double>(std::nearbyint(x[i] / s) - off, 0, 255));
      }
    }
    size_t out_elems = 1;
    for (uint32_t i = 0; i < o.v1.rank; ++i) out_elems *= o.v1.dimensions[i];
    out.assign(out_elems * (o.v1.dataType == QNN_DATATYPE_FLOAT_32 ? 4 : 1), 0);

    openhtp::onnx_import::BackendSession session;
    std::string error;
    EXPECT_TRUE(session.open(QnnInterface_getProviders, &error)) << error;
    Qnn_ContextHandle_t ctx = nullptr;
    EXPECT_EQ(session.api.contextCreateFromBinary(session.backend, nullptr, nullptr, bin.data(), bin.size(), &ctx,
                                                  nullptr),
              QNN_SUCCESS);
    Qnn_GraphHandle_t graph = nullptr;
    EXPECT_EQ(session.api.graphRetrieve(ctx, "test_graph", &graph), QNN_SUCCESS);
    if (graph != nullptr) {
      in.v1.memType = o.v1.memType = QNN_TENSORMEMTYPE_RAW;
      in.v1.clientBuf = {xb.data(), static_cast<uint32_t>(xb.size())};
      o.v1.clientBuf = {out.data(), static_cast<uint32_t>(out.size())};
      EXPECT_EQ(session.api.graphExecute(graph, &in, 1, &o, 1, nullptr, nullptr), QNN_SUCCESS);
    }
    if (ctx != nullptr) session.api.contextFree(ctx, nullptr);
    QnnSystemContext_free(sys);
    return out;
  }

  fs::path dir_;
  std::vector<uint32_t> out_dims_;
};

TEST_F(OnnxEndToEnd, FloatModelMatchesNaiveNchw) {
  ASSERT_EQ(convert(""), 0) << log();
  const std::vector<float> x = input(0);
  std::vector<uint8_t> xb(x.size() * 4);
  std::memcpy(xb.data(), x.data(), xb.size());
  Qnn_Tensor_t in{}, out{};
  const std::vector<uint8_t> y = run(xb, &in, &out, false, x);
  EXPECT_EQ(out.v1.dataType, QNN_DATATYPE_FLOAT_32);
  // NCHW kept at the graph boundary.
  EXPECT_EQ(out_dims_, (std::vector<uint32_t>{1, kO, 3, 3}));
  const std::vector<double> want = reference(x);
  ASSERT_EQ(y.size(), want.size() * 4);
  std::vector<float> got(want.size());
  std::memcpy(got.data(), y.data(), y.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4) << "y[" << i << "]";
}

TEST_F(OnnxEndToEnd, QuantizedModelMatchesWithinQuantizationError) {
  write_input_list(4);
  ASSERT_EQ(convert("--input_list " + (dir_ / "inputs.txt").string() + " --use_per_channel_quantization"), 0) << log();
  const std::vector<float> x = input(1);
  Qnn_Tensor_t in{}, out{};
  const std::vector<uint8_t> y = run({}, &in, &out, true, x);
  EXPECT_EQ(in.v1.dataType, QNN_DATATYPE_UFIXED_POINT_8);
  ASSERT_EQ(out.v1.dataType, QNN_DATATYPE_UFIXED_POINT_8);
  const float s = out.v1.quantizeParams.scaleOffsetEncoding.scale;
  const int32_t off = out.v1.quantizeParams.scaleOffsetEncoding.offset;
  const std::vector<double> want = reference(x);
  ASSERT_EQ(y.size(), want.size());
  double range = 0.0;
  for (double v : want) range = std::max(range, std::fabs(v));
  for (size_t i = 0; i < want.size(); ++i) {
    const double got = (static_cast<double>(y[i]) + off) * s;
    // 8-bit input, weights and output: a few output steps of error.
    EXPECT_NEAR(got, want[i], 4.0 * s + 0.02 * range) << "y[" << i << "]";
  }
}

// --preserve_io datatype: the quantized graph takes and gives float32, with
// the same quantization inside (so the same error bound as above, in float).
TEST_F(OnnxEndToEnd, PreserveIoKeepsQuantizedGraphIoFloat) {
  write_input_list(4);
  ASSERT_EQ(convert("--input_list " + (dir_ / "inputs.txt").string() + " --preserve_io datatype"), 0) << log();
  const std::vector<float> x = input(1);
  std::vector<uint8_t> xb(x.size() * 4);
  std::memcpy(xb.data(), x.data(), xb.size());
  Qnn_Tensor_t in{}, out{};
  const std::vector<uint8_t> y = run(xb, &in, &out, false, x);
  EXPECT_EQ(in.v1.dataType, QNN_DATATYPE_FLOAT_32);
  ASSERT_EQ(out.v1.dataType, QNN_DATATYPE_FLOAT_32);
  EXPECT_EQ(out_dims_, (std::vector<uint32_t>{1, kO, 3, 3}));
  const std::vector<double> want = reference(x);
  ASSERT_EQ(y.size(), want.size() * 4);
  std::vector<float> got(want.size());
  std::memcpy(got.data(), y.data(), y.size());
  double range = 0.0, worst = 0.0;
  for (double v : want) range = std::max(range, std::fabs(v));
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
  // Quantized inside: within the 8-bit bound, and not float-exact (a graph
  // that silently stayed float would give ~1e-6).
  EXPECT_LE(worst, 0.05 * range);
  EXPECT_GT(worst, 1e-5 * range);
}

TEST_F(OnnxEndToEnd, PreserveIoRefusesANameThatIsNotGraphIo) {
  write_input_list(1);
  EXPECT_NE(convert("--input_list " + (dir_ / "inputs.txt").string() + " --preserve_io datatype nosuch"), 0);
  EXPECT_NE(log().find("'nosuch' is not a graph input or output"), std::string::npos) << log();
}

// QDQ weights keep their integers and encodings (int8 per channel, uint8
// per tensor with zero point 128): the backend accepts them and the result
// matches the naive conv with the dequantized weights.
TEST_F(OnnxEndToEnd, QdqWeightsRunWithTheirOwnEncodings) {
  write_input_list(4);
  for (bool is_signed : {true, false}) {
    SCOPED_TRACE(is_signed ? "int8 per channel" : "uint8 per tensor");
    const QdqWeights qw = qdq_weights(is_signed);
    {
      std::ofstream f(dir_ / "tiny.onnx", std::ios::binary | std::ios::trunc);
      tiny_qdq_model(qw).SerializeToOstream(&f);
    }
    ASSERT_EQ(convert("--input_list " + (dir_ / "inputs.txt").string()), 0) << log();
    EXPECT_EQ(log().find("QDQ encoding not kept"), std::string::npos) << log();
    const std::vector<float> x = input(2);
    Qnn_Tensor_t in{}, out{};
    const std::vector<uint8_t> y = run({}, &in, &out, true, x);
    ASSERT_EQ(out.v1.dataType, QNN_DATATYPE_UFIXED_POINT_8);
    const float s = out.v1.quantizeParams.scaleOffsetEncoding.scale;
    const int32_t off = out.v1.quantizeParams.scaleOffsetEncoding.offset;
    const std::vector<double> want = reference(x, qw.dequantized());
    ASSERT_EQ(y.size(), want.size());
    double range = 0.0;
    for (double v : want) range = std::max(range, std::fabs(v));
    for (size_t i = 0; i < want.size(); ++i) {
      const double got = (static_cast<double>(y[i]) + off) * s;
      EXPECT_NEAR(got, want[i], 4.0 * s + 0.02 * range) << "y[" << i << "]";
    }
  }
}

TEST_F(OnnxEndToEnd, UnsupportedNodesFailTheConversionByName) {
  ModelBuilder b;
  b.input("x", {4}).output("y", {4});
  b.node("Unique", "unique_node", {"x"}, {"y"});  // data-dependent output shape: no lowering
  std::ofstream f(dir_ / "tiny.onnx", std::ios::binary);
  b.model().SerializeToOstream(&f);
  f.close();
  EXPECT_NE(convert(""), 0);
  EXPECT_NE(log().find("Unique 'unique_node': op type Unique is not supported"), std::string::npos) << log();
}

}  // namespace
