// What a context binary says about its graphs, read the way a client on a
// device reads it: libQnnSystem's QnnSystemContext_getBinaryInfo. Each
// graph's inputs and outputs come back as templates ready for graphExecute
// (memType MEMHANDLE, handle to be filled in).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "QnnTypes.h"

namespace examples {

// One graph input or output as the binary describes it; `tensor` is the
// template passed to graphExecute (its name/dims point into this struct, so
// it is not copied after fix_pointers()).
struct IoTensor {
  Qnn_Tensor_t tensor = QNN_TENSOR_INIT;
  std::string name;
  std::vector<uint32_t> dims;

  IoTensor() = default;
  IoTensor(const IoTensor& o) : tensor(o.tensor), name(o.name), dims(o.dims) { fix_pointers(); }
  IoTensor& operator=(const IoTensor& o) {
    tensor = o.tensor, name = o.name, dims = o.dims;
    fix_pointers();
    return *this;
  }

  void fix_pointers() {
    tensor.v1.name = name.c_str();
    tensor.v1.dimensions = dims.data();
  }
  size_t elements() const;
  Qnn_DataType_t dtype() const { return tensor.v1.dataType; }
  size_t element_bytes() const;  // 0: a type the examples do not handle
  size_t bytes() const { return elements() * element_bytes(); }
  bool quantized() const;
  float scale() const { return tensor.v1.quantizeParams.scaleOffsetEncoding.scale; }
  int32_t offset() const { return tensor.v1.quantizeParams.scaleOffsetEncoding.offset; }
  std::string describe() const;  // "'name' [1,10] uint8 (scale 0.1, offset -128)"
};

struct GraphIo {
  std::string graph_name;
  std::vector<IoTensor> inputs, outputs;
  const IoTensor* input(const std::string& name) const;
  const IoTensor* output(const std::string& name) const;
};

// Every graph of `binary`, in the binary's order. Graph I/O must have a
// data type the examples convert (float32, int32, u/int8, u/int16) and, if
// quantized, one per-tensor scale/offset (what QNN converters give graph
// I/O). False, with `error` set, otherwise.
bool read_binary_graphs(const std::vector<uint8_t>& binary, std::vector<GraphIo>* graphs, std::string* error);

}  // namespace examples
