#include "common/file_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>

namespace openhtp {
namespace {

bool refuse_kind(mode_t mode, std::string* error) {
  if (S_ISREG(mode)) return false;
  *error = std::string("is ") + file_kind_name(mode) + ", not a regular file";
  return true;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

template <typename Buffer>
bool read_regular(const std::string& path, Buffer* out, std::string* error) {
  out->clear();
  // stat before open: opening some devices acts on them (a watchdog, a tape),
  // and opening a FIFO waits for a writer.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    *error = std::string("cannot open for reading: ") + std::strerror(errno);
    return false;
  }
  if (refuse_kind(st.st_mode, error)) return false;
  // O_NONBLOCK: should the path become a FIFO between stat and open, open
  // returns at once and the fstat below refuses it.
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (fd.get() < 0) {
    *error = std::string("cannot open for reading: ") + std::strerror(errno);
    return false;
  }
  if (::fstat(fd.get(), &st) != 0) {
    *error = std::string("read error: ") + std::strerror(errno);
    return false;
  }
  if (refuse_kind(st.st_mode, error)) return false;
  const auto size = static_cast<uint64_t>(st.st_size);
  try {
    out->resize(static_cast<size_t>(size));
  } catch (const std::bad_alloc&) {
    *error = "is too large to hold in memory (" + std::to_string(size) + " bytes)";
    return false;
  } catch (const std::length_error&) {
    *error = "is too large to hold in memory (" + std::to_string(size) + " bytes)";
    return false;
  }
  // By its size: a file that shrinks meanwhile is refused, one that grows is
  // read as it was when opened.
  size_t done = 0;
  while (done < out->size()) {
    const ssize_t n = ::read(fd.get(), out->data() + done, out->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = std::string("read error: ") + std::strerror(errno);
      return false;
    }
    if (n == 0) {
      *error = "read error: the file shrank from " + std::to_string(size) + " to " + std::to_string(done) +
               " bytes while being read";
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

const char* file_kind_name(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISREG(mode)) return "a regular file";
  return "an unknown kind of file";
}

bool read_file_bytes(const std::string& path, std::vector<uint8_t>* out, std::string* error, EmptyFile empty) {
  if (!read_regular(path, out, error)) return false;
  if (out->empty() && empty == EmptyFile::kRefuse) {
    *error = "file is empty";
    return false;
  }
  return true;
}

bool read_file_text(const std::string& path, std::string* out, std::string* error) {
  return read_regular(path, out, error);
}

}  // namespace openhtp
