// Shared prepare-time checks on a node's tensors, and the message format.
//
// Every message starts with "<Type> '<name>': " and then names the rule and the
// offending value, e.g. "Conv2d 'conv1': in[1] (filter) dim 2 is 4, expected
// Cin/group = 3". Tests match on these fragments, so keep the wording stable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <span>
#include <string>
#include <string_view>

#include "ops/op.h"

namespace openhtp::ops::detail {

template <typename... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

std::string node_prefix(const NodeDesc& node);

template <typename... Args>
Status invalid(const NodeDesc& node, const Args&... args) {
  return Status::Invalid(node_prefix(node) + cat(args...));
}

template <typename... Args>
Status unsupported(const NodeDesc& node, const Args&... args) {
  return Status::Unsupported(node_prefix(node) + cat(args...));
}

// "[1,2,3]"
std::string dims_str(std::span<const uint32_t> dims);

// "in[1] (filter)" / "out[0]": how messages refer to a tensor.
std::string in_label(size_t index, std::string_view role);
std::string out_label(size_t index);

// Input count in [min_in, max_in] and exactly n_out outputs.
Status check_io_count(const NodeDesc& node, size_t min_in, size_t max_in, size_t n_out);

// True when optional input `index` was given and is not a QNN NULL tensor.
bool has_input(const NodeDesc& node, size_t index);

// One tensor: present, FLOAT_32 (unknown codes are invalid, known non-float32
// types unsupported), no zero dims, element count within kMaxElements.
Status check_f32_tensor(const NodeDesc& node, const TensorDesc& t, const std::string& label);

// Every input and output of the node, inputs labelled with `in_roles`. The
// first n_mandatory inputs must be present; later ones may be QNN NULL tensors
// (skipped).
Status check_all_f32(const NodeDesc& node, std::span<const std::string_view> in_roles,
                     size_t n_mandatory);

// Rank must lie in [min_rank, max_rank]. `code` says whether a rank outside
// the range breaks the op definition or only this backend's limits.
Status check_rank(const NodeDesc& node, const TensorDesc& t, const std::string& label,
                  size_t min_rank, size_t max_rank, StatusCode code);

// out[index] must have exactly `expected` dims.
Status check_output_dims(const NodeDesc& node, size_t index, std::span<const uint32_t> expected);

// Inputs 1 and 2 where present (a normalization's scale and offset, named by
// in_roles[1] and [2]): each one value per channel, [C] with C the last dim
// of in[0].
Status check_per_channel_inputs(const NodeDesc& node, std::span<const std::string_view> in_roles);

// INT_8/16/32 or UINT_8/16/32: the integer types the element-wise, Relu,
// ReluMinMax and PoolMax2d kernels compute natively (reference/elementwise.cpp).
bool is_plain_integer(uint32_t dt);

// When any of in[0..n_inputs) (and out[0] if with_output) is a plain integer
// type, all of them must be that same type: another integer type breaks the
// op definition (kInvalidArgument), a float or other type mixed with an
// integer is not supported. On success *int_type is the common type, or 0
// when none of them is a plain integer (the caller's float rules apply).
Status common_integer_type(const NodeDesc& node, size_t n_inputs, bool with_output, uint32_t* int_type);

}  // namespace openhtp::ops::detail
