// Which 16-byte granules of the DSP heap's region begin a block.
//
// One bit per granule (1/128 of the region, in its own lazily committed
// mapping): set exactly when a block header starts there, free or used.
// It answers the two questions boundary tags alone cannot answer safely:
//   - "is p a block at all?" for free(p) of any pointer: the header before a
//     wild pointer is just program data, so its fields cannot be trusted
//     until the bit says a header is really there;
//   - "which block holds this interior address?" for lookup(): the nearest
//     set bit at or before the address.
// A summary level (one bit per bitmap word, set iff the word is non-zero)
// makes the second a backward scan of one summary word per 64 KiB of region
// between the address and its block's start (plus two bitmap words): a
// lookup 1 GiB past its block's start reads 128 KiB of summary instead of
// 8 MiB of bitmap, and one in a block of a few MiB reads a few hundred bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace openhtp::dsp_heap {

class BlockStarts {
 public:
  static constexpr unsigned kGranuleLog2 = 4;

  static constexpr size_t words_for(size_t region_bytes) { return ((region_bytes >> kGranuleLog2) + 63) / 64; }
  static constexpr size_t summary_words_for(size_t region_bytes) { return (words_for(region_bytes) + 63) / 64; }
  // Bytes of memory (bitmap, then summary) a region of region_bytes needs.
  static constexpr size_t bytes_for(size_t region_bytes) {
    return (words_for(region_bytes) + summary_words_for(region_bytes)) * sizeof(uint64_t);
  }

  // memory: bytes_for(region_bytes) zeroed bytes.
  void attach(uint64_t* memory, uintptr_t base, size_t region_bytes) {
    words_ = memory;
    summary_ = memory + words_for(region_bytes);
    base_ = base;
  }

  void set(uintptr_t block) {
    size_t w = word(block);
    words_[w] |= bit(block);
    summary_[w / 64] |= uint64_t{1} << (w % 64);
  }
  void clear(uintptr_t block) {
    size_t w = word(block);
    words_[w] &= ~bit(block);
    if (words_[w] == 0) summary_[w / 64] &= ~(uint64_t{1} << (w % 64));
  }
  bool test(uintptr_t block) const { return (words_[word(block)] & bit(block)) != 0; }

  // The last block start at or before addr (addr in the region). There is
  // always one, the first block at the region base.
  uintptr_t at_or_before(uintptr_t addr) const {
    size_t g = granule(addr);
    size_t w = g / 64;
    uint64_t bits = words_[w] & (~uint64_t{0} >> (63 - g % 64));
    if (bits == 0) {
      // The nearest non-zero word before w, from the summary.
      if (w == 0) return base_;  // unreachable while the first block's bit is set
      size_t prev = w - 1;
      size_t s = prev / 64;
      uint64_t sbits = summary_[s] & (~uint64_t{0} >> (63 - prev % 64));
      while (sbits == 0 && s > 0) sbits = summary_[--s];
      if (sbits == 0) return base_;
      w = s * 64 + highest(sbits);
      bits = words_[w];
    }
    return base_ + ((w * 64 + highest(bits)) << kGranuleLog2);
  }

  // Set bits in the whole bitmap, and whether the summary agrees with it
  // (for the invariant check).
  size_t count(size_t region_bytes, bool* summary_ok) const {
    size_t n = 0;
    *summary_ok = true;
    for (size_t w = 0; w < words_for(region_bytes); ++w) {
      n += static_cast<size_t>(__builtin_popcountll(words_[w]));
      bool marked = (summary_[w / 64] >> (w % 64)) & 1u;
      if (marked != (words_[w] != 0)) *summary_ok = false;
    }
    return n;
  }

 private:
  static size_t highest(uint64_t bits) { return 63 - static_cast<size_t>(__builtin_clzll(bits)); }
  size_t granule(uintptr_t a) const { return (a - base_) >> kGranuleLog2; }
  size_t word(uintptr_t a) const { return granule(a) / 64; }
  uint64_t bit(uintptr_t a) const { return uint64_t{1} << (granule(a) % 64); }

  uint64_t* words_ = nullptr;
  uint64_t* summary_ = nullptr;
  uintptr_t base_ = 0;
};

}  // namespace openhtp::dsp_heap
