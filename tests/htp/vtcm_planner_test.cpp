// The VTCM / spill-fill split (vtcm_plan.h) and PreparedGraph's use of it:
// plans are valid in each region, spilling happens only when the budget is
// too small, and execute really reads and writes intermediates at the planned
// addresses of the regions it is given.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "htp/memory_planner.h"
#include "htp/prepared_graph.h"
#include "htp/vtcm_plan.h"
#include "random_requests.h"

using namespace openhtp;
using htp::BufferRequest;
using htp::Region;

namespace {

constexpr size_t kAlign = 64;

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

bool live_together(const BufferRequest& a, const BufferRequest& b) {
  return a.first_use <= b.last_use && b.first_use <= a.last_use;
}

// Every request inside its region, aligned, and no two requests alive at the
// same op overlapping in the same region.
void expect_valid(const std::vector<BufferRequest>& r, const htp::VtcmPlan& plan, size_t budget) {
  ASSERT_EQ(plan.placements.size(), r.size());
  EXPECT_LE(plan.vtcm_bytes, budget);
  for (size_t i = 0; i < r.size(); ++i) {
    const auto& p = plan.placements[i];
    EXPECT_EQ(p.offset % kAlign, 0u);
    const size_t region_size = p.region == Region::kVtcm ? plan.vtcm_bytes : plan.spill_fill_bytes;
    // The region holds the slot and the read slack after it.
    EXPECT_LE(p.offset + align_up(r[i].size + r[i].read_slack), region_size) << "request " << i;
    for (size_t j = i + 1; j < r.size(); ++j) {
      const auto& q = plan.placements[j];
      if (p.region != q.region || !live_together(r[i], r[j])) continue;
      const bool overlap = p.offset < q.offset + r[j].size && q.offset < p.offset + r[i].size;
      ASSERT_FALSE(overlap) << "requests " << i << "," << j << " in " << htp::region_name(p.region);
    }
  }
}

// The largest sum of sizes alive at one op among the requests placed in `region`.
size_t region_peak(const std::vector<BufferRequest>& r, const htp::VtcmPlan& plan, Region region) {
  std::vector<BufferRequest> in;
  for (size_t i = 0; i < r.size(); ++i) {
    if (plan.placements[i].region == region) in.push_back(r[i]);
  }
  return htp::peak_live_bytes(in, kAlign);
}

// --- graphs built by hand ---------------------------------------------------

constexpr uint32_t kIn = 1, kA = 2, kB = 3, kOut = 4;
const std::vector<uint32_t> kShape = {1, 64, 64, 8};
constexpr size_t kTensorBytes = 1 * 64 * 64 * 8 * sizeof(float);  // 128 KiB
constexpr size_t kTensorFloats = kTensorBytes / sizeof(float);

htp::TensorSpec tensor(uint32_t id, const char* name, uint32_t type) {
  return {id, name, type, ops::dtype::kFloat32, kShape, {}, {}};
}

// in -> Relu -> a -> Relu -> b; out = a + b. `a` is alive for all three ops,
// `b` for the last two, so both are alive together and need separate memory.
htp::GraphSpec two_natives() {
  htp::GraphSpec g;
  g.name = "two_natives";
  g.tensors = {tensor(kIn, "in", htp::tensor_type::kAppWrite), tensor(kA, "a", htp::tensor_type::kNative),
               tensor(kB, "b", htp::tensor_type::kNative), tensor(kOut, "out", htp::tensor_type::kAppRead)};
  g.nodes.push_back({"relu0", "", "Relu", {}, {kIn}, {kA}});
  g.nodes.push_back({"relu1", "", "Relu", {}, {kA}, {kB}});
  g.nodes.push_back({"add", "", "ElementWiseAdd", {}, {kA, kB}, {kOut}});
  return g;
}

// in -> Relu -> n1 -> Relu -> n2 ... -> out: a chain of `n` ops.
htp::GraphSpec relu_chain(int n) {
  htp::GraphSpec g;
  g.name = "chain";
  g.tensors.push_back(tensor(100, "in", htp::tensor_type::kAppWrite));
  for (int i = 1; i < n; ++i) g.tensors.push_back(tensor(100 + i, "n", htp::tensor_type::kNative));
  g.tensors.push_back(tensor(100 + n, "out", htp::tensor_type::kAppRead));
  for (int i = 0; i < n; ++i) {
    g.nodes.push_back({"relu" + std::to_string(i), "", "Relu", {}, {uint32_t(100 + i)}, {uint32_t(101 + i)}});
  }
  return g;
}

std::unique_ptr<htp::PreparedGraph> prepare(htp::GraphSpec spec, size_t budget) {
  htp::GraphError err = htp::GraphError::kNone;
  std::string msg;
  auto g = htp::PreparedGraph::create(std::move(spec), [&] { htp::PlanOptions o; o.vtcm_budget_bytes = budget; return o; }(), &err, &msg);
  EXPECT_NE(g, nullptr) << msg;
  return g;
}

std::vector<float> test_input() {
  std::vector<float> v(kTensorFloats);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int>(i % 17) - 8) * 0.25f;
  return v;
}

// A float whose bytes are all 0xA5 is negative, so no Relu output (>= 0) and
// no sum of two Relu outputs can ever equal it: any float in a region that
// still reads as the sentinel was never written.
constexpr uint8_t kSentinelByte = 0xA5;

bool is_sentinel(const uint8_t* p) {
  uint8_t s[4];
  std::memset(s, kSentinelByte, 4);
  return std::memcmp(p, s, 4) == 0;
}

}  // namespace

// --- the planner on its own ---------------------------------------------------

TEST(VtcmPlanner, ChainReusesTwoBuffersAndFitsInVtcm) {
  std::vector<BufferRequest> chain;
  for (int i = 0; i < 12; ++i) chain.push_back({1000, i, i + 1});
  auto plan = htp::plan_vtcm(chain, htp::kDefaultVtcmBytes, kAlign);
  expect_valid(chain, plan, htp::kDefaultVtcmBytes);
  EXPECT_EQ(plan.vtcm_bytes, 2 * align_up(1000));
  EXPECT_EQ(plan.spill_fill_bytes, 0u);
  for (const auto& p : plan.placements) EXPECT_EQ(p.region, Region::kVtcm);
}

TEST(VtcmPlanner, ChainWithRoomForOneSpillsEveryOtherTensorIntoTwoSlots) {
  // Budget of one slot: the tensors the unbounded plan put at offset 0 stay,
  // the others spill, and the spilled ones reuse memory among themselves too.
  std::vector<BufferRequest> chain;
  for (int i = 0; i < 12; ++i) chain.push_back({1024, i, i + 1});
  auto plan = htp::plan_vtcm(chain, 1024, kAlign);
  expect_valid(chain, plan, 1024);
  EXPECT_EQ(plan.vtcm_bytes, 1024u);
  EXPECT_EQ(plan.spill_fill_bytes, 1024u);  // alternate tensors never live together
  int spilled = 0;
  for (const auto& p : plan.placements) spilled += p.region == Region::kSpillFill;
  EXPECT_EQ(spilled, 6);
}

TEST(VtcmPlanner, ZeroBudgetSpillsEverythingIntoTheSamePlanAsUnbounded) {
  std::vector<BufferRequest> r = {{4096, 0, 1}, {4096, 2, 3}, {100, 0, 3}};
  auto whole = htp::plan_memory(r, kAlign);
  auto plan = htp::plan_vtcm(r, 0, kAlign);
  expect_valid(r, plan, 0);
  EXPECT_EQ(plan.vtcm_bytes, 0u);
  EXPECT_EQ(plan.spill_fill_bytes, whole.total_size);
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(plan.placements[i].region, Region::kSpillFill);
    EXPECT_EQ(plan.placements[i].offset, whole.offsets[i]);
  }
}

TEST(VtcmPlanner, RandomPlansAreValidPerRegionAndNeverBelowThePeak) {
  std::mt19937 rng(20240611);
  int trials_that_spilled = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<BufferRequest> r = planner_test::random_requests(rng, 1, 40, 25, 6000);
    const int n = static_cast<int>(r.size());
    const size_t peak = htp::peak_live_bytes(r, kAlign);
    const size_t budget = rng() % (peak + 1);  // from nothing up to the whole peak
    auto plan = htp::plan_vtcm(r, budget, kAlign);
    SCOPED_TRACE("trial " + std::to_string(trial));
    expect_valid(r, plan, budget);
    // The tensors alive at the peak op are split between the regions, and
    // each region must hold its share at once.
    EXPECT_GE(plan.vtcm_bytes + plan.spill_fill_bytes, peak);
    EXPECT_GE(plan.vtcm_bytes, region_peak(r, plan, Region::kVtcm));
    EXPECT_GE(plan.spill_fill_bytes, region_peak(r, plan, Region::kSpillFill));
    // Tensors kept in VTCM keep their unbounded-plan offset.
    auto whole = htp::plan_memory(r, kAlign);
    for (int i = 0; i < n; ++i) {
      if (plan.placements[i].region == Region::kVtcm) {
        EXPECT_EQ(plan.placements[i].offset, whole.offsets[i]);
      }
    }
    // With a budget that holds the whole unbounded plan nothing spills.
    auto roomy = htp::plan_vtcm(r, whole.total_size, kAlign);
    EXPECT_EQ(roomy.spill_fill_bytes, 0u);
    EXPECT_EQ(roomy.vtcm_bytes, whole.total_size);
    trials_that_spilled += plan.spill_fill_bytes > 0;
  }
  EXPECT_GT(trials_that_spilled, 100);  // the random budgets really exercise spilling
}

// --- PreparedGraph ------------------------------------------------------------

TEST(VtcmPlanner, GraphChainNeedsTwoBuffersNotOnePerTensor) {
  auto g = prepare(relu_chain(10), htp::kDefaultVtcmBytes);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->vtcm_bytes(), 2 * kTensorBytes);  // 9 NATIVE tensors, 2 slots
  EXPECT_EQ(g->spill_fill_bytes(), 0u);
  EXPECT_EQ(g->arena_bytes(), 2 * kTensorBytes);
}

TEST(VtcmPlanner, GraphSpillsOnlyWhenTheBudgetIsLowered) {
  auto roomy = prepare(two_natives(), htp::kDefaultVtcmBytes);
  ASSERT_NE(roomy, nullptr);
  EXPECT_EQ(roomy->vtcm_budget_bytes(), htp::kDefaultVtcmBytes);
  EXPECT_EQ(roomy->vtcm_bytes(), 2 * kTensorBytes);
  EXPECT_EQ(roomy->spill_fill_bytes(), 0u);
  ASSERT_TRUE(roomy->placement(kA) && roomy->placement(kB));
  EXPECT_EQ(roomy->placement(kA)->region, Region::kVtcm);
  EXPECT_EQ(roomy->placement(kB)->region, Region::kVtcm);
  // Graph inputs/outputs are the caller's buffers, never planned.
  EXPECT_FALSE(roomy->placement(kIn).has_value());
  EXPECT_FALSE(roomy->placement(kOut).has_value());
  EXPECT_FALSE(roomy->placement(999).has_value());

  // Room for one and a half tensors: `a` (same size, earlier first use, so
  // planned first at offset 0) stays; `b` spills to the start of spill-fill.
  auto tight = prepare(two_natives(), kTensorBytes * 3 / 2);
  ASSERT_NE(tight, nullptr);
  EXPECT_EQ(tight->vtcm_bytes(), kTensorBytes);
  EXPECT_GT(tight->spill_fill_bytes(), 0u);
  EXPECT_EQ(tight->spill_fill_bytes(), kTensorBytes);
  EXPECT_EQ(tight->placement(kA)->region, Region::kVtcm);
  EXPECT_EQ(tight->placement(kA)->offset, 0u);
  EXPECT_EQ(tight->placement(kB)->region, Region::kSpillFill);
  EXPECT_EQ(tight->placement(kB)->offset, 0u);
  EXPECT_EQ(tight->arena_bytes(), 2 * kTensorBytes);
}

TEST(VtcmPlanner, ExecuteUsesTheRegionsItIsGiven) {
  const auto input = test_input();
  std::vector<float> expected(kTensorFloats);
  for (size_t i = 0; i < kTensorFloats; ++i) expected[i] = 2 * std::max(input[i], 0.0f);

  // Reference run: default options, the graph's own buffers.
  auto roomy = prepare(two_natives(), htp::kDefaultVtcmBytes);
  ASSERT_NE(roomy, nullptr);
  std::vector<float> out_default(kTensorFloats, -1.0f);
  htp::TensorBinding in_b{kIn, const_cast<float*>(input.data()), kTensorBytes};
  htp::TensorBinding out_b{kOut, out_default.data(), kTensorBytes};
  std::string msg;
  ASSERT_EQ(roomy->execute({&in_b, 1}, {&out_b, 1}, &msg), htp::GraphError::kNone) << msg;
  EXPECT_EQ(out_default, expected);

  // The same graph with `b` spilled, run in caller regions with slack after
  // the planned bytes so a write outside the plan would show.
  auto tight = prepare(two_natives(), kTensorBytes * 3 / 2);
  ASSERT_NE(tight, nullptr);
  const size_t slack = 4096;
  std::vector<uint8_t> vtcm(tight->vtcm_bytes() + slack, kSentinelByte);
  std::vector<uint8_t> spill(tight->spill_fill_bytes() + slack, kSentinelByte);
  const htp::MemoryRegions regions{vtcm.data(), vtcm.size(), spill.data(), spill.size()};
  std::vector<float> out_regions(kTensorFloats, -1.0f);
  out_b.data = out_regions.data();
  ASSERT_EQ(tight->execute({&in_b, 1}, {&out_b, 1}, regions, &msg), htp::GraphError::kNone) << msg;
  EXPECT_EQ(out_regions, out_default);

  // Each region holds its tensor exactly where the plan put it — `a` in VTCM,
  // `b` in spill-fill, both Relu(in) — and nothing was written anywhere else.
  auto check_region = [&](const std::vector<uint8_t>& mem, size_t offset, const char* what) {
    SCOPED_TRACE(what);
    size_t written_outside = 0, wrong_inside = 0;
    for (size_t pos = 0; pos + 4 <= mem.size(); pos += 4) {
      const bool inside = pos >= offset && pos < offset + kTensorBytes;
      if (!inside) {
        written_outside += !is_sentinel(&mem[pos]);
        continue;
      }
      float v;
      std::memcpy(&v, &mem[pos], 4);
      wrong_inside += v != std::max(input[(pos - offset) / 4], 0.0f);
    }
    EXPECT_EQ(written_outside, 0u);
    EXPECT_EQ(wrong_inside, 0u);
  };
  check_region(vtcm, tight->placement(kA)->offset, "VTCM holds a");
  check_region(spill, tight->placement(kB)->offset, "spill-fill holds b");

  // Other regions on the next run: the graph rebinds and still computes right.
  std::vector<uint8_t> vtcm2(tight->vtcm_bytes(), kSentinelByte), spill2(tight->spill_fill_bytes(), kSentinelByte);
  std::fill(out_regions.begin(), out_regions.end(), -1.0f);
  const htp::MemoryRegions regions2{vtcm2.data(), vtcm2.size(), spill2.data(), spill2.size()};
  ASSERT_EQ(tight->execute({&in_b, 1}, {&out_b, 1}, regions2, &msg), htp::GraphError::kNone) << msg;
  EXPECT_EQ(out_regions, expected);
  check_region(vtcm2, 0, "second VTCM");
  check_region(spill2, 0, "second spill-fill");

  // The same bindings in the first regions again (the runtime's path when
  // only a region moved, e.g. a spill-fill buffer registered between two
  // executes): every planned tensor follows, the second regions stay as
  // they were left.
  std::fill(vtcm.begin(), vtcm.end(), kSentinelByte);
  std::fill(spill.begin(), spill.end(), kSentinelByte);
  const std::vector<uint8_t> vtcm2_before = vtcm2, spill2_before = spill2;
  std::fill(out_regions.begin(), out_regions.end(), -1.0f);
  ASSERT_EQ(tight->execute_bound(regions, &msg), htp::GraphError::kNone) << msg;
  EXPECT_EQ(out_regions, expected);
  check_region(vtcm, tight->placement(kA)->offset, "VTCM again");
  check_region(spill, tight->placement(kB)->offset, "spill-fill again");
  EXPECT_EQ(vtcm2, vtcm2_before);
  EXPECT_EQ(spill2, spill2_before);

  // And the old entry point (graph-owned buffers) gives the same answer.
  std::fill(out_regions.begin(), out_regions.end(), -1.0f);
  ASSERT_EQ(tight->execute({&in_b, 1}, {&out_b, 1}, &msg), htp::GraphError::kNone) << msg;
  EXPECT_EQ(out_regions, expected);
}

TEST(VtcmPlanner, ExecuteRefusesRegionsSmallerThanThePlan) {
  auto g = prepare(two_natives(), kTensorBytes * 3 / 2);
  ASSERT_NE(g, nullptr);
  const auto input = test_input();
  std::vector<float> out(kTensorFloats);
  htp::TensorBinding in_b{kIn, const_cast<float*>(input.data()), kTensorBytes};
  htp::TensorBinding out_b{kOut, out.data(), kTensorBytes};
  std::vector<uint8_t> vtcm(g->vtcm_bytes()), spill(g->spill_fill_bytes());
  std::string msg;

  htp::MemoryRegions small_vtcm{vtcm.data(), vtcm.size() - 1, spill.data(), spill.size()};
  EXPECT_EQ(g->execute({&in_b, 1}, {&out_b, 1}, small_vtcm, &msg), htp::GraphError::kBadBinding);
  EXPECT_NE(msg.find("VTCM"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(g->vtcm_bytes())), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(vtcm.size() - 1)), std::string::npos) << msg;

  htp::MemoryRegions small_spill{vtcm.data(), vtcm.size(), spill.data(), spill.size() - 64};
  EXPECT_EQ(g->execute({&in_b, 1}, {&out_b, 1}, small_spill, &msg), htp::GraphError::kBadBinding);
  EXPECT_NE(msg.find("spill-fill"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(g->spill_fill_bytes())), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(spill.size() - 64)), std::string::npos) << msg;

  htp::MemoryRegions no_spill{vtcm.data(), vtcm.size(), nullptr, 0};
  EXPECT_EQ(g->execute({&in_b, 1}, {&out_b, 1}, no_spill, &msg), htp::GraphError::kBadBinding);
  EXPECT_NE(msg.find("spill-fill"), std::string::npos) << msg;

  // A graph that spills nothing does not need a spill-fill region at all.
  auto roomy = prepare(two_natives(), htp::kDefaultVtcmBytes);
  ASSERT_NE(roomy, nullptr);
  std::vector<uint8_t> big_vtcm(roomy->vtcm_bytes());
  htp::MemoryRegions vtcm_only{big_vtcm.data(), big_vtcm.size(), nullptr, 0};
  EXPECT_EQ(roomy->execute({&in_b, 1}, {&out_b, 1}, vtcm_only, &msg), htp::GraphError::kNone) << msg;

  // After a refusal the right regions work again.
  htp::MemoryRegions ok{vtcm.data(), vtcm.size(), spill.data(), spill.size()};
  EXPECT_EQ(g->execute({&in_b, 1}, {&out_b, 1}, ok, &msg), htp::GraphError::kNone) << msg;
  EXPECT_FLOAT_EQ(out[1], 2 * std::max(input[1], 0.0f));
}

TEST(VtcmPlanner, ZeroBudgetRunsEntirelyFromSpillFill) {
  auto g = prepare(relu_chain(6), 0);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->vtcm_bytes(), 0u);
  EXPECT_EQ(g->spill_fill_bytes(), 2 * kTensorBytes);
  const auto input = test_input();
  std::vector<float> out(kTensorFloats, -1.0f);
  htp::TensorBinding in_b{100, const_cast<float*>(input.data()), kTensorBytes};
  htp::TensorBinding out_b{106, out.data(), kTensorBytes};
  std::vector<uint8_t> spill(g->spill_fill_bytes(), kSentinelByte);
  std::string msg;
  const htp::MemoryRegions regions{nullptr, 0, spill.data(), spill.size()};
  ASSERT_EQ(g->execute({&in_b, 1}, {&out_b, 1}, regions, &msg), htp::GraphError::kNone) << msg;
  for (size_t i = 0; i < kTensorFloats; ++i) ASSERT_EQ(out[i], std::max(input[i], 0.0f)) << i;
  size_t untouched = 0;
  for (size_t pos = 0; pos < spill.size(); pos += 4) untouched += is_sentinel(&spill[pos]);
  EXPECT_EQ(untouched, 0u);  // both chain slots were used
}

// --- read slack and fixed (stored) placements ----------------------------------

TEST(VtcmPlanner, ReadSlackOnlyKeepsTheRegionFromEndingTooSoon) {
  // Slack into the next tensor's slot is allowed: it only has to be readable.
  std::vector<BufferRequest> inner = {{1024, 0, 1, 16}, {1024, 1, 2, 0}};
  auto plan = htp::plan_vtcm(inner, htp::kDefaultVtcmBytes, kAlign);
  expect_valid(inner, plan, htp::kDefaultVtcmBytes);
  EXPECT_EQ(plan.placements[1].offset, 1024u);  // right after the first slot, not after its slack
  EXPECT_EQ(plan.vtcm_bytes, 2048u);
  // At the end of the region the slack needs room of its own.
  std::vector<BufferRequest> last = {{1024, 0, 1, 0}, {1024, 1, 2, 16}};
  plan = htp::plan_vtcm(last, htp::kDefaultVtcmBytes, kAlign);
  expect_valid(last, plan, htp::kDefaultVtcmBytes);
  EXPECT_EQ(plan.vtcm_bytes, 2048u + kAlign);
  // A tensor stays in VTCM only if its slack fits the budget too.
  plan = htp::plan_vtcm(last, 2048, kAlign);
  expect_valid(last, plan, 2048);
  EXPECT_EQ(plan.placements[1].region, Region::kSpillFill);
  EXPECT_EQ(plan.spill_fill_bytes, 1024u + kAlign);
  // Without slack the same requests need exactly two slots.
  std::vector<BufferRequest> none = {{1024, 0, 1}, {1024, 1, 2}};
  EXPECT_EQ(htp::plan_vtcm(none, 2048, kAlign).vtcm_bytes, 2048u);
}

namespace {

using Fixed = std::vector<std::optional<htp::TensorPlacement>>;

htp::VtcmPlan plan_fixed(const std::vector<BufferRequest>& r, size_t budget, const Fixed& fixed,
                         htp::PlanError* error = nullptr) {
  htp::VtcmPlan plan;
  htp::PlanError unused;
  const bool ok = htp::plan_vtcm(r, budget, kAlign, fixed, &plan, error ? error : &unused);
  if (error == nullptr) {
    EXPECT_TRUE(ok) << unused.why;
  }
  return plan;
}

// What the planner must decide about fixed placements, by brute force: the
// index of the first fixed request that breaks a rule, or -1.
int first_broken(const std::vector<BufferRequest>& r, size_t budget, const Fixed& fixed) {
  for (size_t i = 0; i < r.size(); ++i) {
    if (!fixed[i]) continue;
    const size_t end = fixed[i]->offset + align_up(r[i].size + r[i].read_slack);
    if (fixed[i]->offset % kAlign != 0) return static_cast<int>(i);
    if (fixed[i]->region == Region::kVtcm && end > budget) return static_cast<int>(i);
  }
  for (size_t i = 0; i < r.size(); ++i) {
    for (size_t j = 0; j < i && fixed[i]; ++j) {
      if (!fixed[j] || fixed[j]->region != fixed[i]->region || !live_together(r[i], r[j])) continue;
      const size_t a = fixed[i]->offset, b = fixed[j]->offset;
      if (a < b + align_up(r[j].size) && b < a + align_up(r[i].size)) return static_cast<int>(i);
    }
  }
  return -1;
}

}  // namespace

TEST(VtcmPlanner, FixedPlacementsAreTakenExactlyAndTheRestIsPlannedAroundThem) {
  // Three tensors alive together and a workspace-like one-op request.
  std::vector<BufferRequest> r = {{1000, 0, 2}, {1000, 0, 2}, {500, 1, 2}, {3000, 1, 1}};
  Fixed fixed(r.size());
  fixed[0] = htp::TensorPlacement{Region::kVtcm, 4096};  // leaves a gap below it
  fixed[2] = htp::TensorPlacement{Region::kSpillFill, 128};
  auto plan = plan_fixed(r, 8192, fixed);
  expect_valid(r, plan, 8192);
  EXPECT_EQ(plan.placements[0].region, Region::kVtcm);
  EXPECT_EQ(plan.placements[0].offset, 4096u);
  EXPECT_EQ(plan.placements[2].region, Region::kSpillFill);
  EXPECT_EQ(plan.placements[2].offset, 128u);
  // The others take the lowest free offsets, largest first: the 3000-byte
  // one at 0, under the fixed tensor; the 1000-byte one in the gap left
  // between the two.
  EXPECT_EQ(plan.placements[3].region, Region::kVtcm);
  EXPECT_EQ(plan.placements[3].offset, 0u);
  EXPECT_EQ(plan.placements[1].region, Region::kVtcm);
  EXPECT_EQ(plan.placements[1].offset, align_up(3000));
  EXPECT_EQ(plan.vtcm_bytes, 4096u + align_up(1000));
  EXPECT_EQ(plan.spill_fill_bytes, 128u + align_up(500));
  // Nothing fixed: exactly the plan without fixed placements.
  auto free = plan_fixed(r, 8192, Fixed(r.size()));
  auto plain = htp::plan_vtcm(r, 8192, kAlign);
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(free.placements[i].region, plain.placements[i].region);
    EXPECT_EQ(free.placements[i].offset, plain.placements[i].offset);
  }
}

TEST(VtcmPlanner, FixedPlacementsBreakingARuleAreRefused) {
  std::vector<BufferRequest> r = {{1000, 0, 2}, {1000, 1, 3}, {1000, 3, 4}};
  htp::PlanError e;
  htp::VtcmPlan untouched;
  untouched.vtcm_bytes = 12345;
  auto refused = [&](const Fixed& fixed, size_t budget) {
    e = {};
    return !htp::plan_vtcm(r, budget, kAlign, fixed, &untouched, &e);
  };
  Fixed misaligned(r.size());
  misaligned[1] = htp::TensorPlacement{Region::kSpillFill, 96};
  ASSERT_TRUE(refused(misaligned, 8192));
  EXPECT_EQ(e.request, 1u);
  EXPECT_NE(e.why.find("64-byte alignment"), std::string::npos) << e.why;

  Fixed past_budget(r.size());
  past_budget[0] = htp::TensorPlacement{Region::kVtcm, 8192 - 64};
  ASSERT_TRUE(refused(past_budget, 8192));
  EXPECT_EQ(e.request, 0u);
  EXPECT_NE(e.why.find("VTCM budget of 8192"), std::string::npos) << e.why;
  past_budget[0]->offset = 8192 - align_up(1000);  // ends exactly at the budget: fine
  EXPECT_FALSE(refused(past_budget, 8192)) << e.why;

  Fixed huge(r.size());
  huge[2] = htp::TensorPlacement{Region::kSpillFill, SIZE_MAX / kAlign * kAlign};  // offset + size overflows
  ASSERT_TRUE(refused(huge, 8192));
  EXPECT_EQ(e.request, 2u);
  huge[2]->offset = htp::kMaxSpillFillBytes / kAlign * kAlign;
  EXPECT_TRUE(refused(huge, 8192));

  Fixed overlap(r.size());
  overlap[0] = htp::TensorPlacement{Region::kVtcm, 0};
  overlap[1] = htp::TensorPlacement{Region::kVtcm, 960};  // alive with 0 at ops 1-2, slots overlap by 64 bytes
  ASSERT_TRUE(refused(overlap, 8192));
  EXPECT_EQ(e.request, 1u);
  EXPECT_EQ(e.other, 0u);
  EXPECT_EQ(e.why, "overlaps");
  overlap[1]->offset = 1024;  // right after it: fine
  EXPECT_FALSE(refused(overlap, 8192)) << e.why;
  // Same offset, but never alive together, or in different regions: fine.
  Fixed reuse(r.size());
  reuse[0] = htp::TensorPlacement{Region::kVtcm, 0};
  reuse[2] = htp::TensorPlacement{Region::kVtcm, 0};
  EXPECT_FALSE(refused(reuse, 8192)) << e.why;
  reuse[1] = htp::TensorPlacement{Region::kSpillFill, 0};
  EXPECT_FALSE(refused(reuse, 8192)) << e.why;
  // A refused plan leaves the output as it was; wrong-sized `fixed` is refused.
  untouched.vtcm_bytes = 12345;
  EXPECT_TRUE(refused(misaligned, 8192));
  EXPECT_EQ(untouched.vtcm_bytes, 12345u);
  EXPECT_TRUE(refused(Fixed(1), 8192));
}

TEST(VtcmPlanner, RandomFixedPlacementsAreJudgedRightAndPlannedAround) {
  std::mt19937 rng(20261130);
  int accepted = 0, refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::vector<BufferRequest> r;
    const int n = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      const int a = static_cast<int>(rng() % 20), b = static_cast<int>(rng() % 20);
      r.push_back({1 + rng() % 5000, std::min(a, b), std::max(a, b), rng() % 3 == 0 ? size_t{16} : 0});
    }
    const size_t peak = htp::peak_live_bytes(r, kAlign);
    const size_t budget = rng() % (peak + 1);
    const htp::VtcmPlan online = htp::plan_vtcm(r, budget, kAlign);
    Fixed fixed(r.size());
    if (trial % 2 == 0) {
      // An offline plan: some of a valid plan's placements, which must be
      // accepted and kept; the rest planned again around them.
      for (int i = 0; i < n; ++i) {
        if (rng() % 2 == 0) fixed[i] = online.placements[i];
      }
    } else {
      // Arbitrary placements, mostly aligned, some colliding.
      for (int i = 0; i < n; ++i) {
        if (rng() % 3 != 0) continue;
        const Region region = rng() % 2 == 0 ? Region::kVtcm : Region::kSpillFill;
        size_t offset = (rng() % 64) * kAlign;
        if (rng() % 10 == 0) offset += 8;
        fixed[i] = htp::TensorPlacement{region, offset};
      }
    }
    const int broken = first_broken(r, budget, fixed);
    htp::PlanError e;
    htp::VtcmPlan plan;
    const bool ok = htp::plan_vtcm(r, budget, kAlign, fixed, &plan, &e);
    ASSERT_EQ(ok, broken < 0) << e.why;
    if (trial % 2 == 0) {
      ASSERT_TRUE(ok) << "a valid plan's own placements were refused: " << e.why;
    }
    if (!ok) {
      ++refused;
      continue;
    }
    ++accepted;
    expect_valid(r, plan, budget);
    for (int i = 0; i < n; ++i) {
      if (!fixed[i]) continue;
      EXPECT_EQ(plan.placements[i].region, fixed[i]->region) << i;
      EXPECT_EQ(plan.placements[i].offset, fixed[i]->offset) << i;
    }
    // Never below the lower bound, in total and per region.
    EXPECT_GE(plan.vtcm_bytes + plan.spill_fill_bytes, peak);
    EXPECT_GE(plan.vtcm_bytes, region_peak(r, plan, Region::kVtcm));
    EXPECT_GE(plan.spill_fill_bytes, region_peak(r, plan, Region::kSpillFill));
  }
  EXPECT_GT(accepted, 200);
  EXPECT_GT(refused, 20);  // the arbitrary placements really exercise refusal
}

// A stored plan made in Layout::kThreadHalves (memory_planner.h) from the
// same requests is taken whole: the requests it did not store (a graph's
// workspaces) land where they did when it was made, in their lanes — also
// for a set that spills. A stored packed plan is honoured as it is, the
// rest packed around it.
TEST(VtcmPlanner, StoredThreadHalvesPlanIsReproducedWithItsUnstoredRequests) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    const std::vector<BufferRequest> r = planner_test::random_requests(rng, 2, 20, 12, 4000);
    const size_t budget = trial % 2 ? 1u << 20 : 6000;  // roomy, or a set that spills
    for (const htp::Layout made : {htp::Layout::kThreadHalves, htp::Layout::kPacked}) {
      htp::VtcmPlan stored_plan;
      htp::PlanError error;
      ASSERT_TRUE(htp::plan_vtcm(r, budget, 64, {}, &stored_plan, &error, made));
      // The first half of the requests is "stored" (the tensors), the rest not.
      std::vector<std::optional<htp::TensorPlacement>> fixed(r.size());
      for (size_t i = 0; i < r.size() / 2; ++i) fixed[i] = stored_plan.placements[i];
      htp::VtcmPlan loaded;
      ASSERT_TRUE(htp::plan_vtcm(r, budget, 64, fixed, &loaded, &error, htp::Layout::kThreadHalves)) << error.why;
      for (size_t i = 0; i < r.size() / 2; ++i) {
        EXPECT_EQ(loaded.placements[i].region, stored_plan.placements[i].region) << "trial " << trial;
        EXPECT_EQ(loaded.placements[i].offset, stored_plan.placements[i].offset) << "trial " << trial;
      }
      if (made == htp::Layout::kThreadHalves) {
        for (size_t i = r.size() / 2; i < r.size(); ++i) {
          EXPECT_EQ(loaded.placements[i].region, stored_plan.placements[i].region) << "trial " << trial;
          EXPECT_EQ(loaded.placements[i].offset, stored_plan.placements[i].offset) << "trial " << trial;
        }
        EXPECT_EQ(loaded.vtcm_bytes, stored_plan.vtcm_bytes);
        EXPECT_EQ(loaded.spill_fill_bytes, stored_plan.spill_fill_bytes);
      }
    }
  }
}
