// The Graph table's writer and reader, shared by the graph blob (graph_codec)
// and the context binary (context_codec). Internal to src/binary: it exposes
// the generated FlatBuffers types.
#pragma once

#include <string>

#include "graph_generated.h"
#include "htp/graph_spec.h"

namespace openhtp::binary {

flatbuffers::Offset<fb::Graph> build_graph(flatbuffers::FlatBufferBuilder& b, const htp::GraphSpec& graph);
// `g` must come from a verified buffer. Checks cross-references (tensor ids).
bool read_graph(const fb::Graph* g, htp::GraphSpec* graph, std::string* error);

}  // namespace openhtp::binary
