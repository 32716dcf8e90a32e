// qnn-context-binary-generator, run as a user runs it: model libraries in,
// a context binary out, which is then loaded and executed here and compared
// with FullyConnected + Relu computed on the CPU. Also its error paths. Every
// path (tool, backend, model libraries) comes from CMake.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "QnnInterface.h"
#include "System/QnnSystemContext.h"
#include "tiny_model_spec.h"
#include "scratch_dir.h"

namespace fs = std::filesystem;

namespace {

struct RunResult {
  int status = -1;
  std::string out;  // stdout and stderr together
};

std::string quote(const std::string& s) { return "'" + s + "'"; }

// Runs the generator with `args` in directory `cwd`.
RunResult run_generator(const std::string& args, const fs::path& cwd) {
  RunResult r;
  const std::string cmd =
      "cd " + quote(cwd.string()) + " && " + quote(OPENHTP_GENERATOR) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

const QNN_INTERFACE_VER_TYPE& api() {
  static const QNN_INTERFACE_VER_TYPE* table = [] {
    const QnnInterface_t** providers = nullptr;
    uint32_t n = 0;
    if (QnnInterface_getProviders(&providers, &n) != QNN_SUCCESS || n < 1) std::abort();
    return &providers[0]->QNN_INTERFACE_VER_NAME;
  }();
  return *table;
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// relu(W x + b) on the CPU, in double.
std::vector<float> cpu_fc_relu(const std::vector<float>& x, float scale) {
  using namespace tiny_model;
  std::vector<float> y(kOut);
  for (uint32_t r = 0; r < kOut; ++r) {
    double acc = bias(r, scale);
    for (uint32_t c = 0; c < kIn; ++c) acc += static_cast<double>(weight(r, c, scale)) * x[c];
    y[r] = static_cast<float>(acc > 0 ? acc : 0);
  }
  return y;
}

// Input for which the model's outputs are partly negative before Relu (so
// Relu is exercised) and partly positive.
std::vector<float> test_input() { return {1.0f, -0.5f, 2.0f, 0.25f, -1.5f, 3.0f, 0.75f, -2.0f}; }

class Generator : public ScratchDirTest {
 protected:
  Generator() : ScratchDirTest("openhtp_generator") {}

  static std::string backend_arg() { return std::string(" --backend ") + quote(OPENHTP_BACKEND); }

  // Loads `bin` into a fresh backend/context, executes graph `graph_name`
  // on `x` and returns its output. I/O tensors (with their ids) come from
  // the binary's metadata, read through libQnnSystem as a client would.
  std::vector<float> execute(const std::vector<uint8_t>& bin, const std::string& graph_name,
                             const std::vector<float>& x) {
    std::vector<float> y(tiny_model::kOut, -7.0f);
    QnnSystemContext_Handle_t sys = nullptr;
    EXPECT_EQ(QnnSystemContext_create(&sys), QNN_SUCCESS);
    const QnnSystemContext_BinaryInfo_t* info = nullptr;
    EXPECT_EQ(QnnSystemContext_getMetadata(sys, bin.data(), bin.size(), &info), QNN_SUCCESS);
    if (info == nullptr) return y;
    uint32_t num_graphs = 0;
    const QnnSystemContext_GraphInfo_t* graphs = nullptr;
    switch (info->version) {
      case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_1:
        num_graphs = info->contextBinaryInfoV1.numGraphs;
        graphs = info->contextBinaryInfoV1.graphs;
        break;
      case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_2:
        num_graphs = info->contextBinaryInfoV2.numGraphs;
        graphs = info->contextBinaryInfoV2.graphs;
        break;
      default:
        num_graphs = info->contextBinaryInfoV3.numGraphs;
        graphs = info->contextBinaryInfoV3.graphs;
        break;
    }
    // The graph info versions share their leading fields.
    const QnnSystemContext_GraphInfoV1_t* g = nullptr;
    for (uint32_t i = 0; i < num_graphs; ++i) {
      if (graph_name == graphs[i].graphInfoV1.graphName) g = &graphs[i].graphInfoV1;
    }
    EXPECT_NE(g, nullptr) << "no graph " << graph_name << " in the binary";
    if (g == nullptr || g->numGraphInputs != 1 || g->numGraphOutputs != 1) {
      QnnSystemContext_free(sys);
      ADD_FAILURE() << "unexpected graph I/O";
      return y;
    }
    Qnn_Tensor_t in = g->graphInputs[0];
    Qnn_Tensor_t out = g->graphOutputs[0];

    Qnn_LogHandle_t log = nullptr;
    Qnn_BackendHandle_t backend = nullptr;
    Qnn_ContextHandle_t ctx = nullptr;
    EXPECT_EQ(api().logCreate(nullptr, QNN_LOG_LEVEL_ERROR, &log), QNN_SUCCESS);
    EXPECT_EQ(api().backendCreate(log, nullptr, &backend), QNN_SUCCESS);
    EXPECT_EQ(api().contextCreateFromBinary(backend, nullptr, nullptr, bin.data(), bin.size(), &ctx, nullptr),
              QNN_SUCCESS);
    Qnn_GraphHandle_t graph = nullptr;
    EXPECT_EQ(api().graphRetrieve(ctx, graph_name.c_str(), &graph), QNN_SUCCESS);
    if (graph != nullptr) {
      in.v1.memType = out.v1.memType = QNN_TENSORMEMTYPE_RAW;
      in.v1.clientBuf = {const_cast<float*>(x.data()), static_cast<uint32_t>(x.size() * sizeof(float))};
      out.v1.clientBuf = {y.data(), static_cast<uint32_t>(y.size() * sizeof(float))};
      EXPECT_EQ(api().graphExecute(graph, &in, 1, &out, 1, nullptr, nullptr), QNN_SUCCESS);
    }
    if (ctx != nullptr) api().contextFree(ctx, nullptr);
    if (backend != nullptr) api().backendFree(backend);
    if (log != nullptr) api().logFree(log);
    QnnSystemContext_free(sys);
    return y;
  }

  void expect_matches_cpu(const std::vector<float>& got, float scale) {
    const auto want = cpu_fc_relu(test_input(), scale);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4f) << "output " << i;
  }

};

TEST_F(Generator, CpuReferenceExercisesRelu) {
  // Guards the test data itself: some outputs clamp, some pass through.
  const auto y = cpu_fc_relu(test_input(), 1.0f);
  int zero = 0, positive = 0;
  for (float v : y) (v == 0 ? zero : positive)++;
  EXPECT_GT(zero, 0);
  EXPECT_GT(positive, 0);
}

TEST_F(Generator, WrittenBinaryExecutesLikeTheModel) {
  const RunResult r = run_generator(std::string("--model ") + quote(OPENHTP_TINY_MODEL) + backend_arg() +
                                        " --binary_file tiny --output_dir " + quote((dir_ / "out").string()),
                                    dir_);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("tiny_fc_relu"), std::string::npos) << r.out;
  const fs::path bin_path = dir_ / "out" / "tiny.bin";
  ASSERT_TRUE(fs::exists(bin_path)) << r.out;
  const auto bin = read_bytes(bin_path);
  ASSERT_GT(bin.size(), 0u);
  expect_matches_cpu(execute(bin, "tiny_fc_relu", test_input()), 1.0f);
}

TEST_F(Generator, SeveralModelsGiveOneContextWithAllGraphs) {
  const RunResult r =
      run_generator(std::string("--model ") + quote(std::string(OPENHTP_TINY_MODEL) + "," + OPENHTP_TINY_MODEL_B) +
                        backend_arg() + " --binary_file both --output_dir out",
                    dir_);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto bin = read_bytes(dir_ / "out" / "both.bin");
  ASSERT_GT(bin.size(), 0u);
  expect_matches_cpu(execute(bin, "tiny_fc_relu", test_input()), 1.0f);
  expect_matches_cpu(execute(bin, "tiny_fc_relu_b", test_input()), -2.0f);
}

TEST_F(Generator, ModelPrefixSelectsTheEntryPoints) {
  const std::string base = std::string("--model ") + quote(OPENHTP_TINY_MODEL_ALT) + backend_arg() +
                           " --output_dir " + quote(dir_.string());
  // With the default prefix the library's symbols are not found.
  RunResult r = run_generator(base + " --binary_file alt_default", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("QnnModel_composeGraphs"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "alt_default.bin"));

  r = run_generator(base + " --binary_file alt --model_prefix AltModel", dir_);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto bin = read_bytes(dir_ / "alt.bin");
  expect_matches_cpu(execute(bin, "tiny_fc_relu_alt", test_input()), 0.5f);
}

TEST_F(Generator, OutputPlacementAndBinSuffix) {
  const std::string base = std::string("--model ") + quote(OPENHTP_TINY_MODEL) + backend_arg();
  // Default --output_dir is ./output, created in the working directory.
  RunResult r = run_generator(base + " --binary_file plain", dir_);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "output" / "plain.bin")) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "output" / "plain"));
  // ".bin" is appended even when the name already has an extension; nested
  // relative names create their directories under --output_dir.
  r = run_generator(base + " --binary_file sub/named.ctx --output_dir deep/er", dir_);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "deep" / "er" / "sub" / "named.ctx.bin")) << r.out;
  // An absolute name ignores --output_dir.
  const fs::path abs = dir_ / "abs" / "model";
  r = run_generator(base + " --binary_file " + quote(abs.string()) + " --output_dir ignored", dir_);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "abs" / "model.bin")) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "ignored"));
  // "--opt=value" works too.
  r = run_generator(std::string("--model=") + quote(OPENHTP_TINY_MODEL) + " --backend=" + quote(OPENHTP_BACKEND) +
                        " --binary_file=eq --output_dir=eqdir",
                    dir_);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::is_regular_file(dir_ / "eqdir" / "eq.bin")) << r.out;
}

TEST_F(Generator, MissingModelFileIsNamed) {
  const std::string missing = (dir_ / "libdoes_not_exist.so").string();
  const RunResult r = run_generator("--model " + quote(missing) + backend_arg() + " --binary_file x", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find(missing), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "output" / "x.bin"));
}

TEST_F(Generator, LibraryWithoutTheSymbolsIsNamed) {
  const RunResult r =
      run_generator(std::string("--model ") + quote(OPENHTP_NO_SYMBOLS) + backend_arg() + " --binary_file x", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("QnnModel_composeGraphs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("QnnModel_freeGraphsInfo"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(OPENHTP_NO_SYMBOLS), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "output" / "x.bin"));
}

TEST_F(Generator, ComposeGraphsErrorIsNamed) {
  const RunResult r =
      run_generator(std::string("--model ") + quote(OPENHTP_FAILING_MODEL) + backend_arg() + " --binary_file x", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("MODEL_GRAPH_ERROR"), std::string::npos) << r.out;
  // The library's own log line reached the log callback it was handed.
  EXPECT_NE(r.out.find("failing on purpose"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "output" / "x.bin"));
}

TEST_F(Generator, FinalizeFailureIsNamed) {
  const RunResult r =
      run_generator(std::string("--model ") + quote(OPENHTP_EMPTY_MODEL) + backend_arg() + " --binary_file x", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("graphFinalize of graph 'tiny_fc_relu_empty'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("error " + std::to_string(QNN_GRAPH_ERROR_FINALIZE_FAILED)), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "output" / "x.bin"));
}

TEST_F(Generator, MissingRequiredOptionsAreNamed) {
  const std::string model = std::string(" --model ") + quote(OPENHTP_TINY_MODEL);
  const std::string backend = backend_arg();
  const std::string binary = " --binary_file x";
  struct Case {
    std::string args, option;
  } cases[] = {{backend + binary, "--model"}, {model + binary, "--backend"}, {model + backend, "--binary_file"}};
  for (const Case& c : cases) {
    const RunResult r = run_generator(c.args, dir_);
    EXPECT_NE(r.status, 0) << c.args;
    EXPECT_NE(r.out.find("missing required option " + c.option), std::string::npos) << r.out;
  }
  EXPECT_FALSE(fs::exists(dir_ / "output"));
  RunResult r = run_generator(model + backend + binary + " --no_such_option", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("--no_such_option"), std::string::npos) << r.out;
  r = run_generator(model + backend + binary + " --log_level loud", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("loud"), std::string::npos) << r.out;
}

TEST_F(Generator, UnloadableBackendIsNamed) {
  const std::string missing = (dir_ / "libQnnNothing.so").string();
  const RunResult r = run_generator(std::string("--model ") + quote(OPENHTP_TINY_MODEL) + " --backend " +
                                        quote(missing) + " --binary_file x",
                                    dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find(missing), std::string::npos) << r.out;
}

TEST_F(Generator, WriteFailureIsReported) {
  // --output_dir names an existing regular file: nothing can be created in it.
  std::ofstream(dir_ / "a_file") << "x";
  const RunResult r = run_generator(std::string("--model ") + quote(OPENHTP_TINY_MODEL) + backend_arg() +
                                        " --binary_file x --output_dir a_file",
                                    dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("a_file"), std::string::npos) << r.out;
}

TEST_F(Generator, ConfigFileContextPriority) {
  const std::string base = std::string("--model ") + quote(OPENHTP_TINY_MODEL) + backend_arg() + " --output_dir out";
  std::ofstream(dir_ / "good.json")
      << R"({"context_configs": {"context_priority": "high", "memory_limit_hint": 4}, "graph_configs": []})";
  RunResult r = run_generator(base + " --binary_file good --config_file good.json", dir_);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("context_configs.memory_limit_hint"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("graph_configs"), std::string::npos) << r.out;
  expect_matches_cpu(execute(read_bytes(dir_ / "out" / "good.bin"), "tiny_fc_relu", test_input()), 1.0f);

  std::ofstream(dir_ / "bad_priority.json") << R"({"context_configs": {"context_priority": "urgent"}})";
  r = run_generator(base + " --binary_file bad --config_file bad_priority.json", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("context_priority"), std::string::npos) << r.out;

  std::ofstream(dir_ / "not_json.json") << "{ nope";
  r = run_generator(base + " --binary_file bad --config_file not_json.json", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("not_json.json"), std::string::npos) << r.out;

  r = run_generator(base + " --binary_file bad --config_file missing.json", dir_);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("missing.json"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "bad.bin"));
}

TEST_F(Generator, HelpAndVersion) {
  RunResult r = run_generator("--help", dir_);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--model_prefix"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("context_priority"), std::string::npos) << r.out;
  r = run_generator("--version", dir_);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("qnn-context-binary-generator"), std::string::npos) << r.out;
}

TEST_F(Generator, LogLevelReachesTheModelLibrary) {
  const RunResult r = run_generator(std::string("--model ") + quote(OPENHTP_TINY_MODEL) + backend_arg() +
                                        " --binary_file x --log_level info",
                                    dir_);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("tiny_model: composed graph tiny_fc_relu"), std::string::npos) << r.out;
}

}  // namespace
