#include "dsp/mapping_table.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mutex>

namespace openhtp::dsp {

MappingTable::~MappingTable() {
  for (auto& [key, m] : maps_) munmap(m.base, m.size);
}

bool MappingTable::add(const ipc::BufferKey& key, int fd) {
  {
    std::shared_lock lock(mu_);
    if (maps_.count(key) != 0) {
      close(fd);
      return true;
    }
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size <= 0 || static_cast<uint64_t>(st.st_dev) != key.dev ||
      static_cast<uint64_t>(st.st_ino) != key.ino) {
    close(fd);
    return false;
  }
  void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);  // the mapping keeps the buffer alive
  if (p == MAP_FAILED) return false;
  std::unique_lock lock(mu_);
  auto [it, inserted] = maps_.emplace(key, Mapping{static_cast<uint8_t*>(p), static_cast<size_t>(st.st_size)});
  if (!inserted) munmap(p, static_cast<size_t>(st.st_size));  // lost a race: keep the first
  return true;
}

bool MappingTable::lookup(const ipc::BufferKey& key, uint8_t** base, size_t* size) const {
  std::shared_lock lock(mu_);
  auto it = maps_.find(key);
  if (it == maps_.end()) return false;
  *base = it->second.base;
  *size = it->second.size;
  return true;
}

void MappingTable::release(const ipc::BufferKey& key) {
  std::unique_lock lock(mu_);
  auto it = maps_.find(key);
  if (it == maps_.end()) return;
  munmap(it->second.base, it->second.size);
  maps_.erase(it);
}

size_t MappingTable::count() const {
  std::shared_lock lock(mu_);
  return maps_.size();
}

}  // namespace openhtp::dsp
