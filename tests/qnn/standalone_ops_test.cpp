// The standalone element-wise ops (ElementWiseAbs .. ElementWiseXor) through
// the QNN API: what the op walk (opdef_cases_elementwise.cpp) does not show,
// that a standalone op refuses the generic op's "operation" parameter.
#include "qnn_test_util.h"

namespace qnntest {
namespace {

class StandaloneOps : public QnnFixture {};

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
