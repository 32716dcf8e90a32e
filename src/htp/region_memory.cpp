#include "htp/region_memory.h"

#include <sys/mman.h>

#include <new>

namespace openhtp::htp {

RegionMemory::RegionMemory(size_t bytes) {
  if (bytes == 0) return;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  base_ = static_cast<uint8_t*>(p);
  size_ = bytes;
}

RegionMemory::~RegionMemory() {
  if (base_ != nullptr) munmap(base_, size_);
}

}  // namespace openhtp::htp
