// Helpers shared by the System API tests: the system provider's table, and
// context binaries made by libQnnHtp the way a client makes them.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "QnnInterface.h"
#include "QnnOpDef.h"
#include "System/QnnSystemInterface.h"

namespace systest {

// The system provider's table, obtained the way clients do.
inline const QNN_SYSTEM_INTERFACE_VER_TYPE& sys() {
  static const QNN_SYSTEM_INTERFACE_VER_TYPE* table = [] {
    const QnnSystemInterface_t** providers = nullptr;
    uint32_t n = 0;
    if (QnnSystemInterface_getProviders(&providers, &n) != QNN_SUCCESS || n != 1) std::abort();
    return &providers[0]->QNN_SYSTEM_INTERFACE_VER_NAME;
  }();
  return *table;
}

// The HTP backend's table.
inline const QNN_INTERFACE_VER_TYPE& htp() {
  static const QNN_INTERFACE_VER_TYPE* table = [] {
    const QnnInterface_t** providers = nullptr;
    uint32_t n = 0;
    if (QnnInterface_getProviders(&providers, &n) != QNN_SUCCESS || n != 1) std::abort();
    return &providers[0]->QNN_INTERFACE_VER_NAME;
  }();
  return *table;
}

inline Qnn_Tensor_t make_tensor(const char* name, Qnn_TensorType_t type, std::vector<uint32_t>& dims,
                                Qnn_DataType_t dt = QNN_DATATYPE_FLOAT_32) {
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  t.v1.name = name;
  t.v1.type = type;
  t.v1.dataType = dt;
  t.v1.rank = static_cast<uint32_t>(dims.size());
  t.v1.dimensions = dims.data();
  t.v1.memType = QNN_TENSORMEMTYPE_RAW;
  return t;
}

inline Qnn_OpConfig_t make_op(const char* name, const char* type, Qnn_Tensor_t* in, uint32_t n_in, Qnn_Tensor_t* out) {
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  op.v1.name = name;
  op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
  op.v1.typeName = type;
  op.v1.numOfInputs = n_in;
  op.v1.inputTensors = in;
  op.v1.numOfOutputs = 1;
  op.v1.outputTensors = out;
  return op;
}

// A backend and a context holding two finalized graphs, and its binary:
//   "add_relu":  out = relu(a + b), a/b/out float [1, kN]
//   "add_bias":  y = x + w, w a STATIC float [2, kN] tensor (the weights), x/y [2, kN]
// The created tensors (ids filled in by the backend) are kept for comparison.
class BinaryFixture : public ::testing::Test {
 protected:
  static constexpr uint32_t kN = 8;

  void SetUp() override {
    ASSERT_EQ(htp().backendCreate(nullptr, nullptr, &backend_), QNN_SUCCESS);
    ASSERT_EQ(htp().contextCreate(backend_, nullptr, nullptr, &context_), QNN_SUCCESS);
    build_add_relu();
    build_add_bias();
    Qnn_ContextBinarySize_t size = 0;
    ASSERT_EQ(htp().contextGetBinarySize(context_, &size), QNN_SUCCESS);
    binary_.resize(size);
    Qnn_ContextBinarySize_t written = 0;
    ASSERT_EQ(htp().contextGetBinary(context_, binary_.data(), binary_.size(), &written), QNN_SUCCESS);
    binary_.resize(written);
    ASSERT_EQ(sys().systemContextCreate(&sys_), QNN_SUCCESS);
  }
  void TearDown() override {
    if (sys_ != nullptr) sys().systemContextFree(sys_);
    if (context_ != nullptr) htp().contextFree(context_, nullptr);
    if (backend_ != nullptr) htp().backendFree(backend_);
  }

  void build_add_relu() {
    dims_ = {1, kN};
    a_ = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims_);
    b_ = make_tensor("b", QNN_TENSOR_TYPE_APP_WRITE, dims_);
    sum_ = make_tensor("sum", QNN_TENSOR_TYPE_NATIVE, dims_);
    out_ = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, dims_);
    Qnn_GraphHandle_t g = nullptr;
    ASSERT_EQ(htp().graphCreate(context_, "add_relu", nullptr, &g), QNN_SUCCESS);
    for (Qnn_Tensor_t* t : {&a_, &b_, &sum_, &out_}) ASSERT_EQ(htp().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
    Qnn_Tensor_t add_in[] = {a_, b_};
    ASSERT_EQ(htp().graphAddNode(g, make_op("add", QNN_OP_ELEMENT_WISE_ADD, add_in, 2, &sum_)), QNN_SUCCESS);
    ASSERT_EQ(htp().graphAddNode(g, make_op("relu", QNN_OP_RELU, &sum_, 1, &out_)), QNN_SUCCESS);
    ASSERT_EQ(htp().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
  }

  void build_add_bias() {
    wdims_ = {2, kN};
    weights_.resize(2 * kN);
    for (size_t i = 0; i < weights_.size(); ++i) weights_[i] = 0.5f * static_cast<float>(i);
    x_ = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, wdims_);
    w_ = make_tensor("w", QNN_TENSOR_TYPE_STATIC, wdims_);
    w_.v1.clientBuf = {weights_.data(), static_cast<uint32_t>(weights_.size() * sizeof(float))};
    y_ = make_tensor("y", QNN_TENSOR_TYPE_APP_READ, wdims_);
    Qnn_GraphHandle_t g = nullptr;
    ASSERT_EQ(htp().graphCreate(context_, "add_bias", nullptr, &g), QNN_SUCCESS);
    for (Qnn_Tensor_t* t : {&x_, &w_, &y_}) ASSERT_EQ(htp().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
    Qnn_Tensor_t in[] = {x_, w_};
    ASSERT_EQ(htp().graphAddNode(g, make_op("bias", QNN_OP_ELEMENT_WISE_ADD, in, 2, &y_)), QNN_SUCCESS);
    ASSERT_EQ(htp().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
  }

  // The binary info of binary_ read through sys_ (asserts success).
  const QnnSystemContext_BinaryInfo_t* info() {
    const QnnSystemContext_BinaryInfo_t* bi = nullptr;
    Qnn_ContextBinarySize_t size = 0;
    EXPECT_EQ(sys().systemContextGetBinaryInfo(sys_, binary_.data(), binary_.size(), &bi, &size), QNN_SUCCESS);
    return bi;
  }

  Qnn_BackendHandle_t backend_ = nullptr;
  Qnn_ContextHandle_t context_ = nullptr;
  QnnSystemContext_Handle_t sys_ = nullptr;
  std::vector<uint8_t> binary_;
  std::vector<uint32_t> dims_, wdims_;
  std::vector<float> weights_;
  Qnn_Tensor_t a_, b_, sum_, out_, x_, w_, y_;
};

}  // namespace systest
