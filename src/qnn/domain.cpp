#include "qnn/domain.h"

#include <dlfcn.h>

#include "dsp_heap/dsp_heap.h"  // types only: the functions are looked up, not linked
#include "qnn/logger.h"

namespace openhtp::qnn {
namespace {

// The DSP heap's C API (src/dsp_heap/dsp_heap.h), looked up rather than
// linked: libQnnHtp must load in the FastRPC domain, where there is no heap.
struct HeapApi {
  int (*present)() = nullptr;
  decltype(&openhtp_dsp_heap_lookup) lookup = nullptr;
  decltype(&openhtp_dsp_heap_pin) pin = nullptr;
  decltype(&openhtp_dsp_heap_unpin) unpin = nullptr;
  decltype(&openhtp_dsp_heap_set_report) set_report = nullptr;
};

void report_to_qnn_log(const char* line) { QNN_LOG_ERROR("%s", line); }

const HeapApi& heap_api() {
  static const HeapApi api = [] {
    HeapApi a;
    a.present = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openhtp_dsp_heap_present"));
    if (a.present == nullptr || a.present() != 1) return HeapApi{};
    a.lookup = reinterpret_cast<decltype(a.lookup)>(dlsym(RTLD_DEFAULT, "openhtp_dsp_heap_lookup"));
    a.pin = reinterpret_cast<decltype(a.pin)>(dlsym(RTLD_DEFAULT, "openhtp_dsp_heap_pin"));
    a.unpin = reinterpret_cast<decltype(a.unpin)>(dlsym(RTLD_DEFAULT, "openhtp_dsp_heap_unpin"));
    a.set_report = reinterpret_cast<decltype(a.set_report)>(dlsym(RTLD_DEFAULT, "openhtp_dsp_heap_set_report"));
    if (a.lookup == nullptr || a.pin == nullptr || a.unpin == nullptr) return HeapApi{};
    if (a.set_report != nullptr) a.set_report(&report_to_qnn_log);
    return a;
  }();
  return api;
}

HeapRange from_raw(int r) {
  switch (r) {
    case OPENHTP_DSP_HEAP_LIVE: return HeapRange::kLive;
    case OPENHTP_DSP_HEAP_FREE: return HeapRange::kFree;
    case OPENHTP_DSP_HEAP_TOO_SMALL: return HeapRange::kTooSmall;
    case OPENHTP_DSP_HEAP_FREED_PENDING: return HeapRange::kFreedPending;
    default: return HeapRange::kOutside;
  }
}

}  // namespace

Domain process_domain() { return heap_api().present != nullptr ? Domain::kNonRpc : Domain::kFastRpc; }

const char* domain_name(Domain d) { return d == Domain::kNonRpc ? "Non-RPC" : "FastRPC"; }

const char* heap_range_name(HeapRange r) {
  switch (r) {
    case HeapRange::kLive: return "a live block";
    case HeapRange::kFree: return "free heap space";
    case HeapRange::kTooSmall: return "a live block that ends before the range does";
    case HeapRange::kFreedPending: return "a block already freed by the program";
    case HeapRange::kOutside: return "no DSP heap memory";
    case HeapRange::kNoHeap: return "no DSP heap in this process";
  }
  return "?";
}

HeapBlock dsp_heap_lookup(uint64_t addr, uint64_t size) {
  const HeapApi& api = heap_api();
  if (api.lookup == nullptr) return {};
  openhtp_dsp_heap_block_t raw{};
  const int r = api.lookup(addr, size, &raw);
  return {from_raw(r), raw.start, raw.size};
}

bool dsp_heap_pin(uint64_t addr, uint64_t size, const char* owner, uint64_t* pin_id, HeapBlock* found) {
  const HeapApi& api = heap_api();
  *found = dsp_heap_lookup(addr, size);
  if (api.pin == nullptr || found->result != HeapRange::kLive) return false;
  if (api.pin(addr, size, owner, pin_id) != OPENHTP_DSP_HEAP_LIVE) {
    *found = dsp_heap_lookup(addr, size);  // changed under us (freed by another thread)
    if (found->result == HeapRange::kLive) found->result = HeapRange::kOutside;
    return false;
  }
  return true;
}

void dsp_heap_unpin(uint64_t pin_id) {
  if (const HeapApi& api = heap_api(); api.unpin != nullptr) api.unpin(pin_id);
}

}  // namespace openhtp::qnn
