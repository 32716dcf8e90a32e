#include "io_buffers.h"

#include <dlfcn.h>

#include "common/qnn_library.h"

namespace openhtp::netrun {
namespace {

constexpr int kHeapIdSystem = 25;    // RPCMEM_HEAP_ID_SYSTEM
constexpr uint32_t kDefaultFlags = 1;  // RPCMEM_DEFAULT_FLAGS

}  // namespace

bool Rpcmem::load(std::string* error) {
  void* lib = dlopen("libcdsprpc.so", RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    *error = std::string("--shared_buffer: cannot load libcdsprpc.so: ") + (e != nullptr ? e : "unknown error");
    return false;
  }
  alloc_ = reinterpret_cast<AllocFn>(dlsym(lib, "rpcmem_alloc2"));
  to_fd_ = reinterpret_cast<ToFdFn>(dlsym(lib, "rpcmem_to_fd"));
  free_ = reinterpret_cast<FreeFn>(dlsym(lib, "rpcmem_free"));
  if (alloc_ == nullptr || to_fd_ == nullptr || free_ == nullptr) {
    *error = "--shared_buffer: libcdsprpc.so lacks rpcmem_alloc2, rpcmem_to_fd or rpcmem_free";
    return false;
  }
  return true;
}

void* Rpcmem::alloc(size_t bytes) const { return alloc_(kHeapIdSystem, kDefaultFlags, bytes); }
int Rpcmem::to_fd(void* p) const { return to_fd_(p); }
void Rpcmem::free(void* p) const { free_(p); }

GraphBuffers::~GraphBuffers() {
  for (auto* list : {&inputs_, &outputs_}) {
    for (Buffer& b : *list) {
      if (b.mem != nullptr && api_ != nullptr) api_->memDeRegister(&b.mem, 1);
      if (rpcmem_ != nullptr && b.data != nullptr) rpcmem_->free(b.data);
    }
  }
}

bool GraphBuffers::make(const TensorDesc& d, Buffer* b, Qnn_Tensor_t* t, std::string* error) {
  b->bytes = d.bytes();
  if (b->bytes == 0) {
    *error = "tensor '" + d.name + "' (" + d.describe() + ") has no byte size";
    return false;
  }
  if (rpcmem_ == nullptr) {
    b->heap.assign(b->bytes, 0);
    b->data = b->heap.data();
    *t = make_exec_tensor(d, b->data, static_cast<uint32_t>(b->bytes), nullptr);
    return true;
  }
  b->data = rpcmem_->alloc(b->bytes);
  if (b->data == nullptr) {
    *error = "--shared_buffer: rpcmem_alloc2 of " + std::to_string(b->bytes) + " bytes for tensor '" + d.name +
             "' failed";
    return false;
  }
  Qnn_MemDescriptor_t desc = QNN_MEM_DESCRIPTOR_INIT;
  desc.memShape = {static_cast<uint32_t>(d.dims.size()), const_cast<uint32_t*>(d.dims.data()), nullptr};
  desc.dataType = d.data_type;
  desc.memType = QNN_MEM_TYPE_ION;
  desc.ionInfo.fd = rpcmem_->to_fd(b->data);
  if (Qnn_ErrorHandle_t e = api_->memRegister(context_, &desc, 1, &b->mem); e != QNN_SUCCESS) {
    b->mem = nullptr;
    *error = "--shared_buffer: memRegister of tensor '" + d.name + "' failed: " +
             openhtp::tools::describe_qnn_error(*api_, e);
    return false;
  }
  *t = make_exec_tensor(d, nullptr, 0, b->mem);
  return true;
}

size_t GraphBuffers::memhandle_tensors() const {
  size_t n = 0;
  for (const auto* list : {&in_tensors_, &out_tensors_}) {
    for (const Qnn_Tensor_t& t : *list) n += t.v1.memType == QNN_TENSORMEMTYPE_MEMHANDLE;
  }
  return n;
}

bool GraphBuffers::allocate(const QNN_INTERFACE_VER_TYPE& api, Qnn_ContextHandle_t context,
                            const std::vector<TensorDesc>& inputs, const std::vector<TensorDesc>& outputs,
                            const Rpcmem* rpcmem, std::string* error) {
  api_ = &api;
  context_ = context;
  rpcmem_ = rpcmem;
  inputs_.resize(inputs.size());
  outputs_.resize(outputs.size());
  in_tensors_.resize(inputs.size());
  out_tensors_.resize(outputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!make(inputs[i], &inputs_[i], &in_tensors_[i], error)) return false;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!make(outputs[i], &outputs_[i], &out_tensors_[i], error)) return false;
  }
  return true;
}

}  // namespace openhtp::netrun
