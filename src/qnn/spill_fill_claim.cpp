#include "qnn/spill_fill_claim.h"

#include <map>
#include <mutex>

#include "qnn/logger.h"

namespace openhtp::qnn {
namespace {

std::mutex& mu() {
  static auto* m = new std::mutex;
  return *m;
}
std::map<std::pair<uint64_t, uint64_t>, std::string>& holders() {
  static auto* h = new std::map<std::pair<uint64_t, uint64_t>, std::string>;
  return *h;
}

}  // namespace

bool SpillFillClaim::claim_registered(Context& ctx, const std::string& graph) {
  uint64_t dev, ino;
  int fd;
  {
    std::lock_guard lock(ctx.mu);
    dev = ctx.spill_fill_dev;
    ino = ctx.spill_fill_ino;
    fd = ctx.spill_fill_fd;
  }
  std::lock_guard lock(mu());
  auto [it, inserted] = holders().emplace(std::make_pair(dev, ino), graph);
  if (!inserted) {
    QNN_LOG_ERROR("graphExecute '%s': graph '%s' is executing with the same external spill-fill buffer (fd %d); "
                  "graphs sharing a spill-fill buffer must execute one at a time",
                  graph.c_str(), it->second.c_str(), fd);
    return false;
  }
  held_ = true;
  dev_ = dev;
  ino_ = ino;
  return true;
}

void SpillFillClaim::release() {
  std::lock_guard lock(mu());
  holders().erase({dev_, ino_});
}

}  // namespace openhtp::qnn
