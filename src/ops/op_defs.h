// Internal: one accessor per op file, collected by op_registry.cpp.
#pragma once

#include <new>
#include <stdexcept>

#include "ops/op.h"

namespace openhtp::ops::detail {

OpDef elementwise_add_def();
OpDef elementwise_multiply_def();
OpDef relu_def();
OpDef fully_connected_def();
OpDef matmul_def();
OpDef conv2d_def();
OpDef pool_max2d_def();
OpDef reshape_def();
OpDef softmax_def();

// Kernels build their tables with std::vector; a node that validates but whose
// tables cannot be allocated must come back as a Status, never as an exception
// escaping into the C API. Every op's PrepareFn is this wrapper around its body.
template <PrepareFn Body>
Status guarded_prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  try {
    return Body(node, kernel);
  } catch (const std::bad_alloc&) {
    return Status::Unsupported(std::string(node.type) + " '" + std::string(node.name) +
                               "': out of memory while building the kernel");
  } catch (const std::length_error&) {
    return Status::Unsupported(std::string(node.type) + " '" + std::string(node.name) +
                               "': kernel tables too large");
  }
}

}  // namespace openhtp::ops::detail
