// The graph of the external-buffer tests, FastRPC (external_buffers_test.cpp)
// and Non-RPC (nonrpc_test.cpp) alike:
//   x -> Add(x, w) -> a -> Relu -> b -> Add(a, b) -> out
// over [1, kN] floats, w STATIC (0.001 x (i % 100)), in a graph "g" whose
// VTCM budget holds one tensor, so b spills: the context then wants both a
// weights buffer and a spill-fill buffer.
#pragma once

#include <algorithm>
#include <vector>

#include "HTP/QnnHtpGraph.h"
#include "qnn_test_util.h"

namespace qnntest {

class SpillGraphFixture : public QnnFixture {
 protected:
  static constexpr uint32_t kN = 4096;  // 16 KiB per tensor

  // Builds the graph in context_, finalizes it and returns the context's
  // binary; x_, out_ and weights_ are the graph's.
  std::vector<uint8_t> make_binary() {
    HtpGraphConfig vtcm(QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES);
    vtcm.htp.vtcmSizeInBytes = kN * 4;
    Qnn_GraphHandle_t g = nullptr;
    EXPECT_EQ(api().graphCreate(context_, "g", vtcm.list(), &g), QNN_SUCCESS);
    dims_ = {1, kN};
    x_ = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, dims_);
    weights_.assign(kN, 0.0f);
    for (uint32_t i = 0; i < kN; ++i) weights_[i] = 0.001f * static_cast<float>(i % 100);
    Qnn_Tensor_t w = make_tensor("w", QNN_TENSOR_TYPE_STATIC, dims_);
    w.v1.clientBuf = {weights_.data(), kN * 4};
    Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_NATIVE, dims_);
    Qnn_Tensor_t b = make_tensor("b", QNN_TENSOR_TYPE_NATIVE, dims_);
    out_ = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, dims_);
    for (Qnn_Tensor_t* t : {&x_, &w, &a, &b, &out_}) EXPECT_EQ(api().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
    Qnn_Tensor_t xw[] = {x_, w};
    EXPECT_EQ(add_node(g, "add_w", QNN_OP_ELEMENT_WISE_ADD, xw, 2, &a), QNN_SUCCESS);
    EXPECT_EQ(add_node(g, "relu", QNN_OP_RELU, &a, 1, &b), QNN_SUCCESS);
    Qnn_Tensor_t ab[] = {a, b};
    EXPECT_EQ(add_node(g, "add", QNN_OP_ELEMENT_WISE_ADD, ab, 2, &out_), QNN_SUCCESS);
    EXPECT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
    Qnn_ContextBinarySize_t size = 0;
    EXPECT_EQ(api().contextGetBinarySize(context_, &size), QNN_SUCCESS);
    std::vector<uint8_t> bin(size);
    EXPECT_EQ(api().contextGetBinary(context_, bin.data(), size, &size), QNN_SUCCESS);
    return bin;
  }

  // What the graph computes for x with weights w.
  static std::vector<float> reference(const std::vector<float>& x, const std::vector<float>& w) {
    std::vector<float> r(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const float a = x[i] + w[i];
      r[i] = a + std::max(a, 0.0f);
    }
    return r;
  }

  std::vector<float> weights_;
  Qnn_Tensor_t x_;
};

}  // namespace qnntest
