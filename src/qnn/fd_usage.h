// Which kinds of registration each buffer (by fd identity) has, process-wide.
// An fd registered as an external weights or spill-fill buffer may not be
// registered for another kind (the tutorial's rule), and a weights buffer
// belongs to one context only. Counts are dropped when a MemHandle dies —
// by memDeRegister or by contextFree — so a recycled inode starts clean.
#pragma once

#include <cstdint>

namespace openhtp::qnn {

// kVtcmBackup exists only as a QURT-address registration (Non-RPC), which
// has no fd and is never counted here; it names the handle's role.
enum class FdUse { kTensor = 0, kWeights = 1, kSpillFill = 2, kVtcmBackup = 3 };

struct FdUsage {
  uint32_t tensor = 0, weights = 0, spill_fill = 0;
};

FdUsage fd_usage(uint64_t dev, uint64_t ino);
void fd_usage_add(uint64_t dev, uint64_t ino, FdUse use);
void fd_usage_remove(uint64_t dev, uint64_t ino, FdUse use);
const char* fd_use_name(FdUse use);

}  // namespace openhtp::qnn
