// bench_memory: the DSP process's memory for N contexts loaded from one
// context binary, with the context's weights and spill-fill region internal
// (allocated by the DSP process) or in external rpcmem buffers the client
// registers (tutorial: "FastRPC Use Case: Using QNN_HTP_MEM_WEIGHTS_BUFFER and
// QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER with QNN API").
//
//   internal         N contexts, internal spill-fill, internal weights
//   shared_spillfill N contexts sharing ONE external spill-fill buffer
//                    (registered in every context), internal weights
//   external_weights N contexts, each with its own external weights buffer,
//                    internal spill-fill
//
// The graph: out = a + Relu(a), a = x + w, over [1, M] float32 with w STATIC
// (M*4 bytes of weights) and a VTCM budget of one tensor, so one M*4-byte
// intermediate spills. Each context's graph is executed once after loading,
// so every region has been touched.
//
// Every (configuration, N) runs in a forked child, i.e. in a fresh client
// and a fresh DSP process; the parent never touches QNN. The child reads
// /proc/<openhtp_fastrpc_dsp_pid()>/smaps_rollup once after backendCreate
// ("idle") and once after the N contexts have executed. Private memory
// (Private_Clean + Private_Dirty) is what the DSP process holds by itself:
// pages of an external buffer are mapped by the client too (the client
// writes them once before registering), so they count as shared.
//
//   bench_memory [--json PATH] [--n 1,2,4,8] [--mib W]   (W: weights and
//   spill-fill size in MiB, default 4)
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpGraph.h"
#include "HTP/QnnHtpMem.h"
#include "QnnInterface.h"
#include "QnnOpDef.h"
#include "openhtp/fastrpc_ext.h"
#include "remote.h"
#include "rpcmem.h"

namespace {

enum class Config { kInternal, kSharedSpillFill, kExternalWeights };
constexpr Config kConfigs[] = {Config::kInternal, Config::kSharedSpillFill, Config::kExternalWeights};

const char* config_name(Config c) {
  switch (c) {
    case Config::kInternal: return "internal";
    case Config::kSharedSpillFill: return "shared_spillfill";
    case Config::kExternalWeights: return "external_weights";
  }
  return "?";
}

// What smaps_rollup says, in KiB.
struct Smaps {
  long rss = -1, pss = -1, private_kb = -1, shared_kb = -1;
};

// Sent from a child to the parent through a pipe.
struct Result {
  int ok = 0;
  int dsp_pid = -1;
  Smaps idle, loaded;
  uint64_t weights_size = 0, spillfill_size = 0;
  char error[256] = {};
};

bool read_smaps_rollup(int pid, Smaps* out) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/smaps_rollup");
  if (!f) return false;
  long private_clean = 0, private_dirty = 0, shared_clean = 0, shared_dirty = 0;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream s(line);
    std::string key;
    long kb = 0;
    if (!(s >> key >> kb)) continue;
    if (key == "Rss:") out->rss = kb;
    else if (key == "Pss:") out->pss = kb;
    else if (key == "Private_Clean:") private_clean = kb;
    else if (key == "Private_Dirty:") private_dirty = kb;
    else if (key == "Shared_Clean:") shared_clean = kb;
    else if (key == "Shared_Dirty:") shared_dirty = kb;
  }
  out->private_kb = private_clean + private_dirty;
  out->shared_kb = shared_clean + shared_dirty;
  return out->rss >= 0;
}

const QNN_INTERFACE_VER_TYPE* qnn_api(std::string* error) {
  const QnnInterface_t** providers = nullptr;
  uint32_t n = 0;
  if (QnnInterface_getProviders(&providers, &n) != QNN_SUCCESS || n == 0) {
    *error = "QnnInterface_getProviders failed";
    return nullptr;
  }
  return &providers[0]->QNN_INTERFACE_VER_NAME;
}

constexpr const char* kGraphName = "spill";

// Builds the graph in a fresh context and returns its binary (child only).
bool build_binary(uint32_t m, std::vector<uint8_t>* binary, uint32_t* x_id, uint32_t* out_id, std::string* error) {
  const QNN_INTERFACE_VER_TYPE* api = qnn_api(error);
  if (api == nullptr) return false;
  Qnn_BackendHandle_t backend = nullptr;
  Qnn_ContextHandle_t context = nullptr;
  if (api->backendCreate(nullptr, nullptr, &backend) != QNN_SUCCESS ||
      api->contextCreate(backend, nullptr, nullptr, &context) != QNN_SUCCESS) {
    *error = "backendCreate/contextCreate failed";
    return false;
  }
  QnnHtpGraph_CustomConfig_t htp{};
  htp.option = QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES;
  htp.vtcmSizeInBytes = m * 4u;  // one tensor: a or Relu(a) spills
  QnnGraph_Config_t cfg = QNN_GRAPH_CONFIG_INIT;
  cfg.option = QNN_GRAPH_CONFIG_OPTION_CUSTOM;
  cfg.customConfig = &htp;
  const QnnGraph_Config_t* cfgs[] = {&cfg, nullptr};
  Qnn_GraphHandle_t g = nullptr;
  if (api->graphCreate(context, kGraphName, cfgs, &g) != QNN_SUCCESS) {
    *error = "graphCreate failed";
    return false;
  }
  uint32_t dims[2] = {1, m};
  auto tensor = [&](const char* name, Qnn_TensorType_t type) {
    Qnn_Tensor_t t = QNN_TENSOR_INIT;
    t.v1.name = name;
    t.v1.type = type;
    t.v1.dataType = QNN_DATATYPE_FLOAT_32;
    t.v1.rank = 2;
    t.v1.dimensions = dims;
    t.v1.memType = QNN_TENSORMEMTYPE_RAW;
    return t;
  };
  std::vector<float> w(m);
  for (uint32_t i = 0; i < m; ++i) w[i] = 0.001f * static_cast<float>(i % 1000) - 0.5f;
  Qnn_Tensor_t x = tensor("x", QNN_TENSOR_TYPE_APP_WRITE), wt = tensor("w", QNN_TENSOR_TYPE_STATIC);
  wt.v1.clientBuf = {w.data(), m * 4u};
  Qnn_Tensor_t a = tensor("a", QNN_TENSOR_TYPE_NATIVE), b = tensor("b", QNN_TENSOR_TYPE_NATIVE);
  Qnn_Tensor_t out = tensor("out", QNN_TENSOR_TYPE_APP_READ);
  for (Qnn_Tensor_t* t : {&x, &wt, &a, &b, &out}) {
    if (api->tensorCreateGraphTensor(g, t) != QNN_SUCCESS) {
      *error = std::string("tensorCreateGraphTensor ") + t->v1.name;
      return false;
    }
  }
  auto node = [&](const char* name, const char* type, std::vector<Qnn_Tensor_t> ins, Qnn_Tensor_t o) {
    Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
    op.v1.name = name;
    op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
    op.v1.typeName = type;
    op.v1.numOfInputs = static_cast<uint32_t>(ins.size());
    op.v1.inputTensors = ins.data();
    op.v1.numOfOutputs = 1;
    op.v1.outputTensors = &o;
    return api->graphAddNode(g, op) == QNN_SUCCESS;
  };
  if (!node("add_w", QNN_OP_ELEMENT_WISE_ADD, {x, wt}, a) || !node("relu", QNN_OP_RELU, {a}, b) ||
      !node("add", QNN_OP_ELEMENT_WISE_ADD, {a, b}, out) || api->graphFinalize(g, nullptr, nullptr) != QNN_SUCCESS) {
    *error = "graph build failed";
    return false;
  }
  Qnn_ContextBinarySize_t size = 0;
  if (api->contextGetBinarySize(context, &size) != QNN_SUCCESS) {
    *error = "contextGetBinarySize failed";
    return false;
  }
  binary->resize(size);
  if (api->contextGetBinary(context, binary->data(), size, &size) != QNN_SUCCESS) {
    *error = "contextGetBinary failed";
    return false;
  }
  binary->resize(size);
  *x_id = x.v1.id;
  *out_id = out.v1.id;
  api->contextFree(context, nullptr);
  api->backendFree(backend);
  return true;
}

uint64_t property(const QNN_INTERFACE_VER_TYPE* api, Qnn_ContextHandle_t ctx, QnnHtpContext_GetPropertyOption_t o) {
  QnnHtpContext_CustomProperty_t p = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  p.option = o;
  QnnContext_Property_t prop = QNN_CONTEXT_PROPERTY_INIT;
  prop.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
  prop.customProperty = &p;
  QnnContext_Property_t* props[] = {&prop, nullptr};
  if (api->contextGetProperty(ctx, props) != QNN_SUCCESS) return 0;
  return p.weightsBufferSize;  // every member of the union is one uint64_t
}

Qnn_ErrorHandle_t register_external(const QNN_INTERFACE_VER_TYPE* api, Qnn_ContextHandle_t ctx, QnnHtpMem_Type_t type,
                                    int fd, uint64_t size, Qnn_MemHandle_t* h) {
  QnnMemHtp_Descriptor_t htp{};
  htp.type = type;
  htp.size = size;
  if (type == QNN_HTP_MEM_WEIGHTS_BUFFER) {
    htp.weightsBufferConfig = {fd, 0};
  } else {
    htp.spillfillBufferConfig = {fd, 0};
  }
  Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
  d.memType = QNN_MEM_TYPE_CUSTOM;
  d.customInfo = &htp;
  return api->memRegister(ctx, &d, 1, h);
}

uint64_t round_up(uint64_t v, uint64_t a) { return a == 0 ? v : (v + a - 1) / a * a; }

// One measurement, in the child. Fills `r`; returns false with r->error set.
bool measure(Config config, int n, uint32_t m, const std::vector<uint8_t>& binary, uint32_t x_id, uint32_t out_id,
             Result* r) {
  auto fail = [&](const std::string& why) {
    std::snprintf(r->error, sizeof r->error, "%s", why.c_str());
    return false;
  };
  std::string error;
  const QNN_INTERFACE_VER_TYPE* api = qnn_api(&error);
  if (api == nullptr) return fail(error);
  Qnn_BackendHandle_t backend = nullptr;
  if (api->backendCreate(nullptr, nullptr, &backend) != QNN_SUCCESS) return fail("backendCreate failed");
  r->dsp_pid = openhtp_fastrpc_dsp_pid();
  if (r->dsp_pid <= 0 || !read_smaps_rollup(r->dsp_pid, &r->idle)) return fail("no DSP process smaps_rollup");

  QnnContext_Config_t defer = QNN_CONTEXT_CONFIG_INIT;
  defer.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  defer.isGraphInitDeferred = 1;
  const QnnContext_Config_t* cfgs[] = {&defer, nullptr};

  std::vector<Qnn_ContextHandle_t> contexts;
  std::vector<void*> buffers;  // freed after the contexts
  void* shared_spill = nullptr;
  std::vector<float> x(m, 0.25f), out(m);
  bool ok = true;
  for (int i = 0; i < n && ok; ++i) {
    Qnn_ContextHandle_t ctx = nullptr;
    if (api->contextCreateFromBinary(backend, nullptr, cfgs, binary.data(), binary.size(), &ctx, nullptr) !=
        QNN_SUCCESS) {
      ok = fail("contextCreateFromBinary failed");
      break;
    }
    contexts.push_back(ctx);
    const uint64_t align = property(api, ctx, QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT);
    r->weights_size = property(api, ctx, QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE);
    r->spillfill_size = property(api, ctx, QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE);
    Qnn_MemHandle_t h = nullptr;
    if (config == Config::kSharedSpillFill) {
      const uint64_t size = round_up(r->spillfill_size, align);
      if (shared_spill == nullptr) {
        shared_spill = rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, static_cast<int>(size));
        if (shared_spill == nullptr) {
          ok = fail("rpcmem_alloc failed");
          break;
        }
        std::memset(shared_spill, 0, size);  // mapped (and so shared) on the client side as well
        buffers.push_back(shared_spill);
      }
      if (register_external(api, ctx, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER, rpcmem_to_fd(shared_spill), size, &h) !=
          QNN_SUCCESS) {
        ok = fail("memRegister(SHARED_SPILLFILL_BUFFER) failed");
        break;
      }
    } else if (config == Config::kExternalWeights) {
      const uint64_t size = round_up(r->weights_size, align);
      void* wbuf = rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, static_cast<int>(size));
      if (wbuf == nullptr) {
        ok = fail("rpcmem_alloc failed");
        break;
      }
      std::memset(wbuf, 0, size);
      buffers.push_back(wbuf);
      if (register_external(api, ctx, QNN_HTP_MEM_WEIGHTS_BUFFER, rpcmem_to_fd(wbuf), size, &h) != QNN_SUCCESS) {
        ok = fail("memRegister(WEIGHTS_BUFFER) failed");
        break;
      }
    }
    Qnn_GraphHandle_t g = nullptr;
    if (api->contextFinalize(ctx, nullptr) != QNN_SUCCESS || api->graphRetrieve(ctx, kGraphName, &g) != QNN_SUCCESS) {
      ok = fail("contextFinalize/graphRetrieve failed");
      break;
    }
    // graphExecute names tensors by id: the ones tensorCreateGraphTensor
    // gave when the graph was built, which the binary keeps.
    uint32_t dims[2] = {1, m};
    Qnn_Tensor_t in = QNN_TENSOR_INIT, o = QNN_TENSOR_INIT;
    for (Qnn_Tensor_t* t : {&in, &o}) {
      t->v1.dataType = QNN_DATATYPE_FLOAT_32;
      t->v1.rank = 2;
      t->v1.dimensions = dims;
      t->v1.memType = QNN_TENSORMEMTYPE_RAW;
    }
    in.v1.id = x_id;
    in.v1.name = "x";
    in.v1.type = QNN_TENSOR_TYPE_APP_WRITE;
    in.v1.clientBuf = {x.data(), m * 4u};
    o.v1.id = out_id;
    o.v1.name = "out";
    o.v1.type = QNN_TENSOR_TYPE_APP_READ;
    o.v1.clientBuf = {out.data(), m * 4u};
    r->error[0] = 0;
    if (Qnn_ErrorHandle_t e = api->graphExecute(g, &in, 1, &o, 1, nullptr, nullptr); e != QNN_SUCCESS) {
      ok = fail("graphExecute failed: " + std::to_string(e));
      break;
    }
    // out = a + relu(a), a = x + w: spot-check a few values.
    for (uint32_t k = 0; k < m; k += m / 7 + 1) {
      const float a = 0.25f + (0.001f * static_cast<float>(k % 1000) - 0.5f);
      const float want = a + (a > 0.0f ? a : 0.0f);
      if (out[k] != want) {
        ok = fail("wrong output at " + std::to_string(k));
        break;
      }
    }
  }
  if (ok && !read_smaps_rollup(r->dsp_pid, &r->loaded)) ok = fail("smaps_rollup unreadable after loading");
  for (auto c : contexts) api->contextFree(c, nullptr);
  for (void* b : buffers) rpcmem_free(b);
  api->backendFree(backend);
  remote_rpc_session_close close{CDSP_DOMAIN_ID};
  remote_session_control(FASTRPC_SESSION_CLOSE, &close, sizeof close);
  return ok;
}

// Runs `fn` in a forked child; `fn` writes `bytes` of payload to the pipe.
template <typename Fn>
bool in_child(Fn fn, std::vector<uint8_t>* payload) {
  int p[2];
  if (pipe(p) != 0) return false;
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    close(p[0]);
    std::vector<uint8_t> bytes = fn();
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t w = write(p[1], bytes.data() + done, bytes.size() - done);
      if (w <= 0) _exit(3);
      done += static_cast<size_t>(w);
    }
    close(p[1]);
    _exit(0);
  }
  close(p[1]);
  payload->clear();
  uint8_t buf[1 << 16];
  for (;;) {
    const ssize_t n = read(p[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    payload->insert(payload->end(), buf, buf + n);
  }
  close(p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

double mib(long kb) { return kb / 1024.0; }

}  // namespace

int main(int argc, char** argv) {
  // The DSP process is not dumpable by default, and then only root may read
  // its smaps_rollup; keep it readable for this measurement.
  setenv("OPENHTP_DSP_DUMPABLE", "1", 0);
  std::string json_path;
  std::vector<int> ns = {1, 2, 4, 8};
  double size_mib = 4.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else if (a == "--n" && i + 1 < argc) {
      ns.clear();
      std::stringstream s(argv[++i]);
      std::string item;
      while (std::getline(s, item, ',')) ns.push_back(std::atoi(item.c_str()));
    } else if (a == "--mib" && i + 1 < argc) {
      size_mib = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--json PATH] [--n 1,2,4,8] [--mib 4]\n", argv[0]);
      return 2;
    }
  }
  const uint32_t m = static_cast<uint32_t>(size_mib * (1 << 20) / 4);

  // The binary, built in a child so that this process never starts a DSP
  // process (each measurement below must start its own).
  std::vector<uint8_t> binary;
  const bool built = in_child(
      [&] {
        std::vector<uint8_t> bin;
        std::string error;
        uint32_t ids[2] = {0, 0};
        if (!build_binary(m, &bin, &ids[0], &ids[1], &error)) {
          std::fprintf(stderr, "bench_memory: %s\n", error.c_str());
          _exit(1);
        }
        // Payload: the two tensor ids, then the binary.
        std::vector<uint8_t> payload(sizeof ids);
        std::memcpy(payload.data(), ids, sizeof ids);
        payload.insert(payload.end(), bin.begin(), bin.end());
        return payload;
      },
      &binary);
  uint32_t ids[2] = {0, 0};
  if (!built || binary.size() <= sizeof ids) {
    std::fprintf(stderr, "bench_memory: building the context binary failed\n");
    return 1;
  }
  std::memcpy(ids, binary.data(), sizeof ids);
  binary.erase(binary.begin(), binary.begin() + sizeof ids);
  std::printf("bench_memory: graph '%s' on [1,%u] float32 (weights %.1f MiB, VTCM budget one tensor); binary %zu B\n",
              kGraphName, m, m * 4.0 / (1 << 20), binary.size());
  std::printf("DSP process memory (/proc/<dsp pid>/smaps_rollup, MiB) after N contexts loaded and executed once;\n"
              "private = Private_Clean + Private_Dirty; idle = the same process right after backendCreate\n\n");
  std::printf("%-17s %3s %8s %8s %8s %8s %8s %12s\n", "config", "N", "Rss", "Pss", "private", "shared", "idle priv",
              "priv - idle");

  struct Row {
    Config config;
    int n;
    Result r;
  };
  std::vector<Row> rows;
  bool all_ok = true;
  for (Config c : kConfigs) {
    for (int n : ns) {
      std::vector<uint8_t> payload;
      const bool exited_ok = in_child(
          [&] {
            Result r;
            r.ok = measure(c, n, m, binary, ids[0], ids[1], &r) ? 1 : 0;
            const auto* p = reinterpret_cast<const uint8_t*>(&r);
            return std::vector<uint8_t>(p, p + sizeof r);
          },
          &payload);
      Row row{c, n, {}};
      if (payload.size() == sizeof(Result)) std::memcpy(&row.r, payload.data(), sizeof(Result));
      if (!exited_ok || !row.r.ok) {
        std::printf("%-17s %3d FAILED: %s\n", config_name(c), n, row.r.error[0] ? row.r.error : "child died");
        all_ok = false;
        continue;
      }
      const Result& r = row.r;
      std::printf("%-17s %3d %8.1f %8.1f %8.1f %8.1f %8.1f %12.1f\n", config_name(c), n, mib(r.loaded.rss),
                  mib(r.loaded.pss), mib(r.loaded.private_kb), mib(r.loaded.shared_kb), mib(r.idle.private_kb),
                  mib(r.loaded.private_kb - r.idle.private_kb));
      rows.push_back(row);
    }
  }

  if (!json_path.empty()) {
    std::ofstream j(json_path);
    j << "{\n  \"graph\": {\"elements\": " << m << ", \"binary_bytes\": " << binary.size();
    if (!rows.empty()) {
      j << ", \"weights_buffer_bytes\": " << rows[0].r.weights_size
        << ", \"spillfill_buffer_bytes\": " << rows[0].r.spillfill_size;
    }
    j << "},\n  \"unit\": \"KiB\",\n  \"results\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Result& r = rows[i].r;
      j << "    {\"config\": \"" << config_name(rows[i].config) << "\", \"n\": " << rows[i].n
        << ", \"dsp_pid\": " << r.dsp_pid << ", \"rss\": " << r.loaded.rss << ", \"pss\": " << r.loaded.pss
        << ", \"private\": " << r.loaded.private_kb << ", \"shared\": " << r.loaded.shared_kb
        << ", \"idle_rss\": " << r.idle.rss << ", \"idle_pss\": " << r.idle.pss
        << ", \"idle_private\": " << r.idle.private_kb << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    j << "  ]\n}\n";
    std::printf("\nJSON written to %s\n", json_path.c_str());
  }
  return all_ok ? 0 : 1;
}
