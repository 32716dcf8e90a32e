#include "kernels/float_binary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/broadcast_runs.h"
#include "kernels/isa_level.h"
#include "kernels/parallel_tiles.h"
#include "kernels/xnnpack_elementwise.h"
#include "ops/reference/binary_fns.h"
#include "ops/op.h"
#include "ops/shape.h"

namespace openhtp::kernels::f32 {
namespace {

namespace dtype = ops::dtype;
namespace fns = ops::binary_fns;
using Op = fns::BinaryOp;

// One run of m outputs: each input read at stride 1 or held (stride 0);
// the specialised loops are what GCC vectorizes (fn a lambda, so that it
// inlines), once for the build's baseline and once for AVX2, chosen at
// prepare (isa_level.h).
template <typename A, typename Y, typename Fn>
__attribute__((always_inline)) inline void run_row(const A* a, size_t as, const A* b, size_t bs, Y* y, size_t m,
                                                   Fn fn) {
  if (as == 1 && bs == 1) {
    for (size_t i = 0; i < m; ++i) y[i] = fn(a[i], b[i]);
  } else if (as == 1 && bs == 0) {
    const A v = *b;
    for (size_t i = 0; i < m; ++i) y[i] = fn(a[i], v);
  } else if (as == 0 && bs == 1) {
    const A u = *a;
    for (size_t i = 0; i < m; ++i) y[i] = fn(u, b[i]);
  } else {
    for (size_t i = 0; i < m; ++i) y[i] = fn(a[i * as], b[i * bs]);
  }
}

template <typename A, typename Y, typename Fn>
void run_row_baseline(const A* a, size_t as, const A* b, size_t bs, Y* y, size_t m, Fn fn) {
  run_row(a, as, b, bs, y, m, fn);
}
template <typename A, typename Y, typename Fn>
__attribute__((target("avx2"))) void run_row_avx2(const A* a, size_t as, const A* b, size_t bs, Y* y, size_t m,
                                                  Fn fn) {
  run_row(a, as, b, bs, y, m, fn);
}

template <typename A, typename Y, typename Fn>
class BinaryLoopKernel final : public ops::OpKernel {
 public:
  BinaryLoopKernel(const Runs<2>& runs, Fn fn, size_t tile, pthreadpool_t pool)
      : runs_(runs),
        n_(runs.elements()),
        fn_(fn),
        row_(isa_level() != IsaLevel::kBaseline ? &run_row_avx2<A, Y, Fn> : &run_row_baseline<A, Y, Fn>),
        tile_(tile),
        pool_(pool) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const A* a = static_cast<const A*>(in[0]);
    const A* b = static_cast<const A*>(in[1]);
    Y* y = static_cast<Y*>(out[0]);
    auto body = [=, this](size_t start, size_t count) {
      for_each_run(runs_, start, count, [&](const std::array<size_t, 2>& at, const std::array<size_t, 2>& s, size_t m,
                                            size_t out_at) { row_(a + at[0], s[0], b + at[1], s[1], y + out_at, m, fn_); });
    };
    parallel_tiles(pool_, n_, tile_, body);
  }

 private:
  Runs<2> runs_;
  size_t n_;
  Fn fn_;
  void (*row_)(const A*, size_t, const A*, size_t, Y*, size_t, Fn);
  size_t tile_;
  pthreadpool_t pool_;
};

// The operation a node computes, or none.
std::optional<Op> operation_of(const ops::NodeDesc& node) {
  const std::string_view t = node.type;
  if (t == "ElementWiseBinary") {
    const ops::Param* p = node.find_param("operation");
    if (p == nullptr || p->is_tensor || p->i < 0 || p->i >= int64_t{fns::kNumBinaryOps}) return std::nullopt;
    return static_cast<Op>(p->i);
  }
  struct Named {
    std::string_view type;
    Op op;
  };
  static constexpr Named kNamed[] = {
      {"ElementWiseMaximum", Op::kMaximum},
      {"ElementWiseMinimum", Op::kMinimum},
      {"ElementWiseFloorDiv", Op::kFloorDiv},
      {"ElementWiseFmod", Op::kFmod},
      {"ElementWiseMod", Op::kMod},
      {"ElementWisePower", Op::kPower},
      {"ElementWiseEqual", Op::kEqual},
      {"ElementWiseNotEqual", Op::kNotEqual},
      {"ElementWiseGreater", Op::kGreater},
      {"ElementWiseGreaterEqual", Op::kGreaterEqual},
      {"ElementWiseLess", Op::kLess},
      {"ElementWiseLessEqual", Op::kLessEqual},
      {"ElementWiseAnd", Op::kAnd},
      {"ElementWiseOr", Op::kOr},
      {"ElementWiseXor", Op::kXor},
  };
  for (const Named& n : kNamed) {
    if (t == n.type) return n.op;
  }
  return std::nullopt;
}

struct Plan {
  Runs<2> runs;
  size_t n;
  pthreadpool_t pool;  // the graph's
};

template <typename A, typename Y, typename Fn>
std::unique_ptr<ops::OpKernel> loop(const Plan& p, Fn fn, bool costly) {
  const size_t tile = costly ? xnn::kCostlyTile : xnn::kCheapTile;
  const size_t min = costly ? xnn::kCostlyMin : xnn::kCheapMin;
  return std::make_unique<BinaryLoopKernel<A, Y, Fn>>(p.runs, fn, tile, p.n >= min ? p.pool : nullptr);
}

// The kernel of operation `op` with inputs of type A (float, or uint8_t for
// BOOL_8 logical inputs); null for the operations other paths own.
template <typename A>
std::unique_ptr<ops::OpKernel> kernel_for(Op op, const Plan& p) {
  using Bool = uint8_t;
  if constexpr (std::is_same_v<A, float>) {
    using F = float;
    switch (op) {
      case Op::kMaximum: return loop<F, F>(p, [](F a, F b) { return fns::nan_max(a, b); }, false);
      case Op::kMinimum: return loop<F, F>(p, [](F a, F b) { return fns::nan_min(a, b); }, false);
      case Op::kFloorDiv: return loop<F, F>(p, [](F a, F b) { return fns::floor_div(a, b); }, true);
      case Op::kMod: return loop<F, F>(p, [](F a, F b) { return fns::floor_mod(a, b); }, true);
      case Op::kFmod:
        return loop<F, F>(p, [](F a, F b) { return std::fmod(a, b); }, true);
      case Op::kPower:
        return loop<F, F>(p, [](F a, F b) { return std::pow(a, b); }, true);
      case Op::kEqual:
        return loop<F, Bool>(p, [](F a, F b) -> Bool { return a == b; }, false);
      case Op::kNotEqual:
        return loop<F, Bool>(p, [](F a, F b) -> Bool { return a != b; }, false);
      case Op::kGreater:
        return loop<F, Bool>(p, [](F a, F b) -> Bool { return a > b; }, false);
      case Op::kGreaterEqual:
        return loop<F, Bool>(p, [](F a, F b) -> Bool { return a >= b; }, false);
      case Op::kLess:
        return loop<F, Bool>(p, [](F a, F b) -> Bool { return a < b; }, false);
      case Op::kLessEqual:
        return loop<F, Bool>(p, [](F a, F b) -> Bool { return a <= b; }, false);
      default: break;
    }
  }
  switch (op) {  // logical: non-zero is true, on float or BOOL_8 inputs
    case Op::kAnd:
      return loop<A, Bool>(p, [](A a, A b) -> Bool { return a != 0 && b != 0; }, false);
    case Op::kOr:
      return loop<A, Bool>(p, [](A a, A b) -> Bool { return a != 0 || b != 0; }, false);
    case Op::kXor:
      return loop<A, Bool>(p, [](A a, A b) -> Bool { return (a != 0) != (b != 0); }, false);
    default: return nullptr;
  }
}

}  // namespace

bool prepare_binary_loop(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  const ops::TensorDesc& a = node.inputs[0];
  const ops::TensorDesc& b = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  if (!a.present || !b.present || a.dtype != b.dtype) return false;
  const bool bools = a.dtype == dtype::kBool8;
  if (!bools && a.dtype != dtype::kFloat32) return false;  // integers, 8-bit and FLOAT_16 go elsewhere
  const std::optional<Op> op = operation_of(node);
  if (!op) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // the reference validates the rest: types, shapes, parameters
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  std::vector<uint32_t> joint;
  size_t bad = 0;
  if (!ops::detail::broadcast_shape(a.dims, b.dims, &joint, &bad) || joint != y.dims) return false;
  const Plan plan{collapse_runs<2>(joint, {ops::detail::broadcast_strides(a.dims, joint),
                                            ops::detail::broadcast_strides(b.dims, joint)}),
                  y.num_elements(), graph_pool(node)};
  if (plan.runs.rank == 0) return false;
  *kernel = bools ? kernel_for<uint8_t>(*op, plan) : kernel_for<float>(*op, plan);
  return *kernel != nullptr;
}

}  // namespace openhtp::kernels::f32
