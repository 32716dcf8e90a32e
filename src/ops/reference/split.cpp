// Split: in[0] cut along `axis` into M+1 outputs; split_index[k] is where
// output k+1 starts (strictly increasing, within [1, dim-1]). Type-generic;
// an output whose encoding differs from in[0]'s gets its slice requantized
// (data_movement.cpp).
#include <algorithm>
#include <cstring>

#include "ops/op_defs.h"
#include "ops/reference/data_movement.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;

class SplitKernel final : public OpKernel {
 public:
  struct Part {
    size_t offset_bytes;   // start of this part inside one outer slice of the input
    size_t block_bytes;    // bytes of this part per outer slice
    bool requant = false;  // gathered into `moved` (in[0]'s type), then requantized
    TensorDesc from, to;
    std::vector<uint8_t> moved;
  };

  SplitKernel(std::vector<Part> parts, size_t outer, size_t slice_bytes, size_t max_floats)
      : parts_(std::move(parts)), outer_(outer), slice_bytes_(slice_bytes), floats_(max_floats) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    for (size_t k = 0; k < parts_.size(); ++k) {
      Part& p = parts_[k];
      auto* dst = static_cast<uint8_t*>(p.requant ? p.moved.data() : out[k]);
      for (size_t o = 0; o < outer_; ++o) {
        std::memcpy(dst + o * p.block_bytes, src + o * slice_bytes_ + p.offset_bytes, p.block_bytes);
      }
      if (p.requant) requantize(p.from, p.to, p.moved.data(), out[k], floats_.data());
    }
  }

 private:
  std::vector<Part> parts_;
  size_t outer_, slice_bytes_;
  std::vector<float> floats_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, node.outputs.empty() ? 1 : node.outputs.size()); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"axis", "split_index"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const size_t rank = x.dims.size();
  uint32_t axis = 0;
  if (Status s = params.u32_scalar("axis", std::nullopt, &axis); !s.ok()) return s;
  if (axis >= rank) return invalid(node, "parameter 'axis' is ", axis, ", expected < rank ", rank);

  const Param* p = node.find_param("split_index");
  if (p == nullptr) return invalid(node, "mandatory parameter 'split_index' is missing");
  if (p->is_tensor && p->dims.size() == 1 && p->dims[0] + 1 != node.outputs.size()) {
    return invalid(node, "parameter 'split_index' has ", p->dims[0], " entries, so ", p->dims[0] + 1,
                   " outputs are expected, the node has ", node.outputs.size());
  }
  const uint32_t index_dims[] = {static_cast<uint32_t>(node.outputs.size() - 1)};
  std::vector<uint32_t> split;
  // Mandatory: a (non-empty) default is never used since presence was checked.
  if (Status s = params.u32_tensor("split_index", index_dims, {}, &split); !s.ok()) return s;
  const uint32_t dim = x.dims[axis];
  std::vector<uint32_t> starts{0};
  for (size_t k = 0; k < split.size(); ++k) {
    if (split[k] < 1 || split[k] > dim - 1) {
      return invalid(node, "parameter 'split_index' element ", k, " is ", split[k], ", expected in [1, ",
                     dim - 1, "] (axis ", axis, " has size ", dim, ")");
    }
    if (split[k] <= starts.back() && k > 0) {
      return invalid(node, "parameter 'split_index' element ", k, " is ", split[k],
                     ", expected > element ", k - 1, " = ", starts.back(), " (strictly increasing)");
    }
    starts.push_back(split[k]);
  }
  starts.push_back(dim);

  std::vector<bool> requant(node.outputs.size());
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    const TensorDesc& y = node.outputs[k];
    if (Status s = check_generic_tensor(node, y, out_label(k)); !s.ok()) return s;
    bool rq = false;
    if (Status s = check_movable(node, x, in_label(0, ""), y, out_label(k), &rq); !s.ok()) return s;
    requant[k] = rq;
    std::vector<uint32_t> want = x.dims;
    want[axis] = starts[k + 1] - starts[k];
    if (Status s = check_output_dims(node, k, want); !s.ok()) return s;
  }

  if (kernel) {
    const size_t elem = dtype::element_size(x.dtype);
    const size_t inner = product(x.dims, axis + 1, rank);
    std::vector<SplitKernel::Part> parts(node.outputs.size());
    size_t max_floats = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      SplitKernel::Part& part = parts[k];
      part.offset_bytes = size_t{starts[k]} * inner * elem;
      part.block_bytes = size_t{starts[k + 1] - starts[k]} * inner * elem;
      if (requant[k]) {
        const TensorDesc& y = node.outputs[k];
        part.requant = true;
        part.from = retyped(y, x);
        part.to = retyped(y, y);
        part.moved.resize(part.from.num_bytes());
        max_floats = std::max(max_floats, y.num_elements());
      }
    }
    *kernel = std::make_unique<SplitKernel>(std::move(parts), product(x.dims, 0, axis),
                                            size_t{dim} * inner * elem, max_floats);
  }
  return Status::Ok();
}

}  // namespace

OpDef split_def() { return {"Split", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
