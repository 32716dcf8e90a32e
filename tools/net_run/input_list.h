// qnn-net-run's input list (reference §1.3): one inference per line, its
// files either bare paths in graph-input order or "name:=path" pairs, separated
// by whitespace. A line starting with '#' names the outputs to write (the
// others are not written); a line starting with '%' (SNPE's output-name line)
// and empty lines are skipped. "__" in place of a list skips a graph.
#pragma once

#include <string>
#include <vector>

namespace openhtp::netrun {

struct InputEntry {
  std::string name;  // empty: positional
  std::string path;
};

struct InputLine {
  int line_number = 0;  // in the file, for messages
  std::vector<InputEntry> entries;
  bool named = false;  // every entry has a name
};

struct InputList {
  std::string path;
  bool skip = false;                      // "__"
  std::vector<std::string> keep_outputs;  // from '#' lines; empty: all
  std::vector<InputLine> lines;
};

// The literal QNN uses in --input_list for "do not run this graph".
constexpr const char* kSkipGraph = "__";

// False + *error naming the file and line: unreadable file, a line mixing
// named and positional entries, an empty name or path, a list with no line.
bool read_input_list(const std::string& path, InputList* out, std::string* error);

}  // namespace openhtp::netrun
