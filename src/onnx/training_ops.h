// The optimizer ops of domain ai.onnx.preview.training (Adagrad, Momentum
// with its standard and nesterov modes, Adam) as plain element-wise ONNX
// nodes, at import. Each is one update step written as a formula over its
// inputs (learning rate R, update count T, then the tensors X, G and the
// accumulators V/H), so it lowers to QNN's element-wise ops like any other
// arithmetic. The step count T stays a run-time input: the "T > 0" branches
// of the formulas (Momentum's beta on the first step, Adam's bias
// correction) become Where over Greater(T, 0).
//
//   Adagrad   r = R / (1 + T * decay_factor);  g = norm_coefficient * X + G
//             H' = H + g * g;  X' = X - r * g / (sqrt(H') + epsilon)
//   Momentum  g = norm_coefficient * X + G;  b = T > 0 ? beta : 1
//             V' = alpha * V + b * g
//             standard X' = X - R * V';  nesterov X' = X - R * (g + alpha * V')
//   Adam      g = norm_coefficient * X + G;  V' = alpha * V + (1 - alpha) * g
//             H' = beta * H + (1 - beta) * g * g
//             r = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
//             X' = (1 - norm_coefficient_post) * (X - r * (V' / (sqrt(H') + epsilon)))
//
// ONNX shape inference does not know the domain; the nodes written here are
// of the default domain, so inference gives every output its shape once the
// rewrite has run.
#pragma once

#include <map>
#include <string>

#include "onnx/model.h"

namespace openhtp::onnx_import {

inline constexpr const char* kTrainingDomain = "ai.onnx.preview.training";

// Rewrites every Adagrad/Momentum/Adam node; returns how many. A node of
// the domain whose form is not one of those (a mode the spec does not have,
// inputs that do not split into the groups) is left as it is and *refused
// gets its reason (check_node then reports it). Shape inference must run after.
size_t lower_training_ops(Model* model, std::map<std::string, std::string>* refused);

}  // namespace openhtp::onnx_import
