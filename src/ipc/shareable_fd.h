// What kind of memory an fd names, as far as sharing it with the DSP process
// goes: memory both processes can map and see the same pages of — a memfd or
// POSIX shm object (tmpfs) or a DMA-BUF — or anything else (a regular file, a
// socket, a pipe), which neither memRegister nor fastrpc_mmap accepts.
#pragma once

#include <cstdint>

namespace openhtp::ipc {

enum class FdMemory { kNotShareable, kTmpfs, kDmaBuf };

// kNotShareable also when `fd` is not an open descriptor.
FdMemory shareable_memory_of(int fd);

// The bytes behind a shareable fd (a DMA-BUF's size comes from lseek, not
// fstat); 0 when it has none or is not shareable.
uint64_t shareable_size_of(int fd, FdMemory kind);

}  // namespace openhtp::ipc
