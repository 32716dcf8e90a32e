// The standalone element-wise ops (ElementWiseAbs .. ElementWiseXor) through
// the QNN API: each is listed by backendGetSupportedOperations, and a one-node
// graph of it finalizes, executes and gives the formula's values (computed
// here in double with <cmath>).
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "qnn_test_util.h"

namespace qnntest {
namespace {

struct Case {
  const char* type;
  uint32_t num_inputs;  // 1 or 2
  bool bool_in;         // BOOL_8 inputs (ElementWiseNot)
  bool bool_out;        // BOOL_8 output (comparisons, logic, Not)
  std::vector<float> a, b;
  std::function<double(double, double)> f;
};

std::vector<Case> cases() {
  const std::vector<float> general = {-2.5f, -1.5f, -0.5f, 0.0f, 0.7f, 1.5f, 2.5f, 3.0f};
  const std::vector<float> unit = {-1.0f, -0.5f, 0.0f, 0.25f, 0.5f, 0.75f, 0.9f, 1.0f};
  const std::vector<float> positive = {0.0f, 0.25f, 0.5f, 1.0f, 2.0f, 4.0f, 9.0f, 100.0f};
  const std::vector<float> a = {7.0f, -7.0f, 7.0f, -7.0f, 5.5f, 2.0f, 0.0f, 3.0f};
  const std::vector<float> b = {2.0f, 2.0f, -2.0f, -2.0f, 2.0f, 2.0f, 4.0f, 0.5f};
  auto t = [](double v) { return v != 0.0; };
  using D = double;
  return {
      {QNN_OP_ELEMENT_WISE_ABS, 1, false, false, general, {}, [](D x, D) { return std::fabs(x); }},
      {QNN_OP_ELEMENT_WISE_ASIN, 1, false, false, unit, {}, [](D x, D) { return std::asin(x); }},
      {QNN_OP_ELEMENT_WISE_ATAN, 1, false, false, general, {}, [](D x, D) { return std::atan(x); }},
      {QNN_OP_ELEMENT_WISE_CEIL, 1, false, false, general, {}, [](D x, D) { return std::ceil(x); }},
      {QNN_OP_ELEMENT_WISE_COS, 1, false, false, general, {}, [](D x, D) { return std::cos(x); }},
      {QNN_OP_ELEMENT_WISE_EXP, 1, false, false, general, {}, [](D x, D) { return std::exp(x); }},
      {QNN_OP_ELEMENT_WISE_FLOOR, 1, false, false, general, {}, [](D x, D) { return std::floor(x); }},
      {QNN_OP_ELEMENT_WISE_LOG, 1, false, false, positive, {}, [](D x, D) { return std::log(x); }},
      {QNN_OP_ELEMENT_WISE_NEG, 1, false, false, general, {}, [](D x, D) { return -x; }},
      {QNN_OP_ELEMENT_WISE_NOT, 1, true, true, {0, 1, 1, 0, 0, 1, 0, 1}, {}, [](D x, D) { return D(x == 0); }},
      // Half to even (nearbyint in the default rounding mode).
      {QNN_OP_ELEMENT_WISE_ROUND, 1, false, false, general, {}, [](D x, D) { return std::nearbyint(x); }},
      {QNN_OP_ELEMENT_WISE_RSQRT, 1, false, false, positive, {}, [](D x, D) { return 1.0 / std::sqrt(x); }},
      {QNN_OP_ELEMENT_WISE_SIGN, 1, false, false, general, {}, [](D x, D) { return D(x > 0) - D(x < 0); }},
      {QNN_OP_ELEMENT_WISE_SIN, 1, false, false, general, {}, [](D x, D) { return std::sin(x); }},
      {QNN_OP_ELEMENT_WISE_SQUARE_ROOT, 1, false, false, positive, {}, [](D x, D) { return std::sqrt(x); }},
      {QNN_OP_ELEMENT_WISE_AND, 2, false, true, a, b, [t](D x, D y) { return D(t(x) && t(y)); }},
      {QNN_OP_ELEMENT_WISE_EQUAL, 2, false, true, a, b, [](D x, D y) { return D(x == y); }},
      {QNN_OP_ELEMENT_WISE_FLOOR_DIV, 2, false, false, a, b, [](D x, D y) { return std::floor(x / y); }},
      {QNN_OP_ELEMENT_WISE_FMOD, 2, false, false, a, b, [](D x, D y) { return std::fmod(x, y); }},
      {QNN_OP_ELEMENT_WISE_GREATER, 2, false, true, a, b, [](D x, D y) { return D(x > y); }},
      {QNN_OP_ELEMENT_WISE_GREATER_EQUAL, 2, false, true, a, b, [](D x, D y) { return D(x >= y); }},
      {QNN_OP_ELEMENT_WISE_LESS, 2, false, true, a, b, [](D x, D y) { return D(x < y); }},
      {QNN_OP_ELEMENT_WISE_LESS_EQUAL, 2, false, true, a, b, [](D x, D y) { return D(x <= y); }},
      {QNN_OP_ELEMENT_WISE_MOD, 2, false, false, a, b, [](D x, D y) { return x - y * std::floor(x / y); }},
      {QNN_OP_ELEMENT_WISE_NOT_EQUAL, 2, false, true, a, b, [](D x, D y) { return D(x != y); }},
      {QNN_OP_ELEMENT_WISE_OR, 2, false, true, a, b, [t](D x, D y) { return D(t(x) || t(y)); }},
      {QNN_OP_ELEMENT_WISE_POWER, 2, false, false, a, b, [](D x, D y) { return std::pow(x, y); }},
      {QNN_OP_ELEMENT_WISE_SQUARED_DIFFERENCE, 2, false, false, a, b, [](D x, D y) { return (x - y) * (x - y); }},
      {QNN_OP_ELEMENT_WISE_XOR, 2, false, true, a, b, [t](D x, D y) { return D(t(x) != t(y)); }},
  };
}

class StandaloneOps : public QnnFixture {};

TEST_F(StandaloneOps, AllAreListedAsSupported) {
  uint32_t n = 0;
  const QnnBackend_OperationName_t* ops = nullptr;
  ASSERT_EQ(api().backendGetSupportedOperations(backend_, &n, &ops), QNN_SUCCESS);
  std::set<std::string> names;
  for (uint32_t i = 0; i < n; ++i) names.insert(ops[i].name);
  for (const Case& c : cases()) EXPECT_EQ(names.count(c.type), 1u) << c.type;
}

TEST_F(StandaloneOps, OneNodeGraphsExecuteAndMatchTheFormula) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.type);
    const uint32_t n = static_cast<uint32_t>(c.a.size());
    std::vector<uint32_t> dims{1, n};
    const Qnn_DataType_t in_type = c.bool_in ? QNN_DATATYPE_BOOL_8 : QNN_DATATYPE_FLOAT_32;
    const Qnn_DataType_t out_type = c.bool_out ? QNN_DATATYPE_BOOL_8 : QNN_DATATYPE_FLOAT_32;
    Qnn_GraphHandle_t graph = nullptr;
    ASSERT_EQ(api().graphCreate(context_, c.type, nullptr, &graph), QNN_SUCCESS);
    Qnn_Tensor_t in[2] = {make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims, in_type),
                          make_tensor("b", QNN_TENSOR_TYPE_APP_WRITE, dims, in_type)};
    Qnn_Tensor_t out = make_tensor("y", QNN_TENSOR_TYPE_APP_READ, dims, out_type);
    for (uint32_t i = 0; i < c.num_inputs; ++i) ASSERT_EQ(api().tensorCreateGraphTensor(graph, &in[i]), QNN_SUCCESS);
    ASSERT_EQ(api().tensorCreateGraphTensor(graph, &out), QNN_SUCCESS);
    ASSERT_EQ(add_node(graph, "node", c.type, in, c.num_inputs, &out), QNN_SUCCESS);
    ASSERT_EQ(api().graphFinalize(graph, nullptr, nullptr), QNN_SUCCESS);

    std::vector<uint8_t> a_bool(n), out_bool(n, 0xAA);
    for (uint32_t i = 0; i < n; ++i) a_bool[i] = c.a[i] != 0.0f;
    std::vector<float> a = c.a, b = c.b, y(n, -123.0f);
    if (c.bool_in) {
      in[0].v1.clientBuf = {a_bool.data(), n};
    } else {
      in[0].v1.clientBuf = {a.data(), n * 4};
    }
    if (c.num_inputs == 2) in[1].v1.clientBuf = {b.data(), n * 4};
    if (c.bool_out) {
      out.v1.clientBuf = {out_bool.data(), n};
    } else {
      out.v1.clientBuf = {y.data(), n * 4};
    }
    ASSERT_EQ(api().graphExecute(graph, in, c.num_inputs, &out, 1, nullptr, nullptr), QNN_SUCCESS);
    for (uint32_t i = 0; i < n; ++i) {
      const double want = c.f(c.a[i], c.num_inputs == 2 ? c.b[i] : 0.0);
      if (c.bool_out) {
        EXPECT_EQ(out_bool[i], static_cast<uint8_t>(want)) << "element " << i;
      } else if (std::isinf(want)) {
        EXPECT_EQ(double{y[i]}, want) << "element " << i;
      } else {
        EXPECT_NEAR(y[i], want, 2.5e-7 * std::fabs(want) + 1e-7) << "element " << i;
      }
    }
  }
}

TEST_F(StandaloneOps, AnOperationParameterIsRefused) {
  std::vector<uint32_t> dims{4};
  Qnn_Tensor_t in = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, dims);
  Qnn_Tensor_t out = make_tensor("y", QNN_TENSOR_TYPE_APP_READ, dims);
  Qnn_Param_t param = QNN_PARAM_INIT;
  param.paramType = QNN_PARAMTYPE_SCALAR;
  param.name = "operation";
  param.scalarParam.dataType = QNN_DATATYPE_UINT_32;
  param.scalarParam.uint32Value = 7;
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  op.v1.name = "log0";
  op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
  op.v1.typeName = QNN_OP_ELEMENT_WISE_LOG;
  op.v1.numOfInputs = 1;
  op.v1.inputTensors = &in;
  op.v1.numOfOutputs = 1;
  op.v1.outputTensors = &out;
  EXPECT_EQ(api().backendValidateOpConfig(backend_, op), QNN_SUCCESS);
  op.v1.numOfParams = 1;
  op.v1.params = &param;
  EXPECT_EQ(api().backendValidateOpConfig(backend_, op), QNN_BACKEND_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"log0", "operation"}));
}

}  // namespace
}  // namespace qnntest
