// qnn-onnx-converter: ONNX models -> QNN graphs of one context in openhtp's
// libQnnHtp -> context binary.
//
//   1. parse options; load every model; prepare it (shape inference,
//      constant, QDQ and BatchNormalization folding)
//   2. report every unsupported node of every model at once (exit 1)
//   3. open the backend and one context (WEIGHT_SHARING_ENABLED when asked)
//   4. per model: with --input_list read its calibration inputs; import
//      (lower, calibrate + quantize when asked, add nodes, finalize)
//   5. contextGetBinarySize / contextGetBinary, write the file
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <exception>
#include <fstream>
#include <new>

#include "QnnInterface.h"
#include "common/file_bytes.h"
#include "onnx/backend_session.h"
#include "onnx/importer.h"
#include "onnx/input_list.h"
#include "options.h"
#include "quantization_overrides.h"

namespace {

namespace fs = std::filesystem;
using namespace openhtp::onnx_import;

constexpr const char* kTool = "qnn-onnx-converter";

int fail(const std::string& message) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  return 1;
}

// One stderr line per stage step of 10% (and the last), for long imports.
ProgressFn progress_printer() {
  auto last = std::make_shared<std::pair<std::string, size_t>>();
  return [last](const std::string& stage, size_t done, size_t total) {
    if (total < 20) return;
    const size_t decile = done * 10 / total;
    if (stage == last->first && decile == last->second && done != total) return;
    *last = {stage, decile};
    std::fprintf(stderr, "%s: %s %zu/%zu (%zu%%)\n", kTool, stage.c_str(), done, total, done * 100 / total);
  };
}


// One model on its way to a graph of the context.
struct ModelJob {
  std::string path;
  std::string input_list;  // empty: float
  PreparedModel prepared;
  QnnGraphDesc desc;
};

// Calibration files are float32 in each graph input's QNN shape (NCHW
// unless --input_layout NHWC).
bool read_calibration(const ModelJob& job, ImportOptions* io, std::string* error) {
  QnnGraphDesc probe;
  if (!build_graph_desc(job.prepared, *io, &probe, error)) return false;
  std::vector<InputListEntry> entries;
  if (!read_input_list(job.input_list, job.prepared.model.inputs, &entries, error)) return false;
  io->calibration.clear();
  for (const auto& entry : entries) {
    std::vector<std::vector<uint8_t>> sample;
    for (size_t i = 0; i < entry.size(); ++i) {
      const QTensor* t = probe.find(probe.inputs[i]);
      std::vector<uint8_t> bytes;
      std::string why;
      if (!openhtp::read_file_bytes(entry[i], &bytes, &why, openhtp::EmptyFile::kAllow)) {
        *error = entry[i] + ": " + why;
        return false;
      }
      const size_t want = tensor_bytes(t->dtype, t->dims);
      if (bytes.size() != want) {
        *error = entry[i] + ": " + std::to_string(bytes.size()) + " bytes, input '" + t->name + "' needs " +
                 std::to_string(want) + " (" + qnn_dtype_name(t->dtype) + ")";
        return false;
      }
      sample.push_back(std::move(bytes));
    }
    io->calibration.push_back(std::move(sample));
  }
  return true;
}

int run(int argc, char** argv) {
  openhtp::onnx_converter::Options opt;
  std::string error;
  if (!openhtp::onnx_converter::parse_options(argc, argv, &opt, &error)) {
    std::fprintf(stderr, "%s: error: %s\n%s", kTool, error.c_str(), openhtp::onnx_converter::usage_text());
    return 1;
  }
  if (opt.help) {
    std::fputs(openhtp::onnx_converter::usage_text(), stdout);
    return 0;
  }
  if (opt.version) {
    std::printf("%s (openhtp) %s\n", kTool, OPENHTP_VERSION);
    return 0;
  }
  const auto start = std::chrono::steady_clock::now();

  ImportOptions io;
  io.input_dims = opt.input_dims;
  io.channel_last_inputs = opt.nhwc_inputs;
  io.fold_batchnorm = !opt.disable_batchnorm_folding;
  io.quantize = !opt.input_lists.empty();
  io.keep_quant_nodes = opt.keep_quant_nodes;
  io.preserve_io = opt.preserve_io_datatype;
  io.preserve_io_names = opt.preserve_io_names;
  io.quant.act_bitwidth = opt.act_bitwidth;
  io.num_hvx_threads = static_cast<uint32_t>(opt.num_hvx_threads);
  io.quant.weights_bitwidth = opt.weights_bitwidth;
  io.quant.bias_bitwidth = opt.bias_bitwidth;
  io.quant.per_channel = opt.per_channel;
  if (!opt.quantization_overrides.empty() &&
      !openhtp::onnx_converter::read_quantization_overrides(opt.quantization_overrides,
                                                           &io.quant.activation_overrides, &error)) {
    return fail(error);
  }
  io.quant.every_override_here = opt.input_networks.size() == 1;
  parse_calibration_method(opt.act_calibration, &io.calibration_options.method);
  io.calibration_options.percentile = opt.percentile_value;
  io.progress = progress_printer();

  std::vector<ModelJob> jobs(opt.input_networks.size());
  std::string unsupported;
  for (size_t m = 0; m < jobs.size(); ++m) {
    ModelJob& job = jobs[m];
    job.path = opt.input_networks[m];
    if (io.quantize) job.input_list = opt.input_lists[opt.input_lists.size() == 1 ? 0 : m];
    onnx::ModelProto proto;
    if (!load_model_file(job.path, &proto, &error)) return fail(error);
    if (!prepare_model(proto, io, &job.prepared, &error)) return fail(jobs.size() > 1 ? job.path + ": " + error : error);
    if (auto bad = find_unsupported(job.prepared.model); !bad.empty()) {
      unsupported += (unsupported.empty() ? "" : "\n") + (jobs.size() > 1 ? job.path + ": " : std::string()) +
                     describe_unsupported(bad);
    }
  }
  if (!unsupported.empty()) return fail(unsupported);
  for (size_t a = 0; a < jobs.size(); ++a) {
    for (size_t b = 0; b < a; ++b) {
      if (jobs[a].prepared.model.graph_name == jobs[b].prepared.model.graph_name) {
        return fail(jobs[b].path + " and " + jobs[a].path + " both name their graph '" + jobs[a].prepared.model.graph_name +
                    "': graph names must differ within one context");
      }
    }
  }

  BackendSession session;
  if (!session.open(QnnInterface_getProviders, &error)) return fail(error);
  Qnn_ContextHandle_t context = nullptr;
  if (!session.create_context(&context, &error, opt.weight_sharing)) return fail(error);
  auto fail_context = [&](const std::string& message) {
    session.api.contextFree(context, nullptr);
    return fail(message);
  };
  for (ModelJob& job : jobs) {
    if (io.quantize && !read_calibration(job, &io, &error)) return fail_context(error);
    SubmittedGraph graph;
    if (!import_model(job.prepared, io, session.api, session.backend, context, &graph, &job.desc, &error)) {
      return fail_context(jobs.size() > 1 ? job.path + ": " + error : error);
    }
  }
  Qnn_ContextBinarySize_t size = 0;
  if (Qnn_ErrorHandle_t e = session.api.contextGetBinarySize(context, &size); e != QNN_SUCCESS) {
    return fail_context("contextGetBinarySize: " + describe_qnn_error(session.api, e));
  }
  std::vector<uint8_t> binary(size);
  Qnn_ContextBinarySize_t written = 0;
  if (Qnn_ErrorHandle_t e = session.api.contextGetBinary(context, binary.data(), size, &written); e != QNN_SUCCESS) {
    return fail_context("contextGetBinary: " + describe_qnn_error(session.api, e));
  }
  session.api.contextFree(context, nullptr);
  std::string out_path = opt.output_path;
  if (out_path.empty()) out_path = fs::path(jobs[0].path).replace_extension(".bin").string();
  if (fs::path(out_path).has_parent_path()) fs::create_directories(fs::path(out_path).parent_path());
  std::ofstream f(out_path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(written));
  if (!f) return fail(out_path + ": cannot write");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const ModelJob& job : jobs) {
    const PreparedModel& p = job.prepared;
    for (const auto& [name, onnx_dims] : p.model.io_views) {
      const ValueInfo* v = p.model.info(name);
      std::printf("%s: note: graph %s '%s' has rank %zu (%s); QNN HTP tensors have rank <= 5, so its QNN tensor is "
                  "the row-major view %s (the same elements in the same order)\n",
                  kTool,
                  std::count(p.model.inputs.begin(), p.model.inputs.end(), name) != 0 ? "input" : "output",
                  name.c_str(), onnx_dims.size(), dims_to_string(onnx_dims).c_str(),
                  v != nullptr ? dims_to_string(v->dims).c_str() : "?");
    }
    for (const std::string& name : p.model.empty_outputs) {
      std::printf("%s: note: graph output '%s' is empty (shape %s); QNN tensors have no zero dimension, so it is "
                  "not an output of the QNN graph (it has no bytes to read)\n",
                  kTool, name.c_str(), dims_to_string(p.model.info(name)->dims).c_str());
    }
    std::printf("%s: graph '%s': %zu ONNX nodes -> %zu QNN nodes (%zu constants folded, %zu BatchNormalization "
                "folded%s), %s\n",
                kTool, job.desc.name.c_str(), p.model.nodes.size(), job.desc.nodes.size(), p.folded_constants,
                p.folded_batchnorms,
                io.quantize ? (", " + std::to_string(p.folded_qdq_pairs) + " QDQ pairs folded").c_str() : "",
                io.quantize ? "quantized" : "float");
  }
  std::printf("%s: wrote %s (%llu bytes%s) in %.2f s\n", kTool, out_path.c_str(),
              static_cast<unsigned long long>(written),
              jobs.size() > 1 ? (", " + std::to_string(jobs.size()) + " graphs" +
                                 (opt.weight_sharing ? ", weights shared" : "")).c_str()
                              : "",
              s);
  return 0;
}

}  // namespace

// The importer refuses what it cannot take with an error line; this is the
// backstop for anything it missed (a std::logic_error from the graph
// builder, bad_alloc): one line and exit status 1, never terminate/abort.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    return fail("out of memory (std::bad_alloc) while converting; this is a converter bug: the model should have "
                "been refused with a reason");
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what());
  } catch (...) {
    return fail("internal error: unknown exception");
  }
}
