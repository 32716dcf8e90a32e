#include "fastrpc/buffer_registry.h"

#include <sys/stat.h>

#include <algorithm>
#include <mutex>

namespace openhtp::fastrpc {

BufferRegistry& BufferRegistry::instance() {
  // Never destroyed: rpcmem_free may run from other libraries' destructors at
  // exit, after this library's statics would have been torn down.
  static BufferRegistry* r = new BufferRegistry;
  return *r;
}

void BufferRegistry::update_span() {
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  if (!by_base_.empty()) {
    lo = by_base_.begin()->first;
    for (const auto& [base, b] : by_base_) hi = std::max(hi, base + b.size);
  }
  span_lo_.store(lo, std::memory_order_release);
  span_hi_.store(hi, std::memory_order_release);
}

bool BufferRegistry::add(const ClientBuffer& buf) {
  std::unique_lock lock(mu_);
  if (!by_base_.emplace(reinterpret_cast<uintptr_t>(buf.base), buf).second) return false;
  const uintptr_t base = reinterpret_cast<uintptr_t>(buf.base);
  if (base < span_lo_.load(std::memory_order_relaxed)) span_lo_.store(base, std::memory_order_release);
  if (base + buf.size > span_hi_.load(std::memory_order_relaxed)) span_hi_.store(base + buf.size, std::memory_order_release);
  return true;
}

std::optional<ClientBuffer> BufferRegistry::remove(const void* base) {
  std::unique_lock lock(mu_);
  auto it = by_base_.find(reinterpret_cast<uintptr_t>(base));
  if (it == by_base_.end()) return std::nullopt;
  ClientBuffer b = it->second;
  by_base_.erase(it);
  update_span();
  return b;
}

std::optional<ClientBuffer> BufferRegistry::find_containing(const void* p, size_t len) const {
  if (!may_hold(p)) return std::nullopt;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::shared_lock lock(mu_);
  auto it = by_base_.upper_bound(a);
  if (it == by_base_.begin()) return std::nullopt;
  --it;
  const ClientBuffer& b = it->second;
  const uintptr_t base = reinterpret_cast<uintptr_t>(b.base);
  if (a >= base && a - base <= b.size && len <= b.size - (a - base)) return b;
  return std::nullopt;
}

std::optional<ClientBuffer> BufferRegistry::find_mapped_fd(const ipc::BufferKey& key) const {
  std::shared_lock lock(mu_);
  for (const auto& [base, b] : by_base_) {
    if ((b.origin == BufferOrigin::kFastrpcMmap || b.fastrpc_mapped) && b.key == key) return b;
  }
  return std::nullopt;
}

bool BufferRegistry::set_fastrpc_mapped(const void* base, const ipc::BufferKey& key, bool mapped) {
  std::unique_lock lock(mu_);
  auto it = by_base_.find(reinterpret_cast<uintptr_t>(base));
  if (it == by_base_.end() || it->second.origin != BufferOrigin::kRpcmem || !(it->second.key == key)) return false;
  it->second.fastrpc_mapped = mapped;
  return true;
}

void BufferRegistry::mark_dsp_mapped(const ipc::BufferKey& key) {
  // The DSP maps by identity, so every region of that buffer is now mapped.
  std::unique_lock lock(mu_);
  for (auto& [base, b] : by_base_) {
    if (b.key == key) b.dsp_mapped = true;
  }
}

void BufferRegistry::note_qnn_registration(const ipc::BufferKey& key, int delta) {
  std::unique_lock lock(mu_);
  int& n = qnn_registrations_[key];
  n += delta;
  if (n <= 0) qnn_registrations_.erase(key);
}

int BufferRegistry::qnn_registrations(const ipc::BufferKey& key) const {
  std::shared_lock lock(mu_);
  auto it = qnn_registrations_.find(key);
  return it == qnn_registrations_.end() ? 0 : it->second;
}

bool BufferRegistry::key_in_use(const ipc::BufferKey& key) const {
  std::shared_lock lock(mu_);
  for (const auto& [base, b] : by_base_) {
    if (b.key == key) return true;
  }
  return false;
}

void BufferRegistry::clear_dsp_mapped() {
  std::unique_lock lock(mu_);
  for (auto& [base, b] : by_base_) b.dsp_mapped = false;
}

bool key_of_fd(int fd, ipc::BufferKey* key, uint64_t* size) {
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) return false;
  key->dev = st.st_dev;
  key->ino = st.st_ino;
  if (size != nullptr) *size = static_cast<uint64_t>(st.st_size);
  return true;
}

}  // namespace openhtp::fastrpc
