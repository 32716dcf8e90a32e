// Shareable memory for rpcmem: a DMA-BUF from /dev/dma_heap/system when the
// machine has that heap, otherwise a memfd. Either way it is an fd whose pages
// the DSP process can map, which is what makes zero-copy possible.
#pragma once

#include <cstddef>
#include <cstdint>

namespace openhtp::fastrpc {

struct ShareableMemory {
  int fd = -1;
  uint8_t* base = nullptr;  // client mapping
  size_t size = 0;          // mapped (page-rounded) size
};

// Allocates and maps `size` bytes (rounded up to the page size). 0 or -errno.
int allocate_shareable(size_t size, ShareableMemory* out);
// Unmaps and closes.
void release_shareable(const ShareableMemory& mem);
// "dma_heap" or "memfd" (decided once, at the first allocation).
const char* shareable_backing();

}  // namespace openhtp::fastrpc
