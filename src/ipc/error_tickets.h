// The failure-text half of the skel's wire format (htp_protocol.h): a
// failed call's status carries only a ticket, and the text waits here, in the
// callee, until the caller fetches it (kErrorMessage). So every successful
// call moves one 32-byte status and no text; the last kKept texts are kept.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace openhtp::ipc {

class ErrorTickets {
 public:
  uint64_t keep(std::string text) {
    std::lock_guard lock(mu_);
    const uint64_t ticket = next_++;
    kept_[ticket] = std::move(text);
    while (kept_.size() > kKept) kept_.erase(kept_.begin());
    return ticket;
  }
  // The text of `ticket` into out[size] ("" when unknown or dropped).
  void fetch(uint64_t ticket, char* out, size_t size) {
    std::lock_guard lock(mu_);
    auto it = kept_.find(ticket);
    std::snprintf(out, size, "%s", it == kept_.end() ? "" : it->second.c_str());
  }

 private:
  static constexpr size_t kKept = 64;
  std::mutex mu_;
  uint64_t next_ = 1;
  std::map<uint64_t, std::string> kept_;
};

}  // namespace openhtp::ipc
