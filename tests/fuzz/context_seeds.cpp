#include "context_seeds.h"

#include <string>

#include "binary/context_codec.h"

namespace fuzz {
namespace {

std::vector<uint8_t> seed_binary(int graphs, bool weight_sharing = false) {
  using namespace openhtp;
  binary::ContextImage image;
  image.build_id = "fuzz";
  image.weight_sharing = weight_sharing;  // format 1.2: the graphs' identical "w" is one weight blob
  for (int gi = 0; gi < graphs; ++gi) {
    binary::GraphImage g;
    g.spec.name = "g" + std::to_string(gi);
    g.spec.tensors.push_back({1, "x", htp::tensor_type::kAppWrite, ops::dtype::kFloat32, {1, 8}, {}, {}});
    g.spec.tensors.push_back(
        {2, "w", htp::tensor_type::kStatic, ops::dtype::kFloat32, {8}, ops::Quant::per_tensor(0.1f, -2), std::vector<uint8_t>(32, 3)});
    g.spec.tensors.push_back({3, "y", htp::tensor_type::kAppRead, ops::dtype::kFloat32, {1, 8}, {}, {}});
    g.spec.nodes.push_back({"add", "qti.aisw", "ElementWiseAdd", {}, {1, 2}, {3}});
    g.arena_bytes = 64;
    image.graphs.push_back(g);
  }
  return binary::encode_context(image);
}

}  // namespace

std::vector<std::vector<uint8_t>> context_binary_seeds() { return {seed_binary(1), seed_binary(3), seed_binary(3, /*weight_sharing=*/true)}; }

bool unwrap_context(const std::vector<uint8_t>& input, std::vector<uint8_t>* payload) {
  return openhtp::binary::context_payload(input.data(), input.size(), payload);
}

std::vector<uint8_t> wrap_context(const std::vector<uint8_t>& payload) {
  return openhtp::binary::wrap_context_payload(payload);
}

}  // namespace fuzz
