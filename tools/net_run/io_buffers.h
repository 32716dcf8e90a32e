// The memory each graph input and output is executed from.
//   default:          plain heap buffers, passed as RAW client buffers (the
//                     backend copies them to and from the DSP);
//   --shared_buffer:  one rpcmem buffer per tensor (rpcmem_alloc2 from
//                     libcdsprpc.so, loaded by name after the backend, so it
//                     is the backend's own rpcmem), registered once with
//                     QnnMem_register as ION memory and passed as MEMHANDLE
//                     tensors: zero copy.
// Buffers hold one execute's worth (one batch); --batch_multiplier runs as
// that many executes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "QnnInterface.h"
#include "tensor_data.h"

namespace openhtp::netrun {

// rpcmem, as a client gets it from libcdsprpc.so.
class Rpcmem {
 public:
  bool load(std::string* error);
  void* alloc(size_t bytes) const;
  int to_fd(void* p) const;
  void free(void* p) const;

 private:
  using AllocFn = void* (*)(int, uint32_t, size_t);
  using ToFdFn = int (*)(void*);
  using FreeFn = void (*)(void*);
  AllocFn alloc_ = nullptr;
  ToFdFn to_fd_ = nullptr;
  FreeFn free_ = nullptr;
};

class GraphBuffers {
 public:
  GraphBuffers() = default;
  GraphBuffers(const GraphBuffers&) = delete;
  GraphBuffers& operator=(const GraphBuffers&) = delete;
  GraphBuffers(GraphBuffers&&) = default;
  ~GraphBuffers();

  // `rpcmem` NULL: heap buffers. False + *error naming the tensor.
  bool allocate(const QNN_INTERFACE_VER_TYPE& api, Qnn_ContextHandle_t context, const std::vector<TensorDesc>& inputs,
                const std::vector<TensorDesc>& outputs, const Rpcmem* rpcmem, std::string* error);

  void* input(size_t i) { return inputs_[i].data; }
  void* output(size_t i) { return outputs_[i].data; }
  std::vector<Qnn_Tensor_t>& input_tensors() { return in_tensors_; }
  std::vector<Qnn_Tensor_t>& output_tensors() { return out_tensors_; }
  // How many of the execute tensors are registered memory handles.
  size_t memhandle_tensors() const;

 private:
  struct Buffer {
    void* data = nullptr;
    size_t bytes = 0;
    Qnn_MemHandle_t mem = nullptr;
    std::vector<uint8_t> heap;
  };
  bool make(const TensorDesc& d, Buffer* b, Qnn_Tensor_t* t, std::string* error);

  const QNN_INTERFACE_VER_TYPE* api_ = nullptr;
  Qnn_ContextHandle_t context_ = nullptr;
  const Rpcmem* rpcmem_ = nullptr;
  std::vector<Buffer> inputs_, outputs_;
  std::vector<Qnn_Tensor_t> in_tensors_, out_tensors_;
};

}  // namespace openhtp::netrun
