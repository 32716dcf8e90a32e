// The FastRPC door: every runtime call is encoded with src/ipc/htp_protocol.h
// and sent to the skel in the DSP process through libcdsprpc.
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "AEEStdErr.h"
#include "QnnContext.h"
#include "QnnGraph.h"
#include "binary/graph_codec.h"
#include "ipc/htp_protocol.h"
#include "openhtp/fastrpc_ext.h"
#include "qnn/cdsprpc_link.h"
#include "qnn/htp_stub.h"
#include "qnn/logger.h"

namespace openhtp::qnn {
namespace {

namespace wire = ipc::htp_wire;

class FastRpcStub final : public HtpStub {
 public:
  explicit FastRpcStub(remote_handle64 h) : handle_(h), api_(cdsprpc()) {}
  ~FastRpcStub() override { api_.remote_handle64_close(handle_); }

  bool in_process() const override { return false; }
  bool lost() const override { return api_.handle_lost(handle_) != 0; }

  Qnn_ErrorHandle_t context_create(const htp::ContextOptions& o, uint64_t* id) override {
    const wire::ContextCreateReq req = wire::to_wire(o);
    wire::WireStatus st;
    remote_arg a[2];
    Qnn_ErrorHandle_t e = call(wire::encode_fixed(wire::kContextCreate, req, &st, a), a, &st);
    *id = st.id;
    return e;
  }
  Qnn_ErrorHandle_t context_free(uint64_t id) override { return id_call(wire::kContextFree, id); }

  Qnn_ErrorHandle_t graph_prepare(uint64_t context_id, const htp::GraphSpec& spec, htp::GraphInfo* info,
                                  wire::ControlWire* control) override {
    // The static bytes go in a sealed memfd beside the blob (ipc/static_upload.h):
    // neither process then holds a transient copy of them. Where no memfd
    // can be made they go inside the blob, as they always may.
    ipc::StaticUpload upload;
    std::string why;
    if (!upload.fill(spec, &why)) QNN_LOG_WARN("graphFinalize: %s; the static data goes inside the graph blob", why.c_str());
    std::set<uint32_t> uploaded;
    for (const ipc::StaticRefWire& r : upload.refs()) uploaded.insert(r.tensor_id);
    const std::vector<uint8_t> blob = binary::encode_graph(spec, &uploaded);
    const wire::IdReq req{context_id};
    wire::GraphInfoWire out;
    wire::WireStatus st;
    remote_arg a[6];
    Qnn_ErrorHandle_t e = bounded_call(wire::encode_graph_prepare(req, blob, upload.refs(), upload.fd(), &out, &st, a),
                                       a, &st, control);
    *info = wire::from_wire(out);
    return e;
  }

  Qnn_ErrorHandle_t load_binary(uint64_t context_id, std::span<const uint8_t> bytes, const binary::ContextImage& image,
                                std::vector<htp::GraphInfo>* infos, wire::ControlWire* control) override {
    const wire::LoadBinaryReq req{context_id, static_cast<uint32_t>(image.graphs.size()), 0};
    std::vector<wire::GraphInfoWire> out(image.graphs.size());
    wire::WireStatus st;
    remote_arg a[5];
    // As graphFinalize's static data: the binary goes in a sealed memfd the
    // DSP decodes in place, in-band only where none can be made.
    std::string why;
    const ipc::UploadPiece whole{0, bytes};
    const int fd = bytes.empty() ? -1 : ipc::sealed_memfd_of(bytes.size(), {&whole, 1}, &why);
    if (!bytes.empty() && fd < 0) QNN_LOG_WARN("contextCreateFromBinary: %s; the binary goes in-band", why.c_str());
    Qnn_ErrorHandle_t e = bounded_call(wire::encode_load_binary(req, bytes, fd, out, &st, a), a, &st, control);
    if (fd >= 0) close(fd);
    infos->clear();
    for (const wire::GraphInfoWire& g : out) infos->push_back(wire::from_wire(g));
    return e;
  }

  Qnn_ErrorHandle_t graph_plan(uint64_t graph_id, size_t max_placements, htp::StoredPlan* plan) override {
    const wire::IdReq req{graph_id};
    std::vector<wire::PlacementWire> out(max_placements);
    wire::WireStatus st;
    remote_arg a[3];
    Qnn_ErrorHandle_t e = call(wire::encode_graph_plan(req, out, &st, a), a, &st);
    wire::decode_plan(out, e == QNN_SUCCESS ? st.id : 0, plan);
    return e;
  }

  Qnn_ErrorHandle_t graph_node_times(uint64_t graph_id, std::span<const std::string> node_names,
                                     std::vector<htp::StepTime>* steps) override {
    const wire::IdReq req{graph_id};
    std::vector<uint8_t> out(wire::step_times_capacity(node_names));
    wire::WireStatus st;
    remote_arg a[3];
    if (Qnn_ErrorHandle_t e = call(wire::encode_graph_node_times(req, out, &st, a), a, &st); e != QNN_SUCCESS) return e;
    if (st.id > out.size() || !wire::decode_step_times({out.data(), static_cast<size_t>(st.id)}, steps)) {
      QNN_LOG_ERROR("graph %llu: the DSP's node times are malformed", static_cast<unsigned long long>(graph_id));
      return QNN_COMMON_ERROR_GENERAL;
    }
    return QNN_SUCCESS;
  }

  Qnn_ErrorHandle_t graph_free(uint64_t id) override { return id_call(wire::kGraphFree, id); }

  Qnn_ErrorHandle_t graph_set_threads(uint64_t id, uint32_t num_threads) override {
    const wire::GraphThreadsReq req{id, num_threads, 0};
    wire::WireStatus st;
    remote_arg a[2];
    return call(wire::encode_fixed(wire::kGraphSetThreads, req, &st, a), a, &st);
  }

  Qnn_ErrorHandle_t context_set_priority(uint64_t id, uint32_t priority) override {
    return priority_call(wire::kContextSetPriority, id, priority);
  }
  Qnn_ErrorHandle_t graph_set_priority(uint64_t id, uint32_t priority) override {
    return priority_call(wire::kGraphSetPriority, id, priority);
  }

  Qnn_ErrorHandle_t mem_register(uint64_t context_id, int fd, uint64_t offset, uint64_t size, htp::MemoryKind kind,
                                 uint64_t* id) override {
    const wire::MemRegisterReq req{context_id, offset, size, static_cast<uint32_t>(kind), 0};
    wire::WireStatus st;
    remote_arg a[3];
    Qnn_ErrorHandle_t e = call(wire::encode_mem_register(req, fd, &st, a), a, &st);
    *id = st.id;
    return e;
  }
  Qnn_ErrorHandle_t mem_register_range(uint64_t, std::shared_ptr<const htp::MappedRange>, htp::MemoryKind,
                                       uint64_t*) override {
    // The DSP process cannot see this process's memory by address: buffers
    // cross by fd (memRegister's support table never sends one here).
    QNN_LOG_ERROR("memRegister: a buffer given by address can only be registered in the Non-RPC domain");
    return QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE;
  }
  Qnn_ErrorHandle_t mem_deregister(uint64_t id) override { return id_call(wire::kMemDeregister, id); }

  Qnn_ErrorHandle_t execute(uint64_t graph_id, std::span<const htp::ExecBinding> inputs,
                            std::span<const htp::ExecBinding> outputs, htp::ExecTiming timing, htp::ExecResult* dsp,
                            TransportCopies* copies, wire::ControlWire* control) override {
    // Each calling thread encodes into its own buffers: no allocation once a
    // thread has executed a graph this large, and no lock.
    thread_local wire::ExecEncoding enc;
    wire::WireStatus st;
    std::string why;
    if (!wire::encode_execute(graph_id, inputs, outputs, timing, &st, &enc, &why)) {
      QNN_LOG_ERROR("graphExecute: %s", why.c_str());
      return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
    }
    const Qnn_ErrorHandle_t e = bounded_call(enc.sc, enc.args.data(), &st, control);
    if (e == QNN_SUCCESS) wire::finish_execute(enc);
    // The request block and the status are call overhead, not tensor data:
    // an execute of memory handles alone copies nothing else, so there is
    // nothing to ask libcdsprpc (its figures would count only those two).
    if (enc.raw_inputs != 0 || enc.raw_outputs != 0 || control != nullptr) {
      openhtp_fastrpc_call_stats fs{};
      api_.last_call_stats(&fs);
      copies->bytes_copied_in = fs.bytesCopiedIn >= enc.request.size() ? fs.bytesCopiedIn - enc.request.size() : 0;
      copies->bytes_copied_out = fs.bytesCopiedOut >= sizeof st ? fs.bytesCopiedOut - sizeof st : 0;
      copies->bytes_by_reference = fs.bytesByReference;
      api_.last_call_copy_ns(&copies->copy_in_ns, &copies->copy_out_ns);
    }
    *dsp = wire::decode_exec_result(st, e == QNN_SUCCESS);
    return e;
  }

 private:
  // A call with its signal's ControlWire appended (ipc/control_wire.h): the
  // wire is rpcmem memory, so libcdsprpc passes it by reference.
  Qnn_ErrorHandle_t bounded_call(uint32_t sc, remote_arg* args, wire::WireStatus* st, wire::ControlWire* control) {
    if (control == nullptr) return call(sc, args, st);
    thread_local std::vector<remote_arg> with;
    const uint32_t bounded_sc = wire::with_control(sc, args, control, &with);
    return call(bounded_sc, with.data(), st);
  }
  Qnn_ErrorHandle_t priority_call(wire::Method m, uint64_t id, uint32_t priority) {
    const wire::PriorityReq req{id, priority, 0};
    wire::WireStatus st;
    remote_arg a[2];
    return call(wire::encode_fixed(m, req, &st, a), a, &st);
  }
  Qnn_ErrorHandle_t call(uint32_t sc, remote_arg* args, wire::WireStatus* st) {
    const int rc = api_.remote_handle64_invoke(handle_, sc, args);
    if (rc != 0) {
      // Say what failed: a lost DSP process is what clients recover from
      // (1007); running out of memory or a refused argument is not that.
      const bool lost = this->lost();
      QNN_LOG_ERROR("remote call %u to the DSP failed: FastRPC error %d (%s)",
                    static_cast<unsigned>(REMOTE_SCALARS_METHOD(sc)), rc,
                    lost                  ? "the DSP process is gone; make new objects to recover"
                    : rc == AEE_ENOMEMORY ? "out of memory"
                    : rc == AEE_EBADPARM  ? "libcdsprpc refused the call's arguments"
                    : rc == AEE_EBADSTATE ? "a buffer it used was freed while it ran"
                    : rc == AEE_EMMAP     ? "the DSP could not map a buffer of the call"
                                          : "the call did not complete");
      // Only a lost DSP process is 1007, the code clients answer with a
      // restart: a refused argument (a closed fd, say) is the caller's.
      if (lost) return QNN_COMMON_ERROR_SYSTEM_COMMUNICATION;
      if (rc == AEE_ENOMEMORY) return QNN_COMMON_ERROR_MEM_ALLOC;
      if (rc == AEE_EBADPARM || rc == AEE_EBADSTATE || rc == AEE_EMMAP) return QNN_COMMON_ERROR_INVALID_ARGUMENT;
      return QNN_COMMON_ERROR_GENERAL;
    }
    if (st->error != QNN_SUCCESS) log_error_message(st->id);
    return st->error;
  }

  // The methods that take one id and return only a status.
  Qnn_ErrorHandle_t id_call(wire::Method m, uint64_t id) {
    const wire::IdReq req{id};
    wire::WireStatus st;
    remote_arg a[2];
    return call(wire::encode_fixed(m, req, &st, a), a, &st);
  }

  void log_error_message(uint64_t ticket) {
    // A failure's text stays in the skel until asked for, so that successful
    // calls return only the 32-byte status.
    const wire::IdReq req{ticket};
    char message[wire::kErrorMessageBytes] = {};
    wire::WireStatus st;
    remote_arg a[3];
    const int rc = api_.remote_handle64_invoke(handle_, wire::encode_error_message(req, message, &st, a), a);
    message[sizeof message - 1] = '\0';
    if (rc == 0 && message[0] != '\0') QNN_LOG_ERROR("%s", message);
  }

  remote_handle64 handle_;
  const CdsprpcApi& api_;  // libcdsprpc, found once (cdsprpc_link.h)
};

}  // namespace

std::shared_ptr<HtpStub> make_fastrpc_stub(Qnn_ErrorHandle_t* err) {
  std::string why;
  if (!cdsprpc_found(&why)) {
    QNN_LOG_ERROR("cannot reach the DSP process: %s", why.c_str());
    *err = QNN_COMMON_ERROR_LOADING_BINARIES;
    return nullptr;
  }
  remote_handle64 h = 0;
  const int rc = cdsprpc().remote_handle64_open(wire::kSkelUri, &h);
  if (rc != 0) {
    QNN_LOG_ERROR("cannot open the HTP skel in the DSP process (%s): FastRPC error %d", wire::kSkelUri, rc);
    *err = QNN_COMMON_ERROR_SYSTEM_COMMUNICATION;
    return nullptr;
  }
  return std::make_shared<FastRpcStub>(h);
}

}  // namespace openhtp::qnn
