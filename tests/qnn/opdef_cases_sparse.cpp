// The sparse family (src/ops/reference/sparse_group.cpp): CreateSparse,
// GetSparseIndices, GetSparseValues, SparseToDense. A sparse tensor can only
// be a NATIVE tensor, so every case is a two-node chain (Case::then_op):
// CreateSparse writes the sparse `link`, one of the other three reads it.
// Expected values worked by hand in the comments.
#include "QnnOpDef.h"
#include "opdef_cases.h"

namespace qnntest::opdef {

namespace {

// The NATIVE sparse tensor between the two nodes: dims, K specified entries
// over the first S dims.
Tensor sparse_link(Qnn_DataType_t type, std::vector<uint32_t> dims, uint32_t k, uint32_t s) {
  Tensor t{type, std::move(dims), {}};
  t.sparse_specified = k;
  t.sparse_dims = s;
  return t;
}

Case chain(std::string then_op, std::string label, std::vector<Tensor> inputs, Tensor link,
           std::vector<Tensor> outputs, double tolerance = 0.0) {
  Case c{QNN_OP_CREATE_SPARSE, std::move(label), std::move(inputs), {}, std::move(outputs), tolerance};
  c.then_op = std::move(then_op);
  c.link = std::move(link);
  return c;
}

}  // namespace

OPDEF_CASES(sparse) {
  CaseList cases;

  // dims [3, 2], one sparse dim (rows): row 2 = [1, 2], row 0 = [3, 4]; row 1
  // is unspecified, so 0:
  //   [[3, 4], [0, 0], [1, 2]]
  cases.push_back(chain(QNN_OP_SPARSE_TO_DENSE, "rows of a matrix to dense",
                        {i32({2, 1}, {2, 0}), f32({2, 2}, {1, 2, 3, 4})}, sparse_link(QNN_DATATYPE_FLOAT_32, {3, 2}, 2, 1),
                        {f32({3, 2}, {3, 4, 0, 0, 1, 2})}));

  // dims [4], every dim sparse: indices -1 (wraps to 3), 1, 3; values 1, 2,
  // 3. Position 3 gets 1 then 3: the later entry wins. [0, 2, 0, 3].
  cases.push_back(chain(QNN_OP_SPARSE_TO_DENSE, "negative index wraps, duplicate: the last wins",
                        {i32({3, 1}, {-1, 1, 3}), f32({3}, {1, 2, 3})}, sparse_link(QNN_DATATYPE_FLOAT_32, {4}, 3, 1),
                        {f32({4}, {0, 2, 0, 3})}));

  // dims [2, 3], both dims sparse, UINT_32 indices (1,2) and (0,1): the
  // indices come back as given, as INT_32.
  cases.push_back(chain(QNN_OP_GET_SPARSE_INDICES, "indices back from a sparse tensor",
                        {u32({2, 2}, {1, 2, 0, 1}), f32({2}, {5, 6})}, sparse_link(QNN_DATATYPE_FLOAT_32, {2, 3}, 2, 2),
                        {i32({2, 2}, {1, 2, 0, 1})}));

  // dims [2, 2, 2], one sparse dim: entry at 1 with block [[0.5, 1], [1.5, 2]]
  // in UFIXED_POINT_8 (scale 0.5, offset 0: codes 1..4); the values come back
  // unchanged.
  {
    const std::vector<double> block = {0.5, 1, 1.5, 2};
    Tensor link = sparse_link(QNN_DATATYPE_UFIXED_POINT_8, {2, 2, 2}, 1, 1);
    link.scale = 0.5f;
    cases.push_back(chain(QNN_OP_GET_SPARSE_VALUES, "fixed-point blocks back from a sparse tensor",
                          {i32({1, 1}, {1}), fixed(QNN_DATATYPE_UFIXED_POINT_8, {1, 2, 2}, block, 0.5f, 0)}, link,
                          {fixed(QNN_DATATYPE_UFIXED_POINT_8, {1, 2, 2}, block, 0.5f, 0)}, 1e-6));
  }

  return cases;
}

}  // namespace qnntest::opdef
