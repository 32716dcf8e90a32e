// Which of the tutorial's two use cases this process is in (docs/design.md §2):
//   - FastRPC: QNN is called on the CPU and the HTP runtime runs in the DSP
//     process, reached through libcdsprpc;
//   - Non-RPC: the program itself runs "on the DSP" (started by
//     openhtp-dsp-run, or linked with the DSP heap): QNN calls the HTP runtime
//     in this very process, and buffers are named by their 32-bit DSP (QURT)
//     address in the DSP heap (src/dsp_heap/).
// The domain is a fact of the process, decided once: the DSP heap is present
// or it is not. It decides the buffer-type support table of memRegister and
// which door the backend's runtime is reached through.
#pragma once

#include <cstdint>

namespace openhtp::qnn {

enum class Domain { kFastRpc, kNonRpc };

Domain process_domain();
const char* domain_name(Domain d);  // "FastRPC" / "Non-RPC"

// What the DSP heap can say about a range (src/dsp_heap/dsp_heap.h),
// resolved once with dlsym in the Non-RPC domain.
enum class HeapRange { kLive, kFree, kTooSmall, kFreedPending, kOutside, kNoHeap };
struct HeapBlock {
  HeapRange result = HeapRange::kNoHeap;
  uint64_t start = 0;
  uint64_t size = 0;
};
HeapBlock dsp_heap_lookup(uint64_t addr, uint64_t size);
const char* heap_range_name(HeapRange r);
// Pins the live block holding [addr, addr + size) under `owner` (free() of it
// is then reported and deferred); false with *found set when it is not live.
bool dsp_heap_pin(uint64_t addr, uint64_t size, const char* owner, uint64_t* pin_id, HeapBlock* found);
void dsp_heap_unpin(uint64_t pin_id);

}  // namespace openhtp::qnn
