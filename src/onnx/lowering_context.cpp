#include "onnx/lowering_context.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "QnnOpDef.h"
#include "onnx/attributes.h"

namespace openhtp::onnx_import {

bool qnn_dtype_for(int32_t t, Qnn_DataType_t* out) {
  switch (t) {
    case onnx_type::kFloat: *out = QNN_DATATYPE_FLOAT_32; return true;
    case onnx_type::kFloat16: *out = QNN_DATATYPE_FLOAT_16; return true;
    case onnx_type::kDouble: *out = QNN_DATATYPE_FLOAT_32; return true;
    case onnx_type::kBfloat16: *out = QNN_DATATYPE_BFLOAT_16; return true;
    case onnx_type::kInt8: *out = QNN_DATATYPE_INT_8; return true;
    case onnx_type::kInt16: *out = QNN_DATATYPE_INT_16; return true;
    case onnx_type::kInt32: case onnx_type::kInt64: *out = QNN_DATATYPE_INT_32; return true;
    case onnx_type::kUint8: *out = QNN_DATATYPE_UINT_8; return true;
    case onnx_type::kUint16: *out = QNN_DATATYPE_UINT_16; return true;
    case onnx_type::kUint32: case onnx_type::kUint64: *out = QNN_DATATYPE_UINT_32; return true;
    case onnx_type::kBool: *out = QNN_DATATYPE_BOOL_8; return true;
    default: return false;
  }
}

std::vector<uint8_t> to_qnn_bytes(const Tensor& t, Qnn_DataType_t dt) {
  const size_t n = t.count();
  std::vector<uint8_t> out(n * qnn_element_size(dt));
  if (dt == QNN_DATATYPE_FLOAT_32) {
    for (size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(t.get(i));
      std::memcpy(out.data() + 4 * i, &v, 4);
    }
    return out;
  }
  if (dt == QNN_DATATYPE_INT_32 && t.elem_type == onnx_type::kInt64) {
    for (size_t i = 0; i < n; ++i) {
      int64_t v = t.get_int(i);
      // Clamp, not wrap: INT64_MAX/MIN are the "to the end" markers of
      // Slice-like inputs and must stay at the end after narrowing.
      if (v > std::numeric_limits<int32_t>::max()) v = std::numeric_limits<int32_t>::max();
      if (v < std::numeric_limits<int32_t>::min()) v = std::numeric_limits<int32_t>::min();
      const int32_t w = static_cast<int32_t>(v);
      std::memcpy(out.data() + 4 * i, &w, 4);
    }
    return out;
  }
  // Same-width types (float16 bits, int8, uint8, int16, uint16, int32, uint32, bool).
  if (onnx_type::element_size(t.elem_type) == qnn_element_size(dt)) {
    std::memcpy(out.data(), t.data.data(), out.size());
    return out;
  }
  // uint64 -> uint32
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = static_cast<uint32_t>(t.get_int(i));
    std::memcpy(out.data() + 4 * i, &v, 4);
  }
  return out;
}

LoweringContext::LoweringContext(const Model& model, QnnGraphDesc* graph, std::set<std::string> channel_last_inputs)
    : model_(model), graph_(graph) {
  graph_->name = model.graph_name;
  for (const auto& [name, v] : model.values) used_names_.insert(name);
  for (const auto& n : model.nodes) {
    for (const auto& o : n.output()) used_names_.insert(o);
    if (!n.name().empty()) used_names_.insert(n.name());
  }
  for (const std::string& in : model.inputs) {
    const ValueInfo& v = info(in);
    QTensor t;
    t.name = in;
    t.type = QNN_TENSOR_TYPE_APP_WRITE;
    t.dtype = dtype_of(in);
    t.dims = dims_u32(in);
    if (channel_last_inputs.count(in) != 0 && v.dims.size() >= 3) {
      t.dims = permute_dims(t.dims, to_channel_last_perm(v.dims.size()));
      forms_[in].channel_last = in;
    } else {
      forms_[in].onnx_layout = in;
    }
    graph_->add(std::move(t));
    graph_->inputs.push_back(in);
  }
}

void LoweringContext::fail(const std::string& why) const { throw LoweringError(why); }

const ValueInfo& LoweringContext::info(const std::string& onnx_name) const {
  const ValueInfo* v = model_.info(onnx_name);
  if (v == nullptr || v->elem_type == 0) fail("value '" + onnx_name + "' has no known type");
  if (!v->is_static()) fail("value '" + onnx_name + "' has no static shape (give it with --input_dim)");
  return *v;
}

std::vector<uint32_t> LoweringContext::dims_u32(const std::string& onnx_name) const {
  const ValueInfo& v = info(onnx_name);
  // ONNX scalars (rank 0) are QNN [1] tensors: QNN ops want rank >= 1.
  if (v.dims.empty()) return {1};
  return {v.dims.begin(), v.dims.end()};
}

Qnn_DataType_t LoweringContext::dtype_of(const std::string& onnx_name) const {
  Qnn_DataType_t dt;
  const ValueInfo& v = info(onnx_name);
  if (!qnn_dtype_for(v.elem_type, &dt)) {
    fail("value '" + onnx_name + "' has element type " + onnx_type::name(v.elem_type) + ", which QNN has no type for");
  }
  return dt;
}

LoweringContext::Forms& LoweringContext::forms(const std::string& onnx_name) {
  std::string name = onnx_name;
  for (auto it = aliases_.find(name); it != aliases_.end(); it = aliases_.find(name)) name = it->second;
  return forms_[name];
}

bool LoweringContext::has_as_is(const std::string& onnx_name) const {
  std::string name = onnx_name;
  for (auto it = aliases_.find(name); it != aliases_.end(); it = aliases_.find(name)) name = it->second;
  auto it = forms_.find(name);
  return it != forms_.end() && !it->second.onnx_layout.empty();
}

bool LoweringContext::has_channel_last(const std::string& onnx_name) const {
  std::string name = onnx_name;
  for (auto it = aliases_.find(name); it != aliases_.end(); it = aliases_.find(name)) name = it->second;
  auto it = forms_.find(name);
  return it != forms_.end() && !it->second.channel_last.empty();
}

bool LoweringContext::prefers_channel_last(const std::string& onnx_name) const {
  return has_channel_last(onnx_name) && !has_as_is(onnx_name);
}

std::string LoweringContext::unique_name(const std::string& hint) {
  std::string name = hint.empty() ? "t" : hint;
  for (int k = 1; used_names_.count(name) != 0; ++k) name = hint + "_" + std::to_string(k);
  used_names_.insert(name);
  return name;
}

std::string LoweringContext::as_is(const std::string& onnx_name) {
  if (onnx_name.empty()) fail("a required input is missing");
  Forms& f = forms(onnx_name);
  if (!f.onnx_layout.empty()) return f.onnx_layout;
  if (const Tensor* c = model_.constant(onnx_name)) {
    f.onnx_layout = static_from(onnx_name, *c);
    std::vector<uint32_t> identity(c->dims.size());
    for (uint32_t i = 0; i < identity.size(); ++i) identity[i] = i;
    set_source(f.onnx_layout, onnx_name, std::move(identity));  // QDQ integers can be kept (quantization.cpp)
    return f.onnx_layout;
  }
  if (f.channel_last.empty()) fail("value '" + onnx_name + "' is used before it is produced");
  // Only the channel-last form exists: transpose back. The result takes the
  // ONNX name when that is still free (keeps graph output names).
  const size_t r = qtensor(f.channel_last).dims.size();
  const std::vector<uint32_t> perm = from_channel_last_perm(r);
  const QTensor& src = qtensor(f.channel_last);
  QTensor t;
  t.name = graph_->find(onnx_name) == nullptr && used_names_.count(onnx_name + "#taken") == 0
               ? onnx_name
               : unique_name(onnx_name + "_nchw");
  used_names_.insert(t.name);
  t.dtype = src.dtype;
  t.dims = permute_dims(src.dims, perm);
  const std::string in = f.channel_last;
  std::string out = graph_->add(std::move(t)).name;
  add_node(QNN_OP_TRANSPOSE, {in}, {out}, {param_u32_tensor(QNN_OP_TRANSPOSE_PARAM_PERM, {static_cast<uint32_t>(r)}, perm)});
  forms(onnx_name).onnx_layout = out;
  return out;
}

std::string LoweringContext::channel_last(const std::string& onnx_name) {
  if (onnx_name.empty()) fail("a required input is missing");
  Forms& f = forms(onnx_name);
  if (!f.channel_last.empty()) return f.channel_last;
  if (const Tensor* c = model_.constant(onnx_name)) {
    if (c->dims.size() < 3) fail("constant '" + onnx_name + "' has rank " + std::to_string(c->dims.size()) + "; channel-last needs rank >= 3");
    f.channel_last = static_from(onnx_name + "_nhwc", permute_tensor(*c, to_channel_last_perm(c->dims.size())));
    set_source(f.channel_last, onnx_name, to_channel_last_perm(c->dims.size()));
    return f.channel_last;
  }
  const std::string src = as_is(onnx_name);
  const size_t r = qtensor(src).dims.size();
  if (r < 3) fail("value '" + onnx_name + "' has rank " + std::to_string(r) + "; channel-last needs rank >= 3");
  const std::string out = transpose(src, to_channel_last_perm(r));
  forms(onnx_name).channel_last = out;
  return out;
}

std::string LoweringContext::output(const std::string& onnx_name, Layout layout, std::optional<Qnn_DataType_t> dtype) {
  QTensor t;
  t.dtype = dtype ? *dtype : dtype_of(onnx_name);
  t.dims = dims_u32(onnx_name);
  Forms& f = forms_[onnx_name];
  if (layout == Layout::kChannelLast) {
    if (t.dims.size() < 3) fail("output '" + onnx_name + "' has rank < 3; cannot be channel-last");
    t.dims = permute_dims(t.dims, to_channel_last_perm(t.dims.size()));
    t.name = unique_name(onnx_name + "_nhwc");
    f.channel_last = t.name;
  } else {
    t.name = graph_->find(onnx_name) == nullptr ? onnx_name : unique_name(onnx_name);
    used_names_.insert(t.name);
    used_names_.insert(onnx_name + "#taken");
    f.onnx_layout = t.name;
  }
  return graph_->add(std::move(t)).name;
}

void LoweringContext::alias(const std::string& onnx_name, const std::string& source) {
  if (model_.is_constant(source)) {
    // A constant's alias is a constant too; give it its own forms.
    forms_[onnx_name] = forms(source);
    if (forms_[onnx_name].onnx_layout.empty()) forms_[onnx_name].onnx_layout = as_is(source);
    return;
  }
  aliases_[onnx_name] = source;
}

std::string LoweringContext::native(const std::string& hint, Qnn_DataType_t dt, std::vector<uint32_t> dims) {
  QTensor t;
  t.name = unique_name(hint);
  t.dtype = dt;
  t.dims = std::move(dims);
  return graph_->add(std::move(t)).name;
}

std::string LoweringContext::static_tensor(const std::string& hint, Qnn_DataType_t dt, std::vector<uint32_t> dims,
                                           std::vector<uint8_t> data) {
  // A static tensor the lowering makes up is held to the same byte limit as
  // a folded constant (model.h); the model's own constants were read from
  // bytes it holds.
  if (!model_.is_constant(hint) && data.size() > kMaxComputedConstantBytes) {
    fail("the static tensor '" + hint + "' it needs takes " + std::to_string(data.size()) + " bytes, more than the " +
         std::to_string(kMaxComputedConstantBytes) + " (1 GiB) the converter makes for one constant");
  }
  QTensor t;
  // A constant keeps its ONNX name unless it is a graph output: the output
  // (a copy, finish_outputs) takes that name, as every graph output does.
  const bool is_output = std::find(model_.outputs.begin(), model_.outputs.end(), hint) != model_.outputs.end();
  t.name = graph_->find(hint) == nullptr && model_.is_constant(hint) && !is_output ? hint : unique_name(hint);
  used_names_.insert(t.name);
  t.type = QNN_TENSOR_TYPE_STATIC;
  t.dtype = dt;
  t.dims = std::move(dims);
  t.data = std::move(data);
  return graph_->add(std::move(t)).name;
}

std::string LoweringContext::static_f32(const std::string& hint, std::vector<uint32_t> dims,
                                        const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return static_tensor(hint, QNN_DATATYPE_FLOAT_32, std::move(dims), std::move(bytes));
}

std::string LoweringContext::static_from(const std::string& hint, const Tensor& value) {
  Qnn_DataType_t dt;
  if (!qnn_dtype_for(value.elem_type, &dt)) {
    fail("constant '" + hint + "' has element type " + onnx_type::name(value.elem_type) + ", which QNN has no type for");
  }
  std::vector<uint32_t> dims(value.dims.begin(), value.dims.end());
  if (dims.empty()) dims = {1};  // scalars are [1], as in dims_u32
  return static_tensor(hint, dt, std::move(dims), to_qnn_bytes(value, dt));
}

void LoweringContext::set_source(const std::string& qnn_name, const std::string& onnx_constant,
                                 std::vector<uint32_t> perm) {
  QTensor* t = graph_->find(qnn_name);
  if (t == nullptr || t->type != QNN_TENSOR_TYPE_STATIC) return;
  t->source_constant = onnx_constant;
  t->source_perm = std::move(perm);
}

void LoweringContext::add_node(const std::string& type, std::vector<std::string> inputs,
                               std::vector<std::string> outputs, std::vector<QParam> params) {
  QNode n;
  std::string base = node_ != nullptr ? (node_->name().empty() ? output_name(*node_, 0) : node_->name()) : "node";
  n.name = unique_name(base + "_" + type);
  n.type = type;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.params = std::move(params);
  n.onnx_node = node_ != nullptr ? describe_node(*node_) : std::string("(graph I/O)");
  ++node_counter_;
  graph_->nodes.push_back(std::move(n));
}

std::string LoweringContext::transpose(const std::string& qnn_in, const std::vector<uint32_t>& perm) {
  const QTensor& src = qtensor(qnn_in);
  const std::string out = native(qnn_in + "_t", src.dtype, permute_dims(src.dims, perm));
  add_node(QNN_OP_TRANSPOSE, {qnn_in}, {out},
           {param_u32_tensor(QNN_OP_TRANSPOSE_PARAM_PERM, {static_cast<uint32_t>(perm.size())}, perm)});
  return out;
}

std::string LoweringContext::reshape(const std::string& qnn_in, const std::vector<uint32_t>& dims) {
  const QTensor& src = qtensor(qnn_in);
  const std::string out = native(qnn_in + "_r", src.dtype, dims);
  add_node(QNN_OP_RESHAPE, {qnn_in}, {out});
  return out;
}

const QTensor& LoweringContext::qtensor(const std::string& qnn_name) const {
  const QTensor* t = graph_->find(qnn_name);
  if (t == nullptr) fail("internal: QNN tensor '" + qnn_name + "' does not exist");
  return *t;
}

void LoweringContext::finish_outputs() {
  node_ = nullptr;
  std::set<std::string> done;
  for (const std::string& name : model_.outputs) {
    std::string q = as_is(name);
    QTensor* t = graph_->find(q);
    const bool needs_copy = t->type != QNN_TENSOR_TYPE_NATIVE || done.count(q) != 0 || q != name;
    if (needs_copy) {
      // The value is a graph input, a constant, another output or carries a
      // generated name: copy it (a Reshape to the same shape) into a tensor
      // with the ONNX output's name.
      QTensor copy;
      copy.name = graph_->find(name) == nullptr ? name : unique_name(name + "_out");
      copy.dtype = t->dtype;
      copy.dims = t->dims;
      const std::string out = graph_->add(std::move(copy)).name;
      add_node(QNN_OP_RESHAPE, {q}, {out});
      q = out;
      t = graph_->find(q);
    }
    t->type = QNN_TENSOR_TYPE_APP_READ;
    done.insert(q);
    graph_->outputs.push_back(q);
  }
  // A graph input that no QNN node reads (CastLike's 'like', which only
  // lends its type) is left out of the QNN graph: a client would otherwise
  // have to fill a buffer nothing uses.
  std::set<std::string> read;
  for (const QNode& n : graph_->nodes) read.insert(n.inputs.begin(), n.inputs.end());
  std::set<std::string> unread;
  for (const std::string& in : graph_->inputs) {
    if (read.count(in) == 0) unread.insert(in);
  }
  if (unread.empty()) return;
  std::erase_if(graph_->inputs, [&](const std::string& in) { return unread.count(in) != 0; });
  std::erase_if(graph_->tensors, [&](const QTensor& t) { return unread.count(t.name) != 0; });
  graph_->index.clear();
  for (size_t i = 0; i < graph_->tensors.size(); ++i) graph_->index[graph_->tensors[i].name] = i;
}

}  // namespace openhtp::onnx_import
