// The client-side objects behind QNN handles. Each is plain state; the rules
// and behaviour live in the *_api.cpp file of its concern. Lock order, where
// several are held: Graph::mu before Context::mu.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "common/client_memory.h"
#include "QnnContext.h"
#include "QnnGraph.h"
#include "QnnMem.h"
#include "QnnProfile.h"
#include "binary/context_codec.h"
#include "htp/graph_spec.h"
#include "qnn/backend_extensions.h"
#include "qnn/domain.h"
#include "qnn/fd_usage.h"
#include "qnn/htp_stub.h"
#include "qnn/object_table.h"

namespace openhtp::qnn {

struct Backend : Object {
  Domain domain = Domain::kFastRpc;  // fixed at backendCreate (qnn/domain.h)
  Qnn_LogHandle_t logger = nullptr;
  std::mutex stub_mu;
  std::shared_ptr<HtpStub> stub;  // the stub new contexts use; guarded by stub_mu
  std::shared_ptr<const BackendExtensions> extensions;  // null: no extension file
};

struct Device : Object {
  bool secure_pd = false;  // QNN_HTP_DEVICE_CONFIG_OPTION_SECUREPD: model protection, excludes external buffers
};

struct Context;

// One registered region of shared memory, as the DSP sees it.
struct MemHandle : Object {
  std::weak_ptr<Context> context;
  uint64_t context_handle = 0;
  uint64_t remote_id = 0;          // id in the HTP runtime
  Qnn_MemType_t mem_type = QNN_MEM_TYPE_UNDEFINED;
  uint32_t htp_type = 0;           // QnnHtpMem_Type_t for CUSTOM
  uint64_t dev = 0, ino = 0;       // identity of the registered fd
  uint64_t offset = 0;             // of the region within the fd
  uint64_t bytes = 0;              // bytes the handle covers (from the descriptor)
  int fd = -1;                     // the client's fd number at registration (for messages)
  FdUse use = FdUse::kTensor;
  bool counted = false;            // recorded in fd_usage (dropped when the handle dies)
  // Non-RPC: a buffer named by QURT address (dev/ino are then kQurtDev/0 and
  // `offset` is the address), pinned in the DSP heap while the runtime holds it.
  bool qurt = false;
  ~MemHandle() {
    if (counted) fd_usage_remove(dev, ino, use);
  }
};

struct Graph : Object {
  // Strong: a graph keeps its context alive, so holding the graph is enough
  // (one reference count on the execute path, not two). No cycle: a context
  // lists its graphs by handle, and contextFree removes them from the table.
  std::shared_ptr<Context> context;
  uint64_t context_handle = 0;
  std::mutex mu;
  htp::GraphSpec spec;
  std::unordered_map<uint32_t, size_t> tensor_index;  // id → index in spec.tensors
  std::set<std::string> tensor_names;
  std::set<uint32_t> produced;   // tensor ids some node writes
  bool finalized = false;
  std::atomic<bool> executed{false};  // NUM_HVX_THREADS may change until the first execute
  uint32_t priority = htp::kInheritPriority;  // PRIORITY config; inherit: the context's
  uint64_t remote_id = 0;
  uint64_t arena_bytes = 0;
  uint64_t vtcm_bytes = 0;
  uint64_t spill_fill_bytes = 0;
  // The graph's inputs and outputs in creation order, indexed once at
  // finalize: an execute that passes them in this order (the usual case)
  // finds each tensor and its size without a lookup.
  struct Io {
    uint32_t id = 0;
    size_t index = 0;    // in spec.tensors
    uint64_t bytes = 0;  // spec.tensors[index].num_bytes()
  };
  std::vector<Io> inputs, outputs;
  // Copy accounting of the most recent execute (see include/openhtp/qnn_ext.h).
  // Written without a lock on the execute path; executes racing on one graph
  // may leave figures of either.
  std::atomic<uint64_t> last_bytes_copied_in{0}, last_bytes_copied_out{0}, last_bytes_by_reference{0};
  std::atomic<uint64_t> last_exec_ns{0};
  // OpenHtp_setDspTiming: the DSP measures every execute's time (otherwise
  // only profiled executes; the others leave last_exec_ns 0).
  std::atomic<bool> dsp_timing{false};
};

// The stub a new context of `b` is made through: the backend's, or, when
// its DSP process is gone, a fresh one that becomes the backend's.
std::shared_ptr<HtpStub> backend_stub_for_new_context(Backend& b, Qnn_ErrorHandle_t* err);

// Creates the runtime side of a new context of `b`: *stub is the door it
// lives behind, *id its runtime id. A DSP process that died before anyone
// noticed fails the first try with 1007; the new context is then made once
// more, through a fresh DSP process (what a client would do itself).
Qnn_ErrorHandle_t create_runtime_context(Backend& b, const htp::ContextOptions& options,
                                         std::shared_ptr<HtpStub>* stub, uint64_t* id);

// Fills g.inputs / g.outputs from g.spec (at finalize).
void index_graph_io(Graph& g);

struct Context : Object {
  std::shared_ptr<Backend> backend;
  // The runtime this context lives in, fixed at creation: after its DSP
  // process dies, the context's calls fail while the backend's new contexts
  // go to a fresh one (backend_stub_for_new_context).
  std::shared_ptr<HtpStub> stub;
  uint64_t remote_id = 0;
  std::mutex mu;
  uint32_t next_tensor_id = 1;
  std::vector<uint64_t> graphs;      // graph handles
  std::set<uint64_t> mem_handles;    // live mem handles registered here
  // (dev, ino, offset) → mem handle: one handle per region (8002 otherwise).
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, uint64_t> regions;
  // Created by contextCreateFromBinary: the binary's graphs, and with
  // DEFER_GRAPH_INIT the image waiting for contextFinalize plus what must not
  // change until then (the client's binary buffer by checksum, its configs
  // by digest, both read only after common/client_memory.h says they are
  // still readable). The image was decoded at create: finalize uses it and
  // reads the client's memory only to check the rule.
  bool from_binary = false;
  bool deferred = false;         // the image is not prepared yet
  bool client_deferred = false;  // ... because the client asked (DEFER_GRAPH_INIT)
  std::unique_ptr<binary::ContextImage> pending;
  const void* binary_ptr = nullptr;
  uint64_t binary_size = 0;
  uint32_t binary_crc = 0;
  const QnnContext_Config_t** config_ptr = nullptr;
  uint32_t config_digest = 0;
  ClientSnapshot config_snapshot;
  uint64_t weights_bytes = 0;
  // A feature the binary was loaded with that rules out external weights and
  // spill-fill buffers (empty when none), and whether one weights buffer is
  // already registered.
  std::string external_buffers_blocked_by;
  bool has_weights_buffer = false;
  bool spill_fill_group_leader = false;  // started a REGISTER_MULTI_CONTEXTS group
  // Non-RPC (qnn/mem_qurt.h): REGISTER_CONCURRENT_RESOURCE_SHARING, the
  // context's priority (one per sharing group), and which of the external
  // buffers given by QURT address it holds.
  bool concurrent_sharing = false;
  uint32_t priority = QNN_PRIORITY_DEFAULT;
  // WEIGHT_SHARING_ENABLED (its config, the backend extensions' key, or a
  // binary written with it): the runtime holds identical weights of the
  // context's graphs once, and contextGetBinary writes them once.
  bool weight_sharing = false;
  bool has_qurt_spill_fill = false;
  bool has_vtcm_backup = false;
  // Buffers the runtime allocated (rpcmem) and registered because the backend
  // extensions asked for them; freed after the context.
  std::vector<void*> runtime_buffers;
  uint64_t runtime_weights_bytes = 0, runtime_spill_fill_bytes = 0;
  // The registered external spill-fill buffer, if any (see spill_fill_claim.h).
  std::atomic<bool> has_external_spill_fill{false};  // read without mu on the execute path
  uint64_t spill_fill_dev = 0, spill_fill_ino = 0;
  int spill_fill_fd = -1;
  // Context tensors (tensorCreateContextTensor), visible to all its graphs.
  std::vector<htp::TensorSpec> context_tensors;
  std::set<std::string> context_tensor_names;
};

struct ProfileEvent {
  QnnProfile_EventType_t type = 0;
  QnnProfile_EventUnit_t unit = QNN_PROFILE_EVENTUNIT_MICROSEC;
  uint64_t value = 0;
  std::string identifier;
  std::vector<QnnProfile_EventId_t> children;
  // Sub-events of this one still to be stored (profile_record gives them
  // ids and moves them into `children`): a NODE event's per-thread times.
  std::vector<ProfileEvent> pending;
};

struct Profile : Object {
  QnnProfile_Level_t level = QNN_PROFILE_LEVEL_BASIC;
  uint64_t max_events = 0;  // 0: unlimited
  std::mutex mu;
  std::vector<QnnProfile_EventId_t> top_level;
};

inline void* as_handle(uint64_t h) { return reinterpret_cast<void*>(static_cast<uintptr_t>(h)); }

}  // namespace openhtp::qnn
