// The sparse family (see op_defs.h): the ops on QNN sparse tensors
// (QNN_TENSOR_DATA_FORMAT_SPARSE, HYBRID_COO), all in sparse_ops.cpp. They
// are the only ops that accept sparse tensors (op_flags::kSparseTensors).
// Listed after every other family so the earlier ops keep their places.
#include "ops/op_defs.h"

namespace openhtp::ops::detail {

// Native types: elements move as bytes (no type adapter).
OpDef create_sparse_def();
OpDef get_sparse_indices_def();
OpDef get_sparse_values_def();
OpDef sparse_to_dense_def();

std::vector<OpDef> sparse_group() {
  return {create_sparse_def(), get_sparse_indices_def(), get_sparse_values_def(), sparse_to_dense_def()};
}

}  // namespace openhtp::ops::detail
