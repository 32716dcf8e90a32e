// ElementWiseSelect's fast path (kernels/select_runs.h) against the
// reference: random three-way broadcasts (the condition, either value or
// both one value, masks over leading axes), element types of 1, 2, 4 bytes
// (8-bit with one encoding, FLOAT_16, FLOAT_32, INT_32), at 1 and 2 threads:
// the same bytes. A value that needs requantizing is the reference's.
#include <cstring>

#include "kernel_check.h"
#include "ops/shape.h"

namespace kernelstest {
namespace {

TensorDesc value_tensor(uint32_t dt, std::vector<uint32_t> dims) {
  if (dt == dtype::kUfixed8) return quantized(dt, std::move(dims), per_tensor(0.05f, -100));
  return typed(dt, std::move(dims));
}

TEST(SelectRuns, TheReferencesBytesOverRandomBroadcasts) {
  std::mt19937 rng(31);
  for (int iter = 0; iter < 80; ++iter) {
    std::vector<uint32_t> y(rand_int(rng, 1, 4));
    for (auto& d : y) d = rand_int(rng, 1, 9);
    if (iter == 0) y = {3, 5, 131, 137};  // a mask over leading axes, split over the pool mid-run
    std::vector<uint32_t> c = random_broadcast_of(rng, y), a = random_broadcast_of(rng, y),
                          b = random_broadcast_of(rng, y);
    if (iter == 0) c = {1, 1, 131, 137};
    if (iter % 4 == 1) b = {1};  // Where(mask, x, -inf)
    if (iter % 5 == 2) a = {1};
    if (iter % 3 == 0) c = y;
    std::vector<uint32_t> ab, joint;
    size_t bad = 0;
    if (!openhtp::ops::detail::broadcast_shape(c, a, &ab, &bad) ||
        !openhtp::ops::detail::broadcast_shape(ab, b, &joint, &bad) || joint != y) {
      a = y;  // keep the output shape y
    }
    const uint32_t types[] = {dtype::kFloat32, dtype::kFloat16, dtype::kUfixed8, dtype::kInt32};
    const uint32_t dt = types[iter % 4];
    Node n{"ElementWiseSelect",
           "where",
           {typed(dtype::kBool8, c), value_tensor(dt, a), value_tensor(dt, b)},
           {value_tensor(dt, y)},
           {}};
    Case k{n, {}, {false, false, false}};
    for (size_t i = 0; i < 3; ++i) {
      k.data.push_back(i == 0 ? random_bytes(rng, n.inputs[0].num_bytes(), 0, 1)
                              : random_bytes(rng, n.inputs[i].num_bytes()));
    }
    k.bind_static();
    const Bytes ref = run_reference(k);
    for (size_t threads : {1, 2}) {
      ThreadEnv env(threads);
      const Bytes got = run_fast(k, fast_path("ElementWiseSelect", "vectorized"), env.env());
      ASSERT_EQ(got, ref) << "c " << dims_str(c) << " a " << dims_str(a) << " b " << dims_str(b) << " type "
                          << dt << " at " << threads << " threads";
    }
  }
}

TEST(SelectRuns, ValuesThatNeedRequantizingAreTheReferences) {
  ThreadEnv env(1);
  const std::vector<uint32_t> d = {4, 8};
  Node n{"ElementWiseSelect",
         "where",
         {typed(dtype::kBool8, d), quantized(dtype::kUfixed8, d, per_tensor(0.05f, -100)),
          quantized(dtype::kUfixed8, d, per_tensor(0.1f, -20))},
         {quantized(dtype::kUfixed8, d, per_tensor(0.05f, -100))},
         {}};
  Case k{n, {Bytes(32, 1), Bytes(32, 7), Bytes(32, 9)}, {false, false, false}};
  k.bind_static();
  bool accepted = true;
  run_fast(k, fast_path("ElementWiseSelect", "vectorized"), env.env(), &accepted);
  EXPECT_FALSE(accepted);
}

}  // namespace
}  // namespace kernelstest
