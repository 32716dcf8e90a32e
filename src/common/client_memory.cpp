#include "common/client_memory.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace openhtp {

bool read_client_bytes(const void* addr, void* out, size_t n) {
  if (n == 0) return true;
  if (addr == nullptr) return false;
  size_t done = 0;
  while (done < n) {
    iovec local{static_cast<char*>(out) + done, n - done};
    iovec remote{const_cast<char*>(static_cast<const char*>(addr)) + done, n - done};
    const ssize_t got = ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0);
    if (got <= 0) return false;  // EFAULT at the first byte (or the call is not allowed)
    done += static_cast<size_t>(got);
  }
  return true;
}

std::string read_client_string(const char* p, size_t max_len) {
  char where[48];
  std::snprintf(where, sizeof where, "<unreadable at %p>", static_cast<const void*>(p));
  if (p == nullptr) return where;
  std::string s;
  // Page by page, so that a string ending just before an unmapped page is
  // still read whole.
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  while (s.size() < max_len) {
    const char* at = p + s.size();
    const size_t to_page_end = page - (reinterpret_cast<uintptr_t>(at) % page);
    const size_t want = std::min(to_page_end, max_len - s.size());
    char buf[4096];
    const size_t chunk = std::min(want, sizeof buf);
    if (!read_client_bytes(at, buf, chunk)) return s.empty() ? std::string(where) : s + "...";
    const void* nul = std::memchr(buf, '\0', chunk);
    if (nul != nullptr) return s.append(buf, static_cast<const char*>(nul) - buf);
    s.append(buf, chunk);
  }
  return s + "...";
}

bool ClientSnapshot::add(const void* addr, size_t n, Check check) {
  Region r{addr, n, {}};
  std::string now(n, '\0');
  if (!read_client_bytes(addr, now.data(), n)) return false;
  if (check == Check::kBytes) r.bytes = std::move(now);
  regions_.push_back(std::move(r));
  return true;
}

ClientSnapshot::Verdict ClientSnapshot::compare() const {
  Verdict v = Verdict::kUnchanged;
  std::string now;
  for (const Region& r : regions_) {
    now.assign(r.size, '\0');
    if (!read_client_bytes(r.addr, now.data(), now.size())) return Verdict::kUnreadable;
    if (!r.bytes.empty() && now != r.bytes) v = Verdict::kChanged;
  }
  return v;
}

}  // namespace openhtp
