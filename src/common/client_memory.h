// Reading memory a client pointed us at, without trusting the pointer.
//
// A QNN client can pass anything: a freed buffer, a struct of garbage, a
// binary it unmapped after the call that lent it. Code that must look at
// such memory outside the happy path (an error message naming a tensor, a
// rule that says "unchanged until finalize") reads it here: the kernel copies
// it (process_vm_readv on our own process), so an unmapped page is an answer
// (false / a placeholder), not a SIGSEGV. About a microsecond per call, so it
// stays off the hot paths, where the API's own validation comes first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace openhtp {

// Copies `n` bytes from `addr` into `out`; false if any of them is not
// readable (then `out` holds what was read before the fault).
bool read_client_bytes(const void* addr, void* out, size_t n);

// The NUL-terminated string at `p`, at most `max_len` bytes of it ("..."
// appended when cut). A null, unreadable or unterminated-and-unreadable
// pointer gives "<unreadable at 0x...>" instead.
std::string read_client_string(const char* p, size_t max_len = 256);

// What a client lent us and promised to keep valid and unchanged (QNN's
// rule for the configs of a deferred context): regions noted during the call
// that lent them and checked later through read_client_bytes, so that a
// freed or unmapped region is reported rather than dereferenced. A region
// is compared byte for byte, or only checked to be still readable (a struct
// whose padding a client may rewrite along with its fields: the caller then
// compares what it means).
class ClientSnapshot {
 public:
  enum class Verdict { kUnchanged, kChanged, kUnreadable };
  enum class Check { kBytes, kReadable };
  // Notes [addr, addr + n) now; false if it is not readable now.
  bool add(const void* addr, size_t n, Check check);
  Verdict compare() const;

 private:
  struct Region {
    const void* addr;
    size_t size;
    std::string bytes;  // kBytes only
  };
  std::vector<Region> regions_;
};

}  // namespace openhtp
