// FLOAT_32 activations and unary element-wise ops, four ways (and FLOAT_16
// ones the first way, converting in blocks; the rest of FLOAT_16 take a
// table of 65536 answers, lookup_table.h):
//   - exact loops (Relu, ReluMinMax, Relu1, Relu6, hard sigmoid, Abs, Neg,
//     Reciprocal, Sign): the reference's own expression, compiled at -O3 so
//     GCC vectorizes it, split over the graph's pool. XNNPACK's clamp/abs/
//     negate are not used: its vmaxps-based clamp turns NaN into the lower
//     bound and -0 into +0, the reference passes both through, and for
//     memory-bound loops it is no faster.
//   - XNNPACK's unary operators where it has one: sigmoid, hardswish, elu,
//     square root, floor, ceiling, bankers rounding. Square root and the
//     roundings are exact (bit-exact with the reference); sigmoid, elu and
//     hardswish are XNNPACK's approximations, within the tolerance
//     tests/kernels/elementwise_test.cpp states.
//   - openhtp's vectorized loops (float_transcendental.h): tanh, GELU, exp,
//     log, softplus, sin, cos, asin and atan as polynomials within the same
//     tolerance; rsqrt as the reference's own expression (exact).
// ElementWiseNeuron and ElementWiseUnary reach the same kernels by their
// `operation` parameter. Fixed point is declined (8- and 16-bit per-tensor:
// lookup_table.cpp; the rest: the type adapter around these f32 paths).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>

#include "kernels/float_transcendental.h"
#include "kernels/nonfinite_scan.h"
#include "kernels/xnnpack_elementwise.h"
#include "kernels/xnnpack_paths.h"
#include "kernels/xnnpack_runtime.h"
#include "ops/quant.h"

namespace openhtp::kernels::xnn {
namespace {

namespace dtype = ops::dtype;

// --- exact loops ---

// Comparisons as in the reference (neuron.cpp): NaN stays NaN.
inline float clamp(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

// A loop over FLOAT_32 elements (or Elem: BOOL_8 bytes for NOT), or (Half)
// over FLOAT_16 ones in one pass:
// blocks of halves widened into a buffer in L1 (F16C), the expression,
// rounded back — with quant::halves_to_floats / floats_to_halves, the type
// adapter's own conversions, so the result is bit for bit the adapter's
// around the float loop, without its two extra passes over memory (a
// 451K-element Relu: 108 us through the adapter on one thread, 88-95 so;
// bench_kernels relu_f16).
template <typename Fn, bool Half, typename Elem = float>
class LoopKernel final : public ops::OpKernel {
 public:
  LoopKernel(size_t n, pthreadpool_t pool, Fn fn) : n_(n), pool_(pool), fn_(fn) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    // Half: FLOAT_16 codes through float; else Elem (float, or BOOL_8's byte).
    using T = std::conditional_t<Half, uint16_t, Elem>;
    const T* x = static_cast<const T*>(in[0]);
    T* y = static_cast<T*>(out[0]);
    auto body = [x, y, fn = fn_](size_t start, size_t count) {
      if constexpr (Half) {
        constexpr size_t kBlock = 512;
        float f[kBlock];
        for (size_t b = start; b < start + count; b += kBlock) {
          const size_t m = std::min(kBlock, start + count - b);
          ops::quant::halves_to_floats(x + b, f, m);
          for (size_t i = 0; i < m; ++i) f[i] = fn(f[i]);
          ops::quant::floats_to_halves(f, y + b, m);
        }
      } else {
        for (size_t i = start; i < start + count; ++i) y[i] = fn(x[i]);
      }
    };
    parallel_tiles(pool_, n_, kCheapTile, body);
  }

 private:
  size_t n_;
  pthreadpool_t pool_;
  Fn fn_;
};

// A loop over BOOL_8 bytes (ElementWiseNot).
template <typename Fn>
std::unique_ptr<ops::OpKernel> byte_loop(const ops::NodeDesc& node, Fn fn) {
  const size_t n = node.inputs[0].num_elements();
  return std::make_unique<LoopKernel<Fn, false, uint8_t>>(n, elementwise_pool(node, n, kCheapMin), fn);
}

template <typename Fn>
std::unique_ptr<ops::OpKernel> loop(const ops::NodeDesc& node, Fn fn) {
  const size_t n = node.inputs[0].num_elements();
  if (node.inputs[0].dtype == dtype::kFloat16) {
    return std::make_unique<LoopKernel<Fn, true>>(n, elementwise_pool(node, n, kCheapMin), fn);
  }
  return std::make_unique<LoopKernel<Fn, false>>(n, elementwise_pool(node, n, kCheapMin), fn);
}

std::unique_ptr<ops::OpKernel> clamp_loop(const ops::NodeDesc& node, float lo, float hi) {
  return loop(node, [lo, hi](float v) { return clamp(v, lo, hi); });
}

// --- openhtp's vectorized transcendental functions (float_transcendental.h) ---

// One call per tile: a std::function costs nothing measurable at that grain.
using ArrayFn = std::function<void(const float* x, float* y, size_t n)>;

class ArrayKernel final : public ops::OpKernel {
 public:
  ArrayKernel(ArrayFn fn, size_t n, pthreadpool_t pool) : fn_(std::move(fn)), n_(n), pool_(pool) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    auto body = [x, y, &fn = fn_](size_t start, size_t count) { fn(x + start, y + start, count); };
    parallel_tiles(pool_, n_, kCheapTile, body);
  }

 private:
  ArrayFn fn_;
  size_t n_;
  pthreadpool_t pool_;
};

// FLOAT_32 only: FLOAT_16 takes a table of the reference's answers.
std::unique_ptr<ops::OpKernel> array(const ops::NodeDesc& node, ArrayFn fn) {
  if (node.inputs[0].dtype != dtype::kFloat32) return nullptr;
  const size_t n = node.inputs[0].num_elements();
  return std::make_unique<ArrayKernel>(fn, n, elementwise_pool(node, n, kCheapMin));
}

std::unique_ptr<ops::OpKernel> softplus(const ops::NodeDesc& node, float beta, float threshold) {
  if (!(beta > 0.0f)) return nullptr;  // the reference refuses it
  return array(node, [beta, threshold](const float* x, float* y, size_t n) { softplus_f32(x, y, n, beta, threshold); });
}

// --- XNNPACK unary operators ---
// (Subnormal inputs read and results write as ±0 inside them: XNNPACK sets
// FTZ/DAZ around every operator, as for all XNNPACK paths here.)

using UnarySetupFn = xnn_status (*)(xnn_operator_t, size_t, const float*, float*, pthreadpool_t);

// The reference's formula (neuron.cpp) for the outputs where XNNPACK's
// approximation breaks down: its 2022 x86 sigmoid returns NaN for very
// negative finite inputs (-1e30), where the reference returns 0.
float sigmoid_exact(float x, float) { return static_cast<float>(1.0 / (1.0 + std::exp(-double{x}))); }
float elu_exact(float x, float alpha) { return x > 0.0f ? x : static_cast<float>(alpha * std::expm1(double{x})); }
float hardswish_exact(float x, float) { return x * clamp(x + 3.0f, 0.0f, 6.0f) / 6.0f; }
using ExactFn = float (*)(float, float);

class XnnUnaryKernel final : public ops::OpKernel {
 public:
  XnnUnaryKernel(Operator op, UnarySetupFn setup, ExactFn exact, float alpha, size_t n, pthreadpool_t pool)
      : op_(std::move(op)), setup_(setup), exact_(exact), alpha_(alpha), n_(n), pool_(pool) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    // Created with one channel: `count` is the batch, contiguous, which
    // XNNPACK runs as one flat array.
    guard_.run({in[0]}, out[0], n_, sizeof(float), [this](const OverReadGuard<1>::Inputs& x, void* y, size_t count) {
      setup_(op_.get(), count, static_cast<const float*>(x[0]), static_cast<float*>(y), pool_);
      xnn_run_operator(op_.get(), pool_);
    });
    if (exact_ != nullptr) repair(static_cast<const float*>(in[0]), static_cast<float*>(out[0]));
  }

 private:
  // A NaN output for a non-NaN input is XNNPACK's, not the function's:
  // found by a vectorized scan in blocks (in cache right after the
  // operator), recomputed with the reference formula.
  void repair(const float* x, float* y) const {
    constexpr size_t kBlock = 1024;
    for (size_t i0 = 0; i0 < n_; i0 += kBlock) {
      const size_t i1 = std::min(n_, i0 + kBlock);
      if (!any_nan(y + i0, i1 - i0)) continue;
      for (size_t i = i0; i < i1; ++i) {
        if (y[i] != y[i] && x[i] == x[i]) y[i] = exact_(x[i], alpha_);
      }
    }
  }

  Operator op_;
  UnarySetupFn setup_;
  ExactFn exact_;
  float alpha_;
  size_t n_;
  pthreadpool_t pool_;
  OverReadGuard<1> guard_;
};

enum class XnnOp { kSigmoid, kHardSwish, kElu, kSqrt, kFloor, kCeil, kRound };

std::unique_ptr<ops::OpKernel> xnn_unary(const ops::NodeDesc& node, XnnOp op, float alpha = 1.0f) {
  if (!ready() || node.inputs[0].dtype != dtype::kFloat32) return nullptr;
  xnn_operator_t xop = nullptr;
  xnn_status s = xnn_status_unsupported_parameter;
  UnarySetupFn setup = nullptr;
  ExactFn exact = nullptr;  // the approximations only
  switch (op) {
    case XnnOp::kSigmoid:
      s = xnn_create_sigmoid_nc_f32(1, 1, 1, kRunFlags, &xop);
      setup = &xnn_setup_sigmoid_nc_f32;
      exact = &sigmoid_exact;
      break;
    case XnnOp::kHardSwish:
      s = xnn_create_hardswish_nc_f32(1, 1, 1, kRunFlags, &xop);
      setup = &xnn_setup_hardswish_nc_f32;
      exact = &hardswish_exact;
      break;
    case XnnOp::kElu:
      s = xnn_create_elu_nc_f32(1, 1, 1, alpha, kRunFlags, &xop);
      setup = &xnn_setup_elu_nc_f32;
      exact = &elu_exact;
      break;
    case XnnOp::kSqrt:
      s = xnn_create_square_root_nc_f32(1, 1, 1, kRunFlags, &xop);
      setup = &xnn_setup_square_root_nc_f32;
      break;
    case XnnOp::kFloor:
      s = xnn_create_floor_nc_f32(1, 1, 1, kRunFlags, &xop);
      setup = &xnn_setup_floor_nc_f32;
      break;
    case XnnOp::kCeil:
      s = xnn_create_ceiling_nc_f32(1, 1, 1, kRunFlags, &xop);
      setup = &xnn_setup_ceiling_nc_f32;
      break;
    case XnnOp::kRound:
      s = xnn_create_bankers_rounding_nc_f32(1, 1, 1, kRunFlags, &xop);
      setup = &xnn_setup_bankers_rounding_nc_f32;
      break;
  }
  if (s != xnn_status_success) return nullptr;
  const size_t n = node.inputs[0].num_elements();
  // Transcendental ones cost several times a copy per element; the cheap
  // tile is still the right grain for XNNPACK's vectorized versions.
  return std::make_unique<XnnUnaryKernel>(Operator(xop), setup, exact, alpha, n, elementwise_pool(node, n, kCheapMin));
}

// --- which kernel for which op ---

// A float scalar parameter; the reference has validated it already.
bool f32_param(const ops::NodeDesc& node, std::string_view name, float fallback, float* v) {
  const ops::Param* p = node.find_param(name);
  if (p == nullptr) {
    *v = fallback;
    return true;
  }
  if (p->is_tensor) return false;  // a 1-element tensor form: the reference's
  *v = static_cast<float>(p->f);
  return true;
}

// ElementWiseUnary's operation codes (QnnOpDef.h).
enum class Unary : uint32_t {
  kAbs = 0, kAsin, kAtan, kCeil, kCos, kExp, kFloor, kLog, kNeg, kNot, kReciprocal, kRound, kRsqrt, kSign, kSin, kSqrt,
};

std::unique_ptr<ops::OpKernel> unary_kernel(const ops::NodeDesc& node, Unary op) {
  switch (op) {
    case Unary::kAbs: return loop(node, [](float x) { return std::fabs(x); });
    case Unary::kNeg: return loop(node, [](float x) { return -x; });
    case Unary::kReciprocal: return loop(node, [](float x) { return 1.0f / x; });
    case Unary::kSign: return loop(node, [](float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x); });
    case Unary::kCeil: return xnn_unary(node, XnnOp::kCeil);
    case Unary::kFloor: return xnn_unary(node, XnnOp::kFloor);
    case Unary::kRound: return xnn_unary(node, XnnOp::kRound);  // half to even, as the reference
    case Unary::kSqrt: return xnn_unary(node, XnnOp::kSqrt);
    case Unary::kExp: return array(node, &exp_f32);
    case Unary::kLog: return array(node, &log_f32);
    case Unary::kRsqrt: return array(node, &rsqrt_f32);
    case Unary::kSin: return array(node, &sin_f32);
    case Unary::kCos: return array(node, &cos_f32);
    case Unary::kAsin: return array(node, &asin_f32);
    case Unary::kAtan: return array(node, &atan_f32);
    case Unary::kNot: return nullptr;  // over BOOL_8 only: not_kernel, from prepare_unary
  }
  return nullptr;
}

// NOT over BOOL_8, the reference's expression (any nonzero byte is true).
std::unique_ptr<ops::OpKernel> not_kernel(const ops::NodeDesc& node) {
  return byte_loop(node, [](uint8_t b) -> uint8_t { return b == 0; });
}

// ElementWiseNeuron's operation codes (QnnOpDef.h).
enum class Neuron : uint32_t {
  kElu = 0, kGelu, kHardSigmoid, kHardSwish, kRelu, kReluMinMax, kSigmoid, kSoftplus, kTanh,
};

std::unique_ptr<ops::OpKernel> relu(const ops::NodeDesc& node) {
  return loop(node, [](float x) { return x < 0.0f ? 0.0f : x; });
}

std::unique_ptr<ops::OpKernel> min_max(const ops::NodeDesc& node) {
  float lo = 0, hi = 0;
  if (!f32_param(node, "min_value", 0.0f, &lo) || !f32_param(node, "max_value", 0.0f, &hi)) return nullptr;
  return clamp_loop(node, lo, hi);
}

std::unique_ptr<ops::OpKernel> neuron_kernel(const ops::NodeDesc& node, Neuron op) {
  const float ab_default = op == Neuron::kHardSigmoid ? 0.2f : 1.0f;
  float alpha = 1.0f, beta = 0.5f;
  if (!f32_param(node, "alpha", ab_default, &alpha)) return nullptr;
  if (!f32_param(node, "beta", op == Neuron::kHardSigmoid ? 0.5f : 1.0f, &beta)) return nullptr;
  switch (op) {
    case Neuron::kElu: return xnn_unary(node, XnnOp::kElu, alpha);
    case Neuron::kHardSigmoid:
      return loop(node, [alpha, beta](float x) { return clamp(alpha * x + beta, 0.0f, 1.0f); });
    case Neuron::kHardSwish: return xnn_unary(node, XnnOp::kHardSwish);
    case Neuron::kRelu: return relu(node);
    case Neuron::kReluMinMax: return min_max(node);
    case Neuron::kSigmoid: return xnn_unary(node, XnnOp::kSigmoid);
    case Neuron::kGelu: return array(node, &gelu_f32);
    case Neuron::kTanh: return array(node, &tanh_f32);
    case Neuron::kSoftplus: {
      float threshold = -1.0f;
      return f32_param(node, "threshold", -1.0f, &threshold) ? softplus(node, beta, threshold) : nullptr;
    }
  }
  return nullptr;
}

struct Standalone {
  std::string_view type;
  Unary op;
};
constexpr Standalone kStandalone[] = {
    {"ElementWiseAbs", Unary::kAbs},   {"ElementWiseAsin", Unary::kAsin}, {"ElementWiseAtan", Unary::kAtan},
    {"ElementWiseCeil", Unary::kCeil}, {"ElementWiseCos", Unary::kCos},   {"ElementWiseExp", Unary::kExp},
    {"ElementWiseFloor", Unary::kFloor}, {"ElementWiseLog", Unary::kLog}, {"ElementWiseNeg", Unary::kNeg},
    {"ElementWiseNot", Unary::kNot},   {"ElementWiseRound", Unary::kRound}, {"ElementWiseRsqrt", Unary::kRsqrt},
    {"ElementWiseSign", Unary::kSign}, {"ElementWiseSin", Unary::kSin},   {"ElementWiseSquareRoot", Unary::kSqrt},
};

// The operation of an ElementWiseUnary node (its "operation") or of a
// standalone one (kStandalone); none for any other node.
std::optional<Unary> unary_op_of(const ops::NodeDesc& node) {
  const std::string_view t = node.type;
  if (t == "ElementWiseUnary") {
    const ops::Param* p = node.find_param("operation");
    if (p == nullptr || p->is_tensor || p->i < 0 || p->i > static_cast<int64_t>(Unary::kSqrt)) return std::nullopt;
    return static_cast<Unary>(p->i);
  }
  for (const Standalone& s : kStandalone) {
    if (t == s.type) return s.op;
  }
  return std::nullopt;
}

std::unique_ptr<ops::OpKernel> kernel_for(const ops::NodeDesc& node) {
  const std::string_view t = node.type;
  if (t == "Relu") return relu(node);
  if (t == "ReluMinMax") return min_max(node);
  if (t == "Relu1") return clamp_loop(node, -1.0f, 1.0f);
  if (t == "Relu6") return clamp_loop(node, 0.0f, 6.0f);
  if (t == "Sigmoid") return xnn_unary(node, XnnOp::kSigmoid);
  if (t == "HardSwish") return xnn_unary(node, XnnOp::kHardSwish);
  if (t == "Elu") {
    float alpha = 1.0f;
    return f32_param(node, "alpha", 1.0f, &alpha) ? xnn_unary(node, XnnOp::kElu, alpha) : nullptr;
  }
  if (t == "Tanh") return array(node, &tanh_f32);
  if (t == "Logit") {
    const bool clamp = node.find_param("eps") != nullptr;
    float eps = 0.0f;
    if (!f32_param(node, "eps", 0.0f, &eps)) return nullptr;
    return array(node, [clamp, eps](const float* x, float* y, size_t n) { logit_f32(x, y, n, clamp, eps); });
  }
  if (t == "Gelu") return array(node, &gelu_f32);
  if (t == "ElementWiseSoftplus") {
    float beta = 1.0f, threshold = -1.0f;
    if (!f32_param(node, "beta", 1.0f, &beta) || !f32_param(node, "threshold", -1.0f, &threshold)) return nullptr;
    return softplus(node, beta, threshold);
  }
  if (t == "ElementWiseNeuron") {
    const ops::Param* p = node.find_param("operation");
    if (p == nullptr || p->is_tensor || p->i < 0 || p->i > 8) return nullptr;
    return neuron_kernel(node, static_cast<Neuron>(p->i));
  }
  const std::optional<Unary> op = unary_op_of(node);
  return op ? unary_kernel(node, *op) : nullptr;
}

}  // namespace

bool prepare_power_f32(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& e = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  if (x.dtype != dtype::kFloat32 || e.dtype != dtype::kFloat32 || y.dtype != dtype::kFloat32) return false;
  if (x.static_data != nullptr || e.static_data == nullptr || e.num_elements() != 1 || x.dims != y.dims) return false;
  float exponent;
  std::memcpy(&exponent, e.static_data, sizeof exponent);
  const bool whole = std::fabs(exponent) <= static_cast<float>(kMaxWholePower) && std::nearbyint(exponent) == exponent;
  const bool half = exponent == 0.5f || exponent == -0.5f;
  if (!whole && !half) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // the reference validates the rest
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  if (exponent == 2.0f) {
    *kernel = loop(node, [](float v) { return v * v; });  // one float rounding: already the correctly rounded square
  } else if (whole) {
    const int k = static_cast<int>(exponent);
    *kernel = array(node, [k](const float* in, float* out, size_t n) { whole_power_f32(in, out, n, k); });
  } else {
    const bool negative = exponent < 0.0f;
    *kernel = array(node, [negative](const float* in, float* out, size_t n) { half_power_f32(in, out, n, negative); });
  }
  return *kernel != nullptr;
}

bool prepare_unary(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  if (unary_op_of(node) == Unary::kNot) {
    if (!x.present || x.dtype != dtype::kBool8 || y.dtype != dtype::kBool8 || x.dims != y.dims) return false;
    *kernel = not_kernel(node);
    return true;
  }
  // FLOAT_32, or FLOAT_16 for the exact loops (integer Relu/ReluMinMax are
  // the reference's native kernels); same dims, as the reference has checked.
  const bool f32 = x.dtype == dtype::kFloat32 && y.dtype == dtype::kFloat32;
  const bool f16 = x.dtype == dtype::kFloat16 && y.dtype == dtype::kFloat16;
  if (!x.present || !(f32 || f16) || x.dims != y.dims) return false;
  std::unique_ptr<ops::OpKernel> k = kernel_for(node);
  if (!k) return false;
  *kernel = std::move(k);
  return true;
}

}  // namespace openhtp::kernels::xnn
