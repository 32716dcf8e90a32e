// Copy accounting of one graphExecute, read two ways:
//  - openhtp's extension OpenHtp_getLastExecuteStats (openhtp/qnn_ext.h), and
//  - the standard QNN route: a QnnProfile handle passed to graphExecute, whose
//    EXECUTE event carries BYTES sub-events "bytes copied in", "bytes copied
//    out" and "bytes by reference".
// Both must agree; a memhandle tensor counts as by-reference, a client buffer
// as copied once in its direction.
#pragma once

#include <cstdint>
#include <string>

#include "qnn_loader.h"

namespace examples {

struct CopyAccounting {
  uint64_t copied_in = 0;
  uint64_t copied_out = 0;
  uint64_t by_reference = 0;
  bool operator==(const CopyAccounting&) const = default;
};

std::string to_string(const CopyAccounting& a);  // "0 B copied in, 0 B copied out, 3112 B by reference"

class ExecuteReport {
 public:
  ExecuteReport(const QnnBackendLibrary& backend_library, Qnn_BackendHandle_t backend)
      : lib_(backend_library), backend_(backend) {}
  ExecuteReport(const ExecuteReport&) = delete;
  ExecuteReport& operator=(const ExecuteReport&) = delete;
  ~ExecuteReport();

  // profileCreate(backend, QNN_PROFILE_LEVEL_BASIC).
  bool init(std::string* error);
  // Pass this to graphExecute so the execute is recorded.
  Qnn_ProfileHandle_t profile() const { return profile_; }

  // Reads the accounting of `graph`'s latest execute from both sources and
  // prints them (two indented lines). False, with `error` set, if a source is
  // missing or the two disagree; `*from_stats` is filled either way.
  bool read_last(Qnn_GraphHandle_t graph, CopyAccounting* from_stats, std::string* error);

 private:
  const QnnBackendLibrary& lib_;
  Qnn_BackendHandle_t backend_;
  Qnn_ProfileHandle_t profile_ = nullptr;
};

}  // namespace examples
