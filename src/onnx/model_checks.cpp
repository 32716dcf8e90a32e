#include "onnx/model_checks.h"

#include <map>

#include <onnx/defs/schema.h>

#include "onnx/attributes.h"

namespace openhtp::onnx_import {

namespace {

const char* attr_type_name(onnx::AttributeProto::AttributeType t) {
  return onnx::AttributeProto::AttributeType_IsValid(t) ? onnx::AttributeProto::AttributeType_Name(t).c_str()
                                                        : "UNKNOWN";
}

// Attributes ONNX's shape inference (and the lowering) divide by or size
// loops with: every value must be at least 1.
std::string check_positive_attributes(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    const std::string& name = a.name();
    if (name == "strides" || name == "dilations" || name == "kernel_shape") {
      for (int i = 0; i < a.ints_size(); ++i) {
        if (a.ints(i) < 1) {
          return describe_node(n) + ": attribute '" + name + "' element " + std::to_string(i) + " is " +
                 std::to_string(a.ints(i)) + ", must be >= 1";
        }
      }
    } else if (name == "group" || name == "blocksize" || name == "num_outputs") {
      if (a.i() < 1) {
        return describe_node(n) + ": attribute '" + name + "' is " + std::to_string(a.i()) + ", must be >= 1";
      }
      if (name == "num_outputs" && a.i() != n.output_size()) {
        return describe_node(n) + ": attribute 'num_outputs' is " + std::to_string(a.i()) + " but the node has " +
               std::to_string(n.output_size()) + " outputs";
      }
    }
  }
  return "";
}

// An attribute the op's schema declares with another type (Softmax's axis
// given as a STRING) would otherwise read as its default.
std::string check_attribute_types(const onnx::NodeProto& n, int64_t opset) {
  if (!n.domain().empty() && n.domain() != "ai.onnx") return "";
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(opset), "");
  if (schema == nullptr) return "";  // unknown op: find_unsupported names it
  for (const auto& a : n.attribute()) {
    if (a.type() == onnx::AttributeProto::UNDEFINED) continue;  // old writers leave it unset
    auto it = schema->attributes().find(a.name());
    if (it == schema->attributes().end()) continue;
    if (static_cast<int>(it->second.type) != static_cast<int>(a.type())) {
      return describe_node(n) + ": attribute '" + a.name() + "' is " + attr_type_name(a.type()) + ", ONNX " +
             n.op_type() + "-" + std::to_string(schema->since_version()) + " declares it " +
             attr_type_name(static_cast<onnx::AttributeProto::AttributeType>(it->second.type));
    }
  }
  return "";
}

// The same over If/Loop/Scan bodies, which are inlined (and shape-inferred)
// later.
std::string check_positive_attributes_deep(const onnx::GraphProto& g) {
  for (const auto& n : g.node()) {
    if (std::string why = check_positive_attributes(n); !why.empty()) return why;
    for (const auto& a : n.attribute()) {
      if (a.has_g()) {
        if (std::string why = check_positive_attributes_deep(a.g()); !why.empty()) return why;
      }
      for (const auto& sub : a.graphs()) {
        if (std::string why = check_positive_attributes_deep(sub); !why.empty()) return why;
      }
    }
  }
  return "";
}

}  // namespace

int64_t min_supported_opset() { return 1; }

int64_t max_supported_opset() {
  const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = map.find("");
  return it == map.end() ? 0 : it->second.second;
}

std::string check_model_structure(const onnx::ModelProto& proto) {
  if (proto.ir_version() > onnx::IR_VERSION) {
    return "model ir_version " + std::to_string(proto.ir_version()) + " is newer than the ONNX this importer reads (" +
           std::to_string(static_cast<int>(onnx::IR_VERSION)) + ")";
  }
  for (const auto& op : proto.opset_import()) {
    if (!op.domain().empty() && op.domain() != "ai.onnx") continue;
    if (op.version() < min_supported_opset() || op.version() > max_supported_opset()) {
      return "model imports default-domain opset " + std::to_string(op.version()) + ": supported opsets are " +
             std::to_string(min_supported_opset()) + " to " + std::to_string(max_supported_opset());
    }
  }
  const onnx::GraphProto& g = proto.graph();
  const std::string graph = "graph '" + g.name() + "'";
  if (g.output_size() == 0) return graph + " has no outputs: an ONNX graph must have at least one";

  // Single assignment: every name has one producer. A graph input may share
  // its name with an initializer (IR < 4 lists initializers as inputs; from
  // IR 4 that makes the initializer the input's default).
  std::map<std::string, std::string> producer;  // name -> who produces it, for messages
  std::map<std::string, int> producing_node;    // name -> index of the node that produces it
  auto claim = [&](const std::string& name, const std::string& who) -> std::string {
    auto [it, fresh] = producer.emplace(name, who);
    if (fresh) return "";
    return "tensor '" + name + "' is produced twice, by " + it->second + " and by " + who +
           ": ONNX names have a single producer";
  };
  for (const auto& init : g.initializer()) {
    if (std::string why = claim(init.name(), "an initializer"); !why.empty()) return why;
  }
  for (const auto& in : g.input()) {
    auto it = producer.find(in.name());
    if (it != producer.end() && it->second == "an initializer") {
      it->second = "graph input / initializer";  // a second input of this name is still refused
      continue;
    }
    if (std::string why = claim(in.name(), "a graph input"); !why.empty()) return why;
  }
  for (int k = 0; k < g.node_size(); ++k) {
    const onnx::NodeProto& n = g.node(k);
    for (const auto& o : n.output()) {
      if (o.empty()) continue;  // an optional output left out
      if (std::string why = claim(o, "node " + describe_node(n)); !why.empty()) return why;
      producing_node[o] = k;
    }
  }
  for (const auto& n : g.node()) {
    for (const auto& i : n.input()) {
      if (!i.empty() && producer.count(i) == 0) {
        return describe_node(n) + ": input '" + i +
               "' is not produced by anything (no graph input, initializer or node output has that name)";
      }
    }
  }
  for (const auto& o : g.output()) {
    if (producer.count(o.name()) == 0) {
      return "graph output '" + o.name() +
             "' is not produced by anything (no graph input, initializer or node output has that name)";
    }
  }

  // Topological order, which ONNX requires: a node reading a later node's
  // output is either on a cycle (named) or merely out of order.
  const int count = g.node_size();
  std::vector<std::vector<int>> preds(count);
  bool ordered = true;
  for (int k = 0; k < count; ++k) {
    for (const auto& i : g.node(k).input()) {
      auto it = producing_node.find(i);
      if (it == producing_node.end()) continue;
      preds[k].push_back(it->second);
      ordered = ordered && it->second < k;
    }
  }
  if (!ordered) {
    // Kahn's algorithm; what is left holds a cycle.
    std::vector<int> pending(count, 0);
    std::vector<std::vector<int>> succs(count);
    for (int k = 0; k < count; ++k) {
      for (int p : preds[k]) {
        ++pending[k];
        succs[p].push_back(k);
      }
    }
    std::vector<int> ready;
    for (int k = 0; k < count; ++k) {
      if (pending[k] == 0) ready.push_back(k);
    }
    std::vector<bool> done(count, false);
    while (!ready.empty()) {
      const int k = ready.back();
      ready.pop_back();
      done[k] = true;
      for (int s : succs[k]) {
        if (--pending[s] == 0) ready.push_back(s);
      }
    }
    int start = -1;
    for (int k = 0; k < count && start < 0; ++k) {
      if (!done[k]) start = k;
    }
    if (start >= 0) {
      // Walk back through unfinished predecessors until a node repeats: that
      // node is on a cycle.
      std::vector<bool> seen(count, false);
      int k = start;
      while (!seen[k]) {
        seen[k] = true;
        for (int p : preds[k]) {
          if (!done[p]) {
            k = p;
            break;
          }
        }
      }
      return graph + " has a cycle through node " + describe_node(g.node(k)) +
             ": ONNX graphs must be acyclic";
    }
    for (int k = 0; k < count; ++k) {
      for (int p : preds[k]) {
        if (p >= k) {
          return describe_node(g.node(k)) + " reads the output of " + describe_node(g.node(p)) +
                 ", which comes after it: ONNX nodes must be in topological order";
        }
      }
    }
  }

  int64_t opset = 0;
  for (const auto& op : proto.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") opset = op.version();
  }
  if (std::string why = check_positive_attributes_deep(g); !why.empty()) return why;
  for (const auto& n : g.node()) {
    if (opset != 0) {
      if (std::string why = check_attribute_types(n, opset); !why.empty()) return why;
    }
  }
  return "";
}

}  // namespace openhtp::onnx_import
