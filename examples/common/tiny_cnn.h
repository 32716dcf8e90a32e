// The tiny CNN of tiny_cnn_weights.h as a QNN graph, built node by node with
// graphAddNode on the caller's context and finalized.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "QnnInterface.h"
#include "tiny_cnn_weights.h"

namespace examples {

class TinyCnnGraph {
 public:
  // Keeps a reference to `api`; copies the weights (QNN reads static data
  // until graphFinalize).
  TinyCnnGraph(const QNN_INTERFACE_VER_TYPE& api, const tiny_cnn::Weights& weights) : api_(api), weights_(weights) {}
  // The tensor templates point into this object: it must not move.
  TinyCnnGraph(const TinyCnnGraph&) = delete;
  TinyCnnGraph& operator=(const TinyCnnGraph&) = delete;

  // graphCreate, one graph tensor per activation, weight and tensor
  // parameter, eight nodes, graphFinalize. False, with `error` naming the
  // failing call, otherwise.
  bool build(Qnn_ContextHandle_t context, const char* graph_name, std::string* error);

  Qnn_GraphHandle_t graph() const { return graph_; }
  // Templates for graphExecute: the graph input [1,16,16,3] and output [1,10]
  // as created (ids filled in by the backend), memType RAW with no buffer.
  // Copy one and point it at your data.
  const Qnn_Tensor_t& input() const { return input_; }
  const Qnn_Tensor_t& output() const { return output_; }
  size_t node_count() const { return node_count_; }

 private:
  Qnn_Tensor_t make_tensor(const char* name, Qnn_TensorType_t type, std::vector<uint32_t> dims);
  Qnn_Tensor_t make_static(const char* name, std::vector<uint32_t> dims, const std::vector<float>& data);
  Qnn_Param_t u32_tensor_param(const char* node, const char* param, std::vector<uint32_t> dims,
                               std::vector<uint32_t> values);
  bool create(Qnn_Tensor_t* t, std::string* error);
  bool add_node(const char* name, const char* type, std::vector<Qnn_Tensor_t> inputs, Qnn_Tensor_t output,
                std::vector<Qnn_Param_t> params, std::string* error);

  const QNN_INTERFACE_VER_TYPE& api_;
  tiny_cnn::Weights weights_;
  Qnn_GraphHandle_t graph_ = nullptr;
  Qnn_Tensor_t input_{};
  Qnn_Tensor_t output_{};
  size_t node_count_ = 0;
  // Storage the Qnn_Tensor_t structs point into; a deque never moves its
  // elements, so the pointers stay valid.
  std::deque<std::vector<uint32_t>> u32_storage_;
  std::deque<std::string> names_;
};

}  // namespace examples
