// Memory for the regions intermediates live in (the device's VTCM, a
// context's internal spill-fill region, a graph's own pair for execute()
// without regions): page aligned (more than the planner's 64 bytes), zero,
// and committed only as graphs touch it — a region sized for the largest
// graph costs only what the graphs really use. Throws std::bad_alloc when the
// system has no such memory (the runtime turns that into MEM_ALLOC).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace openhtp::htp {

class RegionMemory {
 public:
  RegionMemory() = default;
  explicit RegionMemory(size_t bytes);
  ~RegionMemory();
  RegionMemory(RegionMemory&& o) noexcept : base_(std::exchange(o.base_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  RegionMemory& operator=(RegionMemory&& o) noexcept {
    std::swap(base_, o.base_);  // the old memory goes with `o`
    std::swap(size_, o.size_);
    return *this;
  }
  uint8_t* data() const { return base_; }
  size_t size() const { return size_; }

 private:
  uint8_t* base_ = nullptr;
  size_t size_ = 0;
};

}  // namespace openhtp::htp
