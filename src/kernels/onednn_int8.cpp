#include "kernels/onednn_int8.h"

#include <algorithm>
#include <cstring>

#include "kernels/lookup_table.h"
#include "kernels/onednn_paths.h"
#include "kernels/parallel_tiles.h"
#include "kernels/quant_params.h"
#include "ops/quant.h"
#include "kernels/xnnpack_convolution.h"  // output_clamp

namespace openhtp::kernels::onednn {

using dnnl::memory;
using dt = memory::data_type;

std::optional<Int8Operand> int8_operand(const ops::TensorDesc& t) {
  if (auto zp = u8_zero_point(t)) return Int8Operand{dt::u8, *zp, t.quant.scale};
  if (auto zp = s8_zero_point(t)) return Int8Operand{dt::s8, *zp, t.quant.scale};
  return std::nullopt;
}

void ZeroPoints::declare(dnnl::primitive_attr* attr) const {
  for (const auto& [arg, zp] : args_) attr->set_zero_points(arg, 0, {DNNL_RUNTIME_S32_VAL});
}

void ZeroPoints::bind(Executor* ex) const {
  for (const auto& [arg, zp] : args_) {
    memory m({{1}, dt::s32, memory::format_tag::x}, engine());
    *static_cast<int32_t*>(m.get_data_handle()) = zp;
    ex->add_fixed(DNNL_ARG_ATTR_ZERO_POINTS | arg, m);
  }
}

bool int8_output_clip(const ops::NodeDesc& node, bool y_u8, int32_t y_zero_point, dnnl::primitive_attr* attr) {
  if (!node.has_epilogue()) return true;
  if (node.epilogue->residual != nullptr || node.epilogue->swish) return false;
  // oneDNN applies post-ops to the scaled accumulator before the dst zero
  // point is added, so the bounds are codes minus the zero point. Only
  // whole-code bounds (as XNNPACK's output min/max), so rounding then
  // clamping is exact.
  const int32_t qmin = y_u8 ? 0 : -128, qmax = y_u8 ? 255 : 127;
  int32_t lo, hi;
  if (!xnn::output_clamp(node, qmin, qmax, &lo, &hi)) return false;
  if (lo > qmin || hi < qmax) {
    dnnl::post_ops po;
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, static_cast<float>(lo - y_zero_point),
                      static_cast<float>(hi - y_zero_point));
    attr->set_post_ops(po);
  }
  return true;
}

namespace {

// The residual's post-ops and clamp table (onednn_int8.h, Int8Residual);
// null when the node has no 8-bit residual or an encoding is not per-tensor.
std::optional<Int8Residual> int8_residual_post_ops(const ops::NodeDesc& node, const Int8Operand& y,
                                                   dnnl::primitive_attr* attr) {
  const ops::Epilogue* e = node.epilogue;
  if (e == nullptr || e->residual == nullptr || e->producer_output == nullptr || e->swish) return std::nullopt;
  if (e->clamp != (e->sum_output != nullptr)) return std::nullopt;
  const auto t = int8_operand(*e->producer_output);
  const auto r = int8_operand(*e->residual);
  const auto s = e->sum_output ? int8_operand(*e->sum_output) : std::optional<Int8Operand>(y);
  if (!t || !r || !s) return std::nullopt;
  Int8Residual out{t->scale, *s, std::nullopt};
  using dnnl::algorithm;
  dnnl::post_ops po;
  const int32_t qmin = t->type == dt::u8 ? 0 : -128, qmax = t->type == dt::u8 ? 255 : 127;
  po.append_eltwise(1.0f, algorithm::eltwise_clip, static_cast<float>(qmin - t->zero_point),
                    static_cast<float>(qmax - t->zero_point));
  po.append_eltwise(1.0f, algorithm::eltwise_round, 0.0f, 0.0f);
  po.append_eltwise(1.0f, algorithm::eltwise_linear, static_cast<float>(double{t->scale} / s->scale), 0.0f);
  po.append_sum(static_cast<float>(double{r->scale} / s->scale), r->zero_point, r->type);
  attr->set_post_ops(po);
  if (e->clamp) {
    // The clamp node's arithmetic (the type adapter's: to float, clamp,
    // from float) on every code of the Add's output.
    std::array<uint8_t, 256> codes;
    std::array<float, 256> real;
    for (int c = 0; c < 256; ++c) codes[c] = static_cast<uint8_t>(c);
    ops::TensorDesc in = *e->sum_output, res = node.outputs[0];
    in.dims = res.dims = {256};
    ops::quant::to_float(in, codes.data(), real.data());
    for (float& v : real) v = std::min(std::max(v, e->lo), e->hi);
    out.clamp_table.emplace();
    ops::quant::from_float(res, real.data(), out.clamp_table->data());
  }
  return out;
}

}  // namespace

std::optional<Int8Epilogue> int8_epilogue(const ops::NodeDesc& node, const Int8Operand& y, dnnl::primitive_attr* attr) {
  if (node.has_epilogue() && node.epilogue->residual != nullptr) {
    auto residual = int8_residual_post_ops(node, y, attr);
    if (!residual) return std::nullopt;
    return Int8Epilogue{residual->unit_scale, residual->sum, std::move(residual)};
  }
  if (!int8_output_clip(node, y.type == dt::u8, y.zero_point, attr)) return std::nullopt;
  return Int8Epilogue{y.scale, y, std::nullopt};
}

std::unique_ptr<ops::OpKernel> with_int8_epilogue(std::unique_ptr<Int8Kernel> k, const ops::NodeDesc& node,
                                                  const Int8Epilogue& e) {
  const ops::TensorDesc& y = node.outputs[0];
  if (e.residual) k->set_residual(residual_input(node), y.num_bytes(), graph_pool(node));
  if (e.table() == nullptr) return k;
  return std::make_unique<TabledOutput>(std::move(k), e.table(), y.num_elements(), graph_pool(node));
}

Int8Kernel::Int8Kernel(Executor ex, size_t src, size_t dst, size_t weights, bool bind_weights, size_t flip_bytes)
    : ex_(std::move(ex)), src_(src), dst_(dst), weights_(weights), bind_weights_(bind_weights),
      flip_at_(ops::align_workspace(ex_.workspace_bytes())), flip_bytes_(flip_bytes),
      ws_(flip_bytes > 0 ? flip_at_ + flip_bytes : ex_.workspace_bytes()) {}

void Int8Kernel::run(std::span<const void* const> in, std::span<void* const> out) {
  if (res_in_ != SIZE_MAX && in[res_in_] != out[0]) {
    const auto* r = static_cast<const uint8_t*>(in[res_in_]);
    auto* y = static_cast<uint8_t*>(out[0]);
    auto copy = [r, y](size_t start, size_t count) { std::memcpy(y + start, r + start, count); };
    run_in_shares(pool_, sum_bytes_, kShareMinElems, copy);
  }
  uint8_t* const ws = ws_.data();
  if (ex_.workspace_bytes() > 0) ex_.set_workspace(ws);
  ex_.bind(src_, in[0]);
  if (bind_weights_) {
    if (flip_bytes_ > 0) {
      auto* s8 = reinterpret_cast<int8_t*>(ws + flip_at_);
      u8_to_s8(static_cast<const uint8_t*>(in[1]), flip_bytes_, s8);
      ex_.bind(weights_, s8);
    } else {
      ex_.bind(weights_, in[1]);
    }
  }
  ex_.bind(dst_, out[0]);
  ex_.execute();
}

TabledOutput::TabledOutput(std::unique_ptr<ops::OpKernel> inner, const uint8_t* table, size_t n, pthreadpool_t pool)
    : inner_(std::move(inner)), n_(n), pool_(pool) {
  std::memcpy(table_.data(), table, table_.size());
}

void TabledOutput::run(std::span<const void* const> in, std::span<void* const> out) {
  inner_->run(in, out);
  lut::lookup_bytes_in_shares(pool_, table_.data(), static_cast<uint8_t*>(out[0]), n_);
}

void u8_to_s8(const uint8_t* in, size_t n, int8_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(static_cast<int>(in[i]) - 128);
}

}  // namespace openhtp::kernels::onednn
