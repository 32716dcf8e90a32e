// A long graph for the tests of scheduling and bounded calls: x -> t0 = x + x
// -> t1 = t0 + x -> ... -> out, `ops` adds over `n` floats, so
// out = x * (ops + 1). Each op takes tens of µs at n = 64 Ki: a chain of a
// few hundred runs for milliseconds, long enough to land another call inside.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "qnn_test_util.h"

namespace qnntest {

class ChainGraphs {
 public:
  explicit ChainGraphs(uint32_t n) : n_(n), dims_{1, n} {}

  Qnn_GraphHandle_t build(Qnn_ContextHandle_t ctx, const char* name, uint32_t ops,
                          const QnnGraph_Config_t** cfg = nullptr) {
    Qnn_GraphHandle_t g = nullptr;
    EXPECT_EQ(api().graphCreate(ctx, name, cfg, &g), QNN_SUCCESS);
    Qnn_Tensor_t x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, dims_);
    EXPECT_EQ(api().tensorCreateGraphTensor(g, &x), QNN_SUCCESS);
    Qnn_Tensor_t prev = x;
    for (uint32_t i = 0; i < ops; ++i) {
      const std::string t = "t" + std::to_string(i), node = "n" + std::to_string(i);
      Qnn_Tensor_t out = make_tensor(t.c_str(), i + 1 == ops ? QNN_TENSOR_TYPE_APP_READ : QNN_TENSOR_TYPE_NATIVE, dims_);
      EXPECT_EQ(api().tensorCreateGraphTensor(g, &out), QNN_SUCCESS);
      Qnn_Tensor_t ins[] = {prev, x};
      EXPECT_EQ(add_node(g, node.c_str(), QNN_OP_ELEMENT_WISE_ADD, ins, 2, &out), QNN_SUCCESS);
      prev = out;
    }
    io_[g] = {x, prev, ops};
    return g;
  }

  // Executes `g` on x[i] = i % 9 - 4 (with `profile` and `signal` if given);
  // *correct: out == x * (ops + 1). *untouched (if given): `out` still holds
  // the -1 it was filled with — only the graph's last op writes it, so an
  // execute stopped at an op boundary leaves it so.
  // `out_handle` (if given) is a memory handle of n floats at `out_memory`
  // that the output is written to in place; otherwise a client buffer — which
  // over FastRPC is copied back even from a failed execute, so only a memory
  // handle shows what the graph itself wrote.
  Qnn_ErrorHandle_t run(Qnn_GraphHandle_t g, bool* correct, Qnn_ProfileHandle_t profile = nullptr,
                        Qnn_SignalHandle_t signal = nullptr, bool* untouched = nullptr,
                        Qnn_MemHandle_t out_handle = nullptr, float* out_memory = nullptr) {
    const Io& io = io_.at(g);
    std::vector<float> x(n_), own(out_handle == nullptr ? n_ : 0, -1.0f);
    float* out = out_handle == nullptr ? own.data() : out_memory;
    if (out_handle != nullptr) std::fill(out, out + n_, -1.0f);
    for (uint32_t i = 0; i < n_; ++i) x[i] = static_cast<float>(static_cast<int>(i % 9) - 4);
    Qnn_Tensor_t in = io.in, o = io.out;
    in.v1.clientBuf = {x.data(), n_ * 4};
    if (out_handle != nullptr) {
      o.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
      o.v1.memHandle = out_handle;
    } else {
      o.v1.clientBuf = {out, n_ * 4};
    }
    const Qnn_ErrorHandle_t e = api().graphExecute(g, &in, 1, &o, 1, profile, signal);
    *correct = e == QNN_SUCCESS;
    for (uint32_t i = 0; i < n_ && *correct; ++i) *correct = out[i] == x[i] * static_cast<float>(io.ops + 1);
    if (untouched != nullptr) {
      *untouched = true;
      for (uint32_t i = 0; i < n_ && *untouched; ++i) *untouched = out[i] == -1.0f;
    }
    return e;
  }

 private:
  struct Io {
    Qnn_Tensor_t in, out;
    uint32_t ops;
  };
  uint32_t n_;
  std::vector<uint32_t> dims_;
  std::map<Qnn_GraphHandle_t, Io> io_;
};

}  // namespace qnntest
