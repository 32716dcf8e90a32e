// graphExecute across the real process boundary: client buffers (copied once
// each way), memhandles (zero copy, both directions), and both mixed.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "openhtp/fastrpc_ext.h"
#include "openhtp/qnn_ext.h"
#include "qnn_test_util.h"
#include "rpcmem.h"

using namespace qnntest;

namespace {

std::vector<float> expected_add_relu(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> r(a.size());
  for (size_t i = 0; i < a.size(); ++i) r[i] = a[i] + b[i] > 0 ? a[i] + b[i] : 0.0f;
  return r;
}

std::vector<float> ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

class Execute : public QnnFixture {};

}  // namespace

TEST_F(Execute, ClientBuffersAreCopiedOnceEachWay) {
  const uint32_t n = 1024;
  build_add_relu(n);
  auto a = ramp(n, -3.0f, 0.01f), b = ramp(n, 1.0f, -0.005f);
  std::vector<float> out(n, -1.0f);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.clientBuf = {a.data(), n * 4};
  in[1].v1.clientBuf = {b.data(), n * 4};
  Qnn_Tensor_t o = out_;
  o.v1.clientBuf = {out.data(), n * 4};
  ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_EQ(out, expected_add_relu(a, b));
  OpenHtp_ExecuteStats_t st{};
  ASSERT_EQ(OpenHtp_getLastExecuteStats(graph_, &st), QNN_SUCCESS);
  // FastRPC copies plain memory once each way; in-process it is used where it is.
  const bool inproc = in_process_transport();
  EXPECT_EQ(st.bytesCopiedIn, inproc ? 0u : 2u * n * 4);
  EXPECT_EQ(st.bytesCopiedOut, inproc ? 0u : 1u * n * 4);
  EXPECT_EQ(st.bytesByReference, inproc ? 3u * n * 4 : 0u);
}

// The DSP times an execute only when asked: by OpenHtp_setDspTiming for the
// graph, or by a profile handle on that execute. A plain execute reads no
// clock and reports 0.
TEST_F(Execute, DspTimeIsMeasuredOnlyWhenAsked) {
  const uint32_t n = 1 << 16;  // enough work that a measured time is never 0 ns
  build_add_relu(n);
  auto a = ramp(n, -3.0f, 0.01f), b = ramp(n, 1.0f, -0.005f);
  std::vector<float> out(n);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.clientBuf = {a.data(), n * 4};
  in[1].v1.clientBuf = {b.data(), n * 4};
  Qnn_Tensor_t o = out_;
  o.v1.clientBuf = {out.data(), n * 4};
  auto dsp_ns = [&](Qnn_ProfileHandle_t profile) {
    EXPECT_EQ(api().graphExecute(graph_, in, 2, &o, 1, profile, nullptr), QNN_SUCCESS);
    OpenHtp_ExecuteStats_t st{};
    EXPECT_EQ(OpenHtp_getLastExecuteStats(graph_, &st), QNN_SUCCESS);
    return st.dspExecuteNs;
  };
  EXPECT_EQ(dsp_ns(nullptr), 0u);
  ASSERT_EQ(OpenHtp_setDspTiming(graph_, 1), QNN_SUCCESS);
  EXPECT_GT(dsp_ns(nullptr), 0u);
  EXPECT_GT(dsp_ns(nullptr), 0u);  // it stays on
  ASSERT_EQ(OpenHtp_setDspTiming(graph_, 0), QNN_SUCCESS);
  EXPECT_EQ(dsp_ns(nullptr), 0u);
  Qnn_ProfileHandle_t profile = nullptr;
  ASSERT_EQ(api().profileCreate(backend_, QNN_PROFILE_LEVEL_BASIC, &profile), QNN_SUCCESS);
  EXPECT_GT(dsp_ns(profile), 0u);
  EXPECT_EQ(dsp_ns(nullptr), 0u);  // a profile asks for its own execute only
  api().profileFree(profile);
  EXPECT_EQ(OpenHtp_setDspTiming(nullptr, 1), QNN_GRAPH_ERROR_INVALID_HANDLE);
  EXPECT_EQ(out, expected_add_relu(a, b));
}

// Repeating an execute with one buffer changed (a client buffer's pointer,
// or its size) binds the new one: only an identical request reuses the last
// execute's bindings.
TEST_F(Execute, ARepeatedExecuteWithAnotherBufferUsesIt) {
  const uint32_t n = 256;
  build_add_relu(n);
  auto a1 = ramp(n, -3.0f, 0.01f), a2 = ramp(n, 2.0f, -0.02f), b = ramp(n, 1.0f, -0.005f);
  std::vector<float> out1(n, -1.0f), out2(n, -1.0f);
  auto run = [&](std::vector<float>& a, std::vector<float>& out, uint32_t out_bytes,
                 Qnn_TensorVersion_t a_version = QNN_TENSOR_VERSION_1) {
    Qnn_Tensor_t in[] = {a_, b_};
    in[0].version = a_version;
    in[0].v1.clientBuf = {a.data(), n * 4};
    in[1].v1.clientBuf = {b.data(), n * 4};
    Qnn_Tensor_t o = out_;
    o.v1.clientBuf = {out.data(), out_bytes};
    return api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr);
  };
  ASSERT_EQ(run(a1, out1, n * 4), QNN_SUCCESS);
  ASSERT_EQ(run(a1, out1, n * 4), QNN_SUCCESS);
  EXPECT_EQ(out1, expected_add_relu(a1, b));
  ASSERT_EQ(run(a1, out2, n * 4), QNN_SUCCESS);  // another output
  EXPECT_EQ(out2, expected_add_relu(a1, b));
  ASSERT_EQ(run(a2, out2, n * 4), QNN_SUCCESS);  // another input
  EXPECT_EQ(out2, expected_add_relu(a2, b));
  EXPECT_EQ(run(a2, out2, n * 4 - 4), QNN_GRAPH_ERROR_INVALID_TENSOR);  // the same buffer, too small now
  ASSERT_EQ(run(a2, out2, n * 4), QNN_SUCCESS);
  // The same fields under a version this backend does not know: refused,
  // not taken for the request before.
  EXPECT_EQ(run(a2, out2, n * 4, static_cast<Qnn_TensorVersion_t>(7)), QNN_GRAPH_ERROR_INVALID_TENSOR);
  ASSERT_EQ(run(a2, out2, n * 4), QNN_SUCCESS);
}

TEST_F(Execute, MemHandlesAreZeroCopyBothWays) {
  const uint32_t n = 4096;
  build_add_relu(n);
  // One ION-style buffer per tensor.
  float* bufs[3];
  Qnn_MemHandle_t handles[3];
  for (int i = 0; i < 3; ++i) {
    bufs[i] = static_cast<float*>(rpcmem_alloc(25, 1, n * 4));
    ASSERT_NE(bufs[i], nullptr);
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    d.memShape = {2, dims_.data(), nullptr};
    d.dataType = QNN_DATATYPE_FLOAT_32;
    d.memType = QNN_MEM_TYPE_ION;
    d.ionInfo.fd = rpcmem_to_fd(bufs[i]);
    ASSERT_EQ(api().memRegister(context_, &d, 1, &handles[i]), QNN_SUCCESS);
  }
  auto a = ramp(n, -2.0f, 0.001f), b = ramp(n, 0.5f, 0.0f);
  std::memcpy(bufs[0], a.data(), n * 4);  // the client writes through its pointer...
  std::memcpy(bufs[1], b.data(), n * 4);
  Qnn_Tensor_t in[] = {a_, b_};
  for (int i = 0; i < 2; ++i) {
    in[i].v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
    in[i].v1.memHandle = handles[i];
  }
  Qnn_Tensor_t o = out_;
  o.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
  o.v1.memHandle = handles[2];
  ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
  // ...the DSP process read it and wrote the result into the client's pages.
  auto want = expected_add_relu(a, b);
  EXPECT_EQ(std::memcmp(bufs[2], want.data(), n * 4), 0);
  OpenHtp_ExecuteStats_t st{};
  ASSERT_EQ(OpenHtp_getLastExecuteStats(graph_, &st), QNN_SUCCESS);
  EXPECT_EQ(st.bytesCopiedIn, 0u);
  EXPECT_EQ(st.bytesCopiedOut, 0u);
  EXPECT_EQ(st.bytesByReference, 3u * n * 4);

  // New data, same handles: the DSP sees the new bytes in place.
  for (uint32_t i = 0; i < n; ++i) bufs[0][i] = 10.0f;
  ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_FLOAT_EQ(bufs[2][7], 10.5f);
  ASSERT_EQ(api().memDeRegister(handles, 3), QNN_SUCCESS);
  for (float* p : bufs) rpcmem_free(p);
}

TEST_F(Execute, MultiTensorSharedBufferAndClientBuffersMixed) {
  const uint32_t n = 333;  // odd sizes: offsets are not aligned
  build_add_relu(n);
  const uint64_t total = 2ull * n * 4;
  auto* base = static_cast<uint8_t*>(rpcmem_alloc(25, 1, static_cast<int>(total)));
  const int fd = rpcmem_to_fd(base);
  Qnn_MemHandle_t h[2];
  for (int i = 0; i < 2; ++i) {
    QnnMemHtp_Descriptor_t htp{};
    htp.type = QNN_HTP_MEM_SHARED_BUFFER;
    htp.size = total;
    htp.sharedBufferConfig = {fd, static_cast<uint64_t>(i) * n * 4};
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    d.memShape = {2, dims_.data(), nullptr};
    d.dataType = QNN_DATATYPE_FLOAT_32;
    d.memType = QNN_MEM_TYPE_CUSTOM;
    d.customInfo = &htp;
    ASSERT_EQ(api().memRegister(context_, &d, 1, &h[i]), QNN_SUCCESS);
  }
  auto a = ramp(n, -1.0f, 0.01f), b = ramp(n, 0.25f, 0.0f);
  std::memcpy(base, a.data(), n * 4);  // a: memhandle at offset 0
  std::vector<float> out(n);
  Qnn_Tensor_t in[] = {a_, b_};
  in[0].v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
  in[0].v1.memHandle = h[0];
  in[1].v1.clientBuf = {b.data(), n * 4};  // b: client buffer
  Qnn_Tensor_t o = out_;
  o.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;  // out: memhandle at offset n*4
  o.v1.memHandle = h[1];
  ASSERT_EQ(api().graphExecute(graph_, in, 2, &o, 1, nullptr, nullptr), QNN_SUCCESS);
  auto want = expected_add_relu(a, b);
  EXPECT_EQ(std::memcmp(base + n * 4, want.data(), n * 4), 0);
  OpenHtp_ExecuteStats_t st{};
  ASSERT_EQ(OpenHtp_getLastExecuteStats(graph_, &st), QNN_SUCCESS);
  const bool inproc = in_process_transport();
  EXPECT_EQ(st.bytesCopiedIn, inproc ? 0u : n * 4u);
  EXPECT_EQ(st.bytesCopiedOut, 0u);
  EXPECT_EQ(st.bytesByReference, inproc ? 3u * n * 4 : 2u * n * 4);
  ASSERT_EQ(api().memDeRegister(h, 2), QNN_SUCCESS);
  rpcmem_free(base);
}

TEST_F(Execute, RunsInTheDspProcess) {
  build_add_relu(8);
  EXPECT_GT(openhtp_fastrpc_dsp_pid(), 0);
  EXPECT_NE(openhtp_fastrpc_dsp_pid(), getpid());
}

// A graph with 1,000 inputs and 1,000 outputs (out_i = Relu(in_i)), as a
// calibration graph that exposes every tensor has: more client buffers than
// one remote call can carry (254 each way), so the FastRPC door packs them;
// every tenth tensor is a memory handle in one multi-tensor shared buffer.
// Every output must be right — nothing may "succeed" with data missing.
// Client buffers that are each their own rpcmem allocation pass by reference,
// and on an execute's first use each one's fd must reach the DSP process:
// 150 inputs and 150 outputs mean 300 fds with one call, more than one socket
// message carries (ipc::kMaxFdsPerMessage); all of them arrive, and the
// outputs are written in place.
TEST_F(Execute, HundredsOfRpcmemClientBuffersAreMappedOnTheirFirstExecute) {
  constexpr uint32_t kN = 150, kElems = 4;
  std::vector<uint32_t> dims{1, kElems};
  ASSERT_EQ(api().graphCreate(context_, "many_rpcmem", nullptr, &graph_), QNN_SUCCESS);
  std::vector<Qnn_Tensor_t> ins, outs;
  std::vector<std::string> names;
  names.reserve(2 * kN);
  for (uint32_t i = 0; i < kN; ++i) {
    names.push_back("in" + std::to_string(i));
    ins.push_back(make_tensor(names.back().c_str(), QNN_TENSOR_TYPE_APP_WRITE, dims));
    names.push_back("out" + std::to_string(i));
    outs.push_back(make_tensor(names.back().c_str(), QNN_TENSOR_TYPE_APP_READ, dims));
    ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &ins[i]), QNN_SUCCESS);
    ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &outs[i]), QNN_SUCCESS);
    ASSERT_EQ(add_node(graph_, ("relu" + std::to_string(i)).c_str(), QNN_OP_RELU, &ins[i], 1, &outs[i]), QNN_SUCCESS);
  }
  ASSERT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_SUCCESS);
  std::vector<float*> buffers;
  for (uint32_t i = 0; i < 2 * kN; ++i) {
    buffers.push_back(static_cast<float*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, kElems * 4)));
    ASSERT_NE(buffers.back(), nullptr);
  }
  for (int round = 0; round < 2; ++round) {  // first use (fds travel), then again (none do)
    for (uint32_t i = 0; i < kN; ++i) {
      for (uint32_t e = 0; e < kElems; ++e) buffers[i][e] = static_cast<float>(static_cast<int>(i + e + round) % 9 - 4);
      std::fill(buffers[kN + i], buffers[kN + i] + kElems, -7.0f);
      ins[i].v1.clientBuf = {buffers[i], kElems * 4};
      outs[i].v1.clientBuf = {buffers[kN + i], kElems * 4};
    }
    ASSERT_EQ(api().graphExecute(graph_, ins.data(), kN, outs.data(), kN, nullptr, nullptr), QNN_SUCCESS) << round;
    for (uint32_t i = 0; i < kN; ++i) {
      for (uint32_t e = 0; e < kElems; ++e) ASSERT_EQ(buffers[kN + i][e], std::max(buffers[i][e], 0.0f)) << i;
    }
    OpenHtp_ExecuteStats_t st{};
    ASSERT_EQ(OpenHtp_getLastExecuteStats(graph_, &st), QNN_SUCCESS);
    EXPECT_EQ(st.bytesCopiedIn + st.bytesCopiedOut, 0u);  // by reference, every one
  }
  for (float* b : buffers) rpcmem_free(b);
}

TEST_F(Execute, AThousandInputsAndOutputsMixedAreAllRight) {
  constexpr uint32_t kN = 1000, kElems = 4;
  std::vector<uint32_t> dims{1, kElems};
  ASSERT_EQ(api().graphCreate(context_, "wide", nullptr, &graph_), QNN_SUCCESS);
  std::vector<Qnn_Tensor_t> ins, outs;
  std::vector<std::string> names;
  names.reserve(2 * kN);
  for (uint32_t i = 0; i < kN; ++i) {
    names.push_back("in" + std::to_string(i));
    ins.push_back(make_tensor(names.back().c_str(), QNN_TENSOR_TYPE_APP_WRITE, dims));
    names.push_back("out" + std::to_string(i));
    outs.push_back(make_tensor(names.back().c_str(), QNN_TENSOR_TYPE_APP_READ, dims));
    ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &ins[i]), QNN_SUCCESS);
    ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &outs[i]), QNN_SUCCESS);
  }
  for (uint32_t i = 0; i < kN; ++i) {
    ASSERT_EQ(add_node(graph_, ("relu" + std::to_string(i)).c_str(), QNN_OP_RELU, &ins[i], 1, &outs[i]), QNN_SUCCESS);
  }
  ASSERT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_SUCCESS);

  // Every tenth tensor (inputs and outputs) lives in one rpcmem buffer.
  constexpr uint32_t kHandles = 2 * kN / 10;
  const uint64_t slot = kElems * sizeof(float);
  auto* shared = static_cast<float*>(rpcmem_alloc2(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, kHandles * slot));
  ASSERT_NE(shared, nullptr);
  const int fd = rpcmem_to_fd(shared);
  std::vector<Qnn_MemHandle_t> handles(kHandles);
  for (uint32_t h = 0; h < kHandles; ++h) {
    QnnMemHtp_Descriptor_t htp{};
    htp.type = QNN_HTP_MEM_SHARED_BUFFER;
    htp.size = kHandles * slot;
    htp.sharedBufferConfig = {fd, h * slot};
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    d.memShape = {2, dims.data(), nullptr};
    d.dataType = QNN_DATATYPE_FLOAT_32;
    d.memType = QNN_MEM_TYPE_CUSTOM;
    d.customInfo = &htp;
    ASSERT_EQ(api().memRegister(context_, &d, 1, &handles[h]), QNN_SUCCESS);
  }
  std::vector<float> in_data(kN * kElems), out_data(kN * kElems, -7.0f);
  auto value = [](uint32_t i, uint32_t e) { return static_cast<float>(static_cast<int>(i * kElems + e) % 37 - 18); };
  uint32_t next_handle = 0;
  std::vector<float*> out_at(kN);
  for (uint32_t i = 0; i < kN; ++i) {
    float* in_mem = &in_data[i * kElems];
    out_at[i] = &out_data[i * kElems];
    if (i % 10 == 0) {  // the input and the output of this pair are memory handles
      in_mem = shared + next_handle * kElems;
      ins[i].v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
      ins[i].v1.memHandle = handles[next_handle++];
      out_at[i] = shared + next_handle * kElems;
      std::fill(out_at[i], out_at[i] + kElems, -7.0f);
      outs[i].v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
      outs[i].v1.memHandle = handles[next_handle++];
    } else {
      ins[i].v1.clientBuf = {in_mem, static_cast<uint32_t>(slot)};
      outs[i].v1.clientBuf = {out_at[i], static_cast<uint32_t>(slot)};
    }
    for (uint32_t e = 0; e < kElems; ++e) in_mem[e] = value(i, e);
  }
  ASSERT_EQ(api().graphExecute(graph_, ins.data(), kN, outs.data(), kN, nullptr, nullptr), QNN_SUCCESS);
  for (uint32_t i = 0; i < kN; ++i) {
    for (uint32_t e = 0; e < kElems; ++e) {
      ASSERT_EQ(out_at[i][e], std::max(0.0f, value(i, e))) << "output " << i << " element " << e;
    }
  }
  ASSERT_EQ(api().memDeRegister(handles.data(), kHandles), QNN_SUCCESS);
  rpcmem_free(shared);
}
