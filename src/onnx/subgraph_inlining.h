// Inlining one ONNX subgraph (a Loop or Scan body, an If branch) into the
// model that holds the node: the subgraph's inputs are bound to outer
// values, every value it defines (node outputs, initializers) gets a fresh
// name, so that one body can be inlined once per iteration, and its
// references to outer-scope values stay as they are. Subgraphs nested in
// the inlined nodes have their references to renamed values rewritten too
// (except where they define a value of the same name themselves).
#pragma once

#include <string>
#include <vector>

#include "onnx/graph_rewrite.h"
#include "onnx/model.h"

namespace openhtp::onnx_import {

// Appends g's nodes, renamed, to *out; g's input k is bound to args[k].
// Returns the outer names of g's outputs, or false + *error (an initializer
// the importer cannot read, fewer args than inputs).
bool inline_subgraph(Model* m, NameGen& names, const onnx::GraphProto& g, const std::vector<std::string>& args,
                     const std::string& prefix, std::vector<onnx::NodeProto>* out, std::vector<std::string>* outputs,
                     std::string* error);

}  // namespace openhtp::onnx_import
