// Lowerings added for the ONNX conformance suites (lower_loss.cpp,
// lower_einsum.cpp, lower_rnn.cpp, lower_static.cpp): where the behaviour is
// the importer's own (a composition's accuracy beyond the backend tests'
// small values, a refusal's message), checked on models built here and run
// through libQnnHtp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "QnnInterface.h"
#include "import_and_run.h"
#include "model_builder.h"
#include "onnx/backend_session.h"
#include "onnx/importer.h"

namespace {

using namespace openhtp::onnx_import;
using onnx_test::ModelBuilder;
using onnx_test::as_f32;
using onnx_test::f32_bytes;
using onnx_test::i32_bytes;
using onnx_test::run_model;

constexpr int32_t kI64 = 7;


void attr_s(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

// The refusal reasons of `proto` ("" when every node lowers).
std::string refusal(const onnx::ModelProto& proto) {
  ImportOptions options;
  PreparedModel prepared;
  std::string error;
  if (!prepare_model(proto, options, &prepared, &error)) return error;
  return describe_unsupported(find_unsupported(prepared.model));
}

// SoftmaxCrossEntropyLoss on logits far outside exp's float range (|x| up
// to 120): the max-subtracted log-softmax keeps it finite and within 1e-5
// relative of a double reference; ignore_index drops its rows from the mean.
TEST(OnnxConformanceOps, SoftmaxCrossEntropyIsStableOnLargeLogits) {
  constexpr int N = 6, C = 5, D = 4;
  ModelBuilder b;
  b.input("x", {N, C, D}).input("t", {N, D}, kI64).output("loss", {}).output("log_prob", {N, C, D});
  b.initializer("w", {C}, {0.5f, 1.0f, 2.0f, 1.5f, 0.25f});
  auto& n = b.node("SoftmaxCrossEntropyLoss", "sce", {"x", "t", "w"}, {"loss", "log_prob"});
  ModelBuilder::i(n, "ignore_index", 3);
  attr_s(n, "reduction", "mean");
  std::vector<float> x(N * C * D);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(120.0 * std::sin(0.37 * static_cast<double>(i)));
  std::vector<int32_t> t(N * D);
  for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<int32_t>((i * 7) % C);
  const auto out = run_model(b.model(), {f32_bytes(x), i32_bytes(t)});
  ASSERT_EQ(out.size(), 2u);
  const std::vector<double> w = {0.5, 1.0, 2.0, 1.5, 0.25};
  double num = 0, den = 0;
  std::vector<double> lp(N * C * D);
  for (int i = 0; i < N; ++i) {
    for (int d = 0; d < D; ++d) {
      double m = -1e300;
      for (int c = 0; c < C; ++c) m = std::max(m, double{x[(i * C + c) * D + d]});
      double s = 0;
      for (int c = 0; c < C; ++c) s += std::exp(double{x[(i * C + c) * D + d]} - m);
      for (int c = 0; c < C; ++c) lp[(i * C + c) * D + d] = double{x[(i * C + c) * D + d]} - m - std::log(s);
      const int tc = t[i * D + d];
      if (tc == 3) continue;
      num -= w[tc] * lp[(i * C + tc) * D + d];
      den += w[tc];
    }
  }
  const std::vector<float> loss = as_f32(out[0]), got_lp = as_f32(out[1]);
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_NEAR(loss[0], num / den, 1e-5 * std::fabs(num / den));
  ASSERT_EQ(got_lp.size(), lp.size());
  for (size_t i = 0; i < lp.size(); ++i) {
    ASSERT_TRUE(std::isfinite(got_lp[i])) << "[" << i << "]";
    EXPECT_NEAR(got_lp[i], lp[i], 1e-4 + 1e-5 * std::fabs(lp[i])) << "[" << i << "]";
  }
}

// Einsum with a diagonal (i twice in one operand) and a contraction over i:
// against a direct loop.
TEST(OnnxConformanceOps, EinsumDiagonalAndContraction) {
  constexpr int B = 2, I = 3, J = 4;
  ModelBuilder b;
  b.input("a", {B, I, I}).input("c", {B, I, J}).output("y", {B, J});
  auto& n = b.node("Einsum", "e", {"a", "c"}, {"y"});
  attr_s(n, "equation", "bii, bij -> bj");
  std::vector<float> a(B * I * I), c(B * I * J);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(std::cos(0.9 * static_cast<double>(i)));
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(std::sin(0.4 * static_cast<double>(i) + 1));
  const auto out = run_model(b.model(), {f32_bytes(a), f32_bytes(c)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> y = as_f32(out[0]);
  ASSERT_EQ(y.size(), size_t{B * J});
  for (int bb = 0; bb < B; ++bb) {
    for (int j = 0; j < J; ++j) {
      double want = 0;
      for (int i = 0; i < I; ++i) want += double{a[(bb * I + i) * I + i]} * c[(bb * I + i) * J + j];
      EXPECT_NEAR(y[bb * J + j], want, 1e-5) << bb << "," << j;
    }
  }
}

// Attention's scores as an Einsum of six letters, one a unit batch, with a
// node after it: ONNX 1.12's inference gives the Einsum output its rank
// alone, so the importer completes its dims (model.cpp complete_shapes) for
// the Neg to have a shape; the contraction runs as one MatMul (unit letters
// left out, g and h one batch axis). Against a direct loop.
TEST(OnnxConformanceOps, AttentionEinsumWithAUnitBatchIsOneMatMul) {
  constexpr int G = 2, H = 3, I = 4, J = 5, D = 6;
  ModelBuilder b;
  b.input("q", {1, G, H, I, D}).input("k", {1, G, H, J, D}).output("y", {1, G, H, I, J});
  attr_s(b.node("Einsum", "e", {"q", "k"}, {"s"}), "equation", "bghid,bghjd->bghij");
  b.node("Neg", "n", {"s"}, {"y"});
  std::vector<float> q(G * H * I * D), k(G * H * J * D);
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(std::cos(0.7 * static_cast<double>(i)));
  for (size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>(std::sin(0.3 * static_cast<double>(i) + 2));
  QnnGraphDesc desc;
  const auto out = run_model(b.model(), {f32_bytes(q), f32_bytes(k)}, &desc);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::count_if(desc.nodes.begin(), desc.nodes.end(), [](const auto& n) { return n.type == "MatMul"; }), 1);
  EXPECT_EQ(std::count_if(desc.nodes.begin(), desc.nodes.end(), [](const auto& n) { return n.type == "ReduceSum"; }),
            0);
  const std::vector<float> y = as_f32(out[0]);
  ASSERT_EQ(y.size(), size_t{G * H * I * J});
  for (int gh = 0; gh < G * H; ++gh) {
    for (int i = 0; i < I; ++i) {
      for (int j = 0; j < J; ++j) {
        double want = 0;
        for (int d = 0; d < D; ++d) want += double{q[(gh * I + i) * D + d]} * k[(gh * J + j) * D + d];
        EXPECT_NEAR(y[(gh * I + i) * J + j], -want, 1e-5) << gh << "," << i << "," << j;
      }
    }
  }
}

// A contraction whose first operand and output need transposing around the
// MatMul, the second operand a weight: y[b][j][i] = sum_k x[i][k][b] w[k][j].
TEST(OnnxConformanceOps, EinsumContractionTransposedAroundTheMatMul) {
  constexpr int I = 3, K = 4, B = 2, J = 5;
  std::vector<float> x(I * K * B), w(K * J);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::cos(1.1 * static_cast<double>(i)));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::sin(0.6 * static_cast<double>(i) + 1));
  ModelBuilder b;
  b.input("x", {I, K, B}).output("y", {B, J, I});
  b.initializer("w", {K, J}, w);
  attr_s(b.node("Einsum", "e", {"x", "w"}, {"y"}), "equation", "ikb,kj->bji");
  QnnGraphDesc desc;
  const auto out = run_model(b.model(), {f32_bytes(x)}, &desc);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(std::count_if(desc.nodes.begin(), desc.nodes.end(), [](const auto& n) { return n.type == "MatMul"; }), 1);
  const std::vector<float> y = as_f32(out[0]);
  ASSERT_EQ(y.size(), size_t{B * J * I});
  for (int bb = 0; bb < B; ++bb) {
    for (int j = 0; j < J; ++j) {
      for (int i = 0; i < I; ++i) {
        double want = 0;
        for (int kk = 0; kk < K; ++kk) want += double{x[(i * K + kk) * B + bb]} * w[kk * J + j];
        EXPECT_NEAR(y[(bb * J + j) * I + i], want, 1e-5) << bb << "," << j << "," << i;
      }
    }
  }
}

TEST(OnnxConformanceOps, EinsumWithMoreThanFiveAxesIsRefusedWithItsReason) {
  ModelBuilder b;
  b.input("a", {2, 2, 2}).input("c", {2, 2, 2}).output("y", {2, 2, 2, 2});
  attr_s(b.node("Einsum", "e", {"a", "c"}, {"y"}), "equation", "abc,def->abef");
  const std::string why = refusal(b.model());
  EXPECT_NE(why.find("6 distinct axes"), std::string::npos) << why;
  EXPECT_NE(why.find("rank <= 5"), std::string::npos) << why;
}

TEST(OnnxConformanceOps, BidirectionalGruIsRefusedWithItsReason) {
  ModelBuilder b;
  b.input("x", {3, 1, 2}).input("w", {2, 6, 2}).input("r", {2, 6, 2}).output("y_h", {2, 1, 2});
  auto& n = b.node("GRU", "g", {"x", "w", "r"}, {"", "y_h"});
  ModelBuilder::i(n, "hidden_size", 2);
  attr_s(n, "direction", "bidirectional");
  const std::string why = refusal(b.model());
  EXPECT_NE(why.find("direction 'bidirectional' is not supported (one direction only)"), std::string::npos) << why;
}

// A Hann window is computed at import (a STATIC tensor): periodic, size 8.
TEST(OnnxConformanceOps, HannWindowIsAStaticTensor) {
  ModelBuilder b(17);
  b.int64_initializer("size", {}, {8}).input("x", {8}).output("y", {8});
  b.node("HannWindow", "h", {"size"}, {"w"});
  b.node("Add", "a", {"w", "x"}, {"y"});
  const std::vector<float> x(8, 1.0f);
  const auto out = run_model(b.model(), {f32_bytes(x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> y = as_f32(out[0]);
  ASSERT_EQ(y.size(), 8u);
  for (int k = 0; k < 8; ++k) EXPECT_NEAR(y[k], 1.0 + 0.5 - 0.5 * std::cos(2 * M_PI * k / 8), 1e-6) << k;
}

}  // namespace
