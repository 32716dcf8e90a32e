#include "rpcmem_loader.h"

#include <dlfcn.h>

#include "shared_library.h"

namespace examples {

RpcMemLibrary::~RpcMemLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

bool RpcMemLibrary::load(std::string* error) {
  handle_ = open_shared_library("libcdsprpc.so", &path, error);
  if (handle_ == nullptr) return false;

  rpcmem_alloc = reinterpret_cast<RpcMemAllocFn_t>(dlsym(handle_, "rpcmem_alloc"));
  rpcmem_free = reinterpret_cast<RpcMemFreeFn_t>(dlsym(handle_, "rpcmem_free"));
  rpcmem_to_fd = reinterpret_cast<RpcMemToFdFn_t>(dlsym(handle_, "rpcmem_to_fd"));
  if (rpcmem_alloc == nullptr || rpcmem_free == nullptr || rpcmem_to_fd == nullptr) {
    *error = path + " lacks rpcmem_alloc, rpcmem_free or rpcmem_to_fd";
    rpcmem_alloc = nullptr;
    rpcmem_free = nullptr;
    rpcmem_to_fd = nullptr;
    dlclose(handle_);
    handle_ = nullptr;
    return false;
  }
  return true;
}

}  // namespace examples
