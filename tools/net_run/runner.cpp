#include "runner.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>

#include "common/file_bytes.h"
#include "common/file_names.h"
#include "common/output_file.h"
#include "input_list.h"
#include "io_buffers.h"
#include "openhtp/qnn_ext.h"
#include "output_names.h"

namespace openhtp::netrun {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using openhtp::tools::describe_qnn_error;
using GetStatsFn = Qnn_ErrorHandle_t (*)(Qnn_GraphHandle_t, OpenHtp_ExecuteStats_t*);

struct GraphPlan {
  Graph* graph = nullptr;
  InputList list;
  std::vector<bool> native_input;
  std::vector<bool> keep_output;
  std::vector<std::vector<const std::vector<uint8_t>*>> files;  // per line, per graph input
  GraphBuffers buffers;
  fs::path out_root;
  std::vector<std::string> output_files;  // per graph output: its file name in Result_<k>
  uint64_t count = 0;  // inferences run
};

bool name_matches(const std::string& given, const std::string& tensor) {
  return given == tensor || given == sanitize_tensor_name(tensor);
}

// Input files are read once (a --duration run reuses them).
class FileCache {
 public:
  const std::vector<uint8_t>* get(const std::string& path, std::string* error) {
    auto it = files_.find(path);
    if (it != files_.end()) return &it->second;
    std::vector<uint8_t> bytes;
    // An empty file is refused by the size check, which names the size wanted.
    if (!openhtp::read_file_bytes(path, &bytes, error, openhtp::EmptyFile::kAllow)) {
      *error = "input file " + path + ": " + *error;
      return nullptr;
    }
    return &files_.emplace(path, std::move(bytes)).first->second;
  }

 private:
  std::map<std::string, std::vector<uint8_t>> files_;
};

bool is_native_input(const Options& opt, const std::string& graph, const std::string& tensor) {
  if (opt.use_native_input_files) return true;
  for (const NativeInputName& n : opt.native_input_tensor_names) {
    if ((n.graph.empty() || n.graph == graph) && name_matches(n.tensor, tensor)) return true;
  }
  return false;
}

size_t file_bytes_per_batch(const TensorDesc& d, bool native) { return native ? d.bytes() : d.element_count() * 4; }

// Resolves every line of the plan's list to one file per graph input and
// checks each file's size.
bool resolve_lines(const Options& opt, GraphPlan* p, FileCache* cache, std::string* error) {
  const GraphIo& io = p->graph->io;
  for (const InputLine& line : p->list.lines) {
    const std::string where = "input list " + p->list.path + " line " + std::to_string(line.line_number);
    std::vector<const InputEntry*> by_input(io.inputs.size(), nullptr);
    if (line.named) {
      for (const InputEntry& e : line.entries) {
        size_t found = io.inputs.size();
        for (size_t i = 0; i < io.inputs.size(); ++i) {
          if (name_matches(e.name, io.inputs[i].name)) found = i;
        }
        if (found == io.inputs.size()) {
          *error = where + ": graph '" + io.name + "' has no input named '" + e.name + "'";
          return false;
        }
        if (by_input[found] != nullptr) {
          *error = where + ": input '" + e.name + "' is given twice";
          return false;
        }
        by_input[found] = &e;
      }
      for (size_t i = 0; i < io.inputs.size(); ++i) {
        if (by_input[i] == nullptr) {
          *error = where + ": no file for input '" + io.inputs[i].name + "' of graph '" + io.name + "'";
          return false;
        }
      }
    } else {
      if (line.entries.size() != io.inputs.size()) {
        *error = where + ": " + std::to_string(line.entries.size()) + " file(s) for the " +
                 std::to_string(io.inputs.size()) + " input(s) of graph '" + io.name + "'";
        return false;
      }
      for (size_t i = 0; i < io.inputs.size(); ++i) by_input[i] = &line.entries[i];
    }
    std::vector<const std::vector<uint8_t>*> files;
    for (size_t i = 0; i < io.inputs.size(); ++i) {
      const TensorDesc& d = io.inputs[i];
      const std::vector<uint8_t>* bytes = cache->get(by_input[i]->path, error);
      if (bytes == nullptr) {
        *error = where + ": " + *error;
        return false;
      }
      const size_t want = file_bytes_per_batch(d, p->native_input[i]) * opt.batch_multiplier;
      if (bytes->size() != want) {
        *error = where + ": input file " + by_input[i]->path + " has " + std::to_string(bytes->size()) +
                 " bytes; input '" + d.name + "' (" + d.describe() + ") needs " + std::to_string(want) + " (" +
                 (p->native_input[i] ? "native " + data_type_name(d.data_type) : std::string("float32")) +
                 (opt.batch_multiplier > 1 ? ", x" + std::to_string(opt.batch_multiplier) + " batches" : "") + ")";
        return false;
      }
      files.push_back(bytes);
    }
    p->files.push_back(std::move(files));
  }
  return true;
}

bool plan_graphs(const Options& opt, const ConfigFile& config, Session* session, const Rpcmem* rpcmem,
                 std::vector<std::unique_ptr<GraphPlan>>* plans, FileCache* cache, std::string* error) {
  std::vector<Graph>& graphs = session->graphs();
  if (opt.input_lists.size() != graphs.size()) {
    std::string names;
    for (const Graph& g : graphs) names += (names.empty() ? "" : ", ") + g.io.name;
    *error = "--input_list names " + std::to_string(opt.input_lists.size()) + " list(s) but the context has " +
             std::to_string(graphs.size()) + " graph(s) (" + names + "); give one per graph, '__' to skip one";
    return false;
  }
  for (const NativeInputName& n : opt.native_input_tensor_names) {
    bool found = false;
    for (const Graph& g : graphs) {
      if (!n.graph.empty() && n.graph != g.io.name) continue;
      for (const TensorDesc& d : g.io.inputs) found = found || name_matches(n.tensor, d.name);
    }
    if (!found) {
      *error = "--native_input_tensor_names: no graph input named '" + n.tensor + "'" +
               (n.graph.empty() ? "" : " in graph '" + n.graph + "'");
      return false;
    }
  }
  (void)config;
  openhtp::tools::UniqueNames graph_folders;
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    auto p = std::make_unique<GraphPlan>();
    p->graph = &graphs[gi];
    if (!read_input_list(opt.input_lists[gi], &p->list, error)) return false;
    if (p->list.skip) {
      plans->push_back(std::move(p));
      continue;
    }
    const GraphIo& io = p->graph->io;
    for (const TensorDesc& d : io.inputs) p->native_input.push_back(is_native_input(opt, io.name, d.name));
    p->keep_output.assign(io.outputs.size(), p->list.keep_outputs.empty());
    for (const std::string& name : p->list.keep_outputs) {
      bool found = false;
      for (size_t i = 0; i < io.outputs.size(); ++i) {
        if (name_matches(name, io.outputs[i].name)) p->keep_output[i] = found = true;
      }
      if (!found) {
        *error = "input list " + p->list.path + ": graph '" + io.name + "' has no output named '" + name + "'";
        return false;
      }
    }
    if (!resolve_lines(opt, p.get(), cache, error)) return false;
    if (!p->buffers.allocate(session->api(), session->context(), io.inputs, io.outputs, rpcmem, error)) return false;
    // The graph's folder: its name made one safe path component (a binary's
    // graph name "../../x" must stay inside --output_dir), unique among the
    // graphs' folders.
    if (graphs.size() > 1) {
      const std::string folder =
          graph_folders.take(io.name.empty() ? "Graph_" + std::to_string(gi) : openhtp::tools::safe_file_name(io.name));
      if (folder != io.name && !io.name.empty()) {
        std::fprintf(stderr, "qnn-net-run: warning: graph '%s' writes its outputs to folder '%s'\n",
                     io.name.c_str(), folder.c_str());
      }
      p->out_root = fs::path(opt.output_dir) / folder;
    } else {
      p->out_root = fs::path(opt.output_dir);
    }
    // Output file names: two tensors whose names sanitize alike ("out/a",
    // "out_a") must not overwrite each other: the later gets a suffix.
    openhtp::tools::UniqueNames files;
    for (size_t o = 0; o < io.outputs.size(); ++o) {
      const TensorDesc& d = io.outputs[o];
      const bool native = opt.use_native_output_files && d.data_type != QNN_DATATYPE_FLOAT_32;
      const std::string want = output_file_name(d.name, o, native);
      const std::string ext = native ? "_native.raw" : ".raw";
      const std::string got = files.take(want.substr(0, want.size() - ext.size()), ext);
      if (got != want && p->keep_output[o]) {
        std::fprintf(stderr,
                     "qnn-net-run: warning: graph '%s': output '%s' would be written to %s like an earlier output; "
                     "it goes to %s instead\n",
                     io.name.c_str(), d.name.c_str(), want.c_str(), got.c_str());
      }
      p->output_files.push_back(got);
    }
    plans->push_back(std::move(p));
  }
  return true;
}

struct AsyncWait {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Qnn_ErrorHandle_t status = QNN_SUCCESS;
};

void notify_done(void* param, Qnn_NotifyStatus_t status) {
  auto* w = static_cast<AsyncWait*>(param);
  std::lock_guard lock(w->mu);
  w->done = true;
  w->status = status.error;
  w->cv.notify_all();
}

bool execute(const Options& opt, Session* session, Profiler* profiler, GraphPlan* p, std::string* error) {
  const QNN_INTERFACE_VER_TYPE& qnn = session->api();
  auto& ins = p->buffers.input_tensors();
  auto& outs = p->buffers.output_tensors();
  const auto n_in = static_cast<uint32_t>(ins.size());
  const auto n_out = static_cast<uint32_t>(outs.size());
  Qnn_ErrorHandle_t e;
  if (opt.synchronous) {
    e = qnn.graphExecute(p->graph->handle, ins.data(), n_in, outs.data(), n_out, profiler->handle(), nullptr);
  } else {
    AsyncWait w;
    e = qnn.graphExecuteAsync(p->graph->handle, ins.data(), n_in, outs.data(), n_out, profiler->handle(), nullptr,
                              notify_done, &w);
    if (e == QNN_SUCCESS) {
      std::unique_lock lock(w.mu);
      w.cv.wait(lock, [&] { return w.done; });
      e = w.status;
    }
  }
  if (e != QNN_SUCCESS) {
    *error = std::string(opt.synchronous ? "graphExecute" : "graphExecuteAsync") + " of graph '" + p->graph->io.name +
             "' failed: " + describe_qnn_error(qnn, e);
    return false;
  }
  return true;
}

// One input-list line through graph `p`: --batch_multiplier executes, the
// outputs gathered and, when `write`, written to <out_root>/Result_<k>.
bool run_line(const Options& opt, Session* session, Profiler* profiler, GraphPlan* p, size_t line, uint64_t k,
              bool write, GetStatsFn get_stats, RunSummary* summary, uint64_t* exec_index, std::string* error) {
  const GraphIo& io = p->graph->io;
  std::vector<std::vector<uint8_t>> results(io.outputs.size());
  for (uint32_t s = 0; s < opt.batch_multiplier; ++s) {
    for (size_t i = 0; i < io.inputs.size(); ++i) {
      const TensorDesc& d = io.inputs[i];
      const size_t slice = file_bytes_per_batch(d, p->native_input[i]);
      const uint8_t* src = p->files[line][i]->data() + s * slice;
      if (p->native_input[i]) {
        std::memcpy(p->buffers.input(i), src, slice);
      } else {
        std::vector<float> f(d.element_count());
        std::memcpy(f.data(), src, slice);
        if (!float_to_native(d, f.data(), f.size(), p->buffers.input(i), error)) return false;
      }
    }
    if (!execute(opt, session, profiler, p, error)) return false;
    ++summary->executes;
    if (get_stats != nullptr) {
      OpenHtp_ExecuteStats_t st{};
      if (get_stats(p->graph->handle, &st) == QNN_SUCCESS) {
        summary->have_copy_stats = true;
        summary->bytes_copied_in += st.bytesCopiedIn;
        summary->bytes_copied_out += st.bytesCopiedOut;
        summary->bytes_by_reference += st.bytesByReference;
      }
    }
    if (!profiler->end_phase("execute", (*exec_index)++, error)) return false;
    if (!write) continue;
    for (size_t o = 0; o < io.outputs.size(); ++o) {
      if (!p->keep_output[o]) continue;
      const TensorDesc& d = io.outputs[o];
      const bool native = opt.use_native_output_files && d.data_type != QNN_DATATYPE_FLOAT_32;
      std::vector<uint8_t>& r = results[o];
      const size_t at = r.size();
      if (native) {
        r.resize(at + d.bytes());
        std::memcpy(r.data() + at, p->buffers.output(o), d.bytes());
      } else {
        std::vector<float> f(d.element_count());
        if (!native_to_float(d, p->buffers.output(o), f.size(), f.data(), error)) return false;
        r.resize(at + f.size() * 4);
        std::memcpy(r.data() + at, f.data(), f.size() * 4);
      }
    }
  }
  if (!write) return true;
  const fs::path dir = p->out_root / ("Result_" + std::to_string(k));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create output directory " + dir.string() + ": " + ec.message();
    return false;
  }
  for (size_t o = 0; o < io.outputs.size(); ++o) {
    if (!p->keep_output[o]) continue;
    const fs::path file = dir / p->output_files[o];
    if (!openhtp::tools::write_file_whole(file.string(), results[o].data(), results[o].size(), error)) return false;
  }
  ++summary->results_written;
  return true;
}

}  // namespace

bool run_inferences(const Options& opt, const ConfigFile& config, Session* session, Profiler* profiler,
                    RunSummary* summary, std::string* error) {
  Rpcmem rpcmem;
  summary->shared_buffer = opt.shared_buffer || config.shared_buffer;
  if (summary->shared_buffer && !rpcmem.load(error)) return false;
  FileCache cache;
  std::vector<std::unique_ptr<GraphPlan>> plans;
  if (!plan_graphs(opt, config, session, summary->shared_buffer ? &rpcmem : nullptr, &plans, &cache, error)) {
    return false;
  }
  for (const auto& p : plans) summary->memhandle_tensors += p->list.skip ? 0 : p->buffers.memhandle_tensors();
  auto get_stats = reinterpret_cast<GetStatsFn>(session->backend_symbol("OpenHtp_getLastExecuteStats"));

  size_t max_lines = 0;
  for (const auto& p : plans) {
    if (!p->list.skip) max_lines = std::max(max_lines, p->list.lines.size());
  }
  if (max_lines == 0) {
    *error = "every graph is skipped ('__'): nothing to run";
    return false;
  }
  // Only now, with every list and input file checked: a refused run leaves
  // no output folder behind.
  std::error_code ec;
  fs::create_directories(opt.output_dir, ec);
  if (ec) {
    *error = "cannot create output directory " + opt.output_dir + ": " + ec.message();
    return false;
  }
  if (!profiler->open_log(opt.output_dir, error)) return false;
  std::printf("Executing Graphs\n");
  std::fflush(stdout);
  const Clock::time_point start = Clock::now();
  Clock::time_point last_progress = start;
  uint64_t exec_index = 0;
  for (uint64_t k = 0;; ++k) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (opt.duration_s) {
      if (k > 0 && elapsed >= *opt.duration_s) break;
    } else if (k >= (opt.num_inferences ? *opt.num_inferences : max_lines)) {
      break;
    }
    for (auto& p : plans) {
      if (p->list.skip) continue;
      const size_t lines = p->list.lines.size();
      if (!opt.duration_s && !opt.num_inferences && k >= lines) continue;
      const size_t line = k % lines;
      if (k < lines) {
        std::printf("Processing inference input(s):\n");
        for (const InputEntry& e : p->list.lines[line].entries) std::printf("%s\n", e.path.c_str());
        std::fflush(stdout);
      }
      const bool write = !opt.keep_num_outputs || p->count < *opt.keep_num_outputs;
      profiler->begin_phase();
      if (!run_line(opt, session, profiler, p.get(), line, p->count, write, get_stats, summary, &exec_index, error)) {
        return false;
      }
      ++p->count;
      ++summary->inferences;
    }
    if (opt.duration_s) {
      const Clock::time_point now = Clock::now();
      if (now - last_progress >= std::chrono::seconds(1)) {
        last_progress = now;
        const double t = std::chrono::duration<double>(now - start).count();
        std::fprintf(stderr, "qnn-net-run: %.1f s of %.1f s: %llu inferences (%.1f inf/s)\n", t, *opt.duration_s,
                     static_cast<unsigned long long>(summary->inferences), summary->inferences / t);
      }
    }
  }
  summary->seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("Finished Executing Graphs\n");
  return true;
}

}  // namespace openhtp::netrun
