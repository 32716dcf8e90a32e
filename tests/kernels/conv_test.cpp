// Conv2d / DepthWiseConv2d fast paths against the reference kernel, over
// random shapes, strides, paddings, dilations, groups and encodings, with 1
// and 2 threads.
#include <cmath>
#include <cstdio>

#include "conv_cases.h"
#include "kernel_check.h"
#include "kernels/onednn_paths.h"

namespace kernelstest {
namespace {

ConvShape random_shape(std::mt19937& rng, bool depthwise) {
  ConvShape s{};
  s.depthwise = depthwise;
  s.N = rand_int(rng, 1, 2);
  const uint32_t cin_g = depthwise ? 1 : rand_int(rng, 1, 6);
  s.group = depthwise ? rand_int(rng, 1, 8) : rand_int(rng, 1, 3);
  s.Cin = s.group * cin_g;
  s.Cout = s.group * rand_int(rng, 1, depthwise ? 3 : 6);
  random_window(rng, &s);
  return s;
}

Case make_case(const ConvShape& s, TensorDesc x, TensorDesc w, TensorDesc b, TensorDesc y) {
  return make_conv_case(s, std::move(x), std::move(w), std::move(b), std::move(y), GroupOfOne::kStated);
}

std::vector<float> abs_of(const std::vector<float>& v) {
  std::vector<float> a(v.size());
  for (size_t i = 0; i < v.size(); ++i) a[i] = std::fabs(v[i]);
  return a;
}

// sum |x| |w| (+ |bias|) per output, by the reference kernel on absolute
// values of a float32 twin of `c` (inputs given as float vectors).
std::vector<float> abs_sums(Case c, const std::vector<std::vector<float>>& real_inputs) {
  for (auto& t : c.node.inputs) {
    t.dtype = dtype::kFloat32;
    t.quant = Quant{};
  }
  c.node.outputs[0].dtype = dtype::kFloat32;
  c.node.outputs[0].quant = Quant{};
  for (size_t i = 0; i < c.data.size(); ++i) c.data[i] = to_bytes(abs_of(real_inputs[i]));
  c.bind_static();
  return from_bytes<float>(run_reference(c));
}

// One fp32 case of shape s through the fast path with each env, against the
// reference within the summation bound; returns the largest error seen as a
// share of that bound.
double check_f32_conv(const ConvShape& s, const FastPath& fp, std::initializer_list<const ThreadEnv*> envs,
                      std::mt19937& rng) {
  Case c = make_case(s, f32({}), f32({}), f32({}), f32({}));
  std::vector<std::vector<float>> real;
  for (const auto& t : c.node.inputs) real.push_back(random_floats(rng, t.num_elements()));
  for (const auto& r : real) c.data.push_back(to_bytes(r));
  c.bind_static();
  const auto ref = from_bytes<float>(run_reference(c));
  const auto sums = abs_sums(c, real);
  double worst = 0;
  for (const ThreadEnv* env : envs) {
    const auto fast = from_bytes<float>(run_fast(c, fp, env->env()));
    expect_f32_close(fast, ref, sums, s.K(), s.str());
    for (size_t i = 0; i < fast.size() && i < ref.size(); ++i) {
      worst = std::max(worst, std::fabs(double{fast[i]} - ref[i]) / (2.0 * (s.K() + 2) * 5.97e-8 * sums[i] + 1e-30));
    }
  }
  return worst;
}

class ConvF32 : public ::testing::TestWithParam<bool> {};

TEST_P(ConvF32, OneDnnMatchesReference) {
  const bool depthwise = GetParam();
  std::mt19937 rng(depthwise ? 11 : 12);
  const FastPath& fp = fast_path(depthwise ? "DepthWiseConv2d" : "Conv2d", "onednn");
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 24; ++iter) {
    check_f32_conv(random_shape(rng, depthwise), fp, {&one, &two}, rng);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, ConvF32, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "DepthWise" : "Conv2d"; });

// On several threads, depthwise, pointwise and strided 1x1 convolutions and
// image stems of one image run as one slab per thread, each a convolution of its own: a
// depthwise or strided one over the input rows its output rows read (with
// the padding only the first and last slab have), a pointwise one over a run
// of pixels that may start and end inside a row (a 7x7 map as 25 + 24).
// Every stride, dilation and padding here against the reference, on 2 and 3
// threads, with slabs from 1 row (or 2 pixels) up.
TEST(ConvF32, SlabsMatchReference) {
  std::mt19937 rng(13);
  ThreadEnv two(2), three(3);
  for (int iter = 0; iter < 75; ++iter) {
    const bool stem = iter >= 60;                // an image's first layer
    const bool strided = iter >= 40 && !stem;    // a 1x1 convolution with a stride (ResNet's shortcut)
    ConvShape s = random_shape(rng, !strided && !stem && iter % 2 == 0);
    s.N = 1;
    if (stem) {
      make_stem(rng, &s);
      s.Wo = (s.pl + s.W + s.pr - ((s.KW - 1) * s.dw + 1)) / s.sw + 1;
    } else if (strided) {
      make_strided_pointwise(rng, &s);
      s.Wo = (s.W - 1) / s.sw + 1;
    } else if (s.depthwise) {
      s.group = rand_int(rng, 2, 8);
      s.Cin = s.Cout = s.group;  // one filter per channel
    } else {  // pointwise
      s.group = 1;
      s.KH = s.KW = s.sh = s.sw = 1;
      s.pt = s.pb = s.pl = s.pr = 0;
      s.H = rand_int(rng, 1, 12);
      s.W = rand_int(rng, (6 + s.H - 1) / s.H, 9);  // at least 6 pixels: two a thread
    }
    const uint32_t eh = (s.KH - 1) * s.dh + 1;
    if (s.depthwise) s.H = rand_int(rng, int(eh + 5 * s.sh), 30);  // at least 6 output rows: two a thread
    s.Ho = (s.pt + s.H + s.pb - eh) / s.sh + 1;
    if (!s.depthwise && !strided && !stem) s.Wo = s.W;
    Case c = make_case(s, f32({}), f32({}), f32({}), f32({}));
    NodeDesc d = c.node.desc();
    d.env = three.env();
    EXPECT_TRUE(openhtp::kernels::onednn::slab_convolution(ParsedNode(d).desc())) << s.str();
    check_f32_conv(s, fast_path(s.depthwise ? "DepthWiseConv2d" : "Conv2d", "onednn"), {&two, &three}, rng);
  }
}

// ---- Winograd (onednn-winograd): fp32 3x3 stride-1 Conv2d -------------------

// A shape the Winograd path is for: 3x3, stride 1, no dilation or groups,
// 16-channel multiples, outputs of at least 4x4, any padding up to 1.
ConvShape winograd_shape(std::mt19937& rng) {
  ConvShape s{};
  s.N = rand_int(rng, 1, 2);
  s.group = 1;
  s.Cin = 16 * rand_int(rng, 1, 3);
  s.Cout = 16 * rand_int(rng, 1, 3);
  s.KH = s.KW = 3;
  s.sh = s.sw = s.dh = s.dw = 1;
  s.pt = rand_int(rng, 0, 1);
  s.pb = rand_int(rng, 0, 1);
  s.pl = rand_int(rng, 0, 1);
  s.pr = rand_int(rng, 0, 1);
  s.H = rand_int(rng, 6, 19);
  s.W = rand_int(rng, 6, 19);
  s.Ho = s.pt + s.H + s.pb - 2;
  s.Wo = s.pl + s.W + s.pr - 2;
  s.bias = rand_int(rng, 0, 3) != 0;
  return s;
}

// oneDNN has Winograd kernels on AVX-512 CPUs only; elsewhere the path
// declines every convolution (tested below on the shapes it is not for).
bool winograd_here() {
  std::mt19937 rng(1);
  ConvShape s = winograd_shape(rng);
  Case c = make_case(s, f32({}), f32({}), f32({}), f32({}));
  for (const auto& t : c.node.inputs) c.data.push_back(Bytes(t.num_bytes()));
  c.bind_static();
  bool accepted = false;
  run_fast(c, fast_path("Conv2d", "onednn-winograd"), nullptr, &accepted);
  return accepted;
}

TEST(ConvF32Winograd, MatchesReferenceOnItsShapes) {
  std::mt19937 rng(13);
  const FastPath& fp = fast_path("Conv2d", "onednn-winograd");
  if (!winograd_here()) {
    // No Winograd kernels on this CPU (oneDNN has them for AVX-512 only): the
    // path must decline its own shapes, and the direct path take them.
    for (int iter = 0; iter < 4; ++iter) {
      Case c = make_case(winograd_shape(rng), f32({}), f32({}), f32({}), f32({}));
      for (const auto& t : c.node.inputs) c.data.push_back(Bytes(t.num_bytes()));
      c.bind_static();
      bool accepted = true;
      run_fast(c, fp, nullptr, &accepted);
      EXPECT_FALSE(accepted);
      run_fast(c, fast_path("Conv2d", "onednn"), nullptr, &accepted);
      EXPECT_TRUE(accepted);
    }
    return;
  }
  ThreadEnv one(1), two(2);
  double worst = 0;  // the largest error seen, as a share of the plain bound
  for (int iter = 0; iter < 16; ++iter) {
    worst = std::max(worst, check_f32_conv(winograd_shape(rng), fp, {&one, &two}, rng));
  }
  RecordProperty("worst_error_over_plain_bound", std::to_string(worst));
  std::printf("worst Winograd error: %.3f of the plain summation bound\n", worst);
}

// On several threads a tall Winograd convolution of one image runs as one
// slab of output rows per thread, each a one-thread primitive with its own
// reorders over the input rows it reads (padding only at the image's top and
// bottom): both paddings, 2 and 3 threads, against the reference. A CPU
// without Winograd kernels (AVX-512 only) runs the same tall cases through
// the direct path, which must take them.
TEST(ConvF32Winograd, SlabsOfRowsMatchReference) {
  std::mt19937 rng(15);
  const FastPath& fp = fast_path("Conv2d", winograd_here() ? "onednn-winograd" : "onednn");
  ThreadEnv two(2), three(3);
  for (int iter = 0; iter < 6; ++iter) {
    ConvShape s = winograd_shape(rng);
    s.N = 1;
    s.H = rand_int(rng, iter < 3 ? 58 : 86, iter < 3 ? 70 : 96);  // from 28 output rows a slab on 2 (3) threads
    s.Ho = s.pt + s.H + s.pb - 2;
    Case c = make_case(s, f32({}), f32({}), f32({}), f32({}));
    NodeDesc d = c.node.desc();
    d.env = (iter < 3 ? two : three).env();
    EXPECT_TRUE(openhtp::kernels::onednn::winograd_slab_convolution(ParsedNode(d).desc())) << s.str();
    check_f32_conv(s, fp, {&two, &three}, rng);
  }
}

TEST(ConvF32Winograd, DeclinesWhatItIsNotFor) {
  const FastPath& fp = fast_path("Conv2d", "onednn-winograd");
  std::mt19937 rng(14);
  const ConvShape base = winograd_shape(rng);
  struct Change {
    const char* what;
    void (*apply)(ConvShape*);
  };
  const Change changes[] = {
      {"stride 2", [](ConvShape* s) { s->sh = s->sw = 2; }},
      {"1x1 window", [](ConvShape* s) { s->KH = s->KW = 1; }},
      {"dilation 2", [](ConvShape* s) { s->dh = s->dw = 2; }},
      {"two groups", [](ConvShape* s) { s->group = 2; }},
      {"8 input channels", [](ConvShape* s) { s->Cin = 8; }},
      {"24 output channels", [](ConvShape* s) { s->Cout = 24; }},
      {"a 3x3 output", [](ConvShape* s) {
         s->H = 5 - s->pt - s->pb;
         s->W = 5 - s->pl - s->pr;
       }},
  };
  for (const Change& ch : changes) {
    ConvShape s = base;
    ch.apply(&s);
    const uint32_t eh = (s.KH - 1) * s.dh + 1, ew = (s.KW - 1) * s.dw + 1;
    s.Ho = (s.pt + s.H + s.pb - eh) / s.sh + 1;
    s.Wo = (s.pl + s.W + s.pr - ew) / s.sw + 1;
    Case c = make_case(s, f32({}), f32({}), f32({}), f32({}));
    for (const auto& t : c.node.inputs) c.data.push_back(Bytes(t.num_bytes()));
    c.bind_static();
    bool accepted = true;
    run_fast(c, fp, nullptr, &accepted);
    EXPECT_FALSE(accepted) << ch.what;
    run_fast(c, fast_path("Conv2d", "onednn"), nullptr, &accepted);  // the direct path takes it instead
    EXPECT_TRUE(accepted) << ch.what;
  }
  // The same layer at FLOAT_16, and as a DepthWiseConv2d: not for Winograd.
  Case half = make_case(base, typed(dtype::kFloat16, {}), typed(dtype::kFloat16, {}), typed(dtype::kFloat16, {}),
                        typed(dtype::kFloat16, {}));
  for (const auto& t : half.node.inputs) half.data.push_back(Bytes(t.num_bytes()));
  half.bind_static();
  bool accepted = true;
  run_fast(half, fp, nullptr, &accepted);
  EXPECT_FALSE(accepted) << "FLOAT_16";
}

// Quantized: kind 0 = qu8 (uint8 weights, any zero point), 1 = qc8 with
// uint8 activations (per-channel symmetric int8 weights), 2 = qc8 with int8
// activations, 3 = qc8 with per-tensor symmetric weights.
struct QuantParam {
  bool depthwise;
  int kind;
};

class ConvQuant : public ::testing::TestWithParam<QuantParam> {};

std::string quant_param_name(const ::testing::TestParamInfo<QuantParam>& info) {
  static const char* kKinds[] = {"Qu8", "Qc8U8", "Qc8S8", "Qc8PerTensor"};
  return std::string(info.param.depthwise ? "DepthWise" : "Conv2d") + kKinds[info.param.kind];
}

TEST_P(ConvQuant, XnnpackWithin1Lsb) {
  const QuantParam p = GetParam();
  std::mt19937 rng(100 + p.kind * 2 + p.depthwise);
  const FastPath& fp = fast_path(p.depthwise ? "DepthWiseConv2d" : "Conv2d", "xnnpack");
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 24; ++iter) {
    const ConvShape s = random_shape(rng, p.depthwise);
    const bool s8_act = p.kind == 2;
    const uint32_t act_dt = s8_act ? dtype::kSfixed8 : dtype::kUfixed8;
    const float xs = rand_float(rng, 0.002f, 0.05f);
    const int32_t xz = s8_act ? int32_t(rand_int(rng, 0, 255)) - 128 : pick_u8_zero_point(rng);
    std::vector<float> ws(s.Cout);
    for (float& v : ws) v = rand_float(rng, 0.001f, 0.03f);
    Quant wq;
    if (p.kind == 0) {
      wq = per_tensor(ws[0], -pick_u8_zero_point(rng));
    } else if (p.kind == 3) {
      wq = per_tensor(ws[0], 0);
    } else {
      wq = per_channel(3, ws);
    }
    if (p.kind == 0 || p.kind == 3) ws.assign(s.Cout, ws[0]);
    // Output step so that typical sums (std about 128^2/3 * sqrt(K) in
    // integer units) span tens of steps, with some saturation.
    const size_t taps = s.K();
    const float ys = xs * ws[0] * rand_float(rng, 60.0f, 200.0f) * std::sqrt(float(taps));
    const int32_t yz = s8_act ? int32_t(rand_int(rng, 0, 255)) - 128 : pick_u8_zero_point(rng);
    // Bias encodings: scale 0 ("derived"), exactly in_scale * w_scale, or an
    // unrelated per-tensor scale (rescaled by the fast path).
    const int bias_mode = int(rand_int(rng, 0, 2));
    Quant bq = bias_mode == 0 ? per_tensor(0.0f, 0) : per_tensor(xs * ws[0] * (bias_mode == 1 ? 1.0f : 0.37f), 0);
    if (bias_mode == 1 && wq.per_channel()) bq = per_tensor(0.0f, 0);  // per-channel: only "derived" is exact
    Case c = make_case(s, quantized(act_dt, {}, per_tensor(xs, -xz)),
                       quantized(p.kind == 0 ? dtype::kUfixed8 : dtype::kSfixed8, {}, wq),
                       quantized(dtype::kSfixed32, {}, bq), quantized(act_dt, {}, per_tensor(ys, -yz)));
    c.data.push_back(random_bytes(rng, c.node.inputs[0].num_elements()));
    c.data.push_back(p.kind == 0 ? random_bytes(rng, c.node.inputs[1].num_elements())
                                 : random_bytes(rng, c.node.inputs[1].num_elements(), 0, 255));  // int8 -128..127
    if (s.bias) {
      std::vector<int32_t> b(s.Cout);
      for (auto& v : b) v = int32_t(rand_int(rng, 0, 20000)) - 10000;
      c.data.push_back(to_bytes(b));
    }
    c.bind_static();
    const Bytes ref = run_reference(c);
    for (const ThreadEnv* env : {&one, &two}) {
      const Bytes fast = run_fast(c, fp, env->env());
      expect_within_1_lsb(fast, ref, s8_act, s.str());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, ConvQuant,
                         ::testing::Values(QuantParam{false, 0}, QuantParam{false, 1}, QuantParam{false, 2},
                                           QuantParam{false, 3}, QuantParam{true, 0}, QuantParam{true, 1},
                                           QuantParam{true, 2}),
                         quant_param_name);

class ConvF16 : public ::testing::TestWithParam<bool> {};

TEST_P(ConvF16, XnnpackWithinHalfPrecision) {
  const bool depthwise = GetParam();
  std::mt19937 rng(depthwise ? 21 : 22);
  const FastPath& fp = fast_path(depthwise ? "DepthWiseConv2d" : "Conv2d", "xnnpack");
  ThreadEnv one(1), two(2);
  using openhtp::ops::quant::float_to_half;
  using openhtp::ops::quant::half_to_float;
  for (int iter = 0; iter < 16; ++iter) {
    const ConvShape s = random_shape(rng, depthwise);
    Case c = make_case(s, typed(dtype::kFloat16, {}), typed(dtype::kFloat16, {}), typed(dtype::kFloat16, {}),
                       typed(dtype::kFloat16, {}));
    std::vector<std::vector<float>> real;
    for (size_t i = 0; i < c.node.inputs.size(); ++i) {
      std::vector<float> v = random_floats(rng, c.node.inputs[i].num_elements());
      std::vector<uint16_t> h(v.size());
      for (size_t k = 0; k < v.size(); ++k) {
        h[k] = float_to_half(v[k]);
        v[k] = half_to_float(h[k]);  // the exact value the kernels see
      }
      real.push_back(v);
      c.data.push_back(to_bytes(h));
    }
    c.bind_static();
    const auto ref = from_bytes<uint16_t>(run_reference(c));
    const auto sums = abs_sums(c, real);
    for (const ThreadEnv* env : {&one, &two}) {
      const auto fast = from_bytes<uint16_t>(run_fast(c, fp, env->env()));
      expect_f16_close(fast, ref, sums, s.K(), s.str());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, ConvF16, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "DepthWise" : "Conv2d"; });

}  // namespace
}  // namespace kernelstest
