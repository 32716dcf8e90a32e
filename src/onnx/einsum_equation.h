// An Einsum equation read once: one letter per axis of each operand and of
// the output, with "..." expanded and an implicit output made explicit. Used
// by the Einsum lowering (lower_einsum.cpp) and by shape completion
// (model.cpp), which ONNX 1.12's shape inference leaves at "rank only" for
// Einsum outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace openhtp::onnx_import {

struct EinsumEquation {
  std::vector<std::string> inputs;  // one letter per axis of each operand
  std::string output;
};

// Parses `equation` for operands of ranks `ranks`:
//   1. "..." becomes one digit letter per broadcast axis (right-aligned
//      across the operands, as numpy);
//   2. without "->" the output is the ellipsis axes then the letters that
//      occur once, sorted.
// Returns "" or the reason it cannot be used.
std::string parse_einsum(std::string equation, const std::vector<size_t>& ranks, EinsumEquation* out);

// The output's dims for operands of dims `inputs`: each letter's size is the
// largest its axes have (a size-1 axis broadcasts). False when a letter of
// the output names no operand axis or two operands disagree on a size
// neither of which is 1.
bool einsum_output_dims(const EinsumEquation& e, const std::vector<std::vector<int64_t>>& inputs,
                        std::vector<int64_t>* out);

}  // namespace openhtp::onnx_import
