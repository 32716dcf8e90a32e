#include "ipc/static_upload.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <set>

#include "ipc/fd_mapping.h"

namespace openhtp::ipc {
namespace {

// Each tensor starts on a cache line, as a malloc'd copy of it would.
constexpr uint64_t kAlignment = 64;

bool write_all(int fd, const uint8_t* data, size_t size, uint64_t offset) {
  while (size > 0) {
    const ssize_t n = pwrite(fd, data, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace

int sealed_memfd_of(uint64_t size, std::span<const UploadPiece> pieces, std::string* why) {
  const int fd = memfd_create("openhtp-upload", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  bool ok = fd >= 0 && ftruncate(fd, static_cast<off_t>(size)) == 0;
  for (size_t i = 0; ok && i < pieces.size(); ++i) {
    ok = write_all(fd, pieces[i].bytes.data(), pieces[i].bytes.size(), pieces[i].offset);
  }
  // Nothing can change or shrink the bytes once the DSP uses them.
  ok = ok && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0;
  if (!ok) {
    *why = "upload memfd of " + std::to_string(size) + " bytes: " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

std::shared_ptr<FdMapping> map_sealed_upload(int fd, std::string* why) {
  const int seals = fd < 0 ? -1 : fcntl(fd, F_GET_SEALS);
  if (seals < 0 || (seals & F_SEAL_SHRINK) == 0) {
    *why = "the upload (fd " + std::to_string(fd) + ") is not a memfd sealed against shrinking";
    return nullptr;
  }
  return FdMapping::map_read_only(fd, why);
}

StaticUpload::~StaticUpload() {
  if (fd_ >= 0) close(fd_);
}

bool StaticUpload::fill(const htp::GraphSpec& graph, std::string* why) {
  uint64_t total = 0;
  std::vector<UploadPiece> pieces;
  for (const htp::TensorSpec& t : graph.tensors) {
    if (t.type != htp::tensor_type::kStatic || t.static_data.empty()) continue;
    const uint64_t offset = (total + kAlignment - 1) / kAlignment * kAlignment;
    refs_.push_back({t.id, 0, offset, t.static_data.size()});
    pieces.push_back({offset, t.static_data.span()});
    total = offset + t.static_data.size();
  }
  if (refs_.empty()) return true;
  fd_ = sealed_memfd_of(total, pieces, why);
  if (fd_ < 0) refs_.clear();
  return fd_ >= 0;
}

bool attach_static_upload(std::span<const StaticRefWire> refs, int fd, htp::GraphSpec* graph, std::string* why) {
  if (refs.empty()) return true;
  std::shared_ptr<FdMapping> m = map_sealed_upload(fd, why);
  if (!m) return false;
  std::set<uint32_t> seen;
  for (const StaticRefWire& r : refs) {
    htp::TensorSpec* t = nullptr;
    for (htp::TensorSpec& c : graph->tensors) {
      if (c.id == r.tensor_id) t = &c;
    }
    if (t == nullptr || t->type != htp::tensor_type::kStatic) {
      *why = "static-data upload names tensor " + std::to_string(r.tensor_id) + ", not a STATIC tensor of the graph";
      return false;
    }
    if (!seen.insert(r.tensor_id).second || !t->static_data.empty()) {
      *why = "static-data upload gives tensor " + std::to_string(r.tensor_id) + " its bytes twice";
      return false;
    }
    if (r.offset > m->size() || r.size > m->size() - r.offset) {
      *why = "static-data upload range " + std::to_string(r.offset) + "+" + std::to_string(r.size) +
             " of tensor " + std::to_string(r.tensor_id) + " is outside its " + std::to_string(m->size()) + " bytes";
      return false;
    }
    t->static_data = htp::StaticBytes::view(m, {m->base() + r.offset, static_cast<size_t>(r.size)});
  }
  return true;
}

}  // namespace openhtp::ipc
