// The type adapter: how one float32 reference kernel serves FLOAT_16 and
// every fixed-point encoding.
//
// For an op flagged op_flags::kAdaptTypes, a node with FLOAT_16 or
// fixed-point tensors is prepared as its FLOAT_32 twin: each such tensor is
// described as FLOAT_32 (static ones dequantized once, here), the float
// kernel is prepared on that, and the wrapper kernel converts around it at
// run time — inputs dequantized with their encodings, outputs quantized with
// theirs (round half to even, saturating). Integer and bool tensors (indices,
// Argmax outputs) pass through unchanged. The float copies of run-time
// inputs and outputs are the wrapper's workspace (op.h), planned with the
// graph; only the dequantized weights are kept.
//
// A fused epilogue (op.h Epilogue, htp/fusion.h) is not handed to the float
// twin: the adapter applies it to the twin's float output, rounding into
// the producer's, the sum's and the output's types where the unfused nodes
// would (each of those nodes, run alone, is this adapter around a float
// kernel), so a fused step equals its nodes exactly. A SiLU it refuses.
//
// This is the golden model for quantized execution: it is exact in real
// numbers up to float rounding, so a fast integer kernel may differ from it
// by one step of the output's scale where a rounding tie falls differently.
#pragma once

#include <memory>

#include "ops/op.h"

namespace openhtp::ops::detail {

// True when `node` has a present tensor the adapter would convert.
bool needs_type_adapter(const NodeDesc& node);

// Validates the node's encodings and the float twin; builds the wrapped
// kernel when `kernel` is non-null. `use_fast_paths` lets the float twin use
// node.env's float fast paths (e.g. a uint16 conv running oneDNN fp32).
// `impl` (optional) receives which kernel the float twin got.
Status prepare_adapted(const OpDef& def, const NodeDesc& node, bool use_fast_paths,
                       std::unique_ptr<OpKernel>* kernel, std::string* impl = nullptr);

}  // namespace openhtp::ops::detail
