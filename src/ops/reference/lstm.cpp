// Lstm: one LSTM layer over a sequence (or one step), QNN's input order
// (the TFLite / NNAPI LSTM with the forget/cell/output tensors first):
//
//   in[0]  x: [B, I] (one step), or [T, B, I] (time_major) / [B, T, I]
//   in[1..3]  W_xf, W_xc, W_xo [N, I]     in[4..6]  W_hf, W_hc, W_ho [N, P]
//   in[7..9]  b_f, b_c, b_o [N]
//   in[10] h0 [B, P], in[11] c0 [B, N] (optional, absent = 0)
//   in[12..15] layer-norm weights          (refused: not supported)
//   in[16] W_xi [N, I], in[17] W_hi [N, P] (both absent = CIFG: i = 1 - f)
//   in[18..20] peepholes w_ci, w_cf, w_co [N] (optional, absent = 0)
//   in[21] b_i [N] (optional, absent = 0)
//   in[22] W_proj [P, N], in[23] b_proj [P] (optional; P = N without)
//   in[24] reset (refused unless a static false)
//
// Per step, for each batch row:
//   i = sigmoid(W_xi x + W_hi h + w_ci . c + b_i)   (CIFG: 1 - f)
//   f = sigmoid(W_xf x + W_hf h + w_cf . c + b_f)
//   g = tanh(W_xc x + W_hc h + b_c)
//   c' = f . c + i . g, clipped to +-cell_clip_threshold when that is > 0
//   o = sigmoid(W_xo x + W_ho h + w_co . c' + b_o)
//   m = o . tanh(c'); h' = W_proj m + b_proj, clipped to
//       +-output_clip_threshold when that is > 0 (h' = m without projection)
// direction 1 (reverse) walks the time steps from last to first; each
// step's h' is written at its own time index (ONNX's reverse LSTM).
//
//   out[0] every step's h' (the input's layout with P), out[1] final c [B, N],
//   out[2] final h [B, P]. The optional gate outputs out[3..7] are refused.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

enum In : size_t {
  kX = 0, kWxf, kWxc, kWxo, kWhf, kWhc, kWho, kBf, kBc, kBo, kH0, kC0,
  kLnI, kLnF, kLnC, kLnO, kWxi, kWhi, kPci, kPcf, kPco, kBi, kWproj, kBproj, kReset, kNumIn
};

constexpr std::string_view kRoles[kNumIn] = {
    "input", "input_to_forget_weights", "input_to_cell_weights", "input_to_output_weights",
    "recurrent_to_forget_weights", "recurrent_to_cell_weights", "recurrent_to_output_weights",
    "forget_gate_bias", "cell_gate_bias", "output_gate_bias", "initial_h", "initial_c",
    "input_layer_norm_weights", "forget_layer_norm_weights", "cell_layer_norm_weights",
    "output_layer_norm_weights", "input_to_input_weights", "recurrent_to_input_weights",
    "cell_to_input_weights", "cell_to_forget_weights", "cell_to_output_weights", "input_gate_bias",
    "projection_weights", "projection_bias", "reset"};

struct LstmGeometry {
  size_t T = 1, B = 0, I = 0, N = 0, P = 0;
  bool time_major = false, reverse = false, cifg = false;
  float cell_clip = 0.0f, output_clip = 0.0f;
};

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

class LstmKernel final : public OpKernel {
 public:
  explicit LstmKernel(const LstmGeometry& g) : g_(g), h_(g.B * g.P), h_next_(g.B * g.P), c_(g.B * g.N), m_(g.N) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    auto at = [&](size_t i) { return i < in.size() ? static_cast<const float*>(in[i]) : nullptr; };
    const size_t B = g_.B, I = g_.I, N = g_.N, P = g_.P, T = g_.T;
    for (size_t k = 0; k < B * P; ++k) h_[k] = at(kH0) ? at(kH0)[k] : 0.0f;
    for (size_t k = 0; k < B * N; ++k) c_[k] = at(kC0) ? at(kC0)[k] : 0.0f;
    const float* x = at(kX);
    float* y = static_cast<float*>(out[0]);
    for (size_t step = 0; step < T; ++step) {
      const size_t t = g_.reverse ? T - 1 - step : step;
      for (size_t b = 0; b < B; ++b) {
        const float* xt = x + (g_.time_major ? (t * B + b) : (b * T + t)) * I;
        float* hb = h_.data() + b * P;
        float* cb = c_.data() + b * N;
        for (size_t n = 0; n < N; ++n) {
          const double c_prev = cb[n];
          const double f = sigmoid(gate(at(kWxf), at(kWhf), at(kBf), n, xt, hb) + peep(at(kPcf), n, c_prev));
          const double i = g_.cifg ? 1.0 - f
                                   : sigmoid(gate(at(kWxi), at(kWhi), at(kBi), n, xt, hb) + peep(at(kPci), n, c_prev));
          const double gc = std::tanh(gate(at(kWxc), at(kWhc), at(kBc), n, xt, hb));
          double c = f * c_prev + i * gc;
          if (g_.cell_clip > 0.0f) c = std::fmin(std::fmax(c, -double{g_.cell_clip}), double{g_.cell_clip});
          const double o = sigmoid(gate(at(kWxo), at(kWho), at(kBo), n, xt, hb) + peep(at(kPco), n, c));
          m_[n] = o * std::tanh(c);
          cb[n] = static_cast<float>(c);  // only unit n's gates read c[n]: updated in place
        }
        float* hn = h_next_.data() + b * P;
        if (at(kWproj) == nullptr) {
          for (size_t p = 0; p < P; ++p) hn[p] = static_cast<float>(m_[p]);
        } else {
          const float* wp = at(kWproj);
          for (size_t p = 0; p < P; ++p) {
            double v = at(kBproj) ? at(kBproj)[p] : 0.0;
            for (size_t n = 0; n < N; ++n) v += double{wp[p * N + n]} * m_[n];
            if (g_.output_clip > 0.0f) v = std::fmin(std::fmax(v, -double{g_.output_clip}), double{g_.output_clip});
            hn[p] = static_cast<float>(v);
          }
        }
      }
      // Every row's gates read the previous h, so h is replaced only after the step.
      for (size_t k = 0; k < B * P; ++k) h_[k] = h_next_[k];
      for (size_t b = 0; b < B; ++b) {
        float* yt = y + (g_.time_major ? (t * B + b) : (b * T + t)) * P;
        std::memcpy(yt, h_.data() + b * P, P * sizeof(float));
      }
    }
    std::memcpy(out[1], c_.data(), B * N * sizeof(float));
    std::memcpy(out[2], h_.data(), B * P * sizeof(float));
  }

 private:
  // W_x[n] . x + W_h[n] . h + b[n], in double.
  double gate(const float* wx, const float* wh, const float* bias, size_t n, const float* x, const float* h) const {
    double v = bias ? bias[n] : 0.0;
    for (size_t k = 0; k < g_.I; ++k) v += double{wx[n * g_.I + k]} * x[k];
    for (size_t k = 0; k < g_.P; ++k) v += double{wh[n * g_.P + k]} * h[k];
    return v;
  }
  static double peep(const float* w, size_t n, double c) { return w ? w[n] * c : 0.0; }

  LstmGeometry g_;
  std::vector<float> h_, h_next_, c_;
  std::vector<double> m_;
};

Status check_dims(const NodeDesc& node, size_t i, std::initializer_list<uint32_t> want) {
  const TensorDesc& t = node.inputs[i];
  if (!std::equal(t.dims.begin(), t.dims.end(), want.begin(), want.end())) {
    return invalid(node, in_label(i, kRoles[i]), " dims are ", dims_str(t.dims), ", expected ",
                   dims_str(std::vector<uint32_t>(want)));
  }
  return Status::Ok();
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (node.inputs.size() < 10 || node.inputs.size() > kNumIn) {
    return invalid(node, "has ", node.inputs.size(), " inputs, expected 10 to ", size_t{kNumIn});
  }
  if (node.outputs.size() > 3 && node.outputs.size() <= 8) {
    return unsupported(node, "has ", node.outputs.size(),
                       " outputs; the optional gate outputs out[3..7] are not supported (give out[0..2] only)");
  }
  if (node.outputs.size() != 3) return invalid(node, "has ", node.outputs.size(), " outputs, expected 3");
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (i == kReset || (i > kBo && !node.inputs[i].present)) continue;
    if (Status s = check_f32_tensor(node, node.inputs[i], in_label(i, kRoles[i])); !s.ok()) return s;
  }
  for (size_t i = 0; i < 3; ++i) {
    if (Status s = check_f32_tensor(node, node.outputs[i], out_label(i)); !s.ok()) return s;
  }
  for (size_t i = kLnI; i <= kLnO; ++i) {
    if (has_input(node, i)) {
      return unsupported(node, in_label(i, kRoles[i]), " is given; layer-normalized LSTM is not supported");
    }
  }
  if (has_input(node, kReset)) {
    // A static all-false reset changes nothing (each execution starts from
    // in[10]/in[11]); any other reset would need state kept across runs.
    const TensorDesc& r = node.inputs[kReset];
    bool is_false = r.static_data != nullptr && r.dtype == dtype::kBool8;
    for (size_t k = 0; is_false && k < r.num_elements(); ++k) is_false = static_cast<const uint8_t*>(r.static_data)[k] == 0;
    if (!is_false) {
      return unsupported(node, in_label(kReset, "reset"),
                         " is given and is not a static BOOL_8 false; stateful reset is not supported");
    }
  }

  ParamReader params(node);
  if (Status s = params.check_names({"direction", "cell_clip_threshold", "output_clip_threshold", "time_major",
                                     "input_gate_qscale", "forget_gate_qscale", "cell_gate_qscale",
                                     "output_gate_qscale", "hidden_state_offset", "hidden_state_qscale"});
      !s.ok())
    return s;
  // The *_qscale / hidden_state_offset parameters name the encodings of a
  // quantized kernel's internal gates; the float golden model has none, so
  // they are accepted and not used.
  LstmGeometry g;
  uint32_t direction = 0;
  if (Status s = params.u32_scalar("direction", 0u, &direction); !s.ok()) return s;
  if (direction > 1) return invalid(node, "parameter 'direction' is ", direction, ", expected 0 (forward) or 1 (reverse)");
  g.reverse = direction == 1;
  if (Status s = params.f32_scalar("cell_clip_threshold", 0.0f, &g.cell_clip); !s.ok()) return s;
  if (g.cell_clip < 0.0f) return invalid(node, "parameter 'cell_clip_threshold' is ", g.cell_clip, ", expected >= 0");
  if (Status s = params.f32_scalar("output_clip_threshold", 0.0f, &g.output_clip); !s.ok()) return s;
  if (g.output_clip < 0.0f) {
    return invalid(node, "parameter 'output_clip_threshold' is ", g.output_clip, ", expected >= 0");
  }
  // QNN's default layout is batch-major ([B, T, I]), as TFLite's.
  if (Status s = params.bool_scalar("time_major", false, &g.time_major); !s.ok()) return s;

  const TensorDesc& x = node.inputs[kX];
  if (Status s = check_rank(node, x, in_label(kX, kRoles[kX]), 2, 3, StatusCode::kInvalidArgument); !s.ok()) return s;
  const bool seq = x.dims.size() == 3;
  g.T = seq ? (g.time_major ? x.dims[0] : x.dims[1]) : 1;
  g.B = seq ? (g.time_major ? x.dims[1] : x.dims[0]) : x.dims[0];
  g.I = x.dims.back();
  if (Status s = check_rank(node, node.inputs[kWxf], in_label(kWxf, kRoles[kWxf]), 2, 2,
                            StatusCode::kInvalidArgument);
      !s.ok())
    return s;
  g.N = node.inputs[kWxf].dims[0];
  const bool proj = has_input(node, kWproj);
  if (proj) {
    if (Status s = check_rank(node, node.inputs[kWproj], in_label(kWproj, kRoles[kWproj]), 2, 2,
                              StatusCode::kInvalidArgument);
        !s.ok())
      return s;
  }
  g.P = proj ? node.inputs[kWproj].dims[0] : g.N;
  const uint32_t B = static_cast<uint32_t>(g.B), I = static_cast<uint32_t>(g.I), N = static_cast<uint32_t>(g.N),
                 P = static_cast<uint32_t>(g.P);
  for (size_t i : {kWxf, kWxc, kWxo}) {
    if (Status s = check_dims(node, i, {N, I}); !s.ok()) return s;
  }
  for (size_t i : {kWhf, kWhc, kWho}) {
    if (Status s = check_dims(node, i, {N, P}); !s.ok()) return s;
  }
  for (size_t i : {kBf, kBc, kBo}) {
    if (Status s = check_dims(node, i, {N}); !s.ok()) return s;
  }
  if (has_input(node, kH0)) {
    if (Status s = check_dims(node, kH0, {B, P}); !s.ok()) return s;
  }
  if (has_input(node, kC0)) {
    if (Status s = check_dims(node, kC0, {B, N}); !s.ok()) return s;
  }
  const bool wxi = has_input(node, kWxi), whi = has_input(node, kWhi);
  if (wxi != whi) {
    return invalid(node, wxi ? in_label(kWxi, kRoles[kWxi]) : in_label(kWhi, kRoles[kWhi]),
                   " is given without ", wxi ? in_label(kWhi, kRoles[kWhi]) : in_label(kWxi, kRoles[kWxi]),
                   "; give both, or neither for a coupled input-forget gate (CIFG)");
  }
  g.cifg = !wxi;
  if (wxi) {
    if (Status s = check_dims(node, kWxi, {N, I}); !s.ok()) return s;
    if (Status s = check_dims(node, kWhi, {N, P}); !s.ok()) return s;
  }
  for (size_t i : {kPci, kPcf, kPco, kBi}) {
    if (!has_input(node, i)) continue;
    if (g.cifg && (i == kPci || i == kBi)) {
      return invalid(node, in_label(i, kRoles[i]), " is given but there is no input gate (in[16] and in[17] absent: CIFG)");
    }
    if (Status s = check_dims(node, i, {N}); !s.ok()) return s;
  }
  if (proj) {
    if (Status s = check_dims(node, kWproj, {P, N}); !s.ok()) return s;
  }
  if (has_input(node, kBproj)) {
    if (!proj) return invalid(node, in_label(kBproj, kRoles[kBproj]), " is given without in[22] (projection_weights)");
    if (Status s = check_dims(node, kBproj, {P}); !s.ok()) return s;
  }
  std::vector<uint32_t> y_dims = x.dims;
  y_dims.back() = P;
  if (Status s = check_output_dims(node, 0, y_dims); !s.ok()) return s;
  const uint32_t c_dims[] = {B, N}, h_dims[] = {B, P};
  if (Status s = check_output_dims(node, 1, c_dims); !s.ok()) return s;
  if (Status s = check_output_dims(node, 2, h_dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<LstmKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef lstm_def() { return {"Lstm", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
