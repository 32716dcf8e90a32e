// bench_onnx_models: real CNNs (torchvision ResNet-18 and MobileNetV2, made by
// bench/models/make_bench_models.py, converted by qnn-onnx-converter) on
// openhtp against OpenCV DNN 4.6 (fp32, CPU), in the same process and run.
//
//   bench_onnx_models --models <dir> --binaries <dir> [--runs 15] [--warmup 3]
//   [--threads 1,2]
//
//   <dir of models>:   <model>.onnx and input.raw (float32 [1,3,224,224] NCHW)
//   <dir of binaries>: <model>_fp32.bin and <model>_uint8.bin
//   (qnn-onnx-converter outputs)
//
// Per model and thread count, four engines, batch 1:
//   opencv          cv::dnn on the .onnx, cv::setNumThreads(t)
//   htp_fp32        openhtp fp32 over FastRPC, I/O in registered rpcmem
//   (memhandles, zero copy) htp_fp32_inproc the same binary with
//   OPENHTP_HTP_TRANSPORT=inproc (the skel in this process),
//                   memhandles as well, so only the transport differs
//   htp_uint8       the quantized binary over FastRPC with memhandles
// openhtp's thread count is the graph config
// QNN_HTP_GRAPH_CONFIG_OPTION_NUM_HVX_THREADS, set with graphSetConfig on the
// retrieved graph before its first execute; if the backend refuses it, the row
// says at how many threads the graph really ran.
//
// Timing: after the warm-up, the engines take turns one execute at a time (run
// r of every engine, then run r+1, ...), so a burst of load from other
// processes on this shared machine hits all of them alike; each engine's median
// is reported. Only the ratios printed at the end are meant to be compared
// across runs.
//
// Honesty checks: openhtp fp32's output against OpenCV's (max |diff|, and
// relative to max |output|) and top-1 agreement; for uint8 the same numbers are
// printed for information.
#include <sched.h>

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
};

class OpenCvEngine : public Engine {
 public:
  bool load(const std::string &onnx, const std::vector<float> &nchw, std::string *error) {
    try {
      net_ = cv::dnn::readNetFromONNX(onnx);
      net_.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
      net_.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
      const int shape[4] = {1, 3, 224, 224};
      input_ = cv::Mat(4, shape, CV_32F);
      std::memcpy(input_.ptr<float>(), nchw.data(), nchw.size() * sizeof(float));
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
                 "usage: %s --models <dir> --binaries <dir> [--runs 15] "
                 "[--warmup 3] [--threads 1,2]\n",
                 argv[0]);
    return 2;
  }
  // fp32 results must agree with OpenCV's to this fraction of max |output|:
  // both compute in float32 in different orders (224x224 convolutions sum
  // up to 4608 products), so ~1e-6 relative is expected; 1e-4 flags any real
  // difference in the computation.
  constexpr double kFp32RelTolerance = 1e-4;
  const char *kModels[] = {"resnet18", "mobilenet_v2"};
  const char *kEngineNames[] = {"opencv", "htp_fp32", "htp_fp32_inproc", "htp_uint8"};
  bool all_ok = true;

  std::vector<uint8_t> raw;
  if (!read_file(opt.models + "/input.raw", &raw) || raw.size() != size_t{3} * 224 * 224 * sizeof(float)) {
    std::fprintf(stderr, "%s/input.raw missing or not [1,3,224,224] float32\n", opt.models.c_str());
    return 1;
  }
  std::vector<float> input(raw.size() / sizeof(float));
  std::memcpy(input.data(), raw.data(), raw.size());

  std::printf(
      "bench_onnx_models: batch 1, median of %d runs after %d warm-up, "
      "engines interleaved per run\n",
      opt.runs, opt.warmup);
  struct Row {
    std::string model;
    int threads;
    double ms[4];
  };
  std::vector<Row> rows;
  for (const char *model : kModels) {
    for (int threads : opt.threads) {
      // One binary per thread count: the converter stores NUM_HVX_THREADS in
      // it (--num_hvx_threads), as a QNN graph config would be.
      std::string error;
      auto cv = std::make_unique<OpenCvEngine>();
      auto fp32 = std::make_unique<HtpEngine>();
      auto fp32_inproc = std::make_unique<HtpEngine>();
      auto u8 = std::make_unique<HtpEngine>();
      const std::string bin = opt.binaries + "/" + model;
      const std::string suffix = "_t" + std::to_string(threads) + ".bin";
      if (!cv->load(opt.models + "/" + model + ".onnx", input, &error) ||
          !fp32->load(bin + "_fp32" + suffix, false, input, &error) ||
          !fp32_inproc->load(bin + "_fp32" + suffix, true, input, &error) ||
          !u8->load(bin + "_uint8" + suffix, false, input, &error)) {
        std::printf("%s: FAILED to load: %s\n", model, error.c_str());
        all_ok = false;
        continue;
      }
      Engine *engines[4] = {cv.get(), fp32.get(), fp32_inproc.get(), u8.get()};
      {
        std::string note;
        cv->set_threads(threads, &note);
        std::vector<double> times[4];
        bool ran = true;
        for (int r = -opt.warmup; r < opt.runs && ran; ++r) {
          for (int e = 0; e < 4 && ran; ++e) {
            const auto t0 = std::chrono::steady_clock::now();
            ran = engines[e]->run();
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (r >= 0) times[e].push_back(ms);
            if (!ran) std::printf("%s: %s run failed\n", model, kEngineNames[e]);
          }
        }
        if (!ran) {
          all_ok = false;
          break;
        }
        const std::vector<float> ref = cv->output();
        const Comparison c32 = compare(fp32->output(), ref), c32i = compare(fp32_inproc->output(), ref),
                         c8 = compare(u8->output(), ref);
        Row row{model, threads, {median(times[0]), median(times[1]), median(times[2]), median(times[3])}};
        rows.push_back(row);
        const bool fp32_ok = c32.max_abs <= kFp32RelTolerance * c32.max_ref && c32.top1_same &&
                             c32i.max_abs <= kFp32RelTolerance * c32i.max_ref && c32i.top1_same;
        all_ok = all_ok && fp32_ok;
        std::printf("\n%s, %d thread%s:%s%s\n", model, threads, threads > 1 ? "s" : "",
                    note.empty() ? "" : "\n  NOTE: ", note.c_str());
        for (int e = 0; e < 4; ++e) std::printf("  %-16s %9.2f ms\n", kEngineNames[e], row.ms[e]);
        std::printf(
            "  htp_fp32 vs opencv: max |diff| %.2e (%.1e of max |out| "
            "%.3g), top-1 %s -> %s\n",
            c32.max_abs, c32.max_abs / c32.max_ref, c32.max_ref, c32.top1_same ? "same" : "DIFFERS",
            fp32_ok ? "ok" : "MISMATCH");
        std::printf(
            "  htp_uint8 vs opencv: max |diff| %.2e (%.1e of max "
            "|out|), top-1 %s (information only)\n",
            c8.max_abs, c8.max_abs / c8.max_ref, c8.top1_same ? "same" : "differs");
      }
    }
  }

  std::printf("\nratios (median time; < 1 means the first is faster):\n");
  std::printf("  %-14s %-7s %-16s %-16s %-18s\n", "model", "threads", "htp_fp32/opencv", "uint8/fp32",
              "memhandle/inproc");
  for (const Row &r : rows) {
    std::printf("  %-14s %-7d %-16.2f %-16.2f %-18.2f\n", r.model.c_str(), r.threads, r.ms[1] / r.ms[0],
                r.ms[3] / r.ms[1], r.ms[1] / r.ms[2]);
  }
  std::printf("%s\n", all_ok ? "bench_onnx_models: all checks passed" : "bench_onnx_models: checks FAILED");
  return all_ok ? 0 : 1;
}
