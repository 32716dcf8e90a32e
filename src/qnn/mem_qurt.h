// memRegister in the Non-RPC domain: buffers named by their 32-bit DSP (QURT)
// address — QNN_HTP_MEM_QURT (tensor memory), SHARED_SPILLFILL_BUFFER and
// SHARED_VTCMBACKUP_BUFFER — instead of by fd (docs/design.md §5, the
// tutorial's last section).
//
// The rules, each refused with one log line naming the value:
//   - [address, address + size) lies inside one live block of the DSP heap
//     (src/dsp_heap/): not a wild address, not a freed block, not past the
//     block's end. The block is pinned while QNN holds it, so a free() of it
//     is reported and deferred instead of corrupting a running graph.
//   - spill-fill / VTCM-backup buffers: on a context created from a binary
//     with DEFER_GRAPH_INIT, before contextFinalize; one of each per
//     context; at least MAX_SPILLFILL_BUFFER_SIZE / MAX_VTCMBACKUP_BUFFER_SIZE.
//   - a spill-fill or VTCM-backup buffer is shared between contexts only
//     when every one of them uses REGISTER_CONCURRENT_RESOURCE_SHARING and
//     all run at one priority (so none can preempt another while it holds
//     the buffers), and a buffer serves one role only.
#pragma once

#include <cstdint>
#include <memory>

#include "QnnMem.h"
#include "HTP/QnnHtpMem.h"
#include "htp/runtime.h"
#include "qnn/objects.h"

namespace openhtp::qnn {

// The dev of a MemHandle that names a QURT address (no fd has it).
inline constexpr uint64_t kQurtDev = ~0ull;

struct QurtPending {
  uint64_t address = 0;
  uint64_t size = 0;
  uint32_t htp_type = 0;
  FdUse use = FdUse::kTensor;
  htp::MemoryKind kind = htp::MemoryKind::kTensor;
};

const char* htp_mem_type_name(uint32_t type);  // "QNN_HTP_MEM_..." for messages

// Checks descriptor `i` (a QnnMemHtp_Descriptor_t of a QURT-address type;
// `described_bytes` what its memShape/dataType describe) against the
// per-context and heap rules; nothing is pinned or registered yet.
Qnn_ErrorHandle_t check_qurt_descriptor(const QnnMemHtp_Descriptor_t& h, uint64_t described_bytes, int i,
                                        Context& ctx, QurtPending* p);

// Checks the sharing rules against every other live registration, pins the
// block, registers it with the context's runtime, fills `m`'s QURT fields
// and records it — all under one lock. On failure nothing stays pinned.
Qnn_ErrorHandle_t register_qurt(Context& ctx, const QurtPending& p, int i, const std::shared_ptr<MemHandle>& m);

// The priority rule for a later QnnContext_setConfig: false (and one log
// line) when `ctx` shares a buffer with a context of another priority than
// `priority`.
bool qurt_priority_change_allowed(const Context& ctx, uint32_t priority);

}  // namespace openhtp::qnn
