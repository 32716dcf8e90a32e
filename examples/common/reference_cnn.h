// The tiny CNN computed on the CPU with plain loops, independently of the
// backend's kernels, to check what the backend returns. Sums are taken in
// double so the reference is the more accurate of the two.
#pragma once

#include <array>
#include <vector>

#include "tiny_cnn_weights.h"

namespace examples {

// Softmax probabilities for one NHWC input of tiny_cnn::kInputElements values.
std::array<float, tiny_cnn::kClasses> reference_cnn(const tiny_cnn::Weights& w, const std::vector<float>& input);

}  // namespace examples
