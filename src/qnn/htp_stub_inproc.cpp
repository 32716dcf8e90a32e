// The in-process door: the skel library is loaded into the client and its
// htp::Runtime is called directly — the same runtime the DSP process runs,
// with no encoding, no process boundary and no copies. Registered fds are
// mapped here (the same pages the client sees).
#include <dlfcn.h>

#include <string>

#include "QnnMem.h"
#include "binary/context_load.h"
#include "common/library_location.h"
#include "common/openmp_policy.h"
#include "ipc/fd_mapping.h"
#include "ipc/htp_protocol.h"
#include "qnn/htp_stub.h"
#include "qnn/logger.h"

namespace openhtp::qnn {
namespace {

namespace wire = ipc::htp_wire;

Qnn_ErrorHandle_t report(const htp::Status& s) {
  if (!s.ok()) QNN_LOG_ERROR("%s", s.message.c_str());
  return s.code;
}

class InProcessStub final : public HtpStub {
 public:
  explicit InProcessStub(htp::Runtime* rt) : rt_(rt) {}
  // The skel library stays loaded: its runtime may still own threads.

  bool in_process() const override { return true; }
  bool lost() const override { return false; }

  Qnn_ErrorHandle_t context_create(const htp::ContextOptions& o, uint64_t* id) override {
    return report(rt_->create_context(o, id));
  }
  Qnn_ErrorHandle_t context_free(uint64_t id) override { return report(rt_->free_context(id)); }
  Qnn_ErrorHandle_t graph_prepare(uint64_t context_id, const htp::GraphSpec& spec, htp::GraphInfo* info,
                                  ipc::htp_wire::ControlWire* control) override {
    const htp::CallControl c = control_of(control);
    return report(rt_->prepare_graph(context_id, spec, nullptr, info, &c));
  }
  Qnn_ErrorHandle_t load_binary(uint64_t context_id, std::span<const uint8_t>, const binary::ContextImage& image,
                                std::vector<htp::GraphInfo>* infos, ipc::htp_wire::ControlWire* control) override {
    const htp::CallControl c = control_of(control);
    std::vector<binary::GraphImage> graphs = image.graphs;  // the caller keeps its specs; the weights are shared
    return report(binary::prepare_image_graphs(*rt_, context_id, std::move(graphs), infos, &c));
  }
  Qnn_ErrorHandle_t graph_plan(uint64_t graph_id, size_t, htp::StoredPlan* plan) override {
    return report(rt_->graph_plan(graph_id, plan));
  }
  Qnn_ErrorHandle_t graph_node_times(uint64_t graph_id, std::span<const std::string>,
                                     std::vector<htp::StepTime>* steps) override {
    return report(rt_->node_times(graph_id, steps));
  }
  Qnn_ErrorHandle_t graph_free(uint64_t id) override { return report(rt_->free_graph(id)); }
  Qnn_ErrorHandle_t graph_set_threads(uint64_t id, uint32_t n) override { return report(rt_->set_graph_threads(id, n)); }
  Qnn_ErrorHandle_t context_set_priority(uint64_t id, uint32_t p) override {
    return report(rt_->set_context_priority(id, p));
  }
  Qnn_ErrorHandle_t graph_set_priority(uint64_t id, uint32_t p) override { return report(rt_->set_graph_priority(id, p)); }
  Qnn_ErrorHandle_t mem_register(uint64_t context_id, int fd, uint64_t offset, uint64_t size, htp::MemoryKind kind,
                                 uint64_t* id) override {
    std::string why;
    auto m = mappings_.map(fd, &why);
    if (!m) {
      QNN_LOG_ERROR("memRegister: cannot map the buffer: %s", why.c_str());
      return QNN_MEM_ERROR_MAPPING;
    }
    return report(rt_->register_memory(context_id, kind, std::move(m), offset, size, id));
  }
  Qnn_ErrorHandle_t mem_register_range(uint64_t context_id, std::shared_ptr<const htp::MappedRange> range,
                                       htp::MemoryKind kind, uint64_t* id) override {
    const uint64_t size = range ? range->size() : 0;
    return report(rt_->register_memory(context_id, kind, std::move(range), 0, size, id));
  }
  Qnn_ErrorHandle_t mem_deregister(uint64_t id) override { return report(rt_->deregister_memory(id)); }
  Qnn_ErrorHandle_t execute(uint64_t graph_id, std::span<const htp::ExecBinding> inputs,
                            std::span<const htp::ExecBinding> outputs, htp::ExecTiming timing, htp::ExecResult* dsp,
                            TransportCopies* copies, ipc::htp_wire::ControlWire* control) override {
    const htp::CallControl c = control_of(control);
    const htp::Status s = rt_->execute(graph_id, inputs, outputs, dsp, control != nullptr ? &c : nullptr, timing);
    if (!s.ok()) return report(s);
    // Client buffers are used where they are: nothing is copied.
    uint64_t in_place = 0;
    for (const auto& b : inputs) in_place += b.mem_id == 0 ? b.bytes : 0;
    for (const auto& b : outputs) in_place += b.mem_id == 0 ? b.bytes : 0;
    *copies = TransportCopies{};
    copies->bytes_by_reference = in_place;
    return QNN_SUCCESS;
  }

 private:
  static htp::CallControl control_of(const ipc::htp_wire::ControlWire* w) {
    return w != nullptr ? htp::CallControl{&w->abort, w->deadline_ns} : htp::CallControl{};
  }
  htp::Runtime* rt_;
  ipc::FdMappingCache mappings_;
};

}  // namespace

std::shared_ptr<HtpStub> make_inproc_stub(Qnn_ErrorHandle_t* err) {
  // Beside libQnnHtp in the SDK (common/library_location.h), so a client's
  // symlink or copy of libQnnHtp.so still finds the runtime.
  std::string searched;
  const std::string path =
      find_sdk_file(reinterpret_cast<const void*>(&make_inproc_stub), std::string("dsp/") + wire::kSkelLibrary, &searched);
  if (path.empty()) {
    QNN_LOG_ERROR("in-process transport: the HTP runtime dsp/%s is not in any of: %s", wire::kSkelLibrary,
                  searched.c_str());
    *err = QNN_COMMON_ERROR_LOADING_BINARIES;
    return nullptr;
  }
  prefer_openmp_spin_then_sleep();  // the skel brings oneDNN and libgomp into this process
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto get_runtime = lib ? reinterpret_cast<htp::Runtime* (*)()>(dlsym(lib, wire::kRuntimeSymbol)) : nullptr;
  htp::Runtime* rt = get_runtime ? get_runtime() : nullptr;
  if (rt == nullptr) {
    QNN_LOG_ERROR("in-process transport: cannot load the HTP runtime from %s: %s", path.c_str(),
                  lib ? "no runtime entry point" : dlerror());
    *err = QNN_COMMON_ERROR_LOADING_BINARIES;
    return nullptr;
  }
  return std::make_shared<InProcessStub>(rt);
}

}  // namespace openhtp::qnn
