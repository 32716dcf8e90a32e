// An XNNPACK operator of one input and one output, set up again on every run
// (a setup only re-points its indirection buffers or records the pointers:
// nothing is allocated): softmax, pooling and fully connected are this.
//
// What it owns for its subclass: the operator, the graph's pool (or none),
// the input read in place or through its copy when XNNPACK's over-read could
// fault (ReadableInput, xnnpack_runtime.h), and the node's workspace that
// holds the copy. A subclass says only how its operator is set up.
//
// A float operator whose answer differs from the reference's only where a
// NaN or an infinity is involved (XNNPACK's clamp turns NaN into -inf, its
// max drops a NaN: nonfinite_scan.h) keeps the node's reference kernel and
// says, by a scan after each run, when that happened; the reference then
// recomputes the node. Such inputs are rare, so the scan is the whole cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "kernels/xnnpack_runtime.h"
#include "ops/op.h"
#include "ops/workspace.h"

namespace openhtp::kernels::xnn {

class OneInputKernel : public ops::OpKernel {
 public:
  size_t workspace_bytes() const override { return workspace_.bytes(); }
  void set_workspace(void* memory) override { workspace_.bind(memory); }
  size_t read_slack_bytes() const override { return kReadSlack; }
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    setup(input_.readable(in[0], workspace_.data()), out[0]);
    xnn_run_operator(op_.get(), pool_);
    if (reference_ && reference_needed(in[0], out[0])) reference_->run(in, out);
  }

  // Keeps the node's reference kernel for the runs reference_needed()
  // points out (its scratch, if any, its own: it runs rarely).
  void keep_reference(std::unique_ptr<ops::OpKernel> reference) {
    reference_ = std::move(reference);
    reference_scratch_.resize(reference_->workspace_bytes());
    if (!reference_scratch_.empty()) reference_->set_workspace(reference_scratch_.data());
  }

  // At prepare, from the input's TensorDesc::planned: sizes the copy (none
  // for a planned input), then the first setup, which sizes the operator's
  // indirection buffers for its shape; false when XNNPACK refuses it.
  bool setup_once(bool x_planned) {
    input_.prepare(x_planned, in_bytes_);
    workspace_ = ops::Workspace(input_.workspace_bytes());
    return setup(setup_placeholder(), const_cast<void*>(setup_placeholder())) == xnn_status_success;
  }

 protected:
  // `in_bytes`: the input's size; `pool`: null runs on the calling thread.
  OneInputKernel(Operator op, size_t in_bytes, pthreadpool_t pool)
      : op_(std::move(op)), pool_(pool), in_bytes_(in_bytes) {}
  // Points the operator at x and y (run() then runs it).
  virtual xnn_status setup(const void* x, void* y) = 0;
  // After a run, with a kept reference: whether x or y shows a non-finite
  // value the operator answers differently from the reference.
  virtual bool reference_needed(const void* /*x*/, const void* /*y*/) const { return false; }

  Operator op_;
  pthreadpool_t pool_;

 private:
  size_t in_bytes_;
  ReadableInput input_;
  ops::Workspace workspace_;
  std::unique_ptr<ops::OpKernel> reference_;
  std::vector<uint8_t> reference_scratch_;
};

}  // namespace openhtp::kernels::xnn
