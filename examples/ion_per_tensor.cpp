// The HTP shared-buffer tutorial, "Using QNN_MEM_TYPE_ION with QNN API", step
// by step on a small CNN: every graph tensor the client touches (one input,
// one output) gets its own rpcmem buffer, file descriptor and memory handle.
// The DSP process maps those very pages, so an execute copies no tensor data:
// the client writes the input through its pointer and reads the output the
// same way.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

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

// One tensor's shared buffer: what rpcmem gives and what QNN returns for it.
struct IonBuffer {
  const char* what;
  size_t size = 0;
  uint8_t* mem = nullptr;  // the client's view of the buffer
  int fd = -1;
  Qnn_MemHandle_t handle = nullptr;
};

int fail(const char* step, const std::string& why) {
  std::printf("FAILED at %s: %s\n", step, why.c_str());
  return 1;
}

}  // namespace

int main() {
  std::printf("== ion_per_tensor: one rpcmem buffer and QNN_MEM_TYPE_ION handle per tensor ==\n");
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

  // The tensors we will pass to graphExecute, copied from the templates.
  Qnn_Tensor_t input = cnn.input();
  Qnn_Tensor_t output = cnn.output();
  IonBuffer in_buf{"input", tiny_cnn::kInputBytes};
  IonBuffer out_buf{"output", tiny_cnn::kOutputBytes};

  // Whatever happens next, handles are deregistered before their memory is freed.
  auto release = [&] {
    for (IonBuffer* b : {&in_buf, &out_buf}) {
      if (b->handle != nullptr && qnn.api.memDeRegister(&b->handle, 1) != QNN_SUCCESS) {
        std::printf("  memDeRegister(%s) failed\n", b->what);
      }
      b->handle = nullptr;
      if (b->mem != nullptr) rpcmem.rpcmem_free(b->mem);
      b->mem = nullptr;
    }
  };
  auto give_up = [&](const char* step, const std::string& why) {
    release();
    return fail(step, why);
  };

  for (auto [buf, tensor] : {std::pair{&in_buf, &input}, std::pair{&out_buf, &output}}) {
    // Step 4: allocate the shared buffer and get its file descriptor.
    buf->mem = static_cast<uint8_t*>(
        rpcmem.rpcmem_alloc(kRpcMemHeapIdSystem, kRpcMemDefaultFlags, static_cast<int>(buf->size)));
    if (buf->mem == nullptr) return give_up("step 4", std::string("rpcmem_alloc for ") + buf->what);
    buf->fd = rpcmem.rpcmem_to_fd(buf->mem);
    if (buf->fd == -1) return give_up("step 4", std::string("rpcmem_to_fd for ") + buf->what);

    // Step 5: describe it as an ION buffer shaped like the tensor and register it.
    Qnn_MemDescriptor_t desc = QNN_MEM_DESCRIPTOR_INIT;
    desc.memShape = {tensor->v1.rank, tensor->v1.dimensions, nullptr};
    desc.dataType = tensor->v1.dataType;
    desc.memType = QNN_MEM_TYPE_ION;
    desc.ionInfo.fd = buf->fd;
    // Step 6: the tensor now names its data by handle instead of clientBuf.
    tensor->v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
    tensor->v1.memHandle = nullptr;
    if (Qnn_ErrorHandle_t e = qnn.api.memRegister(session.context, &desc, 1, &tensor->v1.memHandle); e != QNN_SUCCESS) {
      return give_up("step 5", std::string("memRegister for ") + buf->what + ": " + describe_qnn_error(qnn.api, e));
    }
    buf->handle = tensor->v1.memHandle;
    std::printf(
        "step 4-6 %-6s: rpcmem_alloc(%d, %u, %zu) -> %p, rpcmem_to_fd -> fd %d, "
        "memRegister(QNN_MEM_TYPE_ION) -> handle %p\n",
        buf->what, kRpcMemHeapIdSystem, kRpcMemDefaultFlags, buf->size, static_cast<void*>(buf->mem), buf->fd,
        buf->handle);
  }

  // Step 7: for each input, write it through the pointer, execute, read the
  // output through the other pointer and check it.
  std::printf("step 7  executing %zu random inputs, data in place in the rpcmem buffers:\n", kBatch);
  OutputCheck check("ion_per_tensor", {0, 0, tiny_cnn::kInputBytes + tiny_cnn::kOutputBytes});
  const auto inputs = tiny_cnn::make_inputs(kBatch, tiny_cnn::kInputSeed);
  auto* out_probs = reinterpret_cast<float*>(out_buf.mem);
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::memcpy(in_buf.mem, inputs[i].data(), tiny_cnn::kInputBytes);
    // NaN-fill the output so a stale result could not pass the check.
    std::fill_n(out_probs, tiny_cnn::kClasses, std::numeric_limits<float>::quiet_NaN());
    if (Qnn_ErrorHandle_t e = qnn.api.graphExecute(cnn.graph(), &input, 1, &output, 1, report.profile(), nullptr);
        e != QNN_SUCCESS) {
      check.fail("graphExecute: " + describe_qnn_error(qnn.api, e));
      break;
    }
    check.check_output(i, out_probs, reference_cnn(weights, inputs[i]));
    CopyAccounting accounting;
    const bool read_ok = report.read_last(cnn.graph(), &accounting, &error);
    check.check_accounting(accounting, read_ok, error);
  }

  // Step 8: deregister the handles, then free the buffers.
  release();
  std::printf("step 8  memDeRegister both handles, rpcmem_free both buffers\n");
  return check.finish();
}
