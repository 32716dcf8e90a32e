#include "onnx/model.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "onnx/attributes.h"
#include "onnx/einsum_equation.h"
#include "onnx/external_data.h"
#include "onnx/model_checks.h"
#include "ops/quant.h"

namespace openhtp::onnx_import {

namespace onnx_type {

size_t element_size(int32_t t) {
  switch (t) {
    case kFloat: case kInt32: case kUint32: return 4;
    case kUint8: case kInt8: case kBool: return 1;
    case kUint16: case kInt16: case kFloat16: case kBfloat16: return 2;
    case kInt64: case kDouble: case kUint64: return 8;
    default: return 0;
  }
}

const char* name(int32_t t) {
  if (onnx::TensorProto_DataType_IsValid(t)) {
    static thread_local std::string s;
    s = onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t));
    return s.c_str();
  }
  return "UNKNOWN";
}

}  // namespace onnx_type

namespace {

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace

size_t Tensor::count() const {
  size_t n = 1;
  for (int64_t d : dims) n *= static_cast<size_t>(d);
  return n;
}

double Tensor::get(size_t i) const {
  const uint8_t* p = data.data() + i * onnx_type::element_size(elem_type);
  switch (elem_type) {
    case onnx_type::kFloat: return load<float>(p);
    case onnx_type::kDouble: return load<double>(p);
    case onnx_type::kFloat16: return ops::quant::half_to_float(load<uint16_t>(p));
    case onnx_type::kBfloat16: return ops::quant::bfloat16_to_float(load<uint16_t>(p));
    default: return static_cast<double>(get_int(i));
  }
}

int64_t Tensor::get_int(size_t i) const {
  const uint8_t* p = data.data() + i * onnx_type::element_size(elem_type);
  switch (elem_type) {
    case onnx_type::kUint8: case onnx_type::kBool: return *p;
    case onnx_type::kInt8: return static_cast<int8_t>(*p);
    case onnx_type::kUint16: return load<uint16_t>(p);
    case onnx_type::kInt16: return load<int16_t>(p);
    case onnx_type::kInt32: return load<int32_t>(p);
    case onnx_type::kUint32: return load<uint32_t>(p);
    case onnx_type::kInt64: return load<int64_t>(p);
    case onnx_type::kUint64: return static_cast<int64_t>(load<uint64_t>(p));
    default: return static_cast<int64_t>(get(i));
  }
}

void Tensor::set(size_t i, double v) {
  uint8_t* p = data.data() + i * onnx_type::element_size(elem_type);
  switch (elem_type) {
    case onnx_type::kFloat: store<float>(p, static_cast<float>(v)); break;
    case onnx_type::kDouble: store<double>(p, v); break;
    case onnx_type::kFloat16: store<uint16_t>(p, ops::quant::float_to_half(static_cast<float>(v))); break;
    case onnx_type::kBool: *p = v != 0.0 ? 1 : 0; break;
    case onnx_type::kUint8: *p = static_cast<uint8_t>(static_cast<int64_t>(v)); break;
    case onnx_type::kInt8: *p = static_cast<uint8_t>(static_cast<int8_t>(static_cast<int64_t>(v))); break;
    case onnx_type::kUint16: store<uint16_t>(p, static_cast<uint16_t>(static_cast<int64_t>(v))); break;
    case onnx_type::kInt16: store<int16_t>(p, static_cast<int16_t>(static_cast<int64_t>(v))); break;
    case onnx_type::kInt32: store<int32_t>(p, static_cast<int32_t>(static_cast<int64_t>(v))); break;
    case onnx_type::kUint32: store<uint32_t>(p, static_cast<uint32_t>(static_cast<int64_t>(v))); break;
    case onnx_type::kInt64: store<int64_t>(p, static_cast<int64_t>(v)); break;
    case onnx_type::kUint64: store<uint64_t>(p, static_cast<uint64_t>(v)); break;
    default: break;
  }
}

std::vector<double> Tensor::to_doubles() const {
  std::vector<double> v(count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = get(i);
  return v;
}

std::vector<int64_t> Tensor::to_ints() const {
  std::vector<int64_t> v(count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = get_int(i);
  return v;
}

std::vector<float> Tensor::to_floats() const {
  std::vector<float> v(count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(get(i));
  return v;
}

uint64_t checked_element_count(const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return UINT64_MAX;
    if (d == 0) return 0;
  }
  for (int64_t d : dims) {
    if (n > (uint64_t{1} << 63) / static_cast<uint64_t>(d)) return UINT64_MAX;
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

std::string tensor_size_problem(const std::vector<int64_t>& dims, size_t element_size, uint64_t max_bytes) {
  const uint64_t n = checked_element_count(dims);
  std::string shape;
  for (size_t i = 0; i < dims.size(); ++i) shape += (i ? "x" : "") + std::to_string(dims[i]);
  if (dims.empty()) shape = "scalar";
  if (n > kMaxTensorElements) {
    return "shape " + shape + " has " + (n == UINT64_MAX ? std::string("more than 2^63") : std::to_string(n)) +
           " elements, more than the 2^31 a QNN tensor holds";
  }
  if (max_bytes != 0 && n * element_size > max_bytes) {
    return "shape " + shape + " takes " + std::to_string(n * element_size) + " bytes, more than the " +
           std::to_string(max_bytes) + " (1 GiB) the converter computes for one constant";
  }
  return "";
}

Tensor Tensor::zeros(int32_t elem_type, std::vector<int64_t> dims) {
  if (std::string why = tensor_size_problem(dims, onnx_type::element_size(elem_type), kMaxComputedConstantBytes);
      !why.empty()) {
    throw TensorTooLarge(why);
  }
  Tensor t;
  t.elem_type = elem_type;
  t.dims = std::move(dims);
  t.data.assign(t.count() * onnx_type::element_size(elem_type), 0);
  return t;
}

Tensor Tensor::from_floats(std::vector<int64_t> dims, const std::vector<float>& values) {
  Tensor t = zeros(onnx_type::kFloat, std::move(dims));
  std::memcpy(t.data.data(), values.data(), std::min(t.data.size(), values.size() * 4));
  return t;
}

Tensor Tensor::from_ints(int32_t elem_type, std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  Tensor t = zeros(elem_type, std::move(dims));
  for (size_t i = 0; i < t.count() && i < values.size(); ++i) {
    if (elem_type == onnx_type::kInt64) {
      store<int64_t>(t.data.data() + 8 * i, values[i]);
    } else {
      t.set(i, static_cast<double>(values[i]));
    }
  }
  return t;
}

bool tensor_from_proto(const onnx::TensorProto& proto, Tensor* out, std::string* error) {
  const std::string what = "tensor '" + proto.name() + "'";
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    *error = what + ": external data is only read by load_model_file (it knows the folder)";
    return false;
  }
  const int32_t type = proto.data_type();
  const size_t esize = onnx_type::element_size(type);
  if (esize == 0) {
    *error = what + ": element type " + onnx_type::name(type) + " is not supported";
    return false;
  }
  Tensor t;
  t.elem_type = type;
  t.dims.assign(proto.dims().begin(), proto.dims().end());
  for (int64_t d : t.dims) {
    if (d < 0) {
      *error = what + ": negative dimension " + std::to_string(d);
      return false;
    }
  }
  // The declared shape is checked against the limit and against the data
  // actually present before anything is allocated: dims [4, 10^12] with 48
  // bytes of data must be refused, not allocated.
  if (std::string why = tensor_size_problem(t.dims, esize, 0); !why.empty()) {
    *error = what + ": " + why;
    return false;
  }
  const size_t n = t.count();
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != n * esize) {
      *error = what + ": raw_data has " + std::to_string(proto.raw_data().size()) + " bytes, expected " +
               std::to_string(n * esize) + " (shape " + dims_to_string(t.dims) + " of " + onnx_type::name(type) + ")";
      return false;
    }
    t.data.assign(n * esize, 0);
    std::memcpy(t.data.data(), proto.raw_data().data(), t.data.size());
    *out = std::move(t);
    return true;
  }
  // Typed fields: which repeated field holds the values depends on the type
  // (onnx.proto's comments on each field).
  size_t have = 0;
  auto check = [&](size_t got) {
    have = got;
    if (got != n) {
      *error = what + ": has " + std::to_string(got) + " values for " + std::to_string(n) + " elements (shape " +
               dims_to_string(t.dims) + ")";
      return false;
    }
    t.data.assign(n * esize, 0);  // only now that the values are there
    return true;
  };
  switch (type) {
    case onnx_type::kFloat:
      if (!check(proto.float_data_size())) return false;
      for (size_t i = 0; i < n; ++i) store<float>(t.data.data() + 4 * i, proto.float_data(i));
      break;
    case onnx_type::kDouble:
      if (!check(proto.double_data_size())) return false;
      for (size_t i = 0; i < n; ++i) store<double>(t.data.data() + 8 * i, proto.double_data(i));
      break;
    case onnx_type::kInt64:
      if (!check(proto.int64_data_size())) return false;
      for (size_t i = 0; i < n; ++i) store<int64_t>(t.data.data() + 8 * i, proto.int64_data(i));
      break;
    case onnx_type::kUint32: case onnx_type::kUint64:
      if (!check(proto.uint64_data_size())) return false;
      for (size_t i = 0; i < n; ++i) {
        if (type == onnx_type::kUint32) store<uint32_t>(t.data.data() + 4 * i, static_cast<uint32_t>(proto.uint64_data(i)));
        else store<uint64_t>(t.data.data() + 8 * i, proto.uint64_data(i));
      }
      break;
    case onnx_type::kFloat16: case onnx_type::kBfloat16:
      // The 16 bits are stored in int32_data.
      if (!check(proto.int32_data_size())) return false;
      for (size_t i = 0; i < n; ++i) store<uint16_t>(t.data.data() + 2 * i, static_cast<uint16_t>(proto.int32_data(i)));
      break;
    default:  // int32, int16, int8, uint16, uint8, bool
      if (!check(proto.int32_data_size())) return false;
      for (size_t i = 0; i < n; ++i) t.set(i, static_cast<double>(proto.int32_data(i)));
      break;
  }
  (void)have;
  *out = std::move(t);
  return true;
}

void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* out) {
  out->Clear();
  out->set_name(name);
  out->set_data_type(t.elem_type);
  for (int64_t d : t.dims) out->add_dims(d);
  out->set_raw_data(std::string(reinterpret_cast<const char*>(t.data.data()), t.data.size()));
}

bool read_tensor_file(const std::string& path, Tensor* out, std::string* name, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  onnx::TensorProto proto;
  if (!f || !proto.ParseFromIstream(&f)) {
    *error = path + ": cannot read a serialized TensorProto";
    return false;
  }
  if (name != nullptr) *name = proto.name();
  if (!tensor_from_proto(proto, out, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

bool ValueInfo::is_static() const {
  if (!has_shape) return false;
  for (int64_t d : dims) {
    if (d < 0) return false;
  }
  return true;
}

const Tensor* Model::constant(const std::string& name) const {
  auto it = constants.find(name);
  return it == constants.end() ? nullptr : &it->second;
}

const ValueInfo* Model::info(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

std::string oversized_value(const Model& model) {
  for (const auto& [name, v] : model.values) {
    if (!v.has_shape) continue;
    std::vector<int64_t> known;
    for (int64_t d : v.dims) known.push_back(d < 0 ? 1 : d);  // unknown dims do not hide the known ones
    if (std::string why = tensor_size_problem(known, 1, 0); !why.empty()) return "tensor '" + name + "': " + why;
  }
  return "";
}

std::string dims_to_string(const std::vector<int64_t>& dims) {
  if (dims.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

bool load_model_file(const std::string& path, onnx::ModelProto* out, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    *error = path + ": cannot open";
    return false;
  }
  if (!out->ParseFromIstream(&f)) {
    *error = path + ": not a serialized ONNX ModelProto";
    return false;
  }
  // External weights are read now, so every pass sees ordinary initializers.
  if (!load_external_data(std::filesystem::path(path).parent_path().string(), out, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

namespace {

ValueInfo value_info_from(const onnx::TypeProto& type) {
  ValueInfo v;
  if (!type.has_tensor_type()) return v;
  v.elem_type = type.tensor_type().elem_type();
  if (type.tensor_type().has_shape()) {
    v.has_shape = true;
    for (const auto& d : type.tensor_type().shape().dim()) v.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  }
  return v;
}

void set_value_info(const std::string& name, const ValueInfo& v, onnx::ValueInfoProto* out) {
  out->set_name(name);
  auto* tt = out->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(v.elem_type);
  if (v.has_shape) {
    auto* shape = tt->mutable_shape();
    for (int64_t d : v.dims) {
      auto* dim = shape->add_dim();
      if (d >= 0) dim->set_dim_value(d);
    }
  }
}

}  // namespace

bool model_from_proto(const onnx::ModelProto& proto, Model* out, std::string* error,
                      const std::map<std::string, std::vector<int64_t>>& input_dims) {
  // What ONNX forbids is refused before shape inference, which divides by
  // strides and trusts single assignment (model_checks.h).
  if (std::string why = check_model_structure(proto); !why.empty()) {
    *error = why;
    return false;
  }
  Model m;
  const onnx::GraphProto& g = proto.graph();
  m.graph_name = g.name().empty() ? "onnx_graph" : g.name();
  for (const auto& op : proto.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") {
      m.opset = op.version();
    } else {
      m.other_opsets[op.domain()] = op.version();
    }
  }
  if (m.opset == 0) {
    // A model of training ops alone (ai.onnx.preview.training 1, which came
    // with ONNX opset 12) is rewritten into default-domain element-wise ops
    // (training_ops.h): those are read as opset 12.
    for (const auto& op : proto.opset_import()) {
      if (op.domain() == "ai.onnx.preview.training" && op.version() == 1) m.opset = 12;
    }
  }
  if (m.opset == 0) {
    *error = "model imports no opset of the default ONNX domain";
    return false;
  }
  for (const auto& init : g.initializer()) {
    Tensor t;
    if (!tensor_from_proto(init, &t, error)) return false;
    m.constants[init.name()] = std::move(t);
  }
  for (const auto& in : g.input()) {
    if (m.is_constant(in.name())) continue;  // IR < 4 lists initializers as inputs too
    ValueInfo v = value_info_from(in.type());
    if (auto it = input_dims.find(in.name()); it != input_dims.end()) {
      v.dims = it->second;
      v.has_shape = true;
    }
    m.values[in.name()] = v;
    m.inputs.push_back(in.name());
  }
  for (const auto& [name, dims] : input_dims) {
    if (m.values.count(name) == 0) {
      *error = "--input_dim names '" + name + "', which is not a graph input";
      return false;
    }
  }
  for (const auto& o : g.output()) {
    m.outputs.push_back(o.name());
    m.values[o.name()] = value_info_from(o.type());
  }
  for (const auto& vi : g.value_info()) m.values[vi.name()] = value_info_from(vi.type());
  m.nodes.assign(g.node().begin(), g.node().end());
  for (const auto& [name, t] : m.constants) m.values[name] = ValueInfo{t.elem_type, t.dims, true};
  if (!infer_shapes(&m, error)) return false;
  if (std::string why = oversized_value(m); !why.empty()) {
    *error = why;
    return false;
  }
  *out = std::move(m);
  return true;
}

namespace {

// Outputs whose dims ONNX 1.12's shape inference leaves unknown but the
// operands fix: an Einsum's (its inference gives the rank alone). Sets them
// in model->values; returns the names it set.
std::vector<std::string> complete_shapes(Model* model) {
  std::vector<std::string> completed;
  for (const auto& n : model->nodes) {
    if (n.op_type() != "Einsum" || !n.domain().empty() || n.output_size() != 1) continue;
    ValueInfo& out = model->values[n.output(0)];
    if (out.is_static()) continue;
    std::vector<std::vector<int64_t>> operands;
    std::vector<size_t> ranks;
    int32_t elem_type = 0;
    for (const auto& in : n.input()) {
      const auto it = model->values.find(in);
      if (it == model->values.end() || !it->second.is_static()) break;
      operands.push_back(it->second.dims);
      ranks.push_back(it->second.dims.size());
      if (elem_type == 0) elem_type = it->second.elem_type;
    }
    if (operands.size() != static_cast<size_t>(n.input_size())) continue;
    EinsumEquation e;
    std::vector<int64_t> dims;
    if (!parse_einsum(attr_string(n, "equation", ""), ranks, &e).empty() || !einsum_output_dims(e, operands, &dims)) continue;
    out = ValueInfo{out.elem_type != 0 ? out.elem_type : elem_type, dims, true};
    completed.push_back(n.output(0));
  }
  return completed;
}

}  // namespace

bool infer_shapes(Model* model, std::string* error) {
  // Rebuild a ModelProto of the model as it is now: constants become
  // initializers, so shape inference sees folded Reshape targets etc.
  onnx::ModelProto p;
  p.set_ir_version(8);
  auto* opset = p.add_opset_import();
  opset->set_domain("");
  opset->set_version(model->opset);
  for (const auto& [domain, version] : model->other_opsets) {
    auto* other = p.add_opset_import();
    other->set_domain(domain);
    other->set_version(version);
  }
  onnx::GraphProto* g = p.mutable_graph();
  g->set_name(model->graph_name);
  std::map<std::string, bool> used;
  for (const auto& n : model->nodes) {
    *g->add_node() = n;
    for (const auto& i : n.input()) used[i] = true;
  }
  for (const auto& o : model->outputs) used[o] = true;
  for (const auto& [name, t] : model->constants) {
    if (used.count(name) == 0) continue;
    // Shape inference only needs the data of small (shape-like) constants;
    // big weights are declared by type and shape alone.
    if (t.count() <= 64) {
      tensor_to_proto(t, name, g->add_initializer());
    } else {
      set_value_info(name, ValueInfo{t.elem_type, t.dims, true}, g->add_input());
    }
  }
  for (const auto& name : model->inputs) set_value_info(name, model->values[name], g->add_input());
  for (const auto& name : model->outputs) {
    auto* o = g->add_output();
    o->set_name(name);
    if (auto it = model->values.find(name); it != model->values.end() && it->second.elem_type != 0) {
      set_value_info(name, it->second, o);
    }
  }
  auto merge = [&](const onnx::ValueInfoProto& vi) {
    ValueInfo v = value_info_from(vi.type());
    if (v.elem_type == 0) return;
    ValueInfo& cur = model->values[vi.name()];
    // Keep what we knew when inference knows less (e.g. a declared output shape).
    if (cur.elem_type == 0) cur.elem_type = v.elem_type;
    if (v.has_shape && (!cur.is_static() || v.is_static())) {
      cur.dims = v.dims;
      cur.has_shape = true;
    }
  };
  // ONNX's inference, then the outputs it leaves without dims that the
  // importer can work out (complete_shapes), declared in the graph for the
  // next pass so the nodes after them get theirs; until a pass completes
  // nothing more (each completes at least one value: at most one pass per
  // node it could).
  for (;;) {
    try {
      onnx::ShapeInferenceOptions options{/*check_type=*/false, /*error_mode=*/0, /*enable_data_propagation=*/true};
      onnx::shape_inference::InferShapes(p, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
      *error = std::string("ONNX shape inference failed: ") + e.what();
      return false;
    }
    for (const auto& vi : p.graph().value_info()) merge(vi);
    for (const auto& vi : p.graph().output()) merge(vi);
    const std::vector<std::string> completed = complete_shapes(model);
    if (completed.empty()) break;
    for (const std::string& name : completed) {
      onnx::ValueInfoProto* slot = nullptr;  // inference's own entry (rank only) is replaced
      for (auto& vi : *g->mutable_value_info()) {
        if (vi.name() == name) slot = &vi;
      }
      if (slot == nullptr) slot = g->add_value_info();
      slot->Clear();
      set_value_info(name, model->values[name], slot);
    }
  }
  for (const auto& [name, t] : model->constants) model->values[name] = ValueInfo{t.elem_type, t.dims, true};
  return true;
}

namespace {

// "has no shape", or "has symbolic dimension 'batch' at axis 0, ...".
std::string unset_dims_of(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return "has no shape";
  std::string what;
  const auto& dims = type.tensor_type().shape().dim();
  for (int i = 0; i < dims.size(); ++i) {
    if (dims[i].has_dim_value() && dims[i].dim_value() >= 0) continue;
    what += what.empty() ? "" : ", ";
    what += dims[i].has_dim_param() ? "symbolic dimension '" + dims[i].dim_param() + "'" : std::string("unset dimension");
    what += " at axis " + std::to_string(i);
  }
  return "has " + what;
}

// The shape with every unknown dimension as 1, comma-separated, as -d takes it.
std::string suggested_dims(const ValueInfo& v) {
  if (!v.has_shape || v.dims.empty()) return "D0,D1,...";
  std::string s;
  for (int64_t d : v.dims) s += (s.empty() ? "" : ",") + std::to_string(d >= 0 ? d : 1);
  return s;
}

}  // namespace

std::string unset_input_shape(const onnx::ModelProto& proto, const Model& model) {
  for (const auto& in : proto.graph().input()) {
    auto v = model.values.find(in.name());
    if (model.is_constant(in.name()) || v == model.values.end() || v->second.is_static()) continue;
    // QNN graphs have static shapes: say here which input and dimension, and
    // the option that fixes it, rather than once per node that uses it.
    return "graph input '" + in.name() + "' " + unset_dims_of(in.type()) + ": give its shape with -d " + in.name() +
           " " + suggested_dims(v->second) + " (--input_dim)";
  }
  return "";
}

}  // namespace openhtp::onnx_import
