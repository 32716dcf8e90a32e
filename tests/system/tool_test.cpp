// qnn-context-binary-utility, run as a user runs it: on a binary libQnnHtp
// wrote, on junk, and with bad options. The tool's path comes from CMake.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "system_test_util.h"

using namespace systest;
namespace fs = std::filesystem;

namespace {

struct RunResult {
  int status = -1;
  std::string out;  // stdout and stderr together
};

RunResult run_tool(const std::string& args) {
  RunResult r;
  const std::string cmd = std::string("'") + OPENHTP_CONTEXT_BINARY_UTILITY + "' " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class ContextBinaryUtility : public BinaryFixture {
 protected:
  void SetUp() override {
    BinaryFixture::SetUp();
    dir_ = fs::temp_directory_path() /
           ("openhtp_system_tool_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    bin_path_ = (dir_ / "model.bin").string();
    std::ofstream(bin_path_, std::ios::binary).write(reinterpret_cast<const char*>(binary_.data()),
                                                     static_cast<std::streamsize>(binary_.size()));
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    BinaryFixture::TearDown();
  }
  fs::path dir_;
  std::string bin_path_;
};

const nlohmann::json* graph_named(const nlohmann::json& doc, const std::string& name) {
  for (const auto& g : doc["info"]["graphs"]) {
    if (g["info"]["graphName"] == name) return &g;
  }
  return nullptr;
}

}  // namespace

TEST_F(ContextBinaryUtility, WritesJsonThatNamesTheGraphs) {
  const std::string json_path = (dir_ / "model.json").string();
  const RunResult r = run_tool("--context_binary '" + bin_path_ + "' --json_file '" + json_path + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(json_path);
  const nlohmann::json doc = nlohmann::json::parse(in);  // throws (fails the test) if not JSON
  EXPECT_EQ(doc["version"], 3);
  const auto& info = doc["info"];
  EXPECT_EQ(info["backendId"], 6);
  EXPECT_EQ(info["numGraphs"], 2);
  EXPECT_TRUE(info["buildId"].is_string());
  EXPECT_TRUE(info["contextBlobVersion"].is_string());
  EXPECT_GE(info["weights"].get<uint64_t>(), weights_.size() * sizeof(float));

  const nlohmann::json* g = graph_named(doc, "add_relu");
  ASSERT_NE(g, nullptr) << doc.dump(2);
  EXPECT_EQ((*g)["version"], 3);
  const auto& gi = (*g)["info"];
  ASSERT_EQ(gi["graphInputs"].size(), 2u);
  const auto& a = gi["graphInputs"][0]["info"];
  EXPECT_EQ(a["name"], "a");
  EXPECT_EQ(a["id"], a_.v1.id);
  EXPECT_EQ(a["type"], "QNN_TENSOR_TYPE_APP_WRITE");
  EXPECT_EQ(a["dataType"], "QNN_DATATYPE_FLOAT_32");
  EXPECT_EQ(a["dimensions"], nlohmann::json::array({1, kN}));
  ASSERT_EQ(gi["graphOutputs"].size(), 1u);
  EXPECT_EQ(gi["graphOutputs"][0]["info"]["name"], "out");
  const auto& blob = gi["graphBlobInfo"];
  EXPECT_EQ(blob["version"], 1);
  EXPECT_TRUE(blob["info"]["spillFillBufferSize"].is_number_unsigned());
  EXPECT_TRUE(blob["info"]["vtcmSize"].is_number_unsigned());
  EXPECT_NE(graph_named(doc, "add_bias"), nullptr);
}

TEST_F(ContextBinaryUtility, PrintsToStdoutWithoutJsonFile) {
  const RunResult r = run_tool("--context_binary=" + bin_path_);
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_NE(graph_named(doc, "add_relu"), nullptr);
}

TEST_F(ContextBinaryUtility, JunkTruncatedAndMissingFilesExitOne) {
  const std::string junk = (dir_ / "junk.bin").string();
  std::ofstream(junk, std::ios::binary) << std::string(5000, 'J');
  RunResult r = run_tool("--context_binary '" + junk + "'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(junk), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("malformed"), std::string::npos) << r.out;

  const std::string cut = (dir_ / "cut.bin").string();
  std::ofstream(cut, std::ios::binary).write(reinterpret_cast<const char*>(binary_.data()),
                                             static_cast<std::streamsize>(binary_.size() / 2));
  r = run_tool("--context_binary '" + cut + "'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("cut.bin"), std::string::npos) << r.out;

  const std::string empty = (dir_ / "empty.bin").string();
  std::ofstream{empty};
  r = run_tool("--context_binary '" + empty + "'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("empty"), std::string::npos) << r.out;

  r = run_tool("--context_binary '" + (dir_ / "absent.bin").string() + "'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("absent.bin"), std::string::npos) << r.out;

  // Output directory that does not exist.
  r = run_tool("--context_binary '" + bin_path_ + "' --json_file '" + (dir_ / "no/such/dir.json").string() + "'");
  EXPECT_EQ(r.status, 1) << r.out;
}

TEST(ContextBinaryUtilityOptions, HelpVersionAndBadOptions) {
  RunResult r = run_tool("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--context_binary"), std::string::npos) << r.out;
  r = run_tool("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("qnn-context-binary-utility"), std::string::npos) << r.out;
  r = run_tool("");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--context_binary"), std::string::npos) << r.out;
  r = run_tool("--context_binary");
  EXPECT_EQ(r.status, 1);
  r = run_tool("--bogus x");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("--bogus"), std::string::npos) << r.out;
}
