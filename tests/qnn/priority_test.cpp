// Context and graph priorities through the QNN API, in both doors (the suite
// runs over FastRPC and in-process): a high-priority execute submitted while
// a long low-priority one runs preempts it at an op boundary, both outputs
// stay right, and the low execute's profile reports the yield and the VTCM it
// saved ("Num times yield occurred"). The deterministic tests of the
// mechanism itself are tests/htp/preemption_test.cpp; here the timing is
// real, so the test retries until the high execute lands inside the low one.
#include <atomic>
#include <chrono>
#include <map>
#include <thread>

#include "chain_graph.h"
#include "qnn_test_util.h"

using namespace qnntest;

namespace {

constexpr uint32_t kN = 1 << 16;  // 256 KiB per tensor: each op takes tens of µs
// Long enough to be overlapped when the CPUs are busy: with both threads on
// one core (ctest -j2 beside other tests), the scheduler may let the long
// execute run to its end before the woken high-priority thread gets the
// core. At 200 ops both loops below failed every attempt with a spinning
// process on each CPU (and once each in two clean-clone runs in a day); at
// 600, ten repetitions passed under the same load.
constexpr uint32_t kLongOps = 600;

class Priority : public QnnFixture {
 protected:
  Qnn_ContextHandle_t context(Qnn_Priority_t p) {
    QnnContext_Config_t c = QNN_CONTEXT_CONFIG_INIT;
    c.option = QNN_CONTEXT_CONFIG_OPTION_PRIORITY;
    c.priority = p;
    const QnnContext_Config_t* cfg[] = {&c, nullptr};
    Qnn_ContextHandle_t ctx = nullptr;
    EXPECT_EQ(api().contextCreate(backend_, nullptr, cfg, &ctx), QNN_SUCCESS);
    return ctx;
  }
  Qnn_GraphHandle_t chain(Qnn_ContextHandle_t ctx, const char* name, uint32_t ops) {
    Qnn_GraphHandle_t g = graphs_.build(ctx, name, ops);
    EXPECT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
    return g;
  }

  // Executes with a BASIC profile; returns the profile's sub-events by name.
  std::map<std::string, uint64_t> run(Qnn_GraphHandle_t g, bool* correct) {
    Qnn_ProfileHandle_t prof = nullptr;
    EXPECT_EQ(api().profileCreate(backend_, QNN_PROFILE_LEVEL_BASIC, &prof), QNN_SUCCESS);
    EXPECT_EQ(graphs_.run(g, correct, prof), QNN_SUCCESS);
    std::map<std::string, uint64_t> events;
    const QnnProfile_EventId_t* top = nullptr;
    uint32_t n = 0;
    if (api().profileGetEvents(prof, &top, &n) == QNN_SUCCESS && n == 1) {
      const QnnProfile_EventId_t* subs = nullptr;
      uint32_t nsub = 0;
      api().profileGetSubEvents(top[0], &subs, &nsub);
      for (uint32_t i = 0; i < nsub; ++i) {
        QnnProfile_EventData_t d{};
        if (api().profileGetEventData(subs[i], &d) == QNN_SUCCESS && d.identifier != nullptr) {
          events[d.identifier] = d.value;
        }
      }
    }
    api().profileFree(prof);
    return events;
  }

  ChainGraphs graphs_{kN};
};

TEST_F(Priority, TheProfileReportsYieldsEvenWhenThereAreNone) {
  Qnn_ContextHandle_t ctx = context(QNN_PRIORITY_NORMAL);
  Qnn_GraphHandle_t g = chain(ctx, "alone", 4);
  bool ok = false;
  auto ev = run(g, &ok);
  EXPECT_TRUE(ok);
  ASSERT_EQ(ev.count("Num times yield occurred"), 1u);
  EXPECT_EQ(ev["Num times yield occurred"], 0u);
  EXPECT_EQ(ev.count("VTCM saved on yield"), 1u);
  api().contextFree(ctx, nullptr);
}

// How long to wait, on attempt `attempt`, between starting the long execute
// on its thread and the other one: 0, then 100 us doubling to 12.8 ms, round
// and round. The long one must have reached the HTP and still be running;
// where it gets there depends on the build (under TSan its call takes
// milliseconds to arrive: delays up to 550 us never overlapped it in 30
// attempts, once in a clean-clone run) and on the host.
std::chrono::microseconds start_delay(int attempt) {
  const int k = attempt % 9;
  return k == 0 ? std::chrono::microseconds(0) : std::chrono::microseconds(100) * (1 << (k - 1));
}

TEST_F(Priority, AHighPriorityExecutePreemptsALongLowOne) {
  Qnn_ContextHandle_t low_ctx = context(QNN_PRIORITY_LOW), high_ctx = context(QNN_PRIORITY_HIGH);
  Qnn_GraphHandle_t low = chain(low_ctx, "low", kLongOps);
  Qnn_GraphHandle_t high = chain(high_ctx, "high", 2);
  bool preempted = false;
  for (int attempt = 0; attempt < 30 && !preempted; ++attempt) {
    std::atomic<bool> low_started{false};
    std::map<std::string, uint64_t> low_events;
    bool low_ok = false, high_ok = false;
    std::thread t([&] {
      low_started = true;
      low_events = run(low, &low_ok);
    });
    while (!low_started) std::this_thread::yield();
    std::this_thread::sleep_for(start_delay(attempt));
    run(high, &high_ok);
    t.join();
    EXPECT_TRUE(low_ok);
    EXPECT_TRUE(high_ok);
    if (low_events["Num times yield occurred"] > 0) {
      preempted = true;
      EXPECT_GT(low_events["VTCM saved on yield"], 0u);  // the chain's live tensor
      // Paused while the high execute ran: a wait of its own in the profile.
      EXPECT_GT(low_events["preempted time"], 0u);
    }
  }
  EXPECT_TRUE(preempted) << "the high-priority execute never landed inside the low one in 30 attempts";
  // A graph's own PRIORITY overrides its context's: raised above the high
  // context, the long graph is no longer preempted.
  QnnGraph_Config_t gp = QNN_GRAPH_CONFIG_INIT;
  gp.option = QNN_GRAPH_CONFIG_OPTION_PRIORITY;
  gp.priority = QNN_PRIORITY_CRITICAL;
  const QnnGraph_Config_t* gcfg[] = {&gp, nullptr};
  ASSERT_EQ(api().graphSetConfig(low, gcfg), QNN_SUCCESS);
  // The two must overlap for one to wait: started as the loop above starts
  // them (the long graph may take only a few hundred microseconds), until
  // one attempt overlaps.
  bool queued = false;
  for (int attempt = 0; attempt < 30 && !queued; ++attempt) {
    std::map<std::string, uint64_t> low_events, high_events;
    bool low_ok = false, high_ok = false;
    std::atomic<bool> low_started{false};
    std::thread t([&] {
      low_started = true;
      low_events = run(low, &low_ok);
    });
    while (!low_started) std::this_thread::yield();
    std::this_thread::sleep_for(start_delay(attempt));
    high_events = run(high, &high_ok);
    t.join();
    EXPECT_TRUE(low_ok && high_ok);
    EXPECT_EQ(low_events["Num times yield occurred"], 0u);
    EXPECT_EQ(low_events["preempted time"], 0u);
    // Two executes on one HTP at once: whichever asked second waited for the
    // other ("queue wait time"; the high one usually, the long one when its
    // call reached the DSP late, as under a sanitizer), unless they never
    // overlapped.
    ASSERT_EQ(high_events.count("queue wait time"), 1u);
    ASSERT_EQ(low_events.count("queue wait time"), 1u);
    queued = queued || high_events["queue wait time"] > 0 || low_events["queue wait time"] > 0;
  }
  EXPECT_TRUE(queued) << "in 30 attempts neither execute ever waited for the other";
  gp.priority = static_cast<Qnn_Priority_t>(501);
  EXPECT_EQ(api().graphSetConfig(low, gcfg), QNN_GRAPH_ERROR_INVALID_ARGUMENT);
  api().contextFree(low_ctx, nullptr);
  api().contextFree(high_ctx, nullptr);
}

}  // namespace
