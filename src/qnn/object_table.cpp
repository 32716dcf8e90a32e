#include "qnn/object_table.h"

namespace openhtp::qnn {

ObjectTable& ObjectTable::instance() {
  static auto* t = new ObjectTable;  // outlives static destructors of clients
  return *t;
}

void* ObjectTable::add(ObjectKind kind, std::shared_ptr<Object> obj) {
  std::lock_guard lock(mu_);
  const uint64_t h = (static_cast<uint64_t>(kind) << 56) | ++next_;
  obj->handle = h;
  objects_[h] = std::move(obj);
  return reinterpret_cast<void*>(static_cast<uintptr_t>(h));
}

std::shared_ptr<Object> ObjectTable::find(ObjectKind kind, const void* handle) const {
  uint64_t removals;
  return find(kind, handle, &removals);
}

std::shared_ptr<Object> ObjectTable::find(ObjectKind kind, const void* handle, uint64_t* removals) const {
  const uint64_t h = reinterpret_cast<uintptr_t>(handle);
  std::lock_guard lock(mu_);
  *removals = removals_.load(std::memory_order_relaxed);
  if ((h >> 56) != static_cast<uint64_t>(kind)) return nullptr;
  auto it = objects_.find(h);
  return it == objects_.end() ? nullptr : it->second;
}

std::shared_ptr<Object> ObjectTable::remove(ObjectKind kind, const void* handle) {
  const uint64_t h = reinterpret_cast<uintptr_t>(handle);
  if ((h >> 56) != static_cast<uint64_t>(kind)) return nullptr;
  std::lock_guard lock(mu_);
  auto it = objects_.find(h);
  if (it == objects_.end()) return nullptr;
  auto obj = std::move(it->second);
  objects_.erase(it);
  removals_.fetch_add(1, std::memory_order_release);
  return obj;
}

size_t ObjectTable::count(ObjectKind kind) const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& [h, o] : objects_) n += (h >> 56) == static_cast<uint64_t>(kind) ? 1 : 0;
  return n;
}

std::vector<void*> ObjectTable::handles(ObjectKind kind) const {
  std::lock_guard lock(mu_);
  std::vector<void*> out;
  for (const auto& [h, o] : objects_) {
    if ((h >> 56) == static_cast<uint64_t>(kind)) out.push_back(reinterpret_cast<void*>(static_cast<uintptr_t>(h)));
  }
  return out;
}

}  // namespace openhtp::qnn
