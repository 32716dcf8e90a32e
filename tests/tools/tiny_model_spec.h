// The tiny test model shared by tiny_model.cpp (which builds it as a QNN
// graph) and generator_test.cpp (which computes its result on the CPU):
//   output[1,4] = Relu(FullyConnected(input[1,8], weights[4,8], bias[4]))
// Weights and bias follow a fixed formula, scaled per library so that graphs
// of different libraries give different results.
#pragma once

#include <cstdint>

namespace tiny_model {

constexpr uint32_t kIn = 8;
constexpr uint32_t kOut = 4;

inline float weight(uint32_t row, uint32_t col, float scale) {
  return scale * 0.125f * static_cast<float>(static_cast<int>((row * kIn + col) % 7) - 3);
}
inline float bias(uint32_t row, float scale) { return scale * 0.5f * (static_cast<float>(row) - 1.5f); }

}  // namespace tiny_model
