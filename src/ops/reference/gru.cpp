// Gru: one GRU layer over a sequence, QNN's input order (one tensor per gate,
// ONNX's GRU equations with the gates named update z, reset r, new n):
//
//   in[0]  x: [T, B, I] (time_major) or [B, T, I]
//   in[1..3]   W_z, W_r, W_n [H, I] (input-to-gate weights)
//   in[4..6]   R_z, R_r, R_n [H, H] (recurrent-to-gate weights)
//   in[7..9]   Wb_z, Wb_r, Wb_n [H]  (input-to-gate biases)
//   in[10..12] Rb_z, Rb_r, Rb_n [H]  (recurrent-to-gate biases)
//   in[13] h0 [B, H] or [1, B, H] (optional, absent = 0)
//   in[14] reset (refused unless a static false)
//
// Per step, for each batch row:
//   z = sigmoid(W_z x + Wb_z + R_z h + Rb_z)
//   r = sigmoid(W_r x + Wb_r + R_r h + Rb_r)
//   n = tanh(W_n x + Wb_n + R_n (r . h) + Rb_n)        linear_before_reset 0
//   n = tanh(W_n x + Wb_n + r . (R_n h + Rb_n))        linear_before_reset 1
//   h' = (1 - z) . n + z . h
// direction 1 (reverse) walks the steps from last to first; each step's h'
// is written at its own time index (ONNX's reverse GRU).
//
//   out[0] every step's h' ([T, B, H] or [B, T, H], as the input),
//   out[1] the final h, [B, H] or [1, B, H] (either is accepted, as for h0:
//   converters emit ONNX's [num_directions = 1, B, H]).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

enum In : size_t { kX = 0, kWz, kWr, kWn, kRz, kRr, kRn, kWbz, kWbr, kWbn, kRbz, kRbr, kRbn, kH0, kReset, kNumIn };

constexpr std::string_view kRoles[kNumIn] = {
    "input", "input_to_update_gate_weights", "input_to_reset_gate_weights", "input_to_new_gate_weights",
    "recurrent_to_update_gate_weights", "recurrent_to_reset_gate_weights", "recurrent_to_new_gate_weights",
    "input_to_update_gate_bias", "input_to_reset_gate_bias", "input_to_new_gate_bias",
    "recurrent_to_update_gate_bias", "recurrent_to_reset_gate_bias", "recurrent_to_new_gate_bias",
    "initial_h", "reset"};

struct GruGeometry {
  size_t T = 0, B = 0, I = 0, H = 0;
  bool time_major = false, reverse = false, linear_before_reset = false;
};

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

class GruKernel final : public OpKernel {
 public:
  explicit GruKernel(const GruGeometry& g) : g_(g), h_(g.B * g.H), h_next_(g.B * g.H), rh_(g.H) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    auto at = [&](size_t i) { return i < in.size() ? static_cast<const float*>(in[i]) : nullptr; };
    const size_t B = g_.B, I = g_.I, H = g_.H, T = g_.T;
    for (size_t k = 0; k < B * H; ++k) h_[k] = at(kH0) ? at(kH0)[k] : 0.0f;
    const float* x = at(kX);
    float* y = static_cast<float*>(out[0]);
    for (size_t step = 0; step < T; ++step) {
      const size_t t = g_.reverse ? T - 1 - step : step;
      for (size_t b = 0; b < B; ++b) {
        const float* xt = x + (g_.time_major ? (t * B + b) : (b * T + t)) * I;
        const float* hb = h_.data() + b * H;
        // r first: linear_before_reset 0 needs all of r . h before any n.
        for (size_t j = 0; j < H; ++j) {
          rh_[j] = sigmoid(dot(at(kWr), xt, j, I) + at(kWbr)[j] + dot(at(kRr), hb, j, H) + at(kRbr)[j]);
        }
        float* hn = h_next_.data() + b * H;
        for (size_t j = 0; j < H; ++j) {
          const double z = sigmoid(dot(at(kWz), xt, j, I) + at(kWbz)[j] + dot(at(kRz), hb, j, H) + at(kRbz)[j]);
          double rec = 0.0;
          if (g_.linear_before_reset) {
            rec = rh_[j] * (dot(at(kRn), hb, j, H) + at(kRbn)[j]);
          } else {
            const float* rn = at(kRn) + j * H;
            for (size_t k = 0; k < H; ++k) rec += double{rn[k]} * rh_[k] * hb[k];
            rec += at(kRbn)[j];
          }
          const double n = std::tanh(dot(at(kWn), xt, j, I) + at(kWbn)[j] + rec);
          hn[j] = static_cast<float>((1.0 - z) * n + z * hb[j]);
        }
      }
      // Every row's gates read the previous h, so h is replaced only after the step.
      std::copy(h_next_.begin(), h_next_.end(), h_.begin());
      for (size_t b = 0; b < B; ++b) {
        float* yt = y + (g_.time_major ? (t * B + b) : (b * T + t)) * H;
        std::memcpy(yt, h_.data() + b * H, H * sizeof(float));
      }
    }
    std::memcpy(out[1], h_.data(), B * H * sizeof(float));
  }

 private:
  // Row j of w [rows, len] . v, in double.
  static double dot(const float* w, const float* v, size_t j, size_t len) {
    double s = 0.0;
    for (size_t k = 0; k < len; ++k) s += double{w[j * len + k]} * v[k];
    return s;
  }

  GruGeometry g_;
  std::vector<float> h_, h_next_;
  std::vector<double> rh_;  // this row's reset gate r
};

Status check_dims(const NodeDesc& node, size_t i, std::initializer_list<uint32_t> want) {
  const TensorDesc& t = node.inputs[i];
  if (!std::equal(t.dims.begin(), t.dims.end(), want.begin(), want.end())) {
    return invalid(node, in_label(i, kRoles[i]), " dims are ", dims_str(t.dims), ", expected ",
                   dims_str(std::vector<uint32_t>(want)));
  }
  return Status::Ok();
}

// [B, H] or [1, B, H].
bool is_state_dims(std::span<const uint32_t> d, uint32_t B, uint32_t H) {
  return (d.size() == 2 && d[0] == B && d[1] == H) || (d.size() == 3 && d[0] == 1 && d[1] == B && d[2] == H);
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 13, kNumIn, 2); !s.ok()) return s;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (i == kReset || (i == kH0 && !node.inputs[i].present)) continue;
    if (Status s = check_f32_tensor(node, node.inputs[i], in_label(i, kRoles[i])); !s.ok()) return s;
  }
  for (size_t i = 0; i < 2; ++i) {
    if (Status s = check_f32_tensor(node, node.outputs[i], out_label(i)); !s.ok()) return s;
  }
  if (has_input(node, kReset)) {
    // A static all-false reset changes nothing (each execution starts from
    // in[13]); any other reset would need state kept across runs.
    const TensorDesc& r = node.inputs[kReset];
    bool is_false = r.static_data != nullptr && r.dtype == dtype::kBool8;
    for (size_t k = 0; is_false && k < r.num_elements(); ++k) is_false = static_cast<const uint8_t*>(r.static_data)[k] == 0;
    if (!is_false) {
      return unsupported(node, in_label(kReset, "reset"),
                         " is given and is not a static BOOL_8 false; stateful reset is not supported");
    }
  }
  ParamReader params(node);
  if (Status s = params.check_names({"direction", "linear_before_reset", "time_major"}); !s.ok()) return s;
  GruGeometry g;
  uint32_t direction = 0, lbr = 0;
  if (Status s = params.u32_scalar("direction", 0u, &direction); !s.ok()) return s;
  if (direction > 1) return invalid(node, "parameter 'direction' is ", direction, ", expected 0 (forward) or 1 (reverse)");
  g.reverse = direction == 1;
  if (Status s = params.u32_scalar("linear_before_reset", 0u, &lbr); !s.ok()) return s;
  if (lbr > 1) return invalid(node, "parameter 'linear_before_reset' is ", lbr, ", expected 0 or 1");
  g.linear_before_reset = lbr == 1;
  // Batch-major by default, as QNN's Lstm.
  if (Status s = params.bool_scalar("time_major", false, &g.time_major); !s.ok()) return s;

  const TensorDesc& x = node.inputs[kX];
  if (Status s = check_rank(node, x, in_label(kX, kRoles[kX]), 3, 3, StatusCode::kInvalidArgument); !s.ok()) return s;
  g.T = g.time_major ? x.dims[0] : x.dims[1];
  g.B = g.time_major ? x.dims[1] : x.dims[0];
  g.I = x.dims[2];
  if (Status s = check_rank(node, node.inputs[kWz], in_label(kWz, kRoles[kWz]), 2, 2, StatusCode::kInvalidArgument);
      !s.ok())
    return s;
  g.H = node.inputs[kWz].dims[0];
  const uint32_t B = static_cast<uint32_t>(g.B), I = static_cast<uint32_t>(g.I), H = static_cast<uint32_t>(g.H);
  for (size_t i : {kWz, kWr, kWn}) {
    if (Status s = check_dims(node, i, {H, I}); !s.ok()) return s;
  }
  for (size_t i : {kRz, kRr, kRn}) {
    if (Status s = check_dims(node, i, {H, H}); !s.ok()) return s;
  }
  for (size_t i : {kWbz, kWbr, kWbn, kRbz, kRbr, kRbn}) {
    if (Status s = check_dims(node, i, {H}); !s.ok()) return s;
  }
  if (has_input(node, kH0) && !is_state_dims(node.inputs[kH0].dims, B, H)) {
    return invalid(node, in_label(kH0, kRoles[kH0]), " dims are ", dims_str(node.inputs[kH0].dims), ", expected [",
                   B, ",", H, "] or [1,", B, ",", H, "]");
  }
  std::vector<uint32_t> y_dims = x.dims;
  y_dims[2] = H;
  if (Status s = check_output_dims(node, 0, y_dims); !s.ok()) return s;
  if (!is_state_dims(node.outputs[1].dims, B, H)) {
    return invalid(node, out_label(1), " dims are ", dims_str(node.outputs[1].dims), ", expected [", B, ",", H,
                   "] or [1,", B, ",", H, "]");
  }
  if (kernel) *kernel = std::make_unique<GruKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef gru_def() { return {"Gru", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
