// The graph the external-buffer examples run: a chain of elementwise ops on
// [1,64,64,8] float tensors with STATIC weights, prepared "online" with a
// VTCM budget of two tensors (QNN_HTP_GRAPH_CONFIG_OPTION_VTCM_SIZE_IN_BYTES),
// so several intermediates spill and a context loaded from its binary needs
// a spill-fill region.
//
//   a   = x * w_scale          (ElementWiseMultiply, w_scale STATIC)
//   b   = a + w_bias           (ElementWiseAdd,      w_bias  STATIC)
//   c   = Relu(b)
//   d   = c * a                (a still alive)
//   e   = d + b                (b still alive)
//   out = e + w_shift          (ElementWiseAdd,      w_shift STATIC)
//
// Also here: the plain C++ reference the outputs are checked against, and
// the two steps every example takes around the tutorial's steps: serializing
// the online context, and reading one HTP custom context property.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "HTP/QnnHtpContext.h"
#include "QnnInterface.h"

namespace examples::chain_graph {

inline constexpr uint32_t kH = 64, kW = 64, kC = 8;
inline constexpr size_t kElements = size_t{kH} * kW * kC;      // 32768
inline constexpr size_t kTensorBytes = kElements * sizeof(float);  // 128 KiB
// Two tensors' worth of VTCM: the chain keeps up to four intermediates alive
// at once, so the rest must spill.
inline constexpr uint64_t kVtcmBudgetBytes = 2 * kTensorBytes;
// The backend runs the same float ops in the same order as the reference,
// so only rounding (e.g. fused multiply-adds) may tell them apart.
inline constexpr double kTolerance = 1e-5;

struct Weights {
  std::vector<float> scale, bias, shift;  // kElements each
};

// Fixed seeds, so every run and every example sees the same network.
Weights make_weights();
// `count` inputs of kElements values uniform in [-1, 1).
std::vector<std::vector<float>> make_inputs(size_t count);

// The same chain, element by element, in plain C++.
std::vector<float> reference(const Weights& w, const std::vector<float>& x);

// Largest |got - want| over kElements values; +inf if `got` holds a NaN
// (which would otherwise compare as "small").
double max_abs_diff(const float* got, const std::vector<float>& want);

// Builds and finalizes the chain in an ordinary ("online") context.
class ChainGraphBuilder {
 public:
  // Keeps references to `api` and `w`: QNN reads the STATIC data until
  // graphFinalize, and the tensor templates point into this object.
  ChainGraphBuilder(const QNN_INTERFACE_VER_TYPE& api, const Weights& w) : api_(api), w_(w) {}
  ChainGraphBuilder(const ChainGraphBuilder&) = delete;
  ChainGraphBuilder& operator=(const ChainGraphBuilder&) = delete;

  // graphCreate (with the VTCM budget), ten graph tensors, six nodes,
  // graphFinalize. False, with `error` naming the failing call, otherwise.
  bool build(Qnn_ContextHandle_t context, const char* graph_name, std::string* error);

  // Templates for graphExecute (ids as the backend assigned them; the same in
  // every context loaded from the binary), memType RAW with no buffer.
  const Qnn_Tensor_t& input() const { return input_; }
  const Qnn_Tensor_t& output() const { return output_; }
  size_t node_count() const { return nodes_; }

 private:
  Qnn_Tensor_t tensor(const char* name, Qnn_TensorType_t type, const std::vector<float>* data = nullptr);
  bool node(const char* name, const char* type, std::vector<Qnn_Tensor_t> inputs, Qnn_Tensor_t output,
            std::string* error);

  const QNN_INTERFACE_VER_TYPE& api_;
  const Weights& w_;
  uint32_t dims_[4] = {1, kH, kW, kC};
  Qnn_GraphHandle_t graph_ = nullptr;
  Qnn_Tensor_t input_ = QNN_TENSOR_INIT, output_ = QNN_TENSOR_INIT;
  size_t nodes_ = 0;
};

// contextGetBinarySize + contextGetBinary: the context binary the tutorial
// starts from. False, with `error` set, on failure.
bool get_context_binary(const QNN_INTERFACE_VER_TYPE& api, Qnn_ContextHandle_t context, std::vector<uint8_t>* binary,
                        std::string* error);

// The tutorial's step 2 for one HTP custom context property (weights buffer
// size, max spill-fill / VTCM-backup buffer size, buffer start alignment).
bool get_custom_property(const QNN_INTERFACE_VER_TYPE& api, Qnn_ContextHandle_t context,
                         QnnHtpContext_GetPropertyOption_t option, uint64_t* value, std::string* error);

}  // namespace examples::chain_graph
