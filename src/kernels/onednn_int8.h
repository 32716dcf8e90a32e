// What the oneDNN int8 paths (onednn_int8_convolution.cpp,
// onednn_int8_matmul.cpp) share: a QNN 8-bit encoding in oneDNN's terms, the
// runtime zero points of a primitive, a fused clamp as a clip post-op, and
// the kernel that runs such a primitive.
#pragma once

#include <dnnl.hpp>
#include <pthreadpool.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "kernels/onednn_runtime.h"
#include "ops/op.h"
#include "ops/workspace.h"

namespace openhtp::kernels::onednn {

// An 8-bit per-tensor operand: UFIXED_POINT_8 as u8, SFIXED_POINT_8 as s8,
// zero point = -offset.
struct Int8Operand {
  dnnl::memory::data_type type;
  int32_t zero_point;
  float scale;
};
std::optional<Int8Operand> int8_operand(const ops::TensorDesc& t);

// A primitive's non-zero zero points (a zero one is left out: the kernels
// skip the compensation then), declared on its attribute before it is made
// and bound to its executor after (oneDNN reads runtime zero points from
// one-element s32 memories).
class ZeroPoints {
 public:
  void add(int arg, int32_t zero_point) {
    if (zero_point != 0) args_.emplace_back(arg, zero_point);
  }
  void declare(dnnl::primitive_attr* attr) const;
  void bind(Executor* ex) const;

 private:
  std::vector<std::pair<int, int32_t>> args_;
};

// A node's fused clamp (ops::Epilogue, no residual) as a clip post-op on an
// 8-bit output's codes; false when it cannot be one (a residual, bounds
// between codes). No epilogue: true, attr unchanged.
bool int8_output_clip(const ops::NodeDesc& node, bool y_u8, int32_t y_zero_point, dnnl::primitive_attr* attr);

// A node's fused 8-bit residual Add (ops::Epilogue::producer_output set),
// which int8_epilogue() below sets up as post-ops that round where the
// separate nodes round. The primitive's output scales requantize into the
// producer's output encoding (`unit_scale`), then
//   clip to that encoding's codes, round       -> the producer's code t
//   linear to the Add's units, then oneDNN's `sum` post-op adds the
//   residual's codes (scale s_r / s_s, its zero point), which the caller
//   copies into dst before the primitive runs   -> oneDNN rounds, adds the
//   Add's zero point and saturates: the Add's code, into dst (`sum`).
// A clamp after the Add is then a function of the Add's code alone: the
// caller maps dst through `clamp_table` (the reference clamp's answer for
// each of the 256 codes, into y's encoding). Every value before the last
// rounding is a whole number of some encoding's steps, or within a few ulps
// of the reference's float sum, so the codes differ only at float ties.
//
// Why `sum` and the table, not a binary add and more post-ops: in this
// oneDNN (2.6) the int8 convolutions miscompute any eltwise post-op placed
// after a binary or `sum` one (tests/kernels/fusion_test.cpp would see it).
// int8_epilogue() declines it when an encoding is not per-tensor 8-bit.
struct Int8Residual {
  float unit_scale;
  Int8Operand sum;                                     // what the primitive writes
  std::optional<std::array<uint8_t, 256>> clamp_table;  // the Add's codes -> y's
};

// A node's int8 output stage, whichever epilogue it has: a clamp as
// int8_output_clip, or a residual as above. `unit_scale` is what the
// accumulators requantize into, `written` the encoding the primitive writes
// (y's, or the Add's with a residual). Null when the epilogue cannot be done.
struct Int8Epilogue {
  float unit_scale;
  Int8Operand written;
  std::optional<Int8Residual> residual;
  // With a clamp after a residual: the table from the Add's codes to y's.
  const uint8_t* table() const { return residual && residual->clamp_table ? residual->clamp_table->data() : nullptr; }
};
std::optional<Int8Epilogue> int8_epilogue(const ops::NodeDesc& node, const Int8Operand& y, dnnl::primitive_attr* attr);

// Runs an int8 primitive: in[0] as src, out[0] as dst, and optionally in[1]
// as its weights. flip_bytes > 0: in[1] is u8 and oneDNN takes s8 weights
// only, so its codes are moved to s8 (-128, as its zero point was) into the
// workspace, after oneDNN's scratchpad, on every run.
class Int8Kernel final : public ops::OpKernel {
 public:
  Int8Kernel(Executor ex, size_t src, size_t dst, size_t weights = 0, bool bind_weights = false, size_t flip_bytes = 0);
  size_t workspace_bytes() const override { return ws_.bytes(); }
  bool uses_openmp_team() const override { return ex_.multi_threaded(); }
  void set_workspace(void* memory) override { ws_.bind(memory); }
  void run(std::span<const void* const> in, std::span<void* const> out) override;
  // A fused residual as oneDNN's `sum` post-op: run()'s in[input] is
  // copied into out[0] before the primitive runs, in shares over `pool`
  // (the primitive's threads then add onto what is mostly in their cache).
  void set_residual(size_t input, size_t bytes, pthreadpool_t pool) {
    res_in_ = input;
    sum_bytes_ = bytes;
    pool_ = pool;
  }

 private:
  Executor ex_;
  size_t src_, dst_, weights_;
  size_t res_in_ = SIZE_MAX, sum_bytes_ = 0;
  pthreadpool_t pool_ = nullptr;
  bool bind_weights_;
  size_t flip_at_, flip_bytes_;
  ops::Workspace ws_;
};

// An int8 primitive whose output codes then go through a 256-entry table
// (a producer table, or the clamp after a fused residual), over the output
// in the shares the pool's threads take.
class TabledOutput final : public ops::OpKernel {
 public:
  TabledOutput(std::unique_ptr<ops::OpKernel> inner, const uint8_t* table, size_t n, pthreadpool_t pool);
  size_t workspace_bytes() const override { return inner_->workspace_bytes(); }
  void set_workspace(void* memory) override { inner_->set_workspace(memory); }
  bool uses_openmp_team() const override { return inner_->uses_openmp_team(); }
  void run(std::span<const void* const> in, std::span<void* const> out) override;

 private:
  std::unique_ptr<ops::OpKernel> inner_;
  std::array<uint8_t, 256> table_;
  size_t n_;
  pthreadpool_t pool_;
};

// The kernel for a prepared int8 primitive `k` and the node's epilogue: the
// residual copied in before it, the table applied after it (y's bytes).
std::unique_ptr<ops::OpKernel> with_int8_epilogue(std::unique_ptr<Int8Kernel> k, const ops::NodeDesc& node,
                                                  const Int8Epilogue& e);

// u8 codes as s8 codes of the same reals (the zero point moves by 128 too).
void u8_to_s8(const uint8_t* in, size_t n, int8_t* out);

}  // namespace openhtp::kernels::onednn
