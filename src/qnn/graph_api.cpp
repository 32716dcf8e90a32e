// Graph and graph-tensor entry points: build the GraphSpec as the client adds
// tensors and nodes (validating each against the op definitions), ship it to
// the HTP runtime at finalize, and execute.
#include <chrono>
#include <cmath>
#include <cstring>

#include "HTP/QnnHtpGraph.h"
#include "QnnGraph.h"
#include "QnnTensor.h"
#include "openhtp/qnn_ext.h"
#include "htp/device_spec.h"
#include "qnn/context_ops.h"
#include "qnn/execute_memo.h"
#include "qnn/api_guard.h"
#include "qnn/client_enum.h"
#include "qnn/live_handle.h"
#include "qnn/logger.h"
#include "qnn/objects.h"
#include "qnn/signal.h"
#include "qnn/op_config.h"
#include "qnn/profile_events.h"
#include "qnn/spill_fill_claim.h"
#include "qnn/tensor_view.h"

using namespace openhtp;
using namespace openhtp::qnn;

namespace openhtp::qnn {

Qnn_ErrorHandle_t tensor_spec_from_client(const Qnn_Tensor_t* tensor, htp::TensorSpec* spec) {
  if (tensor == nullptr) return null_argument("create tensor", "tensor", QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  TensorView v(tensor);
  if (!v.version_known()) {
    QNN_LOG_ERROR("create tensor: tensor struct version %u is unknown (1 or 2)", static_cast<unsigned>(tensor->version));
    return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
  if (v.name() == nullptr || v.name()[0] == '\0') {
    QNN_LOG_ERROR("create tensor: every tensor needs a non-empty name");
    return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
  const std::string nm = v.display_name();
  switch (v.type()) {
    case QNN_TENSOR_TYPE_APP_WRITE:
    case QNN_TENSOR_TYPE_APP_READ:
    case QNN_TENSOR_TYPE_APP_READWRITE:
    case QNN_TENSOR_TYPE_NATIVE:
    case QNN_TENSOR_TYPE_STATIC:
    case QNN_TENSOR_TYPE_NULL:
      break;
    case QNN_TENSOR_TYPE_UPDATEABLE_STATIC:
    case QNN_TENSOR_TYPE_UPDATEABLE_NATIVE:
    case QNN_TENSOR_TYPE_UPDATEABLE_APP_WRITE:
    case QNN_TENSOR_TYPE_UPDATEABLE_APP_READ:
    case QNN_TENSOR_TYPE_UPDATEABLE_APP_READWRITE:
    case QNN_TENSOR_TYPE_OPTIONAL_APP_WRITE:
    case QNN_TENSOR_TYPE_OPTIONAL_APP_READ:
    case QNN_TENSOR_TYPE_OPTIONAL_APP_READWRITE:
      // QNN's, not this backend's: UNSUPPORTED, where a value QNN never
      // defined is INVALID (below), as the dataFormat rule does.
      QNN_LOG_ERROR("create tensor %s: tensor type %d is not supported (APP_WRITE, APP_READ, APP_READWRITE, NATIVE, "
                    "STATIC and NULL are)",
                    nm.c_str(), static_cast<int>(v.type()));
      return QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM;
    default:
      QNN_LOG_ERROR("create tensor %s: tensor type %d is not a QNN tensor type", nm.c_str(), static_cast<int>(v.type()));
      return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
  switch (v.mem_type()) {
    case QNN_TENSORMEMTYPE_RAW:
    case QNN_TENSORMEMTYPE_MEMHANDLE:
    case QNN_TENSORMEMTYPE_RETRIEVE_RAW:
    case QNN_TENSORMEMTYPE_UNDEFINED:  // QNN_TENSOR_INIT's: the memory is named at execute
      break;
    default:
      QNN_LOG_ERROR("create tensor %s: memType %d is not a QNN tensor memory type", nm.c_str(),
                    static_cast<int>(v.mem_type()));
      return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
  if (v.type() != QNN_TENSOR_TYPE_NULL && v.num_bytes() == 0) {
    QNN_LOG_ERROR("create tensor %s: data type 0x%04x with dims %s has no valid size (%s)", nm.c_str(),
                  static_cast<unsigned>(v.data_type()), v.dims_text().c_str(), v.size_problem());
    return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
  {
    // dataFormat: DENSE, or SPARSE for NATIVE tensors (read_sparsity says
    // which refusal is INVALID and which UNSUPPORTED).
    std::string why;
    if (Qnn_ErrorHandle_t e = read_sparsity(v, &spec->sparse, &why); e != QNN_SUCCESS) {
      QNN_LOG_ERROR("create tensor %s: %s", nm.c_str(), why.c_str());
      return e;
    }
  }
  {
    const std::vector<uint32_t> dims(v.dims(), v.dims() + v.rank());
    std::string why;
    if (!convert_quant(v.quant(), dims, &spec->quant, &why)) {
      QNN_LOG_ERROR("create tensor %s: %s", nm.c_str(), why.c_str());
      return quant_refusal(v.quant());
    }
  }
  spec->name = v.name();
  spec->type = static_cast<uint32_t>(v.type());
  spec->dtype = static_cast<uint32_t>(v.data_type());
  spec->dims.assign(v.dims(), v.dims() + v.rank());
  if (v.type() == QNN_TENSOR_TYPE_STATIC) {
    if (v.mem_type() != QNN_TENSORMEMTYPE_RAW) {
      QNN_LOG_ERROR("create tensor %s: a STATIC tensor needs memType QNN_TENSORMEMTYPE_RAW (%d), not %d", nm.c_str(),
                    static_cast<int>(QNN_TENSORMEMTYPE_RAW), static_cast<int>(v.mem_type()));
      return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
    }
    if (v.client_buf().data == nullptr || v.client_buf().dataSize != v.num_bytes()) {
      QNN_LOG_ERROR("create tensor %s: a STATIC tensor needs RAW data of exactly %zu bytes (clientBuf has %u bytes%s)",
                    nm.c_str(), v.num_bytes(), v.client_buf().dataSize,
                    v.client_buf().data == nullptr ? " at NULL" : "");
      return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
    }
    const auto* d = static_cast<const uint8_t*>(v.client_buf().data);
    spec->static_data = htp::StaticBytes::copy_of({d, v.num_bytes()});
  } else if (v.mem_type() == QNN_TENSORMEMTYPE_RAW && v.client_buf().data != nullptr) {
    // Data for non-static tensors is given at execute; QNN refuses it here.
    QNN_LOG_ERROR("create tensor %s: clientBuf must be empty for a non-STATIC tensor (data is given at execute)",
                  nm.c_str());
    return QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM;
  }
  return QNN_SUCCESS;
}

void index_graph_io(Graph& g) {
  g.inputs.clear();
  g.outputs.clear();
  for (size_t i = 0; i < g.spec.tensors.size(); ++i) {
    const htp::TensorSpec& t = g.spec.tensors[i];
    if (t.is_graph_input()) g.inputs.push_back({t.id, i, t.num_bytes()});
    if (t.is_graph_output()) g.outputs.push_back({t.id, i, t.num_bytes()});
  }
}

// Records what the runtime's plan of `g` needs.
void record_plan(Graph& g, const htp::GraphInfo& info) {
  g.remote_id = info.graph_id;
  g.arena_bytes = info.arena_bytes;
  g.vtcm_bytes = info.vtcm_bytes;
  g.spill_fill_bytes = info.spill_fill_bytes;
}

void add_prepared_graph(const std::shared_ptr<Context>& ctx, htp::GraphSpec spec, const htp::GraphInfo& info) {
  auto g = std::make_shared<Graph>();
  g->context = ctx;
  g->context_handle = ctx->handle;
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    g->tensor_index[spec.tensors[i].id] = i;
    g->tensor_names.insert(spec.tensors[i].name);
  }
  for (const auto& n : spec.nodes) g->produced.insert(n.outputs.begin(), n.outputs.end());
  g->spec = std::move(spec);
  index_graph_io(*g);
  record_plan(*g, info);
  g->finalized = true;
  std::lock_guard lock(ctx->mu);
  if (!context_live(*ctx)) return;  // freed meanwhile: the graph dies with it, never seen
  ObjectTable::instance().add(ObjectKind::kGraph, g);
  ctx->graphs.push_back(g->handle);
}

}  // namespace openhtp::qnn

namespace {

std::shared_ptr<Graph> graph_of(Qnn_GraphHandle_t h) { return find_object<Graph>(ObjectKind::kGraph, h); }

// Checks every tensor of an execute and writes its binding into
// memo.inputs / memo.outputs: a memhandle names registered memory the runtime
// already maps (zero copy); a client buffer is handed over as it is (the
// FastRPC door copies it, or passes it by reference when it is rpcmem).
// *memhandle_bytes_out: the memhandle tensors' bytes. Logs and returns the
// error of the first tensor that breaks a rule.
Qnn_ErrorHandle_t bind_tensors(const Graph& g, const Context& ctx, ExecuteMemo& memo, const Qnn_Tensor_t* inputs,
                               uint32_t num_inputs, const Qnn_Tensor_t* outputs, uint32_t num_outputs,
                               uint64_t* memhandle_bytes_out) {
  // The counts first: a count the arrays do not hold would read past the
  // client's array (and size the bindings by it) before any tensor's own
  // rule could be checked.
  if (num_inputs != g.inputs.size() || num_outputs != g.outputs.size()) {
    const bool in = num_inputs != g.inputs.size();
    QNN_LOG_ERROR("graphExecute '%s': graph has %zu %s, execute passed %u", g.spec.name.c_str(),
                  in ? g.inputs.size() : g.outputs.size(), in ? "inputs" : "outputs", in ? num_inputs : num_outputs);
    return QNN_GRAPH_ERROR_INVALID_TENSOR;
  }
  auto& in_binds = memo.inputs;
  auto& out_binds = memo.outputs;
  uint64_t memhandle_bytes = 0;
  // One entry per tensor, written by index (bind() below): the same sizes as
  // the last execute's cost nothing to set up.
  in_binds.resize(num_inputs);
  out_binds.resize(num_outputs);
  bool inputs_in_order = true, outputs_in_order = true;
  auto bind = [&](const Qnn_Tensor_t& t, bool is_input, uint32_t index) -> Qnn_ErrorHandle_t {
    TensorView v(&t);
    const char* dir = is_input ? "input" : "output";
    if (!v.version_known()) {
      QNN_LOG_ERROR("graphExecute '%s': %s %u has unknown tensor version %u", g.spec.name.c_str(), dir, index,
                    static_cast<unsigned>(t.version));
      return QNN_GRAPH_ERROR_INVALID_TENSOR;
    }
    auto& binds = is_input ? in_binds : out_binds;
    const std::vector<Graph::Io>& io = is_input ? g.inputs : g.outputs;
    const htp::TensorSpec* spec;
    uint64_t bytes;
    bool& in_order = is_input ? inputs_in_order : outputs_in_order;
    if (in_order && index < io.size() && io[index].id == v.id()) {
      // In the graph's own order so far: no lookup, and no repeat possible.
      spec = &g.spec.tensors[io[index].index];
      bytes = io[index].bytes;
    } else {
      in_order = false;
      auto it = g.tensor_index.find(v.id());
      spec = it == g.tensor_index.end() ? nullptr : &g.spec.tensors[it->second];
      if (spec == nullptr || (is_input ? !spec->is_graph_input() : !spec->is_graph_output())) {
        QNN_LOG_ERROR("graphExecute '%s': %s %u (%s) is not a graph %s", g.spec.name.c_str(), dir, index,
                      v.display_name().c_str(), dir);
        return QNN_GRAPH_ERROR_INVALID_TENSOR;
      }
      for (uint32_t k = 0; k < index; ++k) {
        if (binds[k].tensor_id == spec->id) {
          QNN_LOG_ERROR("graphExecute '%s': tensor '%s' is passed twice", g.spec.name.c_str(), spec->name.c_str());
          return QNN_GRAPH_ERROR_INVALID_TENSOR;
        }
      }
      bytes = spec->num_bytes();
    }
    htp::ExecBinding b;
    b.tensor_id = spec->id;
    if (v.mem_type() == QNN_TENSORMEMTYPE_MEMHANDLE) {
      ExecuteMemo::Mem mh;
      const ExecuteMemo::Mem* m = memo.mem(v.mem_handle(), &mh) ? &mh : nullptr;
      if (m == nullptr) {
        QNN_LOG_ERROR("graphExecute '%s': %s '%s' uses memHandle %p, which is not registered (never, or deregistered)",
                      g.spec.name.c_str(), dir, spec->name.c_str(), v.mem_handle());
        return QNN_GRAPH_ERROR_INVALID_TENSOR;
      }
      if (m->context_handle != ctx.handle) {
        QNN_LOG_ERROR("graphExecute '%s': %s '%s' uses memHandle %p registered on another context",
                      g.spec.name.c_str(), dir, spec->name.c_str(), v.mem_handle());
        return QNN_GRAPH_ERROR_INVALID_TENSOR;
      }
      if (m->bytes < bytes) {
        QNN_LOG_ERROR("graphExecute '%s': %s '%s' needs %llu bytes but memHandle %p covers only %llu",
                      g.spec.name.c_str(), dir, spec->name.c_str(), static_cast<unsigned long long>(bytes),
                      v.mem_handle(), static_cast<unsigned long long>(m->bytes));
        return QNN_GRAPH_ERROR_INVALID_TENSOR;
      }
      b.mem_id = m->remote_id;
      memhandle_bytes += bytes;
    } else if (v.mem_type() == QNN_TENSORMEMTYPE_RAW) {
      if (v.client_buf().data == nullptr || v.client_buf().dataSize < bytes) {
        QNN_LOG_ERROR("graphExecute '%s': %s '%s' needs a client buffer of %llu bytes, got %u bytes at %p",
                      g.spec.name.c_str(), dir, spec->name.c_str(), static_cast<unsigned long long>(bytes),
                      v.client_buf().dataSize, v.client_buf().data);
        return QNN_GRAPH_ERROR_INVALID_TENSOR;
      }
      b.data = v.client_buf().data;
      b.bytes = bytes;
    } else {
      QNN_LOG_ERROR("graphExecute '%s': %s '%s' has memType %d (RAW or MEMHANDLE)", g.spec.name.c_str(), dir,
                    spec->name.c_str(), static_cast<int>(v.mem_type()));
      return QNN_GRAPH_ERROR_INVALID_TENSOR;
    }
    binds[index] = b;
    return QNN_SUCCESS;
  };
  for (uint32_t i = 0; i < num_inputs; ++i) {
    if (Qnn_ErrorHandle_t e = bind(inputs[i], true, i); e != QNN_SUCCESS) return e;
  }
  for (uint32_t i = 0; i < num_outputs; ++i) {
    if (Qnn_ErrorHandle_t e = bind(outputs[i], false, i); e != QNN_SUCCESS) return e;
  }
  *memhandle_bytes_out = memhandle_bytes;
  return QNN_SUCCESS;
}

uint64_t now_us() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// Finds the graph tensor a client tensor refers to (by id), pulling in a
// context tensor on first use. Caller holds g.mu.
const htp::TensorSpec* resolve_tensor(Graph& g, Context& ctx, const Qnn_Tensor_t& t) {
  TensorView v(&t);
  if (!v.version_known()) return nullptr;
  auto it = g.tensor_index.find(v.id());
  if (it != g.tensor_index.end()) return &g.spec.tensors[it->second];
  std::lock_guard lock(ctx.mu);
  for (const auto& ct : ctx.context_tensors) {
    if (ct.id == v.id()) {
      g.tensor_index[ct.id] = g.spec.tensors.size();
      g.spec.tensors.push_back(ct);
      return &g.spec.tensors.back();
    }
  }
  return nullptr;
}

// What a graph's configs set; fields keep their value when a config does not
// mention them.
struct GraphSettings {
  uint64_t vtcm_budget_bytes = 0;  // VTCM_SIZE_IN_MB / _IN_BYTES; 0 = the device maximum
  uint32_t num_hvx_threads = 0;    // NUM_HVX_THREADS; 0 = the machine's cores
  uint32_t priority = htp::kInheritPriority;  // PRIORITY; inherit: the context's
};

// One HTP graph custom config's own rule, for the options that have no
// effect here as much as for those that do: a client whose value a device
// would refuse (an unknown option, a NaN, more cores than the chip has) hears
// so here rather than on the phone. VTCM above the device's is not refused
// — the plan takes min(request, device), as a graph compiled for a larger
// chip runs — but said once, since the graph gets less than it asked for.
Qnn_ErrorHandle_t check_htp_graph_config(const QnnHtpGraph_CustomConfig_t& htp) {
  const htp::DeviceSpec& dev = htp::kDevice;
  switch (htp.option) {
    case QNN_HTP_GRAPH_CONFIG_OPTION_OPTIMIZATION: {
      const auto type = htp.optimizationOption.type;
      if (type < QNN_HTP_GRAPH_OPTIMIZATION_TYPE_SCHEDULE_THRESHOLD ||
          type > QNN_HTP_GRAPH_OPTIMIZATION_TYPE_ENABLE_CACHED_WEIGHTS) {
        QNN_LOG_ERROR("graph config OPTIMIZATION has type %d, expected 1 to %d", static_cast<int>(type),
                      static_cast<int>(QNN_HTP_GRAPH_OPTIMIZATION_TYPE_ENABLE_CACHED_WEIGHTS));
        return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
      }
      if (!std::isfinite(htp.optimizationOption.floatValue)) {
        QNN_LOG_ERROR("graph config OPTIMIZATION type %d has value %g, expected a finite number", static_cast<int>(type),
                      static_cast<double>(htp.optimizationOption.floatValue));
        return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
      }
      return QNN_SUCCESS;
    }
    case QNN_HTP_GRAPH_CONFIG_OPTION_PRECISION:
      if (htp.precision != QNN_PRECISION_FLOAT32 && htp.precision != QNN_PRECISION_FLOAT16) {
        QNN_LOG_ERROR("graph config PRECISION is %d, expected FLOAT32 (0) or FLOAT16 (1)", static_cast<int>(htp.precision));
        return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
      }
      return QNN_SUCCESS;
    case QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_MB:
    case QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES: {
      const bool mb = htp.option == QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_MB;
      const uint64_t bytes = mb ? uint64_t{htp.vtcmSizeInMB} << 20 : uint64_t{htp.vtcmSizeInBytes};
      if (bytes > dev.vtcm_bytes) {
        QNN_LOG_WARN("graph config VTCM_SIZE_IN_%s asks for %llu bytes; this device has %llu, which the graph gets",
                     mb ? "MB" : "BYTES", static_cast<unsigned long long>(bytes),
                     static_cast<unsigned long long>(dev.vtcm_bytes));
      }
      return QNN_SUCCESS;
    }
    case QNN_HTP_GRAPH_CONFIG_OPTION_NUM_CORES:
      if (htp.numCores == 0 || htp.numCores > dev.num_cores) {
        QNN_LOG_ERROR("graph config NUM_CORES is %u, this device has %u HTP core(s)", htp.numCores,
                      static_cast<unsigned>(dev.num_cores));
        return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
      }
      return QNN_SUCCESS;
    case QNN_HTP_GRAPH_CONFIG_OPTION_FINALIZE_CONFIG:
      if (htp.finalizeConfig.key == nullptr) {
        QNN_LOG_ERROR("graph config FINALIZE_CONFIG has a NULL key");
        return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
      }
      return QNN_SUCCESS;
    case QNN_HTP_GRAPH_CONFIG_OPTION_PARALLEL_GRAPH_EXECUTION_CONFIG: {
      const auto concurrency = htp.parallelGraphExecutionConfig.concurrency;
      if (concurrency != QNN_HTP_GRAPH_CONCURRENCY_OPTION_NONE &&
          concurrency != QNN_HTP_GRAPH_CONCURRENCY_OPTION_ALL_SHARED) {
        QNN_LOG_ERROR("graph config PARALLEL_GRAPH_EXECUTION has concurrency %d, expected NONE (0) or ALL_SHARED (1)",
                      static_cast<int>(concurrency));
        return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
      }
      return QNN_SUCCESS;
    }
    case QNN_HTP_GRAPH_CONFIG_OPTION_HMX_BOUNDING:
      if (!std::isfinite(htp.hmxBoundingInfo.targetHmxFreqHz) || !std::isfinite(htp.hmxBoundingInfo.targetDspCoreFreq)) {
        QNN_LOG_ERROR("graph config HMX_BOUNDING has a target that is not a finite number (%g Hz HMX, %g DSP core)",
                      static_cast<double>(htp.hmxBoundingInfo.targetHmxFreqHz),
                      static_cast<double>(htp.hmxBoundingInfo.targetDspCoreFreq));
        return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
      }
      return QNN_SUCCESS;
    case QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS:  // ranged by apply_graph_configs
    case QNN_HTP_GRAPH_CONFIG_OPTION_FOLD_RELU_ACTIVATION_INTO_CONV_OFF:
    case QNN_HTP_GRAPH_CONFIG_OPTION_SHORT_DEPTH_CONV_ON_HMX_OFF:
    case QNN_HTP_GRAPH_CONFIG_OPTION_WEIGHTS_PACKING:
    case QNN_HTP_GRAPH_CONFIG_OPTION_ASSUME_SAME_QUANT:
    case QNN_HTP_GRAPH_CONFIG_OPTION_SHARE_IO_BUFFER:
    case QNN_HTP_GRAPH_CONFIG_OPTION_ADVANCED_ACTIVATION_FUSION:
    case QNN_HTP_GRAPH_CONFIG_OPTION_HIGH_PRECISION_SIGMOID:
    case QNN_HTP_GRAPH_CONFIG_OPTION_MONOLITHIC_LSTM:
    case QNN_HTP_GRAPH_CONFIG_OPTION_PRECISION_COMPENSATION:
    case QNN_HTP_GRAPH_CONFIG_OPTION_ENABLE_PREDICATION:
    case QNN_HTP_GRAPH_CONFIG_OPTION_FP16_CLAMP_OVERFLOW:
      return QNN_SUCCESS;  // a flag: any value is one
    default:
      QNN_LOG_ERROR("graph config CUSTOM has HTP option %d, which QnnHtpGraph.h does not define",
                    static_cast<int>(htp.option));
      return QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE;
  }
}

// Reads the graph configs this backend understands into *settings.
Qnn_ErrorHandle_t apply_graph_configs(const QnnGraph_Config_t** config, GraphSettings* settings) {
  uint64_t* vtcm_budget_bytes = &settings->vtcm_budget_bytes;
  for (const QnnGraph_Config_t* const* c = config; c != nullptr && *c != nullptr; ++c) {
    switch ((*c)->option) {
      case QNN_GRAPH_CONFIG_OPTION_CUSTOM: {
        const auto* htp = static_cast<const QnnHtpGraph_CustomConfig_t*>((*c)->customConfig);
        if (htp == nullptr) {
          QNN_LOG_ERROR("graph config CUSTOM needs customConfig -> QnnHtpGraph_CustomConfig_t");
          return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
        }
        if (Qnn_ErrorHandle_t e = check_htp_graph_config(*htp); e != QNN_SUCCESS) return e;
        if (htp->option == QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_MB) {
          *vtcm_budget_bytes = static_cast<uint64_t>(htp->vtcmSizeInMB) << 20;
        } else if (htp->option == QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES) {
          *vtcm_budget_bytes = htp->vtcmSizeInBytes;
        } else if (htp->option == QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS) {
          // Kernels run on a pool of this many threads (the HTP's HVX
          // contexts); more than the host has cores only adds contention.
          const uint64_t kMaxThreads = htp::kDevice.max_hvx_threads;
          if (htp->numHvxThreads == 0 || htp->numHvxThreads > kMaxThreads) {
            QNN_LOG_ERROR("graph config NUM_HVX_THREADS is %llu, expected 1 to %llu",
                          static_cast<unsigned long long>(htp->numHvxThreads),
                          static_cast<unsigned long long>(kMaxThreads));
            return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
          }
          settings->num_hvx_threads = static_cast<uint32_t>(htp->numHvxThreads);
        }
        break;  // the other HTP options, once valid, have no effect here (docs/user-guide.md)
      }
      case QNN_GRAPH_CONFIG_OPTION_PRIORITY:
        if (enum_bits((*c)->priority) > QNN_PRIORITY_HIGHEST) {
          QNN_LOG_ERROR("graph config PRIORITY is %u, expected a QNN priority level 0 to %u",
                        static_cast<unsigned>(enum_bits((*c)->priority)), static_cast<unsigned>(QNN_PRIORITY_HIGHEST));
          return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
        }
        settings->priority = enum_bits((*c)->priority);
        break;
      // Profiling is per execute here (graphExecute's profile handle); these
      // are checked and have no further effect.
      case QNN_GRAPH_CONFIG_OPTION_PROFILE_HANDLE:
        if ((*c)->profileHandle != nullptr && !live_handle("graph config PROFILE_HANDLE", ObjectKind::kProfile,
                                                           (*c)->profileHandle)) {
          return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
        }
        break;
      case QNN_GRAPH_CONFIG_OPTION_SET_PROFILING_STATE:
        if ((*c)->profilingState != QNN_GRAPH_PROFILING_STATE_ENABLED &&
            (*c)->profilingState != QNN_GRAPH_PROFILING_STATE_DISABLED) {
          QNN_LOG_ERROR("graph config SET_PROFILING_STATE is %d, expected ENABLED (1) or DISABLED (2)",
                        static_cast<int>((*c)->profilingState));
          return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
        }
        break;
      case QNN_GRAPH_CONFIG_OPTION_SET_PROFILING_NUM_EXECUTIONS:
        break;
      default:
        QNN_LOG_ERROR("graph config option %d is not supported", static_cast<int>((*c)->option));
        return QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE;
    }
  }
  return QNN_SUCCESS;
}

// DETAILED profiling: one NODE event per step, from the DSP's per-step
// totals before and after the execute; under each, one "HVX thread k" event
// per thread that spent CPU time on it (k counts only the threads that ran
// any step of this execute, in the runtime's order: the executing thread
// first). thread_clocks.h says what the time counts.
void append_node_events(const std::vector<htp::StepTime>& before, const std::vector<htp::StepTime>& after,
                        std::vector<ProfileEvent>* out) {
  auto thread_delta = [&](size_t step, size_t t) -> uint64_t {
    const auto& a = after[step].thread_ns;
    const auto& b = before[step].thread_ns;
    const uint64_t now = t < a.size() ? a[t] : 0, then = t < b.size() ? b[t] : 0;
    return now > then ? now - then : 0;
  };
  size_t threads = 0;
  for (const auto& s : after) threads = std::max(threads, s.thread_ns.size());
  std::vector<size_t> busy;  // thread indices with any time in this execute
  for (size_t t = 0; t < threads; ++t) {
    uint64_t total = 0;
    for (size_t i = 0; i < after.size(); ++i) total += thread_delta(i, t);
    if (total >= 1000) busy.push_back(t);  // at least 1 us: idle threads make no track
  }
  for (size_t i = 0; i < after.size(); ++i) {
    const uint64_t ns = after[i].total_ns - before[i].total_ns;
    ProfileEvent node{QNN_PROFILE_EVENTTYPE_NODE, QNN_PROFILE_EVENTUNIT_MICROSEC, (ns + 500) / 1000, after[i].name, {}, {}};
    for (size_t k = 0; k < busy.size(); ++k) {
      const uint64_t t_ns = thread_delta(i, busy[k]);
      if (t_ns == 0) continue;
      node.pending.push_back({QNN_PROFILE_EVENTTYPE_NODE, QNN_PROFILE_EVENTUNIT_MICROSEC, (t_ns + 500) / 1000,
                              "HVX thread " + std::to_string(k), {}, {}});
    }
    out->push_back(std::move(node));
  }
}

// What a profiled execute records (QnnProfile): the DSP's per-step totals
// before the call when the profile wants NODE events (DETAILED), and after it
// the execute's events. Apart from QnnGraph_execute, made only for a profiled
// execute: an unprofiled one carries none of it.
class ExecuteProfile {
 public:
  static std::unique_ptr<ExecuteProfile> begin(Qnn_ProfileHandle_t handle, const Graph& g, Context& ctx,
                                               uint64_t t0_us) {
    auto p = std::unique_ptr<ExecuteProfile>(new ExecuteProfile(handle, t0_us));
    // DETAILED profiling: the totals before and after, diffed into one NODE
    // event per step (a fused step under both nodes' names).
    p->node_events_ = profile_wants_node_events(handle);
    if (p->node_events_) {
      for (const auto& n : g.spec.nodes) p->node_names_.push_back(n.name);
      if (ctx.stub->graph_node_times(g.remote_id, p->node_names_, &p->steps_before_) != QNN_SUCCESS) {
        p->steps_before_.clear();
      }
    }
    return p;
  }

  void record(const Graph& g, Context& ctx, const htp::ExecResult& dsp, const TransportCopies& copies,
              uint64_t by_reference) {
    const uint64_t exec_ns = dsp.exec_ns;
    ProfileEvent ev{QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_MICROSEC, now_us() - t0_us_,
                    "graph execute: " + g.spec.name, {}, {}};
    // In time order: the copies in, the accelerator, the copies out.
    std::vector<ProfileEvent> sub = {
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_MICROSEC, copies.copy_in_ns / 1000, "copy in time", {}, {}},
        {QNN_PROFILE_EVENTTYPE_EXECUTE_DEVICE, QNN_PROFILE_EVENTUNIT_MICROSEC, exec_ns / 1000, "accelerator execute", {}, {}},
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_MICROSEC, copies.copy_out_ns / 1000, "copy out time", {}, {}},
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_BYTES, copies.bytes_copied_in, "bytes copied in", {}, {}},
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_BYTES, copies.bytes_copied_out, "bytes copied out", {}, {}},
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_BYTES, by_reference, "bytes by reference", {}, {}},
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_COUNT, dsp.threads, "Number of HVX threads used", {}, {}},
        // Preemption (QNN's profile viewer: "Num times yield occurred"): the
        // VTCM saved and restored around each yield.
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_COUNT, dsp.yields, "Num times yield occurred", {}, {}},
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_BYTES, dsp.vtcm_saved_bytes, "VTCM saved on yield", {}, {}},
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_MICROSEC, dsp.vtcm_save_ns / 1000, "VTCM save time", {}, {}},
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_MICROSEC, dsp.vtcm_restore_ns / 1000,
         "VTCM restore time", {}, {}},
        // Waits on the DSP: queued behind another graph before starting, and
        // paused while higher-priority executes ran.
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_MICROSEC, dsp.queue_wait_ns / 1000, "queue wait time", {}, {}},
        {QNN_PROFILE_EVENTTYPE_EXECUTE, QNN_PROFILE_EVENTUNIT_MICROSEC, dsp.preempted_ns / 1000, "preempted time", {}, {}},
    };
    std::vector<htp::StepTime> steps_after;
    if (node_events_ && ctx.stub->graph_node_times(g.remote_id, node_names_, &steps_after) == QNN_SUCCESS &&
        steps_after.size() == steps_before_.size()) {
      append_node_events(steps_before_, steps_after, &sub);
    }
    profile_record(handle_, std::move(ev), std::move(sub));
  }

 private:
  ExecuteProfile(Qnn_ProfileHandle_t handle, uint64_t t0_us) : handle_(handle), t0_us_(t0_us) {}
  Qnn_ProfileHandle_t handle_;
  uint64_t t0_us_;
  bool node_events_ = false;
  std::vector<std::string> node_names_;
  std::vector<htp::StepTime> steps_before_;
};

}  // namespace

extern "C" {

QNN_API Qnn_ErrorHandle_t QnnGraph_create(Qnn_ContextHandle_t contextHandle, const char* graphName,
                                          const QnnGraph_Config_t** config, Qnn_GraphHandle_t* graphHandle) try {
  auto ctx = find_object<Context>(ObjectKind::kContext, contextHandle);
  if (!ctx) {
    QNN_LOG_ERROR("graphCreate: %p is not a live context handle", contextHandle);
    return QNN_GRAPH_ERROR_INVALID_CONTEXT;
  }
  if (graphName == nullptr || graphName[0] == '\0' || graphHandle == nullptr) {
    QNN_LOG_ERROR("graphCreate: a graph needs a non-empty name and an output handle pointer");
    return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
  }
  GraphSettings settings;
  if (Qnn_ErrorHandle_t e = apply_graph_configs(config, &settings); e != QNN_SUCCESS) return e;
  uint64_t vtcm_budget = settings.vtcm_budget_bytes;
  std::lock_guard lock(ctx->mu);
  if (!context_live(*ctx)) {  // freed since the lookup: its release would not see this graph
    QNN_LOG_ERROR("graphCreate: context %p was freed during the call", contextHandle);
    return QNN_GRAPH_ERROR_INVALID_CONTEXT;
  }
  for (uint64_t gh : ctx->graphs) {
    auto other = graph_of(as_handle(gh));
    if (other && other->spec.name == graphName) {
      QNN_LOG_ERROR("graphCreate: context already has a graph named '%s'", graphName);
      return QNN_GRAPH_ERROR_INVALID_NAME;
    }
  }
  auto g = std::make_shared<Graph>();
  g->context = ctx;
  g->context_handle = ctx->handle;
  g->spec.name = graphName;
  // An explicit graph config wins over the backend-extension file's vtcm_mb.
  if (vtcm_budget == 0 && ctx->backend->extensions) {
    if (auto v = ctx->backend->extensions->vtcm_for(graphName)) vtcm_budget = *v;
  }
  g->spec.vtcm_budget_bytes = vtcm_budget;
  g->spec.num_hvx_threads = settings.num_hvx_threads;
  g->priority = settings.priority;
  *graphHandle = ObjectTable::instance().add(ObjectKind::kGraph, g);
  ctx->graphs.push_back(g->handle);
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("graphCreate");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_setConfig(Qnn_GraphHandle_t graphHandle, const QnnGraph_Config_t** config) try {
  auto g = live_object<Graph>("graphSetConfig", ObjectKind::kGraph, graphHandle);
  if (!g) return QNN_GRAPH_ERROR_INVALID_HANDLE;
  std::lock_guard lock(g->mu);
  GraphSettings settings{g->spec.vtcm_budget_bytes, g->spec.num_hvx_threads, g->priority};
  if (Qnn_ErrorHandle_t e = apply_graph_configs(config, &settings); e != QNN_SUCCESS) return e;
  if (g->finalized && settings.vtcm_budget_bytes != g->spec.vtcm_budget_bytes) {
    QNN_LOG_ERROR("graphSetConfig: graph '%s' is finalized; its VTCM size (%llu bytes) can no longer change",
                  g->spec.name.c_str(), static_cast<unsigned long long>(g->spec.vtcm_budget_bytes));
    return QNN_GRAPH_ERROR_GRAPH_FINALIZED;
  }
  // The HVX thread count may change on a finalized graph (one retrieved from
  // a context binary included) until its first execute: the DSP prepares
  // the graph's kernels again on a pool of the new size.
  if (g->finalized && settings.num_hvx_threads != g->spec.num_hvx_threads) {
    if (g->executed) {
      QNN_LOG_ERROR("graphSetConfig: graph '%s' has executed; NUM_HVX_THREADS (%u) cannot change after the first "
                    "execute",
                    g->spec.name.c_str(), g->spec.num_hvx_threads);
      return QNN_GRAPH_ERROR_GRAPH_FINALIZED;
    }
    Context* const ctx = g->context.get();
    if (Qnn_ErrorHandle_t e = ctx->stub->graph_set_threads(g->remote_id, settings.num_hvx_threads);
        e != QNN_SUCCESS) {
      return e;
    }
  }
  // A priority applies from the next execute on (it only orders the HTP's
  // queue); before finalize it waits for the graph to exist in the runtime.
  if (g->finalized && settings.priority != g->priority) {
    Context* const ctx = g->context.get();
    if (Qnn_ErrorHandle_t e = ctx->stub->graph_set_priority(g->remote_id, settings.priority); e != QNN_SUCCESS) {
      return e;
    }
  }
  g->spec.vtcm_budget_bytes = settings.vtcm_budget_bytes;
  g->spec.num_hvx_threads = settings.num_hvx_threads;
  g->priority = settings.priority;
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("graphSetConfig");
}

QNN_API Qnn_ErrorHandle_t QnnTensor_createGraphTensor(Qnn_GraphHandle_t graph, Qnn_Tensor_t* tensor) try {
  auto g = graph_of(graph);
  if (!g) {
    QNN_LOG_ERROR("createGraphTensor: %p is not a live graph handle", graph);
    return QNN_TENSOR_ERROR_INVALID_HANDLE;
  }
  Context* const ctx = g->context.get();
  htp::TensorSpec spec;
  if (Qnn_ErrorHandle_t e = tensor_spec_from_client(tensor, &spec); e != QNN_SUCCESS) return e;
  std::lock_guard lock(g->mu);
  if (g->finalized) {
    QNN_LOG_ERROR("createGraphTensor: graph '%s' is already finalized", g->spec.name.c_str());
    return QNN_TENSOR_ERROR_INVALID_HANDLE;
  }
  if (!g->tensor_names.insert(spec.name).second) {
    QNN_LOG_ERROR("createGraphTensor: graph '%s' already has a tensor named '%s'", g->spec.name.c_str(),
                  spec.name.c_str());
    return QNN_TENSOR_ERROR_ALREADY_EXISTS;
  }
  {
    std::lock_guard clock(ctx->mu);
    spec.id = ctx->next_tensor_id++;
  }
  set_tensor_id(tensor, spec.id);
  g->tensor_index[spec.id] = g->spec.tensors.size();
  g->spec.tensors.push_back(std::move(spec));
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("tensorCreateGraphTensor");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_addNode(Qnn_GraphHandle_t graphHandle, Qnn_OpConfig_t opConfig) try {
  auto g = graph_of(graphHandle);
  if (!g) {
    QNN_LOG_ERROR("graphAddNode: %p is not a live graph handle", graphHandle);
    return QNN_GRAPH_ERROR_INVALID_HANDLE;
  }
  Context* const ctx = g->context.get();
  std::string why;
  if (!check_op_identity(opConfig, &why)) {
    QNN_LOG_ERROR("graphAddNode: %s", why.c_str());
    return QNN_GRAPH_ERROR_INVALID_OP_CONFIG;
  }
  const Qnn_OpConfigV1_t& op = opConfig.v1;
  const std::string node_name = op.name != nullptr ? op.name : "";
  std::lock_guard lock(g->mu);
  if (g->finalized) {
    QNN_LOG_ERROR("graphAddNode '%s': graph '%s' is already finalized", node_name.c_str(), g->spec.name.c_str());
    return QNN_GRAPH_ERROR_GRAPH_FINALIZED;
  }
  htp::NodeSpec node;
  node.name = node_name;
  node.package = op.packageName;
  node.type = op.typeName;
  if (!convert_params(op, &node.params, &why)) {
    QNN_LOG_ERROR("graphAddNode: %s", why.c_str());
    return QNN_GRAPH_ERROR_INVALID_OP_CONFIG;
  }
  std::vector<ops::TensorDesc> ins, outs;
  for (uint32_t i = 0; i < op.numOfInputs; ++i) {
    TensorView v(&op.inputTensors[i]);
    if (v.version_known() && v.type() == QNN_TENSOR_TYPE_NULL) {
      node.inputs.push_back(htp::kNoTensor);
      ops::TensorDesc absent;
      absent.present = false;
      ins.push_back(absent);
      continue;
    }
    const htp::TensorSpec* t = resolve_tensor(*g, *ctx, op.inputTensors[i]);
    if (t == nullptr) {
      QNN_LOG_ERROR("graphAddNode '%s': input %u (%s) was not created in graph '%s'", node_name.c_str(), i,
                    v.version_known() ? v.display_name().c_str() : "?", g->spec.name.c_str());
      return QNN_GRAPH_ERROR_INVALID_TENSOR;
    }
    node.inputs.push_back(t->id);
    ops::TensorDesc d;
    d.dtype = t->dtype;
    d.dims = t->dims;
    d.quant = t->quant;
    d.sparse = t->sparse;
    d.static_data = t->type == htp::tensor_type::kStatic ? t->static_data.data() : nullptr;
    ins.push_back(std::move(d));
  }
  for (uint32_t i = 0; i < op.numOfOutputs; ++i) {
    TensorView v(&op.outputTensors[i]);
    const htp::TensorSpec* t = resolve_tensor(*g, *ctx, op.outputTensors[i]);
    if (t == nullptr) {
      QNN_LOG_ERROR("graphAddNode '%s': output %u (%s) was not created in graph '%s'", node_name.c_str(), i,
                    v.version_known() ? v.display_name().c_str() : "?", g->spec.name.c_str());
      return QNN_GRAPH_ERROR_INVALID_TENSOR;
    }
    if (t->type != htp::tensor_type::kNative && t->type != htp::tensor_type::kAppRead) {
      QNN_LOG_ERROR("graphAddNode '%s': output '%s' has tensor type %u; node outputs must be NATIVE or APP_READ",
                    node_name.c_str(), t->name.c_str(), t->type);
      return QNN_GRAPH_ERROR_INVALID_TENSOR;
    }
    if (g->produced.count(t->id) != 0) {
      QNN_LOG_ERROR("graphAddNode '%s': output '%s' is already produced by another node", node_name.c_str(),
                    t->name.c_str());
      return QNN_GRAPH_ERROR_INVALID_TENSOR;
    }
    node.outputs.push_back(t->id);
    ops::TensorDesc d;
    d.dtype = t->dtype;
    d.dims = t->dims;
    d.quant = t->quant;
    d.sparse = t->sparse;
    outs.push_back(std::move(d));
  }
  ops::NodeDesc nd{node.name, node.type, ins, outs, node.params};
  if (Qnn_ErrorHandle_t e = validate_node(nd, QNN_GRAPH_ERROR_INVALID_OP_CONFIG, QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE);
      e != QNN_SUCCESS) {
    return e;
  }
  for (uint32_t id : node.outputs) g->produced.insert(id);
  g->spec.nodes.push_back(std::move(node));
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("graphAddNode");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_finalize(Qnn_GraphHandle_t graphHandle, Qnn_ProfileHandle_t profileHandle,
                                            Qnn_SignalHandle_t signalHandle) try {
  auto g = graph_of(graphHandle);
  if (!g) {
    QNN_LOG_ERROR("graphFinalize: %p is not a live graph handle", graphHandle);
    return QNN_GRAPH_ERROR_INVALID_HANDLE;
  }
  if (profileHandle != nullptr && !live_handle("graphFinalize", ObjectKind::kProfile, profileHandle)) {
    return QNN_GRAPH_ERROR_SET_PROFILE;
  }
  Context* const ctx = g->context.get();
  std::lock_guard lock(g->mu);
  if (g->finalized) {
    QNN_LOG_ERROR("graphFinalize: graph '%s' is already finalized", g->spec.name.c_str());
    return QNN_GRAPH_ERROR_GRAPH_FINALIZED;
  }
  if (g->spec.nodes.empty()) {
    QNN_LOG_ERROR("graphFinalize: graph '%s' has no nodes", g->spec.name.c_str());
    return QNN_GRAPH_ERROR_FINALIZE_FAILED;
  }
  SignalUse signal(signalHandle, "graphFinalize", QNN_GRAPH_ERROR_SIGNAL_IN_USE);
  if (!signal.ok()) return signal.error();
  const uint64_t t0 = now_us();
  htp::GraphInfo info;
  // An aborted or timed-out prepare leaves the graph unfinalized: finalize
  // may be called again.
  if (Qnn_ErrorHandle_t e = ctx->stub->graph_prepare(ctx->remote_id, g->spec, &info, signal.control());
      e != QNN_SUCCESS) {
    return e;
  }
  record_plan(*g, info);
  index_graph_io(*g);
  if (g->priority != htp::kInheritPriority) {
    if (Qnn_ErrorHandle_t e = ctx->stub->graph_set_priority(g->remote_id, g->priority); e != QNN_SUCCESS) return e;
  }
  g->finalized = true;
  ProfileEvent ev;
  ev.type = QNN_PROFILE_EVENTTYPE_FINALIZE;
  ev.unit = QNN_PROFILE_EVENTUNIT_MICROSEC;
  ev.value = now_us() - t0;
  ev.identifier = "graph finalize: " + g->spec.name;
  profile_record(profileHandle, std::move(ev), {});
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("graphFinalize");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_retrieve(Qnn_ContextHandle_t contextHandle, const char* graphName,
                                            Qnn_GraphHandle_t* graphHandle) try {
  auto ctx = live_object<Context>("graphRetrieve", ObjectKind::kContext, contextHandle);
  if (!ctx) return QNN_GRAPH_ERROR_INVALID_CONTEXT;
  if (graphName == nullptr || graphHandle == nullptr) {
    return null_argument("graphRetrieve", graphName == nullptr ? "graphName" : "graphHandle",
                         QNN_GRAPH_ERROR_INVALID_ARGUMENT);
  }
  // A context created with DEFER_GRAPH_INIT is deserialized at the first
  // retrieval if the client did not call contextFinalize.
  if (Qnn_ErrorHandle_t e = finalize_deferred_context(ctx); e != QNN_SUCCESS) return e;
  std::lock_guard lock(ctx->mu);
  for (uint64_t gh : ctx->graphs) {
    auto g = graph_of(as_handle(gh));
    if (g && g->spec.name == graphName) {
      *graphHandle = as_handle(gh);
      return QNN_SUCCESS;
    }
  }
  QNN_LOG_ERROR("graphRetrieve: context has no graph named '%s'", graphName);
  return QNN_GRAPH_ERROR_GRAPH_DOES_NOT_EXIST;
} catch (...) {
  return openhtp::qnn::api_exception("graphRetrieve");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_execute(Qnn_GraphHandle_t graphHandle, const Qnn_Tensor_t* inputs, uint32_t numInputs,
                                           Qnn_Tensor_t* outputs, uint32_t numOutputs, Qnn_ProfileHandle_t profileHandle,
                                           Qnn_SignalHandle_t signalHandle) try {
  const uint64_t t0 = profileHandle != nullptr ? now_us() : 0;  // only the profile event needs it
  ExecuteMemo& memo = ExecuteMemo::of_this_thread();
  memo.revalidate();
  const std::shared_ptr<Graph> g = memo.graph(graphHandle);
  if (!g) {
    QNN_LOG_ERROR("graphExecute: %p is not a live graph handle", graphHandle);
    return QNN_GRAPH_ERROR_INVALID_HANDLE;
  }
  Context* const ctx = g->context.get();
  if ((numInputs > 0 && inputs == nullptr) || (numOutputs > 0 && outputs == nullptr)) {
    QNN_LOG_ERROR("graphExecute '%s': tensor arrays are NULL", g->spec.name.c_str());
    return QNN_GRAPH_ERROR_INVALID_ARGUMENT;
  }
  if (!g->finalized) {
    QNN_LOG_ERROR("graphExecute: graph '%s' is not finalized", g->spec.name.c_str());
    return QNN_GRAPH_ERROR_GRAPH_NOT_FINALIZED;
  }
  // A profile handle that names nothing is the client's mistake, not an
  // event to drop quietly after the work is done.
  if (profileHandle != nullptr && !live_handle("graphExecute", ObjectKind::kProfile, profileHandle)) {
    return QNN_GRAPH_ERROR_SET_PROFILE;
  }
  SpillFillClaim spill_fill_claim;
  if (!spill_fill_claim.claim(*ctx, g->spec.name)) return QNN_COMMON_ERROR_RESOURCE_UNAVAILABLE;

  // Bind every tensor (bind_tensors), unless this execute repeats the
  // thread's last one.
  const auto& in_binds = memo.inputs;
  const auto& out_binds = memo.outputs;
  uint64_t memhandle_bytes = 0;
  if (memo.same_request(graphHandle, inputs, numInputs, outputs, numOutputs)) {
    memhandle_bytes = memo.request_memhandle_bytes();
  } else {
    memo.forget_request();  // a refused tensor leaves the bindings half written
    if (Qnn_ErrorHandle_t e = bind_tensors(*g, *ctx, memo, inputs, numInputs, outputs, numOutputs, &memhandle_bytes);
        e != QNN_SUCCESS) {
      return e;
    }
    memo.remember_request(graphHandle, inputs, numInputs, outputs, numOutputs, memhandle_bytes);
  }

  SignalUse signal(signalHandle, "graphExecute", QNN_GRAPH_ERROR_SIGNAL_IN_USE);
  if (!signal.ok()) return signal.error();
  std::unique_ptr<ExecuteProfile> profile;
  if (profileHandle != nullptr) profile = ExecuteProfile::begin(profileHandle, *g, *ctx, t0);
  htp::ExecResult dsp;
  TransportCopies copies;
  const htp::ExecTiming timing = profileHandle != nullptr || g->dsp_timing.load(std::memory_order_relaxed)
                                     ? htp::ExecTiming::kMeasure
                                     : htp::ExecTiming::kSkip;
  if (Qnn_ErrorHandle_t e =
          ctx->stub->execute(g->remote_id, in_binds, out_binds, timing, &dsp, &copies, signal.control());
      e != QNN_SUCCESS) {
    return e;
  }
  for (uint32_t i = 0; i < numOutputs; ++i) {
    if (out_binds[i].mem_id == 0) set_client_buf_size(&outputs[i], static_cast<uint32_t>(out_binds[i].bytes));
  }
  const uint64_t by_reference = copies.bytes_by_reference + memhandle_bytes;
  g->last_bytes_copied_in.store(copies.bytes_copied_in, std::memory_order_relaxed);
  g->last_bytes_copied_out.store(copies.bytes_copied_out, std::memory_order_relaxed);
  g->last_bytes_by_reference.store(by_reference, std::memory_order_relaxed);
  g->last_exec_ns.store(dsp.exec_ns, std::memory_order_relaxed);
  if (!g->executed.load(std::memory_order_relaxed)) g->executed.store(true);
  if (profile) profile->record(*g, *ctx, dsp, copies, by_reference);
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("graphExecute");
}

QNN_API Qnn_ErrorHandle_t QnnGraph_executeAsync(Qnn_GraphHandle_t graphHandle, const Qnn_Tensor_t* inputs,
                                                uint32_t numInputs, Qnn_Tensor_t* outputs, uint32_t numOutputs,
                                                Qnn_ProfileHandle_t profileHandle, Qnn_SignalHandle_t signalHandle,
                                                Qnn_NotifyFn_t notifyFn, void* notifyParam) try {
  // Runs to completion before returning, then notifies: a valid (if
  // conservative) implementation of the asynchronous contract.
  Qnn_ErrorHandle_t e =
      QnnGraph_execute(graphHandle, inputs, numInputs, outputs, numOutputs, profileHandle, signalHandle);
  if (notifyFn != nullptr) notifyFn(notifyParam, Qnn_NotifyStatus_t{e});
  return e;
} catch (...) {
  return openhtp::qnn::api_exception("graphExecuteAsync");
}

QNN_API Qnn_ErrorHandle_t OpenHtp_getLastExecuteStats(Qnn_GraphHandle_t graph, OpenHtp_ExecuteStats_t* stats) try {
  auto g = live_object<Graph>("OpenHtp_getLastExecuteStats", ObjectKind::kGraph, graph);
  if (!g) return QNN_GRAPH_ERROR_INVALID_HANDLE;
  if (stats == nullptr) return null_argument("OpenHtp_getLastExecuteStats", "stats", QNN_GRAPH_ERROR_INVALID_HANDLE);
  *stats = OpenHtp_ExecuteStats_t{g->last_bytes_copied_in.load(), g->last_bytes_copied_out.load(),
                                  g->last_bytes_by_reference.load(), g->last_exec_ns.load()};
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("OpenHtp_getLastExecuteStats");
}

QNN_API Qnn_ErrorHandle_t OpenHtp_setDspTiming(Qnn_GraphHandle_t graph, uint8_t enable) try {
  auto g = graph_of(graph);
  if (!g) {
    QNN_LOG_ERROR("OpenHtp_setDspTiming: %p is not a live graph handle", graph);
    return QNN_GRAPH_ERROR_INVALID_HANDLE;
  }
  g->dsp_timing.store(enable != 0, std::memory_order_relaxed);
  return QNN_SUCCESS;
} catch (...) {
  return openhtp::qnn::api_exception("OpenHtp_setDspTiming");
}

}  // extern "C"
