#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace openhtp::tools {

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
}

bool OutputFile::open(const std::string& path, std::string* error) {
  discard();
  path_ = path;
  final_ = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    *error = path + ": cannot open for writing: it is a directory";
    return false;
  }
  const bool in_place = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (in_place) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_TRUNC);
  } else {
    // Through a symlink to its target, so that the rename keeps the link.
    if (char resolved[PATH_MAX]; ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode) &&
                                 ::realpath(path.c_str(), resolved) != nullptr) {
      final_ = resolved;
    }
    const size_t slash = final_.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : final_.substr(0, slash + 1);
    const std::string name = slash == std::string::npos ? final_ : final_.substr(slash + 1);
    temp_ = dir + "." + name + ".tmp-" + std::to_string(::getpid());
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CLOEXEC | O_CREAT | O_TRUNC | O_EXCL, 0666);
    if (fd_ < 0 && errno == EEXIST) {  // a leftover of a killed run with our pid
      ::unlink(temp_.c_str());
      fd_ = ::open(temp_.c_str(), O_WRONLY | O_CLOEXEC | O_CREAT | O_TRUNC | O_EXCL, 0666);
    }
  }
  if (fd_ < 0) {
    *error = path + ": cannot open for writing: " + std::strerror(errno);
    temp_.clear();
    return false;
  }
  return true;
}

bool OutputFile::write(const void* data, size_t size, std::string* error) {
  if (fd_ < 0) {
    *error = path_ + ": write error: not open";
    return false;
  }
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = path_ + ": write error: " + std::strerror(n < 0 ? errno : EIO);
      discard();
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool OutputFile::commit(std::string* error) {
  if (fd_ < 0) {
    *error = path_ + ": write error: not open";
    return false;
  }
  const int fd = fd_;
  fd_ = -1;
  // close() reports what a network or quota-limited file system deferred.
  if (::close(fd) != 0) {
    *error = path_ + ": write error: " + std::strerror(errno);
    discard();
    return false;
  }
  if (!temp_.empty() && ::rename(temp_.c_str(), final_.c_str()) != 0) {
    *error = path_ + ": cannot replace it: " + std::strerror(errno);
    discard();
    return false;
  }
  temp_.clear();
  return true;
}

bool write_file_whole(const std::string& path, const void* data, size_t size, std::string* error) {
  OutputFile f;
  return f.open(path, error) && f.write(data, size, error) && f.commit(error);
}

bool write_stdout(const std::string& text, std::string* error) {
  // fwrite of a large block bypasses the buffer, so a failure shows in its
  // count, not in the fflush after it.
  const size_t n = std::fwrite(text.data(), 1, text.size(), stdout);
  if (n != text.size() || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    *error = std::string("cannot write to standard output: ") + std::strerror(errno != 0 ? errno : EIO);
    return false;
  }
  return true;
}

}  // namespace openhtp::tools
