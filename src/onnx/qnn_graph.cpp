#include "onnx/qnn_graph.h"

#include <cstring>
#include <stdexcept>

#include "ops/op.h"

namespace openhtp::onnx_import {

namespace {

QParam scalar(const char* name, Qnn_DataType_t dt) {
  QParam p;
  p.name = name;
  p.scalar.dataType = dt;
  return p;
}

template <typename T>
QParam tensor_param(const char* name, Qnn_DataType_t dt, std::vector<uint32_t> dims, const std::vector<T>& values) {
  QParam p;
  p.name = name;
  p.is_tensor = true;
  p.dtype = dt;
  p.dims = std::move(dims);
  p.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(p.data.data(), values.data(), p.data.size());
  return p;
}

}  // namespace

QParam param_u32(const char* name, uint32_t v) {
  QParam p = scalar(name, QNN_DATATYPE_UINT_32);
  p.scalar.uint32Value = v;
  return p;
}

QParam param_i32(const char* name, int32_t v) {
  QParam p = scalar(name, QNN_DATATYPE_INT_32);
  p.scalar.int32Value = v;
  return p;
}

QParam param_f32(const char* name, float v) {
  QParam p = scalar(name, QNN_DATATYPE_FLOAT_32);
  p.scalar.floatValue = v;
  return p;
}

QParam param_bool(const char* name, bool v) {
  QParam p = scalar(name, QNN_DATATYPE_BOOL_8);
  p.scalar.bool8Value = v ? 1 : 0;
  return p;
}

QParam param_u32_tensor(const char* name, std::vector<uint32_t> dims, const std::vector<uint32_t>& values) {
  return tensor_param(name, QNN_DATATYPE_UINT_32, std::move(dims), values);
}

QParam param_i32_tensor(const char* name, std::vector<uint32_t> dims, const std::vector<int32_t>& values) {
  return tensor_param(name, QNN_DATATYPE_INT_32, std::move(dims), values);
}

QTensor* QnnGraphDesc::find(const std::string& name) {
  auto it = index.find(name);
  return it == index.end() ? nullptr : &tensors[it->second];
}

const QTensor* QnnGraphDesc::find(const std::string& name) const {
  auto it = index.find(name);
  return it == index.end() ? nullptr : &tensors[it->second];
}

QTensor& QnnGraphDesc::add(QTensor t) {
  if (index.count(t.name) != 0) throw std::logic_error("QNN tensor '" + t.name + "' defined twice");
  index[t.name] = tensors.size();
  tensors.push_back(std::move(t));
  return tensors.back();
}

// One table of QNN type sizes and names: the op library's.
size_t qnn_element_size(Qnn_DataType_t dt) { return ops::dtype::element_size(static_cast<uint32_t>(dt)); }

const char* qnn_dtype_name(Qnn_DataType_t dt) { return ops::dtype::name(static_cast<uint32_t>(dt)); }

}  // namespace openhtp::onnx_import
