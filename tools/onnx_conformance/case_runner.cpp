#include "case_runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

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
         onnx_elem_type == onnx_type::kDouble;
}

// "" when `got` matches `want`, else the first mismatch.
std::string compare(const std::string& name, const Tensor& want, const std::vector<uint8_t>& got, Qnn_DataType_t dt,
                    const std::vector<uint32_t>& got_dims) {
  size_t n = 1;
  for (uint32_t d : got_dims) n *= d;
  if (n != want.count()) {
    return "output '" + name + "': " + std::to_string(n) + " elements, expected " + std::to_string(want.count());
  }
  for (size_t i = 0; i < n; ++i) {
    const double g = qnn_value(got, dt, i);
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

bool is_item_variant(const std::string& reason) { return reason.find("is not supported") == std::string::npos; }

}  // namespace

CaseResult run_case(BackendSession& session, const std::string& dir) {
  CaseResult r;
  onnx::ModelProto proto;
  std::string error;
  if (!load_model_file(dir + "/model.onnx", &proto, &error)) {
    r.reason = error;
    return r;
  }
  for (const auto& n : proto.graph().node()) r.op_types.insert(n.op_type());
  for (const auto& io : {proto.graph().input(), proto.graph().output()}) {
    for (const auto& v : io) {
      if (!v.type().has_tensor_type()) {
        r.reason = "non-tensor graph input/output '" + v.name() + "'";
        for (const auto& t : r.op_types) r.variant_ops.insert(t);
        return r;
      }
    }
  }
  ImportOptions options;
  PreparedModel prepared;
  if (!prepare_model(proto, options, &prepared, &error)) {
    r.reason = "prepare: " + error;
    for (const auto& t : r.op_types) r.variant_ops.insert(t);
    return r;
  }
  if (auto bad = find_unsupported(prepared.model); !bad.empty()) {
    r.reason = describe_unsupported(bad);
    for (const auto& b : bad) {
      if (find_lowering(b.op_type) == nullptr) r.unsupported_ops.insert(b.op_type);
      else r.variant_ops.insert(b.op_type);
    }
    return r;
  }
  // Graph outputs that are not produced by any node and are no constants
  // cannot be expressed (e.g. an output equal to nothing).
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
  Qnn_ContextHandle_t context = nullptr;
  if (!session.create_context(&context, &error)) {
    r.reason = error;
    return r;
  }
  SubmittedGraph graph;
  QnnGraphDesc desc;
  if (!import_model(prepared, options, session.api, session.backend, context, &graph, &desc, &error)) {
    r.reason = "import: " + error;
    session.api.contextFree(context, nullptr);
    return r;
  }
  // input_K.pb is the K-th graph input that is not an initializer; the
  // importer may have dropped some (empty inputs become constants), so map
  // each remaining QNN input back to its original position by name.
  std::vector<std::string> original;
  {
    std::set<std::string> inits;
    for (const auto& i : proto.graph().initializer()) inits.insert(i.name());
    for (const auto& i : proto.graph().input()) {
      if (inits.count(i.name()) == 0) original.push_back(i.name());
    }
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
      if (!read_tensor_file(set + "/output_" + std::to_string(k) + ".pb", &want, nullptr, &error)) {
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
  (void)is_item_variant;
  return r;
}

}  // namespace openhtp::onnx_conformance
