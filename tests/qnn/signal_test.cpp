// QnnSignal in both doors (the suite runs over FastRPC and in-process): a
// timeout or an abort stops an execute — while it waits for the HTP or at
// its next op boundary —, a finalize and a contextCreateFromBinaryWithSignal,
// each with its TIMED_OUT / ABORTED code, well before the call would have
// ended, and the session stays usable. The signal's own rules (one call at a
// time, setConfig/free only while idle, trigger only while in use) are
// tested by breaking them.
#include <atomic>
#include <chrono>
#include <thread>

#include "QnnSignal.h"
#include "rpcmem.h"
#include "chain_graph.h"
#include "qnn_test_util.h"

using namespace qnntest;

namespace {

constexpr uint32_t kN = 1 << 16;
constexpr uint32_t kLongOps = 400;

using Clock = std::chrono::steady_clock;

class Signals : public QnnFixture {
 protected:
  Qnn_SignalHandle_t signal(uint64_t timeout_us) {
    QnnSignal_Config_t c = QNN_SIGNAL_CONFIG_INIT;
    c.option = QNN_SIGNAL_CONFIG_OPTION_TIMEOUT;
    c.timeoutDurationUs = timeout_us;
    const QnnSignal_Config_t* cfg[] = {&c, nullptr};
    Qnn_SignalHandle_t s = nullptr;
    EXPECT_EQ(api().signalCreate(backend_, timeout_us > 0 ? cfg : nullptr, &s), QNN_SUCCESS);
    return s;
  }
  Qnn_GraphHandle_t finalized(Qnn_ContextHandle_t ctx, const char* name, uint32_t ops) {
    Qnn_GraphHandle_t g = graphs_.build(ctx, name, ops);
    EXPECT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
    return g;
  }
  // How long an unbounded execute of `g` takes (the best of three).
  Clock::duration full_run(Qnn_GraphHandle_t g) {
    Clock::duration best = Clock::duration::max();
    for (int i = 0; i < 3; ++i) {
      bool ok = false;
      const auto t0 = Clock::now();
      EXPECT_EQ(graphs_.run(g, &ok), QNN_SUCCESS);
      best = std::min(best, Clock::now() - t0);
      EXPECT_TRUE(ok);
    }
    return best;
  }

  // An rpcmem output buffer registered on the test's context: the output of
  // an execute is written there in place, in both doors.
  struct OutBuffer {
    float* data = nullptr;
    Qnn_MemHandle_t handle = nullptr;
  };
  OutBuffer out_buffer() {
    OutBuffer b;
    b.data = static_cast<float*>(rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, kN * 4));
    Qnn_MemDescriptor_t d = QNN_MEM_DESCRIPTOR_INIT;
    uint32_t dims[] = {1, kN};
    d.memShape = {2, dims, nullptr};
    d.dataType = QNN_DATATYPE_FLOAT_32;
    d.memType = QNN_MEM_TYPE_ION;
    d.ionInfo.fd = rpcmem_to_fd(b.data);
    EXPECT_EQ(api().memRegister(context_, &d, 1, &b.handle), QNN_SUCCESS);
    return b;
  }

  ChainGraphs graphs_{kN};
};

TEST_F(Signals, TheSignalRulesAreEnforced) {
  Qnn_SignalHandle_t s = signal(0);
  EXPECT_EQ(api().signalTrigger(s), QNN_SIGNAL_ERROR_SIGNAL_IDLE);  // no call uses it
  QnnSignal_Config_t c = QNN_SIGNAL_CONFIG_INIT;
  c.option = QNN_SIGNAL_CONFIG_OPTION_TIMEOUT;
  c.timeoutDurationUs = 1000;
  const QnnSignal_Config_t* cfg[] = {&c, nullptr};
  EXPECT_EQ(api().signalSetConfig(s, cfg), QNN_SUCCESS);
  c.option = QNN_SIGNAL_CONFIG_OPTION_CUSTOM;
  EXPECT_EQ(api().signalSetConfig(s, cfg), QNN_SIGNAL_ERROR_UNSUPPORTED);
  Qnn_SignalHandle_t none = nullptr;
  EXPECT_EQ(api().signalCreate(nullptr, nullptr, &none), QNN_SIGNAL_ERROR_INVALID_HANDLE);

  // In use by a long execute: setConfig, free and a second call are refused.
  // On a loaded machine the execute may end before this thread looks, so a
  // few attempts are allowed; one must show both refusals.
  Qnn_GraphHandle_t g = finalized(context_, "long", kLongOps);
  Qnn_SignalHandle_t busy = signal(0);
  bool ok = false;
  bool shown = false;
  Qnn_ErrorHandle_t freed = QNN_SUCCESS;
  for (int attempt = 0; attempt < 20 && !shown; ++attempt) {
    std::atomic<bool> done{false};
    std::thread t([&] {
      bool run_ok = false;
      EXPECT_EQ(graphs_.run(g, &run_ok, nullptr, busy), QNN_SUCCESS);
      done = true;
    });
    bool seen_in_use = false;  // setConfig says when the execute holds the signal
    while (!done && !seen_in_use) seen_in_use = api().signalSetConfig(busy, cfg) == QNN_SIGNAL_ERROR_SIGNAL_IN_USE;
    Qnn_ErrorHandle_t second = QNN_SUCCESS;
    if (seen_in_use) {
      second = graphs_.run(g, &ok, nullptr, busy);
      freed = api().signalFree(busy);
    }
    t.join();
    EXPECT_TRUE(second == QNN_GRAPH_ERROR_SIGNAL_IN_USE || second == QNN_SUCCESS) << second;
    EXPECT_TRUE(freed == QNN_SIGNAL_ERROR_SIGNAL_IN_USE || freed == QNN_SUCCESS) << freed;
    if (freed == QNN_SUCCESS && seen_in_use) {  // freed after all: the execute had just ended
      busy = signal(0);
      continue;
    }
    shown = seen_in_use && second == QNN_GRAPH_ERROR_SIGNAL_IN_USE && freed == QNN_SIGNAL_ERROR_SIGNAL_IN_USE;
  }
  EXPECT_TRUE(shown);
  EXPECT_EQ(api().signalFree(busy), QNN_SUCCESS);
  EXPECT_EQ(api().signalFree(s), QNN_SUCCESS);
  EXPECT_EQ(api().signalFree(s), QNN_SIGNAL_ERROR_INVALID_HANDLE);
  EXPECT_EQ(graphs_.run(g, &ok, nullptr, s), QNN_SIGNAL_ERROR_INVALID_HANDLE);  // a freed signal
}

TEST_F(Signals, ATimeoutStopsARunningExecuteAndTheGraphStaysUsable) {
  Qnn_GraphHandle_t g = finalized(context_, "long", kLongOps);
  const auto full = full_run(g);
  const uint64_t timeout_us =
      std::max<uint64_t>(200, std::chrono::duration_cast<std::chrono::microseconds>(full).count() / 10);
  Qnn_SignalHandle_t s = signal(timeout_us);
  bool ok = true, untouched = false;
  OutBuffer out = out_buffer();
  EXPECT_EQ(graphs_.run(g, &ok, nullptr, s, &untouched, out.handle, out.data), QNN_GRAPH_ERROR_TIMED_OUT);
  EXPECT_TRUE(untouched) << "the graph's last op ran: the execute was not stopped at an op boundary";
  EXPECT_TRUE(LogCapture::instance().has_line_with({"timed out"}));
  // The next execute, unbounded, is whole and right.
  EXPECT_EQ(graphs_.run(g, &ok), QNN_SUCCESS);
  EXPECT_TRUE(ok);
  // And the signal can bound another call.
  EXPECT_EQ(graphs_.run(g, &ok, nullptr, s), QNN_GRAPH_ERROR_TIMED_OUT);
  api().signalFree(s);
}

TEST_F(Signals, AnAbortStopsARunningExecute) {
  Qnn_GraphHandle_t g = finalized(context_, "long", kLongOps);
  Qnn_SignalHandle_t s = signal(0);
  OutBuffer out = out_buffer();
  bool aborted = false;
  for (int attempt = 0; attempt < 10 && !aborted; ++attempt) {
    std::thread trigger([&] {
      // Trigger once the execute holds the signal.
      for (int i = 0; i < 100000 && api().signalTrigger(s) != QNN_SUCCESS; ++i) std::this_thread::yield();
    });
    bool ok = true, untouched = false;
    const Qnn_ErrorHandle_t e = graphs_.run(g, &ok, nullptr, s, &untouched, out.handle, out.data);
    trigger.join();
    if (e == QNN_GRAPH_ERROR_ABORTED) {
      aborted = true;
      EXPECT_TRUE(untouched) << "the graph's last op ran after the abort";
    } else {
      EXPECT_EQ(e, QNN_SUCCESS);  // the trigger came too late: the execute won
    }
  }
  EXPECT_TRUE(aborted);
  bool ok = false;
  EXPECT_EQ(graphs_.run(g, &ok), QNN_SUCCESS);
  EXPECT_TRUE(ok);
  api().signalFree(s);
}

TEST_F(Signals, ATimeoutEndsTheWaitForABusyHtp) {
  Qnn_ContextHandle_t other = nullptr;
  ASSERT_EQ(api().contextCreate(backend_, nullptr, nullptr, &other), QNN_SUCCESS);
  // Long enough (tens of ms) that the tiny execute, submitted a quarter of
  // the way in, finds it running even on a loaded machine.
  Qnn_GraphHandle_t busy = finalized(context_, "busy", 4 * kLongOps);
  // One op, so no op boundary: a timeout can only end its wait for the HTP.
  Qnn_GraphHandle_t tiny = finalized(other, "tiny", 1);
  const auto full = full_run(busy);
  Qnn_SignalHandle_t s = signal(std::max<uint64_t>(
      100, std::chrono::duration_cast<std::chrono::microseconds>(full).count() / 40));
  bool timed_out = false;
  for (int attempt = 0; attempt < 20 && !timed_out; ++attempt) {
    std::thread t([&] {
      bool ok = false;
      EXPECT_EQ(graphs_.run(busy, &ok), QNN_SUCCESS);
      EXPECT_TRUE(ok);
    });
    std::this_thread::sleep_for(full / 4);
    bool ok = false;
    const Qnn_ErrorHandle_t e = graphs_.run(tiny, &ok, nullptr, s);
    t.join();
    timed_out = e == QNN_GRAPH_ERROR_TIMED_OUT;
    if (!timed_out) {
      EXPECT_EQ(e, QNN_SUCCESS);
    }
  }
  EXPECT_TRUE(timed_out);
  EXPECT_TRUE(LogCapture::instance().has_line_with({"timed out while waiting for the HTP"}));
  bool ok = false;
  EXPECT_EQ(graphs_.run(tiny, &ok), QNN_SUCCESS);
  EXPECT_TRUE(ok);
  api().signalFree(s);
  api().contextFree(other, nullptr);
}

TEST_F(Signals, ATimeoutStopsAFinalizeWhichMayBeRetried) {
  Qnn_GraphHandle_t g = graphs_.build(context_, "big", 3000);
  Qnn_SignalHandle_t s = signal(1);  // 1 µs: over before the first node
  EXPECT_EQ(api().graphFinalize(g, nullptr, s), QNN_GRAPH_ERROR_TIMED_OUT);
  bool ok = false;
  EXPECT_EQ(graphs_.run(g, &ok), QNN_GRAPH_ERROR_GRAPH_NOT_FINALIZED);
  EXPECT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
  EXPECT_EQ(graphs_.run(g, &ok), QNN_SUCCESS);
  EXPECT_TRUE(ok);
  api().signalFree(s);
}

TEST_F(Signals, ATimeoutStopsACreateFromBinary) {
  Qnn_GraphHandle_t g = graphs_.build(context_, "big", 3000);
  ASSERT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
  Qnn_ContextBinarySize_t size = 0;
  ASSERT_EQ(api().contextGetBinarySize(context_, &size), QNN_SUCCESS);
  std::vector<uint8_t> bin(size);
  ASSERT_EQ(api().contextGetBinary(context_, bin.data(), size, &size), QNN_SUCCESS);
  Qnn_SignalHandle_t s = signal(1);
  Qnn_ContextHandle_t ctx = nullptr;
  EXPECT_EQ(api().contextCreateFromBinaryWithSignal(backend_, nullptr, nullptr, bin.data(), bin.size(), &ctx, nullptr,
                                                    s),
            QNN_CONTEXT_ERROR_TIMED_OUT);
  EXPECT_EQ(ctx, nullptr);
  // Unbounded, the same binary loads.
  ASSERT_EQ(api().contextCreateFromBinaryWithSignal(backend_, nullptr, nullptr, bin.data(), bin.size(), &ctx, nullptr,
                                                    nullptr),
            QNN_SUCCESS);
  api().contextFree(ctx, nullptr);
  api().signalFree(s);
}

}  // namespace
