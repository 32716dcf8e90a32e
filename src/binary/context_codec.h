// Context binaries: every graph of a context (ops, tensors, weights, planned
// memory) in one versioned, self-checking buffer (schema/context.fbs).
//
// decode_context() treats its input as hostile: envelope verified, format
// version checked, CRC-32 of the payload checked, payload verified, every
// cross-reference checked — in that order, so each failure gets the right
// error, and nothing is read before it has been verified.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "htp/graph_spec.h"
#include "htp/vtcm_plan.h"

namespace openhtp::binary {

struct ApiVersion {
  uint32_t major = 0, minor = 0, patch = 0;
};

// The format of the file itself. A reader accepts the same major and any
// minor up to its own. 1.1 added each graph's stored plan (placements); 1.2
// the context's weight blobs (weight sharing: contents several STATIC tensors
// hold, stored once, the tensors referring to them). A context without
// weight sharing is still written as 1.1, byte for byte as before.
inline constexpr ApiVersion kContextFormat{1, 2, 0};
inline constexpr ApiVersion kContextFormatUnshared{1, 1, 0};

struct GraphImage {
  htp::GraphSpec spec;
  uint64_t arena_bytes = 0;
  uint64_t vtcm_bytes = 0;
  uint64_t spill_fill_bytes = 0;
  // Where each NATIVE tensor lives; empty when the binary predates stored
  // plans.
  htp::StoredPlan placements;
};

struct ContextImage {
  std::string build_id;
  ApiVersion core_api, backend_api;
  uint32_t soc_model = 0;
  uint32_t dsp_arch = 0;
  std::vector<GraphImage> graphs;
  uint64_t weights_bytes = 0;
  // WEIGHT_SHARING_ENABLED: the writer stores each content that two or more
  // STATIC tensors hold once (a weight blob); the reader gives every such
  // tensor its bytes back (static_data), and a context loaded from it holds
  // them once again (htp::ContextOptions::weight_sharing).
  bool weight_sharing = false;
  // Read back (ignored by the writer): the binary's weight blobs, their bytes
  // and the tensors that referred to them.
  uint32_t weight_blobs = 0;
  uint64_t weight_blob_bytes = 0;
  uint32_t shared_tensors = 0;
};

enum class BinaryError {
  kNone = 0,
  kMalformed,  // not a context binary, truncated, corrupted (QNN_CONTEXT_ERROR_CREATE_FROM_BINARY)
  kVersion,    // a context binary of a format this reader does not accept (QNN_CONTEXT_ERROR_BINARY_VERSION)
};

// Format 1.2 when image.weight_sharing, else 1.1.
std::vector<uint8_t> encode_context(const ContextImage& image);
// Writes the envelope with another format version (tests of version handling).
std::vector<uint8_t> encode_context_as(const ContextImage& image, ApiVersion format);
// With `in_place` (the owner of `data`, which then stays valid and unchanged
// while it lives: the DSP's read-only mapping of an upload), static tensors
// view their bytes in `data` instead of copying them.
BinaryError decode_context(const uint8_t* data, size_t size, ContextImage* image, std::string* error,
                           std::shared_ptr<const void> in_place = nullptr);

// The bytes the context binary at `data` spans by its own offsets (at most
// `size`), or 0 when `size` bytes hold no envelope. A client may hand over
// a buffer larger than the binary in it — or a size that is simply wrong —
// and everything after decode (the upload to the DSP, the CRC of a deferred
// load) must read the binary's bytes, not `size`: a size past the client's
// memory would otherwise be read (or, as an upload, refused) on one
// transport and ignored on the other.
size_t context_binary_extent(const uint8_t* data, size_t size);

// The envelope on its own: the payload of a binary whose envelope verifies
// (false otherwise; its CRC is not checked), and a binary made of any payload
// with the CRC computed for it. What a structure-aware fuzzer needs to reach
// the payload's decoder past the CRC check (tests/fuzz).
bool context_payload(const uint8_t* data, size_t size, std::vector<uint8_t>* payload);
std::vector<uint8_t> wrap_context_payload(const std::vector<uint8_t>& payload, ApiVersion format = kContextFormat);

// Bytes of static data the context's graphs carry, each tensor aligned to
// `alignment` (what a weights buffer must hold); `shared`: each content
// (htp::static_content_hash / same_static_meta and bytes) counted once, as
// the runtime places it with weight sharing.
uint64_t weights_bytes(const std::vector<GraphImage>& graphs, uint64_t alignment, bool shared = false);

}  // namespace openhtp::binary
