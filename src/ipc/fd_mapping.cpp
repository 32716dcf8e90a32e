#include "ipc/fd_mapping.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace openhtp::ipc {

bool buffer_key_of(int fd, BufferKey* key) {
  struct stat sb {};
  if (fstat(fd, &sb) != 0) return false;
  *key = BufferKey{static_cast<uint64_t>(sb.st_dev), static_cast<uint64_t>(sb.st_ino)};
  return true;
}

std::shared_ptr<FdMapping> FdMapping::map(int fd, std::string* why) { return map_with(fd, PROT_READ | PROT_WRITE, why); }

std::shared_ptr<FdMapping> FdMapping::map_read_only(int fd, std::string* why) { return map_with(fd, PROT_READ, why); }

std::shared_ptr<FdMapping> FdMapping::map_with(int fd, int prot, std::string* why) {
  struct stat sb {};
  if (fstat(fd, &sb) != 0) {
    *why = std::string("fstat of fd ") + std::to_string(fd) + " failed: " + std::strerror(errno);
    return nullptr;
  }
  if (sb.st_size <= 0) {
    *why = "fd " + std::to_string(fd) + " has no size";
    return nullptr;
  }
  void* p = mmap(nullptr, static_cast<size_t>(sb.st_size), prot, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    *why = std::string("mmap of fd ") + std::to_string(fd) + " failed: " + std::strerror(errno);
    return nullptr;
  }
  const BufferKey key{static_cast<uint64_t>(sb.st_dev), static_cast<uint64_t>(sb.st_ino)};
  return std::shared_ptr<FdMapping>(new FdMapping(static_cast<uint8_t*>(p), static_cast<size_t>(sb.st_size), key));
}

FdMapping::~FdMapping() { munmap(base(), size()); }

std::shared_ptr<FdMapping> FdMappingCache::map(int fd, std::string* why) {
  BufferKey key;
  if (!buffer_key_of(fd, &key)) {
    *why = "fd " + std::to_string(fd) + " is not open";
    return nullptr;
  }
  std::lock_guard lock(mu_);
  if (auto existing = maps_[key].lock()) return existing;
  auto m = FdMapping::map(fd, why);
  if (m) maps_[key] = m;
  else maps_.erase(key);
  // Forget buffers nobody maps any more, so the table stays as small as the
  // set of registered buffers.
  for (auto it = maps_.begin(); it != maps_.end();) it = it->second.expired() ? maps_.erase(it) : std::next(it);
  return m;
}

size_t FdMappingCache::live() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [key, w] : maps_) n += w.expired() ? 0 : 1;
  return n;
}

}  // namespace openhtp::ipc
