#include "tiny_cnn_weights.h"

#include <random>

namespace examples::tiny_cnn {
namespace {

std::vector<float> uniform(std::mt19937& rng, size_t n, float bound) {
  std::uniform_real_distribution<float> dist(-bound, bound);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

}  // namespace

Weights make_weights(uint32_t seed) {
  std::mt19937 rng(seed);
  constexpr float kBound = 0.3f;
  Weights w;
  w.conv1_filter = uniform(rng, size_t{kKernel} * kKernel * kInC * kConv1Out, kBound);
  w.conv1_bias = uniform(rng, kConv1Out, kBound);
  w.conv2_filter = uniform(rng, size_t{kKernel} * kKernel * kConv1Out * kConv2Out, kBound);
  w.conv2_bias = uniform(rng, kConv2Out, kBound);
  w.fc_weights = uniform(rng, size_t{kClasses} * kFlat, kBound);
  w.fc_bias = uniform(rng, kClasses, kBound);
  return w;
}

std::vector<std::vector<float>> make_inputs(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<float>> inputs;
  for (size_t i = 0; i < count; ++i) inputs.push_back(uniform(rng, kInputElements, 1.0f));
  return inputs;
}

}  // namespace examples::tiny_cnn
