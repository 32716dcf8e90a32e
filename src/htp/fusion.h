// Fusion at prepare: a producer op and the cheap element-wise work that
// follows it run as ONE kernel, so the producer's output is written once and
// never read back (issue 14 item 1).
//
//   producer ──t──► [ElementWiseAdd(t, r)] ──t2──► [SiLU] ──t3──► [clamp]  ──► y
//   (Conv2d, DepthWiseConv2d, TransposeConv2d, FullyConnected, MatMul)
//
// becomes one step that runs the producer with an ops::Epilogue (op.h):
// y = clamp(silu(producer(...) + r)). Any epilogue node may be absent, not
// all. SiLU (FLOAT_32 only) is the pair Sigmoid(t2) -> s, Multiply(t2, s)
// (either operand order): t2 is read by exactly those two, s only by the
// Multiply, both NATIVE; oneDNN runs it as its swish post-op. (8-bit SiLU is
// a pointwise chain, below, bit-exact as a table.)
//
// Rules (each is why the fused step computes exactly what the nodes did)
//   - An eliminated intermediate (t, and t2 when both epilogues fuse) is a
//     NATIVE tensor — never a graph output, which the client reads — read by
//     exactly one input of one node, the next epilogue node. Nothing else
//     can observe that it was never written.
//   - clamp is Relu, Relu1, Relu6, ReluMinMax, or ElementWiseNeuron with
//     operation RELU or RELU_MIN_MAX: a pure min/max, the one thing every
//     fast path can do in its output stage (oneDNN eltwise post-op, XNNPACK
//     output_min/output_max).
//   - Same dims and data type along the chain (no broadcast Add, no type
//     change). FLOAT_32: Add and clamp. 8-bit (UFIXED_POINT_8 /
//     SFIXED_POINT_8): per-tensor encodings; an Add (below); a clamp right
//     after the producer only where it is exactly an output range clamp.
//     Such a fused step writes the clamp's output, in the clamp's output
//     encoding, straight from the producer's accumulators, which is right
//     in two cases:
//       a. the clamp's output has the encoding of its input and each bound
//          is a whole code of it (or outside the codes): clamping the real
//          value then quantizing gives the codes quantizing then clamping
//          gives (quantization is monotone and the bound is a fixed point
//          of it) — the fused step equals the unfused nodes exactly;
//       b. the bounds round to codes at or beyond both ends of the clamp's
//          output encoding (a Relu whose output encoding starts at 0, a
//          Relu6 whose range ends at or below 6: what converters calibrate),
//          so the clamp is the saturation that quantizing into that
//          encoding does anyway, and the producer's own output encoding
//          covers that range to within one output code at each end (it
//          saturates almost nothing the clamp's output could hold). The unfused
//          nodes round twice (producer output, then the clamp's
//          requantization), the fused step once, so they may differ by the
//          first rounding: at most max(1, ceil(s_in / (2 s_out))) codes — 1
//          when the producer's output step is at most twice the clamp's.
//   - An 8-bit residual Add fuses after any producer, but not when a
//     LayerNorm alone reads its sum (a post-norm transformer's residual:
//     Add -> LayerNorm below takes it, one rounding fewer): t, r and the
//     Add's output s per-tensor, of one data type. The nodes round t into
//     its encoding (saturating), add in real numbers, round into s's
//     encoding, and a clamp after them rounds into y's. The fused kernel
//     rounds at each of those places too (ops::Epilogue::producer_output,
//     sum_output) and maps s's codes through the clamp node's own answer
//     for each of the 256, so it gives the nodes' codes but where float
//     arithmetic lands on the other side of a tie (1 LSB, as every int8
//     fast path), for any encodings: a clamp after the Add need not meet
//     a. or b.
//   - FLOAT_16: a residual Add and a clamp, after any producer. XNNPACK's
//     fp16 convolutions take the clamp as their output min/max: rounding to
//     half is monotone and leaves a half unchanged, so clamping the
//     producer's value before its rounding to half (bounds rounded to half
//     too) gives the half the nodes give — the rounded value clamped by the
//     real bounds, then rounded — for any bounds: bit-exact. Everything else
//     in FLOAT_16 (an Add; FullyConnected, MatMul, TransposeConv2d) runs
//     through the type adapter, below.
//   - The Add's other operand r must already exist when the producer runs
//     (static, a graph input, or made by an earlier node): the fused step
//     runs at the producer's place in the node order.
//   - Any other graph is left alone. The graph the client built is not
//     changed: tensor names, ids and outputs stay; only the runtime's steps
//     are fewer, and an eliminated intermediate gets no memory.
//
// The runtime (prepared_graph.cpp) prepares a fused step like any node, with
// the epilogue on its NodeDesc, and for a FLOAT_16 or 8-bit output the
// tensors where the nodes round (ops::Epilogue::producer_output,
// sum_output). The type adapter (ops/type_adapter.h), which runs FLOAT_16
// and 8-bit nodes no native path takes, applies the epilogue to its float
// twin's output and rounds at each of those places with the conversions
// the nodes' own adapters use: bit for bit the nodes, for any encodings and
// bounds (8-bit TransposeConv2d, FLOAT_16 FullyConnected, MatMul,
// TransposeConv2d). When fast paths are linked, none takes the fused node,
// and the producer alone would get a better kernel than the fused step
// (the reference or the adapter against a native path: an fp16 conv with
// a residual, an 8-bit conv with one where oneDNN int8 declines), it
// prepares the nodes unfused instead; where the producer alone would get
// the same kernel (fp32 TransposeConv2d's output padding on the reference,
// 8-bit TransposeConv2d through the adapter), the step stays fused.
// OPENHTP_FUSION=off turns the pass off, for comparison.
//
// Channel scale (FLOAT_32), the one piece of work fused in FRONT of a
// producer: a squeeze-excite block's Multiply of a feature map by one factor
// per channel, whose product only a Conv2d reads,
//
//   x ──► Multiply(x, s[1,1,1,C]) ──m──► Conv2d(m, W, b) ──► ...
//
// runs as the Conv2d reading x with each input channel c of its weights
// multiplied by s[c] at every execute (sum_c W[o,c] * (x[c] * s[c]) is
// sum_c (W[o,c] * s[c]) * x[c]): the product m, as large as x, is never
// written or read. The sums round differently (each product once, where the
// nodes round x * s first), so the step is within float rounding of the
// nodes, not bit-exact with them; the test beside it bounds the difference.
// Rules:
//   - m is NATIVE and read by exactly one input: the Conv2d's input 0;
//   - x is a rank-4 FLOAT_32 [N, H, W, C] tensor and s FLOAT_32 of dims
//     [1, 1, 1, C] (either operand order); m has x's dims;
//   - rescaling the weights costs less than the pass it saves: the Conv2d's
//     output channels times 4 are at most H * W (EfficientNet-B0's first
//     three stages; from 14x14 on, the weights outweigh the feature map);
//   - the Multiply is in no other fusion.
// The step runs at the Conv2d's place (x and s exist there: the Multiply,
// which read them, came earlier). Only a fast path that rescales packed
// weights (FastPath::takes_input_scale) takes it; otherwise the Multiply
// runs as its own step right before the Conv2d, and the Conv2d keeps any
// epilogue it fused.
//
// Channel mean (FLOAT_32), a second output: the squeeze-excite block's
// global average pool of a fused SiLU's output,
//
//   producer ─► SiLU [─► clamp] ──y──► ReduceMean(y, axes {1, 2}) ──► g [1,1,1,C]
//                                 └──► (y's other readers)
//
// is summed while the SiLU pass (kernels/silu.h, openhtp's own, after the
// primitive) has each value in a register, so y is not read again; y is
// still written for its other readers. Rules:
//   - the fusion has the SiLU (its pass is where the sums are taken) and y
//     is [1, H, W, C] FLOAT_32;
//   - the ReduceMean reads y alone, over exactly axes 1 and 2, with no
//     parameter but keep_dims; its output is C FLOAT_32 values;
//   - it is in no other fusion.
// The mean is written at the producer's place, before the ReduceMean's own
// (nothing can read it earlier). The sums are float, in pixel order, as the
// ReduceMean kernel's own. Only a fast path that runs the SiLU as that pass
// (FastPath::takes_channel_mean: the oneDNN convolutions, which take the
// pass for such a node on any number of threads) takes it; otherwise the
// ReduceMean runs at its own place.
//
// Both move work in node order (x is read later than the Multiply read it,
// the mean written earlier than the ReduceMean wrote it), so a context
// binary's stored plan made without them may not fit;
// PreparedGraph::create then prepares the graph without them.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "htp/graph_spec.h"

namespace openhtp::htp {

struct Fusion {
  int producer = -1;       // node index (spec.nodes)
  int add = -1;            // the fused ElementWiseAdd node, or -1
  int sigmoid = -1;        // SiLU (FLOAT_32): the fused Sigmoid and Multiply nodes, or -1
  int multiply = -1;
  int clamp = -1;          // the fused clamp node, or -1
  uint32_t residual = kNoTensor;  // the Add's other operand (tensor id)
  float lo = 0.0f, hi = 0.0f;     // the clamp's bounds (real values), when clamp >= 0
  std::vector<uint32_t> eliminated;  // intermediates no longer written (tensor ids)
  // Channel scale (above): the Multiply before the producer, or -1; x, read
  // in place of the product, and s. The product is eliminated's first entry.
  int scale = -1;
  uint32_t scaled = kNoTensor, channel_scale = kNoTensor;
  // Channel mean (above): the ReduceMean whose output the step also writes, or -1.
  int mean = -1;
  bool has_epilogue() const { return add >= 0 || multiply >= 0 || clamp >= 0; }
  // Every node of the fusion in the order the step runs their work, -1 for
  // the parts it does not have.
  std::array<int, 7> nodes() const { return {scale, producer, add, sigmoid, multiply, clamp, mean}; }
  // The last fused node: the step writes its output.
  int last() const { return clamp >= 0 ? clamp : (multiply >= 0 ? multiply : (add >= 0 ? add : producer)); }
  // The same fusion without its channel scale, or mean (what runs when no
  // kernel takes them).
  Fusion without_scale() const;
  Fusion without_mean() const {
    Fusion f = *this;
    f.mean = -1;
    return f;
  }
};

// Every legal fusion of `spec`, in producer order; a node is in at most one.
std::vector<Fusion> find_fusions(const GraphSpec& spec);

// Pointwise chains (8-bit): nodes each of whose inputs is one 8-bit
// per-tensor tensor x, the output of an earlier node of the chain or a
// one-element static tensor, all of x's shape, every op element-wise (the output element depends only on the
// same element of each input):
//
//   x ──► Sigmoid ──s──► Multiply(x, s) ──► y          (SiLU / Swish)
//
// Whatever the chain computes, y's code depends on x's code alone, so the
// chain is ONE 256-entry table, made at prepare by running the nodes'
// reference kernels on the 256 codes (kernels/lookup_table.h): the fused
// step equals the unfused nodes bit for bit. Rules:
//   - Two nodes or more (one is already a table).
//   - Every intermediate (each output but y) is NATIVE and read only by
//     nodes of the chain; y is the last node's output.
//   - No node is in another fusion.
// The step runs at the first node's place (it reads x only, which exists
// there). It is a fast path: with reference kernels only, or when the table
// cannot be made, the nodes run unfused.
//
// Producer table: when x is the output of a Conv2d or DepthWiseConv2d
//
//   conv ──x──► [chain: Sigmoid, Multiply(x, s)] ──► y
//
// the table goes into the convolution's own step, which writes y: its kernel
// quantizes into x's encoding as before and maps every code through the
// table right after (NodeDesc::output_table; the oneDNN int8 convolutions do
// it per slab of rows, on the thread that wrote them, while they are in its
// cache). The codes the table reads are the ones the chain would have read,
// so the step is still bit-exact with the nodes; x is never written and the
// chain has no step of its own. Here one node is a chain too (a Sigmoid
// alone). Rules, besides the chain's:
//   - the convolution is in no fusion (an 8-bit clamp it fused would be
//     applied before the table: not what the nodes compute), x is its only
//     output, NATIVE, and every node that reads x is in the chain;
//   - y is 8-bit (the table maps codes to codes).
// Only a fast path that applies the table (FastPath::takes_output_table)
// takes the step; otherwise the convolution and the chain run as steps of
// their own (a one-node chain as the node). The step writes y at the
// convolution's place, earlier than the chain did, so a context binary's
// stored plan made without it may not fit: as with the channel mean,
// PreparedGraph::create then prepares the graph without it.
struct PointwiseChain {
  uint32_t input = kNoTensor;        // x
  std::vector<int> nodes;            // node indices, in order; the last writes the output
  std::vector<uint32_t> eliminated;  // intermediates no longer written (tensor ids)
  int producer = -1;                 // producer table: the convolution that writes y, or -1
};

// Every pointwise chain of `spec` among the nodes no fusion in `fusions` holds.
std::vector<PointwiseChain> find_pointwise_chains(const GraphSpec& spec, const std::vector<Fusion>& fusions);
std::string chain_name(const GraphSpec& spec, const PointwiseChain& c);
std::string chain_type(const GraphSpec& spec, const PointwiseChain& c);
// A producer table's step (c.producer >= 0): "conv_5+sig_5+mul_5", "Conv2d+Sigmoid+ElementWiseMultiply".
std::string producer_table_name(const GraphSpec& spec, const PointwiseChain& c);
std::string producer_table_type(const GraphSpec& spec, const PointwiseChain& c);

// Add -> LayerNorm (8-bit): an ElementWiseAdd whose sum only a LayerNorm
// reads, the residual sum of a post-norm transformer layer:
//
//   a ──┐
//       ├─► ElementWiseAdd ──s──► LayerNorm(s, gamma, beta) ──► y
//   b ──┘
//
// runs as ONE step that normalizes a + b as the Add computed it (each input
// dequantized, the float sum) and quantizes once, into y's encoding. The
// nodes unfused round twice: s to its 8-bit encoding, then y. That first
// rounding is the one that matters in a transformer: s's step (range ±4.7 in
// the encoder of docs/onnx-import.md, 0.037) goes through the normalization
// at unit scale, once per LayerNorm, and the roundings of the residual
// stream add up layer after layer. So, like clamp rule b above, the fused
// step is not bit-exact with the nodes; it is closer to the real value (no
// rounding of s at all), and the test beside it checks exactly that
// against a double-precision computation of the same formula. Rules:
//   - a, b and s are 8-bit per-tensor tensors of one shape (no broadcast);
//     s is NATIVE and read by exactly one input of one node, the
//     LayerNorm's in[0], which comes after the Add;
//   - the LayerNorm's gamma and beta are static or absent (the step runs at
//     the Add's place);
//   - neither node is in another fusion or chain.
// The step is a fast path's (the 8-bit LayerNorm kernel's); with reference
// kernels only, or when that kernel declines, the nodes run unfused.
struct AddLayerNorm {
  int add = -1;               // node indices
  int norm = -1;
  uint32_t sum = kNoTensor;   // s, no longer written
};

// Every Add -> LayerNorm pair of `spec` among the nodes no fusion or chain holds.
std::vector<AddLayerNorm> find_add_layer_norms(const GraphSpec& spec, const std::vector<Fusion>& fusions,
                                               const std::vector<PointwiseChain>& chains);

// The fused step's name in profiles: the node names joined by '+', in the
// order they ran ("conv_3+relu_3", "se_mul+conv_4"), and its type likewise
// ("Conv2d+Relu").
std::string fused_name(const GraphSpec& spec, const Fusion& f);
std::string fused_type(const GraphSpec& spec, const Fusion& f);
std::string add_layer_norm_name(const GraphSpec& spec, const AddLayerNorm& f);  // "add_3+ln_3"
std::string add_layer_norm_type(const GraphSpec& spec, const AddLayerNorm& f);  // "ElementWiseAdd+LayerNorm"

// False when OPENHTP_FUSION=off (read once per process).
bool fusion_enabled_by_env();

}  // namespace openhtp::htp
