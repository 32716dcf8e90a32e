// openhtp-dsp-run and libopenhtp_dsp_malloc.so end to end: heap_probe runs
// as a real child process and reports every pointer it got; all of them
// must be 32-bit addresses in the DSP heap. A run without the launcher is
// the control that shows the check can fail.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sstream>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

constexpr uint64_t k4GiB = uint64_t{1} << 32;

struct ChildResult {
  int exit_code = -1;  // -1: did not exit normally
  std::string out;
  std::string err;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs argv with this process's environment minus the variables the heap
// reads, plus extra_env ("NAME=value").
ChildResult run_child(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {}) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    if (kv.rfind("LD_PRELOAD=", 0) == 0 || kv.rfind("OPENHTP_DSP_HEAP_MB=", 0) == 0) continue;
    env.push_back(kv);
  }
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp;
  for (auto& kv : env) envp.push_back(kv.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = argv;
  std::vector<char*> argp;
  for (auto& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);

  std::string dir = ::testing::TempDir();
  std::string out_path = dir + "dsp_heap_out_" + std::to_string(::getpid());
  std::string err_path = dir + "dsp_heap_err_" + std::to_string(::getpid());
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ChildResult result;
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "cannot spawn " << argv[0];
    return result;
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return result;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The probe's "ptr <what> <address>" lines.
std::map<std::string, uint64_t> pointers_of(const std::string& out) {
  std::map<std::string, uint64_t> ptrs;
  for (const std::string& line : lines_of(out)) {
    std::istringstream in(line);
    std::string tag, what, address;
    if (in >> tag >> what >> address && tag == "ptr") ptrs[what] = std::stoull(address, nullptr, 16);
  }
  return ptrs;
}

// The value after "<key> " on the probe's output line starting with it.
std::string value_of(const std::string& out, const std::string& key) {
  for (const std::string& line : lines_of(out)) {
    if (line.rfind(key + " ", 0) == 0) return line.substr(key.size() + 1);
  }
  return "(no " + key + " line)";
}

TEST(DspRun, EveryAllocationOfTheProgramIsA32BitHeapAddress) {
  ChildResult r = run_child({OPENHTP_DSP_RUN, OPENHTP_HEAP_PROBE, "pointers"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(value_of(r.out, "present"), "1");
  EXPECT_EQ(value_of(r.out, "usable-ok"), "1");
  uint64_t base = 0, size = 0;
  ASSERT_EQ(std::sscanf(value_of(r.out, "region").c_str(), "%lx %lx", &base, &size), 2) << r.out;
  EXPECT_EQ(size, uint64_t{2048} << 20) << "the default region";
  auto ptrs = pointers_of(r.out);
  ASSERT_EQ(ptrs.size(), 31u) << r.out;
  for (const auto& [what, p] : ptrs) {
    EXPECT_LT(p, k4GiB) << what;
    EXPECT_GE(p, base) << what;
    EXPECT_LT(p, base + size) << what;
  }
  EXPECT_EQ(ptrs["posix_memalign-4096"] % 4096, 0u);
  EXPECT_EQ(ptrs["aligned_alloc-256"] % 256, 0u);
  EXPECT_EQ(ptrs["aligned-new-64"] % 64, 0u);
  EXPECT_EQ(ptrs["aligned-new-65536"] % 65536, 0u);
  EXPECT_EQ(r.err, "") << "nothing to report";
}

TEST(DspRun, WithoutTheLauncherTheSameProgramHasNoDspHeap) {
  ChildResult r = run_child({OPENHTP_HEAP_PROBE, "pointers"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(value_of(r.out, "present"), "0");
  auto ptrs = pointers_of(r.out);
  ASSERT_EQ(ptrs.size(), 31u);
  EXPECT_GE(ptrs["malloc"], k4GiB) << "glibc's heap is above 4 GiB here, so the check above can fail";
}

TEST(DspRun, HeapMbSetsTheRegionSize) {
  ChildResult r = run_child({OPENHTP_DSP_RUN, "--heap-mb", "256", "--", OPENHTP_HEAP_PROBE, "pointers"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  uint64_t base = 0, size = 0;
  ASSERT_EQ(std::sscanf(value_of(r.out, "region").c_str(), "%lx %lx", &base, &size), 2);
  EXPECT_EQ(size, uint64_t{256} << 20);
}

TEST(DspRun, KeepsEarlierPreloadEntriesBehindItsOwn) {
  ChildResult r = run_child({OPENHTP_DSP_RUN, OPENHTP_HEAP_PROBE, "pointers"}, {std::string("LD_PRELOAD=") + OPENHTP_DSP_HEAP_LIB});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string preload = value_of(r.out, "preload");
  std::string suffix = std::string(":") + OPENHTP_DSP_HEAP_LIB;
  EXPECT_NE(preload.find("libopenhtp_dsp_malloc.so"), std::string::npos) << preload;
  ASSERT_GE(preload.size(), suffix.size());
  EXPECT_EQ(preload.substr(preload.size() - suffix.size()), suffix) << preload;
}

TEST(DspRun, FreeOfAPinnedBlockIsOneLineOnTheProgramsStderr) {
  ChildResult r = run_child({OPENHTP_DSP_RUN, OPENHTP_HEAP_PROBE, "pinned-free"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(value_of(r.out, "after-free"), "still here");
  EXPECT_EQ(value_of(r.out, "unpinned"), "1");
  auto err = lines_of(r.err);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_EQ(err[0].rfind("openhtp-dsp-heap: free(0x", 0), 0u) << err[0];
  EXPECT_NE(err[0].find("still registered with QNN (context 0x3, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER): kept until "
                        "QNN deregisters it"),
            std::string::npos)
      << err[0];
}

TEST(DspRun, AMissingProgramExits127WithOneLine) {
  ChildResult r = run_child({OPENHTP_DSP_RUN, "/nonexistent/program", "arg"});
  EXPECT_EQ(r.exit_code, 127);
  auto err = lines_of(r.err);
  ASSERT_EQ(err.size(), 1u) << r.err;
  EXPECT_NE(err[0].find("cannot run /nonexistent/program"), std::string::npos) << err[0];
}

TEST(DspRun, UsageOnNoProgramOrHelp) {
  ChildResult none = run_child({OPENHTP_DSP_RUN});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("usage: openhtp-dsp-run"), std::string::npos);
  ChildResult help = run_child({OPENHTP_DSP_RUN, "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: openhtp-dsp-run"), std::string::npos);
  ChildResult bad = run_child({OPENHTP_DSP_RUN, "--heap-mb", "0", OPENHTP_HEAP_PROBE});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--heap-mb"), std::string::npos);
}

}  // namespace
