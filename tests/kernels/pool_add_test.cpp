// PoolMax2d, PoolAvg2d and ElementWiseAdd fast paths against the reference.
#include <cmath>
#include <limits>

#include "kernel_check.h"
#include "kernels/xnnpack_runtime.h"

namespace kernelstest {
namespace {

struct PoolShape {
  uint32_t N, H, W, C, fh, fw, sh, sw, pt, pb, pl, pr, Ho, Wo;
  bool ceil;
  std::string str() const {
    return std::to_string(N) + "x" + std::to_string(H) + "x" + std::to_string(W) + "x" + std::to_string(C) + " f" +
           std::to_string(fh) + "x" + std::to_string(fw) + " s" + std::to_string(sh) + std::to_string(sw) + " p" +
           std::to_string(pt) + std::to_string(pb) + std::to_string(pl) + std::to_string(pr) + (ceil ? " ceil" : "");
  }
};

// Padding is kept smaller than the window so no window is padding only.
PoolShape random_pool(std::mt19937& rng, bool padded, bool global) {
  PoolShape s{};
  s.N = rand_int(rng, 1, 2);
  s.C = rand_int(rng, 1, 20);
  s.H = rand_int(rng, 2, 9);
  s.W = rand_int(rng, 2, 9);
  if (global) {
    s.fh = s.H;
    s.fw = s.W;
    s.sh = s.sw = 1;
    s.Ho = s.Wo = 1;
    return s;
  }
  s.fh = rand_int(rng, 2, std::min(3u, s.H));
  s.fw = rand_int(rng, 2, std::min(3u, s.W));
  s.sh = rand_int(rng, 1, 2);
  s.sw = rand_int(rng, 1, 2);
  if (padded) {
    s.pt = rand_int(rng, 0, s.fh - 1);
    s.pb = rand_int(rng, 0, s.fh - 1);
    s.pl = rand_int(rng, 0, s.fw - 1);
    s.pr = rand_int(rng, 0, s.fw - 1);
  }
  s.ceil = padded && rand_int(rng, 0, 1) != 0;
  auto out = [&](uint32_t span, uint32_t st) { return (s.ceil ? (span + st - 1) / st : span / st) + 1; };
  s.Ho = out(s.pt + s.H + s.pb - s.fh, s.sh);
  s.Wo = out(s.pl + s.W + s.pr - s.fw, s.sw);
  // A CEIL window starting past the padded input would pool nothing.
  if (s.ceil && ((s.Ho - 1) * s.sh >= s.pt + s.H || (s.Wo - 1) * s.sw >= s.pl + s.W)) s.ceil = false;
  s.Ho = out(s.pt + s.H + s.pb - s.fh, s.sh);
  s.Wo = out(s.pl + s.W + s.pr - s.fw, s.sw);
  return s;
}

Case pool_case(const std::string& type, const PoolShape& s, TensorDesc x, TensorDesc y, bool count_pad) {
  Case c;
  c.node.type = type;
  c.node.name = s.str();
  x.dims = {s.N, s.H, s.W, s.C};
  y.dims = {s.N, s.Ho, s.Wo, s.C};
  c.node.inputs = {x};
  c.node.outputs = {y};
  c.node.params = {u32_tensor_param("filter_size", {2}, {s.fh, s.fw}), u32_tensor_param("stride", {2}, {s.sh, s.sw}),
                   u32_tensor_param("pad_amount", {2, 2}, {s.pt, s.pb, s.pl, s.pr}),
                   u32_param("rounding_mode", s.ceil ? 1 : 0)};
  if (type == "PoolAvg2d") c.node.params.push_back(bool_param("count_pad_for_edges", count_pad));
  c.is_static = {false};
  return c;
}

TEST(PoolMax2d, F32XnnpackExact) {
  // Max of floats involves no rounding: outputs must be identical.
  std::mt19937 rng(61);
  const FastPath& fp = fast_path("PoolMax2d", "xnnpack");
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 30; ++iter) {
    const PoolShape s = random_pool(rng, iter % 3 != 0, false);
    Case c = pool_case("PoolMax2d", s, f32({}), f32({}), false);
    c.data = {to_bytes(random_floats(rng, c.node.inputs[0].num_elements()))};
    const Bytes ref = run_reference(c);
    for (const ThreadEnv* env : {&one, &two}) EXPECT_EQ(run_fast(c, fp, env->env()), ref) << s.str();
  }
}

TEST(PoolMax2d, U8SameEncodingXnnpackExact) {
  std::mt19937 rng(62);
  const FastPath& fp = fast_path("PoolMax2d", "xnnpack");
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 30; ++iter) {
    const PoolShape s = random_pool(rng, iter % 3 != 0, false);
    const Quant q = per_tensor(rand_float(rng, 0.01f, 0.1f), -pick_u8_zero_point(rng));
    Case c = pool_case("PoolMax2d", s, quantized(dtype::kUfixed8, {}, q), quantized(dtype::kUfixed8, {}, q), false);
    c.data = {random_bytes(rng, c.node.inputs[0].num_elements())};
    const Bytes ref = run_reference(c);
    for (const ThreadEnv* env : {&one, &two}) EXPECT_EQ(run_fast(c, fp, env->env()), ref) << s.str();
  }
}

// Pooling is memory-bound and splits over the graph's threads from small
// sizes (xnnpack_pooling.cpp): a 64x64x8 max pooling, 32K elements, far
// under pool_for's 1M, runs on both threads, and exactly.
TEST(PoolMax2d, SplitsOverThreadsFromSmallSizesExact) {
  std::mt19937 rng(64);
  PoolShape s;
  s.N = 1;
  s.H = s.W = 64;
  s.C = 8;
  s.fh = s.fw = 3;
  s.sh = s.sw = 2;
  s.pt = s.pb = s.pl = s.pr = 1;
  s.Ho = s.Wo = 32;
  s.ceil = false;
  ThreadEnv two(2);
  for (const bool u8 : {false, true}) {
    const Quant q = per_tensor(0.05f, -128);
    Case c = u8 ? pool_case("PoolMax2d", s, quantized(dtype::kUfixed8, {}, q), quantized(dtype::kUfixed8, {}, q), false)
                : pool_case("PoolMax2d", s, f32({}), f32({}), false);
    const size_t n = c.node.inputs[0].num_elements();
    c.data = {u8 ? random_bytes(rng, n) : to_bytes(random_floats(rng, n))};
    const Bytes ref = run_reference(c);
    const uint64_t before = openhtp::threads::split_dispatches();
    EXPECT_EQ(run_fast(c, fast_path("PoolMax2d", "xnnpack"), two.env()), ref) << s.str();
    EXPECT_GT(openhtp::threads::split_dispatches(), before) << (u8 ? "u8" : "f32") << ": ran on the caller's thread only";
  }
}

TEST(PoolAvg2d, F32XnnpackMatchesReference) {
  std::mt19937 rng(63);
  const FastPath& fp = fast_path("PoolAvg2d", "xnnpack");
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 40; ++iter) {
    const int mode = iter % 4;  // 0 unpadded, 1 padded (count_pad 0), 2 global, 3 unpadded count_pad 1
    const PoolShape s = random_pool(rng, mode == 1, mode == 2);
    Case c = pool_case("PoolAvg2d", s, f32({}), f32({}), mode == 3);
    c.data = {to_bytes(random_floats(rng, c.node.inputs[0].num_elements()))};
    const auto ref = from_bytes<float>(run_reference(c));
    // Inputs in [-1, 1]: an average of T terms is within (T + 2) * 2^-24 of
    // exact in either kernel (the sum's bound divided by T, plus the division).
    const double tol = 2.0 * (s.fh * s.fw + 2) * 5.97e-8;
    for (const ThreadEnv* env : {&one, &two}) {
      const auto fast = from_bytes<float>(run_fast(c, fp, env->env()));
      for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(fast[i], ref[i], tol) << s.str() << " at " << i;
    }
  }
}

// NaN and the infinities through the f32 pools give the reference's answer
// exactly (XNNPACK's max dropped or mangled a NaN, its clamp turned a NaN
// average into -inf: xnnpack_pooling.cpp), at one and two threads, while
// finite inputs of the same node still take the fast path's own answer.
TEST(Pool2d, F32NanAndInfinitiesGiveTheReferencesAnswer) {
  std::mt19937 rng(64);
  ThreadEnv one(1), two(2);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  int nan_outputs = 0;
  for (int iter = 0; iter < 36; ++iter) {
    const bool max = iter % 2 == 0;
    const int mode = (iter / 2) % 3;  // 0 unpadded, 1 padded, 2 global
    const PoolShape s = random_pool(rng, mode == 1, mode == 2);
    Case c = pool_case(max ? "PoolMax2d" : "PoolAvg2d", s, f32({}), f32({}), false);
    std::vector<float> x = random_floats(rng, c.node.inputs[0].num_elements());
    const size_t hits = 1 + rng() % 4;
    for (size_t k = 0; k < hits; ++k) x[rng() % x.size()] = specials[(iter / 6 + k) % 3];
    c.data = {to_bytes(x)};
    const Bytes ref = run_reference(c);
    for (float v : from_bytes<float>(ref)) nan_outputs += std::isnan(v);
    const FastPath& fp = fast_path(c.node.type, "xnnpack");
    for (const ThreadEnv* env : {&one, &two}) {
      bool accepted = false;
      EXPECT_EQ(run_fast(c, fp, env->env(), &accepted), ref) << c.node.type << " " << s.str();
      EXPECT_TRUE(accepted) << "the fast path declined " << s.str();
    }
  }
  EXPECT_GT(nan_outputs, 20) << "the cases put a NaN in too few windows to test anything";
}

TEST(PoolAvg2d, Qu8XnnpackWithin1Lsb) {
  std::mt19937 rng(64);
  const FastPath& fp = fast_path("PoolAvg2d", "xnnpack");
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 30; ++iter) {
    const PoolShape s = random_pool(rng, false, iter % 2 == 0);
    const float xs = rand_float(rng, 0.01f, 0.1f);
    const Quant qx = per_tensor(xs, -pick_u8_zero_point(rng));
    const Quant qy = per_tensor(xs * rand_float(rng, 0.5f, 2.0f), -pick_u8_zero_point(rng));
    Case c = pool_case("PoolAvg2d", s, quantized(dtype::kUfixed8, {}, qx), quantized(dtype::kUfixed8, {}, qy), false);
    c.data = {random_bytes(rng, c.node.inputs[0].num_elements())};
    const Bytes ref = run_reference(c);
    for (const ThreadEnv* env : {&one, &two}) expect_within_1_lsb(run_fast(c, fp, env->env()), ref, false, s.str());
  }
}

// Random broadcastable shapes: b's dims are a's, some set to 1, some dropped
// from the front.
void random_broadcast(std::mt19937& rng, std::vector<uint32_t>* a, std::vector<uint32_t>* b, std::vector<uint32_t>* y) {
  const size_t rank = rand_int(rng, 1, 5);
  a->clear();
  for (size_t i = 0; i < rank; ++i) a->push_back(rand_int(rng, 1, 6));
  *b = *a;
  for (auto& d : *b) {
    if (rand_int(rng, 0, 2) == 0) d = 1;
  }
  while (b->size() > 1 && rand_int(rng, 0, 2) == 0) b->erase(b->begin());
  *y = *a;
  if (rand_int(rng, 0, 1) != 0) std::swap(*a, *b);
}

TEST(ElementWiseAdd, F32XnnpackExact) {
  // One float addition per output, correctly rounded in both kernels.
  std::mt19937 rng(71);
  const FastPath& fp = fast_path("ElementWiseAdd", "xnnpack");
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 30; ++iter) {
    std::vector<uint32_t> a, b, y;
    random_broadcast(rng, &a, &b, &y);
    Case c;
    c.node.type = "ElementWiseAdd";
    c.node.inputs = {f32(a), f32(b)};
    c.node.outputs = {f32(y)};
    c.is_static = {false, false};
    c.data = {to_bytes(random_floats(rng, count(a))), to_bytes(random_floats(rng, count(b)))};
    const Bytes ref = run_reference(c);
    for (const ThreadEnv* env : {&one, &two}) EXPECT_EQ(run_fast(c, fp, env->env()), ref);
  }
}

// XNNPACK's pthreadpool calls reach openhtp's pool (src/threads) in a
// program that links the kernels: the probe says so, and an XNNPACK operator
// given a 2-thread pool is counted there.
TEST(XnnpackThreads, CallsReachOpenhtpPool) {
  ASSERT_TRUE(openhtp::kernels::xnn::ready());
  EXPECT_TRUE(openhtp::kernels::xnn::shares_graph_pool());
  std::mt19937 rng(73);
  Case c;
  c.node.type = "ElementWiseAdd";
  c.node.inputs = {f32({4, 64}), f32({4, 64})};
  c.node.outputs = {f32({4, 64})};
  c.is_static = {false, false};
  c.data = {to_bytes(random_floats(rng, 256)), to_bytes(random_floats(rng, 256))};
  ThreadEnv two(2);
  const uint64_t before = openhtp::threads::dispatches();
  EXPECT_EQ(run_fast(c, fast_path("ElementWiseAdd", "xnnpack"), two.env()), run_reference(c));
  EXPECT_GT(openhtp::threads::dispatches(), before);
}

TEST(ElementWiseAdd, Qu8XnnpackWithin1Lsb) {
  std::mt19937 rng(72);
  const FastPath& fp = fast_path("ElementWiseAdd", "xnnpack");
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 30; ++iter) {
    std::vector<uint32_t> a, b, y;
    random_broadcast(rng, &a, &b, &y);
    const float s = rand_float(rng, 0.01f, 0.1f);
    Case c;
    c.node.type = "ElementWiseAdd";
    c.node.inputs = {quantized(dtype::kUfixed8, a, per_tensor(s, -pick_u8_zero_point(rng))),
                     quantized(dtype::kUfixed8, b, per_tensor(s * rand_float(rng, 0.3f, 3.0f), -pick_u8_zero_point(rng)))};
    c.node.outputs = {quantized(dtype::kUfixed8, y, per_tensor(s * rand_float(rng, 1.0f, 3.0f), -pick_u8_zero_point(rng)))};
    c.is_static = {false, false};
    c.data = {random_bytes(rng, count(a)), random_bytes(rng, count(b))};
    const Bytes ref = run_reference(c);
    for (const ThreadEnv* env : {&one, &two}) expect_within_1_lsb(run_fast(c, fp, env->env()), ref, false, "add");
  }
}

}  // namespace
}  // namespace kernelstest
