// Writing a tool's output file whole or not at all.
//
// An OutputFile writes to a temporary file beside the destination
// (".<name>.tmp-<pid>", same directory, so the rename cannot cross file
// systems) and renames it over the destination only on commit(): a full disk,
// a write error or a tool error part-way leaves the destination as it was,
// with no truncated file and no temporary behind (the destructor removes it).
//
// A destination that exists and is not a regular file (/dev/stdout, a FIFO,
// /dev/full) is written in place: renaming over a device is not what a user
// giving one means. A symbolic link is followed, so the link stays and its
// target is replaced. Nothing here throws; errors name the path and the
// reason.
#pragma once

#include <cstddef>
#include <string>

namespace openhtp::tools {

class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile();  // an uncommitted temporary is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // False + *error "<path>: cannot open for writing: <reason>".
  bool open(const std::string& path, std::string* error);
  // False + *error "<path>: write error: <reason>" (e.g. No space left on device).
  bool write(const void* data, size_t size, std::string* error);
  bool write(const std::string& text, std::string* error) { return write(text.data(), text.size(), error); }
  // Closes and renames into place; false + *error when either fails (the
  // temporary is removed then).
  bool commit(std::string* error);

  const std::string& path() const { return path_; }

 private:
  void discard();

  std::string path_;  // as the caller named it, for messages
  std::string final_, temp_;  // temp_ empty: written in place
  int fd_ = -1;
};

// One buffer into `path` through an OutputFile.
bool write_file_whole(const std::string& path, const void* data, size_t size, std::string* error);
inline bool write_file_whole(const std::string& path, const std::string& text, std::string* error) {
  return write_file_whole(path, text.data(), text.size(), error);
}

// `text` to standard output, flushed; false + *error "cannot write to
// standard output: <reason>" (a closed pipe, /dev/full).
bool write_stdout(const std::string& text, std::string* error);

}  // namespace openhtp::tools
