// Kernel scratch as declared workspace (ops::OpKernel::workspace_bytes):
// what each fast kernel and the type adapter declare, that they use only the
// workspace they are given, and that XNNPACK's over-read stays safe for an
// input ending on the last byte of a mapped page — with results identical to
// the same kernel on ordinary buffers.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>

#include "kernel_check.h"
#include "kernels/xnnpack_runtime.h"
#include "ops/workspace.h"

namespace kernelstest {
namespace {

constexpr size_t kPage = 4096;

// `data` copied so that its last byte is the last byte of a page whose
// successor is inaccessible: any read past the end faults.
class AtPageEnd {
 public:
  explicit AtPageEnd(const Bytes& data) {
    const size_t pages = (data.size() + kPage - 1) / kPage;
    map_bytes_ = (pages + 1) * kPage;
    void* m = mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(m, MAP_FAILED);
    base_ = static_cast<uint8_t*>(m);
    EXPECT_EQ(mprotect(base_ + pages * kPage, kPage, PROT_NONE), 0);
    data_ = base_ + pages * kPage - data.size();
    std::memcpy(data_, data.data(), data.size());
  }
  ~AtPageEnd() { munmap(base_, map_bytes_); }
  AtPageEnd(const AtPageEnd&) = delete;
  AtPageEnd& operator=(const AtPageEnd&) = delete;
  const uint8_t* data() const { return data_; }

 private:
  uint8_t* base_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t map_bytes_ = 0;
};

// One fast path only, so prepare_node picks it (or the reference).
struct OnlyPath {
  FastPath fp;
  KernelEnv env;
  explicit OnlyPath(const FastPath& f) : fp(f) { env.fast_paths = {&fp, 1}; }
};

// Prepares `c` through prepare_node (which parses the geometry) with the
// planned flags given, and checks `library` took it.
std::unique_ptr<OpKernel> prepare(const Case& c, const OnlyPath& path, std::vector<bool> planned,
                                  std::string_view library) {
  Node node = c.node;
  for (size_t i = 0; i < planned.size(); ++i) node.inputs[i].planned = planned[i];
  NodeDesc d = node.desc();
  d.env = &path.env;
  std::unique_ptr<OpKernel> k;
  std::string impl;
  const Status s = prepare_node(d, &k, &impl);
  EXPECT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(impl.substr(0, library.size()), library) << impl;
  return k;
}

// Runs `k` with its run-time inputs at page ends and its workspace bound in
// the middle of a sentinel-filled buffer; checks nothing outside the
// workspace was written. Returns the output.
Bytes run_at_page_ends(OpKernel& k, const Case& c) {
  std::vector<std::unique_ptr<AtPageEnd>> held;
  std::vector<const void*> in_ptrs;
  for (size_t i = 0; i < c.data.size(); ++i) {
    if (c.is_static[i] || c.data[i].empty()) {
      in_ptrs.push_back(c.data[i].empty() ? nullptr : c.data[i].data());
      continue;
    }
    held.push_back(std::make_unique<AtPageEnd>(c.data[i]));
    in_ptrs.push_back(held.back()->data());
  }
  const size_t ws = k.workspace_bytes();
  constexpr size_t kGuard = 256;
  std::vector<uint8_t> arena(ws + 2 * kGuard + openhtp::ops::kWorkspaceAlignment, 0x3C);
  uint8_t* at = reinterpret_cast<uint8_t*>(
      (reinterpret_cast<uintptr_t>(arena.data()) + kGuard + 63) / 64 * 64);
  k.set_workspace(ws == 0 ? nullptr : at);
  Bytes out(c.out_bytes(), 0xCD);
  std::vector<void*> out_ptrs{out.data()};
  k.run(in_ptrs, out_ptrs);
  size_t outside = 0;
  for (uint8_t* p = arena.data(); p < arena.data() + arena.size(); ++p) {
    if (p >= at && p < at + ws) continue;
    outside += *p != 0x3C;
  }
  EXPECT_EQ(outside, 0u) << "bytes written outside the workspace";
  return out;
}

// The kernel on ordinary vectors (its own workspace: nothing bound).
Bytes run_plain(const Case& c, const OnlyPath& path, std::string_view library) {
  auto k = prepare(c, path, {}, library);
  return k ? run_kernel(*k, c.data, c.out_bytes()) : Bytes{};
}

size_t padded(size_t bytes) { return openhtp::ops::align_workspace(bytes + openhtp::kernels::xnn::kReadSlack); }

Case add_case(TensorDesc a, TensorDesc b, TensorDesc y, std::mt19937& rng, bool quantized_data) {
  Case c;
  c.node.type = "ElementWiseAdd";
  c.node.inputs = {std::move(a), std::move(b)};
  c.node.outputs = {std::move(y)};
  c.is_static = {false, false};
  for (const TensorDesc& t : c.node.inputs) {
    c.data.push_back(quantized_data ? random_bytes(rng, t.num_elements()) : to_bytes(random_floats(rng, t.num_elements())));
  }
  return c;
}

}  // namespace

TEST(Workspace, DenseAddNeedsNoWorkspaceAndReadsInputsEndingOnAPage) {
  std::mt19937 rng(901);
  const OnlyPath path(fast_path("ElementWiseAdd", "xnnpack"));
  const Quant q = per_tensor(0.05f, -100);
  // float, uint8, and a uint8 add shorter than the tail XNNPACK may over-read.
  std::vector<Case> cases;
  cases.push_back(add_case(f32({1, 1000}), f32({1, 1000}), f32({1, 1000}), rng, false));
  cases.push_back(add_case(f32({3, 7}), f32({1, 3, 7}), f32({1, 3, 7}), rng, false));  // same count, other rank
  cases.push_back(add_case(quantized(dtype::kUfixed8, {1, 1003}, q), quantized(dtype::kUfixed8, {1, 1003}, q),
                           quantized(dtype::kUfixed8, {1, 1003}, per_tensor(0.1f, -80)), rng, true));
  cases.push_back(add_case(quantized(dtype::kUfixed8, {5}, q), quantized(dtype::kUfixed8, {5}, q),
                           quantized(dtype::kUfixed8, {5}, per_tensor(0.1f, -80)), rng, true));
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.node.outputs[0].num_elements()) + " elements");
    auto k = prepare(c, path, {false, false}, "xnnpack");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->workspace_bytes(), 0u);  // no copy of either input
    EXPECT_EQ(k->read_slack_bytes(), 0u);
    EXPECT_EQ(run_at_page_ends(*k, c), run_plain(c, path, "xnnpack"));
  }
}

TEST(Workspace, BroadcastAddCopiesOnlyInputsThatAreNotPlanned) {
  std::mt19937 rng(902);
  const OnlyPath path(fast_path("ElementWiseAdd", "xnnpack"));
  // A middle-axis broadcast (XNNPACK's operator re-reads b).
  const Case c = add_case(f32({2, 3, 50}), f32({2, 1, 50}), f32({2, 3, 50}), rng, false);
  auto k = prepare(c, path, {false, false}, "xnnpack");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->workspace_bytes(), padded(300 * 4) + padded(100 * 4));
  EXPECT_EQ(k->read_slack_bytes(), size_t{openhtp::kernels::xnn::kReadSlack});
  EXPECT_EQ(run_at_page_ends(*k, c), run_plain(c, path, "xnnpack"));
  EXPECT_EQ(prepare(c, path, {true, false}, "xnnpack")->workspace_bytes(), padded(100 * 4));
  EXPECT_EQ(prepare(c, path, {true, true}, "xnnpack")->workspace_bytes(), 0u);
  // A row broadcast ([2,3,50] + [1,1,50]) is openhtp's own loop, which reads
  // nothing past either input: no copies, no slack, even unplanned.
  const Case row = add_case(f32({2, 3, 50}), f32({1, 1, 50}), f32({2, 3, 50}), rng, false);
  auto kr = prepare(row, path, {false, false}, "xnnpack");
  ASSERT_NE(kr, nullptr);
  EXPECT_EQ(kr->workspace_bytes(), 0u);
  EXPECT_EQ(kr->read_slack_bytes(), 0u);
  EXPECT_EQ(run_at_page_ends(*kr, row), run_plain(row, path, "xnnpack"));
}

TEST(Workspace, XnnpackPoolFcAndConvCopyOnlyUnplannedInputs) {
  std::mt19937 rng(903);
  const Quant qx = per_tensor(0.02f, -120), qy = per_tensor(0.05f, -110);
  // PoolMax2d f32, 1x8x8x4, 2x2 stride 2.
  Case pool;
  pool.node.type = "PoolMax2d";
  pool.node.inputs = {f32({1, 8, 8, 4})};
  pool.node.outputs = {f32({1, 4, 4, 4})};
  pool.node.params = {u32_tensor_param("filter_size", {2}, {2, 2}), u32_tensor_param("stride", {2}, {2, 2}),
                      u32_tensor_param("pad_amount", {2, 2}, {0, 0, 0, 0})};
  pool.is_static = {false};
  pool.data = {to_bytes(random_floats(rng, 256))};
  // FullyConnected qu8, 1 x 100 -> 10.
  Case fc;
  fc.node.type = "FullyConnected";
  fc.node.inputs = {quantized(dtype::kUfixed8, {1, 100}, qx), quantized(dtype::kUfixed8, {10, 100}, per_tensor(0.01f, -128))};
  fc.node.outputs = {quantized(dtype::kUfixed8, {1, 10}, qy)};
  fc.is_static = {false, true};
  fc.data = {random_bytes(rng, 100), random_bytes(rng, 1000)};
  fc.bind_static();
  // Conv2d qu8, 1x5x5x3, 3x3 -> 4, 'same' padding.
  auto conv = [&](uint32_t wt, Quant wq) {
    Case c;
    c.node.type = "Conv2d";
    c.node.inputs = {quantized(dtype::kUfixed8, {1, 5, 5, 3}, qx), quantized(wt, {3, 3, 3, 4}, wq)};
    c.node.outputs = {quantized(dtype::kUfixed8, {1, 5, 5, 4}, qy)};
    c.node.params = {u32_tensor_param("stride", {2}, {1, 1}), u32_tensor_param("pad_amount", {2, 2}, {1, 1, 1, 1}),
                     u32_tensor_param("dilation", {2}, {1, 1}), u32_param("group", 1)};
    c.is_static = {false, true};
    c.data = {random_bytes(rng, 75), random_bytes(rng, 108)};
    if (wt == dtype::kSfixed8) {
      for (auto& b : c.data[1]) b = static_cast<uint8_t>(static_cast<int8_t>(int(b % 200) - 100));
    }
    c.bind_static();
    return c;
  };
  const Case qu8 = conv(dtype::kUfixed8, per_tensor(0.01f, -128));
  const Case qc8 = conv(dtype::kSfixed8, per_tensor(0.01f, 0));  // uint8 input: flipped to int8

  struct Check {
    const char* what;
    const Case* c;
    const char* type;
    size_t unplanned_workspace, planned_workspace, slack;
  };
  const Check checks[] = {
      {"pool", &pool, "PoolMax2d", padded(1024), 0, openhtp::kernels::xnn::kReadSlack},
      {"fc", &fc, "FullyConnected", padded(100), 0, openhtp::kernels::xnn::kReadSlack},
      {"conv qu8", &qu8, "Conv2d", padded(75), 0, openhtp::kernels::xnn::kReadSlack},
      // The flip always copies (into the workspace), so it never reads in place.
      {"conv qc8 u8", &qc8, "Conv2d", padded(75), padded(75), 0},
  };
  for (const Check& ch : checks) {
    SCOPED_TRACE(ch.what);
    const OnlyPath path(fast_path(ch.type, "xnnpack"));
    auto k = prepare(*ch.c, path, {false}, "xnnpack");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->workspace_bytes(), ch.unplanned_workspace);
    EXPECT_EQ(k->read_slack_bytes(), ch.slack);
    EXPECT_EQ(run_at_page_ends(*k, *ch.c), run_plain(*ch.c, path, "xnnpack"));
    EXPECT_EQ(prepare(*ch.c, path, {true}, "xnnpack")->workspace_bytes(), ch.planned_workspace);
  }
}

TEST(Workspace, OneDnnScratchpadIsTheWorkspaceItIsGiven) {
  std::mt19937 rng(904);
  // Shapes oneDNN's JIT kernels book scratchpad for on some CPUs; whatever
  // it books, the kernel must use only the memory it is given.
  Case c;
  c.node.type = "Conv2d";
  c.node.inputs = {f32({1, 13, 13, 37}), f32({3, 3, 37, 29})};
  c.node.outputs = {f32({1, 13, 13, 29})};
  c.node.params = {u32_tensor_param("stride", {2}, {1, 1}), u32_tensor_param("pad_amount", {2, 2}, {1, 1, 1, 1}),
                   u32_tensor_param("dilation", {2}, {1, 1}), u32_param("group", 1)};
  c.is_static = {false, true};
  c.data = {to_bytes(random_floats(rng, 13 * 13 * 37)), to_bytes(random_floats(rng, 9 * 37 * 29))};
  c.bind_static();
  const OnlyPath path(fast_path("Conv2d", "onednn"));
  auto k = prepare(c, path, {false}, "onednn");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->read_slack_bytes(), 0u);
  const Bytes plain = run_plain(c, path, "onednn");
  EXPECT_EQ(run_at_page_ends(*k, c), plain);
  // A second, different workspace: the kernel follows it.
  EXPECT_EQ(run_at_page_ends(*k, c), plain);
}

TEST(Workspace, TypeAdapterKeepsItsConversionsInTheWorkspace) {
  std::mt19937 rng(905);
  const Quant q = per_tensor(0.03f, -90);
  Case c;
  c.node.type = "ElementWiseMultiply";  // no fast path: the float reference behind the adapter
  c.node.inputs = {quantized(dtype::kUfixed8, {1, 100}, q), quantized(dtype::kUfixed8, {1, 100}, q)};
  c.node.outputs = {quantized(dtype::kUfixed8, {1, 100}, per_tensor(0.05f, -20))};
  c.is_static = {false, false};
  c.data = {random_bytes(rng, 100), random_bytes(rng, 100)};
  std::unique_ptr<OpKernel> k;
  std::string impl;
  ASSERT_TRUE(prepare_node(c.node.desc(), &k, &impl).ok());
  EXPECT_EQ(impl, "reference via type adapter");
  // Two float inputs and one float output, 400 bytes each, 64-byte aligned.
  EXPECT_EQ(k->workspace_bytes(), 3 * openhtp::ops::align_workspace(400));
  const Bytes plain = run_reference(c);
  EXPECT_EQ(run_at_page_ends(*k, c), plain);
  EXPECT_EQ(run_at_page_ends(*k, c), plain);  // rebound: the same answer

  // With a fast inner kernel: a uint16 max pool runs XNNPACK's f32 max pool
  // on the adapter's float copy, which the adapter pads with XNNPACK's slack,
  // so to the inner kernel it is planned and needs no copy of its own.
  Case pool;
  pool.node.type = "PoolMax2d";
  const Quant q16 = per_tensor(0.001f, -30000);
  pool.node.inputs = {quantized(dtype::kUfixed16, {1, 8, 8, 4}, q16)};
  pool.node.outputs = {quantized(dtype::kUfixed16, {1, 4, 4, 4}, q16)};
  pool.node.params = {u32_tensor_param("filter_size", {2}, {2, 2}), u32_tensor_param("stride", {2}, {2, 2}),
                      u32_tensor_param("pad_amount", {2, 2}, {0, 0, 0, 0})};
  pool.is_static = {false};
  Bytes x(256 * 2);
  for (auto& b : x) b = static_cast<uint8_t>(rng());
  pool.data = {x};
  const OnlyPath path(fast_path("PoolMax2d", "xnnpack"));
  auto adapted = prepare(pool, path, {false}, "xnnpack via type adapter");
  ASSERT_NE(adapted, nullptr);
  // Input copy + XNNPACK's slack, output copy; the inner pool needs no copy.
  EXPECT_EQ(adapted->workspace_bytes(), padded(256 * 4) + openhtp::ops::align_workspace(64 * 4));
  EXPECT_EQ(adapted->read_slack_bytes(), size_t{openhtp::kernels::xnn::kReadSlack});
  EXPECT_EQ(run_at_page_ends(*adapted, pool), run_plain(pool, path, "xnnpack via type adapter"));
}

}  // namespace kernelstest
