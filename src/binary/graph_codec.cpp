#include "binary/graph_codec.h"

#include <cstdint>
#include <set>

#include "binary/aligned_bytes.h"
#include "binary/graph_tables.h"

namespace openhtp::binary {
namespace {

template <typename T>
std::vector<T> to_vector(const flatbuffers::Vector<T>* v) {
  return v == nullptr ? std::vector<T>{} : std::vector<T>(v->begin(), v->end());
}

std::string to_string(const flatbuffers::String* s) { return s == nullptr ? std::string() : s->str(); }

}  // namespace

flatbuffers::Offset<fb::Graph> build_graph(flatbuffers::FlatBufferBuilder& b, const htp::GraphSpec& graph,
                                           const std::set<uint32_t>* omit_data) {
  std::vector<flatbuffers::Offset<fb::Tensor>> tensors;
  tensors.reserve(graph.tensors.size());
  for (const auto& t : graph.tensors) {
    auto name = b.CreateString(t.name);
    auto dims = b.CreateVector(t.dims);
    const bool with_data = !t.static_data.empty() && (omit_data == nullptr || omit_data->count(t.id) == 0);
    auto data = with_data ? b.CreateVector(t.static_data.data(), t.static_data.size())
                          : flatbuffers::Offset<flatbuffers::Vector<uint8_t>>();
    fb::ScaleOffset q(t.quant.scale, t.quant.offset);
    flatbuffers::Offset<fb::AxisQuant> axis_quant;
    if (t.quant.per_channel()) {
      axis_quant = fb::CreateAxisQuant(b, t.quant.axis, b.CreateVector(t.quant.scales), b.CreateVector(t.quant.offsets));
    }
    fb::TensorBuilder tb(b);
    tb.add_id(t.id);
    tb.add_name(name);
    tb.add_type(t.type);
    tb.add_dtype(t.dtype);
    tb.add_dims(dims);
    if (t.quant.present && !t.quant.per_channel()) tb.add_quant(&q);
    if (t.quant.per_channel()) tb.add_axis_quant(axis_quant);
    if (with_data) tb.add_data(data);
    if (t.sparse.is_sparse) {
      tb.add_sparse_specified(t.sparse.specified);
      tb.add_sparse_dims(t.sparse.sparse_dims);
    }
    tensors.push_back(tb.Finish());
  }
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  nodes.reserve(graph.nodes.size());
  for (const auto& n : graph.nodes) {
    std::vector<flatbuffers::Offset<fb::Param>> params;
    for (const auto& p : n.params) {
      params.push_back(fb::CreateParam(b, b.CreateString(p.name), p.is_tensor, p.dtype, p.i, p.f, b.CreateVector(p.dims),
                                       b.CreateVector(p.data)));
    }
    nodes.push_back(fb::CreateNode(b, b.CreateString(n.name), b.CreateString(n.package), b.CreateString(n.type),
                                   b.CreateVector(params), b.CreateVector(n.inputs), b.CreateVector(n.outputs)));
  }
  return fb::CreateGraph(b, b.CreateString(graph.name), b.CreateVector(tensors), b.CreateVector(nodes),
                         graph.vtcm_budget_bytes, graph.num_hvx_threads);
}

std::vector<uint8_t> encode_graph(const htp::GraphSpec& graph, const std::set<uint32_t>* omit_data) {
  flatbuffers::FlatBufferBuilder b(1024);
  b.Finish(build_graph(b, graph, omit_data), fb::GraphIdentifier());
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

bool decode_graph(const uint8_t* data, size_t size, htp::GraphSpec* graph, std::string* error) {
  AlignedBytes aligned;
  if (data != nullptr) data = aligned.get(data, size);
  flatbuffers::Verifier verifier(data, size);
  if (data == nullptr || !fb::VerifyGraphBuffer(verifier)) {
    *error = "graph blob failed FlatBuffers verification (" + std::to_string(size) + " bytes)";
    return false;
  }
  return read_graph(fb::GetGraph(data), graph, error);
}

bool read_graph(const fb::Graph* g, htp::GraphSpec* graph, std::string* error,
                const std::shared_ptr<const void>& in_place) {
  if (g == nullptr) {
    *error = "missing graph table";
    return false;
  }
  htp::GraphSpec out;
  out.name = to_string(g->name());
  out.vtcm_budget_bytes = g->vtcm_budget_bytes();
  out.num_hvx_threads = g->num_hvx_threads();
  std::set<uint32_t> ids;
  if (g->tensors() != nullptr) {
    for (const fb::Tensor* t : *g->tensors()) {
      htp::TensorSpec ts;
      ts.id = t->id();
      ts.name = to_string(t->name());
      ts.type = t->type();
      ts.dtype = t->dtype();
      ts.dims = to_vector(t->dims());
      if (t->quant() != nullptr) ts.quant = ops::Quant::per_tensor(t->quant()->scale(), t->quant()->offset());
      if (const fb::AxisQuant* aq = t->axis_quant(); aq != nullptr) {
        ts.quant = ops::Quant{};
        ts.quant.present = true;
        ts.quant.axis = aq->axis();
        ts.quant.scales = to_vector(aq->scales());
        ts.quant.offsets = to_vector(aq->offsets());
        // Untrusted bytes: the encoding must fit the tensor before any kernel
        // indexes its arrays by channel.
        if (ts.quant.axis < 0 || static_cast<size_t>(ts.quant.axis) >= ts.dims.size() ||
            ts.quant.scales.size() != ts.dims[static_cast<size_t>(ts.quant.axis)] ||
            ts.quant.offsets.size() != ts.quant.scales.size()) {
          *error = "graph blob: tensor '" + ts.name + "' has a per-channel encoding that does not match its dims";
          return false;
        }
      }
      if (t->data() != nullptr) {
        const std::span<const uint8_t> bytes(t->data()->data(), t->data()->size());
        ts.static_data = in_place ? htp::StaticBytes::view(in_place, bytes) : htp::StaticBytes::copy_of(bytes);
      }
      if (t->sparse_specified() != 0 || t->sparse_dims() != 0) {
        // Untrusted bytes: the layout must be one the QNN layer accepts
        // (NATIVE, 1 <= S <= rank, 1 <= K <= the positions of the sparse
        // dims) before any kernel sizes or indexes the storage by it.
        const uint32_t k = t->sparse_specified(), s = t->sparse_dims();
        uint64_t positions = 1;
        for (uint32_t d = 0; d < s && d < ts.dims.size(); ++d) {
          positions = ts.dims[d] != 0 && positions > UINT64_MAX / ts.dims[d] ? UINT64_MAX : positions * ts.dims[d];
        }
        if (ts.type != htp::tensor_type::kNative || s == 0 || s > ts.dims.size() || k == 0 || k > positions) {
          *error = "graph blob: tensor '" + ts.name + "' has a sparse layout (" + std::to_string(k) +
                   " specified elements, " + std::to_string(s) + " sparse dims) that does not fit it";
          return false;
        }
        ts.sparse = {true, k, s};
      }
      if (!ids.insert(ts.id).second) {
        *error = "graph blob: tensor id " + std::to_string(ts.id) + " appears twice";
        return false;
      }
      out.tensors.push_back(std::move(ts));
    }
  }
  if (g->nodes() != nullptr) {
    for (const fb::Node* n : *g->nodes()) {
      htp::NodeSpec ns;
      ns.name = to_string(n->name());
      ns.package = to_string(n->package());
      ns.type = to_string(n->type());
      ns.inputs = to_vector(n->inputs());
      ns.outputs = to_vector(n->outputs());
      if (n->params() != nullptr) {
        for (const fb::Param* p : *n->params()) {
          ops::Param op;
          op.name = to_string(p->name());
          op.is_tensor = p->is_tensor();
          op.dtype = p->dtype();
          op.i = p->i();
          op.f = p->f();
          op.dims = to_vector(p->dims());
          op.data = to_vector(p->data());
          ns.params.push_back(std::move(op));
        }
      }
      for (uint32_t id : ns.inputs) {
        if (id != htp::kNoTensor && ids.count(id) == 0) {
          *error = "graph blob: node '" + ns.name + "' uses unknown tensor id " + std::to_string(id);
          return false;
        }
      }
      for (uint32_t id : ns.outputs) {
        if (ids.count(id) == 0) {
          *error = "graph blob: node '" + ns.name + "' produces unknown tensor id " + std::to_string(id);
          return false;
        }
      }
      out.nodes.push_back(std::move(ns));
    }
  }
  *graph = std::move(out);
  return true;
}

}  // namespace openhtp::binary
