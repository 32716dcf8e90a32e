// qnn-net-run, run as a user runs it, its outputs checked against values
// obtained independently: the same context binary executed here through the
// QNN API (inputs quantized and outputs dequantized by this test's own
// formula), PyTorch's logits for the demo CNN, and closed formulas for small
// graphs built here. Also input-list variants, zero-copy shared buffers,
// external buffers from the backend-extension file, profiling, --duration
// progress and the refusals. Paths of the tool, backend, converter, demo
// model and model library come from CMake.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "System/QnnSystemContext.h"
#include "common/profile_log.h"
#include "qnn_test_util.h"
#include "tiny_model_spec.h"
#include "scratch_dir.h"
#include "tool_run.h"

namespace fs = std::filesystem;
using namespace qnntest;

namespace {

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& p, const void* data, size_t n) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

void write_floats(const fs::path& p, const std::vector<float>& v) { write_bytes(p, v.data(), v.size() * 4); }

void write_text(const fs::path& p, const std::string& s) { write_bytes(p, s.data(), s.size()); }

std::vector<float> read_floats(const fs::path& p) {
  const std::vector<uint8_t> b = read_bytes(p);
  std::vector<float> f(b.size() / 4);
  std::memcpy(f.data(), b.data(), f.size() * 4);
  return f;
}

int count_lines_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos;
  return n;
}

// The I/O of graph 0 of a context binary, as libQnnSystem describes it.
struct BinaryIo {
  std::string graph;
  std::vector<Qnn_Tensor_t> inputs, outputs;  // point into `sys` memory
  QnnSystemContext_Handle_t sys = nullptr;
};

BinaryIo binary_io(std::vector<uint8_t>& bin) {
  BinaryIo io;
  EXPECT_EQ(QnnSystemContext_create(&io.sys), QNN_SUCCESS);
  const QnnSystemContext_BinaryInfo_t* info = nullptr;
  Qnn_ContextBinarySize_t size = 0;
  EXPECT_EQ(QnnSystemContext_getBinaryInfo(io.sys, bin.data(), bin.size(), &info, &size), QNN_SUCCESS);
  if (info == nullptr) return io;
  const QnnSystemContext_GraphInfoV1_t& g = info->contextBinaryInfoV3.graphs[0].graphInfoV1;
  io.graph = g.graphName;
  io.inputs.assign(g.graphInputs, g.graphInputs + g.numGraphInputs);
  io.outputs.assign(g.graphOutputs, g.graphOutputs + g.numGraphOutputs);
  return io;
}

size_t tensor_bytes(const Qnn_Tensor_t& t) {
  size_t n = 1;
  for (uint32_t i = 0; i < t.v1.rank; ++i) n *= t.v1.dimensions[i];
  const Qnn_DataType_t dt = t.v1.dataType;
  return n * (dt == QNN_DATATYPE_FLOAT_32 ? 4 : dt == QNN_DATATYPE_UFIXED_POINT_16 ? 2 : 1);
}

// Executes graph 0 of `bin` on one native input; returns its first output's
// native bytes. The reference every qnn-net-run result is held to.
std::vector<uint8_t> execute_via_api(std::vector<uint8_t> bin, const std::vector<uint8_t>& input) {
  BinaryIo io = binary_io(bin);
  std::vector<uint8_t> out(io.outputs.empty() ? 0 : tensor_bytes(io.outputs[0]), 0xCD);
  Qnn_LogHandle_t log = nullptr;
  Qnn_BackendHandle_t backend = nullptr;
  Qnn_ContextHandle_t ctx = nullptr;
  EXPECT_EQ(api().logCreate(nullptr, QNN_LOG_LEVEL_ERROR, &log), QNN_SUCCESS);
  EXPECT_EQ(api().backendCreate(log, nullptr, &backend), QNN_SUCCESS);
  EXPECT_EQ(api().contextCreateFromBinary(backend, nullptr, nullptr, bin.data(), bin.size(), &ctx, nullptr),
            QNN_SUCCESS);
  Qnn_GraphHandle_t graph = nullptr;
  EXPECT_EQ(api().graphRetrieve(ctx, io.graph.c_str(), &graph), QNN_SUCCESS);
  if (graph != nullptr && io.inputs.size() == 1 && io.outputs.size() == 1) {
    Qnn_Tensor_t in = io.inputs[0], o = io.outputs[0];
    in.v1.memType = o.v1.memType = QNN_TENSORMEMTYPE_RAW;
    in.v1.clientBuf = {const_cast<uint8_t*>(input.data()), static_cast<uint32_t>(input.size())};
    o.v1.clientBuf = {out.data(), static_cast<uint32_t>(out.size())};
    EXPECT_EQ(api().graphExecute(graph, &in, 1, &o, 1, nullptr, nullptr), QNN_SUCCESS);
  }
  if (ctx != nullptr) api().contextFree(ctx, nullptr);
  if (backend != nullptr) api().backendFree(backend);
  if (log != nullptr) api().logFree(log);
  QnnSystemContext_free(io.sys);
  return out;
}

// The context binary of a context built by `build` (graphs finalized there).
template <typename Build>
std::vector<uint8_t> make_binary(Build build) {
  Qnn_LogHandle_t log = nullptr;
  Qnn_BackendHandle_t backend = nullptr;
  Qnn_ContextHandle_t ctx = nullptr;
  EXPECT_EQ(api().logCreate(nullptr, QNN_LOG_LEVEL_ERROR, &log), QNN_SUCCESS);
  EXPECT_EQ(api().backendCreate(log, nullptr, &backend), QNN_SUCCESS);
  EXPECT_EQ(api().contextCreate(backend, nullptr, nullptr, &ctx), QNN_SUCCESS);
  build(ctx);
  Qnn_ContextBinarySize_t size = 0;
  EXPECT_EQ(api().contextGetBinarySize(ctx, &size), QNN_SUCCESS);
  std::vector<uint8_t> bin(size);
  EXPECT_EQ(api().contextGetBinary(ctx, bin.data(), size, &size), QNN_SUCCESS);
  bin.resize(size);
  api().contextFree(ctx, nullptr);
  api().backendFree(backend);
  api().logFree(log);
  return bin;
}

constexpr uint32_t kSmall = 16;

// Two graphs in one context:
//   "sub_mul": inputs a, b [1,16] -> "out/diff:0" = a - b, "prod" = a * b
//   "relu_g":  input x [1,16]     -> "y" = relu(x)
std::vector<uint8_t> two_graph_binary() {
  return make_binary([](Qnn_ContextHandle_t ctx) {
    std::vector<uint32_t> dims = {1, kSmall};
    Qnn_GraphHandle_t g = nullptr;
    ASSERT_EQ(api().graphCreate(ctx, "sub_mul", nullptr, &g), QNN_SUCCESS);
    Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
    Qnn_Tensor_t b = make_tensor("b", QNN_TENSOR_TYPE_APP_WRITE, dims);
    Qnn_Tensor_t diff = make_tensor("out/diff:0", QNN_TENSOR_TYPE_APP_READ, dims);
    Qnn_Tensor_t prod = make_tensor("prod", QNN_TENSOR_TYPE_APP_READ, dims);
    for (Qnn_Tensor_t* t : {&a, &b, &diff, &prod}) ASSERT_EQ(api().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
    Qnn_Tensor_t ab[] = {a, b};
    ASSERT_EQ(add_node(g, "sub", QNN_OP_ELEMENT_WISE_SUBTRACT, ab, 2, &diff), QNN_SUCCESS);
    ASSERT_EQ(add_node(g, "mul", QNN_OP_ELEMENT_WISE_MULTIPLY, ab, 2, &prod), QNN_SUCCESS);
    ASSERT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
    Qnn_GraphHandle_t r = nullptr;
    ASSERT_EQ(api().graphCreate(ctx, "relu_g", nullptr, &r), QNN_SUCCESS);
    Qnn_Tensor_t x, y;
    ASSERT_EQ(build_relu(r, dims, &x, &y), QNN_SUCCESS);
  });
}

// Graphs named by `names` (untrusted names, as a binary may carry), each
// "x" [1,16] -> relu -> "y".
std::vector<uint8_t> relu_graphs_binary(const std::vector<std::string>& names) {
  return make_binary([&](Qnn_ContextHandle_t ctx) {
    for (const std::string& name : names) {
      std::vector<uint32_t> dims = {1, kSmall};
      Qnn_GraphHandle_t g = nullptr;
      ASSERT_EQ(api().graphCreate(ctx, name.c_str(), nullptr, &g), QNN_SUCCESS);
      Qnn_Tensor_t x, y;
      ASSERT_EQ(build_relu(g, dims, &x, &y), QNN_SUCCESS);
    }
  });
}

// "collide": inputs a, b [1,16] -> "out/a" = a - b, "out_a" = a * b: both
// names sanitize to out_a.
std::vector<uint8_t> colliding_outputs_binary() {
  return make_binary([](Qnn_ContextHandle_t ctx) {
    std::vector<uint32_t> dims = {1, kSmall};
    Qnn_GraphHandle_t g = nullptr;
    ASSERT_EQ(api().graphCreate(ctx, "collide", nullptr, &g), QNN_SUCCESS);
    Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_APP_WRITE, dims);
    Qnn_Tensor_t b = make_tensor("b", QNN_TENSOR_TYPE_APP_WRITE, dims);
    Qnn_Tensor_t diff = make_tensor("out/a", QNN_TENSOR_TYPE_APP_READ, dims);
    Qnn_Tensor_t prod = make_tensor("out_a", QNN_TENSOR_TYPE_APP_READ, dims);
    for (Qnn_Tensor_t* t : {&a, &b, &diff, &prod}) ASSERT_EQ(api().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
    Qnn_Tensor_t ab[] = {a, b};
    ASSERT_EQ(add_node(g, "sub", QNN_OP_ELEMENT_WISE_SUBTRACT, ab, 2, &diff), QNN_SUCCESS);
    ASSERT_EQ(add_node(g, "mul", QNN_OP_ELEMENT_WISE_MULTIPLY, ab, 2, &prod), QNN_SUCCESS);
    ASSERT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
  });
}

constexpr uint32_t kBig = 4096;  // 16 KiB per tensor

float weight_at(uint32_t i) { return 0.001f * static_cast<float>(i % 100); }

// "chain": x -> Add(x, w) -> a -> Relu -> b -> Add(a, b) -> out, w STATIC,
// VTCM budget of one tensor, so one intermediate spills: the binary needs a
// weights buffer and a spill-fill buffer. out = (x + w) + relu(x + w).
std::vector<uint8_t> external_buffer_binary() {
  return make_binary([](Qnn_ContextHandle_t ctx) {
    static std::vector<float> w(kBig);
    for (uint32_t i = 0; i < kBig; ++i) w[i] = weight_at(i);
    std::vector<uint32_t> dims = {1, kBig};
    HtpGraphConfig vtcm(QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES);
    vtcm.htp.vtcmSizeInBytes = kBig * 4;
    Qnn_GraphHandle_t g = nullptr;
    ASSERT_EQ(api().graphCreate(ctx, "chain", vtcm.list(), &g), QNN_SUCCESS);
    Qnn_Tensor_t x = make_tensor("x", QNN_TENSOR_TYPE_APP_WRITE, dims);
    Qnn_Tensor_t wt = make_tensor("w", QNN_TENSOR_TYPE_STATIC, dims);
    wt.v1.clientBuf = {w.data(), kBig * 4};
    Qnn_Tensor_t a = make_tensor("a", QNN_TENSOR_TYPE_NATIVE, dims);
    Qnn_Tensor_t b = make_tensor("b", QNN_TENSOR_TYPE_NATIVE, dims);
    Qnn_Tensor_t out = make_tensor("out", QNN_TENSOR_TYPE_APP_READ, dims);
    for (Qnn_Tensor_t* t : {&x, &wt, &a, &b, &out}) ASSERT_EQ(api().tensorCreateGraphTensor(g, t), QNN_SUCCESS);
    Qnn_Tensor_t xw[] = {x, wt};
    ASSERT_EQ(add_node(g, "add_w", QNN_OP_ELEMENT_WISE_ADD, xw, 2, &a), QNN_SUCCESS);
    ASSERT_EQ(add_node(g, "relu", QNN_OP_RELU, &a, 1, &b), QNN_SUCCESS);
    Qnn_Tensor_t ab[] = {a, b};
    ASSERT_EQ(add_node(g, "add", QNN_OP_ELEMENT_WISE_ADD, ab, 2, &out), QNN_SUCCESS);
    ASSERT_EQ(api().graphFinalize(g, nullptr, nullptr), QNN_SUCCESS);
  });
}

std::vector<float> ramp(uint32_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (uint32_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(static_cast<int>(i % 23) - 11) + shift;
  return v;
}

class NetRun : public ScratchDirTest {
 protected:
  NetRun() : ScratchDirTest("openhtp_net_run", /*keep_after_failure=*/true) {}

  RunResult net_run(const std::string& args) { return run_tool(OPENHTP_NET_RUN, args, dir_); }

  static std::string backend() { return std::string("--backend ") + quote(OPENHTP_BACKEND); }

  // Converts the demo CNN into dir_/democnn_<precision>.bin.
  fs::path convert_democnn(const std::string& precision) {
    const fs::path bin = dir_ / ("democnn_" + precision + ".bin");
    std::string cmd = "cd " + quote(OPENHTP_DEMOCNN_DIR) + " && " + quote(OPENHTP_CONVERTER) + " -i democnn.onnx -o " +
                      quote(bin.string());
    if (precision == "uint8") {
      cmd += " --input_list calibration_list.txt --act_bitwidth 8 --use_per_channel_quantization";
    }
    EXPECT_EQ(std::system((cmd + " >/dev/null 2>&1").c_str()), 0) << cmd;
    return bin;
  }

  // An input list of the first `n` democnn test inputs, absolute paths.
  fs::path democnn_list(int n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += democnn_input(i).string() + "\n";
    const fs::path list = dir_ / "democnn_list.txt";
    write_text(list, text);
    return list;
  }
  static fs::path democnn_input(int i) {
    char name[32];
    std::snprintf(name, sizeof name, "test/input_%02d.raw", i);
    return fs::path(OPENHTP_DEMOCNN_DIR) / name;
  }
  static fs::path democnn_expected(int i) {
    char name[32];
    std::snprintf(name, sizeof name, "test/expected_%02d.raw", i);
    return fs::path(OPENHTP_DEMOCNN_DIR) / name;
  }

};

// The error line: exactly one, naming the cause.
void expect_error(const RunResult& r, const std::string& needle) {
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(count_lines_with(r.err, "qnn-net-run: error: "), 1) << r.err;
  EXPECT_NE(r.err.find("qnn-net-run: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
}

TEST_F(NetRun, DemoCnnFloatMatchesQnnApiAndPyTorch) {
  const fs::path bin = convert_democnn("float");
  const fs::path list = democnn_list(4);
  const RunResult r = net_run(backend() + " --retrieve_context " + quote(bin.string()) + " --input_list " +
                              quote(list.string()) + " --output_dir out");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  // What QNN's tool prints, in its order (reference §1.5).
  const size_t pid = r.out.find("qnn-net-run pid:"), create = r.out.find("Creating context from binary file: "),
               processing = r.out.find("Processing inference input(s):"), exec = r.out.find("Executing Graphs"),
               done = r.out.find("Finished Executing Graphs");
  ASSERT_NE(pid, std::string::npos);
  ASSERT_NE(done, std::string::npos);
  EXPECT_LT(pid, create);
  EXPECT_LT(create, exec);
  EXPECT_LT(exec, processing);
  EXPECT_LT(processing, done);
  EXPECT_EQ(count_lines_with(r.out, "Processing inference input(s):"), 4);
  EXPECT_NE(r.out.find("4 inference(s)"), std::string::npos) << r.out;
  const std::vector<uint8_t> binary = read_bytes(bin);
  for (int i = 0; i < 4; ++i) {
    const fs::path result = dir_ / "out" / ("Result_" + std::to_string(i)) / "logits.raw";
    ASSERT_TRUE(fs::exists(result)) << result;
    const std::vector<float> got = read_floats(result);
    const std::vector<uint8_t> api_bytes = execute_via_api(binary, read_bytes(democnn_input(i)));
    std::vector<float> want(api_bytes.size() / 4);
    std::memcpy(want.data(), api_bytes.data(), api_bytes.size());
    const std::vector<float> torch = read_floats(democnn_expected(i));
    ASSERT_EQ(got.size(), 10u);
    ASSERT_EQ(want.size(), 10u);
    for (size_t k = 0; k < 10; ++k) {
      EXPECT_NEAR(got[k], want[k], 1e-5f) << "input " << i << " logit " << k;
      EXPECT_NEAR(got[k], torch[k], 1e-3f) << "input " << i << " logit " << k;
    }
  }
  EXPECT_FALSE(fs::exists(dir_ / "out" / "Result_4"));
}

// uint8 model: float inputs are quantized with the input's encoding, outputs
// dequantized with the output's; --use_native_* pass the stored bytes.
TEST_F(NetRun, DemoCnnUint8QuantizesInputsAndDequantizesOutputs) {
  const fs::path bin = convert_democnn("uint8");
  std::vector<uint8_t> binary = read_bytes(bin);
  BinaryIo io = binary_io(binary);
  ASSERT_EQ(io.inputs.size(), 1u);
  ASSERT_EQ(io.outputs.size(), 1u);
  ASSERT_EQ(io.inputs[0].v1.dataType, QNN_DATATYPE_UFIXED_POINT_8);
  ASSERT_EQ(io.outputs[0].v1.dataType, QNN_DATATYPE_UFIXED_POINT_8);
  const Qnn_ScaleOffset_t qin = io.inputs[0].v1.quantizeParams.scaleOffsetEncoding;
  const Qnn_ScaleOffset_t qout = io.outputs[0].v1.quantizeParams.scaleOffsetEncoding;
  QnnSystemContext_free(io.sys);

  const std::vector<float> x = read_floats(democnn_input(2));
  std::vector<uint8_t> xq(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double q = std::nearbyint(static_cast<double>(x[i]) / qin.scale - qin.offset);
    xq[i] = static_cast<uint8_t>(std::clamp(q, 0.0, 255.0));
  }
  write_bytes(dir_ / "x_native.raw", xq.data(), xq.size());
  const std::vector<uint8_t> want = execute_via_api(binary, xq);
  ASSERT_EQ(want.size(), 10u);

  write_text(dir_ / "float_list.txt", democnn_input(2).string() + "\n");
  write_text(dir_ / "native_list.txt", "input:=x_native.raw\n");
  const std::string common = backend() + " --retrieve_context " + quote(bin.string());
  RunResult r = net_run(common + " --input_list float_list.txt --output_dir f");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<float> got = read_floats(dir_ / "f/Result_0/logits.raw");
  ASSERT_EQ(got.size(), 10u);
  for (size_t k = 0; k < 10; ++k) {
    EXPECT_FLOAT_EQ(got[k], static_cast<float>((want[k] + qout.offset) * static_cast<double>(qout.scale))) << k;
  }
  r = net_run(common + " --input_list native_list.txt --use_native_input_files --use_native_output_files "
                       "--output_dir n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_bytes(dir_ / "n/Result_0/logits_native.raw"), want);
  EXPECT_FALSE(fs::exists(dir_ / "n/Result_0/logits.raw"));
  // Per-tensor native inputs, graph-qualified.
  r = net_run(common + " --input_list native_list.txt --native_input_tensor_names torch_jit:input --output_dir t");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_floats(dir_ / "t/Result_0/logits.raw"), got);
}

// Every graph input and output in a registered rpcmem buffer: nothing copied.
TEST_F(NetRun, SharedBufferCopiesNothing) {
  const fs::path bin = convert_democnn("uint8");
  const fs::path list = democnn_list(3);
  const std::string common = backend() + " --retrieve_context " + quote(bin.string()) + " --input_list " +
                             quote(list.string());
  const RunResult plain = net_run(common + " --output_dir plain");
  ASSERT_EQ(plain.status, 0) << plain.err;
  // Client buffers: the input bytes cross by copy (3 x 3072).
  EXPECT_NE(plain.out.find("graph I/O (client buffers): 9216 bytes copied in, 30 bytes copied out"),
            std::string::npos)
      << plain.out;
  const RunResult shared = net_run(common + " --shared_buffer --output_dir shared");
  ASSERT_EQ(shared.status, 0) << shared.err;
  EXPECT_NE(shared.out.find("graph I/O (shared buffers, 2 tensor(s) as registered memory handles): 0 bytes copied "
                            "in, 0 bytes copied out, 9246 bytes by reference"),
            std::string::npos)
      << shared.out;
  // The same through the HTP extension file's "memory" section.
  write_text(dir_ / "htp.json", R"({"memory": {"mem_type": "shared_buffer"}})");
  write_text(dir_ / "netrun.json",
             R"({"backend_extensions": {"shared_library_path": "libQnnHtpNetRunExtensions.so",
                                         "config_file_path": "htp.json"}})");
  const RunResult ext = net_run(common + " --config_file netrun.json --output_dir ext");
  ASSERT_EQ(ext.status, 0) << ext.err;
  EXPECT_NE(ext.out.find("graph I/O (shared buffers, 2 tensor(s) as registered memory handles): 0 bytes copied in, "
                         "0 bytes copied out"),
            std::string::npos)
      << ext.out;
  for (int i = 0; i < 3; ++i) {
    const std::string f = "/Result_" + std::to_string(i) + "/logits.raw";
    const std::vector<uint8_t> a = read_bytes(dir_ / ("plain" + f));
    ASSERT_EQ(a.size(), 40u);
    EXPECT_EQ(read_bytes(dir_ / ("shared" + f)), a);
    EXPECT_EQ(read_bytes(dir_ / ("ext" + f)), a);
  }
}

// The backend-extension file asks the runtime for the weights and
// spill-fill buffers; the outputs still follow the formula.
TEST_F(NetRun, ExternalBuffersFromBackendExtensionFile) {
  const std::vector<uint8_t> bin = external_buffer_binary();
  write_bytes(dir_ / "chain.bin", bin.data(), bin.size());
  const std::vector<float> x = ramp(kBig, 0.01f, -0.02f);
  write_floats(dir_ / "x.raw", x);
  write_text(dir_ / "list.txt", "x.raw\n");
  write_text(dir_ / "htp.json", R"({"graphs": [{"graph_names": ["chain"], "vtcm_mb": 1}],
                                    "context_configs": {"weights_buffer": -1, "spill_fill_buffer": -1}})");
  write_text(dir_ / "netrun.json", R"({"backend_extensions": {"config_file_path": "htp.json"},
                                       "context_configs": {"context_priority": "high"}})");
  const std::string common = backend() + " --retrieve_context chain.bin --input_list list.txt";
  const RunResult r = net_run(common + " --config_file netrun.json --output_dir ext");
  ASSERT_EQ(r.status, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("weights (\\d+) bytes, spill-fill (\\d+) bytes"))) << r.out;
  EXPECT_GE(std::stoull(m[1]), kBig * 4ull);
  EXPECT_GE(std::stoull(m[2]), kBig * 4ull);
  const std::vector<float> got = read_floats(dir_ / "ext/Result_0/out.raw");
  ASSERT_EQ(got.size(), kBig);
  for (uint32_t i = 0; i < kBig; ++i) {
    const float a = x[i] + weight_at(i);
    ASSERT_FLOAT_EQ(got[i], a + std::max(a, 0.0f)) << i;
  }
  // Without the file the runtime provides no buffers, and says nothing.
  const RunResult plain = net_run(common + " --output_dir plain");
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.out.find("external buffers"), std::string::npos) << plain.out;
  EXPECT_EQ(read_floats(dir_ / "plain/Result_0/out.raw"), got);
}

// name:=path in any order, '#' output selection, '__' skipping a graph, the
// per-graph folder layout and QNN's file-name sanitising.
TEST_F(NetRun, InputListVariants) {
  const std::vector<uint8_t> bin = two_graph_binary();
  write_bytes(dir_ / "two.bin", bin.data(), bin.size());
  const std::vector<float> a = ramp(kSmall, 0.5f, 0.25f), b = ramp(kSmall, -0.75f, 1.0f), x = ramp(kSmall, 1.0f, 0.5f);
  write_floats(dir_ / "a.raw", a);
  write_floats(dir_ / "b.raw", b);
  write_floats(dir_ / "x.raw", x);
  write_text(dir_ / "named.txt", "#out/diff:0\n\nb:=b.raw a:=a.raw\nb:=a.raw a:=b.raw\n");
  write_text(dir_ / "plain.txt", "a.raw b.raw\n");
  write_text(dir_ / "relu.txt", "x.raw\n");
  const std::string common = backend() + " --retrieve_context two.bin";
  RunResult r = net_run(common + " --input_list named.txt,__ --output_dir named");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "named/relu_g"));
  EXPECT_FALSE(fs::exists(dir_ / "named/sub_mul/Result_0/prod.raw"));
  const std::vector<float> d0 = read_floats(dir_ / "named/sub_mul/Result_0/out_diff_0.raw");
  const std::vector<float> d1 = read_floats(dir_ / "named/sub_mul/Result_1/out_diff_0.raw");
  ASSERT_EQ(d0.size(), kSmall);
  ASSERT_EQ(d1.size(), kSmall);
  for (uint32_t i = 0; i < kSmall; ++i) {
    EXPECT_FLOAT_EQ(d0[i], a[i] - b[i]);
    EXPECT_FLOAT_EQ(d1[i], b[i] - a[i]);
  }
  r = net_run(common + " --input_list plain.txt,relu.txt --output_dir both");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<float> p = read_floats(dir_ / "both/sub_mul/Result_0/prod.raw");
  const std::vector<float> d = read_floats(dir_ / "both/sub_mul/Result_0/out_diff_0.raw");
  const std::vector<float> y = read_floats(dir_ / "both/relu_g/Result_0/y.raw");
  ASSERT_EQ(p.size(), kSmall);
  ASSERT_EQ(y.size(), kSmall);
  for (uint32_t i = 0; i < kSmall; ++i) {
    EXPECT_FLOAT_EQ(p[i], a[i] * b[i]);
    EXPECT_FLOAT_EQ(d[i], a[i] - b[i]);
    EXPECT_FLOAT_EQ(y[i], std::max(x[i], 0.0f));
  }
  // --batch_multiplier 2: files hold two batches, outputs too, each computed
  // on its own batch.
  std::vector<float> a2 = a, b2 = b;
  a2.insert(a2.end(), b.begin(), b.end());
  b2.insert(b2.end(), x.begin(), x.end());
  write_floats(dir_ / "a2.raw", a2);
  write_floats(dir_ / "b2.raw", b2);
  write_text(dir_ / "batch.txt", "a2.raw b2.raw\n");
  r = net_run(common + " --input_list batch.txt,__ --batch_multiplier 2 --output_dir batch");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<float> p2 = read_floats(dir_ / "batch/sub_mul/Result_0/prod.raw");
  ASSERT_EQ(p2.size(), 2 * kSmall);
  for (uint32_t i = 0; i < 2 * kSmall; ++i) EXPECT_FLOAT_EQ(p2[i], a2[i] * b2[i]) << i;
  EXPECT_NE(r.out.find("1 inference(s), 2 execute(s)"), std::string::npos) << r.out;
}

// A model library (the generator's interface), composed and finalized by the tool.
TEST_F(NetRun, ModelLibraryMatchesFormula) {
  const std::vector<float> x = {1.0f, -0.5f, 2.0f, 0.25f, -1.5f, 3.0f, 0.75f, -2.0f};
  write_floats(dir_ / "x.raw", x);
  write_text(dir_ / "list.txt", "x.raw\nx.raw\n");
  const RunResult r = net_run(backend() + " --model " + quote(OPENHTP_TINY_MODEL) +
                              " --input_list list.txt --num_inferences 5 --keep_num_outputs 2 --log_level warn "
                              "--profiling_level detailed");
  ASSERT_EQ(r.status, 0) << r.err;
  // The tool finalized the composed graph, with the profile handle.
  openhtp::tools::ProfileLog log;
  std::string error;
  ASSERT_TRUE(openhtp::tools::ProfileLog::read((dir_ / "output/qnn-profiling-data_0.log").string(), &log, &error))
      << error;
  bool finalized = false;
  for (const auto& p : log.phases()) {
    for (const auto& e : p.events) finalized |= p.phase == "finalize" && e.identifier == "graph finalize: tiny_fc_relu";
  }
  EXPECT_TRUE(finalized);
  EXPECT_NE(r.out.find("qnn-net-run log level is : QNN_LOG_LEVEL_WARN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5 inference(s)"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "output/Result_1"));
  EXPECT_FALSE(fs::exists(dir_ / "output/Result_2"));  // --keep_num_outputs 2
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir_ / "output/Result_0")) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  const std::vector<float> got = read_floats(files[0]);
  ASSERT_EQ(got.size(), tiny_model::kOut);
  for (uint32_t o = 0; o < tiny_model::kOut; ++o) {
    double acc = tiny_model::bias(o, 1.0f);
    for (uint32_t i = 0; i < tiny_model::kIn; ++i) acc += static_cast<double>(tiny_model::weight(o, i, 1.0f)) * x[i];
    EXPECT_NEAR(got[o], std::max(acc, 0.0), 1e-5) << o;
  }
}

TEST_F(NetRun, ProfilingLogHasEveryPhase) {
  const std::vector<uint8_t> bin = two_graph_binary();
  write_bytes(dir_ / "two.bin", bin.data(), bin.size());
  write_floats(dir_ / "x.raw", ramp(kSmall, 1.0f, 0.0f));
  write_text(dir_ / "relu.txt", "x.raw\n");
  const RunResult r = net_run(backend() +
                              " --retrieve_context two.bin --input_list __,relu.txt --num_inferences 3 "
                              "--profiling_level basic --perf_profile burst --synchronous --system_library " +
                              quote(OPENHTP_SYSTEM_LIBRARY));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_lines_with(r.out, "--perf_profile burst: no effect on this emulator"), 1) << r.out;
  openhtp::tools::ProfileLog log;
  std::string error;
  ASSERT_TRUE(openhtp::tools::ProfileLog::read((dir_ / "output/qnn-profiling-data_0.log").string(), &log, &error))
      << error;
  EXPECT_EQ(log.meta().tool, "qnn-net-run");
  EXPECT_EQ(log.meta().profiling_level, "basic");
  int init = 0, execute = 0, deinit = 0;
  for (const auto& p : log.phases()) {
    init += p.phase == "init";
    deinit += p.phase == "deinit";
    if (p.phase != "execute") continue;
    EXPECT_EQ(p.index, static_cast<uint64_t>(execute));
    ++execute;
    bool backend_event = false;
    for (const auto& e : p.events) backend_event |= e.identifier == "graph execute: relu_g";
    EXPECT_TRUE(backend_event) << "execute " << p.index;
  }
  EXPECT_EQ(init, 1);
  EXPECT_EQ(execute, 3);
  EXPECT_EQ(deinit, 1);
}

TEST_F(NetRun, DurationRepeatsTheListWithProgress) {
  const std::vector<uint8_t> bin = two_graph_binary();
  write_bytes(dir_ / "two.bin", bin.data(), bin.size());
  write_floats(dir_ / "x.raw", ramp(kSmall, 1.0f, 0.0f));
  write_text(dir_ / "relu.txt", "x.raw\n");
  const RunResult r = net_run(backend() +
                              " --retrieve_context two.bin --input_list __,relu.txt --duration 2.2 "
                              "--keep_num_outputs 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_GE(count_lines_with(r.err, "s of 2.2 s: "), 2) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("(\\d+) inference\\(s\\), \\d+ execute\\(s\\) in ([0-9.]+) s")))
      << r.out;
  EXPECT_GT(std::stoull(m[1]), 10u);
  EXPECT_GE(std::stod(m[2]), 2.2);
  EXPECT_TRUE(fs::exists(dir_ / "output/relu_g/Result_0/y.raw"));
  EXPECT_FALSE(fs::exists(dir_ / "output/relu_g/Result_1"));
}

TEST_F(NetRun, Refusals) {
  const std::vector<uint8_t> bin = two_graph_binary();
  write_bytes(dir_ / "two.bin", bin.data(), bin.size());
  write_floats(dir_ / "x.raw", ramp(kSmall, 1.0f, 0.0f));
  write_bytes(dir_ / "short.raw", "0123456789", 10);
  write_text(dir_ / "relu.txt", "x.raw\n");
  write_text(dir_ / "short.txt", "short.raw\n");
  write_text(dir_ / "missing.txt", "nowhere.raw\n");
  write_text(dir_ / "two_files.txt", "x.raw x.raw\n");
  write_text(dir_ / "bad_name.txt", "q:=x.raw\n");
  const std::string ctx = backend() + " --retrieve_context two.bin";
  expect_error(net_run(ctx + " --input_list __,relu.txt --frobnicate 3"), "unknown option '--frobnicate'");
  expect_error(net_run(ctx + " --input_list __,relu.txt --synchronous=1"), "'--synchronous' takes no value");
  expect_error(net_run(ctx + " --input_list __,missing.txt"), "input file nowhere.raw: cannot open for reading");
  expect_error(net_run(ctx + " --input_list __,nolist.txt"), "input list nolist.txt: cannot open for reading");
  expect_error(net_run(ctx + " --input_list __,short.txt"),
               "input file short.raw has 10 bytes; input 'x' (FLOAT_32 [1,16]) needs 64");
  expect_error(net_run(ctx + " --input_list __,two_files.txt"), "2 file(s) for the 1 input(s) of graph 'relu_g'");
  expect_error(net_run(ctx + " --input_list __,bad_name.txt"), "graph 'relu_g' has no input named 'q'");
  expect_error(net_run(ctx + " --input_list relu.txt"), "--input_list names 1 list(s) but the context has 2 graph(s)");
  expect_error(net_run(backend() + " --retrieve_context nothing.bin --input_list relu.txt"),
               "context binary nothing.bin: cannot open for reading");
  expect_error(net_run(ctx + " --input_list __,relu.txt --system_library /nonexistent/libQnnSystem.so"),
               "two.bin: cannot load the system library (/nonexistent/libQnnSystem.so");
  expect_error(net_run(backend() + " --input_list relu.txt"), "Neither --model nor --retrieve_context is specified");
  expect_error(net_run(ctx + " --input_list __,relu.txt --profiling_level everything"),
               "invalid --profiling_level 'everything'");
  expect_error(net_run(ctx + " --input_list __,relu.txt --config_file none.json"), "config file none.json: cannot open for reading");
  // Counts and durations (tools/common/command_line.h): the whole value, in range.
  expect_error(net_run(ctx + " --input_list __,relu.txt --num_inferences 0"),
               "invalid --num_inferences '0' (expected an integer >= 1)");
  expect_error(net_run(ctx + " --input_list __,relu.txt --num_inferences 3x"), "invalid --num_inferences '3x'");
  expect_error(net_run(ctx + " --input_list __,relu.txt --batch_multiplier 65537"),
               "invalid --batch_multiplier '65537' (expected an integer from 1 to 65536)");
  expect_error(net_run(ctx + " --input_list __,relu.txt --duration 0"),
               "invalid --duration '0' (expected a positive number of seconds)");
  expect_error(net_run(ctx + " --input_list __,relu.txt --duration inf"), "invalid --duration 'inf'");
  // Nothing was written by any refused run: not even the output folder,
  // since the lists and files are checked before it is made.
  EXPECT_FALSE(fs::exists(dir_ / "output"));
}

// A directory, a character device or a FIFO where a file is expected: one
// error line naming the path and what it is, exit 1, no hang, no growth,
// no output folder. (A directory used to abort with an uncaught
// std::ios_base::failure; /dev/zero was read forever; a FIFO waited.)
TEST_F(NetRun, NonRegularFilesAreRefused) {
  const std::vector<uint8_t> bin = two_graph_binary();
  write_bytes(dir_ / "two.bin", bin.data(), bin.size());
  write_floats(dir_ / "x.raw", ramp(kSmall, 1.0f, 0.0f));
  write_text(dir_ / "relu.txt", "x.raw\n");
  fs::create_directories(dir_ / "adir");
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  write_text(dir_ / "l_dir.txt", "adir\n");
  write_text(dir_ / "l_zero.txt", "/dev/zero\n");
  write_text(dir_ / "l_fifo.txt", "fifo\n");
  const std::string ctx = backend() + " --retrieve_context two.bin";
  // `timeout`: a tool that waits on the FIFO or reads /dev/zero forever fails
  // the test instead of hanging it.
  auto run = [&](const std::string& args) { return run_tool("timeout", "20 " + quote(OPENHTP_NET_RUN) + " " + args, dir_); };
  expect_error(run(backend() + " --retrieve_context adir --input_list __,relu.txt"),
               "context binary adir: is a directory, not a regular file");
  expect_error(run(backend() + " --retrieve_context /dev/zero --input_list __,relu.txt"),
               "context binary /dev/zero: is a character device, not a regular file");
  expect_error(run(backend() + " --retrieve_context fifo --input_list __,relu.txt"),
               "context binary fifo: is a FIFO (named pipe), not a regular file");
  expect_error(run(ctx + " --input_list __,l_dir.txt"), "input file adir: is a directory, not a regular file");
  expect_error(run(ctx + " --input_list __,l_zero.txt"),
               "input file /dev/zero: is a character device, not a regular file");
  expect_error(run(ctx + " --input_list __,l_fifo.txt"), "input file fifo: is a FIFO (named pipe), not a regular file");
  expect_error(run(ctx + " --input_list __,adir"), "input list adir: is a directory, not a regular file");
  expect_error(run(ctx + " --input_list __,/dev/zero"), "input list /dev/zero: is a character device");
  expect_error(run(ctx + " --input_list __,fifo"), "input list fifo: is a FIFO (named pipe)");
  expect_error(run(ctx + " --input_list __,relu.txt --config_file /dev/zero"),
               "config file /dev/zero: is a character device, not a regular file");
  expect_error(run(ctx + " --input_list __,relu.txt --config_file adir"),
               "config file adir: is a directory, not a regular file");
  EXPECT_FALSE(fs::exists(dir_ / "output"));
}

// A graph's folder is named after the graph, and the name comes from the
// binary: "../../escaped" or ".." must still land inside --output_dir.
TEST_F(NetRun, GraphNamesCannotLeaveTheOutputDir) {
  const std::vector<uint8_t> bin = relu_graphs_binary({"../../escaped", "..", "plain"});
  const fs::path work = dir_ / "a" / "b";
  fs::create_directories(work);
  write_bytes(work / "g.bin", bin.data(), bin.size());
  write_floats(work / "x.raw", ramp(kSmall, 1.0f, -3.0f));
  write_text(work / "l.txt", "x.raw\n");
  const RunResult r = run_tool(OPENHTP_NET_RUN,
                               backend() + " --retrieve_context g.bin --input_list l.txt,l.txt,l.txt --output_dir out",
                               work);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "escaped"));
  EXPECT_FALSE(fs::exists(work / "Result_0"));
  EXPECT_FALSE(fs::exists(dir_ / "a" / "Result_0"));
  EXPECT_TRUE(fs::exists(work / "out/.._.._escaped/Result_0/y.raw"));
  EXPECT_TRUE(fs::exists(work / "out/_../Result_0/y.raw"));
  EXPECT_TRUE(fs::exists(work / "out/plain/Result_0/y.raw"));  // an ordinary name is kept as it is
  EXPECT_EQ(count_lines_with(r.err, "qnn-net-run: warning: graph '../../escaped' writes its outputs to folder "
                                    "'.._.._escaped'"),
            1)
      << r.err;
  // Everything the run wrote is under a/b/out/ (the rest is the test's).
  for (const auto& e : fs::recursive_directory_iterator(dir_)) {
    const std::string rel = fs::relative(e.path(), dir_).string();
    const bool ours = rel == "a" || rel == "a/b" || rel == "a/b/g.bin" || rel == "a/b/x.raw" || rel == "a/b/l.txt" ||
                      rel == "a/b/stdout.txt" || rel == "a/b/stderr.txt";
    EXPECT_TRUE(ours || rel.rfind("a/b/out", 0) == 0) << rel;
  }
}

// "out/a" and "out_a" both sanitize to out_a.raw: both are kept (the later
// as out_a-1.raw) and a warning says so, instead of one overwriting the other.
TEST_F(NetRun, CollidingOutputNamesAreBothKept) {
  const std::vector<uint8_t> bin = colliding_outputs_binary();
  write_bytes(dir_ / "c.bin", bin.data(), bin.size());
  const std::vector<float> a = ramp(kSmall, 0.5f, 0.25f), b = ramp(kSmall, -0.75f, 1.0f);
  write_floats(dir_ / "a.raw", a);
  write_floats(dir_ / "b.raw", b);
  write_text(dir_ / "l.txt", "a.raw b.raw\n");
  const RunResult r = net_run(backend() + " --retrieve_context c.bin --input_list l.txt --output_dir out");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_lines_with(r.err, "output 'out_a' would be written to out_a.raw like an earlier output; it goes to "
                                    "out_a-1.raw instead"),
            1)
      << r.err;
  const std::vector<float> diff = read_floats(dir_ / "out/Result_0/out_a.raw");
  const std::vector<float> prod = read_floats(dir_ / "out/Result_0/out_a-1.raw");
  ASSERT_EQ(diff.size(), kSmall);
  ASSERT_EQ(prod.size(), kSmall);
  for (uint32_t i = 0; i < kSmall; ++i) {
    EXPECT_FLOAT_EQ(diff[i], a[i] - b[i]);
    EXPECT_FLOAT_EQ(prod[i], a[i] * b[i]);
  }
}

// Each execute's profile goes to the log as it is made, so a longer
// --duration run grows the log, not the process: the peak RSS of a 3 s run
// is within a few MB of a 0.5 s run's (keeping every execute's profile cost
// ~16 KB each, hundreds of MB here). The log still holds every execute.
TEST_F(NetRun, ProfilingMemoryStaysFlatOverALongRun) {
  const std::vector<uint8_t> bin = two_graph_binary();
  write_bytes(dir_ / "two.bin", bin.data(), bin.size());
  write_floats(dir_ / "x.raw", ramp(kSmall, 1.0f, 0.0f));
  write_text(dir_ / "relu.txt", "x.raw\n");
  auto peak_kb = [&](const std::string& seconds, const std::string& out) {
    const std::string args = backend() + " --retrieve_context two.bin --input_list __,relu.txt --duration " +
                             seconds + " --keep_num_outputs 1 --profiling_level basic --output_dir " + out;
    const RunResult r = run_tool("/usr/bin/time", "-f %M -o " + quote(out + ".rss") + " " + quote(OPENHTP_NET_RUN) +
                                                      " " + args, dir_);
    EXPECT_EQ(r.status, 0) << r.err;
    std::smatch m;
    EXPECT_TRUE(std::regex_search(r.out, m, std::regex("(\\d+) execute\\(s\\)"))) << r.out;
    openhtp::tools::ProfileLog log;
    std::string error;
    EXPECT_TRUE(openhtp::tools::ProfileLog::read((dir_ / out / "qnn-profiling-data_0.log").string(), &log, &error))
        << error;
    size_t executes = 0;
    for (const auto& p : log.phases()) executes += p.phase == "execute";
    EXPECT_EQ(std::to_string(executes), m[1].str());
    return std::stol(read_text(dir_ / (out + ".rss")));
  };
  if (!fs::exists("/usr/bin/time")) GTEST_SKIP() << "/usr/bin/time is needed to read the tool's peak RSS";
  const long short_kb = peak_kb("0.5", "short");
  const long long_kb = peak_kb("3", "long");
  EXPECT_LT(long_kb, short_kb + 24 * 1024) << "0.5 s: " << short_kb << " KB, 3 s: " << long_kb << " KB";
}

}  // namespace
