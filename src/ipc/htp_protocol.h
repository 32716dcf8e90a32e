// The wire format of the HTP skel (libQnnHtpSkel.so): what libQnnHtp's stub
// sends through remote_handle64_invoke and the skel unpacks — the
// hand-written equivalent of a qaic-generated IDL header. This file is its
// one owner: each method has one encode (the stub's half) and one decode (the
// skel's half), side by side, so the two cannot drift apart.
//
// Every method's LAST output buffer is a WireStatus carrying the QNN error
// code (and, on failure, a ticket for its message); the invoke's own return
// value only says whether the call reached the skel (AEE codes). A decode
// treats the call as hostile: counts, sizes and indices are checked before
// anything is read.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "htp/runtime.h"
#include "ipc/control_wire.h"
#include "ipc/static_upload.h"
#include "remote.h"

namespace openhtp::ipc::htp_wire {

inline constexpr const char* kSkelLibrary = "libQnnHtpSkel.so";
inline constexpr const char* kSkelUri =
    "file:///libQnnHtpSkel.so?openhtp_htp_skel_handle_invoke&_modver=1.0&_dom=cdsp";
inline constexpr const char* kInvokeSymbol = "openhtp_htp_skel_handle_invoke";
inline constexpr const char* kOpenSymbol = "openhtp_htp_open";
inline constexpr const char* kCloseSymbol = "openhtp_htp_close";
// The skel's runtime, for the in-process door: `htp::Runtime* (*)()`.
inline constexpr const char* kRuntimeSymbol = "openhtp_htp_runtime";
inline constexpr remote_handle64 kSkelHandle = 0x48545001;  // "HTP" + 1: one runtime per process

enum Method : uint32_t {
  kContextCreate = 0,      // in: ContextCreateReq               out: status(id = context)
  kContextFree = 1,        // in: IdReq(context)                 out: status
  kGraphPrepare = 2,       // in: IdReq(context), graph blob, StaticRefWire[n]; in-handle: upload fd if n > 0
                           //                                    out: GraphInfoWire, status(id = graph)
  kGraphFree = 3,          // in: IdReq(graph)                   out: status
  kMemRegister = 4,        // in: MemRegisterReq; in-handle: fd  out: status(id = mem)
  kMemDeregister = 5,      // in: IdReq(mem)                     out: status
  kGraphExecute = 6,       // in: ExecRequest, raw inputs...     out: raw outputs..., status
  kQuery = 7,              // in: none                           out: QueryResp, status
  kErrorMessage = 8,       // in: IdReq(ticket)                  out: char[kErrorMessageBytes], status
  kGraphSetThreads = 9,    // in: GraphThreadsReq                out: status
  kContextLoadBinary = 10, // in: LoadBinaryReq, context binary  out: GraphInfoWire[n], status
  kGraphPlan = 11,         // in: IdReq(graph)                   out: PlacementWire[capacity], status(id = count)
  kContextSetPriority = 12,  // in: PriorityReq(context)           out: status
  kGraphSetPriority = 13,    // in: PriorityReq(graph)             out: status
  kGraphNodeTimes = 14,      // in: IdReq(graph)                   out: step-time bytes, status(id = bytes used)
};

// The fixed part of a status: the skel writes only this on success, so a
// successful call moves one cache line of status back to the client.
struct WireStatus {
  uint64_t error = 0;     // Qnn_ErrorHandle_t
  uint64_t id = 0;        // object created; on failure, the ticket of its message
  uint64_t exec_ns = 0;   // time spent executing on the "DSP" (execute only)
  // Execute only: the threads the graph's kernels ran on, how often it
  // yielded to a higher-priority execute, and what saving and restoring its
  // VTCM cost (htp::ExecResult).
  uint16_t exec_threads = 0;
  uint16_t yields = 0;
  uint32_t vtcm_saved_bytes = 0;
  uint32_t vtcm_save_ns = 0;
  uint32_t vtcm_restore_ns = 0;
};
// An execute's waits, in `id` of its successful status (which names no
// object): microseconds queued for the HTP in the low half, paused by
// preemption in the high half, each saturating.
inline uint64_t pack_exec_waits(uint64_t queue_wait_ns, uint64_t preempted_ns) {
  const uint64_t q = std::min<uint64_t>(queue_wait_ns / 1000, UINT32_MAX);
  const uint64_t p = std::min<uint64_t>(preempted_ns / 1000, UINT32_MAX);
  return q | (p << 32);
}
inline void unpack_exec_waits(uint64_t id, uint64_t* queue_wait_ns, uint64_t* preempted_ns) {
  *queue_wait_ns = (id & UINT32_MAX) * 1000;
  *preempted_ns = (id >> 32) * 1000;
}
// An execute's htp::ExecResult in its status, each figure saturating at its
// field's width; the waits only when the execute succeeded (`id` is a
// message ticket otherwise).
inline void encode_exec_result(const htp::ExecResult& r, bool ok, WireStatus* st) {
  st->exec_ns = r.exec_ns;
  st->exec_threads = static_cast<uint16_t>(std::min<uint32_t>(r.threads, UINT16_MAX));
  st->yields = static_cast<uint16_t>(std::min<uint32_t>(r.yields, UINT16_MAX));
  st->vtcm_saved_bytes = static_cast<uint32_t>(std::min<uint64_t>(r.vtcm_saved_bytes, UINT32_MAX));
  st->vtcm_save_ns = static_cast<uint32_t>(std::min<uint64_t>(r.vtcm_save_ns, UINT32_MAX));
  st->vtcm_restore_ns = static_cast<uint32_t>(std::min<uint64_t>(r.vtcm_restore_ns, UINT32_MAX));
  if (ok) st->id = pack_exec_waits(r.queue_wait_ns, r.preempted_ns);
}
inline htp::ExecResult decode_exec_result(const WireStatus& st, bool ok) {
  htp::ExecResult r{st.exec_ns, st.exec_threads, st.yields, st.vtcm_saved_bytes, st.vtcm_save_ns, st.vtcm_restore_ns};
  if (ok) unpack_exec_waits(st.id, &r.queue_wait_ns, &r.preempted_ns);
  return r;
}
// 40 bytes: small enough for FastRPC to return it inside the slot's response
// cache line (ipc::kInlineOutBytes), so a successful call costs the client one
// line read. The text of a failure is fetched with kErrorMessage(ticket).
static_assert(sizeof(WireStatus) == 40);

inline constexpr size_t kErrorMessageBytes = 256;
// REMOTE_SCALARS_INBUFS/OUTBUFS are 8-bit fields: a call carries at most 255
// buffers each way, one of them the request (in) or the status (out).
inline constexpr uint32_t kMaxRawBuffers = 254;

struct IdReq {
  uint64_t id = 0;
};

inline constexpr uint32_t kContextWeightSharing = 1u << 0;  // ContextCreateReq::flags: ContextOptions::weight_sharing

struct ContextCreateReq {
  uint32_t priority = 100;
  uint32_t flags = 0;  // kContext* bits (was reserved, always 0, before weight sharing)
  uint64_t spill_fill_group = 0;
  uint64_t reserve_spill_fill_bytes = 0;
};
inline ContextCreateReq to_wire(const htp::ContextOptions& o) {
  return {o.priority, o.weight_sharing ? kContextWeightSharing : 0u, o.spill_fill_group, o.reserve_spill_fill_bytes};
}
// False when the request sets a flag this skel does not know.
inline bool from_wire(const ContextCreateReq& r, htp::ContextOptions* o) {
  *o = {r.priority, r.spill_fill_group, r.reserve_spill_fill_bytes, (r.flags & kContextWeightSharing) != 0};
  return (r.flags & ~kContextWeightSharing) == 0;
}

// The call `sc`/`args` (as an encoder made it) with `control` appended as its
// last input buffer; the arguments go to `out`.
uint32_t with_control(uint32_t sc, const remote_arg* args, ControlWire* control, std::vector<remote_arg>* out);
// Whether the call carries a ControlWire (bounded by a QnnSignal).
inline bool has_control(uint32_t sc) { return (REMOTE_SCALARS_METHOD_ATTR(sc) & kAttrControl) != 0; }
// The skel's half: the call without its control argument (into `out`), and
// the control (nullptr when the call has none). False when the flag is set
// but the last input is no ControlWire.
bool strip_control(uint32_t sc, const remote_arg* pra, uint32_t* stripped_sc, std::vector<remote_arg>* out,
                   const ControlWire** control);

struct PriorityReq {
  uint64_t id = 0;        // context or graph
  uint32_t priority = 0;  // QNN level; for a graph, htp::kInheritPriority: its context's
  uint32_t reserved = 0;
};

struct GraphThreadsReq {
  uint64_t graph_id = 0;
  uint32_t num_threads = 0;
  uint32_t reserved = 0;
};

struct MemRegisterReq {
  uint64_t context_id = 0;
  uint64_t offset = 0;  // of the described region within the fd
  uint64_t size = 0;    // bytes the handle covers from `offset`
  uint32_t kind = 0;    // htp::MemoryKind
  uint32_t reserved = 0;
};

struct GraphInfoWire {
  uint64_t graph_id = 0;
  uint64_t arena_bytes = 0;
  uint64_t vtcm_bytes = 0;
  uint64_t spill_fill_bytes = 0;
};
inline GraphInfoWire to_wire(const htp::GraphInfo& i) {
  return {i.graph_id, i.arena_bytes, i.vtcm_bytes, i.spill_fill_bytes};
}
inline htp::GraphInfo from_wire(const GraphInfoWire& w) {
  return {w.graph_id, w.arena_bytes, w.vtcm_bytes, w.spill_fill_bytes};
}

struct LoadBinaryReq {
  uint64_t context_id = 0;
  uint32_t num_graphs = 0;  // what the client decoded; the skel's decode must agree
  uint32_t reserved = 0;
};

struct PlacementWire {
  uint32_t tensor_id = 0;
  uint32_t region = 0;  // htp::Region
  uint64_t offset = 0;
};

struct QueryResp {
  int32_t pid = 0;
  uint32_t num_contexts = 0;
  uint32_t num_graphs = 0;
  uint32_t num_mems = 0;
  uint32_t num_mappings = 0;
  uint32_t reserved = 0;
};

enum BindingKind : uint32_t {
  kBindMemHandle = 0,  // data lives in registered memory `mem_id`
  kBindBuffer = 1,     // data is the invoke buffer argument `arg_index`
  // Data is `packed_bytes` at offset `mem_id` of buffer argument
  // `arg_index`, which packs the call's client buffers of one direction
  // (calls with more of them than a call has buffer arguments).
  kBindPacked = 2,
};

struct WireBinding {
  uint32_t tensor_id = 0;
  uint32_t kind = kBindBuffer;
  uint64_t mem_id = 0;      // kBindPacked: the offset in the packed argument
  uint32_t arg_index = 0;
  uint32_t packed_bytes = 0;
};

struct ExecRequest {
  uint64_t graph_id = 0;
  uint32_t num_inputs = 0;
  uint32_t num_outputs = 0;
  // WireBinding bindings[num_inputs + num_outputs] follow.
};

// An execute whose every tensor is a memory handle, and whose ids fit in 32
// bits, says so with kAttrCompactExec and sends this smaller request instead:
// 8 bytes a tensor, not 24, so that a tiny execute's whole call fits in the
// one cache line that carries its signal (ipc::kFirstLineFrameBytes).
inline constexpr uint32_t kAttrCompactExec = 2;  // a REMOTE_SCALARS_METHOD_ATTR bit
// An execute whose DSP time is wanted (htp::ExecTiming::kMeasure) says so
// with this bit, in either request form.
inline constexpr uint32_t kAttrTimed = 4;  // a REMOTE_SCALARS_METHOD_ATTR bit
struct CompactExecRequest {
  uint32_t graph_id = 0;
  uint16_t num_inputs = 0;
  uint16_t num_outputs = 0;
  // CompactBinding bindings[num_inputs + num_outputs] follow.
};
struct CompactBinding {
  uint32_t tensor_id = 0;
  uint32_t mem_id = 0;
};

// Encoders point the call's arguments at the request they are given, so the
// request must outlive the call: passing a temporary is refused at compile
// time (the deleted overloads below).

// True when the call carries exactly these numbers of input buffers, output
// buffers (the status included) and input handles.
inline bool has_shape(uint32_t sc, uint32_t in, uint32_t out, uint32_t in_handles) {
  return REMOTE_SCALARS_INBUFS(sc) == in && REMOTE_SCALARS_OUTBUFS(sc) == out &&
         REMOTE_SCALARS_INHANDLES(sc) == in_handles && REMOTE_SCALARS_OUTHANDLES(sc) == 0;
}

// ---- Calls with one fixed-size request and only a status back ---------------
// ContextCreate, ContextFree, GraphFree, MemDeregister, GraphSetThreads.

template <typename Req>
uint32_t encode_fixed(Method m, const Req& req, WireStatus* st, remote_arg (&a)[2]) {
  a[0].buf = {const_cast<Req*>(&req), sizeof req};
  a[1].buf = {st, sizeof *st};
  return REMOTE_SCALARS_MAKEX(0, m, 1, 1, 0, 0);
}
template <typename Req>
uint32_t encode_fixed(Method m, const Req&& req, WireStatus* st, remote_arg (&a)[2]) = delete;
template <typename Req>
bool decode_fixed(uint32_t sc, const remote_arg* pra, Req* req) {
  if (!has_shape(sc, 1, 1, 0)) return false;
  if (pra[0].buf.nLen != sizeof(Req) || pra[0].buf.pv == nullptr) return false;
  std::memcpy(req, pra[0].buf.pv, sizeof(Req));
  return true;
}

// ---- GraphPrepare: the graph table, serialized (src/binary/graph_codec.h) ---
// Static tensors' bytes may travel beside it, in an upload memfd
// (ipc/static_upload.h): `refs` says which tensor is where, `upload_fd` is
// the call's in-handle. No refs, no handle.

inline uint32_t encode_graph_prepare(const IdReq& ctx, std::span<const uint8_t> blob,
                                     std::span<const StaticRefWire> refs, int upload_fd, GraphInfoWire* info,
                                     WireStatus* st, remote_arg (&a)[6]) {
  a[0].buf = {const_cast<IdReq*>(&ctx), sizeof ctx};
  a[1].buf = {const_cast<uint8_t*>(blob.data()), blob.size()};
  a[2].buf = {const_cast<StaticRefWire*>(refs.data()), refs.size_bytes()};
  a[3].buf = {info, sizeof *info};
  a[4].buf = {st, sizeof *st};
  a[5].dma = {upload_fd, 0};
  return REMOTE_SCALARS_MAKEX(0, kGraphPrepare, 3, 2, refs.empty() ? 0 : 1, 0);
}
uint32_t encode_graph_prepare(const IdReq&&, std::span<const uint8_t>, std::span<const StaticRefWire>, int,
                              GraphInfoWire*, WireStatus*, remote_arg (&)[6]) = delete;
// `refs` is copied out of the call (its buffer need not be aligned);
// *upload_fd is -1 when the call has none.
inline bool decode_graph_prepare(uint32_t sc, const remote_arg* pra, IdReq* ctx, std::span<const uint8_t>* blob,
                                 std::vector<StaticRefWire>* refs, int* upload_fd, GraphInfoWire** info) {
  const bool with_upload = has_shape(sc, 3, 2, 1);
  if (!with_upload && !has_shape(sc, 3, 2, 0)) return false;
  if (pra[0].buf.nLen != sizeof(IdReq) || pra[3].buf.nLen != sizeof(GraphInfoWire)) return false;
  if (pra[2].buf.nLen % sizeof(StaticRefWire) != 0 || (pra[2].buf.nLen > 0) != with_upload) return false;
  std::memcpy(ctx, pra[0].buf.pv, sizeof *ctx);
  *blob = {static_cast<const uint8_t*>(pra[1].buf.pv), pra[1].buf.nLen};
  refs->resize(pra[2].buf.nLen / sizeof(StaticRefWire));
  if (!refs->empty()) std::memcpy(refs->data(), pra[2].buf.pv, pra[2].buf.nLen);
  *upload_fd = with_upload ? pra[5].dma.fd : -1;
  *info = static_cast<GraphInfoWire*>(pra[3].buf.pv);
  return true;
}

// ---- ContextLoadBinary: a whole context binary, decoded once on the DSP ----

// The binary travels in-band, or (`upload_fd` >= 0, `binary` empty) as a
// sealed upload memfd the DSP maps read-only and decodes in place
// (ipc/static_upload.h): then neither process holds a transient copy of it.
inline uint32_t encode_load_binary(const LoadBinaryReq& req, std::span<const uint8_t> binary, int upload_fd,
                                   std::span<GraphInfoWire> infos, WireStatus* st, remote_arg (&a)[5]) {
  a[0].buf = {const_cast<LoadBinaryReq*>(&req), sizeof req};
  a[1].buf = {const_cast<uint8_t*>(binary.data()), upload_fd >= 0 ? 0 : binary.size()};
  a[2].buf = {infos.data(), infos.size_bytes()};
  a[3].buf = {st, sizeof *st};
  a[4].dma = {upload_fd, 0};
  return REMOTE_SCALARS_MAKEX(0, kContextLoadBinary, 2, 2, upload_fd >= 0 ? 1 : 0, 0);
}
uint32_t encode_load_binary(const LoadBinaryReq&&, std::span<const uint8_t>, int, std::span<GraphInfoWire>,
                            WireStatus*, remote_arg (&)[5]) = delete;
// *upload_fd is -1 for an in-band binary; with an upload the in-band one is empty.
inline bool decode_load_binary(uint32_t sc, const remote_arg* pra, LoadBinaryReq* req,
                               std::span<const uint8_t>* binary, int* upload_fd, std::span<GraphInfoWire>* infos) {
  const bool with_upload = has_shape(sc, 2, 2, 1);
  if (!with_upload && !has_shape(sc, 2, 2, 0)) return false;
  if (pra[0].buf.nLen != sizeof(LoadBinaryReq)) return false;
  if (with_upload && pra[1].buf.nLen != 0) return false;
  std::memcpy(req, pra[0].buf.pv, sizeof *req);
  if (pra[2].buf.nLen != uint64_t{req->num_graphs} * sizeof(GraphInfoWire)) return false;
  *binary = {static_cast<const uint8_t*>(pra[1].buf.pv), pra[1].buf.nLen};
  *upload_fd = with_upload ? pra[4].dma.fd : -1;
  *infos = {static_cast<GraphInfoWire*>(pra[2].buf.pv), req->num_graphs};
  return true;
}

// ---- GraphPlan: where each NATIVE tensor lives (for contextGetBinary) -------

inline uint32_t encode_graph_plan(const IdReq& graph, std::span<PlacementWire> out, WireStatus* st,
                                  remote_arg (&a)[3]) {
  a[0].buf = {const_cast<IdReq*>(&graph), sizeof graph};
  a[1].buf = {out.data(), out.size_bytes()};
  a[2].buf = {st, sizeof *st};
  return REMOTE_SCALARS_MAKEX(0, kGraphPlan, 1, 2, 0, 0);
}
uint32_t encode_graph_plan(const IdReq&&, std::span<PlacementWire>, WireStatus*, remote_arg (&)[3]) = delete;
inline bool decode_graph_plan(uint32_t sc, const remote_arg* pra, IdReq* graph, std::span<PlacementWire>* out) {
  if (!has_shape(sc, 1, 2, 0)) return false;
  if (pra[0].buf.nLen != sizeof(IdReq) || pra[1].buf.nLen % sizeof(PlacementWire) != 0) return false;
  std::memcpy(graph, pra[0].buf.pv, sizeof *graph);
  *out = {static_cast<PlacementWire*>(pra[1].buf.pv), pra[1].buf.nLen / sizeof(PlacementWire)};
  return true;
}
// The answer: `plan` into `out` (status.id = *count); false when it does not fit.
inline bool encode_plan(const htp::StoredPlan& plan, std::span<PlacementWire> out, uint64_t* count) {
  if (plan.size() > out.size()) return false;
  size_t k = 0;
  for (const auto& [id, where] : plan) out[k++] = {id, static_cast<uint32_t>(where.region), where.offset};
  *count = k;
  return true;
}
inline void decode_plan(std::span<const PlacementWire> in, uint64_t count, htp::StoredPlan* plan) {
  plan->clear();
  for (size_t i = 0; i < count && i < in.size(); ++i) {
    (*plan)[in[i].tensor_id] = {static_cast<htp::Region>(in[i].region), static_cast<size_t>(in[i].offset)};
  }
}

// ---- GraphNodeTimes: per-step times for DETAILED profiling ------------------
// Out: the steps packed as {u64 total_ns, u64 runs, u32 name bytes, u32
// threads, name, zero padding to 8, threads x u64 CPU ns}, in step order;
// status.id is the bytes used. The client sizes the buffer with
// step_times_capacity from its own node names: a fused step's name ("a+b")
// is never longer than its nodes' names joined, and at most
// kMaxWireThreads per-thread figures travel per step (more are dropped).

inline constexpr size_t kMaxWireThreads = 96;

inline size_t step_times_capacity(std::span<const std::string> node_names) {
  size_t bytes = 0;
  for (const std::string& n : node_names) bytes += 24 + (n.size() + 1 + 7) / 8 * 8 + 8 * kMaxWireThreads;
  return bytes;
}
// Bytes written, or 0 (nothing fits) when `out` is too small.
inline size_t encode_step_times(std::span<const htp::StepTime> steps, std::span<uint8_t> out) {
  size_t at = 0;
  for (const htp::StepTime& t : steps) {
    const size_t padded = (t.name.size() + 7) / 8 * 8;
    const uint32_t threads = static_cast<uint32_t>(std::min(t.thread_ns.size(), kMaxWireThreads));
    if (out.size() - at < 24 + padded + 8 * size_t{threads}) return 0;
    const uint32_t len = static_cast<uint32_t>(t.name.size());
    std::memcpy(out.data() + at, &t.total_ns, 8);
    std::memcpy(out.data() + at + 8, &t.runs, 8);
    std::memcpy(out.data() + at + 16, &len, 4);
    std::memcpy(out.data() + at + 20, &threads, 4);
    std::memset(out.data() + at + 24, 0, padded);
    std::memcpy(out.data() + at + 24, t.name.data(), t.name.size());
    if (threads != 0) std::memcpy(out.data() + at + 24 + padded, t.thread_ns.data(), 8 * size_t{threads});
    at += 24 + padded + 8 * size_t{threads};
  }
  return at == 0 && !steps.empty() ? 0 : at;
}
inline bool decode_step_times(std::span<const uint8_t> in, std::vector<htp::StepTime>* steps) {
  steps->clear();
  size_t at = 0;
  while (at < in.size()) {
    if (in.size() - at < 24) return false;
    htp::StepTime t;
    uint32_t len = 0, threads = 0;
    std::memcpy(&t.total_ns, in.data() + at, 8);
    std::memcpy(&t.runs, in.data() + at + 8, 8);
    std::memcpy(&len, in.data() + at + 16, 4);
    std::memcpy(&threads, in.data() + at + 20, 4);
    if (threads > kMaxWireThreads) return false;
    const size_t padded = (size_t{len} + 7) / 8 * 8;
    if (in.size() - at - 24 < padded || in.size() - at - 24 - padded < 8 * size_t{threads}) return false;
    t.name.assign(reinterpret_cast<const char*>(in.data() + at + 24), len);
    t.thread_ns.resize(threads);
    if (threads != 0) std::memcpy(t.thread_ns.data(), in.data() + at + 24 + padded, 8 * size_t{threads});
    steps->push_back(std::move(t));
    at += 24 + padded + 8 * size_t{threads};
  }
  return true;
}
inline uint32_t encode_graph_node_times(const IdReq& graph, std::span<uint8_t> out, WireStatus* st,
                                        remote_arg (&a)[3]) {
  a[0].buf = {const_cast<IdReq*>(&graph), sizeof graph};
  a[1].buf = {out.data(), out.size_bytes()};
  a[2].buf = {st, sizeof *st};
  return REMOTE_SCALARS_MAKEX(0, kGraphNodeTimes, 1, 2, 0, 0);
}
uint32_t encode_graph_node_times(const IdReq&&, std::span<uint8_t>, WireStatus*, remote_arg (&)[3]) = delete;
inline bool decode_graph_node_times(uint32_t sc, const remote_arg* pra, IdReq* graph, std::span<uint8_t>* out) {
  if (!has_shape(sc, 1, 2, 0)) return false;
  if (pra[0].buf.nLen != sizeof(IdReq)) return false;
  std::memcpy(graph, pra[0].buf.pv, sizeof *graph);
  *out = {static_cast<uint8_t*>(pra[1].buf.pv), pra[1].buf.nLen};
  return true;
}

// ---- MemRegister: the buffer travels as a DMA handle (its fd) ---------------

inline uint32_t encode_mem_register(const MemRegisterReq& req, int fd, WireStatus* st, remote_arg (&a)[3]) {
  a[0].buf = {const_cast<MemRegisterReq*>(&req), sizeof req};
  a[1].buf = {st, sizeof *st};
  a[2].dma = {fd, 0};
  return REMOTE_SCALARS_MAKEX(0, kMemRegister, 1, 1, 1, 0);
}
uint32_t encode_mem_register(const MemRegisterReq&&, int, WireStatus*, remote_arg (&)[3]) = delete;
inline bool decode_mem_register(uint32_t sc, const remote_arg* pra, MemRegisterReq* req, int* fd) {
  if (!has_shape(sc, 1, 1, 1)) return false;
  if (pra[0].buf.nLen != sizeof(MemRegisterReq)) return false;
  std::memcpy(req, pra[0].buf.pv, sizeof *req);
  if (req->kind > static_cast<uint32_t>(htp::MemoryKind::kSpillFill)) return false;
  *fd = pra[2].dma.fd;
  return true;
}

// ---- Query, ErrorMessage ------------------------------------------------------

inline uint32_t encode_query(QueryResp* out, WireStatus* st, remote_arg (&a)[2]) {
  a[0].buf = {out, sizeof *out};
  a[1].buf = {st, sizeof *st};
  return REMOTE_SCALARS_MAKEX(0, kQuery, 0, 2, 0, 0);
}
inline bool decode_query(uint32_t sc, const remote_arg* pra, QueryResp** out) {
  if (!has_shape(sc, 0, 2, 0)) return false;
  if (pra[0].buf.nLen != sizeof(QueryResp)) return false;
  *out = static_cast<QueryResp*>(pra[0].buf.pv);
  return true;
}

inline uint32_t encode_error_message(const IdReq& ticket, char (&text)[kErrorMessageBytes], WireStatus* st,
                                     remote_arg (&a)[3]) {
  a[0].buf = {const_cast<IdReq*>(&ticket), sizeof ticket};
  a[1].buf = {text, sizeof text};
  a[2].buf = {st, sizeof *st};
  return REMOTE_SCALARS_MAKEX(0, kErrorMessage, 1, 2, 0, 0);
}
uint32_t encode_error_message(const IdReq&&, char (&)[kErrorMessageBytes], WireStatus*, remote_arg (&)[3]) = delete;
inline bool decode_error_message(uint32_t sc, const remote_arg* pra, IdReq* ticket, char** text) {
  if (!has_shape(sc, 1, 2, 0)) return false;
  if (pra[0].buf.nLen != sizeof(IdReq) || pra[1].buf.nLen != kErrorMessageBytes) return false;
  std::memcpy(ticket, pra[0].buf.pv, sizeof *ticket);
  *text = static_cast<char*>(pra[1].buf.pv);
  return true;
}

// ---- GraphExecute -------------------------------------------------------------
// in0: ExecRequest + one WireBinding per input then output; in1..: the raw
// input buffers; out0..: the raw output buffers; last out: status. A memory
// handle travels as its id, a raw buffer as an invoke buffer (copied, or
// passed by reference when it is rpcmem memory: libcdsprpc decides).

// Calls with more client buffers in one direction than a call has buffer
// arguments (kMaxRawBuffers) pack that direction's client buffers into one
// argument, each at a 64-byte aligned offset: inputs are copied in before the
// call, outputs scattered back after it (finish_execute). One extra copy, and
// only for such calls (a calibration graph with an output per tensor).

// What the stub keeps from one execute to the next, so encoding allocates
// nothing in steady state, and an execute that repeats the last compact one
// (same graph, bindings and timing: a client's inference loop) reuses its
// request as it is.
struct ExecEncoding {
  std::vector<uint8_t> request;
  struct CompactMemo {
    bool valid = false;
    uint64_t graph_id = 0;
    htp::ExecTiming timing = htp::ExecTiming::kSkip;
    size_t num_inputs = 0;
    std::vector<CompactBinding> bindings;  // inputs then outputs, as sent
    bool repeats(uint64_t graph, std::span<const htp::ExecBinding> in, std::span<const htp::ExecBinding> out,
                 htp::ExecTiming t) const;
  } compact;
  std::vector<remote_arg> args;
  uint32_t sc = 0;
  uint32_t raw_inputs = 0, raw_outputs = 0;  // client buffers of the call
  std::vector<uint8_t> packed_in, packed_out;
  struct Scatter {
    void* to;
    uint64_t offset, bytes;
  };
  std::vector<Scatter> scatter;  // packed outputs, for finish_execute
};

// False (and *why) when the call cannot be expressed on this wire.
bool encode_execute(uint64_t graph_id, std::span<const htp::ExecBinding> inputs,
                    std::span<const htp::ExecBinding> outputs, htp::ExecTiming timing, WireStatus* st,
                    ExecEncoding* enc, std::string* why);
// After a successful call: copies packed outputs to the client's buffers.
void finish_execute(const ExecEncoding& enc);

// The skel's half: bindings with every raw buffer resolved to its argument's
// memory; reused across calls.
struct ExecDecoding {
  uint64_t graph_id = 0;
  htp::ExecTiming timing = htp::ExecTiming::kSkip;
  std::vector<htp::ExecBinding> inputs, outputs;
  std::vector<uint8_t> arg_used;
  // The compact request `inputs` and `outputs` were decoded from (empty when
  // they came from another form or a refused request): the same bytes again
  // decode to the same bindings, so they are not decoded again.
  std::vector<uint8_t> compact_request;
};
bool decode_execute(uint32_t sc, const remote_arg* pra, ExecDecoding* dec, std::string* why);

// The status argument of a call (the last output buffer), or nullptr when
// the call has none of the right size — then the skel can only answer with
// an AEE code.
inline WireStatus* status_of(uint32_t sc, remote_arg* pra) {
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(sc), n_out = REMOTE_SCALARS_OUTBUFS(sc);
  if (n_out == 0) return nullptr;
  remote_arg& a = pra[n_in + n_out - 1];
  if (a.buf.nLen != sizeof(WireStatus) || a.buf.pv == nullptr) return nullptr;
  return static_cast<WireStatus*>(a.buf.pv);
}

}  // namespace openhtp::ipc::htp_wire
