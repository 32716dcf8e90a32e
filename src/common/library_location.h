// Where openhtp's own files are, found from the file a running library or
// executable was loaded from — the way a QNN SDK's libraries find each other.
//
// A client may load libQnnHtp.so from the SDK, through a symlink next to its
// binary, or from a copy it made (build scripts copy the backend libraries
// beside their executables). The places searched, in order:
//   1. the directory of the loaded file with symlinks resolved (the SDK
//      itself, even when the client holds a symlink);
//   2. that directory as the loader saw it (a copy's own folder, where the
//      client may have copied the rest as well);
//   3. $QNN_SDK_ROOT/lib/x86_64-linux-clang and $QNN_SDK_ROOT/lib (what QNN
//      users already set);
//   4. the install prefix this build was configured with
//      (<prefix>/lib/x86_64-linux-clang).
// Nothing here is cached: the answer depends on the environment, and it is
// asked once per object that needs it (a stub, a DSP session).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace openhtp {

// The directory of the file that holds `address` (a function of the caller's
// library or executable), as the loader saw it and with symlinks resolved
// (equal when there is no link). Empty strings when it cannot be told.
struct LoadedFrom {
  std::string as_loaded;
  std::string resolved;
};
LoadedFrom loaded_from(const void* address);

// The library directories searched for openhtp's files, in the order above,
// without duplicates. `address` is in a library (lib/ or
// lib/x86_64-linux-clang/), so every entry is a library directory.
std::vector<std::string> sdk_search_dirs(const void* address);

// The first "<dir>/<relative>" that exists among sdk_search_dirs(address);
// empty when none does. `searched` (optional) gets the dirs, joined by ", ",
// for the error line.
std::string find_sdk_file(const void* address, std::string_view relative, std::string* searched = nullptr);

}  // namespace openhtp
