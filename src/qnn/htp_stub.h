// libQnnHtp's handle on the HTP runtime (src/htp/runtime.h). The QNN entry
// points validate what the client gave them, then make typed calls here;
// which door the calls go through is the stub's business:
//   - FastRPC (the default): each call is encoded (src/ipc/htp_protocol.h)
//     and sent to the skel in the DSP process (htp_stub_fastrpc.cpp);
//   - in-process (OPENHTP_HTP_TRANSPORT=inproc at backendCreate): the skel
//     library is loaded into this process and its runtime is called
//     directly — no encoding, no copies (htp_stub_inproc.cpp).
// Either way a failure's message is logged once, here, and the QNN error
// code returned.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "QnnCommon.h"
#include "binary/context_codec.h"
#include "htp/runtime.h"
#include "ipc/control_wire.h"
#include "qnn/domain.h"

namespace openhtp::qnn {

// What the transport did with an execute's raw client buffers, for copy
// accounting (include/openhtp/qnn_ext.h). Apart from the runtime's
// htp::ExecResult, and each a local of its own in QnnGraph_execute: as one
// 96-byte struct the two were cleared with `rep stos` (~4 ns of every
// execute here); apart, each is a few stores.
struct TransportCopies {
  uint64_t bytes_copied_in = 0;
  uint64_t bytes_copied_out = 0;
  uint64_t bytes_by_reference = 0;  // raw buffers the transport passed in place
  uint64_t copy_in_ns = 0, copy_out_ns = 0;  // time copying them through the transport
};

class HtpStub {
 public:
  // The process's stub for `domain`: in the Non-RPC domain always the
  // in-process door; in FastRPC the transport OPENHTP_HTP_TRANSPORT names
  // now (shared by the backends that use it). nullptr + *err on failure.
  static std::shared_ptr<HtpStub> get(Domain domain, Qnn_ErrorHandle_t* err);
  virtual ~HtpStub() = default;

  virtual bool in_process() const = 0;
  // True when the runtime behind this stub is gone for good (its DSP process
  // died): every call fails with QNN_COMMON_ERROR_SYSTEM_COMMUNICATION, and
  // new objects must be made through a new stub (a fresh DSP process).
  virtual bool lost() const = 0;

  virtual Qnn_ErrorHandle_t context_create(const htp::ContextOptions& options, uint64_t* id) = 0;
  virtual Qnn_ErrorHandle_t context_free(uint64_t id) = 0;
  // `control` (here and below; may be null): the QnnSignal bounding the call
  // (ipc/control_wire.h), in rpcmem memory so that both doors read its abort
  // word live.
  // An online graph (graphFinalize, or a model library's graphs).
  virtual Qnn_ErrorHandle_t graph_prepare(uint64_t context_id, const htp::GraphSpec& spec, htp::GraphInfo* info,
                                          ipc::htp_wire::ControlWire* control) = 0;
  // Every graph of a context binary, with its stored plan. `bytes` is the
  // binary the client passed; `image` is its decoding here (the in-process
  // door prepares from it directly; FastRPC sends `bytes` to be decoded once
  // on the DSP). infos[i] answers image.graphs[i].
  virtual Qnn_ErrorHandle_t load_binary(uint64_t context_id, std::span<const uint8_t> bytes,
                                        const binary::ContextImage& image, std::vector<htp::GraphInfo>* infos,
                                        ipc::htp_wire::ControlWire* control) = 0;
  virtual Qnn_ErrorHandle_t graph_plan(uint64_t graph_id, size_t max_placements, htp::StoredPlan* plan) = 0;
  // htp::Runtime::node_times; `node_names` (the graph's nodes, as the client
  // built them) size the answer.
  virtual Qnn_ErrorHandle_t graph_node_times(uint64_t graph_id, std::span<const std::string> node_names,
                                             std::vector<htp::StepTime>* steps) = 0;
  virtual Qnn_ErrorHandle_t graph_free(uint64_t id) = 0;
  virtual Qnn_ErrorHandle_t graph_set_threads(uint64_t id, uint32_t num_threads) = 0;
  // htp::Runtime::set_context_priority / set_graph_priority.
  virtual Qnn_ErrorHandle_t context_set_priority(uint64_t id, uint32_t priority) = 0;
  virtual Qnn_ErrorHandle_t graph_set_priority(uint64_t id, uint32_t priority) = 0;
  virtual Qnn_ErrorHandle_t mem_register(uint64_t context_id, int fd, uint64_t offset, uint64_t size,
                                         htp::MemoryKind kind, uint64_t* id) = 0;
  // Registers memory of this process by address: a DSP-heap block in the
  // Non-RPC domain. Only the in-process door can (the FastRPC door refuses).
  virtual Qnn_ErrorHandle_t mem_register_range(uint64_t context_id, std::shared_ptr<const htp::MappedRange> range,
                                               htp::MemoryKind kind, uint64_t* id) = 0;
  virtual Qnn_ErrorHandle_t mem_deregister(uint64_t id) = 0;
  // Bindings as htp::Runtime::execute takes them: a registered memory id, or
  // a raw client buffer. `timing`: whether the DSP measures dsp->exec_ns.
  virtual Qnn_ErrorHandle_t execute(uint64_t graph_id, std::span<const htp::ExecBinding> inputs,
                                    std::span<const htp::ExecBinding> outputs, htp::ExecTiming timing,
                                    htp::ExecResult* dsp, TransportCopies* copies,
                                    ipc::htp_wire::ControlWire* control) = 0;
};

// The two doors (one file each); used by HtpStub::get.
std::shared_ptr<HtpStub> make_fastrpc_stub(Qnn_ErrorHandle_t* err);
std::shared_ptr<HtpStub> make_inproc_stub(Qnn_ErrorHandle_t* err);

}  // namespace openhtp::qnn
