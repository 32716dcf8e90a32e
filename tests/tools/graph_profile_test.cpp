// openhtp-graph-profile, run as a user runs it on a context binary written
// here (binary/context_codec.h): a float ElementWiseAdd of 256K elements
// (split over the threads: threads/shares.h splits from 16K) and a Relu on
// its output. What is checked comes from that graph, not from a recorded
// run: the rows cover the nodes' names, the shares add up to the whole, the
// per-thread columns and their sums appear at two threads and the second
// thread ran a share, --kernels reference puts every node on the reference
// kernels; and the refusals: bad counts, a thread count the runtime would
// refuse, unreadable and malformed files, an unknown kernel selection.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "binary/context_codec.h"
#include "scratch_dir.h"
#include "tool_run.h"

namespace fs = std::filesystem;
using namespace openhtp;

namespace {

constexpr uint32_t kRows = 256, kCols = 1024;  // 256K floats

class GraphProfile : public ScratchDirTest {
 protected:
  GraphProfile() : ScratchDirTest("openhtp_graph_profile") {}

  // add = a + b; out = Relu(add). NUM_HVX_THREADS stored as `threads`.
  fs::path write_binary(uint32_t threads = 0) {
    htp::GraphSpec g;
    g.name = "add_relu";
    g.num_hvx_threads = threads;
    const std::vector<uint32_t> dims{1, kRows, kCols};
    g.tensors = {
        {1, "a", htp::tensor_type::kAppWrite, ops::dtype::kFloat32, dims, {}, {}},
        {2, "b", htp::tensor_type::kAppWrite, ops::dtype::kFloat32, dims, {}, {}},
        {3, "sum", htp::tensor_type::kNative, ops::dtype::kFloat32, dims, {}, {}},
        {4, "out", htp::tensor_type::kAppRead, ops::dtype::kFloat32, dims, {}, {}},
    };
    g.nodes.push_back({"add", "qti.aisw", "ElementWiseAdd", {}, {1, 2}, {3}});
    g.nodes.push_back({"relu", "qti.aisw", "Relu", {}, {3}, {4}});
    binary::ContextImage image;
    image.build_id = "graph_profile_test";
    image.graphs.push_back({g, 0, 0, 0, {}});
    const std::vector<uint8_t> bytes = binary::encode_context(image);
    const fs::path p = dir_ / ("add_relu_" + std::to_string(threads) + ".bin");
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                             static_cast<std::streamsize>(bytes.size()));
    return p;
  }

  RunResult run(const std::string& args) { return run_tool(OPENHTP_GRAPH_PROFILE, args, dir_); }
};

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// One node row: ms, share (with %), then one column per thread at two
// threads or more, then type, kernel, node name.
struct Row {
  double ms = 0, share = 0;
  std::vector<double> threads;
  std::string type, kernel, name;
};

std::vector<Row> rows_of(const std::vector<std::string>& lines, size_t threads) {
  std::vector<Row> rows;
  for (size_t i = 2; i < lines.size(); ++i) {
    const auto w = words_of(lines[i]);
    if (w.size() != 5 + threads || w[1].back() != '%') continue;
    Row r;
    r.ms = std::stod(w[0]);
    r.share = std::stod(w[1].substr(0, w[1].size() - 1));
    for (size_t t = 0; t < threads; ++t) r.threads.push_back(std::stod(w[2 + t]));
    r.type = w[2 + threads];
    r.kernel = w[3 + threads];
    r.name = w[4 + threads];
    rows.push_back(r);
  }
  return rows;
}

// Whether the rows name both nodes (a fused pair is one row named "add+relu").
bool covers_both_nodes(const std::vector<Row>& rows) {
  bool add = false, relu = false;
  for (const Row& r : rows) {
    std::istringstream parts(r.name);
    for (std::string part; std::getline(parts, part, '+');) {
      add |= part == "add";
      relu |= part == "relu";
    }
  }
  return add && relu;
}

TEST_F(GraphProfile, OneThreadRowsCoverTheGraphAndAddUp) {
  const RunResult r = run("--binary " + quote(write_binary().string()) + " --threads 1 --iterations 5");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0].rfind("graph 'add_relu': ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(", 1 threads, "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("(mean of 5;"), std::string::npos) << lines[0];
  const auto rows = rows_of(lines, 0);
  ASSERT_FALSE(rows.empty()) << r.out;
  EXPECT_NE(lines[0].find(std::to_string(rows.size()) + " nodes"), std::string::npos) << lines[0];
  EXPECT_TRUE(covers_both_nodes(rows)) << r.out;
  double shares = 0;
  for (const Row& row : rows) {
    EXPECT_GT(row.ms, 0.0) << row.name;
    EXPECT_NE(row.kernel, "") << row.name;
    shares += row.share;
  }
  EXPECT_NEAR(shares, 100.0, 0.1 * rows.size()) << r.out;  // each printed to 0.1 %
  EXPECT_EQ(r.out.find("threads' shares summed"), std::string::npos) << "one thread: no per-thread sums";
}

TEST_F(GraphProfile, TwoThreadsShowEachThreadsShareAndTheirSums) {
  const RunResult r = run("--binary " + quote(write_binary().string()) + " --threads 2 --iterations 5");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 4u) << r.out;
  EXPECT_NE(lines[0].find(", 2 threads, "), std::string::npos) << lines[0];
  const auto head = words_of(lines[1]);
  ASSERT_GE(head.size(), 4u) << lines[1];
  EXPECT_EQ(head[2], "t0");
  EXPECT_EQ(head[3], "t1");
  const auto rows = rows_of(lines, 2);
  ASSERT_FALSE(rows.empty()) << r.out;
  EXPECT_TRUE(covers_both_nodes(rows)) << r.out;
  double t0 = 0, t1 = 0;
  for (const Row& row : rows) {
    t0 += row.threads[0];
    t1 += row.threads[1];
  }
  EXPECT_GT(t1, 0.0) << "256K-element steps split over both threads\n" << r.out;
  // The last line sums each thread's column.
  const auto sums = words_of(lines.back());
  ASSERT_GE(sums.size(), 11u) << lines.back();
  EXPECT_EQ(lines.back().rfind("threads' shares summed over the nodes, ms: t0 ", 0), 0u) << lines.back();
  EXPECT_NEAR(std::stod(sums[8]), t0, 0.001 * rows.size() + 1e-9) << lines.back();
  EXPECT_EQ(sums[9], "t1");
  EXPECT_NEAR(std::stod(sums[10]), t1, 0.001 * rows.size() + 1e-9) << lines.back();
  EXPECT_NE(lines.back().find("(slowest / fastest "), std::string::npos) << lines.back();
}

TEST_F(GraphProfile, ThreadsDefaultToTheBinarysOwn) {
  const RunResult r = run("--binary " + quote(write_binary(2).string()) + " --iterations 2");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(", 2 threads, "), std::string::npos) << r.out;
}

TEST_F(GraphProfile, ReferenceKernelsWhenAsked) {
  const RunResult r =
      run("--binary " + quote(write_binary().string()) + " --threads 1 --iterations 2 --kernels reference");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto rows = rows_of(lines_of(r.out), 0);
  ASSERT_FALSE(rows.empty()) << r.out;
  EXPECT_TRUE(covers_both_nodes(rows)) << r.out;
  for (const Row& row : rows) EXPECT_EQ(row.kernel, "reference") << row.name;
}

TEST_F(GraphProfile, RefusesBadCountsWithTheRange) {
  const std::string bin = quote(write_binary().string());
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"--threads 0", "invalid --threads '0' (expected an integer from 1 to 64)"},
      {"--threads 65", "invalid --threads '65' (expected an integer from 1 to 64)"},
      {"--threads 2x", "invalid --threads '2x'"},
      {"--threads -1", "invalid --threads '-1'"},
      {"--iterations abc", "invalid --iterations 'abc' (expected an integer from 1 to"},
      {"--iterations 0", "invalid --iterations '0'"},
      {"--kernels fastest", "--kernels:"},
      {"--frobnicate 1", "unknown option '--frobnicate'"},
  };
  for (const Case& c : cases) {
    const RunResult r = run("--binary " + bin + " " + c.args);
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << c.args;
  }
  const RunResult none = run("--iterations 2");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("--binary is required"), std::string::npos) << none.err;
}

TEST_F(GraphProfile, RefusesAStoredThreadCountTheRuntimeRefuses) {
  const RunResult r = run("--binary " + quote(write_binary(65).string()) + " --iterations 1");
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("graph 'add_relu': NUM_HVX_THREADS is 65, expected at most 64"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  // --threads overrides the stored count, as graphSetConfig would.
  const RunResult over = run("--binary " + quote(write_binary(65).string()) + " --threads 1 --iterations 1");
  EXPECT_EQ(over.status, 0) << over.err;
}

TEST_F(GraphProfile, RefusesUnreadableAndMalformedFiles) {
  const RunResult missing = run("--binary " + quote((dir_ / "nothing.bin").string()));
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("cannot read"), std::string::npos) << missing.err;

  const fs::path junk = dir_ / "junk.bin";
  std::ofstream(junk, std::ios::binary) << std::string(1000, 'x');
  const RunResult bad = run("--binary " + quote(junk.string()));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("not an openhtp context binary"), std::string::npos) << bad.err;

  // A real binary cut short.
  const fs::path whole = write_binary();
  const auto size = fs::file_size(whole);
  fs::resize_file(whole, size / 2);
  const RunResult cut = run("--binary " + quote(whole.string()));
  EXPECT_EQ(cut.status, 1) << cut.out;
  EXPECT_NE(cut.err.find(whole.string()), std::string::npos) << cut.err;
}

}  // namespace
