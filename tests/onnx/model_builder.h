// Small ONNX ModelProtos built in C++ for the importer tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace onnx_test {

// Tensors as bytes: initializers' raw data, and what run_model
// (import_and_run.h) takes and gives.
inline std::vector<uint8_t> f32_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
inline std::vector<uint8_t> i32_bytes(const std::vector<int32_t>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(int32_t));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
inline std::vector<float> as_f32(const std::vector<uint8_t>& b) {
  std::vector<float> v(b.size() / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(float));
  return v;
}

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13) {
    model_.set_ir_version(8);
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("test_graph");
  }

  ModelBuilder& input(const std::string& name, std::vector<int64_t> dims, int32_t type = 1) {
    value(model_.mutable_graph()->add_input(), name, dims, type);
    return *this;
  }
  ModelBuilder& output(const std::string& name, std::vector<int64_t> dims, int32_t type = 1) {
    value(model_.mutable_graph()->add_output(), name, dims, type);
    return *this;
  }
  ModelBuilder& initializer(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& v) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(1);
    for (int64_t d : dims) t->add_dims(d);
    for (float f : v) t->add_float_data(f);
    return *this;
  }
  // int8 (type 3) or uint8 (type 2) values, stored in int32_data as ONNX does.
  ModelBuilder& int8_initializer(const std::string& name, int32_t type, std::vector<int64_t> dims,
                                 const std::vector<int32_t>& v) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    for (int32_t x : v) t->add_int32_data(x);
    return *this;
  }
  ModelBuilder& int64_initializer(const std::string& name, std::vector<int64_t> dims, const std::vector<int64_t>& v) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(7);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t x : v) t->add_int64_data(x);
    return *this;
  }
  onnx::NodeProto& node(const std::string& type, const std::string& name, std::vector<std::string> inputs,
                        std::vector<std::string> outputs) {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(type);
    n->set_name(name);
    for (auto& i : inputs) n->add_input(i);
    for (auto& o : outputs) n->add_output(o);
    return *n;
  }
  static void ints(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void i(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void f(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  const onnx::ModelProto& model() const { return model_; }

 private:
  static void value(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims, int32_t type) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto* s = tt->mutable_shape();
    for (int64_t d : dims) s->add_dim()->set_dim_value(d);
  }
  onnx::ModelProto model_;
};

// Naive NCHW convolution in double: x [N,C,H,W], w [O,C/g,kh,kw], pads
// symmetric `pad`, stride `stride`, group 1.
inline std::vector<double> naive_conv(const std::vector<double>& x, int n, int c, int h, int w,
                                      const std::vector<double>& wt, const std::vector<double>& bias, int o, int k,
                                      int pad, int stride, int* oh_out, int* ow_out) {
  const int oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
  std::vector<double> y(static_cast<size_t>(n) * o * oh * ow, 0.0);
  for (int b = 0; b < n; ++b)
    for (int oc = 0; oc < o; ++oc)
      for (int i = 0; i < oh; ++i)
        for (int j = 0; j < ow; ++j) {
          double acc = bias.empty() ? 0.0 : bias[oc];
          for (int ic = 0; ic < c; ++ic)
            for (int ki = 0; ki < k; ++ki)
              for (int kj = 0; kj < k; ++kj) {
                const int yi = i * stride + ki - pad, xj = j * stride + kj - pad;
                if (yi < 0 || yi >= h || xj < 0 || xj >= w) continue;
                acc += x[((b * c + ic) * h + yi) * w + xj] * wt[((oc * c + ic) * k + ki) * k + kj];
              }
          y[((b * o + oc) * oh + i) * ow + j] = acc;
        }
  *oh_out = oh;
  *ow_out = ow;
  return y;
}

}  // namespace onnx_test
