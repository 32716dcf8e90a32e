// Reshape: the data is unchanged, only the dims differ; the target shape is
// out[0]'s dims (QNN's optional in[1] shape tensor is for dynamic outputs,
// which the HTP does not support). Type-generic: elements are moved as bytes
// of their own type (see data_movement.cpp for the encoding rule).
#include <cstring>

#include "ops/op_defs.h"
#include "ops/reference/data_movement.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank 1..5

class ReshapeKernel final : public OpKernel {
 public:
  explicit ReshapeKernel(size_t bytes) : bytes_(bytes) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    // The planner may alias output and input (an in-place reshape); then
    // there is nothing to do.
    if (in[0] != out[0]) std::memmove(out[0], in[0], bytes_);
  }

 private:
  size_t bytes_;
};

// Same elements, different encodings: the values are requantized.
class RequantizingReshapeKernel final : public OpKernel {
 public:
  RequantizingReshapeKernel(const TensorDesc& from, const TensorDesc& to)
      : from_(from), to_(to), scratch_(from.num_elements()) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    // Element-wise in place is safe: to_float reads everything before
    // from_float writes.
    requantize(from_, to_, in[0], out[0], scratch_.data());
  }

 private:
  TensorDesc from_, to_;
  std::vector<float> scratch_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 2, 1); !s.ok()) return s;
  if (has_input(node, 1)) {
    return unsupported(node, "in[1] (shape) is not supported; the output shape must come from out[0]");
  }
  if (Status s = ParamReader(node).check_names({}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  bool requant = false;
  if (Status s = check_movable(node, x, in_label(0, ""), y, out_label(0), &requant); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  if (Status s = check_rank(node, y, out_label(0), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  if (x.num_elements() != y.num_elements()) {
    return invalid(node, "out[0] dims ", dims_str(y.dims), " hold ", y.num_elements(),
                   " elements, expected ", x.num_elements(), " as in[0] dims ", dims_str(x.dims));
  }
  if (kernel) {
    if (requant) {
      TensorDesc from = x;
      from.static_data = nullptr;
      TensorDesc to = y;
      to.dims = x.dims;  // same element count; only the count matters element-wise
      *kernel = std::make_unique<RequantizingReshapeKernel>(from, to);
    } else {
      *kernel = std::make_unique<ReshapeKernel>(x.num_bytes());
    }
  }
  return Status::Ok();
}

}  // namespace

OpDef reshape_def() { return {"Reshape", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
