#include "reference_cnn.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace examples {
namespace {

using namespace tiny_cnn;

// An H x W x C feature map, NHWC with N = 1.
struct FeatureMap {
  int h, w, c;
  std::vector<double> v;
  FeatureMap(int h_, int w_, int c_) : h(h_), w(w_), c(c_), v(static_cast<size_t>(h_) * w_ * c_, 0.0) {}
  double& at(int y, int x, int ch) { return v[(static_cast<size_t>(y) * w + x) * c + ch]; }
  double at(int y, int x, int ch) const { return v[(static_cast<size_t>(y) * w + x) * c + ch]; }
};

// 3x3 convolution with zero padding of 1 on every side; filter is HWIO.
FeatureMap conv3x3_pad1(const FeatureMap& in, const std::vector<float>& filter, const std::vector<float>& bias,
                        int out_channels, int stride) {
  const int k = static_cast<int>(kKernel), pad = 1;
  const int out_h = (in.h + 2 * pad - k) / stride + 1;
  const int out_w = (in.w + 2 * pad - k) / stride + 1;
  FeatureMap out(out_h, out_w, out_channels);
  for (int oy = 0; oy < out_h; ++oy) {
    for (int ox = 0; ox < out_w; ++ox) {
      for (int oc = 0; oc < out_channels; ++oc) {
        double sum = bias[oc];
        for (int ky = 0; ky < k; ++ky) {
          for (int kx = 0; kx < k; ++kx) {
            const int iy = oy * stride + ky - pad;
            const int ix = ox * stride + kx - pad;
            if (iy < 0 || iy >= in.h || ix < 0 || ix >= in.w) continue;  // zero padding
            for (int ic = 0; ic < in.c; ++ic) {
              const size_t widx = ((static_cast<size_t>(ky) * k + kx) * in.c + ic) * out_channels + oc;
              sum += in.at(iy, ix, ic) * filter[widx];
            }
          }
        }
        out.at(oy, ox, oc) = sum;
      }
    }
  }
  return out;
}

void relu_in_place(FeatureMap& m) {
  for (double& x : m.v) x = std::max(x, 0.0);
}

FeatureMap max_pool_2x2(const FeatureMap& in) {
  FeatureMap out(in.h / 2, in.w / 2, in.c);
  for (int oy = 0; oy < out.h; ++oy) {
    for (int ox = 0; ox < out.w; ++ox) {
      for (int ch = 0; ch < in.c; ++ch) {
        double m = -std::numeric_limits<double>::infinity();
        for (int dy = 0; dy < 2; ++dy) {
          for (int dx = 0; dx < 2; ++dx) m = std::max(m, in.at(2 * oy + dy, 2 * ox + dx, ch));
        }
        out.at(oy, ox, ch) = m;
      }
    }
  }
  return out;
}

}  // namespace

std::array<float, kClasses> reference_cnn(const Weights& w, const std::vector<float>& input) {
  FeatureMap x(kInH, kInW, kInC);
  for (size_t i = 0; i < x.v.size(); ++i) x.v[i] = input[i];

  FeatureMap c1 = conv3x3_pad1(x, w.conv1_filter, w.conv1_bias, kConv1Out, 1);
  relu_in_place(c1);
  const FeatureMap p1 = max_pool_2x2(c1);
  FeatureMap c2 = conv3x3_pad1(p1, w.conv2_filter, w.conv2_bias, kConv2Out, 2);
  relu_in_place(c2);

  // Reshape to [1, 256] keeps NHWC order, so c2.v already is the flat vector.
  std::array<double, kClasses> logits{};
  for (uint32_t j = 0; j < kClasses; ++j) {
    double sum = w.fc_bias[j];
    for (uint32_t i = 0; i < kFlat; ++i) sum += c2.v[i] * w.fc_weights[static_cast<size_t>(j) * kFlat + i];
    logits[j] = sum;
  }

  const double max_logit = *std::max_element(logits.begin(), logits.end());
  double total = 0.0;
  for (double& l : logits) total += (l = std::exp(l - max_logit));
  std::array<float, kClasses> probabilities{};
  for (uint32_t j = 0; j < kClasses; ++j) probabilities[j] = static_cast<float>(logits[j] / total);
  return probabilities;
}

}  // namespace examples
