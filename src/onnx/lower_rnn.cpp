// ONNX recurrent layers (one direction, float) onto QNN:
//
//   GRU  -> Gru: W [1, 3H, I] / R [1, 3H, H] split (QNN Split, so constant or
//           run-time weights alike) into the z, r, n gates' [H, I] / [H, H];
//           B [1, 6H] into Wb_z, Wb_r, Wb_n, Rb_z, Rb_r, Rb_n (zeros without B);
//           linear_before_reset, direction (forward 0, reverse 1),
//           layout 0/1 = time_major true/false; initial_h [1, B, H] as [B, H].
//   LSTM -> Lstm: ONNX's gate order i, o, f, c onto QNN's inputs (W_xf, W_xc,
//           W_xo, W_hf, W_hc, W_ho, b_f, b_c, b_o, h0, c0, -, -, -, -, W_xi,
//           W_hi, w_ci, w_cf, w_co, b_i); each QNN bias is ONNX's Wb + Rb;
//           peepholes P [1, 3H] = p_i, p_o, p_f.
//   RNN  -> unrolled (QNN has no plain RNN op): per time step
//           h = tanh(FullyConnected(x_t, W, Wb) + FullyConnected(h, R, Rb)),
//           steps from Split on the time axis, Y from Concat of the steps.
// Outputs: QNN's sequence output [T, B, H] / [B, T, H] is reshaped into Y
// [T, 1, B, H] / [B, T, 1, H]; the final states [B, H] into [1, B, H] / [B, 1, H].
// Refused: bidirectional, activations other than the defaults, clip,
// LSTM input_forget, and sequence_lens unless constant and equal to T for
// every batch row (QNN's ops run every step).
#include <algorithm>

#include "QnnOpDef.h"
#include "onnx/attributes.h"
#include "onnx/lowering.h"

namespace openhtp::onnx_import {

namespace {

std::string check_rnn(const onnx::NodeProto& node, const Model& model) {
  const ValueInfo* x = model.info(node.input(0));
  if (x != nullptr && x->elem_type != onnx_type::kFloat && x->elem_type != onnx_type::kDouble) {
    return "only float inputs are supported";
  }
  if (x != nullptr && x->dims.size() != 3) return "input X must be rank 3";
  const std::string dir = attr_string(node, "direction", "forward");
  if (dir != "forward" && dir != "reverse") return "direction '" + dir + "' is not supported (one direction only)";
  if (has_attr(node, "clip")) return "'clip' is not supported";
  if (attr_int(node, "input_forget", 0) != 0) return "input_forget=1 is not supported";
  const std::string& t = node.op_type();
  const std::vector<std::string> defaults = t == "RNN"   ? std::vector<std::string>{"Tanh"}
                                            : t == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                         : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  if (const onnx::AttributeProto* a = find_attr(node, "activations")) {
    std::vector<std::string> got(a->strings().begin(), a->strings().end());
    for (auto& s : got) std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    std::vector<std::string> want = defaults;
    for (auto& s : want) std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (got != want) return "activations other than the defaults are not supported";
  }
  if (const std::string sl = input_name(node, 4); !sl.empty()) {
    const Tensor* c = model.constant(sl);
    if (c == nullptr) return "sequence_lens must be a constant (QNN runs every time step)";
    const int64_t steps = x == nullptr ? -1 : x->dims[attr_int(node, "layout", 0) == 0 ? 0 : 1];
    for (size_t i = 0; i < c->count(); ++i) {
      if (c->get_int(i) != steps) return "sequence_lens shorter than the sequence is not supported";
    }
  }
  return "";
}

struct Rnn {
  LoweringContext& ctx;
  const onnx::NodeProto& node;
  uint32_t T = 0, B = 0, I = 0, H = 0;
  bool time_major = true, reverse = false;

  explicit Rnn(const onnx::NodeProto& n, LoweringContext& c) : ctx(c), node(n) {
    const std::vector<uint32_t> xd = ctx.dims_u32(node.input(0));
    time_major = attr_int(node, "layout", 0) == 0;
    T = time_major ? xd[0] : xd[1];
    B = time_major ? xd[1] : xd[0];
    I = xd[2];
    H = static_cast<uint32_t>(attr_int(node, "hidden_size", 0));
    if (H == 0) H = ctx.dims_u32(node.input(2)).back();
    reverse = attr_string(node, "direction", "forward") == "reverse";
  }
  std::string hint(const char* s) const { return node.output_size() > 1 && !node.output(1).empty()
                                                     ? node.output(1) + s
                                                     : node.output(0) + s; }
  // ONNX input `k` (dims [1, parts * rows, cols] or [1, parts * rows]) split into `parts` QNN tensors.
  std::vector<std::string> split(int k, uint32_t parts, std::vector<uint32_t> part_dims) {
    std::vector<uint32_t> whole = part_dims;
    whole[0] *= parts;
    const std::string x = ctx.reshape(ctx.as_is(node.input(k)), whole);
    std::vector<std::string> outs;
    std::vector<uint32_t> starts;
    for (uint32_t p = 0; p < parts; ++p) {
      if (p > 0) starts.push_back(p * part_dims[0]);
      outs.push_back(ctx.native(hint("_part"), QNN_DATATYPE_FLOAT_32, part_dims));
    }
    ctx.add_node(QNN_OP_SPLIT, {x}, outs,
                 {param_u32(QNN_OP_SPLIT_PARAM_AXIS, 0),
                  param_u32_tensor(QNN_OP_SPLIT_PARAM_SPLIT_INDEX, {static_cast<uint32_t>(starts.size())}, starts)});
    return outs;
  }
  std::string zeros(std::vector<uint32_t> dims) {
    size_t n = 1;
    for (uint32_t d : dims) n *= d;
    return ctx.static_f32(hint("_zeros"), dims, std::vector<float>(n, 0.0f));
  }
  // Optional state input k ([1, B, H] or [B, 1, H]) as [B, H], "" when absent.
  std::string state(int k) {
    const std::string s = input_name(node, k);
    return s.empty() ? "" : ctx.reshape(ctx.as_is(s), {B, H});
  }
  std::string add(const std::string& a, const std::string& b) {
    const std::string out = ctx.native(hint("_sum"), QNN_DATATYPE_FLOAT_32, ctx.qtensor(a).dims);
    ctx.add_node(QNN_OP_ELEMENT_WISE_ADD, {a, b}, {out});
    return out;
  }
  std::vector<uint32_t> seq_dims() const { return time_major ? std::vector<uint32_t>{T, B, H} : std::vector<uint32_t>{B, T, H}; }
  // Writes QNN results `y` (sequence) and `states` ([B, H] each) into ONNX outputs 0, 1, ...
  void outputs(const std::string& y, const std::vector<std::string>& states) {
    if (const std::string o = output_name(node, 0); !o.empty()) ctx.add_node(QNN_OP_RESHAPE, {y}, {ctx.output(o)});
    for (size_t i = 0; i < states.size(); ++i) {
      if (const std::string o = output_name(node, static_cast<int>(i + 1)); !o.empty()) {
        ctx.add_node(QNN_OP_RESHAPE, {states[i]}, {ctx.output(o)});
      }
    }
  }
};

void lower_gru(const onnx::NodeProto& node, LoweringContext& ctx) {
  Rnn r(node, ctx);
  const uint32_t H = r.H, I = r.I;
  const std::vector<std::string> w = r.split(1, 3, {H, I}), rr = r.split(2, 3, {H, H});
  std::vector<std::string> b;
  if (!input_name(node, 3).empty()) {
    b = r.split(3, 6, {H});
  } else {
    b = std::vector<std::string>(6, r.zeros({H}));
  }
  std::vector<std::string> in = {ctx.as_is(node.input(0)), w[0], w[1], w[2], rr[0], rr[1], rr[2],
                                 b[0], b[1], b[2], b[3], b[4], b[5]};
  if (std::string h0 = r.state(5); !h0.empty()) in.push_back(h0);
  const std::string y = ctx.native(r.hint("_y"), QNN_DATATYPE_FLOAT_32, r.seq_dims());
  const std::string yh = ctx.native(r.hint("_h"), QNN_DATATYPE_FLOAT_32, {r.B, H});
  ctx.add_node(QNN_OP_GRU, in, {y, yh},
               {param_u32(QNN_OP_GRU_PARAM_DIRECTION, r.reverse ? QNN_OP_GRU_DIRECTION_REVERSE : QNN_OP_GRU_DIRECTION_FORWARD),
                param_u32(QNN_OP_GRU_PARAM_LINEAR_BEFORE_RESET,
                          static_cast<uint32_t>(attr_int(node, "linear_before_reset", 0) != 0)),
                param_bool(QNN_OP_GRU_PARAM_TIME_MAJOR, r.time_major)});
  r.outputs(y, {yh});
}

void lower_lstm(const onnx::NodeProto& node, LoweringContext& ctx) {
  Rnn r(node, ctx);
  const uint32_t H = r.H, I = r.I;
  // ONNX gate order i, o, f, c.
  const std::vector<std::string> w = r.split(1, 4, {H, I}), rr = r.split(2, 4, {H, H});
  std::vector<std::string> bias(4);  // i, o, f, c: Wb + Rb
  if (!input_name(node, 3).empty()) {
    const std::vector<std::string> b = r.split(3, 8, {H});
    for (int g = 0; g < 4; ++g) bias[g] = r.add(b[g], b[4 + g]);
  } else {
    bias = std::vector<std::string>(4, r.zeros({H}));
  }
  std::vector<std::string> peep(3);  // i, o, f
  if (!input_name(node, 7).empty()) peep = r.split(7, 3, {H});
  std::string h0 = r.state(5), c0 = r.state(6);
  std::vector<std::string> in = {ctx.as_is(node.input(0)),
                                 w[2], w[3], w[1],      // W_xf, W_xc, W_xo
                                 rr[2], rr[3], rr[1],   // W_hf, W_hc, W_ho
                                 bias[2], bias[3], bias[1],
                                 h0, c0, "", "", "", "",
                                 w[0], rr[0],            // W_xi, W_hi
                                 peep[0], peep[2], peep[1],  // w_ci, w_cf, w_co
                                 bias[0]};
  const std::string y = ctx.native(r.hint("_y"), QNN_DATATYPE_FLOAT_32, r.seq_dims());
  const std::string yc = ctx.native(r.hint("_c"), QNN_DATATYPE_FLOAT_32, {r.B, H});
  const std::string yh = ctx.native(r.hint("_h"), QNN_DATATYPE_FLOAT_32, {r.B, H});
  ctx.add_node(QNN_OP_LSTM, in, {y, yc, yh},
               {param_u32(QNN_OP_LSTM_PARAM_DIRECTION,
                          r.reverse ? QNN_OP_LSTM_DIRECTION_REVERSE : QNN_OP_LSTM_DIRECTION_FORWARD),
                param_bool(QNN_OP_LSTM_PARAM_TIME_MAJOR, r.time_major)});
  r.outputs(y, {yh, yc});
}

void lower_simple_rnn(const onnx::NodeProto& node, LoweringContext& ctx) {
  Rnn r(node, ctx);
  const uint32_t T = r.T, B = r.B, H = r.H, I = r.I;
  const std::string w = ctx.reshape(ctx.as_is(node.input(1)), {H, I});
  const std::string rw = ctx.reshape(ctx.as_is(node.input(2)), {H, H});
  std::string wb, rb;
  if (!input_name(node, 3).empty()) {
    const std::vector<std::string> b = r.split(3, 2, {H});
    wb = b[0];
    rb = b[1];
  } else {
    wb = rb = r.zeros({H});
  }
  const std::string x = ctx.as_is(node.input(0));
  const uint32_t time_axis = r.time_major ? 0 : 1;
  std::vector<std::string> steps;
  if (T == 1) {
    steps.push_back(x);
  } else {
    std::vector<uint32_t> sd = r.time_major ? std::vector<uint32_t>{1, B, I} : std::vector<uint32_t>{B, 1, I};
    std::vector<uint32_t> starts;
    for (uint32_t t = 0; t < T; ++t) {
      if (t > 0) starts.push_back(t);
      steps.push_back(ctx.native(r.hint("_x_t"), QNN_DATATYPE_FLOAT_32, sd));
    }
    ctx.add_node(QNN_OP_SPLIT, {x}, steps,
                 {param_u32(QNN_OP_SPLIT_PARAM_AXIS, time_axis),
                  param_u32_tensor(QNN_OP_SPLIT_PARAM_SPLIT_INDEX, {static_cast<uint32_t>(starts.size())}, starts)});
  }
  std::string h = r.state(5);
  std::vector<std::string> hs(T);
  for (uint32_t k = 0; k < T; ++k) {
    const uint32_t t = r.reverse ? T - 1 - k : k;
    const std::string xt = ctx.reshape(steps[t], {B, I});
    const std::string a = ctx.native(r.hint("_xw"), QNN_DATATYPE_FLOAT_32, {B, H});
    ctx.add_node(QNN_OP_FULLY_CONNECTED, {xt, w, wb}, {a});
    std::string pre = a;
    if (!h.empty()) {
      const std::string hr = ctx.native(r.hint("_hr"), QNN_DATATYPE_FLOAT_32, {B, H});
      ctx.add_node(QNN_OP_FULLY_CONNECTED, {h, rw, rb}, {hr});
      pre = r.add(a, hr);
    } else {
      pre = r.add(a, rb);
    }
    const std::string hn = ctx.native(r.hint("_h_t"), QNN_DATATYPE_FLOAT_32, {B, H});
    ctx.add_node(QNN_OP_TANH, {pre}, {hn});
    h = hn;
    hs[t] = hn;
  }
  std::string y;
  if (!output_name(node, 0).empty()) {
    std::vector<std::string> parts;
    for (const auto& s : hs) parts.push_back(ctx.reshape(s, r.time_major ? std::vector<uint32_t>{1, B, H}
                                                                         : std::vector<uint32_t>{B, 1, H}));
    if (parts.size() == 1) {
      y = parts[0];
    } else {
      y = ctx.native(r.hint("_y"), QNN_DATATYPE_FLOAT_32, r.seq_dims());
      ctx.add_node(QNN_OP_CONCAT, parts, {y}, {param_u32(QNN_OP_CONCAT_PARAM_AXIS, time_axis)});
    }
  }
  r.outputs(y, {h});
}

}  // namespace

std::vector<OpLowering> rnn_lowerings() {
  return {
      {"GRU", check_rnn, lower_gru},
      {"LSTM", check_rnn, lower_lstm},
      {"RNN", check_rnn, lower_simple_rnn},
  };
}

}  // namespace openhtp::onnx_import
