#include "qnn/execute_memo.h"

#include "qnn/tensor_view.h"

namespace openhtp::qnn {

ExecuteMemo& ExecuteMemo::of_this_thread() {
  // One thread_local for everything, looked up once per execute (in a shared
  // library each use of a thread_local may cost a __tls_get_addr call).
  thread_local ExecuteMemo memo;
  return memo;
}

void ExecuteMemo::revalidate() {
  const uint64_t now = ObjectTable::instance().removals();
  if (now == removals_) return;
  removals_ = now;
  graph_handle_ = 0;
  graph_.reset();
  mems_.clear();
  request_graph_ = nullptr;
}

std::shared_ptr<Graph> ExecuteMemo::graph(const void* handle) {
  const uint64_t h = reinterpret_cast<uintptr_t>(handle);
  if (h == graph_handle_ && h != 0) {
    // Nothing was removed since it was live, so the lock succeeds (unless a
    // removal races with this call, which then orders after it).
    if (auto g = graph_.lock()) return g;
  }
  uint64_t removals;
  auto g = std::static_pointer_cast<Graph>(ObjectTable::instance().find(ObjectKind::kGraph, handle, &removals));
  if (g && removals == removals_) {
    graph_handle_ = h;
    graph_ = g;
  }
  return g;
}

bool ExecuteMemo::mem(const void* handle, Mem* out) {
  const uint64_t h = reinterpret_cast<uintptr_t>(handle);
  for (const Mem& m : mems_) {
    if (m.handle == h && h != 0) {
      *out = m;
      return true;
    }
  }
  uint64_t removals;
  auto obj = ObjectTable::instance().find(ObjectKind::kMem, handle, &removals);
  if (!obj) return false;
  const auto& m = static_cast<const MemHandle&>(*obj);
  *out = Mem{h, m.context_handle, m.bytes, m.remote_id};
  if (removals == removals_) {
    if (mems_.size() >= kMaxMems) mems_.clear();
    mems_.push_back(*out);
  }
  return true;
}

ExecuteMemo::TensorKey ExecuteMemo::key_of(const Qnn_Tensor_t& t) {
  const TensorView v(&t);
  if (!v.version_known()) return {};  // id 0: never a bound tensor's
  if (v.mem_type() == QNN_TENSORMEMTYPE_MEMHANDLE) return {v.id(), v.mem_type(), v.mem_handle(), 0};
  return {v.id(), v.mem_type(), v.client_buf().data, v.client_buf().dataSize};
}

bool ExecuteMemo::TensorKey::matches(const Qnn_Tensor_t& t) const {
  // Field by field, without building the tensor's key: this runs on every
  // execute. An unknown version never matches (bind_tensors refuses it).
  if (t.version != QNN_TENSOR_VERSION_1 && t.version != QNN_TENSOR_VERSION_2) return false;
  const Qnn_TensorV1_t& v = t.v1;  // V2 begins with V1's fields (tensor_view.h)
  if (v.id != id || v.memType != mem_type) return false;
  if (v.memType == QNN_TENSORMEMTYPE_MEMHANDLE) return v.memHandle == where;
  return v.clientBuf.data == where && v.clientBuf.dataSize == size;
}

bool ExecuteMemo::same_request(const void* graph, const Qnn_Tensor_t* in, uint32_t n_in, const Qnn_Tensor_t* out,
                               uint32_t n_out) const {
  if (graph != request_graph_ || graph == nullptr || n_in != request_inputs_ || n_in + n_out != request_.size()) {
    return false;
  }
  const TensorKey* key = request_.data();
  for (uint32_t i = 0; i < n_in; ++i) {
    if (!key[i].matches(in[i])) return false;
  }
  for (uint32_t i = 0; i < n_out; ++i) {
    if (!key[n_in + i].matches(out[i])) return false;
  }
  return true;
}

void ExecuteMemo::remember_request(const void* graph, const Qnn_Tensor_t* in, uint32_t n_in, const Qnn_Tensor_t* out,
                                   uint32_t n_out, uint64_t memhandle_bytes) {
  request_.clear();
  for (uint32_t i = 0; i < n_in; ++i) request_.push_back(key_of(in[i]));
  for (uint32_t i = 0; i < n_out; ++i) request_.push_back(key_of(out[i]));
  request_inputs_ = n_in;
  request_memhandle_bytes_ = memhandle_bytes;
  request_graph_ = graph;
}

}  // namespace openhtp::qnn
