// Running a tool as a user does, from a shell in a directory, with what it
// printed kept apart: stdout and stderr go to files there and are read back.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

struct RunResult {
  int status = -1;  // the exit status; -1 when it did not exit
  std::string out;  // stdout
  std::string err;  // stderr
};

// A shell word (paths here have no single quotes).
inline std::string quote(const std::string& s) { return "'" + s + "'"; }

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `tool args`, run in `dir`.
inline RunResult run_tool(const std::string& tool, const std::string& args, const std::filesystem::path& dir) {
  RunResult r;
  const std::filesystem::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = "cd " + quote(dir.string()) + " && " + quote(tool) + " " + args + " >" +
                          quote(out.string()) + " 2>" + quote(err.string());
  const int st = std::system(cmd.c_str());
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}
