// Fused epilogues (ops::Epilogue, made by htp/fusion.h): a producer kernel
// with an epilogue must give what the separate nodes give — the producer's
// reference output, then the residual add, then the clamp. Over randomized
// shapes and encodings, 1 and 2 threads:
//   - the reference with an epilogue equals that composition bit for bit;
//   - the fp32 oneDNN paths (post-ops) are within the bound the unfused
//     tests use (expect_f32_close, with the residual as one more term);
//   - the 8-bit paths (XNNPACK output min/max, oneDNN int8 eltwise clip)
//     are within 1 LSB of the unfused reference clamped on codes, as the
//     unfused tests allow;
//   - the oneDNN int8 convolutions with an 8-bit residual Add (and a clamp
//     after it) round where the nodes round: within 1 LSB of the nodes,
//     nearly every code equal;
//   - every path declines what it cannot do exactly (an off-grid 8-bit
//     bound, an 8-bit residual on the XNNPACK paths, an fp16 residual);
//   - the fp16 XNNPACK convolutions' clamp equals the nodes bit for bit;
//   - the type adapter, which runs fp16 and 8-bit producers that have no
//     native path, rounds where the nodes round: bit for bit.
#include <cmath>
#include <limits>
#include <optional>
#include <span>

#include "kernel_check.h"
#include "kernels/onednn_paths.h"
#include "kernels/onednn_runtime.h"

namespace kernelstest {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Variant {
  bool residual, clamp;
  float lo, hi;
  std::string str() const {
    return std::string(residual ? "+residual" : "") +
           (clamp ? " clamp[" + std::to_string(lo) + "," + std::to_string(hi) + "]" : "");
  }
};
// fp32: relu, a two-sided clamp, a residual add, a residual add then relu.
const Variant kF32Variants[] = {
    {false, true, 0.0f, kInf}, {false, true, -0.3f, 0.4f}, {true, false, 0.0f, 0.0f}, {true, true, 0.0f, kInf}};

// Prepares c's node with epilogue v (fast path fp, or the reference when
// null) and runs it; the residual's data is the input after the op's own.
Bytes run_fused(const Case& c, const Variant& v, const Bytes& residual, const FastPath* fp, const KernelEnv* env,
                bool* accepted = nullptr) {
  TensorDesc r = c.node.outputs[0];
  Epilogue e;
  e.residual = v.residual ? &r : nullptr;
  e.clamp = v.clamp;
  e.lo = v.lo;
  e.hi = v.hi;
  NodeDesc d = c.node.desc();
  d.env = env;
  d.epilogue = &e;
  std::unique_ptr<OpKernel> k;
  const bool ok = fp ? fp->prepare(ParsedNode(d).desc(), &k) && k : prepare_reference(d, &k).ok() && k;
  if (accepted) *accepted = ok;
  else EXPECT_TRUE(ok) << (fp ? fp->library : "reference") << " declined " << c.node.type << v.str();
  if (!ok) return {};
  std::vector<Bytes> ins = c.data;
  if (v.residual) ins.push_back(residual);
  return run_kernel(*k, ins, c.out_bytes());
}

std::vector<float> abs_of(const std::vector<float>& v) {
  std::vector<float> a(v.size());
  for (size_t i = 0; i < v.size(); ++i) a[i] = std::fabs(v[i]);
  return a;
}

// Checks one fp32 case against every variant: reference exact, fast path
// within the unfused tests' bound. K: terms per output of the producer.
// The producer's output on the reference (`plain`) and the same over the
// inputs' absolute values (`sums`, what the error bound scales with).
struct PlainAndSums {
  std::vector<float> plain, sums;
};
PlainAndSums plain_and_sums(Case& c) {
  c.bind_static();
  PlainAndSums r{from_bytes<float>(run_reference(c)), {}};
  Case abs_case = c;
  for (auto& d : abs_case.data) {
    if (!d.empty()) d = to_bytes(abs_of(from_bytes<float>(d)));
  }
  abs_case.bind_static();
  r.sums = from_bytes<float>(run_reference(abs_case));
  return r;
}

void check_f32(Case& c, const FastPath& fp, size_t K, std::mt19937& rng, const std::string& what,
               std::span<const Variant> variants = kF32Variants) {
  const auto [plain, sums] = plain_and_sums(c);
  ThreadEnv one(1), two(2);
  for (const Variant& v : variants) {
    const auto res = random_floats(rng, plain.size());
    // What the separate nodes compute: ElementWiseAdd, then Relu / ReluMinMax.
    std::vector<float> want = plain;
    Epilogue e;
    TensorDesc dummy;
    e.residual = v.residual ? &dummy : nullptr;
    e.clamp = v.clamp;
    e.lo = v.lo;
    e.hi = v.hi;
    e.apply(want.data(), res.data(), want.size());
    const auto ref = from_bytes<float>(run_fused(c, v, to_bytes(res), nullptr, nullptr));
    ASSERT_EQ(ref.size(), want.size());
    EXPECT_EQ(0, std::memcmp(ref.data(), want.data(), want.size() * 4)) << what << v.str() << ": reference";
    std::vector<float> bound = sums;
    if (v.residual) {
      for (size_t i = 0; i < bound.size(); ++i) bound[i] += std::fabs(res[i]);
    }
    for (const ThreadEnv* env : {&one, &two}) {
      const auto fast = from_bytes<float>(run_fused(c, v, to_bytes(res), &fp, env->env()));
      expect_f32_close(fast, want, bound, K + 1, what + v.str());
    }
  }
}

struct ConvShape {
  uint32_t N, H, W, Cin, K, Cout, group, s, p, Ho, Wo;
  bool depthwise, bias;
  std::string str() const {
    return (depthwise ? "dw " : "conv ") + std::to_string(N) + "x" + std::to_string(H) + "x" + std::to_string(W) +
           "x" + std::to_string(Cin) + " k" + std::to_string(K) + " Cout " + std::to_string(Cout) + " g" +
           std::to_string(group) + " s" + std::to_string(s) + " p" + std::to_string(p);
  }
};

ConvShape random_conv(std::mt19937& rng, bool depthwise) {
  ConvShape c{};
  c.depthwise = depthwise;
  c.N = rand_int(rng, 1, 2);
  c.group = depthwise ? rand_int(rng, 1, 8) : rand_int(rng, 1, 2);
  c.Cin = c.group * (depthwise ? 1 : rand_int(rng, 1, 6));
  c.Cout = c.group * rand_int(rng, 1, depthwise ? 2 : 8);
  c.K = rand_int(rng, 1, 3);
  c.s = rand_int(rng, 1, 2);
  c.p = rand_int(rng, 0, c.K - 1);
  c.H = rand_int(rng, c.K, 10);
  c.W = rand_int(rng, c.K, 10);
  c.Ho = (c.H + 2 * c.p - c.K) / c.s + 1;
  c.Wo = (c.W + 2 * c.p - c.K) / c.s + 1;
  c.bias = rand_int(rng, 0, 2) != 0;
  return c;
}

Case conv_case(const ConvShape& s, TensorDesc x, TensorDesc w, TensorDesc b, TensorDesc y) {
  Case c;
  c.node.type = s.depthwise ? "DepthWiseConv2d" : "Conv2d";
  c.node.name = s.str();
  x.dims = {s.N, s.H, s.W, s.Cin};
  w.dims = {s.K, s.K, s.Cin / s.group, s.Cout};
  b.dims = {s.Cout};
  y.dims = {s.N, s.Ho, s.Wo, s.Cout};
  c.node.inputs = {x, w};
  if (s.bias) c.node.inputs.push_back(b);
  c.node.outputs = {y};
  c.node.params = {u32_tensor_param("stride", {2}, {s.s, s.s}),
                   u32_tensor_param("pad_amount", {2, 2}, {s.p, s.p, s.p, s.p})};
  if (!s.depthwise) c.node.params.push_back(u32_param("group", s.group));
  c.is_static = {false, true, true};
  c.is_static.resize(c.node.inputs.size());
  return c;
}

class FusedConvF32 : public ::testing::TestWithParam<bool> {};

TEST_P(FusedConvF32, OneDnnPostOpsMatchUnfused) {
  std::mt19937 rng(GetParam() ? 701 : 702);
  const FastPath& fp = fast_path(GetParam() ? "DepthWiseConv2d" : "Conv2d", "onednn");
  for (int iter = 0; iter < 10; ++iter) {
    const ConvShape s = random_conv(rng, GetParam());
    Case c = conv_case(s, f32({}), f32({}), f32({}), f32({}));
    for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements())));
    check_f32(c, fp, size_t{s.K} * s.K * (s.Cin / s.group) + (s.bias ? 1 : 0), rng, s.str());
  }
}
INSTANTIATE_TEST_SUITE_P(Kernels, FusedConvF32, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "DepthWise" : "Conv2d"; });

// Winograd has no binary post-op: its residual is a `sum` onto the output
// the residual was first reordered into. Its shapes: 3x3, stride 1. Its
// kernels take relu and sum post-ops only, so a two-sided clamp is declined
// and the direct path runs the node.
TEST(FusedConvF32, WinogradPostOpsMatchUnfused) {
  std::mt19937 rng(706);
  const FastPath& fp = fast_path("Conv2d", "onednn-winograd");
  const Variant relu_and_residuals[] = {kF32Variants[0], kF32Variants[2], kF32Variants[3]};
  for (int iter = 0; iter < 6; ++iter) {
    ConvShape s{};
    s.N = rand_int(rng, 1, 2);
    s.Cin = 16 * rand_int(rng, 1, 2);
    s.Cout = 16 * rand_int(rng, 1, 2);
    s.K = 3;
    s.group = s.s = 1;
    s.p = rand_int(rng, 0, 1);
    s.H = rand_int(rng, 6, 14);
    s.W = rand_int(rng, 6, 14);
    s.Ho = s.H + 2 * s.p - 2;
    s.Wo = s.W + 2 * s.p - 2;
    s.bias = rand_int(rng, 0, 1) != 0;
    Case c = conv_case(s, f32({}), f32({}), f32({}), f32({}));
    for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements())));
    c.bind_static();
    bool accepted = false;
    run_fast(c, fp, nullptr, &accepted);
    if (!accepted) {
      // No Winograd kernels on this CPU (AVX-512 only): the direct path takes
      // the fused node instead, with every variant.
      run_fast(c, fast_path("Conv2d", "onednn"), nullptr, &accepted);
      EXPECT_TRUE(accepted) << s.str();
      continue;
    }
    check_f32(c, fp, size_t{9} * s.Cin + (s.bias ? 1 : 0), rng, s.str(), relu_and_residuals);
    const Bytes residual = to_bytes(random_floats(rng, c.node.outputs[0].num_elements()));
    run_fused(c, kF32Variants[1], residual, &fp, nullptr, &accepted);
    EXPECT_FALSE(accepted) << "two-sided clamp";
    run_fused(c, kF32Variants[1], residual, &fast_path("Conv2d", "onednn"), nullptr, &accepted);
    EXPECT_TRUE(accepted) << "two-sided clamp, direct path";
  }
}


// SiLU epilogues (the EpilogueTail: openhtp's SiLU pass after the oneDNN
// primitive): alone, with a residual before it, with a clamp after it. The
// unfused nodes compute the producer's output y (within the sum bound B),
// then the reference's y * (1 / (1 + exp(-y))) (double, rounded), then the
// clamp; the tail's SiLU is within 2 ulp of that formula and its slope is at
// most 1.1 in magnitude, so the two agree within 1.1 B + 4 ulp.
struct SiluVariant {
  bool residual, clamp;
  float lo, hi;
};
const SiluVariant kSiluVariants[] = {{false, false, 0, 0}, {true, false, 0, 0}, {false, true, -0.2f, 0.5f},
                                     {true, true, 0.0f, kInf}};

void check_silu(Case& c, const FastPath& fp, size_t K, std::mt19937& rng, const std::string& what) {
  const auto [plain, sums] = plain_and_sums(c);
  ThreadEnv one(1), two(2);
  for (const SiluVariant& v : kSiluVariants) {
    const auto res = random_floats(rng, plain.size());
    TensorDesc r = c.node.outputs[0];
    Epilogue e;
    e.residual = v.residual ? &r : nullptr;
    e.swish = true;
    e.clamp = v.clamp;
    e.lo = v.lo;
    e.hi = v.hi;
    std::vector<float> want = plain;
    e.apply(want.data(), res.data(), want.size());
    for (const ThreadEnv* env : {&one, &two}) {
      NodeDesc d = c.node.desc();
      d.env = env->env();
      d.epilogue = &e;
      std::unique_ptr<OpKernel> k;
      ASSERT_TRUE(fp.prepare(ParsedNode(d).desc(), &k) && k) << fp.library << " declined SiLU on " << what;
      std::vector<Bytes> ins = c.data;
      if (v.residual) ins.push_back(to_bytes(res));
      const auto got = from_bytes<float>(run_kernel(*k, ins, c.out_bytes()));
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        const double bound = 2.0 * (K + 3) * 5.97e-8 * (sums[i] + (v.residual ? std::fabs(res[i]) : 0.0));
        const double tol = 1.1 * bound + 4 * 5.97e-8 * std::fabs(want[i]) + 1e-37;
        ASSERT_NEAR(got[i], want[i], tol) << what << " SiLU" << (v.residual ? " +residual" : "")
                                           << (v.clamp ? " clamp" : "") << " at " << i;
      }
    }
  }
}

TEST(FusedSilu, ConvDepthwiseFullyConnectedAndMatMulMatchUnfused) {
  std::mt19937 rng(707);
  for (bool depthwise : {false, true}) {
    for (int iter = 0; iter < 6; ++iter) {
      ConvShape s = random_conv(rng, depthwise);
      Case c = conv_case(s, f32({}), f32({}), f32({}), f32({}));
      for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements(), -2, 2)));
      check_silu(c, fast_path(depthwise ? "DepthWiseConv2d" : "Conv2d", "onednn"),
                 size_t{s.K} * s.K * (s.Cin / s.group) + (s.bias ? 1 : 0), rng, s.str());
    }
  }
  // Big enough for the pass to be split over the pool (>= 64K outputs).
  ConvShape big{1, 64, 64, 8, 1, 24, 1, 1, 0, 64, 64, false, true};
  Case c = conv_case(big, f32({}), f32({}), f32({}), f32({}));
  for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements(), -2, 2)));
  check_silu(c, fast_path("Conv2d", "onednn"), 9, rng, big.str());

  Case fc;
  fc.node.type = "FullyConnected";
  fc.node.inputs = {f32({5, 40}), f32({30, 40}), f32({30})};
  fc.node.outputs = {f32({5, 30})};
  fc.is_static = {false, true, true};
  for (const auto& t : fc.node.inputs) fc.data.push_back(to_bytes(random_floats(rng, t.num_elements(), -2, 2)));
  check_silu(fc, fast_path("FullyConnected", "onednn"), 41, rng, "fc");

  Case mm;
  mm.node.type = "MatMul";
  mm.node.inputs = {f32({2, 7, 20}), f32({20, 9})};
  mm.node.outputs = {f32({2, 7, 9})};
  mm.node.params = {bool_param("transpose_in0", false), bool_param("transpose_in1", false)};
  mm.is_static = {false, true};
  for (const auto& t : mm.node.inputs) mm.data.push_back(to_bytes(random_floats(rng, t.num_elements(), -2, 2)));
  check_silu(mm, fast_path("MatMul", "onednn"), 20, rng, "matmul");
}

// A tall image on two threads runs as one Winograd slab of rows per thread
// (onednn_winograd_convolution.cpp): the residual is reordered and summed
// per slab, a SiLU (which the Winograd kernels have no post-op for) runs on
// each slab's rows after it. Where the CPU has no Winograd kernels
// (AVX-512 only), the direct path must take the same fused node.
TEST(FusedConvF32, WinogradSlabsPostOpsAndSiluMatchUnfused) {
  std::mt19937 rng(708);
  const ConvShape s{1, 60, 7, 16, 3, 32, 1, 1, 1, 60, 7, false, true};
  Case c = conv_case(s, f32({}), f32({}), f32({}), f32({}));
  for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements(), -2, 2)));
  c.bind_static();
  ThreadEnv two(2);
  NodeDesc d = c.node.desc();
  d.env = two.env();
  bool accepted = false;
  run_fast(c, fast_path("Conv2d", "onednn-winograd"), two.env(), &accepted);
  const FastPath& fp = fast_path("Conv2d", accepted ? "onednn-winograd" : "onednn");
  EXPECT_TRUE(openhtp::kernels::onednn::winograd_slab_convolution(ParsedNode(d).desc()));
  const Variant relu_and_residuals[] = {kF32Variants[0], kF32Variants[2], kF32Variants[3]};
  check_f32(c, fp, size_t{9} * s.Cin + 1, rng, s.str(), relu_and_residuals);
  check_silu(c, fp, size_t{9} * s.Cin + 1, rng, s.str());
}

// A small map under weights at least 4x its size, on two threads, runs as
// one part of the output channels per thread (onednn_winograd_convolution.cpp):
// each part reads its slice of the weights and bias, writes (and, with a
// residual, reads) its channels through a strided view of the NHWC tensor.
TEST(FusedConvF32, WinogradChannelPartsPostOpsMatchUnfused) {
  std::mt19937 rng(710);
  const ConvShape shapes[] = {{1, 6, 6, 16, 3, 32, 1, 1, 1, 6, 6, false, true},
                              {1, 7, 9, 32, 3, 64, 1, 1, 0, 5, 7, false, false}};
  for (const ConvShape& s : shapes) {
    Case c = conv_case(s, f32({}), f32({}), f32({}), f32({}));
    for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements(), -2, 2)));
    c.bind_static();
    ThreadEnv one(1), two(2);
    bool accepted = false;
    run_fast(c, fast_path("Conv2d", "onednn-winograd"), one.env(), &accepted);
    if (!accepted) continue;  // no Winograd kernels on this CPU (AVX-512 only)
    run_fast(c, fast_path("Conv2d", "onednn-winograd"), two.env(), &accepted);
    EXPECT_TRUE(accepted) << "in parts of the channels: " << s.str();
    NodeDesc d = c.node.desc();
    d.env = two.env();
    EXPECT_TRUE(openhtp::kernels::onednn::winograd_channel_part_convolution(ParsedNode(d).desc())) << s.str();
    const Variant relu_and_residuals[] = {kF32Variants[0], kF32Variants[2], kF32Variants[3]};
    check_f32(c, fast_path("Conv2d", "onednn-winograd"), size_t{9} * s.Cin + (s.bias ? 1 : 0), rng, s.str(),
              relu_and_residuals);
  }
}

TEST(FusedFullyConnected, F32OneDnnPostOpsMatchUnfused) {
  std::mt19937 rng(703);
  const FastPath& fp = fast_path("FullyConnected", "onednn");
  for (int iter = 0; iter < 10; ++iter) {
    const uint32_t batch = rand_int(rng, 1, 6), n = rand_int(rng, 1, 200), m = rand_int(rng, 1, 100);
    const bool bias = rand_int(rng, 0, 1) != 0;
    Case c;
    c.node.type = "FullyConnected";
    c.node.inputs = {f32({batch, n}), f32({m, n})};
    if (bias) c.node.inputs.push_back(f32({m}));
    c.node.outputs = {f32({batch, m})};
    c.is_static = {false, true, true};
    c.is_static.resize(c.node.inputs.size());
    for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements())));
    check_f32(c, fp, n + 1, rng, "fc " + std::to_string(batch) + "x" + std::to_string(n) + "->" + std::to_string(m));
  }
}

TEST(FusedMatMul, F32OneDnnPostOpsMatchUnfused) {
  std::mt19937 rng(704);
  const FastPath& fp = fast_path("MatMul", "onednn");
  for (int iter = 0; iter < 10; ++iter) {
    const uint32_t B = rand_int(rng, 1, 3), M = rand_int(rng, 1, 30), N = rand_int(rng, 1, 30), K = rand_int(rng, 1, 50);
    const bool tb = rand_int(rng, 0, 1) != 0, bias = rand_int(rng, 0, 1) != 0;
    Case c;
    c.node.type = "MatMul";
    c.node.inputs = {f32({B, M, K}), tb ? f32({B, N, K}) : f32({B, K, N})};
    if (bias) c.node.inputs.push_back(f32({N}));
    c.node.outputs = {f32({B, M, N})};
    c.node.params = {bool_param("transpose_in0", false), bool_param("transpose_in1", tb)};
    c.is_static = {false, false, true};
    c.is_static.resize(c.node.inputs.size());
    for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements())));
    check_f32(c, fp, K + 1, rng, "matmul");
  }
}

TEST(FusedTransposeConv2d, ReferenceEqualsUnfused) {
  std::mt19937 rng(705);
  for (int iter = 0; iter < 6; ++iter) {
    const uint32_t H = rand_int(rng, 1, 6), W = rand_int(rng, 1, 6), Cin = rand_int(rng, 1, 4),
                   Cout = rand_int(rng, 1, 4), k = rand_int(rng, 1, 3), s = rand_int(rng, 1, 2);
    Case c;
    c.node.type = "TransposeConv2d";
    c.node.inputs = {f32({1, H, W, Cin}), f32({k, k, Cin, Cout}), f32({Cout})};
    c.node.outputs = {f32({1, (H - 1) * s + k, (W - 1) * s + k, Cout})};
    c.node.params = {u32_tensor_param("stride", {2}, {s, s}), u32_tensor_param("pad_amount", {2, 2}, {0, 0, 0, 0})};
    c.is_static = {false, true, true};
    for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements())));
    c.bind_static();
    const auto plain = from_bytes<float>(run_reference(c));
    ASSERT_FALSE(plain.empty());
    for (const Variant& v : kF32Variants) {
      const auto res = random_floats(rng, plain.size());
      std::vector<float> want = plain;
      for (size_t i = 0; i < want.size(); ++i) {
        if (v.residual) want[i] += res[i];
        if (v.clamp) want[i] = std::min(std::max(want[i], v.lo), v.hi);
      }
      const auto got = from_bytes<float>(run_fused(c, v, to_bytes(res), nullptr, nullptr));
      ASSERT_EQ(got.size(), want.size());
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * 4)) << v.str();
    }
  }
}

// oneDNN's deconvolution against the reference TransposeConv2d, plain and
// with every fp32 epilogue: random sizes, strides, both paddings, output
// padding (up to the end padding, which is what the path takes), groups,
// with and without bias, 1 and 2 threads.
TEST(FusedTransposeConv2d, OneDnnMatchesTheReference) {
  std::mt19937 rng(706);
  const FastPath& fp = fast_path("TransposeConv2d", "onednn");
  const Variant variants[] = {{false, false, 0.0f, 0.0f}, kF32Variants[0], kF32Variants[1], kF32Variants[2],
                              kF32Variants[3]};
  for (int iter = 0; iter < 16; ++iter) {
    const uint32_t group = rand_int(rng, 1, 3), cin_g = rand_int(rng, 1, 5), cout_g = rand_int(rng, 1, 5);
    const uint32_t k = rand_int(rng, 1, 4), st = rand_int(rng, 1, 3), H = rand_int(rng, 1, 7), W = rand_int(rng, 1, 7);
    uint32_t pad[4];
    for (auto& p : pad) p = rand_int(rng, 0, k - 1);
    const uint32_t oph = std::min(st - 1, pad[1]) > 0 ? rand_int(rng, 0, std::min(st - 1, pad[1])) : 0;
    const uint32_t opw = std::min(st - 1, pad[3]) > 0 ? rand_int(rng, 0, std::min(st - 1, pad[3])) : 0;
    const int64_t Ho = int64_t{st} * (H - 1) + k - pad[0] - pad[1] + oph;
    const int64_t Wo = int64_t{st} * (W - 1) + k - pad[2] - pad[3] + opw;
    if (Ho < 1 || Wo < 1) continue;
    const bool bias = iter % 3 != 0;
    Case c;
    c.node.type = "TransposeConv2d";
    c.node.name = "tconv k" + std::to_string(k) + " s" + std::to_string(st) + " g" + std::to_string(group);
    c.node.inputs = {f32({1, H, W, group * cin_g}), f32({k, k, group * cin_g, cout_g})};
    if (bias) c.node.inputs.push_back(f32({group * cout_g}));
    c.node.outputs = {f32({1, uint32_t(Ho), uint32_t(Wo), group * cout_g})};
    c.node.params = {u32_tensor_param("stride", {2}, {st, st}),
                     u32_tensor_param("pad_amount", {2, 2}, {pad[0], pad[1], pad[2], pad[3]})};
    if (oph + opw > 0) c.node.params.push_back(u32_tensor_param("output_padding", {2}, {oph, opw}));
    if (group > 1) c.node.params.push_back(u32_param("group", group));
    c.is_static = {false, true, true};
    c.is_static.resize(c.node.inputs.size());
    for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements())));
    check_f32(c, fp, size_t{k} * k * cin_g, rng, c.node.name, variants);
  }
}

// ---- 8-bit: clamp on the output's codes --------------------------------

// kind 0: Conv2d qu8 (XNNPACK), 1: Conv2d qc8 uint8 activations (XNNPACK),
// 2: DepthWiseConv2d qc8 (XNNPACK), 3: Conv2d via oneDNN int8 (VNNI only),
// 4: FullyConnected qu8 (XNNPACK), 5: MatMul u8 x u8 via oneDNN int8 (VNNI
// only).
class FusedQuant : public ::testing::TestWithParam<int> {};

TEST_P(FusedQuant, OutputClampWithin1LsbOfUnfused) {
  const int kind = GetParam();
  std::mt19937 rng(800 + kind);
  const char* type = kind == 2 ? "DepthWiseConv2d" : kind == 4 ? "FullyConnected" : kind == 5 ? "MatMul" : "Conv2d";
  const bool onednn = kind == 3 || kind == 5;
  const FastPath& fp = fast_path(type, onednn ? "onednn-int8" : "xnnpack");
  // Without exact oneDNN int8 (no VNNI) the path must decline every node.
  const bool declines = onednn && !openhtp::kernels::onednn::int8_convolution_exact();
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 10; ++iter) {
    const float xs = rand_float(rng, 0.005f, 0.05f), ws = rand_float(rng, 0.002f, 0.02f);
    // Output zero point below 200: a Relu at code 255 leaves one code, which
    // XNNPACK refuses (output_min == output_max) — a legal decline.
    const int32_t xz = pick_u8_zero_point(rng), yz = std::min(200, int32_t(pick_u8_zero_point(rng)));
    const bool qu8 = kind == 0 || kind == 4 || kind == 5;
    const Quant wq = qu8 ? per_tensor(ws, -pick_u8_zero_point(rng)) : per_tensor(ws, 0);
    const uint32_t wdt = qu8 ? dtype::kUfixed8 : dtype::kSfixed8;
    Case c;
    size_t taps;
    float ys;
    if (kind == 4 || kind == 5) {
      const uint32_t batch = rand_int(rng, 1, 4), n = rand_int(rng, 1, 100), m = rand_int(rng, 1, 60);
      taps = n;
      ys = xs * ws * rand_float(rng, 60.0f, 200.0f) * std::sqrt(float(taps));
      c.node.type = type;
      c.node.inputs = {quantized(dtype::kUfixed8, {batch, n}, per_tensor(xs, -xz)),
                       quantized(wdt, kind == 4 ? std::vector<uint32_t>{m, n} : std::vector<uint32_t>{n, m}, wq)};
      c.node.outputs = {quantized(dtype::kUfixed8, {batch, m}, per_tensor(ys, -yz))};
      c.is_static = {false, true};
    } else {
      ConvShape s = random_conv(rng, kind == 2);
      s.bias = false;
      taps = size_t{s.K} * s.K * (s.Cin / s.group);
      ys = xs * ws * rand_float(rng, 60.0f, 200.0f) * std::sqrt(float(taps));
      c = conv_case(s, quantized(dtype::kUfixed8, {}, per_tensor(xs, -xz)), quantized(wdt, {}, wq), TensorDesc{},
                    quantized(dtype::kUfixed8, {}, per_tensor(ys, -yz)));
    }
    c.data.push_back(random_bytes(rng, c.node.inputs[0].num_elements()));
    c.data.push_back(random_bytes(rng, c.node.inputs[1].num_elements()));
    if (!qu8) {  // symmetric int8 weights: -127..127
      for (auto& b : c.data[1]) b = b == 0x80 ? 0x81 : b;
    }
    c.bind_static();
    if (declines) {
      bool accepted = true;
      run_fast(c, fp, one.env(), &accepted);
      EXPECT_FALSE(accepted) << "oneDNN int8 without VNNI";
      continue;
    }
    const Bytes plain = run_reference(c);
    // Relu (code yz), and a clamp between two whole codes.
    const int32_t lo_code = std::min(255, yz + int32_t(rand_int(rng, 1, 20)));
    const int32_t hi_code = std::min(255, lo_code + int32_t(rand_int(rng, 5, 60)));
    const Variant variants[] = {{false, true, 0.0f, kInf},
                                {false, true, float((lo_code - yz) * double{ys}), float((hi_code - yz) * double{ys})}};
    const std::pair<int32_t, int32_t> codes[] = {{yz, 255}, {lo_code, hi_code}};
    for (int vi = 0; vi < 2; ++vi) {
      Bytes want = plain;  // the unfused clamp, on codes (same encoding)
      for (auto& b : want) b = uint8_t(std::clamp<int32_t>(b, codes[vi].first, codes[vi].second));
      for (const ThreadEnv* env : {&one, &two}) {
        expect_within_1_lsb(run_fused(c, variants[vi], {}, &fp, env->env()), want, false,
                            std::string(type) + variants[vi].str());
      }
    }
    // Declined: a bound between two codes, and an 8-bit residual add.
    bool accepted = true;
    run_fused(c, {false, true, float((lo_code - yz + 0.5) * ys), kInf}, {}, &fp, one.env(), &accepted);
    EXPECT_FALSE(accepted) << "off-grid bound";
    run_fused(c, {true, false, 0.0f, 0.0f}, plain, &fp, one.env(), &accepted);
    EXPECT_FALSE(accepted) << "8-bit residual";
  }
}
std::string quant_kind_name(const ::testing::TestParamInfo<int>& info) {
  static const char* kNames[] = {"ConvQu8Xnnpack", "ConvQc8Xnnpack",           "DepthWiseQc8Xnnpack",
                                 "ConvOneDnnInt8", "FullyConnectedQu8Xnnpack", "MatMulOneDnnInt8"};
  return kNames[info.param];
}
INSTANTIATE_TEST_SUITE_P(Kernels, FusedQuant, ::testing::Values(0, 1, 2, 3, 4, 5), quant_kind_name);

// ---- 8-bit: a residual Add (and a clamp after it) ------------------------

// The oneDNN int8 convolutions, FullyConnected and MatMul take an 8-bit residual
// with the encodings the nodes round to (ops::Epilogue::producer_output,
// sum_output). What the nodes compute is the same op into t's encoding
// alone, then the reference ElementWiseAdd into s, then the reference clamp
// into y (s's encoding: clamp rule a). The ops give the same t codes (same
// accumulators, same requantization, same rounding), so the fused step and
// the nodes can differ only where the float sum lands on the other side of
// a tie: 1 LSB, in a few elements (in the 86748 codes here, none). Random
// shapes (and the two slab shapes, which two threads split by rows), u8 and
// s8 activations.
// The separate nodes after a producer, on the reference: ElementWiseAdd of
// t and r into s's encoding; Relu (min/max unset) or ReluMinMax of y.
Bytes reference_add(const TensorDesc& t, const TensorDesc& r, const TensorDesc& s, const Bytes& a, const Bytes& b) {
  Case add;
  add.node.type = "ElementWiseAdd";
  add.node.inputs = {t, r};
  add.node.outputs = {s};
  add.data = {a, b};
  add.is_static = {false, false};
  return run_reference(add);
}
Bytes reference_clamp(const TensorDesc& y, const Bytes& data, std::optional<std::pair<float, float>> min_max) {
  Case k;
  k.node.type = min_max ? "ReluMinMax" : "Relu";
  if (min_max) k.node.params = {f32_param("min_value", min_max->first), f32_param("max_value", min_max->second)};
  k.node.inputs = {y};
  k.node.outputs = {y};
  k.data = {data};
  k.is_static = {false};
  return run_reference(k);
}

TEST(FusedQuantResidual, OneDnnInt8RoundsWhereTheNodesRound) {
  // Without exact oneDNN int8 (no VNNI) the path must decline every node.
  const bool declines = !openhtp::kernels::onednn::int8_convolution_exact();
  std::mt19937 rng(910);
  ThreadEnv one(1), two(2);
  size_t elements = 0, exact = 0;
  for (int iter = 0; iter < 32; ++iter) {
    const bool depthwise = iter % 4 == 1, fc = iter % 4 == 2, matmul = iter % 4 == 3;
    ConvShape sh = random_conv(rng, depthwise);
    // One group, or one filter per channel: oneDNN's grouped and
    // channel-multiplier convolutions go through its gemm, which has no
    // `sum` post-op (they decline, and the graph runs the nodes unfused).
    sh.group = depthwise ? sh.Cin : 1;
    if (depthwise) sh.Cout = sh.Cin;
    if (iter < 2) sh = depthwise ? ConvShape{1, 12, 12, 24, 3, 24, 24, 1, 1, 12, 12, true, true}
                                 : ConvShape{1, 10, 10, 16, 1, 24, 1, 1, 0, 10, 10, false, true};
    // FullyConnected: [batch, n] x [m, n]^T, as many rows as the int8 path
    // takes (8 and up; fewer are XNNPACK's, which declines a residual).
    const uint32_t batch = rand_int(rng, 8, 40), n = rand_int(rng, 1, 90), m = rand_int(rng, 1, 50);
    if (fc || matmul) sh.K = 1, sh.Cin = n, sh.group = 1;
    const bool s8 = iter % 4 >= 2;
    const uint32_t adt = s8 ? dtype::kSfixed8 : dtype::kUfixed8;
    auto zero_point = [&] { return s8 ? pick_u8_zero_point(rng) - 128 : pick_u8_zero_point(rng); };
    const size_t taps = size_t{sh.K} * sh.K * (sh.Cin / sh.group);
    const float xs = rand_float(rng, 0.005f, 0.05f), ws = rand_float(rng, 0.002f, 0.02f);
    const float ts = xs * ws * rand_float(rng, 60.0f, 200.0f) * std::sqrt(float(taps));
    const float rs = ts * rand_float(rng, 0.5f, 2.0f), ss = (ts + rs) * rand_float(rng, 0.4f, 0.9f);
    const int32_t xz = zero_point(), tz = zero_point(), rz = zero_point(), sz = zero_point();
    Case conv = conv_case(sh, quantized(adt, {}, per_tensor(xs, -xz)), quantized(dtype::kSfixed8, {}, per_tensor(ws, 0)),
                          quantized(dtype::kSfixed32, {}, per_tensor(xs * ws, 0)),
                          quantized(adt, {}, per_tensor(ts, -tz)));
    if (fc) {
      conv.node.type = "FullyConnected";
      conv.node.name = "fc " + std::to_string(batch) + "x" + std::to_string(n) + " -> " + std::to_string(m);
      conv.node.params.clear();
      conv.node.inputs[0].dims = {batch, n};
      conv.node.inputs[1].dims = {m, n};
      if (sh.bias) conv.node.inputs[2].dims = {m};
      conv.node.outputs[0].dims = {batch, m};
      sh.Cout = m;
    }
    if (matmul) {  // [batch, n] x [n, m], in[1] a second activation (attention's kind), no bias
      conv.node.type = "MatMul";
      conv.node.name = "matmul " + std::to_string(batch) + "x" + std::to_string(n) + " x " + std::to_string(m);
      conv.node.params.clear();
      conv.node.inputs.resize(2);
      conv.node.inputs[0].dims = {batch, n};
      conv.node.inputs[1] = quantized(adt, {n, m}, per_tensor(ws, -zero_point()));
      conv.node.outputs[0].dims = {batch, m};
      conv.is_static = {false, false};
      sh.bias = false;
      sh.Cout = m;
    }
    conv.data.push_back(random_bytes(rng, conv.node.inputs[0].num_elements()));
    // Symmetric int8 weights: codes -127..127 (bytes 129..255, 0..127); a
    // MatMul's in[1] any codes.
    conv.data.push_back(matmul ? random_bytes(rng, conv.node.inputs[1].num_elements())
                               : random_bytes(rng, conv.node.inputs[1].num_elements(), 129, 256 + 127));
    if (sh.bias) {
      std::vector<int32_t> bias(sh.Cout);
      for (auto& v : bias) v = int32_t(rand_int(rng, 0, 4000)) - 2000;
      conv.data.push_back(to_bytes(bias));
    }
    conv.bind_static();
    TensorDesc t = conv.node.outputs[0];
    TensorDesc r = quantized(adt, t.dims, per_tensor(rs, -rz)), sd = quantized(adt, t.dims, per_tensor(ss, -sz));
    const Bytes res = random_bytes(rng, r.num_elements());
    const bool signed_codes = s8;
    const FastPath& fp = fast_path(conv.node.type, "onednn-int8");
    if (declines) {
      bool accepted = true;
      run_fast(conv, fp, one.env(), &accepted);
      EXPECT_FALSE(accepted) << "oneDNN int8 without VNNI";
      continue;
    }
    for (const ThreadEnv* env : {&one, &two}) {
      const Bytes t_codes = run_fast(conv, fp, env->env());
      const Bytes sum = reference_add(t, r, sd, t_codes, res);
      // Three epilogues: the Add alone; then Relu; then a clamp between
      // two whole codes of s.
      const int32_t lo_code = s8 ? int32_t(rand_int(rng, 0, 100)) - 128 : int32_t(rand_int(rng, 0, 100));
      const int32_t hi_code = lo_code + int32_t(rand_int(rng, 20, 120));
      const std::pair<float, float> bounds[] = {{0.0f, kInf},
                                                {float((lo_code - sz) * double{ss}), float((hi_code - sz) * double{ss})}};
      for (int v = 0; v < 3; ++v) {
        Bytes want = sum;
        Epilogue e;
        e.residual = &r;
        e.producer_output = &t;
        if (v > 0) {
          want = reference_clamp(sd, sum, v == 2 ? std::optional(bounds[1]) : std::nullopt);
          e.clamp = true;
          e.lo = bounds[v - 1].first;
          e.hi = bounds[v - 1].second;
          e.sum_output = &sd;
        }
        Node fused = conv.node;
        fused.outputs = {sd};
        NodeDesc d = fused.desc();
        d.env = env->env();
        d.epilogue = &e;
        std::unique_ptr<OpKernel> k;
        ASSERT_TRUE(fp.prepare(ParsedNode(d).desc(), &k) && k) << conv.node.name << " variant " << v << " declined";
        std::vector<Bytes> ins = conv.data;
        ins.push_back(res);
        const Bytes got = run_kernel(*k, ins, want.size());
        expect_within_1_lsb(got, want, signed_codes, conv.node.name + " variant " + std::to_string(v));
        for (size_t i = 0; i < got.size(); ++i) exact += got[i] == want[i];
        elements += got.size();
      }
    }
  }
  // Ties are rare: nearly every code is the nodes' own.
  EXPECT_GE(double(exact), 0.99 * double(elements)) << exact << " of " << elements;
}

// FLOAT_16 (htp/fusion.h): a clamp is XNNPACK's output min/max, bit for bit
// the conv's halves then the reference clamp — for bounds that are halves
// (0, 6) and ones that are not (0.1, 6.025: the rounding to half of the
// bound and of the value commute with the clamp). A residual is declined.
TEST(FusedF16, XnnpackClampEqualsTheNodesBitForBit) {
  std::mt19937 rng(930);
  ThreadEnv one(1), two(2);
  const Variant variants[] = {{false, true, 0.0f, kInf}, {false, true, 0.0f, 6.0f}, {false, true, 0.1f, 6.025f},
                              {false, true, -0.3f, 0.4f}};
  auto halves = [&](size_t n, float range) {
    std::vector<uint16_t> h(n);
    for (auto& v : h) v = openhtp::ops::quant::float_to_half(rand_float(rng, -range, range));
    return to_bytes(h);
  };
  for (int iter = 0; iter < 12; ++iter) {
    const bool depthwise = iter % 2 == 1;
    ConvShape sh = random_conv(rng, depthwise);
    Case c = conv_case(sh, typed(dtype::kFloat16, {}), typed(dtype::kFloat16, {}), typed(dtype::kFloat16, {}),
                       typed(dtype::kFloat16, {}));
    c.data = {halves(c.node.inputs[0].num_elements(), 2.0f), halves(c.node.inputs[1].num_elements(), 1.0f)};
    if (sh.bias) c.data.push_back(halves(sh.Cout, 1.0f));
    c.bind_static();
    const FastPath& fp = fast_path(c.node.type, "xnnpack");
    for (const ThreadEnv* env : {&one, &two}) {
      const Bytes plain = run_fast(c, fp, env->env());
      for (const Variant& v : variants) {
        Case clamp;
        clamp.node.type = "ReluMinMax";
        clamp.node.params = {f32_param("min_value", v.lo), f32_param("max_value", std::min(v.hi, 65504.0f))};
        clamp.node.inputs = {c.node.outputs[0]};
        clamp.node.outputs = {c.node.outputs[0]};
        clamp.data = {plain};
        clamp.is_static = {false};
        const Bytes want = run_reference(clamp);
        const Bytes got = run_fused(c, v, {}, &fp, env->env());
        EXPECT_EQ(got, want) << sh.str() << v.str();
      }
      bool accepted = true;
      run_fused(c, {true, false, 0.0f, 0.0f}, plain, &fp, env->env(), &accepted);
      EXPECT_FALSE(accepted) << "an fp16 residual";
    }
  }
}


// The type adapter (ops/type_adapter.h) with an epilogue: FLOAT_16 and 8-bit
// Conv2d, DepthWiseConv2d, TransposeConv2d, FullyConnected and MatMul (the
// producers with no native fast path for some of these types run through
// it), a residual Add and/or a clamp. The step must write exactly what the
// nodes write — the producer, then the reference ElementWiseAdd, then the
// reference Relu / ReluMinMax, each node through the adapter alone — for
// random shapes and encodings, whichever bounds (on a code or not).
TEST(FusedTypeAdapter, RoundsWhereTheNodesRound) {
  std::mt19937 rng(950);
  size_t elements = 0, clamped = 0;
  for (int iter = 0; iter < 45; ++iter) {
    const int kind = iter % 5;  // conv, depthwise, transpose conv, fc, matmul
    const uint32_t dt = std::array{dtype::kUfixed8, dtype::kSfixed8, dtype::kFloat16}[(iter / 5) % 3];
    const bool f16 = dt == dtype::kFloat16, s8 = dt == dtype::kSfixed8;
    auto zero_point = [&] { return s8 ? pick_u8_zero_point(rng) - 128 : pick_u8_zero_point(rng); };
    ConvShape sh = random_conv(rng, kind == 1);
    const uint32_t batch = rand_int(rng, 1, 12), n = rand_int(rng, 1, 40), m = rand_int(rng, 1, 30);
    const float xs = rand_float(rng, 0.005f, 0.05f), ws = rand_float(rng, 0.002f, 0.02f);
    const float ts = xs * ws * rand_float(rng, 30.0f, 120.0f), rs = ts * rand_float(rng, 0.5f, 2.0f);
    const float ss = (ts + rs) * rand_float(rng, 0.4f, 0.9f);
    auto act = [&](float scale) { return f16 ? typed(dt, {}) : quantized(dt, {}, per_tensor(scale, -zero_point())); };
    const TensorDesc w = f16 ? typed(dt, {}) : quantized(dtype::kSfixed8, {}, per_tensor(ws, 0));
    const TensorDesc b = f16 ? typed(dt, {}) : quantized(dtype::kSfixed32, {}, per_tensor(xs * ws, 0));
    Case c = conv_case(sh, act(xs), w, b, act(ts));
    if (kind == 2) {  // TransposeConv2d: [k, k, Cin, Cout] weights, output (H - 1) * s + k, one group
      c.node.type = "TransposeConv2d";
      c.node.name = "tconv " + sh.str();
      c.node.params = {u32_tensor_param("stride", {2}, {sh.s, sh.s}),
                       u32_tensor_param("pad_amount", {2, 2}, {0, 0, 0, 0})};  // one group
      c.node.inputs[1].dims = {sh.K, sh.K, sh.Cin, sh.Cout};
      c.node.outputs[0].dims = {sh.N, (sh.H - 1) * sh.s + sh.K, (sh.W - 1) * sh.s + sh.K, sh.Cout};
    }
    if (kind >= 3) {  // [batch, n] x weights [m, n] (FC) or [n, m] (MatMul, a second activation, no bias)
      c.node.type = kind == 3 ? "FullyConnected" : "MatMul";
      c.node.name = c.node.type + " " + std::to_string(batch) + "x" + std::to_string(n) + "x" + std::to_string(m);
      c.node.params.clear();
      c.node.inputs[0].dims = {batch, n};
      c.node.inputs[1].dims = kind == 3 ? std::vector<uint32_t>{m, n} : std::vector<uint32_t>{n, m};
      if (kind == 4) {
        c.node.inputs.resize(2);
        c.node.inputs[1] = act(ws);
        c.node.inputs[1].dims = {n, m};
        c.is_static = {false, false};
      } else if (c.node.inputs.size() > 2) {
        c.node.inputs[2].dims = {m};
      }
      c.node.outputs[0].dims = {batch, m};
    }
    auto values = [&](const TensorDesc& t, float range) {
      if (!f16) return t.dtype == dtype::kSfixed32 ? to_bytes(std::vector<int32_t>(t.num_elements(), 0))
                                                   : random_bytes(rng, t.num_bytes());
      std::vector<uint16_t> h(t.num_elements());
      for (auto& v : h) v = openhtp::ops::quant::float_to_half(rand_float(rng, -range, range));
      return to_bytes(h);
    };
    c.data.clear();
    for (const TensorDesc& t : c.node.inputs) c.data.push_back(values(t, 1.0f));
    if (c.node.inputs.size() > 2 && !f16) {  // a bias of a few output steps
      std::vector<int32_t> bias(c.node.inputs[2].num_elements());
      for (auto& v : bias) v = int32_t(rand_int(rng, 0, 4000)) - 2000;
      c.data[2] = to_bytes(bias);
    }
    c.bind_static();
    TensorDesc t = c.node.outputs[0];
    TensorDesc r = f16 ? t : quantized(dt, t.dims, per_tensor(rs, -zero_point()));
    TensorDesc sd = f16 ? t : quantized(dt, t.dims, per_tensor(ss, -zero_point()));
    const Bytes res = values(r, 2.0f);
    // The nodes, each on its own.
    const Bytes t_out = run_reference(c);
    ASSERT_FALSE(t_out.empty()) << c.node.name;
    const Bytes sum = reference_add(t, r, sd, t_out, res);
    // Bounds anywhere in the values' range: on a code or between codes.
    const float lo = rand_float(rng, -0.5f, 0.5f) * (f16 ? 1.0f : 40 * ts);
    const float hi = lo + rand_float(rng, 0.1f, 1.0f) * (f16 ? 1.0f : 60 * ts);
    // Variants: Add; Add + Relu; Add + clamp; Relu; clamp.
    for (int v = 0; v < 5; ++v) {
      const bool residual = v < 3, has_clamp = v != 0;
      const int clamp_kind = (v == 1 || v == 3) ? 0 : 1;
      const TensorDesc& y = residual ? sd : t;
      Bytes want = residual ? sum : t_out;
      if (has_clamp) want = reference_clamp(y, want, clamp_kind == 0 ? std::nullopt : std::optional(std::pair(lo, hi)));
      Epilogue e;
      e.residual = residual ? &r : nullptr;
      e.clamp = has_clamp;
      e.lo = clamp_kind == 0 ? 0.0f : lo;
      e.hi = clamp_kind == 0 ? kInf : hi;
      e.producer_output = &t;
      e.sum_output = residual && has_clamp ? &sd : nullptr;
      Node fused = c.node;
      fused.outputs = {y};
      NodeDesc d = fused.desc();
      d.epilogue = &e;
      std::unique_ptr<OpKernel> k;
      const Status st = prepare_reference(d, &k);
      ASSERT_TRUE(st.ok() && k) << c.node.name << " variant " << v << ": " << st.message;
      std::vector<Bytes> ins = c.data;
      if (residual) ins.push_back(res);
      const Bytes got = run_kernel(*k, ins, want.size());
      EXPECT_EQ(got, want) << c.node.name << " dtype " << dt << " variant " << v;
      elements += want.size();
      if (has_clamp) clamped += want != (residual ? sum : t_out);
    }
    // A SiLU is FLOAT_32 only: the adapter refuses it (the nodes run apart).
    Epilogue silu;
    silu.swish = true;
    NodeDesc d = c.node.desc();
    d.epilogue = &silu;
    std::unique_ptr<OpKernel> k;
    EXPECT_EQ(prepare_reference(d, &k).code, StatusCode::kUnsupported) << c.node.name;
  }
  EXPECT_GT(elements, 5000u);
  EXPECT_GT(clamped, 60u) << "the clamps changed something";
}

}  // namespace
}  // namespace kernelstest
