// The axes logic shared by the reductions over a set of axes (ReduceMean and
// its siblings in reduce.cpp, Moments, L2Norm): reading `axes`, the dims
// that result, and the row-major walk that lands every element of a reduced
// slice on one output position.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ops/op.h"
#include "ops/param_reader.h"

namespace openhtp::ops::detail {

inline constexpr size_t kReductionMaxRank = 5;  // HTP: rank <= 5; callers check it

// Reads `axes` (u32[M], mandatory): 1 <= M <= rank, entries < rank, no repeats.
Status read_reduction_axes(const NodeDesc& node, const ParamReader& params, uint32_t rank,
                           std::vector<uint32_t>* axes);

// One reduction's geometry over input dims `dims` (rank <= kReductionMaxRank).
class ReductionWalk {
 public:
  ReductionWalk() = default;
  ReductionWalk(std::span<const uint32_t> dims, std::span<const uint32_t> axes);

  // The output dims: with keep_dims the reduced axes stay as 1s; without,
  // they are dropped, and a reduction over every axis gives [1].
  const std::vector<uint32_t>& out_dims(bool keep_dims) const { return keep_dims ? kept_ones_ : dropped_; }
  // Output positions (the product of the kept dims) and the elements folded
  // into each (the product of the reduced dims).
  size_t num_out() const { return num_out_; }
  size_t reduced_count() const { return reduced_count_; }

  // fn(element, output position) for every input element in row-major order;
  // the output positions are the row-major order of the kept axes.
  template <typename Fn>
  void for_each(Fn fn) const {
    size_t total = 1;
    for (size_t i = 0; i < rank_; ++i) total *= dims_[i];
    std::array<size_t, kReductionMaxRank> idx{};
    size_t o = 0;
    for (size_t e = 0; e < total; ++e) {
      fn(e, o);
      for (size_t ax = rank_; ax-- > 0;) {
        o += out_strides_[ax];
        if (++idx[ax] < dims_[ax]) break;
        o -= out_strides_[ax] * dims_[ax];
        idx[ax] = 0;
      }
    }
  }

 private:
  size_t rank_ = 0;
  std::array<size_t, kReductionMaxRank> dims_{};
  // Per input axis, the stride of the output position: 0 on the reduced
  // axes, so the odometer lands every element of a reduced slice on one slot.
  std::array<size_t, kReductionMaxRank> out_strides_{};
  std::vector<uint32_t> kept_ones_, dropped_;
  size_t num_out_ = 1, reduced_count_ = 1;
};

// The prepare shared by the reductions with `axes` (mandatory) and
// `keep_dims` (default false) as their only parameters (the Reduce ops,
// Moments): one FLOAT_32 input of rank 1..kReductionMaxRank, num_outputs
// outputs, each with the reduced dims.
Status plan_axes_reduction(const NodeDesc& node, size_t num_outputs, ReductionWalk* walk);

}  // namespace openhtp::ops::detail
