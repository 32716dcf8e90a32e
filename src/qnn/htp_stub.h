// The client half of the HTP skel interface (dsp/htp_skel/skel_interface.h):
// packs each runtime request into remote_arg buffers and sends it either
// through FastRPC to the DSP process (the default) or straight into a copy of
// the skel loaded in this process (OPENHTP_HTP_TRANSPORT=inproc, used to
// measure what the process boundary costs).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "QnnCommon.h"
#include "dsp/htp_skel/skel_interface.h"
#include "remote.h"

namespace openhtp::qnn {

struct TransferStats {
  uint64_t bytes_copied_in = 0;
  uint64_t bytes_copied_out = 0;
  uint64_t bytes_by_reference = 0;
};

class HtpStub {
 public:
  // The process's stub (shared by all backends); nullptr + *err on failure.
  static std::shared_ptr<HtpStub> get(Qnn_ErrorHandle_t* err);
  ~HtpStub();

  bool in_process() const { return inproc_invoke_ != nullptr; }

  // `share_spill_fill_with`: remote id of a spill-fill group's first context.
  Qnn_ErrorHandle_t context_create(uint32_t priority, uint64_t* id, uint64_t share_spill_fill_with = 0,
                                   uint64_t reserve_spill_fill_bytes = 0);
  Qnn_ErrorHandle_t context_free(uint64_t id);
  struct PreparedInfo {
    uint64_t remote_id = 0;
    uint64_t arena_bytes = 0;
    uint64_t vtcm_bytes = 0;
    uint64_t spill_fill_bytes = 0;
  };
  Qnn_ErrorHandle_t graph_prepare(uint64_t context_id, const std::vector<uint8_t>& blob, PreparedInfo* info);
  Qnn_ErrorHandle_t graph_free(uint64_t id);
  Qnn_ErrorHandle_t graph_set_threads(uint64_t id, uint32_t num_threads);
  // `kind`: skel::MemKind (tensor memory, external weights, external spill-fill).
  Qnn_ErrorHandle_t mem_register(uint64_t context_id, int fd, uint64_t offset, uint64_t size, uint32_t kind,
                                 uint64_t* id);
  Qnn_ErrorHandle_t mem_deregister(uint64_t id);
  // `args` holds in0 (request), raw inputs, raw outputs; the status buffer is
  // appended here. On success *exec_ns is the DSP-side execution time and
  // *exec_threads the threads the graph's kernels ran on.
  Qnn_ErrorHandle_t execute(std::vector<remote_arg>& args, uint32_t n_in, uint32_t n_out, uint64_t* exec_ns,
                            uint64_t* exec_threads, TransferStats* stats);
  Qnn_ErrorHandle_t query(skel::QueryResp* out);

 private:
  HtpStub() = default;
  Qnn_ErrorHandle_t call(uint32_t method, uint32_t n_in, uint32_t n_out, uint32_t n_hin, remote_arg* args,
                         skel::SkelStatus* status, TransferStats* stats = nullptr);

  // The methods that take one id and return only a status.
  Qnn_ErrorHandle_t id_call(uint32_t method, uint64_t id);
  void log_error_message(uint64_t ticket);

  remote_handle64 handle_ = 0;
  using InvokeFn = int (*)(remote_handle64, uint32_t, remote_arg*);
  InvokeFn inproc_invoke_ = nullptr;
  void* inproc_lib_ = nullptr;
};

}  // namespace openhtp::qnn
