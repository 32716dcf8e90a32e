// Drives one node through the reference kernel and one fast path on the same
// data and compares the outputs.
#pragma once

#include "threads/threadpool.h"

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/fast_paths.h"
#include "ops/parsed_params.h"
#include "ops/quant.h"
#include "test_util.h"

namespace kernelstest {

using namespace opstest;
using Bytes = std::vector<uint8_t>;

// The graph's thread pool as the runtime makes it: null for one thread.
class ThreadEnv {
 public:
  explicit ThreadEnv(size_t threads) {
    env_.num_threads = threads;
    if (threads > 1) {
      pool_ = openhtp::threads::create_pool(threads);
      env_.pool = pool_;
    }
  }
  ~ThreadEnv() {
    if (pool_) openhtp::threads::destroy_pool(pool_);
  }
  ThreadEnv(const ThreadEnv&) = delete;
  ThreadEnv& operator=(const ThreadEnv&) = delete;
  const KernelEnv* env() const { return &env_; }

 private:
  pthreadpool_t pool_ = nullptr;
  KernelEnv env_;
};

inline const FastPath& fast_path(std::string_view type, std::string_view library) {
  for (const FastPath& fp : openhtp::kernels::fast_paths()) {
    if (fp.type_name == type && fp.library == library) return fp;
  }
  ADD_FAILURE() << "no fast path " << type << "/" << library;
  static const FastPath kNone{"", "", [](const NodeDesc&, std::unique_ptr<OpKernel>*) { return false; }};
  return kNone;
}

// A node as prepare_node hands it to a fast path: its parameters parsed
// once (ops/parsed_params.h) into the geometry the fast path reads. Holds the
// parsed value, so it stays put (not copyable).
class ParsedNode {
 public:
  explicit ParsedNode(const NodeDesc& d) : desc_(d) {
    const Status s = openhtp::ops::parse_params(d, &params_);
    EXPECT_TRUE(s.ok()) << s.message;
    desc_.parsed = &params_;
  }
  ParsedNode(const ParsedNode&) = delete;
  ParsedNode& operator=(const ParsedNode&) = delete;
  const NodeDesc& desc() const { return desc_; }

 private:
  openhtp::ops::ParsedParams params_;
  NodeDesc desc_;
};

template <typename T>
Bytes to_bytes(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <typename T>
std::vector<T> from_bytes(const Bytes& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

// Runs `kernel` on `ins` (entries for absent inputs are empty) into a fresh
// output buffer of `out_bytes`.
inline Bytes run_kernel(OpKernel& kernel, const std::vector<Bytes>& ins, size_t out_bytes) {
  std::vector<const void*> in_ptrs;
  for (const Bytes& b : ins) in_ptrs.push_back(b.empty() ? nullptr : b.data());
  Bytes out(out_bytes, 0xCD);
  std::vector<void*> out_ptrs{out.data()};
  kernel.run(in_ptrs, out_ptrs);
  return out;
}

// A node whose static inputs point into `data`. Keep both together so the
// pointers stay valid.
struct Case {
  Node node;
  std::vector<Bytes> data;  // one per input; static ones are bound as static_data
  std::vector<bool> is_static;

  void bind_static() {
    for (size_t i = 0; i < data.size(); ++i) {
      node.inputs[i].static_data = is_static[i] && !data[i].empty() ? data[i].data() : nullptr;
    }
  }
  size_t out_bytes() const { return node.outputs[0].num_bytes(); }
};

// Reference output of `c` (must prepare).
inline Bytes run_reference(const Case& c) {
  std::unique_ptr<OpKernel> k;
  const Status s = prepare_reference(c.node.desc(), &k);
  EXPECT_TRUE(s.ok()) << s.message;
  if (!k) return {};
  return run_kernel(*k, c.data, c.out_bytes());
}

// Output of the fast path (which must accept the node) with `env`.
inline Bytes run_fast(const Case& c, const FastPath& fp, const KernelEnv* env, bool* accepted = nullptr) {
  NodeDesc d = c.node.desc();
  d.env = env;
  std::unique_ptr<OpKernel> k;
  const bool ok = fp.prepare(ParsedNode(d).desc(), &k) && k;
  if (accepted) *accepted = ok;
  else EXPECT_TRUE(ok) << fp.library << " declined " << c.node.type << " '" << c.node.name << "'";
  if (!ok) return {};
  return run_kernel(*k, c.data, c.out_bytes());
}

inline float quantized_max_diff(const Bytes& a, const Bytes& b, bool is_signed) {
  float m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const int x = is_signed ? int(int8_t(a[i])) : int(a[i]);
    const int y = is_signed ? int(int8_t(b[i])) : int(b[i]);
    m = std::max(m, float(std::abs(x - y)));
  }
  return m;
}

// Quantized outputs: within one step of the output's scale.
inline void expect_within_1_lsb(const Bytes& fast, const Bytes& ref, bool is_signed, const std::string& what) {
  ASSERT_EQ(fast.size(), ref.size()) << what;
  for (size_t i = 0; i < fast.size(); ++i) {
    const int x = is_signed ? int(int8_t(fast[i])) : int(fast[i]);
    const int y = is_signed ? int(int8_t(ref[i])) : int(ref[i]);
    ASSERT_LE(std::abs(x - y), 1) << what << " at output " << i << ": fast " << x << " reference " << y;
  }
}

// Float outputs of sums of K products: both kernels are within
// (K + 2) * 2^-24 * abs_sum of the exact value (recursive summation bound,
// any order), so they are within twice that of each other. abs_sum[i] is
// the same sum over absolute values of the terms. It holds for Winograd too
// (onednn-winograd), whose transforms round more than a plain sum but whose
// errors on conv_test's shapes stay near 2% of this worst-case bound.
inline void expect_f32_close(const std::vector<float>& fast, const std::vector<float>& ref,
                             const std::vector<float>& abs_sum, size_t K, const std::string& what) {
  ASSERT_EQ(fast.size(), ref.size()) << what;
  for (size_t i = 0; i < fast.size(); ++i) {
    const double tol = 2.0 * (K + 2) * 5.97e-8 * abs_sum[i] + 1e-30;
    ASSERT_NEAR(fast[i], ref[i], tol) << what << " at output " << i << " (K = " << K << ")";
  }
}

// fp16: inputs are exact halves, so the reference (float accumulation, one
// rounding to half) is within half an ulp of the exact sum plus float error;
// XNNPACK's x86 f16 kernels round their accumulator to half after every
// step, an error of at most (K + 2) * 2^-11 * abs_sum. Sum of both, plus one
// output ulp for the final rounding of each.
inline void expect_f16_close(const std::vector<uint16_t>& fast, const std::vector<uint16_t>& ref,
                             const std::vector<float>& abs_sum, size_t K, const std::string& what) {
  ASSERT_EQ(fast.size(), ref.size()) << what;
  for (size_t i = 0; i < fast.size(); ++i) {
    const float a = openhtp::ops::quant::half_to_float(fast[i]);
    const float b = openhtp::ops::quant::half_to_float(ref[i]);
    const double tol = (K + 2) * 4.89e-4 * abs_sum[i] + 2 * 9.77e-4 * std::fabs(b) + 1e-7;
    ASSERT_NEAR(a, b, tol) << what << " at output " << i << " (K = " << K << ")";
  }
}

inline Quant per_tensor(float scale, int32_t offset) {
  Quant q;
  q.present = true;
  q.scale = scale;
  q.offset = offset;
  return q;
}
inline Quant per_channel(int32_t axis, std::vector<float> scales) {
  Quant q;
  q.present = true;
  q.axis = axis;
  q.offsets.assign(scales.size(), 0);
  q.scales = std::move(scales);
  return q;
}
inline TensorDesc quantized(uint32_t dt, std::vector<uint32_t> dims, Quant q) {
  TensorDesc t = typed(dt, std::move(dims));
  t.quant = std::move(q);
  return t;
}

inline Bytes random_bytes(std::mt19937& rng, size_t n, int lo = 0, int hi = 255) {
  std::uniform_int_distribution<int> d(lo, hi);
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(d(rng));
  return b;
}
inline float rand_float(std::mt19937& rng, float lo, float hi) {
  return std::uniform_real_distribution<float>(lo, hi)(rng);
}
// Zero points that matter: the range ends, the middle, and a random one.
inline int32_t pick_u8_zero_point(std::mt19937& rng) {
  static constexpr int32_t kSpecial[] = {0, 255, 128};
  const uint32_t i = rand_int(rng, 0, 3);
  return i < 3 ? kSpecial[i] : static_cast<int32_t>(rand_int(rng, 0, 255));
}

inline std::string dims_str(const std::vector<uint32_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// One node on the reference (fast false) or on the fast path of `library`
// at `threads`, inputs whose TensorDesc has static_data bound as static.
inline Bytes run_case(const Node& n, const std::vector<Bytes>& data, bool fast, size_t threads, const char* library) {
  Case c{n, data, std::vector<bool>(data.size(), false)};
  for (size_t i = 0; i < data.size(); ++i) c.is_static[i] = n.inputs[i].static_data != nullptr;
  c.bind_static();
  if (!fast) return run_reference(c);
  ThreadEnv env(threads);
  return run_fast(c, fast_path(n.type, library), env.env());
}

// Dims of rank 1..max_rank, rows of 2..300 elements (the normalized axis
// last); case 0 is the transformer encoder's [1, 128, 256], which several
// pool tasks split.
inline std::vector<uint32_t> random_rows(std::mt19937& rng, int iter, uint32_t max_rank) {
  if (iter == 0) return {1, 128, 256};
  std::vector<uint32_t> dims(rand_int(rng, 1, max_rank));
  for (auto& d : dims) d = rand_int(rng, 1, 12);
  dims.back() = rand_int(rng, 2, 300);
  return dims;
}

// A shape that broadcasts to `out`: each axis kept or set to 1, and leading
// axes dropped now and then (numpy's rank extension).
inline std::vector<uint32_t> random_broadcast_of(std::mt19937& rng, const std::vector<uint32_t>& out) {
  std::vector<uint32_t> d = out;
  for (auto& v : d) {
    if (rng() % 3 == 0) v = 1;
  }
  while (d.size() > 1 && rng() % 4 == 0) d.erase(d.begin());
  return d;
}

}  // namespace kernelstest
