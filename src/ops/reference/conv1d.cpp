// Conv1d, DepthWiseConv1d and TransposeConv1d: QNN's 1-D convolutions on
// activations [N, W, C], run as the 2-D op with H = 1.
//
//   Conv1d           filter [kw, Cin/group, Cout]  ->  Conv2d          [1, kw, Cin/group, Cout]
//   DepthWiseConv1d  filter [kw, 1, Cout]          ->  DepthWiseConv2d [1, kw, 1, Cout]
//   TransposeConv1d  filter [kw, Cin, Cout/group]  ->  TransposeConv2d [1, kw, Cin, Cout/group]
//
// Inserting a unit axis moves no element, so the 2-D node sees the same
// memory: its prepare builds the kernel, and the kernel runs on the 1-D
// op's own buffers. Quantized and FLOAT_16 nodes reach this prepare as their
// float twin (op_flags::kAdaptTypes), dequantized with their own 1-D
// encodings, so a per-channel filter (quantized along its last axis, dim 2)
// needs nothing here.
//
// The 1-D rules (parameter shapes, ranks, channel and output dims) are
// checked here first so that a refusal names the 1-D dims; the 2-D prepare
// then only repeats them.
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

OpDef depthwise_conv2d_def();
OpDef transpose_conv2d_def();

namespace {

enum class Kind { kConv, kDepthWise, kTranspose };

// The 1-D parameters, read and range-checked.
struct Params1d {
  uint32_t stride = 1, dilation = 1, group = 1, output_padding = 0;
  uint32_t pad_begin = 0, pad_end = 0;
};

// stride / dilation / output_padding: QNN gives the 1-D ops' per-axis values
// as scalars; a one-element tensor (the 2-D ops' form cut to one axis) is
// accepted too, since it can only mean the same thing.
Status read_axis_value(const NodeDesc& node, const ParamReader& params, std::string_view name, uint32_t def,
                       uint32_t* out) {
  const Param* p = node.find_param(name);
  if (p == nullptr || !p->is_tensor) return params.u32_scalar(name, def, out);
  static constexpr uint32_t kDims1[] = {1};
  std::vector<uint32_t> v;
  if (Status s = params.u32_tensor(name, kDims1, {}, &v); !s.ok()) return s;
  *out = v[0];
  return Status::Ok();
}

// pad_amount: [begin, end], shape [2] (or [1, 2], the 2-D form cut to one axis).
Status read_pad(const NodeDesc& node, const ParamReader& params, Params1d* p) {
  const Param* given = node.find_param("pad_amount");
  static constexpr uint32_t kDims2[] = {2};
  static constexpr uint32_t kDims1x2[] = {1, 2};
  static constexpr uint32_t kZeros[] = {0, 0};
  const bool two_d = given != nullptr && given->is_tensor && given->dims.size() == 2;
  std::vector<uint32_t> pad;
  if (Status s = params.u32_tensor("pad_amount", two_d ? std::span<const uint32_t>(kDims1x2) : kDims2, kZeros, &pad);
      !s.ok())
    return s;
  p->pad_begin = pad[0];
  p->pad_end = pad[1];
  return Status::Ok();
}

// QNN's op text gives every 1-D parameter a default (stride 1, no padding,
// dilation 1, group 1); a node that spells them out reads the same.
Status read_params(const NodeDesc& node, Kind kind, Params1d* p) {
  ParamReader params(node);
  Status names = kind == Kind::kConv        ? params.check_names({"stride", "pad_amount", "group", "dilation"})
                 : kind == Kind::kDepthWise ? params.check_names({"stride", "pad_amount", "dilation"})
                                            : params.check_names({"stride", "pad_amount", "group", "output_padding"});
  if (!names.ok()) return names;
  if (Status s = read_axis_value(node, params, "stride", 1, &p->stride); !s.ok()) return s;
  if (Status s = read_pad(node, params, p); !s.ok()) return s;
  if (kind != Kind::kTranspose) {
    if (Status s = read_axis_value(node, params, "dilation", 1, &p->dilation); !s.ok()) return s;
  } else {
    if (Status s = read_axis_value(node, params, "output_padding", 0, &p->output_padding); !s.ok()) return s;
  }
  if (kind != Kind::kDepthWise) {
    if (Status s = params.u32_scalar("group", 1u, &p->group); !s.ok()) return s;
  }
  if (p->stride == 0) return invalid(node, "parameter 'stride' is 0, expected >= 1");
  if (p->dilation == 0) return invalid(node, "parameter 'dilation' is 0, expected >= 1");
  if (p->group == 0) return invalid(node, "parameter 'group' is 0, expected >= 1");
  if (p->output_padding >= p->stride) {
    return invalid(node, "parameter 'output_padding' is ", p->output_padding, ", expected < stride ", p->stride);
  }
  return Status::Ok();
}

// Ranks, channel counts and the output dims, in 1-D terms.
Status check_shapes(const NodeDesc& node, Kind kind, const Params1d& p) {
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& f = node.inputs[1];
  if (Status s = check_rank(node, x, in_label(0, "input"), 3, 3, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, f, in_label(1, "filter"), 3, 3, StatusCode::kInvalidArgument); !s.ok()) return s;
  if (Status s = check_rank(node, node.outputs[0], out_label(0), 3, 3, StatusCode::kInvalidArgument); !s.ok())
    return s;
  const uint32_t N = x.dims[0], W = x.dims[1], Cin = x.dims[2], K = f.dims[0];
  uint64_t Cout = f.dims[2];
  if (kind == Kind::kConv) {
    if (Cin % p.group != 0) {
      return invalid(node, "in[0] (input) channels Cin = ", Cin, " not divisible by parameter 'group' = ", p.group);
    }
    if (Cout % p.group != 0) {
      return invalid(node, "in[1] (filter) output channels Cout = dim 2 = ", Cout,
                     " not divisible by parameter 'group' = ", p.group);
    }
    if (f.dims[1] != Cin / p.group) {
      return invalid(node, "in[1] (filter) dim 1 is ", f.dims[1], ", expected Cin/group = ", Cin / p.group);
    }
  } else if (kind == Kind::kDepthWise) {
    if (f.dims[1] != 1) return invalid(node, "in[1] (filter) dim 1 is ", f.dims[1], ", expected 1");
    if (Cin == 0 || Cout % Cin != 0) {
      return invalid(node, "in[1] (filter) output channels Cout = dim 2 = ", Cout,
                     " is not a multiple of in[0] (input) channels Cin = ", Cin);
    }
  } else {
    if (Cin % p.group != 0) {
      return invalid(node, "in[0] (input) channels Cin = ", Cin, " not divisible by parameter 'group' = ", p.group);
    }
    if (f.dims[1] != Cin) return invalid(node, "in[1] (filter) dim 1 is ", f.dims[1], ", expected Cin = ", Cin);
    Cout *= p.group;
    if (Cout > UINT32_MAX) return invalid(node, "output channels Cout = ", Cout, " do not fit 32 bits");
  }
  // Zero dims are refused by the data-type check that ran first.
  int64_t Wo = 0;
  if (kind == Kind::kTranspose) {
    Wo = int64_t{p.stride} * (int64_t{W} - 1) + K - p.pad_begin - p.pad_end + p.output_padding;
    if (Wo < 1) {
      return invalid(node, "output width s*(W-1)+kw-pad_begin-pad_end+output_padding = ", Wo,
                     ", expected >= 1 (padding larger than the full output)");
    }
  } else {
    const int64_t eff = (int64_t{K} - 1) * p.dilation + 1;
    const int64_t padded = int64_t{p.pad_begin} + W + p.pad_end;
    if (eff > padded) {
      return invalid(node, "dilated filter width (kw-1)*d+1 = ", eff,
                     " exceeds padded input width pad_begin+W+pad_end = ", padded);
    }
    Wo = (padded - eff) / p.stride + 1;
  }
  if (Wo > UINT32_MAX) return invalid(node, "output width ", Wo, " does not fit a 32-bit dimension");
  const uint32_t out_dims[] = {N, static_cast<uint32_t>(Wo), static_cast<uint32_t>(Cout)};
  return check_output_dims(node, 0, out_dims);
}

Param u32_tensor(std::string name, std::vector<uint32_t> dims, std::vector<uint32_t> values) {
  Param p;
  p.name = std::move(name);
  p.is_tensor = true;
  p.dtype = dtype::kUint32;
  p.dims = std::move(dims);
  p.data.resize(values.size() * sizeof(uint32_t));
  std::memcpy(p.data.data(), values.data(), p.data.size());
  return p;
}

// A tensor with a unit axis inserted before dim `at`; a per-channel axis at
// or after it moves with it.
TensorDesc with_unit_axis(const TensorDesc& t, size_t at) {
  TensorDesc r = t;
  if (!t.present) return r;
  r.dims.insert(r.dims.begin() + static_cast<std::ptrdiff_t>(at), 1u);
  if (r.quant.axis >= static_cast<int32_t>(at)) ++r.quant.axis;
  return r;
}

template <Kind kKind>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 2, 3, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"input", "filter", "bias"};
  if (Status s = check_all_f32(node, kRoles, 2); !s.ok()) return s;
  Params1d p;
  if (Status s = read_params(node, kKind, &p); !s.ok()) return s;
  if (Status s = check_shapes(node, kKind, p); !s.ok()) return s;

  // The 2-D node: activations [N, 1, W, C], filter [1, kw, ., .], bias as is.
  std::vector<TensorDesc> inputs{with_unit_axis(node.inputs[0], 1), with_unit_axis(node.inputs[1], 0)};
  if (node.inputs.size() > 2) inputs.push_back(node.inputs[2]);
  const std::array<TensorDesc, 1> outputs{with_unit_axis(node.outputs[0], 1)};
  std::vector<Param> params{u32_tensor("stride", {2}, {1, p.stride}),
                            u32_tensor("pad_amount", {2, 2}, {0, 0, p.pad_begin, p.pad_end})};
  if (kKind != Kind::kTranspose) params.push_back(u32_tensor("dilation", {2}, {1, p.dilation}));
  if (kKind == Kind::kTranspose) params.push_back(u32_tensor("output_padding", {2}, {0, p.output_padding}));
  if (kKind != Kind::kDepthWise) {
    Param g;
    g.name = "group";
    g.dtype = dtype::kUint32;
    g.i = p.group;
    g.f = p.group;
    params.push_back(std::move(g));
  }
  NodeDesc node2d = node;  // same name and type: a backstop refusal still names the 1-D op
  node2d.inputs = inputs;
  node2d.outputs = outputs;
  node2d.params = params;
  node2d.parsed = nullptr;  // the 2-D prepare reads its own geometry
  const OpDef def2d = kKind == Kind::kConv        ? conv2d_def()
                      : kKind == Kind::kDepthWise ? depthwise_conv2d_def()
                                                  : transpose_conv2d_def();
  return def2d.prepare(node2d, kernel);
}

}  // namespace

OpDef conv1d_def() { return {"Conv1d", &guarded_prepare<prepare<Kind::kConv>>, op_flags::kAdaptTypes}; }
OpDef depthwise_conv1d_def() {
  return {"DepthWiseConv1d", &guarded_prepare<prepare<Kind::kDepthWise>>, op_flags::kAdaptTypes};
}
OpDef transpose_conv1d_def() {
  return {"TransposeConv1d", &guarded_prepare<prepare<Kind::kTranspose>>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
