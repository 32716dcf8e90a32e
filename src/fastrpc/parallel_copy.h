// Copies through the transport buffer for large client-buffer arguments.
//
// One core copies about 16 GB/s here when the data is not in cache, which is
// always the case for a large tensor, while the DSP process's core sits idle
// waiting for the input. Sharing a large copy between the caller and one
// helper thread nearly doubles the bandwidth (measured: 15.9 → 30.1 GB/s for
// 16 MiB), and it is how the copy path gets near memcpy speed. The two take
// 256 KiB chunks from the two ends of the copy until they meet, so a slower
// or late core copies less (parallel_copy.cpp). Small copies stay on the
// caller's thread: waking the helper costs more than it saves.
#pragma once

#include <cstddef>

namespace openhtp::fastrpc {

inline constexpr size_t kParallelCopyThreshold = 2u << 20;

void parallel_copy(void* dst, const void* src, size_t n);

// After fork(): the helper thread does not exist in the child.
void parallel_copy_after_fork();

// Tests only: `hook` runs on the helper thread after each chunk it claims and
// before it copies it (null: none), so a test can hold the helper inside a
// copy and see that parallel_copy still returns only once every byte is in.
void parallel_copy_set_helper_hook(void (*hook)());

}  // namespace openhtp::fastrpc
