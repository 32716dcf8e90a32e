// A small skel module for testing libcdsprpc and the DSP process without the
// HTP runtime. Loaded by the DSP process via
// "file:///libopenhtp_test_skel.so?openhtp_test_skel_handle_invoke&_dom=cdsp".
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

#include "remote.h"
#include "test_skel_methods.h"

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {
int g_open_count = 0;
}

EXPORT int openhtp_test_open(const char*, remote_handle64* h) {
  *h = 0x5eed0000u + static_cast<remote_handle64>(++g_open_count);
  return 0;
}

EXPORT int openhtp_test_close(remote_handle64) { return 0; }

EXPORT int openhtp_test_skel_handle_invoke(remote_handle64 h, uint32_t sc, remote_arg* pra) {
  if ((h & 0xffff0000u) != 0x5eed0000u) return AEE_EBADHANDLE;
  const uint32_t in = REMOTE_SCALARS_INBUFS(sc), out = REMOTE_SCALARS_OUTBUFS(sc);
  const uint32_t hin = REMOTE_SCALARS_INHANDLES(sc);
  switch (REMOTE_SCALARS_METHOD(sc)) {
    case kTestEcho: {  // in0 -> out0; out1 = TestEchoInfo
      if (in != 1 || out != 2 || pra[2].buf.nLen != sizeof(TestEchoInfo)) return AEE_EBADPARM;
      if (pra[1].buf.nLen < pra[0].buf.nLen) return AEE_EBADPARM;
      std::memcpy(pra[1].buf.pv, pra[0].buf.pv, pra[0].buf.nLen);
      TestEchoInfo info{reinterpret_cast<uint64_t>(pra[0].buf.pv), static_cast<int32_t>(getpid()), 0};
      std::memcpy(pra[2].buf.pv, &info, sizeof info);
      return 0;
    }
    case kTestFill: {  // in0 = byte; out0 filled
      if (in != 1 || out != 1 || pra[0].buf.nLen != 1) return AEE_EBADPARM;
      std::memset(pra[1].buf.pv, *static_cast<uint8_t*>(pra[0].buf.pv), pra[1].buf.nLen);
      return 0;
    }
    case kTestDmaSum: {  // hin0 = dma; in0 = u64 length; out0 = u64 sum; then adds 1 to every byte
      if (in != 1 || out != 1 || hin != 1) return AEE_EBADPARM;
      uint64_t len;
      std::memcpy(&len, pra[0].buf.pv, sizeof len);
      const remote_dma_handle& d = pra[2].dma;
      struct stat st {};
      if (fstat(d.fd, &st) != 0 || d.offset + len > static_cast<uint64_t>(st.st_size)) return AEE_EBADPARM;
      auto* p = static_cast<uint8_t*>(mmap(nullptr, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, d.fd, 0));
      if (p == MAP_FAILED) return AEE_EFAILED;
      uint64_t sum = 0;
      for (uint64_t i = 0; i < len; ++i) {
        sum += p[d.offset + i];
        p[d.offset + i] = static_cast<uint8_t>(p[d.offset + i] + 1);
      }
      munmap(p, st.st_size);
      std::memcpy(pra[1].buf.pv, &sum, sizeof sum);
      return 0;
    }
    case kTestSleep: {  // in0 = u32 ms; then out0 (optional) filled with 0x5A
      uint32_t ms;
      std::memcpy(&ms, pra[0].buf.pv, sizeof ms);
      timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000};
      nanosleep(&ts, nullptr);
      if (out >= 1) std::memset(pra[in].buf.pv, 0x5A, pra[in].buf.nLen);
      return 0;
    }
    case kTestCrash:
      std::abort();
    case kTestPing:
      return 0;
    case kTestProcessFlags: {
      if (in != 0 || out != 1 || pra[0].buf.nLen != sizeof(TestProcessFlags)) return AEE_EBADPARM;
      const TestProcessFlags f{prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)};
      std::memcpy(pra[0].buf.pv, &f, sizeof f);
      return 0;
    }
    default:
      return AEE_EUNSUPPORTED;
  }
}
