// The HTP runtime's description of a graph: what libQnnHtp builds from
// graphCreate/tensorCreateGraphTensor/graphAddNode and ships to the runtime at
// graphFinalize (serialized by src/binary/graph_codec). Plain data, no QNN
// headers, so both sides and the tests share it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "htp/static_bytes.h"
#include "ops/op.h"

namespace openhtp::htp {

// Qnn_TensorType_t values the runtime distinguishes.
namespace tensor_type {
inline constexpr uint32_t kAppWrite = 0;
inline constexpr uint32_t kAppRead = 1;
inline constexpr uint32_t kAppReadWrite = 2;
inline constexpr uint32_t kNative = 3;
inline constexpr uint32_t kStatic = 4;
inline constexpr uint32_t kNull = 5;
}  // namespace tensor_type

inline constexpr uint32_t kNoTensor = 0xffffffffu;

struct TensorSpec {
  uint32_t id = 0;
  std::string name;
  uint32_t type = tensor_type::kNative;
  uint32_t dtype = 0;
  std::vector<uint32_t> dims;
  ops::Quant quant;
  StaticBytes static_data;  // STATIC only (shared, never copied: static_bytes.h)
  // A sparse NATIVE tensor (QNN_TENSOR_DATA_FORMAT_SPARSE): its layout and
  // private storage are described at ops::Sparsity; the QNN layer sets it only
  // on NATIVE tensors, the graph codec carries it.
  ops::Sparsity sparse{};

  // Dense bytes, or a sparse tensor's storage bytes (ops::Sparsity);
  // SIZE_MAX when the shape's product does not fit.
  size_t num_bytes() const;
  bool is_graph_input() const { return type == tensor_type::kAppWrite || type == tensor_type::kAppReadWrite; }
  bool is_graph_output() const { return type == tensor_type::kAppRead || type == tensor_type::kAppReadWrite; }
};

// Weight sharing (QNN_HTP_CONTEXT_CONFIG_OPTION_WEIGHT_SHARING_ENABLED): two
// STATIC tensors hold the same weights when their dtype, dims, quantization
// encoding (per-axis scales and offsets included, floats compared bit for
// bit) and bytes are equal. The hash covers all of it, so a hit is confirmed
// by same_static_meta() and a byte compare. `bytes` is passed separately
// because a shared copy may live elsewhere than the tensor's static_data.
uint64_t static_content_hash(const TensorSpec& t, std::span<const uint8_t> bytes);
bool same_static_meta(const TensorSpec& a, const TensorSpec& b);

struct NodeSpec {
  std::string name;
  std::string package;
  std::string type;
  std::vector<ops::Param> params;
  std::vector<uint32_t> inputs;   // tensor ids (kNoTensor: omitted optional input)
  std::vector<uint32_t> outputs;
};

struct GraphSpec {
  std::string name;
  std::vector<TensorSpec> tensors;  // in creation order
  std::vector<NodeSpec> nodes;      // in execution (dependency) order
  uint64_t vtcm_budget_bytes = 0;   // from the graph's VTCM size config; 0 = device default
  uint32_t num_hvx_threads = 0;     // graph config NUM_HVX_THREADS; 0 = the machine's cores

  const TensorSpec* find_tensor(uint32_t id) const;
};

}  // namespace openhtp::htp
