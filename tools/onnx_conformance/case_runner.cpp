#include "case_runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "onnx/importer.h"
#include "onnx/lowering.h"
#include "onnx/lowering_context.h"
#include "ops/quant.h"

namespace openhtp::onnx_conformance {

namespace fs = std::filesystem;
using namespace openhtp::onnx_import;

namespace {

double qnn_value(const std::vector<uint8_t>& bytes, Qnn_DataType_t dt, size_t i) {
  const uint8_t* p = bytes.data() + i * qnn_element_size(dt);
  switch (dt) {
    case QNN_DATATYPE_FLOAT_32: { float v; std::memcpy(&v, p, 4); return v; }
    case QNN_DATATYPE_FLOAT_16: { uint16_t h; std::memcpy(&h, p, 2); return ops::quant::half_to_float(h); }
    case QNN_DATATYPE_BFLOAT_16: { uint16_t b; std::memcpy(&b, p, 2); return ops::quant::bfloat16_to_float(b); }
    case QNN_DATATYPE_INT_8: return static_cast<int8_t>(*p);
    case QNN_DATATYPE_UINT_8: case QNN_DATATYPE_BOOL_8: case QNN_DATATYPE_UFIXED_POINT_8: return *p;
    case QNN_DATATYPE_SFIXED_POINT_8: return static_cast<int8_t>(*p);
    case QNN_DATATYPE_INT_16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case QNN_DATATYPE_UINT_16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case QNN_DATATYPE_INT_32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case QNN_DATATYPE_UINT_32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: return std::nan("");
  }
}

bool is_float(int32_t onnx_elem_type) {
  return onnx_elem_type == onnx_type::kFloat || onnx_elem_type == onnx_type::kFloat16 ||
         onnx_elem_type == onnx_type::kDouble || onnx_elem_type == onnx_type::kBfloat16;
}

// "" when `got` matches `want`, else the first mismatch.
std::string compare(const std::string& name, const Tensor& want, const std::vector<uint8_t>& got, Qnn_DataType_t dt,
                    const std::vector<uint32_t>& got_dims) {
  size_t n = 1;
  for (uint32_t d : got_dims) n *= d;
  if (n != want.count()) {
    return "output '" + name + "': " + std::to_string(n) + " elements, expected " + std::to_string(want.count());
  }
  // ONNX's test data holds bfloat16 values as their UINT16 codes: compare codes.
  const Qnn_DataType_t read_as =
      dt == QNN_DATATYPE_BFLOAT_16 && want.elem_type == onnx_type::kUint16 ? QNN_DATATYPE_UINT_16 : dt;
  for (size_t i = 0; i < n; ++i) {
    const double g = qnn_value(got, read_as, i);
    const double w = want.get(i);
    if (is_float(want.elem_type)) {
      if (std::isnan(w) && std::isnan(g)) continue;
      if (std::isinf(w) && g == w) continue;
      if (std::fabs(g - w) <= kAtol + kRtol * std::fabs(w)) continue;
    } else if (g == w) {
      continue;
    }
    char buf[160];
    std::snprintf(buf, sizeof buf, "output '%s'[%zu] = %.7g, expected %.7g", name.c_str(), i, g, w);
    return buf;
  }
  return "";
}

// Op types whose inputs after the first are parameters in QNN (pads, axes,
// starts/ends, scales/sizes, shapes, k, split sizes, ratio/training flag;
// Compress's condition, which decides the output shape):
// QNN takes them as static op parameters, so a model that feeds them as
// graph inputs cannot be lowered as is.
const std::set<std::string> kParameterInputOps = {
    "Pad",       "Slice",      "Resize",     "Upsample",   "Reshape",    "Expand",    "Tile",
    "Split",     "Squeeze",    "Unsqueeze",  "TopK",       "ReduceMean", "ReduceSum", "ReduceMax",
    "ReduceMin", "ReduceProd", "ReduceSumSquare", "Dropout", "Clip", "Compress",
    "ReverseSequence"};

// Op types all of whose inputs only decide the output's shape or are folded
// at import (QNN has no Range or ConstantOfShape op: the importer folds them
// when their inputs are constant).
const std::set<std::string> kAllParameterOps = {"Range", "ConstantOfShape", "HannWindow", "HammingWindow",
                                                "BlackmanWindow"};

// Single parameter positions: the recurrent ops' sequence_lens (input 4;
// QNN's Gru/Lstm run every step, the importer accepts lengths equal to T).
//
// Structural positions of control flow and sequences: a Loop's trip count
// and initial condition (inputs 0 and 1) decide how many iterations exist
// and so the shapes of its scan outputs, and the importer unrolls the loop at
// conversion time; the positions of SequenceAt (1), SequenceInsert (2) and
// SequenceErase (1) and SplitToSequence's split (1) decide which tensor a
// sequence element is, and sequences are lists of tensors fixed at
// conversion time (sequence_lowering.h).
const std::map<std::string, std::set<int>> kParameterPositions = {
    {"RNN", {4}},        {"GRU", {4}},           {"LSTM", {4}},          {"Loop", {0, 1}},
    {"SequenceAt", {1}}, {"SequenceInsert", {2}}, {"SequenceErase", {1}}, {"SplitToSequence", {1}}};

// Positions whose value decides a static shape, as every input of
// kAllParameterOps does: whatever such an input is computed from is bound
// too (a Loop's trip count computed from a Range's start, limit and delta).
const std::map<std::string, std::set<int>> kShapePositions = {{"Loop", {0, 1}}};

// The graph inputs of `proto` every use of which is a parameter: a parameter
// position of a kParameterInputOps node, any input of a kAllParameterOps
// node, or (transitively) an input of a node all of whose outputs are only
// used as parameters, e.g. a window size that goes through Cast and Sub into
// Range. Such inputs decide shapes or static op parameters. So does any
// input from which a kAllParameterOps input is computed (a window size that
// is also a divisor elsewhere): the static output shape of Range depends on
// it, so no QNN graph can take it at run time. Shape and Size stop that walk:
// their outputs depend on a shape only, not on the values.
std::vector<std::string> parameter_inputs(const onnx::ModelProto& proto) {
  std::set<std::string> inputs;
  for (const auto& i : proto.graph().input()) inputs.insert(i.name());
  for (const auto& i : proto.graph().initializer()) inputs.erase(i.name());
  std::set<std::string> graph_outputs;
  for (const auto& o : proto.graph().output()) graph_outputs.insert(o.name());
  // value -> every use is a parameter (so far); values never used stay absent.
  std::map<std::string, bool> only_parameters;
  const auto& nodes = proto.graph().node();
  // Nodes in reverse topological order: a node's outputs are settled before its inputs.
  for (int ni = nodes.size() - 1; ni >= 0; --ni) {
    const auto& n = nodes[ni];
    // Shape and Size read a shape, not values: their input is no parameter.
    bool outputs_are_parameters = n.output_size() > 0 && n.op_type() != "Shape" && n.op_type() != "Size";
    for (const auto& o : n.output()) {
      if (o.empty()) continue;
      auto it = only_parameters.find(o);
      if (graph_outputs.count(o) != 0 || it == only_parameters.end() || !it->second) outputs_are_parameters = false;
    }
    for (int k = 0; k < n.input_size(); ++k) {
      if (n.input(k).empty()) continue;
      const bool parameter = kAllParameterOps.count(n.op_type()) != 0 ||
                             (kParameterPositions.count(n.op_type()) != 0 &&
                              kParameterPositions.at(n.op_type()).count(k) != 0) ||
                             (k >= 1 && kParameterInputOps.count(n.op_type()) != 0) || outputs_are_parameters;
      auto [it, fresh] = only_parameters.emplace(n.input(k), parameter);
      if (!fresh) it->second = it->second && parameter;
    }
  }
  std::set<std::string> shape_sources;  // values a kAllParameterOps input is computed from
  for (int ni = nodes.size() - 1; ni >= 0; --ni) {
    const auto& n = nodes[ni];
    bool feeds = kAllParameterOps.count(n.op_type()) != 0;
    for (const auto& o : n.output()) feeds = feeds || shape_sources.count(o) != 0;
    if (n.op_type() == "Shape" || n.op_type() == "Size") continue;
    if (!feeds) {
      if (auto it = kShapePositions.find(n.op_type()); it != kShapePositions.end()) {
        for (int k : it->second) {
          if (k < n.input_size() && !n.input(k).empty()) shape_sources.insert(n.input(k));
        }
      }
      continue;
    }
    for (const auto& i : n.input()) {
      if (!i.empty()) shape_sources.insert(i);
    }
  }
  std::vector<std::string> out;
  for (const std::string& name : inputs) {
    if (graph_outputs.count(name) != 0) continue;
    auto it = only_parameters.find(name);
    if ((it != only_parameters.end() && it->second) || shape_sources.count(name) != 0) out.push_back(name);
  }
  return out;
}

// Turns graph inputs `names` into initializers holding their values from
// test_data_set `set` (input_K.pb, K = position among `original`).
bool bind_inputs(onnx::ModelProto* proto, const std::vector<std::string>& names,
                 const std::vector<std::string>& original, const std::string& set, std::string* error) {
  auto* graph = proto->mutable_graph();
  for (const std::string& name : names) {
    const size_t pos = static_cast<size_t>(std::find(original.begin(), original.end(), name) - original.begin());
    const std::string path = set + "/input_" + std::to_string(pos) + ".pb";
    onnx::TensorProto value;
    std::ifstream f(path, std::ios::binary);
    if (!f || !value.ParseFromIstream(&f)) {
      *error = "cannot read '" + path + "'";
      return false;
    }
    value.set_name(name);
    *graph->add_initializer() = value;
    for (int i = 0; i < graph->input_size(); ++i) {
      if (graph->input(i).name() == name) {
        graph->mutable_input()->DeleteSubrange(i, 1);
        break;
      }
    }
  }
  return true;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

CaseResult run_case(BackendSession& session, const std::string& dir) {
  CaseResult r;
  onnx::ModelProto proto;
  std::string error;
  if (!load_model_file(dir + "/model.onnx", &proto, &error)) {
    // A model that cannot be read is a failure with its reason, never a
    // skip: skips are only for op types the importer does not have.
    r.outcome = CaseResult::Outcome::kFailed;
    r.reason = "unreadable model: " + error;
    return r;
  }
  // Op types with no lowering. Some (Constant, Shape, Size, ...) are folded
  // away before lowering, so whether they matter is decided on the prepared
  // model; the proto's list decides only when preparing fails.
  std::set<std::string> no_lowering;
  for (const auto& n : proto.graph().node()) {
    r.op_types.insert(n.op_type());
    if (find_lowering(n.op_type()) == nullptr) no_lowering.insert(n.op_type());
  }
  auto skip = [&r](std::set<std::string> ops) {
    r.outcome = CaseResult::Outcome::kSkipped;
    r.unsupported_ops = std::move(ops);
    r.reason = "op type(s) not in the importer: " +
               join(std::vector<std::string>(r.unsupported_ops.begin(), r.unsupported_ops.end()));
    return r;
  };
  // From here on the case is attempted: every refusal is a failure.
  r.outcome = CaseResult::Outcome::kFailed;
  std::vector<std::string> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) {
    r.reason = "no test_data_set_*";
    return r;
  }
  for (const auto& io : {proto.graph().input(), proto.graph().output()}) {
    for (const auto& v : io) {
      if (!v.type().has_tensor_type()) {
        if (!no_lowering.empty()) return skip(no_lowering);
        r.reason = "refused: non-tensor graph input/output '" + v.name() + "' (QNN graphs take tensors only)";
        return r;
      }
    }
  }
  // input_K.pb is the K-th graph input that is not an initializer; the
  // importer may drop some (bound or empty inputs become constants), so
  // each remaining QNN input is mapped back to its position by name.
  std::vector<std::string> original;
  {
    std::set<std::string> inits;
    for (const auto& i : proto.graph().initializer()) inits.insert(i.name());
    for (const auto& i : proto.graph().input()) {
      if (inits.count(i.name()) == 0) original.push_back(i.name());
    }
  }
  ImportOptions options;
  // A graph input with a symbolic or unset dimension gets the shape of its
  // test data, as the converter's -d gives it, when every data set has the
  // same shape (one QNN graph serves them all).
  for (const auto& in : proto.graph().input()) {
    const size_t pos = static_cast<size_t>(std::find(original.begin(), original.end(), in.name()) - original.begin());
    if (pos == original.size() || !in.type().has_tensor_type()) continue;
    bool fixed = in.type().tensor_type().has_shape();
    for (const auto& d : in.type().tensor_type().shape().dim()) fixed = fixed && d.has_dim_value();
    if (fixed) continue;
    std::vector<int64_t> dims;
    bool same = true;
    for (size_t k = 0; k < sets.size() && same; ++k) {
      Tensor t;
      std::string ignored;
      same = read_tensor_file(sets[k] + "/input_" + std::to_string(pos) + ".pb", &t, nullptr, &ignored) &&
             (k == 0 || t.dims == dims);
      dims = t.dims;
    }
    if (same) options.input_dims[in.name()] = dims;
  }
  PreparedModel prepared;
  // 1: prepared; 0: refused (reason set); -1: skipped (op types missing).
  auto prepare = [&]() -> int {
    prepared = PreparedModel{};
    if (!prepare_model(proto, options, &prepared, &error)) {
      if (!no_lowering.empty()) return -1;
      r.reason = "refused: " + error;
      return 0;
    }
    const auto bad = find_unsupported(prepared.model);
    if (bad.empty()) return 1;
    std::set<std::string> missing;
    for (const auto& b : bad) {
      if (find_lowering(b.op_type) == nullptr) missing.insert(b.op_type);
    }
    if (!missing.empty()) {
      no_lowering = missing;
      return -1;
    }
    r.reason = "refused: " + describe_unsupported(bad);
    return 0;
  };
  int state = prepare();
  const std::vector<std::string> params = state == 1 ? std::vector<std::string>{} : parameter_inputs(proto);
  if (state == 0 && params.empty()) return r;
  if (!params.empty()) {
    // Parameters fed as graph inputs (refused, or an op with no lowering
    // such as Range that folds once its inputs are constant): bind them to
    // this case's values (the test data has one value per set) and try again.
    // One graph serves every data set, so a bound value must be the same in all.
    for (const std::string& name : params) {
      const size_t pos = static_cast<size_t>(std::find(original.begin(), original.end(), name) - original.begin());
      const std::string file = "/input_" + std::to_string(pos) + ".pb";
      Tensor first, other;
      if (!read_tensor_file(sets.front() + file, &first, nullptr, &error)) {
        r.reason = error;
        return r;
      }
      for (size_t k = 1; k < sets.size(); ++k) {
        if (!read_tensor_file(sets[k] + file, &other, nullptr, &error)) {
          r.reason = error;
          return r;
        }
        if (other.dims != first.dims || other.data != first.data) {
          if (state < 0) return skip(no_lowering);  // still an op with no lowering
          r.reason = "refused: parameter input '" + name + "' differs between " +
                     fs::path(sets.front()).filename().string() + " and " + fs::path(sets[k]).filename().string() +
                     " (QNN takes it as a static parameter)";
          return r;
        }
      }
    }
    if (!bind_inputs(&proto, params, original, sets.front(), &error)) {
      r.reason = error;
      return r;
    }
    state = prepare();
    r.bound_inputs = params;
  }
  if (state < 0) return skip(no_lowering);
  if (state == 0) return r;
  // output_K.pb is the K-th graph output; empty outputs are not QNN outputs
  // (empty_values.h), so outputs are found by name.
  std::vector<std::string> original_outputs;
  for (const auto& o : proto.graph().output()) original_outputs.push_back(o.name());
  auto output_file = [&](const std::string& set, const std::string& name) {
    const size_t pos = static_cast<size_t>(std::find(original_outputs.begin(), original_outputs.end(), name) -
                                           original_outputs.begin());
    return set + "/output_" + std::to_string(pos) + ".pb";
  };
  // An empty output is checked by its shape, which the importer inferred.
  for (const std::string& set : sets) {
    for (const std::string& name : prepared.model.empty_outputs) {
      Tensor want;
      if (!read_tensor_file(output_file(set, name), &want, nullptr, &error)) {
        r.reason = error;
        return r;
      }
      const ValueInfo* v = prepared.model.info(name);
      if (want.dims != v->dims) {
        r.reason = fs::path(set).filename().string() + ": empty output '" + name + "' has shape " +
                   dims_to_string(v->dims) + ", expected " + dims_to_string(want.dims);
        return r;
      }
    }
  }
  if (prepared.model.outputs.empty()) {
    r.outcome = CaseResult::Outcome::kPassed;
    return r;
  }
  Qnn_ContextHandle_t context = nullptr;
  if (!session.create_context(&context, &error)) {
    r.reason = error;
    return r;
  }
  SubmittedGraph graph;
  QnnGraphDesc desc;
  if (!import_model(prepared, options, session.api, session.backend, context, &graph, &desc, &error)) {
    r.reason = "refused at graph build: " + error;
    session.api.contextFree(context, nullptr);
    return r;
  }
  std::string failure;
  for (const std::string& set : sets) {
    std::vector<std::vector<uint8_t>> inputs;
    for (size_t k = 0; k < desc.inputs.size() && failure.empty(); ++k) {
      Tensor t;
      const size_t pos = static_cast<size_t>(
          std::find(original.begin(), original.end(), desc.inputs[k]) - original.begin());
      if (!read_tensor_file(set + "/input_" + std::to_string(pos) + ".pb", &t, nullptr, &error)) {
        failure = error;
        break;
      }
      const QTensor* q = desc.find(desc.inputs[k]);
      inputs.push_back(to_qnn_bytes(t, q->dtype));
    }
    if (!failure.empty()) break;
    std::vector<std::vector<uint8_t>> outputs;
    if (!execute_graph(session.api, graph, inputs, &outputs, &error)) {
      failure = error;
      break;
    }
    for (size_t k = 0; k < desc.outputs.size(); ++k) {
      Tensor want;
      // desc.outputs[k] is the QNN tensor of the model's k-th output.
      if (!read_tensor_file(output_file(set, prepared.model.outputs[k]), &want, nullptr, &error)) {
        failure = error;
        break;
      }
      const QTensor* q = desc.find(desc.outputs[k]);
      if (std::string why = compare(q->name, want, outputs[k], q->dtype, q->dims); !why.empty()) {
        failure = fs::path(set).filename().string() + ": " + why;
        break;
      }
    }
    if (!failure.empty()) break;
  }
  session.api.contextFree(context, nullptr);
  if (failure.empty()) {
    r.outcome = CaseResult::Outcome::kPassed;
  } else {
    r.reason = failure;
  }
  return r;
}

}  // namespace openhtp::onnx_conformance
