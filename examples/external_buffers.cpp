// The HTP shared-buffer tutorial, "FastRPC Use Case: Using
// QNN_HTP_MEM_WEIGHTS_BUFFER and QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER with QNN
// API", step by step. The context's weights and its spill-fill region (the
// DDR memory for intermediates that do not fit the graph's VTCM budget) live
// in rpcmem buffers the client allocates and registers, instead of in memory
// the DSP process allocates for itself.
//
// The tutorial starts from a context binary. So that the example needs no
// file, it first builds one: a chain of elementwise ops on [1,64,64,8] float
// tensors with STATIC weights, prepared "online" with a VTCM budget of two
// tensors (QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES), so several
// intermediates spill; contextGetBinarySize / contextGetBinary serialize it.
//
//   a   = x * w_scale          (ElementWiseMultiply, w_scale STATIC)
//   b   = a + w_bias           (ElementWiseAdd,      w_bias  STATIC)
//   c   = Relu(b)
//   d   = c * a                (a still alive)
//   e   = d + b                (b still alive)
//   out = e + w_shift          (ElementWiseAdd,      w_shift STATIC)
//
// Then the tutorial's five steps on that binary, graphRetrieve and execute,
// with checks that the outputs match a plain C++ reference, that the weights
// buffer holds the weights after contextFinalize and that executes wrote
// into the spill-fill buffer.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "HTP/QnnHtpContext.h"
#include "HTP/QnnHtpGraph.h"
#include "HTP/QnnHtpMem.h"
#include "QnnMem.h"
#include "QnnOpDef.h"
#include "common/qnn_loader.h"
#include "common/qnn_session.h"
#include "common/rpcmem_loader.h"

using namespace examples;

namespace {

constexpr uint32_t kH = 64, kW = 64, kC = 8;
constexpr size_t kElements = size_t{kH} * kW * kC;  // 32768
constexpr size_t kTensorBytes = kElements * sizeof(float);  // 128 KiB
// Two tensors' worth of VTCM: the chain keeps up to four intermediates alive
// at once, so the rest must spill.
constexpr uint64_t kVtcmBudgetBytes = 2 * kTensorBytes;
constexpr size_t kBatch = 3;  // inputs executed one after another
constexpr uint8_t kSentinel = 0xEE;
constexpr const char* kGraphName = "ext_chain";

int fail(const char* step, const std::string& why) {
  std::printf("FAILED at %s: %s\n", step, why.c_str());
  return 1;
}

struct Weights {
  std::vector<float> scale, bias, shift;
};

Weights make_weights() {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> scale(0.5f, 1.5f), bias(-0.5f, 0.5f);
  Weights w{std::vector<float>(kElements), std::vector<float>(kElements), std::vector<float>(kElements)};
  for (size_t i = 0; i < kElements; ++i) {
    w.scale[i] = scale(rng);
    w.bias[i] = bias(rng);
    w.shift[i] = bias(rng);
  }
  return w;
}

std::vector<std::vector<float>> make_inputs(size_t count) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::vector<float>> inputs(count, std::vector<float>(kElements));
  for (auto& in : inputs) {
    for (float& v : in) v = u(rng);
  }
  return inputs;
}

// The same chain, element by element, in plain C++.
std::vector<float> reference(const Weights& w, const std::vector<float>& x) {
  std::vector<float> out(kElements);
  for (size_t i = 0; i < kElements; ++i) {
    const float a = x[i] * w.scale[i];
    const float b = a + w.bias[i];
    const float c = b > 0.0f ? b : 0.0f;
    const float d = c * a;
    const float e = d + b;
    out[i] = e + w.shift[i];
  }
  return out;
}

// Step 0: the graph, built and finalized in an ordinary ("online") context
// with a small VTCM budget, then serialized. Returns the context binary, or
// an empty vector with `error` set.
class ChainGraphBuilder {
 public:
  ChainGraphBuilder(const QNN_INTERFACE_VER_TYPE& api, const Weights& w) : api_(api), w_(w) {}

  bool build(Qnn_ContextHandle_t context, std::string* error) {
    QnnHtpGraph_CustomConfig_t htp_cfg{};
    htp_cfg.option = QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES;
    htp_cfg.vtcmSizeInBytes = kVtcmBudgetBytes;
    QnnGraph_Config_t cfg = QNN_GRAPH_CONFIG_INIT;
    cfg.option = QNN_GRAPH_CONFIG_OPTION_CUSTOM;
    cfg.customConfig = &htp_cfg;
    const QnnGraph_Config_t* cfgs[] = {&cfg, nullptr};
    if (Qnn_ErrorHandle_t e = api_.graphCreate(context, kGraphName, cfgs, &graph_); e != QNN_SUCCESS) {
      *error = "graphCreate: " + describe_qnn_error(api_, e);
      return false;
    }
    Qnn_Tensor_t x = tensor("x", QNN_TENSOR_TYPE_APP_WRITE);
    Qnn_Tensor_t w_scale = tensor("w_scale", QNN_TENSOR_TYPE_STATIC, &w_.scale);
    Qnn_Tensor_t w_bias = tensor("w_bias", QNN_TENSOR_TYPE_STATIC, &w_.bias);
    Qnn_Tensor_t w_shift = tensor("w_shift", QNN_TENSOR_TYPE_STATIC, &w_.shift);
    Qnn_Tensor_t a = tensor("a", QNN_TENSOR_TYPE_NATIVE), b = tensor("b", QNN_TENSOR_TYPE_NATIVE);
    Qnn_Tensor_t c = tensor("c", QNN_TENSOR_TYPE_NATIVE), d = tensor("d", QNN_TENSOR_TYPE_NATIVE);
    Qnn_Tensor_t e = tensor("e", QNN_TENSOR_TYPE_NATIVE);
    Qnn_Tensor_t out = tensor("out", QNN_TENSOR_TYPE_APP_READ);
    for (Qnn_Tensor_t* t : {&x, &w_scale, &w_bias, &w_shift, &a, &b, &c, &d, &e, &out}) {
      if (Qnn_ErrorHandle_t err = api_.tensorCreateGraphTensor(graph_, t); err != QNN_SUCCESS) {
        *error = std::string("tensorCreateGraphTensor(") + t->v1.name + "): " + describe_qnn_error(api_, err);
        return false;
      }
    }
    const bool ok = node("mul_scale", QNN_OP_ELEMENT_WISE_MULTIPLY, {x, w_scale}, a, error) &&
                    node("add_bias", QNN_OP_ELEMENT_WISE_ADD, {a, w_bias}, b, error) &&
                    node("relu", QNN_OP_RELU, {b}, c, error) &&
                    node("mul_gate", QNN_OP_ELEMENT_WISE_MULTIPLY, {c, a}, d, error) &&
                    node("add_skip", QNN_OP_ELEMENT_WISE_ADD, {d, b}, e, error) &&
                    node("add_shift", QNN_OP_ELEMENT_WISE_ADD, {e, w_shift}, out, error);
    if (!ok) return false;
    if (Qnn_ErrorHandle_t err = api_.graphFinalize(graph_, nullptr, nullptr); err != QNN_SUCCESS) {
      *error = "graphFinalize: " + describe_qnn_error(api_, err);
      return false;
    }
    input_ = x;
    output_ = out;
    return true;
  }

  // Templates for graphExecute (ids as the backend assigned them; the same in
  // every context loaded from the binary).
  const Qnn_Tensor_t& input() const { return input_; }
  const Qnn_Tensor_t& output() const { return output_; }
  size_t node_count() const { return nodes_; }

 private:
  Qnn_Tensor_t tensor(const char* name, Qnn_TensorType_t type, const std::vector<float>* data = nullptr) {
    Qnn_Tensor_t t = QNN_TENSOR_INIT;
    t.v1.name = name;
    t.v1.type = type;
    t.v1.dataType = QNN_DATATYPE_FLOAT_32;
    t.v1.rank = 4;
    t.v1.dimensions = dims_;
    t.v1.memType = QNN_TENSORMEMTYPE_RAW;
    if (data != nullptr) {
      t.v1.clientBuf = {const_cast<float*>(data->data()), static_cast<uint32_t>(data->size() * sizeof(float))};
    }
    return t;
  }

  bool node(const char* name, const char* type, std::vector<Qnn_Tensor_t> inputs, Qnn_Tensor_t output,
            std::string* error) {
    Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
    op.v1.name = name;
    op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
    op.v1.typeName = type;
    op.v1.numOfInputs = static_cast<uint32_t>(inputs.size());
    op.v1.inputTensors = inputs.data();
    op.v1.numOfOutputs = 1;
    op.v1.outputTensors = &output;
    if (Qnn_ErrorHandle_t e = api_.graphAddNode(graph_, op); e != QNN_SUCCESS) {
      *error = std::string("graphAddNode(") + name + "): " + describe_qnn_error(api_, e);
      return false;
    }
    ++nodes_;
    return true;
  }

  const QNN_INTERFACE_VER_TYPE& api_;
  const Weights& w_;
  uint32_t dims_[4] = {1, kH, kW, kC};
  Qnn_GraphHandle_t graph_ = nullptr;
  Qnn_Tensor_t input_ = QNN_TENSOR_INIT, output_ = QNN_TENSOR_INIT;
  size_t nodes_ = 0;
};

// Step 2 helper: one HTP custom context property, as in the tutorial.
bool get_custom_property(const QNN_INTERFACE_VER_TYPE& api, Qnn_ContextHandle_t context,
                         QnnHtpContext_GetPropertyOption_t option, uint64_t* value, std::string* error) {
  QnnHtpContext_CustomProperty_t custom = QNN_HTP_CONTEXT_CUSTOM_PROPERTY_INIT;
  custom.option = option;
  custom.weightsBufferSize = static_cast<uint64_t>(-1);  // the union's members are all one uint64_t
  QnnContext_Property_t property = QNN_CONTEXT_PROPERTY_INIT;
  property.option = QNN_CONTEXT_PROPERTY_OPTION_CUSTOM;
  property.customProperty = &custom;
  QnnContext_Property_t* properties[] = {&property, nullptr};
  if (Qnn_ErrorHandle_t e = api.contextGetProperty(context, properties); e != QNN_SUCCESS) {
    *error = "contextGetProperty: " + describe_qnn_error(api, e);
    return false;
  }
  switch (option) {
    case QNN_HTP_CONTEXT_GET_PROP_WEIGHTS_BUFFER_SIZE: *value = custom.weightsBufferSize; break;
    case QNN_HTP_CONTEXT_GET_PROP_MAX_SPILLFILL_BUFFER_SIZE: *value = custom.spillfillBufferSize; break;
    case QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT: *value = custom.bufferStartAlignment; break;
    default: *value = custom.weightsBufferSize; break;
  }
  return true;
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
  if (!builder.build(session.context, &error)) return fail("step 0", error);
  Qnn_ContextBinarySize_t binary_size = 0;
  if (Qnn_ErrorHandle_t e = api.contextGetBinarySize(session.context, &binary_size); e != QNN_SUCCESS) {
    return fail("step 0", "contextGetBinarySize: " + describe_qnn_error(api, e));
  }
  std::vector<uint8_t> binary(binary_size);
  Qnn_ContextBinarySize_t written = 0;
  if (Qnn_ErrorHandle_t e = api.contextGetBinary(session.context, binary.data(), binary_size, &written);
      e != QNN_SUCCESS) {
    return fail("step 0", "contextGetBinary: " + describe_qnn_error(api, e));
  }
  binary.resize(written);
  std::printf(
      "step 0  online context: graph '%s' (%zu nodes on [1,%u,%u,%u] float32, 3 STATIC weights of %zu B) "
      "finalized with VTCM_SIZE_IN_BYTES=%llu; contextGetBinary -> %llu B\n",
      kGraphName, builder.node_count(), kH, kW, kC, kTensorBytes, static_cast<unsigned long long>(kVtcmBudgetBytes),
      static_cast<unsigned long long>(written));

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
    const std::vector<float> want = reference(weights, inputs[i]);
    double diff = 0.0;
    for (size_t k = 0; k < kElements; ++k) {
      const double d = std::fabs(static_cast<double>(output_data[k]) - want[k]);
      diff = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(diff, d);
    }
    const bool ok = diff <= 1e-5;
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
