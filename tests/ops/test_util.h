// Helpers for driving op kernels without the QNN API: build a node, prepare
// it, run it on host vectors, and compare against independently computed
// expectations.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ops/op.h"

namespace opstest {

using namespace openhtp::ops;

inline TensorDesc f32(std::vector<uint32_t> dims) {
  TensorDesc t;
  t.dtype = dtype::kFloat32;
  t.dims = std::move(dims);
  return t;
}

inline TensorDesc typed(uint32_t dt, std::vector<uint32_t> dims) {
  TensorDesc t = f32(std::move(dims));
  t.dtype = dt;
  return t;
}

// An omitted optional input (QNN_TENSOR_TYPE_NULL).
inline TensorDesc null_tensor() {
  TensorDesc t;
  t.present = false;
  return t;
}

inline Param u32_tensor_param(std::string name, std::vector<uint32_t> dims,
                              std::vector<uint32_t> values, uint32_t dt = dtype::kUint32) {
  Param p;
  p.name = std::move(name);
  p.is_tensor = true;
  p.dtype = dt;
  p.dims = std::move(dims);
  p.data.resize(values.size() * 4);
  std::memcpy(p.data.data(), values.data(), p.data.size());
  return p;
}

inline Param i32_tensor_param(std::string name, std::vector<uint32_t> dims,
                              std::vector<int32_t> values) {
  Param p;
  p.name = std::move(name);
  p.is_tensor = true;
  p.dtype = dtype::kInt32;
  p.dims = std::move(dims);
  p.data.resize(values.size() * 4);
  std::memcpy(p.data.data(), values.data(), p.data.size());
  return p;
}

// A scalar as the QNN layer fills it: both i and f set.
inline Param scalar_param(std::string name, uint32_t dt, double value) {
  Param p;
  p.name = std::move(name);
  p.dtype = dt;
  p.i = static_cast<int64_t>(value);
  p.f = value;
  return p;
}
inline Param u32_param(std::string name, uint32_t v) { return scalar_param(std::move(name), dtype::kUint32, v); }
inline Param bool_param(std::string name, bool v) { return scalar_param(std::move(name), dtype::kBool8, v); }
inline Param f32_param(std::string name, float v) { return scalar_param(std::move(name), dtype::kFloat32, v); }

struct Node {
  std::string type;
  std::string name = "n1";
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  std::vector<Param> params;

  NodeDesc desc() const { return NodeDesc{name, type, inputs, outputs, params}; }

  Status prepare(std::unique_ptr<OpKernel>* kernel = nullptr) const {
    if (find_op(type) == nullptr) return Status::Invalid("test: no op " + type);
    return prepare_reference(desc(), kernel);
  }

  // Prepares (must succeed) and runs once. `ins` entries may be nullptr for
  // omitted optional inputs. Returns out[0].
  std::vector<float> run(const std::vector<const std::vector<float>*>& ins) const {
    std::unique_ptr<OpKernel> kernel;
    Status s = prepare(&kernel);
    EXPECT_TRUE(s.ok()) << s.message;
    if (!s.ok() || !kernel) return {};
    std::vector<const void*> in_ptrs;
    for (const auto* v : ins) in_ptrs.push_back(v ? v->data() : nullptr);
    std::vector<float> out(outputs[0].num_elements(), std::nanf(""));
    std::vector<void*> out_ptrs{out.data()};
    kernel->run(in_ptrs, out_ptrs);
    return out;
  }
};

// ---- raw driving, for data types Node::run (float in, float out) cannot
// express: buffers as bytes ----

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T>
std::vector<T> as(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

// Prepares `n` (must succeed), runs it on raw input buffers, returns every
// output's bytes (pre-filled with 0xAB so untouched bytes show; empty
// buffers, one per output, when the prepare fails).
inline std::vector<std::vector<uint8_t>> run_raw_outputs(const Node& n,
                                                         const std::vector<const std::vector<uint8_t>*>& ins) {
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  EXPECT_TRUE(s.ok()) << s.message;
  if (!s.ok()) return std::vector<std::vector<uint8_t>>(n.outputs.size());
  std::vector<const void*> in_ptrs;
  for (const auto* v : ins) in_ptrs.push_back(v->data());
  std::vector<std::vector<uint8_t>> outs;
  std::vector<void*> out_ptrs;
  for (const TensorDesc& t : n.outputs) outs.emplace_back(t.num_bytes(), 0xAB);
  for (auto& o : outs) out_ptrs.push_back(o.data());
  k->run(in_ptrs, out_ptrs);
  return outs;
}

// out[0]'s bytes from run_raw_outputs, the inputs given by value (a braced
// list of byte vectors).
inline std::vector<uint8_t> run_raw(const Node& n, std::initializer_list<std::vector<uint8_t>> ins) {
  std::vector<const std::vector<uint8_t>*> ptrs;
  for (const auto& v : ins) ptrs.push_back(&v);
  return run_raw_outputs(n, ptrs)[0];
}

// A UFIXED_POINT_8 tensor of one scale and offset (QNN's offset: -zero point).
inline TensorDesc ufixed8(std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dtype::kUfixed8, std::move(dims));
  t.quant.present = true;
  t.quant.scale = scale;
  t.quant.offset = offset;
  return t;
}

inline TensorDesc bool8(std::vector<uint32_t> dims) { return typed(dtype::kBool8, std::move(dims)); }

inline std::vector<float> random_floats(std::mt19937& rng, size_t n, float lo = -1.0f, float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

inline uint32_t rand_int(std::mt19937& rng, uint32_t lo, uint32_t hi) {
  return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
}

inline size_t count(const std::vector<uint32_t>& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

// One expected output of a sum of products, computed in double, with the sum
// of absolute values of its terms. A float kernel that sums K terms in any
// order is within about K * 2^-24 * abs_sum of the exact value (the standard
// worst-case bound for recursive summation); the check uses twice that.
struct Expected {
  double value = 0.0;
  double abs_sum = 0.0;
  size_t terms = 0;
  void add(double t) {
    value += t;
    abs_sum += std::fabs(t);
    ++terms;
  }
};

inline void expect_near_sums(const std::vector<float>& got, const std::vector<Expected>& want,
                             const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = (want[i].terms + 2) * 1.2e-7 * want[i].abs_sum + 1e-7;
    ASSERT_NEAR(got[i], want[i].value, tol) << what << " at output " << i;
  }
}

// The failing status must carry `code` and mention every fragment.
#define EXPECT_STATUS(status_expr, expected_code, ...)                          \
  do {                                                                          \
    const ::openhtp::ops::Status st_ = (status_expr);                           \
    EXPECT_EQ(static_cast<int>(st_.code), static_cast<int>(expected_code))      \
        << "message: " << st_.message;                                          \
    for (const char* frag_ : {__VA_ARGS__}) {                                   \
      EXPECT_NE(st_.message.find(frag_), std::string::npos)                     \
          << "message '" << st_.message << "' lacks '" << frag_ << "'";         \
    }                                                                           \
  } while (0)

}  // namespace opstest
