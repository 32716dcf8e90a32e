// DepthWiseConv2d, TransposeConv2d, PoolAvg2d: hand-checked cases, random
// cases against naive double-precision formulations that loop differently
// from the kernels, and every rule broken once.
#include "test_util.h"

namespace opstest {
namespace {

Param stride_p(uint32_t h, uint32_t w) { return u32_tensor_param("stride", {2}, {h, w}); }
Param pad_p(uint32_t t, uint32_t b, uint32_t l, uint32_t r) {
  return u32_tensor_param("pad_amount", {2, 2}, {t, b, l, r});
}

// ---------------- DepthWiseConv2d ----------------

TEST(DepthWiseConv2d, HandComputedWithMultiplier) {
  // Input 1x2x2x2: channel 0 = [1 2; 3 4], channel 1 = [10 20; 30 40].
  // Filter [2,2,1,4], multiplier 2: out channels 0,1 read channel 0, 2,3 read
  // channel 1. Per filter position (0,0),(0,1),(1,0),(1,1) the four weights:
  //   co0: 1 1 1 1       -> 1+2+3+4         = 10
  //   co1: 1 0 0 -1      -> 1-4             = -3
  //   co2: 0 1 0 0       -> 20
  //   co3: .5 .5 .5 .5   -> (10+20+30+40)/2 = 50, + bias 1 = 51
  std::vector<float> x{1, 10, 2, 20, 3, 30, 4, 40};
  std::vector<float> w{1, 1, 0, 0.5f, 1, 0, 1, 0.5f, 1, 0, 0, 0.5f, 1, -1, 0, 0.5f};
  std::vector<float> b{0, 0, 0, 1};
  Node n{"DepthWiseConv2d", "dw", {f32({1, 2, 2, 2}), f32({2, 2, 1, 4}), f32({4})}, {f32({1, 1, 1, 4})},
         {stride_p(1, 1), pad_p(0, 0, 0, 0)}};
  EXPECT_EQ(n.run({&x, &w, &b}), (std::vector<float>{10, -3, 20, 51}));
}

TEST(DepthWiseConv2d, HandComputedPaddingAndDilation) {
  // 1x3x3x1 input 1..9, 1x2 filter [1, 100] with horizontal dilation 2,
  // pad 1 left/right, stride 1 -> Wo = (1+3+1 - 3)/1 + 1 = 3:
  //   ow=0 reads cols -1 (pad) and 1: 100*x(r,1)
  //   ow=1 reads cols 0 and 2:        x(r,0) + 100*x(r,2)
  //   ow=2 reads cols 1 and 3 (pad):  x(r,1)
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<float> w{1, 100};
  Node n{"DepthWiseConv2d", "dw", {f32({1, 3, 3, 1}), f32({1, 2, 1, 1})}, {f32({1, 3, 3, 1})},
         {stride_p(1, 1), pad_p(0, 0, 1, 1), u32_tensor_param("dilation", {2}, {1, 2})}};
  EXPECT_EQ(n.run({&x, &w}), (std::vector<float>{200, 301, 2, 500, 604, 5, 800, 907, 8}));
}

TEST(DepthWiseConv2d, RandomAgainstPaddedPlanes) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 25; ++trial) {
    const uint32_t N = rand_int(rng, 1, 2), H = rand_int(rng, 1, 7), W = rand_int(rng, 1, 7);
    const uint32_t Cin = rand_int(rng, 1, 4), M = rand_int(rng, 1, 3), Cout = Cin * M;
    const uint32_t KH = rand_int(rng, 1, 3), KW = rand_int(rng, 1, 3);
    const uint32_t sh = rand_int(rng, 1, 3), sw = rand_int(rng, 1, 3), dh = rand_int(rng, 1, 2),
                   dw = rand_int(rng, 1, 2);
    const uint32_t pt = rand_int(rng, 0, 2), pb = rand_int(rng, 0, 2), pl = rand_int(rng, 0, 2),
                   pr = rand_int(rng, 0, 2);
    const int64_t eh = int64_t{KH - 1} * dh + 1, ew = int64_t{KW - 1} * dw + 1;
    const int64_t PH = pt + H + pb, PW = pl + W + pr;
    if (eh > PH || ew > PW) continue;
    const uint32_t Ho = static_cast<uint32_t>((PH - eh) / sh + 1), Wo = static_cast<uint32_t>((PW - ew) / sw + 1);
    const bool with_bias = trial % 2 == 0;
    std::vector<float> x = random_floats(rng, size_t{N} * H * W * Cin);
    std::vector<float> w = random_floats(rng, size_t{KH} * KW * Cout);
    std::vector<float> b = random_floats(rng, Cout);
    Node n{"DepthWiseConv2d", "dw", {f32({N, H, W, Cin}), f32({KH, KW, 1, Cout})}, {f32({N, Ho, Wo, Cout})},
           {stride_p(sh, sw), pad_p(pt, pb, pl, pr), u32_tensor_param("dilation", {2}, {dh, dw})}};
    if (with_bias) n.inputs.push_back(f32({Cout}));
    // Per output channel: copy its input channel into an explicitly
    // zero-padded plane, then correlate.
    std::vector<Expected> want(size_t{N} * Ho * Wo * Cout);
    for (uint32_t nn = 0; nn < N; ++nn)
      for (uint32_t co = 0; co < Cout; ++co) {
        const uint32_t ci = co / M;
        std::vector<double> plane(PH * PW, 0.0);
        for (uint32_t h = 0; h < H; ++h)
          for (uint32_t ww = 0; ww < W; ++ww)
            plane[(h + pt) * PW + ww + pl] = x[((size_t{nn} * H + h) * W + ww) * Cin + ci];
        for (uint32_t oh = 0; oh < Ho; ++oh)
          for (uint32_t ow = 0; ow < Wo; ++ow) {
            Expected& e = want[((size_t{nn} * Ho + oh) * Wo + ow) * Cout + co];
            if (with_bias) e.add(b[co]);
            for (uint32_t kh = 0; kh < KH; ++kh)
              for (uint32_t kw = 0; kw < KW; ++kw)
                e.add(plane[(oh * sh + kh * dh) * PW + ow * sw + kw * dw] * double{w[(kh * KW + kw) * Cout + co]});
          }
      }
    std::vector<float> got = with_bias ? n.run({&x, &w, &b}) : n.run({&x, &w});
    expect_near_sums(got, want, "trial " + std::to_string(trial));
  }
}

TEST(DepthWiseConv2d, Rules) {
  auto node = [] {
    return Node{"DepthWiseConv2d", "dw", {f32({1, 4, 4, 2}), f32({3, 3, 1, 4})}, {f32({1, 2, 2, 4})},
                {stride_p(1, 1), pad_p(0, 0, 0, 0)}};
  };
  EXPECT_TRUE(node().prepare().ok());
  Node no_stride = node();
  no_stride.params.erase(no_stride.params.begin());
  EXPECT_STATUS(no_stride.prepare(), StatusCode::kInvalidArgument, "DepthWiseConv2d 'dw'",
                "mandatory parameter 'stride' is missing");
  Node no_pad = node();
  no_pad.params.pop_back();
  EXPECT_STATUS(no_pad.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'pad_amount' is missing");
  Node mult = node();
  mult.inputs[1] = f32({3, 3, 1, 3});
  mult.outputs[0] = f32({1, 2, 2, 3});
  EXPECT_STATUS(mult.prepare(), StatusCode::kInvalidArgument, "Cout = dim 3 = 3 is not a multiple", "Cin = 2");
  Node dim2 = node();
  dim2.inputs[1] = f32({3, 3, 2, 4});
  EXPECT_STATUS(dim2.prepare(), StatusCode::kInvalidArgument, "in[1] (filter) dim 2 is 2, expected 1");
  Node group = node();
  group.params.push_back(u32_param("group", 2));
  EXPECT_STATUS(group.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'group'");
  Node bias = node();
  bias.inputs.push_back(f32({2}));
  EXPECT_STATUS(bias.prepare(), StatusCode::kInvalidArgument, "in[2] (bias) dim 0 is 2, expected Cout = 4");
  Node out = node();
  out.outputs[0] = f32({1, 3, 2, 4});
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 1 is 3, expected 2");
  Node zero_stride = node();
  zero_stride.params[0] = stride_p(0, 1);
  EXPECT_STATUS(zero_stride.prepare(), StatusCode::kInvalidArgument, "'stride' element 0 is 0");
}

// ---------------- TransposeConv2d ----------------

TEST(TransposeConv2d, HandComputedStride2) {
  // Input [1 2; 3 4], filter [1 10; 100 1000], stride 2, no padding: each
  // input pixel stamps the filter scaled by itself into its own 2x2 block;
  // Ho = 2*(2-1) + 2 = 4.
  std::vector<float> x{1, 2, 3, 4}, w{1, 10, 100, 1000};
  Node n{"TransposeConv2d", "tc", {f32({1, 2, 2, 1}), f32({2, 2, 1, 1})}, {f32({1, 4, 4, 1})},
         {stride_p(2, 2), pad_p(0, 0, 0, 0)}};
  EXPECT_EQ(n.run({&x, &w}), (std::vector<float>{1, 10, 2, 20, 100, 1000, 200, 2000,  //
                                                  3, 30, 4, 40, 300, 3000, 400, 4000}));
}

TEST(TransposeConv2d, HandComputedOverlapPaddingOutputPadding) {
  // Stride 1, same data: the full 3x3 result is
  //   1     1*10+2    2*10          =   1   12   20
  //   1*100+3  1*1000+2*100+3*10+4  2*1000+4*10   = 103 1234 2040
  //   3*100  3*1000+4*100  4*1000    = 300 3400 4000
  std::vector<float> x{1, 2, 3, 4}, w{1, 10, 100, 1000}, b{0.5f};
  Node full{"TransposeConv2d", "tc", {f32({1, 2, 2, 1}), f32({2, 2, 1, 1}), f32({1})}, {f32({1, 3, 3, 1})},
            {stride_p(1, 1), pad_p(0, 0, 0, 0)}};
  EXPECT_EQ(full.run({&x, &w, &b}),
            (std::vector<float>{1.5f, 12.5f, 20.5f, 103.5f, 1234.5f, 2040.5f, 300.5f, 3400.5f, 4000.5f}));
  // pad 1 on every side crops to the centre: Ho = 1*(2-1) + 2 - 1 - 1 = 1.
  Node crop{"TransposeConv2d", "tc", {f32({1, 2, 2, 1}), f32({2, 2, 1, 1})}, {f32({1, 1, 1, 1})},
            {stride_p(1, 1), pad_p(1, 1, 1, 1)}};
  EXPECT_EQ(crop.run({&x, &w}), (std::vector<float>{1234}));
  // Stride 2, output_padding (1, 0): one extra bottom row that no input
  // reaches (all zeros); Ho = 2*1 + 2 + 1 = 5, Wo = 4.
  Node op{"TransposeConv2d", "tc", {f32({1, 2, 2, 1}), f32({2, 2, 1, 1})}, {f32({1, 5, 4, 1})},
          {stride_p(2, 2), pad_p(0, 0, 0, 0), u32_tensor_param("output_padding", {2}, {1, 0})}};
  EXPECT_EQ(op.run({&x, &w}), (std::vector<float>{1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40,  //
                                                   300, 3000, 400, 4000, 0, 0, 0, 0}));
}

TEST(TransposeConv2d, RandomAgainstScatter) {
  std::mt19937 rng(12);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t group = rand_int(rng, 1, 2);
    const uint32_t N = rand_int(rng, 1, 2), H = rand_int(rng, 1, 5), W = rand_int(rng, 1, 5);
    const uint32_t cin_g = rand_int(rng, 1, 3), cout_g = rand_int(rng, 1, 3);
    const uint32_t Cin = cin_g * group, Cout = cout_g * group;
    const uint32_t KH = rand_int(rng, 1, 4), KW = rand_int(rng, 1, 4);
    const uint32_t sh = rand_int(rng, 1, 3), sw = rand_int(rng, 1, 3);
    const uint32_t pt = rand_int(rng, 0, 2), pb = rand_int(rng, 0, 2), pl = rand_int(rng, 0, 2),
                   pr = rand_int(rng, 0, 2);
    const uint32_t oph = rand_int(rng, 0, sh - 1), opw = rand_int(rng, 0, sw - 1);
    const int64_t Ho64 = int64_t{sh} * (H - 1) + KH - pt - pb + oph;
    const int64_t Wo64 = int64_t{sw} * (W - 1) + KW - pl - pr + opw;
    if (Ho64 < 1 || Wo64 < 1) continue;
    const uint32_t Ho = static_cast<uint32_t>(Ho64), Wo = static_cast<uint32_t>(Wo64);
    std::vector<float> x = random_floats(rng, size_t{N} * H * W * Cin);
    std::vector<float> w = random_floats(rng, size_t{KH} * KW * Cin * cout_g);
    std::vector<float> b = random_floats(rng, Cout);
    Node n{"TransposeConv2d", "tc", {f32({N, H, W, Cin}), f32({KH, KW, Cin, cout_g}), f32({Cout})},
           {f32({N, Ho, Wo, Cout})},
           {stride_p(sh, sw), pad_p(pt, pb, pl, pr), u32_param("group", group),
            u32_tensor_param("output_padding", {2}, {oph, opw})}};
    // Scatter: every input pixel adds x * w into the output positions it
    // reaches; positions cropped away by the padding are dropped.
    std::vector<Expected> want(size_t{N} * Ho * Wo * Cout);
    for (uint32_t nn = 0; nn < N; ++nn)
      for (uint32_t oh = 0; oh < Ho; ++oh)
        for (uint32_t ow = 0; ow < Wo; ++ow)
          for (uint32_t co = 0; co < Cout; ++co) want[((size_t{nn} * Ho + oh) * Wo + ow) * Cout + co].add(b[co]);
    for (uint32_t nn = 0; nn < N; ++nn)
      for (uint32_t ih = 0; ih < H; ++ih)
        for (uint32_t iw = 0; iw < W; ++iw)
          for (uint32_t ci = 0; ci < Cin; ++ci) {
            const uint32_t g = ci / cin_g;
            const double xv = x[((size_t{nn} * H + ih) * W + iw) * Cin + ci];
            for (uint32_t kh = 0; kh < KH; ++kh)
              for (uint32_t kw = 0; kw < KW; ++kw) {
                const int64_t oh = int64_t{ih} * sh - pt + kh, ow = int64_t{iw} * sw - pl + kw;
                if (oh < 0 || oh >= Ho || ow < 0 || ow >= Wo) continue;
                for (uint32_t c = 0; c < cout_g; ++c) {
                  const double wv = w[((size_t{kh} * KW + kw) * Cin + ci) * cout_g + c];
                  want[((size_t{nn} * Ho + oh) * Wo + ow) * Cout + g * cout_g + c].add(xv * wv);
                }
              }
          }
    expect_near_sums(n.run({&x, &w, &b}), want, "trial " + std::to_string(trial));
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(TransposeConv2d, Rules) {
  auto node = [] {
    return Node{"TransposeConv2d", "tc", {f32({1, 2, 2, 4}), f32({3, 3, 4, 3})}, {f32({1, 5, 5, 6})},
                {stride_p(2, 2), pad_p(0, 0, 0, 0), u32_param("group", 2)}};
  };
  EXPECT_TRUE(node().prepare().ok());
  Node no_stride = node();
  no_stride.params.erase(no_stride.params.begin());
  EXPECT_STATUS(no_stride.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'stride' is missing");
  Node no_pad = node();
  no_pad.params.erase(no_pad.params.begin() + 1);
  EXPECT_STATUS(no_pad.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'pad_amount' is missing");
  Node outpad = node();
  outpad.params.push_back(u32_tensor_param("output_padding", {2}, {0, 2}));
  EXPECT_STATUS(outpad.prepare(), StatusCode::kInvalidArgument,
                "parameter 'output_padding' element 1 is 2, expected < stride 2");
  Node dilation = node();
  dilation.params.push_back(u32_tensor_param("dilation", {2}, {1, 1}));
  EXPECT_STATUS(dilation.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'dilation'");
  Node fdim = node();
  fdim.inputs[1] = f32({3, 3, 2, 3});
  EXPECT_STATUS(fdim.prepare(), StatusCode::kInvalidArgument, "in[1] (filter) dim 2 is 2, expected Cin = 4");
  Node grp = node();
  grp.params[2] = u32_param("group", 3);
  EXPECT_STATUS(grp.prepare(), StatusCode::kInvalidArgument, "Cin = 4 not divisible by parameter 'group' = 3");
  Node out = node();
  out.outputs[0] = f32({1, 5, 5, 3});
  EXPECT_STATUS(out.prepare(), StatusCode::kInvalidArgument, "out[0] dim 3 is 3, expected 6");
  Node crop = node();
  crop.params[1] = pad_p(3, 3, 0, 0);
  EXPECT_STATUS(crop.prepare(), StatusCode::kInvalidArgument, "output height/width", "= -1");
}

// ---------------- PoolAvg2d ----------------

std::vector<Param> avg_params(uint32_t fh, uint32_t fw, uint32_t sh, uint32_t sw, uint32_t pt, uint32_t pb,
                              uint32_t pl, uint32_t pr) {
  return {u32_tensor_param("filter_size", {2}, {fh, fw}), stride_p(sh, sw), pad_p(pt, pb, pl, pr)};
}

TEST(PoolAvg2d, HandComputedPadCounting) {
  // 1x4x4x1 input 1..16; 2x2 window, stride 2, pad 1 top/left -> 2x2:
  //   (0,0) sees x(0,0)=1                 : 1/1 = 1     | counting pad: 1/4
  //   (0,1) sees x(0,1), x(0,2) = 2, 3    : 5/2 = 2.5   | 5/4 = 1.25
  //   (1,0) sees x(1,0), x(2,0) = 5, 9    : 14/2 = 7    | 14/4 = 3.5
  //   (1,1) sees 6, 7, 10, 11             : 34/4 = 8.5  | 8.5
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = float(i + 1);
  Node n{"PoolAvg2d", "avg", {f32({1, 4, 4, 1})}, {f32({1, 2, 2, 1})}, avg_params(2, 2, 2, 2, 1, 0, 1, 0)};
  EXPECT_EQ(n.run({&x}), (std::vector<float>{1, 2.5f, 7, 8.5f}));
  n.params.push_back(bool_param("count_pad_for_edges", true));
  EXPECT_EQ(n.run({&x}), (std::vector<float>{0.25f, 1.25f, 3.5f, 8.5f}));
}

TEST(PoolAvg2d, HandComputedCeil) {
  // 3x3 window, stride 2, no pad, CEIL on 4x4 -> 2x2; the last window runs
  // past the input, and those positions count in neither mode:
  //   (0,0) rows 0-2, cols 0-2: 1+2+3+5+6+7+9+10+11 = 54 / 9 = 6
  //   (0,1) rows 0-2, cols 2-3: 3+4+7+8+11+12 = 45 / 6 = 7.5
  //   (1,0) rows 2-3, cols 0-2: 9+10+11+13+14+15 = 72 / 6 = 12
  //   (1,1) rows 2-3, cols 2-3: 11+12+15+16 = 54 / 4 = 13.5
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = float(i + 1);
  for (bool count_pad : {false, true}) {
    Node n{"PoolAvg2d", "avg", {f32({1, 4, 4, 1})}, {f32({1, 2, 2, 1})}, avg_params(3, 3, 2, 2, 0, 0, 0, 0)};
    n.params.push_back(u32_param("rounding_mode", 1));
    n.params.push_back(bool_param("count_pad_for_edges", count_pad));
    EXPECT_EQ(n.run({&x}), (std::vector<float>{6, 7.5f, 12, 13.5f})) << count_pad;
  }
}

TEST(PoolAvg2d, RandomAgainstNaive) {
  std::mt19937 rng(13);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t N = rand_int(rng, 1, 2), H = rand_int(rng, 1, 7), W = rand_int(rng, 1, 7), C = rand_int(rng, 1, 3);
    const uint32_t fh = rand_int(rng, 1, 3), fw = rand_int(rng, 1, 3), sh = rand_int(rng, 1, 3),
                   sw = rand_int(rng, 1, 3);
    const uint32_t pt = rand_int(rng, 0, fh - 1), pb = rand_int(rng, 0, fh - 1), pl = rand_int(rng, 0, fw - 1),
                   pr = rand_int(rng, 0, fw - 1);
    const bool ceil_mode = rand_int(rng, 0, 1), count_pad = rand_int(rng, 0, 1);
    const int64_t PH = pt + H + pb, PW = pl + W + pr;
    if (fh > PH || fw > PW) continue;
    auto osz = [&](int64_t span, int64_t s) { return (ceil_mode ? (span + s - 1) / s : span / s) + 1; };
    const uint32_t Ho = static_cast<uint32_t>(osz(PH - fh, sh)), Wo = static_cast<uint32_t>(osz(PW - fw, sw));
    std::vector<float> x = random_floats(rng, size_t{N} * H * W * C);
    // Naive: visit every window position, classify it as input, padding or
    // beyond the padded input.
    std::vector<Expected> want(size_t{N} * Ho * Wo * C);
    bool empty = false;
    for (uint32_t nn = 0; nn < N; ++nn)
      for (uint32_t oh = 0; oh < Ho; ++oh)
        for (uint32_t ow = 0; ow < Wo; ++ow)
          for (uint32_t c = 0; c < C; ++c) {
            double sum = 0.0;
            int divisor = 0;
            for (uint32_t i = 0; i < fh; ++i)
              for (uint32_t j = 0; j < fw; ++j) {
                const int64_t h = int64_t{oh} * sh + i - pt, ww = int64_t{ow} * sw + j - pl;
                const bool in_input = h >= 0 && h < H && ww >= 0 && ww < W;
                const bool in_padded = h >= -int64_t{pt} && h < int64_t{H} + pb && ww >= -int64_t{pl} &&
                                       ww < int64_t{W} + pr;
                if (in_input) sum += x[((size_t{nn} * H + h) * W + ww) * C + c];
                if (count_pad ? in_padded : in_input) ++divisor;
              }
            if (divisor == 0) {
              empty = true;
              continue;
            }
            Expected& e = want[((size_t{nn} * Ho + oh) * Wo + ow) * C + c];
            e.value = sum / divisor;
            e.abs_sum = std::fabs(sum / divisor) + 1.0 / divisor;
            e.terms = size_t{fh} * fw + 2;
          }
    Node n{"PoolAvg2d", "avg", {f32({N, H, W, C})}, {f32({N, Ho, Wo, C})}, avg_params(fh, fw, sh, sw, pt, pb, pl, pr)};
    n.params.push_back(u32_param("rounding_mode", ceil_mode ? 1 : 0));
    n.params.push_back(bool_param("count_pad_for_edges", count_pad));
    if (empty) {
      EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "averages no");
      continue;
    }
    expect_near_sums(n.run({&x}), want, "trial " + std::to_string(trial));
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(PoolAvg2d, Rules) {
  auto node = [] {
    return Node{"PoolAvg2d", "avg", {f32({1, 4, 4, 1})}, {f32({1, 2, 2, 1})}, avg_params(2, 2, 2, 2, 0, 0, 0, 0)};
  };
  EXPECT_TRUE(node().prepare().ok());
  const char* names[] = {"filter_size", "stride", "pad_amount"};
  for (int i = 0; i < 3; ++i) {
    Node n = node();
    n.params.erase(n.params.begin() + i);
    const std::string want = std::string("mandatory parameter '") + names[i] + "' is missing";
    EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, want.c_str());
  }
  Node rounding = node();
  rounding.params.push_back(u32_param("rounding_mode", 2));
  EXPECT_STATUS(rounding.prepare(), StatusCode::kInvalidArgument, "parameter 'rounding_mode' is 2");
  Node big = node();
  big.params[0] = u32_tensor_param("filter_size", {2}, {5, 2});
  EXPECT_STATUS(big.prepare(), StatusCode::kInvalidArgument, "filter height 5 exceeds padded input height");
  // A window of only padding (2x2 window, pad 2 at the top, stride 2): with
  // padding not counted it averages nothing.
  Node pad_only{"PoolAvg2d", "avg", {f32({1, 2, 2, 1})}, {f32({1, 2, 1, 1})}, avg_params(2, 2, 2, 2, 2, 0, 0, 0)};
  EXPECT_STATUS(pad_only.prepare(), StatusCode::kUnsupported, "output row 0 averages no input positions");
  pad_only.params.push_back(bool_param("count_pad_for_edges", true));
  EXPECT_TRUE(pad_only.prepare().ok());
}

TEST(PoolAvg2d, QuantizedThroughTypeAdapter) {
  // UFIXED_POINT_8, scale 0.5, offset 0 in and out: q 2,4,6,9 are 1,2,3,4.5;
  // their mean 2.625 quantizes to round_half_even(5.25) = 5.
  TensorDesc in = typed(dtype::kUfixed8, {1, 2, 2, 1});
  in.quant.present = true;
  in.quant.scale = 0.5f;
  TensorDesc out = in;
  out.dims = {1, 1, 1, 1};
  Node n{"PoolAvg2d", "avg", {in}, {out}, avg_params(2, 2, 1, 1, 0, 0, 0, 0)};
  std::unique_ptr<OpKernel> k;
  Status s = prepare_node(n.desc(), &k);
  ASSERT_TRUE(s.ok()) << s.message;
  std::vector<uint8_t> x{2, 4, 6, 9}, y{0};
  std::vector<const void*> ins{x.data()};
  std::vector<void*> outs{y.data()};
  k->run(ins, outs);
  EXPECT_EQ(y[0], 5);
}

}  // namespace
}  // namespace opstest
