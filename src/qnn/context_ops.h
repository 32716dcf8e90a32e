// Operations on client objects shared between entry-point files.
#pragma once

#include "QnnTypes.h"
#include "htp/graph_spec.h"
#include "htp/runtime.h"
#include "qnn/objects.h"

namespace openhtp::qnn {

// Drops the graphs and memory handles of a context being freed.
void release_context_contents(Context& ctx);

// Whether `ctx` is still in the object table. Asked under ctx.mu by every
// call that adds a handle to a context (a graph, a memory registration):
// contextFree takes the context out of the table before
// release_context_contents takes ctx.mu, so a handle added while this is
// true is one the release still sees, and none is added after it.
bool context_live(const Context& ctx);

// Validates a client tensor for creation (graph or context) and converts it.
// Logs and returns the QnnTensor error on a broken rule. Does not assign an id.
Qnn_ErrorHandle_t tensor_spec_from_client(const Qnn_Tensor_t* tensor, htp::TensorSpec* spec);

// Whether `ctx` takes an external buffer (weights, spill-fill or VTCM
// backup, either domain) now: created from a binary with DEFER_GRAPH_INIT,
// not finalized yet, and with no setting that rules such buffers out.
// QNN_MEM_ERROR_NOT_SUPPORTED and one log line naming memRegister's
// descriptor `i` (of type `what`) when not. Caller holds ctx.mu.
Qnn_ErrorHandle_t check_takes_external_buffer(const Context& ctx, int i, const char* what);

}  // namespace openhtp::qnn

namespace openhtp::qnn {

// Records, in `ctx`, a graph of a context binary that the HTP runtime has
// prepared (`info`).
void add_prepared_graph(const std::shared_ptr<Context>& ctx, htp::GraphSpec spec, const htp::GraphInfo& info);

// Deserializes a context created with DEFER_GRAPH_INIT (contextFinalize, or
// the first graphRetrieve). Caller must not hold ctx->mu. `control`: the
// QnnSignal of contextCreateFromBinaryWithSignal, if any.
Qnn_ErrorHandle_t finalize_deferred_context(const std::shared_ptr<Context>& ctx,
                                            ipc::htp_wire::ControlWire* control = nullptr);

}  // namespace openhtp::qnn
