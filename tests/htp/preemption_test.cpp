// Priorities and preemption in htp::Runtime (htp_scheduler.h): waiting
// executes are served by priority, first come first served within a level;
// a higher priority preempts a lower one at the next op boundary, with the
// preempted graph's live VTCM saved into its context's VTCM-backup buffer
// and restored before it resumes. Preemptions are forced deterministically
// through the runtime's ExecObserver: the low graph, at an op boundary,
// starts the high one and waits until it is queued.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "QnnTypes.h"
#include "htp/runtime.h"

using namespace openhtp;
using htp::ExecBinding;

namespace {

constexpr uint32_t kN = 4096;  // 16 KiB per tensor
constexpr size_t kBytes = kN * sizeof(float);

htp::TensorSpec tensor(uint32_t id, uint32_t type) {
  return {id, "t" + std::to_string(id), type, ops::dtype::kFloat32, {1, kN}, {}, {}};
}

// x -> t1 = x + x -> t2 = t1 + t1 -> ... -> t_steps; out = t_steps + t1.
// t1 stays alive (in VTCM) across every boundary, so a preemption anywhere
// has VTCM to save. out[i] = x[i] * (2^steps + 2).
htp::GraphSpec chain(uint32_t steps, const char* name) {
  htp::GraphSpec g;
  g.name = name;
  g.tensors.push_back(tensor(1, htp::tensor_type::kAppWrite));
  for (uint32_t i = 0; i < steps; ++i) g.tensors.push_back(tensor(10 + i, htp::tensor_type::kNative));
  g.tensors.push_back(tensor(2, htp::tensor_type::kAppRead));
  uint32_t prev = 1;
  for (uint32_t i = 0; i < steps; ++i) {
    g.nodes.push_back({"add" + std::to_string(i), "", "ElementWiseAdd", {}, {prev, prev}, {10 + i}});
    prev = 10 + i;
  }
  g.nodes.push_back({"last", "", "ElementWiseAdd", {}, {prev, 10}, {2}});
  g.num_hvx_threads = 1;
  return g;
}

float chain_value(float x, uint32_t steps) { return x * (static_cast<float>(1u << steps) + 2.0f); }

// Test memory standing in for a client's VTCM-backup buffer.
class Buffer final : public htp::MappedRange {
 public:
  explicit Buffer(size_t n) : MappedRange(new uint8_t[n](), n) {}
  ~Buffer() override { delete[] base(); }
};

struct Observer final : htp::ExecObserver {
  std::function<void(uint64_t, size_t)> boundary;
  std::function<void(uint64_t, uint8_t*, size_t)> saved;
  void at_op_boundary(uint64_t g, size_t step) override {
    if (boundary) boundary(g, step);
  }
  void vtcm_saved(uint64_t g, uint8_t* b, size_t n) override {
    if (saved) saved(g, b, n);
  }
};

class Preemption : public ::testing::Test {
 protected:
  void SetUp() override {
    htp::RuntimeOptions o;
    o.observer = &observer_;
    rt_ = htp::make_runtime(o);
  }

  uint64_t context(uint32_t priority) {
    uint64_t id = 0;
    htp::ContextOptions o;
    o.priority = priority;
    EXPECT_TRUE(rt_->create_context(o, &id).ok());
    return id;
  }
  htp::GraphInfo prepare(uint64_t ctx, uint32_t steps, const char* name) {
    htp::GraphInfo info;
    const htp::Status s = rt_->prepare_graph(ctx, chain(steps, name), nullptr, &info);
    EXPECT_TRUE(s.ok()) << s.message;
    return info;
  }
  // Runs graph `g` on x[i] = i % 7 - 3 and checks the output.
  htp::ExecResult run(uint64_t g, uint32_t steps, bool* correct) {
    std::vector<float> x(kN), out(kN, -1.0f);
    for (uint32_t i = 0; i < kN; ++i) x[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
    ExecBinding in{1, 0, x.data(), kBytes}, o{2, 0, out.data(), kBytes};
    htp::ExecResult r;
    const htp::Status s = rt_->execute(g, {&in, 1}, {&o, 1}, &r);
    EXPECT_TRUE(s.ok()) << s.message;
    *correct = true;
    for (uint32_t i = 0; i < kN; ++i) *correct &= out[i] == chain_value(x[i], steps);
    return r;
  }

  Observer observer_;
  std::unique_ptr<htp::Runtime> rt_;
};

constexpr uint32_t kLongSteps = 12, kShortSteps = 2;

TEST_F(Preemption, AHigherPriorityPreemptsAndTheSaveIsReal) {
  const uint64_t low_ctx = context(QNN_PRIORITY_LOW), high_ctx = context(QNN_PRIORITY_HIGH);
  const htp::GraphInfo low = prepare(low_ctx, kLongSteps, "low");
  const htp::GraphInfo high = prepare(high_ctx, kShortSteps, "high");
  ASSERT_GT(low.vtcm_bytes, 0u);
  auto backup = std::make_shared<Buffer>(low.vtcm_bytes);
  std::memset(backup->base(), 0xAB, backup->size());
  uint64_t mem = 0;
  ASSERT_TRUE(rt_->register_memory(low_ctx, htp::MemoryKind::kVtcmBackup, backup, 0, backup->size(), &mem).ok());

  std::thread high_thread;
  std::atomic<bool> high_ok{false};
  htp::ExecResult high_result;
  uint8_t* saved_into = nullptr;
  observer_.boundary = [&](uint64_t g, size_t step) {
    if (g != low.graph_id || step != 5) return;
    high_thread = std::thread([&] {
      bool ok = false;
      high_result = run(high.graph_id, kShortSteps, &ok);
      high_ok = ok;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the high execute queues meanwhile
  };
  observer_.saved = [&](uint64_t g, uint8_t* b, size_t) {
    if (g == low.graph_id) saved_into = b;
  };
  bool low_ok = false;
  const htp::ExecResult r = run(low.graph_id, kLongSteps, &low_ok);
  high_thread.join();
  EXPECT_TRUE(low_ok);
  EXPECT_TRUE(high_ok.load());
  EXPECT_EQ(r.yields, 1u);
  EXPECT_EQ(high_result.yields, 0u);
  // Live at the boundary: t1 and the latest chain tensor.
  EXPECT_EQ(r.vtcm_saved_bytes, 2 * kBytes);
  EXPECT_EQ(saved_into, backup->base());  // the client's buffer, not an internal one
  size_t written = 0;
  for (size_t i = 0; i < backup->size(); ++i) written += backup->base()[i] != 0xAB;
  EXPECT_GT(written, 0u);
  EXPECT_TRUE(rt_->deregister_memory(mem).ok());
}

TEST_F(Preemption, TheRestoreReadsTheBackup) {
  const uint64_t low_ctx = context(QNN_PRIORITY_LOW), high_ctx = context(QNN_PRIORITY_HIGH);
  const htp::GraphInfo low = prepare(low_ctx, kLongSteps, "low");
  const htp::GraphInfo high = prepare(high_ctx, kShortSteps, "high");
  auto backup = std::make_shared<Buffer>(low.vtcm_bytes);
  uint64_t mem = 0;
  ASSERT_TRUE(rt_->register_memory(low_ctx, htp::MemoryKind::kVtcmBackup, backup, 0, backup->size(), &mem).ok());
  std::thread high_thread;
  observer_.boundary = [&](uint64_t g, size_t step) {
    if (g != low.graph_id || step != 5) return;
    high_thread = std::thread([&] {
      bool ok = false;
      run(high.graph_id, kShortSteps, &ok);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  };
  // Between save and restore the "client" scribbles over its backup buffer:
  // the preempted graph comes back with garbage, so its output must change.
  observer_.saved = [&](uint64_t g, uint8_t* b, size_t n) {
    if (g == low.graph_id) std::memset(b, 0x7F, n);
  };
  bool low_ok = true;
  const htp::ExecResult r = run(low.graph_id, kLongSteps, &low_ok);
  high_thread.join();
  EXPECT_EQ(r.yields, 1u);
  EXPECT_FALSE(low_ok);
}

TEST_F(Preemption, WithoutAnExternalBackupTheRuntimeUsesItsOwn) {
  const uint64_t low_ctx = context(QNN_PRIORITY_NORMAL), high_ctx = context(QNN_PRIORITY_CRITICAL);
  const htp::GraphInfo low = prepare(low_ctx, kLongSteps, "low");
  const htp::GraphInfo high = prepare(high_ctx, kShortSteps, "high");
  std::thread high_thread;
  std::atomic<bool> high_ok{false};
  observer_.boundary = [&](uint64_t g, size_t step) {
    if (g != low.graph_id || step != 3) return;
    high_thread = std::thread([&] {
      bool ok = false;
      run(high.graph_id, kShortSteps, &ok);
      high_ok = ok;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  };
  bool low_ok = false;
  const htp::ExecResult r = run(low.graph_id, kLongSteps, &low_ok);
  high_thread.join();
  EXPECT_EQ(r.yields, 1u);
  EXPECT_TRUE(low_ok);
  EXPECT_TRUE(high_ok.load());
}

TEST_F(Preemption, WaitersAreServedByPriorityThenInArrivalOrder) {
  // The running graph is CRITICAL_PLUS, so nobody preempts it; four executes
  // queue behind it in the order NORMAL a, HIGH b, NORMAL c, HIGH d.
  const uint64_t top_ctx = context(QNN_PRIORITY_CRITICAL_PLUS);
  const uint64_t normal_ctx = context(QNN_PRIORITY_NORMAL), high_ctx = context(QNN_PRIORITY_HIGH);
  const htp::GraphInfo top = prepare(top_ctx, kShortSteps, "top");
  const htp::GraphInfo a = prepare(normal_ctx, kShortSteps, "a"), c = prepare(normal_ctx, kShortSteps, "c");
  const htp::GraphInfo b = prepare(high_ctx, kShortSteps, "b"), d = prepare(high_ctx, kShortSteps, "d");
  std::mutex mu;
  std::vector<uint64_t> started;
  std::vector<std::thread> waiters;
  observer_.boundary = [&](uint64_t g, size_t step) {
    if (step != 1) return;
    {
      std::lock_guard l(mu);
      started.push_back(g);
    }
    if (g != top.graph_id) return;
    for (uint64_t w : {a.graph_id, b.graph_id, c.graph_id, d.graph_id}) {
      waiters.emplace_back([&, w] {
        bool ok = false;
        run(w, kShortSteps, &ok);
        EXPECT_TRUE(ok);
      });
      std::this_thread::sleep_for(std::chrono::milliseconds(40));  // fixes the arrival order
    }
  };
  bool ok = false;
  run(top.graph_id, kShortSteps, &ok);
  for (auto& t : waiters) t.join();
  EXPECT_TRUE(ok);
  EXPECT_EQ(started, (std::vector<uint64_t>{top.graph_id, b.graph_id, d.graph_id, a.graph_id, c.graph_id}));
}

TEST_F(Preemption, GraphsSharingASpillFillRegionNeverPreemptEachOther) {
  // One context, two graphs with their own priorities: the high one must
  // wait for the low one to finish, since both use the context's region.
  const uint64_t ctx = context(QNN_PRIORITY_NORMAL);
  const htp::GraphInfo low = prepare(ctx, kLongSteps, "low");
  const htp::GraphInfo high = prepare(ctx, kShortSteps, "high");
  ASSERT_TRUE(rt_->set_graph_priority(low.graph_id, QNN_PRIORITY_LOW).ok());
  ASSERT_TRUE(rt_->set_graph_priority(high.graph_id, QNN_PRIORITY_HIGH).ok());
  std::thread high_thread;
  std::atomic<bool> high_ok{false};
  observer_.boundary = [&](uint64_t g, size_t step) {
    if (g != low.graph_id || step != 3) return;
    high_thread = std::thread([&] {
      bool ok = false;
      run(high.graph_id, kShortSteps, &ok);
      high_ok = ok;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  };
  bool low_ok = false;
  const htp::ExecResult r = run(low.graph_id, kLongSteps, &low_ok);
  high_thread.join();
  EXPECT_EQ(r.yields, 0u);
  EXPECT_TRUE(low_ok);
  EXPECT_TRUE(high_ok.load());
}

TEST_F(Preemption, AContextPriorityChangeReachesItsGraphsButNotOnesWithTheirOwn) {
  const uint64_t low_ctx = context(QNN_PRIORITY_LOW), other_ctx = context(QNN_PRIORITY_NORMAL);
  const htp::GraphInfo low = prepare(low_ctx, kLongSteps, "low");
  const htp::GraphInfo other = prepare(other_ctx, kShortSteps, "other");
  // The low context is raised above the other: the other no longer preempts.
  ASSERT_TRUE(rt_->set_context_priority(low_ctx, QNN_PRIORITY_HIGH).ok());
  std::thread t;
  observer_.boundary = [&](uint64_t g, size_t step) {
    if (g != low.graph_id || step != 3) return;
    t = std::thread([&] {
      bool ok = false;
      run(other.graph_id, kShortSteps, &ok);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  };
  bool ok = false;
  EXPECT_EQ(run(low.graph_id, kLongSteps, &ok).yields, 0u);
  t.join();
  // A graph priority of its own wins over the context's.
  ASSERT_TRUE(rt_->set_graph_priority(low.graph_id, QNN_PRIORITY_LOW).ok());
  EXPECT_EQ(run(low.graph_id, kLongSteps, &ok).yields, 1u);
  t.join();
  EXPECT_FALSE(rt_->set_graph_priority(low.graph_id, 501).ok());
  EXPECT_FALSE(rt_->set_context_priority(low_ctx, htp::kInheritPriority).ok());
  EXPECT_FALSE(rt_->set_graph_priority(12345, QNN_PRIORITY_LOW).ok());
}

}  // namespace
