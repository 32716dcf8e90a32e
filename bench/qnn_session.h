// What the execute benchmarks share: a QNN log/backend/context per transport,
// a one-node Relu graph builder, and the two kinds of tensor memory a client
// can hand graphExecute (registered rpcmem memhandles, or plain client
// buffers). Everything here is set-up: nothing in this file is timed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "QnnInterface.h"

namespace bench {

// The HTP provider's function table, obtained the way real clients do.
const QNN_INTERFACE_VER_TYPE& qnn();

enum class Transport {
  kFastRpc,  // graphs run in the separate DSP process (the product path)
  kInProc,   // OPENHTP_HTP_TRANSPORT=inproc: the HTP runtime in this process
};

// A one-node graph out = Relu(in) over `n` floats, finalized. `in`/`out` carry
// the ids the backend assigned; copy them and fill in memory per execute.
struct ReluGraph {
  Qnn_GraphHandle_t handle = nullptr;
  std::vector<uint32_t> dims;
  Qnn_Tensor_t in;
  Qnn_Tensor_t out;
  uint32_t num_elements = 0;
  uint64_t bytes() const { return uint64_t{num_elements} * sizeof(float); }
};

class QnnSession {
 public:
  // The process's session for `t`, created on first use and kept until
  // teardown_all(): re-creating backends per benchmark run would only add
  // DSP-process start-ups to the set-up time. Aborts with a message when the
  // backend cannot be created (a benchmark binary without a backend is moot).
  static QnnSession& get(Transport t);
  // Frees every session (contexts then backends then logs) while the
  // libraries are still fully alive, i.e. before static destruction.
  static void teardown_all();

  ~QnnSession();
  QnnSession(const QnnSession&) = delete;
  QnnSession& operator=(const QnnSession&) = delete;

  Transport transport() const { return transport_; }
  Qnn_BackendHandle_t backend() const { return backend_; }
  Qnn_ContextHandle_t context() const { return context_; }

  // Builds and finalizes a Relu graph; nullptr-handle graph + message on error.
  ReluGraph build_relu(const std::string& name, uint32_t n, std::string* error);

  // Registers `fd` (an rpcmem buffer) as an ION memhandle shaped like `g`'s
  // tensors. Returns nullptr and sets *error on failure.
  Qnn_MemHandle_t register_ion(int fd, const ReluGraph& g, std::string* error);
  void deregister(Qnn_MemHandle_t h);

 private:
  explicit QnnSession(Transport t);

  Transport transport_;
  Qnn_LogHandle_t log_ = nullptr;
  Qnn_BackendHandle_t backend_ = nullptr;
  Qnn_ContextHandle_t context_ = nullptr;
  std::vector<Qnn_MemHandle_t> mems_;  // still registered; released at teardown
};

// Renders a QNN error code for messages.
std::string qnn_error(Qnn_ErrorHandle_t e);

}  // namespace bench
