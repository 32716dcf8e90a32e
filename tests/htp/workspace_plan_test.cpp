// Kernel scratch planned with the graph (ops::OpKernel::workspace_bytes,
// PreparedGraph), read slack kept readable after planned tensors, and stored
// placements (PlanOptions::stored_placements) honoured or refused.
//
// The kernels here are test fast paths for Relu: they declare a workspace,
// record where it was bound, and fill all of it with garbage on every run, so
// a workspace that overlapped a tensor alive at its node would corrupt the
// graph's result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "htp/memory_planner.h"
#include "htp/prepared_graph.h"
#include "htp/vtcm_plan.h"

using namespace openhtp;
using htp::Region;

namespace {

constexpr uint32_t kIn = 1, kA = 2, kB = 3, kOut = 4;
constexpr uint32_t kN = 4096;  // floats per tensor
constexpr size_t kBytes = kN * sizeof(float);
const std::vector<uint32_t> kShape = {1, kN};

htp::TensorSpec tensor(uint32_t id, const char* name, uint32_t type) {
  return {id, name, type, ops::dtype::kFloat32, kShape, {}, {}};
}

// in -> Relu -> a -> Relu -> b; out = a + b: out = 2 * relu(in).
htp::GraphSpec two_relus() {
  htp::GraphSpec g;
  g.name = "two_relus";
  g.num_hvx_threads = 1;
  g.tensors = {tensor(kIn, "in", htp::tensor_type::kAppWrite), tensor(kA, "a", htp::tensor_type::kNative),
               tensor(kB, "b", htp::tensor_type::kNative), tensor(kOut, "out", htp::tensor_type::kAppRead)};
  g.nodes.push_back({"relu0", "", "Relu", {}, {kIn}, {kA}});
  g.nodes.push_back({"relu1", "", "Relu", {}, {kA}, {kB}});
  g.nodes.push_back({"add", "", "ElementWiseAdd", {}, {kA, kB}, {kOut}});
  return g;
}

// What the test kernels declare and what they saw.
struct ScratchConfig {
  size_t bytes_per_thread = 0;  // workspace = this * the graph's threads
  size_t read_slack = 0;
  std::vector<uint8_t*> bound;  // every set_workspace() address, in order
  int runs_without_workspace = 0;
};
ScratchConfig g_scratch;

class ScratchRelu final : public ops::OpKernel {
 public:
  ScratchRelu(size_t bytes, size_t n) : bytes_(bytes), n_(n) {}
  size_t workspace_bytes() const override { return bytes_; }
  void set_workspace(void* memory) override {
    ws_ = static_cast<uint8_t*>(memory);
    g_scratch.bound.push_back(ws_);
  }
  size_t read_slack_bytes() const override { return g_scratch.read_slack; }
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    if (bytes_ > 0 && ws_ == nullptr) ++g_scratch.runs_without_workspace;
    if (ws_ != nullptr) std::memset(ws_, 0xA5, bytes_);  // a negative float: visible if it lands in a tensor
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    for (size_t i = 0; i < n_; ++i) y[i] = std::max(x[i], 0.0f);
  }

 private:
  size_t bytes_, n_;
  uint8_t* ws_ = nullptr;
};

bool prepare_scratch_relu(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  const size_t threads = node.env ? node.env->num_threads : 1;
  *kernel = std::make_unique<ScratchRelu>(g_scratch.bytes_per_thread * threads, node.inputs[0].num_elements());
  return true;
}

const ops::FastPath kScratchPaths[] = {{"Relu", "test-scratch", &prepare_scratch_relu}};

std::unique_ptr<htp::PreparedGraph> prepare(htp::GraphSpec spec, size_t budget,
                                            const std::unordered_map<uint32_t, htp::TensorPlacement>* stored = nullptr,
                                            htp::GraphError* err_out = nullptr, std::string* msg_out = nullptr) {
  htp::PlanOptions o;
  o.vtcm_budget_bytes = budget;
  o.fast_paths = kScratchPaths;
  o.stored_placements = stored;
  htp::GraphError err = htp::GraphError::kNone;
  std::string msg;
  auto g = htp::PreparedGraph::create(std::move(spec), o, &err, &msg);
  if (err_out) *err_out = err;
  if (msg_out) *msg_out = msg;
  if (!err_out) {
    EXPECT_NE(g, nullptr) << msg;
  }
  return g;
}

std::vector<float> input() {
  std::vector<float> v(kN);
  for (uint32_t i = 0; i < kN; ++i) v[i] = static_cast<float>(static_cast<int>(i % 13) - 6);
  return v;
}

// Runs `g` in `regions` and checks out = 2 * relu(in).
void run_and_check(htp::PreparedGraph& g, const htp::MemoryRegions& regions) {
  const auto x = input();
  std::vector<float> out(kN, -1.0f);
  htp::TensorBinding in_b{kIn, const_cast<float*>(x.data()), kBytes};
  htp::TensorBinding out_b{kOut, out.data(), kBytes};
  std::string msg;
  ASSERT_EQ(g.execute({&in_b, 1}, {&out_b, 1}, regions, &msg), htp::GraphError::kNone) << msg;
  for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], 2 * std::max(x[i], 0.0f)) << i;
}

struct Regions {
  std::vector<uint8_t> vtcm, spill;
  explicit Regions(const htp::PreparedGraph& g) : vtcm(std::max<size_t>(g.vtcm_bytes(), 64)), spill(std::max<size_t>(g.spill_fill_bytes(), 64)) {}
  htp::MemoryRegions get() { return {vtcm.data(), vtcm.size(), spill.data(), spill.size()}; }
  // Which region `p` lies in and where, or false.
  bool locate(const uint8_t* p, size_t bytes, Region* r, size_t* offset) const {
    for (auto [region, mem] : {std::pair{Region::kVtcm, &vtcm}, std::pair{Region::kSpillFill, &spill}}) {
      if (p >= mem->data() && p + bytes <= mem->data() + mem->size()) {
        *r = region;
        *offset = static_cast<size_t>(p - mem->data());
        return true;
      }
    }
    return false;
  }
};

bool slots_overlap(size_t a, size_t a_bytes, size_t b, size_t b_bytes) { return a < b + b_bytes && b < a + a_bytes; }

class WorkspacePlan : public ::testing::Test {
 protected:
  void SetUp() override { g_scratch = ScratchConfig{}; }
};

}  // namespace

TEST_F(WorkspacePlan, AKernelsWorkspaceIsPlannedAndItsPointerLiesInThePlannedRegion) {
  g_scratch.bytes_per_thread = 3 * kBytes;  // more than a tensor: it changes the plan
  auto g = prepare(two_relus(), htp::kDefaultVtcmBytes);
  ASSERT_NE(g, nullptr);
  // relu0: a + workspace; relu1: a, b + workspace; add: a, b. The same plan
  // as the planner's for those requests, and more than the tensors alone.
  const std::vector<htp::BufferRequest> requests = {
      {kBytes, 0, 2}, {kBytes, 1, 2}, {3 * kBytes, 0, 0}, {3 * kBytes, 1, 1}};
  const htp::VtcmPlan expected = htp::plan_vtcm(requests, htp::kDefaultVtcmBytes, 64);
  EXPECT_EQ(g->vtcm_bytes(), expected.vtcm_bytes);
  EXPECT_EQ(g->vtcm_bytes(), 5 * kBytes);  // peak at relu1: a, b and a workspace
  EXPECT_EQ(g->spill_fill_bytes(), 0u);
  Regions mem(*g);
  run_and_check(*g, mem.get());
  ASSERT_EQ(g_scratch.bound.size(), 2u);  // one set_workspace per kernel, before its first run
  EXPECT_EQ(g_scratch.runs_without_workspace, 0);
  for (size_t n = 0; n < 2; ++n) {
    Region r;
    size_t off = 0;
    ASSERT_TRUE(mem.locate(g_scratch.bound[n], 3 * kBytes, &r, &off)) << "node " << n;
    EXPECT_EQ(r, Region::kVtcm);
    EXPECT_EQ(off, expected.placements[2 + n].offset) << "node " << n;
    EXPECT_EQ(off % 64, 0u);
    // Never over a tensor alive at its node (a at both, b at relu1).
    EXPECT_FALSE(slots_overlap(off, 3 * kBytes, g->placement(kA)->offset, kBytes));
    if (n == 1) {
      EXPECT_FALSE(slots_overlap(off, 3 * kBytes, g->placement(kB)->offset, kBytes));
    }
  }
  // The same regions again: nothing is rebound. Other regions: rebound.
  run_and_check(*g, mem.get());
  EXPECT_EQ(g_scratch.bound.size(), 2u);
  Regions other(*g);
  run_and_check(*g, other.get());
  ASSERT_EQ(g_scratch.bound.size(), 4u);
  Region r;
  size_t off = 0;
  EXPECT_TRUE(other.locate(g_scratch.bound[3], 3 * kBytes, &r, &off));
}

TEST_F(WorkspacePlan, AWorkspaceThatDoesNotFitTheBudgetSpillsLikeATensor) {
  // Unbounded: a at 0, b above it, relu0's workspace where b will be (b is
  // not alive yet), relu1's above b. A budget of the two tensors keeps all
  // but relu1's workspace, which goes to spill-fill.
  g_scratch.bytes_per_thread = kBytes / 2;
  auto g = prepare(two_relus(), 2 * kBytes);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->vtcm_bytes(), 2 * kBytes);
  EXPECT_EQ(g->spill_fill_bytes(), kBytes / 2);
  Regions mem(*g);
  run_and_check(*g, mem.get());
  ASSERT_EQ(g_scratch.bound.size(), 2u);
  const std::pair<Region, size_t> want[] = {{Region::kVtcm, kBytes}, {Region::kSpillFill, 0}};
  for (size_t n = 0; n < 2; ++n) {
    Region r;
    size_t off = 0;
    ASSERT_TRUE(mem.locate(g_scratch.bound[n], kBytes / 2, &r, &off));
    EXPECT_EQ(r, want[n].first) << "node " << n;
    EXPECT_EQ(off, want[n].second) << "node " << n;
  }
  // The graph's own buffers (execute without regions) are sized the same way.
  const auto x = input();
  std::vector<float> out(kN);
  htp::TensorBinding in_b{kIn, const_cast<float*>(x.data()), kBytes};
  htp::TensorBinding out_b{kOut, out.data(), kBytes};
  std::string msg;
  ASSERT_EQ(g->execute({&in_b, 1}, {&out_b, 1}, &msg), htp::GraphError::kNone) << msg;
  EXPECT_EQ(out[7], 2 * std::max(x[7], 0.0f));
}

TEST_F(WorkspacePlan, ATensorReadWithSlackKeepsThatMuchOfItsRegionAfterIt) {
  // relu1 reads `a` with 16 bytes of slack; `b` is read only by the
  // reference add, with none. Planned online, `a` is at 0 and its slack runs
  // into `b`'s slot (readable memory): the region is just the two tensors,
  // even with a budget of exactly that.
  g_scratch.read_slack = 16;
  auto g = prepare(two_relus(), 2 * kBytes);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->placement(kA)->offset, 0u);
  EXPECT_EQ(g->vtcm_bytes(), 2 * kBytes);
  EXPECT_EQ(g->spill_fill_bytes(), 0u);
  // Stored with `a` last, its slack needs room of its own at the region's end.
  std::unordered_map<uint32_t, htp::TensorPlacement> a_last{{kA, {Region::kVtcm, kBytes}}, {kB, {Region::kVtcm, 0}}};
  auto roomy = prepare(two_relus(), htp::kDefaultVtcmBytes, &a_last);
  ASSERT_NE(roomy, nullptr);
  EXPECT_EQ(roomy->vtcm_bytes(), 2 * kBytes + 64);
  Regions mem(*roomy);
  run_and_check(*roomy, mem.get());
  // ... which a budget of exactly the two tensors does not have.
  htp::GraphError err;
  std::string msg;
  EXPECT_EQ(prepare(two_relus(), 2 * kBytes, &a_last, &err, &msg), nullptr);
  EXPECT_EQ(err, htp::GraphError::kInvalidGraph);
  EXPECT_NE(msg.find("'a'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("VTCM budget"), std::string::npos) << msg;
  // Without slack the same stored layout fits.
  g_scratch.read_slack = 0;
  EXPECT_NE(prepare(two_relus(), 2 * kBytes, &a_last), nullptr);
}

TEST_F(WorkspacePlan, StoredPlacementsAreHonouredAndReported) {
  g_scratch.bytes_per_thread = kBytes;
  auto first = prepare(two_relus(), kBytes * 3 / 2);
  ASSERT_NE(first, nullptr);
  // placements(): every planned NATIVE tensor, no workspace.
  const auto listed = first->placements();
  ASSERT_EQ(listed.size(), 2u);
  std::unordered_map<uint32_t, htp::TensorPlacement> stored(listed.begin(), listed.end());
  ASSERT_EQ(stored.count(kA) + stored.count(kB), 2u);
  // The same plan again from what was stored.
  auto again = prepare(two_relus(), kBytes * 3 / 2, &stored);
  ASSERT_NE(again, nullptr);
  for (uint32_t id : {kA, kB}) {
    EXPECT_EQ(again->placement(id)->region, stored[id].region);
    EXPECT_EQ(again->placement(id)->offset, stored[id].offset);
  }
  EXPECT_EQ(again->vtcm_bytes(), first->vtcm_bytes());
  EXPECT_EQ(again->spill_fill_bytes(), first->spill_fill_bytes());

  // A legal layout this planner would not make: `b` three slots into
  // spill-fill. It is used, and the workspaces go around it.
  std::unordered_map<uint32_t, htp::TensorPlacement> moved = stored;
  moved[kB] = {Region::kSpillFill, 3 * kBytes};
  auto g = prepare(two_relus(), kBytes * 3 / 2, &moved);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->placement(kB)->region, Region::kSpillFill);
  EXPECT_EQ(g->placement(kB)->offset, 3 * kBytes);
  EXPECT_GE(g->spill_fill_bytes(), 4 * kBytes);
  Regions mem(*g);
  std::memset(mem.spill.data(), 0x5A, mem.spill.size());
  g_scratch.bound.clear();
  run_and_check(*g, mem.get());
  float b0;
  std::memcpy(&b0, mem.spill.data() + 3 * kBytes + 4, 4);  // b[1] = relu(in[1])
  EXPECT_EQ(b0, std::max(input()[1], 0.0f));
  ASSERT_EQ(g_scratch.bound.size(), 2u);
  Region r;
  size_t off = 0;
  ASSERT_TRUE(mem.locate(g_scratch.bound[1], kBytes, &r, &off));
  EXPECT_EQ(r, Region::kSpillFill);
  EXPECT_FALSE(slots_overlap(off, kBytes, 3 * kBytes, kBytes));
}

TEST_F(WorkspacePlan, BrokenStoredPlacementsAreRefusedNamingTheTensorAndTheOffset) {
  auto refuse = [&](std::unordered_map<uint32_t, htp::TensorPlacement> stored, size_t budget,
                    std::vector<std::string> says) {
    htp::GraphError err;
    std::string msg;
    auto g = prepare(two_relus(), budget, &stored, &err, &msg);
    EXPECT_EQ(g, nullptr);
    EXPECT_EQ(err, htp::GraphError::kInvalidGraph);
    for (const std::string& s : says) EXPECT_NE(msg.find(s), std::string::npos) << "'" << s << "' not in: " << msg;
  };
  const size_t roomy = htp::kDefaultVtcmBytes;
  refuse({{kA, {Region::kVtcm, 0}}, {kB, {Region::kSpillFill, 100}}}, roomy,
         {"'b'", "spill-fill offset 100", "64-byte alignment"});
  refuse({{kA, {Region::kVtcm, 0}}, {kB, {Region::kVtcm, kBytes / 2}}}, roomy,
         {"'b'", "VTCM offset 8192", "overlaps", "'a'", "VTCM offset 0", "alive at node 'relu1'"});
  refuse({{kA, {Region::kVtcm, kBytes}}}, kBytes, {"'a'", "VTCM offset 16384", "VTCM budget of 16384"});
  refuse({{kIn, {Region::kVtcm, 0}}}, roomy, {"tensor id 1", "no NATIVE tensor"});
  refuse({{77, {Region::kVtcm, 0}}}, roomy, {"tensor id 77"});
  // Two tensors at one offset are fine when they are never alive together:
  // in -> a -> b -> c -> out, a alive at relu0-1, c at relu2-3.
  htp::GraphSpec chain;
  chain.name = "chain";
  chain.num_hvx_threads = 1;
  chain.tensors = {tensor(10, "in", htp::tensor_type::kAppWrite), tensor(11, "a", htp::tensor_type::kNative),
                   tensor(12, "b", htp::tensor_type::kNative), tensor(13, "c", htp::tensor_type::kNative),
                   tensor(14, "out", htp::tensor_type::kAppRead)};
  for (uint32_t i = 0; i < 4; ++i) chain.nodes.push_back({"relu" + std::to_string(i), "", "Relu", {}, {10 + i}, {11 + i}});
  std::unordered_map<uint32_t, htp::TensorPlacement> shared{{11, {Region::kVtcm, 0}}, {13, {Region::kVtcm, 0}}};
  auto g = prepare(std::move(chain), roomy, &shared);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->placement(13)->offset, 0u);
  EXPECT_EQ(g->placement(12)->offset, kBytes);  // planned around both
}

TEST_F(WorkspacePlan, NewThreadCountsReplanTheWorkspacesAroundTheTensors) {
  g_scratch.bytes_per_thread = kBytes / 4;
  auto g = prepare(two_relus(), htp::kDefaultVtcmBytes);
  ASSERT_NE(g, nullptr);
  const auto a = *g->placement(kA), b = *g->placement(kB);
  const size_t spill = g->spill_fill_bytes();
  std::string msg;
  ASSERT_EQ(g->set_num_threads(4, &msg), htp::GraphError::kNone) << msg;  // 4x the scratch, VTCM has room
  EXPECT_EQ(g->placement(kA)->offset, a.offset);
  EXPECT_EQ(g->placement(kB)->offset, b.offset);
  EXPECT_EQ(g->spill_fill_bytes(), spill);
  EXPECT_GE(g->vtcm_bytes(), 2 * kBytes + kBytes);  // a, b and a 4-thread workspace at relu1
  Regions mem(*g);
  g_scratch.bound.clear();
  run_and_check(*g, mem.get());
  ASSERT_EQ(g_scratch.bound.size(), 2u);  // the new kernels got their workspaces
  for (uint8_t* p : g_scratch.bound) {
    Region r;
    size_t off = 0;
    EXPECT_TRUE(mem.locate(p, kBytes, &r, &off));
  }

  // Everything in spill-fill: more scratch would need a bigger region than
  // finalize reported, so the new count is refused and the graph unchanged.
  auto spilled = prepare(two_relus(), 0);
  ASSERT_NE(spilled, nullptr);
  const size_t before = spilled->spill_fill_bytes();
  EXPECT_EQ(spilled->set_num_threads(8, &msg), htp::GraphError::kInvalidGraph);
  EXPECT_NE(msg.find("spill-fill"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(before)), std::string::npos) << msg;
  EXPECT_EQ(spilled->num_threads(), 1u);
  EXPECT_EQ(spilled->spill_fill_bytes(), before);
  Regions small(*spilled);
  run_and_check(*spilled, small.get());
  // Fewer threads need less: accepted, and the sizes stay as reported.
  auto four = prepare([] { auto s = two_relus(); s.num_hvx_threads = 4; return s; }(), 0);
  ASSERT_NE(four, nullptr);
  const size_t four_spill = four->spill_fill_bytes();
  ASSERT_EQ(four->set_num_threads(1, &msg), htp::GraphError::kNone) << msg;
  EXPECT_EQ(four->spill_fill_bytes(), four_spill);
  Regions four_mem(*four);
  run_and_check(*four, four_mem.get());
}
