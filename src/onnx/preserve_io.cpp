#include "onnx/preserve_io.h"

#include <algorithm>

#include "QnnOpDef.h"

namespace openhtp::onnx_import {

namespace {

bool fixed_point(Qnn_DataType_t dt) {
  return dt == QNN_DATATYPE_UFIXED_POINT_8 || dt == QNN_DATATYPE_UFIXED_POINT_16 ||
         dt == QNN_DATATYPE_SFIXED_POINT_8 || dt == QNN_DATATYPE_SFIXED_POINT_16;
}

// A fresh name for the quantized twin of `name`.
std::string twin_name(const QnnGraphDesc& g, const std::string& name) {
  std::string n = name + "_quantized";
  for (int k = 2; g.find(n) != nullptr; ++k) n = name + "_quantized_" + std::to_string(k);
  return n;
}

// The float tensor keeps the I/O name, type and dims; the quantized twin is
// NATIVE with the calibrated encoding.
std::string split(QnnGraphDesc* g, const std::string& name) {
  QTensor twin = *g->find(name);
  twin.name = twin_name(*g, name);
  twin.type = QNN_TENSOR_TYPE_NATIVE;
  QTensor& io = *g->find(name);
  io.dtype = QNN_DATATYPE_FLOAT_32;
  io.encoding = Encoding{};
  const std::string twin_id = twin.name;
  g->add(std::move(twin));
  return twin_id;
}

}  // namespace

bool preserve_io_datatype(QnnGraphDesc* g, const std::set<std::string>& names, std::set<std::string>* kept,
                          std::string* error) {
  for (const std::string& n : names) {
    const bool io = std::count(g->inputs.begin(), g->inputs.end(), n) + std::count(g->outputs.begin(), g->outputs.end(), n);
    if (!io) {
      *error = "--preserve_io: '" + n + "' is not a graph input or output";
      return false;
    }
  }
  auto wanted = [&](const std::string& n) {
    const QTensor* t = g->find(n);
    return t != nullptr && fixed_point(t->dtype) && (names.empty() || names.count(n) != 0);
  };
  std::vector<QNode> front, back;
  for (const std::string& in : g->inputs) {
    if (!wanted(in)) continue;
    if (std::count(g->outputs.begin(), g->outputs.end(), in) != 0) continue;  // passes straight through: as is
    const std::string q = split(g, in);
    for (QNode& n : g->nodes) {
      std::replace(n.inputs.begin(), n.inputs.end(), in, q);
    }
    front.push_back(QNode{in + "_preserve_io_quantize", QNN_OP_QUANTIZE, {in}, {q}, {}, "--preserve_io"});
    if (kept != nullptr) kept->insert(in);
  }
  for (const std::string& out : g->outputs) {
    if (!wanted(out) || std::count(g->inputs.begin(), g->inputs.end(), out) != 0) continue;
    const std::string q = split(g, out);
    for (QNode& n : g->nodes) {
      std::replace(n.inputs.begin(), n.inputs.end(), out, q);
      std::replace(n.outputs.begin(), n.outputs.end(), out, q);
    }
    back.push_back(QNode{out + "_preserve_io_dequantize", QNN_OP_DEQUANTIZE, {q}, {out}, {}, "--preserve_io"});
    if (kept != nullptr) kept->insert(out);
  }
  g->nodes.insert(g->nodes.begin(), front.begin(), front.end());
  g->nodes.insert(g->nodes.end(), back.begin(), back.end());
  return true;
}

}  // namespace openhtp::onnx_import
