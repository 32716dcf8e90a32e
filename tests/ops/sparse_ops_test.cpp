// The sparse family (src/ops/reference/sparse_ops.cpp): CreateSparse,
// GetSparseIndices, GetSparseValues and SparseToDense, chained the way a graph
// runs them (the sparse tensor only ever travels between them), and the
// generic refusal of sparse tensors by every other op (op_registry.cpp).
// Expected dense tensors are written out by hand in each test; the index
// rule for out-of-range indices (wrap once, then clamp) is restated here.
#include "test_util.h"

namespace opstest {
namespace {

TensorDesc sparse_t(uint32_t dt, std::vector<uint32_t> dims, uint32_t k, uint32_t s) {
  TensorDesc t = typed(dt, std::move(dims));
  t.sparse = Sparsity{true, k, s};
  return t;
}

// CreateSparse: indices [K, S] of idx_dt, values of val_dt, into a sparse
// tensor of `dims`.
Node create_node(std::vector<uint32_t> dims, uint32_t k, uint32_t s, uint32_t val_dt = dtype::kFloat32,
                 uint32_t idx_dt = dtype::kInt32) {
  Node n;
  n.type = "CreateSparse";
  std::vector<uint32_t> vdims{k};
  vdims.insert(vdims.end(), dims.begin() + s, dims.end());
  n.inputs = {typed(idx_dt, {k, s}), typed(val_dt, vdims)};
  n.outputs = {sparse_t(val_dt, std::move(dims), k, s)};
  return n;
}

// One of the three readers of the sparse tensor `x`, with out[0] `y`.
Node reader_node(std::string type, TensorDesc x, TensorDesc y) {
  Node n;
  n.type = std::move(type);
  n.inputs = {std::move(x)};
  n.outputs = {std::move(y)};
  return n;
}

std::vector<uint8_t> run1(const Node& n, const std::vector<std::vector<uint8_t>>& ins) {
  std::vector<const std::vector<uint8_t>*> ptrs;
  for (const auto& b : ins) ptrs.push_back(&b);
  return run_raw_outputs(n, ptrs)[0];
}

// The three readings of one sparse tensor (c's output, built from the raw
// indices and values).
struct Readings {
  std::vector<uint8_t> stored, indices, values, dense;
};
Readings read_all(const Node& c, const std::vector<uint8_t>& idx, const std::vector<uint8_t>& vals,
                  uint32_t idx_out_dt = dtype::kInt32) {
  Readings r;
  const TensorDesc& x = c.outputs[0];
  r.stored = run1(c, {idx, vals});
  EXPECT_EQ(r.stored.size(), x.num_bytes());
  r.indices = run1(reader_node("GetSparseIndices", x, typed(idx_out_dt, c.inputs[0].dims)), {r.stored});
  TensorDesc v = c.inputs[1];
  r.values = run1(reader_node("GetSparseValues", x, v), {r.stored});
  TensorDesc d = x;
  d.sparse = {};
  r.dense = run1(reader_node("SparseToDense", x, d), {r.stored});
  return r;
}

// What the index ops do with a run-time index (indexing_util.h), restated:
// negative wraps once, then the result is clamped into [0, dim-1].
int64_t wrap_clamp(int64_t v, int64_t dim) {
  if (v < 0) v += dim;
  return v < 0 ? 0 : (v > dim - 1 ? dim - 1 : v);
}

TEST(SparseTensor, StorageBytesAreIndicesThenValues) {
  // K = 3 entries over S = 2 sparse dims of [4, 5, 2, 3]: 3*2 int32 indices
  // and 3 blocks of 2*3 floats.
  EXPECT_EQ(sparse_t(dtype::kFloat32, {4, 5, 2, 3}, 3, 2).num_bytes(), 3u * 2 * 4 + 3u * 6 * 4);
  // S = rank: blocks of one element; 1-byte values.
  EXPECT_EQ(sparse_t(dtype::kUint8, {4, 5}, 7, 2).num_bytes(), 7u * 2 * 4 + 7u);
  EXPECT_EQ(typed(dtype::kUint8, {4, 5}).num_bytes(), 20u);  // dense unchanged
  EXPECT_EQ(sparse_t(dtype::kFloat32, {4, 5}, 7, 2).num_elements(), 20u);  // the dense count
}

TEST(SparseOps, OneSparseDimRoundTrips) {
  // dims [4, 3], S = 1: entries are rows. Rows 2 and 0 are given.
  const Node c = create_node({4, 3}, 2, 1);
  const std::vector<int32_t> idx = {2, 0};
  const std::vector<float> vals = {1, 2, 3, 4, 5, 6};
  const Readings r = read_all(c, bytes_of(idx), bytes_of(vals));
  EXPECT_EQ(as<int32_t>(r.indices), idx);
  EXPECT_EQ(as<float>(r.values), vals);
  const std::vector<float> dense = {4, 5, 6,  //
                                    0, 0, 0,  //
                                    1, 2, 3,  //
                                    0, 0, 0};
  EXPECT_EQ(as<float>(r.dense), dense);
}

TEST(SparseOps, EverySparseDimRoundTrips) {
  // S = rank = 2, dims [2, 3]: each entry one element.
  const Node c = create_node({2, 3}, 3, 2);
  const std::vector<int32_t> idx = {0, 1, 1, 2, 1, 0};
  const std::vector<float> vals = {7, 8, 9};
  const Readings r = read_all(c, bytes_of(idx), bytes_of(vals));
  EXPECT_EQ(as<int32_t>(r.indices), idx);
  EXPECT_EQ(as<float>(r.values), vals);
  EXPECT_EQ(as<float>(r.dense), (std::vector<float>{0, 7, 0,  //
                                                    9, 0, 8}));
}

TEST(SparseOps, HybridBlocksLandAtTheirPositions) {
  // dims [2, 2, 2], S = 2: entry (1,0) holds [1,2], entry (0,1) holds [3,4].
  // Dense element (a, b, c) is at 4a + 2b + c.
  const Node c = create_node({2, 2, 2}, 2, 2, dtype::kFloat32, dtype::kUint32);
  const std::vector<uint32_t> idx = {1, 0, 0, 1};
  const std::vector<float> vals = {1, 2, 3, 4};
  const Readings r = read_all(c, bytes_of(idx), bytes_of(vals), dtype::kUint32);
  EXPECT_EQ(as<uint32_t>(r.indices), idx);
  EXPECT_EQ(as<float>(r.values), vals);
  EXPECT_EQ(as<float>(r.dense), (std::vector<float>{0, 0, 3, 4, 1, 2, 0, 0}));
}

TEST(SparseOps, DuplicatesAreKeptAndTheLastWinsWhenDensified) {
  const Node c = create_node({3, 2}, 2, 1);
  const std::vector<int32_t> idx = {1, 1};
  const std::vector<float> vals = {1, 2, 3, 4};
  const Readings r = read_all(c, bytes_of(idx), bytes_of(vals));
  EXPECT_EQ(as<int32_t>(r.indices), idx);  // both entries kept, in order
  EXPECT_EQ(as<float>(r.values), vals);
  EXPECT_EQ(as<float>(r.dense), (std::vector<float>{0, 0, 3, 4, 0, 0}));  // the later row 1
}

TEST(SparseOps, DynamicOutOfRangeIndicesWrapOnceThenClamp) {
  // dims [3, 1]: -1 wraps to 2, 5 clamps to 2, -7 wraps to -4 and clamps to 0.
  const Node c = create_node({3, 1}, 3, 1);
  const std::vector<int32_t> idx = {-1, 5, -7};
  const std::vector<float> vals = {10, 20, 30};
  const Readings r = read_all(c, bytes_of(idx), bytes_of(vals));
  std::vector<int32_t> want_idx;
  for (int32_t v : idx) want_idx.push_back(static_cast<int32_t>(wrap_clamp(v, 3)));
  EXPECT_EQ(want_idx, (std::vector<int32_t>{2, 2, 0}));
  EXPECT_EQ(as<int32_t>(r.indices), want_idx);
  EXPECT_EQ(as<float>(r.dense), (std::vector<float>{30, 0, 20}));  // row 2: the later of 10, 20

  // UINT_32 indices are never negative: a huge one clamps to the last row.
  const Node cu = create_node({3, 1}, 1, 1, dtype::kFloat32, dtype::kUint32);
  const std::vector<uint32_t> uidx = {4000000000u};
  const Readings ru = read_all(cu, bytes_of(uidx), bytes_of(std::vector<float>{5}), dtype::kUint32);
  EXPECT_EQ(as<uint32_t>(ru.indices), (std::vector<uint32_t>{2}));
  EXPECT_EQ(as<float>(ru.dense), (std::vector<float>{0, 0, 5}));
}

TEST(SparseOps, StaticIndicesOutOfRangeAreRefused) {
  Node c = create_node({3, 2}, 2, 1);
  const std::vector<int32_t> ok = {-3, 2}, bad = {0, 3};
  c.inputs[0].static_data = ok.data();
  EXPECT_TRUE(c.prepare().ok()) << c.prepare().message;
  c.inputs[0].static_data = bad.data();
  EXPECT_STATUS(c.prepare(), StatusCode::kInvalidArgument, "in[0] (indices) element 1 is 3", "expected in [-3, 2]");
}

TEST(SparseOps, FixedPointAndIntegerValuesMoveExactly) {
  // UFIXED_POINT_8, scale 0.5, offset -10: real 0 is code 10, which the
  // unspecified elements get.
  Node c = create_node({2, 2}, 1, 1, dtype::kUfixed8);
  for (TensorDesc* t : {&c.inputs[1], &c.outputs[0]}) t->quant = Quant::per_tensor(0.5f, -10);
  const std::vector<int32_t> idx = {1};
  const std::vector<uint8_t> vals = {200, 3};
  const Readings r = read_all(c, bytes_of(idx), vals);
  EXPECT_EQ(r.values, vals);
  EXPECT_EQ(r.dense, (std::vector<uint8_t>{10, 10, 200, 3}));

  const Node ci = create_node({2, 2}, 2, 2, dtype::kInt64);
  const std::vector<int64_t> big = {-(int64_t{1} << 40), 77};
  const Readings ri = read_all(ci, bytes_of(std::vector<int32_t>{1, 1, 0, 0}), bytes_of(big));
  EXPECT_EQ(as<int64_t>(ri.values), big);
  EXPECT_EQ(as<int64_t>(ri.dense), (std::vector<int64_t>{77, 0, 0, -(int64_t{1} << 40)}));
}

TEST(SparseOps, CreateSparseRefusals) {
  {
    Node n = create_node({4, 3}, 2, 1);
    n.outputs[0].sparse = {};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "CreateSparse 'n1'", "out[0] is a dense tensor");
  }
  {
    Node n = create_node({4, 3}, 2, 1);
    n.inputs[0].dims = {2, 2};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (indices) dims are [2,2], expected [2,1]");
  }
  {
    Node n = create_node({4, 3}, 2, 1);
    n.inputs[0].dtype = dtype::kFloat32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (indices) data type is FLOAT_32");
  }
  {
    Node n = create_node({4, 3}, 2, 1);
    n.inputs[1].dims = {2, 4};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (values) dims are [2,4], expected [2,3]");
  }
  {
    Node n = create_node({4, 3}, 2, 1);
    n.inputs[1].dtype = dtype::kInt32;
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] data type is FLOAT_32, expected INT_32");
  }
  {
    Node n = create_node({4, 3}, 2, 1, dtype::kUfixed8);
    n.inputs[1].quant = Quant::per_tensor(0.5f, 0);
    n.outputs[0].quant = Quant::per_tensor(0.25f, 0);
    EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "out[0] encoding", "without requantizing");
  }
  {
    Node n = create_node({4, 3}, 2, 1);
    n.params = {u32_param("axis", 0)};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'axis'");
  }
  {
    Node n = create_node({4, 3}, 2, 1);
    n.inputs.pop_back();
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "has 1 inputs, expected 2");
  }
  {
    Node n = create_node({4, 3}, 2, 1);
    n.inputs[1].sparse = {true, 2, 1};
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[1] (values) is a sparse tensor");
  }
  {
    Node n = create_node({4, 3}, 2, 1);
    n.outputs[0].sparse.sparse_dims = 3;  // more than the rank
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] has 3 sparse dims, expected 1 to its rank 2");
  }
  {
    Node n = create_node({4, 3}, 2, 1);
    n.outputs[0].sparse.specified = 5;  // only 4 rows
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] has 5 specified elements, expected 1 to 4");
  }
}

TEST(SparseOps, ReaderRefusals) {
  const TensorDesc x = sparse_t(dtype::kFloat32, {4, 3}, 2, 1);
  TensorDesc dense_x = x;
  dense_x.sparse = {};
  for (const char* type : {"GetSparseIndices", "GetSparseValues", "SparseToDense"}) {
    EXPECT_STATUS(reader_node(type, dense_x, f32({4, 3})).prepare(), StatusCode::kInvalidArgument,
                  "in[0] is a dense tensor, expected a sparse one");
    EXPECT_STATUS(reader_node(type, x, x).prepare(), StatusCode::kInvalidArgument, "out[0] is a sparse tensor");
    Node two = reader_node(type, x, f32({4, 3}));
    two.outputs.push_back(f32({4, 3}));
    EXPECT_STATUS(two.prepare(), StatusCode::kInvalidArgument, "has 2 outputs, expected 1");
  }
  EXPECT_STATUS(reader_node("GetSparseIndices", x, f32({2, 1})).prepare(), StatusCode::kInvalidArgument,
                "out[0] data type is FLOAT_32, expected INT_32 or UINT_32");
  EXPECT_STATUS(reader_node("GetSparseIndices", x, typed(dtype::kInt32, {2, 2})).prepare(),
                StatusCode::kInvalidArgument, "out[0]");
  EXPECT_STATUS(reader_node("GetSparseValues", x, f32({2, 4})).prepare(), StatusCode::kInvalidArgument, "out[0]");
  EXPECT_STATUS(reader_node("GetSparseValues", x, typed(dtype::kUint8, {2, 3})).prepare(),
                StatusCode::kInvalidArgument, "out[0] data type is UINT_8, expected FLOAT_32");
  EXPECT_STATUS(reader_node("SparseToDense", x, f32({4, 4})).prepare(), StatusCode::kInvalidArgument, "out[0]");
  EXPECT_STATUS(reader_node("SparseToDense", x, typed(dtype::kInt32, {4, 3})).prepare(), StatusCode::kInvalidArgument,
                "out[0] data type is INT_32, expected FLOAT_32");
  // Each one refuses a parameter: QnnOpDef.h defines none.
  Node p = reader_node("SparseToDense", x, f32({4, 3}));
  p.params = {u32_param("default_value", 0)};
  EXPECT_STATUS(p.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'default_value'");
}

TEST(SparseOps, EveryOtherOpRefusesSparseTensors) {
  const TensorDesc x = sparse_t(dtype::kFloat32, {4, 3}, 2, 1);
  Node relu;
  relu.type = "Relu";
  relu.inputs = {x};
  relu.outputs = {f32({4, 3})};
  EXPECT_STATUS(relu.prepare(), StatusCode::kUnsupported, "Relu 'n1': in[0] is a sparse tensor",
                "takes dense tensors only");
  Node add;
  add.type = "ElementWiseAdd";
  add.inputs = {f32({4, 3}), f32({4, 3})};
  add.outputs = {x};
  EXPECT_STATUS(add.prepare(), StatusCode::kUnsupported, "ElementWiseAdd 'n1': out[0] is a sparse tensor");
  Node reshape;
  reshape.type = "Reshape";
  reshape.inputs = {f32({12})};
  reshape.outputs = {f32({4, 3})};
  EXPECT_TRUE(reshape.prepare().ok());
  reshape.inputs = {x};
  EXPECT_STATUS(reshape.prepare(), StatusCode::kUnsupported, "Reshape 'n1': in[0] is a sparse tensor");
  // A type-adapted op (FLOAT_16) is refused the same way, before the adapter.
  Node sig;
  sig.type = "Sigmoid";
  sig.inputs = {sparse_t(dtype::kFloat16, {4, 3}, 2, 1)};
  sig.outputs = {typed(dtype::kFloat16, {4, 3})};
  EXPECT_STATUS(sig.prepare(), StatusCode::kUnsupported, "Sigmoid 'n1': in[0] is a sparse tensor");
  // A fused residual (the input after the op's own) is refused too.
  Node dense_relu;
  dense_relu.type = "Relu";
  dense_relu.inputs = {f32({4, 3})};
  dense_relu.outputs = {f32({4, 3})};
  Epilogue e;
  e.residual = &x;
  NodeDesc nd = dense_relu.desc();
  nd.epilogue = &e;
  EXPECT_STATUS(prepare_reference(nd, nullptr), StatusCode::kUnsupported,
                "Relu 'n1': the fused residual input is a sparse tensor");
}

}  // namespace
}  // namespace opstest
