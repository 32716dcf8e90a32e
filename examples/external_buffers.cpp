// The HTP shared-buffer tutorial, "FastRPC Use Case: Using
// QNN_HTP_MEM_WEIGHTS_BUFFER and QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER with QNN
// API", step by step. The context's weights and its spill-fill region (the
// DDR memory for intermediates that do not fit the graph's VTCM budget) live
// in rpcmem buffers the client allocates and registers, instead of in memory
// the DSP process allocates for itself.
//
// The tutorial starts from a context binary. So that the example needs no
// file, it first builds one: the chain graph of common/chain_graph.h
// (elementwise ops on [1,64,64,8] float tensors with STATIC weights),
// prepared "online" with a VTCM budget of two tensors, so several
// intermediates spill; contextGetBinarySize / contextGetBinary serialize it.
//
// Then the tutorial's five steps on that binary, graphRetrieve and execute,
// with checks that the outputs match a plain C++ reference, that the weights
// buffer holds the weights after contextFinalize and that executes wrote
// into the spill-fill buffer.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpMem.h"
#include "QnnMem.h"
#include "common/chain_graph.h"
#include "common/qnn_loader.h"
#include "common/qnn_session.h"
#include "common/rpcmem_loader.h"

using namespace examples;
using namespace examples::chain_graph;

namespace {

constexpr size_t kBatch = 3;  // inputs executed one after another
constexpr uint8_t kSentinel = 0xEE;
constexpr const char* kGraphName = "ext_chain";

int fail(const char* step, const std::string& why) {
  std::printf("FAILED at %s: %s\n", step, why.c_str());
  return 1;
}

uint64_t round_up(uint64_t v, uint64_t a) { return a == 0 ? v : (v + a - 1) / a * a; }

// Where (at a multiple of `step`) `needle` sits in `hay`, or -1.
int64_t find_aligned(const uint8_t* hay, uint64_t hay_size, const void* needle, uint64_t size, uint64_t step) {
  for (uint64_t at = 0; at + size <= hay_size; at += step) {
    if (std::memcmp(hay + at, needle, size) == 0) return static_cast<int64_t>(at);
  }
  return -1;
}

}  // namespace

int main() {
  std::printf(
      "== external_buffers: context weights in a QNN_HTP_MEM_WEIGHTS_BUFFER, spilled intermediates in a "
      "QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER (FastRPC use case) ==\n");
  std::string error;

  // Load libcdsprpc.so (rpcmem) and libQnnHtp.so (QnnInterface_getProviders).
  RpcMemLibrary rpcmem;
  if (!rpcmem.load(&error)) return fail("loading libcdsprpc.so", error);
  std::printf("load    dlopen(\"libcdsprpc.so\") -> %s; rpcmem_alloc, rpcmem_free, rpcmem_to_fd resolved\n",
              rpcmem.path.c_str());
  QnnBackendLibrary qnn;
  if (!qnn.load("libQnnHtp.so", &error)) return fail("loading libQnnHtp.so", error);
  std::printf("load    dlopen(\"libQnnHtp.so\") -> %s; provider \"%s\", core API %u.%u.%u\n", qnn.path.c_str(),
              qnn.provider_name.c_str(), qnn.api_version.coreApiVersion.major, qnn.api_version.coreApiVersion.minor,
              qnn.api_version.coreApiVersion.patch);
  const QNN_INTERFACE_VER_TYPE& api = qnn.api;

  // Step 0: a context binary of a graph that spills at its VTCM budget.
  QnnSession session(api);
  if (!session.open(&error)) return fail("step 0", error);
  const Weights weights = make_weights();
  ChainGraphBuilder builder(api, weights);
  if (!builder.build(session.context, kGraphName, &error)) return fail("step 0", error);
  std::vector<uint8_t> binary;
  if (!get_context_binary(api, session.context, &binary, &error)) return fail("step 0", error);
  std::printf(
      "step 0  online context: graph '%s' (%zu nodes on [1,%u,%u,%u] float32, 3 STATIC weights of %zu B) "
      "finalized with VTCM_SIZE_IN_BYTES=%llu; contextGetBinary -> %llu B\n",
      kGraphName, builder.node_count(), kH, kW, kC, kTensorBytes, static_cast<unsigned long long>(kVtcmBudgetBytes),
      static_cast<unsigned long long>(binary.size()));

  // Step 1: create a context from the binary with DEFER_GRAPH_INIT: only a
  // handle for now, so buffers can be registered before deserialization.
  // `defer_configs` and `binary` must stay valid until contextFinalize.
  QnnContext_Config_t defer_config = QNN_CONTEXT_CONFIG_INIT;
  defer_config.option = QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT;
  defer_config.isGraphInitDeferred = 1;
  const QnnContext_Config_t* defer_configs[] = {&defer_config, nullptr};
  Qnn_ContextHandle_t context = nullptr;
  if (Qnn_ErrorHandle_t e = api.contextCreateFromBinary(session.backend, nullptr, defer_configs, binary.data(),
                                                        binary.size(), &context, nullptr);
      e != QNN_SUCCESS) {
    return fail("step 1", "contextCreateFromBinary: " + describe_qnn_error(api, e));
  }
  std::printf("step 1  contextCreateFromBinary(%zu B, QNN_CONTEXT_CONFIG_OPTION_DEFER_GRAPH_INIT) -> context %p\n",
              binary.size(), static_cast<void*>(context));

  // Everything below releases through this: the context first (it
  // deregisters the external buffers itself), then the buffers.
  uint8_t* weights_buffer = nullptr;
  uint8_t* spillfill_buffer = nullptr;
  auto release = [&] {
    if (context != nullptr && api.contextFree(context, nullptr) != QNN_SUCCESS) std::printf("  contextFree failed\n");
    context = nullptr;
    if (weights_buffer != nullptr) rpcmem.rpcmem_free(weights_buffer);
    if (spillfill_buffer != nullptr) rpcmem.rpcmem_free(spillfill_buffer);
    weights_buffer = spillfill_buffer = nullptr;
  };
  auto fail_released = [&](const char* step, const std::string& why) {
    release();
    return fail(step, why);
  };

  // Step 2: the context's requirements.
  uint64_t weights_size = 0, spillfill_size = 0, alignment = 0;
  if (!get_custom_property(api, context, QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE, &weights_size, &error) ||
      !get_custom_property(api, context, QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE, &spillfill_size,
                           &error) ||
      !get_custom_property(api, context, QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT, &alignment, &error)) {
    return fail_released("step 2", error);
  }
  std::printf(
      "step 2  contextGetProperty: WEIGHTS_BUFFER_SIZE = %llu B, MAX_SPILLFILL_BUFFER_SIZE = %llu B, "
      "BUFFER_START_ALIGNMENT = %llu B\n",
      static_cast<unsigned long long>(weights_size), static_cast<unsigned long long>(spillfill_size),
      static_cast<unsigned long long>(alignment));
  if (weights_size < 3 * kTensorBytes) {
    return fail_released("step 2", "the weights buffer size is smaller than the three weights");
  }
  if (spillfill_size == 0) return fail_released("step 2", "nothing spills: no spill-fill buffer is needed");

  // Step 3: allocate both as DMA buffers (rpcmem). Their start (fd + offset)
  // must be aligned to BUFFER_START_ALIGNMENT: each buffer is its own fd and
  // starts at offset 0, which is aligned to any alignment; the sizes are
  // rounded up to it as well.
  const uint64_t weights_alloc = round_up(weights_size, alignment);
  const uint64_t spillfill_alloc = round_up(spillfill_size, alignment);
  weights_buffer = static_cast<uint8_t*>(
      rpcmem.rpcmem_alloc(kRpcMemHeapIdSystem, kRpcMemDefaultFlags, static_cast<int>(weights_alloc)));
  spillfill_buffer = static_cast<uint8_t*>(
      rpcmem.rpcmem_alloc(kRpcMemHeapIdSystem, kRpcMemDefaultFlags, static_cast<int>(spillfill_alloc)));
  if (weights_buffer == nullptr || spillfill_buffer == nullptr) return fail_released("step 3", "rpcmem_alloc");
  const int weights_fd = rpcmem.rpcmem_to_fd(weights_buffer);
  const int spillfill_fd = rpcmem.rpcmem_to_fd(spillfill_buffer);
  if (weights_fd == -1 || spillfill_fd == -1) return fail_released("step 3", "rpcmem_to_fd");
  const uint64_t weights_offset = 0, spillfill_offset = 0;  // multiples of `alignment`
  std::printf(
      "step 3  rpcmem_alloc: weights buffer %p (%llu B, fd %d, offset %llu), spill-fill buffer %p (%llu B, fd %d, "
      "offset %llu); both starts aligned to %llu B\n",
      static_cast<void*>(weights_buffer), static_cast<unsigned long long>(weights_alloc), weights_fd,
      static_cast<unsigned long long>(weights_offset), static_cast<void*>(spillfill_buffer),
      static_cast<unsigned long long>(spillfill_alloc), spillfill_fd, static_cast<unsigned long long>(spillfill_offset),
      static_cast<unsigned long long>(alignment));
  // Only QNN may write them from now on; these are the client's last writes,
  // so that the checks below can tell what QNN put there.
  std::memset(weights_buffer, 0, weights_alloc);
  std::memset(spillfill_buffer, kSentinel, spillfill_alloc);

  // Step 4: register them: QNN_MEM_TYPE_CUSTOM with a QnnMemHtp_Descriptor_t.
  // They are empty, so memShape and dataType do not apply.
  Qnn_MemHandle_t weights_handle = nullptr, spillfill_handle = nullptr;
  {
    Qnn_MemDescriptor_t desc = QNN_MEM_DESCRIPTOR_INIT;
    desc.memType = QNN_MEM_TYPE_CUSTOM;
    QnnMemHtp_Descriptor_t weights_desc{};
    weights_desc.type = QNN_HTP_MEM_WEIGHTS_BUFFER;
    weights_desc.size = weights_alloc;
    weights_desc.weightsBufferConfig = QnnHtpMem_SharedBufferConfig_t{weights_fd, weights_offset};
    desc.customInfo = &weights_desc;
    if (Qnn_ErrorHandle_t e = api.memRegister(context, &desc, 1, &weights_handle); e != QNN_SUCCESS) {
      return fail_released("step 4", "memRegister(QNN_HTP_MEM_WEIGHTS_BUFFER): " + describe_qnn_error(api, e));
    }
    QnnMemHtp_Descriptor_t spillfill_desc{};
    spillfill_desc.type = QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER;
    spillfill_desc.size = spillfill_alloc;
    spillfill_desc.spillfillBufferConfig = QnnHtpMem_SharedBufferConfig_t{spillfill_fd, spillfill_offset};
    desc.customInfo = &spillfill_desc;
    if (Qnn_ErrorHandle_t e = api.memRegister(context, &desc, 1, &spillfill_handle); e != QNN_SUCCESS) {
      return fail_released("step 4",
                           "memRegister(QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER): " + describe_qnn_error(api, e));
    }
  }
  std::printf(
      "step 4  memRegister(QNN_MEM_TYPE_CUSTOM, QNN_HTP_MEM_WEIGHTS_BUFFER) -> handle %p; "
      "memRegister(QNN_MEM_TYPE_CUSTOM, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER) -> handle %p\n",
      static_cast<void*>(weights_handle), static_cast<void*>(spillfill_handle));

  // Step 5: finalize: the context is deserialized now and QNN copies the
  // weights into the external weights buffer.
  if (Qnn_ErrorHandle_t e = api.contextFinalize(context, nullptr); e != QNN_SUCCESS) {
    return fail_released("step 5", "contextFinalize: " + describe_qnn_error(api, e));
  }
  size_t weights_found = 0;
  std::string where;
  const std::pair<const char*, const std::vector<float>*> weight_tensors[] = {
      {"w_scale", &weights.scale}, {"w_bias", &weights.bias}, {"w_shift", &weights.shift}};
  for (const auto& [name, data] : weight_tensors) {
    const int64_t at = find_aligned(weights_buffer, weights_alloc, data->data(), kTensorBytes, 4096);
    if (at >= 0) ++weights_found;
    where += std::string(where.empty() ? "" : ", ") + name + (at >= 0 ? " at offset " + std::to_string(at) : " MISSING");
  }
  std::printf("step 5  contextFinalize: the weights buffer holds %zu/3 weight tensors byte for byte (%s)\n",
              weights_found, where.c_str());

  // graphRetrieve, then execute with the input and output in client memory.
  Qnn_GraphHandle_t graph = nullptr;
  if (Qnn_ErrorHandle_t e = api.graphRetrieve(context, kGraphName, &graph); e != QNN_SUCCESS) {
    return fail_released("graphRetrieve", describe_qnn_error(api, e));
  }
  std::printf("step 6  graphRetrieve(\"%s\") -> graph %p\n", kGraphName, static_cast<void*>(graph));

  std::printf("step 7  executing %zu random inputs; spill-fill buffer filled with 0x%02X before the first:\n", kBatch,
              kSentinel);
  std::vector<float> input_data(kElements), output_data(kElements);
  Qnn_Tensor_t input = builder.input(), output = builder.output();
  input.v1.clientBuf = {input_data.data(), static_cast<uint32_t>(kTensorBytes)};
  output.v1.clientBuf = {output_data.data(), static_cast<uint32_t>(kTensorBytes)};
  size_t matched = 0;
  double worst = 0.0;
  uint64_t spill_changed_after_first = 0;
  const auto inputs = make_inputs(kBatch);
  for (size_t i = 0; i < inputs.size(); ++i) {
    input_data = inputs[i];
    std::fill(output_data.begin(), output_data.end(), std::numeric_limits<float>::quiet_NaN());
    if (Qnn_ErrorHandle_t e = api.graphExecute(graph, &input, 1, &output, 1, nullptr, nullptr); e != QNN_SUCCESS) {
      std::printf("  input %zu: graphExecute failed: %s\n", i, describe_qnn_error(api, e).c_str());
      break;
    }
    const double diff = max_abs_diff(output_data.data(), reference(weights, inputs[i]));
    const bool ok = diff <= kTolerance;
    matched += ok;
    worst = std::max(worst, diff);
    if (i == 0) {
      for (uint64_t k = 0; k < spillfill_alloc; ++k) spill_changed_after_first += spillfill_buffer[k] != kSentinel;
    }
    std::printf("  input %zu: %zu values, max |diff| vs C++ reference %.1e %s\n", i, kElements, diff,
                ok ? "ok" : "MISMATCH");
  }
  std::printf("  spill-fill buffer after the first execute: %llu of %llu bytes differ from the sentinel\n",
              static_cast<unsigned long long>(spill_changed_after_first),
              static_cast<unsigned long long>(spillfill_alloc));

  // Free the context (it deregisters both buffers), then the buffers.
  release();
  std::printf("step 8  contextFree (deregisters the external buffers), rpcmem_free both buffers\n");

  const bool passed = matched == kBatch && weights_found == 3 && spill_changed_after_first > 0;
  std::printf(
      "external_buffers: %zu/%zu outputs match the reference (max |diff| %.1e); weights buffer (%llu B) holds "
      "%zu/3 weights; spill-fill buffer (%llu B): %llu B written by executes%s\n",
      matched, kBatch, worst, static_cast<unsigned long long>(weights_alloc), weights_found,
      static_cast<unsigned long long>(spillfill_alloc), static_cast<unsigned long long>(spill_changed_after_first),
      passed ? "" : " -- checks FAILED");
  return passed ? 0 : 1;
}
