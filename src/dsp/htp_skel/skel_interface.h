// The remote interface of the HTP skel (libQnnHtpSkel.so): what libQnnHtp's
// stub sends through remote_handle64_invoke and the skel unpacks — the
// hand-written equivalent of a qaic-generated IDL header.
//
// Every method's LAST output buffer is a SkelStatus carrying the QNN error
// code (and, on failure, a ticket for its message); the invoke's own return
// value only says whether the call reached the skel (AEE codes).
#pragma once

#include <cstdint>

namespace openhtp::skel {

inline constexpr const char* kSkelLibrary = "libQnnHtpSkel.so";
inline constexpr const char* kSkelUri =
    "file:///libQnnHtpSkel.so?openhtp_htp_skel_handle_invoke&_modver=1.0&_dom=cdsp";
inline constexpr const char* kInvokeSymbol = "openhtp_htp_skel_handle_invoke";
inline constexpr const char* kOpenSymbol = "openhtp_htp_open";
inline constexpr const char* kCloseSymbol = "openhtp_htp_close";

enum Method : uint32_t {
  kContextCreate = 0,   // in: ContextCreateReq             out: status(id = context)
  kContextFree = 1,     // in: IdReq(context)               out: status
  kGraphPrepare = 2,    // in: IdReq(context), graph blob   out: PrepareResult, status(id = graph)
  kGraphFree = 3,       // in: IdReq(graph)                 out: status
  kMemRegister = 4,     // in: MemRegisterReq; in-handle: fd out: status(id = mem)
  kMemDeregister = 5,   // in: IdReq(mem)                   out: status
  kGraphExecute = 6,    // in: ExecRequest, raw inputs...   out: raw outputs..., status
  kQuery = 7,           // in: none                         out: QueryResp, status
  kErrorMessage = 8,    // in: IdReq(ticket)                out: char[kErrorMessageBytes], status
  kGraphSetThreads = 9, // in: GraphThreadsReq              out: status
};

// The fixed part of a status: the skel writes only this on success, so a
// successful call moves one cache line of status back to the client, not five.
struct SkelStatus {
  uint64_t error = 0;     // Qnn_ErrorHandle_t
  uint64_t id = 0;        // object created; on failure, the ticket of its message
  uint64_t exec_ns = 0;   // time spent executing on the "DSP" (execute only)
  union {
    uint64_t arena_bytes = 0;  // graph prepare: planned intermediate memory
    uint64_t exec_threads;     // execute: the threads the graph's kernels ran on
  };
};
// 32 bytes: small enough for FastRPC to return it inside the slot's response
// cache line (ipc::kInlineOutBytes), so a successful call costs the client one
// line read. The text of a failure is fetched with kErrorMessage(ticket).
static_assert(sizeof(SkelStatus) == 32);

inline constexpr size_t kErrorMessageBytes = 256;

struct PrepareResult {
  uint64_t vtcm_bytes = 0;        // planned VTCM use
  uint64_t spill_fill_bytes = 0;  // planned spill-fill region
};

struct ContextCreateReq {
  uint32_t priority = 100;
  uint32_t reserved = 0;
  // REGISTER_MULTI_CONTEXTS: the context whose spill-fill region this one
  // shares (0: its own), and the group's maxSpillFillBuffer to reserve.
  uint64_t share_spill_fill_with = 0;
  uint64_t reserve_spill_fill_bytes = 0;
};

struct IdReq {
  uint64_t id = 0;
};

// NUM_HVX_THREADS set on a finalized graph before its first execute.
struct GraphThreadsReq {
  uint64_t graph_id = 0;
  uint32_t num_threads = 0;
  uint32_t reserved = 0;
};

enum MemKind : uint32_t {
  kMemTensor = 0,     // ION / DMA_BUF / SHARED_BUFFER: bound to tensors at execute
  kMemWeights = 1,    // QNN_HTP_MEM_WEIGHTS_BUFFER: the context's weights live here
  kMemSpillFill = 2,  // QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER: the context's spill-fill region
};

struct MemRegisterReq {
  uint64_t context_id = 0;
  uint64_t offset = 0;     // of the described region within the fd
  uint64_t size = 0;       // bytes the handle covers from `offset`
  uint32_t kind = kMemTensor;
  uint32_t reserved = 0;
};

enum BindingKind : uint32_t {
  kBindMemHandle = 0,  // data lives in registered memory `mem_id`
  kBindBuffer = 1,     // data is the invoke buffer argument `arg_index`
};

struct ExecBinding {
  uint32_t tensor_id = 0;
  uint32_t kind = kBindBuffer;
  uint64_t mem_id = 0;
  uint32_t arg_index = 0;
  uint32_t reserved = 0;
  uint64_t bytes = 0;   // bytes the tensor occupies
};

struct ExecRequest {
  uint64_t graph_id = 0;
  uint32_t num_inputs = 0;
  uint32_t num_outputs = 0;
  // ExecBinding bindings[num_inputs + num_outputs] follow.
};

struct QueryResp {
  int32_t pid = 0;
  uint32_t num_contexts = 0;
  uint32_t num_graphs = 0;
  uint32_t num_mems = 0;
  uint32_t num_mappings = 0;
  uint32_t reserved = 0;
};

}  // namespace openhtp::skel
