// The handles every QNN program needs before it can build a graph or
// register memory: a logger, a backend and a context. Freed in reverse order.
#pragma once

#include <string>

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

  Qnn_LogHandle_t log = nullptr;
  Qnn_BackendHandle_t backend = nullptr;
  Qnn_ContextHandle_t context = nullptr;

 private:
  const QNN_INTERFACE_VER_TYPE& api_;
};

// "0x...: <message from errorGetMessage>" for a failed QNN call.
std::string describe_qnn_error(const QNN_INTERFACE_VER_TYPE& api, Qnn_ErrorHandle_t e);

}  // namespace examples
