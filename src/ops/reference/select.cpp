// ElementWiseSelect: y = cond ? a : b per element, where in[0] (cond) is
// BOOL_8 and in[1] (a), in[2] (b) are the values; the three shapes broadcast
// together numpy-style (lower ranks extended with leading 1s, each axis
// equal or 1), as ONNX Where does.
//
// Type-generic: the values move as bytes in out[0]'s type. a and b must be
// movable to out[0] (data_movement.cpp); one whose type or encoding differs
// from out[0]'s is requantized into out[0]'s encoding first, so the kernel
// only ever picks bytes.
#include <array>
#include <cstring>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5, as the other element-wise ops

// One value input: its broadcast strides and, when it needs requantizing,
// its own description and the buffer its converted copy lives in.
struct Operand {
  std::array<size_t, kMaxRank> strides{};
  bool requant = false;
  TensorDesc from, to;  // to: the operand's dims in out[0]'s type
  std::vector<uint8_t> converted;
  std::vector<float> floats;
};

class SelectKernel final : public OpKernel {
 public:
  SelectKernel(std::vector<uint32_t> dims, std::array<size_t, kMaxRank> cond_strides, Operand a, Operand b,
               size_t elem)
      : dims_(std::move(dims)), cond_strides_(cond_strides), a_(std::move(a)), b_(std::move(b)), elem_(elem) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* cond = static_cast<const uint8_t*>(in[0]);
    const uint8_t* a = convert(a_, in[1]);
    const uint8_t* b = convert(b_, in[2]);
    auto* y = static_cast<uint8_t*>(out[0]);
    const size_t rank = dims_.size();
    const size_t n = product(dims_, 0, rank);
    std::array<uint32_t, kMaxRank> idx{};
    size_t c_off = 0, a_off = 0, b_off = 0;
    for (size_t o = 0; o < n; ++o) {
      // BOOL_8: zero is false, anything else true.
      const uint8_t* src = cond[c_off] != 0 ? a + a_off * elem_ : b + b_off * elem_;
      std::memcpy(y + o * elem_, src, elem_);
      // Odometer step over the output index, moving all three offsets.
      for (size_t ax = rank; ax-- > 0;) {
        c_off += cond_strides_[ax];
        a_off += a_.strides[ax];
        b_off += b_.strides[ax];
        if (++idx[ax] < dims_[ax]) break;
        c_off -= cond_strides_[ax] * dims_[ax];
        a_off -= a_.strides[ax] * dims_[ax];
        b_off -= b_.strides[ax] * dims_[ax];
        idx[ax] = 0;
      }
    }
  }

 private:
  static const uint8_t* convert(Operand& op, const void* src) {
    if (!op.requant) return static_cast<const uint8_t*>(src);
    requantize(op.from, op.to, src, op.converted.data(), op.floats.data());
    return op.converted.data();
  }

  std::vector<uint32_t> dims_;
  std::array<size_t, kMaxRank> cond_strides_;
  Operand a_, b_;
  size_t elem_;
};

std::array<size_t, kMaxRank> strides_of(std::span<const uint32_t> dims, std::span<const uint32_t> out_dims) {
  std::array<size_t, kMaxRank> s{};
  const std::vector<size_t> v = broadcast_strides(dims, out_dims);
  for (size_t i = 0; i < v.size(); ++i) s[i] = v[i];
  return s;
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 3, 3, 1); !s.ok()) return s;
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;  // no parameters
  static constexpr std::string_view kRoles[] = {"condition", "if true", "if false"};
  for (size_t i = 0; i < 3; ++i) {
    const std::string label = in_label(i, kRoles[i]);
    if (Status s = check_generic_tensor(node, node.inputs[i], label); !s.ok()) return s;
    if (Status s = check_rank(node, node.inputs[i], label, 0, kMaxRank, StatusCode::kUnsupported); !s.ok())
      return s;
  }
  const TensorDesc& cond = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (cond.dtype != dtype::kBool8) {
    return invalid(node, "in[0] (condition) data type is ", dtype::name(cond.dtype), ", expected BOOL_8");
  }
  Operand ops[2];
  for (size_t i = 0; i < 2; ++i) {
    const TensorDesc& v = node.inputs[i + 1];
    if (Status s = check_movable(node, v, in_label(i + 1, kRoles[i + 1]), y, out_label(0), &ops[i].requant);
        !s.ok())
      return s;
  }

  // The joint shape: cond with in1, then with in2.
  std::vector<uint32_t> ab, dims;
  size_t bad = 0;
  if (!broadcast_shape(cond.dims, node.inputs[1].dims, &ab, &bad) ||
      !broadcast_shape(ab, node.inputs[2].dims, &dims, &bad)) {
    return invalid(node, "in[0] dims ", dims_str(cond.dims), ", in[1] dims ", dims_str(node.inputs[1].dims),
                   " and in[2] dims ", dims_str(node.inputs[2].dims),
                   " do not broadcast (each axis must be equal or 1)");
  }
  // All-scalar operands give a rank-0 output: the walk below then runs once.
  if (Status s = check_output_dims(node, 0, dims); !s.ok()) return s;

  if (kernel) {
    for (size_t i = 0; i < 2; ++i) {
      const TensorDesc& v = node.inputs[i + 1];
      ops[i].strides = strides_of(v.dims, dims);
      if (ops[i].requant) {
        ops[i].from = retyped(v, v);
        ops[i].to = retyped(v, y);
        ops[i].converted.resize(ops[i].to.num_bytes());
        ops[i].floats.resize(v.num_elements());
      }
    }
    *kernel = std::make_unique<SelectKernel>(dims, strides_of(cond.dims, dims), std::move(ops[0]), std::move(ops[1]),
                                             dtype::element_size(y.dtype));
  }
  return Status::Ok();
}

}  // namespace

OpDef elementwise_select_def() { return {"ElementWiseSelect", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
