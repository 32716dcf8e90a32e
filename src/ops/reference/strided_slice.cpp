// StridedSlice: one (begin, end, stride) range per entry of `ranges`
// (INT_32 [m, 3]). Per entry (bit e of each mask):
//   new_axes_mask   a new size-1 output dim; the range is ignored and no input
//                   dim is consumed (takes precedence over the other masks, as
//                   in TensorFlow, whose StridedSlice QNN's mirrors);
//   shrink_axes     take the single element at begin; the dim is dropped;
//   begin_mask      begin ignored: the first element in the stride's direction;
//   end_mask        end ignored: run to the last element in that direction.
// The non-new entries map one-to-one onto in[0]'s dims. Negative begin/end
// count from the end (+dim), except that with a negative stride an end of -1
// means "through index 0" (the QNN op text's rule, facts §4.2). Out-of-range
// begin/end clamp to the dim, as in Python slicing. Type-generic.
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
constexpr size_t kMaxEntries = 32;  // mask bits

// The slice along one input dim: `count` elements from `start`, `step` apart.
struct AxisSlice {
  int64_t start = 0;
  int64_t step = 1;
  uint32_t count = 1;
};

class StridedSliceKernel final : public OpKernel {
 public:
  StridedSliceKernel(std::vector<AxisSlice> axes, std::vector<size_t> in_strides, size_t elem,
                     RequantizedOutput output)
      : axes_(std::move(axes)), in_strides_(std::move(in_strides)), elem_(elem), output_(std::move(output)) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* src = static_cast<const uint8_t*>(in[0]);
    uint8_t* dst = output_.target(out[0]);
    // With a unit step along the last axis its elements are contiguous in
    // both tensors: each output row is one copy of `run` elements, and the
    // odometer walks the axes before it (the same bytes, fewer calls).
    const bool rows = !axes_.empty() && axes_.back().step == 1;
    const size_t rank = rows ? axes_.size() - 1 : axes_.size();
    const size_t run = rows ? axes_.back().count * elem_ : elem_;
    // Odometer over the sliced (input-rank) index space; the output is that
    // space in row-major order (new and shrunk dims have size 1).
    uint32_t idx[kMaxRank] = {};
    int64_t off = 0;
    for (size_t k = 0; k < axes_.size(); ++k) off += axes_[k].start * static_cast<int64_t>(in_strides_[k]);
    size_t n = 1;
    for (size_t k = 0; k < rank; ++k) n *= axes_[k].count;
    if (run == 0) n = 0;
    for (size_t o = 0; o < n; ++o) {
      std::memcpy(dst + o * run, src + static_cast<size_t>(off) * elem_, run);
      for (size_t k = rank; k-- > 0;) {
        const int64_t step = axes_[k].step * static_cast<int64_t>(in_strides_[k]);
        if (++idx[k] < axes_[k].count) {
          off += step;
          break;
        }
        off -= step * (axes_[k].count - 1);
        idx[k] = 0;
      }
    }
    output_.finish(out[0]);
  }

 private:
  std::vector<AxisSlice> axes_;
  std::vector<size_t> in_strides_;
  size_t elem_;
  RequantizedOutput output_;
};

Status read_ranges(const NodeDesc& node, std::vector<int32_t>* ranges, size_t* entries) {
  const Param* p = node.find_param("ranges");
  if (p == nullptr) return invalid(node, "mandatory parameter 'ranges' is missing");
  if (!p->is_tensor) return invalid(node, "parameter 'ranges' is a scalar, expected an INT_32 tensor [m,3]");
  if (p->dtype != dtype::kInt32 && p->dtype != dtype::kUint32) {
    return invalid(node, "parameter 'ranges' has data type ", dtype::name(p->dtype), ", expected INT_32");
  }
  if (p->dims.size() != 2 || p->dims[1] != 3) {
    return invalid(node, "parameter 'ranges' dims are ", dims_str(p->dims), ", expected [m,3] (begin, end, stride)");
  }
  if (p->dims[0] > kMaxEntries) {
    return invalid(node, "parameter 'ranges' has ", p->dims[0], " entries, expected at most ", kMaxEntries);
  }
  const size_t count = size_t{p->dims[0]} * 3;
  if (p->data.size() != count * 4) {
    return invalid(node, "parameter 'ranges' holds ", p->data.size(), " bytes, expected ", count * 4);
  }
  ranges->resize(count);
  std::memcpy(ranges->data(), p->data.data(), count * 4);
  *entries = p->dims[0];
  return Status::Ok();
}

// Resolves one range against a dim of size `dim`.
AxisSlice resolve(int64_t begin, int64_t end, int64_t stride, bool begin_masked, bool end_masked, int64_t dim) {
  AxisSlice a;
  a.step = stride;
  int64_t b, e;
  if (stride > 0) {
    b = begin_masked ? 0 : (begin < 0 ? begin + dim : begin);
    e = end_masked ? dim : (end < 0 ? end + dim : end);
    b = std::clamp<int64_t>(b, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    a.count = static_cast<uint32_t>(e > b ? (e - b + stride - 1) / stride : 0);
  } else {
    b = begin_masked ? dim - 1 : (begin < 0 ? begin + dim : begin);
    e = end_masked || end == -1 ? -1 : (end < 0 ? end + dim : end);
    b = std::clamp<int64_t>(b, -1, dim - 1);
    e = std::clamp<int64_t>(e, -1, dim - 1);
    a.count = static_cast<uint32_t>(b > e ? (b - e - stride - 1) / -stride : 0);
  }
  a.start = b;
  return a;
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"ranges", "begin_mask", "end_mask", "shrink_axes", "new_axes_mask"}); !s.ok())
    return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  bool requant = false;
  if (Status s = check_moved_io(node, "", &requant); !s.ok()) return s;
  if (Status s = check_rank(node, x, in_label(0, ""), 1, kMaxRank, StatusCode::kUnsupported); !s.ok())
    return s;
  std::vector<int32_t> ranges;
  size_t entries = 0;
  if (Status s = read_ranges(node, &ranges, &entries); !s.ok()) return s;
  uint32_t begin_mask = 0, end_mask = 0, shrink = 0, new_axes = 0;
  if (Status s = params.u32_scalar("begin_mask", 0u, &begin_mask); !s.ok()) return s;
  if (Status s = params.u32_scalar("end_mask", 0u, &end_mask); !s.ok()) return s;
  if (Status s = params.u32_scalar("shrink_axes", 0u, &shrink); !s.ok()) return s;
  if (Status s = params.u32_scalar("new_axes_mask", 0u, &new_axes); !s.ok()) return s;
  const uint32_t valid_bits = entries >= 32 ? UINT32_MAX : (1u << entries) - 1;
  const std::pair<const char*, uint32_t> masks[] = {
      {"begin_mask", begin_mask}, {"end_mask", end_mask}, {"shrink_axes", shrink}, {"new_axes_mask", new_axes}};
  for (const auto& [name, m] : masks) {
    if (m & ~valid_bits) {
      return invalid(node, "parameter '", name, "' is ", m, ", which sets bits beyond the ", entries,
                     " entries of 'ranges'");
    }
  }
  const size_t rank = x.dims.size();
  size_t consumed = 0;
  for (size_t e = 0; e < entries; ++e) consumed += (new_axes >> e & 1u) ? 0 : 1;
  if (consumed != rank) {
    return invalid(node, "parameter 'ranges' has ", entries, " entries, ", consumed,
                   " of them not new axes, expected in[0] rank ", rank, " such entries");
  }

  std::vector<AxisSlice> axes;
  std::vector<uint32_t> out_dims;
  size_t d = 0;
  for (size_t e = 0; e < entries; ++e) {
    if (new_axes >> e & 1u) {
      out_dims.push_back(1);
      continue;
    }
    const int64_t begin = ranges[3 * e], end = ranges[3 * e + 1], stride = ranges[3 * e + 2];
    const int64_t dim = x.dims[d];
    AxisSlice a;
    if (shrink >> e & 1u) {
      const int64_t b = begin < 0 ? begin + dim : begin;
      if (b < 0 || b >= dim) {
        return invalid(node, "'ranges' entry ", e, " begin ", begin, " selects no element of dim ", d,
                       " (size ", dim, ") for shrink_axes");
      }
      a.start = b;
      a.count = 1;
    } else {
      if (stride == 0) return invalid(node, "'ranges' entry ", e, " stride is 0, expected non-zero");
      a = resolve(begin, end, stride, begin_mask >> e & 1u, end_mask >> e & 1u, dim);
      if (a.count == 0) {
        return invalid(node, "'ranges' entry ", e, " (", begin, ", ", end, ", ", stride,
                       ") selects no element of dim ", d, " (size ", dim, "); empty outputs are not allowed");
      }
      out_dims.push_back(a.count);
    }
    axes.push_back(a);
    ++d;
  }
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;

  if (kernel) {
    *kernel = std::make_unique<StridedSliceKernel>(std::move(axes), row_major_strides(x.dims),
                                                   dtype::element_size(x.dtype), RequantizedOutput(requant, x, y));
  }
  return Status::Ok();
}

}  // namespace

OpDef strided_slice_def() { return {"StridedSlice", &guarded_prepare<prepare>, 0}; }

}  // namespace openhtp::ops::detail
