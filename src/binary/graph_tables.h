// The Graph table's writer and reader, shared by the graph blob (graph_codec)
// and the context binary (context_codec). Internal to src/binary: it exposes
// the generated FlatBuffers types.
#pragma once

#include <set>
#include <string>

#include "graph_generated.h"
#include <memory>

#include "htp/graph_spec.h"

namespace openhtp::binary {

// `omit_data` (may be null): ids of STATIC tensors written without their
// data (a context binary's shared weights carry it in a weight blob).
flatbuffers::Offset<fb::Graph> build_graph(flatbuffers::FlatBufferBuilder& b, const htp::GraphSpec& graph,
                                           const std::set<uint32_t>* omit_data = nullptr);
// `g` must come from a verified buffer. Checks cross-references (tensor ids).
// With `in_place` (the owner of the buffer `g` lies in, e.g. a read-only
// mapping of an upload) static tensors view their bytes there instead of
// copying them (htp::StaticBytes).
bool read_graph(const fb::Graph* g, htp::GraphSpec* graph, std::string* error,
                const std::shared_ptr<const void>& in_place = nullptr);

}  // namespace openhtp::binary
