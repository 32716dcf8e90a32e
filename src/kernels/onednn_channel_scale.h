// A convolution's packed weights with every input channel multiplied by a
// factor given at each execute: the kernel side of htp/fusion.h's channel
// scale (a squeeze-excite Multiply folded into the Conv2d that reads it).
//
// Why scale the packed weights, not the input: the factors change with every
// execute, the feature map is large (112x112x32 in EfficientNet-B0's first
// block) and the weights small (16x32 there); the fusion rule only takes a
// Conv2d whose weights are at most a quarter of its input's pixels per
// channel. oneDNN's packed layout is opaque, so the channel of each packed
// element is found once, at prepare, by packing a tensor whose every weight
// is its own input channel (+1, so that the layout's zero padding reads 0);
// an execute is then one multiply per packed element.
#pragma once

#include <dnnl.hpp>

#include <cstdint>
#include <vector>

#include "ops/conv_geometry.h"

namespace openhtp::kernels::onednn {

class ChannelScaledWeights {
 public:
  // packed: the weights reordered into the primitive's layout; user: their
  // description as the node gives them (user_weights(g)).
  ChannelScaledWeights(const dnnl::memory& packed, const dnnl::memory::desc& user, const ops::ConvGeometry& g);
  // What the primitive binds as its weights.
  const dnnl::memory& weights() const { return scaled_; }
  // weights() = packed with input channel c (of g.Cin) multiplied by scale[c].
  void apply(const float* scale);

 private:
  std::vector<float> packed_;      // the unscaled packed values
  std::vector<uint32_t> channel_;  // per packed element: its input channel + 1, 0 for padding
  std::vector<float> factor_;      // [0] = 0, [c + 1] = scale[c]
  dnnl::memory scaled_;
};

}  // namespace openhtp::kernels::onednn
