// The fp32 ReduceMean fast path (src/kernels/float_reduce.h) against the
// reference (double sums) over randomized shapes — global average pools over
// H, W of NHWC, last-axis means, a middle block — at 1 and 2 threads, sizes
// large enough to be split over the pool included; and the layouts it must
// decline (reduced axes that are not one block).
#include "kernel_check.h"

namespace kernelstest {
namespace {

// The mean of n floats summed in float in any order is within
// (n + 2) * 2^-24 * (mean of |x|) of the exact mean; the reference's double
// sum is within float rounding of it.
void expect_means_close(const std::vector<float>& fast, const std::vector<float>& ref,
                        const std::vector<double>& abs_mean, size_t n, const std::string& what) {
  ASSERT_EQ(fast.size(), ref.size()) << what;
  for (size_t i = 0; i < fast.size(); ++i) {
    const double tol = (static_cast<double>(n) + 2) * 5.97e-8 * abs_mean[i] + 6e-8 * std::fabs(ref[i]) + 1e-30;
    ASSERT_NEAR(fast[i], ref[i], tol) << what << " at output " << i;
  }
}

struct MeanCase {
  std::vector<uint32_t> dx;
  std::vector<uint32_t> axes;
  bool keep = false;
};

void check(const MeanCase& mc, std::mt19937& rng) {
  std::vector<uint32_t> dy;
  size_t reduced = 1;
  for (uint32_t i = 0; i < mc.dx.size(); ++i) {
    const bool r = std::find(mc.axes.begin(), mc.axes.end(), i) != mc.axes.end();
    if (r) reduced *= mc.dx[i];
    if (!r) dy.push_back(mc.dx[i]);
    else if (mc.keep) dy.push_back(1);
  }
  if (dy.empty()) dy.push_back(1);
  Node n{"ReduceMean", "mean", {typed(dtype::kFloat32, mc.dx)}, {typed(dtype::kFloat32, dy)},
         {u32_tensor_param("axes", {uint32_t(mc.axes.size())}, mc.axes), bool_param("keep_dims", mc.keep)}};
  std::vector<float> x(count(mc.dx));
  // An offset per element keeps the means away from 0 (a relative check means something).
  for (auto& v : x) v = rand_float(rng, -1.0f, 3.0f);
  Case c{n, {to_bytes(x)}, {false}};
  c.bind_static();
  const std::vector<float> want = from_bytes<float>(run_reference(c));
  // |x| means per output, computed here with the reference's walk done by
  // hand: reuse the reference on |x|.
  std::vector<float> ax(x.size());
  for (size_t i = 0; i < x.size(); ++i) ax[i] = std::fabs(x[i]);
  Case ca{n, {to_bytes(ax)}, {false}};
  ca.bind_static();
  const std::vector<float> abs_f = from_bytes<float>(run_reference(ca));
  const std::vector<double> abs_mean(abs_f.begin(), abs_f.end());
  for (size_t threads : {1, 2}) {
    ThreadEnv env(threads);
    const std::vector<float> got = from_bytes<float>(run_fast(c, fast_path("ReduceMean", "vectorized"), env.env()));
    std::string what = "ReduceMean [";
    for (size_t i = 0; i < mc.dx.size(); ++i) what += (i ? "," : "") + std::to_string(mc.dx[i]);
    expect_means_close(got, want, abs_mean, reduced, what + "] threads " + std::to_string(threads));
  }
}

TEST(Float32ReduceMean, MatchesReferenceOverRandomShapes) {
  std::mt19937 rng(31);
  for (int iter = 0; iter < 30; ++iter) {
    MeanCase mc;
    switch (iter % 3) {
      case 0:  // global average pool
        mc.dx = {rand_int(rng, 1, 2), rand_int(rng, 1, 16), rand_int(rng, 1, 16), rand_int(rng, 1, 100)};
        mc.axes = {1, 2};
        break;
      case 1:  // LayerNorm's mean: the last axis
        mc.dx = {rand_int(rng, 1, 3), rand_int(rng, 1, 40), rand_int(rng, 1, 300)};
        mc.axes = {2};
        break;
      default:  // a middle block
        mc.dx = {rand_int(rng, 1, 4), rand_int(rng, 1, 9), rand_int(rng, 1, 9), rand_int(rng, 1, 9)};
        mc.axes = {1, 2};
        break;
    }
    mc.keep = rand_int(rng, 0, 1);
    check(mc, rng);
  }
}

// Big enough for the pool: EfficientNet's first squeeze-excite pool (one
// share of rows per thread) and a transformer's 128 x 1024 LayerNorm rows.
TEST(Float32ReduceMean, SplitOverThePool) {
  std::mt19937 rng(5);
  check({{1, 112, 112, 32}, {1, 2}, true}, rng);
  check({{1, 128, 1024}, {2}, true}, rng);
  check({{4, 64, 64, 8}, {1, 2}, false}, rng);
  check({{2, 20, 20, 200}, {1, 2}, true}, rng);  // three 64-column blocks and a tail, two images
  // One image on two threads: one share of rows each, partial sums added
  // (an odd row count, a block and a tail of columns).
  check({{1, 57, 41, 100}, {1, 2}, false}, rng);
}

TEST(Float32ReduceMean, DeclinesAxesThatAreNotOneBlock) {
  Node n{"ReduceMean", "mean", {typed(dtype::kFloat32, {2, 3, 4})}, {typed(dtype::kFloat32, {3})},
         {u32_tensor_param("axes", {2}, {0, 2}), bool_param("keep_dims", false)}};
  Case c{n, {to_bytes(std::vector<float>(24, 1.0f))}, {false}};
  c.bind_static();
  bool accepted = true;
  ThreadEnv env(1);
  run_fast(c, fast_path("ReduceMean", "vectorized"), env.env(), &accepted);
  EXPECT_FALSE(accepted);
}

}  // namespace
}  // namespace kernelstest
