// Names from a context binary (graph names, tensor names) used as file or
// folder names. They are untrusted input: a graph named "../../x" or ".."
// must not put a tool's output outside the folder the user gave, and two
// names that map to the same file must not overwrite each other.
#pragma once

#include <set>
#include <string>

namespace openhtp::tools {

// `name` as one path component: anything but [A-Za-z0-9._-] becomes '_' (a
// name may hold '/', spaces or control characters), "" / "." / ".." gain a
// leading '_' so that they cannot name the folder itself or its parent.
// Ordinary names ("tiny_fc_relu", "my.graph-2") are unchanged.
std::string safe_file_name(const std::string& name);

// Hands out names unique within one folder: the first request for a name
// gets it unchanged, a later one for the same name gets "<stem>-<k><ext>"
// for the smallest k >= 1 not yet handed out, `ext` kept at the end (so
// "out_a.raw" twice gives "out_a.raw" then "out_a-1.raw").
class UniqueNames {
 public:
  std::string take(const std::string& stem, const std::string& ext = "");

 private:
  std::set<std::string> used_;
};

}  // namespace openhtp::tools
