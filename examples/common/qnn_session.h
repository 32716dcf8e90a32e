// The handles every QNN program needs before it can build a graph or
// register memory: a logger, a backend and a context. Freed in reverse order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "QnnInterface.h"

namespace examples {

class QnnSession {
 public:
  explicit QnnSession(const QNN_INTERFACE_VER_TYPE& api) : api_(api) {}
  QnnSession(const QnnSession&) = delete;
  QnnSession& operator=(const QnnSession&) = delete;
  ~QnnSession();

  // logCreate (backend warnings and errors go to stderr), backendCreate,
  // contextCreate. False, with `error` set, on the first failure.
  bool open(std::string* error);
  // The same, with the context made from a context binary
  // (contextCreateFromBinary), as a client of a converted model does.
  bool open_from_binary(const std::vector<uint8_t>& binary, std::string* error);
  // graphRetrieve(name) in the context; false with `error` naming the graph.
  bool retrieve(const char* name, Qnn_GraphHandle_t* graph, std::string* error);
  // contextFree, backendFree, logFree (what is open); the destructor calls it.
  void close();

  Qnn_LogHandle_t log = nullptr;
  Qnn_BackendHandle_t backend = nullptr;
  Qnn_ContextHandle_t context = nullptr;

 private:
  bool open_backend(std::string* error);  // logCreate, backendCreate
  const QNN_INTERFACE_VER_TYPE& api_;
};

// "0x...: <message from errorGetMessage>" for a failed QNN call.
std::string describe_qnn_error(const QNN_INTERFACE_VER_TYPE& api, Qnn_ErrorHandle_t e);

}  // namespace examples
