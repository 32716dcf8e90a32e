// What the fast paths must not do: accept cases they do not cover, or read
// weights after prepare.
#include "kernel_check.h"

namespace kernelstest {
namespace {

Case f32_conv(std::mt19937& rng) {
  Case c;
  c.node.type = "Conv2d";
  c.node.inputs = {f32({1, 6, 6, 4}), f32({3, 3, 4, 5}), f32({5})};
  c.node.outputs = {f32({1, 6, 6, 5})};
  c.node.params = {u32_tensor_param("stride", {2}, {1, 1}), u32_tensor_param("pad_amount", {2, 2}, {1, 1, 1, 1})};
  c.is_static = {false, true, true};
  for (const auto& t : c.node.inputs) c.data.push_back(to_bytes(random_floats(rng, t.num_elements())));
  c.bind_static();
  return c;
}

// prepare_node with every fast path: a case no fast path covers gets the
// reference kernel, whose output is then identical to prepare_reference's.
TEST(Fallback, DynamicWeightsRunTheReferenceKernel) {
  std::mt19937 rng(81);
  Case c = f32_conv(rng);
  c.is_static = {false, false, true};  // weights computed at run time: nothing to pack
  c.bind_static();
  ThreadEnv two(2);
  NodeDesc d = c.node.desc();
  d.env = two.env();
  for (const FastPath& fp : openhtp::kernels::fast_paths()) {
    if (fp.type_name != "Conv2d") continue;
    std::unique_ptr<OpKernel> k;
    EXPECT_FALSE(fp.prepare(ParsedNode(d).desc(), &k)) << fp.library;
    EXPECT_EQ(k, nullptr) << fp.library;
  }
  KernelEnv env = *two.env();
  env.fast_paths = openhtp::kernels::fast_paths();
  d.env = &env;
  std::unique_ptr<OpKernel> k;
  ASSERT_TRUE(prepare_node(d, &k).ok());
  EXPECT_EQ(run_kernel(*k, c.data, c.out_bytes()), run_reference(c));
}

TEST(Fallback, AsymmetricInt8WeightsDeclinedByXnnpack) {
  // SFIXED_POINT_8 weights with a nonzero offset are not qc8 (symmetric).
  Case c;
  c.node.type = "Conv2d";
  c.node.inputs = {quantized(dtype::kUfixed8, {1, 4, 4, 2}, per_tensor(0.02f, -128)),
                   quantized(dtype::kSfixed8, {1, 1, 2, 3}, per_tensor(0.01f, 3))};
  c.node.outputs = {quantized(dtype::kUfixed8, {1, 4, 4, 3}, per_tensor(0.05f, -100))};
  c.node.params = {u32_tensor_param("stride", {2}, {1, 1}), u32_tensor_param("pad_amount", {2, 2}, {0, 0, 0, 0})};
  c.is_static = {false, true};
  std::mt19937 rng(82);
  c.data = {random_bytes(rng, 32), random_bytes(rng, 6)};
  c.bind_static();
  std::unique_ptr<OpKernel> k;
  EXPECT_FALSE(fast_path("Conv2d", "xnnpack").prepare(ParsedNode(c.node.desc()).desc(), &k));
  // Through prepare_node it still runs: the type adapter around the
  // reference (or a float fast path), exactly as without fast paths when no
  // float path applies.
  ThreadEnv one(1);
  KernelEnv env = *one.env();
  env.fast_paths = openhtp::kernels::fast_paths();
  NodeDesc d = c.node.desc();
  d.env = &env;
  ASSERT_TRUE(prepare_node(d, &k).ok());
  expect_within_1_lsb(run_kernel(*k, c.data, c.out_bytes()), run_reference(c), false, "adapted");
}

TEST(Fallback, OneDnnNeverTakesQuantizedNodes) {
  // oneDNN's int8 kernels saturate on AVX2 without VNNI: never used.
  Case c;
  c.node.type = "FullyConnected";
  c.node.inputs = {quantized(dtype::kUfixed8, {2, 8}, per_tensor(0.02f, -128)),
                   quantized(dtype::kSfixed8, {4, 8}, per_tensor(0.01f, 0))};
  c.node.outputs = {quantized(dtype::kUfixed8, {2, 4}, per_tensor(0.05f, -100))};
  c.is_static = {false, true};
  std::mt19937 rng(83);
  c.data = {random_bytes(rng, 16), random_bytes(rng, 32)};
  c.bind_static();
  std::unique_ptr<OpKernel> k;
  EXPECT_FALSE(fast_path("FullyConnected", "onednn").prepare(c.node.desc(), &k));
  EXPECT_TRUE(fast_path("FullyConnected", "xnnpack").prepare(c.node.desc(), &k));
}

// Snapshot semantics: a fast kernel packs (copies, reorders) its static
// weights and bias at prepare and never reads the node's buffers again — the
// runtime may even move them (external weights buffers). So running twice
// gives identical results, and overwriting the weight buffer after prepare
// changes nothing.
TEST(Snapshot, WeightsArePackedAtPrepare) {
  std::mt19937 rng(84);
  ThreadEnv two(2);
  struct Path {
    const char* library;
    bool quantized;
  };
  for (const Path p : {Path{"onednn", false}, Path{"xnnpack", true}}) {
    Case c = f32_conv(rng);
    if (p.quantized) {
      c.node.inputs = {quantized(dtype::kUfixed8, {1, 6, 6, 4}, per_tensor(0.02f, -128)),
                       quantized(dtype::kUfixed8, {3, 3, 4, 5}, per_tensor(0.01f, -120)),
                       quantized(dtype::kSfixed32, {5}, per_tensor(0.0002f, 0))};
      c.node.outputs = {quantized(dtype::kUfixed8, {1, 6, 6, 5}, per_tensor(0.05f, -100))};
      c.data = {random_bytes(rng, 144), random_bytes(rng, 180), to_bytes(std::vector<int32_t>{5, -3, 100, 0, 7})};
      c.bind_static();
    }
    NodeDesc d = c.node.desc();
    d.env = two.env();
    std::unique_ptr<OpKernel> k;
    ASSERT_TRUE(fast_path("Conv2d", p.library).prepare(ParsedNode(d).desc(), &k)) << p.library;
    const Bytes first = run_kernel(*k, c.data, c.out_bytes());
    EXPECT_EQ(run_kernel(*k, c.data, c.out_bytes()), first) << p.library;
    const Bytes before = run_reference(c);
    for (auto& byte : c.data[1]) byte = static_cast<uint8_t>(~byte);  // new weights in the same buffer
    for (auto& byte : c.data[2]) byte = static_cast<uint8_t>(byte + 1);
    EXPECT_EQ(run_kernel(*k, c.data, c.out_bytes()), first) << p.library;
    // The overwrite did change the node: the reference (which reads its
    // inputs every run) now differs, so the equality above means something.
    EXPECT_NE(run_reference(c), before) << p.library;
  }
}

}  // namespace
}  // namespace kernelstest

// OPENHTP_KERNELS / --kernels: "fast" or empty, "reference", or libraries to
// leave out; anything else refused with the reason.
namespace {
TEST(FastPathSelection, ParsesAllReferenceAndLeftOutLibraries) {
  using openhtp::kernels::select_fast_paths;
  const size_t all = openhtp::kernels::fast_paths().size();
  std::vector<openhtp::ops::FastPath> got;
  std::string why;
  ASSERT_TRUE(select_fast_paths("", &got, &why));
  EXPECT_EQ(got.size(), all);
  ASSERT_TRUE(select_fast_paths("fast", &got, &why));
  EXPECT_EQ(got.size(), all);
  ASSERT_TRUE(select_fast_paths("reference", &got, &why));
  EXPECT_TRUE(got.empty());
  ASSERT_TRUE(select_fast_paths("-onednn-winograd,-lookup-table", &got, &why));
  size_t tables = 0;
  for (const openhtp::ops::FastPath& fp : openhtp::kernels::fast_paths()) tables += fp.library == "lookup-table";
  EXPECT_EQ(got.size(), all - 1 - tables);
  for (const openhtp::ops::FastPath& fp : got) {
    EXPECT_NE(fp.library, "onednn-winograd");
    EXPECT_NE(fp.library, "lookup-table");
  }
  for (const char* bad : {"xnnpack", "-nope", "-xnnpack,", "fast,-xnnpack", "-"}) {
    why.clear();
    EXPECT_FALSE(select_fast_paths(bad, &got, &why)) << bad;
    EXPECT_NE(why.find("kernel selection"), std::string::npos) << bad;
  }
}
}  // namespace
