// How a FastRPC finalize (and a context-binary load) moves a graph's static
// data to the DSP: not inside
// the graph blob (which the call copies into its transport, and the DSP then
// copied again into its own vectors: two transient copies in each process),
// but once, in a memfd the client fills with pwrite — page-cache pages no
// client mapping counts — and seals, which the DSP maps read-only and keeps
// as the static tensors' storage (htp::StaticBytes views into it). A
// finalize then peaks at the tensors it prepares, once, in each process
// (issue 11 item 6; docs/design.md §3).
//
// The wire (htp_protocol.h, GraphPrepare): the blob without those tensors'
// bytes, one StaticRefWire per tensor, and the memfd as the call's one
// in-handle. The DSP treats all of it as hostile: every reference must name
// a STATIC tensor of the blob that has no bytes yet, once, inside the memfd,
// and the memfd must be sealed against shrinking (a shrink under a running
// graph would be a SIGBUS in the DSP).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "htp/graph_spec.h"

namespace openhtp::ipc {

struct StaticRefWire {
  uint32_t tensor_id = 0;
  uint32_t reserved = 0;
  uint64_t offset = 0;  // in the upload memfd
  uint64_t size = 0;
};
static_assert(sizeof(StaticRefWire) == 24);

// The client's half: the upload of every STATIC tensor of `graph` that has
// bytes. An empty upload (fd -1, no refs) when there is nothing to move.
class StaticUpload {
 public:
  StaticUpload() = default;
  StaticUpload(const StaticUpload&) = delete;
  StaticUpload& operator=(const StaticUpload&) = delete;
  ~StaticUpload();

  // False, with the reason, if the memfd cannot be made (the caller may then
  // send the bytes inside the blob, as before).
  bool fill(const htp::GraphSpec& graph, std::string* why);

  int fd() const { return fd_; }
  std::span<const StaticRefWire> refs() const { return refs_; }

 private:
  int fd_ = -1;
  std::vector<StaticRefWire> refs_;
};

// The pieces both uploads use. A client-side memfd of `size` bytes holding
// `pieces` (offset, bytes) written with pwrite, then sealed against shrink,
// grow and write: -1 and *why on failure.
struct UploadPiece {
  uint64_t offset;
  std::span<const uint8_t> bytes;
};
int sealed_memfd_of(uint64_t size, std::span<const UploadPiece> pieces, std::string* why);
class FdMapping;
// The DSP side: a read-only mapping of an upload `fd`, refused unless the fd
// is a memfd sealed against shrinking.
std::shared_ptr<FdMapping> map_sealed_upload(int fd, std::string* why);

// The DSP's half: maps `fd` read-only and gives each referenced tensor of
// `graph` its bytes as a view of that mapping. False, with the rule broken
// and the value, if a reference or the fd is not acceptable.
bool attach_static_upload(std::span<const StaticRefWire> refs, int fd, htp::GraphSpec* graph, std::string* why);

}  // namespace openhtp::ipc
