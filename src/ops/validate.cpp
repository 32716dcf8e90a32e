#include "ops/validate.h"

#include "ops/shape.h"

namespace openhtp::ops::detail {

std::string node_prefix(const NodeDesc& node) {
  return cat(node.type, " '", node.name, "': ");
}

std::string dims_str(std::span<const uint32_t> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

std::string in_label(size_t index, std::string_view role) {
  return role.empty() ? cat("in[", index, "]") : cat("in[", index, "] (", role, ")");
}

std::string out_label(size_t index) { return cat("out[", index, "]"); }

Status check_io_count(const NodeDesc& node, size_t min_in, size_t max_in, size_t n_out) {
  const size_t n_in = node.inputs.size();
  if (n_in < min_in || n_in > max_in) {
    if (min_in == max_in) return invalid(node, "has ", n_in, " inputs, expected ", min_in);
    return invalid(node, "has ", n_in, " inputs, expected ", min_in, " to ", max_in);
  }
  if (node.outputs.size() != n_out) {
    return invalid(node, "has ", node.outputs.size(), " outputs, expected ", n_out);
  }
  return Status::Ok();
}

bool has_input(const NodeDesc& node, size_t index) {
  return index < node.inputs.size() && node.inputs[index].present;
}

Status check_f32_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label) {
  if (!t.present) return invalid(node, label, " is mandatory but absent (NULL tensor)");
  if (dtype::element_size(t.dtype) == 0) {
    return invalid(node, label, " has unknown data type 0x", std::hex, t.dtype);
  }
  if (t.dtype != dtype::kFloat32) {
    return unsupported(node, label, " data type is ", dtype::name(t.dtype),
                       ", only FLOAT_32 is supported");
  }
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (t.dims[i] == 0) {
      return invalid(node, label, " dim ", i, " is 0, expected >= 1 (empty or dynamic dims are not allowed)");
    }
  }
  uint64_t n = 0;
  if (!checked_num_elements(t.dims, &n) || n > kMaxElements) {
    return unsupported(node, label, " dims ", dims_str(t.dims), " hold more than ", kMaxElements,
                       " elements");
  }
  return Status::Ok();
}

Status check_all_f32(const NodeDesc& node, std::span<const std::string_view> in_roles,
                     size_t n_mandatory) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (!node.inputs[i].present && i >= n_mandatory) continue;  // omitted optional input
    const std::string_view role = i < in_roles.size() ? in_roles[i] : std::string_view{};
    if (Status s = check_f32_tensor(node, node.inputs[i], in_label(i, role)); !s.ok()) return s;
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (Status s = check_f32_tensor(node, node.outputs[i], out_label(i)); !s.ok()) return s;
  }
  return Status::Ok();
}

Status check_rank(const NodeDesc& node, const TensorDesc& t, const std::string& label,
                  size_t min_rank, size_t max_rank, StatusCode code) {
  const size_t r = t.dims.size();
  if (r >= min_rank && r <= max_rank) return Status::Ok();
  std::string msg = min_rank == max_rank ? cat(label, " rank is ", r, ", expected ", min_rank)
                    : max_rank == SIZE_MAX ? cat(label, " rank is ", r, ", expected >= ", min_rank)
                    : cat(label, " rank is ", r, ", expected ", min_rank, " to ", max_rank);
  return Status{code, node_prefix(node) + msg};
}

Status check_output_dims(const NodeDesc& node, size_t index, std::span<const uint32_t> expected) {
  const TensorDesc& out = node.outputs[index];
  if (out.dims.size() != expected.size()) {
    return invalid(node, out_label(index), " rank is ", out.dims.size(), ", expected ",
                   expected.size(), " (computed output dims ", dims_str(expected), ")");
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    if (out.dims[i] != expected[i]) {
      return invalid(node, out_label(index), " dim ", i, " is ", out.dims[i], ", expected ",
                     expected[i], " (computed output dims ", dims_str(expected), ")");
    }
  }
  return Status::Ok();
}

Status check_per_channel_inputs(const NodeDesc& node, std::span<const std::string_view> in_roles) {
  const uint32_t channel_dim[1] = {node.inputs[0].dims.back()};
  for (size_t i = 1; i <= 2; ++i) {
    if (!has_input(node, i)) continue;
    const TensorDesc& t = node.inputs[i];
    if (t.dims.size() != 1 || t.dims[0] != channel_dim[0]) {
      return invalid(node, in_label(i, in_roles[i]), " dims are ", dims_str(t.dims), ", expected ",
                     dims_str(channel_dim), " (one per channel, the last dim of in[0])");
    }
  }
  return Status::Ok();
}

}  // namespace openhtp::ops::detail
