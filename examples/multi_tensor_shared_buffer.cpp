// The HTP shared-buffer tutorial, "Using QNN_HTP_MEM_SHARED_BUFFER with QNN
// API", step by step on a small CNN: ONE rpcmem buffer (one pointer, one file
// descriptor) holds both the input and the output, one after the other. Each
// tensor still gets its own memory handle, registered as QNN_MEM_TYPE_CUSTOM
// with a QnnMemHtp_Descriptor_t that names the fd and the tensor's offset.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "HTP/QnnHtpMem.h"
#include "QnnMem.h"
#include "common/output_check.h"
#include "common/qnn_loader.h"
#include "common/qnn_session.h"
#include "common/reference_cnn.h"
#include "common/report.h"
#include "common/rpcmem_loader.h"
#include "common/tiny_cnn.h"

using namespace examples;

namespace {

constexpr size_t kBatch = 8;  // inputs executed one after another

int fail(const char* step, const std::string& why) {
  std::printf("FAILED at %s: %s\n", step, why.c_str());
  return 1;
}

}  // namespace

int main() {
  std::printf(
      "== multi_tensor_shared_buffer: input and output in one rpcmem buffer, "
      "QNN_HTP_MEM_SHARED_BUFFER handle per tensor ==\n");
  std::string error;

  // Step 1: load libcdsprpc.so and resolve rpcmem_alloc / rpcmem_free / rpcmem_to_fd.
  RpcMemLibrary rpcmem;
  if (!rpcmem.load(&error)) return fail("step 1", error);
  std::printf("step 1  dlopen(\"libcdsprpc.so\") -> %s; rpcmem_alloc, rpcmem_free, rpcmem_to_fd resolved\n",
              rpcmem.path.c_str());

  // Step 2: load the QNN HTP backend and take its function table.
  QnnBackendLibrary qnn;
  if (!qnn.load("libQnnHtp.so", &error)) return fail("step 2", error);
  std::printf("step 2  dlopen(\"libQnnHtp.so\") -> %s; provider \"%s\", core API %u.%u.%u\n", qnn.path.c_str(),
              qnn.provider_name.c_str(), qnn.api_version.coreApiVersion.major, qnn.api_version.coreApiVersion.minor,
              qnn.api_version.coreApiVersion.patch);

  // Step 3: a context (memRegister needs one) and the graph in it.
  QnnSession session(qnn.api);
  if (!session.open(&error)) return fail("step 3", error);
  const tiny_cnn::Weights weights = tiny_cnn::make_weights(tiny_cnn::kWeightSeed);
  TinyCnnGraph cnn(qnn.api, weights);
  if (!cnn.build(session.context, "tiny_cnn", &error)) return fail("step 3", error);
  std::printf("step 3  backend and context created; tiny CNN built with %zu nodes and finalized\n", cnn.node_count());

  ExecuteReport report(qnn, session.backend);
  if (!report.init(&error)) return fail("step 3", error);

  // The tensors that share the buffer, in buffer order, with their sizes.
  Qnn_Tensor_t tensors[] = {cnn.input(), cnn.output()};
  const char* const names[] = {"input", "output"};
  const uint64_t tensor_sizes[] = {tiny_cnn::kInputBytes, tiny_cnn::kOutputBytes};
  constexpr size_t kNumTensors = std::size(tensors);

  // Step 4: the buffer is the sum of the tensor sizes.
  uint64_t total_buffer_size = 0;
  for (uint64_t size : tensor_sizes) total_buffer_size += size;

  // Step 5: allocate it once and get its single file descriptor.
  auto* mem = static_cast<uint8_t*>(
      rpcmem.rpcmem_alloc(kRpcMemHeapIdSystem, kRpcMemDefaultFlags, static_cast<int>(total_buffer_size)));
  if (mem == nullptr) return fail("step 5", "rpcmem_alloc");
  const int fd = rpcmem.rpcmem_to_fd(mem);
  if (fd == -1) {
    rpcmem.rpcmem_free(mem);
    return fail("step 5", "rpcmem_to_fd");
  }
  std::printf("step 4-5 rpcmem_alloc(%d, %u, %llu) -> %p, rpcmem_to_fd -> fd %d (input %llu B + output %llu B)\n",
              kRpcMemHeapIdSystem, kRpcMemDefaultFlags, static_cast<unsigned long long>(total_buffer_size),
              static_cast<void*>(mem), fd, static_cast<unsigned long long>(tensor_sizes[0]),
              static_cast<unsigned long long>(tensor_sizes[1]));

  // Handles first, memory last, whatever happens.
  auto release = [&] {
    for (size_t i = 0; i < kNumTensors; ++i) {
      if (tensors[i].v1.memHandle != nullptr && qnn.api.memDeRegister(&tensors[i].v1.memHandle, 1) != QNN_SUCCESS) {
        std::printf("  memDeRegister(%s) failed\n", names[i]);
      }
      tensors[i].v1.memHandle = nullptr;
    }
    rpcmem.rpcmem_free(mem);
  };

  // Step 6: one descriptor and one handle per tensor, each at its offset.
  uint64_t offsets[kNumTensors] = {};
  uint64_t offset = 0;
  for (size_t i = 0; i < kNumTensors; ++i) {
    Qnn_MemDescriptor_t desc = QNN_MEM_DESCRIPTOR_INIT;
    desc.memShape = {tensors[i].v1.rank, tensors[i].v1.dimensions, nullptr};
    desc.dataType = tensors[i].v1.dataType;
    desc.memType = QNN_MEM_TYPE_CUSTOM;
    tensors[i].v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
    tensors[i].v1.memHandle = nullptr;

    QnnMemHtp_Descriptor_t htp_desc{};
    htp_desc.type = QNN_HTP_MEM_SHARED_BUFFER;
    htp_desc.size = total_buffer_size;  // the WHOLE buffer, not this tensor
    htp_desc.sharedBufferConfig = QnnHtpMem_SharedBufferConfig_t{fd, offset};
    desc.customInfo = &htp_desc;

    if (Qnn_ErrorHandle_t e = qnn.api.memRegister(session.context, &desc, 1, &tensors[i].v1.memHandle);
        e != QNN_SUCCESS) {
      tensors[i].v1.memHandle = nullptr;
      release();
      return fail("step 6", std::string("memRegister for ") + names[i] + ": " + describe_qnn_error(qnn.api, e));
    }
    std::printf(
        "step 6  %-6s: memRegister(QNN_MEM_TYPE_CUSTOM, QNN_HTP_MEM_SHARED_BUFFER, size %llu, fd %d, "
        "offset %llu) -> handle %p\n",
        names[i], static_cast<unsigned long long>(total_buffer_size), fd, static_cast<unsigned long long>(offset),
        tensors[i].v1.memHandle);
    offsets[i] = offset;
    offset += tensor_sizes[i];  // the next tensor starts right after this one
  }

  // Step 7: for each input, write it at its offset, execute, read the output
  // at its offset and check it.
  std::printf("step 7  executing %zu random inputs, data in place in the shared buffer:\n", kBatch);
  OutputCheck check("multi_tensor_shared_buffer", {0, 0, tiny_cnn::kInputBytes + tiny_cnn::kOutputBytes});
  const auto inputs = tiny_cnn::make_inputs(kBatch, tiny_cnn::kInputSeed);
  auto* out_probs = reinterpret_cast<float*>(mem + offsets[1]);
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::memcpy(mem + offsets[0], inputs[i].data(), tiny_cnn::kInputBytes);
    // NaN-fill the output so a stale result could not pass the check.
    std::fill_n(out_probs, tiny_cnn::kClasses, std::numeric_limits<float>::quiet_NaN());
    if (Qnn_ErrorHandle_t e =
            qnn.api.graphExecute(cnn.graph(), &tensors[0], 1, &tensors[1], 1, report.profile(), nullptr);
        e != QNN_SUCCESS) {
      check.fail("graphExecute: " + describe_qnn_error(qnn.api, e));
      break;
    }
    check.check_output(i, out_probs, reference_cnn(weights, inputs[i]));
    CopyAccounting accounting;
    const bool read_ok = report.read_last(cnn.graph(), &accounting, &error);
    check.check_accounting(accounting, read_ok, error);
  }

  // Step 8: deregister every handle, then free the one buffer.
  release();
  std::printf("step 8  memDeRegister both handles, rpcmem_free the buffer\n");
  return check.finish();
}
