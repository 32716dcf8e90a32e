// GraphSpec <-> bytes (FlatBuffers, schema/graph.fbs). decode() verifies the
// buffer first and checks every cross-reference, so a truncated or hostile
// buffer yields an error message, never an out-of-bounds read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "htp/graph_spec.h"

namespace openhtp::binary {

std::vector<uint8_t> encode_graph(const htp::GraphSpec& graph);

// Returns false and sets *error when the bytes are not a valid graph.
bool decode_graph(const uint8_t* data, size_t size, htp::GraphSpec* graph, std::string* error);

}  // namespace openhtp::binary
