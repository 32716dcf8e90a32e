// The 8-bit binary tables, ReduceMean, Softmax and MatMul fast paths
// (src/kernels/quantized_elementwise.h) against the reference kernel (the
// type adapter around the float reference), over randomized shapes and
// encodings at 1 and 2 threads. Binary tables: identical bytes (they are the
// reference's answers). The others: within one step of the output's scale.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernel_check.h"
#include "kernels/onednn_runtime.h"
#include "ops/shape.h"

namespace kernelstest {
namespace {

TensorDesc q8(uint32_t dt, std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dt, std::move(dims));
  t.quant = Quant::per_tensor(scale, offset);
  return t;
}

uint32_t pick_type(std::mt19937& rng) { return rand_int(rng, 0, 1) ? dtype::kUfixed8 : dtype::kSfixed8; }

// A random 8-bit encoding whose real range is about [-range, range] shifted.
TensorDesc random_q8(std::mt19937& rng, std::vector<uint32_t> dims, float range) {
  const uint32_t dt = pick_type(rng);
  const float scale = 2.0f * range / 255.0f * rand_float(rng, 0.5f, 1.5f);
  const int32_t offset = dt == dtype::kUfixed8 ? -static_cast<int32_t>(rand_int(rng, 0, 255))
                                               : static_cast<int32_t>(rand_int(rng, 0, 60)) - 30;
  return q8(dt, std::move(dims), scale, offset);
}

// Dims of rank `rank` and, for the second input, the same with random axes
// set to 1 (or dropped from the front): numpy broadcasting both ways.
void random_broadcast_dims(std::mt19937& rng, std::vector<uint32_t>* a, std::vector<uint32_t>* b) {
  const uint32_t rank = rand_int(rng, 1, 4);
  std::vector<uint32_t> full(rank);
  for (auto& d : full) d = rand_int(rng, 1, 9);
  *a = full;
  *b = full;
  for (uint32_t i = 0; i < rank; ++i) {
    const uint32_t r = rand_int(rng, 0, 5);
    if (r == 0) (*a)[i] = 1;
    if (r == 1) (*b)[i] = 1;
  }
  const uint32_t drop = rand_int(rng, 0, rank - 1);
  if (rand_int(rng, 0, 1)) b->erase(b->begin(), b->begin() + drop);
}

// The comparisons below mean something only when the reference's outputs
// are not all one saturated code; and a one-step difference should be the
// exception (a rounding tie), not the rule.
void expect_close_and_varied(const Bytes& fast, const Bytes& want, bool is_signed, const std::string& what) {
  expect_within_1_lsb(fast, want, is_signed, what);
  if (want.size() >= 64) {
    std::vector<bool> seen(256, false);
    size_t distinct = 0;
    for (uint8_t b : want) distinct += !seen[b] ? (seen[b] = true, 1) : 0;
    EXPECT_GE(distinct, 4u) << what << ": reference outputs barely vary";
  }
  size_t off = 0;
  for (size_t i = 0; i < fast.size() && i < want.size(); ++i) off += fast[i] != want[i];
  EXPECT_LE(off, fast.size() / 50 + 1) << what << ": " << off << " of " << fast.size() << " outputs one step off";
}

TEST(Quantized8Binary, MatchesReferenceExactlyOverRandomShapesAndEncodings) {
  std::mt19937 rng(2024);
  struct Op {
    const char* type;
    int operation;  // ElementWiseBinary's, or -1
  };
  const Op ops[] = {{"ElementWiseAdd", -1},     {"ElementWiseSubtract", -1},
                    {"ElementWiseMultiply", -1}, {"ElementWiseDivide", -1},
                    {"ElementWiseMaximum", -1},  {"ElementWiseMinimum", -1},
                    {"ElementWisePower", -1},    {"ElementWiseSquaredDifference", -1},
                    {"ElementWiseBinary", 16},   {"ElementWiseBinary", 13}};
  for (int iter = 0; iter < 60; ++iter) {
    const Op& op = ops[iter % std::size(ops)];
    std::vector<uint32_t> da, db, dy;
    random_broadcast_dims(rng, &da, &db);
    size_t bad = 0;
    ASSERT_TRUE(openhtp::ops::detail::broadcast_shape(da, db, &dy, &bad));
    Node n{op.type, "bin", {random_q8(rng, da, 3.0f), random_q8(rng, db, 2.0f)}, {random_q8(rng, dy, 6.0f)}, {}};
    if (op.operation >= 0) n.params.push_back(u32_param("operation", op.operation));
    const std::vector<Bytes> data{random_bytes(rng, count(da)), random_bytes(rng, count(db))};
    const Bytes want = run_case(n, data, false, 1, nullptr);
    for (size_t threads : {1, 2}) {
      EXPECT_EQ(run_case(n, data, true, threads, "lookup-table"), want)
          << op.type << " " << dims_str(da) << " x " << dims_str(db) << " threads " << threads;
    }
  }
}

// Large enough to be split over the pool (2 x 1M-element tiles), with the
// squeeze-excite broadcast [1, H, W, C] x [1, 1, 1, C] and a static input.
TEST(Quantized8Binary, SplitOverThePoolAndStaticInput) {
  std::mt19937 rng(7);
  const std::vector<uint32_t> dx{1, 120, 120, 160}, ds{1, 1, 1, 160};
  Node n{"ElementWiseMultiply", "se", {random_q8(rng, dx, 4.0f), random_q8(rng, ds, 1.0f)},
         {random_q8(rng, dx, 4.0f)}, {}};
  std::vector<Bytes> data{random_bytes(rng, count(dx)), random_bytes(rng, count(ds))};
  n.inputs[1].static_data = data[1].data();
  const Bytes want = run_case(n, data, false, 1, nullptr);
  for (size_t threads : {1, 2}) EXPECT_EQ(run_case(n, data, true, threads, "lookup-table"), want) << threads;
}

// One input a row repeated down the rows of the other (a squeeze-and-excite
// scale), on either side, rows from 1 code to 2047: the row-broadcast loop
// (the row dequantized once, repeated) gives the reference's bytes.
TEST(Quantized8Binary, ARepeatedRowOnEitherSideMatchesExactly) {
  std::mt19937 rng(31);
  const char* types[] = {"ElementWiseMultiply", "ElementWiseAdd", "ElementWiseSubtract", "ElementWiseDivide"};
  int iter = 0;
  for (uint32_t inner : {1u, 3u, 100u, 700u, 2047u}) {
    for (bool row_first : {false, true}) {
      const uint32_t rows = rand_int(rng, 1, 90);
      const std::vector<uint32_t> dense{rows, inner}, row{1, inner};
      const auto& da = row_first ? row : dense;
      const auto& db = row_first ? dense : row;
      const char* type = types[iter++ % std::size(types)];
      Node n{type, "rep", {random_q8(rng, da, 3.0f), random_q8(rng, db, 2.0f)}, {random_q8(rng, dense, 6.0f)}, {}};
      const std::vector<Bytes> data{random_bytes(rng, count(da)), random_bytes(rng, count(db))};
      const Bytes want = run_case(n, data, false, 1, nullptr);
      for (size_t threads : {1, 2}) {
        EXPECT_EQ(run_case(n, data, true, threads, "lookup-table"), want)
            << type << " " << dims_str(da) << " x " << dims_str(db) << " threads " << threads;
      }
    }
  }
}

TEST(Quantized8Binary, Declines) {
  std::unique_ptr<OpKernel> k;
  const std::vector<uint32_t> dims{2, 8};
  // Float inputs.
  Node f{"ElementWiseMultiply", "m", {f32(dims), f32(dims)}, {f32(dims)}, {}};
  EXPECT_FALSE(fast_path("ElementWiseMultiply", "lookup-table").prepare(f.desc(), &k));
  // 16-bit input.
  Node u16{"ElementWiseMultiply", "m", {q8(dtype::kUfixed16, dims, 0.1f, 0), q8(dtype::kUfixed8, dims, 0.1f, 0)},
           {q8(dtype::kUfixed8, dims, 0.1f, 0)}, {}};
  EXPECT_FALSE(fast_path("ElementWiseMultiply", "lookup-table").prepare(u16.desc(), &k));
  // Comparison: BOOL_8 output.
  Node cmp{"ElementWiseBinary", "c", {q8(dtype::kUfixed8, dims, 0.1f, 0), q8(dtype::kUfixed8, dims, 0.1f, 0)},
           {typed(dtype::kBool8, dims)}, {u32_param("operation", 6)}};
  EXPECT_FALSE(fast_path("ElementWiseBinary", "lookup-table").prepare(cmp.desc(), &k));
  EXPECT_EQ(k, nullptr);
}

TEST(Quantized8ReduceMean, WithinOneStepOverRandomShapes) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 40; ++iter) {
    std::vector<uint32_t> dx;
    std::vector<uint32_t> axes;
    if (iter % 10 == 0) {  // a pool over more than one 256-column block, big enough to split over threads
      dx = {1, rand_int(rng, 60, 64), 64, rand_int(rng, 513, 600)};
      axes = {1, 2};
    } else if (iter % 2 == 0) {  // global average pool: [N, H, W, C] over H, W
      dx = {rand_int(rng, 1, 2), rand_int(rng, 1, 20), rand_int(rng, 1, 20), rand_int(rng, 1, 70)};
      axes = {1, 2};
    } else {  // LayerNorm: last axis of [B, S, D]
      dx = {rand_int(rng, 1, 3), rand_int(rng, 1, 40), rand_int(rng, 1, 300)};
      axes = {2};
    }
    const bool keep = rand_int(rng, 0, 1);
    std::vector<uint32_t> dy;
    for (uint32_t i = 0; i < dx.size(); ++i) {
      const bool r = std::find(axes.begin(), axes.end(), i) != axes.end();
      if (!r) dy.push_back(dx[i]);
      else if (keep) dy.push_back(1);
    }
    Node n{"ReduceMean", "mean", {random_q8(rng, dx, 4.0f)}, {random_q8(rng, dy, 3.0f)},
           {u32_tensor_param("axes", {uint32_t(axes.size())}, axes), bool_param("keep_dims", keep)}};
    // Codes around a random level per output position (a channel, a row),
    // so the means spread over the output's range instead of all landing
    // near the middle code.
    const size_t n_out = count(dx) / (axes.size() == 2 ? dx[1] * dx[2] : dx[2]);
    std::vector<int> level(n_out);
    for (int& l : level) l = static_cast<int>(rand_int(rng, 0, 255));
    Bytes x(count(dx));
    for (size_t e = 0; e < x.size(); ++e) {
      const size_t o = axes.size() == 2 ? (e / (dx[1] * dx[2] * dx[3])) * dx[3] + e % dx[3] : e / dx[2];
      x[e] = static_cast<uint8_t>(std::clamp(level[o] + static_cast<int>(rand_int(rng, 0, 40)) - 20, 0, 255));
    }
    const std::vector<Bytes> data{x};
    const Bytes want = run_case(n, data, false, 1, nullptr);
    for (size_t threads : {1, 2}) {
      expect_close_and_varied(run_case(n, data, true, threads, "int8"), want, n.outputs[0].dtype == dtype::kSfixed8,
                              "ReduceMean " + dims_str(dx));
    }
    // Integer sums: however the rows are split over threads (one share of
    // rows each for a single image), the bytes are the same.
    EXPECT_EQ(run_case(n, data, true, 2, "int8"), run_case(n, data, true, 1, "int8")) << dims_str(dx);
  }
}

// A global average pool's output codes are exactly the mean of the input
// codes' integer sums in real numbers, rounded to float and quantized once
// (the kernel's vectorized finish against quantize_one, from sums this test
// makes itself): every channel count around the 256-column blocks, both
// 8-bit types on each side, one image split over 1-3 threads and a batch.
TEST(Quantized8ReduceMean, GlobalPoolCodesAreTheQuantizedMeanOfTheSums) {
  std::mt19937 rng(1999);
  for (int iter = 0; iter < 24; ++iter) {
    const uint32_t batch = iter % 4 == 3 ? 2 : 1;
    const uint32_t h = rand_int(rng, 1, 30), w = rand_int(rng, 1, 30);
    const uint32_t c = iter < 6 ? 250 + 3 * iter : rand_int(rng, 1, 1300);
    const std::vector<uint32_t> dx{batch, h, w, c};
    Node n{"ReduceMean", "mean", {random_q8(rng, dx, 4.0f)}, {random_q8(rng, {batch, c}, 3.0f)},
           {u32_tensor_param("axes", {2}, {1, 2})}};
    const TensorDesc& x = n.inputs[0];
    const TensorDesc& y = n.outputs[0];
    // Codes around a level per channel, so the means spread over the range.
    std::vector<int> level(c);
    for (int& l : level) l = static_cast<int>(rand_int(rng, 0, 255));
    Bytes codes(count(dx));
    for (size_t e = 0; e < codes.size(); ++e) {
      codes[e] = static_cast<uint8_t>(std::clamp(level[e % c] + static_cast<int>(rand_int(rng, 0, 30)) - 15, 0, 255));
    }
    Bytes want(size_t{batch} * c);
    for (uint32_t b = 0; b < batch; ++b) {
      for (uint32_t k = 0; k < c; ++k) {
        int64_t sum = 0;
        for (size_t p = 0; p < size_t{h} * w; ++p) {
          const uint8_t v = codes[(size_t{b} * h * w + p) * c + k];
          sum += x.dtype == dtype::kSfixed8 ? int64_t{int8_t(v)} : int64_t{v};
        }
        const double mean = (double(sum) / double(size_t{h} * w) + x.quant.offset) * double{x.quant.scale};
        want[size_t{b} * c + k] = static_cast<uint8_t>(openhtp::ops::quant::quantize_one(
            static_cast<float>(mean), y.quant.scale, y.quant.offset, openhtp::ops::quant::qmin(y.dtype),
            openhtp::ops::quant::qmax(y.dtype)));
      }
    }
    for (size_t threads : {1, 2, 3}) EXPECT_EQ(run_case(n, {codes}, true, threads, "int8"), want) << dims_str(dx);
  }
}

TEST(Quantized8ReduceMean, DeclinesSplitAxes) {
  std::unique_ptr<OpKernel> k;
  Node n{"ReduceMean", "mean", {q8(dtype::kUfixed8, {2, 3, 4}, 0.1f, 0)}, {q8(dtype::kUfixed8, {3}, 0.1f, 0)},
         {u32_tensor_param("axes", {2}, {0, 2})}};
  EXPECT_FALSE(fast_path("ReduceMean", "int8").prepare(n.desc(), &k));
}

TEST(Quantized8Softmax, WithinOneStepOverRandomShapes) {
  std::mt19937 rng(5);
  for (int iter = 0; iter < 40; ++iter) {
    // Rows short enough that the probabilities spread over the output's
    // codes, and attention's [heads, seq, seq] (several pool tasks).
    std::vector<uint32_t> dx{rand_int(rng, 1, 4), rand_int(rng, 1, 64), rand_int(rng, 1, 48)};
    if (iter == 0) dx = {4, 128, 128};
    const float beta = iter % 5 == 4 ? -0.7f : rand_float(rng, 0.2f, 2.0f);
    TensorDesc y = q8(dtype::kUfixed8, dx, 1.0f / 256, 0);
    if (iter % 3 == 1) y = q8(dtype::kSfixed8, dx, 1.0f / 255, 128);  // real = (q + 128) / 255
    Node n{"Softmax", "sm", {random_q8(rng, dx, rand_float(rng, 0.5f, 3.0f))}, {y}, {}};
    if (iter % 2) n.params = {f32_param("beta", beta), u32_param("axis", 2)};
    const std::vector<Bytes> data{random_bytes(rng, count(dx))};
    const Bytes want = run_case(n, data, false, 1, nullptr);
    for (size_t threads : {1, 2}) {
      expect_close_and_varied(run_case(n, data, true, threads, "int8"), want, y.dtype == dtype::kSfixed8,
                              "Softmax " + dims_str(dx));
    }
  }
}

TEST(Quantized8Softmax, DeclinesInnerAxis) {
  std::unique_ptr<OpKernel> k;
  Node n{"Softmax", "sm", {q8(dtype::kUfixed8, {2, 3, 4}, 0.1f, 0)}, {q8(dtype::kUfixed8, {2, 3, 4}, 1.0f / 256, 0)},
         {u32_param("axis", 1)}};
  EXPECT_FALSE(fast_path("Softmax", "int8").prepare(n.desc(), &k));
}

// 8-bit LayerNorm over a block of trailing axes, with and without gamma and
// beta (8-bit or float, as converters give them): the same bytes as the
// reference behind the type adapter, at 1 and 2 threads.
TEST(Quantized8LayerNorm, MatchesReferenceExactlyOverRandomShapes) {
  std::mt19937 rng(17);
  for (int iter = 0; iter < 30; ++iter) {
    const std::vector<uint32_t> dx = random_rows(rng, iter, 4);
    const uint32_t rank = static_cast<uint32_t>(dx.size());
    const uint32_t m = rank > 1 && iter % 4 == 3 ? 2 : 1;
    std::vector<uint32_t> block(dx.end() - m, dx.end());
    std::vector<uint32_t> axes;
    for (uint32_t a = rank - m; a < rank; ++a) axes.push_back(a);
    if (iter % 5 == 2) std::reverse(axes.begin(), axes.end());  // any order
    TensorDesc x = random_q8(rng, dx, rand_float(rng, 1.0f, 6.0f));
    TensorDesc y = random_q8(rng, dx, 4.0f);
    Node n{"LayerNorm", "ln", {x}, {y},
           {u32_tensor_param("axes", {m}, axes), f32_param("epsilon", iter % 2 ? 1e-5f : 1e-3f)}};
    std::vector<Bytes> data{random_bytes(rng, count(dx))};
    const int affine = iter % 3;  // 0: none, 1: 8-bit gamma and beta, 2: float gamma only
    if (affine == 1) {
      n.inputs.push_back(random_q8(rng, block, 1.5f));
      n.inputs.push_back(random_q8(rng, block, 0.5f));
      data.push_back(random_bytes(rng, count(block)));
      data.push_back(random_bytes(rng, count(block)));
    } else if (affine == 2) {
      n.inputs.push_back(typed(dtype::kFloat32, block));
      std::vector<float> g(count(block));
      for (float& v : g) v = rand_float(rng, 0.5f, 1.5f);
      Bytes gb(g.size() * 4);
      std::memcpy(gb.data(), g.data(), gb.size());
      data.push_back(gb);
    }
    for (size_t i = 1; i < n.inputs.size(); ++i) n.inputs[i].static_data = data[i].data();
    const Bytes want = run_case(n, data, false, 1, nullptr);
    for (size_t threads : {1, 2}) {
      EXPECT_EQ(run_case(n, data, true, threads, "int8"), want) << "LayerNorm " << dims_str(dx) << " axes " << m
                                                                << " affine " << affine << " threads " << threads;
    }
  }
}

// The LayerNorm of an ElementWiseAdd -> LayerNorm fusion (htp/fusion.h):
// normalizes a + b, each dequantized, with no rounding of the sum. Checked
// against the formula computed here in double from the codes (not against
// the kernel's own float arithmetic): within one output step everywhere, and
// exact nearly everywhere (a one-step difference is a rounding tie between
// float and double). Random shapes, u8/s8, gamma/beta present or absent.
TEST(Quantized8AddLayerNorm, NormalizesTheUnroundedSumWithinOneStep) {
  std::mt19937 rng(23);
  for (int iter = 0; iter < 24; ++iter) {
    const std::vector<uint32_t> dx = random_rows(rng, iter, 3);
    const size_t cols = dx.back();
    const TensorDesc a = random_q8(rng, dx, rand_float(rng, 1.0f, 5.0f));
    const TensorDesc b = random_q8(rng, dx, rand_float(rng, 0.3f, 3.0f));
    const TensorDesc y = random_q8(rng, dx, 3.0f);
    const float eps = iter % 2 ? 1e-5f : 1e-3f;
    Node n{std::string(kAddLayerNorm), "add+ln", {a, b}, {y},
           {u32_tensor_param("axes", {1}, {static_cast<uint32_t>(dx.size() - 1)}), f32_param("epsilon", eps)}};
    std::vector<Bytes> data{random_bytes(rng, count(dx)), random_bytes(rng, count(dx))};
    std::vector<float> gamma, beta;
    if (iter % 3 != 0) {
      gamma = random_floats(rng, cols, 0.5f, 1.5f);
      beta = random_floats(rng, cols, -0.5f, 0.5f);
      n.inputs.push_back(typed(dtype::kFloat32, {static_cast<uint32_t>(cols)}));
      n.inputs.push_back(typed(dtype::kFloat32, {static_cast<uint32_t>(cols)}));
      data.push_back(to_bytes(gamma));
      data.push_back(to_bytes(beta));
      n.inputs[2].static_data = data[2].data();
      n.inputs[3].static_data = data[3].data();
    }
    // The formula in double.
    auto real = [](const TensorDesc& t, uint8_t code) {
      const double q = t.dtype == dtype::kSfixed8 ? double(int8_t(code)) : double(code);
      return (q + t.quant.offset) * double(t.quant.scale);
    };
    const bool y_signed = y.dtype == dtype::kSfixed8;
    Bytes want(count(dx));
    for (size_t r = 0; r < want.size() / cols; ++r) {
      std::vector<double> v(cols);
      double mean = 0, var = 0;
      for (size_t c = 0; c < cols; ++c) {
        v[c] = real(a, data[0][r * cols + c]) + real(b, data[1][r * cols + c]);
        mean += v[c] / double(cols);
      }
      for (double x : v) var += (x - mean) * (x - mean) / double(cols);
      for (size_t c = 0; c < cols; ++c) {
        double t = (v[c] - mean) / std::sqrt(var + double(eps));
        if (!gamma.empty()) t = t * gamma[c] + beta[c];
        const double q = std::nearbyint(t / y.quant.scale) - y.quant.offset;
        const int code = int(std::clamp(q, y_signed ? -128.0 : 0.0, y_signed ? 127.0 : 255.0));
        want[r * cols + c] = static_cast<uint8_t>(code);
      }
    }
    for (size_t threads : {1, 2}) {
      const Bytes got = run_case(n, data, true, threads, "int8");
      expect_close_and_varied(got, want, y_signed,
                              "Add+LayerNorm " + dims_str(dx) + " iter " + std::to_string(iter) + " threads " +
                                  std::to_string(threads));
    }
  }
}

// It declines what it does not cover: different shapes (no broadcast), a
// per-channel operand, a static operand, a float operand.
TEST(Quantized8AddLayerNorm, Declines) {
  const TensorDesc a = q8(dtype::kUfixed8, {2, 8}, 0.02f, -128), y = q8(dtype::kUfixed8, {2, 8}, 0.03f, -128);
  const Param axes = u32_tensor_param("axes", {1}, {1});
  auto accepts = [&](const TensorDesc& x0, const TensorDesc& x1) {
    Node n{std::string(kAddLayerNorm), "add+ln", {x0, x1}, {y}, {axes}};
    ThreadEnv env(1);
    NodeDesc d = n.desc();
    d.env = env.env();
    std::unique_ptr<OpKernel> k;
    return fast_path(kAddLayerNorm, "int8").prepare(d, &k) && k != nullptr;
  };
  EXPECT_TRUE(accepts(a, a));
  EXPECT_FALSE(accepts(a, q8(dtype::kUfixed8, {1, 8}, 0.02f, -128)));
  TensorDesc pc = a;
  pc.quant.axis = 1;
  pc.quant.scales.assign(8, 0.02f);
  pc.quant.offsets.assign(8, -128);
  EXPECT_FALSE(accepts(a, pc));
  TensorDesc st = a;
  const Bytes codes(16, 7);
  st.static_data = codes.data();
  EXPECT_FALSE(accepts(a, st));
  EXPECT_FALSE(accepts(a, typed(dtype::kFloat32, {2, 8})));
}

// Both 8-bit MatMul paths over the same random cases: [B, M, K] x static
// [K, N] (the linear layers) and x dynamic [B, K, N] (attention).
void check_q8_matmul(const char* library, bool skip_if_declined) {
  std::mt19937 rng(31);
  for (int iter = 0; iter < 30; ++iter) {
    const uint32_t batch = rand_int(rng, 1, 4), m = rand_int(rng, 1, 40), k = rand_int(rng, 1, 70),
                   nn = rand_int(rng, 1, 50);
    const bool tb = rand_int(rng, 0, 1);
    const bool weights = iter % 2 == 0;  // [B, M, K] x static [K, N], as the linear layers
    const std::vector<uint32_t> da{batch, m, k};
    const std::vector<uint32_t> db = weights ? (tb ? std::vector<uint32_t>{nn, k} : std::vector<uint32_t>{k, nn})
                                             : (tb ? std::vector<uint32_t>{batch, nn, k}
                                                   : std::vector<uint32_t>{batch, k, nn});
    const std::vector<uint32_t> dy{batch, m, nn};
    // Zero-centred encodings (a random zero point would give every sum of
    // K products the same large mean, saturating the output).
    auto centred = [&](std::vector<uint32_t> dims, float range) {
      const uint32_t dt = pick_type(rng);
      const int32_t off = (dt == dtype::kUfixed8 ? -128 : 0) + static_cast<int32_t>(rand_int(rng, 0, 10)) - 5;
      return q8(dt, std::move(dims), 2.0f * range / 255.0f * rand_float(rng, 0.7f, 1.3f), off);
    };
    const float out_range = 0.8f * std::sqrt(float(k));
    Node n{"MatMul", "mm", {centred(da, 1.0f), centred(db, 1.0f)}, {centred(dy, out_range)},
           {bool_param("transpose_in0", false), bool_param("transpose_in1", tb)}};
    std::vector<Bytes> data{random_bytes(rng, count(da)), random_bytes(rng, count(db))};
    if (weights) n.inputs[1].static_data = data[1].data();
    if (skip_if_declined) {
      std::unique_ptr<OpKernel> k;
      if (!fast_path("MatMul", library).prepare(n.desc(), &k)) {
        GTEST_SKIP() << library << " declines 8-bit MatMul here (no VNNI, or oneDNN has no int8 kernel)";
      }
    }
    const Bytes want = run_case(n, data, false, 1, nullptr);
    for (size_t threads : {1, 2}) {
      expect_close_and_varied(run_case(n, data, true, threads, library), want,
                              n.outputs[0].dtype == dtype::kSfixed8, "MatMul " + dims_str(da) + " x " + dims_str(db));
    }
  }
}

TEST(Quantized8MatMul, WithinOneStepOverRandomShapes) { check_q8_matmul("onednn-q8", false); }

// The int8 path (int32 sums, onednn_int8_matmul.cpp), where the CPU makes
// them exact; skipped with the reason elsewhere.
TEST(Int8MatMul, WithinOneStepOverRandomShapes) { check_q8_matmul("onednn-int8", true); }

// The int8 path with the converter's per-channel MatMul weights: static
// symmetric s8, one scale per output column (axis rank-1, rank-2 when
// transposed), against the reference behind the type adapter.
TEST(Int8MatMul, PerColumnWeightsWithinOneStep) {
  if (!openhtp::kernels::onednn::int8_convolution_exact()) GTEST_SKIP() << "no exact int8 sums on this CPU";
  std::mt19937 rng(47);
  for (int iter = 0; iter < 20; ++iter) {
    const uint32_t batch = rand_int(rng, 1, 3), m = rand_int(rng, 1, 40), k = rand_int(rng, 1, 70),
                   nn = rand_int(rng, 1, 50);
    const bool tb = iter % 2 == 1;
    const std::vector<uint32_t> da{batch, m, k}, dy{batch, m, nn};
    const std::vector<uint32_t> db = tb ? std::vector<uint32_t>{nn, k} : std::vector<uint32_t>{k, nn};
    std::vector<float> ws(nn);
    for (float& v : ws) v = rand_float(rng, 0.002f, 0.02f) * (rand_int(rng, 0, 3) == 0 ? 8.0f : 1.0f);
    const uint32_t act = pick_type(rng);
    const int32_t a_off = (act == dtype::kUfixed8 ? -128 : 0) + static_cast<int32_t>(rand_int(rng, 0, 10)) - 5;
    const float a_scale = 2.0f / 255.0f;
    const float y_range = 0.8f * std::sqrt(float(k)) * 127.0f * 0.02f;
    TensorDesc y = q8(act, dy, 2.0f * y_range / 255.0f, act == dtype::kUfixed8 ? -128 : 0);
    Node n{"MatMul", "mm", {q8(act, da, a_scale, a_off), quantized(dtype::kSfixed8, db, per_channel(tb ? 0 : 1, ws))},
           {y}, {bool_param("transpose_in0", false), bool_param("transpose_in1", tb)}};
    std::vector<Bytes> data{random_bytes(rng, count(da)), random_bytes(rng, count(db))};
    n.inputs[1].static_data = data[1].data();
    const Bytes want = run_case(n, data, false, 1, nullptr);
    for (size_t threads : {1, 2}) {
      expect_close_and_varied(run_case(n, data, true, threads, "onednn-int8"), want, act == dtype::kSfixed8,
                              "MatMul per column " + dims_str(da) + " x " + dims_str(db));
    }
  }
}

// The unary table's AVX-512 VBMI loop (lookup_table.cpp) works in blocks of
// 64 with a masked tail: lengths that are not multiples of 64, below one
// block, and split over the pool, identical to the reference.
TEST(Quantized8UnaryTable, OddLengthsMatchReference) {
  std::mt19937 rng(3);
  for (const std::vector<uint32_t>& d : {std::vector<uint32_t>{1}, std::vector<uint32_t>{63}, std::vector<uint32_t>{65},
                                         std::vector<uint32_t>{1, 7, 13, 3}, std::vector<uint32_t>{2100003}}) {
    Node n{"Sigmoid", "s", {random_q8(rng, d, 6.0f)}, {q8(dtype::kUfixed8, d, 1.0f / 256, 0)}, {}};
    const std::vector<Bytes> data{random_bytes(rng, count(d))};
    const Bytes want = run_case(n, data, false, 1, nullptr);
    for (size_t threads : {1, 2}) {
      EXPECT_EQ(run_case(n, data, true, threads, "lookup-table"), want) << dims_str(d) << " threads " << threads;
    }
  }
}

// The arithmetic loop's near-tie fallback: input scales of few mantissa
// bits put many results exactly on half-steps of an output scale whose
// reciprocal is inexact (3/8, 3/4, 5/16), where a multiply by that
// reciprocal rounds some of them the other way; the bytes must still be
// the reference's.
TEST(Quantized8Binary, ExactTiesWithShortScales) {
  std::mt19937 rng(17);
  const std::vector<uint32_t> d{3, 1000};
  for (float out_scale : {0.375f, 0.75f, 0.3125f}) {
    for (const char* type : {"ElementWiseMultiply", "ElementWiseAdd", "ElementWiseSubtract", "ElementWiseDivide"}) {
      Node n{type, "t", {q8(dtype::kUfixed8, d, 0.125f, -128), q8(dtype::kSfixed8, d, 0.25f, 3)},
             {q8(dtype::kUfixed8, d, out_scale, -100)}, {}};
      const std::vector<Bytes> data{random_bytes(rng, count(d)), random_bytes(rng, count(d))};
      const Bytes want = run_case(n, data, false, 1, nullptr);
      EXPECT_EQ(run_case(n, data, true, 1, "lookup-table"), want) << type << " output scale " << out_scale;
    }
  }
}

// Results exactly on a half-step of the output scale s, where the fast
// first pass (a multiply by the reciprocal, in float or double) lands just
// above the tie and would round up, while quantize_one's exact quotient
// rounds half to even, down. Only the near-tie fallback gives the
// reference's byte. (Found by search; all values are exact floats.)
//   s = 3459 * 2^-13, result 14.5 s = 3 * (33437 * 2^-14): in double,
//       14.5 s * RN(1/s) = 14.500000000000002
//   s = 485 * 2^-15,  result 6.5 s = 5 * (1261 * 2^-16): in float,
//       RN(6.5 s * RN(1/s)) = 6.5000005
TEST(Quantized8Binary, NearTieFallsBackToTheDivision) {
  struct Tie {
    float out_scale, a_scale;
    uint8_t a_code, want;
  };
  const Tie ties[] = {{3459.0f / 8192.0f, 33437.0f / 16384.0f, 3, 14}, {485.0f / 32768.0f, 1261.0f / 65536.0f, 5, 6}};
  const std::vector<uint32_t> d{200};
  for (const Tie& tie : ties) {
    for (const char* type : {"ElementWiseMultiply", "ElementWiseAdd", "ElementWiseSubtract", "ElementWiseDivide"}) {
      const bool mul = std::string(type) == "ElementWiseMultiply" || std::string(type) == "ElementWiseDivide";
      // b is 1.0 (code 2 at scale 0.5) for multiply/divide, 0 (code 0) for add/subtract.
      Node n{type, "t", {q8(dtype::kUfixed8, d, tie.a_scale, 0), q8(dtype::kUfixed8, d, 0.5f, 0)},
             {q8(dtype::kUfixed8, d, tie.out_scale, 0)}, {}};
      std::vector<Bytes> data{Bytes(200, tie.a_code), Bytes(200, mul ? 2 : 0)};
      const Bytes want = run_case(n, data, false, 1, nullptr);
      ASSERT_EQ(want[0], tie.want) << type;
      EXPECT_EQ(run_case(n, data, true, 1, "lookup-table"), want) << type << " output scale " << tie.out_scale;
    }
  }
}

}  // namespace
}  // namespace kernelstest

namespace kernelstest {
namespace {

// Quantize to 8-bit: bit-exact with the reference (ties, NaN, +-inf and
// out-of-range values saturating), split over the pool when large.
TEST(Quantized8Quantize, MatchesReferenceExactly) {
  std::mt19937 rng(41);
  for (int iter = 0; iter < 12; ++iter) {
    const std::vector<uint32_t> dims = iter == 0 ? std::vector<uint32_t>{256, 4, 2, 4, 64}  // an LLM's KV cache
                                                 : std::vector<uint32_t>{rand_int(rng, 1, 50), rand_int(rng, 1, 300)};
    TensorDesc y = random_q8(rng, dims, 3.0f);
    Node n{"Quantize", "q", {typed(dtype::kFloat32, dims)}, {y}, {}};
    std::vector<float> x(count(dims));
    for (auto& v : x) v = rand_float(rng, -5.0f, 5.0f);
    // Exact ties of the encoding (k + 0.5 steps), and the special values.
    for (size_t i = 0; i + 7 < x.size(); i += 97) {
      x[i] = (static_cast<float>(rand_int(rng, 0, 200)) - 100.0f + 0.5f) * y.quant.scale;
    }
    if (x.size() > 4) {
      x[1] = std::numeric_limits<float>::quiet_NaN();
      x[2] = std::numeric_limits<float>::infinity();
      x[3] = -std::numeric_limits<float>::infinity();
      x[4] = 1e30f;
    }
    const std::vector<Bytes> data{to_bytes(x)};
    const Bytes want = run_case(n, data, false, 1, nullptr);
    for (size_t threads : {1, 2}) {
      EXPECT_EQ(run_case(n, data, true, threads, "int8"), want) << "iter " << iter << " threads " << threads;
    }
  }
}

}  // namespace
}  // namespace kernelstest
