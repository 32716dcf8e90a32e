// Shared pieces of the indexing family (indexing_group.cpp): a data-movement
// kernel driven by a table built at prepare, the I/O checks of the gather and
// scatter ops, the NHWC block_size reader, the readers for index tensors and
// signed axis parameters, the scatter reductions and the element-type
// dispatch of the arithmetic kernels.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ops/op.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

// Where one output's elements come from. Output element o is element
// element[o] of in[input[o]]: `input` empty means every element comes from
// in[0], and `element` empty means the output is in[0] copied whole (the
// shape-only ops). The elements move as bytes; when the output's type or
// encoding differs from the source's (check_movable), they are requantized
// afterwards from `moved` (the output's dims, the source's type) to `out`.
// An `element` entry of kPadElement (one-input routes only) writes `pad`,
// one element in the source's type, instead (SpaceToBatch's padding).
inline constexpr uint32_t kPadElement = UINT32_MAX;

struct MoveRoute {
  std::vector<uint32_t> input;
  std::vector<uint32_t> element;  // < kMaxElements (2^31), so 32 bits suffice
  std::vector<uint8_t> pad;
  bool requant = false;
  TensorDesc moved;
  TensorDesc out;
};

// Tile, DepthToSpace, SpaceToDepth, ChannelShuffle, ExpandDims, Squeeze,
// Pack, UnPack, SpaceToBatch and BatchToSpace: every output is a fixed rearrangement of the inputs, so
// the whole op is the tables. elem_bytes is the moved type's element size.
std::unique_ptr<OpKernel> make_move_kernel(size_t elem_bytes, std::vector<MoveRoute> routes);
// The same for an op with one output.
std::unique_ptr<OpKernel> make_move_kernel(size_t elem_bytes, MoveRoute route);

// DepthToSpace/SpaceToDepth and SpaceToBatch/BatchToSpace: in[0] has rank 4
// (NHWC) and `block_size` is a UINT_32 [2] (mandatory) with both elements >= 1.
Status read_nhwc_block(const NodeDesc& node, std::vector<uint32_t>* block);

// The route for out[k] of a one-input op: type and encoding rules of
// data_movement.cpp between in[0] and out[k], with `element` as given.
Status route_from_input0(const NodeDesc& node, size_t k, std::vector<uint32_t> element, MoveRoute* route);

// One element of real value 0 in t's type (fixed point: the quantized 0,
// q = -offset, clamped), as bytes.
std::vector<uint8_t> zero_element(const TensorDesc& t);

// An index tensor: present, INT_32 or UINT_32, within the element limits.
Status check_index_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label);

// in[0] (data), in[1] (indices) and out[0] of a gathering op: in[0] and
// out[0] as check_generic_tensor, in[1] as check_index_tensor, then
// check_movable from in[0] to out[0].
Status check_gather_io(const NodeDesc& node, bool* requantize);

// in[0] (data), in[1] (indices), in[2] (updates) and out[0] of a scatter op:
// plain tensors, an index tensor, and updates and out[0] of in[0]'s type.
Status check_scatter_io(const NodeDesc& node);

// Element i of an INT_32 (is_signed) or UINT_32 index buffer.
inline int64_t read_index(const void* p, bool is_signed, size_t i) {
  return is_signed ? int64_t{static_cast<const int32_t*>(p)[i]} : int64_t{static_cast<const uint32_t*>(p)[i]};
}

// A run-time index as a position along a dim of size `dim`: wrapped once if
// negative, then clamped into [0, dim-1] so run() never leaves the tensor
// (the gather.cpp convention; static indices are checked at prepare).
inline size_t clamp_index(int64_t v, int64_t dim) {
  if (v < 0) v += dim;
  return static_cast<size_t>(v < 0 ? 0 : (v >= dim ? dim - 1 : v));
}

// An axis scalar given as UINT_32 or INT_32 (negative counts from the end,
// as in ONNX), checked to lie in [-rank, rank-1] and returned in [0, rank).
// `def` nullopt makes it mandatory.
Status axis_param(const NodeDesc& node, std::string_view name, std::optional<int64_t> def, int64_t rank,
                  size_t* out);

// Checks every element of a STATIC index tensor against the size of the
// dim it addresses: dim_of(i) gives element i's dim size; an element outside
// [-dim, dim-1] is refused, naming the element (gather.cpp's rule).
template <typename DimOf>
Status check_static_indices(const NodeDesc& node, const TensorDesc& t, const std::string& label, DimOf dim_of);

// The scatter ops' `reduction` parameter (QnnOpDef.h values): how an update
// combines with the element already there. Integer arithmetic wraps (it is
// done on the unsigned 64-bit pattern, so it is defined for every width).
enum class Reduction : uint32_t { kNone = 0, kAdd = 1, kMul = 2, kMax = 3 };

template <typename T>
T reduce(Reduction r, T old, T upd) {
  switch (r) {
    case Reduction::kNone: return upd;
    case Reduction::kAdd:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(old) + static_cast<uint64_t>(upd));
      else return old + upd;
    case Reduction::kMul:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<uint64_t>(old) * static_cast<uint64_t>(upd));
      else return old * upd;
    case Reduction::kMax: return old > upd ? old : upd;
  }
  return upd;
}

// The element types the arithmetic indexing kernels (scatter reductions,
// OneHot, CumulativeSum) run natively: FLOAT_32 (which the type adapter
// makes of FLOAT_16 and fixed point) and the plain integer types.
// Calls fn(T{}) with the C++ type of `dt`; false when `dt` is none of them.
template <typename Fn>
bool dispatch_numeric(uint32_t dt, Fn&& fn) {
  switch (dt) {
    case dtype::kFloat32: fn(float{}); return true;
    case dtype::kInt8: fn(int8_t{}); return true;
    case dtype::kInt16: fn(int16_t{}); return true;
    case dtype::kInt32: fn(int32_t{}); return true;
    case dtype::kUint8: fn(uint8_t{}); return true;
    case dtype::kUint16: fn(uint16_t{}); return true;
    case dtype::kUint32: fn(uint32_t{}); return true;
    default: return false;
  }
}

// The kernel of an arithmetic indexing op for the element type of `dt`
// (dispatch_numeric's types): *kernel = make(T{}) when kernel is non-null;
// any other type is refused, naming `label` ("in[0]").
template <typename Make>
Status make_numeric_kernel(const NodeDesc& node, uint32_t dt, std::string_view label,
                           std::unique_ptr<OpKernel>* kernel, Make&& make) {
  std::unique_ptr<OpKernel> k;
  const bool known = dispatch_numeric(dt, [&](auto t) {
    if (kernel) k = make(t);
  });
  if (!known) {
    return unsupported(node, label, " data type ", dtype::name(dt),
                       " is not supported (FLOAT_32, FLOAT_16, fixed point or a plain integer type)");
  }
  if (kernel) *kernel = std::move(k);
  return Status::Ok();
}

template <typename DimOf>
Status check_static_indices(const NodeDesc& node, const TensorDesc& t, const std::string& label, DimOf dim_of) {
  if (t.static_data == nullptr) return Status::Ok();
  const bool is_signed = t.dtype == dtype::kInt32;
  for (size_t i = 0; i < t.num_elements(); ++i) {
    const int64_t v = read_index(t.static_data, is_signed, i);
    const int64_t dim = dim_of(i);
    if (v < -dim || v >= dim) {
      return invalid(node, label, " element ", i, " is ", v, ", expected in [", -dim, ", ", dim - 1,
                     "] (the dim it indexes has size ", dim, ")");
    }
  }
  return Status::Ok();
}

}  // namespace openhtp::ops::detail
