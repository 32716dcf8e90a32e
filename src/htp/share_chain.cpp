#include "htp/share_chain.h"

#include <algorithm>

#include "common/env_switch.h"

namespace openhtp::htp {
namespace {

bool meets(const ops::ShareAccess::Span& a, std::span<const ops::ShareAccess::Span> spans) {
  return std::any_of(spans.begin(), spans.end(), [&](const auto& b) { return a.begin < b.end && b.begin < a.end; });
}

}  // namespace

bool share_chains_enabled() {
  static const bool on = env_switch_on("OPENHTP_SHARE_CHAINS");
  return on;
}

bool share_fences_enabled() {
  static const bool on = env_switch_on("OPENHTP_SHARE_FENCES");
  return on;
}

bool ShareChain::conflict(std::span<const ops::ShareAccess> later, std::span<const ops::ShareAccess> earlier) {
  for (size_t t = 0; t < later.size(); ++t) {
    const ops::ShareAccess& a = later[t];
    for (size_t u = 0; u < earlier.size(); ++u) {
      if (u == t) continue;
      const ops::ShareAccess& b = earlier[u];
      const auto r = std::span(b.reads.data(), b.n_reads);
      const auto w = std::span(b.writes.data(), b.n_writes);
      for (size_t i = 0; i < a.n_reads; ++i) {
        if (meets(a.reads[i], w)) return true;
      }
      for (size_t i = 0; i < a.n_writes; ++i) {
        if (meets(a.writes[i], w) || meets(a.writes[i], r)) return true;
      }
    }
  }
  return false;
}

ShareChain::Start ShareChain::add(std::span<const ops::ShareAccess> shares) {
  const size_t number = added_++;
  Start start;
  const bool known = std::none_of(shares.begin(), shares.end(), [](const auto& a) { return a.overflowed; });
  if (shares.size() != threads_ || threads_ < 2 || !known) {
    pending_.clear();
    return start;
  }
  // The newest pending step this one meets.
  size_t newest = pending_.size();
  for (size_t i = pending_.size(); i-- > 0;) {
    if (conflict(shares, pending_[i].shares)) {
      newest = i;
      break;
    }
  }
  if (!pending_.empty() && newest + 1 != pending_.size()) {
    start.chained = true;
    if (newest < pending_.size()) {
      start.wait_for = pending_[newest].number;
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(newest) + 1);
    }
  } else {
    pending_.clear();  // after a barrier nothing before it is pending
  }
  pending_.push_back({number, std::vector<ops::ShareAccess>(shares.begin(), shares.end())});
  return start;
}

}  // namespace openhtp::htp
