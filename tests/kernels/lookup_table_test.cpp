// The lookup-table path (8-bit inputs: 256 entries; FLOAT_16 and 16-bit
// fixed point: 65536) must give the reference kernel's answer for every
// element, whatever the op, encodings and thread count.
#include "kernel_check.h"

namespace kernelstest {
namespace {

TensorDesc q8(uint32_t dt, std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dt, std::move(dims));
  t.quant = Quant::per_tensor(scale, offset);
  return t;
}

// Runs `n` through the reference and through the lookup table on every code
// (repeated and shuffled over a tensor large enough to be split across the
// pool), and requires identical bytes.
void expect_same_as_reference(Node n, size_t threads) {
  std::mt19937 rng(11);
  const size_t count = n.inputs[0].num_elements();
  const size_t in_bytes = dtype::element_size(n.inputs[0].dtype);
  Bytes x(count * in_bytes);
  if (in_bytes == 1) {
    for (size_t i = 0; i < count; ++i) x[i] = static_cast<uint8_t>(i % 256);
    std::shuffle(x.begin(), x.end(), rng);
  } else {
    std::vector<uint16_t> codes(count);
    for (size_t i = 0; i < count; ++i) codes[i] = static_cast<uint16_t>(i);
    std::shuffle(codes.begin(), codes.end(), rng);
    std::memcpy(x.data(), codes.data(), x.size());
  }
  const size_t out_bytes = n.outputs[0].num_bytes();
  Bytes want(out_bytes, 0xAA), got(out_bytes, 0x55);
  std::unique_ptr<OpKernel> ref, fast;
  ASSERT_TRUE(prepare_reference(n.desc(), &ref).ok());
  ThreadEnv env(threads);
  NodeDesc d = n.desc();
  d.env = env.env();
  ASSERT_TRUE(fast_path(n.type, "lookup-table").prepare(d, &fast)) << n.type;
  const void* in[] = {x.data()};
  void* o1[] = {want.data()};
  void* o2[] = {got.data()};
  ref->run(in, o1);
  fast->run(in, o2);
  EXPECT_EQ(got, want) << n.type << " threads " << threads;
}

TEST(LookupTable, MatchesReferenceForPointwiseOps) {
  const std::vector<uint32_t> dims{1, 40, 40, 160};  // 256000 elements: several pool tiles
  for (size_t threads : {1, 2}) {
    expect_same_as_reference({"Relu", "r", {q8(dtype::kUfixed8, dims, 0.05f, -100)},
                              {q8(dtype::kUfixed8, dims, 0.03f, 0)}, {}}, threads);
    expect_same_as_reference({"ReluMinMax", "clip", {q8(dtype::kUfixed8, dims, 0.05f, -100)},
                              {q8(dtype::kUfixed8, dims, 6.0f / 255, 0)},
                              {f32_param("min_value", 0.0f), f32_param("max_value", 6.0f)}}, threads);
    expect_same_as_reference({"Sigmoid", "s", {q8(dtype::kSfixed8, dims, 0.1f, 0)},
                              {q8(dtype::kUfixed8, dims, 1.0f / 256, 0)}, {}}, threads);
    expect_same_as_reference({"HardSwish", "h", {q8(dtype::kUfixed8, dims, 0.04f, -128)},
                              {q8(dtype::kUfixed8, dims, 0.03f, -20)}, {}}, threads);
    expect_same_as_reference({"Dequantize", "dq", {q8(dtype::kUfixed8, dims, 0.04f, -128)},
                              {typed(dtype::kFloat32, dims)}, {}}, threads);
  }
}

// 16-bit inputs: every one of the 65536 codes (NaN and infinity halves
// among them), each op's table equal to the reference (the type adapter
// around the float reference kernel), into 16-bit, 8-bit and float outputs.
TEST(LookupTable, SixteenBitInputsMatchReference) {
  const std::vector<uint32_t> dims{1, 64, 64, 32};  // 131072 elements: every code twice
  const TensorDesc h = typed(dtype::kFloat16, dims);
  const TensorDesc u16 = q8(dtype::kUfixed16, dims, 0.0004f, -30000);
  const TensorDesc s16 = q8(dtype::kSfixed16, dims, 0.0002f, 0);
  const TensorDesc unit16 = q8(dtype::kUfixed16, dims, 1.0f / 65536, 0);
  for (size_t threads : {1, 2}) {
    expect_same_as_reference({"Gelu", "g", {h}, {h}, {}}, threads);
    expect_same_as_reference({"Sigmoid", "s", {h}, {h}, {}}, threads);
    expect_same_as_reference({"Tanh", "t", {h}, {h}, {}}, threads);
    expect_same_as_reference({"Relu", "r", {h}, {h}, {}}, threads);
    expect_same_as_reference({"ElementWiseNeuron", "sp", {h}, {h}, {u32_param("operation", 7)}}, threads);  // SOFTPLUS
    expect_same_as_reference({"ElementWiseExp", "e", {h}, {h}, {}}, threads);
    expect_same_as_reference({"Convert", "c", {h}, {typed(dtype::kFloat32, dims)}, {}}, threads);
    expect_same_as_reference({"Gelu", "g", {u16}, {u16}, {}}, threads);
    expect_same_as_reference({"Sigmoid", "s", {s16}, {unit16}, {}}, threads);
    expect_same_as_reference({"Relu", "r", {u16}, {q8(dtype::kUfixed16, dims, 0.0003f, 0)}, {}}, threads);
    expect_same_as_reference({"Dequantize", "dq", {u16}, {typed(dtype::kFloat32, dims)}, {}}, threads);
    expect_same_as_reference({"Convert", "c", {s16}, {q8(dtype::kUfixed8, dims, 0.05f, -128)}, {}}, threads);
  }
}

// The standalone activation and element-wise names take the same path as
// their generic forms: every one tabulated, identical to the reference.
TEST(LookupTable, MatchesReferenceForStandaloneNames) {
  const std::vector<uint32_t> dims{1, 4, 4, 64};
  for (const char* type : {"ElementWiseAbs", "ElementWiseAsin", "ElementWiseAtan", "ElementWiseCeil",
                           "ElementWiseCos", "ElementWiseExp", "ElementWiseFloor", "ElementWiseLog", "ElementWiseNeg",
                           "ElementWiseRound", "ElementWiseRsqrt", "ElementWiseSign", "ElementWiseSin",
                           "ElementWiseSquareRoot", "ElementWiseSoftplus", "Relu1", "Relu6", "Elu", "Logit"}) {
    // Inputs in (-1, 1) so Asin and Logit see their domain; outputs wide
    // enough for Exp.
    expect_same_as_reference({type, "u", {q8(dtype::kUfixed8, dims, 2.0f / 255, -128)},
                              {q8(dtype::kUfixed8, dims, 0.02f, -128)}, {}}, 1);
  }
}

TEST(LookupTable, DeclinesWhatItCannotTabulate) {
  std::unique_ptr<OpKernel> k;
  const std::vector<uint32_t> dims{2, 8};
  // Float input: 2^32 codes.
  Node f{"Relu", "r", {f32(dims)}, {f32(dims)}, {}};
  EXPECT_FALSE(fast_path("Relu", "lookup-table").prepare(f.desc(), &k));
  // A small 16-bit tensor: 65536 answers would cost more than they save.
  Node u16{"Relu", "r", {q8(dtype::kUfixed16, dims, 0.1f, 0)}, {q8(dtype::kUfixed16, dims, 0.1f, 0)}, {}};
  EXPECT_FALSE(fast_path("Relu", "lookup-table").prepare(u16.desc(), &k));
  Node h{"Gelu", "g", {typed(dtype::kFloat16, dims)}, {typed(dtype::kFloat16, dims)}, {}};
  EXPECT_FALSE(fast_path("Gelu", "lookup-table").prepare(h.desc(), &k));
  // A large 16-bit one with a per-channel encoding.
  TensorDesc pc16 = typed(dtype::kUfixed16, {1, 1024, 32});
  pc16.quant.present = true;
  pc16.quant.axis = 2;
  pc16.quant.scales.assign(32, 0.1f);
  pc16.quant.offsets.assign(32, 0);
  Node per_channel16{"Relu", "r", {pc16}, {q8(dtype::kUfixed16, {1, 1024, 32}, 0.1f, 0)}, {}};
  EXPECT_FALSE(fast_path("Relu", "lookup-table").prepare(per_channel16.desc(), &k));
  // Per-channel input encoding: the table would differ per channel.
  TensorDesc pc = typed(dtype::kSfixed8, dims);
  pc.quant.present = true;
  pc.quant.axis = 1;
  pc.quant.scales.assign(8, 0.1f);
  pc.quant.offsets.assign(8, 0);
  Node per_channel{"Relu", "r", {pc}, {q8(dtype::kUfixed8, dims, 0.1f, 0)}, {}};
  EXPECT_FALSE(fast_path("Relu", "lookup-table").prepare(per_channel.desc(), &k));
  EXPECT_EQ(k, nullptr);
}

}  // namespace
}  // namespace kernelstest
