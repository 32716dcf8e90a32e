// Handles given to QNN clients are opaque numbers, never pointers: each kind
// has its own tag in the top byte and a counter below that is never reused.
// A stale, forged or wrong-kind handle therefore finds nothing instead of a
// freed or unrelated object, and is refused with the kind's INVALID_HANDLE.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace openhtp::qnn {

enum class ObjectKind : uint8_t { kBackend = 0xB1, kDevice = 0xD1, kContext = 0xC1, kGraph = 0x61, kMem = 0x41, kProfile = 0x71, kSignal = 0x51 };

struct Object {
  virtual ~Object() = default;
  uint64_t handle = 0;
};

class ObjectTable {
 public:
  static ObjectTable& instance();

  // Stores `obj` and gives it a fresh handle.
  void* add(ObjectKind kind, std::shared_ptr<Object> obj);
  std::shared_ptr<Object> find(ObjectKind kind, const void* handle) const;
  // As find(), also returning the removals() count the answer is valid for.
  std::shared_ptr<Object> find(ObjectKind kind, const void* handle, uint64_t* removals) const;
  std::shared_ptr<Object> remove(ObjectKind kind, const void* handle);
  size_t count(ObjectKind kind) const;
  // The handles of every live object of `kind` (a snapshot: any may be
  // removed by the time the caller uses it).
  std::vector<void*> handles(ObjectKind kind) const;

  // How many objects have been removed so far. Handles are never reused, so
  // while this is unchanged every handle found earlier is still live: callers
  // may memoize lookups against it (see qnn/execute_memo.h).
  uint64_t removals() const { return removals_.load(std::memory_order_acquire); }

 private:
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<Object>> objects_;
  uint64_t next_ = 0;
  std::atomic<uint64_t> removals_{0};  // written under mu_
};

template <typename T>
std::shared_ptr<T> find_object(ObjectKind kind, const void* handle) {
  return std::static_pointer_cast<T>(ObjectTable::instance().find(kind, handle));
}

}  // namespace openhtp::qnn
