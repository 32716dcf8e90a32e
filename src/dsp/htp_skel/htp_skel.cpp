// libQnnHtpSkel.so: the HTP runtime's FastRPC door. Loaded by openhtp-cdsp
// (or, for in-process execution, by libQnnHtp into the client), it is a codec
// and nothing more: each remote call is decoded (src/ipc/htp_protocol.h),
// becomes one call of the process's htp::Runtime, and its Status is encoded
// back. The runtime owns every object and every rule (src/htp/runtime.h).
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "QnnContext.h"
#include "QnnGraph.h"
#include "QnnMem.h"
#include "binary/context_codec.h"
#include "binary/context_load.h"
#include "binary/graph_codec.h"
#include "dsp/htp_skel/process_runtime.h"
#include "dsp/htp_skel/ssr_trigger.h"
#include "htp/runtime.h"
#include "ipc/htp_protocol.h"

#define SKEL_EXPORT extern "C" __attribute__((visibility("default")))

namespace openhtp::skel {
namespace {

namespace wire = ipc::htp_wire;

htp::Status malformed(const char* method) {
  return htp::Status::Error(QNN_COMMON_ERROR_INVALID_ARGUMENT, std::string("malformed ") + method + " call");
}

// A method whose request is one fixed-size struct: decoded, then `run`.
template <typename Req, typename Run>
htp::Status fixed_call(uint32_t sc, const remote_arg* pra, const char* method, Run run) {
  Req req;
  return wire::decode_fixed(sc, pra, &req) ? run(req) : malformed(method);
}

// The execute, every inference's call: apart from the other methods so that
// it does not pay for their locals (a frame of GraphSpecs and images).
htp::Status run_execute(uint32_t sc, remote_arg* pra, wire::WireStatus* st, const htp::CallControl* control) {
  // Each slot thread decodes into its own buffers: no lock, and no
  // allocation once a thread has seen a call this large.
  thread_local wire::ExecDecoding dec;
  std::string why;
  if (!wire::decode_execute(sc, pra, &dec, &why)) {
    return htp::Status::Error(QNN_GRAPH_ERROR_INVALID_ARGUMENT, "graphExecute: " + why);
  }
  htp::ExecResult r;
  htp::Status s = process_runtime().execute(dec.graph_id, dec.inputs, dec.outputs, &r, control, dec.timing);
  wire::encode_exec_result(r, s.ok(), st);
  return s;
}

// Every other call: decode, run, and the status to encode (`st->id` and the
// method's outputs are written here). `control`: the call's signal, if any.
htp::Status run_other_method(uint32_t sc, remote_arg* pra, wire::WireStatus* st, const htp::CallControl* control) {
  htp::Runtime& rt = process_runtime();
  switch (REMOTE_SCALARS_METHOD(sc)) {
    case wire::kContextCreate:
      return fixed_call<wire::ContextCreateReq>(sc, pra, "contextCreate", [&](const auto& req) {
        htp::ContextOptions options;
        return wire::from_wire(req, &options) ? rt.create_context(options, &st->id) : malformed("contextCreate");
      });
    case wire::kContextFree:
      return fixed_call<wire::IdReq>(sc, pra, "contextFree", [&](const auto& req) { return rt.free_context(req.id); });
    case wire::kGraphPrepare: {
      wire::IdReq ctx;
      std::span<const uint8_t> blob;
      std::vector<ipc::StaticRefWire> refs;
      int upload_fd = -1;
      wire::GraphInfoWire* out = nullptr;
      if (!wire::decode_graph_prepare(sc, pra, &ctx, &blob, &refs, &upload_fd, &out)) return malformed("graphPrepare");
      htp::GraphSpec spec;
      std::string why;
      if (!binary::decode_graph(blob.data(), blob.size(), &spec, &why) ||
          !ipc::attach_static_upload(refs, upload_fd, &spec, &why)) {
        return htp::Status::Error(QNN_GRAPH_ERROR_INVALID_ARGUMENT, "graphPrepare: " + why);
      }
      htp::GraphInfo info;
      htp::Status s = rt.prepare_graph(ctx.id, std::move(spec), nullptr, &info, control);
      *out = wire::to_wire(info);
      st->id = info.graph_id;
      return s;
    }
    case wire::kContextLoadBinary: {
      wire::LoadBinaryReq req;
      std::span<const uint8_t> bytes;
      std::span<wire::GraphInfoWire> out;
      int upload_fd = -1;
      if (!wire::decode_load_binary(sc, pra, &req, &bytes, &upload_fd, &out)) return malformed("contextLoadBinary");
      binary::ContextImage image;
      std::string why;
      std::shared_ptr<ipc::FdMapping> upload;
      if (upload_fd >= 0) {
        upload = ipc::map_sealed_upload(upload_fd, &why);
        if (!upload) return htp::Status::Error(QNN_CONTEXT_ERROR_CREATE_FROM_BINARY, "contextCreateFromBinary: " + why);
        bytes = {upload->base(), upload->size()};
      }
      if (binary::decode_context(bytes.data(), bytes.size(), &image, &why, upload) != binary::BinaryError::kNone) {
        return htp::Status::Error(QNN_CONTEXT_ERROR_CREATE_FROM_BINARY, "contextCreateFromBinary: " + why);
      }
      if (image.graphs.size() != req.num_graphs) {
        return htp::Status::Error(QNN_CONTEXT_ERROR_CREATE_FROM_BINARY,
                                  "contextCreateFromBinary: the binary holds " + std::to_string(image.graphs.size()) +
                                      " graphs, the client expected " + std::to_string(req.num_graphs));
      }
      std::vector<htp::GraphInfo> infos;
      htp::Status s = binary::prepare_image_graphs(rt, req.context_id, std::move(image.graphs), &infos, control);
      for (size_t i = 0; i < infos.size(); ++i) out[i] = wire::to_wire(infos[i]);
      return s;
    }
    case wire::kGraphPlan: {
      wire::IdReq req;
      std::span<wire::PlacementWire> out;
      if (!wire::decode_graph_plan(sc, pra, &req, &out)) return malformed("graphPlan");
      htp::StoredPlan plan;
      if (htp::Status s = rt.graph_plan(req.id, &plan); !s.ok()) return s;
      if (!wire::encode_plan(plan, out, &st->id)) {
        return htp::Status::Error(QNN_COMMON_ERROR_INVALID_ARGUMENT,
                                  "graphPlan: " + std::to_string(plan.size()) + " placements, room for " +
                                      std::to_string(out.size()));
      }
      return htp::Status::Ok();
    }
    case wire::kGraphNodeTimes: {
      wire::IdReq req;
      std::span<uint8_t> out;
      if (!wire::decode_graph_node_times(sc, pra, &req, &out)) return malformed("graphNodeTimes");
      std::vector<htp::StepTime> steps;
      if (htp::Status s = rt.node_times(req.id, &steps); !s.ok()) return s;
      const size_t used = wire::encode_step_times(steps, out);
      if (used == 0 && !steps.empty()) {
        return htp::Status::Error(QNN_COMMON_ERROR_INVALID_ARGUMENT,
                                  "graphNodeTimes: " + std::to_string(steps.size()) + " steps do not fit in " +
                                      std::to_string(out.size()) + " bytes");
      }
      st->id = used;
      return htp::Status::Ok();
    }
    case wire::kGraphFree:
      return fixed_call<wire::IdReq>(sc, pra, "graphFree", [&](const auto& req) { return rt.free_graph(req.id); });
    case wire::kContextSetPriority:
      return fixed_call<wire::PriorityReq>(sc, pra, "contextSetPriority", [&](const auto& req) {
        return rt.set_context_priority(req.id, req.priority);
      });
    case wire::kGraphSetPriority:
      return fixed_call<wire::PriorityReq>(sc, pra, "graphSetPriority", [&](const auto& req) {
        return rt.set_graph_priority(req.id, req.priority);
      });
    case wire::kGraphSetThreads:
      return fixed_call<wire::GraphThreadsReq>(sc, pra, "graphSetThreads", [&](const auto& req) {
        return rt.set_graph_threads(req.graph_id, req.num_threads);
      });
    case wire::kMemRegister: {
      wire::MemRegisterReq req;
      int fd = -1;
      if (!wire::decode_mem_register(sc, pra, &req, &fd)) return malformed("memRegister");
      std::string why;
      auto m = fd_mappings().map(fd, &why);
      if (!m) return htp::Status::Error(QNN_MEM_ERROR_MAPPING, "memRegister: cannot map the buffer: " + why);
      return rt.register_memory(req.context_id, static_cast<htp::MemoryKind>(req.kind), std::move(m), req.offset,
                                req.size, &st->id);
    }
    case wire::kMemDeregister:
      return fixed_call<wire::IdReq>(sc, pra, "memDeregister",
                                     [&](const auto& req) { return rt.deregister_memory(req.id); });
    case wire::kQuery: {
      wire::QueryResp* out = nullptr;
      if (!wire::decode_query(sc, pra, &out)) return malformed("query");
      const htp::RuntimeStats s = rt.stats();
      *out = {static_cast<int32_t>(getpid()), s.contexts, s.graphs, s.mems, s.mappings, 0};
      return htp::Status::Ok();
    }
    case wire::kErrorMessage: {
      wire::IdReq req;
      char* text = nullptr;
      if (!wire::decode_error_message(sc, pra, &req, &text)) return malformed("errorMessage");
      error_tickets().fetch(req.id, text, wire::kErrorMessageBytes);
      return htp::Status::Ok();
    }
    default:
      return htp::Status::Error(QNN_COMMON_ERROR_NOT_SUPPORTED,
                                "method " + std::to_string(REMOTE_SCALARS_METHOD(sc)) + " is not a skel method");
  }
}

htp::Status run_method(uint32_t sc, remote_arg* pra, wire::WireStatus* st, const htp::CallControl* control) {
  return REMOTE_SCALARS_METHOD(sc) == wire::kGraphExecute ? run_execute(sc, pra, st, control)
                                                          : run_other_method(sc, pra, st, control);
}

int dispatch(uint32_t sc, remote_arg* pra) {
  wire::WireStatus* status_arg = wire::status_of(sc, pra);
  if (status_arg == nullptr) return AEE_EBADPARM;  // nowhere to put an answer
  wire::WireStatus st;
  htp::Status s;
  SsrTrigger::instance().before_call(REMOTE_SCALARS_METHOD(sc));  // subsystem restart on demand
  try {
    // A call bounded by a QnnSignal carries its ControlWire as the last input
    // (htp_protocol.h); the method sees the call without it.
    if (!wire::has_control(sc)) {
      s = run_method(sc, pra, &st, nullptr);
    } else {
      thread_local std::vector<remote_arg> stripped;
      uint32_t method_sc = sc;
      const wire::ControlWire* cw = nullptr;
      if (!wire::strip_control(sc, pra, &method_sc, &stripped, &cw) || cw == nullptr) {
        s = malformed("signal control");
      } else {
        const htp::CallControl control{&cw->abort, cw->deadline_ns};
        s = run_method(method_sc, stripped.data(), &st, &control);
      }
    }
  } catch (const std::bad_alloc&) {  // the codec's own allocations (decoding)
    s = htp::Status::Error(QNN_COMMON_ERROR_MEM_ALLOC, "skel: out of memory decoding the call");
  } catch (...) {
    s = htp::Status::Error(QNN_COMMON_ERROR_GENERAL, "skel: internal error decoding the call");
  }
  st.error = s.code;
  if (!s.ok()) st.id = error_tickets().keep(std::move(s.message));
  std::memcpy(status_arg, &st, sizeof st);
  return AEE_SUCCESS;
}

}  // namespace
}  // namespace openhtp::skel

SKEL_EXPORT int openhtp_htp_open(const char*, remote_handle64* h) {
  *h = openhtp::ipc::htp_wire::kSkelHandle;
  return AEE_SUCCESS;
}

SKEL_EXPORT int openhtp_htp_close(remote_handle64) { return AEE_SUCCESS; }

SKEL_EXPORT int openhtp_htp_skel_handle_invoke(remote_handle64 h, uint32_t sc, remote_arg* pra) {
  if (h != openhtp::ipc::htp_wire::kSkelHandle) return AEE_EBADHANDLE;
  return openhtp::skel::dispatch(sc, pra);
}

// The in-process door: libQnnHtp calls the same runtime directly.
SKEL_EXPORT openhtp::htp::Runtime* openhtp_htp_runtime() { return &openhtp::skel::process_runtime(); }
