// Reference kernel vs fast path for the same node, one thread, measured in
// the same run: 3x3 conv 1x56x56x64 -> 64 (fp32 via oneDNN, Winograd where
// the CPU has it; qu8), FullyConnected 512x512 (batch 1 and 64; fp32 via
// oneDNN and, for the choice recorded in onednn_matmul.cpp, XNNPACK); and the
// fast paths of EfficientNet-B0's small nodes alone — the 8-bit
// squeeze-excite scale, 8-bit depthwise 3x3 on oneDNN int8 against XNNPACK,
// the fp32 global pool — and the graph-edge image transpose.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/fast_paths.h"
#include "kernels/xnnpack_paths.h"
#include "ops/op.h"
#include "ops/quant.h"
#include "ops/parsed_params.h"
#include "threads/threadpool.h"

namespace {

using namespace openhtp::ops;

Param u32s(std::string name, std::vector<uint32_t> dims, std::vector<uint32_t> v) {
  Param p;
  p.name = std::move(name);
  p.is_tensor = true;
  p.dtype = dtype::kUint32;
  p.dims = std::move(dims);
  p.data.resize(v.size() * 4);
  std::memcpy(p.data.data(), v.data(), p.data.size());
  return p;
}

TensorDesc tensor(uint32_t dt, std::vector<uint32_t> dims, float scale = 0, int32_t offset = 0) {
  TensorDesc t;
  t.dtype = dt;
  t.dims = std::move(dims);
  if (scale > 0) {
    t.quant.present = true;
    t.quant.scale = scale;
    t.quant.offset = offset;
  }
  return t;
}

struct Bench {
  std::string type;
  std::vector<TensorDesc> inputs, outputs;
  std::vector<Param> params;
  std::vector<std::vector<uint8_t>> data;
  std::vector<uint8_t> out;

  void fill(std::mt19937& rng, const std::vector<bool>& is_static) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<uint8_t> b(inputs[i].num_bytes());
      if (inputs[i].dtype == dtype::kFloat32) {
        std::uniform_real_distribution<float> d(-1, 1);
        for (size_t k = 0; k < b.size() / 4; ++k) {
          const float f = d(rng);
          std::memcpy(&b[k * 4], &f, 4);
        }
      } else if (inputs[i].dtype == dtype::kFloat16) {
        std::uniform_real_distribution<float> d(-1, 1);
        for (size_t k = 0; k < b.size() / 2; ++k) {
          const uint16_t h = openhtp::ops::quant::float_to_half(d(rng));
          std::memcpy(&b[k * 2], &h, 2);
        }
      } else {
        for (auto& x : b) x = static_cast<uint8_t>(rng());
        if (inputs[i].dtype == dtype::kSfixed32) std::memset(b.data(), 0, b.size());
      }
      data.push_back(std::move(b));
      if (is_static[i]) inputs[i].static_data = data.back().data();
    }
    out.resize(outputs[0].num_bytes());
  }
};

// A node to bench: its inputs filled from a generator seeded with `seed`
// (static ones bound as static data), an output buffer of its size.
Bench make_bench(std::string type, std::vector<TensorDesc> inputs, std::vector<TensorDesc> outputs,
                 std::vector<Param> params, const std::vector<bool>& is_static, uint32_t seed) {
  Bench b;
  b.type = std::move(type);
  b.inputs = std::move(inputs);
  b.outputs = std::move(outputs);
  b.params = std::move(params);
  std::mt19937 rng(seed);
  b.fill(rng, is_static);
  return b;
}

std::vector<Param> same_3x3() { return {u32s("stride", {2}, {1, 1}), u32s("pad_amount", {2, 2}, {1, 1, 1, 1})}; }

Bench conv(bool quantized) {
  if (quantized) {
    return make_bench("Conv2d",
                      {tensor(dtype::kUfixed8, {1, 56, 56, 64}, 0.02f, -128),
                       tensor(dtype::kUfixed8, {3, 3, 64, 64}, 0.01f, -120), tensor(dtype::kSfixed32, {64}, 0.0002f, 0)},
                      {tensor(dtype::kUfixed8, {1, 56, 56, 64}, 0.5f, -100)}, same_3x3(), {false, true, true}, 1);
  }
  return make_bench("Conv2d",
                    {tensor(dtype::kFloat32, {1, 56, 56, 64}), tensor(dtype::kFloat32, {3, 3, 64, 64}),
                     tensor(dtype::kFloat32, {64})},
                    {tensor(dtype::kFloat32, {1, 56, 56, 64})}, same_3x3(), {false, true, true}, 1);
}

Bench fc(uint32_t batch) {
  return make_bench("FullyConnected",
                    {tensor(dtype::kFloat32, {batch, 512}), tensor(dtype::kFloat32, {512, 512}),
                     tensor(dtype::kFloat32, {512})},
                    {tensor(dtype::kFloat32, {batch, 512})}, {}, {false, true, true}, 2);
}

// EfficientNet's squeeze-and-excite scale, 8-bit: x [1, H, W, C] times a
// per-channel gate [1, 1, 1, C] (the row broadcast down the image).
Bench se_scale(uint32_t hw, uint32_t c) {
  // Scales as a calibration gives them (not round numbers: with 0.05, 1/255
  // and 0.04 a quarter of the products land exactly on a rounding tie and
  // take the exact-division fallback, which real encodings almost never do).
  return make_bench("ElementWiseMultiply",
                    {tensor(dtype::kUfixed8, {1, hw, hw, c}, 0.0473f, -20),
                     tensor(dtype::kUfixed8, {1, 1, 1, c}, 0.00391f, 0)},
                    {tensor(dtype::kUfixed8, {1, hw, hw, c}, 0.0417f, -25)}, {}, {false, false}, 3);
}

// A decoder's 2x upsampling: TransposeConv2d 2x2, stride 2, 32x32x64 ->
// 64x64x32 (a U-Net step).
Bench upsample_f32() {
  return make_bench("TransposeConv2d",
                    {tensor(dtype::kFloat32, {1, 32, 32, 64}), tensor(dtype::kFloat32, {2, 2, 64, 32}),
                     tensor(dtype::kFloat32, {32})},
                    {tensor(dtype::kFloat32, {1, 64, 64, 32})},
                    {u32s("stride", {2}, {2, 2}), u32s("pad_amount", {2, 2}, {0, 0, 0, 0})}, {false, true, true}, 6);
}

// A residual Add in 8-bit, [1, H, W, C] + [1, H, W, C], three encodings of
// their own (MobileNetV2's block outputs): XNNPACK's qu8 add (within one
// code of the reference) against openhtp's exact loop.
Bench residual_add_u8(uint32_t hw, uint32_t c) {
  return make_bench("ElementWiseAdd",
                    {tensor(dtype::kUfixed8, {1, hw, hw, c}, 0.0473f, -120),
                     tensor(dtype::kUfixed8, {1, hw, hw, c}, 0.0391f, -131)},
                    {tensor(dtype::kUfixed8, {1, hw, hw, c}, 0.0617f, -125)}, {}, {false, false}, 5);
}

// The same in fp32: x [1, H, W, C] times a per-channel scale [1, 1, 1, C].
Bench se_scale_f32(uint32_t hw, uint32_t c) {
  return make_bench("ElementWiseMultiply",
                    {tensor(dtype::kFloat32, {1, hw, hw, c}), tensor(dtype::kFloat32, {1, 1, 1, c})},
                    {tensor(dtype::kFloat32, {1, hw, hw, c})}, {}, {false, false}, 7);
}

// A Relu over [1, H, W, C]: FLOAT_32 (openhtp's loop), and FLOAT_16 and
// UFIXED_POINT_16 (a W8A16 graph's activations), which have no path of
// their own — the type adapter around that loop, i.e. what its conversions
// cost.
Bench relu(uint32_t dt, uint32_t hw, uint32_t c) {
  const bool q = dt == dtype::kUfixed16;
  return make_bench("Relu", {tensor(dt, {1, hw, hw, c}, q ? 0.0004f : 0.0f, q ? -30000 : 0)},
                    {tensor(dt, {1, hw, hw, c}, q ? 0.0003f : 0.0f, 0)}, {}, {false}, 8);
}

// A transcendental activation over [1, H, W, C]: in FLOAT_16 or
// UFIXED_POINT_16 a 65536-entry table of the reference's answers
// (lookup_table.h); in FLOAT_32 (Gelu, Tanh, Exp) openhtp's polynomials
// (float_transcendental.h) against the reference.
Bench unary16(std::string type, uint32_t dt, uint32_t hw, uint32_t c) {
  const bool q = dt == dtype::kUfixed16;
  return make_bench(std::move(type), {tensor(dt, {1, hw, hw, c}, q ? 0.0004f : 0.0f, q ? -30000 : 0)},
                    {tensor(dt, {1, hw, hw, c}, q ? 0.00002f : 0.0f, 0)}, {}, {false}, 8);
}

// max(x, 0.5) with the value a static one-element tensor (torch.clamp(min=)
// exported as Max with a constant).
Bench max_value_f32(uint32_t hw, uint32_t c) {
  return make_bench("ElementWiseMaximum", {tensor(dtype::kFloat32, {1, hw, hw, c}), tensor(dtype::kFloat32, {1})},
                    {tensor(dtype::kFloat32, {1, hw, hw, c})}, {}, {false, true}, 8);
}

// x^e with a static scalar exponent (e = 3: a GPT-2-style GELU's cube).
Bench power_f32(uint32_t hw, uint32_t c, float e) {
  Bench b = make_bench("ElementWisePower", {tensor(dtype::kFloat32, {1, hw, hw, c}), tensor(dtype::kFloat32, {1})},
                       {tensor(dtype::kFloat32, {1, hw, hw, c})}, {}, {false, true}, 9);
  std::memcpy(b.data[1].data(), &e, sizeof e);
  return b;
}

// fp32 binary loops (float_binary.h): x mod one value, and x < a row of C
// thresholds broadcast down the image (BOOL_8 out).
Bench mod_f32(uint32_t hw, uint32_t c) {
  return make_bench("ElementWiseMod", {tensor(dtype::kFloat32, {1, hw, hw, c}), tensor(dtype::kFloat32, {1})},
                    {tensor(dtype::kFloat32, {1, hw, hw, c})}, {}, {false, true}, 10);
}
Bench less_row_f32(uint32_t hw, uint32_t c) {
  return make_bench("ElementWiseLess", {tensor(dtype::kFloat32, {1, hw, hw, c}), tensor(dtype::kFloat32, {1, 1, 1, c})},
                    {tensor(dtype::kBool8, {1, hw, hw, c})}, {}, {false, true}, 11);
}

// Where(mask, scores, -inf): a [1,1,S,S] mask over [1,H,S,S] fp32 scores, the
// fill one value (select_runs.h).
Bench masked_select_f32(uint32_t heads, uint32_t s) {
  return make_bench("ElementWiseSelect",
                    {tensor(dtype::kBool8, {1, 1, s, s}), tensor(dtype::kFloat32, {1, heads, s, s}),
                     tensor(dtype::kFloat32, {1})},
                    {tensor(dtype::kFloat32, {1, heads, s, s})}, {}, {true, false, true}, 12);
}

// A depthwise 3x3 'same' convolution, 8-bit activations with symmetric
// per-tensor int8 weights (what the converter makes with per-channel off):
// the cases both oneDNN int8 and XNNPACK qc8 take.
Bench depthwise_q8(uint32_t hw, uint32_t c) {
  return make_bench("DepthWiseConv2d",
                    {tensor(dtype::kUfixed8, {1, hw, hw, c}, 0.02f, -128),
                     tensor(dtype::kSfixed8, {3, 3, 1, c}, 0.01f, 0), tensor(dtype::kSfixed32, {c}, 0.0002f, 0)},
                    {tensor(dtype::kUfixed8, {1, hw, hw, c}, 0.1f, -100)}, same_3x3(), {false, true, true}, 4);
}

// EfficientNet's squeeze-and-excite pool, fp32 or 8-bit: ReduceMean of NHWC
// over H and W (a column sum of an [H*W, C] matrix); 8-bit at 7x7x1280 is
// MobileNetV2's last pool.
Bench global_pool(uint32_t dt, uint32_t hw, uint32_t c) {
  Param keep;
  keep.name = "keep_dims";
  keep.dtype = dtype::kBool8;
  keep.i = 1;
  const bool q = dt == dtype::kUfixed8;
  return make_bench("ReduceMean", {tensor(dt, {1, hw, hw, c}, q ? 0.031f : 0.0f, q ? -17 : 0)},
                    {tensor(dt, {1, 1, 1, c}, q ? 0.027f : 0.0f, q ? -9 : 0)}, {u32s("axes", {2}, {1, 2}), keep},
                    {false}, 6);
}
Bench global_pool_f32(uint32_t hw, uint32_t c) { return global_pool(dtype::kFloat32, hw, c); }

// A pointwise (1x1) fp32 convolution of a small map: MobileNetV2's 7x7
// 960 -> 320 projection, its largest late layer. On two threads it runs as
// two slabs (onednn_slabs.h): of pixels (25 + 24), not rows (4 + 3).
Bench pointwise_f32(uint32_t hw, uint32_t cin, uint32_t cout) {
  return make_bench("Conv2d",
                    {tensor(dtype::kFloat32, {1, hw, hw, cin}), tensor(dtype::kFloat32, {1, 1, cin, cout}),
                     tensor(dtype::kFloat32, {cout})},
                    {tensor(dtype::kFloat32, {1, hw, hw, cout})},
                    {u32s("stride", {2}, {1, 1}), u32s("pad_amount", {2, 2}, {0, 0, 0, 0})}, {false, true, true}, 9);
}

// The graph-edge Transpose of an NCHW image into NHWC (the converter's first
// node on a CNN's input).
Bench image_to_nhwc(uint32_t dt = dtype::kFloat32) {
  const float scale = dt == dtype::kFloat32 ? 0.0f : 0.02f;
  return make_bench("Transpose", {tensor(dt, {1, 3, 224, 224}, scale, -128)},
                    {tensor(dt, {1, 224, 224, 3}, scale, -128)}, {u32s("perm", {4}, {0, 2, 3, 1})}, {false}, 5);
}

// kind: "reference", "fast" (the registered fast paths), "fast2t" (the same
// on a pool of two threads), "xnnpack_f32_fc", or "lib:NAME" (the fast path
// of that library for the node's type).
void run(benchmark::State& state, Bench b, std::string kind) {
  KernelEnv env;  // one thread: ratios per core
  env.fast_paths = openhtp::kernels::fast_paths();
  std::unique_ptr<pthreadpool, void (*)(pthreadpool_t)> pool(nullptr, openhtp::threads::destroy_pool);
  if (kind == "fast2t") {
    pool.reset(openhtp::threads::create_pool(2));
    env.pool = pool.get();
    env.num_threads = 2;
    kind = "fast";
  }
  NodeDesc d{"bench", b.type, b.inputs, b.outputs, b.params, &env};
  std::unique_ptr<OpKernel> k;
  bool ok = false;
  if (kind == "reference") ok = prepare_reference(d, &k).ok();
  else if (kind == "fast") ok = prepare_node(d, &k).ok();
  else if (kind.rfind("lib:", 0) == 0) {
    // As prepare_node hands a node to a fast path: parameters parsed once
    // (the kernel reads them at prepare only; both live to the end of run).
    ParsedParams parsed;
    if (openhtp::ops::parse_params(d, &parsed).ok()) d.parsed = &parsed;
    for (const FastPath& fp : openhtp::kernels::fast_paths()) {
      if (fp.type_name == b.type && fp.library == kind.substr(4) && fp.prepare != nullptr) ok = fp.prepare(d, &k);
    }
  }
  else ok = openhtp::kernels::xnn::prepare_fully_connected_f32(d, &k);
  if (!ok || !k) {
    state.SkipWithError("prepare failed");
    return;
  }
  std::vector<const void*> in;
  for (auto& v : b.data) in.push_back(v.data());
  std::vector<void*> out{b.out.data()};
  for (auto _ : state) {
    k->run(in, out);
    benchmark::ClobberMemory();
  }
}

BENCHMARK_CAPTURE(run, conv3x3_f32_reference, conv(false), std::string("reference"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, conv3x3_f32_fast, conv(false), std::string("fast"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, conv3x3_qu8_reference, conv(true), std::string("reference"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, conv3x3_qu8_fast, conv(true), std::string("fast"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, se_scale_u8_112x112x32_fast, se_scale(112, 32), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, se_scale_u8_56x56x144_fast, se_scale(56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, se_scale_u8_14x14x672_fast, se_scale(14, 672), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, relu_f16_56x56x144_fast, relu(dtype::kFloat16, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, relu_f16_56x56x144_fast2t, relu(dtype::kFloat16, 56, 144), std::string("fast2t"))->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(run, relu_u16_56x56x144_fast, relu(dtype::kUfixed16, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, relu_f16_56x56x144_table, relu(dtype::kFloat16, 56, 144), std::string("lib:lookup-table"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, relu_u16_56x56x144_table, relu(dtype::kUfixed16, 56, 144), std::string("lib:lookup-table"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, sigmoid_f16_56x56x144_fast, unary16("Sigmoid", dtype::kFloat16, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, gelu_f16_56x56x144_fast, unary16("Gelu", dtype::kFloat16, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, gelu_u16_56x56x144_fast, unary16("Gelu", dtype::kUfixed16, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, gelu_f32_56x56x144_fast, unary16("Gelu", dtype::kFloat32, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, gelu_f32_56x56x144_reference, unary16("Gelu", dtype::kFloat32, 56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, tanh_f32_56x56x144_fast, unary16("Tanh", dtype::kFloat32, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, tanh_f32_56x56x144_reference, unary16("Tanh", dtype::kFloat32, 56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, exp_f32_56x56x144_fast, unary16("ElementWiseExp", dtype::kFloat32, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, exp_f32_56x56x144_reference, unary16("ElementWiseExp", dtype::kFloat32, 56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, log_f32_56x56x144_fast, unary16("ElementWiseLog", dtype::kFloat32, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, log_f32_56x56x144_reference, unary16("ElementWiseLog", dtype::kFloat32, 56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, max_value_f32_56x56x144_fast, max_value_f32(56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, max_value_f32_56x56x144_reference, max_value_f32(56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, pow3_f32_56x56x144_fast, power_f32(56, 144, 3.0f), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, pow3_f32_56x56x144_reference, power_f32(56, 144, 3.0f), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, sqrt_pow_f32_56x56x144_fast, power_f32(56, 144, 0.5f), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, sqrt_pow_f32_56x56x144_reference, power_f32(56, 144, 0.5f), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, mod_f32_56x56x144_fast, mod_f32(56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, mod_f32_56x56x144_reference, mod_f32(56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, less_row_f32_56x56x144_fast, less_row_f32(56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, less_row_f32_56x56x144_reference, less_row_f32(56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, masked_select_f32_8x256x256_fast, masked_select_f32(8, 256), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, masked_select_f32_8x256x256_reference, masked_select_f32(8, 256), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, logit_f32_56x56x144_fast, unary16("Logit", dtype::kFloat32, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, logit_f32_56x56x144_reference, unary16("Logit", dtype::kFloat32, 56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, rsqrt_f32_56x56x144_fast, unary16("ElementWiseRsqrt", dtype::kFloat32, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, rsqrt_f32_56x56x144_reference, unary16("ElementWiseRsqrt", dtype::kFloat32, 56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, softplus_f32_56x56x144_fast, unary16("ElementWiseSoftplus", dtype::kFloat32, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, softplus_f32_56x56x144_reference, unary16("ElementWiseSoftplus", dtype::kFloat32, 56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, sin_f32_56x56x144_fast, unary16("ElementWiseSin", dtype::kFloat32, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, sin_f32_56x56x144_reference, unary16("ElementWiseSin", dtype::kFloat32, 56, 144), std::string("reference"))->Unit(benchmark::kMicrosecond);
// fp32 ops still on the reference (per element) on slices of the graph's
// pool: Atan stands for them (Asin too).
BENCHMARK_CAPTURE(run, atan_f32_56x56x144_fast, unary16("ElementWiseAtan", dtype::kFloat32, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, atan_f32_56x56x144_fast2t, unary16("ElementWiseAtan", dtype::kFloat32, 56, 144), std::string("fast2t"))->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(run, atan_f32_14x14x144_fast, unary16("ElementWiseAtan", dtype::kFloat32, 14, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, atan_f32_14x14x144_fast2t, unary16("ElementWiseAtan", dtype::kFloat32, 14, 144), std::string("fast2t"))->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(run, relu_f32_56x56x144_fast, relu(dtype::kFloat32, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, relu_f32_56x56x144_fast2t, relu(dtype::kFloat32, 56, 144), std::string("fast2t"))->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(run, pointwise_f32_7x7x960x320_fast, pointwise_f32(7, 960, 320), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, pointwise_f32_7x7x960x320_fast2t, pointwise_f32(7, 960, 320), std::string("fast2t"))->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(run, tconv2x2_s2_32x32x64_reference, upsample_f32(), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, tconv2x2_s2_32x32x64_fast, upsample_f32(), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, add_u8_56x56x24_xnnpack, residual_add_u8(56, 24), std::string("lib:xnnpack"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, add_u8_56x56x24_exact, residual_add_u8(56, 24), std::string("lib:lookup-table"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, add_u8_14x14x64_xnnpack, residual_add_u8(14, 64), std::string("lib:xnnpack"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, add_u8_14x14x64_exact, residual_add_u8(14, 64), std::string("lib:lookup-table"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, se_scale_f32_112x112x32_fast, se_scale_f32(112, 32), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, se_scale_f32_56x56x144_fast, se_scale_f32(56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, se_scale_f32_14x14x672_fast, se_scale_f32(14, 672), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, dw3x3_q8_112x112x32_onednn_int8, depthwise_q8(112, 32), std::string("lib:onednn-int8"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, dw3x3_q8_112x112x32_xnnpack, depthwise_q8(112, 32), std::string("lib:xnnpack"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, dw3x3_q8_28x28x240_onednn_int8, depthwise_q8(28, 240), std::string("lib:onednn-int8"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, dw3x3_q8_28x28x240_xnnpack, depthwise_q8(28, 240), std::string("lib:xnnpack"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, dw3x3_q8_7x7x1152_onednn_int8, depthwise_q8(7, 1152), std::string("lib:onednn-int8"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, dw3x3_q8_7x7x1152_xnnpack, depthwise_q8(7, 1152), std::string("lib:xnnpack"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, transpose_nchw_to_nhwc_3x224x224_fast, image_to_nhwc(), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, transpose_nchw_to_nhwc_3x224x224_fast2t, image_to_nhwc(), std::string("fast2t"))->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(run, transpose_nchw_to_nhwc_u8_3x224x224_fast, image_to_nhwc(dtype::kUfixed8), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, transpose_nchw_to_nhwc_u8_3x224x224_fast2t, image_to_nhwc(dtype::kUfixed8), std::string("fast2t"))->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_CAPTURE(run, gap_f32_112x112x32_fast, global_pool_f32(112, 32), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, gap_f32_28x28x240_fast, global_pool_f32(28, 240), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, gap_f32_7x7x1152_fast, global_pool_f32(7, 1152), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, gap_u8_112x112x32_fast, global_pool(dtype::kUfixed8, 112, 32), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, gap_u8_56x56x144_fast, global_pool(dtype::kUfixed8, 56, 144), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, gap_u8_7x7x1280_fast, global_pool(dtype::kUfixed8, 7, 1280), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, fc512_b1_reference, fc(1), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, fc512_b1_fast_onednn, fc(1), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, fc512_b1_xnnpack_f32, fc(1), std::string("xnnpack_f32_fc"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, fc512_b64_reference, fc(64), std::string("reference"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, fc512_b64_fast_onednn, fc(64), std::string("fast"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, fc512_b64_xnnpack_f32, fc(64), std::string("xnnpack_f32_fc"))->Unit(benchmark::kMicrosecond);

}  // namespace
