// The tiny CNN's shapes and weights, shared by the QNN graph (tiny_cnn.h) and
// the plain C++ reference (reference_cnn.h). Layouts are QNN's: activations
// NHWC, conv filters HWIO [kh, kw, Cin, Cout], fully-connected weights [out, in].
//
//   input [1,16,16,3]
//   conv1 3x3, 8 filters, stride 1, pad 1  -> [1,16,16,8] -> relu
//   max pool 2x2, stride 2                 -> [1,8,8,8]
//   conv2 3x3, 16 filters, stride 2, pad 1 -> [1,4,4,16]  -> relu
//   reshape                                -> [1,256]
//   fully connected                        -> [1,10]      -> softmax
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace examples::tiny_cnn {

inline constexpr uint32_t kInH = 16, kInW = 16, kInC = 3;
inline constexpr uint32_t kKernel = 3;  // both convolutions are 3x3, pad 1
inline constexpr uint32_t kConv1Out = 8;
inline constexpr uint32_t kPoolH = 8, kPoolW = 8;  // after the 2x2 / stride 2 pool
inline constexpr uint32_t kConv2Out = 16;
inline constexpr uint32_t kConv2H = 4, kConv2W = 4;               // 3x3 stride 2 pad 1 on 8x8
inline constexpr uint32_t kFlat = kConv2H * kConv2W * kConv2Out;  // 256
inline constexpr uint32_t kClasses = 10;

inline constexpr size_t kInputElements = size_t{kInH} * kInW * kInC;
inline constexpr size_t kInputBytes = kInputElements * sizeof(float);
inline constexpr size_t kOutputBytes = size_t{kClasses} * sizeof(float);

// The seeds all examples use, so their outputs can be compared run to run
// and example to example (99 is simply one whose network spreads the demo
// inputs over several classes).
inline constexpr uint32_t kWeightSeed = 99;
inline constexpr uint32_t kInputSeed = 7;

struct Weights {
  std::vector<float> conv1_filter;  // [3,3,3,8]
  std::vector<float> conv1_bias;    // [8]
  std::vector<float> conv2_filter;  // [3,3,8,16]
  std::vector<float> conv2_bias;    // [16]
  std::vector<float> fc_weights;    // [10,256]
  std::vector<float> fc_bias;       // [10]
};

// Every weight uniform in [-0.3, 0.3) from std::mt19937(seed): the same seed
// gives the same network on every run.
Weights make_weights(uint32_t seed);

// `count` inputs of kInputElements values uniform in [-1, 1).
std::vector<std::vector<float>> make_inputs(size_t count, uint32_t seed);

}  // namespace examples::tiny_cnn
