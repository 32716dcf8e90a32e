// Opening a shared library the way a client application does: by its plain
// name first, so the system's search rules (RUNPATH, LD_LIBRARY_PATH, the
// loader cache) decide, then next to this program as <exe dir>/../lib/<name>,
// which is where the build tree and the install put openhtp's libraries.
#pragma once

#include <string>

namespace examples {

// Returns the dlopen handle (RTLD_NOW | RTLD_LOCAL) or nullptr. On success
// `opened_path` names the file really loaded; on failure `error` says what
// was tried and why each attempt failed.
void* open_shared_library(const std::string& name, std::string* opened_path, std::string* error);

}  // namespace examples
