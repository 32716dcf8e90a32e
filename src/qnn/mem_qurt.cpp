#include "qnn/mem_qurt.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <mutex>
#include <vector>

#include "qnn/context_ops.h"
#include "qnn/domain.h"
#include "qnn/logger.h"

namespace openhtp::qnn {
namespace {

using ull = unsigned long long;

// Every live QURT registration of the process, for the sharing rules. Entries
// die with their MemHandle (memDeRegister, contextFree) and are pruned here.
std::mutex& registry_mu() {
  static auto* m = new std::mutex;
  return *m;
}
std::vector<std::weak_ptr<MemHandle>>& registry() {
  static auto* r = new std::vector<std::weak_ptr<MemHandle>>;
  return *r;
}

bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
  const uint64_t a_end = a + std::max<uint64_t>(an, 1), b_end = b + std::max<uint64_t>(bn, 1);
  return a < b_end && b < a_end;
}

// The DSP heap block as a range the runtime can hold: unpinned when the
// runtime lets the registration go (deregistration or contextFree), which is
// when a deferred free() of the block finally happens.
class DspHeapRange final : public htp::MappedRange {
 public:
  DspHeapRange(uint64_t address, uint64_t size, uint64_t pin)
      : MappedRange(reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(address)), static_cast<size_t>(size)), pin_(pin) {}
  ~DspHeapRange() override { dsp_heap_unpin(pin_); }

 private:
  uint64_t pin_;
};

// The sharing rules against every other live registration; registry_mu() held.
Qnn_ErrorHandle_t check_sharing(const Context& ctx, uint32_t priority, const QurtPending& p, int i) {
  auto& reg = registry();
  reg.erase(std::remove_if(reg.begin(), reg.end(), [](const auto& w) { return w.expired(); }), reg.end());
  for (const auto& w : reg) {
    auto other = w.lock();
    if (!other || !overlaps(p.address, p.size, other->offset, other->bytes)) continue;
    const char* what = htp_mem_type_name(p.htp_type);
    if (other->context_handle == ctx.handle) {
      if (other->use != p.use) {
        QNN_LOG_ERROR("memRegister: descriptor %d: %s at QURT address 0x%08llx overlaps this context's %s at "
                      "0x%08llx; a buffer serves one role",
                      i, what, static_cast<ull>(p.address), fd_use_name(other->use), static_cast<ull>(other->offset));
        return QNN_MEM_ERROR_INVALID_ARGUMENT;
      }
      continue;  // the same role twice on one context: the one-handle rules catch it
    }
    if (other->use != p.use) {
      QNN_LOG_ERROR("memRegister: descriptor %d: %s at QURT address 0x%08llx is already registered by context 0x%llx "
                    "as %s; a buffer serves one role",
                    i, what, static_cast<ull>(p.address), static_cast<ull>(other->context_handle),
                    fd_use_name(other->use));
      return QNN_MEM_ERROR_INVALID_ARGUMENT;
    }
    if (p.use == FdUse::kTensor) continue;  // tensor memory may be shared freely, as with fds
    auto other_ctx = other->context.lock();
    if (!other_ctx) continue;
    bool other_shares;
    uint32_t other_priority;
    {
      std::lock_guard lock(other_ctx->mu);
      other_shares = other_ctx->concurrent_sharing;
      other_priority = other_ctx->priority;
    }
    if (!ctx.concurrent_sharing || !other_shares) {
      QNN_LOG_ERROR("memRegister: descriptor %d: %s at QURT address 0x%08llx is already context 0x%llx's; contexts "
                    "share a spill-fill or VTCM-backup buffer only when each uses "
                    "QNN_HTP_CONTEXT_CONFIG_OPTION_REGISTER_CONCURRENT_RESOURCE_SHARING (%s does not)",
                    i, what, static_cast<ull>(p.address), static_cast<ull>(other->context_handle),
                    ctx.concurrent_sharing ? "that context" : "this context");
      return QNN_MEM_ERROR_INVALID_ARGUMENT;
    }
    if (other_priority != priority) {
      QNN_LOG_ERROR("memRegister: descriptor %d: %s at QURT address 0x%08llx is shared with context 0x%llx at priority "
                    "%u, but this context has priority %u; all contexts sharing buffers must have the same priority",
                    i, what, static_cast<ull>(p.address), static_cast<ull>(other->context_handle), other_priority,
                    priority);
      return QNN_COMMON_ERROR_OPERATION_NOT_PERMITTED;
    }
  }
  return QNN_SUCCESS;
}

}  // namespace

const char* htp_mem_type_name(uint32_t t) {
  switch (t) {
    case QNN_HTP_MEM_QURT: return "QNN_HTP_MEM_QURT";
    case QNN_HTP_MEM_SHARED_BUFFER: return "QNN_HTP_MEM_SHARED_BUFFER";
    case QNN_HTP_MEM_WEIGHTS_BUFFER: return "QNN_HTP_MEM_WEIGHTS_BUFFER";
    case QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER: return "QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER";
    case QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER: return "QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER";
    default: return "unknown QnnHtpMem_Type_t";
  }
}

Qnn_ErrorHandle_t check_qurt_descriptor(const QnnMemHtp_Descriptor_t& h, uint64_t described_bytes, int i,
                                        Context& ctx, QurtPending* p) {
  p->htp_type = static_cast<uint32_t>(h.type);
  p->size = h.size;
  const char* what = htp_mem_type_name(p->htp_type);
  switch (h.type) {
    case QNN_HTP_MEM_QURT:
      p->address = h.qurtAddress;
      p->use = FdUse::kTensor;
      p->kind = htp::MemoryKind::kTensor;
      break;
    case QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER:
      p->address = h.sharedSpillfillBufferQurtAddress;
      p->use = FdUse::kSpillFill;
      p->kind = htp::MemoryKind::kSpillFill;
      break;
    case QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER:
      p->address = h.sharedVTCMBackupBufferQurtAddress;
      p->use = FdUse::kVtcmBackup;
      p->kind = htp::MemoryKind::kVtcmBackup;
      break;
    default:
      QNN_LOG_ERROR("memRegister: descriptor %d: %s is not a buffer given by QURT address", i, what);
      return QNN_MEM_ERROR_UNSUPPORTED_MEMTYPE;
  }
  if (p->address == 0) {
    QNN_LOG_ERROR("memRegister: descriptor %d: %s has QURT address 0", i, what);
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  if (p->use == FdUse::kTensor) {
    if (p->size == 0 || described_bytes == 0 || described_bytes > p->size) {
      QNN_LOG_ERROR("memRegister: descriptor %d: QNN_HTP_MEM_QURT size %llu must be > 0 and hold the %llu bytes its "
                    "memShape/dataType describe",
                    i, static_cast<ull>(p->size), static_cast<ull>(described_bytes));
      return described_bytes == 0 ? QNN_MEM_ERROR_INVALID_SHAPE : QNN_MEM_ERROR_INVALID_ARGUMENT;
    }
  } else {
    // An external buffer of a deferred context, as in the FastRPC domain.
    std::lock_guard lock(ctx.mu);
    if (Qnn_ErrorHandle_t e = check_takes_external_buffer(ctx, i, what); e != QNN_SUCCESS) return e;
    const bool spill = p->use == FdUse::kSpillFill;
    if (spill ? ctx.has_qurt_spill_fill : ctx.has_vtcm_backup) {
      QNN_LOG_ERROR("memRegister: descriptor %d: the context already has a %s (one per context)", i, what);
      return QNN_MEM_ERROR_ALREADY_REGISTERED;
    }
    uint64_t required = 0;
    for (const auto& g : ctx.pending->graphs) required = std::max(required, spill ? g.spill_fill_bytes : g.vtcm_bytes);
    if (p->size < required) {
      QNN_LOG_ERROR("memRegister: descriptor %d: %s size %llu is below the context's %s %llu", i, what,
                    static_cast<ull>(p->size),
                    spill ? "MAX_SPILLFILL_BUFFER_SIZE" : "MAX_VTCMBACKUP_BUFFER_SIZE", static_cast<ull>(required));
      return QNN_MEM_ERROR_INVALID_ARGUMENT;
    }
  }
  const HeapBlock b = dsp_heap_lookup(p->address, std::max<uint64_t>(p->size, 1));
  if (b.result != HeapRange::kLive) {
    char where[96] = "";
    if (b.size > 0) std::snprintf(where, sizeof where, " (block 0x%08llx, %llu bytes)", static_cast<ull>(b.start),
                                  static_cast<ull>(b.size));
    QNN_LOG_ERROR("memRegister: descriptor %d: %s at QURT address 0x%08llx, %llu bytes, is not inside one live DSP "
                  "heap allocation: found %s%s",
                  i, what, static_cast<ull>(p->address), static_cast<ull>(p->size), heap_range_name(b.result), where);
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  return QNN_SUCCESS;
}

Qnn_ErrorHandle_t register_qurt(Context& ctx, const QurtPending& p, int i, const std::shared_ptr<MemHandle>& m) {
  uint32_t priority;
  {
    std::lock_guard lock(ctx.mu);
    priority = ctx.priority;
  }
  // Check and record under one lock: two contexts registering at once must
  // not both pass the sharing rules.
  std::lock_guard lock(registry_mu());
  if (Qnn_ErrorHandle_t e = check_sharing(ctx, priority, p, i); e != QNN_SUCCESS) return e;
  char owner[96];
  std::snprintf(owner, sizeof owner, "context 0x%llx, %s", static_cast<ull>(ctx.handle), htp_mem_type_name(p.htp_type));
  uint64_t pin = 0;
  HeapBlock found;
  if (!dsp_heap_pin(p.address, std::max<uint64_t>(p.size, 1), owner, &pin, &found)) {
    QNN_LOG_ERROR("memRegister: descriptor %d: %s at QURT address 0x%08llx, %llu bytes, could not be pinned: found %s",
                  i, htp_mem_type_name(p.htp_type), static_cast<ull>(p.address), static_cast<ull>(p.size),
                  heap_range_name(found.result));
    return QNN_MEM_ERROR_INVALID_ARGUMENT;
  }
  // From here the range owns the pin: dropping it unpins.
  auto range = std::make_shared<DspHeapRange>(p.address, p.size, pin);
  if (Qnn_ErrorHandle_t e = ctx.stub->mem_register_range(ctx.remote_id, std::move(range), p.kind, &m->remote_id);
      e != QNN_SUCCESS) {
    return e;
  }
  m->qurt = true;
  m->dev = kQurtDev;
  m->ino = 0;
  m->offset = p.address;
  m->bytes = p.size;
  m->use = p.use;
  m->htp_type = p.htp_type;
  registry().push_back(m);
  return QNN_SUCCESS;
}

bool qurt_priority_change_allowed(const Context& ctx, uint32_t priority) {
  std::lock_guard lock(registry_mu());
  for (const auto& mine_w : registry()) {
    auto mine = mine_w.lock();
    if (!mine || mine->context_handle != ctx.handle || mine->use == FdUse::kTensor) continue;
    for (const auto& w : registry()) {
      auto other = w.lock();
      if (!other || other->context_handle == ctx.handle || other->use != mine->use ||
          !overlaps(mine->offset, mine->bytes, other->offset, other->bytes)) {
        continue;
      }
      auto other_ctx = other->context.lock();
      if (!other_ctx) continue;
      uint32_t other_priority;
      {
        std::lock_guard l(other_ctx->mu);
        other_priority = other_ctx->priority;
      }
      if (other_priority != priority) {
        QNN_LOG_ERROR("contextSetConfig: context 0x%llx shares its %s with context 0x%llx at priority %u; priority %u "
                      "would split the group (all contexts sharing buffers must have the same priority)",
                      static_cast<ull>(ctx.handle), fd_use_name(mine->use), static_cast<ull>(other->context_handle),
                      other_priority, priority);
        return false;
      }
    }
  }
  return true;
}

}  // namespace openhtp::qnn
