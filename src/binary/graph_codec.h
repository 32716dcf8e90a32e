// GraphSpec <-> bytes (FlatBuffers, schema/graph.fbs). decode() verifies the
// buffer first and checks every cross-reference, so a truncated or hostile
// buffer yields an error message, never an out-of-bounds read.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "htp/graph_spec.h"

namespace openhtp::binary {

// `omit_data` (may be null): ids of STATIC tensors written without their
// bytes, which travel another way (a finalize's upload, ipc/static_upload.h).
std::vector<uint8_t> encode_graph(const htp::GraphSpec& graph, const std::set<uint32_t>* omit_data = nullptr);

// Returns false and sets *error when the bytes are not a valid graph.
bool decode_graph(const uint8_t* data, size_t size, htp::GraphSpec* graph, std::string* error);

}  // namespace openhtp::binary
