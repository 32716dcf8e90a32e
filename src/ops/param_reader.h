// Reading node parameters with validation, shared by all ops.
//
// QNN hands parameters over as Qnn_Param_t: a scalar of some data type or a
// static tensor of raw bytes. These helpers turn them into plain values and
// reject anything malformed (wrong kind, wrong dims, short data, out-of-range
// values) with a message that names the node and the parameter. Nothing here
// reads past Param::data.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ops/op.h"

namespace openhtp::ops::detail {

class ParamReader {
 public:
  explicit ParamReader(const NodeDesc& node) : node_(node) {}

  // Unknown parameter names are an error in QNN; so are duplicates, since
  // which one wins would be arbitrary.
  Status check_names(std::initializer_list<std::string_view> known) const;

  // Scalars. `def` = nullopt makes the parameter mandatory. Integer and bool
  // scalars are read from Param::i, floating-point ones from Param::f (an
  // integer parameter given as a float must hold an integral value).
  Status u32_scalar(std::string_view name, std::optional<uint32_t> def, uint32_t* out) const;
  Status bool_scalar(std::string_view name, std::optional<bool> def, bool* out) const;
  Status f32_scalar(std::string_view name, std::optional<float> def, float* out) const;

  // A UINT_32 (or non-negative INT_32) tensor parameter whose dims must equal
  // `dims`. `def` empty makes it mandatory; otherwise it is the default value
  // (product(dims) elements, row-major).
  Status u32_tensor(std::string_view name, std::span<const uint32_t> dims,
                    std::span<const uint32_t> def, std::vector<uint32_t>* out) const;

 private:
  Status scalar_param(std::string_view name, bool mandatory, const Param** p) const;

  const NodeDesc& node_;
};

}  // namespace openhtp::ops::detail
