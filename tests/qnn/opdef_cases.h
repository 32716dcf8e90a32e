// The op walk's contract (issue 12 item 3): every op type of QnnOpDef.h that
// backendGetSupportedOperations lists has at least one Case here — a small
// one-node graph built through the QNN API, with inputs, parameters and the
// expected outputs computed by a formula written in the case itself (never
// by running openhtp). opdef_walk_test.cpp reads QnnOpDef.h, asks the
// backend for its list, fails for a listed op that has no case, and runs
// every case through graphCreate → graphAddNode → graphFinalize →
// graphExecute.
//
// Cases live in one file per op family, tests/qnn/opdef_cases_<family>.cpp,
// each registering its list with OPDEF_CASES(<family>) { return {...}; }.
// The test executable picks those files up by glob.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "QnnTypes.h"

namespace qnntest::opdef {

// A tensor of a case. `values` are real values: the walk converts them to
// `type` (FLOAT_32, FLOAT_16, INT_32, UINT_32, INT_8/UINT_8, BOOL_8) or, for
// a fixed-point type, quantizes them with `scale`/`offset` (QNN's convention:
// real = (q + offset) * scale). An output's values are the expected ones.
struct Tensor {
  Qnn_DataType_t type = QNN_DATATYPE_FLOAT_32;
  std::vector<uint32_t> dims;
  std::vector<double> values;
  bool is_static = false;  // a STATIC input (weights, indices known at build time)
  float scale = 0.0f;      // fixed-point types only
  int32_t offset = 0;
  // Per-axis fixed point (AXIS_SCALE_OFFSET, e.g. per-output-channel
  // weights): when axis_scales is non-empty it replaces scale/offset, one
  // (scale, offset) per index along dims[axis]; axis_offsets empty means 0s.
  int32_t axis = -1;
  std::vector<float> axis_scales = {};
  std::vector<int32_t> axis_offsets = {};
  // A sparse tensor (dataFormat SPARSE, layout HYBRID_COO, a V2 tensor) when
  // sparse_dims > 0: only as a chain's `link` (see Case), since no graph
  // input or output can be sparse. numSpecifiedElements / numSparseDimensions.
  uint32_t sparse_specified = 0;
  uint32_t sparse_dims = 0;
};

// A parameter: a scalar when `dims` is empty, else a STATIC tensor param.
struct Param {
  std::string name;
  Qnn_DataType_t type = QNN_DATATYPE_UINT_32;
  std::vector<uint32_t> dims;
  std::vector<double> values;
};

struct Case {
  std::string op;     // the QNN_OP_* type name
  std::string label;  // what this case shows, for the failure message
  std::vector<Tensor> inputs;
  std::vector<Param> params;
  std::vector<Tensor> outputs;  // expected values
  double tolerance = 1e-5;      // max |got - expected| per element (0: exact)
  // Non-empty: the walk skips this case with this reason (a `// KNOWN BUG:`
  // of openhtp's, kept so the case runs again once the kernel is fixed).
  std::string skip = {};
  // A two-node chain, for op types whose input or output cannot be a graph
  // tensor (a sparse tensor is NATIVE only): when `then_op` is set, `op`
  // reads `inputs` (with `params`) and writes `link`, a NATIVE tensor
  // (`values` unused), and `then_op` (no parameters) reads `link` and writes
  // `outputs`. The case covers both op types.
  std::string then_op = {};
  Tensor link = {};
};

// Shorthands for the tables.
inline Tensor f32(std::vector<uint32_t> dims, std::vector<double> values) {
  return Tensor{QNN_DATATYPE_FLOAT_32, std::move(dims), std::move(values)};
}
inline Tensor i32(std::vector<uint32_t> dims, std::vector<double> values) {
  return Tensor{QNN_DATATYPE_INT_32, std::move(dims), std::move(values)};
}
inline Tensor u32(std::vector<uint32_t> dims, std::vector<double> values) {
  return Tensor{QNN_DATATYPE_UINT_32, std::move(dims), std::move(values)};
}
inline Tensor bool8(std::vector<uint32_t> dims, std::vector<double> values) {
  return Tensor{QNN_DATATYPE_BOOL_8, std::move(dims), std::move(values)};
}
inline Tensor f16(std::vector<uint32_t> dims, std::vector<double> values) {
  return Tensor{QNN_DATATYPE_FLOAT_16, std::move(dims), std::move(values)};
}
// A fixed-point tensor (UFIXED_POINT_8, ...) holding real `values`.
inline Tensor fixed(Qnn_DataType_t type, std::vector<uint32_t> dims, std::vector<double> values, float scale,
                    int32_t offset) {
  return Tensor{type, std::move(dims), std::move(values), false, scale, offset};
}
// A per-axis fixed-point tensor (see Tensor::axis_scales).
inline Tensor fixed_per_axis(Qnn_DataType_t type, std::vector<uint32_t> dims, std::vector<double> values, int32_t axis,
                             std::vector<float> scales, std::vector<int32_t> offsets = {}) {
  Tensor t{type, std::move(dims), std::move(values)};
  t.axis = axis;
  t.axis_scales = std::move(scales);
  t.axis_offsets = std::move(offsets);
  return t;
}
inline Tensor fixed_static(Tensor t) {
  t.is_static = true;
  return t;
}
inline Param scalar_u32(std::string name, uint32_t v) { return Param{std::move(name), QNN_DATATYPE_UINT_32, {}, {double(v)}}; }
inline Param scalar_i32(std::string name, int32_t v) { return Param{std::move(name), QNN_DATATYPE_INT_32, {}, {double(v)}}; }
inline Param scalar_f32(std::string name, float v) { return Param{std::move(name), QNN_DATATYPE_FLOAT_32, {}, {double(v)}}; }
inline Param scalar_bool(std::string name, bool v) { return Param{std::move(name), QNN_DATATYPE_BOOL_8, {}, {v ? 1.0 : 0.0}}; }
inline Param tensor_u32(std::string name, std::vector<uint32_t> dims, std::vector<double> values) {
  return Param{std::move(name), QNN_DATATYPE_UINT_32, std::move(dims), std::move(values)};
}
inline Param tensor_i32(std::string name, std::vector<uint32_t> dims, std::vector<double> values) {
  return Param{std::move(name), QNN_DATATYPE_INT_32, std::move(dims), std::move(values)};
}

using CaseList = std::vector<Case>;

// Registers a family's cases (called from static initialisers; defined in
// opdef_walk_test.cpp). Returns a dummy so it can initialise a static.
int register_cases(const char* family, CaseList (*make)());

}  // namespace qnntest::opdef

#define OPDEF_CASES(family)                                                                             \
  static ::qnntest::opdef::CaseList opdef_cases_##family();                                             \
  [[maybe_unused]] static const int opdef_registered_##family =                                        \
      ::qnntest::opdef::register_cases(#family, &opdef_cases_##family);                                 \
  static ::qnntest::opdef::CaseList opdef_cases_##family()
