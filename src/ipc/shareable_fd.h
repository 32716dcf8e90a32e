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

// Makes sure the memory behind a shareable fd cannot shrink while the DSP
// process has it mapped (a shrunk mapping faults with SIGBUS on the next
// access: the DSP process would die of a client's mistake). A DMA-BUF never
// shrinks; a memfd that allows sealing gets F_SEAL_SHRINK (rpcmem's already
// have it); anything else — a memfd made without MFD_ALLOW_SEALING, a POSIX
// shm file — cannot be held to its size, and false is returned.
bool seal_against_shrinking(int fd, FdMemory kind);

// The bytes behind a shareable fd (a DMA-BUF's size comes from lseek, not
// fstat); 0 when it has none or is not shareable.
uint64_t shareable_size_of(int fd, FdMemory kind);

}  // namespace openhtp::ipc
