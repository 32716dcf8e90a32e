// The HTP shared-buffer tutorial, "Non-RPC Use Case: Using
// QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER and QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER
// with QNN API", step by step: two contexts loaded from one binary share ONE
// spill-fill buffer (the memory for intermediates that do not fit the graph's
// VTCM budget) and ONE VTCM-backup buffer (where a preempted graph's live
// VTCM is saved), and their graphs execute in parallel from two threads.
//
// A Non-RPC program runs on the DSP itself: QNN runs the HTP in the same
// process, and buffers are named by their 32-bit QURT virtual address, which
// is simply what malloc returns there. openhtp emulates that with a launcher:
//
//   bin/openhtp-dsp-run bin/example_nonrpc_concurrent_sharing
//
// serves the whole program's malloc from a heap below 4 GiB, and libQnnHtp
// then logs "Non-RPC domain" at backendCreate. Started without it, the
// example stops and says so.
//
// The binary is built first (so that no file is needed): the chain graph of
// common/chain_graph.h, whose intermediates spill. Every output is checked
// against the plain C++ reference, and the example checks that the buffers'
// addresses fit in 32 bits, that the executes really went through the shared
// spill-fill buffer, and that contextFree released both buffers.
#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpMem.h"
#include "QnnMem.h"
#include "common/chain_graph.h"
#include "common/qnn_loader.h"
#include "common/qnn_session.h"

using namespace examples;
using namespace examples::chain_graph;

namespace {

constexpr size_t kContexts = 2;      // one thread each
constexpr size_t kPerThread = 4;     // executes per thread
constexpr uint8_t kSentinel = 0xEE;  // the spill-fill buffer's bytes before any execute
constexpr const char* kGraphName = "chain";

int fail(const char* step, const std::string& why) {
  std::printf("FAILED at %s: %s\n", step, why.c_str());
  return 1;
}

// Every line the backend logs, at every level, kept for the checks: the
// domain is announced at INFO level, which the session's stderr logger does
// not show. A second log handle receives the same lines as the first.
class BackendLines {
 public:
  explicit BackendLines(const QNN_INTERFACE_VER_TYPE& api) : api_(api) {}
  BackendLines(const BackendLines&) = delete;
  BackendLines& operator=(const BackendLines&) = delete;
  ~BackendLines() {
    if (log_ != nullptr) api_.logFree(log_);
  }

  bool open(std::string* error) {
    if (Qnn_ErrorHandle_t e = api_.logCreate(record, QNN_LOG_LEVEL_INFO, &log_); e != QNN_SUCCESS) {
      *error = "logCreate: " + describe_qnn_error(api_, e);
      return false;
    }
    return true;
  }
  // The first line logged so far that contains `needle`, or "".
  static std::string find(const char* needle) {
    std::lock_guard lock(mu());
    for (const std::string& line : lines()) {
      if (line.find(needle) != std::string::npos) return line;
    }
    return "";
  }
  static size_t count() {
    std::lock_guard lock(mu());
    return lines().size();
  }
  // Lines [from, count()).
  static std::vector<std::string> since(size_t from) {
    std::lock_guard lock(mu());
    return {lines().begin() + static_cast<std::ptrdiff_t>(std::min(from, lines().size())), lines().end()};
  }

 private:
  // The callback has no user pointer: the lines are process-wide.
  static std::vector<std::string>& lines() {
    static std::vector<std::string> v;
    return v;
  }
  static std::mutex& mu() {
    static std::mutex m;
    return m;
  }
  static void record(const char* fmt, QnnLog_Level_t, uint64_t, va_list args) {
    char buf[1024];
    std::vsnprintf(buf, sizeof buf, fmt, args);
    std::lock_guard lock(mu());
    lines().emplace_back(buf);
  }

  const QNN_INTERFACE_VER_TYPE& api_;
  Qnn_LogHandle_t log_ = nullptr;
};

// [p, p + size) as a 32-bit QURT address, or false when it does not fit.
bool to_qurt(const void* p, uint64_t size, QnnHtpMem_QurtAddress_t* address) {
  const uint64_t start = reinterpret_cast<uintptr_t>(p);
  if (start + size > uint64_t{std::numeric_limits<QnnHtpMem_QurtAddress_t>::max()} + 1) return false;
  *address = static_cast<QnnHtpMem_QurtAddress_t>(start);
  return true;
}

// "<dir>/openhtp-dsp-run <this program>": the build tree and the install
// keep the launcher next to the examples.
std::string launcher_command(const char* argv0) {
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return std::string("openhtp-dsp-run ") + argv0;
  const std::string self(exe, static_cast<size_t>(n));
  return self.substr(0, self.rfind('/') + 1) + "openhtp-dsp-run " + self;
}

// Step 1's config list, as the tutorial builds it: concurrent resource
// sharing (no first group handle and no spill-fill size: with deferred
// initialization the external buffers supply both) and DEFER_GRAPH_INIT.
// It must stay valid until contextFinalize.
struct SharingConfigs {
  QnnHtpContext_CustomConfig_t htp{};
  QnnContext_Config_t custom = QNN_CONTEXT_CONFIG_INIT;
  QnnContext_Config_t defer = QNN_CONTEXT_CONFIG_INIT;
  const QnnContext_Config_t* list[3] = {&custom, &defer, nullptr};

  SharingConfigs() {
    htp.option = QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING;
    htp.concurrentGroupRegistration.firstGroupHandle = nullptr;
    htp.concurrentGroupRegistration.maxSpillFillBuffer = 0;
    custom.option = QNN_CONTEXT_CONFIG_OPTION_CUSTOM;
    custom.customConfig = &htp;
    defer.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
    defer.isGraphInitDeferred = 1;
  }
};

// What one thread saw.
struct ThreadResult {
  size_t matched = 0;
  double worst = 0.0;
  std::string error;  // a failed graphExecute
};

}  // namespace

int main(int, char** argv) {
  std::printf(
      "== nonrpc_concurrent_sharing: two contexts share one QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER and one "
      "QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER, executed from two threads (Non-RPC use case) ==\n");
  std::string error;
  const std::string launcher_hint = "run it through the launcher: " + launcher_command(argv[0]);

  QnnBackendLibrary qnn;
  if (!qnn.load("libQnnHtp.so", &error)) return fail("loading libQnnHtp.so", error);
  std::printf("load    dlopen(\"libQnnHtp.so\") -> %s; provider \"%s\", core API %u.%u.%u\n", qnn.path.c_str(),
              qnn.provider_name.c_str(), qnn.api_version.coreApiVersion.major, qnn.api_version.coreApiVersion.minor,
              qnn.api_version.coreApiVersion.patch);
  const QNN_INTERFACE_VER_TYPE& api = qnn.api;

  // Which domain: the backend says so in its backendCreate line.
  BackendLines backend_lines(api);
  if (!backend_lines.open(&error)) return fail("domain check", error);
  QnnSession session(api);
  if (!session.open(&error)) return fail("step 0", error);
  const std::string created = BackendLines::find("HTP backend created");
  std::printf("domain  backendCreate logged: \"%s\"\n", created.c_str());
  if (created.find("Non-RPC domain") == std::string::npos) {
    return fail("domain check",
                "the backend is not in the Non-RPC domain, so QURT addresses mean nothing to it; " + launcher_hint);
  }

  // Step 0: a context binary of a graph that spills at its VTCM budget.
  const Weights weights = make_weights();
  ChainGraphBuilder builder(api, weights);
  if (!builder.build(session.context, kGraphName, &error)) return fail("step 0", error);
  std::vector<uint8_t> binary;
  if (!get_context_binary(api, session.context, &binary, &error)) return fail("step 0", error);
  std::printf(
      "step 0  online context: graph '%s' (%zu nodes on [1,%u,%u,%u] float32) finalized with "
      "VTCM_SIZE_IN_BYTES=%llu; contextGetBinary -> %zu B\n",
      kGraphName, builder.node_count(), kH, kW, kC, static_cast<unsigned long long>(kVtcmBudgetBytes), binary.size());

  // Step 1: both contexts from the one binary, with concurrent resource
  // sharing and deferred graph initialization. `configs` and `binary` stay
  // valid until both are finalized.
  SharingConfigs configs;
  Qnn_ContextHandle_t contexts[kContexts] = {nullptr, nullptr};
  // Everything below releases through this: the contexts first (they
  // deregister the shared buffers themselves), then the buffers.
  void* spillfill_buffer = nullptr;
  void* vtcm_backup_buffer = nullptr;
  auto release = [&] {
    for (Qnn_ContextHandle_t& c : contexts) {
      if (c != nullptr && api.contextFree(c, nullptr) != QNN_SUCCESS) std::printf("  contextFree failed\n");
      c = nullptr;
    }
    std::free(spillfill_buffer);
    std::free(vtcm_backup_buffer);
    spillfill_buffer = vtcm_backup_buffer = nullptr;
  };
  auto fail_released = [&](const char* step, const std::string& why) {
    release();
    return fail(step, why);
  };
  for (Qnn_ContextHandle_t& c : contexts) {
    if (Qnn_ErrorHandle_t e = api.contextCreateFromBinary(session.backend, nullptr, configs.list, binary.data(),
                                                          binary.size(), &c, nullptr);
        e != QNN_SUCCESS) {
      return fail_released("step 1", "contextCreateFromBinary: " + describe_qnn_error(api, e));
    }
  }
  std::printf(
      "step 1  contextCreateFromBinary x2 (REGISTER_CONCURRENT_RESOURCE_SHARING, DEFER_GRAPH_INIT) -> contexts %p, "
      "%p\n",
      static_cast<void*>(contexts[0]), static_cast<void*>(contexts[1]));

  // Step 2: each context's requirements; the shared buffers must satisfy
  // every context of the group.
  uint64_t spillfill_size = 0, vtcm_backup_size = 0;
  for (size_t i = 0; i < kContexts; ++i) {
    uint64_t spill = 0, backup = 0;
    if (!get_custom_property(api, contexts[i], QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE, &spill, &error) ||
        !get_custom_property(api, contexts[i], QNN_HTP_CONTEXT_GET_PROP_MAX_VTCMBACKUP_BUFFER_SIZE, &backup,
                             &error)) {
      return fail_released("step 2", error);
    }
    std::printf("step 2  context %zu: MAX_SPILLFILL_BUFFER_SIZE = %llu B, MAX_VTCMBACKUP_BUFFER_SIZE = %llu B\n", i,
                static_cast<unsigned long long>(spill), static_cast<unsigned long long>(backup));
    spillfill_size = std::max(spillfill_size, spill);
    vtcm_backup_size = std::max(vtcm_backup_size, backup);
  }
  if (spillfill_size == 0) return fail_released("step 2", "nothing spills: no spill-fill buffer is needed");
  if (vtcm_backup_size == 0) return fail_released("step 2", "the graph uses no VTCM: no VTCM-backup buffer is needed");

  // Step 3: one buffer of each kind for the whole group, in the DSP's
  // address space: on the DSP that is plain malloc.
  spillfill_buffer = std::malloc(spillfill_size);
  vtcm_backup_buffer = std::malloc(vtcm_backup_size);
  if (spillfill_buffer == nullptr || vtcm_backup_buffer == nullptr) return fail_released("step 3", "malloc");
  QnnHtpMem_QurtAddress_t spillfill_qurt = 0, vtcm_backup_qurt = 0;
  const bool fits = to_qurt(spillfill_buffer, spillfill_size, &spillfill_qurt) &&
                    to_qurt(vtcm_backup_buffer, vtcm_backup_size, &vtcm_backup_qurt);
  std::printf("step 3  malloc: spill-fill buffer %p (%llu B), VTCM-backup buffer %p (%llu B): %s\n", spillfill_buffer,
              static_cast<unsigned long long>(spillfill_size), vtcm_backup_buffer,
              static_cast<unsigned long long>(vtcm_backup_size),
              fits ? "both end below 4 GiB, i.e. are 32-bit QURT addresses" : "NOT 32-bit addresses");
  if (!fits) return fail_released("step 3", "malloc returned memory above 4 GiB; " + launcher_hint);
  // Only QNN may write them from now on; this is the program's last write,
  // so that the check below can tell what the executes put there.
  std::memset(spillfill_buffer, kSentinel, spillfill_size);

  // Step 4: register the same two buffers with every context of the group,
  // both in one memRegister call per context. They hold no tensor, so the
  // shape is the tutorial's placeholder: one uint8.
  uint32_t placeholder_dims = 1;
  QnnMemHtp_Descriptor_t spillfill_desc{};
  spillfill_desc.type = QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER;
  spillfill_desc.size = spillfill_size;
  spillfill_desc.sharedSpillfillBufferQurtAddress = spillfill_qurt;
  QnnMemHtp_Descriptor_t vtcm_backup_desc{};
  vtcm_backup_desc.type = QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER;
  vtcm_backup_desc.size = vtcm_backup_size;
  vtcm_backup_desc.sharedVTCMBackupBufferQurtAddress = vtcm_backup_qurt;
  Qnn_MemDescriptor_t descriptors[2] = {QNN_MEM_DESCRIPTOR_INIT, QNN_MEM_DESCRIPTOR_INIT};
  for (Qnn_MemDescriptor_t& d : descriptors) {
    d.memShape = {1, &placeholder_dims, nullptr};
    d.dataType = QNN_DATATYPE_UINT_8;
    d.memType = QNN_MEM_TYPE_CUSTOM;
  }
  descriptors[0].customInfo = &spillfill_desc;
  descriptors[1].customInfo = &vtcm_backup_desc;
  Qnn_MemHandle_t handles[kContexts][2] = {};
  for (size_t i = 0; i < kContexts; ++i) {
    if (Qnn_ErrorHandle_t e = api.memRegister(contexts[i], descriptors, 2, handles[i]); e != QNN_SUCCESS) {
      return fail_released("step 4", "memRegister on context " + std::to_string(i) + ": " + describe_qnn_error(api, e));
    }
    std::printf(
        "step 4  context %zu: memRegister(QNN_MEM_TYPE_CUSTOM: SHARED_SPILLFILL_BUFFER at 0x%08x, "
        "SHARED_VTCMBACKUP_BUFFER at 0x%08x) -> handles %p, %p\n",
        i, spillfill_qurt, vtcm_backup_qurt, static_cast<void*>(handles[i][0]), static_cast<void*>(handles[i][1]));
  }

  // Step 5: finalize: the contexts are deserialized now, onto the shared
  // buffers, which stay registered until contextFree.
  for (size_t i = 0; i < kContexts; ++i) {
    if (Qnn_ErrorHandle_t e = api.contextFinalize(contexts[i], nullptr); e != QNN_SUCCESS) {
      return fail_released("step 5", "contextFinalize: " + describe_qnn_error(api, e));
    }
  }
  std::printf("step 5  contextFinalize x2\n");

  Qnn_GraphHandle_t graphs[kContexts] = {nullptr, nullptr};
  for (size_t i = 0; i < kContexts; ++i) {
    if (Qnn_ErrorHandle_t e = api.graphRetrieve(contexts[i], kGraphName, &graphs[i]); e != QNN_SUCCESS) {
      return fail_released("graphRetrieve", describe_qnn_error(api, e));
    }
  }
  std::printf("step 6  graphRetrieve(\"%s\") -> graphs %p, %p\n", kGraphName, static_cast<void*>(graphs[0]),
              static_cast<void*>(graphs[1]));

  // Execute: one thread per context, at the same time, on different inputs.
  // Input and output are plain client buffers: in the Non-RPC domain QNN
  // reads and writes them in place.
  const auto inputs = make_inputs(kContexts * kPerThread);
  ThreadResult results[kContexts];
  {
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kContexts; ++t) {
      threads.emplace_back([&, t] {
        std::vector<float> input_data(kElements), output_data(kElements);
        Qnn_Tensor_t input = builder.input(), output = builder.output();
        input.v1.clientBuf = {input_data.data(), static_cast<uint32_t>(kTensorBytes)};
        output.v1.clientBuf = {output_data.data(), static_cast<uint32_t>(kTensorBytes)};
        for (size_t i = 0; i < kPerThread; ++i) {
          const std::vector<float>& x = inputs[t * kPerThread + i];
          input_data = x;
          std::fill(output_data.begin(), output_data.end(), std::numeric_limits<float>::quiet_NaN());
          if (Qnn_ErrorHandle_t e = api.graphExecute(graphs[t], &input, 1, &output, 1, nullptr, nullptr);
              e != QNN_SUCCESS) {
            results[t].error = "graphExecute: " + describe_qnn_error(api, e);
            return;
          }
          const double diff = max_abs_diff(output_data.data(), reference(weights, x));
          results[t].matched += diff <= kTolerance;
          results[t].worst = std::max(results[t].worst, diff);
        }
      });
    }
    for (std::thread& th : threads) th.join();
  }
  size_t matched = 0;
  double worst = 0.0;
  bool executes_ok = true;
  for (size_t t = 0; t < kContexts; ++t) {
    std::printf("step 7  thread %zu (context %zu): %zu/%zu outputs match the C++ reference (max |diff| %.1e)%s%s\n", t,
                t, results[t].matched, kPerThread, results[t].worst, results[t].error.empty() ? "" : "; FAILED: ",
                results[t].error.c_str());
    matched += results[t].matched;
    worst = std::max(worst, results[t].worst);
    executes_ok &= results[t].error.empty();
  }
  uint64_t spill_written = 0;
  const auto* spill_bytes = static_cast<const uint8_t*>(spillfill_buffer);
  for (uint64_t k = 0; k < spillfill_size; ++k) spill_written += spill_bytes[k] != kSentinel;
  std::printf("        shared spill-fill buffer: %llu of %llu bytes no longer hold the 0x%02X sentinel\n",
              static_cast<unsigned long long>(spill_written), static_cast<unsigned long long>(spillfill_size),
              kSentinel);

  // contextFree deregisters the shared buffers itself: afterwards QNN knows
  // none of the four handles, and free() of the buffers is an ordinary free
  // (the DSP heap would report, through QNN's log, a block QNN still holds).
  for (Qnn_ContextHandle_t& c : contexts) {
    if (Qnn_ErrorHandle_t e = api.contextFree(c, nullptr); e != QNN_SUCCESS) {
      return fail_released("step 8", "contextFree: " + describe_qnn_error(api, e));
    }
    c = nullptr;
  }
  std::printf("step 8  contextFree x2; memDeRegister of the 4 handles must now be refused as unknown "
              "(the backend logs one error line for each refusal):\n");
  std::fflush(stdout);
  size_t handles_released = 0;
  for (auto& per_context : handles) {
    for (Qnn_MemHandle_t& h : per_context) {
      handles_released += api.memDeRegister(&h, 1) == QNN_MEM_ERROR_INVALID_HANDLE;
    }
  }
  const size_t lines_before_free = BackendLines::count();
  release();
  const std::vector<std::string> free_reports = BackendLines::since(lines_before_free);
  std::printf("        %zu/4 handles unknown to QNN; free() of both buffers: %zu heap report(s)%s\n", handles_released,
              free_reports.size(), free_reports.empty() ? " (QNN held neither)" : ":");
  for (const std::string& line : free_reports) std::printf("          %s\n", line.c_str());

  const size_t total = kContexts * kPerThread;
  const bool passed =
      executes_ok && matched == total && spill_written > 0 && handles_released == 4 && free_reports.empty();
  std::printf(
      "nonrpc_concurrent_sharing: %zu/%zu outputs from 2 threads match the reference (max |diff| %.1e); "
      "shared spill-fill buffer (%llu B at 0x%08x): %llu B written by executes; VTCM-backup buffer %llu B at "
      "0x%08x; released by contextFree: %s%s\n",
      matched, total, worst, static_cast<unsigned long long>(spillfill_size), spillfill_qurt,
      static_cast<unsigned long long>(spill_written), static_cast<unsigned long long>(vtcm_backup_size),
      vtcm_backup_qurt, handles_released == 4 && free_reports.empty() ? "yes" : "NO",
      passed ? "" : " -- checks FAILED");
  return passed ? 0 : 1;
}
