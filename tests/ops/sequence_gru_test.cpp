// Gru (src/ops/reference/gru.cpp): a hand-worked step, then sequences
// against ONNX's GRU equations written here in double, and every refusal.
#include <cmath>
#include <random>

#include "test_util.h"

namespace opstest {
namespace {

struct GruCase {
  uint32_t T = 1, B = 1, I = 1, H = 1;
  bool time_major = false, reverse = false, linear_before_reset = false, with_init = true;
};

using GruData = std::vector<std::vector<float>>;  // 14 inputs in QNN's order; absent h0 empty

GruData random_data(const GruCase& c, std::mt19937& rng) {
  GruData d(14);
  d[0] = random_floats(rng, size_t{c.T} * c.B * c.I, -1.5f, 1.5f);
  for (int i = 1; i <= 3; ++i) d[i] = random_floats(rng, size_t{c.H} * c.I);
  for (int i = 4; i <= 6; ++i) d[i] = random_floats(rng, size_t{c.H} * c.H);
  for (int i = 7; i <= 12; ++i) d[i] = random_floats(rng, c.H, -0.5f, 0.5f);
  if (c.with_init) d[13] = random_floats(rng, size_t{c.B} * c.H);
  return d;
}

Node gru_node(const GruCase& c) {
  Node n;
  n.type = "Gru";
  const std::vector<uint32_t> x_dims =
      c.time_major ? std::vector<uint32_t>{c.T, c.B, c.I} : std::vector<uint32_t>{c.B, c.T, c.I};
  n.inputs.push_back(f32(x_dims));
  for (int i = 1; i <= 3; ++i) n.inputs.push_back(f32({c.H, c.I}));
  for (int i = 4; i <= 6; ++i) n.inputs.push_back(f32({c.H, c.H}));
  for (int i = 7; i <= 12; ++i) n.inputs.push_back(f32({c.H}));
  if (c.with_init) n.inputs.push_back(f32({c.B, c.H}));
  n.outputs = {f32({x_dims[0], x_dims[1], c.H}), f32({c.B, c.H})};
  n.params = {u32_param("direction", c.reverse ? 1 : 0), u32_param("linear_before_reset", c.linear_before_reset),
              bool_param("time_major", c.time_major)};
  return n;
}

double sig(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// ONNX's GRU equations in double: {all h, final h}.
std::vector<std::vector<double>> gru_formula(const GruCase& c, const GruData& d) {
  const uint32_t T = c.T, B = c.B, I = c.I, H = c.H;
  std::vector<double> h(B * H, 0.0), y(size_t{T} * B * H);
  if (c.with_init) h.assign(d[13].begin(), d[13].end());
  auto mv = [&](int wi, uint32_t j, const double* v, uint32_t len) {
    double s = 0;
    for (uint32_t k = 0; k < len; ++k) s += double(d[wi][j * len + k]) * v[k];
    return s;
  };
  for (uint32_t s = 0; s < T; ++s) {
    const uint32_t t = c.reverse ? T - 1 - s : s;
    std::vector<double> hn(B * H);
    for (uint32_t b = 0; b < B; ++b) {
      const size_t xrow = c.time_major ? (size_t{t} * B + b) : (size_t{b} * T + t);
      std::vector<double> x(d[0].begin() + xrow * I, d[0].begin() + (xrow + 1) * I);
      const double* hb = h.data() + b * H;
      std::vector<double> r(H), rh(H);
      for (uint32_t j = 0; j < H; ++j) {
        r[j] = sig(mv(2, j, x.data(), I) + d[8][j] + mv(5, j, hb, H) + d[11][j]);
        rh[j] = r[j] * hb[j];
      }
      for (uint32_t j = 0; j < H; ++j) {
        const double z = sig(mv(1, j, x.data(), I) + d[7][j] + mv(4, j, hb, H) + d[10][j]);
        const double rec = c.linear_before_reset ? r[j] * (mv(6, j, hb, H) + d[12][j]) : mv(6, j, rh.data(), H) + d[12][j];
        const double n = std::tanh(mv(3, j, x.data(), I) + d[9][j] + rec);
        hn[b * H + j] = (1 - z) * n + z * hb[j];
        y[xrow * H + j] = hn[b * H + j];
      }
    }
    h = hn;
  }
  return {y, h};
}

std::vector<std::vector<float>> run_gru(const Node& n, const GruData& d) {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<const std::vector<uint8_t>*> ptrs;
  for (size_t i = 0; i < n.inputs.size(); ++i) bytes.push_back(bytes_of(d[i]));
  for (auto& b : bytes) ptrs.push_back(&b);
  std::vector<std::vector<float>> outs;
  for (const auto& o : run_raw_outputs(n, ptrs)) outs.push_back(as<float>(o));
  return outs;
}

TEST(Gru, HandWorkedOneStep) {
  // B = I = H = 1, x = 1, h0 = 0.5; every weight 0 except:
  //   update: W_z = ln 3            -> z = sigmoid(ln 3) = 3/4
  //   reset:  Wb_r = 0              -> r = 1/2
  //   new:    W_n = ln 2, R_n = 2   -> n = tanh(ln 2 + 2 * (r * h0)) = tanh(ln 2 + 0.5)
  //           (linear_before_reset 1: tanh(ln 2 + r * (2 * h0)), the same here)
  //   h' = (1 - 3/4) * n + 3/4 * 0.5
  GruData d(14, std::vector<float>{0.0f});
  d[0] = {1};
  d[1] = {std::log(3.0f)};
  d[3] = {std::log(2.0f)};
  d[6] = {2};
  d[13] = {0.5f};
  const double want = 0.25 * std::tanh(std::log(2.0) + 0.5) + 0.375;
  for (bool lbr : {false, true}) {
    GruCase c;
    c.linear_before_reset = lbr;
    const auto got = run_gru(gru_node(c), d);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_NEAR(got[0][0], want, 1e-6) << "linear_before_reset " << lbr;
    EXPECT_NEAR(got[1][0], want, 1e-6) << "linear_before_reset " << lbr;
  }
}

TEST(Gru, SequencesMatchTheGateEquations) {
  std::mt19937 rng(5);
  struct Variant {
    const char* what;
    GruCase c;
  };
  const std::vector<Variant> variants = {
      {"batch-major forward", {3, 2, 3, 4}},
      {"batch-major reverse", {3, 2, 3, 4, false, true}},
      {"time-major forward", {4, 2, 2, 3, true}},
      {"time-major reverse, linear before reset", {4, 2, 2, 3, true, true, true}},
      {"linear before reset", {3, 1, 2, 4, false, false, true}},
      {"no initial state", {2, 2, 2, 2, false, false, false, false}},
  };
  for (const Variant& v : variants) {
    const GruData d = random_data(v.c, rng);
    const auto got = run_gru(gru_node(v.c), d);
    const auto want = gru_formula(v.c, d);
    ASSERT_EQ(got.size(), 2u) << v.what;
    for (size_t o = 0; o < 2; ++o) {
      ASSERT_EQ(got[o].size(), want[o].size()) << v.what;
      for (size_t k = 0; k < want[o].size(); ++k) ASSERT_NEAR(got[o][k], want[o][k], 2e-5) << v.what << " out " << o << " at " << k;
    }
  }
}

TEST(Gru, AcceptsOnnxShapedState) {
  // h0 and out[1] as [1, B, H] (ONNX's num_directions = 1) hold the same numbers.
  std::mt19937 rng(9);
  GruCase c{2, 2, 2, 3};
  const GruData d = random_data(c, rng);
  Node n = gru_node(c);
  n.inputs[13].dims = {1, 2, 3};
  n.outputs[1].dims = {1, 2, 3};
  const auto got = run_gru(n, d);
  const auto want = gru_formula(c, d);
  ASSERT_EQ(got.size(), 2u);
  for (size_t k = 0; k < want[1].size(); ++k) EXPECT_NEAR(got[1][k], want[1][k], 2e-5);
}

TEST(Gru, Refusals) {
  const GruCase c{2, 1, 2, 3};
  const Node good = gru_node(c);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  {
    Node n = good;
    n.inputs.resize(12);
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "12 inputs");
  }
  {
    Node n = good;
    n.inputs[3].dims = {3, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[3] (input_to_new_gate_weights) dims are [3,3]",
                  "expected [3,2]");
  }
  {
    Node n = good;
    n.inputs[5].dims = {3, 2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[5] (recurrent_to_reset_gate_weights)");
  }
  {
    Node n = good;
    n.inputs[12].dims = {2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[12] (recurrent_to_new_gate_bias)");
  }
  {
    Node n = good;
    n.inputs[13].dims = {2, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[13] (initial_h) dims are [2,3]",
                  "expected [1,3] or [1,1,3]");
  }
  {
    Node n = good;
    n.inputs[9] = null_tensor();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[9] (input_to_new_gate_bias) is mandatory");
  }
  {
    Node n = good;
    n.inputs.push_back(typed(dtype::kBool8, {1}));
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[14] (reset)");
  }
  {
    Node n = good;
    n.params[1] = u32_param("linear_before_reset", 2);
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'linear_before_reset' is 2");
  }
  {
    Node n = good;
    n.params[0] = u32_param("direction", 2);
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'direction' is 2");
  }
  {
    Node n = good;
    n.params.push_back(u32_param("hidden_size", 3));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "hidden_size");
  }
  {
    Node n = good;
    n.inputs[0].dims = {2, 2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input)");
  }
  {
    Node n = good;
    n.outputs[0].dims = {1, 2, 2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  }
  {
    Node n = good;
    n.outputs[1].dims = {3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1] dims are [3]");
  }
  {
    Node n = good;
    n.outputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "output");
  }
}

}  // namespace
}  // namespace opstest
