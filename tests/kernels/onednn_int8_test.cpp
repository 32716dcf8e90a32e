// The oneDNN int8 Conv2d / DepthWiseConv2d path ("onednn-int8") against the
// reference kernel, over random shapes, strides, paddings, dilations,
// groups, zero points and per-channel scales, with 1 and 2 threads; plus
// its exactness gate (VNNI check + self-test) and the cases it must decline.
//
// The path only exists on CPUs with VNNI: elsewhere these tests skip.
#include <dnnl.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "conv_cases.h"
#include "kernel_check.h"
#include "kernels/onednn_paths.h"
#include "kernels/onednn_runtime.h"

namespace kernelstest {
namespace {

namespace onednn = openhtp::kernels::onednn;

constexpr std::string_view kLib = "onednn-int8";

bool cpu_has_vnni() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512vnni") || __builtin_cpu_supports("avxvnni");
}

// Where oneDNN is told to stay below the CPU's ISA, VNNI may be off even on
// a VNNI CPU: the gate then declines, which is right, but the tests that
// expect it to pass must not run.
bool isa_limited_by_environment() {
  return std::getenv("ONEDNN_MAX_CPU_ISA") != nullptr || std::getenv("DNNL_MAX_CPU_ISA") != nullptr;
}

// Where the gate is closed (no VNNI, or its self-test failed) the path must
// decline every node, so XNNPACK runs them: that is what these tests check
// there, instead of comparing outputs the path never produces.
void expect_declines_hand_case();
#define CHECK_DECLINED_WITHOUT_INT8_PATH()   \
  do {                                       \
    if (!onednn::int8_convolution_exact()) { \
      expect_declines_hand_case();           \
      return;                                \
    }                                        \
  } while (0)

// Like conv_test.cpp's shapes, with wider channel counts so that the
// vectorized kernels' channel blocks and their tails are both exercised.
ConvShape random_shape(std::mt19937& rng, bool depthwise) {
  ConvShape s{};
  s.depthwise = depthwise;
  s.N = rand_int(rng, 1, 2);
  const uint32_t cin_g = depthwise ? 1 : rand_int(rng, 1, 40);
  s.group = depthwise ? rand_int(rng, 1, 40) : (rand_int(rng, 0, 3) == 0 ? rand_int(rng, 2, 3) : 1);
  s.Cin = s.group * cin_g;
  s.Cout = s.group * (depthwise ? 1 : rand_int(rng, 1, 40));
  random_window(rng, &s);
  return s;
}

Case make_case(const ConvShape& s, TensorDesc x, TensorDesc w, TensorDesc b, TensorDesc y) {
  return make_conv_case(s, std::move(x), std::move(w), std::move(b), std::move(y), GroupOfOne::kLeftOut);
}

int32_t pick_s8_zero_point(std::mt19937& rng) {
  static constexpr int32_t kSpecial[] = {0, -128, 127};
  const uint32_t i = rand_int(rng, 0, 3);
  return i < 3 ? kSpecial[i] : static_cast<int32_t>(rand_int(rng, 0, 255)) - 128;
}

// Activation kinds: u8 in/out, s8 in/out, u8 in with s8 out.
enum class Acts { kU8, kS8, kU8ToS8 };
struct Int8Param {
  bool depthwise;
  Acts acts;
  bool per_channel;
};

std::string param_name(const ::testing::TestParamInfo<Int8Param>& info) {
  static const char* kActs[] = {"U8", "S8", "U8ToS8"};
  return std::string(info.param.depthwise ? "DepthWise" : "Conv2d") + kActs[int(info.param.acts)] +
         (info.param.per_channel ? "PerChannel" : "PerTensor");
}

class OneDnnInt8 : public ::testing::TestWithParam<Int8Param> {};

TEST_P(OneDnnInt8, Within1LsbOfReference) {
  CHECK_DECLINED_WITHOUT_INT8_PATH();
  const Int8Param p = GetParam();
  std::mt19937 rng(700 + int(p.acts) * 4 + p.depthwise * 2 + p.per_channel);
  const FastPath& fp = fast_path(p.depthwise ? "DepthWiseConv2d" : "Conv2d", kLib);
  ThreadEnv one(1), two(2);
  const bool s8_in = p.acts == Acts::kS8, s8_out = p.acts != Acts::kU8;
  size_t outputs = 0, off_by_one = 0, distinct_sum = 0;
  for (int iter = 0; iter < 24; ++iter) {
    const ConvShape s = random_shape(rng, p.depthwise);
    const float xs = rand_float(rng, 0.002f, 0.05f);
    const int32_t xz = s8_in ? pick_s8_zero_point(rng) : pick_u8_zero_point(rng);
    std::vector<float> ws(s.Cout);
    for (float& v : ws) v = rand_float(rng, 0.001f, 0.03f);
    if (!p.per_channel) ws.assign(s.Cout, ws[0]);
    const Quant wq = p.per_channel ? per_channel(3, ws) : per_tensor(ws[0], 0);
    // Output step so that typical sums (std about 128^2/3 * sqrt(taps) in
    // integer units) span tens of steps, with some saturation.
    const float ys = xs * ws[0] * rand_float(rng, 60.0f, 200.0f) * std::sqrt(float(s.taps()));
    const int32_t yz = s8_out ? pick_s8_zero_point(rng) : pick_u8_zero_point(rng);
    // Bias scale 0 means in_scale * w_scale[c] (QNN's derived encoding);
    // per-tensor weights may also state that product explicitly.
    const Quant bq = per_tensor(p.per_channel ? 0.0f : xs * ws[0], 0);
    Case c = make_case(s, quantized(s8_in ? dtype::kSfixed8 : dtype::kUfixed8, {}, per_tensor(xs, -xz)),
                       quantized(dtype::kSfixed8, {}, wq), quantized(dtype::kSfixed32, {}, bq),
                       quantized(s8_out ? dtype::kSfixed8 : dtype::kUfixed8, {}, per_tensor(ys, -yz)));
    c.data.push_back(random_bytes(rng, c.node.inputs[0].num_elements()));
    c.data.push_back(random_bytes(rng, c.node.inputs[1].num_elements()));  // int8 over its full range
    if (s.bias) {
      std::vector<int32_t> b(s.Cout);
      for (auto& v : b) v = int32_t(rand_int(rng, 0, 40000)) - 20000;
      c.data.push_back(to_bytes(b));
    }
    c.bind_static();
    const Bytes ref = run_reference(c);
    std::vector<bool> seen(256, false);
    for (uint8_t v : ref) seen[v] = true;
    distinct_sum += std::count(seen.begin(), seen.end(), true);
    for (const ThreadEnv* env : {&one, &two}) {
      const Bytes fast = run_fast(c, fp, env->env());
      expect_within_1_lsb(fast, ref, s8_out, s.str());
      if (HasFatalFailure() || fast.size() != ref.size()) return;
      for (size_t i = 0; i < fast.size(); ++i) off_by_one += fast[i] != ref[i];
      outputs += fast.size();
    }
  }
  // Rounding ties and float error are rare: a systematic 1-LSB bias (e.g. a
  // zero point or bias off by one unit) would show up here.
  RecordProperty("outputs_off_by_one", std::to_string(off_by_one) + " of " + std::to_string(outputs));
  EXPECT_LT(off_by_one, outputs / 100 + 1) << off_by_one << " of " << outputs << " outputs off by one";
  // The data spans many output values (not everything saturated).
  EXPECT_GT(distinct_sum / 24, 20u);
}

INSTANTIATE_TEST_SUITE_P(Kernels, OneDnnInt8,
                         ::testing::Values(Int8Param{false, Acts::kU8, true}, Int8Param{false, Acts::kS8, true},
                                           Int8Param{false, Acts::kU8ToS8, true}, Int8Param{false, Acts::kU8, false},
                                           Int8Param{true, Acts::kU8, true}, Int8Param{true, Acts::kS8, true},
                                           Int8Param{true, Acts::kU8, false}),
                         param_name);

// On several threads, depthwise, pointwise and strided 1x1 convolutions of
// one image run as one slab per thread (onednn_slabs.h): of output rows, or
// for a pointwise one of pixels, which may start and end inside a row.
// Integer sums and one requantization per output: each slab's bytes are
// exactly what the whole convolution on one thread gives, for every stride,
// dilation and padding here, on 2 and 3 threads.
TEST(OneDnnInt8Slabs, SlabsEqualOneThread) {
  CHECK_DECLINED_WITHOUT_INT8_PATH();
  std::mt19937 rng(731);
  ThreadEnv one(1), two(2), three(3);
  for (int iter = 0; iter < 55; ++iter) {
    const bool stem = iter >= 45;              // an image's first layer
    const bool strided = iter >= 30 && !stem;  // a 1x1 convolution with a stride (ResNet's shortcut)
    const bool depthwise = !strided && !stem && iter % 2 == 0;
    ConvShape s = random_shape(rng, depthwise);
    s.N = 1;
    if (stem) {
      make_stem(rng, &s);
    } else if (strided) {
      make_strided_pointwise(rng, &s);
    } else if (depthwise) {
      s.group = rand_int(rng, 2, 40);
      s.Cin = s.Cout = s.group;
    } else {
      s.group = 1;
      s.KH = s.KW = s.sh = s.sw = 1;
      s.pt = s.pb = s.pl = s.pr = 0;
      s.H = rand_int(rng, 1, 12);
      s.W = rand_int(rng, (6 + s.H - 1) / s.H, 9);  // at least 6 pixels: two a thread
    }
    const uint32_t eh = (s.KH - 1) * s.dh + 1, ew = (s.KW - 1) * s.dw + 1;
    if (depthwise) s.H = rand_int(rng, int(eh + 5 * s.sh), 30);  // at least 6 output rows: two a thread
    s.Ho = (s.pt + s.H + s.pb - eh) / s.sh + 1;
    s.Wo = (s.pl + s.W + s.pr - ew) / s.sw + 1;
    std::vector<float> ws(s.Cout);
    for (float& v : ws) v = rand_float(rng, 0.001f, 0.03f);
    const float ys = 0.02f * ws[0] * 100.0f * std::sqrt(float(s.taps()));
    Case c = make_case(s, quantized(dtype::kUfixed8, {}, per_tensor(0.02f, -pick_u8_zero_point(rng))),
                       quantized(dtype::kSfixed8, {}, per_channel(3, ws)), quantized(dtype::kSfixed32, {}, per_tensor(0, 0)),
                       quantized(dtype::kUfixed8, {}, per_tensor(ys, -pick_u8_zero_point(rng))));
    c.data.push_back(random_bytes(rng, c.node.inputs[0].num_elements()));
    c.data.push_back(random_bytes(rng, c.node.inputs[1].num_elements()));
    if (s.bias) {
      std::vector<int32_t> b(s.Cout);
      for (auto& v : b) v = int32_t(rand_int(rng, 0, 40000)) - 20000;
      c.data.push_back(to_bytes(b));
    }
    c.bind_static();
    NodeDesc d = c.node.desc();
    d.env = three.env();
    EXPECT_TRUE(openhtp::kernels::onednn::slab_convolution(ParsedNode(d).desc())) << s.str();
    const FastPath& fp = fast_path(depthwise ? "DepthWiseConv2d" : "Conv2d", kLib);
    const Bytes whole = run_fast(c, fp, one.env());
    EXPECT_EQ(run_fast(c, fp, two.env()), whole) << s.str();
    EXPECT_EQ(run_fast(c, fp, three.env()), whole) << s.str();
    expect_within_1_lsb(whole, run_reference(c), false, s.str());
  }
}

// A 1x1 convolution small enough to compute by hand.
//   x: u8, scale 0.5, zero point 128, one pixel {130, 120} -> x - zp = {2, -8}
//   w: s8 [1,1,2,2] per-channel scales {0.25, 0.125}; w[ci][co] = {{2, -3}, {4, 5}}
//   bias (units in_scale*w_scale = {0.125, 0.0625}): {12, -4}
//   acc0 = 2*2 + (-8)*4 + 12 = -16 -> real -16 * 0.125 = -2.0
//   acc1 = 2*(-3) + (-8)*5 - 4 = -50 -> real -50 * 0.0625 = -3.125
//   y: u8, scale 0.1, zero point 100: -2.0/0.1 = -20 -> 80; -3.125/0.1 = -31.25 -> -31 -> 69
Case hand_case() {
  Case c;
  c.node.type = "Conv2d";
  c.node.name = "hand";
  c.node.inputs = {quantized(dtype::kUfixed8, {1, 1, 1, 2}, per_tensor(0.5f, -128)),
                   quantized(dtype::kSfixed8, {1, 1, 2, 2}, per_channel(3, {0.25f, 0.125f})),
                   quantized(dtype::kSfixed32, {2}, per_tensor(0.0f, 0))};
  c.node.outputs = {quantized(dtype::kUfixed8, {1, 1, 1, 2}, per_tensor(0.1f, -100))};
  c.node.params = {u32_tensor_param("stride", {2}, {1, 1}), u32_tensor_param("pad_amount", {2, 2}, {0, 0, 0, 0})};
  c.is_static = {false, true, true};
  const std::vector<int8_t> w{2, -3, 4, 5};
  c.data = {Bytes{130, 120}, to_bytes(w), to_bytes(std::vector<int32_t>{12, -4})};
  c.bind_static();
  return c;
}

void expect_declines_hand_case() {
  const Case c = hand_case();
  NodeDesc d = c.node.desc();
  std::unique_ptr<OpKernel> k;
  EXPECT_FALSE(fast_path("Conv2d", kLib).prepare(ParsedNode(d).desc(), &k)) << "gate closed, yet the int8 path accepted";
  EXPECT_EQ(k, nullptr);
}

TEST(OneDnnInt8Exact, HandComputedOneByOne) {
  CHECK_DECLINED_WITHOUT_INT8_PATH();
  const Case c = hand_case();
  ThreadEnv one(1);
  EXPECT_EQ(run_fast(c, fast_path("Conv2d", kLib), one.env()), (Bytes{80, 69}));
}

// Registered ahead of XNNPACK for both ops, so it is preferred wherever it
// accepts (XNNPACK stays the fallback).
TEST(OneDnnInt8Registry, ListedBeforeXnnpack) {
  for (std::string_view op : {"Conv2d", "DepthWiseConv2d"}) {
    int int8_at = -1, xnn_at = -1, i = 0;
    for (const FastPath& fp : openhtp::kernels::fast_paths()) {
      if (fp.type_name == op && fp.library == kLib) int8_at = i;
      if (fp.type_name == op && fp.library == "xnnpack") xnn_at = i;
      ++i;
    }
    ASSERT_GE(int8_at, 0) << op;
    ASSERT_GE(xnn_at, 0) << op;
    EXPECT_LT(int8_at, xnn_at) << op;
  }
}

// What the path must leave to others, each by breaking one rule of an
// accepted node.
TEST(OneDnnInt8Declines, OutsideItsEncodings) {
  CHECK_DECLINED_WITHOUT_INT8_PATH();
  const FastPath& fp = fast_path("Conv2d", kLib);
  ThreadEnv one(1);
  auto accepts = [&](const Case& c) {
    NodeDesc d = c.node.desc();
    d.env = one.env();
    std::unique_ptr<OpKernel> k;
    return fp.prepare(ParsedNode(d).desc(), &k);
  };
  ASSERT_TRUE(accepts(hand_case()));
  {
    Case c = hand_case();  // asymmetric int8 weights: oneDNN has no weight zero point
    c.node.inputs[1].quant = per_tensor(0.25f, 3);
    c.bind_static();
    EXPECT_FALSE(accepts(c));
  }
  {
    Case c = hand_case();  // per-channel zero point not 0
    c.node.inputs[1].quant.offsets[1] = -1;
    c.bind_static();
    EXPECT_FALSE(accepts(c));
  }
  {
    Case c = hand_case();  // uint8 weights (XNNPACK qu8 takes these)
    c.node.inputs[1].dtype = dtype::kUfixed8;
    c.node.inputs[1].quant = per_tensor(0.25f, -128);
    c.bind_static();
    EXPECT_FALSE(accepts(c));
  }
  {
    Case c = hand_case();  // weights computed at run time: nothing to reorder at prepare
    c.is_static[1] = false;
    c.bind_static();
    EXPECT_FALSE(accepts(c));
  }
  {
    Case c = hand_case();  // per-channel scales on an axis other than Cout
    c.node.inputs[1].quant.axis = 2;
    c.bind_static();
    EXPECT_FALSE(accepts(c));
  }
  {
    Case c = hand_case();  // 16-bit activations
    c.node.inputs[0].dtype = dtype::kUfixed16;
    c.node.outputs[0].dtype = dtype::kUfixed16;
    c.bind_static();
    EXPECT_FALSE(accepts(c));
  }
  {
    Case c = hand_case();  // float
    for (auto& t : c.node.inputs) {
      t.dtype = dtype::kFloat32;
      t.quant = Quant{};
    }
    c.node.outputs[0].dtype = dtype::kFloat32;
    c.node.outputs[0].quant = Quant{};
    c.data = {to_bytes(std::vector<float>{1, 2}), to_bytes(std::vector<float>{1, 2, 3, 4}),
              to_bytes(std::vector<float>{0, 0})};
    c.bind_static();
    EXPECT_FALSE(accepts(c));
  }
}

// Snapshot semantics (as fallback_test.cpp checks for the other paths): the
// weights and bias are packed at prepare; overwriting them afterwards
// changes nothing.
TEST(OneDnnInt8Snapshot, WeightsArePackedAtPrepare) {
  CHECK_DECLINED_WITHOUT_INT8_PATH();
  Case c = hand_case();
  ThreadEnv two(2);
  NodeDesc d = c.node.desc();
  d.env = two.env();
  std::unique_ptr<OpKernel> k;
  ASSERT_TRUE(fast_path("Conv2d", kLib).prepare(ParsedNode(d).desc(), &k));
  const Bytes first = run_kernel(*k, c.data, c.out_bytes());
  EXPECT_EQ(run_kernel(*k, c.data, c.out_bytes()), first);
  const Bytes before = run_reference(c);
  for (auto& byte : c.data[1]) byte = static_cast<uint8_t>(byte + 7);
  for (auto& byte : c.data[2]) byte = static_cast<uint8_t>(byte + 3);
  EXPECT_EQ(run_kernel(*k, c.data, c.out_bytes()), first);
  EXPECT_NE(run_reference(c), before);  // the overwrite did change the node
}

// ---- the exactness gate ----------------------------------------------------

TEST(OneDnnInt8Gate, SelfTestPassesWithVnni) {
  if (!cpu_has_vnni() || isa_limited_by_environment()) {
    // Without VNNI the gate stays closed whatever the self-test says.
    if (!cpu_has_vnni()) {
      EXPECT_FALSE(onednn::int8_convolution_exact());
    }
    EXPECT_EQ(onednn::int8_convolution_exact(), cpu_has_vnni() && onednn::int8_self_test());
    return;
  }
  EXPECT_TRUE(onednn::int8_self_test());
  EXPECT_TRUE(onednn::int8_convolution_exact());
}

// Breaking the rule: oneDNN limited to an ISA without VNNI (the CPU still
// reports VNNI, so only the self-test can notice) must make the path
// decline. Each runs in a fresh process (threadsafe death-test style
// re-executes the binary), because the ISA limit must be set before oneDNN's
// first use and the gate's answer is fixed per process. The child exits 3
// when the path declined, 4 when it accepted.
void run_gate_with_isa_limit(dnnl_cpu_isa_t isa) {
  if (dnnl_set_max_cpu_isa(isa) != dnnl_success) std::exit(5);
  const Case c = hand_case();
  NodeDesc d = c.node.desc();
  std::unique_ptr<OpKernel> k;
  const bool accepted = fast_path("Conv2d", kLib).prepare(ParsedNode(d).desc(), &k);
  std::exit(accepted ? 4 : 3);
}

class OneDnnInt8GateDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(OneDnnInt8GateDeathTest, DeclinesWhenLimitedToAvx2) {
  EXPECT_EXIT(run_gate_with_isa_limit(dnnl_cpu_isa_avx2), ::testing::ExitedWithCode(3), "");
}

TEST_F(OneDnnInt8GateDeathTest, DeclinesWhenLimitedToAvx512WithoutVnni) {
  EXPECT_EXIT(run_gate_with_isa_limit(dnnl_cpu_isa_avx512_core), ::testing::ExitedWithCode(3), "");
}

// Control for the two above: the same child with VNNI allowed accepts, so
// their exit code 3 comes from the self-test, not from the child's setup.
TEST_F(OneDnnInt8GateDeathTest, AcceptsWhenVnniAllowed) {
  // On a CPU without VNNI the gate must stay closed even with every ISA
  // allowed. (The child's dnnl_set_max_cpu_isa overrides ONEDNN_MAX_CPU_ISA.)
  const int expected = cpu_has_vnni() ? 4 : 3;
  EXPECT_EXIT(run_gate_with_isa_limit(dnnl_cpu_isa_all), ::testing::ExitedWithCode(expected), "");
}

}  // namespace
}  // namespace kernelstest
