// The op table, prepare_node(), and the small out-of-line members of op.h's
// structs.
#include <string>
#include <string_view>
#include <vector>

#include "ops/op.h"
#include "ops/op_defs.h"
#include "ops/parsed_params.h"
#include "ops/type_adapter.h"

namespace openhtp::ops {

size_t TensorDesc::num_elements() const {
  // Rank 0 is a scalar: one element. Overflow is caught by prepare (shape.h),
  // which checks every tensor before anything trusts this number.
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

const Param* NodeDesc::find_param(std::string_view param_name) const {
  for (const Param& p : params) {
    if (p.name == param_name) return &p;
  }
  return nullptr;
}

std::span<const OpDef> all_ops() {
  // Built on first use (a function-local static) so the order is fixed here
  // and not by static-initialisation order across translation units.
  static const std::vector<OpDef> kOps = [] {
    std::vector<OpDef> ops;
    for (auto group : {detail::core_group, detail::math_group, detail::norm_group, detail::layout_group,
                       detail::indexing_group, detail::sequence_group, detail::detection_group, detail::misc_group,
                       detail::proposal_group, detail::sparse_group}) {
      for (OpDef& d : group()) ops.push_back(d);
    }
    return ops;
  }();
  return kOps;
}

const OpDef* find_op(std::string_view type_name) {
  for (const OpDef& def : all_ops()) {
    if (def.type_name == type_name) return &def;
  }
  return nullptr;
}

namespace {

// Op types of QnnOpDef.h this backend refuses on purpose, with the reason
// (docs/ops.md "Not implemented"); every other unknown type gets the generic
// line.
std::string_view refusal_reason(std::string_view type) {
  struct Refusal {
    std::string_view type, reason;
  };
  static constexpr Refusal kRefused[] = {
      {"If", "control flow: it runs one of two subgraphs (then_graph / else_graph), and a graph here is one "
             "static node list"},
      {"Buffer", "it keeps state across graphExecute calls (a sliding buffer of past inputs), and nodes here are "
                 "stateless between executes"},
      {"RandomUniformLike", "its output is random: no golden model can state the expected values"},
  };
  for (const Refusal& r : kRefused) {
    if (r.type == type) return r.reason;
  }
  return {};
}

Status prepare_with(const NodeDesc& given, bool use_fast_paths, std::unique_ptr<OpKernel>* kernel,
                    std::string* impl) {
  const OpDef* def = find_op(given.type);
  // Parse once (parsed_params.h): everything below sees node.parsed. A node
  // already parsed (the type adapter's float twin) is not read again. One
  // whose parameters break a rule stays unparsed, so the reference prepare
  // reads it and reports the first broken rule in its own order (data types
  // before parameters), as validation always has.
  ParsedParams parsed;
  NodeDesc node = given;
  if (def != nullptr && def->parse != nullptr && given.parsed == nullptr && def->parse(given, &parsed).ok()) {
    node.parsed = &parsed;
  }
  if (def == nullptr) {
    if (std::string_view why = refusal_reason(node.type); !why.empty()) {
      return Status::Unsupported(std::string(node.type) + " '" + std::string(node.name) + "': op type '" +
                                 std::string(node.type) + "' is not supported by openhtp: " + std::string(why));
    }
    return Status::Unsupported(std::string(node.type) + " '" + std::string(node.name) + "': op type '" +
                               std::string(node.type) + "' is not in this backend's op package " +
                               std::string(kPackageName));
  }
  // Sparse tensors (TensorDesc::sparse) reach only the ops that handle their
  // storage; every other op would read it as a dense tensor.
  if ((def->flags & op_flags::kSparseTensors) == 0) {
    for (size_t pass = 0; pass < 2; ++pass) {
      const std::span<const TensorDesc> ts = pass == 0 ? node.inputs : node.outputs;
      for (size_t i = 0; i < ts.size(); ++i) {
        if (!ts[i].present || !ts[i].sparse.is_sparse) continue;
        return Status::Unsupported(std::string(node.type) + " '" + std::string(node.name) + "': " +
                                   (pass == 0 ? "in[" : "out[") + std::to_string(i) +
                                   "] is a sparse tensor (dataFormat SPARSE); op type '" + std::string(node.type) +
                                   "' takes dense tensors only (sparse tensors are for CreateSparse, "
                                   "GetSparseIndices, GetSparseValues and SparseToDense)");
      }
    }
    // A fused residual (htp/fusion.h) is read densely by every epilogue.
    if (node.epilogue != nullptr && node.epilogue->residual != nullptr && node.epilogue->residual->sparse.is_sparse) {
      return Status::Unsupported(std::string(node.type) + " '" + std::string(node.name) +
                                 "': the fused residual input is a sparse tensor (dataFormat SPARSE)");
    }
  }
  const bool adapt = (def->flags & op_flags::kAdaptTypes) != 0 && detail::needs_type_adapter(node);
  // Validate first: the rules live in the reference prepare, whichever kernel
  // ends up running.
  Status s = adapt ? detail::prepare_adapted(*def, node, false, nullptr) : def->prepare(node, nullptr);
  if (!s.ok() || kernel == nullptr) return s;
  // Fused work around the op that only some fast paths do (htp/fusion.h):
  // a kernel that never looks at it must not be asked.
  // No reference kernel takes them either (the check after the loop).
  const bool scale = node.input_scale != nullptr, mean = node.channel_mean != nullptr;
  const bool table = node.output_table != nullptr;
  if (use_fast_paths && node.env != nullptr) {
    for (const FastPath& fp : node.env->fast_paths) {
      if ((scale && !fp.takes_input_scale) || (mean && !fp.takes_channel_mean) ||
          (table && !fp.takes_output_table)) {
        continue;
      }
      if (fp.type_name == node.type && fp.prepare(node, kernel) && *kernel) {
        if (impl) *impl = fp.library;
        return Status::Ok();
      }
    }
  }
  if (scale || mean || table) {
    return Status::Unsupported(std::string(node.type) + " '" + std::string(node.name) +
                               "': no fast path takes its fused channel scale, mean or output table");
  }
  if (!adapt) {
    if (impl) *impl = "reference";
    return def->prepare(node, kernel);
  }
  s = detail::prepare_adapted(*def, node, use_fast_paths, kernel, impl);
  if (impl) *impl += " via type adapter";
  return s;
}

}  // namespace

Status prepare_node(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel, std::string* impl) {
  return prepare_with(node, true, kernel, impl);
}

Status prepare_reference(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  return prepare_with(node, false, kernel, nullptr);
}

}  // namespace openhtp::ops
