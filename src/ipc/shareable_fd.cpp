#include "ipc/shareable_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace openhtp::ipc {
namespace {

constexpr long kTmpfsMagic = 0x01021994;   // memfd and POSIX shm live here
constexpr long kDmaBufMagic = 0x444d4142;  // "DMAB"

}  // namespace

FdMemory shareable_memory_of(int fd) {
  struct statfs sfs {};
  if (fd < 0 || fstatfs(fd, &sfs) != 0) return FdMemory::kNotShareable;
  if (sfs.f_type == kTmpfsMagic) return FdMemory::kTmpfs;
  if (sfs.f_type == kDmaBufMagic) return FdMemory::kDmaBuf;
  return FdMemory::kNotShareable;
}

bool seal_against_shrinking(int fd, FdMemory kind) {
  if (kind == FdMemory::kDmaBuf) return true;
  if (kind != FdMemory::kTmpfs) return false;
  const int seals = fcntl(fd, F_GET_SEALS);
  if (seals < 0) return false;  // not a memfd (POSIX shm): no seals at all
  if ((seals & F_SEAL_SHRINK) != 0) return true;
  return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0;  // fails once F_SEAL_SEAL is set (no MFD_ALLOW_SEALING)
}

uint64_t shareable_size_of(int fd, FdMemory kind) {
  if (kind == FdMemory::kDmaBuf) {
    const off_t here = lseek(fd, 0, SEEK_CUR);
    const off_t end = lseek(fd, 0, SEEK_END);
    if (here >= 0) lseek(fd, here, SEEK_SET);
    return end > 0 ? static_cast<uint64_t>(end) : 0;
  }
  struct stat st {};
  if (kind == FdMemory::kNotShareable || fstat(fd, &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_size);
}

}  // namespace openhtp::ipc
