// --preserve_io datatype: a quantized graph whose inputs and outputs stay
// FLOAT_32, as the Qualcomm converter's option of the same name does. The
// graph computes in its quantized types inside; a Quantize node follows each
// kept input and a Dequantize node precedes each kept output, with the
// encoding calibration gave that tensor.
//
// Why: a tensor the client keeps across executes or graphs in one buffer —
// an LLM's KV cache, written by the prefill graph and read and extended in
// place by the decode graph — needs one byte format in every graph. Float
// I/O gives it that without tying the graphs' encodings together.
#pragma once

#include <set>
#include <string>

#include "onnx/qnn_graph.h"

namespace openhtp::onnx_import {

// Applies to the named graph inputs/outputs (every one when `names` is
// empty) that quantization made fixed point; others are left as they are.
// False with a line naming the tensor when a name is not a graph input or
// output. `kept` (may be null) receives the names made float.
bool preserve_io_datatype(QnnGraphDesc* graph, const std::set<std::string>& names, std::set<std::string>* kept,
                          std::string* error);

}  // namespace openhtp::onnx_import
