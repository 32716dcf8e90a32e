#include "kernels/select_runs.h"

#include <array>
#include <cstdint>
#include <vector>

#include "kernels/broadcast_runs.h"
#include "kernels/parallel_tiles.h"
#include "kernels/xnnpack_elementwise.h"
#include "ops/reference/data_movement.h"
#include "ops/shape.h"

namespace openhtp::kernels {
namespace {

// One run of m outputs; cs, as, bs are 1 (dense) or 0 (one value held).
template <typename T>
inline void select_row(const uint8_t* c, size_t cs, const T* a, size_t as, const T* b, size_t bs, T* y, size_t m) {
  if (cs == 1 && as == 1 && bs == 1) {
    for (size_t i = 0; i < m; ++i) y[i] = c[i] != 0 ? a[i] : b[i];
  } else if (cs == 1 && as == 1 && bs == 0) {
    const T v = *b;
    for (size_t i = 0; i < m; ++i) y[i] = c[i] != 0 ? a[i] : v;
  } else if (cs == 1 && as == 0 && bs == 1) {
    const T u = *a;
    for (size_t i = 0; i < m; ++i) y[i] = c[i] != 0 ? u : b[i];
  } else {
    for (size_t i = 0; i < m; ++i) y[i] = c[i * cs] != 0 ? a[i * as] : b[i * bs];
  }
}

template <typename T>
class SelectKernel final : public ops::OpKernel {
 public:
  SelectKernel(const Runs<3>& runs, pthreadpool_t pool) : runs_(runs), n_(runs.elements()), pool_(pool) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const auto* c = static_cast<const uint8_t*>(in[0]);
    const T* a = static_cast<const T*>(in[1]);
    const T* b = static_cast<const T*>(in[2]);
    T* y = static_cast<T*>(out[0]);
    auto body = [=, this](size_t start, size_t count) {
      for_each_run(runs_, start, count, [&](const std::array<size_t, 3>& at, const std::array<size_t, 3>& s, size_t m,
                                            size_t out_at) {
        select_row(c + at[0], s[0], a + at[1], s[1], b + at[2], s[2], y + out_at, m);
      });
    };
    parallel_tiles(pool_, n_, xnn::kCheapTile, body);
  }

 private:
  Runs<3> runs_;
  size_t n_;
  pthreadpool_t pool_;
};

}  // namespace

bool prepare_select(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 3 || node.outputs.size() != 1) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // the reference validates: types, shapes, encodings
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  const ops::TensorDesc& cond = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  for (size_t i = 1; i < 3; ++i) {  // values moved bit for bit only
    bool requantize = true;
    if (!ops::detail::check_movable(node, node.inputs[i], "", y, "", &requantize).ok() || requantize) return false;
  }
  std::vector<uint32_t> ab, dims;
  size_t bad = 0;
  if (!ops::detail::broadcast_shape(cond.dims, node.inputs[1].dims, &ab, &bad) ||
      !ops::detail::broadcast_shape(ab, node.inputs[2].dims, &dims, &bad) || dims != y.dims) {
    return false;
  }
  const Runs<3> runs = collapse_runs<3>(dims, {ops::detail::broadcast_strides(cond.dims, dims),
                                               ops::detail::broadcast_strides(node.inputs[1].dims, dims),
                                               ops::detail::broadcast_strides(node.inputs[2].dims, dims)});
  if (runs.rank == 0) return false;
  const size_t n = y.num_elements();
  pthreadpool_t pool = n >= xnn::kCheapMin ? graph_pool(node) : nullptr;
  switch (ops::dtype::element_size(y.dtype)) {
    case 1: *kernel = std::make_unique<SelectKernel<uint8_t>>(runs, pool); break;
    case 2: *kernel = std::make_unique<SelectKernel<uint16_t>>(runs, pool); break;
    case 4: *kernel = std::make_unique<SelectKernel<uint32_t>>(runs, pool); break;
    case 8: *kernel = std::make_unique<SelectKernel<uint64_t>>(runs, pool); break;
    default: return false;
  }
  return true;
}

}  // namespace openhtp::kernels
