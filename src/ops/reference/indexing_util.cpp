// The table-driven movement kernel and the index/axis readers of the
// indexing family (indexing_util.h).
#include "ops/reference/indexing_util.h"

#include <cstring>

#include "ops/param_reader.h"
#include "ops/quant.h"
#include "ops/reference/data_movement.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

class MoveKernel final : public OpKernel {
 public:
  MoveKernel(size_t elem, std::vector<MoveRoute> routes) : elem_(elem), routes_(std::move(routes)) {
    outputs_.reserve(routes_.size());
    for (const MoveRoute& r : routes_) outputs_.emplace_back(r.requant, r.moved, r.out);
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    for (size_t k = 0; k < routes_.size(); ++k) {
      const MoveRoute& r = routes_[k];
      uint8_t* dst = outputs_[k].target(out[k]);
      const size_t n = r.moved.num_elements();
      if (r.element.empty()) {
        std::memcpy(dst, in[0], n * elem_);
      } else if (r.input.empty()) {
        const auto* src = static_cast<const uint8_t*>(in[0]);
        for (size_t o = 0; o < n; ++o) {
          const uint32_t e = r.element[o];
          std::memcpy(dst + o * elem_, e == kPadElement ? r.pad.data() : src + size_t{e} * elem_, elem_);
        }
      } else {
        for (size_t o = 0; o < n; ++o) {
          const auto* src = static_cast<const uint8_t*>(in[r.input[o]]);
          std::memcpy(dst + o * elem_, src + size_t{r.element[o]} * elem_, elem_);
        }
      }
      outputs_[k].finish(out[k]);
    }
  }

 private:
  size_t elem_;
  std::vector<MoveRoute> routes_;
  std::vector<RequantizedOutput> outputs_;  // one per route (staging only where it requantizes)
};

}  // namespace

std::unique_ptr<OpKernel> make_move_kernel(size_t elem_bytes, std::vector<MoveRoute> routes) {
  return std::make_unique<MoveKernel>(elem_bytes, std::move(routes));
}

std::unique_ptr<OpKernel> make_move_kernel(size_t elem_bytes, MoveRoute route) {
  std::vector<MoveRoute> routes;
  routes.push_back(std::move(route));
  return make_move_kernel(elem_bytes, std::move(routes));
}

Status read_nhwc_block(const NodeDesc& node, std::vector<uint32_t>* block) {
  const TensorDesc& x = node.inputs[0];
  if (x.dims.size() != 4) {
    return invalid(node, "in[0] rank is ", x.dims.size(), ", expected 4 ([N,H,W,C], channel last)");
  }
  const uint32_t block_dims[] = {2};
  if (Status s = ParamReader(node).u32_tensor("block_size", block_dims, {}, block); !s.ok()) return s;
  if ((*block)[0] == 0 || (*block)[1] == 0) {
    return invalid(node, "parameter 'block_size' is ", dims_str(*block), ", expected both elements >= 1");
  }
  return Status::Ok();
}

Status route_from_input0(const NodeDesc& node, size_t k, std::vector<uint32_t> element, MoveRoute* route) {
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[k];
  if (Status s = check_movable(node, x, in_label(0, ""), y, out_label(k), &route->requant); !s.ok()) return s;
  route->element = std::move(element);
  route->moved = retyped(y, x);
  route->out = retyped(y, y);
  return Status::Ok();
}

std::vector<uint8_t> zero_element(const TensorDesc& t) {
  std::vector<uint8_t> b(dtype::element_size(t.dtype), 0);
  if (quant::is_fixed_point(t.dtype)) {
    const int64_t q = quant::quantize_one(0.0f, t.quant.scale, t.quant.offset, quant::qmin(t.dtype), quant::qmax(t.dtype));
    std::memcpy(b.data(), &q, b.size());  // little-endian: the low bytes hold q in the type's width
  }
  return b;
}

Status check_index_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label) {
  if (Status s = check_plain_tensor(node, t, label); !s.ok()) return s;
  if (t.dtype != dtype::kInt32 && t.dtype != dtype::kUint32) {
    return invalid(node, label, " data type is ", dtype::name(t.dtype), ", expected INT_32 or UINT_32");
  }
  return Status::Ok();
}

Status check_gather_io(const NodeDesc& node, bool* requantize) {
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& idx = node.inputs[1];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_index_tensor(node, idx, in_label(1, "indices")); !s.ok()) return s;
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  return check_movable(node, x, in_label(0, ""), y, out_label(0), requantize);
}

Status check_scatter_io(const NodeDesc& node) {
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& idx = node.inputs[1];
  const TensorDesc& upd = node.inputs[2];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_plain_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_index_tensor(node, idx, in_label(1, "indices")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, upd, in_label(2, "updates")); !s.ok()) return s;
  if (Status s = check_plain_tensor(node, y, out_label(0)); !s.ok()) return s;
  if (upd.dtype != x.dtype || y.dtype != x.dtype) {
    return invalid(node, "in[2] (updates) and out[0] data types are ", dtype::name(upd.dtype), " and ",
                   dtype::name(y.dtype), ", expected in[0]'s ", dtype::name(x.dtype));
  }
  return Status::Ok();
}

Status axis_param(const NodeDesc& node, std::string_view name, std::optional<int64_t> def, int64_t rank,
                  size_t* out) {
  int64_t axis = 0;
  const Param* p = node.find_param(name);
  if (p == nullptr) {
    if (!def) return invalid(node, "mandatory parameter '", name, "' is missing");
    axis = *def;
  } else {
    if (p->is_tensor) return invalid(node, "parameter '", name, "' is a tensor, expected an INT_32 or UINT_32 scalar");
    if (p->dtype != dtype::kInt32 && p->dtype != dtype::kUint32 && p->dtype != dtype::kInt8 &&
        p->dtype != dtype::kInt16 && p->dtype != dtype::kInt64 && p->dtype != dtype::kUint8 &&
        p->dtype != dtype::kUint16) {
      return invalid(node, "parameter '", name, "' has data type ", dtype::name(p->dtype),
                     ", expected INT_32 or UINT_32");
    }
    axis = p->i;
  }
  if (axis < -rank || axis >= rank) {
    return invalid(node, "parameter '", name, "' is ", axis, ", expected in [", -rank, ", ", rank - 1, "]");
  }
  *out = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  return Status::Ok();
}

}  // namespace openhtp::ops::detail
