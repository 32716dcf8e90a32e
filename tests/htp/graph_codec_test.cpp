// The graph wire format: round trip, and untrusted bytes (truncated,
// corrupted, dangling references) rejected with a message, never a crash.
#include <gtest/gtest.h>

#include <random>

#include "binary/context_codec.h"
#include "binary/graph_codec.h"

using namespace openhtp;

namespace {
htp::GraphSpec sample() {
  htp::GraphSpec g;
  g.name = "g";
  htp::TensorSpec a{1, "a", htp::tensor_type::kAppWrite, ops::dtype::kFloat32, {1, 4}, {}, {}};
  htp::TensorSpec w{2, "w", htp::tensor_type::kStatic, ops::dtype::kFloat32, {4}, ops::Quant::per_tensor(0.5f, -3), std::vector<uint8_t>(16, 7)};
  htp::TensorSpec o{3, "o", htp::tensor_type::kAppRead, ops::dtype::kFloat32, {1, 4}, {}, {}};
  g.tensors = {a, w, o};
  ops::Param p;
  p.name = "stride";
  p.is_tensor = true;
  p.dtype = ops::dtype::kUint32;
  p.dims = {2};
  p.data = std::vector<uint8_t>(8, 1);
  g.nodes.push_back({"add", "qti.aisw", "ElementWiseAdd", {p}, {1, 2}, {3}});
  return g;
}
}  // namespace

TEST(GraphCodec, RoundTrips) {
  auto bytes = binary::encode_graph(sample());
  htp::GraphSpec back;
  std::string err;
  ASSERT_TRUE(binary::decode_graph(bytes.data(), bytes.size(), &back, &err)) << err;
  EXPECT_EQ(back.name, "g");
  ASSERT_EQ(back.tensors.size(), 3u);
  EXPECT_EQ(back.tensors[1].static_data, std::vector<uint8_t>(16, 7));
  EXPECT_TRUE(back.tensors[1].quant.present);
  EXPECT_EQ(back.tensors[1].quant.offset, -3);
  ASSERT_EQ(back.nodes.size(), 1u);
  EXPECT_EQ(back.nodes[0].params[0].data.size(), 8u);
  EXPECT_EQ(back.nodes[0].inputs, (std::vector<uint32_t>{1, 2}));
}

TEST(GraphCodec, RejectsTruncatedCorruptedAndDanglingInput) {
  auto bytes = binary::encode_graph(sample());
  htp::GraphSpec out;
  std::string err;
  // A prefix either fails verification or (when only trailing alignment
  // padding was cut) still decodes to the same graph — never to garbage.
  int truncated_rejected = 0;
  for (size_t len = 0; len < bytes.size(); ++len) {
    if (binary::decode_graph(bytes.data(), len, &out, &err)) {
      EXPECT_EQ(out.tensors.size(), 3u) << "prefix " << len;
      EXPECT_EQ(out.nodes.size(), 1u) << "prefix " << len;
    } else {
      ++truncated_rejected;
    }
  }
  EXPECT_GE(truncated_rejected, static_cast<int>(bytes.size()) - 8);
  std::mt19937 rng(1);
  int rejected = 0;
  for (int i = 0; i < 2000; ++i) {
    auto bad = bytes;
    for (int k = 0; k < 4; ++k) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    rejected += binary::decode_graph(bad.data(), bad.size(), &out, &err) ? 0 : 1;  // must not crash
  }
  EXPECT_GT(rejected, 0);
  auto g = sample();
  g.nodes[0].inputs = {1, 42};
  bytes = binary::encode_graph(g);
  EXPECT_FALSE(binary::decode_graph(bytes.data(), bytes.size(), &out, &err));
  EXPECT_NE(err.find("unknown tensor id 42"), std::string::npos) << err;
}

TEST(ContextCodec, RoundTripsAndTellsVersionFromCorruption) {
  binary::ContextImage image;
  image.build_id = "test";
  image.graphs.push_back({sample(), 4096, 4096, 0, {}});
  image.weights_bytes = binary::weights_bytes(image.graphs, 4096);
  EXPECT_EQ(image.weights_bytes, 4096u);  // one 16-byte static tensor, page aligned
  auto bytes = binary::encode_context(image);
  binary::ContextImage back;
  std::string err;
  ASSERT_EQ(binary::decode_context(bytes.data(), bytes.size(), &back, &err), binary::BinaryError::kNone) << err;
  ASSERT_EQ(back.graphs.size(), 1u);
  EXPECT_EQ(back.graphs[0].spec.tensors.size(), 3u);
  EXPECT_EQ(back.graphs[0].arena_bytes, 4096u);
  EXPECT_EQ(back.build_id, "test");
  // A newer major (or minor) format is a version error, not corruption.
  auto newer = binary::encode_context_as(image, {2, 0, 0});
  EXPECT_EQ(binary::decode_context(newer.data(), newer.size(), &back, &err), binary::BinaryError::kVersion);
  EXPECT_NE(err.find("format 2.0"), std::string::npos) << err;
  newer = binary::encode_context_as(image, {1, binary::kContextFormat.minor + 1, 0});
  EXPECT_EQ(binary::decode_context(newer.data(), newer.size(), &back, &err), binary::BinaryError::kVersion);
  // An older minor (1.0: no stored plans) is still read.
  auto older = binary::encode_context_as(image, {1, 0, 0});
  EXPECT_EQ(binary::decode_context(older.data(), older.size(), &back, &err), binary::BinaryError::kNone) << err;
  // Flipping one payload bit trips the CRC.
  auto bad = bytes;
  bad[bad.size() / 2] ^= 0x01;
  EXPECT_EQ(binary::decode_context(bad.data(), bad.size(), &back, &err), binary::BinaryError::kMalformed);
}

// A binary's extent is its own size, found from its offsets alone: for
// binaries of many sizes (the payload grows with the graph count, so the
// padding before Finish's alignment varies), with trailing bytes after it,
// and never past what was given.
TEST(ContextCodec, ExtentIsTheBinarysOwnSizeWhateverTheBufferHolds) {
  binary::ContextImage image;
  for (int graphs = 1; graphs <= 12; ++graphs) {
    image.build_id.push_back('x');  // moves the payload's length by one byte each round
    image.graphs.push_back({sample(), 4096, 4096, 0, {}});
    for (const binary::ApiVersion format : {binary::kContextFormatUnshared, binary::kContextFormat}) {
      std::vector<uint8_t> bytes = binary::encode_context_as(image, format);
      SCOPED_TRACE(std::to_string(graphs) + " graphs, " + std::to_string(bytes.size()) + " bytes");
      EXPECT_EQ(binary::context_binary_extent(bytes.data(), bytes.size()), bytes.size());
      const size_t own = bytes.size();
      bytes.resize(own + 4099, 0xA5);  // a larger buffer: the binary, then other bytes
      EXPECT_EQ(binary::context_binary_extent(bytes.data(), bytes.size()), own);
      for (size_t cut : {own - 1, own / 2, size_t{9}}) {
        EXPECT_LE(binary::context_binary_extent(bytes.data(), cut), cut);  // truncated: never past the buffer
      }
    }
  }
  const std::vector<uint8_t> garbage(64, 0xFF);
  EXPECT_EQ(binary::context_binary_extent(garbage.data(), garbage.size()), 0u);
  EXPECT_EQ(binary::context_binary_extent(nullptr, 100), 0u);
}

// Format 1.1 stores each graph's plan; a placement naming a tensor the graph
// does not have, or a region that does not exist, is corruption.
TEST(ContextCodec, StoredPlansRoundTripAndForeignPlacementsAreRefused) {
  binary::ContextImage image;
  image.graphs.push_back({sample(), 4096, 64, 4096, {}});
  const uint32_t native = image.graphs[0].spec.tensors.back().id;
  image.graphs[0].placements = {{native, {htp::Region::kSpillFill, 4032}}};
  auto bytes = binary::encode_context(image);
  binary::ContextImage back;
  std::string err;
  ASSERT_EQ(binary::decode_context(bytes.data(), bytes.size(), &back, &err), binary::BinaryError::kNone) << err;
  ASSERT_EQ(back.graphs[0].placements.size(), 1u);
  ASSERT_EQ(back.graphs[0].placements.count(native), 1u);
  EXPECT_EQ(back.graphs[0].placements.at(native).region, htp::Region::kSpillFill);
  EXPECT_EQ(back.graphs[0].placements.at(native).offset, 4032u);
  image.graphs[0].placements = {{9999, {htp::Region::kVtcm, 0}}};
  bytes = binary::encode_context(image);
  EXPECT_EQ(binary::decode_context(bytes.data(), bytes.size(), &back, &err), binary::BinaryError::kMalformed);
  EXPECT_NE(err.find("tensor id 9999"), std::string::npos) << err;
  image.graphs[0].placements = {{native, {static_cast<htp::Region>(7), 0}}};
  bytes = binary::encode_context(image);
  EXPECT_EQ(binary::decode_context(bytes.data(), bytes.size(), &back, &err), binary::BinaryError::kMalformed);
  EXPECT_NE(err.find("region 7"), std::string::npos) << err;
}

TEST(GraphCodec, PerChannelEncodingAndThreadCountRoundTrip) {
  htp::GraphSpec g = sample();
  g.num_hvx_threads = 3;
  htp::TensorSpec& w = g.tensors[1];
  w.dims = {2, 2};
  w.dtype = ops::dtype::kSfixed8;
  w.static_data = std::vector<uint8_t>(4, 1);
  w.quant = ops::Quant{};
  w.quant.present = true;
  w.quant.axis = 1;
  w.quant.scales = {0.25f, 0.5f};
  w.quant.offsets = {0, -1};
  auto bytes = binary::encode_graph(g);
  htp::GraphSpec back;
  std::string err;
  ASSERT_TRUE(binary::decode_graph(bytes.data(), bytes.size(), &back, &err)) << err;
  EXPECT_EQ(back.num_hvx_threads, 3u);
  const ops::Quant& q = back.tensors[1].quant;
  EXPECT_TRUE(q.per_channel());
  EXPECT_EQ(q.axis, 1);
  EXPECT_EQ(q.scales, (std::vector<float>{0.25f, 0.5f}));
  EXPECT_EQ(q.offsets, (std::vector<int32_t>{0, -1}));
}

TEST(GraphCodec, RejectsPerChannelEncodingThatDoesNotFitTheTensor) {
  htp::GraphSpec g = sample();
  htp::TensorSpec& w = g.tensors[1];  // dims {4}
  w.quant = ops::Quant{};
  w.quant.present = true;
  w.quant.axis = 0;
  w.quant.scales = {1.0f, 1.0f};  // 2 entries for 4 channels
  w.quant.offsets = {0, 0};
  auto bytes = binary::encode_graph(g);
  htp::GraphSpec back;
  std::string err;
  EXPECT_FALSE(binary::decode_graph(bytes.data(), bytes.size(), &back, &err));
  EXPECT_NE(err.find("per-channel encoding that does not match"), std::string::npos) << err;
}

// Sparse NATIVE tensors (ops::Sparsity) travel as two trailing Tensor fields
// that default to 0, so a dense tensor (and a blob written before the fields
// existed) reads back dense.
TEST(GraphCodec, SparseLayoutRoundTripsAndDenseStaysDense) {
  htp::GraphSpec g = sample();
  htp::TensorSpec sp{4, "sp", htp::tensor_type::kNative, ops::dtype::kFloat32, {4, 3}, {}, {}};
  sp.sparse = {true, 2, 1};
  g.tensors.push_back(sp);
  auto bytes = binary::encode_graph(g);
  htp::GraphSpec back;
  std::string err;
  ASSERT_TRUE(binary::decode_graph(bytes.data(), bytes.size(), &back, &err)) << err;
  ASSERT_EQ(back.tensors.size(), 4u);
  EXPECT_EQ(back.tensors[3].sparse, (ops::Sparsity{true, 2, 1}));
  EXPECT_EQ(back.tensors[3].num_bytes(), 2u * 1 * 4 + 2u * 3 * 4);  // K*S int32 indices, K blocks of 3 floats
  for (size_t i = 0; i < 3; ++i) EXPECT_FALSE(back.tensors[i].sparse.is_sparse) << i;
  // Through a context binary too.
  binary::ContextImage image;
  image.build_id = "test";
  image.graphs.push_back({g, 4096, 4096, 0, {}});
  bytes = binary::encode_context(image);
  binary::ContextImage ctx;
  ASSERT_EQ(binary::decode_context(bytes.data(), bytes.size(), &ctx, &err), binary::BinaryError::kNone) << err;
  EXPECT_EQ(ctx.graphs[0].spec.tensors[3].sparse, (ops::Sparsity{true, 2, 1}));
}

TEST(GraphCodec, RejectsSparseLayoutThatDoesNotFitTheTensor) {
  struct Bad {
    uint32_t type;
    ops::Sparsity sparse;
  };
  const Bad bad[] = {
      {htp::tensor_type::kNative, {true, 2, 3}},    // S above the rank 2
      {htp::tensor_type::kNative, {true, 5, 1}},    // K above the 4 rows
      {htp::tensor_type::kNative, {true, 0, 1}},    // no entries
      {htp::tensor_type::kAppWrite, {true, 2, 1}},  // only NATIVE tensors are sparse
  };
  for (const Bad& b : bad) {
    htp::GraphSpec g = sample();
    htp::TensorSpec sp{4, "sp", b.type, ops::dtype::kFloat32, {4, 3}, {}, {}};
    sp.sparse = b.sparse;
    g.tensors.push_back(sp);
    auto bytes = binary::encode_graph(g);
    htp::GraphSpec back;
    std::string err;
    EXPECT_FALSE(binary::decode_graph(bytes.data(), bytes.size(), &back, &err)) << b.sparse.specified;
    EXPECT_NE(err.find("'sp' has a sparse layout"), std::string::npos) << err;
  }
}
