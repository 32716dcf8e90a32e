// The convolution tests' shapes and nodes (conv_test.cpp: float and XNNPACK
// paths; onednn_int8_test.cpp: the oneDNN int8 path): one shape type, its
// random window, and the Conv2d / DepthWiseConv2d node built from it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

#include "kernel_check.h"

namespace kernelstest {

struct ConvShape {
  uint32_t N, H, W, Cin, KH, KW, Cout, group, sh, sw, dh, dw, pt, pb, pl, pr, Ho, Wo;
  bool depthwise, bias;
  // Products summed into one output: the window's taps, and with the bias.
  size_t taps() const { return size_t{KH} * KW * (Cin / group); }
  size_t K() const { return taps() + (bias ? 1 : 0); }
  std::string str() const {
    return (depthwise ? "dw " : "conv ") + std::to_string(N) + "x" + std::to_string(H) + "x" + std::to_string(W) +
           "x" + std::to_string(Cin) + " k" + std::to_string(KH) + "x" + std::to_string(KW) + " Cout " +
           std::to_string(Cout) + " g" + std::to_string(group) + " s" + std::to_string(sh) + std::to_string(sw) +
           " d" + std::to_string(dh) + std::to_string(dw) + " p" + std::to_string(pt) + std::to_string(pb) +
           std::to_string(pl) + std::to_string(pr) + (bias ? " bias" : "");
  }
};

// Sets *s's window at random (1-3 taps each way, stride and dilation 1-2,
// padding 0-2), an image of up to 11 x 11 that the window fits, the output
// size it gives, and a bias two times in three. N, channels and groups are
// the caller's.
inline void random_window(std::mt19937& rng, ConvShape* s) {
  s->KH = rand_int(rng, 1, 3);
  s->KW = rand_int(rng, 1, 3);
  s->sh = rand_int(rng, 1, 2);
  s->sw = rand_int(rng, 1, 2);
  s->dh = rand_int(rng, 1, 2);
  s->dw = rand_int(rng, 1, 2);
  s->pt = rand_int(rng, 0, 2);
  s->pb = rand_int(rng, 0, 2);
  s->pl = rand_int(rng, 0, 2);
  s->pr = rand_int(rng, 0, 2);
  const uint32_t eh = (s->KH - 1) * s->dh + 1, ew = (s->KW - 1) * s->dw + 1;
  s->H = rand_int(rng, std::max<int>(1, int(eh) - int(s->pt + s->pb)), 11);
  s->W = rand_int(rng, std::max<int>(1, int(ew) - int(s->pl + s->pr)), 11);
  s->Ho = (s->pt + s->H + s->pb - eh) / s->sh + 1;
  s->Wo = (s->pl + s->W + s->pr - ew) / s->sw + 1;
  s->bias = rand_int(rng, 0, 3) != 0;
}

// Whether a Conv2d of one group states it (group = 1) or leaves the
// parameter out; both read the same.
enum class GroupOfOne { kStated, kLeftOut };

// The node for shape s with tensors of x's, w's, b's and y's types and
// encodings (their dims set here); w and b static.
inline Case make_conv_case(const ConvShape& s, TensorDesc x, TensorDesc w, TensorDesc b, TensorDesc y,
                           GroupOfOne group_of_one) {
  Case c;
  c.node.type = s.depthwise ? "DepthWiseConv2d" : "Conv2d";
  c.node.name = s.str();
  x.dims = {s.N, s.H, s.W, s.Cin};
  w.dims = {s.KH, s.KW, s.Cin / s.group, s.Cout};
  b.dims = {s.Cout};
  y.dims = {s.N, s.Ho, s.Wo, s.Cout};
  c.node.inputs = {x, w};
  if (s.bias) c.node.inputs.push_back(b);
  c.node.outputs = {y};
  c.node.params = {u32_tensor_param("stride", {2}, {s.sh, s.sw}),
                   u32_tensor_param("pad_amount", {2, 2}, {s.pt, s.pb, s.pl, s.pr}),
                   u32_tensor_param("dilation", {2}, {s.dh, s.dw})};
  if (!s.depthwise && (s.group != 1 || group_of_one == GroupOfOne::kStated)) {
    c.node.params.push_back(u32_param("group", s.group));
  }
  c.is_static = {false, true, true};
  c.is_static.resize(c.node.inputs.size());
  return c;
}

// Makes *s a 1x1 convolution with a stride — 2-3 down, 1-3 across,
// unpadded, one group — of at least 6 output rows (two a thread on three
// threads): ResNet's downsampling shortcut, which runs in slabs of rows
// (onednn_slabs.h). Ho and Wo are the caller's.
inline void make_strided_pointwise(std::mt19937& rng, ConvShape* s) {
  s->group = 1;
  s->KH = s->KW = 1;
  s->sh = rand_int(rng, 2, 3);
  s->sw = rand_int(rng, 1, 3);
  s->pt = s->pb = s->pl = s->pr = 0;
  s->H = rand_int(rng, int(5 * s->sh + 1), 30);
  s->W = rand_int(rng, 1, 12);
}

// Makes *s an image stem: one group, 1-4 input channels, a 1-7 tall window
// with the shape's stride, dilation and padding, tall enough for at least 6
// output rows (two a thread on three threads): ResNet's 7x7/2 and MobileNet's
// 3x3/2 first layers, which run in slabs of rows (onednn_slabs.h). Ho and Wo
// are the caller's.
inline void make_stem(std::mt19937& rng, ConvShape* s) {
  s->group = 1;
  s->Cin = rand_int(rng, 1, 4);
  s->KH = rand_int(rng, 1, 7);
  s->KW = rand_int(rng, 1, 7);
  const uint32_t eh = (s->KH - 1) * s->dh + 1, ew = (s->KW - 1) * s->dw + 1;
  s->H = rand_int(rng, int(eh + 5 * s->sh), 40);
  s->W = rand_int(rng, std::max<int>(1, int(ew) - int(s->pl + s->pr)), 16);
}

}  // namespace kernelstest
