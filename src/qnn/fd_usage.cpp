#include "qnn/fd_usage.h"

#include <map>
#include <mutex>

#include "qnn/cdsprpc_link.h"

namespace openhtp::qnn {
namespace {

std::mutex& mu() {
  static auto* m = new std::mutex;
  return *m;
}
std::map<std::pair<uint64_t, uint64_t>, FdUsage>& table() {
  static auto* t = new std::map<std::pair<uint64_t, uint64_t>, FdUsage>;
  return *t;
}
uint32_t& slot(FdUsage& u, FdUse use) {
  return use == FdUse::kWeights ? u.weights : use == FdUse::kSpillFill ? u.spill_fill : u.tensor;
}

}  // namespace

FdUsage fd_usage(uint64_t dev, uint64_t ino) {
  std::lock_guard lock(mu());
  auto it = table().find({dev, ino});
  return it == table().end() ? FdUsage{} : it->second;
}

// Each count also goes to libcdsprpc, whose rpcmem_free then warns when a
// handle still names the allocation it frees (openhtp/fastrpc_ext.h).
void fd_usage_add(uint64_t dev, uint64_t ino, FdUse use) {
  {
    std::lock_guard lock(mu());
    ++slot(table()[{dev, ino}], use);
  }
  cdsprpc().note_qnn_registration(dev, ino, 1);
}

void fd_usage_remove(uint64_t dev, uint64_t ino, FdUse use) {
  {
    std::lock_guard lock(mu());
    auto it = table().find({dev, ino});
    if (it == table().end()) return;
    uint32_t& n = slot(it->second, use);
    if (n == 0) return;
    --n;
    if (it->second.tensor == 0 && it->second.weights == 0 && it->second.spill_fill == 0) table().erase(it);
  }
  cdsprpc().note_qnn_registration(dev, ino, -1);
}

const char* fd_use_name(FdUse use) {
  switch (use) {
    case FdUse::kTensor: return "tensor (ION/DMA_BUF/SHARED_BUFFER)";
    case FdUse::kWeights: return "QNN_HTP_MEM_WEIGHTS_BUFFER";
    case FdUse::kSpillFill: return "QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER";
    case FdUse::kVtcmBackup: return "QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER";
  }
  return "?";
}

}  // namespace openhtp::qnn
