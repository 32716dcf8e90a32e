// Parse once (ops/parsed_params.h): a conv or pool node's parameters are read
// into one typed geometry, which the reference prepare (and, through it, the
// type adapter's float twin) then consumes without reading the parameters
// again.
#include "ops/parsed_params.h"

#include "test_util.h"

namespace opstest {
namespace {

Param stride_p(uint32_t h, uint32_t w) { return u32_tensor_param("stride", {2}, {h, w}); }
Param pad_p(uint32_t t, uint32_t b, uint32_t l, uint32_t r) {
  return u32_tensor_param("pad_amount", {2, 2}, {t, b, l, r});
}

Status parse(const Node& n, ParsedParams* p) { return parse_params(n.desc(), p); }

// ---- the typed geometry ------------------------------------------------------

TEST(ParsedParams, Conv2dGeometry) {
  // Ho = (1 + 7 + 0 - 3) / 2 + 1 = 3; dilated kw = (3-1)*2+1 = 5, Wo = (1 + 6 + 1 - 5) / 1 + 1 = 4.
  Node n{"Conv2d", "c", {f32({2, 7, 6, 4}), f32({3, 3, 2, 6}), f32({6})}, {f32({2, 3, 4, 6})},
         {stride_p(2, 1), pad_p(1, 0, 1, 1), u32_tensor_param("dilation", {2}, {1, 2}), u32_param("group", 2)}};
  ParsedParams p;
  ASSERT_TRUE(parse(n, &p).ok());
  const ConvGeometry* g = std::get_if<ConvGeometry>(&p.value);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ((std::vector<uint32_t>{g->N, g->H, g->W, g->Cin, g->KH, g->KW, g->Cout, g->Ho, g->Wo}),
            (std::vector<uint32_t>{2, 7, 6, 4, 3, 3, 6, 3, 4}));
  EXPECT_EQ((std::vector<uint32_t>{g->sh, g->sw, g->dh, g->dw, g->pt, g->pb, g->pl, g->pr, g->group}),
            (std::vector<uint32_t>{2, 1, 1, 2, 1, 0, 1, 1, 2}));
  EXPECT_TRUE(g->has_bias);
  EXPECT_EQ(g->cin_g(), 2u);
  EXPECT_EQ(g->cout_g(), 3u);
}

TEST(ParsedParams, DepthwiseIsAConvWithOneInputChannelPerGroup) {
  Node n{"DepthWiseConv2d", "d", {f32({1, 5, 5, 3}), f32({3, 3, 1, 6}), null_tensor()}, {f32({1, 3, 3, 6})},
         {stride_p(1, 1), pad_p(0, 0, 0, 0)}};
  ParsedParams p;
  ASSERT_TRUE(parse(n, &p).ok());
  const ConvGeometry* g = std::get_if<ConvGeometry>(&p.value);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->group, 3u);
  EXPECT_EQ(g->cin_g(), 1u);
  EXPECT_EQ(g->cout_g(), 2u);
  EXPECT_FALSE(g->has_bias);  // a NULL bias tensor is no bias
  EXPECT_EQ(g->Ho, 3u);
}

TEST(ParsedParams, Pool2dCeilReachesPastItsPadding) {
  // H = 5, filter 2, stride 2, CEIL: out = ceil(3 / 2) + 1 = 3; the last
  // window reads rows 4..5, one past the input: one row of padding reached.
  Node n{"PoolMax2d", "p", {f32({1, 5, 4, 2})}, {f32({1, 3, 2, 2})},
         {u32_tensor_param("filter_size", {2}, {2, 2}), stride_p(2, 2), pad_p(0, 0, 0, 0),
          u32_param("rounding_mode", 1)}};
  ParsedParams p;
  ASSERT_TRUE(parse(n, &p).ok());
  const PoolGeometry* g = std::get_if<PoolGeometry>(&p.value);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->spatial, 2u);
  EXPECT_EQ(g->N, 1u);
  EXPECT_EQ(g->C, 2u);
  EXPECT_EQ(g->axes[0].in, 1u);  // the depth axis of a 2-D pool: one tap
  EXPECT_EQ(g->axes[0].out, 1u);
  EXPECT_EQ(g->axes[1].out, 3u);
  EXPECT_EQ(g->axes[1].pad_end, 0u);
  EXPECT_EQ(g->axes[1].pad_end_reached(), 1u);
  EXPECT_EQ(g->axes[2].out, 2u);
  EXPECT_EQ(g->axes[2].pad_end_reached(), 0u);
  EXPECT_TRUE(g->any_padding());
  EXPECT_FALSE(g->count_pad);
}

TEST(ParsedParams, Pool3dAverage) {
  Node n{"PoolAvg3d", "p", {f32({1, 4, 4, 4, 2})}, {f32({1, 2, 2, 2, 2})},
         {u32_tensor_param("filter_size", {3}, {2, 2, 2}), u32_tensor_param("stride", {3}, {2, 2, 2}),
          u32_tensor_param("pad_amount", {3, 2}, {0, 0, 0, 0, 0, 0}), bool_param("count_pad_for_edges", true)}};
  ParsedParams p;
  ASSERT_TRUE(parse(n, &p).ok());
  const PoolGeometry* g = std::get_if<PoolGeometry>(&p.value);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->spatial, 3u);
  EXPECT_TRUE(g->count_pad);
  EXPECT_FALSE(g->any_padding());
  for (const PoolAxis& a : g->axes) EXPECT_EQ(a.out, 2u);
}

TEST(ParsedParams, OpsWithoutGeometryParseToNothing) {
  Node n{"Relu", "r", {f32({2})}, {f32({2})}, {}};
  ParsedParams p;
  p.value = ConvGeometry{};
  ASSERT_TRUE(parse(n, &p).ok());
  EXPECT_TRUE(std::holds_alternative<std::monostate>(p.value));
}

// The parse checks the rules and reports them as the reference prepare does.
TEST(ParsedParams, ReportsTheRuleTheReferenceReports) {
  Node conv{"Conv2d", "c", {f32({1, 4, 4, 2}), f32({1, 1, 2, 2})}, {f32({1, 4, 4, 2})}, {stride_p(1, 0), pad_p(0, 0, 0, 0)}};
  ParsedParams p;
  EXPECT_STATUS(parse(conv, &p), StatusCode::kInvalidArgument, "parameter 'stride' element 1 is 0");
  EXPECT_EQ(parse(conv, &p).message, conv.prepare().message);

  Node pool{"PoolAvg2d", "p", {f32({1, 4, 4, 2})}, {f32({1, 2, 2, 2})},
            {u32_tensor_param("filter_size", {2}, {2, 2}), stride_p(2, 2), pad_p(0, 0, 0, 0), u32_param("group", 1)}};
  EXPECT_STATUS(parse(pool, &p), StatusCode::kInvalidArgument, "unknown parameter 'group'");
  EXPECT_EQ(parse(pool, &p).message, pool.prepare().message);
}

// With several rules broken, validation reports the one it always did: data
// types and dims before parameters (the failed up-front parse is not what
// prepare_node reports).
TEST(ParsedParams, ValidationKeepsItsOrder) {
  Node conv{"Conv2d", "c", {f32({1, 4, 0, 2}), f32({1, 1, 2, 2})}, {f32({1, 4, 4, 2})}, {stride_p(1, 0), pad_p(0, 0, 0, 0)}};
  EXPECT_STATUS(conv.prepare(), StatusCode::kInvalidArgument, "in[0] (input) dim 2 is 0");
  // A zero channel count cannot reach the depthwise multiple check.
  Node dw{"DepthWiseConv2d", "d", {f32({1, 4, 4, 0}), f32({1, 1, 1, 2})}, {f32({1, 4, 4, 2})},
          {stride_p(1, 1), pad_p(0, 0, 0, 0)}};
  EXPECT_STATUS(dw.prepare(), StatusCode::kInvalidArgument, "in[0] (input) dim 3 is 0");
  ParsedParams p;
  EXPECT_STATUS(parse(dw, &p), StatusCode::kInvalidArgument, "in[0] (input) channels Cin is 0");
}

// ---- read once -------------------------------------------------------------------

// Prepares `n` through prepare_reference with its parameters taken away and
// only `parsed` (the full node's geometry) to go on: anything that read the
// parameters again would find them missing.
Status prepare_without_params(const Node& n, const ParsedParams& parsed, std::unique_ptr<OpKernel>* kernel) {
  NodeDesc d = n.desc();
  d.params = {};
  d.parsed = &parsed;
  return prepare_reference(d, kernel);
}

std::vector<float> run(OpKernel& k, const std::vector<std::vector<float>>& ins, size_t out_elems) {
  std::vector<const void*> in_ptrs;
  for (const auto& v : ins) in_ptrs.push_back(v.empty() ? nullptr : v.data());
  std::vector<float> out(out_elems, std::nanf(""));
  std::vector<void*> out_ptrs{out.data()};
  k.run(in_ptrs, out_ptrs);
  return out;
}

void expect_reads_geometry_only(const Node& n, const std::vector<std::vector<float>>& ins) {
  ParsedParams parsed;
  ASSERT_TRUE(parse(n, &parsed).ok()) << n.type;
  // Without the geometry the parameter-less node is refused: the parameters
  // matter, so the success below means they were not read.
  NodeDesc bare = n.desc();
  bare.params = {};
  EXPECT_STATUS(prepare_reference(bare, nullptr), StatusCode::kInvalidArgument, "is missing");

  std::unique_ptr<OpKernel> from_geometry, from_params;
  const Status s = prepare_without_params(n, parsed, &from_geometry);
  ASSERT_TRUE(s.ok()) << n.type << ": " << s.message;
  EXPECT_TRUE(prepare_without_params(n, parsed, nullptr).ok()) << n.type;  // validation-only too
  ASSERT_TRUE(n.prepare(&from_params).ok()) << n.type;
  const size_t out_elems = n.outputs[0].num_elements();
  EXPECT_EQ(run(*from_geometry, ins, out_elems), run(*from_params, ins, out_elems)) << n.type;
}

TEST(ParsedParamsReadOnce, ReferenceKernelsUseTheGeometry) {
  std::mt19937 rng(7);
  {
    Node n{"Conv2d", "c", {f32({1, 6, 5, 4}), f32({3, 2, 2, 6}), f32({6})}, {f32({1, 3, 6, 6})},
           {stride_p(2, 1), pad_p(1, 0, 1, 1), u32_param("group", 2)}};
    expect_reads_geometry_only(n, {random_floats(rng, 120), random_floats(rng, 72), random_floats(rng, 6)});
  }
  {
    Node n{"DepthWiseConv2d", "d", {f32({1, 5, 5, 2}), f32({3, 3, 1, 4})}, {f32({1, 3, 3, 4})},
           {stride_p(2, 2), pad_p(1, 1, 1, 1), u32_tensor_param("dilation", {2}, {1, 1})}};
    expect_reads_geometry_only(n, {random_floats(rng, 50), random_floats(rng, 36)});
  }
  {
    Node n{"PoolMax2d", "m", {f32({1, 5, 5, 3})}, {f32({1, 3, 3, 3})},
           {u32_tensor_param("filter_size", {2}, {2, 2}), stride_p(2, 2), pad_p(0, 0, 0, 0),
            u32_param("rounding_mode", 1)}};
    expect_reads_geometry_only(n, {random_floats(rng, 75)});
  }
  {
    // count_pad_for_edges = 1 changes the edge averages: the geometry carries it.
    Node n{"PoolAvg3d", "a", {f32({1, 3, 4, 4, 2})}, {f32({1, 2, 2, 2, 2})},
           {u32_tensor_param("filter_size", {3}, {2, 3, 3}), u32_tensor_param("stride", {3}, {2, 2, 2}),
            u32_tensor_param("pad_amount", {3, 2}, {0, 1, 1, 0, 1, 0}), bool_param("count_pad_for_edges", true)}};
    expect_reads_geometry_only(n, {random_floats(rng, 96)});
  }
}

// The type adapter's float twin is handed the same geometry.
TEST(ParsedParamsReadOnce, TypeAdapterHandsTheGeometryOn) {
  TensorDesc x = typed(dtype::kUfixed8, {1, 4, 4, 2});
  x.quant = Quant::per_tensor(0.05f, -128);
  TensorDesc w = typed(dtype::kUfixed8, {3, 3, 2, 3});
  w.quant = Quant::per_tensor(0.02f, -128);
  TensorDesc y = typed(dtype::kUfixed8, {1, 2, 2, 3});
  y.quant = Quant::per_tensor(0.1f, -128);
  std::vector<uint8_t> wdata(54);
  for (size_t i = 0; i < wdata.size(); ++i) wdata[i] = static_cast<uint8_t>(i * 37);
  w.static_data = wdata.data();
  Node n{"Conv2d", "q", {x, w}, {y}, {stride_p(2, 2), pad_p(1, 0, 1, 0)}};
  ParsedParams parsed;
  ASSERT_TRUE(parse(n, &parsed).ok());
  std::unique_ptr<OpKernel> from_geometry, from_params;
  const Status s = prepare_without_params(n, parsed, &from_geometry);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_TRUE(n.prepare(&from_params).ok());
  std::vector<uint8_t> xdata(32);
  for (size_t i = 0; i < xdata.size(); ++i) xdata[i] = static_cast<uint8_t>(i * 11 + 3);
  std::vector<uint8_t> a(12, 0), b(12, 1);
  const void* ins[] = {xdata.data(), wdata.data()};
  void* out_a[] = {a.data()};
  void* out_b[] = {b.data()};
  from_geometry->run(ins, out_a);
  from_params->run(ins, out_b);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace opstest
