// bench_onnx_models: real models (torchvision ResNet-18, MobileNetV2 and
// EfficientNet-B0, and a 2-layer torch.nn.TransformerEncoder, made by
// bench/models/make_bench_models.py, converted by qnn-onnx-converter) on
// openhtp against OpenCV DNN 4.6 (fp32, CPU, in this process) and, when asked,
// ONNX Runtime (CPU EP, a Node process of its own), in the same run.
//
//   bench_onnx_models --models <dir> --binaries <dir> [--runs 15] [--warmup 3]
//   [--threads 1,2] [--ort-runner bench/ort_peer/run.js [--ort-node node]
//   [--ort-node-path <node_modules>]] [--gemm-peak bench_gemm_peak
//   [--gemm-n 2048]] [--json rows.json]
//
//   <dir of models>:   <model>.onnx, <model>_input.raw and
//                      <model>_input_shape.txt ("1,128,256"; without them
//                      input.raw, float32 [1,3,224,224] NCHW)
//   <dir of binaries>: <model>_{fp32,uint8}_t<threads>.bin
//   (qnn-onnx-converter outputs). ResNet-18 and MobileNetV2 are required;
//   EfficientNet-B0 and the transformer are skipped when not generated or not
//   converted, and OpenCV is left out where it cannot read a model.
//
// Per model and thread count, up to six engines, batch 1:
//   opencv          cv::dnn on the .onnx, cv::setNumThreads(t)
//   htp_fp32        openhtp fp32 over FastRPC, I/O in registered rpcmem
//                   (memhandles, zero copy)
//   htp_fp32_inproc the same binary with OPENHTP_HTP_TRANSPORT=inproc (the
//                   skel in this process), memhandles as well, so only the
//                   transport differs
//   htp_uint8       the quantized binary over FastRPC with memhandles
//   onnxruntime     ONNX Runtime, intraOpNumThreads = t, sequential; its time
//                   is session.run() as the runner measures it
//   gemm_peak       not a model: one dnnl_sgemm of gemm_n^3 at t threads
//                   (bench_gemm_peak --serve), the machine's fp32 GEMM rate
//                   under the same load as the models
// openhtp's thread count is the graph config
// QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS, set with graphSetConfig on the
// retrieved graph before its first execute; if the backend refuses it, the row
// says at how many threads the graph really ran.
//
// Timing: after the warm-up, the engines of every thread count take turns
// (run r of every engine at 1 thread, then at 2, then run r+1, ...), so a
// burst of load from other processes on this shared machine hits all of them
// alike; a turn is a pause, untimed runs for 25 ms (at least one) and the
// timed one; each engine's median (and quartiles, in the JSON) is reported.
// Only the ratios printed at the end are meant to be compared across runs.
//
// Honesty checks: openhtp fp32's output (both doors) against OpenCV's and
// ONNX Runtime's (max |diff|, and relative to max |output|) and top-1
// agreement; for uint8 the same numbers are printed for information.
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "HTP/QnnHtpGraph.h"
#include "QnnInterface.h"
#include "System/QnnSystemInterface.h"
#include "rpcmem.h"

namespace {

// How long each engine runs untimed before its timed run in a turn (the
// timing loop says why).
constexpr std::chrono::milliseconds kWarmUp{25};

const QNN_INTERFACE_VER_TYPE *qnn_api() {
  const QnnInterface_t **providers = nullptr;
  uint32_t n = 0;
  if (QnnInterface_getProviders(&providers, &n) != QNN_SUCCESS || n == 0) return nullptr;
  return &providers[0]->QNN_INTERFACE_VER_NAME;
}

const QNN_SYSTEM_INTERFACE_VER_TYPE *system_api() {
  const QnnSystemInterface_t **providers = nullptr;
  uint32_t n = 0;
  if (QnnSystemInterface_getProviders(&providers, &n) != QNN_SUCCESS || n == 0) return nullptr;
  return &providers[0]->QNN_SYSTEM_INTERFACE_VER_NAME;
}

bool read_file(const std::string &path, std::vector<uint8_t> *out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

size_t argmax(const std::vector<float> &v) {
  return static_cast<size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

// ---------------------------------------------------------------------------
// One graph input or output as the binary describes it.
struct IoTensor {
  Qnn_Tensor_t tensor = QNN_TENSOR_INIT;
  std::string name;
  std::vector<uint32_t> dims;
  size_t elements() const {
    size_t n = 1;
    for (uint32_t d : dims) n *= d;
    return n;
  }
  Qnn_DataType_t dtype() const { return tensor.v1.dataType; }
  size_t element_bytes() const {
    switch (dtype()) {
      case QNN_DATATYPE_FLOAT_32:
        return 4;
      case QNN_DATATYPE_UFIXED_POINT_8:
      case QNN_DATATYPE_SFIXED_POINT_8:
        return 1;
      default:
        return 0;  // not handled here
    }
  }
  size_t bytes() const { return elements() * element_bytes(); }
  float scale() const { return tensor.v1.quantizeParams.scaleOffsetEncoding.scale; }
  int32_t offset() const { return tensor.v1.quantizeParams.scaleOffsetEncoding.offset; }
  // A converter may present the QNN-native NHWC input; the .raw file is NCHW.
  bool nhwc_image() const { return dims.size() == 4 && dims[3] <= 4 && dims[1] > 4; }
};

struct GraphIo {
  std::string graph_name;
  IoTensor input, output;
};

bool read_graph_io(const std::vector<uint8_t> &binary, GraphIo *io, std::string *error) {
  const QNN_SYSTEM_INTERFACE_VER_TYPE *sys = system_api();
  QnnSystemContext_Handle_t h = nullptr;
  const QnnSystemContext_BinaryInfo_t *info = nullptr;
  Qnn_ContextBinarySize_t size = 0;
  if (sys == nullptr || sys->systemContextCreate(&h) != QNN_SUCCESS ||
      sys->systemContextGetBinaryInfo(h, const_cast<uint8_t *>(binary.data()), binary.size(), &info, &size) !=
          QNN_SUCCESS ||
      info == nullptr) {
    *error = "QnnSystemContext_getBinaryInfo failed";
    if (h != nullptr) sys->systemContextFree(h);
    return false;
  }
  uint32_t n = 0;
  const QnnSystemContext_GraphInfo_t *graphs = nullptr;
  switch (info->version) {
    case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_1:
      n = info->contextBinaryInfoV1.numGraphs, graphs = info->contextBinaryInfoV1.graphs;
      break;
    case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_2:
      n = info->contextBinaryInfoV2.numGraphs, graphs = info->contextBinaryInfoV2.graphs;
      break;
    case QNN_SYSTEM_CONTEXT_BINARY_INFO_VERSION_3:
      n = info->contextBinaryInfoV3.numGraphs, graphs = info->contextBinaryInfoV3.graphs;
      break;
    default:
      break;
  }
  bool ok = n == 1 && graphs != nullptr && graphs[0].graphInfoV1.numGraphInputs == 1 &&
            graphs[0].graphInfoV1.numGraphOutputs == 1;
  if (!ok) {
    *error = "expected one graph with one input and one output";
  } else {
    const auto &g = graphs[0].graphInfoV1;  // V1 members lead V2/V3 too
    io->graph_name = g.graphName;
    for (auto [dst, src] : {std::pair{&io->input, &g.graphInputs[0]}, std::pair{&io->output, &g.graphOutputs[0]}}) {
      dst->tensor = *src;
      dst->name = src->v1.name;
      dst->dims.assign(src->v1.dimensions, src->v1.dimensions + src->v1.rank);
      if (dst->element_bytes() == 0) {
        *error = "tensor '" + dst->name + "' has a data type this bench does not convert";
        ok = false;
      }
    }
  }
  sys->systemContextFree(h);
  return ok;
}

// ---------------------------------------------------------------------------
// The engines. Each holds its model loaded, its input prepared; run() is one
// timed inference, output() the last result as float.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual bool set_threads(int threads, std::string *note) = 0;
  virtual bool run() = 0;
  virtual std::vector<float> output() const = 0;
  // The time of the last run() as the engine measured it itself (NaN: the
  // caller's wall clock around run() is the time).
  virtual double reported_ms() const { return std::nan(""); }
};

class OpenCvEngine : public Engine {
 public:
  bool load(const std::string &onnx, const std::vector<float> &nchw, const std::vector<int> &shape,
            std::string *error) {
    try {
      net_ = cv::dnn::readNetFromONNX(onnx);
      net_.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
      net_.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
      input_ = cv::Mat(static_cast<int>(shape.size()), shape.data(), CV_32F);
      std::memcpy(input_.ptr<float>(), nchw.data(), nchw.size() * sizeof(float));
      // One inference here: OpenCV DNN 4.6 finds many unsupported layers only
      // at the first forward().
      run();
    } catch (const cv::Exception &e) {
      *error = e.what();
      return false;
    }
    return true;
  }
  bool set_threads(int threads, std::string *) override {
    cv::setNumThreads(threads);
    return true;
  }
  bool run() override {
    net_.setInput(input_);
    out_ = net_.forward();
    return !out_.empty();
  }
  std::vector<float> output() const override {
    return std::vector<float>(out_.ptr<float>(), out_.ptr<float>() + out_.total());
  }

 private:
  cv::dnn::Net net_;
  cv::Mat input_, out_;
};

// A peer in a process of its own, driven one inference at a time over pipes
// so that it takes its turn with the other engines: ONNX Runtime (CPU EP) in
// Node (bench/ort_peer/run.js --serve, onnxruntime-node from npm: benchmark
// only) and the machine's fp32 GEMM rate (bench_gemm_peak --serve, one
// dnnl_sgemm a "run"). Its time is the one the peer measures around its own
// work (session.run(), dnnl_sgemm), not the pipe round trip. Protocol: it says
// "ready"; "run" -> "ms <milliseconds>"; "output <path>" -> writes the last
// output as raw float32, "ok"; "quit".
class PipePeerEngine : public Engine {
 public:
  ~PipePeerEngine() override {
    if (to_ != nullptr) {
      std::fputs("quit\n", to_);
      std::fclose(to_);
    }
    if (from_ != nullptr) std::fclose(from_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
    if (!out_path_.empty()) std::remove(out_path_.c_str());
  }

  // args[0] is looked up in PATH; node_path, when not empty, is the child's
  // NODE_PATH.
  bool load(std::vector<std::string> args, const std::string &node_path, std::string *error) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) {
      *error = "pipe failed";
      return false;
    }
    std::fflush(stdout);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[0]), close(in[1]), close(out[0]), close(out[1]);
      if (!node_path.empty()) setenv("NODE_PATH", node_path.c_str(), 1);
      std::vector<char *> argv;
      for (std::string &a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execvp(argv[0], argv.data());
      _exit(127);
    }
    close(in[0]), close(out[1]);
    if (pid_ < 0) {
      close(in[1]), close(out[0]);
      *error = "fork failed";
      return false;
    }
    to_ = fdopen(in[1], "w");
    from_ = fdopen(out[0], "r");
    out_path_ = "/tmp/openhtp_peer_" + std::to_string(getpid()) + "_" + std::to_string(pid_) + ".raw";
    if (read_line() != "ready") {
      *error = "the peer did not start (" + args[0] + " " + (args.size() > 1 ? args[1] : "") + "; its error is above)";
      return false;
    }
    return true;
  }
  bool set_threads(int, std::string *) override { return true; }  // fixed at load (--threads)
  bool run() override {
    std::fputs("run\n", to_);
    std::fflush(to_);
    const std::string line = read_line();
    if (line.rfind("ms ", 0) != 0) return false;
    ms_ = std::atof(line.c_str() + 3);
    return true;
  }
  double reported_ms() const override { return ms_; }
  std::vector<float> output() const override {
    std::fprintf(to_, "output %s\n", out_path_.c_str());
    std::fflush(to_);
    std::vector<uint8_t> bytes;
    if (const_cast<PipePeerEngine *>(this)->read_line() != "ok" || !read_file(out_path_, &bytes)) return {};
    std::vector<float> y(bytes.size() / sizeof(float));
    std::memcpy(y.data(), bytes.data(), y.size() * sizeof(float));
    return y;
  }

 private:
  std::string read_line() {
    char buf[256];
    if (from_ == nullptr || std::fgets(buf, sizeof buf, from_) == nullptr) return {};
    std::string s = buf;
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }
  pid_t pid_ = -1;
  FILE *to_ = nullptr, *from_ = nullptr;
  std::string out_path_;
  double ms_ = std::nan("");
};

class HtpEngine : public Engine {
 public:
  ~HtpEngine() override {
    for (Buffer *b : {&in_, &out_}) {
      if (b->handle != nullptr) api_->memDeRegister(&b->handle, 1);
      if (b->mem != nullptr) rpcmem_free(b->mem);
    }
    if (context_ != nullptr) api_->contextFree(context_, nullptr);
    if (backend_ != nullptr) api_->backendFree(backend_);
  }

  // `inproc`: create the backend with OPENHTP_HTP_TRANSPORT=inproc (read at
  // backendCreate).
  bool load(const std::string &binary_path, bool inproc, const std::vector<float> &nchw, std::string *error) {
    api_ = qnn_api();
    std::vector<uint8_t> binary;
    if (api_ == nullptr || !read_file(binary_path, &binary)) {
      *error = "cannot read " + binary_path + " or load libQnnHtp";
      return false;
    }
    if (!read_graph_io(binary, &io_, error)) return false;
    if (inproc) setenv("OPENHTP_HTP_TRANSPORT", "inproc", 1);
    const bool created = api_->backendCreate(nullptr, nullptr, &backend_) == QNN_SUCCESS;
    if (inproc) unsetenv("OPENHTP_HTP_TRANSPORT");
    if (!created ||
        api_->contextCreateFromBinary(backend_, nullptr, nullptr, binary.data(), binary.size(), &context_, nullptr) !=
            QNN_SUCCESS ||
        api_->graphRetrieve(context_, io_.graph_name.c_str(), &graph_) != QNN_SUCCESS) {
      *error = "backendCreate/contextCreateFromBinary/graphRetrieve failed for " + binary_path;
      return false;
    }
    for (auto [b, t] : {std::pair{&in_, &io_.input}, std::pair{&out_, &io_.output}}) {
      b->mem = static_cast<uint8_t *>(
          rpcmem_alloc(RPCMEM_HEAP_ID_SYSTEM, RPCMEM_DEFAULT_FLAGS, static_cast<int>(t->bytes())));
      if (b->mem == nullptr) {
        *error = "rpcmem_alloc failed";
        return false;
      }
      Qnn_MemDescriptor_t desc = QNN_MEM_DESCRIPTOR_INIT;
      desc.memShape = {static_cast<uint32_t>(t->dims.size()), t->dims.data(), nullptr};
      desc.dataType = t->dtype();
      desc.memType = QNN_MEM_TYPE_ION;
      desc.ionInfo.fd = rpcmem_to_fd(b->mem);
      if (api_->memRegister(context_, &desc, 1, &b->handle) != QNN_SUCCESS) {
        *error = "memRegister failed for '" + t->name + "'";
        return false;
      }
      t->tensor.v1.name = t->name.c_str();
      t->tensor.v1.dimensions = t->dims.data();
      t->tensor.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
      t->tensor.v1.memHandle = b->handle;
    }
    // The input, once, in the graph's layout and type.
    std::vector<float> x = nchw;
    const IoTensor &in = io_.input;
    if (x.size() != in.elements()) {
      *error = "input.raw has " + std::to_string(x.size()) + " values, graph input '" + in.name + "' " +
               std::to_string(in.elements());
      return false;
    }
    if (in.nhwc_image()) {
      const size_t h = in.dims[1], w = in.dims[2], c = in.dims[3];
      for (size_t ci = 0; ci < c; ++ci)
        for (size_t hw = 0; hw < h * w; ++hw) x[hw * c + ci] = nchw[ci * h * w + hw];
    }
    if (in.dtype() == QNN_DATATYPE_FLOAT_32) {
      std::memcpy(in_.mem, x.data(), in.bytes());
    } else {
      const bool is_signed = in.dtype() == QNN_DATATYPE_SFIXED_POINT_8;
      for (size_t i = 0; i < x.size(); ++i) {
        // real = (q + offset) * scale
        const double q = std::nearbyint(x[i] / in.scale()) - in.offset();
        in_.mem[i] = is_signed ? static_cast<uint8_t>(static_cast<int8_t>(std::clamp(q, -128.0, 127.0)))
                               : static_cast<uint8_t>(std::clamp(q, 0.0, 255.0));
      }
    }
    return true;
  }

  bool set_threads(int threads, std::string *note) override {
    QnnHtpGraph_CustomConfig_t htp{};
    htp.option = QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS;
    htp.numHvxThreads = static_cast<uint64_t>(threads);
    QnnGraph_Config_t cfg = QNN_GRAPH_CONFIG_INIT;
    cfg.option = QNN_GRAPH_CONFIG_OPTION_CUSTOM;
    cfg.customConfig = &htp;
    const QnnGraph_Config_t *cfgs[] = {&cfg, nullptr};
    if (api_->graphSetConfig(graph_, cfgs) == QNN_SUCCESS) return true;
    *note = "graphSetConfig(NUM_HVX_THREADS=" + std::to_string(threads) +
            ") refused on the retrieved graph: it runs at the binary's thread "
            "count (default: all " +
            std::to_string(std::thread::hardware_concurrency()) + " cores)";
    return false;
  }

  bool run() override {
    return api_->graphExecute(graph_, &io_.input.tensor, 1, &io_.output.tensor, 1, nullptr, nullptr) == QNN_SUCCESS;
  }

  std::vector<float> output() const override {
    const IoTensor &o = io_.output;
    std::vector<float> y(o.elements());
    for (size_t i = 0; i < y.size(); ++i) {
      switch (o.dtype()) {
        case QNN_DATATYPE_FLOAT_32:
          y[i] = reinterpret_cast<const float *>(out_.mem)[i];
          break;
        case QNN_DATATYPE_UFIXED_POINT_8:
          y[i] = (static_cast<float>(out_.mem[i]) + o.offset()) * o.scale();
          break;
        default:
          y[i] = (static_cast<float>(static_cast<int8_t>(out_.mem[i])) + o.offset()) * o.scale();
          break;
      }
    }
    return y;
  }

 private:
  struct Buffer {
    uint8_t *mem = nullptr;
    Qnn_MemHandle_t handle = nullptr;
  };
  const QNN_INTERFACE_VER_TYPE *api_ = nullptr;
  GraphIo io_;
  Qnn_BackendHandle_t backend_ = nullptr;
  Qnn_ContextHandle_t context_ = nullptr;
  Qnn_GraphHandle_t graph_ = nullptr;
  Buffer in_, out_;
};

struct Options {
  std::string models, binaries;
  int runs = 15, warmup = 3;
  std::vector<int> threads = {1, 2};
  // ONNX Runtime peer (optional): the runner script, the node binary, and
  // NODE_PATH (the node_modules that holds onnxruntime-node).
  std::string ort_script, ort_node = "node", ort_node_path;
  // bench_gemm_peak (optional): run --serve as one more engine, one
  // dnnl_sgemm of gemm_n^3 a turn, so the GEMM rate is measured under the same
  // load as the models.
  std::string gemm_peak;
  int gemm_n = 2048;
  std::string json;  // where to write the rows (optional)
};

bool parse(int argc, char **argv, Options *o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--models")
      o->models = v;
    else if (a == "--binaries")
      o->binaries = v;
    else if (a == "--runs")
      o->runs = std::max(1, std::atoi(v.c_str()));
    else if (a == "--warmup")
      o->warmup = std::max(0, std::atoi(v.c_str()));
    else if (a == "--ort-runner")
      o->ort_script = v;
    else if (a == "--ort-node")
      o->ort_node = v;
    else if (a == "--ort-node-path")
      o->ort_node_path = v;
    else if (a == "--json")
      o->json = v;
    else if (a == "--gemm-peak")
      o->gemm_peak = v;
    else if (a == "--gemm-n")
      o->gemm_n = std::max(64, std::atoi(v.c_str()));
    else if (a == "--threads") {
      o->threads.clear();
      std::stringstream s(v);
      for (std::string t; std::getline(s, t, ',');) o->threads.push_back(std::max(1, std::atoi(t.c_str())));
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && !o->models.empty() && !o->binaries.empty();
}

bool file_exists(const std::string &path) { return std::ifstream(path).good(); }

// The input a model is benched on: <model>_input.raw and its shape from
// <model>_input_shape.txt ("1,128,256"), else the CNNs' input.raw
// [1,3,224,224].
bool read_model_input(const std::string &dir, const std::string &model, std::vector<float> *x, std::vector<int> *shape,
                      std::string *raw_path, std::string *shape_text, std::string *error) {
  *raw_path = dir + "/" + model + "_input.raw";
  *shape_text = "1,3,224,224";
  std::ifstream sf(dir + "/" + model + "_input_shape.txt");
  if (sf) {
    std::getline(sf, *shape_text);
  } else {
    *raw_path = dir + "/input.raw";
  }
  shape->clear();
  std::stringstream s(*shape_text);
  size_t n = 1;
  for (std::string d; std::getline(s, d, ',');) shape->push_back(std::atoi(d.c_str())), n *= shape->back();
  std::vector<uint8_t> raw;
  if (!read_file(*raw_path, &raw) || raw.size() != n * sizeof(float)) {
    *error = *raw_path + " missing or not [" + *shape_text + "] float32";
    return false;
  }
  x->resize(n);
  std::memcpy(x->data(), raw.data(), raw.size());
  return true;
}

std::string first_line(const std::string &s) {
  std::string l = s.substr(0, s.find('\n'));
  return l.size() > 200 ? l.substr(0, 200) + "..." : l;
}

struct Comparison {
  double max_abs = 0.0, max_ref = 0.0;
  bool top1_same = false;
};

Comparison compare(const std::vector<float> &got, const std::vector<float> &ref) {
  Comparison c;
  if (got.size() != ref.size()) return {std::numeric_limits<double>::infinity(), 0.0, false};
  for (size_t i = 0; i < ref.size(); ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - ref[i]);
    c.max_abs = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(c.max_abs, d);
    c.max_ref = std::max(c.max_ref, std::fabs(static_cast<double>(ref[i])));
  }
  c.top1_same = argmax(got) == argmax(ref);
  return c;
}

}  // namespace

int main(int argc, char **argv) {
  Options opt;
  if (!parse(argc, argv, &opt)) {
    std::fprintf(stderr,
                 "usage: %s --models <dir> --binaries <dir> [--runs 15] [--warmup 3] [--threads 1,2]\n"
                 "          [--ort-runner bench/ort_peer/run.js [--ort-node node] [--ort-node-path <node_modules>]]\n"
                 "          [--gemm-peak bin/bench_gemm_peak [--gemm-n 2048]] [--json rows.json]\n",
                 argv[0]);
    return 2;
  }
  // fp32 results must agree with the reference's to this fraction of max
  // |output|: both compute in float32 in different orders (224x224
  // convolutions sum up to 4608 products), so ~1e-6 relative is expected;
  // 1e-4 flags any real difference in the computation.
  constexpr double kFp32RelTolerance = 1e-4;
  // ResNet-18 and MobileNetV2 are required; EfficientNet-B0 and the
  // transformer encoder are benched when generated and converted.
  const char *kModels[] = {"resnet18", "mobilenet_v2", "efficientnet_b0", "transformer_encoder"};
  const size_t kRequiredModels = 2;
  enum { kOpenCv, kFp32, kFp32Inproc, kUint8, kOrt, kGemm, kEngines };
  const char *kEngineNames[] = {"opencv", "htp_fp32", "htp_fp32_inproc", "htp_uint8", "onnxruntime", "gemm_peak"};
  bool all_ok = true;

  std::printf(
      "bench_onnx_models: batch 1, median of %d runs after %d warm-up, "
      "engines interleaved per run%s\n",
      opt.runs, opt.warmup, opt.ort_script.empty() ? "" : " (ONNX Runtime in a Node process of its own)");
  struct Row {
    std::string model;
    int threads;
    double ms[kEngines];
    double q1[kEngines], q3[kEngines];  // quartiles of the runs: the noise
    double ort_rel = std::nan("");  // htp_fp32 vs ONNX Runtime, max |diff| / max |out|
  };
  std::vector<Row> rows;
  for (size_t mi = 0; mi < std::size(kModels); ++mi) {
    const std::string model = kModels[mi];
    const bool required = mi < kRequiredModels;
    const std::string onnx = opt.models + "/" + model + ".onnx";
    const std::string bin = opt.binaries + "/" + model;
    if (!required && !file_exists(onnx)) {
      std::printf("\n%s: skipped (%s not generated)\n", model.c_str(), onnx.c_str());
      continue;
    }
    std::vector<float> input;
    std::vector<int> shape;
    std::string raw_path, shape_text, error;
    if (!read_model_input(opt.models, model, &input, &shape, &raw_path, &shape_text, &error)) {
      std::printf("\n%s: FAILED: %s\n", model.c_str(), error.c_str());
      all_ok = false;
      continue;
    }
    // Every thread count's engines are loaded before any runs, and the
    // turns take them in rounds too: a burst of load lands on one round of
    // every thread count alike instead of on one thread count's runs, which
    // the two-thread speed-up (issue 14 item 3) is a ratio of. Run 63 timed
    // the thread counts one after the other: a disturbed stretch during
    // ResNet-18's one-thread runs read 2.29-2.53x for ORT and openhtp alike.
    struct Block {
      int threads = 0;
      std::unique_ptr<Engine> engines[kEngines];
      std::string notes;
      std::vector<double> times[kEngines];
    };
    std::vector<Block> blocks;
    // One binary per thread count and kind: the converter stores
    // NUM_HVX_THREADS in it (--num_hvx_threads), as a QNN graph config would be.
    auto binary = [&](const char *kind, int threads) {
      return bin + "_" + kind + "_t" + std::to_string(threads) + ".bin";
    };
    // Loads `block`'s engines; false when a required one failed (said here).
    auto load_block = [&](Block &block) {
      const int threads = block.threads;
      std::unique_ptr<Engine> *engines = block.engines;
      std::string &notes = block.notes;
      {
        auto cv = std::make_unique<OpenCvEngine>();
        if (cv->load(onnx, input, shape, &error)) {
          engines[kOpenCv] = std::move(cv);
        } else if (required) {
          std::printf("%s: FAILED to load in OpenCV DNN: %s\n", model.c_str(), error.c_str());
          return false;
        } else {
          notes += "\n  NOTE: OpenCV DNN cannot run it: " + first_line(error);
        }
      }
      auto fp32 = std::make_unique<HtpEngine>();
      auto fp32_inproc = std::make_unique<HtpEngine>();
      if (!fp32->load(binary("fp32", threads), false, input, &error) ||
          !fp32_inproc->load(binary("fp32", threads), true, input, &error)) {
        std::printf("%s: FAILED to load: %s\n", model.c_str(), error.c_str());
        return false;
      }
      engines[kFp32] = std::move(fp32);
      engines[kFp32Inproc] = std::move(fp32_inproc);
      if (file_exists(binary("uint8", threads))) {
        auto u8 = std::make_unique<HtpEngine>();
        if (!u8->load(binary("uint8", threads), false, input, &error)) {
          std::printf("%s: FAILED to load: %s\n", model.c_str(), error.c_str());
          return false;
        }
        engines[kUint8] = std::move(u8);
      } else {
        notes += "\n  NOTE: no uint8 binary (the converter failed on it, see above)";
      }
      const std::string t = std::to_string(threads);
      if (!opt.ort_script.empty()) {
        auto ort = std::make_unique<PipePeerEngine>();
        if (ort->load({opt.ort_node, opt.ort_script, "--serve", "--model", onnx, "--input", raw_path, "--shape",
                       shape_text, "--threads", t},
                      opt.ort_node_path, &error))
          engines[kOrt] = std::move(ort);
        else
          notes += "\n  NOTE: ONNX Runtime peer failed: " + error;
      }
      if (!opt.gemm_peak.empty()) {
        auto gemm = std::make_unique<PipePeerEngine>();
        if (gemm->load({opt.gemm_peak, "--serve", "--n", std::to_string(opt.gemm_n), "--threads", t}, "", &error))
          engines[kGemm] = std::move(gemm);
        else
          notes += "\n  NOTE: GEMM peak peer failed: " + error;
      }
      for (int e = 0; e < kEngines; ++e) {
        std::string note;
        if (engines[e] != nullptr && !engines[e]->set_threads(threads, &note)) notes += "\n  NOTE: " + note;
      }
      return true;
    };
    for (int threads : opt.threads) {
      if (!required && !file_exists(binary("fp32", threads))) {
        std::printf("\n%s: skipped at %d thread%s (no %s: the converter failed on it, see above)\n", model.c_str(),
                    threads, threads > 1 ? "s" : "", binary("fp32", threads).c_str());
        continue;
      }
      Block &block = blocks.emplace_back();
      block.threads = threads;
      if (!load_block(block)) {
        all_ok = false;
        blocks.pop_back();
      }
    }
    bool ran = true;
    for (int r = -opt.warmup; r < opt.runs && ran; ++r) {
      for (Block &block : blocks) {
        for (int e = 0; e < kEngines && ran; ++e) {
          std::unique_ptr<Engine> &engine = block.engines[e];
          if (engine == nullptr) continue;
          // Workers of the engine before may spin after its run: libgomp's
          // for a few ms, ONNX Runtime's for 20-50 ms (its process's CPU time
          // after a run, read from /proc). With a 20 ms pause ORT's spinning
          // worker held a core through the next engine's turn: the GEMM peer
          // after it measured the same rate at 2 threads as at 1.
          std::this_thread::sleep_for(std::chrono::milliseconds(60));
          // Then untimed runs of its own for kWarmUp: a run right after
          // 60 ms of idle ran 14-20% slower than back to back (EfficientNet-B0
          // uint8 4.37 against 3.84 ms, fp32 8.38 against 7.01, one thread),
          // the cores ramping up again, and one untimed run was not enough
          // for the short models: MobileNetV2 uint8's runs after the pause
          // went 2.3, 1.8, 1.7, 1.6, 1.55 ms at one thread and 1.7-4.7, 1.3,
          // 1.1, 1.0, 0.97 at two (docs/performance.md, "Session 27"), so the
          // second run's two-thread speed-up read 1.44 where back to back it
          // was 1.6. Timed is the run after, warm, as a client running its
          // models one after another sees them (and as the ORT and
          // graph-profile figures issue 14 started from were taken).
          const auto warm_from = std::chrono::steady_clock::now();
          do {
            ran = engine->run();
          } while (ran && std::chrono::steady_clock::now() - warm_from < kWarmUp);
          const auto t0 = std::chrono::steady_clock::now();
          ran = ran && engine->run();
          double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          if (!std::isnan(engine->reported_ms())) ms = engine->reported_ms();
          if (r >= 0) block.times[e].push_back(ms);
          if (!ran) std::printf("%s: %s run failed at %d threads\n", model.c_str(), kEngineNames[e], block.threads);
        }
      }
    }
    if (!ran) {
      all_ok = false;
      continue;
    }
    for (Block &block : blocks) {
      const int threads = block.threads;
      const std::unique_ptr<Engine> *engines = block.engines;
      Row row{model, threads, {}, {}, {}};
      for (int e = 0; e < kEngines; ++e) {
        row.ms[e] = median(block.times[e]);
        std::vector<double> v = block.times[e];
        std::sort(v.begin(), v.end());
        row.q1[e] = v.empty() ? std::nan("") : v[(v.size() - 1) / 4];
        row.q3[e] = v.empty() ? std::nan("") : v[(3 * (v.size() - 1) + 3) / 4];
      }
      std::printf("\n%s, %d thread%s:%s\n", model.c_str(), threads, threads > 1 ? "s" : "", block.notes.c_str());
      for (int e = 0; e < kEngines; ++e)
        if (engines[e] != nullptr) std::printf("  %-16s %9.2f ms\n", kEngineNames[e], row.ms[e]);
      if (engines[kGemm] != nullptr)
        std::printf("  (gemm_peak: dnnl_sgemm %d^3, %.1f GFLOP/s at the median)\n", opt.gemm_n,
                    2.0 * opt.gemm_n * opt.gemm_n * opt.gemm_n / (row.ms[kGemm] * 1e-3) / 1e9);
      // Honesty checks: fp32 (both doors) against each reference present.
      const std::vector<float> out32 = engines[kFp32]->output(), out32i = engines[kFp32Inproc]->output();
      for (int ref_e : {kOpenCv, kOrt}) {
        if (engines[ref_e] == nullptr) continue;
        const std::vector<float> ref = engines[ref_e]->output();
        const Comparison c32 = compare(out32, ref), c32i = compare(out32i, ref);
        const bool ok = c32.max_abs <= kFp32RelTolerance * c32.max_ref && c32.top1_same &&
                        c32i.max_abs <= kFp32RelTolerance * c32i.max_ref && c32i.top1_same;
        all_ok = all_ok && ok;
        if (ref_e == kOrt) row.ort_rel = c32.max_abs / c32.max_ref;
        std::printf("  htp_fp32 vs %s: max |diff| %.2e (%.1e of max |out| %.3g), top-1 %s -> %s\n",
                    kEngineNames[ref_e], c32.max_abs, c32.max_abs / c32.max_ref, c32.max_ref,
                    c32.top1_same ? "same" : "DIFFERS", ok ? "ok" : "MISMATCH");
        if (engines[kUint8] != nullptr) {
          const Comparison c8 = compare(engines[kUint8]->output(), ref);
          std::printf("  htp_uint8 vs %s: max |diff| %.2e (%.1e of max |out|), top-1 %s (information only)\n",
                      kEngineNames[ref_e], c8.max_abs, c8.max_abs / c8.max_ref, c8.top1_same ? "same" : "differs");
        }
      }
      rows.push_back(row);
    }
  }

  std::printf("\nratios (median time; < 1 means the first is faster):\n");
  std::printf("  %-20s %-7s %-16s %-12s %-18s %-14s %-14s\n", "model", "threads", "htp_fp32/opencv", "uint8/fp32",
              "memhandle/inproc", "htp_fp32/ort", "uint8/ort_fp32");
  for (const Row &r : rows) {
    std::printf("  %-20s %-7d %-16.2f %-12.2f %-18.2f %-14.2f %-14.2f\n", r.model.c_str(), r.threads,
                r.ms[kFp32] / r.ms[kOpenCv], r.ms[kUint8] / r.ms[kFp32], r.ms[kFp32] / r.ms[kFp32Inproc],
                r.ms[kFp32] / r.ms[kOrt], r.ms[kUint8] / r.ms[kOrt]);
  }
  if (!opt.json.empty()) {
    std::ofstream j(opt.json);
    auto num = [](double v) { return std::isnan(v) ? std::string("null") : std::to_string(v); };
    j << "{\"runs\": " << opt.runs << ", \"warmup\": " << opt.warmup << ", \"gemm_n\": " << opt.gemm_n
      << ", \"rows\": [";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row &r = rows[i];
      j << (i ? ",\n  " : "\n  ") << "{\"model\": \"" << r.model << "\", \"threads\": " << r.threads;
      for (int e = 0; e < kEngines; ++e)
        j << ", \"" << kEngineNames[e] << "_ms\": " << num(r.ms[e]) << ", \"" << kEngineNames[e]
          << "_q1_ms\": " << num(r.q1[e]) << ", \"" << kEngineNames[e] << "_q3_ms\": " << num(r.q3[e]);
      j << ", \"htp_fp32_vs_ort_rel\": " << num(r.ort_rel) << "}";
    }
    j << "\n]}\n";
  }
  std::printf("%s\n", all_ok ? "bench_onnx_models: all checks passed" : "bench_onnx_models: checks FAILED");
  return all_ok ? 0 : 1;
}
