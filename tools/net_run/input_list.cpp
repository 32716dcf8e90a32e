#include "input_list.h"

#include <sstream>

#include "common/file_bytes.h"

namespace openhtp::netrun {
namespace {

std::vector<std::string> tokens(const std::string& line, bool commas_too) {
  std::string s = line;
  if (commas_too) {
    for (char& c : s) {
      if (c == ',') c = ' ';
    }
  }
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

}  // namespace

bool read_input_list(const std::string& path, InputList* out, std::string* error) {
  out->path = path;
  if (path == kSkipGraph) {
    out->skip = true;
    return true;
  }
  std::string whole;
  if (!openhtp::read_file_text(path, &whole, error)) {
    *error = "input list " + path + ": " + *error;
    return false;
  }
  std::istringstream in(whole);
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    if (!text.empty() && text.back() == '\r') text.pop_back();  // lists written on Windows
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (text[first] == '#') {
      for (const std::string& name : tokens(text.substr(first + 1), true)) out->keep_outputs.push_back(name);
      continue;
    }
    if (text[first] == '%') continue;
    InputLine line;
    line.line_number = number;
    size_t named = 0;
    for (const std::string& t : tokens(text, false)) {
      InputEntry e;
      if (const size_t sep = t.find(":="); sep != std::string::npos) {
        e.name = t.substr(0, sep);
        e.path = t.substr(sep + 2);
        if (e.name.empty() || e.path.empty()) {
          *error = "input list " + path + " line " + std::to_string(number) + ": '" + t +
                   "' needs a name and a path around ':='";
          return false;
        }
        ++named;
      } else {
        e.path = t;
      }
      line.entries.push_back(std::move(e));
    }
    if (named != 0 && named != line.entries.size()) {
      *error = "input list " + path + " line " + std::to_string(number) +
               ": mixes name:=path entries with bare paths";
      return false;
    }
    line.named = named != 0;
    out->lines.push_back(std::move(line));
  }
  if (out->lines.empty()) {
    *error = "input list " + path + " has no input line";
    return false;
  }
  return true;
}

}  // namespace openhtp::netrun
