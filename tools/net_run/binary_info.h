// Graph names and I/O tensors of a context binary, read the way a QNN client
// reads them before loading it: libQnnSystem's systemContextGetBinaryInfo.
// libQnnSystem.so is dlopen'ed: --system_library when given, else the one in
// the backend library's folder, else by name (the executable's RUNPATH and
// the usual search).
#pragma once

#include <string>
#include <vector>

#include "tensor_data.h"

namespace openhtp::netrun {

struct GraphIo {
  std::string name;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
};

// False + *error naming the library or the binary and the reason.
bool read_binary_graphs(const std::string& system_library, const std::string& backend_path,
                        const std::vector<uint8_t>& binary, std::vector<GraphIo>* out, std::string* error);

}  // namespace openhtp::netrun
