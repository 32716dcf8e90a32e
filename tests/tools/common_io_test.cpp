// The tools' shared file code (tools/common): the reader that refuses what
// is not a regular file, the writer that leaves a file whole or not at all,
// safe and unique file names, the streaming profiling-log writer; and each
// tool that reads a file refusing a directory, /dev/zero and a FIFO with one
// line, exit 1, no hang (the tools run under `timeout`).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/file_bytes.h"
#include "common/file_names.h"
#include "common/output_file.h"
#include "common/profile_log.h"
#include "scratch_dir.h"
#include "tool_run.h"

namespace fs = std::filesystem;
using namespace openhtp::tools;
using openhtp::EmptyFile;
using openhtp::read_file_bytes;
using openhtp::read_file_text;

namespace {

class CommonIo : public ScratchDirTest {
 protected:
  CommonIo() : ScratchDirTest("openhtp_common_io") {}
  void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
};

TEST_F(CommonIo, ReaderReadsRegularFilesWhole) {
  std::string text(100000, 'x');
  text[99999] = 'y';
  write(dir_ / "f", text);
  std::string got, error;
  ASSERT_TRUE(read_file_text((dir_ / "f").string(), &got, &error)) << error;
  EXPECT_EQ(got, text);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(read_file_bytes((dir_ / "f").string(), &bytes, &error)) << error;
  EXPECT_EQ(bytes.size(), text.size());
  write(dir_ / "empty", "");
  EXPECT_FALSE(read_file_bytes((dir_ / "empty").string(), &bytes, &error));
  EXPECT_EQ(error, "file is empty");
  EXPECT_TRUE(read_file_bytes((dir_ / "empty").string(), &bytes, &error, EmptyFile::kAllow));
  EXPECT_FALSE(read_file_bytes((dir_ / "absent").string(), &bytes, &error));
  EXPECT_EQ(error, "cannot open for reading: No such file or directory");
}

// A directory used to throw std::ios_base::failure out of the standard
// library, /dev/zero to be read until memory ran out, a FIFO to block.
TEST_F(CommonIo, ReaderRefusesWhatIsNotARegularFile) {
  fs::create_directories(dir_ / "adir");
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  std::vector<uint8_t> bytes;
  std::string text, error;
  EXPECT_FALSE(read_file_bytes((dir_ / "adir").string(), &bytes, &error));
  EXPECT_EQ(error, "is a directory, not a regular file");
  EXPECT_FALSE(read_file_text("/dev/zero", &text, &error));
  EXPECT_EQ(error, "is a character device, not a regular file");
  EXPECT_FALSE(read_file_text((dir_ / "fifo").string(), &text, &error));
  EXPECT_EQ(error, "is a FIFO (named pipe), not a regular file");
}

// Writes past a 4 KiB file-size limit fail with EFBIG (SIGXFSZ ignored): the
// destination keeps its old content and no temporary is left behind.
TEST_F(CommonIo, FailedWriteLeavesTheOldFileAndNoTemporary) {
  const std::string path = (dir_ / "out.json").string();
  write(path, "old");
  std::string error;
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old_limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const bool ok = write_file_whole(path, std::string(10000, 'z'), &error);
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_FALSE(ok);
  EXPECT_EQ(error, path + ": write error: File too large");
  EXPECT_EQ(read_text(path), "old");
  for (const auto& e : fs::directory_iterator(dir_)) EXPECT_EQ(e.path().filename(), "out.json");
  // Unlimited, the same write replaces the file.
  ASSERT_TRUE(write_file_whole(path, std::string(10000, 'z'), &error)) << error;
  EXPECT_EQ(read_text(path), std::string(10000, 'z'));
}

TEST_F(CommonIo, WriterWritesDevicesInPlaceAndReportsTheirErrors) {
  std::string error;
  EXPECT_FALSE(write_file_whole("/dev/full", "x", &error));
  EXPECT_EQ(error, "/dev/full: write error: No space left on device");
  EXPECT_TRUE(write_file_whole("/dev/null", "x", &error)) << error;
  fs::create_directories(dir_ / "adir");
  EXPECT_FALSE(write_file_whole((dir_ / "adir").string(), "x", &error));
  EXPECT_NE(error.find("it is a directory"), std::string::npos) << error;
  EXPECT_FALSE(write_file_whole((dir_ / "no_dir" / "f").string(), "x", &error));
  EXPECT_NE(error.find("cannot open for writing: No such file or directory"), std::string::npos) << error;
}

TEST(FileNames, SafeNamesStayOneComponent) {
  EXPECT_EQ(safe_file_name("tiny_fc_relu"), "tiny_fc_relu");
  EXPECT_EQ(safe_file_name("my.graph-2"), "my.graph-2");
  EXPECT_EQ(safe_file_name("../../x"), ".._.._x");
  EXPECT_EQ(safe_file_name(".."), "_..");
  EXPECT_EQ(safe_file_name("."), "_.");
  EXPECT_EQ(safe_file_name(""), "_");
  EXPECT_EQ(safe_file_name("a b/c\n"), "a_b_c_");
}

TEST(FileNames, UniqueNamesSuffixTheLaterOnes) {
  UniqueNames n;
  EXPECT_EQ(n.take("out_a", ".raw"), "out_a.raw");
  EXPECT_EQ(n.take("out_a", ".raw"), "out_a-1.raw");
  EXPECT_EQ(n.take("out_a-1", ".raw"), "out_a-1-1.raw");
  EXPECT_EQ(n.take("out_a", ".raw"), "out_a-2.raw");
  EXPECT_EQ(n.take("out_a", "_native.raw"), "out_a_native.raw");
}

// The streamed log is byte for byte nlohmann's dump(1) of the whole document
// (what ProfileLog::write produced before it streamed), empty or not.
TEST_F(CommonIo, StreamedProfileLogIsTheWholeDocumentsDump) {
  ProfileRunMeta meta;
  meta.tool = "qnn-net-run";
  meta.backend = "libQnnHtp.so";
  meta.graphs = {"g0", "g\"1\n"};
  meta.start_unix_us = 123;
  ProfileLog log;
  log.begin(meta);
  const std::string path = (dir_ / "empty.log").string();
  std::string error;
  ASSERT_TRUE(log.write(path, &error)) << error;
  using ordered = nlohmann::ordered_json;
  ordered doc = {{"format", kProfileLogFormat},
                 {"version", kProfileLogVersion},
                 {"run",
                  {{"tool", meta.tool},
                   {"backend", meta.backend},
                   {"graphs", meta.graphs},
                   {"profiling_level", meta.profiling_level},
                   {"start_unix_us", meta.start_unix_us}}},
                 {"phases", ordered::array()}};
  EXPECT_EQ(read_text(path), doc.dump(1) + "\n");

  for (uint64_t k = 0; k < 3; ++k) {
    ProfilePhase p;
    p.phase = k == 0 ? "init" : "execute";
    p.index = k;
    p.end_us = 10 * k;
    ProfileEventRecord e;
    e.identifier = "graph execute: g\n" + std::to_string(k);
    e.value = k;
    ProfileEventRecord sub;
    sub.identifier = "op";
    if (k == 2) e.sub_events.push_back(sub);
    if (k > 0) p.events.push_back(e);
    log.add_phase(p);
    ordered events = ordered::array();
    if (k > 0) {
      ordered subs = ordered::array();
      if (k == 2) {
        subs.push_back(ordered{{"identifier", "op"}, {"type", 0}, {"unit", 1}, {"value", 0},
                               {"sub_events", ordered::array()}});
      }
      events.push_back(ordered{{"identifier", e.identifier}, {"type", 0}, {"unit", 1}, {"value", k},
                               {"sub_events", subs}});
    }
    doc["phases"].push_back(ordered{{"phase", p.phase}, {"index", k}, {"end_us", 10 * k}, {"events", events}});
  }
  const std::string full = (dir_ / "full.log").string();
  ASSERT_TRUE(log.write(full, &error)) << error;
  EXPECT_EQ(read_text(full), doc.dump(1) + "\n");
  ProfileLog back;
  ASSERT_TRUE(ProfileLog::read(full, &back, &error)) << error;
  EXPECT_EQ(back.phases().size(), 3u);
}

// An unfinished streaming log (a run that failed) leaves no file.
TEST_F(CommonIo, UnfinishedProfileLogLeavesNoFile) {
  {
    ProfileLogWriter w;
    std::string error;
    ASSERT_TRUE(w.open((dir_ / "p.log").string(), ProfileRunMeta{}, &error)) << error;
    ASSERT_TRUE(w.add(ProfilePhase{"init", 0, 0, {}}, &error)) << error;
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

// Each tool that reads a file: one "<tool>: error:" line naming the path and
// what it is, exit status 1. (A directory made all of them abort with
// status 134; /dev/zero grew their memory without end.)
class ToolsRefuse : public CommonIo {};

TEST_F(ToolsRefuse, DirectoriesDevicesAndFifos) {
  fs::create_directories(dir_ / "adir");
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  struct Tool {
    std::string name, path, option;
  };
  const std::vector<Tool> tools = {
      {"qnn-context-binary-utility", OPENHTP_UTILITY, "--context_binary"},
      {"openhtp-memory-map", OPENHTP_MEMORY_MAP, "--context_binary"},
      {"openhtp-graph-profile", OPENHTP_GRAPH_PROFILE, "--binary"},
      {"qnn-profile-viewer", OPENHTP_PROFILE_VIEWER, "--input_log"},
  };
  for (const Tool& t : tools) {
    for (const auto& [arg, kind] : std::vector<std::pair<std::string, std::string>>{
             {"adir", "is a directory"}, {"/dev/zero", "is a character device"}, {"fifo", "is a FIFO (named pipe)"}}) {
      const RunResult r = run_tool("timeout", "20 " + quote(t.path) + " " + t.option + " " + arg, dir_);
      EXPECT_EQ(r.status, 1) << t.name << " " << arg << ": " << r.err;
      EXPECT_NE(r.err.find(t.name + ": error: "), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(arg + ": " + kind + ", not a regular file"), std::string::npos) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
}

// The converter's own inputs besides the model: the calibration list, the
// raw files it names, and the overrides file (their reader is the same one,
// src/common/file_bytes.h).
TEST_F(ToolsRefuse, ConverterInputsBesideTheModel) {
  fs::create_directories(dir_ / "adir");
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  const std::string convert = "20 " + quote(OPENHTP_CONVERTER) + " -i " + quote(OPENHTP_DEMOCNN_ONNX) + " -o out.bin ";
  for (const auto& [arg, kind] : std::vector<std::pair<std::string, std::string>>{
           {"adir", "is a directory"}, {"/dev/zero", "is a character device"}, {"fifo", "is a FIFO (named pipe)"}}) {
    {
      const RunResult r = run_tool("timeout", convert + "--input_list " + arg, dir_);
      EXPECT_EQ(r.status, 1) << arg << ": " << r.err;
      EXPECT_NE(r.err.find(arg + ": cannot read the input list: " + kind), std::string::npos) << r.err;
    }
    {
      std::ofstream(dir_ / "list.txt") << arg << "\n";
      const RunResult r = run_tool("timeout", convert + "--input_list list.txt", dir_);
      EXPECT_EQ(r.status, 1) << arg << ": " << r.err;
      EXPECT_NE(r.err.find(arg + ": " + kind), std::string::npos) << r.err;
    }
    {
      const RunResult r = run_tool("timeout", convert + "--quantization_overrides " + arg + " --input_list " +
                                                  quote((fs::path(OPENHTP_DEMOCNN_ONNX).parent_path() /
                                                         "calibration_list.txt").string()),
                                   dir_);
      EXPECT_EQ(r.status, 1) << arg << ": " << r.err;
      EXPECT_NE(r.err.find("--quantization_overrides " + arg + ": " + kind), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(dir_ / "out.bin"));
  }
}

TEST_F(ToolsRefuse, GraphProfileErrorsNameTheToolAndTheReason) {
  const RunResult r = run_tool(OPENHTP_GRAPH_PROFILE, "--binary absent.bin", dir_);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "openhtp-graph-profile: error: cannot read absent.bin: cannot open for reading: No such file or "
                   "directory\n");
  const RunResult none = run_tool(OPENHTP_GRAPH_PROFILE, "", dir_);
  EXPECT_NE(none.status, 0);
  EXPECT_EQ(none.err.rfind("openhtp-graph-profile: error: --binary is required\n", 0), 0u) << none.err;
}

TEST_F(ToolsRefuse, VersionIsAnsweredByEveryTool) {
  for (const auto& [name, path] : std::vector<std::pair<std::string, std::string>>{
           {"openhtp-graph-profile", OPENHTP_GRAPH_PROFILE},
           {"openhtp-dsp-run", OPENHTP_DSP_RUN},
           {"openhtp-memory-map", OPENHTP_MEMORY_MAP},
           {"qnn-context-binary-utility", OPENHTP_UTILITY},
           {"qnn-profile-viewer", OPENHTP_PROFILE_VIEWER}}) {
    if (path.empty()) continue;  // openhtp-dsp-run is not built under a sanitizer
    const RunResult r = run_tool(path, "--version", dir_);
    EXPECT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out.rfind(name + " (openhtp", 0), 0u) << name << ": " << r.out;
  }
}

// A write error on standard output is an error, not exit 0.
TEST_F(ToolsRefuse, UtilityReportsAFullStdout) {
  const std::string bin = (dir_ / "tiny.bin").string();
  ASSERT_EQ(std::system((quote(OPENHTP_GENERATOR) + " --backend " + quote(OPENHTP_BACKEND) + " --model " +
                         quote(OPENHTP_TINY_MODEL) + " --binary_file tiny --output_dir " + quote(dir_.string()) +
                         " >/dev/null 2>&1")
                            .c_str()),
            0);
  const RunResult ok = run_tool(OPENHTP_UTILITY, "--context_binary tiny.bin --json_file tiny.json", dir_);
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(read_text(dir_ / "tiny.json").find("tiny_fc_relu"), std::string::npos);
  const std::string cmd = "cd " + quote(dir_.string()) + " && " + quote(OPENHTP_UTILITY) +
                          " --context_binary tiny.bin >/dev/full 2>err.txt";
  const int st = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(st), 1);
  EXPECT_EQ(read_text(dir_ / "err.txt"),
            "qnn-context-binary-utility: error: cannot write to standard output: No space left on device\n");
}

}  // namespace
