// Parse once, seen from the fast paths: a conv or pool fast path builds its
// kernel from the geometry prepare_node parsed (NodeDesc::parsed), never from
// the node's parameters, and declines a node that carries none.
#include "kernel_check.h"

namespace kernelstest {
namespace {

Param stride_p(uint32_t h, uint32_t w) { return u32_tensor_param("stride", {2}, {h, w}); }
Param pad_p(uint32_t t, uint32_t b, uint32_t l, uint32_t r) {
  return u32_tensor_param("pad_amount", {2, 2}, {t, b, l, r});
}

struct Built {
  std::string impl;
  Bytes out;
};

// prepare_node with every fast path on `d`, run once on c's data.
Built build_and_run(const Case& c, NodeDesc d) {
  ThreadEnv one(1);
  KernelEnv env = *one.env();
  env.fast_paths = openhtp::kernels::fast_paths();
  d.env = &env;
  Built b;
  std::unique_ptr<OpKernel> k;
  const Status s = prepare_node(d, &k, &b.impl);
  EXPECT_TRUE(s.ok()) << c.node.type << ": " << s.message;
  if (k) b.out = run_kernel(*k, c.data, c.out_bytes());
  return b;
}

// The node with its parameters taken away and only its parsed geometry to go
// on builds the same fast kernel, with the same output, as the full node:
// nothing read the parameters a second time (they would be missing).
void expect_fast_path_reads_geometry_only(const Case& c, std::string_view expected_impl) {
  ParsedParams parsed;
  ASSERT_TRUE(parse_params(c.node.desc(), &parsed).ok()) << c.node.type;
  NodeDesc bare = c.node.desc();
  bare.params = {};
  // Control: the parameters matter, so without the geometry the node is refused.
  EXPECT_STATUS(prepare_node(bare, nullptr), StatusCode::kInvalidArgument, "is missing");
  bare.parsed = &parsed;

  const Built full = build_and_run(c, c.node.desc());
  const Built from_geometry = build_and_run(c, bare);
  EXPECT_EQ(full.impl, expected_impl) << c.node.type;
  EXPECT_EQ(from_geometry.impl, expected_impl) << c.node.type;
  ASSERT_FALSE(full.out.empty());
  EXPECT_EQ(from_geometry.out, full.out) << c.node.type << " via " << expected_impl;
}

Case conv_case(std::mt19937& rng, std::string type, TensorDesc x, TensorDesc w, TensorDesc y) {
  Case c;
  c.node.type = std::move(type);
  c.node.inputs = {std::move(x), std::move(w)};
  c.node.outputs = {std::move(y)};
  // Not the defaults a reader of missing parameters could fall back to.
  c.node.params = {stride_p(2, 1), pad_p(1, 0, 1, 1)};
  c.is_static = {false, true};
  for (const auto& t : c.node.inputs) c.data.push_back(random_bytes(rng, t.num_bytes()));
  return c;
}

TEST(FastPathsReadTheParsedGeometry, Conv2dF32OneDnn) {
  std::mt19937 rng(91);
  // Ho = (1 + 6 + 0 - 3) / 2 + 1 = 3, Wo = (1 + 5 + 1 - 3) / 1 + 1 = 5.
  Case c = conv_case(rng, "Conv2d", f32({1, 6, 5, 4}), f32({3, 3, 4, 8}), f32({1, 3, 5, 8}));
  for (size_t i = 0; i < 2; ++i) c.data[i] = to_bytes(random_floats(rng, c.node.inputs[i].num_elements()));
  c.bind_static();
  expect_fast_path_reads_geometry_only(c, "onednn");
}

TEST(FastPathsReadTheParsedGeometry, DepthwiseF16Xnnpack) {
  std::mt19937 rng(92);
  Case c = conv_case(rng, "DepthWiseConv2d", typed(dtype::kFloat16, {1, 6, 5, 4}), typed(dtype::kFloat16, {3, 3, 1, 8}),
                     typed(dtype::kFloat16, {1, 3, 5, 8}));
  for (size_t i = 0; i < 2; ++i) {
    std::vector<uint16_t> h;
    for (float f : random_floats(rng, c.node.inputs[i].num_elements())) h.push_back(openhtp::ops::quant::float_to_half(f));
    c.data[i] = to_bytes(h);
  }
  c.bind_static();
  expect_fast_path_reads_geometry_only(c, "xnnpack");
}

TEST(FastPathsReadTheParsedGeometry, Conv2dQu8Xnnpack) {
  std::mt19937 rng(93);
  Case c = conv_case(rng, "Conv2d", quantized(dtype::kUfixed8, {1, 6, 5, 4}, per_tensor(0.02f, -128)),
                     quantized(dtype::kUfixed8, {3, 3, 4, 8}, per_tensor(0.01f, -120)),
                     quantized(dtype::kUfixed8, {1, 3, 5, 8}, per_tensor(0.1f, -100)));
  c.bind_static();
  expect_fast_path_reads_geometry_only(c, "xnnpack");
}

// No fast path takes 16-bit activations; the type adapter's float twin goes
// to oneDNN, and is handed the geometry the adapted node was parsed into.
TEST(FastPathsReadTheParsedGeometry, AdaptedTwinOneDnn) {
  std::mt19937 rng(94);
  Case c = conv_case(rng, "Conv2d", quantized(dtype::kUfixed16, {1, 6, 5, 4}, per_tensor(0.001f, -30000)),
                     quantized(dtype::kUfixed16, {3, 3, 4, 8}, per_tensor(0.0001f, -32768)),
                     quantized(dtype::kUfixed16, {1, 3, 5, 8}, per_tensor(0.01f, -32768)));
  c.bind_static();
  expect_fast_path_reads_geometry_only(c, "onednn via type adapter");
}

Case pool_case(std::string type, TensorDesc x, TensorDesc y, std::vector<Param> extra) {
  Case c;
  c.node.type = std::move(type);
  c.node.inputs = {std::move(x)};
  c.node.outputs = {std::move(y)};
  c.node.params = {u32_tensor_param("filter_size", {2}, {3, 2}), stride_p(2, 2), pad_p(1, 0, 0, 0)};
  for (Param& p : extra) c.node.params.push_back(std::move(p));
  c.is_static = {false};
  return c;
}

TEST(FastPathsReadTheParsedGeometry, PoolMax2dCeilXnnpack) {
  std::mt19937 rng(95);
  // H: (1 + 6 - 3) / 2 CEIL = 2, + 1 = 3; W: (5 - 2) / 2 CEIL = 2, + 1 = 3.
  Case c = pool_case("PoolMax2d", f32({1, 6, 5, 3}), f32({1, 3, 3, 3}), {u32_param("rounding_mode", 1)});
  c.data = {to_bytes(random_floats(rng, c.node.inputs[0].num_elements()))};
  expect_fast_path_reads_geometry_only(c, "xnnpack");
}

TEST(FastPathsReadTheParsedGeometry, PoolAvg2dXnnpack) {
  std::mt19937 rng(96);
  // H: (1 + 6 - 3) / 2 + 1 = 3; W: (5 - 2) / 2 + 1 = 2.
  Case c = pool_case("PoolAvg2d", f32({1, 6, 5, 3}), f32({1, 3, 2, 3}), {bool_param("count_pad_for_edges", false)});
  c.data = {to_bytes(random_floats(rng, c.node.inputs[0].num_elements()))};
  expect_fast_path_reads_geometry_only(c, "xnnpack");
}

// The rule itself: handed a node without a parsed geometry, every conv and
// pool fast path declines (it has nothing to build from), and the same node
// parsed is accepted, so declining is about the geometry alone.
TEST(FastPathsReadTheParsedGeometry, DeclineWithoutIt) {
  std::mt19937 rng(97);
  Case conv = conv_case(rng, "Conv2d", f32({1, 6, 5, 4}), f32({3, 3, 4, 8}), f32({1, 3, 5, 8}));
  conv.bind_static();
  Case pool = pool_case("PoolMax2d", f32({1, 6, 5, 3}), f32({1, 3, 3, 3}), {u32_param("rounding_mode", 1)});
  ThreadEnv one(1);
  struct Check {
    const Case* c;
    std::string_view library;
  };
  for (const Check& k : {Check{&conv, "onednn"}, Check{&pool, "xnnpack"}}) {
    const FastPath& fp = fast_path(k.c->node.type, k.library);
    NodeDesc d = k.c->node.desc();
    d.env = one.env();
    std::unique_ptr<OpKernel> kernel;
    EXPECT_FALSE(fp.prepare(d, &kernel)) << k.c->node.type << "/" << k.library;
    EXPECT_EQ(kernel, nullptr);
    EXPECT_TRUE(fp.prepare(ParsedNode(d).desc(), &kernel)) << k.c->node.type << "/" << k.library;
  }
}

}  // namespace
}  // namespace kernelstest
