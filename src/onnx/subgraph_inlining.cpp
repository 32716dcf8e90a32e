#include "onnx/subgraph_inlining.h"

#include <map>
#include <set>

namespace openhtp::onnx_import {

namespace {

using Renames = std::map<std::string, std::string>;

std::string renamed(const Renames& r, const std::string& name) {
  auto it = r.find(name);
  return it == r.end() ? name : it->second;
}

// Rewrites references in nested graph `g` (a subgraph of an inlined node)
// to values renamed outside it; names g defines itself shadow the outer ones.
void rename_references(onnx::GraphProto* g, Renames r) {
  for (const auto& v : g->input()) r.erase(v.name());
  for (const auto& v : g->initializer()) r.erase(v.name());
  for (const auto& n : g->node()) {
    for (const auto& o : n.output()) r.erase(o);
  }
  if (r.empty()) return;
  for (auto& n : *g->mutable_node()) {
    for (auto& i : *n.mutable_input()) i = renamed(r, i);
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) rename_references(a.mutable_g(), r);
      for (auto& sg : *a.mutable_graphs()) rename_references(&sg, r);
    }
  }
  for (auto& o : *g->mutable_output()) o.set_name(renamed(r, o.name()));
}

}  // namespace

bool inline_subgraph(Model* m, NameGen& names, const onnx::GraphProto& g, const std::vector<std::string>& args,
                     const std::string& prefix, std::vector<onnx::NodeProto>* out, std::vector<std::string>* outputs,
                     std::string* error) {
  if (static_cast<int>(args.size()) < g.input_size()) {
    *error = "subgraph '" + g.name() + "' has " + std::to_string(g.input_size()) + " inputs, " +
             std::to_string(args.size()) + " given";
    return false;
  }
  Renames r;
  for (int k = 0; k < g.input_size(); ++k) r[g.input(k).name()] = args[k];
  for (const auto& init : g.initializer()) {
    Tensor t;
    if (!tensor_from_proto(init, &t, error)) return false;
    r[init.name()] = add_constant(m, names, prefix + init.name(), std::move(t));
  }
  for (const auto& n : g.node()) {
    for (const auto& o : n.output()) {
      if (!o.empty()) r[o] = names.fresh(prefix + o);
    }
  }
  for (const auto& n : g.node()) {
    onnx::NodeProto c = n;
    c.set_name(names.fresh(prefix + node_base(n)));
    for (auto& i : *c.mutable_input()) i = renamed(r, i);
    for (auto& o : *c.mutable_output()) o = renamed(r, o);
    for (auto& a : *c.mutable_attribute()) {
      if (a.has_g()) rename_references(a.mutable_g(), r);
      for (auto& sg : *a.mutable_graphs()) rename_references(&sg, r);
    }
    out->push_back(std::move(c));
  }
  outputs->clear();
  for (const auto& o : g.output()) outputs->push_back(renamed(r, o.name()));
  return true;
}

}  // namespace openhtp::onnx_import
