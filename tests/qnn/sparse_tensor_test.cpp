// Sparse tensors through the QNN API (docs/user-guide.md, "dataFormat"):
// which dataFormat / sparseParams tensorCreateGraphTensor takes and which it
// refuses with which code, the refusal of sparse tensors by dense ops at
// graphAddNode / backendValidateOpConfig, and a graph with a sparse
// intermediate through a context binary (save, load, execute: the same
// outputs, equal to the ones worked by hand).
#include <cstring>

#include "QnnTensor.h"
#include "qnn_test_util.h"

using namespace qnntest;

namespace {

// A V2 tensor (sparseParams exist in V2 only) with dataFormat `format` and,
// for SPARSE, layout `layout` {k, s}.
Qnn_Tensor_t v2_tensor(const char* name, Qnn_TensorType_t type, std::vector<uint32_t>& dims,
                       Qnn_DataType_t dt = QNN_DATATYPE_FLOAT_32, Qnn_TensorDataFormat_t format = QNN_TENSOR_DATA_FORMAT_SPARSE,
                       uint32_t k = 1, uint32_t s = 1,
                       Qnn_SparseLayoutType_t layout = QNN_SPARSE_LAYOUT_HYBRID_COO) {
  Qnn_Tensor_t t = QNN_TENSOR_INIT;
  t.version = QNN_TENSOR_VERSION_2;
  Qnn_TensorV2_t v2 = QNN_TENSOR_V2_INIT;
  v2.name = name;
  v2.type = type;
  v2.dataFormat = format;
  v2.dataType = dt;
  v2.rank = static_cast<uint32_t>(dims.size());
  v2.dimensions = dims.data();
  v2.memType = QNN_TENSORMEMTYPE_RAW;
  v2.sparseParams.type = layout;
  v2.sparseParams.hybridCoo = {k, s};
  t.v2 = v2;
  return t;
}

class SparseTensors : public QnnFixture {
 protected:
  Qnn_ErrorHandle_t create(Qnn_Tensor_t t) {
    if (graph_ == nullptr) {
      EXPECT_EQ(api().graphCreate(context_, "sparse", nullptr, &graph_), QNN_SUCCESS);
    }
    return api().tensorCreateGraphTensor(graph_, &t);
  }
  bool logged(std::initializer_list<std::string> needles) { return LogCapture::instance().has_line_with(needles); }

  Qnn_GraphHandle_t graph_ = nullptr;
};

TEST_F(SparseTensors, DataFormatAndSparseParamsAreCheckedAtCreation) {
  std::vector<uint32_t> dims{4, 3};
  // Accepted: a NATIVE HYBRID_COO tensor; a DENSE one whatever its
  // (unused) sparseParams say.
  EXPECT_EQ(create(v2_tensor("ok", QNN_TENSOR_TYPE_NATIVE, dims, QNN_DATATYPE_FLOAT_32,
                             QNN_TENSOR_DATA_FORMAT_SPARSE, 2, 1)),
            QNN_SUCCESS);
  EXPECT_EQ(create(v2_tensor("dense", QNN_TENSOR_TYPE_APP_WRITE, dims, QNN_DATATYPE_FLOAT_32,
                             QNN_TENSOR_DATA_FORMAT_DENSE, 0, 99, QNN_SPARSE_LAYOUT_UNDEFINED)),
            QNN_SUCCESS);

  // Valid QNN, not supported here: a sparse graph input or output (its
  // client-visible layout would be this backend's private one), a sparse
  // static tensor, a defined format other than DENSE / SPARSE, no entries.
  EXPECT_EQ(create(v2_tensor("in_sparse", QNN_TENSOR_TYPE_APP_WRITE, dims)), QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM);
  EXPECT_TRUE(logged({"'in_sparse'", "NATIVE tensors only", "tensor type 0"}));
  EXPECT_EQ(create(v2_tensor("out_sparse", QNN_TENSOR_TYPE_APP_READ, dims)), QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM);
  {
    std::vector<float> data(12, 1.0f);
    Qnn_Tensor_t st = v2_tensor("static_sparse", QNN_TENSOR_TYPE_STATIC, dims);
    st.v2.clientBuf = {data.data(), 48};
    EXPECT_EQ(create(st), QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM);
  }
  EXPECT_EQ(create(v2_tensor("codebook", QNN_TENSOR_TYPE_NATIVE, dims, QNN_DATATYPE_FLOAT_32,
                             QNN_TENSOR_DATA_FORMAT_CODEBOOK)),
            QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM);
  EXPECT_TRUE(logged({"'codebook'", "dataFormat 2 is not supported"}));
  EXPECT_EQ(create(v2_tensor("no_entries", QNN_TENSOR_TYPE_NATIVE, dims, QNN_DATATYPE_FLOAT_32,
                             QNN_TENSOR_DATA_FORMAT_SPARSE, 0, 1)),
            QNN_TENSOR_ERROR_UNSUPPORTED_TENSOR_PARAM);

  // Malformed: values QNN does not define, a layout that does not fit.
  EXPECT_EQ(create(v2_tensor("format_12345", QNN_TENSOR_TYPE_NATIVE, dims, QNN_DATATYPE_FLOAT_32, 12345)),
            QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  EXPECT_TRUE(logged({"'format_12345'", "dataFormat 12345 is not a QNN tensor data format"}));
  {
    std::vector<uint32_t> d1{4, 3};
    Qnn_Tensor_t v1 = make_tensor("v1_sparse", QNN_TENSOR_TYPE_NATIVE, d1);
    v1.v1.dataFormat = QNN_TENSOR_DATA_FORMAT_SPARSE;
    EXPECT_EQ(create(v1), QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
    EXPECT_TRUE(logged({"'v1_sparse'", "version 2 tensor struct"}));
    Qnn_Tensor_t v1_bad = make_tensor("v1_12345", QNN_TENSOR_TYPE_APP_WRITE, d1);
    v1_bad.v1.dataFormat = 12345;  // V1 has dataFormat too
    EXPECT_EQ(create(v1_bad), QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  }
  EXPECT_EQ(create(v2_tensor("layout_undefined", QNN_TENSOR_TYPE_NATIVE, dims, QNN_DATATYPE_FLOAT_32,
                             QNN_TENSOR_DATA_FORMAT_SPARSE, 2, 1, QNN_SPARSE_LAYOUT_UNDEFINED)),
            QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  EXPECT_TRUE(logged({"'layout_undefined'", "sparseParams.type is 2147483647", "HYBRID_COO"}));
  EXPECT_EQ(create(v2_tensor("layout_7", QNN_TENSOR_TYPE_NATIVE, dims, QNN_DATATYPE_FLOAT_32,
                             QNN_TENSOR_DATA_FORMAT_SPARSE, 2, 1, static_cast<Qnn_SparseLayoutType_t>(7))),
            QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  EXPECT_EQ(create(v2_tensor("s0", QNN_TENSOR_TYPE_NATIVE, dims, QNN_DATATYPE_FLOAT_32,
                             QNN_TENSOR_DATA_FORMAT_SPARSE, 2, 0)),
            QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  EXPECT_EQ(create(v2_tensor("s3", QNN_TENSOR_TYPE_NATIVE, dims, QNN_DATATYPE_FLOAT_32,
                             QNN_TENSOR_DATA_FORMAT_SPARSE, 2, 3)),
            QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  EXPECT_TRUE(logged({"'s3'", "numSparseDimensions is 3, expected 1 to the rank 2"}));
  EXPECT_EQ(create(v2_tensor("k5", QNN_TENSOR_TYPE_NATIVE, dims, QNN_DATATYPE_FLOAT_32,
                             QNN_TENSOR_DATA_FORMAT_SPARSE, 5, 1)),
            QNN_TENSOR_ERROR_INVALID_TENSOR_PARAM);
  EXPECT_TRUE(logged({"'k5'", "numSpecifiedElements is 5, more than the 4 positions"}));
}

TEST_F(SparseTensors, DenseOpsRefuseThemAtAddNodeAndValidation) {
  std::vector<uint32_t> dims{4, 3};
  Qnn_Tensor_t sp = v2_tensor("sp", QNN_TENSOR_TYPE_NATIVE, dims, QNN_DATATYPE_FLOAT_32,
                              QNN_TENSOR_DATA_FORMAT_SPARSE, 2, 1);
  Qnn_Tensor_t out = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, dims);
  ASSERT_EQ(api().graphCreate(context_, "g", nullptr, &graph_), QNN_SUCCESS);
  ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &sp), QNN_SUCCESS);
  ASSERT_EQ(api().tensorCreateGraphTensor(graph_, &out), QNN_SUCCESS);
  EXPECT_EQ(add_node(graph_, "relu", QNN_OP_RELU, &sp, 1, &out), QNN_GRAPH_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_TRUE(logged({"relu", "in[0] is a sparse tensor"}));
  // The same through backendValidateOpConfig, and a sparse op accepted there.
  Qnn_OpConfig_t op = QNN_OPCONFIG_INIT;
  op.v1.name = "relu";
  op.v1.packageName = QNN_OP_PACKAGE_NAME_QTI_AISW;
  op.v1.typeName = QNN_OP_RELU;
  op.v1.numOfInputs = 1;
  op.v1.inputTensors = &sp;
  op.v1.numOfOutputs = 1;
  op.v1.outputTensors = &out;
  EXPECT_EQ(api().backendValidateOpConfig(backend_, op), QNN_BACKEND_ERROR_NOT_SUPPORTED);
  op.v1.typeName = QNN_OP_SPARSE_TO_DENSE;
  EXPECT_EQ(api().backendValidateOpConfig(backend_, op), QNN_SUCCESS);
  EXPECT_EQ(add_node(graph_, "to_dense", QNN_OP_SPARSE_TO_DENSE, &sp, 1, &out), QNN_SUCCESS);
}

// idx [2, 1] INT_32, vals [2, 2] -> CreateSparse -> sp (sparse [3, 2], K 2, S 1)
//   -> SparseToDense -> dense (APP_READ [3, 2])
//   -> GetSparseValues -> back (APP_READ [2, 2])
class SparseBinary : public QnnFixture {
 protected:
  void build() {
    idx_dims_ = {2, 1};
    val_dims_ = {2, 2};
    sp_dims_ = {3, 2};
    idx_ = make_tensor("idx", QNN_TENSOR_TYPE_APP_WRITE, idx_dims_, QNN_DATATYPE_INT_32);
    vals_ = make_tensor("vals", QNN_TENSOR_TYPE_APP_WRITE, val_dims_);
    sp_ = v2_tensor("sp", QNN_TENSOR_TYPE_NATIVE, sp_dims_, QNN_DATATYPE_FLOAT_32, QNN_TENSOR_DATA_FORMAT_SPARSE, 2, 1);
    dense_ = make_tensor("dense", QNN_TENSOR_TYPE_APP_READ, sp_dims_);
    back_ = make_tensor("back", QNN_TENSOR_TYPE_APP_READ, val_dims_);
    ASSERT_EQ(api().graphCreate(context_, "sparse_chain", nullptr, &graph_), QNN_SUCCESS);
    for (Qnn_Tensor_t* t : {&idx_, &vals_, &sp_, &dense_, &back_}) {
      ASSERT_EQ(api().tensorCreateGraphTensor(graph_, t), QNN_SUCCESS);
    }
    Qnn_Tensor_t create_in[] = {idx_, vals_};
    ASSERT_EQ(add_node(graph_, "create", QNN_OP_CREATE_SPARSE, create_in, 2, &sp_), QNN_SUCCESS);
    ASSERT_EQ(add_node(graph_, "to_dense", QNN_OP_SPARSE_TO_DENSE, &sp_, 1, &dense_), QNN_SUCCESS);
    ASSERT_EQ(add_node(graph_, "values", QNN_OP_GET_SPARSE_VALUES, &sp_, 1, &back_), QNN_SUCCESS);
    ASSERT_EQ(api().graphFinalize(graph_, nullptr, nullptr), QNN_SUCCESS);
  }
  // Runs `g` on the fixed inputs; returns dense then back.
  std::vector<float> run(Qnn_GraphHandle_t g) {
    std::vector<int32_t> idx = {2, 0};
    std::vector<float> vals = {1, 2, 3, 4}, dense(6, -9.0f), back(4, -9.0f);
    Qnn_Tensor_t in[] = {idx_, vals_};
    in[0].v1.clientBuf = {idx.data(), 8};
    in[1].v1.clientBuf = {vals.data(), 16};
    Qnn_Tensor_t out[] = {dense_, back_};
    out[0].v1.clientBuf = {dense.data(), 24};
    out[1].v1.clientBuf = {back.data(), 16};
    EXPECT_EQ(api().graphExecute(g, in, 2, out, 2, nullptr, nullptr), QNN_SUCCESS);
    dense.insert(dense.end(), back.begin(), back.end());
    return dense;
  }

  std::vector<uint32_t> idx_dims_, val_dims_, sp_dims_;
  Qnn_Tensor_t idx_, vals_, sp_, dense_, back_;
  Qnn_GraphHandle_t graph_ = nullptr;
};

TEST_F(SparseBinary, ContextBinaryRoundTripGivesTheSameOutputs) {
  build();
  // Row 2 = [1, 2], row 0 = [3, 4], row 1 unspecified; the values come back.
  const std::vector<float> want = {3, 4, 0, 0, 1, 2, /* back */ 1, 2, 3, 4};
  const std::vector<float> online = run(graph_);
  EXPECT_EQ(online, want);
  Qnn_ContextBinarySize_t size = 0;
  ASSERT_EQ(api().contextGetBinarySize(context_, &size), QNN_SUCCESS);
  std::vector<uint8_t> bin(size);
  Qnn_ContextBinarySize_t written = 0;
  ASSERT_EQ(api().contextGetBinary(context_, bin.data(), bin.size(), &written), QNN_SUCCESS);
  Qnn_ContextHandle_t loaded = nullptr;
  ASSERT_EQ(api().contextCreateFromBinary(backend_, nullptr, nullptr, bin.data(), written, &loaded, nullptr),
            QNN_SUCCESS);
  Qnn_GraphHandle_t g = nullptr;
  ASSERT_EQ(api().graphRetrieve(loaded, "sparse_chain", &g), QNN_SUCCESS);
  EXPECT_EQ(run(g), online);
  EXPECT_EQ(api().contextFree(loaded, nullptr), QNN_SUCCESS);
}

}  // namespace
