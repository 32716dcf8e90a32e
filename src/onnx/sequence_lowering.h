// ONNX sequences of a length fixed at conversion time, as lists of tensor
// values: QNN graphs carry tensors only, but a sequence built inside the
// graph (SequenceEmpty, SequenceConstruct, SplitToSequence) and changed at
// constant positions is, at conversion time, just an ordered list of tensor
// values. The rewrite walks the nodes in order, keeps each sequence value as
// such a list and replaces
//   SequenceEmpty / SequenceConstruct   by nothing (the list)
//   SequenceInsert / SequenceErase      by nothing (a new list; the position
//                                       must be a constant, negative counts
//                                       from the end, absent is the end)
//   SequenceAt                          by Identity of the element
//   SequenceLength                      by a constant
//   SplitToSequence                     by Split (and Reshape without the
//                                       axis for keepdims=0 without split)
//   ConcatFromSequence                  by Concat (Unsqueeze first for new_axis)
// A sequence that is a graph input or output, or that any other node reads
// (Loop, If, SequenceMap, Identity of a sequence, ...), cannot be written as
// tensors: then nothing is rewritten and the node that needs it is refused
// (Model::rewrite_refusals) with the reason.
#pragma once

#include <string>

#include "onnx/model.h"

namespace openhtp::onnx_import {

// Returns the number of sequence nodes replaced (0 when the model has none
// or one of them is refused). Shape inference must run after.
size_t lower_sequences(Model* model);

}  // namespace openhtp::onnx_import
