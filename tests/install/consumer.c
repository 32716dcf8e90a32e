/* A client built only against an installed openhtp, the way a project builds
 * against a QNN SDK: -I<prefix>/include/QNN -I<prefix>/include, nothing
 * linked. Loads the backend with dlopen (argv[1], default "libQnnHtp.so"),
 * then libcdsprpc.so by name for rpcmem (as ONNX Runtime's QNN provider
 * does), registers an rpcmem buffer and runs a one-node graph in the DSP
 * process.
 *   consumer [backend] [--expect-no-sdk]
 * --expect-no-sdk: the backend was copied away from its SDK with nothing to
 * find it by; backendCreate must refuse with QNN_COMMON_ERROR_LOADING_BINARIES. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "HTP/QnnHtpMem.h"
#include "QnnInterface.h"
#include "rpcmem.h" /* constants only: the functions come from dlsym */

#define CHECK(x)                                                   \
  do {                                                             \
    if (!(x)) {                                                    \
      fprintf(stderr, "consumer: check failed: %s (line %d)\n", #x, __LINE__); \
      return 1;                                                    \
    }                                                              \
  } while (0)

typedef Qnn_ErrorHandle_t (*GetProvidersFn)(const QnnInterface_t***, uint32_t*);
typedef void* (*RpcmemAllocFn)(int, uint32_t, int);
typedef void (*RpcmemFreeFn)(void*);
typedef int (*RpcmemToFdFn)(void*);

int main(int argc, char** argv) {
  const char* backend_path = argc > 1 ? argv[1] : "libQnnHtp.so";
  const int expect_no_sdk = argc > 2 && strcmp(argv[2], "--expect-no-sdk") == 0;
  void* lib = dlopen(backend_path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) fprintf(stderr, "consumer: %s\n", dlerror());
  CHECK(lib != NULL);
  GetProvidersFn get = (GetProvidersFn)dlsym(lib, "QnnInterface_getProviders");
  CHECK(get != NULL);
  const QnnInterface_t** providers = NULL;
  uint32_t n = 0;
  CHECK(get(&providers, &n) == QNN_SUCCESS && n >= 1);
  CHECK(providers[0]->apiVersion.coreApiVersion.major == QNN_API_VERSION_MAJOR);
  QNN_INTERFACE_VER_TYPE api = providers[0]->QNN_INTERFACE_VER_NAME;

  Qnn_BackendHandle_t backend = NULL;
  Qnn_ContextHandle_t ctx = NULL;
  Qnn_GraphHandle_t graph = NULL;
  if (expect_no_sdk) {
    CHECK(api.backendCreate(NULL, NULL, &backend) == QNN_COMMON_ERROR_LOADING_BINARIES);
    printf("consumer: a backend copied away from its SDK is refused with LOADING_BINARIES\n");
    return 0;
  }
  CHECK(api.backendCreate(NULL, NULL, &backend) == QNN_SUCCESS);
  /* After the backend: by name, the one it loaded (one rpcmem per process). */
  void* rpc = dlopen("libcdsprpc.so", RTLD_NOW | RTLD_LOCAL);
  if (rpc == NULL) fprintf(stderr, "consumer: %s\n", dlerror());
  CHECK(rpc != NULL);
  RpcmemAllocFn rpcmem_alloc = (RpcmemAllocFn)dlsym(rpc, "rpcmem_alloc");
  RpcmemFreeFn rpcmem_free = (RpcmemFreeFn)dlsym(rpc, "rpcmem_free");
  RpcmemToFdFn rpcmem_to_fd = (RpcmemToFdFn)dlsym(rpc, "rpcmem_to_fd");
  CHECK(rpcmem_alloc != NULL && rpcmem_free != NULL && rpcmem_to_fd != NULL);
  CHECK(api.contextCreate(backend, NULL, NULL, &ctx) == QNN_SUCCESS);
  CHECK(api.graphCreate(ctx, "relu", NULL, &graph) == QNN_SUCCESS);

  uint32_t dims[1] = {4};
  Qnn_Tensor_t in = QNN_TENSOR_INIT, out = QNN_TENSOR_INIT;
  in.v1.name = "in";
  in.v1.type = QNN_TENSOR_TYPE_APP_WRITE;
  in.v1.dataType = QNN_DATATYPE_FLOAT_32;
  in.v1.rank = 1;
  in.v1.dimensions = dims;
  out = in;
  out.v1.name = "out";
  out.v1.type = QNN_TENSOR_TYPE_APP_READ;
  CHECK(api.tensorCreateGraphTensor(graph, &in) == QNN_SUCCESS);
  CHECK(api.tensorCreateGraphTensor(graph, &out) == QNN_SUCCESS);
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  op.v1.name = "relu";
  op.v1.packageName = "qti.aisw";
  op.v1.typeName = "Relu";
  op.v1.numOfInputs = 1;
  op.v1.inputTensors = &in;
  op.v1.numOfOutputs = 1;
  op.v1.outputTensors = &out;
  CHECK(api.graphAddNode(graph, op) == QNN_SUCCESS);
  CHECK(api.graphFinalize(graph, NULL, NULL) == QNN_SUCCESS);

  float* buf = (float*)rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, 32);
  CHECK(buf != NULL);
  QnnMemHtp_Descriptor_t htp;
  memset(&htp, 0, sizeof htp);
  htp.type = QNN_HTP_MEM_SHARED_BUFFER;
  htp.size = 32;
  htp.sharedBufferConfig.fd = rpcmem_to_fd(buf);
  Qnn_MemDescriptor_t desc[2] = {QNN_MEM_DESCRIPTOR_INIT, QNN_MEM_DESCRIPTOR_INIT};
  QnnMemHtp_Descriptor_t htp2 = htp;
  htp2.sharedBufferConfig.offset = 16;
  for (int i = 0; i < 2; ++i) {
    desc[i].memShape.numDim = 1;
    desc[i].memShape.dimSize = dims;
    desc[i].dataType = QNN_DATATYPE_FLOAT_32;
    desc[i].memType = QNN_MEM_TYPE_CUSTOM;
    desc[i].customInfo = i == 0 ? &htp : &htp2;
  }
  Qnn_MemHandle_t handles[2] = {NULL, NULL};
  CHECK(api.memRegister(ctx, desc, 2, handles) == QNN_SUCCESS);
  buf[0] = -1.0f;
  buf[1] = 2.0f;
  buf[2] = -3.0f;
  buf[3] = 4.0f;
  in.v1.memType = out.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
  in.v1.memHandle = handles[0];
  out.v1.memHandle = handles[1];
  CHECK(api.graphExecute(graph, &in, 1, &out, 1, NULL, NULL) == QNN_SUCCESS);
  CHECK(buf[4] == 0.0f && buf[5] == 2.0f && buf[6] == 0.0f && buf[7] == 4.0f);
  CHECK(api.memDeRegister(handles, 2) == QNN_SUCCESS);
  rpcmem_free(buf);
  CHECK(api.contextFree(ctx, NULL) == QNN_SUCCESS);
  CHECK(api.backendFree(backend) == QNN_SUCCESS);
  printf("consumer: installed SDK works (relu via SHARED_BUFFER handles in the DSP process)\n");
  return 0;
}
