// htp::Runtime on its own, with no FastRPC and no QNN API in front of it: the
// runtime's own checks are what a crafted remote call or a corrupted binary
// meets, so each rule is tested here by breaking it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "QnnCommon.h"
#include "QnnContext.h"
#include "QnnGraph.h"
#include "QnnMem.h"
#include "htp/runtime.h"

using namespace openhtp;
using htp::ExecBinding;
using htp::MemoryKind;

namespace {

// Page-aligned heap memory standing in for a mapped client buffer.
class HeapRange final : public htp::MappedRange {
 public:
  static std::shared_ptr<HeapRange> make(size_t bytes, uint8_t fill = 0) {
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
    std::memset(p, fill, bytes);
    return std::shared_ptr<HeapRange>(new HeapRange(p, bytes));
  }
  ~HeapRange() override { std::free(base()); }
  float* floats(size_t offset = 0) const { return reinterpret_cast<float*>(base() + offset); }

 private:
  HeapRange(uint8_t* p, size_t n) : MappedRange(p, n) {}
};

constexpr uint32_t kN = 16;  // elements per tensor
constexpr size_t kBytes = kN * sizeof(float);
constexpr uint32_t kX = 1, kY = 2, kW1 = 3, kW2 = 4, kA = 5, kOut = 6;

htp::TensorSpec tensor(uint32_t id, const char* name, uint32_t type) {
  return {id, name, type, ops::dtype::kFloat32, {1, kN}, {}, {}};
}

htp::TensorSpec weights(uint32_t id, const char* name, float base) {
  htp::TensorSpec t = tensor(id, name, htp::tensor_type::kStatic);
  std::vector<uint8_t> bytes(kBytes);
  float* f = reinterpret_cast<float*>(bytes.data());
  for (uint32_t i = 0; i < kN; ++i) f[i] = base + static_cast<float>(i);
  t.static_data = std::move(bytes);
  return t;
}

// a = x + w1; out = a + w2. With `spill`, a VTCM budget of one byte sends
// `a` to the spill-fill region.
htp::GraphSpec two_weights(bool spill = false) {
  htp::GraphSpec g;
  g.name = "two_weights";
  g.tensors = {tensor(kX, "x", htp::tensor_type::kAppWrite), weights(kW1, "w1", 100.0f), weights(kW2, "w2", 1000.0f),
               tensor(kA, "a", htp::tensor_type::kNative), tensor(kOut, "out", htp::tensor_type::kAppRead)};
  g.nodes.push_back({"add1", "", "ElementWiseAdd", {}, {kX, kW1}, {kA}});
  g.nodes.push_back({"add2", "", "ElementWiseAdd", {}, {kA, kW2}, {kOut}});
  g.vtcm_budget_bytes = spill ? 1 : 0;
  g.num_hvx_threads = 1;
  return g;
}

// out = x + y: two graph inputs.
htp::GraphSpec two_inputs() {
  htp::GraphSpec g;
  g.name = "two_inputs";
  g.tensors = {tensor(kX, "x", htp::tensor_type::kAppWrite), tensor(kY, "y", htp::tensor_type::kAppWrite),
               tensor(kOut, "out", htp::tensor_type::kAppRead)};
  g.nodes.push_back({"add", "", "ElementWiseAdd", {}, {kX, kY}, {kOut}});
  g.num_hvx_threads = 1;
  return g;
}

float expected_two_weights(float x, uint32_t i) { return x + (100.0f + i) + (1000.0f + i); }

class RuntimeTest : public ::testing::Test {
 protected:
  std::unique_ptr<htp::Runtime> rt = htp::make_runtime(htp::RuntimeOptions{});  // reference kernels

  uint64_t context(const htp::ContextOptions& o = {}) {
    uint64_t id = 0;
    const htp::Status s = rt->create_context(o, &id);
    EXPECT_TRUE(s.ok()) << s.message;
    return id;
  }
  uint64_t prepare(uint64_t ctx, htp::GraphSpec spec, htp::GraphInfo* info = nullptr) {
    htp::GraphInfo local;
    const htp::Status s = rt->prepare_graph(ctx, std::move(spec), nullptr, info ? info : &local);
    EXPECT_TRUE(s.ok()) << s.message;
    return (info ? info : &local)->graph_id;
  }
  uint64_t reg(uint64_t ctx, MemoryKind kind, std::shared_ptr<HeapRange> m, uint64_t offset, uint64_t size) {
    uint64_t id = 0;
    const htp::Status s = rt->register_memory(ctx, kind, std::move(m), offset, size, &id);
    EXPECT_TRUE(s.ok()) << s.message;
    return id;
  }
  htp::Status run(uint64_t graph, std::vector<ExecBinding> in, std::vector<ExecBinding> out) {
    htp::ExecResult r;
    return rt->execute(graph, in, out, &r);
  }
};

TEST_F(RuntimeTest, ExecutesWithRawBuffersAndMemoryHandles) {
  const uint64_t ctx = context();
  const uint64_t g = prepare(ctx, two_weights());
  std::vector<float> x(kN, 0.5f), out(kN, -1.0f);
  ASSERT_TRUE(run(g, {{kX, 0, x.data(), kBytes}}, {{kOut, 0, out.data(), kBytes}}).ok());
  for (uint32_t i = 0; i < kN; ++i) EXPECT_FLOAT_EQ(out[i], expected_two_weights(0.5f, i));

  auto in_mem = HeapRange::make(kBytes), out_mem = HeapRange::make(kBytes);
  for (uint32_t i = 0; i < kN; ++i) in_mem->floats()[i] = static_cast<float>(i);
  const uint64_t in_id = reg(ctx, MemoryKind::kTensor, in_mem, 0, kBytes);
  const uint64_t out_id = reg(ctx, MemoryKind::kTensor, out_mem, 0, kBytes);
  ASSERT_TRUE(run(g, {{kX, in_id, nullptr, 0}}, {{kOut, out_id, nullptr, 0}}).ok());
  for (uint32_t i = 0; i < kN; ++i) EXPECT_FLOAT_EQ(out_mem->floats()[i], expected_two_weights(float(i), i));
}

TEST_F(RuntimeTest, ContextFreeDropsItsGraphsAndMemory) {
  const uint64_t a = context(), b = context();
  const uint64_t ga = prepare(a, two_weights()), gb = prepare(b, two_weights());
  auto mem = HeapRange::make(kBytes);
  reg(a, MemoryKind::kTensor, mem, 0, kBytes);
  htp::RuntimeStats s = rt->stats();
  EXPECT_EQ(s.contexts, 2u);
  EXPECT_EQ(s.graphs, 2u);
  EXPECT_EQ(s.mems, 1u);
  EXPECT_EQ(s.mappings, 1u);
  ASSERT_TRUE(rt->free_context(a).ok());
  s = rt->stats();
  EXPECT_EQ(s.contexts, 1u);
  EXPECT_EQ(s.graphs, 1u);
  EXPECT_EQ(s.mems, 0u);
  EXPECT_EQ(s.mappings, 0u);
  EXPECT_EQ(mem.use_count(), 1) << "the runtime still holds the freed context's buffer";
  std::vector<float> x(kN), out(kN);
  const htp::Status gone = run(ga, {{kX, 0, x.data(), kBytes}}, {{kOut, 0, out.data(), kBytes}});
  EXPECT_EQ(gone.code, QNN_GRAPH_ERROR_INVALID_HANDLE);
  EXPECT_NE(gone.message.find("does not exist"), std::string::npos) << gone.message;
  EXPECT_TRUE(run(gb, {{kX, 0, x.data(), kBytes}}, {{kOut, 0, out.data(), kBytes}}).ok());
  EXPECT_EQ(rt->free_context(a).code, QNN_CONTEXT_ERROR_INVALID_HANDLE);
}

TEST_F(RuntimeTest, SpillFillGroupSharesOneRegion) {
  const uint64_t leader = context({100, 0, kBytes});
  const uint64_t member = context({100, leader, 0});
  // The leader's external spill-fill buffer becomes the group's region: the
  // member's spilled tensor must land in it.
  auto sf = HeapRange::make(4096, 0xA5);
  reg(leader, MemoryKind::kSpillFill, sf, 0, 4096);
  htp::GraphInfo info;
  const uint64_t g = prepare(member, two_weights(/*spill=*/true), &info);
  ASSERT_GT(info.spill_fill_bytes, 0u) << "the graph was meant to spill";
  htp::StoredPlan plan;
  ASSERT_TRUE(rt->graph_plan(g, &plan).ok());
  ASSERT_EQ(plan.count(kA), 1u);
  ASSERT_EQ(plan[kA].region, htp::Region::kSpillFill);
  std::vector<float> x(kN, 2.0f), out(kN);
  ASSERT_TRUE(run(g, {{kX, 0, x.data(), kBytes}}, {{kOut, 0, out.data(), kBytes}}).ok());
  for (uint32_t i = 0; i < kN; ++i) {
    EXPECT_FLOAT_EQ(sf->floats(plan[kA].offset)[i], 2.0f + 100.0f + i) << "a[" << i << "] is not in the shared buffer";
    EXPECT_FLOAT_EQ(out[i], expected_two_weights(2.0f, i));
  }
}

TEST_F(RuntimeTest, SpillFillGroupNeedsALiveFirstContext) {
  uint64_t id = 0;
  const htp::Status s = rt->create_context({100, 12345, 0}, &id);
  EXPECT_EQ(s.code, QNN_CONTEXT_ERROR_INVALID_CONFIG);
  EXPECT_NE(s.message.find("12345"), std::string::npos) << s.message;
  EXPECT_EQ(rt->stats().contexts, 0u);
}

TEST_F(RuntimeTest, WeightsMoveIntoTheExternalBufferOnePageApart) {
  const uint64_t ctx = context();
  auto wb = HeapRange::make(3 * 4096);
  reg(ctx, MemoryKind::kWeights, wb, 4096, 2 * 4096);
  const uint64_t g = prepare(ctx, two_weights());
  for (uint32_t i = 0; i < kN; ++i) {
    EXPECT_FLOAT_EQ(wb->floats(4096)[i], 100.0f + i);         // w1 at the buffer's start
    EXPECT_FLOAT_EQ(wb->floats(2 * 4096)[i], 1000.0f + i);    // w2 on the next page
  }
  // The graph reads its weights from the client's buffer from now on.
  wb->floats(4096)[3] = -7.0f;
  std::vector<float> x(kN, 0.0f), out(kN);
  ASSERT_TRUE(run(g, {{kX, 0, x.data(), kBytes}}, {{kOut, 0, out.data(), kBytes}}).ok());
  EXPECT_FLOAT_EQ(out[3], -7.0f + 1003.0f);
  EXPECT_FLOAT_EQ(out[4], expected_two_weights(0.0f, 4));
}

TEST_F(RuntimeTest, ExternalBuffersMustStartOnAPage) {
  const uint64_t ctx = context();
  uint64_t id = 0;
  for (MemoryKind kind : {MemoryKind::kWeights, MemoryKind::kSpillFill}) {
    const htp::Status s = rt->register_memory(ctx, kind, HeapRange::make(8192), 100, 4096, &id);
    EXPECT_EQ(s.code, QNN_MEM_ERROR_INVALID_ARGUMENT) << htp::memory_kind_name(kind);
    EXPECT_NE(s.message.find("4096-byte boundary (offset 100)"), std::string::npos) << s.message;
  }
  EXPECT_EQ(rt->stats().mems, 0u);
}

TEST_F(RuntimeTest, TooSmallWeightsBufferRefusesThePrepareAndKeepsNothing) {
  const uint64_t ctx = context();
  auto wb = HeapRange::make(8192);
  reg(ctx, MemoryKind::kWeights, wb, 0, 4096 + 10);  // w2 would end past it
  htp::GraphInfo info;
  const htp::Status s = rt->prepare_graph(ctx, two_weights(), nullptr, &info);
  EXPECT_EQ(s.code, QNN_COMMON_ERROR_MEM_ALLOC);
  EXPECT_NE(s.message.find("too small"), std::string::npos) << s.message;
  EXPECT_EQ(rt->stats().graphs, 0u);
  EXPECT_FLOAT_EQ(wb->floats()[0], 0.0f) << "a refused prepare wrote weights";
}

TEST_F(RuntimeTest, RegistrationsMustLieInsideTheirMemory) {
  const uint64_t ctx = context();
  uint64_t id = 0;
  const htp::Status s = rt->register_memory(ctx, MemoryKind::kTensor, HeapRange::make(100), 64, 64, &id);
  EXPECT_EQ(s.code, QNN_MEM_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(s.message.find("exceeds the buffer's 100 bytes"), std::string::npos) << s.message;
  EXPECT_EQ(rt->register_memory(999, MemoryKind::kTensor, HeapRange::make(100), 0, 64, &id).code,
            QNN_MEM_ERROR_INVALID_HANDLE);
  EXPECT_EQ(rt->stats().mems, 0u);
}

TEST_F(RuntimeTest, BindingsAfterDeregisterAreRefused) {
  const uint64_t ctx = context();
  const uint64_t g = prepare(ctx, two_weights());
  auto in = HeapRange::make(kBytes), out = HeapRange::make(kBytes);
  const uint64_t in_id = reg(ctx, MemoryKind::kTensor, in, 0, kBytes);
  const uint64_t out_id = reg(ctx, MemoryKind::kTensor, out, 0, kBytes);
  ASSERT_TRUE(run(g, {{kX, in_id, nullptr, 0}}, {{kOut, out_id, nullptr, 0}}).ok());  // memoized now
  ASSERT_TRUE(rt->deregister_memory(in_id).ok());
  const htp::Status s = run(g, {{kX, in_id, nullptr, 0}}, {{kOut, out_id, nullptr, 0}});
  EXPECT_EQ(s.code, QNN_MEM_ERROR_INVALID_HANDLE);
  EXPECT_NE(s.message.find("not registered"), std::string::npos) << s.message;
  EXPECT_EQ(rt->deregister_memory(in_id).code, QNN_MEM_ERROR_INVALID_HANDLE);
}

// An execute that sends the bindings of the graph's last execute again runs
// on what the graph already holds; anything else binds afresh. Each step
// below reads or writes different memory than the step before, so a reuse
// where there should be none shows in the outputs.
TEST_F(RuntimeTest, RepeatedBindingsAreReusedAndChangedOnesBoundAfresh) {
  const uint64_t ctx = context();
  const uint64_t g = prepare(ctx, two_inputs());
  std::vector<float> x1(kN, 1.0f), x2(kN, 10.0f), y(kN, 2.0f), out1(kN), out2(kN);
  auto sum_is = [](const std::vector<float>& v, float want) {
    return std::all_of(v.begin(), v.end(), [&](float f) { return f == want; });
  };
  const std::vector<ExecBinding> in1 = {{kX, 0, x1.data(), kBytes}, {kY, 0, y.data(), kBytes}};
  const std::vector<ExecBinding> o1 = {{kOut, 0, out1.data(), kBytes}};
  ASSERT_TRUE(run(g, in1, o1).ok());
  EXPECT_TRUE(sum_is(out1, 3.0f));
  x1.assign(kN, 4.0f);  // the same bindings again: the new bytes are read in place
  ASSERT_TRUE(run(g, in1, o1).ok());
  EXPECT_TRUE(sum_is(out1, 6.0f));
  // Another output buffer, then back to the first.
  ASSERT_TRUE(run(g, in1, {{kOut, 0, out2.data(), kBytes}}).ok());
  EXPECT_TRUE(sum_is(out2, 6.0f));
  out1.assign(kN, -1.0f);
  ASSERT_TRUE(run(g, in1, o1).ok());
  EXPECT_TRUE(sum_is(out1, 6.0f));
  // A refused execute may have bound its first input before refusing the
  // second: the next execute with the old bindings binds them all again.
  const htp::Status bad = run(g, {{kX, 0, x2.data(), kBytes}, {kY, 0, y.data(), kBytes - 4}}, o1);
  ASSERT_EQ(bad.code, QNN_GRAPH_ERROR_INVALID_TENSOR) << bad.message;
  out1.assign(kN, -1.0f);
  ASSERT_TRUE(run(g, in1, o1).ok());
  EXPECT_TRUE(sum_is(out1, 6.0f)) << "read x2, bound by the refused execute";
  // A memory handle re-registered under a new id after its old id went.
  auto mem = HeapRange::make(kBytes);
  for (uint32_t i = 0; i < kN; ++i) mem->floats()[i] = 20.0f;
  const uint64_t old_id = reg(ctx, MemoryKind::kTensor, mem, 0, kBytes);
  const std::vector<ExecBinding> by_mem = {{kX, old_id, nullptr, 0}, {kY, 0, y.data(), kBytes}};
  ASSERT_TRUE(run(g, by_mem, o1).ok());
  EXPECT_TRUE(sum_is(out1, 22.0f));
  ASSERT_TRUE(rt->deregister_memory(old_id).ok());
  EXPECT_EQ(run(g, by_mem, o1).code, QNN_MEM_ERROR_INVALID_HANDLE);
  auto other = HeapRange::make(kBytes);
  for (uint32_t i = 0; i < kN; ++i) other->floats()[i] = 30.0f;
  const uint64_t new_id = reg(ctx, MemoryKind::kTensor, other, 0, kBytes);
  ASSERT_TRUE(run(g, {{kX, new_id, nullptr, 0}, {kY, 0, y.data(), kBytes}}, o1).ok());
  EXPECT_TRUE(sum_is(out1, 32.0f));
}

TEST_F(RuntimeTest, MemoryOfAnotherContextIsRefused) {
  const uint64_t a = context(), b = context();
  const uint64_t g = prepare(a, two_weights());
  const uint64_t foreign = reg(b, MemoryKind::kTensor, HeapRange::make(kBytes), 0, kBytes);
  std::vector<float> out(kN);
  const htp::Status s = run(g, {{kX, foreign, nullptr, 0}}, {{kOut, 0, out.data(), kBytes}});
  EXPECT_EQ(s.code, QNN_MEM_ERROR_INVALID_HANDLE);
  EXPECT_NE(s.message.find("belongs to context"), std::string::npos) << s.message;
}

TEST_F(RuntimeTest, ForgedBindingsAreRefused) {
  const uint64_t ctx = context();
  const uint64_t g = prepare(ctx, two_inputs());
  std::vector<float> x(kN, 1.0f), y(kN, 2.0f), out(kN);
  ASSERT_TRUE(run(g, {{kX, 0, x.data(), kBytes}, {kY, 0, y.data(), kBytes}}, {{kOut, 0, out.data(), kBytes}}).ok());
  struct Case {
    const char* what;
    std::vector<ExecBinding> in, out;
    const char* says;
  };
  const Case cases[] = {
      {"one input bound twice, the other not", {{kX, 0, x.data(), kBytes}, {kX, 0, y.data(), kBytes}},
       {{kOut, 0, out.data(), kBytes}}, "bound twice"},
      {"swapped and duplicated", {{kY, 0, x.data(), kBytes}, {kY, 0, y.data(), kBytes}},
       {{kOut, 0, out.data(), kBytes}}, "bound twice"},
      {"an input left out", {{kX, 0, x.data(), kBytes}}, {{kOut, 0, out.data(), kBytes}}, "has 2 inputs"},
      {"an unknown tensor id", {{kX, 0, x.data(), kBytes}, {77, 0, y.data(), kBytes}},
       {{kOut, 0, out.data(), kBytes}}, "tensor id 77 is not a graph input"},
      {"an output passed as input", {{kX, 0, x.data(), kBytes}, {kOut, 0, y.data(), kBytes}},
       {{kOut, 0, out.data(), kBytes}}, "is not a graph input"},
      {"a buffer smaller than the tensor", {{kX, 0, x.data(), kBytes}, {kY, 0, y.data(), kBytes - 1}},
       {{kOut, 0, out.data(), kBytes}}, "needs 64 bytes, buffer has 63"},
      {"a null buffer", {{kX, 0, x.data(), kBytes}, {kY, 0, nullptr, kBytes}}, {{kOut, 0, out.data(), kBytes}},
       "needs 64 bytes"},
  };
  for (const Case& c : cases) {
    const htp::Status s = run(g, c.in, c.out);
    EXPECT_EQ(s.code, QNN_GRAPH_ERROR_INVALID_TENSOR) << c.what;
    EXPECT_NE(s.message.find(c.says), std::string::npos) << c.what << ": " << s.message;
  }
  EXPECT_EQ(run(424242, {}, {}).code, QNN_GRAPH_ERROR_INVALID_HANDLE);
}

TEST_F(RuntimeTest, ThreadCountsOutsideTheDeviceRangeAreRefused) {
  const uint64_t ctx = context();
  htp::GraphSpec many = two_weights();
  many.num_hvx_threads = 1000;  // what a crafted context binary can carry
  htp::GraphInfo info;
  const htp::Status s = rt->prepare_graph(ctx, std::move(many), nullptr, &info);
  EXPECT_EQ(s.code, QNN_GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(s.message.find("NUM_HVX_THREADS is 1000, expected 1 to 64"), std::string::npos) << s.message;
  const uint64_t g = prepare(ctx, two_weights());
  EXPECT_EQ(rt->set_graph_threads(g, 0).code, QNN_GRAPH_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(rt->set_graph_threads(g, 65).code, QNN_GRAPH_ERROR_INVALID_ARGUMENT);
  ASSERT_TRUE(rt->set_graph_threads(g, 2).ok());
  std::vector<float> x(kN, 1.0f), out(kN);
  htp::ExecResult r;
  ASSERT_TRUE(rt->execute(g, std::vector<ExecBinding>{{kX, 0, x.data(), kBytes}},
                          std::vector<ExecBinding>{{kOut, 0, out.data(), kBytes}}, &r)
                  .ok());
  EXPECT_EQ(r.threads, 2u);
}

// a = x + w1; b = a + w2; out = b + w1: `a` and `b` are both alive at the
// second node, so they need two slots; a budget of one byte spills both.
htp::GraphSpec two_spilled() {
  htp::GraphSpec g = two_weights(/*spill=*/true);
  g.name = "two_spilled";
  g.tensors.push_back(tensor(kY, "b", htp::tensor_type::kNative));
  g.nodes[1].outputs = {kY};
  g.nodes.push_back({"add3", "", "ElementWiseAdd", {}, {kY, kW1}, {kOut}});
  return g;
}

TEST_F(RuntimeTest, AStoredPlanIsHonouredAndABrokenOneRefused) {
  const uint64_t ctx = context();
  auto sf = HeapRange::make(4096, 0xA5);
  reg(ctx, MemoryKind::kSpillFill, sf, 0, 4096);
  const uint64_t first = prepare(ctx, two_spilled());
  htp::StoredPlan plan;
  ASSERT_TRUE(rt->graph_plan(first, &plan).ok());
  ASSERT_EQ(plan.count(kA), 1u);
  ASSERT_EQ(plan.count(kY), 1u);
  ASSERT_EQ(plan[kA].region, htp::Region::kSpillFill);
  ASSERT_NE(plan[kA].offset, plan[kY].offset);
  // The same slots, swapped: a legal plan the planner did not make. A graph
  // prepared with it must use it.
  htp::StoredPlan swapped = plan;
  std::swap(swapped[kA].offset, swapped[kY].offset);
  htp::GraphInfo info;
  htp::Status s = rt->prepare_graph(ctx, two_spilled(), &swapped, &info);
  ASSERT_TRUE(s.ok()) << s.message;
  htp::StoredPlan got;
  ASSERT_TRUE(rt->graph_plan(info.graph_id, &got).ok());
  EXPECT_EQ(got[kA].offset, swapped[kA].offset);
  EXPECT_EQ(got[kY].offset, swapped[kY].offset);
  std::vector<float> x(kN, 3.0f), out(kN);
  ASSERT_TRUE(run(info.graph_id, {{kX, 0, x.data(), kBytes}}, {{kOut, 0, out.data(), kBytes}}).ok());
  for (uint32_t i = 0; i < kN; ++i) {
    const float a = 3.0f + (100.0f + i), b = a + (1000.0f + i);
    EXPECT_FLOAT_EQ(sf->floats(swapped[kA].offset)[i], a);
    EXPECT_FLOAT_EQ(sf->floats(swapped[kY].offset)[i], b);
    EXPECT_FLOAT_EQ(out[i], b + (100.0f + i));
  }
  // Overlapping slots for two tensors alive together, and a misaligned
  // offset, are not plans this runtime can run.
  htp::StoredPlan overlapping = plan;
  overlapping[kY].offset = overlapping[kA].offset;
  s = rt->prepare_graph(ctx, two_spilled(), &overlapping, &info);
  EXPECT_EQ(s.code, QNN_GRAPH_ERROR_FINALIZE_FAILED);
  EXPECT_NE(s.message.find("stored placement"), std::string::npos) << s.message;
  htp::StoredPlan misaligned = plan;
  misaligned[kA].offset += 3;
  s = rt->prepare_graph(ctx, two_spilled(), &misaligned, &info);
  EXPECT_EQ(s.code, QNN_GRAPH_ERROR_FINALIZE_FAILED);
  EXPECT_NE(s.message.find("'a'"), std::string::npos) << s.message;
  EXPECT_EQ(rt->stats().graphs, 2u);
}

}  // namespace

namespace {

// The memory budget (RuntimeOptions::memory_budget_bytes): a graph whose
// tensors or spill-fill region would need more is refused before anything
// is allocated, naming both sizes; a shape whose byte count does not fit in
// 64 bits counts as over any budget instead of wrapping round to a small one.
TEST(RuntimeBudget, AGraphOverTheMemoryBudgetIsRefusedBeforeItIsPrepared) {
  htp::RuntimeOptions o;
  o.memory_budget_bytes = uint64_t{1} << 20;  // 1 MiB
  auto rt = htp::make_runtime(o);
  uint64_t ctx = 0;
  ASSERT_TRUE(rt->create_context({}, &ctx).ok());
  auto graph_of = [](std::vector<uint32_t> dims) {
    htp::GraphSpec g;
    g.name = "big";
    g.tensors = {{1, "x", htp::tensor_type::kAppWrite, ops::dtype::kFloat32, dims, {}, {}},
                 {2, "m", htp::tensor_type::kNative, ops::dtype::kFloat32, dims, {}, {}},
                 {3, "y", htp::tensor_type::kAppRead, ops::dtype::kFloat32, dims, {}, {}}};
    g.nodes.push_back({"r1", "", "Relu", {}, {1}, {2}});
    g.nodes.push_back({"r2", "", "Relu", {}, {2}, {3}});
    g.num_hvx_threads = 1;
    return g;
  };
  htp::GraphInfo info;
  // 2 MiB of NATIVE: over.
  htp::Status s = rt->prepare_graph(ctx, graph_of({1, 1u << 19}), nullptr, &info);
  EXPECT_EQ(s.code, QNN_COMMON_ERROR_MEM_ALLOC);
  EXPECT_NE(s.message.find("2097152 bytes"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("budget of 1048576 bytes"), std::string::npos) << s.message;
  // A shape whose product wraps 64 bits: over, not small.
  s = rt->prepare_graph(ctx, graph_of({65536, 65536, 65536, 65536, 16}), nullptr, &info);
  EXPECT_EQ(s.code, QNN_COMMON_ERROR_MEM_ALLOC) << s.message;
  // 256 KiB: within it, prepared.
  s = rt->prepare_graph(ctx, graph_of({1, 1u << 16}), nullptr, &info);
  EXPECT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(rt->stats().graphs, 1u);  // the refused ones left nothing behind
}

// Weights count with what the kernels may make of them at prepare (a packed
// or FLOAT_32 copy, 4 bytes per element): 160 KiB of uint8 weights fit a
// 1 MiB budget as bytes (and 640 KiB more as a FLOAT_32 copy), 256 KiB of
// them do not (256 KiB + 1 MiB) — refused before any kernel is built.
TEST(RuntimeBudget, KernelsPackedWeightsCountAgainstTheBudget) {
  htp::RuntimeOptions o;
  o.memory_budget_bytes = uint64_t{1} << 20;
  auto rt = htp::make_runtime(o);
  uint64_t ctx = 0;
  ASSERT_TRUE(rt->create_context({}, &ctx).ok());
  auto graph_of = [](uint32_t n) {
    htp::GraphSpec g;
    g.name = "weights";
    const ops::Quant q = ops::Quant::per_tensor(0.5f, 0);
    g.tensors = {{1, "x", htp::tensor_type::kAppWrite, ops::dtype::kUfixed8, {1, n}, q, {}},
                 {2, "w", htp::tensor_type::kStatic, ops::dtype::kUfixed8, {1, n}, q, std::vector<uint8_t>(n, 3)},
                 {3, "y", htp::tensor_type::kAppRead, ops::dtype::kUfixed8, {1, n}, q, {}}};
    g.nodes.push_back({"add", "", "ElementWiseAdd", {}, {1, 2}, {3}});
    g.num_hvx_threads = 1;
    return g;
  };
  htp::GraphInfo info;
  htp::Status s = rt->prepare_graph(ctx, graph_of(256u << 10), nullptr, &info);
  EXPECT_EQ(s.code, QNN_COMMON_ERROR_MEM_ALLOC);
  EXPECT_NE(s.message.find("need 262144 bytes and its kernels' packed weights up to 1048576 more"), std::string::npos)
      << s.message;
  s = rt->prepare_graph(ctx, graph_of(160u << 10), nullptr, &info);
  EXPECT_TRUE(s.ok()) << s.message;
}

TEST(RuntimeBudget, TensorBytesSaturateInsteadOfWrapping) {
  htp::TensorSpec t{1, "t", htp::tensor_type::kNative, ops::dtype::kFloat32, {65536, 65536, 65536, 65536}, {}, {}};
  EXPECT_EQ(t.num_bytes(), SIZE_MAX);  // 2^64 * 4 wraps to 0 without the check
  t.dims = {1024, 1024};
  EXPECT_EQ(t.num_bytes(), size_t{4} << 20);
}

}  // namespace
