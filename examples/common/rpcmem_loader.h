// The tutorial's first step: load libcdsprpc.so at run time and resolve the
// three rpcmem functions a shared-buffer client needs. Nothing here links
// against libcdsprpc; like an app on a phone, the example only assumes the
// library is present on the device.
#pragma once

#include <cstdint>
#include <string>

namespace examples {

// void* rpcmem_alloc(int heapid, uint32 flags, int size): a buffer the DSP
// can map, or NULL.
using RpcMemAllocFn_t = void* (*)(int heapid, uint32_t flags, int size);
// void rpcmem_free(void* po): frees it; unknown pointers are ignored.
using RpcMemFreeFn_t = void (*)(void* po);
// int rpcmem_to_fd(void* po): the buffer's file descriptor, -1 if none.
using RpcMemToFdFn_t = int (*)(void* po);

// The values the tutorial passes to rpcmem_alloc.
inline constexpr int kRpcMemHeapIdSystem = 25;      // RPCMEM_HEAP_ID_SYSTEM
inline constexpr uint32_t kRpcMemDefaultFlags = 1;  // RPCMEM_DEFAULT_FLAGS

class RpcMemLibrary {
 public:
  RpcMemLibrary() = default;
  RpcMemLibrary(const RpcMemLibrary&) = delete;
  RpcMemLibrary& operator=(const RpcMemLibrary&) = delete;
  ~RpcMemLibrary();

  // dlopen("libcdsprpc.so") and dlsym the three functions; false (with
  // `error` set) if the library or any symbol is missing.
  bool load(std::string* error);

  RpcMemAllocFn_t rpcmem_alloc = nullptr;
  RpcMemFreeFn_t rpcmem_free = nullptr;
  RpcMemToFdFn_t rpcmem_to_fd = nullptr;
  std::string path;  // the file dlopen really loaded

 private:
  void* handle_ = nullptr;
};

}  // namespace examples
