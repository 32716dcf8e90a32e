// Operations on client objects shared between entry-point files.
#pragma once

#include "QnnTypes.h"
#include "htp/graph_spec.h"
#include "qnn/objects.h"

namespace openhtp::qnn {

// Drops the graphs and memory handles of a context being freed.
void release_context_contents(Context& ctx);

// Validates a client tensor for creation (graph or context) and converts it.
// Logs and returns the QnnTensor error on a broken rule. Does not assign an id.
Qnn_ErrorHandle_t tensor_spec_from_client(const Qnn_Tensor_t* tensor, htp::TensorSpec* spec);

}  // namespace openhtp::qnn
