// An XNNPACK operator of one input and one output, set up again on every run
// (a setup only re-points its indirection buffers or records the pointers:
// nothing is allocated): softmax, pooling and fully connected are this.
//
// What it owns for its subclass: the operator, the graph's pool (or none),
// the input read in place or through its copy when XNNPACK's over-read could
// fault (ReadableInput, xnnpack_runtime.h), and the node's workspace that
// holds the copy. A subclass says only how its operator is set up.
#pragma once

#include <cstddef>
#include <span>

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

  Operator op_;
  pthreadpool_t pool_;

 private:
  size_t in_bytes_;
  ReadableInput input_;
  ops::Workspace workspace_;
};

}  // namespace openhtp::kernels::xnn
