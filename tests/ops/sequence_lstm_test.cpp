// Lstm (src/ops/reference/lstm.cpp): a hand-worked step, then sequences
// against the gate equations written here in double (sigmoid/tanh, QNN's
// input order), and every refusal.
#include <cmath>
#include <random>

#include "test_util.h"

namespace opstest {
namespace {

constexpr uint32_t kF = dtype::kFloat32;

struct LstmCase {
  uint32_t T = 1, B = 1, I = 1, N = 1, P = 0;  // P = 0: no projection (P = N)
  bool seq = false, time_major = false, reverse = false, cifg = false, peephole = false;
  bool with_init = true;
  float cell_clip = 0.0f, output_clip = 0.0f;
};

// Inputs in QNN's order; absent ones empty.
struct LstmData {
  std::vector<std::vector<float>> in = std::vector<std::vector<float>>(25);
};

LstmData random_data(const LstmCase& c, std::mt19937& rng) {
  const uint32_t P = c.P ? c.P : c.N;
  LstmData d;
  d.in[0] = random_floats(rng, size_t{c.T} * c.B * c.I, -1.5f, 1.5f);
  for (int i = 1; i <= 3; ++i) d.in[i] = random_floats(rng, size_t{c.N} * c.I);
  for (int i = 4; i <= 6; ++i) d.in[i] = random_floats(rng, size_t{c.N} * P);
  for (int i = 7; i <= 9; ++i) d.in[i] = random_floats(rng, c.N, -0.5f, 0.5f);
  if (c.with_init) {
    d.in[10] = random_floats(rng, size_t{c.B} * P);
    d.in[11] = random_floats(rng, size_t{c.B} * c.N, -2.0f, 2.0f);
  }
  if (!c.cifg) {
    d.in[16] = random_floats(rng, size_t{c.N} * c.I);
    d.in[17] = random_floats(rng, size_t{c.N} * P);
    d.in[21] = random_floats(rng, c.N, -0.5f, 0.5f);
  }
  if (c.peephole) {
    if (!c.cifg) d.in[18] = random_floats(rng, c.N);
    d.in[19] = random_floats(rng, c.N);
    d.in[20] = random_floats(rng, c.N);
  }
  if (c.P) {
    d.in[22] = random_floats(rng, size_t{P} * c.N);
    d.in[23] = random_floats(rng, P, -0.5f, 0.5f);
  }
  return d;
}

Node lstm_node(const LstmCase& c, const LstmData& d) {
  const uint32_t P = c.P ? c.P : c.N;
  Node n;
  n.type = "Lstm";
  const std::vector<uint32_t> x_dims = !c.seq ? std::vector<uint32_t>{c.B, c.I}
                                       : c.time_major ? std::vector<uint32_t>{c.T, c.B, c.I}
                                                      : std::vector<uint32_t>{c.B, c.T, c.I};
  std::vector<std::vector<uint32_t>> dims(25);
  dims[0] = x_dims;
  for (int i : {1, 2, 3, 16}) dims[i] = {c.N, c.I};
  for (int i : {4, 5, 6, 17}) dims[i] = {c.N, P};
  for (int i : {7, 8, 9, 18, 19, 20, 21}) dims[i] = {c.N};
  dims[10] = {c.B, P};
  dims[11] = {c.B, c.N};
  dims[22] = {P, c.N};
  dims[23] = {P};
  size_t last = 0;
  for (size_t i = 0; i < 25; ++i) if (!d.in[i].empty()) last = i;
  for (size_t i = 0; i <= last; ++i) n.inputs.push_back(d.in[i].empty() ? null_tensor() : f32(dims[i]));
  std::vector<uint32_t> y_dims = x_dims;
  y_dims.back() = P;
  n.outputs = {f32(y_dims), f32({c.B, c.N}), f32({c.B, P})};
  n.params = {u32_param("direction", c.reverse ? 1 : 0), bool_param("time_major", c.time_major),
              f32_param("cell_clip_threshold", c.cell_clip), f32_param("output_clip_threshold", c.output_clip)};
  return n;
}

double sig(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// The equations, in double: returns {all h (x's layout), final c, final h}.
std::vector<std::vector<double>> lstm_formula(const LstmCase& c, const LstmData& d) {
  const uint32_t P = c.P ? c.P : c.N, T = c.seq ? c.T : 1, B = c.B, I = c.I, N = c.N;
  auto w = [&](int i, uint32_t r, uint32_t k, uint32_t cols) { return double(d.in[i][r * cols + k]); };
  auto opt = [&](int i, uint32_t k) { return d.in[i].empty() ? 0.0 : double(d.in[i][k]); };
  std::vector<double> h(B * P), cs(B * N), y(size_t{T} * B * P);
  for (uint32_t k = 0; k < B * P; ++k) h[k] = opt(10, k);
  for (uint32_t k = 0; k < B * N; ++k) cs[k] = opt(11, k);
  for (uint32_t s = 0; s < T; ++s) {
    const uint32_t t = c.reverse ? T - 1 - s : s;
    std::vector<double> hn(B * P);
    for (uint32_t b = 0; b < B; ++b) {
      const size_t xrow = c.time_major ? (size_t{t} * B + b) : (size_t{b} * T + t);
      auto pre = [&](int wx, int wh, int bias, uint32_t n) {
        double v = opt(bias, n);
        for (uint32_t k = 0; k < I; ++k) v += w(wx, n, k, I) * d.in[0][xrow * I + k];
        for (uint32_t k = 0; k < P; ++k) v += w(wh, n, k, P) * h[b * P + k];
        return v;
      };
      std::vector<double> m(N);
      for (uint32_t n = 0; n < N; ++n) {
        const double cp = cs[b * N + n];
        const double f = sig(pre(1, 4, 7, n) + opt(19, n) * cp);
        const double i = c.cifg ? 1.0 - f : sig(pre(16, 17, 21, n) + opt(18, n) * cp);
        const double g = std::tanh(pre(2, 5, 8, n));
        double cn = f * cp + i * g;
        if (c.cell_clip > 0) cn = std::max(-double(c.cell_clip), std::min(double(c.cell_clip), cn));
        const double o = sig(pre(3, 6, 9, n) + opt(20, n) * cn);
        m[n] = o * std::tanh(cn);
        cs[b * N + n] = cn;
      }
      for (uint32_t p = 0; p < P; ++p) {
        double v = m[p];
        if (c.P) {
          v = opt(23, p);
          for (uint32_t n = 0; n < N; ++n) v += w(22, p, n, N) * m[n];
          if (c.output_clip > 0) v = std::max(-double(c.output_clip), std::min(double(c.output_clip), v));
        }
        hn[b * P + p] = v;
        y[xrow * P + p] = v;
      }
    }
    h = hn;
  }
  return {y, cs, h};
}

std::vector<std::vector<float>> run_lstm(const Node& n, const LstmData& d) {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<const std::vector<uint8_t>*> ptrs;
  for (size_t i = 0; i < n.inputs.size(); ++i) bytes.push_back(bytes_of(d.in[i]));
  for (auto& b : bytes) ptrs.push_back(&b);
  std::vector<std::vector<float>> outs;
  for (const auto& o : run_raw_outputs(n, ptrs)) outs.push_back(as<float>(o));
  return outs;
}

void expect_outputs(const std::vector<std::vector<float>>& got, const std::vector<std::vector<double>>& want,
                    const std::string& what) {
  ASSERT_EQ(got.size(), 3u) << what;
  for (size_t o = 0; o < 3; ++o) {
    ASSERT_EQ(got[o].size(), want[o].size()) << what << " out " << o;
    for (size_t k = 0; k < want[o].size(); ++k) {
      ASSERT_NEAR(got[o][k], want[o][k], 2e-5) << what << " out " << o << " element " << k;
    }
  }
}

TEST(Lstm, HandWorkedOneStep) {
  // B = I = N = 1, x = 1, h0 = 0.5, c0 = 0.4:
  //   forget: 1*1 + (-2)*0.5 + 0 = 0        -> f = 0.5
  //   input:  0.5*1 + (-1)*0.5 + 0 = 0      -> i = 0.5
  //   cell:   (ln2/2)*1 + ln2*0.5 = ln 2    -> g = tanh(ln 2) = 3/5
  //   c' = 0.5*0.4 + 0.5*0.6 = 0.5
  //   output: ln3*1 + 0*0.5 + 0 = ln 3      -> o = 3/4
  //   h' = 0.75 * tanh(0.5)
  const float ln2 = std::log(2.0f), ln3 = std::log(3.0f);
  LstmCase c;
  LstmData d;
  d.in[0] = {1};
  d.in[1] = {1};         // W_xf
  d.in[2] = {ln2 / 2};   // W_xc
  d.in[3] = {ln3};       // W_xo
  d.in[4] = {-2};        // W_hf
  d.in[5] = {ln2};       // W_hc
  d.in[6] = {0};         // W_ho
  d.in[7] = {0};
  d.in[8] = {0};
  d.in[9] = {0};
  d.in[10] = {0.5f};
  d.in[11] = {0.4f};
  d.in[16] = {0.5f};     // W_xi
  d.in[17] = {-1};       // W_hi
  const Node n = lstm_node(c, d);
  const auto got = run_lstm(n, d);
  const double h = 0.75 * std::tanh(0.5);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_NEAR(got[0][0], h, 1e-6);
  EXPECT_NEAR(got[1][0], 0.5, 1e-6);
  EXPECT_NEAR(got[2][0], h, 1e-6);
}

TEST(Lstm, SequencesMatchTheGateEquations) {
  std::mt19937 rng(7);
  struct Variant {
    const char* what;
    LstmCase c;
  };
  std::vector<Variant> variants = {
      {"one step, batch 2", {1, 2, 3, 4}},
      {"batch-major forward", {3, 2, 3, 4, 0, true}},
      {"batch-major reverse", {3, 2, 3, 4, 0, true, false, true}},
      {"time-major forward", {4, 2, 2, 3, 0, true, true}},
      {"time-major reverse", {4, 2, 2, 3, 0, true, true, true}},
      {"CIFG with peepholes", {3, 1, 2, 3, 0, true, false, false, true, true}},
      {"peepholes", {3, 2, 2, 3, 0, true, false, false, false, true}},
      {"projection with clips", {3, 2, 3, 4, 2, true, false, false, false, false, true, 0.3f, 0.2f}},
      {"no initial state", {2, 2, 2, 2, 0, true, false, false, false, false, false}},
  };
  for (const Variant& v : variants) {
    const LstmData d = random_data(v.c, rng);
    expect_outputs(run_lstm(lstm_node(v.c, d), d), lstm_formula(v.c, d), v.what);
  }
}

TEST(Lstm, CellClipBinds) {
  // With a clip small enough to bind, the clipped formula (and not the
  // unclipped one) is what comes out: the test of the clip can fail.
  std::mt19937 rng(11);
  LstmCase c{3, 2, 2, 3, 0, true};
  c.cell_clip = 0.05f;
  const LstmData d = random_data(c, rng);
  const auto got = run_lstm(lstm_node(c, d), d);
  expect_outputs(got, lstm_formula(c, d), "cell clip 0.05");
  for (float v : got[1]) EXPECT_LE(std::fabs(v), 0.05f + 1e-6f);
}

TEST(Lstm, Refusals) {
  std::mt19937 rng(3);
  LstmCase c{2, 1, 2, 3, 0, true};
  const LstmData d = random_data(c, rng);
  const Node good = lstm_node(c, d);
  ASSERT_TRUE(good.prepare().ok()) << good.prepare().message;
  {
    Node n = good;
    n.inputs.resize(9);
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "9 inputs", "expected 10 to 25");
  }
  {
    Node n = good;
    n.outputs.push_back(f32({1, 3}));
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "gate outputs out[3..7]");
  }
  {
    Node n = good;
    n.outputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "2 outputs", "expected 3");
  }
  {
    Node n = good;
    n.inputs[2].dims = {3, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[2] (input_to_cell_weights) dims are [3,3]",
                  "expected [3,2]");
  }
  {
    Node n = good;
    n.inputs[5].dims = {3, 2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[5] (recurrent_to_cell_weights)", "expected [3,3]");
  }
  {
    Node n = good;
    n.inputs[8].dims = {2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[8] (cell_gate_bias)", "expected [3]");
  }
  {
    Node n = good;
    n.inputs[11].dims = {2, 3};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[11] (initial_c)", "expected [1,3]");
  }
  {
    Node n = good;
    n.inputs[7] = null_tensor();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[7] (forget_gate_bias) is mandatory");
  }
  {
    Node n = good;
    n.inputs[12] = f32({3});
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[12] (input_layer_norm_weights)", "layer-normalized");
  }
  {
    Node n = good;
    n.inputs[17] = null_tensor();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[16] (input_to_input_weights) is given without");
  }
  {
    Node n = good;
    while (n.inputs.size() < 25) n.inputs.push_back(null_tensor());
    n.inputs[24] = typed(dtype::kBool8, {1});
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[24] (reset)", "stateful reset");
  }
  {
    Node n = good;
    while (n.inputs.size() < 24) n.inputs.push_back(null_tensor());
    n.inputs[23] = f32({3});
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[23] (projection_bias) is given without");
  }
  {
    Node n = good;
    n.params[0] = u32_param("direction", 2);
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'direction' is 2");
  }
  {
    Node n = good;
    n.params[2] = f32_param("cell_clip_threshold", -1.0f);
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'cell_clip_threshold' is -1");
  }
  {
    Node n = good;
    n.params.push_back(u32_param("num_units", 3));
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "num_units");
  }
  {
    Node n = good;
    n.outputs[0].dims = {1, 2, 2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0]");
  }
  {
    Node n = good;
    n.outputs[1].dims = {1, 2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[1]");
  }
  {
    Node n = good;
    n.inputs[0] = typed(dtype::kInt32, {1, 2, 2});
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "in[0] (input) data type is INT_32");
  }
  {
    Node n = good;
    n.inputs[0].dims = {2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input)");
  }
}

}  // namespace
}  // namespace opstest
