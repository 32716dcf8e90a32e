// The fp32 binary loops (kernels/float_binary.h) against the reference:
// every operation they take, through its standalone op type and through
// ElementWiseBinary, over random shapes and broadcasts (either side, inner
// and outer axes, one value), at 1 and 2 threads, with NaN, +-inf, +-0,
// equal pairs and exact multiples among the values. Each element is the
// reference's own function, so the bytes must be the reference's, bit for
// bit. And what they must leave alone: integers, 8-bit, the paths that own
// a case (dense Maximum, Power by a vectorized exponent).
#include <cmath>
#include <cstring>
#include <limits>

#include "kernel_check.h"
#include "ops/shape.h"

namespace kernelstest {
namespace {

struct BinaryCase {
  const char* type;  // standalone op type
  uint32_t operation;  // its ElementWiseBinary code
  bool bool_out;
};
constexpr BinaryCase kCases[] = {
    {"ElementWiseFloorDiv", 4, false},     {"ElementWiseFmod", 5, false},         {"ElementWiseMod", 12, false},
    {"ElementWisePower", 16, false},       {"ElementWiseMaximum", 10, false},     {"ElementWiseMinimum", 11, false},
    {"ElementWiseEqual", 3, true},         {"ElementWiseNotEqual", 14, true},     {"ElementWiseGreater", 6, true},
    {"ElementWiseGreaterEqual", 7, true},  {"ElementWiseLess", 8, true},          {"ElementWiseLessEqual", 9, true},
    {"ElementWiseAnd", 1, true},           {"ElementWiseOr", 15, true},           {"ElementWiseXor", 19, true},
};

// Values that exercise each operation's edges: specials, small integers
// (exact quotients and remainders, equal pairs), and plain randoms.
float edge_value(std::mt19937& rng) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  static const float kSpecial[] = {std::numeric_limits<float>::quiet_NaN(), kInf, -kInf, 0.0f, -0.0f, 1.0f, -1.0f,
                                   0.1f, 3.0f, -3.0f, 2.5f};
  switch (rng() % 4) {
    case 0: return kSpecial[rng() % std::size(kSpecial)];
    case 1: return static_cast<float>(static_cast<int>(rng() % 13) - 6);
    default: return rand_float(rng, -8.0f, 8.0f);
  }
}

Node binary_node(const char* type, uint32_t operation, bool generic, uint32_t in_dt, uint32_t out_dt,
                 std::vector<uint32_t> a, std::vector<uint32_t> b, std::vector<uint32_t> y) {
  Node n{generic ? "ElementWiseBinary" : type, "bin", {typed(in_dt, a), typed(in_dt, b)}, {typed(out_dt, y)}, {}};
  if (generic) n.params.push_back(u32_param("operation", operation));
  return n;
}

// The fast path the runtime would take among the "vectorized" ones of the
// node's type: the first that accepts it (ElementWisePower's exponent loops
// come before these). Null when none does.
std::unique_ptr<OpKernel> loops_kernel(const Case& c, const KernelEnv* env) {
  NodeDesc d = c.node.desc();
  d.env = env;
  for (const FastPath& fp : openhtp::kernels::fast_paths()) {
    if (fp.type_name != c.node.type || fp.library != "vectorized") continue;
    std::unique_ptr<OpKernel> k;
    if (fp.prepare(ParsedNode(d).desc(), &k) && k) return k;
  }
  return nullptr;
}

Bytes values(std::mt19937& rng, uint32_t dt, const std::vector<uint32_t>& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  if (dt == dtype::kBool8) {
    Bytes b(n);
    for (auto& v : b) v = static_cast<uint8_t>(rng() % 2);
    return b;
  }
  std::vector<float> f(n);
  for (auto& v : f) v = edge_value(rng);
  return to_bytes(f);
}

TEST(Float32BinaryLoops, EveryOperationIsTheReferenceBitForBit) {
  std::mt19937 rng(23);
  for (int iter = 0; iter < 60; ++iter) {
    std::vector<uint32_t> y(rand_int(rng, 1, 4));
    for (auto& d : y) d = rand_int(rng, 1, 9);
    if (iter == 0) y = {1, 64, 64, 64};       // split over the pool, cheap operations too
    if (iter % 10 == 5) y = {1, 24, 24, 64};  // split for the libm-bound ones
    std::vector<uint32_t> a = random_broadcast_of(rng, y), b = random_broadcast_of(rng, y);
    if (iter % 3 == 0) a = y;       // a dense side, the other broadcast
    if (iter % 5 == 1) b = {1};     // one value
    if (iter % 7 == 2) a = b = y;   // both dense
    // The output is the broadcast of a and b; keep only cases where it is y.
    std::vector<uint32_t> joint;
    size_t bad = 0;
    if (!openhtp::ops::detail::broadcast_shape(a, b, &joint, &bad) || joint != y) a = y;
    for (const BinaryCase& bc : kCases) {
      const bool logical = bc.operation == 1 || bc.operation == 15 || bc.operation == 19;
      for (uint32_t in_dt : {dtype::kFloat32, dtype::kBool8}) {
        if (in_dt == dtype::kBool8 && !logical) continue;
        for (bool generic : {false, true}) {
          const uint32_t out_dt = bc.bool_out ? dtype::kBool8 : dtype::kFloat32;
          Case c{binary_node(bc.type, bc.operation, generic, in_dt, out_dt, a, b, y),
                 {values(rng, in_dt, a), values(rng, in_dt, b)},
                 {false, false}};
          c.bind_static();
          const Bytes ref = run_reference(c);
          for (size_t threads : {1, 2}) {
            ThreadEnv env(threads);
            std::unique_ptr<OpKernel> k = loops_kernel(c, env.env());
            ASSERT_TRUE(k) << c.node.type << " " << bc.type << " a " << dims_str(a) << " b " << dims_str(b);
            const Bytes got = run_kernel(*k, c.data, c.out_bytes());
            ASSERT_EQ(got.size(), ref.size());
            for (size_t i = 0; i < got.size(); i += bc.bool_out ? 1 : 4) {
              ASSERT_EQ(std::memcmp(&got[i], &ref[i], bc.bool_out ? 1 : 4), 0)
                  << bc.type << (generic ? " (ElementWiseBinary)" : "") << " a " << dims_str(a) << " b "
                  << dims_str(b) << " y " << dims_str(y) << ", byte " << i << " at " << threads << " threads";
            }
          }
        }
      }
    }
  }
}

TEST(Float32BinaryLoops, LeaveOtherTypesAndOwnedCasesAlone) {
  ThreadEnv env(1);
  std::mt19937 rng(5);
  auto accepted_by_loops = [&](Node n, std::vector<Bytes> data, std::vector<bool> is_static) {
    Case c{std::move(n), std::move(data), std::move(is_static)};
    c.bind_static();
    return loops_kernel(c, env.env()) != nullptr;
  };
  const std::vector<uint32_t> d = {4, 8};
  // Integers: the reference's (wrapping) arithmetic.
  EXPECT_FALSE(accepted_by_loops(binary_node("ElementWiseFloorDiv", 4, false, dtype::kInt32, dtype::kInt32, d, d, d),
                                 {Bytes(128), Bytes(128)}, {false, false}));
  // Mixed BOOL_8 and float logical inputs: refused by the reference.
  Node mixed{"ElementWiseAnd", "and", {typed(dtype::kBool8, d), typed(dtype::kFloat32, d)}, {typed(dtype::kBool8, d)}, {}};
  EXPECT_FALSE(accepted_by_loops(mixed, {Bytes(32), Bytes(128)}, {false, false}));
  // A float comparison that claims a float output: refused by the reference.
  EXPECT_FALSE(accepted_by_loops(binary_node("ElementWiseLess", 8, false, dtype::kFloat32, dtype::kFloat32, d, d, d),
                                 {values(rng, dtype::kFloat32, d), values(rng, dtype::kFloat32, d)}, {false, false}));
  // ElementWiseBinary's operations other paths own, or none at all.
  for (uint32_t op : {0u, 2u, 13u, 17u, 18u, 20u}) {
    EXPECT_FALSE(accepted_by_loops(binary_node("", op, true, dtype::kFloat32, dtype::kFloat32, d, d, d),
                                   {values(rng, dtype::kFloat32, d), values(rng, dtype::kFloat32, d)}, {false, false}))
        << op;
  }
}

}  // namespace
}  // namespace kernelstest
