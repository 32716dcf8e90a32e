#include "dsp/mapping_table.h"

#include <unistd.h>

#include <mutex>
#include <string>

namespace openhtp::dsp {

bool MappingTable::add(const ipc::BufferKey& key, int fd, std::string* why) {
  {
    std::shared_lock lock(mu_);
    if (maps_.count(key) != 0) {
      close(fd);
      return true;
    }
  }
  ipc::BufferKey actual;
  std::shared_ptr<ipc::FdMapping> m;
  if (!ipc::buffer_key_of(fd, &actual) || actual != key) *why = "the fd is not the buffer the call names";
  else m = ipc::FdMapping::map(fd, why);
  close(fd);  // the mapping keeps the buffer alive
  if (!m) return false;
  std::unique_lock lock(mu_);
  maps_.emplace(key, std::move(m));  // lost a race: the first mapping stays, this one is unmapped
  return true;
}

std::shared_ptr<ipc::FdMapping> MappingTable::lookup(const ipc::BufferKey& key) const {
  std::shared_lock lock(mu_);
  auto it = maps_.find(key);
  return it == maps_.end() ? nullptr : it->second;
}

void MappingTable::release(const ipc::BufferKey& key) {
  std::unique_lock lock(mu_);
  maps_.erase(key);
}

size_t MappingTable::count() const {
  std::shared_lock lock(mu_);
  return maps_.size();
}

}  // namespace openhtp::dsp
