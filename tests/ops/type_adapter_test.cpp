// The type adapter turns a float reference kernel into a FLOAT_16 or
// fixed-point one. Expectations are computed here from the encodings by hand
// (dequantize, do the arithmetic, requantize), not through the adapter.
#include <cmath>
#include <memory>
#include <random>

#include "ops/quant.h"
#include "threads/threadpool.h"
#include "test_util.h"

namespace opstest {
namespace {

TensorDesc u8(std::vector<uint32_t> dims, float scale, int32_t offset) {
  TensorDesc t = typed(dtype::kUfixed8, std::move(dims));
  t.quant = Quant::per_tensor(scale, offset);
  return t;
}

void run_raw_kernel(OpKernel& k, std::vector<const void*> ins, std::vector<void*> outs) { k.run(ins, outs); }

// Runs a prepared kernel on raw byte buffers.
void run_raw(const Node& n, std::vector<const void*> ins, std::vector<void*> outs) {
  std::unique_ptr<OpKernel> k;
  Status s = n.prepare(&k);
  ASSERT_TRUE(s.ok()) << s.message;
  k->run(ins, outs);
}

TEST(TypeAdapter, QuantizedAddRequantizesToTheOutputEncoding) {
  // a: scale 0.1, zero point 10; b: scale 0.2, zero point 0; out: scale 0.5, zero point 20.
  Node n{"ElementWiseAdd", "qadd", {u8({4}, 0.1f, -10), u8({4}, 0.2f, 0)}, {u8({4}, 0.5f, -20)}, {}};
  const uint8_t a[4] = {10, 20, 0, 255};   // 0, 1.0, -1.0, 24.5
  const uint8_t b[4] = {0, 5, 255, 255};   // 0, 1.0, 51.0, 51.0
  uint8_t y[4] = {};
  run_raw(n, {a, b}, {y});
  // sums 0, 2.0, 50.0, 75.5 -> /0.5 + 20 = 20, 24, 120, 171
  EXPECT_EQ(y[0], 20);
  EXPECT_EQ(y[1], 24);
  EXPECT_EQ(y[2], 120);
  EXPECT_EQ(y[3], 171);
}

TEST(TypeAdapter, OutputSaturates) {
  Node n{"Relu", "r", {u8({2}, 1.0f, -100)}, {u8({2}, 0.1f, 0)}, {}};
  const uint8_t x[2] = {0, 200};  // -100 -> relu 0 -> 0; 100 -> 1000 -> saturates at 255
  uint8_t y[2] = {};
  run_raw(n, {x}, {y});
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 255);
}

TEST(TypeAdapter, PerChannelWeightsAndDerivedBiasScale) {
  // FullyConnected, in [1,2] uint8 (scale 0.5, zp 0), weights [2 out, 2 in]
  // SFIXED_8 per-channel along axis 0 with scales 0.1 / 0.2, bias SFIXED_32
  // with scale 0 (QNN: derived as in_scale * w_scale[c]).
  TensorDesc x = u8({1, 2}, 0.5f, 0);
  TensorDesc w = typed(dtype::kSfixed8, {2, 2});
  w.quant.present = true;
  w.quant.axis = 0;
  w.quant.scales = {0.1f, 0.2f};
  w.quant.offsets = {0, 0};
  const int8_t wq[4] = {10, -20, 5, 5};  // real [[1, -2], [1, 1]]
  w.static_data = wq;
  TensorDesc b = typed(dtype::kSfixed32, {2});
  b.quant = Quant::per_tensor(0.0f, 0);
  const int32_t bq[2] = {20, -10};  // scales 0.05, 0.1 -> real 1.0, -1.0
  b.static_data = bq;
  Node n{"FullyConnected", "fc", {x, w, b}, {u8({1, 2}, 0.25f, -128)}, {}};
  const uint8_t xq[2] = {6, 2};  // real 3, 1
  uint8_t y[2] = {};
  run_raw(n, {xq, wq, bq}, {y});
  // out0 = 3*1 + 1*(-2) + 1 = 2 -> 2/0.25 + 128 = 136
  // out1 = 3*1 + 1*1 - 1 = 3 -> 12 + 128 = 140
  EXPECT_EQ(y[0], 136);
  EXPECT_EQ(y[1], 140);
}

TEST(TypeAdapter, Float16RunsTheFloatKernel) {
  using openhtp::ops::quant::float_to_half;
  using openhtp::ops::quant::half_to_float;
  Node n{"ElementWiseMultiply", "m", {typed(dtype::kFloat16, {3}), typed(dtype::kFloat16, {3})},
         {typed(dtype::kFloat16, {3})}, {}};
  const uint16_t a[3] = {float_to_half(1.5f), float_to_half(-2.0f), float_to_half(100.0f)};
  const uint16_t b[3] = {float_to_half(2.0f), float_to_half(0.25f), float_to_half(1000.0f)};
  uint16_t y[3] = {};
  run_raw(n, {a, b}, {y});
  EXPECT_EQ(half_to_float(y[0]), 3.0f);
  EXPECT_EQ(half_to_float(y[1]), -0.5f);
  EXPECT_TRUE(std::isinf(half_to_float(y[2])));  // 1e5 overflows half
}

// On a graph's pool of two threads the adapter converts in one share per
// thread: the bytes must be those one thread writes, for half precision (NaNs
// and subnormals among the inputs), per-tensor 8-bit and per-channel 16-bit
// encodings (each share starts mid-tensor, in another channel), at sizes
// around the split threshold and not a multiple of two.
TEST(TypeAdapter, ConversionsSplitOverThePoolWriteWhatOneThreadWrites) {
  std::unique_ptr<pthreadpool, void (*)(pthreadpool_t)> pool(openhtp::threads::create_pool(2),
                                                            openhtp::threads::destroy_pool);
  ASSERT_TRUE(pool);
  KernelEnv two;
  two.pool = pool.get();
  two.num_threads = 2;
  std::mt19937 rng(77);
  const uint64_t split_before = openhtp::threads::split_dispatches();
  for (uint32_t elems : {1000u, 16384u, 40001u, 131075u}) {
    const uint32_t channels = 7;
    const std::vector<uint32_t> dims{1, elems / channels + 1, channels};
    TensorDesc f16 = typed(dtype::kFloat16, dims);
    TensorDesc i8 = typed(dtype::kSfixed8, dims);
    i8.quant = Quant::per_tensor(0.05f, 3);
    TensorDesc u16_in = typed(dtype::kUfixed16, dims), u16_out = u16_in;
    std::vector<float> in_scales, out_scales;
    for (uint32_t c = 0; c < channels; ++c) {
      in_scales.push_back(0.001f * float(c + 1));
      out_scales.push_back(0.0007f * float(c + 2));
    }
    u16_in.quant = Quant::per_tensor(0.0f, 0);
    u16_in.quant.axis = 2;
    u16_in.quant.scales = in_scales;
    u16_in.quant.offsets.assign(channels, -30000);
    u16_out.quant = u16_in.quant;
    u16_out.quant.scales = out_scales;
    const Node nodes[] = {{"Tanh", "f16", {f16}, {f16}, {}},
                          {"Tanh", "s8", {i8}, {i8}, {}},
                          {"Relu", "u16 per channel", {u16_in}, {u16_out}, {}}};
    for (const Node& n : nodes) {
      std::vector<uint8_t> x(n.inputs[0].num_bytes());
      for (auto& b : x) b = static_cast<uint8_t>(rng());
      auto run_on = [&](const KernelEnv* env) {
        NodeDesc d = n.desc();
        d.env = env;
        std::unique_ptr<OpKernel> k;
        const Status s = prepare_reference(d, &k);
        EXPECT_TRUE(s.ok() && k) << s.message;
        std::vector<uint8_t> y(n.outputs[0].num_bytes(), 0xCD);
        if (k) run_raw_kernel(*k, {x.data()}, {y.data()});
        return y;
      };
      EXPECT_EQ(run_on(&two), run_on(nullptr)) << n.name << " " << elems;
    }
  }
  EXPECT_GT(openhtp::threads::split_dispatches(), split_before) << "some conversions split";
}

TEST(TypeAdapter, BrokenEncodingIsNamed) {
  Node n{"Relu", "r", {u8({2}, 1.0f, 0)}, {u8({2}, -1.0f, 0)}, {}};
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'r'", "out[0]", "scale is -1");
  TensorDesc w = typed(dtype::kSfixed8, {2, 2});
  w.quant.present = true;
  w.quant.axis = 0;
  w.quant.scales = {0.1f};
  w.quant.offsets = {0};
  Node fc{"FullyConnected", "fc", {u8({1, 2}, 1.0f, 0), w}, {u8({1, 2}, 1.0f, 0)}, {}};
  EXPECT_STATUS(fc.prepare(), StatusCode::kInvalidArgument, "in[1]", "1 scales for 2 channels");
}

TEST(TypeAdapter, UnknownOpIsUnsupportedAndNamed) {
  Node n{"NoSuchOp", "x", {f32({1})}, {f32({1})}, {}};
  NodeDesc d = n.desc();
  EXPECT_STATUS(prepare_node(d, nullptr), StatusCode::kUnsupported, "NoSuchOp", "'x'", "qti.aisw");
}

}  // namespace
}  // namespace opstest
