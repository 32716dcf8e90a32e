// Method numbers of the test skel (tests/fastrpc/test_skel.cpp).
#pragma once
#include <cstdint>

enum TestSkelMethod : uint32_t {
  kTestEcho = 0,
  kTestFill = 1,
  kTestDmaSum = 2,
  kTestSleep = 3,
  kTestCrash = 4,
  kTestPing = 5,
  kTestProcessFlags = 6,  // out0 = TestProcessFlags of the DSP process
};

struct TestProcessFlags {
  int32_t dumpable;       // prctl(PR_GET_DUMPABLE)
  int32_t no_new_privs;   // prctl(PR_GET_NO_NEW_PRIVS)
};

struct TestEchoInfo {
  uint64_t dsp_address;  // where the DSP saw the input buffer
  int32_t dsp_pid;
  int32_t reserved;
};

inline constexpr const char* kTestSkelUri =
    "file:///libopenhtp_test_skel.so?openhtp_test_skel_handle_invoke&_modver=1.0&_dom=cdsp";
