// FullyConnected and MatMul fast paths against the reference kernel.
#include <cmath>
#include <string_view>

#include "kernel_check.h"
#include "kernels/onednn_runtime.h"

namespace kernelstest {
namespace {

std::vector<float> abs_of(const std::vector<float>& v) {
  std::vector<float> a(v.size());
  for (size_t i = 0; i < v.size(); ++i) a[i] = std::fabs(v[i]);
  return a;
}

// Runs the reference on |inputs| for per-output sums of |terms|.
std::vector<float> abs_sums(Case c) {
  for (auto& d : c.data) {
    if (!d.empty()) d = to_bytes(abs_of(from_bytes<float>(d)));
  }
  c.bind_static();
  return from_bytes<float>(run_reference(c));
}

TEST(FullyConnected, F32OneDnnMatchesReference) {
  std::mt19937 rng(31);
  const FastPath& fp = fast_path("FullyConnected", "onednn");
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 20; ++iter) {
    const uint32_t batch = rand_int(rng, 1, 9), n = rand_int(rng, 1, 300), m = rand_int(rng, 1, 200);
    const bool bias = rand_int(rng, 0, 1) != 0;
    // Rank-3 input [2, batch/2.., n] sometimes: FC flattens the leading dims.
    const bool rank3 = batch % 2 == 0;
    Case c;
    c.node.type = "FullyConnected";
    c.node.inputs = {rank3 ? f32({2, batch / 2, n}) : f32({batch, n}), f32({m, n})};
    if (bias) c.node.inputs.push_back(f32({m}));
    c.node.outputs = {f32({batch, m})};
    c.is_static = {false, true, true};
    c.is_static.resize(c.node.inputs.size());
    for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements())));
    c.bind_static();
    const auto ref = from_bytes<float>(run_reference(c));
    const auto sums = abs_sums(c);
    for (const ThreadEnv* env : {&one, &two}) {
      expect_f32_close(from_bytes<float>(run_fast(c, fp, env->env())), ref, sums, n + 1, "fc");
    }
  }
}

// kind 0: qu8 (uint8 weights, per tensor); 1: per-channel symmetric int8
// weights (axis 0) with uint8 activations; 2: the same with int8 activations.
class FcQuant : public ::testing::TestWithParam<int> {};

void check_fc_quant(int kind, const char* library) {
  std::mt19937 rng(40 + kind);
  const FastPath& fp = fast_path("FullyConnected", library);
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 20; ++iter) {
    // oneDNN's int8 FC takes 8 rows and more (fewer are XNNPACK's GEMVs).
    const bool onednn = std::string_view(library) == "onednn-int8";
    const uint32_t batch = onednn ? rand_int(rng, 8, 40) : rand_int(rng, 1, 6), n = rand_int(rng, 1, 200),
                   m = rand_int(rng, 1, 100);
    const bool bias = rand_int(rng, 0, 2) != 0;
    const bool s8_act = kind == 2;
    const uint32_t act = s8_act ? dtype::kSfixed8 : dtype::kUfixed8;
    const float xs = rand_float(rng, 0.002f, 0.05f);
    const int32_t xz = s8_act ? int32_t(rand_int(rng, 0, 255)) - 128 : pick_u8_zero_point(rng);
    std::vector<float> ws(m);
    for (float& v : ws) v = rand_float(rng, 0.001f, 0.03f);
    const Quant wq = kind == 0 ? per_tensor(ws[0], -pick_u8_zero_point(rng)) : per_channel(0, ws);
    const float ys = xs * ws[0] * rand_float(rng, 60.0f, 200.0f) * std::sqrt(float(n));
    const int32_t yz = s8_act ? int32_t(rand_int(rng, 0, 255)) - 128 : pick_u8_zero_point(rng);
    Case c;
    c.node.type = "FullyConnected";
    c.node.inputs = {quantized(act, {batch, n}, per_tensor(xs, -xz)),
                     quantized(kind == 0 ? dtype::kUfixed8 : dtype::kSfixed8, {m, n}, wq)};
    if (bias) c.node.inputs.push_back(quantized(dtype::kSfixed32, {m}, per_tensor(0.0f, 0)));
    c.node.outputs = {quantized(act, {batch, m}, per_tensor(ys, -yz))};
    c.is_static = {false, true, true};
    c.is_static.resize(c.node.inputs.size());
    c.data.push_back(random_bytes(rng, size_t{batch} * n));
    c.data.push_back(random_bytes(rng, size_t{m} * n));
    if (bias) {
      std::vector<int32_t> b(m);
      for (auto& v : b) v = int32_t(rand_int(rng, 0, 20000)) - 10000;
      c.data.push_back(to_bytes(b));
    }
    c.bind_static();
    const Bytes ref = run_reference(c);
    for (const ThreadEnv* env : {&one, &two}) expect_within_1_lsb(run_fast(c, fp, env->env()), ref, s8_act, std::string("fc ") + library);
  }
}

TEST_P(FcQuant, XnnpackWithin1Lsb) { check_fc_quant(GetParam(), "xnnpack"); }

// oneDNN's int8 matmul takes symmetric int8 weights (kinds 1 and 2), where
// the CPU makes its sums exact; uint8 weights (kind 0) it leaves to XNNPACK.
TEST_P(FcQuant, OneDnnInt8Within1LsbOrDeclinesUint8Weights) {
  if (!openhtp::kernels::onednn::int8_convolution_exact()) GTEST_SKIP() << "no exact int8 sums on this CPU";
  if (GetParam() != 0) {
    check_fc_quant(GetParam(), "onednn-int8");
    return;
  }
  Case c;
  c.node.type = "FullyConnected";
  c.node.inputs = {quantized(dtype::kUfixed8, {16, 64}, per_tensor(0.02f, -128)),
                   quantized(dtype::kUfixed8, {16, 64}, per_tensor(0.01f, -120))};
  c.node.outputs = {quantized(dtype::kUfixed8, {16, 16}, per_tensor(0.1f, -128))};
  std::mt19937 rng(5);
  c.data = {random_bytes(rng, 16 * 64), random_bytes(rng, 16 * 64)};
  c.is_static = {false, true};
  c.bind_static();
  std::unique_ptr<OpKernel> k;
  EXPECT_FALSE(fast_path("FullyConnected", "onednn-int8").prepare(c.node.desc(), &k));
  EXPECT_TRUE(fast_path("FullyConnected", "xnnpack").prepare(c.node.desc(), &k));
}

// A batch-1 FullyConnected (a CNN's classifier) is a matrix-vector product:
// the int8 path leaves it to XNNPACK, which is faster there.
TEST(FcQuantInt8, LeavesFewRowsToXnnpack) {
  Case c;
  c.node.type = "FullyConnected";
  c.node.inputs = {quantized(dtype::kUfixed8, {1, 64}, per_tensor(0.02f, -128)),
                   quantized(dtype::kSfixed8, {16, 64}, per_tensor(0.01f, 0))};
  c.node.outputs = {quantized(dtype::kUfixed8, {1, 16}, per_tensor(0.1f, -128))};
  std::mt19937 rng(3);
  c.data = {random_bytes(rng, 64), random_bytes(rng, 16 * 64)};
  c.is_static = {false, true};
  c.bind_static();
  std::unique_ptr<OpKernel> k;
  EXPECT_FALSE(fast_path("FullyConnected", "onednn-int8").prepare(c.node.desc(), &k));
  EXPECT_TRUE(fast_path("FullyConnected", "xnnpack").prepare(c.node.desc(), &k));
}

INSTANTIATE_TEST_SUITE_P(Kernels, FcQuant, ::testing::Values(0, 1, 2));

TEST(MatMul, F32OneDnnMatchesReference) {
  std::mt19937 rng(51);
  const FastPath& fp = fast_path("MatMul", "onednn");
  ThreadEnv one(1), two(2);
  for (int iter = 0; iter < 30; ++iter) {
    const uint32_t M = rand_int(rng, 1, 40), N = rand_int(rng, 1, 40), K = rand_int(rng, 1, 70);
    const bool ta = rand_int(rng, 0, 1) != 0, tb = rand_int(rng, 0, 1) != 0;
    // Batch dims: rank 2..4 each, broadcasting 1s on either side.
    const size_t rank = rand_int(rng, 2, 4);
    std::vector<uint32_t> batch(rank - 2);
    for (auto& d : batch) d = rand_int(rng, 1, 3);
    std::vector<uint32_t> a_batch = batch, b_batch = batch;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (rand_int(rng, 0, 3) == 0) a_batch[i] = 1;
      else if (rand_int(rng, 0, 3) == 0) b_batch[i] = 1;
    }
    std::vector<uint32_t> out_batch(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) out_batch[i] = std::max(a_batch[i], b_batch[i]);
    // A missing leading dim of in0 broadcasts like a 1.
    if (!a_batch.empty() && a_batch[0] == 1 && rand_int(rng, 0, 1) == 0) a_batch.erase(a_batch.begin());
    auto dims = [](std::vector<uint32_t> d, uint32_t r, uint32_t c) {
      d.push_back(r);
      d.push_back(c);
      return d;
    };
    const bool bias = rand_int(rng, 0, 1) != 0;
    Case c;
    c.node.type = "MatMul";
    c.node.inputs = {f32(dims(a_batch, ta ? K : M, ta ? M : K)), f32(dims(b_batch, tb ? N : K, tb ? K : N))};
    if (bias) c.node.inputs.push_back(f32({N}));
    c.node.outputs = {f32(dims(out_batch, M, N))};
    c.node.params = {bool_param("transpose_in0", ta), bool_param("transpose_in1", tb)};
    c.is_static = {false, false, true};
    c.is_static.resize(c.node.inputs.size());
    for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements())));
    c.bind_static();
    const auto ref = from_bytes<float>(run_reference(c));
    const auto sums = abs_sums(c);
    for (const ThreadEnv* env : {&one, &two}) {
      expect_f32_close(from_bytes<float>(run_fast(c, fp, env->env())), ref, sums, K + 1,
                       "matmul rank " + std::to_string(rank) + (ta ? " ta" : "") + (tb ? " tb" : ""));
    }
  }
}

}  // namespace
}  // namespace kernelstest
