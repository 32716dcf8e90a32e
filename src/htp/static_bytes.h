// The bytes of one STATIC tensor (weights, biases, tables): immutable once
// made and held by reference, so that copying a GraphSpec — the client's
// graph record into the in-process runtime, a spec into a PreparedGraph —
// copies no weights.
//
// Why: a graph's static data is usually most of its memory, and every full
// copy of it made along the way from tensorCreate to a prepared graph is a
// peak the process must survive (issue 11 item 6: an add over 8 GiB of
// weights was OOM-killed at finalize). The bytes live either in a vector the
// StaticBytes owns (what tensorCreate copies from the client) or in a range
// of someone else's memory kept alive by `keep_alive` (the shared upload
// memfd a FastRPC finalize maps on the DSP, a context binary's buffer), and
// every reader sees the same thing through data()/size().
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace openhtp::htp {

class StaticBytes {
 public:
  StaticBytes() = default;
  // Takes `bytes` over (as adopt()): `t.static_data = std::move(vec)`.
  StaticBytes(std::vector<uint8_t> bytes) : StaticBytes(adopt(std::move(bytes))) {}  // NOLINT: no copy made

  // A private copy of `bytes`.
  // (Copied straight into the shared vector: a temporary vector moved in
  // made GCC 12 warn -Wfree-nonheap-object on the inlined moved-from one.)
  static StaticBytes copy_of(std::span<const uint8_t> bytes) {
    if (bytes.empty()) return StaticBytes();
    return owning(std::make_shared<const std::vector<uint8_t>>(bytes.begin(), bytes.end()));
  }
  // Takes `bytes` over without copying them.
  static StaticBytes adopt(std::vector<uint8_t> bytes) {
    if (bytes.empty()) return StaticBytes();
    return owning(std::make_shared<const std::vector<uint8_t>>(std::move(bytes)));
  }
  // `bytes` in memory that stays valid while `keep_alive` lives (a mapping).
  static StaticBytes view(std::shared_ptr<const void> keep_alive, std::span<const uint8_t> bytes) {
    StaticBytes s;
    s.data_ = bytes.data();
    s.size_ = bytes.size();
    s.keep_alive_ = std::move(keep_alive);
    return s;
  }

  const uint8_t* data() const { return data_; }
  uint8_t operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const uint8_t* begin() const { return data_; }
  const uint8_t* end() const { return data_ + size_; }
  std::span<const uint8_t> span() const { return {data_, size_}; }
  operator std::span<const uint8_t>() const { return span(); }  // NOLINT: a view of the same bytes

  // Drops this reference; the bytes go when the last one does.
  void reset() { *this = StaticBytes(); }

  // Equal bytes, wherever they live.
  friend bool operator==(const StaticBytes& a, const StaticBytes& b) {
    return a.size_ == b.size_ && (a.size_ == 0 || a.data_ == b.data_ || std::memcmp(a.data_, b.data_, a.size_) == 0);
  }

 private:
  static StaticBytes owning(std::shared_ptr<const std::vector<uint8_t>> owned) {
    StaticBytes s;
    s.data_ = owned->data();
    s.size_ = owned->size();
    s.keep_alive_ = std::move(owned);
    return s;
  }

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::shared_ptr<const void> keep_alive_;
};

}  // namespace openhtp::htp
