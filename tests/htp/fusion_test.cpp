// Fusion at prepare (htp/fusion.h): the pass finds exactly the legal
// producer -> epilogue chains, and a prepared graph with fusion computes what
// the same graph computes with it off (PlanOptions::fusion = false, i.e.
// OPENHTP_FUSION=off), with the same tensors and outputs, fewer steps, the
// fused step named after every node in it, and no memory for the
// intermediates it removed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "htp/fusion.h"
#include "htp/prepared_graph.h"
#include "kernels/fast_paths.h"
#include "kernels/onednn_runtime.h"
#include "ops/quant.h"

using namespace openhtp;
namespace tt = htp::tensor_type;

namespace {

constexpr uint32_t kF32 = ops::dtype::kFloat32, kU8 = ops::dtype::kUfixed8, kS8 = ops::dtype::kSfixed8,
                   kS32 = ops::dtype::kSfixed32;
const std::vector<uint32_t> kAct = {1, 6, 6, 4};  // NHWC, kept by every conv below (3x3, pad 1)

ops::Param u32_tensor(const char* name, std::vector<uint32_t> dims, std::vector<uint32_t> v) {
  ops::Param p;
  p.name = name;
  p.is_tensor = true;
  p.dtype = ops::dtype::kUint32;
  p.dims = std::move(dims);
  p.data.resize(v.size() * 4);
  std::memcpy(p.data.data(), v.data(), p.data.size());
  return p;
}
ops::Param scalar(const char* name, uint32_t dt, double v) {
  ops::Param p;
  p.name = name;
  p.dtype = dt;
  p.i = static_cast<int64_t>(v);
  p.f = v;
  return p;
}
std::vector<ops::Param> conv_params() {
  return {u32_tensor("stride", {2}, {1, 1}), u32_tensor("pad_amount", {2, 2}, {1, 1, 1, 1})};
}

// A graph under construction: tensors by id, nodes in order.
struct Builder {
  htp::GraphSpec g;
  std::mt19937 rng{7};
  uint32_t next = 1;
  ops::Quant act_q;  // 8-bit graphs: every activation's encoding
  uint32_t act_dt = kF32;

  uint32_t tensor(uint32_t type, std::vector<uint32_t> dims = kAct, uint32_t dt = 0) {
    htp::TensorSpec t;
    t.id = next++;
    t.name = "t" + std::to_string(t.id);
    t.type = type;
    t.dtype = dt ? dt : act_dt;
    t.dims = std::move(dims);
    if (t.dtype != kF32) t.quant = act_q;
    g.tensors.push_back(std::move(t));
    return g.tensors.back().id;
  }
  // Static conv weights [3,3,4,4] and bias [4]: random floats, or 8-bit
  // symmetric int8 weights with an int32 bias.
  std::vector<uint32_t> conv_weights() {
    const uint32_t w = tensor(tt::kStatic, {3, 3, 4, 4}, act_dt == kF32 ? kF32 : kS8);
    const uint32_t b = tensor(tt::kStatic, {4}, act_dt == kF32 ? kF32 : kS32);
    htp::TensorSpec& ws = g.tensors[w - 1];
    htp::TensorSpec& bs = g.tensors[b - 1];
    if (act_dt == kF32) {
      std::uniform_real_distribution<float> d(-0.5f, 0.5f);
      std::vector<uint8_t> wv(ws.num_bytes()), bv(bs.num_bytes());
      for (size_t i = 0; i < wv.size(); i += 4) {
        const float v = d(rng);
        std::memcpy(&wv[i], &v, 4);
      }
      for (size_t i = 0; i < bv.size(); i += 4) {
        const float v = d(rng);
        std::memcpy(&bv[i], &v, 4);
      }
      ws.static_data = std::move(wv);
      bs.static_data = std::move(bv);
    } else {
      ws.quant = ops::Quant::per_tensor(0.01f, 0);
      std::vector<uint8_t> wv(ws.num_bytes());
      for (auto& x : wv) x = static_cast<uint8_t>(int(rng() % 255) - 127);
      ws.static_data = std::move(wv);
      bs.quant = ops::Quant::per_tensor(0.0f, 0);  // in_scale * w_scale
      bs.static_data = std::vector<uint8_t>(bs.num_bytes(), 0);
    }
    return {w, b};
  }
  uint32_t conv(const char* name, uint32_t in, uint32_t out_type = tt::kNative) {
    const auto wb = conv_weights();
    const uint32_t out = tensor(out_type);
    g.nodes.push_back({name, "", "Conv2d", conv_params(), {in, wb[0], wb[1]}, {out}});
    return out;
  }
  // A 1x1 convolution, 4 -> 4 channels.
  uint32_t pointwise(const char* name, uint32_t in) {
    auto wb = conv_weights();  // [3,3,4,4]: its first [1,1,4,4] block serves
    htp::TensorSpec& w = g.tensors[wb[0] - 1];
    w.dims = {1, 1, 4, 4};
    w.static_data = std::vector<uint8_t>(w.static_data.data(), w.static_data.data() + w.num_bytes());
    const uint32_t out = tensor(tt::kNative);
    g.nodes.push_back({name, "", "Conv2d", {u32_tensor("stride", {2}, {1, 1}), u32_tensor("pad_amount", {2, 2}, {0, 0, 0, 0})},
                       {in, wb[0], wb[1]}, {out}});
    return out;
  }
  uint32_t node(const char* name, const char* type, std::vector<uint32_t> ins, uint32_t out_type = tt::kNative,
                std::vector<ops::Param> params = {}) {
    const uint32_t out = tensor(out_type);
    g.nodes.push_back({name, "", type, std::move(params), std::move(ins), {out}});
    return out;
  }
};

TEST(FusionPass, ConvRelu) {
  Builder b;
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t c = b.conv("conv", x);
  b.node("relu", "Relu", {c}, tt::kAppRead);
  const auto f = htp::find_fusions(b.g);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].producer, 0);
  EXPECT_EQ(f[0].clamp, 1);
  EXPECT_EQ(f[0].add, -1);
  EXPECT_EQ(f[0].eliminated, std::vector<uint32_t>{c});
  EXPECT_EQ(f[0].lo, 0.0f);
  EXPECT_TRUE(std::isinf(f[0].hi));
  EXPECT_EQ(htp::fused_name(b.g, f[0]), "conv+relu");
  EXPECT_EQ(htp::fused_type(b.g, f[0]), "Conv2d+Relu");
}

TEST(FusionPass, NotWhenTheIntermediateIsAGraphOutput) {
  Builder b;
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t c = b.conv("conv", x, tt::kAppRead);
  b.node("relu", "Relu", {c}, tt::kAppRead);
  EXPECT_TRUE(htp::find_fusions(b.g).empty());
}

TEST(FusionPass, NotWhenTheIntermediateIsReadTwice) {
  Builder b;
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t c = b.conv("conv", x);
  b.node("relu", "Relu", {c}, tt::kAppRead);
  b.node("sig", "Sigmoid", {c}, tt::kAppRead);
  EXPECT_TRUE(htp::find_fusions(b.g).empty());
  Builder b2;  // read twice by the same node
  const uint32_t x2 = b2.tensor(tt::kAppWrite);
  const uint32_t c2 = b2.conv("conv", x2);
  b2.node("add", "ElementWiseAdd", {c2, c2}, tt::kAppRead);
  EXPECT_TRUE(htp::find_fusions(b2.g).empty());
}

TEST(FusionPass, NotAcrossTypeOrEncodingChanges) {
  {  // fp32 conv -> Relu with an fp16 output (not a valid node either: never fused)
    Builder b;
    const uint32_t x = b.tensor(tt::kAppWrite);
    const uint32_t c = b.conv("conv", x);
    const uint32_t y = b.tensor(tt::kAppRead, kAct, ops::dtype::kFloat16);
    b.g.nodes.push_back({"relu", "", "Relu", {}, {c}, {y}});
    EXPECT_TRUE(htp::find_fusions(b.g).empty());
  }
  {  // 8-bit: a Relu that requantizes into an encoding holding negative values
    Builder b;
    b.act_dt = kU8;
    b.act_q = ops::Quant::per_tensor(0.05f, -100);
    const uint32_t x = b.tensor(tt::kAppWrite);
    const uint32_t c = b.conv("conv", x);
    const uint32_t y = b.node("relu", "Relu", {c}, tt::kAppRead);
    b.g.tensors[y - 1].quant = ops::Quant::per_tensor(0.03f, -10);
    EXPECT_TRUE(htp::find_fusions(b.g).empty());
    b.g.tensors[y - 1].quant = b.act_q;  // same encoding, bound on a code: fused (rule a)
    EXPECT_EQ(htp::find_fusions(b.g).size(), 1u);
    // Output range [0, 7.65], within the conv's [-5, 7.75] (rule b): fused.
    b.g.tensors[y - 1].quant = ops::Quant::per_tensor(0.03f, 0);
    EXPECT_EQ(htp::find_fusions(b.g).size(), 1u);
    b.g.nodes[1].type = "Relu6";  // range [0, 7.65] exceeds 6, and the encodings differ: not fused
    EXPECT_TRUE(htp::find_fusions(b.g).empty());
    b.g.tensors[y - 1].quant = ops::Quant::per_tensor(6.0f / 255, 0);  // range [0, 6]: fused
    EXPECT_EQ(htp::find_fusions(b.g).size(), 1u);
    b.g.tensors[c - 1].quant = ops::Quant::per_tensor(0.02f, -100);  // conv saturates at 3.1: not fused
    EXPECT_TRUE(htp::find_fusions(b.g).empty());
  }
  {  // 8-bit: a bound between two codes is not fused, one on a code is
    Builder b;
    b.act_dt = kU8;
    b.act_q = ops::Quant::per_tensor(0.05f, -100);
    const uint32_t x = b.tensor(tt::kAppWrite);
    const uint32_t c = b.conv("conv", x);
    b.node("clip", "ReluMinMax", {c}, tt::kAppRead,
           {scalar("min_value", kF32, 0.0), scalar("max_value", kF32, 6.025)});
    EXPECT_TRUE(htp::find_fusions(b.g).empty());
    b.g.nodes[1].params[1].f = 6.0;  // code 220: on the grid
    EXPECT_EQ(htp::find_fusions(b.g).size(), 1u);
  }
  {  // 8-bit residual adds: after a convolution, per-tensor encodings only
    Builder b;
    b.act_dt = kU8;
    b.act_q = ops::Quant::per_tensor(0.05f, -100);
    const uint32_t x = b.tensor(tt::kAppWrite);
    const uint32_t c = b.conv("conv", x);
    b.node("add", "ElementWiseAdd", {c, x}, tt::kAppRead);
    const auto f = htp::find_fusions(b.g);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(htp::fused_name(b.g, f[0]), "conv+add");
    EXPECT_EQ(f[0].residual, x);
    ops::Quant& q = b.g.tensors[x - 1].quant;
    q.axis = 3;
    q.scales.assign(4, 0.05f);
    q.offsets.assign(4, -100);
    EXPECT_TRUE(htp::find_fusions(b.g).empty());
  }
  {  // after a FullyConnected, unless a LayerNorm alone reads the sum (a
     // post-norm transformer's residual: the Add -> LayerNorm step takes it)
    Builder b;
    b.act_dt = kU8;
    b.act_q = ops::Quant::per_tensor(0.05f, -100);
    const uint32_t x = b.tensor(tt::kAppWrite, {1, 4});
    const uint32_t w = b.tensor(tt::kStatic, {4, 4}, kS8);
    b.g.tensors[w - 1].static_data = std::vector<uint8_t>(16, 1);
    const uint32_t fc = b.node("fc", "FullyConnected", {x, w});
    b.g.tensors[fc - 1].dims = {1, 4};
    const uint32_t s = b.node("add", "ElementWiseAdd", {fc, x}, tt::kAppRead);
    b.g.tensors[s - 1].dims = {1, 4};
    auto f = htp::find_fusions(b.g);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(htp::fused_name(b.g, f[0]), "fc+add");
    b.g.tensors[s - 1].type = tt::kNative;
    const uint32_t y = b.node("ln", "LayerNorm", {s}, tt::kAppRead);
    b.g.tensors[y - 1].dims = {1, 4};
    f = htp::find_fusions(b.g);
    EXPECT_TRUE(f.empty());
    const auto pairs = htp::find_add_layer_norms(b.g, f, {});
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(htp::add_layer_norm_name(b.g, pairs[0]), "add+ln");
  }
}

TEST(FusionPass, ResidualAddThenClampAndOnlyWhenTheOtherOperandExists) {
  Builder b;
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t c1 = b.conv("conv1", x);
  const uint32_t r1 = b.node("relu1", "Relu", {c1});
  const uint32_t c2 = b.conv("conv2", r1);
  const uint32_t s = b.node("add", "ElementWiseAdd", {x, c2});
  b.node("relu2", "ElementWiseNeuron", {s}, tt::kAppRead, {scalar("operation", ops::dtype::kUint32, 4)});
  auto f = htp::find_fusions(b.g);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(htp::fused_name(b.g, f[0]), "conv1+relu1");
  EXPECT_EQ(htp::fused_name(b.g, f[1]), "conv2+add+relu2");
  EXPECT_EQ(f[1].residual, x);
  EXPECT_EQ(f[1].eliminated, (std::vector<uint32_t>{c2, s}));

  // add(conv_a, conv_b): only the later conv can take the add (the other
  // operand must exist when the fused step runs).
  Builder b2;
  const uint32_t x2 = b2.tensor(tt::kAppWrite);
  const uint32_t a = b2.conv("conv_a", x2);
  const uint32_t bb = b2.conv("conv_b", x2);
  b2.node("add", "ElementWiseAdd", {a, bb}, tt::kAppRead);
  f = htp::find_fusions(b2.g);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].producer, 1);
  EXPECT_EQ(f[0].residual, a);

  // A non-clamp activation (Sigmoid, ElementWiseNeuron SIGMOID) is not fused.
  Builder b3;
  const uint32_t x3 = b3.tensor(tt::kAppWrite);
  const uint32_t c3 = b3.conv("conv", x3);
  b3.node("sig", "ElementWiseNeuron", {c3}, tt::kAppRead, {scalar("operation", ops::dtype::kUint32, 6)});
  EXPECT_TRUE(htp::find_fusions(b3.g).empty());
}

// 8-bit SiLU after a conv: x -> conv -> c; sig(c) -> s; mul(c, s) -> y.
Builder silu_block(uint32_t act_dt, uint32_t* c_out, uint32_t* s_out) {
  Builder b;
  b.act_dt = act_dt;
  b.act_q = ops::Quant::per_tensor(0.05f, -128);  // [-6.4, 6.35]
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t c = b.conv("conv", x);
  const uint32_t s = b.node("sig", "Sigmoid", {c});
  b.node("mul", "ElementWiseMultiply", {c, s}, tt::kAppRead);
  *c_out = c;
  *s_out = s;
  return b;
}

TEST(FusionPass, Uint8SiluIsAPointwiseChain) {
  uint32_t c, s;
  Builder b = silu_block(kU8, &c, &s);
  const auto fusions = htp::find_fusions(b.g);
  EXPECT_TRUE(fusions.empty()) << "the conv's output is read twice";
  auto chains = htp::find_pointwise_chains(b.g, fusions);
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].input, c);
  EXPECT_EQ(chains[0].nodes, (std::vector<int>{1, 2}));
  EXPECT_EQ(chains[0].eliminated, (std::vector<uint32_t>{s}));
  EXPECT_EQ(htp::chain_name(b.g, chains[0]), "sig+mul");
  EXPECT_EQ(htp::chain_type(b.g, chains[0]), "Sigmoid+ElementWiseMultiply");

  // The sigmoid's output is also a graph output: it must be written.
  Builder b2 = silu_block(kU8, &c, &s);
  b2.g.tensors[s - 1].type = tt::kAppRead;
  EXPECT_TRUE(htp::find_pointwise_chains(b2.g, htp::find_fusions(b2.g)).empty());
  // ... or read by a node outside the chain.
  Builder b3 = silu_block(kU8, &c, &s);
  b3.conv("conv2", s);
  EXPECT_TRUE(htp::find_pointwise_chains(b3.g, htp::find_fusions(b3.g)).empty());
  // Float tensors have more than 256 values: no table.
  Builder b4 = silu_block(kF32, &c, &s);
  EXPECT_TRUE(htp::find_pointwise_chains(b4.g, htp::find_fusions(b4.g)).empty());
  // A per-channel input encoding is no 256-entry function of the code.
  Builder b5 = silu_block(kU8, &c, &s);
  ops::Quant pc;
  pc.present = true;
  pc.axis = 3;
  pc.scales = {0.05f, 0.04f, 0.03f, 0.02f};
  pc.offsets = {-128, -128, -128, -128};
  b5.g.tensors[c - 1].quant = pc;
  EXPECT_TRUE(htp::find_pointwise_chains(b5.g, htp::find_fusions(b5.g)).empty());
  // A second operand that is neither the chain's nor a one-element static.
  Builder b6;
  b6.act_dt = kU8;
  b6.act_q = ops::Quant::per_tensor(0.05f, -128);
  const uint32_t x6 = b6.tensor(tt::kAppWrite), z6 = b6.tensor(tt::kAppWrite);
  const uint32_t s6 = b6.node("sig", "Sigmoid", {x6});
  b6.node("mul", "ElementWiseMultiply", {z6, s6}, tt::kAppRead);
  EXPECT_TRUE(htp::find_pointwise_chains(b6.g, {}).empty());
}

TEST(FusionPass, F32SiluFusesIntoTheProducer) {
  uint32_t c, s;
  Builder b = silu_block(kF32, &c, &s);
  auto f = htp::find_fusions(b.g);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].sigmoid, 1);
  EXPECT_EQ(f[0].multiply, 2);
  EXPECT_EQ(f[0].last(), 2);
  EXPECT_EQ(f[0].eliminated, (std::vector<uint32_t>{c, s}));
  EXPECT_EQ(htp::fused_name(b.g, f[0]), "conv+sig+mul");
  EXPECT_EQ(htp::fused_type(b.g, f[0]), "Conv2d+Sigmoid+ElementWiseMultiply");
  // Operands swapped: still x * sigmoid(x).
  std::swap(b.g.nodes[2].inputs[0], b.g.nodes[2].inputs[1]);
  EXPECT_EQ(htp::find_fusions(b.g).size(), 1u);

  // Not when the sigmoid's output is read elsewhere, when the product is of
  // something else, or when the conv's output has a third reader.
  Builder b2 = silu_block(kF32, &c, &s);
  b2.node("other", "Relu", {s}, tt::kAppRead);
  EXPECT_TRUE(htp::find_fusions(b2.g).empty());
  Builder b3 = silu_block(kF32, &c, &s);
  const uint32_t z = b3.tensor(tt::kAppWrite);
  b3.g.nodes[2].inputs = {z, s};
  EXPECT_TRUE(htp::find_fusions(b3.g).empty());
  Builder b4 = silu_block(kF32, &c, &s);
  b4.node("third", "Relu", {c}, tt::kAppRead);
  EXPECT_TRUE(htp::find_fusions(b4.g).empty());
}

// a, b -> ElementWiseAdd -> s -> LayerNorm(s, gamma, beta) -> y over the
// last axis: a post-norm transformer's residual sum, 8-bit, with encodings
// like a converter's (s's range holds the sum; y's the normalized values).
const std::vector<uint32_t> kRows = {1, 16, 64};
Builder add_norm_block(uint32_t* sum) {
  Builder b;
  b.act_dt = kU8;
  b.act_q = ops::Quant::per_tensor(0.02f, -128);  // a: [-2.56, 2.54]
  const uint32_t x0 = b.tensor(tt::kAppWrite, kRows), x1 = b.tensor(tt::kAppWrite, kRows);
  b.g.tensors[x1 - 1].quant = ops::Quant::per_tensor(0.012f, -100);  // b: [-1.2, 1.86]
  const uint32_t s = b.node("add", "ElementWiseAdd", {x0, x1});
  b.g.tensors[s - 1].dims = kRows;
  // A range wider than the sum needs, as calibrating on outliers gives: its
  // step (0.06) is what the unfused nodes round the sum to.
  b.g.tensors[s - 1].quant = ops::Quant::per_tensor(0.06f, -128);  // [-7.68, 7.62]
  std::vector<uint32_t> affine;
  for (int k = 0; k < 2; ++k) {
    const uint32_t t = b.tensor(tt::kStatic, {kRows.back()}, kF32);
    std::vector<uint8_t> v(kRows.back() * 4);
    for (size_t i = 0; i < v.size(); i += 4) {
      const float f = k == 0 ? 0.5f + 0.015f * float(i / 4) : 0.01f * float(i / 4) - 0.3f;
      std::memcpy(&v[i], &f, 4);
    }
    b.g.tensors[t - 1].static_data = std::move(v);
    affine.push_back(t);
  }
  const uint32_t y = b.node("ln", "LayerNorm", {s, affine[0], affine[1]}, tt::kAppRead,
                            {u32_tensor("axes", {1}, {2}), scalar("epsilon", kF32, 1e-5)});
  b.g.tensors[y - 1].dims = kRows;
  b.g.tensors[y - 1].quant = ops::Quant::per_tensor(0.025f, -128);  // [-3.2, 3.175]
  *sum = s;
  return b;
}

TEST(FusionPass, Uint8AddIntoTheLayerNormThatAloneReadsIt) {
  uint32_t s;
  Builder b = add_norm_block(&s);
  EXPECT_TRUE(htp::find_fusions(b.g).empty());
  auto found = htp::find_add_layer_norms(b.g, {}, {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].add, 0);
  EXPECT_EQ(found[0].norm, 1);
  EXPECT_EQ(found[0].sum, s);
  EXPECT_EQ(htp::add_layer_norm_name(b.g, found[0]), "add+ln");
  EXPECT_EQ(htp::add_layer_norm_type(b.g, found[0]), "ElementWiseAdd+LayerNorm");

  auto none = [](const Builder& v) { return htp::find_add_layer_norms(v.g, {}, {}).empty(); };
  // The sum is also a graph output: it must be written.
  Builder b2 = add_norm_block(&s);
  b2.g.tensors[s - 1].type = tt::kAppRead;
  EXPECT_TRUE(none(b2));
  // ... or read by another node too.
  Builder b3 = add_norm_block(&s);
  b3.node("other", "Relu", {s}, tt::kAppRead);
  EXPECT_TRUE(none(b3));
  // A float sum is not rounded to 8 bits: nothing to gain.
  Builder b4 = add_norm_block(&s);
  b4.g.tensors[s - 1].dtype = kF32;
  b4.g.tensors[s - 1].quant = {};
  EXPECT_TRUE(none(b4));
  // A broadcast operand.
  Builder b5 = add_norm_block(&s);
  b5.g.tensors[1].dims = {1, 1, 64};
  EXPECT_TRUE(none(b5));
  // A gamma some node computes (the step runs at the Add's place).
  Builder b6 = add_norm_block(&s);
  b6.g.tensors[b6.g.nodes[1].inputs[1] - 1].type = tt::kAppWrite;
  b6.g.tensors[b6.g.nodes[1].inputs[1] - 1].static_data = htp::StaticBytes();
  EXPECT_TRUE(none(b6));
  // A per-channel operand.
  Builder b7 = add_norm_block(&s);
  b7.g.tensors[0].quant.axis = 2;
  b7.g.tensors[0].quant.scales.assign(64, 0.02f);
  b7.g.tensors[0].quant.offsets.assign(64, -128);
  EXPECT_TRUE(none(b7));
  // The Add already in a pointwise chain.
  htp::PointwiseChain chain;
  chain.nodes = {0};
  EXPECT_TRUE(htp::find_add_layer_norms(b.g, {}, {chain}).empty());
}

// ---- end to end --------------------------------------------------------

struct GraphRun {
  std::vector<uint8_t> out;
  std::vector<htp::PreparedGraph::NodeProfile> profile;
  std::optional<htp::TensorPlacement> intermediate;
  size_t steps = 0;
  std::vector<std::vector<uint8_t>> inputs;  // what each graph input was bound to
};

// The graph prepared with fusion on or off, the fast paths or the
// reference kernels only, a stored plan or none.
std::unique_ptr<htp::PreparedGraph> prepared(const htp::GraphSpec& spec, bool fusion, size_t threads,
                                             bool fast = true, const htp::StoredPlan* stored = nullptr) {
  htp::PlanOptions opt;
  opt.fusion = fusion;
  if (fast) opt.fast_paths = kernels::fast_paths();
  opt.stored_placements = stored;
  htp::GraphSpec s = spec;
  s.num_hvx_threads = static_cast<uint32_t>(threads);
  htp::GraphError err;
  std::string msg;
  auto g = htp::PreparedGraph::create(std::move(s), opt, &err, &msg);
  EXPECT_TRUE(g) << msg;
  return g;
}

GraphRun run(const htp::GraphSpec& spec, bool fusion, bool fast, uint32_t intermediate, size_t threads = 1,
        const htp::StoredPlan* stored = nullptr) {
  auto g = prepared(spec, fusion, threads, fast, stored);
  std::string msg;
  GraphRun r;
  if (!g) return r;
  // Every input random, from one generator (the first input's values do not
  // depend on how many there are).
  std::mt19937 rng(3);
  std::vector<std::vector<uint8_t>> xs;
  std::vector<htp::TensorBinding> ins;
  for (uint32_t id : g->input_ids()) {
    const htp::TensorSpec* in = g->spec().find_tensor(id);
    std::vector<uint8_t>& x = xs.emplace_back(in->num_bytes());
    if (in->dtype == kF32) {
      std::uniform_real_distribution<float> d(-1.0f, 1.0f);
      for (size_t i = 0; i < x.size(); i += 4) {
        const float v = d(rng);
        std::memcpy(&x[i], &v, 4);
      }
    } else {
      for (auto& v : x) v = static_cast<uint8_t>(rng());
    }
  }
  for (size_t k = 0; k < xs.size(); ++k) ins.push_back({g->input_ids()[k], xs[k].data(), xs[k].size()});
  r.out.resize(g->spec().find_tensor(g->output_ids()[0])->num_bytes());
  const htp::TensorBinding outs[] = {{g->output_ids()[0], r.out.data(), r.out.size()}};
  g->set_node_profiling(true);
  EXPECT_EQ(g->execute(ins, outs, &msg), htp::GraphError::kNone) << msg;
  r.profile = g->node_profile();
  r.intermediate = g->placement(intermediate);
  r.steps = g->num_steps();
  r.inputs = std::move(xs);
  return r;
}

// in -> conv1 -> relu1 -> conv2 -> add(in) -> relu2 -> out
Builder residual_block(uint32_t* intermediate) {
  Builder b;
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t c1 = b.conv("conv1", x);
  const uint32_t r1 = b.node("relu1", "Relu", {c1});
  const uint32_t c2 = b.conv("conv2", r1);
  const uint32_t s = b.node("add", "ElementWiseAdd", {c2, x});
  b.node("relu2", "Relu", {s}, tt::kAppRead);
  *intermediate = c2;
  return b;
}

void expect_f32_near(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, float tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); i += 4) {
    float x, y;
    std::memcpy(&x, &a[i], 4);
    std::memcpy(&y, &b[i], 4);
    ASSERT_NEAR(x, y, tol) << "float " << i / 4;
  }
}

TEST(FusionGraph, F32OutputsEqualFusionOff) {
  uint32_t c2;
  const Builder b = residual_block(&c2);
  for (size_t threads : {1, 2}) {
    const GraphRun off = run(b.g, false, true, c2, threads);
    const GraphRun on = run(b.g, true, true, c2, threads);
    // |sum| <= 37 terms of |x| |w| <= 0.5: oneDNN's sum order against itself.
    expect_f32_near(on.out, off.out, 1e-5f);
    EXPECT_EQ(off.steps, 5u);
    EXPECT_EQ(on.steps, 2u);
    ASSERT_EQ(on.profile.size(), 2u);
    EXPECT_EQ(on.profile[0].name, "conv1+relu1");
    EXPECT_EQ(on.profile[1].name, "conv2+add+relu2");
    EXPECT_EQ(on.profile[1].type, "Conv2d+ElementWiseAdd+Relu");
    EXPECT_EQ(on.profile[1].impl, "onednn");
    EXPECT_EQ(on.profile[1].runs, 1u);
    EXPECT_TRUE(off.intermediate.has_value());
    EXPECT_FALSE(on.intermediate.has_value()) << "an eliminated intermediate is not planned";
  }
  // Reference kernels: fused and unfused are the same arithmetic, bit for bit.
  const GraphRun ref_off = run(b.g, false, false, c2), ref_on = run(b.g, true, false, c2);
  EXPECT_EQ(ref_on.out, ref_off.out);
  EXPECT_EQ(ref_on.profile[1].impl, "reference");
}

// The plan a context binary made without fusion (OPENHTP_FUSION=off) stores.
htp::StoredPlan plan_without_fusion(const htp::GraphSpec& spec) {
  htp::PlanOptions opt;
  opt.fusion = false;
  htp::GraphError err;
  std::string msg;
  auto unfused = htp::PreparedGraph::create(spec, opt, &err, &msg);
  EXPECT_TRUE(unfused) << msg;
  return unfused ? unfused->placements() : htp::StoredPlan{};
}

TEST(FusionGraph, APlanStoredWithoutFusionLoadsWithIt) {
  uint32_t c2;
  const Builder b = residual_block(&c2);
  const htp::StoredPlan stored = plan_without_fusion(b.g);
  ASSERT_TRUE(stored.count(c2));
  const GraphRun on = run(b.g, true, true, c2, 1, &stored);
  EXPECT_EQ(on.steps, 2u);
  const GraphRun off = run(b.g, false, true, c2, 1, &stored);
  expect_f32_near(on.out, off.out, 1e-5f);
}

TEST(FusionGraph, Uint8ReluIntoItsOwnOutputRangeWithin1Lsb) {
  // The converter's usual form: the Relu's output calibrated on [0, max],
  // the conv's on a wider range (rule b). Conv step 1.5x the Relu's: the
  // unfused double rounding is at most 1 code away.
  Builder b;
  b.act_dt = kU8;
  b.act_q = ops::Quant::per_tensor(0.03f, -85);  // [-2.55, 5.1]
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t c = b.conv("conv", x);
  const uint32_t y = b.node("relu", "Relu", {c}, tt::kAppRead);
  b.g.tensors[y - 1].quant = ops::Quant::per_tensor(0.02f, 0);  // [0, 5.1]
  ASSERT_EQ(htp::find_fusions(b.g).size(), 1u);
  b.g.tensors[c - 1].quant = ops::Quant::per_tensor(0.03f, -120);  // [-3.6, 4.05]: would clip what relu holds
  EXPECT_TRUE(htp::find_fusions(b.g).empty());
  b.g.tensors[c - 1].quant = ops::Quant::per_tensor(0.03f, -85);
  for (size_t threads : {1, 2}) {
    const GraphRun off = run(b.g, false, true, c, threads), on = run(b.g, true, true, c, threads);
    ASSERT_EQ(on.profile.size(), 1u);
    EXPECT_EQ(on.profile[0].name, "conv+relu");
    ASSERT_EQ(on.out.size(), off.out.size());
    int differ = 0;
    for (auto& p : off.profile) printf("OFF %s %s\n", p.name.c_str(), p.impl.c_str());
    for (size_t i = 0; i < on.out.size(); ++i) {
      if (on.out[i] != off.out[i]) printf("i %zu on %d off %d\n", i, on.out[i], off.out[i]);
      ASSERT_LE(std::abs(int(on.out[i]) - int(off.out[i])), 1) << i;
      differ += on.out[i] != off.out[i];
    }
    EXPECT_LT(differ, int(on.out.size()) / 4);
  }
}

// conv -> Add(block input) -> Relu in 8-bit, every tensor of the fused chain
// in an encoding of its own (the conv's output, the block input, the Add's
// output, the Relu's [0, max], which clamp rules a and b would refuse): the
// fused step rounds where the nodes round (ops::Epilogue), so its codes are
// the nodes' on the reference kernels but where float arithmetic falls on
// the other side of a tie, at 1 and 2 threads (the unfused fast graph's Add
// is XNNPACK's, within 1). Without oneDNN's exact int8 (no VNNI) no kernel
// takes the residual and the Add runs as its own step.
TEST(FusionGraph, Uint8ResidualAddRoundsWhereTheNodesRound) {
    Builder b;
  b.act_dt = kU8;
  b.act_q = ops::Quant::per_tensor(0.0203f, -128);
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t c = b.conv("conv", x);
  const uint32_t s = b.node("add", "ElementWiseAdd", {c, x});
  const uint32_t y = b.node("relu", "Relu", {s}, tt::kAppRead);
  // Scales with no simple ratio: with 0.015, 0.02 and 0.03 the sums land
  // on exact ties, which float rounding breaks one way in the nodes and
  // another in the fused step.
  b.g.tensors[c - 1].quant = ops::Quant::per_tensor(0.0153f, -140);
  b.g.tensors[s - 1].quant = ops::Quant::per_tensor(0.0291f, -130);
  b.g.tensors[y - 1].quant = ops::Quant::per_tensor(0.0297f, 0);
  const auto f = htp::find_fusions(b.g);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(htp::fused_name(b.g, f[0]), "conv+add+relu");
  const bool vnni = kernels::onednn::int8_convolution_exact();
  const GraphRun nodes = run(b.g, false, false, c);
  for (size_t threads : {1, 2}) {
    const GraphRun off = run(b.g, false, true, c, threads), on = run(b.g, true, true, c, threads);
    ASSERT_EQ(on.out.size(), off.out.size());
    ASSERT_FALSE(on.profile.empty());
    if (vnni) {
      ASSERT_EQ(on.profile.size(), 1u);
      EXPECT_EQ(on.profile[0].name, "conv+add+relu");
      EXPECT_EQ(on.profile[0].impl, "onednn-int8");
      EXPECT_FALSE(on.intermediate.has_value()) << "the conv's output is never written";
    } else {
      EXPECT_EQ(on.profile.back().name, "relu") << "the Add and what follows it run unfused";
    }
    // The nodes on the reference kernels: the arithmetic the fused step
    // follows (the unfused fast graph's Add is XNNPACK's, its own rounding).
    int differ = 0;
    for (size_t i = 0; i < on.out.size(); ++i) {
      ASSERT_LE(std::abs(int(on.out[i]) - int(off.out[i])), 1) << i;
      ASSERT_LE(std::abs(int(on.out[i]) - int(nodes.out[i])), 1) << i;
      differ += on.out[i] != nodes.out[i];
    }
    EXPECT_LE(differ, int(on.out.size()) / 100);
    // Not a trivial output: the Relu leaves codes on both sides of its bound.
    EXPECT_GT(std::count(on.out.begin(), on.out.end(), 0), 0);
    EXPECT_GT(std::count_if(on.out.begin(), on.out.end(), [](uint8_t v) { return v > 1; }), 0);
  }
}

// FLOAT_16: conv -> Relu6 is one XNNPACK step (output min/max), bit for bit
// the nodes' output. An fp16 residual Add fuses in the graph, but XNNPACK
// declines it and only the type adapter would take the step: the conv keeps
// XNNPACK and the Add runs as a node of its own.
TEST(FusionGraph, F16ClampFusesIntoTheConvBitExact) {
  Builder b;
  b.act_dt = ops::dtype::kFloat16;
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t w = b.tensor(tt::kStatic, {3, 3, 4, 4}), bias = b.tensor(tt::kStatic, {4});
  for (uint32_t id : {w, bias}) {
    std::uniform_real_distribution<float> d(-0.5f, 0.5f);
    std::vector<uint8_t> v(b.g.tensors[id - 1].num_bytes());
    for (size_t i = 0; i < v.size(); i += 2) {
      const uint16_t h = ops::quant::float_to_half(d(b.rng));
      std::memcpy(&v[i], &h, 2);
    }
    b.g.tensors[id - 1].static_data = std::move(v);
  }
  const uint32_t c = b.tensor(tt::kNative);
  b.g.nodes.push_back({"conv", "", "Conv2d", conv_params(), {x, w, bias}, {c}});
  b.node("relu6", "Relu6", {c}, tt::kAppRead);
  for (size_t threads : {1, 2}) {
    const GraphRun off = run(b.g, false, true, c, threads), on = run(b.g, true, true, c, threads);
    ASSERT_EQ(on.profile.size(), 1u);
    EXPECT_EQ(on.profile[0].name, "conv+relu6");
    EXPECT_EQ(on.profile[0].impl, "xnnpack");
    EXPECT_EQ(off.profile.size(), 2u);
    EXPECT_EQ(on.out, off.out);
  }
  Builder b2 = b;  // the Relu6 and its output gone, an Add in their place
  b2.g.nodes.pop_back();
  b2.g.tensors.pop_back();
  --b2.next;
  b2.node("add", "ElementWiseAdd", {c, x}, tt::kAppRead);
  EXPECT_EQ(htp::find_fusions(b2.g).size(), 1u);
  const GraphRun off = run(b2.g, false, true, c), on = run(b2.g, true, true, c);
  ASSERT_EQ(on.profile.size(), 2u);
  EXPECT_EQ(on.profile[0].impl, "xnnpack");
  EXPECT_EQ(on.out, off.out);
}

// Producers that run through the type adapter (FLOAT_16 FullyConnected,
// 8-bit TransposeConv2d: no native path takes those types) fuse there: the
// adapter applies the epilogue to the float twin's output, rounding where
// the nodes round, so the step writes the nodes' values.
TEST(FusionGraph, TypeAdaptedProducersFuseAndRoundAsTheNodes) {
  {  // FLOAT_16 FullyConnected -> Relu: the same oneDNN twin both ways, bit for bit.
    Builder b;
    b.act_dt = ops::dtype::kFloat16;
    const uint32_t x = b.tensor(tt::kAppWrite, {6, 16});
    const uint32_t w = b.tensor(tt::kStatic, {8, 16});
    std::vector<uint8_t> wv(b.g.tensors[w - 1].num_bytes());
    std::uniform_real_distribution<float> d(-0.5f, 0.5f);
    for (size_t i = 0; i < wv.size(); i += 2) {
      const uint16_t h = ops::quant::float_to_half(d(b.rng));
      std::memcpy(&wv[i], &h, 2);
    }
    b.g.tensors[w - 1].static_data = std::move(wv);
    const uint32_t t = b.tensor(tt::kNative, {6, 8});
    b.g.nodes.push_back({"fc", "", "FullyConnected", {}, {x, w}, {t}});
    const uint32_t y = b.node("relu", "Relu", {t}, tt::kAppRead);
    b.g.tensors[y - 1].dims = {6, 8};
    for (size_t threads : {1, 2}) {
      const GraphRun off = run(b.g, false, true, t, threads), on = run(b.g, true, true, t, threads);
      ASSERT_EQ(on.profile.size(), 1u);
      EXPECT_EQ(on.profile[0].name, "fc+relu");
      EXPECT_NE(on.profile[0].impl.find("via type adapter"), std::string::npos) << on.profile[0].impl;
      EXPECT_FALSE(on.intermediate.has_value());
      EXPECT_EQ(off.profile.size(), 2u);
      EXPECT_EQ(on.out, off.out);
    }
  }
  {  // uint8 TransposeConv2d -> Add -> Relu.
    Builder b;
    b.act_dt = kU8;
    b.act_q = ops::Quant::per_tensor(0.02f, -120);
    const uint32_t x = b.tensor(tt::kAppWrite, {1, 4, 4, 4});
    const auto wb = b.conv_weights();  // [3,3,4,4]: [kh, kw, Cin, Cout]
    const uint32_t t = b.tensor(tt::kNative, {1, 9, 9, 4});
    b.g.tensors[t - 1].quant = ops::Quant::per_tensor(0.03f, -100);
    b.g.nodes.push_back({"tconv", "", "TransposeConv2d",
                         {u32_tensor("stride", {2}, {2, 2}), u32_tensor("pad_amount", {2, 2}, {0, 0, 0, 0})},
                         {x, wb[0], wb[1]}, {t}});
    const uint32_t r = b.tensor(tt::kAppWrite, {1, 9, 9, 4});
    const uint32_t s = b.node("add", "ElementWiseAdd", {t, r});
    b.g.tensors[s - 1].dims = {1, 9, 9, 4};
    b.g.tensors[s - 1].quant = ops::Quant::per_tensor(0.05f, -110);
    const uint32_t y = b.node("relu", "Relu", {s}, tt::kAppRead);
    b.g.tensors[y - 1].dims = {1, 9, 9, 4};
    b.g.tensors[y - 1].quant = ops::Quant::per_tensor(0.04f, 0);  // a Relu rules a/b would refuse alone
    for (size_t threads : {1, 2}) {
      const GraphRun off = run(b.g, false, true, t, threads), on = run(b.g, true, true, t, threads);
      ASSERT_EQ(on.profile.size(), 1u);
      EXPECT_EQ(on.profile[0].name, "tconv+add+relu");
      EXPECT_NE(on.profile[0].impl.find("via type adapter"), std::string::npos) << on.profile[0].impl;
      EXPECT_EQ(off.profile.size(), 3u);
      // Unfused, the Add is XNNPACK's (within a code of the reference).
      ASSERT_EQ(on.out.size(), off.out.size());
      for (size_t i = 0; i < on.out.size(); ++i) ASSERT_LE(std::abs(int(on.out[i]) - int(off.out[i])), 1) << i;
      EXPECT_GT(std::count(on.out.begin(), on.out.end(), 0), 0);
      EXPECT_GT(std::count_if(on.out.begin(), on.out.end(), [](uint8_t v) { return v > 1; }), 0);
    }
    // Reference kernels only: the same nodes, fused or not, bit for bit.
    const GraphRun ref_on = run(b.g, true, false, t), ref_off = run(b.g, false, false, t);
    EXPECT_EQ(ref_on.steps, 1u);
    EXPECT_EQ(ref_off.steps, 3u);
    EXPECT_EQ(ref_on.out, ref_off.out);
  }
}

// TransposeConv2d + Add + Relu: one step, oneDNN's deconvolution with the
// Add and the Relu as post-ops. With an output_padding beyond its end
// padding, which that path leaves alone, no fast path takes the producer
// and the reference runs the step fused: its epilogue is the nodes' own
// arithmetic, bit for bit.
TEST(FusionGraph, TransposeConvFusesOnOneDnnAndWithoutAFastPathOnTheReference) {
  for (uint32_t out_pad : {0u, 1u}) {
    const uint32_t o = 9 + out_pad;
    Builder b;
    const uint32_t x = b.tensor(tt::kAppWrite, {1, 4, 4, 4});
    const auto wb = b.conv_weights();  // [3,3,4,4]: [kh, kw, Cin, Cout]
    const uint32_t t = b.tensor(tt::kNative, {1, o, o, 4});
    std::vector<ops::Param> params = {u32_tensor("stride", {2}, {2, 2}),
                                      u32_tensor("pad_amount", {2, 2}, {0, 0, 0, 0})};
    if (out_pad > 0) params.push_back(u32_tensor("output_padding", {2}, {out_pad, out_pad}));
    b.g.nodes.push_back({"tconv", "", "TransposeConv2d", params, {x, wb[0], wb[1]}, {t}});
    const uint32_t r = b.tensor(tt::kAppWrite, {1, o, o, 4});
    const uint32_t s = b.node("add", "ElementWiseAdd", {t, r});
    b.g.tensors[s - 1].dims = {1, o, o, 4};
    const uint32_t y = b.node("relu", "Relu", {s}, tt::kAppRead);
    b.g.tensors[y - 1].dims = {1, o, o, 4};
    for (size_t threads : {1, 2}) {
      const GraphRun off = run(b.g, false, true, t, threads), on = run(b.g, true, true, t, threads);
      ASSERT_EQ(on.profile.size(), 1u);
      EXPECT_EQ(on.profile[0].name, "tconv+add+relu");
      EXPECT_EQ(off.profile.size(), 3u);
      EXPECT_FALSE(on.intermediate.has_value());
      if (out_pad == 0) {
        EXPECT_EQ(on.profile[0].impl, "onednn");
        EXPECT_EQ(off.profile[0].impl, "onednn");
        // The same deconvolution both ways; then one float add and a max.
        expect_f32_near(on.out, off.out, 1e-6f);
      } else {
        EXPECT_EQ(on.profile[0].impl, "reference");
        EXPECT_EQ(on.out, off.out);
      }
    }
  }
}

TEST(FusionGraph, Uint8ClampFusesOnTheFastPathAndMatches) {
  Builder b;
  b.act_dt = kU8;
  b.act_q = ops::Quant::per_tensor(0.02f, -120);
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t c = b.conv("conv", x);
  b.node("relu", "Relu", {c}, tt::kAppRead);
  const GraphRun off = run(b.g, false, true, c), on = run(b.g, true, true, c);
  ASSERT_EQ(on.profile.size(), 1u);
  EXPECT_EQ(on.profile[0].name, "conv+relu");
  EXPECT_TRUE(on.profile[0].impl == "xnnpack" || on.profile[0].impl == "onednn-int8") << on.profile[0].impl;
  ASSERT_EQ(on.out.size(), off.out.size());
  for (size_t i = 0; i < on.out.size(); ++i) ASSERT_LE(std::abs(int(on.out[i]) - int(off.out[i])), 1) << i;
  // Reference kernels only: the conv runs behind the type adapter, which
  // applies the clamp after rounding into the conv's encoding, as the nodes
  // do: one step, bit for bit the nodes.
  const GraphRun ref = run(b.g, true, false, c);
  EXPECT_EQ(ref.steps, 1u);
  EXPECT_EQ(ref.out, run(b.g, false, false, c).out);
}


TEST(FusionGraph, Uint8SiluChainIsOneTableBitExact) {
  // SiLU of a graph input: no producer to take the table, a step of its own.
  Builder b;
  b.act_dt = kU8;
  b.act_q = ops::Quant::per_tensor(0.05f, -128);
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t s = b.node("sig", "Sigmoid", {x});
  b.node("mul", "ElementWiseMultiply", {x, s}, tt::kAppRead);
  for (size_t threads : {1, 2}) {
    const GraphRun off = run(b.g, false, true, s, threads), on = run(b.g, true, true, s, threads);
    EXPECT_EQ(off.steps, 2u);
    ASSERT_EQ(on.steps, 1u);
    EXPECT_EQ(on.profile[0].name, "sig+mul");
    EXPECT_EQ(on.profile[0].type, "Sigmoid+ElementWiseMultiply");
    EXPECT_EQ(on.profile[0].impl, "lookup-table");
    EXPECT_TRUE(off.intermediate.has_value());
    EXPECT_FALSE(on.intermediate.has_value()) << "the sigmoid's output is never written";
    ASSERT_EQ(on.out, off.out);
    std::set<uint8_t> codes(on.out.begin(), on.out.end());
    EXPECT_GT(codes.size(), 20u) << "outputs spread over the codes";
  }
  // Reference kernels only: no table, the nodes run one by one.
  const GraphRun ref = run(b.g, true, false, s);
  EXPECT_EQ(ref.steps, 2u);
  EXPECT_EQ(ref.out, run(b.g, false, true, s).out);
}

// The steps a producer table leaves (fusion.h): one where the convolution's
// fast path applies the table (the oneDNN int8 convolutions, on CPUs with
// VNNI), else the convolution and the chain apart.
size_t producer_table_steps(const GraphRun& on) { return on.profile.at(0).impl == "onednn-int8" ? 1u : 2u; }

TEST(FusionGraph, Uint8SiluAfterAConvIsTheConvsTableBitExact) {
  // 3x3 convolution (one oneDNN primitive, the table over the output in
  // shares) and 1x1 (one slab of rows per thread at two threads, the table
  // on each slab), with the table of a two-node chain and of a lone Sigmoid.
  for (bool pointwise : {false, true}) {
    for (bool lone_sigmoid : {false, true}) {
      Builder b;
      b.act_dt = kU8;
      b.act_q = ops::Quant::per_tensor(0.05f, -128);
      const uint32_t x = b.tensor(tt::kAppWrite);
      const uint32_t c = pointwise ? b.pointwise("conv", x) : b.conv("conv", x);
      const uint32_t s = b.node("sig", "Sigmoid", {c}, lone_sigmoid ? tt::kAppRead : tt::kNative);
      if (!lone_sigmoid) b.node("mul", "ElementWiseMultiply", {c, s}, tt::kAppRead);
      const std::string what = std::string(pointwise ? "1x1" : "3x3") + (lone_sigmoid ? " sigmoid" : " silu");
      for (size_t threads : {1, 2}) {
        const GraphRun off = run(b.g, false, true, c, threads), on = run(b.g, true, true, c, threads);
        ASSERT_FALSE(on.profile.empty()) << what;
        EXPECT_EQ(off.steps, lone_sigmoid ? 2u : 3u) << what;
        ASSERT_EQ(on.steps, producer_table_steps(on)) << what;
        if (on.steps == 1) {
          EXPECT_EQ(on.profile[0].name, lone_sigmoid ? "conv+sig" : "conv+sig+mul") << what;
          EXPECT_EQ(on.profile[0].type, lone_sigmoid ? "Conv2d+Sigmoid" : "Conv2d+Sigmoid+ElementWiseMultiply");
          EXPECT_FALSE(on.intermediate.has_value()) << what << ": the conv's output is never written";
        }
        EXPECT_TRUE(off.intermediate.has_value()) << what;
        ASSERT_EQ(on.out, off.out) << what << ", threads " << threads;
        std::set<uint8_t> codes(on.out.begin(), on.out.end());
        EXPECT_GT(codes.size(), 10u) << what << ": outputs spread over the codes";
      }
    }
  }
}

TEST(FusionPass, ProducerTableRules) {
  uint32_t c, s;
  Builder b = silu_block(kU8, &c, &s);
  auto chains = htp::find_pointwise_chains(b.g, htp::find_fusions(b.g));
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].producer, 0);
  EXPECT_EQ(htp::producer_table_name(b.g, chains[0]), "conv+sig+mul");
  EXPECT_EQ(htp::producer_table_type(b.g, chains[0]), "Conv2d+Sigmoid+ElementWiseMultiply");
  // The conv's output also read outside the chain: it must be written; the
  // chain stays, on its own.
  Builder b2 = silu_block(kU8, &c, &s);
  b2.node("relu", "Relu", {c}, tt::kAppRead);
  chains = htp::find_pointwise_chains(b2.g, htp::find_fusions(b2.g));
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].producer, -1);
  // ... or a graph output.
  Builder b3 = silu_block(kU8, &c, &s);
  b3.g.tensors[c - 1].type = tt::kAppRead;
  chains = htp::find_pointwise_chains(b3.g, htp::find_fusions(b3.g));
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].producer, -1);
  // One node is a chain only with a producer to take its table.
  Builder b4;
  b4.act_dt = kU8;
  b4.act_q = ops::Quant::per_tensor(0.05f, -128);
  const uint32_t x4 = b4.tensor(tt::kAppWrite);
  b4.node("sig", "Sigmoid", {b4.conv("conv", x4)}, tt::kAppRead);
  chains = htp::find_pointwise_chains(b4.g, {});
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].producer, 0);
  EXPECT_EQ(chains[0].nodes, std::vector<int>{1});
  Builder b5;
  b5.act_dt = kU8;
  b5.act_q = ops::Quant::per_tensor(0.05f, -128);
  b5.node("sig", "Sigmoid", {b5.tensor(tt::kAppWrite)}, tt::kAppRead);
  EXPECT_TRUE(htp::find_pointwise_chains(b5.g, {}).empty());
  // No convolution before the chain: here x's producer is pointwise and
  // joins the chain, whose input is then a graph input.
  Builder b6;
  b6.act_dt = kU8;
  b6.act_q = ops::Quant::per_tensor(0.05f, -128);
  const uint32_t p6 = b6.node("neg", "ElementWiseNeg", {b6.tensor(tt::kAppWrite)});
  b6.node("relu", "Relu", {b6.node("sig", "Sigmoid", {p6})}, tt::kAppRead);
  chains = htp::find_pointwise_chains(b6.g, {});
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].producer, -1);
}

TEST(FusionGraph, APlanStoredWithoutTheProducerTableLoadsWithIt) {
  uint32_t c, s;
  const Builder b = silu_block(kU8, &c, &s);
  const htp::StoredPlan stored = plan_without_fusion(b.g);
  ASSERT_TRUE(stored.count(c));
  // Here y is a graph output, which no plan places: nothing the stored plan
  // put in memory is live where the table writes y early, so it is taken.
  const GraphRun on = run(b.g, true, true, c, 1, &stored);
  ASSERT_FALSE(on.profile.empty());
  EXPECT_EQ(on.steps, producer_table_steps(on));
  EXPECT_EQ(on.out, run(b.g, false, true, c).out);
}

TEST(FusionGraph, Uint8ChainWithStaticScalarsIsBitExact) {
  // HardSwish written out: y = x * relu6(x + 3) / 6, the 3 and 6 one-element
  // static tensors, after a conv.
  Builder b;
  b.act_dt = kU8;
  b.act_q = ops::Quant::per_tensor(0.05f, -128);
  auto scalar_code = [&](float v) {
    const uint32_t t = b.tensor(tt::kStatic, {1});
    b.g.tensors[t - 1].static_data = std::vector<uint8_t>{static_cast<uint8_t>(std::lround(v / 0.05f) + 128)};
    return t;
  };
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t c = b.conv("conv", x);
  const uint32_t three = scalar_code(3.0f), six = scalar_code(6.0f);
  const uint32_t a = b.node("add3", "ElementWiseAdd", {c, three});
  const uint32_t r = b.node("relu6", "ReluMinMax", {a}, tt::kNative,
                            {scalar("min_value", kF32, 0.0), scalar("max_value", kF32, 6.0)});
  const uint32_t m = b.node("mul", "ElementWiseMultiply", {c, r});
  b.node("div6", "ElementWiseDivide", {m, six}, tt::kAppRead);
  const GraphRun off = run(b.g, false, true, m), on = run(b.g, true, true, m);
  EXPECT_EQ(off.steps, 5u);
  ASSERT_EQ(on.steps, producer_table_steps(on));
  if (on.steps == 1) {
    EXPECT_EQ(on.profile[0].name, "conv+add3+relu6+mul+div6");  // the conv's table
  } else {
    EXPECT_EQ(on.profile[1].name, "add3+relu6+mul+div6");
    EXPECT_EQ(on.profile[1].impl, "lookup-table");
  }
  EXPECT_FALSE(on.intermediate.has_value());
  ASSERT_EQ(on.out, off.out);
  EXPECT_EQ(on.out, run(b.g, false, false, m).out) << "and equal to the reference kernels' answer";
}


TEST(FusionGraph, F32SiluRunsAsTheConvsSwishAndMatches) {
  uint32_t c, s;
  const Builder b = silu_block(kF32, &c, &s);
  for (size_t threads : {1, 2}) {
    const GraphRun off = run(b.g, false, true, s, threads), on = run(b.g, true, true, s, threads);
    EXPECT_EQ(off.steps, 3u);
    ASSERT_EQ(on.steps, 1u);
    EXPECT_EQ(on.profile[0].name, "conv+sig+mul");
    EXPECT_EQ(on.profile[0].impl, "onednn");
    EXPECT_FALSE(on.intermediate.has_value());
    expect_f32_near(on.out, off.out, 1e-5f);
  }
  // The reference kernels compute the same arithmetic fused or not.
  const GraphRun ref_on = run(b.g, true, false, s);
  EXPECT_EQ(ref_on.steps, 1u);
  EXPECT_EQ(ref_on.out, run(b.g, false, false, s).out);
}

TEST(FusionGraph, F32DepthwiseSiluFusesIntoTheDepthwiseConv) {
  // The SiLU runs after oneDNN's depthwise kernel as openhtp's own pass
  // (kernels/silu.h), so a depthwise conv takes it like a dense one.
  Builder b;
  const uint32_t x = b.tensor(tt::kAppWrite);
  const uint32_t w = b.tensor(tt::kStatic, {3, 3, 1, 4});
  std::vector<uint8_t> wv(b.g.tensors[w - 1].num_bytes());
  for (size_t i = 0; i < wv.size(); i += 4) {
    const float v = 0.1f * static_cast<float>(i % 7) - 0.3f;
    std::memcpy(&wv[i], &v, 4);
  }
  b.g.tensors[w - 1].static_data = std::move(wv);
  const uint32_t c = b.tensor(tt::kNative);
  b.g.nodes.push_back({"dw", "", "DepthWiseConv2d", conv_params(), {x, w}, {c}});
  const uint32_t s = b.node("sig", "Sigmoid", {c});
  b.node("mul", "ElementWiseMultiply", {c, s}, tt::kAppRead);
  ASSERT_EQ(htp::find_fusions(b.g).size(), 1u);
  for (size_t threads : {1, 2}) {
    const GraphRun on = run(b.g, true, true, s, threads), off = run(b.g, false, true, s, threads);
    ASSERT_EQ(on.steps, 1u);
    EXPECT_EQ(on.profile[0].name, "dw+sig+mul");
    EXPECT_EQ(on.profile[0].impl, "onednn");
    EXPECT_EQ(off.steps, 3u);
    expect_f32_near(on.out, off.out, 1e-5f);
  }
}

TEST(FusionGraph, Uint8AddLayerNormRoundsOnceAndIsCloserThanTheNodes) {
  uint32_t s;
  const Builder b = add_norm_block(&s);
  const GraphRun off = run(b.g, false, true, s);
  EXPECT_EQ(off.steps, 2u);
  EXPECT_TRUE(off.intermediate.has_value());
  // The real answer, in double, from the codes each run was given: y's
  // code before rounding.
  const htp::TensorSpec& ta = b.g.tensors[0];
  const htp::TensorSpec& tb = b.g.tensors[1];
  const htp::TensorSpec& ty = b.g.tensors.back();
  std::vector<float> gamma(64), beta(64);
  std::memcpy(gamma.data(), b.g.tensors[b.g.nodes[1].inputs[1] - 1].static_data.data(), 256);
  std::memcpy(beta.data(), b.g.tensors[b.g.nodes[1].inputs[2] - 1].static_data.data(), 256);
  auto ideal = [&](const GraphRun& r) {
    std::vector<double> code(r.out.size());
    for (size_t row = 0; row < code.size() / 64; ++row) {
      double v[64], mean = 0, var = 0;
      for (size_t c = 0; c < 64; ++c) {
        const size_t i = row * 64 + c;
        v[c] = (r.inputs[0][i] + ta.quant.offset) * double(ta.quant.scale) +
               (r.inputs[1][i] + tb.quant.offset) * double(tb.quant.scale);
        mean += v[c] / 64;
      }
      for (double x : v) var += (x - mean) * (x - mean) / 64;
      for (size_t c = 0; c < 64; ++c) {
        const double t = (v[c] - mean) / std::sqrt(var + 1e-5) * gamma[c] + beta[c];
        code[row * 64 + c] = std::clamp(t / ty.quant.scale - ty.quant.offset, 0.0, 255.0);
      }
    }
    return code;
  };
  auto mean_error = [&](const GraphRun& r) {
    const std::vector<double> want = ideal(r);
    double e = 0;
    for (size_t i = 0; i < want.size(); ++i) e += std::abs(r.out[i] - want[i]) / double(want.size());
    return e;
  };
  for (size_t threads : {1, 2}) {
    const GraphRun on = run(b.g, true, true, s, threads);
    ASSERT_EQ(on.steps, 1u);
    EXPECT_EQ(on.profile[0].name, "add+ln");
    EXPECT_EQ(on.profile[0].type, "ElementWiseAdd+LayerNorm");
    EXPECT_EQ(on.profile[0].impl, "int8");
    EXPECT_FALSE(on.intermediate.has_value()) << "the sum is never written";
    const std::vector<double> want = ideal(on);
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_LE(std::abs(on.out[i] - std::nearbyint(want[i])), 1.0) << i;
    }
    // One rounding: at most half a step off on average (plus the rare
    // float/double tie); the nodes' two roundings are measurably worse.
    const double fused = mean_error(on), nodes = mean_error(off);
    EXPECT_LT(fused, 0.26) << "fused mean |code error|";
    EXPECT_LT(fused, 0.8 * nodes) << "fused " << fused << " vs nodes " << nodes;
  }
  // Reference kernels only: no fast path for the step, the nodes run one by
  // one, and compute what they compute with fusion off.
  const GraphRun ref = run(b.g, true, false, s);
  EXPECT_EQ(ref.steps, 2u);
  EXPECT_EQ(ref.out, run(b.g, false, false, s).out);
  // A static operand: the finder pairs the nodes, the kernel declines, and
  // the nodes run one by one, as with fusion off.
  Builder st = add_norm_block(&s);
  std::vector<uint8_t> codes(st.g.tensors[1].num_bytes());
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<uint8_t>(i * 37);
  st.g.tensors[1].type = tt::kStatic;
  st.g.tensors[1].static_data = std::move(codes);
  ASSERT_EQ(htp::find_add_layer_norms(st.g, {}, {}).size(), 1u);
  const GraphRun st_on = run(st.g, true, true, s), st_off = run(st.g, false, true, s);
  EXPECT_EQ(st_on.steps, 2u);
  EXPECT_TRUE(st_on.intermediate.has_value());
  EXPECT_EQ(st_on.out, st_off.out);
}

}  // namespace

namespace {

// ---- channel scale: Multiply(x, s[1,1,1,C]) -> Conv2d ---------------------

// x [1,h,w,c] -> mul(x, s) -> conv (k x k, c -> cout) [-> add(r) -> relu]
// -> out. x is the output of relu0 over a graph input (so that it is planned
// NATIVE memory), s and r graph inputs; m is the product.
struct ScaleBlock {
  Builder b;
  uint32_t x = 0, s = 0, m = 0, y = 0;
};
ScaleBlock scale_block(uint32_t h, uint32_t w, uint32_t c, uint32_t cout, uint32_t k, bool residual,
                       bool scale_first = false) {
  ScaleBlock sb;
  Builder& b = sb.b;
  b.rng.seed(h * 1000 + w * 100 + c * 10 + cout + k);
  const uint32_t in = b.tensor(tt::kAppWrite, {1, h, w, c});
  sb.s = b.tensor(tt::kAppWrite, {1, 1, 1, c});
  const uint32_t r = residual ? b.tensor(tt::kAppWrite, {1, h, w, cout}) : 0;
  sb.x = b.tensor(tt::kNative, {1, h, w, c});
  b.g.nodes.push_back({"relu0", "", "Relu", {}, {in}, {sb.x}});
  sb.m = b.tensor(tt::kNative, {1, h, w, c});
  b.g.nodes.push_back({"mul", "", "ElementWiseMultiply", {},
                       scale_first ? std::vector<uint32_t>{sb.s, sb.x} : std::vector<uint32_t>{sb.x, sb.s},
                       {sb.m}});
  const uint32_t wt = b.tensor(tt::kStatic, {k, k, c, cout});
  const uint32_t bias = b.tensor(tt::kStatic, {cout});
  std::uniform_real_distribution<float> d(-0.5f, 0.5f);
  for (uint32_t id : {wt, bias}) {
    std::vector<uint8_t> v(b.g.tensors[id - 1].num_bytes());
    for (size_t i = 0; i < v.size(); i += 4) {
      const float f = d(b.rng);
      std::memcpy(&v[i], &f, 4);
    }
    b.g.tensors[id - 1].static_data = std::move(v);
  }
  const uint32_t p = k / 2;
  const uint32_t conv_out = b.tensor(residual ? tt::kNative : tt::kAppRead, {1, h, w, cout});
  b.g.nodes.push_back({"conv", "", "Conv2d",
                       {u32_tensor("stride", {2}, {1, 1}), u32_tensor("pad_amount", {2, 2}, {p, p, p, p})},
                       {sb.m, wt, bias}, {conv_out}});
  sb.y = conv_out;
  if (residual) {
    const uint32_t sum = b.tensor(tt::kNative, {1, h, w, cout});
    b.g.nodes.push_back({"add", "", "ElementWiseAdd", {}, {conv_out, r}, {sum}});
    sb.y = b.tensor(tt::kAppRead, {1, h, w, cout});
    b.g.nodes.push_back({"relu", "", "Relu", {}, {sum}, {sb.y}});
  }
  return sb;
}

TEST(FusionPass, ChannelScaleFoldsIntoTheConvThatAloneReadsTheProduct) {
  for (bool scale_first : {false, true}) {
    const ScaleBlock sb = scale_block(8, 8, 6, 4, 1, false, scale_first);
    const auto f = htp::find_fusions(sb.b.g);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].scale, 1);
    EXPECT_EQ(f[0].producer, 2);
    EXPECT_EQ(f[0].scaled, sb.x);
    EXPECT_EQ(f[0].channel_scale, sb.s);
    EXPECT_EQ(f[0].eliminated.front(), sb.m);
    EXPECT_EQ(f[0].last(), 2);
    EXPECT_EQ(htp::fused_name(sb.b.g, f[0]), "mul+conv");
    EXPECT_EQ(htp::fused_type(sb.b.g, f[0]), "ElementWiseMultiply+Conv2d");
    const htp::Fusion plain = f[0].without_scale();
    EXPECT_EQ(plain.scale, -1);
    EXPECT_TRUE(plain.eliminated.empty());
  }
  // With the conv's own epilogue: one step of four nodes.
  const ScaleBlock full = scale_block(8, 8, 6, 4, 3, true);
  const auto f = htp::find_fusions(full.b.g);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(htp::fused_name(full.b.g, f[0]), "mul+conv+add+relu");
  EXPECT_EQ(f[0].eliminated.size(), 3u);  // the product, the conv's output, the sum
  // Each rule broken: no channel scale (and nothing else to fuse).
  auto no_scale = [](const htp::GraphSpec& g) {
    const auto fs = htp::find_fusions(g);
    return std::none_of(fs.begin(), fs.end(), [](const htp::Fusion& x) { return x.scale >= 0; });
  };
  {  // the product read by another node too
    ScaleBlock sb = scale_block(8, 8, 6, 4, 1, false);
    sb.b.node("other", "Relu", {sb.m}, tt::kAppRead);
    EXPECT_TRUE(no_scale(sb.b.g));
  }
  {  // the product a graph output
    ScaleBlock sb = scale_block(8, 8, 6, 4, 1, false);
    sb.b.g.tensors[sb.m - 1].type = tt::kAppRead;
    EXPECT_TRUE(no_scale(sb.b.g));
  }
  {  // a full element-wise product, not one factor per channel
    ScaleBlock sb = scale_block(8, 8, 6, 4, 1, false);
    sb.b.g.tensors[sb.s - 1].dims = {1, 8, 8, 6};
    EXPECT_TRUE(no_scale(sb.b.g));
  }
  {  // weights that outweigh the map: 4 x 4 output channels > 3 x 3 pixels
    const ScaleBlock sb = scale_block(3, 3, 6, 4, 1, false);
    EXPECT_TRUE(no_scale(sb.b.g));
    EXPECT_FALSE(no_scale(scale_block(4, 4, 6, 4, 1, false).b.g));  // 16 <= 16: taken
  }
  {  // 8-bit tensors
    ScaleBlock sb = scale_block(8, 8, 6, 4, 1, false);
    for (uint32_t id : {sb.x, sb.s, sb.m}) {
      sb.b.g.tensors[id - 1].dtype = kU8;
      sb.b.g.tensors[id - 1].quant = ops::Quant::per_tensor(0.01f, 0);
    }
    EXPECT_TRUE(no_scale(sb.b.g));
  }
  {  // a producer other than Conv2d
    ScaleBlock sb = scale_block(8, 8, 6, 4, 1, false);
    sb.b.g.nodes[2].type = "DepthWiseConv2d";
    EXPECT_TRUE(no_scale(sb.b.g));
  }
  {  // the product read as the conv's weights, not its input
    ScaleBlock sb = scale_block(8, 8, 6, 4, 1, false);
    std::swap(sb.b.g.nodes[2].inputs[0], sb.b.g.nodes[2].inputs[1]);
    EXPECT_TRUE(no_scale(sb.b.g));
  }
}

TEST(FusionGraph, F32ChannelScaleMatchesTheNodesOverRandomShapes) {
  // The fused step sums (w * s) * x where the nodes sum w * (x * s): each
  // product rounds once instead of twice, so the two differ by float
  // rounding only: |out| <= k*k*c * 0.5 + 0.5 here, each term off by at most
  // 2^-23 of its size.
  std::mt19937 rng(11);
  for (int round = 0; round < 12; ++round) {
    const uint32_t h = 4 + rng() % 9, w = 4 + rng() % 9, c = 1 + rng() % 40;
    const uint32_t cout = 1 + rng() % std::max<uint32_t>(1, std::min<uint32_t>(24, h * w / 4));
    const uint32_t k = round % 3 == 2 ? 3 : 1;
    const bool residual = round % 2 == 1;
    const ScaleBlock sb = scale_block(h, w, c, cout, k, residual);
    for (size_t threads : {1, 2}) {
      SCOPED_TRACE(testing::Message() << h << "x" << w << "x" << c << " -> " << cout << ", " << k << "x" << k
                                      << (residual ? " + residual" : "") << ", " << threads << " threads");
      const GraphRun off = run(sb.b.g, false, true, sb.m, threads);
      const GraphRun on = run(sb.b.g, true, true, sb.m, threads);
      ASSERT_EQ(on.profile.size(), 2u);
      EXPECT_EQ(on.profile[1].name, residual ? "mul+conv+add+relu" : "mul+conv");
      EXPECT_EQ(on.profile[1].impl, "onednn");
      EXPECT_FALSE(on.intermediate.has_value()) << "the product is not planned";
      EXPECT_EQ(off.steps, residual ? 5u : 3u);
      const float bound = (k * k * c * 0.5f + 1.0f) * 4.0f * 1.2e-7f;
      expect_f32_near(on.out, off.out, std::max(bound, 1e-6f));
    }
  }
}

TEST(FusionGraph, F32ChannelScaleOfAGroupedConv) {
  // Group g of the conv reads input channels [g cin_g, (g + 1) cin_g): each
  // packed weight takes the factor of its own input channel, not of its
  // index within the group.
  for (uint32_t groups : {2u, 4u}) {
    ScaleBlock sb = scale_block(8, 8, 8, 4, 1, false);
    htp::NodeSpec& conv = sb.b.g.nodes[2];
    conv.params.push_back(scalar("group", ops::dtype::kUint32, groups));
    htp::TensorSpec& w = sb.b.g.tensors[conv.inputs[1] - 1];
    w.dims = {1, 1, 8 / groups, 4};
    std::vector<uint8_t> wv(w.num_bytes());
    for (size_t i = 0; i < wv.size(); i += 4) {
      const float f = 0.1f * static_cast<float>(i / 4 % 7) - 0.3f;
      std::memcpy(&wv[i], &f, 4);
    }
    w.static_data = std::move(wv);
    ASSERT_EQ(htp::find_fusions(sb.b.g).size(), 1u);
    for (size_t threads : {1, 2}) {
      const GraphRun off = run(sb.b.g, false, true, sb.m, threads), on = run(sb.b.g, true, true, sb.m, threads);
      ASSERT_EQ(on.profile.size(), 2u) << groups << " groups";
      EXPECT_EQ(on.profile[1].name, "mul+conv");
      expect_f32_near(on.out, off.out, 1e-5f);
    }
  }
}

TEST(FusionGraph, F32ChannelScaleReadsTheScaleOfEachExecute) {
  // The weights are rescaled from the factors bound at every execute, not
  // those of the first: two executes of one prepared graph with different
  // factors each match the nodes.
  const ScaleBlock sb = scale_block(6, 6, 8, 5, 1, false);
  for (size_t threads : {1, 2}) {
    std::string msg;
    auto on = prepared(sb.b.g, true, threads), off = prepared(sb.b.g, false, threads);
    ASSERT_TRUE(on && off);
    ASSERT_EQ(on->num_steps(), 2u);
    std::vector<float> x(6 * 6 * 8), f(8);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (float& v : x) v = d(rng);
    for (int turn = 0; turn < 3; ++turn) {
      for (float& v : f) v = d(rng) * static_cast<float>(turn + 1);
      std::vector<float> y_on(6 * 6 * 5), y_off(6 * 6 * 5);
      const htp::TensorBinding ins[] = {{on->input_ids()[0], x.data(), x.size() * 4},
                                        {on->input_ids()[1], f.data(), f.size() * 4}};
      const htp::TensorBinding out_on[] = {{on->output_ids()[0], y_on.data(), y_on.size() * 4}};
      const htp::TensorBinding out_off[] = {{off->output_ids()[0], y_off.data(), y_off.size() * 4}};
      ASSERT_EQ(on->execute(ins, out_on, &msg), htp::GraphError::kNone) << msg;
      ASSERT_EQ(off->execute(ins, out_off, &msg), htp::GraphError::kNone) << msg;
      for (size_t i = 0; i < y_on.size(); ++i) ASSERT_NEAR(y_on[i], y_off[i], 1e-5f) << "turn " << turn << ", " << i;
    }
  }
}

TEST(FusionGraph, ChannelScaleWithoutAKernelForItRunsTheMultiplyBeforeTheConv) {
  // Reference kernels take no channel scale: the Multiply runs as its own
  // step right before the conv, which keeps its own epilogue, and the
  // output is the nodes' bit for bit.
  const ScaleBlock sb = scale_block(8, 8, 6, 4, 1, true);
  const GraphRun ref_on = run(sb.b.g, true, false, sb.m), ref_off = run(sb.b.g, false, false, sb.m);
  ASSERT_EQ(ref_on.profile.size(), 3u);
  EXPECT_EQ(ref_on.profile[1].name, "mul");
  EXPECT_EQ(ref_on.profile[2].name, "conv+add+relu");
  EXPECT_TRUE(ref_on.intermediate.has_value());
  EXPECT_EQ(ref_on.out, ref_off.out);
  // Asked of the reference directly, the fused node is refused, not run
  // without its scale.
  ops::TensorDesc x, w, b, y;
  x.dtype = w.dtype = b.dtype = y.dtype = kF32;
  x.dims = {1, 4, 4, 2};
  w.dims = {1, 1, 2, 2};
  b.dims = {2};
  y.dims = {1, 4, 4, 2};
  std::vector<float> wv(4, 0.5f), bv(2, 0.0f);
  w.static_data = wv.data();
  b.static_data = bv.data();
  ops::TensorDesc scale = x;
  scale.dims = {1, 1, 1, 2};
  const ops::TensorDesc ins[] = {x, w, b};
  const ops::Param params[] = {u32_tensor("stride", {2}, {1, 1}), u32_tensor("pad_amount", {2, 2}, {0, 0, 0, 0})};
  ops::NodeDesc nd{"conv", "Conv2d", ins, {&y, 1}, params};
  nd.input_scale = &scale;
  std::unique_ptr<ops::OpKernel> k;
  EXPECT_TRUE(ops::prepare_node(nd, nullptr).ok()) << "validation is the conv's own";
  EXPECT_EQ(ops::prepare_reference(nd, &k).code, ops::StatusCode::kUnsupported);
  EXPECT_FALSE(k);
}

TEST(FusionGraph, APlanStoredWithoutTheChannelScaleStillLoads) {
  // Without the channel scale, x dies at the Multiply and the conv's output
  // may take its memory; the fused step reads x where the conv runs, so such
  // a stored plan does not fit it. The graph then loads as the plan was made
  // for: the Multiply as its own step.
  ScaleBlock sb = scale_block(8, 8, 6, 4, 1, false);
  const uint32_t conv_out = sb.y;
  sb.b.g.tensors[conv_out - 1].type = tt::kNative;
  // A Sigmoid alone is no epilogue: the conv's output stays planned.
  sb.b.g.nodes.push_back({"sig", "", "Sigmoid", {}, {conv_out}, {sb.b.tensor(tt::kAppRead, {1, 8, 8, 4})}});
  auto unfused = prepared(sb.b.g, false, 1);
  ASSERT_TRUE(unfused);
  // The unfused plan with the conv's output moved onto x (dead by then for
  // the nodes as written): a plan the unfused graph accepts.
  htp::StoredPlan stored = unfused->placements();
  ASSERT_TRUE(stored.count(sb.x) && stored.count(conv_out));
  stored[conv_out] = stored.at(sb.x);
  ASSERT_TRUE(prepared(sb.b.g, false, 1, true, &stored));
  const GraphRun on = run(sb.b.g, true, true, sb.m, 1, &stored);
  ASSERT_EQ(on.profile.size(), 4u);
  EXPECT_EQ(on.profile[1].name, "mul");
  EXPECT_EQ(on.profile[2].name, "conv");
  expect_f32_near(on.out, run(sb.b.g, false, true, sb.m).out, 1e-5f);
  // A plan made with it loads with it.
  auto fused = prepared(sb.b.g, true, 1);
  ASSERT_TRUE(fused);
  const htp::StoredPlan own = fused->placements();
  const GraphRun again = run(sb.b.g, true, true, sb.m, 1, &own);
  ASSERT_EQ(again.profile.size(), 3u);
  EXPECT_EQ(again.profile[1].name, "mul+conv");
  expect_f32_near(again.out, on.out, 1e-5f);
}

// ---- channel mean: SiLU output -> ReduceMean over H, W --------------------

// in [1,h,w,c] -> producer (dw 3x3 or conv 1x1, c -> c) -> sig -> mul -> y
// (APP_READ, a graph output too) ; y -> mean(axes {1,2}) -> g [1,1,1,c]
// (APP_READ). *y_id, *g_id get the ids.
Builder mean_block(uint32_t h, uint32_t w, uint32_t c, bool depthwise, uint32_t* y_id, uint32_t* g_id,
                   bool keep_dims = true) {
  Builder b;
  b.rng.seed(h * 100 + w * 10 + c);
  const uint32_t in = b.tensor(tt::kAppWrite, {1, h, w, c});
  const uint32_t k = depthwise ? 3 : 1;
  const uint32_t wt = b.tensor(tt::kStatic, depthwise ? std::vector<uint32_t>{3, 3, 1, c} : std::vector<uint32_t>{1, 1, c, c});
  std::uniform_real_distribution<float> d(-0.5f, 0.5f);
  std::vector<uint8_t> v(b.g.tensors[wt - 1].num_bytes());
  for (size_t i = 0; i < v.size(); i += 4) {
    const float f = d(b.rng);
    std::memcpy(&v[i], &f, 4);
  }
  b.g.tensors[wt - 1].static_data = std::move(v);
  const uint32_t t = b.tensor(tt::kNative, {1, h, w, c});
  const uint32_t p = k / 2;
  b.g.nodes.push_back({"conv", "", depthwise ? "DepthWiseConv2d" : "Conv2d",
                       {u32_tensor("stride", {2}, {1, 1}), u32_tensor("pad_amount", {2, 2}, {p, p, p, p})},
                       {in, wt},
                       {t}});
  const uint32_t s = b.tensor(tt::kNative, {1, h, w, c});
  b.g.nodes.push_back({"sig", "", "Sigmoid", {}, {t}, {s}});
  *y_id = b.tensor(tt::kAppRead, {1, h, w, c});
  b.g.nodes.push_back({"mul", "", "ElementWiseMultiply", {}, {t, s}, {*y_id}});
  *g_id = b.tensor(tt::kAppRead, keep_dims ? std::vector<uint32_t>{1, 1, 1, c} : std::vector<uint32_t>{1, c});
  std::vector<ops::Param> params = {u32_tensor("axes", {2}, {1, 2})};
  if (keep_dims) params.push_back(scalar("keep_dims", ops::dtype::kBool8, 1));
  b.g.nodes.push_back({"mean", "", "ReduceMean", std::move(params), {*y_id}, {*g_id}});
  return b;
}

TEST(FusionPass, ChannelMeanRidesOnTheSiluPass) {
  uint32_t y, g;
  for (bool depthwise : {false, true}) {
    for (bool keep : {true, false}) {
      const Builder b = mean_block(6, 6, 8, depthwise, &y, &g, keep);
      const auto f = htp::find_fusions(b.g);
      ASSERT_EQ(f.size(), 1u);
      EXPECT_EQ(f[0].mean, 3);
      EXPECT_EQ(f[0].last(), 2) << "the step's first output is still the SiLU's";
      EXPECT_EQ(htp::fused_name(b.g, f[0]), "conv+sig+mul+mean");
      EXPECT_EQ(htp::find_fusions(b.g)[0].without_mean().mean, -1);
    }
  }
  auto no_mean = [](const Builder& b) {
    const auto fs = htp::find_fusions(b.g);
    return std::none_of(fs.begin(), fs.end(), [](const htp::Fusion& x) { return x.mean >= 0; });
  };
  {  // other axes: a mean over W only
    Builder b = mean_block(6, 6, 8, true, &y, &g);
    b.g.nodes[3].params[0] = u32_tensor("axes", {1}, {2});
    b.g.tensors[g - 1].dims = {1, 6, 1, 8};
    EXPECT_TRUE(no_mean(b));
  }
  {  // over H, W and C
    Builder b = mean_block(6, 6, 8, true, &y, &g);
    b.g.nodes[3].params[0] = u32_tensor("axes", {3}, {1, 2, 3});
    b.g.tensors[g - 1].dims = {1, 1, 1, 1};
    EXPECT_TRUE(no_mean(b));
  }
  {  // a parameter the pass would ignore
    Builder b = mean_block(6, 6, 8, true, &y, &g);
    b.g.nodes[3].params.push_back(scalar("other", ops::dtype::kUint32, 1));
    EXPECT_TRUE(no_mean(b));
  }
  {  // a batch of two: one mean per image
    Builder b = mean_block(6, 6, 8, true, &y, &g);
    for (auto& t : b.g.tensors) {
      if (t.dims.size() == 4 && t.dims[1] == 6) t.dims[0] = 2;
    }
    b.g.tensors[g - 1].dims = {2, 1, 1, 8};
    EXPECT_TRUE(no_mean(b));
  }
  {  // no SiLU to ride on: conv -> relu -> mean
    Builder b = mean_block(6, 6, 8, true, &y, &g);
    b.g.nodes.erase(b.g.nodes.begin() + 1);  // the Sigmoid
    b.g.nodes[1] = {"relu", "", "Relu", {}, {b.g.nodes[0].outputs[0]}, {y}};
    EXPECT_TRUE(no_mean(b));
    EXPECT_EQ(htp::find_fusions(b.g).size(), 1u) << "the clamp still fuses";
  }
}

TEST(FusionGraph, ChannelMeanMatchesTheNodesOverRandomShapes) {
  // The mean is the float sum of the SiLU's results in pixel order (per
  // slab, then the slabs' sums) times 1 / (H W), the ReduceMean kernel's
  // own arithmetic up to the order of the additions; y itself is the same
  // pass either way.
  std::mt19937 rng(17);
  for (int round = 0; round < 10; ++round) {
    const uint32_t h = 2 + rng() % 14, w = 2 + rng() % 14, c = 1 + rng() % 150;
    const bool depthwise = round % 2 == 0;
    uint32_t y, g;
    const Builder b = mean_block(h, w, c, depthwise, &y, &g);
    for (size_t threads : {1, 2}) {
      SCOPED_TRACE(testing::Message() << h << "x" << w << "x" << c << (depthwise ? " depthwise" : " 1x1") << ", "
                                      << threads << " threads");
      std::string msg;
      auto on = prepared(b.g, true, threads), off = prepared(b.g, false, threads);
      ASSERT_TRUE(on && off);
      ASSERT_EQ(on->num_steps(), 1u);
      on->set_node_profiling(true);
      std::vector<float> x(size_t{h} * w * c);
      std::uniform_real_distribution<float> d(-2.0f, 2.0f);
      for (float& v : x) v = d(rng);
      std::vector<float> y_on(x.size()), y_off(x.size()), g_on(c, -1.0f), g_off(c, -2.0f);
      const htp::TensorBinding ins[] = {{on->input_ids()[0], x.data(), x.size() * 4}};
      const htp::TensorBinding out_on[] = {{y, y_on.data(), y_on.size() * 4}, {g, g_on.data(), g_on.size() * 4}};
      const htp::TensorBinding out_off[] = {{y, y_off.data(), y_off.size() * 4}, {g, g_off.data(), g_off.size() * 4}};
      ASSERT_EQ(on->execute(ins, out_on, &msg), htp::GraphError::kNone) << msg;
      ASSERT_EQ(off->execute(ins, out_off, &msg), htp::GraphError::kNone) << msg;
      EXPECT_EQ(on->node_profile()[0].name, "conv+sig+mul+mean");
      EXPECT_EQ(on->node_profile()[0].impl, "onednn");
      for (size_t i = 0; i < y_on.size(); ++i) ASSERT_NEAR(y_on[i], y_off[i], 1e-5f) << "y " << i;
      // |silu| <= |conv| <= 2 * 9 * 0.5: the sum of h w terms, each off by
      // 2^-24 of the running sum at most, in either order.
      const float bound = 9.0f * 1.2e-7f * static_cast<float>(h * w);
      for (size_t i = 0; i < c; ++i) ASSERT_NEAR(g_on[i], g_off[i], bound) << "mean " << i;
    }
  }
}

TEST(FusionGraph, ChannelMeanWithoutAKernelForItRunsTheReduceMean) {
  // Reference kernels take no channel mean: the ReduceMean runs at its own
  // place, and both outputs are the nodes' bit for bit.
  uint32_t y, g;
  const Builder b = mean_block(6, 6, 8, true, &y, &g);
  std::vector<float> x(6 * 6 * 8);
  std::mt19937 rng(2);
  for (float& v : x) v = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
  std::vector<float> outs[2][2];
  for (bool fusion : {true, false}) {
    auto graph = prepared(b.g, fusion, 1, /*fast=*/false);
    ASSERT_TRUE(graph);
    std::string msg;
    if (fusion) {
      graph->set_node_profiling(true);
      EXPECT_EQ(graph->num_steps(), 2u);
    }
    std::vector<float>& yv = outs[fusion][0] = std::vector<float>(x.size());
    std::vector<float>& gv = outs[fusion][1] = std::vector<float>(8);
    const htp::TensorBinding ins[] = {{graph->input_ids()[0], x.data(), x.size() * 4}};
    const htp::TensorBinding o[] = {{y, yv.data(), yv.size() * 4}, {g, gv.data(), gv.size() * 4}};
    ASSERT_EQ(graph->execute(ins, o, &msg), htp::GraphError::kNone) << msg;
    if (fusion) {
      ASSERT_EQ(graph->node_profile().size(), 2u);
      EXPECT_EQ(graph->node_profile()[0].name, "conv+sig+mul");
      EXPECT_EQ(graph->node_profile()[1].name, "mean");
    }
  }
  EXPECT_EQ(outs[1][0], outs[0][0]);
  EXPECT_EQ(outs[1][1], outs[0][1]);
}

}  // namespace
