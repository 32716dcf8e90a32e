// Weight sharing (ContextOptions::weight_sharing, QNN's WEIGHT_SHARING_ENABLED):
// the runtime's pool (identical STATIC tensors of a context's graphs held
// once, refcounted by the graphs), its interplay with an external weights
// buffer, and the context binary's weight blobs (format 1.2) with a hostile
// reader's checks. Expected outputs are computed here from the weights the
// test wrote, never read back from the runtime.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "binary/context_codec.h"
#include "binary/graph_tables.h"
#include "context_generated.h"
#include "htp/runtime.h"

using namespace openhtp;
using htp::ExecBinding;
using htp::MemoryKind;

namespace {

class HeapRange final : public htp::MappedRange {
 public:
  static std::shared_ptr<HeapRange> make(size_t bytes) {
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
    std::memset(p, 0, bytes);
    return std::shared_ptr<HeapRange>(new HeapRange(p, bytes));
  }
  ~HeapRange() override { std::free(base()); }
  float* floats(size_t offset = 0) const { return reinterpret_cast<float*>(base() + offset); }

 private:
  HeapRange(uint8_t* p, size_t n) : MappedRange(p, n) {}
};

constexpr uint32_t kN = 256;  // elements per tensor
constexpr size_t kBytes = kN * sizeof(float);
constexpr uint32_t kX = 1, kW1 = 2, kW2 = 3, kA = 4, kOut = 5;

htp::TensorSpec tensor(uint32_t id, const char* name, uint32_t type) {
  return {id, name, type, ops::dtype::kFloat32, {1, kN}, {}, {}};
}

htp::TensorSpec weights(uint32_t id, const char* name, float base) {
  htp::TensorSpec t = tensor(id, name, htp::tensor_type::kStatic);
  std::vector<uint8_t> bytes(kBytes);
  float* f = reinterpret_cast<float*>(bytes.data());
  for (uint32_t i = 0; i < kN; ++i) f[i] = base + 0.5f * static_cast<float>(i);
  t.static_data = std::move(bytes);
  return t;
}

// out = (x + w1) + w2: w1 from base `b1`, w2 from base `b2`.
htp::GraphSpec graph(const char* name, float b1, float b2) {
  htp::GraphSpec g;
  g.name = name;
  g.tensors = {tensor(kX, "x", htp::tensor_type::kAppWrite), weights(kW1, "w1", b1), weights(kW2, "w2", b2),
               tensor(kA, "a", htp::tensor_type::kNative), tensor(kOut, "out", htp::tensor_type::kAppRead)};
  g.nodes.push_back({"add1", "", "ElementWiseAdd", {}, {kX, kW1}, {kA}});
  g.nodes.push_back({"add2", "", "ElementWiseAdd", {}, {kA, kW2}, {kOut}});
  g.num_hvx_threads = 1;
  return g;
}

float expected(float x, float b1, float b2, uint32_t i) { return (x + (b1 + 0.5f * i)) + (b2 + 0.5f * i); }

class WeightSharing : public ::testing::Test {
 protected:
  std::unique_ptr<htp::Runtime> rt = htp::make_runtime(htp::RuntimeOptions{});

  uint64_t context(bool sharing) {
    htp::ContextOptions o;
    o.weight_sharing = sharing;
    uint64_t id = 0;
    const htp::Status s = rt->create_context(o, &id);
    EXPECT_TRUE(s.ok()) << s.message;
    return id;
  }
  uint64_t prepare(uint64_t ctx, htp::GraphSpec spec) {
    htp::GraphInfo info;
    const htp::Status s = rt->prepare_graph(ctx, std::move(spec), nullptr, &info);
    EXPECT_TRUE(s.ok()) << s.message;
    return info.graph_id;
  }
  // Runs `g` on x = 1.5 and checks every output against the formula.
  void check(uint64_t g, float b1, float b2) {
    std::vector<float> x(kN, 1.5f), out(kN, -1.0f);
    htp::ExecResult r;
    const htp::Status s = rt->execute(g, std::vector<ExecBinding>{{kX, 0, x.data(), kBytes}},
                                      std::vector<ExecBinding>{{kOut, 0, out.data(), kBytes}}, &r);
    ASSERT_TRUE(s.ok()) << s.message;
    for (uint32_t i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(out[i], expected(1.5f, b1, b2, i)) << "element " << i;
  }
};

// Two graphs with the same w1 and different w2s: w1 is held once, each w2 on
// its own; freeing one graph keeps what the other reads.
TEST_F(WeightSharing, IdenticalWeightsOfTwoGraphsAreHeldOnceAndOutliveEitherGraph) {
  const uint64_t ctx = context(true);
  const uint64_t a = prepare(ctx, graph("prefill", 100.0f, 1000.0f));
  const uint64_t b = prepare(ctx, graph("decode", 100.0f, 2000.0f));
  htp::RuntimeStats s = rt->stats();
  EXPECT_EQ(s.static_bytes, 3 * kBytes);  // w1 once, w2 twice (they differ)
  EXPECT_EQ(s.shared_weights, 1u);        // only w1 is read by two tensors
  EXPECT_EQ(s.shared_tensors, 2u);
  check(a, 100.0f, 1000.0f);
  check(b, 100.0f, 2000.0f);

  ASSERT_TRUE(rt->free_graph(a).ok());
  s = rt->stats();
  EXPECT_EQ(s.static_bytes, 2 * kBytes);  // b's w1 and w2
  EXPECT_EQ(s.shared_weights, 0u);
  check(b, 100.0f, 2000.0f);
  // A graph prepared later finds what b still holds.
  const uint64_t c = prepare(ctx, graph("again", 100.0f, 1000.0f));
  EXPECT_EQ(rt->stats().static_bytes, 3 * kBytes);
  ASSERT_TRUE(rt->free_graph(b).ok());
  check(c, 100.0f, 1000.0f);
  EXPECT_EQ(rt->stats().static_bytes, 2 * kBytes);
}

TEST_F(WeightSharing, WithoutTheOptionEveryGraphHoldsItsOwn) {
  const uint64_t ctx = context(false);
  const uint64_t a = prepare(ctx, graph("prefill", 100.0f, 1000.0f));
  const uint64_t b = prepare(ctx, graph("decode", 100.0f, 2000.0f));
  const htp::RuntimeStats s = rt->stats();
  EXPECT_EQ(s.static_bytes, 4 * kBytes);
  EXPECT_EQ(s.shared_weights, 0u);
  EXPECT_EQ(s.shared_tensors, 0u);
  check(a, 100.0f, 1000.0f);
  check(b, 100.0f, 2000.0f);
}

// Sharing is per context: a second context with the same weights holds its own.
TEST_F(WeightSharing, ContextsDoNotShareWithEachOther) {
  const uint64_t c1 = context(true), c2 = context(true);
  prepare(c1, graph("g", 100.0f, 1000.0f));
  prepare(c2, graph("g", 100.0f, 1000.0f));
  EXPECT_EQ(rt->stats().static_bytes, 4 * kBytes);
  EXPECT_EQ(rt->stats().shared_weights, 0u);
}

// The same content twice in one graph is one copy too.
TEST_F(WeightSharing, TwoEqualTensorsOfOneGraphAreOneCopy) {
  const uint64_t ctx = context(true);
  const uint64_t g = prepare(ctx, graph("g", 7.0f, 7.0f));
  EXPECT_EQ(rt->stats().static_bytes, kBytes);
  check(g, 7.0f, 7.0f);
}

// With an external weights buffer, each shared content is placed once: three
// pages hold what four unshared tensors could not.
TEST_F(WeightSharing, AnExternalWeightsBufferHoldsEachSharedContentOnce) {
  for (bool sharing : {true, false}) {
    SCOPED_TRACE(sharing ? "sharing" : "not sharing");
    const uint64_t ctx = context(sharing);
    auto wb = HeapRange::make(3 * 4096);
    uint64_t mem = 0;
    ASSERT_TRUE(rt->register_memory(ctx, MemoryKind::kWeights, wb, 0, 3 * 4096, &mem).ok());
    const uint64_t a = prepare(ctx, graph("prefill", 100.0f, 1000.0f));
    htp::GraphInfo info;
    const htp::Status s = rt->prepare_graph(ctx, graph("decode", 100.0f, 2000.0f), nullptr, &info);
    if (!sharing) {
      EXPECT_EQ(s.code, QNN_COMMON_ERROR_MEM_ALLOC) << "four weights fit a buffer of three pages";
      ASSERT_TRUE(rt->free_context(ctx).ok());
      continue;
    }
    ASSERT_TRUE(s.ok()) << s.message;
    EXPECT_EQ(rt->stats().weights_buffer_bytes, 2 * 4096 + kBytes);  // w1, a's w2, b's w2
    EXPECT_EQ(rt->stats().static_bytes, 0u);                          // all of it in the client's buffer
    check(a, 100.0f, 1000.0f);
    check(info.graph_id, 100.0f, 2000.0f);
    // Both graphs read the one w1 in the buffer.
    wb->floats(0)[3] += 10.0f;
    std::vector<float> x(kN, 0.0f), out(kN);
    htp::ExecResult r;
    for (uint64_t g : {a, info.graph_id}) {
      ASSERT_TRUE(rt->execute(g, std::vector<ExecBinding>{{kX, 0, x.data(), kBytes}},
                              std::vector<ExecBinding>{{kOut, 0, out.data(), kBytes}}, &r)
                      .ok());
      EXPECT_FLOAT_EQ(out[3], expected(0.0f, 100.0f, g == a ? 1000.0f : 2000.0f, 3) + 10.0f);
    }
    ASSERT_TRUE(rt->free_graph(a).ok());
    wb->floats(0)[3] -= 10.0f;
    check(info.graph_id, 100.0f, 2000.0f);
  }
}

// The content key: equal bytes are not enough, the encoding must match too.
TEST(WeightSharingKey, DtypeDimsAndPerAxisEncodingArePartOfTheContent) {
  htp::TensorSpec a{1, "a", htp::tensor_type::kStatic, ops::dtype::kUfixed8, {2, 4}, {}, std::vector<uint8_t>(8, 9)};
  a.quant.present = true;
  a.quant.axis = 0;
  a.quant.scales = {0.5f, 0.25f};
  a.quant.offsets = {0, 0};
  htp::TensorSpec b = a;
  b.name = "b";
  b.id = 2;
  EXPECT_TRUE(htp::same_static_meta(a, b));
  EXPECT_EQ(htp::static_content_hash(a, a.static_data), htp::static_content_hash(b, b.static_data));
  htp::TensorSpec c = b;
  c.quant.scales[1] = 0.125f;
  EXPECT_FALSE(htp::same_static_meta(a, c));
  EXPECT_NE(htp::static_content_hash(a, a.static_data), htp::static_content_hash(c, c.static_data));
  htp::TensorSpec d = b;
  d.dims = {4, 2};
  EXPECT_FALSE(htp::same_static_meta(a, d));
  htp::TensorSpec e = b;
  e.quant.offsets[0] = 1;
  EXPECT_FALSE(htp::same_static_meta(a, e));
  htp::TensorSpec f = b;
  std::vector<uint8_t> changed(b.static_data.begin(), b.static_data.end());
  changed[7] = 8;
  f.static_data = std::move(changed);
  EXPECT_NE(htp::static_content_hash(a, a.static_data), htp::static_content_hash(f, f.static_data));
}

binary::ContextImage two_graph_image(bool sharing) {
  binary::ContextImage image;
  image.build_id = "ws";
  image.weight_sharing = sharing;
  image.graphs.push_back({graph("prefill", 100.0f, 1000.0f), 4096, 4096, 0, {}});
  image.graphs.push_back({graph("decode", 100.0f, 1000.0f), 4096, 4096, 0, {}});
  image.graphs.push_back({graph("other", 5.0f, 6.0f), 4096, 4096, 0, {}});  // shares nothing
  image.weights_bytes = binary::weights_bytes(image.graphs, 4096, sharing);
  return image;
}

binary::ApiVersion format_of(const std::vector<uint8_t>& bytes);

TEST(WeightSharingBinary, SharedWeightsAreWrittenOnceAndReadBackIntoEveryTensor) {
  const binary::ContextImage plain = two_graph_image(false), shared = two_graph_image(true);
  EXPECT_EQ(plain.weights_bytes, 6u * 4096);
  EXPECT_EQ(shared.weights_bytes, 4u * 4096);  // w1 and w2 of prefill/decode once, other's two
  const auto pb = binary::encode_context(plain), sb = binary::encode_context(shared);
  // Three graphs' six weights without sharing, four with: the binary shrinks
  // by the two weights' bytes (within a little table overhead).
  EXPECT_LT(sb.size() + 2 * kBytes - 256, pb.size());
  EXPECT_GT(sb.size() + 2 * kBytes + 256, pb.size());
  binary::ContextImage back;
  std::string err;
  ASSERT_EQ(binary::decode_context(sb.data(), sb.size(), &back, &err), binary::BinaryError::kNone) << err;
  EXPECT_TRUE(back.weight_sharing);
  EXPECT_EQ(back.weight_blobs, 2u);
  EXPECT_EQ(back.weight_blob_bytes, 2 * kBytes);
  EXPECT_EQ(back.shared_tensors, 4u);
  EXPECT_EQ(back.weights_bytes, 4u * 4096);
  ASSERT_EQ(back.graphs.size(), 3u);
  for (size_t g = 0; g < 3; ++g) {
    for (size_t t = 0; t < back.graphs[g].spec.tensors.size(); ++t) {
      EXPECT_EQ(back.graphs[g].spec.tensors[t].static_data, shared.graphs[g].spec.tensors[t].static_data)
          << "graph " << g << " tensor " << t;
    }
  }
  // Without sharing the binary is format 1.1, as before; with it 1.2.
  binary::ContextImage pback;
  ASSERT_EQ(binary::decode_context(pb.data(), pb.size(), &pback, &err), binary::BinaryError::kNone) << err;
  EXPECT_FALSE(pback.weight_sharing);
  EXPECT_EQ(pback.weight_blobs, 0u);
  EXPECT_EQ(format_of(pb).minor, 1u);
  EXPECT_EQ(format_of(sb).minor, 2u);
  // Older readers' formats still load.
  for (uint32_t minor : {0u, 1u}) {
    const auto old = binary::encode_context_as(plain, {1, minor, 0});
    EXPECT_EQ(binary::decode_context(old.data(), old.size(), &pback, &err), binary::BinaryError::kNone) << err;
  }
}

binary::ApiVersion format_of(const std::vector<uint8_t>& bytes) {
  const auto* env = flatbuffers::GetRoot<fb::ContextEnvelope>(bytes.data());
  return {env->format()->major(), env->format()->minor(), env->format()->patch()};
}

// A 1.2 payload made by hand: one graph whose w1 refers to blob `blob_index`
// of `blobs` (a blob of `blob_bytes` bytes each).
std::vector<uint8_t> crafted(uint32_t tensor_id, uint32_t blob_index, uint32_t blobs, size_t blob_bytes,
                             bool keep_inline = false) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::WeightBlob>> wb;
  for (uint32_t i = 0; i < blobs; ++i) wb.push_back(fb::CreateWeightBlob(b, b.CreateVector(std::vector<uint8_t>(blob_bytes, 1))));
  const htp::GraphSpec spec = graph("g", 1.0f, 2.0f);
  const std::set<uint32_t> omit{kW1};
  auto g = binary::build_graph(b, spec, keep_inline ? nullptr : &omit);
  std::vector<fb::SharedWeightRef> refs{{tensor_id, blob_index}};
  auto rec = fb::CreateGraphRecord(b, g, 4096, 4096, 0, 0, b.CreateVectorOfStructs(refs));
  std::vector<flatbuffers::Offset<fb::GraphRecord>> recs{rec};
  const fb::Version v(2, 0, 0);
  auto ctx = fb::CreateContextBinary(b, b.CreateString("x"), &v, &v, 0, 0, b.CreateVector(recs), 0, b.CreateVector(wb), true);
  b.Finish(ctx);
  return binary::wrap_context_payload(std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()));
}

TEST(WeightSharingBinary, BrokenBlobReferencesAreRefusedWithAMessage) {
  binary::ContextImage back;
  std::string err;
  auto ok = crafted(kW1, 0, 1, kBytes);
  ASSERT_EQ(binary::decode_context(ok.data(), ok.size(), &back, &err), binary::BinaryError::kNone) << err;
  EXPECT_EQ(back.graphs[0].spec.tensors[1].static_data, std::vector<uint8_t>(kBytes, 1));

  auto out_of_range = crafted(kW1, 3, 1, kBytes);
  EXPECT_EQ(binary::decode_context(out_of_range.data(), out_of_range.size(), &back, &err), binary::BinaryError::kMalformed);
  EXPECT_NE(err.find("weight blob 3, the binary has 1"), std::string::npos) << err;

  auto wrong_size = crafted(kW1, 0, 1, kBytes - 4);
  EXPECT_EQ(binary::decode_context(wrong_size.data(), wrong_size.size(), &back, &err), binary::BinaryError::kMalformed);
  EXPECT_NE(err.find("needs 1024 bytes, weight blob 0 holds 1020"), std::string::npos) << err;

  auto not_static = crafted(kX, 0, 1, kBytes);
  EXPECT_EQ(binary::decode_context(not_static.data(), not_static.size(), &back, &err), binary::BinaryError::kMalformed);
  EXPECT_NE(err.find("not a STATIC tensor"), std::string::npos) << err;

  auto both = crafted(kW1, 0, 1, kBytes, /*keep_inline=*/true);
  EXPECT_EQ(binary::decode_context(both.data(), both.size(), &back, &err), binary::BinaryError::kMalformed);
  EXPECT_NE(err.find("data of its own"), std::string::npos) << err;
}

// A loaded binary's tensors, prepared in a sharing context, are one copy again.
TEST_F(WeightSharing, ABinaryRoundTripRestoresTheSharing) {
  const auto bytes = binary::encode_context(two_graph_image(true));
  binary::ContextImage image;
  std::string err;
  ASSERT_EQ(binary::decode_context(bytes.data(), bytes.size(), &image, &err), binary::BinaryError::kNone) << err;
  const uint64_t ctx = context(image.weight_sharing);
  std::vector<uint64_t> ids;
  for (auto& g : image.graphs) ids.push_back(prepare(ctx, std::move(g.spec)));
  EXPECT_EQ(rt->stats().static_bytes, 4 * kBytes);
  check(ids[0], 100.0f, 1000.0f);
  check(ids[1], 100.0f, 1000.0f);
  check(ids[2], 5.0f, 6.0f);
  ASSERT_TRUE(rt->free_graph(ids[0]).ok());
  check(ids[1], 100.0f, 1000.0f);
}

}  // namespace
