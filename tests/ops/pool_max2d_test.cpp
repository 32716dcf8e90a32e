#include <algorithm>
#include <cstdio>
#include <limits>

#include "test_util.h"

namespace opstest {
namespace {

std::vector<Param> pool_params(uint32_t fh, uint32_t fw, uint32_t sh, uint32_t sw, uint32_t pt,
                               uint32_t pb, uint32_t pl, uint32_t pr) {
  return {u32_tensor_param("filter_size", {2}, {fh, fw}), u32_tensor_param("stride", {2}, {sh, sw}),
          u32_tensor_param("pad_amount", {2, 2}, {pt, pb, pl, pr})};
}

TEST(PoolMax2d, HandComputed) {
  // 1x4x4x1 input, values chosen negative so that padding (if it counted as
  // 0) would win:
  //   -1  -2  -3  -4
  //   -5  -6  -7  -8
  //   -9 -10 -11 -12
  //  -13 -14 -15 -16
  // 2x2 window, stride 2, pad 1 on top/left only -> Ho = floor((1+4+0-2)/2+1) = 2:
  //   (0,0) covers only x(0,0)                     -> -1
  //   (0,1) covers x(0,1), x(0,2)                  -> -2
  //   (1,0) covers x(1,0), x(2,0)                  -> -5
  //   (1,1) covers x(1..2, 1..2)                   -> -6
  Node n{"PoolMax2d", "pool1", {f32({1, 4, 4, 1})}, {f32({1, 2, 2, 1})}, pool_params(2, 2, 2, 2, 1, 0, 1, 0)};
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = -float(i + 1);
  EXPECT_EQ(n.run({&x}), (std::vector<float>{-1, -2, -5, -6}));

  // CEIL: 3x3 window, stride 2, no pad on 4x4: Ho = ceil((4-3)/2)+1 = 2; the
  // second window covers rows/cols 2..3 only (position 4 is past the input).
  //   (0,0) max of x(0..2,0..2) = -1, (0,1) x(0..2,2..3) = -3,
  //   (1,0) x(2..3,0..2) = -9,        (1,1) x(2..3,2..3) = -11
  Node c{"PoolMax2d", "pool2", {f32({1, 4, 4, 1})}, {f32({1, 2, 2, 1})}, pool_params(3, 3, 2, 2, 0, 0, 0, 0)};
  c.params.push_back(u32_param("rounding_mode", 1));
  EXPECT_EQ(c.run({&x}), (std::vector<float>{-1, -3, -9, -11}));
  // FLOOR for the same: Ho = floor(1/2)+1 = 1 -> just the first window.
  Node f{"PoolMax2d", "pool3", {f32({1, 4, 4, 1})}, {f32({1, 1, 1, 1})}, pool_params(3, 3, 2, 2, 0, 0, 0, 0)};
  EXPECT_EQ(f.run({&x}), (std::vector<float>{-1}));
}

TEST(PoolMax2d, NaNPropagates) {
  Node n{"PoolMax2d", "p", {f32({1, 2, 2, 1})}, {f32({1, 1, 1, 1})}, pool_params(2, 2, 1, 1, 0, 0, 0, 0)};
  std::vector<float> x{1, std::nanf(""), 3, 2};
  EXPECT_TRUE(std::isnan(n.run({&x})[0]));
}

TEST(PoolMax2d, RandomAgainstBruteForceScan) {
  std::mt19937 rng(41);
  int compared = 0, refused = 0;
  for (int iter = 0; iter < 300; ++iter) {
    const uint32_t N = rand_int(rng, 1, 2), H = rand_int(rng, 1, 8), W = rand_int(rng, 1, 8);
    const uint32_t C = rand_int(rng, 1, 5);
    const uint32_t fh = rand_int(rng, 1, 4), fw = rand_int(rng, 1, 4);
    const uint32_t sh = rand_int(rng, 1, 3), sw = rand_int(rng, 1, 3);
    // Pads below the window size, except every 8th case where the top pad
    // equals it: that (and some CEIL tails) makes an all-padding window,
    // which must be refused.
    const uint32_t pt = iter % 8 == 0 ? fh : rand_int(rng, 0, fh - 1);
    const uint32_t pb = rand_int(rng, 0, fh - 1);
    const uint32_t pl = rand_int(rng, 0, fw - 1), pr = rand_int(rng, 0, fw - 1);
    const uint32_t rounding = rand_int(rng, 0, 1);
    if (fh > pt + H + pb || fw > pl + W + pr) continue;
    auto out_size = [&](uint32_t padded, uint32_t f, uint32_t s) {
      const double q = double(padded - f) / s;
      return uint32_t(rounding ? std::ceil(q) : std::floor(q)) + 1;
    };
    const uint32_t Ho = out_size(pt + H + pb, fh, sh), Wo = out_size(pl + W + pr, fw, sw);

    std::vector<float> x = random_floats(rng, size_t{N} * H * W * C, -10, 10);
    std::vector<float> want(size_t{N} * Ho * Wo * C);
    bool empty_window = false;
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t oh = 0; oh < Ho; ++oh)
        for (uint32_t ow = 0; ow < Wo; ++ow)
          for (uint32_t c = 0; c < C; ++c) {
            float best = -std::numeric_limits<float>::infinity();
            bool any = false;
            // Scan the whole window in padded coordinates; padding is skipped.
            for (uint32_t ph = oh * sh; ph < oh * sh + fh; ++ph)
              for (uint32_t pw = ow * sw; pw < ow * sw + fw; ++pw) {
                const int64_t ih = int64_t(ph) - pt, iw = int64_t(pw) - pl;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                best = std::max(best, x[((size_t{n} * H + ih) * W + iw) * C + c]);
                any = true;
              }
            empty_window = empty_window || !any;
            want[((size_t{n} * Ho + oh) * Wo + ow) * C + c] = best;
          }

    Node node{"PoolMax2d", "p", {f32({N, H, W, C})}, {f32({N, Ho, Wo, C})},
              pool_params(fh, fw, sh, sw, pt, pb, pl, pr)};
    if (rounding || rand_int(rng, 0, 1)) node.params.push_back(u32_param("rounding_mode", rounding));
    if (empty_window) {
      EXPECT_STATUS(node.prepare(), StatusCode::kUnsupported, "pools only padding");
      ++refused;
      continue;
    }
    ASSERT_EQ(node.run({&x}), want) << "iter " << iter;
    ++compared;
  }
  std::printf("PoolMax2d random: %d compared, %d refused\n", compared, refused);
  EXPECT_GT(compared, 150);
  EXPECT_GT(refused, 5);  // the all-padding rule was exercised
}

Node pool_base() {
  return Node{"PoolMax2d", "pool1", {f32({1, 5, 5, 2})}, {f32({1, 2, 2, 2})}, pool_params(3, 3, 2, 2, 0, 0, 0, 0)};
}

TEST(PoolMax2dRules, All) {
  ASSERT_TRUE(pool_base().prepare().ok());
  Node n = pool_base();
  n.outputs[0] = f32({1, 3, 2, 2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "PoolMax2d 'pool1': out[0] dim 1 is 3, expected 2");
  n.params.push_back(u32_param("rounding_mode", 1));  // ceil(2/2)+1 = 2 still
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "out[0] dim 1 is 3, expected 2");
  n = pool_base();
  n.params.push_back(u32_param("rounding_mode", 2));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'rounding_mode' is 2, expected 0 (FLOOR) or 1 (CEIL)");
  n = pool_base();
  n.params[0] = u32_tensor_param("filter_size", {2}, {0, 3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'filter_size' element 0 is 0");
  n = pool_base();
  n.params[1] = u32_tensor_param("stride", {2}, {2, 0});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'stride' element 1 is 0");
  n = pool_base();
  n.params.erase(n.params.begin());
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "mandatory parameter 'filter_size' is missing");
  n = pool_base();
  n.params[2] = u32_tensor_param("pad_amount", {2}, {0, 0});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "'pad_amount' dims are [2], expected [2,2]");
  n = pool_base();
  n.params[0] = u32_tensor_param("filter_size", {2}, {6, 3});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "filter height 6 exceeds padded input height pt+H+pb = 5");
  n = pool_base();
  n.inputs[0] = f32({5, 5, 2});
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "in[0] (input) rank is 3, expected 4");
  // Pad 3 with a 3-wide window: output column 0 sees only padding.
  n = pool_base();
  n.params[2] = u32_tensor_param("pad_amount", {2, 2}, {0, 0, 3, 0});
  n.outputs[0] = f32({1, 2, 3, 2});
  EXPECT_STATUS(n.prepare(), StatusCode::kUnsupported, "output column 0 pools only padding");
  n.params.push_back(u32_param("dilation", 1));
  EXPECT_STATUS(n.prepare(), StatusCode::kInvalidArgument, "unknown parameter 'dilation'");
}

}  // namespace
}  // namespace opstest
