// Reading a whole input file: every tool's (context binaries, input lists,
// raw input tensors, config files, profiling logs) and the ONNX importer's
// (input lists, calibration and overrides files, TensorProto files).
//
// Only regular files are read: a directory, a character device (/dev/zero),
// a FIFO or a socket is refused by name before anything is read from it, so
// no tool hangs on a pipe, grows without bound on a device, or throws from
// inside the standard library on a directory. A regular file is read by its
// size. Nothing here throws: every failure is a reason in *error, without the
// path (the caller names the file, e.g. "<path>: <reason>").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace openhtp {

// What a file of `mode` is, in the words of an error line: "a directory",
// "a character device", "a block device", "a FIFO (named pipe)", "a socket",
// "a regular file" (else "an unknown kind of file"). Also what memRegister
// says of an fd that is not memory.
const char* file_kind_name(unsigned mode);

enum class EmptyFile { kRefuse, kAllow };

// False + *error, one of:
//   "cannot open for reading: <strerror>"
//   "is a directory, not a regular file" (character device, block device,
//     FIFO (named pipe), socket likewise)
//   "read error: <strerror>"
//   "is too large to hold in memory (<n> bytes)"
//   "file is empty"                      (only with EmptyFile::kRefuse)
bool read_file_bytes(const std::string& path, std::vector<uint8_t>* out, std::string* error,
                     EmptyFile empty = EmptyFile::kRefuse);

// The same, as text (JSON, input lists); an empty file is allowed.
bool read_file_text(const std::string& path, std::string* out, std::string* error);

}  // namespace openhtp
