// Internal: one accessor per op file, collected by op_registry.cpp.
//
// Ops are grouped by family, each group listed in its own file under
// reference/ (core_group.cpp, math_group.cpp, norm_group.cpp,
// layout_group.cpp, indexing_group.cpp, sequence_group.cpp, detection_group.cpp, misc_group.cpp,
// proposal_group.cpp, sparse_group.cpp) so that a family's ops are added in one place.
#pragma once

#include <new>
#include <stdexcept>
#include <vector>

#include "ops/op.h"

namespace openhtp::ops::detail {

// The op families; op_registry.cpp concatenates them in this order.
std::vector<OpDef> core_group();    // the first ops: add, multiply, relu, FC, matmul, conv, maxpool, reshape, softmax
std::vector<OpDef> math_group();    // element-wise binary/unary/neuron ops and activations
std::vector<OpDef> norm_group();    // normalizations, reductions, LogSoftmax, Argmax/Argmin, TopK
std::vector<OpDef> layout_group();  // conv/pool variants, data movement, resize, type conversion
std::vector<OpDef> indexing_group();  // index and shape ops: gather/scatter, tile, depth-to-space, select, ...
std::vector<OpDef> sequence_group();  // recurrent ops: Lstm, Gru
std::vector<OpDef> detection_group();  // boxes: non-max suppression, RoI pooling, box transforms
std::vector<OpDef> misc_group();  // shape ops, NV12/NV21 to RGB, patches (Im2Col, Col2Im, ExtractPatches), Hadamard
std::vector<OpDef> proposal_group();  // CombinedNms, CollectRpnProposals, DistributeFpnProposals, Correlation1D, ExtractGlimpse
std::vector<OpDef> sparse_group();  // sparse tensors: CreateSparse, GetSparseIndices/Values, SparseToDense (listed last)

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
