// Concat: inputs joined along `axis` (default the last). Type-generic: each
// input whose type or encoding differs from out[0]'s is first requantized to
// out[0]'s encoding (data_movement.cpp), then blocks of bytes are copied.
#include <algorithm>
#include <cstring>

#include "ops/op_defs.h"
#include "ops/reference/data_movement.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

constexpr size_t kMaxRank = 5;  // HTP: rank <= 5

class ConcatKernel final : public OpKernel {
 public:
  struct Source {
    size_t block_bytes;    // bytes of one outer slice: dims[axis..] * out element size
    bool requant = false;  // converted into `converted` first
    TensorDesc from, to;   // requantization: the input as given / in out[0]'s encoding
    std::vector<uint8_t> converted;
  };

  ConcatKernel(std::vector<Source> sources, size_t outer, size_t max_floats)
      : sources_(std::move(sources)), outer_(outer), floats_(max_floats), srcs_(sources_.size()) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    auto* dst = static_cast<uint8_t*>(out[0]);
    std::vector<const uint8_t*>& srcs = srcs_;
    for (size_t i = 0; i < sources_.size(); ++i) {
      Source& s = sources_[i];
      if (s.requant) {
        requantize(s.from, s.to, in[i], s.converted.data(), floats_.data());
        srcs[i] = s.converted.data();
      } else {
        srcs[i] = static_cast<const uint8_t*>(in[i]);
      }
    }
    for (size_t o = 0; o < outer_; ++o) {
      for (size_t i = 0; i < sources_.size(); ++i) {
        const size_t b = sources_[i].block_bytes;
        std::memcpy(dst, srcs[i] + o * b, b);
        dst += b;
      }
    }
  }

 private:
  std::vector<Source> sources_;
  size_t outer_;
  std::vector<float> floats_;
  std::vector<const uint8_t*> srcs_;  // per input: its bytes in out[0]'s type
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (node.inputs.empty()) return invalid(node, "has 0 inputs, expected at least 1");
  if (Status s = check_io_count(node, 1, node.inputs.size(), 1); !s.ok()) return s;
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  const TensorDesc& x0 = node.inputs[0];
  if (Status s = check_generic_tensor(node, x0, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_rank(node, x0, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  const size_t rank = x0.dims.size();
  ParamReader params(node);
  if (Status s = params.check_names({"axis"}); !s.ok()) return s;
  uint32_t axis = 0;
  if (Status s = params.u32_scalar("axis", static_cast<uint32_t>(rank - 1), &axis); !s.ok()) return s;
  if (axis >= rank) return invalid(node, "parameter 'axis' is ", axis, ", expected < rank ", rank);

  std::vector<uint32_t> out_dims = x0.dims;
  uint64_t axis_sum = 0;
  std::vector<bool> requant(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const TensorDesc& x = node.inputs[i];
    const std::string label = in_label(i, "");
    if (Status s = check_generic_tensor(node, x, label); !s.ok()) return s;
    bool rq = false;
    if (Status s = check_movable(node, x, label, y, out_label(0), &rq); !s.ok()) return s;
    requant[i] = rq;
    if (x.dims.size() != rank) return invalid(node, label, " rank is ", x.dims.size(), ", expected ", rank, " as in[0]");
    for (size_t d = 0; d < rank; ++d) {
      if (d != axis && x.dims[d] != x0.dims[d]) {
        return invalid(node, label, " dim ", d, " is ", x.dims[d], ", expected ", x0.dims[d],
                       " as in[0] (only the concat axis ", axis, " may differ)");
      }
    }
    axis_sum += x.dims[axis];
  }
  if (axis_sum > UINT32_MAX) return invalid(node, "concatenated axis size ", axis_sum, " does not fit 32 bits");
  out_dims[axis] = static_cast<uint32_t>(axis_sum);
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    const size_t out_elem = dtype::element_size(y.dtype);
    std::vector<ConcatKernel::Source> sources(node.inputs.size());
    size_t max_floats = 0;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const TensorDesc& x = node.inputs[i];
      ConcatKernel::Source& s = sources[i];
      s.block_bytes = product(x.dims, axis, rank) * out_elem;
      if (requant[i]) {
        s.requant = true;
        s.from = retyped(x, x);
        s.to = retyped(x, y);
        s.converted.resize(s.to.num_bytes());
        max_floats = std::max(max_floats, x.num_elements());
      }
    }
    *kernel = std::make_unique<ConcatKernel>(std::move(sources), product(x0.dims, 0, axis), max_floats);
  }
  return Status::Ok();
}

}  // namespace

OpDef concat_def() { return {"Concat", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
