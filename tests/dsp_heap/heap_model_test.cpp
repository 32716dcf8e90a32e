// The DSP heap against an independent model: ~100k random allocations,
// frees and reallocs (1 byte to 8 MiB, random alignments), with every block
// the heap hands out recorded in a std::map kept by the test. Checked all
// along: no two blocks overlap, contents survive, lookup() says for random
// addresses what the model says, the allocator's own invariants hold; and at
// the end, the emptied region takes one allocation of nearly its whole size
// (which only works if every free block was merged back).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "heap_test_support.h"

namespace openhtp::dsp_heap::testing {
namespace {

struct ModelBlock {
  size_t size;    // asked for; the pattern covers these bytes
  size_t usable;  // what the heap says the block holds
  uint64_t id;
};

class Model {
 public:
  // Adds a block the heap returned, failing the test if it overlaps one.
  void add(void* p, size_t size, uint64_t id) {
    uint64_t a = reinterpret_cast<uint64_t>(p);
    size_t usable = openhtp_dsp_heap_usable_size(p);
    ASSERT_GE(usable, size);
    ASSERT_LE(a + usable, k4GiB);
    auto next = blocks_.lower_bound(a);
    if (next != blocks_.end()) {
      ASSERT_LE(a + usable, next->first) << "overlaps the next block";
    }
    if (next != blocks_.begin()) {
      auto prev = std::prev(next);
      ASSERT_LE(prev->first + prev->second.usable, a) << "overlaps the previous block";
    }
    blocks_[a] = {size, usable, id};
    keys_.push_back(a);
    bytes_ += usable;
  }

  // Removes the block at keys_[i] and returns it.
  std::pair<uint64_t, ModelBlock> take(size_t i) {
    uint64_t a = keys_[i];
    keys_[i] = keys_.back();
    keys_.pop_back();
    ModelBlock b = blocks_.at(a);
    blocks_.erase(a);
    bytes_ -= b.usable;
    return {a, b};
  }

  // The block holding a, if any.
  const std::pair<const uint64_t, ModelBlock>* holding(uint64_t a) const {
    auto it = blocks_.upper_bound(a);
    if (it == blocks_.begin()) return nullptr;
    --it;
    return a < it->first + it->second.usable ? &*it : nullptr;
  }

  size_t count() const { return keys_.size(); }
  uint64_t key(size_t i) const { return keys_[i]; }
  const ModelBlock& at(uint64_t a) const { return blocks_.at(a); }
  size_t bytes() const { return bytes_; }

 private:
  std::map<uint64_t, ModelBlock> blocks_;
  std::vector<uint64_t> keys_;  // for picking a random block in O(1)
  size_t bytes_ = 0;
};

size_t random_size(std::mt19937_64& rng) {
  unsigned kind = rng() % 10;
  if (kind < 6) return 1 + rng() % 256;
  if (kind < 9) return 257 + rng() % (64 << 10);
  return (64 << 10) + rng() % ((8 << 20) - (64 << 10) + 1);
}

size_t random_align(std::mt19937_64& rng) { return rng() % 4 == 0 ? size_t{8} << (rng() % 10) : 0; }

// lookup() of random addresses, each compared with the model's answer.
void check_lookups(const Model& model, std::mt19937_64& rng, uint64_t base, uint64_t end) {
  for (int i = 0; i < 40; ++i) {
    uint64_t a = 0;
    switch (i % 4) {
      case 0:
      case 1:
        a = base + rng() % (end - base);
        break;
      case 2:  // inside a live block, to reach LIVE and TOO_SMALL often
        if (model.count() == 0) continue;
        {
          uint64_t start = model.key(rng() % model.count());
          a = start + rng() % model.at(start).usable;
        }
        break;
      case 3: {
        const uint64_t outside[] = {0, base - 1 - rng() % 4096, end + rng() % 4096, k4GiB + rng() % 4096};
        a = outside[rng() % 4];
        break;
      }
    }
    uint64_t size = 1 + rng() % 4096;
    openhtp_dsp_heap_block_t out{};
    int got = openhtp_dsp_heap_lookup(a, size, &out);
    if (a < base || a >= end) {
      ASSERT_EQ(got, OPENHTP_DSP_HEAP_OUTSIDE) << std::hex << a;
      continue;
    }
    const auto* holder = model.holding(a);
    if (holder == nullptr) {
      ASSERT_EQ(got, OPENHTP_DSP_HEAP_FREE) << std::hex << a;
      continue;
    }
    bool fits = a + size <= holder->first + holder->second.usable;
    ASSERT_EQ(got, fits ? OPENHTP_DSP_HEAP_LIVE : OPENHTP_DSP_HEAP_TOO_SMALL) << std::hex << a << " +" << size;
    ASSERT_EQ(out.start, holder->first);
    ASSERT_EQ(out.size, holder->second.usable);
  }
}

void run_random_ops(uint64_t seed, int ops) {
  ASSERT_EQ(stats().bytes_in_use, 0u) << "needs an empty heap";
  std::mt19937_64 rng(seed);
  Model model;
  uint64_t next_id = 1;
  const size_t max_bytes = (kTestRegionMiB << 20) / 2;  // keep well below the region
  void* probe = openhtp_dsp_heap_alloc(1, 0);  // reserves the region
  openhtp_dsp_heap_free(probe);
  const uint64_t base = stats().region_base;
  const uint64_t end = base + stats().region_size;

  for (int op = 0; op < ops; ++op) {
    unsigned what = rng() % 10;
    if (model.count() == 0 || (what < 5 && model.bytes() < max_bytes)) {
      size_t size = random_size(rng);
      size_t align = random_align(rng);
      void* p = openhtp_dsp_heap_alloc(size, align);
      ASSERT_NE(p, nullptr) << "op " << op << " size " << size << " align " << align;
      if (align != 0) {
        ASSERT_EQ(reinterpret_cast<uint64_t>(p) % align, 0u);
      }
      fill_pattern(p, size, next_id);
      ASSERT_NO_FATAL_FAILURE(model.add(p, size, next_id++));
    } else if (what < 8) {
      auto [a, b] = model.take(rng() % model.count());
      ASSERT_TRUE(check_pattern(reinterpret_cast<void*>(a), b.size, b.id)) << "op " << op << " block " << std::hex << a;
      openhtp_dsp_heap_free(reinterpret_cast<void*>(a));
    } else {
      auto [a, b] = model.take(rng() % model.count());
      size_t size = random_size(rng);
      void* q = openhtp_dsp_heap_realloc(reinterpret_cast<void*>(a), size);
      ASSERT_NE(q, nullptr) << "op " << op;
      ASSERT_TRUE(check_pattern(q, b.size, b.id, size)) << "op " << op;
      fill_pattern(q, size, next_id);
      ASSERT_NO_FATAL_FAILURE(model.add(q, size, next_id++));
    }
    if (op % 1000 == 999) {
      ASSERT_EQ(openhtp_dsp_heap_check(), 0) << "op " << op;
      ASSERT_EQ(stats().live_blocks, model.count());
      ASSERT_EQ(stats().bytes_in_use, model.bytes());
      ASSERT_NO_FATAL_FAILURE(check_lookups(model, rng, base, end));
    }
  }

  while (model.count() > 0) {
    auto [a, b] = model.take(model.count() - 1);
    ASSERT_TRUE(check_pattern(reinterpret_cast<void*>(a), b.size, b.id));
    openhtp_dsp_heap_free(reinterpret_cast<void*>(a));
  }
  ASSERT_EQ(openhtp_dsp_heap_check(), 0);
  EXPECT_EQ(stats().bytes_in_use, 0u);
  EXPECT_EQ(stats().live_blocks, 0u);

  // All of it merged back into one block: nearly the whole region fits.
  const size_t nearly_all = (kTestRegionMiB << 20) - 4096;
  void* big = openhtp_dsp_heap_alloc(nearly_all, 0);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(reinterpret_cast<uint64_t>(big), base + 16);
  openhtp_dsp_heap_free(big);
  EXPECT_EQ(openhtp_dsp_heap_check(), 0);
}

TEST(DspHeapModel, RandomOpsSeed1) { run_random_ops(1, 50000); }
TEST(DspHeapModel, RandomOpsSeed2) { run_random_ops(0x5eed2, 50000); }

}  // namespace
}  // namespace openhtp::dsp_heap::testing
