// A node's parameters as one typed value, read once.
//
// Ops whose parameters describe a geometry (convolutions, pools) register an
// OpDef::parse that reads them into one of the types below. prepare_node
// runs it first and passes the result in NodeDesc::parsed to the reference
// prepare (validation and kernel), to the type adapter's float twin and to
// every fast path, so the QNN parameters are read, and their rules checked,
// in one place per op family; the fast paths only decide whether they cover
// the case.
//
// Why a pointer in NodeDesc rather than a new argument: NodeDesc already is
// "everything prepare needs about one node", and every consumer (PrepareFn,
// FastPrepareFn, the adapter) takes it; ops without typed parameters never
// look at it.
#pragma once

#include <new>
#include <stdexcept>
#include <string>
#include <variant>

#include "ops/conv_geometry.h"
#include "ops/op.h"
#include "ops/pool_geometry.h"
#include "ops/transpose_conv_geometry.h"

namespace openhtp::ops {

struct ParsedParams {
  // monostate: the op has no typed parameters (no OpDef::parse).
  std::variant<std::monostate, ConvGeometry, PoolGeometry, TransposeConvGeometry> value;
};

// node.parsed's T, or nullptr when the node carries none (or another type).
template <typename T>
const T* parsed_as(const NodeDesc& node) {
  return node.parsed != nullptr ? std::get_if<T>(&node.parsed->value) : nullptr;
}

// Runs the op's parse on `node` (kOk and monostate for ops without one, or
// unknown ops). For callers that hand a node to a fast path themselves
// (tests, benchmarks); prepare_node does this on its own.
Status parse_params(const NodeDesc& node, ParsedParams* out);

namespace detail {

// OpDef::parse for an op whose parameters are a T read by Read. An
// allocation failure becomes a Status, never an exception into the C API
// (as guarded_prepare does for prepare bodies).
template <typename T, Status (*Read)(const NodeDesc&, T*)>
Status parse_as(const NodeDesc& node, ParsedParams* out) {
  try {
    T g;
    if (Status s = Read(node, &g); !s.ok()) return s;
    out->value = g;
    return Status::Ok();
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  return Status::Unsupported(std::string(node.type) + " '" + std::string(node.name) +
                             "': out of memory while reading its parameters");
}

// For a reference prepare: the T that prepare_node parsed into node.parsed,
// or, when the node carries none (the up-front parse failed, or OpDef::prepare
// was called directly), T read now into *local so the broken rule is
// reported from here, in the order the op checks its rules.
template <typename T, Status (*Read)(const NodeDesc&, T*)>
Status geometry_of(const NodeDesc& node, T* local, const T** g) {
  *g = parsed_as<T>(node);
  if (*g != nullptr) return Status::Ok();
  if (Status s = Read(node, local); !s.ok()) return s;
  *g = local;
  return Status::Ok();
}

}  // namespace detail
}  // namespace openhtp::ops
