#include "ops/type_adapter.h"

#include <optional>
#include <vector>

#include "ops/quant.h"
#include "ops/quant_shares.h"
#include "ops/validate.h"
#include "ops/workspace.h"

namespace openhtp::ops::detail {
namespace {

bool converts(const TensorDesc& t) { return t.present && quant::needs_float_conversion(t.dtype); }

// QNN lets the bias of a per-channel quantized Conv2d/DepthWiseConv2d/
// TransposeConv2d/FullyConnected carry scale 0: the backend derives it as
// in[0].scale * in[1].scale[c]. Returns the derived encoding, or the bias's
// own when it is not that case.
Quant bias_encoding(const NodeDesc& node, size_t index) {
  const TensorDesc& b = node.inputs[index];
  if (index != 2 || !quant::is_fixed_point(b.dtype) || !b.quant.present || b.quant.per_channel() ||
      b.quant.scale != 0.0f || node.inputs.size() < 2) {
    return b.quant;
  }
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& w = node.inputs[1];
  if (!x.quant.present || x.quant.per_channel() || !w.quant.present || b.dims.size() != 1) return b.quant;
  Quant q;
  q.present = true;
  if (!w.quant.per_channel()) {
    q.scale = x.quant.scale * w.quant.scale;
    return q;
  }
  const size_t channels = w.quant.scales.size();
  if (channels != b.dims[0]) return b.quant;
  q.axis = 0;
  q.scales.resize(channels);
  q.offsets.assign(channels, 0);
  for (size_t c = 0; c < channels; ++c) q.scales[c] = x.quant.scale * w.quant.scales[c];
  return q;
}

// The float copies of run-time inputs and outputs live in the workspace
// (op.h), not in the kernel: one node's conversions are only alive while it
// runs, so the planner lets every node share that memory. The workspace is
//   [converted run-time tensors, each 64-byte aligned][the inner kernel's]
// and each float input copy is followed by the inner kernel's read slack,
// so the inner kernel may treat those copies as planned tensors.
class AdaptedKernel final : public OpKernel {
 public:
  // How one tensor crosses the adapter.
  struct Port {
    TensorDesc desc;              // the real (quantized / half) description
    bool convert = false;         // false: passes through
    bool is_static = false;       // input with static data: converted once
    std::vector<float> weights;   // the float copy of a static input (weights, kept)
    size_t offset = 0;            // run-time conversions: where in the workspace
  };

  std::vector<Port> ins, outs;
  std::unique_ptr<OpKernel> inner;

  size_t workspace_bytes() const override { return workspace_.bytes(); }
  void set_workspace(void* memory) override { workspace_.bind(memory); }
  size_t read_slack_bytes() const override { return inner->read_slack_bytes(); }
  bool uses_openmp_team() const override { return inner->uses_openmp_team(); }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    uint8_t* ws = workspace_.data();
    if (ws != inner_bound_) {  // first run, or the regions moved: the inner part moved too
      inner->set_workspace(ws == nullptr ? nullptr : ws + inner_offset_);
      inner_bound_ = ws;
    }
    for (size_t i = 0; i < ins.size(); ++i) {
      Port& p = ins[i];
      if (!p.convert || in[i] == nullptr) {
        in_ptrs_[i] = in[i];
      } else if (p.is_static) {
        in_ptrs_[i] = p.weights.data();
      } else {
        float* f = reinterpret_cast<float*>(ws + p.offset);
        to_float(p.desc, in[i], f);
        in_ptrs_[i] = f;
      }
    }
    for (size_t i = 0; i < outs.size(); ++i) {
      out_ptrs_[i] = outs[i].convert ? static_cast<void*>(ws + outs[i].offset) : out[i];
    }
    // The residual's float copy first: the output may share its memory.
    if (fused.residual) to_float(*fused.residual, in[ins.size()], residual_float(ws));
    inner->run(in_ptrs_, out_ptrs_);
    if (fused.active) apply_fused(reinterpret_cast<float*>(ws + outs[0].offset), residual_float(ws), out[0]);
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i].convert) from_float(outs[i].desc, reinterpret_cast<const float*>(ws + outs[i].offset), out[i]);
    }
  }

  // The graph's pool (KernelEnv), which the conversions split over.
  pthreadpool_t pool = nullptr;

  // A fused epilogue (htp/fusion.h) on a FLOAT_16 or fixed-point output:
  // the float twin runs without it, and the adapter applies it to the
  // twin's float output, rounding where the unfused nodes round — into the
  // producer's type, the sum's after the residual Add, the output's after
  // the clamp — with the conversions those nodes' own adapters use. So the
  // step writes the nodes' values exactly, whichever float kernel ran.
  struct FusedOutput {
    bool active = false;
    std::optional<TensorDesc> producer, sum;  // set: the nodes round there
    std::optional<TensorDesc> residual;       // set: added, converted to float first
    bool clamp = false;
    float lo = 0.0f, hi = 0.0f;
    size_t residual_offset = 0;  // its float copy, in the workspace
  };
  FusedOutput fused;

  // Lays out the workspace once the inner kernel (and so its read slack and
  // workspace) is known.
  void plan_workspace() {
    in_ptrs_.assign(ins.size(), nullptr);
    out_ptrs_.assign(outs.size(), nullptr);
    const size_t slack = inner->read_slack_bytes();
    size_t at = 0;
    for (Port& p : ins) {
      if (!p.convert || p.is_static) continue;
      p.offset = at;
      at = align_workspace(at + p.desc.num_elements() * sizeof(float) + slack);
    }
    for (Port& p : outs) {
      if (!p.convert) continue;
      p.offset = at;
      at = align_workspace(at + p.desc.num_elements() * sizeof(float));
    }
    if (fused.residual) {
      fused.residual_offset = at;
      at = align_workspace(at + fused.residual->num_elements() * sizeof(float));
    }
    inner_offset_ = at;
    workspace_ = Workspace(at + inner->workspace_bytes());
  }

 private:
  float* residual_float(uint8_t* ws) const { return reinterpret_cast<float*>(ws + fused.residual_offset); }

  // A conversion is a memory-bound pass over what the inner kernel reads or
  // has just written in shares over the pool (the fast paths' elementwise
  // loops and oneDNN's primitives split so): it splits the same way
  // (quant_shares.h), so each thread converts what its core's cache holds.
  void to_float(const TensorDesc& t, const void* src, float* dst) const {
    quant::to_float_in_shares(t, src, dst, pool);
  }
  void from_float(const TensorDesc& t, const float* src, void* dst) const {
    quant::from_float_in_shares(t, src, dst, pool);
  }

  // `codes` is the output buffer, free until the final conversion: a
  // rounding goes through it (the producer and the sum have the output's
  // data type and dims, so the same bytes).
  void apply_fused(float* y, const float* residual, void* codes) const {
    const size_t n = outs[0].desc.num_elements();
    auto round_through = [&](const TensorDesc& t) {
      from_float(t, y, codes);
      to_float(t, codes, y);
    };
    if (fused.producer) round_through(*fused.producer);
    if (fused.residual) {
      for (size_t i = 0; i < n; ++i) y[i] += residual[i];
      if (fused.sum) round_through(*fused.sum);
    }
    if (fused.clamp) {
      const Epilogue clamp{.clamp = true, .lo = fused.lo, .hi = fused.hi};
      clamp.apply(y, nullptr, n);
    }
  }

  Workspace workspace_;
  size_t inner_offset_ = 0;
  uint8_t* inner_bound_ = nullptr;  // the workspace the inner kernel was given
  std::vector<const void*> in_ptrs_;
  std::vector<void*> out_ptrs_;
};

// Takes node's epilogue into `k` (FusedOutput); Unsupported where the
// adapter cannot round as the nodes do (then the nodes run unfused).
Status take_epilogue(const NodeDesc& node, AdaptedKernel* k) {
  const Epilogue& e = *node.epilogue;
  auto refuse = [&](std::string_view why) {
    return Status::Unsupported(std::string(node.type) + " '" + std::string(node.name) +
                               "': the type adapter does not take this fused epilogue: " + std::string(why));
  };
  if (e.swish) return refuse("SiLU is FLOAT_32 only");
  if (k->outs.size() != 1 || !k->outs[0].convert) return refuse("its output is not converted");
  const TensorDesc& y = k->outs[0].desc;
  const size_t n = y.num_elements();
  auto same_storage = [&](const TensorDesc& t) { return t.dtype == y.dtype && t.num_elements() == n; };
  AdaptedKernel::FusedOutput& f = k->fused;
  if (e.producer_output != nullptr) {
    if (!same_storage(*e.producer_output)) return refuse("the producer's output has another type or size");
    f.producer = *e.producer_output;
  }
  if (e.residual != nullptr) {
    if (!same_storage(*e.residual)) return refuse("the residual has another type or size");
    if (std::string why = quant::check_encoding(*e.residual); !why.empty()) return refuse("residual " + why);
    f.residual = *e.residual;
    if (e.sum_output != nullptr) {
      if (!same_storage(*e.sum_output)) return refuse("the sum has another type or size");
      f.sum = *e.sum_output;
    }
  }
  f.clamp = e.clamp;
  f.lo = e.lo;
  f.hi = e.hi;
  f.active = true;
  return Status::Ok();
}

}  // namespace

bool needs_type_adapter(const NodeDesc& node) {
  for (const TensorDesc& t : node.inputs) {
    if (converts(t)) return true;
  }
  for (const TensorDesc& t : node.outputs) {
    if (converts(t)) return true;
  }
  return false;
}

Status prepare_adapted(const OpDef& def, const NodeDesc& node, bool use_fast_paths,
                       std::unique_ptr<OpKernel>* kernel, std::string* impl) {
  auto adapted = std::make_unique<AdaptedKernel>();
  std::vector<TensorDesc> f_in, f_out;
  f_in.reserve(node.inputs.size());
  f_out.reserve(node.outputs.size());

  auto describe = [&](const TensorDesc& t, Quant q, const std::string& label, AdaptedKernel::Port* port,
                      TensorDesc* twin) -> Status {
    port->desc = t;
    port->desc.quant = std::move(q);
    *twin = t;
    if (!converts(t)) return Status::Ok();
    if (std::string why = quant::check_encoding(port->desc); !why.empty()) return invalid(node, label, " ", why);
    port->convert = true;
    twin->dtype = dtype::kFloat32;
    twin->quant = Quant{};
    if (t.static_data != nullptr) {
      // Dequantized once; the float kernel (and any weight packing it does)
      // sees float weights.
      port->is_static = true;
      port->weights.resize(t.num_elements());
      quant::to_float(port->desc, t.static_data, port->weights.data());
      twin->static_data = port->weights.data();
    } else {
      // The float copy lives in this adapter's workspace, followed by the
      // inner kernel's read slack (plan_workspace): to the inner kernel it
      // is a planned tensor.
      twin->planned = true;
    }
    return Status::Ok();
  };

  adapted->pool = node.env != nullptr ? node.env->pool : nullptr;
  adapted->ins.resize(node.inputs.size());
  adapted->outs.resize(node.outputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    TensorDesc twin;
    if (Status s = describe(node.inputs[i], bias_encoding(node, i), in_label(i, ""), &adapted->ins[i], &twin); !s.ok())
      return s;
    f_in.push_back(std::move(twin));
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    TensorDesc twin;
    if (Status s = describe(node.outputs[i], node.outputs[i].quant, out_label(i), &adapted->outs[i], &twin); !s.ok())
      return s;
    f_out.push_back(std::move(twin));
  }

  NodeDesc twin{node.name, node.type, f_in, f_out, node.params, node.env};
  twin.parsed = node.parsed;  // same dims and parameters: the geometry is not read again
  if (kernel == nullptr) return def.prepare(twin, nullptr);
  if (impl) *impl = "reference";
  Status s = use_fast_paths ? prepare_node(twin, &adapted->inner, impl) : def.prepare(twin, &adapted->inner);
  if (!s.ok()) return s;
  if (node.has_epilogue()) {
    if (s = take_epilogue(node, adapted.get()); !s.ok()) return s;
  }
  adapted->plan_workspace();
  *kernel = std::move(adapted);
  return Status::Ok();
}

}  // namespace openhtp::ops::detail
