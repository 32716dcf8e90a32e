#include "htp/prepared_graph.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <thread>


#include "common/interval_clock.h"
#include "htp/memory_planner.h"
#include "htp/share_chain.h"
#include "htp/vtcm_plan.h"
#include "threads/share_times.h"
#include "threads/team.h"
#include "threads/threadpool.h"

namespace openhtp::htp {
namespace {

constexpr size_t kArenaAlignment = 64;  // a cache line; what vector kernels want

ops::TensorDesc desc_of(const TensorSpec& t) {
  ops::TensorDesc d;
  d.present = true;
  d.dtype = t.dtype;
  d.dims = t.dims;
  d.quant = t.quant;
  d.sparse = t.sparse;
  d.static_data = t.type == tensor_type::kStatic ? t.static_data.data() : nullptr;
  // NATIVE tensors are planned, with the read slack their readers ask for.
  d.planned = t.type == tensor_type::kNative;
  return d;
}

}  // namespace

const char* graph_error_name(GraphError e) {
  switch (e) {
    case GraphError::kNone: return "none";
    case GraphError::kInvalidGraph: return "invalid graph";
    case GraphError::kInvalidOp: return "invalid op config";
    case GraphError::kUnsupportedOp: return "unsupported op";
    case GraphError::kBadBinding: return "bad tensor binding";
    case GraphError::kAborted: return "aborted";
    case GraphError::kTimedOut: return "timed out";
  }
  return "?";
}

void PreparedGraph::PoolDelete::operator()(pthreadpool* p) const { ::openhtp::threads::destroy_pool(p); }

std::unique_ptr<PreparedGraph> PreparedGraph::create(GraphSpec spec, GraphError* err, std::string* message) {
  return create(std::move(spec), PlanOptions{}, err, message);
}

std::unique_ptr<PreparedGraph> PreparedGraph::create(GraphSpec spec, const PlanOptions& options, GraphError* err,
                                                     std::string* message) {
  if (options.stored_placements == nullptr || !options.fusion) {
    return build(std::move(spec), options, true, err, message, nullptr);
  }
  // A channel scale reads x later than the Multiply did, a channel mean
  // writes its output earlier than the ReduceMean did: a stored plan made
  // without them (an older build, or OPENHTP_FUSION=off at conversion) may
  // have another tensor in that memory then, and is refused. Such a binary
  // still loads, as the graph its plan was made for.
  GraphSpec copy = spec;
  bool moved = false;
  std::unique_ptr<PreparedGraph> g = build(std::move(spec), options, true, err, message, &moved);
  if (g || !moved || *err != GraphError::kInvalidGraph) return g;
  return build(std::move(copy), options, false, err, message, nullptr);
}

std::unique_ptr<PreparedGraph> PreparedGraph::build(GraphSpec spec, const PlanOptions& options, bool moved_work,
                                                    GraphError* err, std::string* message, bool* moved_any) {
  std::unique_ptr<PreparedGraph> g(new PreparedGraph);
  g->spec_ = std::move(spec);
  g->vtcm_budget_bytes_ = options.vtcm_budget_bytes;
  // One pool per graph, sized by NUM_HVX_THREADS (default: every core), made
  // once here; kernels keep the pointer. One thread needs no pool.
  size_t threads = g->spec_.num_hvx_threads;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  g->env_.num_threads = threads;
  if (threads > 1) {
    g->pool_.reset(threads::create_pool(threads));
    if (!g->pool_) g->env_.num_threads = 1;  // no threads to be had: run on the caller's
  }
  g->env_.pool = g->pool_.get();
  g->env_.fast_paths = options.fast_paths;
  const auto& tensors = g->spec_.tensors;
  const int n_tensors = static_cast<int>(tensors.size());
  auto fail = [&](GraphError e, std::string m) {
    *err = e;
    *message = std::move(m);
    return nullptr;
  };
  for (int i = 0; i < n_tensors; ++i) {
    g->slot_of_id_[tensors[i].id] = i;
    g->slot_bytes_.push_back(tensors[i].num_bytes());
    if (tensors[i].is_graph_input()) {
      g->input_ids_.push_back(tensors[i].id);
      g->input_slots_.push_back(i);
    }
    if (tensors[i].is_graph_output()) {
      g->output_ids_.push_back(tensors[i].id);
      g->output_slots_.push_back(i);
    }
    if (tensors[i].type == tensor_type::kStatic && tensors[i].static_data.size() != tensors[i].num_bytes()) {
      return fail(GraphError::kInvalidGraph, "static tensor '" + tensors[i].name + "' has " +
                                                 std::to_string(tensors[i].static_data.size()) + " bytes of data, needs " +
                                                 std::to_string(tensors[i].num_bytes()));
    }
  }

  // STATIC tensors are read where their data is (relocate_static may move
  // them later); NATIVE entries are set per execute by bind_regions.
  g->pointers_.assign(n_tensors, nullptr);
  for (int i = 0; i < n_tensors; ++i) {
    if (tensors[i].type == tensor_type::kStatic) {
      g->pointers_[i] = const_cast<uint8_t*>(g->spec_.tensors[i].static_data.data());
    }
  }

  // Producers and lifetimes, in step order: a tensor must exist before it is
  // read, and only NATIVE / APP_READ tensors may be written, once.
  const int n_nodes = static_cast<int>(g->spec_.nodes.size());
  std::vector<int> first_use(n_tensors, -1), last_use(n_tensors, -1);
  std::vector<bool> produced(n_tensors, false);
  for (int i = 0; i < n_tensors; ++i) {
    const uint32_t ty = tensors[i].type;
    produced[i] = ty == tensor_type::kStatic || ty == tensor_type::kAppWrite || ty == tensor_type::kAppReadWrite;
  }
  // Fusion (fusion.h): which nodes start a fused step, and which are
  // absorbed into one (set once that step's kernel is built).
  std::vector<Fusion> fusions;
  if (options.fusion) fusions = find_fusions(g->spec_);
  if (!moved_work) {
    std::vector<Fusion> kept;
    for (const Fusion& f : fusions) {
      if (f.has_epilogue()) kept.push_back(f.without_scale().without_mean());
    }
    fusions = std::move(kept);
  }
  std::vector<int> fusion_at(n_nodes, -1), scale_at(n_nodes, -1);
  for (size_t k = 0; k < fusions.size(); ++k) {
    fusion_at[fusions[k].producer] = static_cast<int>(k);
    if (fusions[k].scale >= 0) scale_at[fusions[k].scale] = static_cast<int>(k);
  }
  std::vector<PointwiseChain> chains;
  if (options.fusion) chains = find_pointwise_chains(g->spec_, fusions);
  std::vector<int> chain_at(n_nodes, -1), producer_table_at(n_nodes, -1);
  for (size_t k = 0; k < chains.size(); ++k) {
    chain_at[chains[k].nodes.front()] = static_cast<int>(k);
    if (!moved_work) chains[k].producer = -1;  // the chain's output written earlier: a move
    if (chains[k].producer >= 0) producer_table_at[chains[k].producer] = static_cast<int>(k);
  }
  std::vector<AddLayerNorm> add_norms;
  if (options.fusion) add_norms = find_add_layer_norms(g->spec_, fusions, chains);
  std::vector<int> add_norm_at(n_nodes, -1);
  for (size_t k = 0; k < add_norms.size(); ++k) add_norm_at[add_norms[k].add] = static_cast<int>(k);
  std::vector<bool> absorbed(n_nodes, false);
  std::vector<int> eliminated;  // slots of the intermediates fusion removed
  auto slot_of = [&](uint32_t id) {
    auto it = g->slot_of_id_.find(id);
    return it == g->slot_of_id_.end() ? -1 : it->second;
  };
  // A step reading tensor `id` (kNoTensor: omitted) / writing it.
  auto read = [&](const NodeSpec& node, uint32_t id, Step* step) -> bool {
    if (id == kNoTensor) {
      step->in_slots.push_back(-1);
      return true;
    }
    const int s = slot_of(id);
    if (s < 0) {
      fail(GraphError::kInvalidGraph, "node '" + node.name + "' reads unknown tensor id " + std::to_string(id));
      return false;
    }
    if (!produced[s]) {
      fail(GraphError::kInvalidGraph, "node '" + node.name + "' reads tensor '" + tensors[s].name +
                                          "' before any node produces it (nodes must be added in dependency order)");
      return false;
    }
    const int n = static_cast<int>(g->steps_.size());
    if (first_use[s] < 0) first_use[s] = n;
    last_use[s] = n;
    step->in_slots.push_back(s);
    return true;
  };
  auto write = [&](const NodeSpec& node, uint32_t id, Step* step) -> bool {
    const int s = slot_of(id);
    if (s < 0) {
      fail(GraphError::kInvalidGraph, "node '" + node.name + "' writes unknown tensor id " + std::to_string(id));
      return false;
    }
    const uint32_t ty = tensors[s].type;
    if (ty != tensor_type::kNative && ty != tensor_type::kAppRead) {
      fail(GraphError::kInvalidGraph, "node '" + node.name + "' writes tensor '" + tensors[s].name + "' of type " +
                                          std::to_string(ty) + "; outputs must be NATIVE or APP_READ");
      return false;
    }
    if (produced[s]) {
      fail(GraphError::kInvalidGraph,
           "tensor '" + tensors[s].name + "' is produced twice (again by node '" + node.name + "')");
      return false;
    }
    produced[s] = true;
    const int n = static_cast<int>(g->steps_.size());
    if (first_use[s] < 0) first_use[s] = n;
    last_use[s] = n;
    step->out_slots.push_back(s);
    return true;
  };
  // A fused step's inputs, each an existing tensor (kNoTensor: omitted), as
  // its in_slots; false when one is unknown or not yet produced.
  auto take_inputs = [&](const std::vector<uint32_t>& ids, Step* step) -> bool {
    for (uint32_t id : ids) {
      const int s = id == kNoTensor ? -1 : slot_of(id);
      if (id != kNoTensor && (s < 0 || !produced[s])) return false;
      step->in_slots.push_back(s);
    }
    return true;
  };
  // The fused step for fusion f, kernel built, or nullopt when it cannot be
  // (then the nodes are prepared one by one, and report their own errors):
  // an unknown or not yet produced tensor, a kernel that refuses, or a
  // slower kernel than the producer alone would get.
  auto try_fused = [&](const Fusion& f) -> std::optional<Step> {
    const NodeSpec& prod = g->spec_.nodes[f.producer];
    Step step;
    step.node = f.producer;
    step.name = fused_name(g->spec_, f);
    step.type = fused_type(g->spec_, f);
    std::vector<uint32_t> ins = prod.inputs;
    if (f.scale >= 0) ins[0] = f.scaled;
    if (f.residual != kNoTensor) ins.push_back(f.residual);
    if (f.scale >= 0) ins.push_back(f.channel_scale);
    step.input_scaled = f.scale >= 0;
    if (!take_inputs(ins, &step)) return std::nullopt;
    step.op_inputs = prod.inputs.size();
    const int out = slot_of(g->spec_.nodes[f.last()].outputs[0]);
    if (out < 0 || produced[out]) return std::nullopt;
    step.out_slots.push_back(out);
    if (f.mean >= 0) {
      const int mean = slot_of(g->spec_.nodes[f.mean].outputs[0]);
      if (mean < 0 || produced[mean]) return std::nullopt;
      step.out_slots.push_back(mean);
      step.channel_mean = true;
    }
    if (f.has_epilogue()) step.epilogue = ops::Epilogue{nullptr, f.clamp >= 0, f.lo, f.hi, f.multiply >= 0};
    if (g->spec_.tensors[out].dtype != ops::dtype::kFloat32) {  // where the nodes round (ops::Epilogue)
      step.producer_output = slot_of(prod.outputs[0]);
      if (f.add >= 0 && f.clamp >= 0) step.sum_output = slot_of(g->spec_.nodes[f.add].outputs[0]);
    }
    if (!g->prepare_kernel(step, &step.kernel, &step.impl).ok()) return std::nullopt;
    // Every fast path declined the fused node: unfused, the producer may
    // still get one (a reference or type-adapted producer would cost far
    // more than the pass saved). Where it would get the same kernel
    // (TransposeConv2d's output padding on the reference, an 8-bit
    // TransposeConv2d through the adapter), it runs fused: the epilogue
    // costs no extra pass there.
    if (!g->env_.fast_paths.empty() &&
        (step.impl == "reference" || step.impl.find("adapter") != std::string::npos)) {
      Step alone;
      alone.node = f.producer;
      alone.op_inputs = prod.inputs.size();
      const int t = slot_of(prod.outputs[0]);
      if (t < 0 || !take_inputs(prod.inputs, &alone)) return std::nullopt;
      alone.out_slots.push_back(t);
      std::unique_ptr<ops::OpKernel> k;
      std::string impl;
      if (!g->prepare_kernel(alone, &k, &impl).ok() || impl != step.impl) return std::nullopt;
    }
    return step;
  };
  // A pointwise chain's step, kernel built, or nullopt (then its nodes run
  // one by one): x not yet produced, or no fast path makes the table.
  auto try_chain = [&](const PointwiseChain& c) -> std::optional<Step> {
    Step step;
    step.node = c.nodes.front();
    step.chain = c.nodes;
    step.name = chain_name(g->spec_, c);
    step.type = chain_type(g->spec_, c);
    const int x = slot_of(c.input);
    const int out = slot_of(g->spec_.nodes[c.nodes.back()].outputs[0]);
    if (x < 0 || !produced[x] || out < 0 || produced[out]) return std::nullopt;
    step.in_slots.push_back(x);
    step.out_slots.push_back(out);
    step.op_inputs = 1;
    if (!g->prepare_kernel(step, &step.kernel, &step.impl).ok()) return std::nullopt;
    return step;
  };
  // A convolution writing its chain's output through the chain's table,
  // kernel built, or nullopt (then the two run as steps of their own): an
  // input not yet produced, no table, or no fast path applies it.
  auto try_producer_table = [&](const PointwiseChain& c) -> std::optional<Step> {
    const NodeSpec& prod = g->spec_.nodes[c.producer];
    Step step;
    step.node = c.producer;
    step.name = producer_table_name(g->spec_, c);
    step.type = producer_table_type(g->spec_, c);
    if (!take_inputs(prod.inputs, &step)) return std::nullopt;
    step.op_inputs = step.in_slots.size();
    const int x = slot_of(c.input), out = slot_of(g->spec_.nodes[c.nodes.back()].outputs[0]);
    if (x < 0 || produced[x] || out < 0 || produced[out]) return std::nullopt;  // produced twice: own_step says so
    step.out_slots.push_back(out);
    step.output_as = x;
    if (!g->chain_table(c.nodes, &step.output_table).ok()) return std::nullopt;
    if (!g->prepare_kernel(step, &step.kernel, &step.impl).ok()) return std::nullopt;
    return step;
  };
  // An Add -> LayerNorm step, kernel built, or nullopt (then the two nodes
  // run one by one): an input not yet produced, or no fast path takes it.
  auto try_add_norm = [&](const AddLayerNorm& an) -> std::optional<Step> {
    const NodeSpec& add = g->spec_.nodes[an.add];
    const NodeSpec& norm = g->spec_.nodes[an.norm];
    Step step;
    step.node = an.add;
    step.fused_norm = an.norm;
    step.name = add_layer_norm_name(g->spec_, an);
    step.type = add_layer_norm_type(g->spec_, an);
    std::vector<uint32_t> ins = add.inputs;
    ins.insert(ins.end(), norm.inputs.begin() + 1, norm.inputs.end());
    if (!take_inputs(ins, &step)) return std::nullopt;
    step.op_inputs = step.in_slots.size();
    const int out = slot_of(norm.outputs[0]);
    if (out < 0 || produced[out]) return std::nullopt;
    step.out_slots.push_back(out);
    if (!g->prepare_kernel(step, &step.kernel, &step.impl).ok()) return std::nullopt;
    return step;
  };
  // The op is known and the caller's bound not reached (checked per node).
  auto node_ok = [&](const NodeSpec& node) -> bool {
    const ops::OpDef* def = ops::find_op(node.type);
    if (def == nullptr || (!node.package.empty() && node.package != ops::kPackageName)) {
      fail(GraphError::kUnsupportedOp,
           "node '" + node.name + "': op " + node.package + "::" + node.type + " is not supported");
      return false;
    }
    if (options.control != nullptr) {
      const CallControl::Verdict v = options.control->check();
      if (v == CallControl::Verdict::kAborted) {
        fail(GraphError::kAborted, "aborted at node '" + node.name + "'");
        return false;
      }
      if (v == CallControl::Verdict::kTimedOut) {
        fail(GraphError::kTimedOut, "timed out at node '" + node.name + "'");
        return false;
      }
    }
    return true;
  };
  // A node whose work a fused step does, validated by its own op's rules on
  // its own tensors (no kernel built); false once fail() has run.
  auto validate_own = [&](int n) -> bool {
    const NodeSpec& node = g->spec_.nodes[n];
    Step own;
    own.node = n;
    for (uint32_t id : node.inputs) own.in_slots.push_back(id == kNoTensor ? -1 : slot_of(id));
    for (uint32_t id : node.outputs) own.out_slots.push_back(slot_of(id));
    own.op_inputs = own.in_slots.size();
    if (ops::Status st = g->prepare_kernel(own, nullptr, nullptr); !st.ok()) {
      fail(st.code == ops::StatusCode::kUnsupported ? GraphError::kUnsupportedOp : GraphError::kInvalidOp, st.message);
      return false;
    }
    return true;
  };
  // Node n as a step of its own.
  auto own_step = [&](int n) -> bool {
    const NodeSpec& node = g->spec_.nodes[n];
    Step step;
    step.node = n;
    step.name = node.name;
    step.type = node.type;
    for (uint32_t id : node.inputs) {
      if (!read(node, id, &step)) return false;
    }
    for (uint32_t id : node.outputs) {
      if (!write(node, id, &step)) return false;
    }
    if (fusion_at[n] < 0 && !node_ok(node)) return false;
    step.op_inputs = step.in_slots.size();
    g->steps_.push_back(std::move(step));
    Step& added = g->steps_.back();
    if (ops::Status st = g->prepare_kernel(added, &added.kernel, &added.impl); !st.ok()) {
      fail(st.code == ops::StatusCode::kUnsupported ? GraphError::kUnsupportedOp : GraphError::kInvalidOp, st.message);
      return false;
    }
    return true;
  };
  for (int n = 0; n < n_nodes; ++n) {
    const NodeSpec& node = g->spec_.nodes[n];
    if ((absorbed[n] || fusion_at[n] >= 0 || scale_at[n] >= 0) && !node_ok(node)) return nullptr;
    // A channel scale's Multiply: its work moves to the Conv2d that reads
    // its product (which runs it as its own step there if no kernel takes
    // the scale); nothing reads the product before.
    if (scale_at[n] >= 0) continue;
    if (absorbed[n]) {
      // Its work runs in an earlier fused step; it is still judged by its
      // own op's rules, on its own tensors.
      if (!validate_own(n)) return nullptr;
      continue;
    }
    if (producer_table_at[n] >= 0) {
      const PointwiseChain& c = chains[producer_table_at[n]];
      if (!node_ok(node)) return nullptr;
      if (std::optional<Step> fused = try_producer_table(c)) {
        // Lifetimes as if the chain ran here, minus x and the chain's
        // intermediates; the chain's nodes are judged at their places.
        Step bookkeeping;
        for (uint32_t id : node.inputs) {
          if (!read(node, id, &bookkeeping)) return nullptr;
        }
        produced[slot_of(c.input)] = true;
        eliminated.push_back(slot_of(c.input));
        for (uint32_t id : c.eliminated) {
          produced[slot_of(id)] = true;
          eliminated.push_back(slot_of(id));
        }
        const NodeSpec& last = g->spec_.nodes[c.nodes.back()];
        if (!write(last, last.outputs[0], &bookkeeping)) return nullptr;
        for (int k : c.nodes) absorbed[k] = true;
        g->steps_.push_back(std::move(*fused));
        if (moved_any != nullptr) *moved_any = true;
        continue;
      }
    }
    if (chain_at[n] >= 0) {
      const PointwiseChain& c = chains[chain_at[n]];
      if (!node_ok(node)) return nullptr;
      if (std::optional<Step> fused = try_chain(c)) {
        Step bookkeeping;
        if (!read(node, c.input, &bookkeeping)) return nullptr;
        for (uint32_t id : c.eliminated) {
          produced[slot_of(id)] = true;
          eliminated.push_back(slot_of(id));
        }
        const NodeSpec& last = g->spec_.nodes[c.nodes.back()];
        if (!write(last, last.outputs[0], &bookkeeping)) return nullptr;
        for (size_t k = 1; k < c.nodes.size(); ++k) absorbed[c.nodes[k]] = true;
        g->steps_.push_back(std::move(*fused));
        // The first node is judged by its own rules too.
        if (!validate_own(n)) return nullptr;
        continue;
      }
    }
    if (add_norm_at[n] >= 0) {
      const AddLayerNorm& an = add_norms[add_norm_at[n]];
      if (!node_ok(node)) return nullptr;
      if (std::optional<Step> fused = try_add_norm(an)) {
        // Lifetimes as if both nodes ran here, minus the sum.
        const NodeSpec& norm = g->spec_.nodes[an.norm];
        Step bookkeeping;
        for (uint32_t id : node.inputs) {
          if (!read(node, id, &bookkeeping)) return nullptr;
        }
        for (size_t i = 1; i < norm.inputs.size(); ++i) {
          if (!read(norm, norm.inputs[i], &bookkeeping)) return nullptr;
        }
        produced[slot_of(an.sum)] = true;
        eliminated.push_back(slot_of(an.sum));
        if (!write(norm, norm.outputs[0], &bookkeeping)) return nullptr;
        absorbed[an.norm] = true;
        g->steps_.push_back(std::move(*fused));
        // The Add is judged by its own rules too (the LayerNorm at its place).
        if (!validate_own(n)) return nullptr;
        continue;
      }
    }
    if (fusion_at[n] >= 0) {
      Fusion f = fusions[fusion_at[n]];
      std::optional<Step> fused = try_fused(f);
      if (!fused && f.mean >= 0) {
        // No kernel takes the mean: the ReduceMean runs at its own place.
        f = f.without_mean();
        fused = try_fused(f);
      }
      if (!fused && f.scale >= 0) {
        // No kernel takes the channel scale: the Multiply runs here, then
        // the Conv2d with whatever epilogue it fused.
        if (!own_step(f.scale)) return nullptr;
        f = f.without_scale();
        if (f.has_epilogue()) fused = try_fused(f);
      }
      if (fused) {
        Step step = std::move(*fused);
        // Lifetimes and producers as if the nodes ran here, minus the
        // intermediates, which nobody writes or reads now.
        Step bookkeeping;
        size_t first_input = 0;
        if (f.scale >= 0) {
          const NodeSpec& mul = g->spec_.nodes[f.scale];
          for (uint32_t id : mul.inputs) {
            if (!read(mul, id, &bookkeeping)) return nullptr;
          }
          first_input = 1;  // the product, which nobody writes now
        }
        for (size_t i = first_input; i < node.inputs.size(); ++i) {
          if (!read(node, node.inputs[i], &bookkeeping)) return nullptr;
        }
        if (f.residual != kNoTensor && !read(g->spec_.nodes[f.add], f.residual, &bookkeeping)) return nullptr;
        for (uint32_t id : f.eliminated) {
          produced[slot_of(id)] = true;
          eliminated.push_back(slot_of(id));
        }
        if (!write(g->spec_.nodes[f.last()], g->spec_.nodes[f.last()].outputs[0], &bookkeeping)) return nullptr;
        if (f.add >= 0) absorbed[f.add] = true;
        if (f.multiply >= 0) absorbed[f.sigmoid] = absorbed[f.multiply] = true;
        if (f.clamp >= 0) absorbed[f.clamp] = true;
        if (f.mean >= 0) {
          const NodeSpec& mean = g->spec_.nodes[f.mean];
          if (!write(mean, mean.outputs[0], &bookkeeping)) return nullptr;
          absorbed[f.mean] = true;  // judged by its own rules at its place
        }
        g->steps_.push_back(std::move(step));
        if ((f.scale >= 0 || f.mean >= 0) && moved_any != nullptr) *moved_any = true;
        // The Multiply is judged by its own rules too.
        if (f.scale >= 0 && !validate_own(f.scale)) return nullptr;
        continue;
      }
    }
    if (!own_step(n)) return nullptr;
  }
  for (int i = 0; i < n_tensors; ++i) {
    if (tensors[i].is_graph_output() && !produced[i]) {
      return fail(GraphError::kInvalidGraph, "graph output '" + tensors[i].name + "' is not produced by any node");
    }
  }

  // Place NATIVE tensors and the kernels' workspaces in VTCM or the
  // spill-fill region. A NATIVE tensor no node touches needs no memory.
  g->first_use_ = std::move(first_use);
  g->last_use_ = std::move(last_use);
  for (int i = 0; i < n_tensors; ++i) {
    if (tensors[i].type == tensor_type::kNative && g->first_use_[i] >= 0) g->natives_.push_back(i);
  }
  // A stored plan fixes the placements of the tensors it names; each must be
  // one of natives_ (checked here: the planner only sees requests).
  std::vector<std::optional<TensorPlacement>> fixed;
  if (options.stored_placements != nullptr) {
    fixed.resize(g->natives_.size());
    std::unordered_map<int, size_t> native_index;
    for (size_t k = 0; k < g->natives_.size(); ++k) native_index[g->natives_[k]] = k;
    for (const auto& [id, where] : *options.stored_placements) {
      auto slot = g->slot_of_id_.find(id);
      // A binary made without fusion (OPENHTP_FUSION=off) places the
      // intermediates fusion removed: they need no memory here.
      if (slot != g->slot_of_id_.end() &&
          std::find(eliminated.begin(), eliminated.end(), slot->second) != eliminated.end()) {
        continue;
      }
      auto k = slot == g->slot_of_id_.end() ? native_index.end() : native_index.find(slot->second);
      if (k == native_index.end()) {
        return fail(GraphError::kInvalidGraph, "stored placement for tensor id " + std::to_string(id) + " at " +
                                                   region_name(where.region) + " offset " + std::to_string(where.offset) +
                                                   ": graph '" + g->spec_.name +
                                                   "' has no NATIVE tensor of that id that a node uses");
      }
      fixed[k->second] = where;
    }
  }
  std::vector<ops::OpKernel*> kernels;
  for (Step& s : g->steps_) kernels.push_back(s.kernel.get());
  Plan plan;
  if (GraphError e = g->make_plan(kernels, fixed, &plan, message); e != GraphError::kNone) {
    *err = e;
    return nullptr;
  }
  g->apply_plan(plan);
  g->splitting_ahead_.assign(g->steps_.size(), 0);  // learned by the first execute
  // The graph's own VTCM and spill-fill buffers are made on first use of the
  // execute() without regions: the skel always passes the device's VTCM and the
  // context's spill-fill region, and a copy per graph would cost real memory.
  *err = GraphError::kNone;
  return g;
}

GraphError PreparedGraph::make_plan(std::span<ops::OpKernel* const> kernels,
                                    std::span<const std::optional<TensorPlacement>> fixed, Plan* plan,
                                    std::string* message) const {
  // A tensor's read slack is the most any of its readers asks for: the
  // planner keeps that much readable memory after it (memory_planner.h).
  std::vector<size_t> slack(spec_.tensors.size(), 0);
  for (size_t n = 0; n < steps_.size(); ++n) {
    const size_t s = kernels[n]->read_slack_bytes();
    for (int slot : steps_[n].in_slots) {
      if (slot >= 0) slack[slot] = std::max(slack[slot], s);
    }
  }
  // Two steps that may chain (share_chain.h: the later starts while the
  // earlier still runs on the other threads) keep the earlier one's tensors
  // and workspace alive through the later one, so that its output is not
  // planned over what the earlier one's pending shares still read.
  std::vector<int> chain_last_use = last_use_;
  std::vector<int> workspace_last_use(steps_.size());
  for (size_t n = 0; n < steps_.size(); ++n) {
    workspace_last_use[n] = static_cast<int>(n);
    const size_t shares = kernels[n]->chained_shares();
    if (shares < 2 || n + 1 == steps_.size() || kernels[n + 1]->chained_shares() != shares) continue;
    workspace_last_use[n] = static_cast<int>(n + 1);
    for (const std::vector<int>* slots : {&steps_[n].in_slots, &steps_[n].out_slots}) {
      for (int slot : *slots) {
        if (slot >= 0 && chain_last_use[slot] == static_cast<int>(n)) chain_last_use[slot] = static_cast<int>(n + 1);
      }
    }
  }
  std::vector<std::optional<TensorPlacement>> all_fixed;
  PlanError why;
  // With lifetimes kept for chains; then, when a stored plan's placements
  // collide under those, with the graph's own (a plan stored by a build
  // that did not keep them: its steps then chain only where it allows).
  for (const bool keep_for_chains : {true, false}) {
    const std::vector<int>& last = keep_for_chains ? chain_last_use : last_use_;
    std::vector<BufferRequest> requests;
    for (int slot : natives_) requests.push_back({slot_bytes_[slot], first_use_[slot], last[slot], slack[slot]});
    // Each workspace is one more request, alive for its node only — as
    // TFLite Micro's scratch buffers: it may take any memory no tensor of
    // that node (and no other workspace) is using then.
    all_fixed.clear();
    if (!fixed.empty()) all_fixed.assign(fixed.begin(), fixed.end());
    plan->workspace_of.assign(steps_.size(), SIZE_MAX);
    for (size_t n = 0; n < steps_.size(); ++n) {
      const size_t bytes = kernels[n]->workspace_bytes();
      if (bytes == 0) continue;
      plan->workspace_of[n] = requests.size();
      const int until = keep_for_chains ? workspace_last_use[n] : static_cast<int>(n);
      requests.push_back({bytes, static_cast<int>(n), until, 0});
      if (!all_fixed.empty()) all_fixed.emplace_back();
    }
    // On two threads each buffer's halves stay with one core
    // (memory_planner.h, Layout::kThreadHalves). Two only: with more, a
    // tensor's shares are thirds, quarters, which no one middle lines up.
    const Layout layout = env_.num_threads == 2 ? Layout::kThreadHalves : Layout::kPacked;
    if (plan_vtcm(requests, vtcm_budget_bytes_, kArenaAlignment, all_fixed, &plan->regions, &why, layout)) {
      return GraphError::kNone;
    }
    if (fixed.empty()) break;
  }
  // Only a fixed (stored) placement can be refused, and only natives_ have them.
  auto describe = [&](size_t r) {
    const TensorSpec& t = spec_.tensors[natives_[r]];
    return "tensor '" + t.name + "' (id " + std::to_string(t.id) + ") at " + region_name(all_fixed[r]->region) +
           " offset " + std::to_string(all_fixed[r]->offset);
  };
  if (why.request >= natives_.size()) {
    *message = "stored placements refused: " + why.why;
    return GraphError::kInvalidGraph;
  }
  *message = "stored placement of " + describe(why.request) + " " + why.why;
  if (why.other != PlanError::kNone) {
    const int a = natives_[why.request], b = natives_[why.other];
    const int node = std::max(first_use_[a], first_use_[b]);
    *message += " " + describe(why.other) + ", and both are alive at node '" + steps_[node].name + "'";
  }
  return GraphError::kInvalidGraph;
}

void PreparedGraph::apply_plan(const Plan& plan) {
  placed_.clear();
  for (size_t k = 0; k < natives_.size(); ++k) placed_.push_back({natives_[k], plan.regions.placements[k]});
  for (size_t n = 0; n < steps_.size(); ++n) {
    const size_t r = plan.workspace_of[n];
    steps_[n].workspace_bytes = r == SIZE_MAX ? 0 : steps_[n].kernel->workspace_bytes();
    steps_[n].workspace = r == SIZE_MAX ? TensorPlacement{} : plan.regions.placements[r];
  }
  vtcm_bytes_ = plan.regions.vtcm_bytes;
  spill_fill_bytes_ = plan.regions.spill_fill_bytes;
  regions_bound_ = false;  // NATIVE pointers and workspaces are bound again at the next execute
}

ops::Status PreparedGraph::chain_links(const std::vector<int>& nodes, std::vector<std::vector<ops::TensorDesc>>* ins,
                                       std::vector<std::vector<ops::TensorDesc>>* outs,
                                       std::vector<ops::ChainLink>* links) const {
  // Each link's tensors, from the spec; a link's input is the chain's input
  // (-1) or an earlier link's output.
  ins->assign(nodes.size(), {});
  outs->assign(nodes.size(), {});
  links->clear();
  const uint32_t x = spec_.nodes[nodes.front()].inputs[0];
  for (size_t j = 0; j < nodes.size(); ++j) {
    const NodeSpec& n = spec_.nodes[nodes[j]];
    ops::ChainLink l{};
    for (uint32_t id : n.inputs) {
      int src = -2;
      if (id == x) src = -1;
      for (size_t k = 0; k < j; ++k) {
        if (spec_.nodes[nodes[k]].outputs[0] == id) src = static_cast<int>(k);
      }
      auto slot = slot_of_id_.find(id);
      if (slot == slot_of_id_.end()) return ops::Status::Invalid("pointwise chain: a link reads an unknown tensor");
      ops::TensorDesc d = desc_of(spec_.tensors[slot->second]);
      if (src == -2 && spec_.tensors[slot->second].type == tensor_type::kStatic) {
        src = ops::kChainStatic;
        d.static_data = pointers_[slot->second];
      }
      if (src == -2) return ops::Status::Invalid("pointwise chain: a link reads outside it");
      (*ins)[j].push_back(std::move(d));
      l.sources.push_back(src);
    }
    for (uint32_t id : n.outputs) (*outs)[j].push_back(desc_of(spec_.tensors[slot_of_id_.at(id)]));
    l.node = ops::NodeDesc{n.name, n.type, (*ins)[j], (*outs)[j], n.params, &env_};
    links->push_back(std::move(l));
  }
  return ops::Status::Ok();
}

const ops::FastPath* PreparedGraph::chain_path() const {
  const ops::FastPath* path = nullptr;
  for (const ops::FastPath& fp : env_.fast_paths) {
    if (fp.type_name == ops::kPointwiseChain) path = &fp;
  }
  return path;
}

ops::Status PreparedGraph::chain_table(const std::vector<int>& nodes, std::vector<uint8_t>* table) const {
  const ops::FastPath* maker = chain_path();
  if (maker == nullptr || maker->chain_table == nullptr) {
    return ops::Status::Unsupported("no fast path makes pointwise chain tables");
  }
  std::vector<std::vector<ops::TensorDesc>> ins, outs;
  std::vector<ops::ChainLink> links;
  if (ops::Status st = chain_links(nodes, &ins, &outs, &links); !st.ok()) return st;
  if (!maker->chain_table(links, table)) return ops::Status::Unsupported("pointwise chain table declined");
  return ops::Status::Ok();
}

ops::Status PreparedGraph::prepare_chain_kernel(const Step& step, std::unique_ptr<ops::OpKernel>* kernel,
                                                std::string* impl) const {
  const ops::FastPath* maker = chain_path();
  if (maker == nullptr || maker->prepare_chain == nullptr) {
    return ops::Status::Unsupported("no fast path builds pointwise chains");
  }
  std::vector<std::vector<ops::TensorDesc>> ins, outs;
  std::vector<ops::ChainLink> links;
  if (ops::Status st = chain_links(step.chain, &ins, &outs, &links); !st.ok()) return st;
  if (kernel == nullptr) return ops::Status::Ok();
  if (!maker->prepare_chain(links, env_, kernel) || !*kernel) {
    return ops::Status::Unsupported("pointwise chain '" + step.name + "' declined");
  }
  if (impl != nullptr) *impl = std::string(maker->library);
  return ops::Status::Ok();
}

ops::Status PreparedGraph::prepare_add_layer_norm_kernel(const Step& step, std::span<const ops::TensorDesc> ins,
                                                         std::span<const ops::TensorDesc> outs,
                                                         std::unique_ptr<ops::OpKernel>* kernel,
                                                         std::string* impl) const {
  const ops::FastPath* maker = nullptr;
  for (const ops::FastPath& fp : env_.fast_paths) {
    if (fp.type_name == ops::kAddLayerNorm && fp.prepare != nullptr) maker = &fp;
  }
  if (maker == nullptr) return ops::Status::Unsupported("no fast path builds Add -> LayerNorm steps");
  if (kernel == nullptr) return ops::Status::Ok();
  const ops::NodeDesc nd{step.name, ops::kAddLayerNorm, ins, outs, spec_.nodes[step.fused_norm].params, &env_};
  if (!maker->prepare(nd, kernel) || !*kernel) {
    return ops::Status::Unsupported("Add -> LayerNorm step '" + step.name + "' declined");
  }
  if (impl != nullptr) *impl = std::string(maker->library);
  return ops::Status::Ok();
}

ops::Status PreparedGraph::prepare_kernel(const Step& step, std::unique_ptr<ops::OpKernel>* kernel,
                                          std::string* impl) const {
  if (!step.chain.empty()) return prepare_chain_kernel(step, kernel, impl);
  const NodeSpec& node = spec_.nodes[step.node];
  std::vector<ops::TensorDesc> in_descs, out_descs;
  for (int s : step.in_slots) {
    ops::TensorDesc d;
    if (s >= 0) {
      d = desc_of(spec_.tensors[s]);
      if (spec_.tensors[s].type == tensor_type::kStatic) d.static_data = pointers_[s];  // maybe relocated
    } else {
      d.present = false;
    }
    in_descs.push_back(std::move(d));
  }
  for (int s : step.out_slots) out_descs.push_back(desc_of(spec_.tensors[s]));
  if (step.output_as >= 0) out_descs[0] = desc_of(spec_.tensors[step.output_as]);
  if (step.fused_norm >= 0) return prepare_add_layer_norm_kernel(step, in_descs, out_descs, kernel, impl);
  // A fused step's NodeDesc is the producer's, with the last fused node's
  // output and the epilogue; its residual input follows the op's own.
  const std::span<const ops::TensorDesc> op_inputs(in_descs.data(), step.op_inputs);
  // A channel mean's output is the second output of the step, not of the op.
  const std::span<const ops::TensorDesc> op_outputs(out_descs.data(), step.channel_mean ? 1 : out_descs.size());
  ops::NodeDesc nd{node.name, node.type, op_inputs, op_outputs, node.params, &env_};
  ops::Epilogue epilogue;
  ops::TensorDesc rounds[2];  // an 8-bit residual's intermediate encodings
  if (step.epilogue) {
    epilogue = *step.epilogue;
    const bool residual = in_descs.size() > step.op_inputs + (step.input_scaled ? 1 : 0);
    epilogue.residual = residual ? &in_descs[step.op_inputs] : nullptr;
    if (step.producer_output >= 0) {
      rounds[0] = desc_of(spec_.tensors[step.producer_output]);
      epilogue.producer_output = &rounds[0];
    }
    if (step.sum_output >= 0) {
      rounds[1] = desc_of(spec_.tensors[step.sum_output]);
      epilogue.sum_output = &rounds[1];
    }
    nd.epilogue = &epilogue;
  }
  if (step.input_scaled) nd.input_scale = &in_descs.back();
  if (step.channel_mean) nd.channel_mean = &out_descs[1];
  if (!step.output_table.empty()) nd.output_table = step.output_table.data();
  return ops::prepare_node(nd, kernel, impl);
}

GraphError PreparedGraph::set_num_threads(size_t threads, std::string* message) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::lock_guard lock(run_mu_);
  if (threads == env_.num_threads) {
    spec_.num_hvx_threads = static_cast<uint32_t>(threads);
    return GraphError::kNone;
  }
  const ops::KernelEnv old_env = env_;
  std::unique_ptr<pthreadpool, PoolDelete> pool;
  if (threads > 1) pool.reset(threads::create_pool(threads));
  env_.num_threads = threads > 1 && !pool ? 1 : threads;
  env_.pool = pool.get();
  std::vector<std::unique_ptr<ops::OpKernel>> kernels(steps_.size());
  std::vector<std::string> impls(steps_.size());
  for (size_t n = 0; n < steps_.size(); ++n) {
    if (ops::Status st = prepare_kernel(steps_[n], &kernels[n], &impls[n]); !st.ok()) {
      env_ = old_env;  // the old kernels still hold the old pool
      *message = st.message;
      return st.code == ops::StatusCode::kUnsupported ? GraphError::kUnsupportedOp : GraphError::kInvalidOp;
    }
  }
  // The tensors stay where they are (a stored plan, the sizes reported at
  // finalize); only the workspaces, which may have changed size with the
  // thread count, are planned again around them. VTCM may take more, up to
  // the budget (it is the device's); the spill-fill region was sized by
  // spill_fill_bytes() at finalize — perhaps a client's buffer — so it may not.
  std::vector<std::optional<TensorPlacement>> keep;
  for (const PlacedSlot& p : placed_) keep.emplace_back(p.where);
  std::vector<ops::OpKernel*> raw;
  for (const auto& k : kernels) raw.push_back(k.get());
  Plan plan;
  if (GraphError e = make_plan(raw, keep, &plan, message); e != GraphError::kNone) {
    env_ = old_env;
    return e;
  }
  if (plan.regions.spill_fill_bytes > spill_fill_bytes_) {
    env_ = old_env;
    *message = "the kernels' scratch on " + std::to_string(threads) + " threads needs " +
               std::to_string(plan.regions.spill_fill_bytes) + " bytes of spill-fill, finalize planned " +
               std::to_string(spill_fill_bytes_) + " (the size the context's region was given)";
    return GraphError::kInvalidGraph;
  }
  for (size_t n = 0; n < steps_.size(); ++n) {
    steps_[n].kernel = std::move(kernels[n]);
    steps_[n].impl = std::move(impls[n]);
  }
  teams_learned_ = false;  // the new kernels may split differently: learned again
  // The region sizes stay as finalized (a stored binary reports them), even
  // where the new workspaces need less.
  plan.regions.spill_fill_bytes = spill_fill_bytes_;
  plan.regions.vtcm_bytes = std::max(plan.regions.vtcm_bytes, vtcm_bytes_);
  apply_plan(plan);
  pool_ = std::move(pool);  // after the kernels that used the old one are gone
  spec_.num_hvx_threads = static_cast<uint32_t>(threads);
  return GraphError::kNone;
}

bool PreparedGraph::relocate_static(uint32_t tensor_id, uint8_t* data) {
  auto it = slot_of_id_.find(tensor_id);
  if (it == slot_of_id_.end() || spec_.tensors[it->second].type != tensor_type::kStatic || data == nullptr) return false;
  std::lock_guard lock(run_mu_);
  pointers_[it->second] = data;
  step_pointers_valid_ = false;
  spec_.tensors[it->second].static_data.reset();
  return true;
}

bool PreparedGraph::release_static(uint32_t tensor_id, StaticBytes* bytes) {
  auto it = slot_of_id_.find(tensor_id);
  if (it == slot_of_id_.end()) return false;
  TensorSpec& t = spec_.tensors[it->second];
  if (t.type != tensor_type::kStatic || t.static_data.empty() || pointers_[it->second] != t.static_data.data()) {
    return false;
  }
  std::lock_guard lock(run_mu_);
  *bytes = std::move(t.static_data);  // the same bytes, another owner: pointers_ stays valid
  t.static_data.reset();
  return true;
}

const uint8_t* PreparedGraph::static_at(uint32_t tensor_id) const {
  auto it = slot_of_id_.find(tensor_id);
  if (it == slot_of_id_.end() || spec_.tensors[it->second].type != tensor_type::kStatic) return nullptr;
  return static_cast<const uint8_t*>(pointers_[it->second]);
}

size_t PreparedGraph::own_static_bytes() const {
  size_t n = 0;
  for (const TensorSpec& t : spec_.tensors) n += t.static_data.size();
  return n;
}

GraphError PreparedGraph::bind(std::span<const TensorBinding> bindings, bool outputs, std::string* message) {
  const auto& want = outputs ? output_ids_ : input_ids_;
  if (bindings.size() != want.size()) {
    *message = std::string("graph '") + spec_.name + "' has " + std::to_string(want.size()) +
               (outputs ? " outputs" : " inputs") + ", execute passed " + std::to_string(bindings.size());
    return GraphError::kBadBinding;
  }
  const auto& slots = outputs ? output_slots_ : input_slots_;
  // Bindings in the graph's own order (the usual case) cannot repeat: each
  // takes its slot with no lookup. From the first one out of order on, the
  // count still matches, so a tensor bound twice would leave another unbound
  // — read or written through a pointer of an earlier execute (or null) —
  // and every later binding is checked against the ones before it.
  bool scan = false;
  for (size_t i = 0; i < bindings.size(); ++i) {
    const TensorBinding& b = bindings[i];
    int slot;
    if (want[i] == b.tensor_id && !scan) {
      slot = slots[i];  // in order: a graph input (output) by construction
    } else {
      auto it = slot_of_id_.find(b.tensor_id);
      slot = it == slot_of_id_.end() ? -1 : it->second;
      scan = true;
      for (size_t j = 0; slot >= 0 && j < i; ++j) {
        if (bindings[j].tensor_id == b.tensor_id) {
          *message = "tensor '" + spec_.tensors[slot].name + "' is bound twice in one execute of '" + spec_.name + "'";
          return GraphError::kBadBinding;
        }
      }
      const TensorSpec* t = slot < 0 ? nullptr : &spec_.tensors[slot];
      if (t == nullptr || (outputs ? !t->is_graph_output() : !t->is_graph_input())) {
        *message = std::string("tensor id ") + std::to_string(b.tensor_id) + " is not a graph " +
                   (outputs ? "output" : "input") + " of '" + spec_.name + "'";
        return GraphError::kBadBinding;
      }
    }
    if (b.data == nullptr || b.bytes < slot_bytes_[slot]) {
      *message = "tensor '" + spec_.tensors[slot].name + "' needs " + std::to_string(slot_bytes_[slot]) +
                 " bytes, buffer has " + std::to_string(b.bytes);
      return GraphError::kBadBinding;
    }
    pointers_[slot] = b.data;
    step_pointers_valid_ = false;
  }
  return GraphError::kNone;
}

StoredPlan PreparedGraph::placements() const {
  StoredPlan out;
  for (const PlacedSlot& p : placed_) out.emplace(spec_.tensors[p.slot].id, p.where);
  return out;
}

std::optional<TensorPlacement> PreparedGraph::placement(uint32_t tensor_id) const {
  auto it = slot_of_id_.find(tensor_id);
  if (it == slot_of_id_.end()) return std::nullopt;
  for (const PlacedSlot& p : placed_) {
    if (p.slot == it->second) return p.where;
  }
  return std::nullopt;
}

GraphError PreparedGraph::bind_regions(const MemoryRegions& regions, std::string* message) {
  // A region the plan does not use may be absent; one it uses must be there
  // and hold the whole plan, or kernels would write past the caller's memory.
  const bool vtcm_ok = vtcm_bytes_ == 0 || (regions.vtcm != nullptr && regions.vtcm_size >= vtcm_bytes_);
  const bool spill_fill_ok =
      spill_fill_bytes_ == 0 || (regions.spill_fill != nullptr && regions.spill_fill_size >= spill_fill_bytes_);
  if (!vtcm_ok || !spill_fill_ok) {
    const Region r = vtcm_ok ? Region::kSpillFill : Region::kVtcm;
    const uint8_t* base = vtcm_ok ? regions.spill_fill : regions.vtcm;
    const size_t have = vtcm_ok ? regions.spill_fill_size : regions.vtcm_size;
    const size_t need = vtcm_ok ? spill_fill_bytes_ : vtcm_bytes_;
    *message = std::string("graph '") + spec_.name + "' needs " + std::to_string(need) + " bytes of " +
               region_name(r) + ", " +
               (base == nullptr ? std::string("none was given") : "the region given has " + std::to_string(have));
    return GraphError::kBadBinding;
  }
  if (regions_bound_ && regions.vtcm == bound_vtcm_ && regions.spill_fill == bound_spill_fill_) {
    return GraphError::kNone;
  }
  for (const PlacedSlot& p : placed_) {
    uint8_t* base = p.where.region == Region::kVtcm ? regions.vtcm : regions.spill_fill;
    pointers_[p.slot] = base + p.where.offset;
  }
  step_pointers_valid_ = false;
  for (Step& step : steps_) {
    if (step.workspace_bytes == 0) continue;
    uint8_t* base = step.workspace.region == Region::kVtcm ? regions.vtcm : regions.spill_fill;
    step.kernel->set_workspace(base + step.workspace.offset);
  }
  bound_vtcm_ = regions.vtcm;
  bound_spill_fill_ = regions.spill_fill;
  regions_bound_ = true;
  return GraphError::kNone;
}

GraphError PreparedGraph::execute(std::span<const TensorBinding> inputs, std::span<const TensorBinding> outputs,
                                  std::string* message) {
  {
    std::lock_guard lock(own_mu_);
    // Made again if set_num_threads let VTCM grow since.
    if (!own_allocated_ || own_vtcm_.size() < vtcm_bytes_ || own_spill_fill_.size() < spill_fill_bytes_) {
      own_vtcm_ = RegionMemory(vtcm_bytes_);
      own_spill_fill_ = RegionMemory(spill_fill_bytes_);
      own_allocated_ = true;
    }
  }
  const MemoryRegions own{own_vtcm_.data(), own_vtcm_.size(), own_spill_fill_.data(), own_spill_fill_.size()};
  return execute(inputs, outputs, own, message);
}

GraphError PreparedGraph::execute(std::span<const TensorBinding> inputs, std::span<const TensorBinding> outputs,
                                  const MemoryRegions& regions, std::string* message) {
  std::lock_guard lock(run_mu_);
  return execute_serialized(inputs, outputs, regions, message);
}

GraphError PreparedGraph::execute_serialized(std::span<const TensorBinding> inputs,
                                             std::span<const TensorBinding> outputs, const MemoryRegions& regions,
                                             std::string* message, YieldPoint* yield_point) {
  GraphError e = bind(inputs, false, message);
  if (e == GraphError::kNone) e = bind(outputs, true, message);
  if (e != GraphError::kNone) return e;
  return execute_bound(regions, message, yield_point);
}

GraphError PreparedGraph::execute_bound(const MemoryRegions& regions, std::string* message, YieldPoint* yield_point) {
  GraphError e = bind_regions(regions, message);
  if (e != GraphError::kNone) return e;
  if (!step_pointers_valid_) gather_step_pointers();
  // On several threads, stretches of steps that split their work only
  // through the graph's pool run inside one thread team (threads/team.h),
  // which ends before a step that opens OpenMP regions itself and before a
  // yield (nothing may be left waiting on a core while this graph is
  // paused). Which steps split is learned on the first execute on these
  // kernels (they fix it at prepare); a team starts only where at least two
  // steps ahead in its stretch split.
  const bool threaded = env_.num_threads > 1 && env_.pool != nullptr;
  const bool learn = threaded && !teams_learned_;
  auto start_team = [&](size_t n) { return threaded && !learn && splitting_ahead_[n] >= 2; };
  auto in_team = [&](size_t n) { return !steps_[n].kernel->uses_openmp_team(); };
  // The boundary before step n asked once: stop() or wanted() may count.
  enum class Boundary { kRun, kYield, kStop };
  auto ask = [&](size_t n) {
    if (n == 0 || yield_point == nullptr) return Boundary::kRun;
    if (const GraphError stop = yield_point->stop(); stop != GraphError::kNone) {
      e = stop;
      *message = std::string(graph_error_name(stop)) + " before node '" + steps_[n].name + "'";
      return Boundary::kStop;
    }
    return yield_point->wanted() ? Boundary::kYield : Boundary::kRun;
  };
  // Profiled, with steps that open OpenMP regions of their own: which
  // threads those regions run on, asked here, outside any team
  // (thread_clocks.h: only those steps read CPU clocks).
  if (profile_nodes_ && std::any_of(steps_.begin(), steps_.end(), [](const Step& s) { return s.kernel->uses_openmp_team(); })) {
    thread_clocks_.set_threads(threads::pool_thread_ids(threaded ? env_.pool : nullptr));
  }
  // A one-thread graph runs on the CPU its executes have run fastest on
  // (threads/cpu_preference.h); paused or stopped executes are no sample.
  threads::CpuPreference::Probe placement;
  if (env_.num_threads == 1 && threads::cpu_preference_enabled()) placement = cpu_preference_.begin();
  bool yielded = false;
  size_t n = 0;
  Boundary next = ask(0);
  while (n < steps_.size()) {
    if (next == Boundary::kStop) {
      cpu_preference_.end(placement, true);
      return e;
    }
    if (next == Boundary::kYield) {
      yielded = true;
      yield_point->yield(*this, n);
    }
    if (!start_team(n)) {
      const uint64_t before = learn ? threads::split_dispatches() : 0;
      run_step(n);
      if (learn) splitting_ahead_[n] = threads::split_dispatches() != before ? 1 : 0;  // summed below
      if (++n < steps_.size()) next = ask(n);
      continue;
    }
    // Chained steps (share_chain.h), unprofiled only (so that each step's
    // time stays its own): a step the next one chains or fences after
    // leaves its loop unjoined; the shares of a chained step that must not
    // meet an earlier one each wait for that one's shares first, and those
    // of a fenced step for the step before (threads::FencedShares; steps
    // before the team's first were joined when the team before it ended).
    size_t team_first = n;
    auto run_team_step = [&](size_t k) {
      const bool chaining = !profile_nodes_ && threads::team_threads() == steps_[k].kernel->chained_shares();
      std::optional<threads::UnjoinedShares> unjoined;
      std::optional<threads::FencedShares> fenced;
      if (chaining && k + 1 < steps_.size() && (chained_[k + 1] || fenced_[k + 1])) unjoined.emplace();
      if (chaining && chained_[k] && wait_for_[k] != SIZE_MAX && wait_for_[k] >= team_first) {
        fenced.emplace(job_of_[wait_for_[k]]);
      } else if (chaining && fenced_[k] && k > team_first) {
        fenced.emplace(job_of_[k - 1]);
      }
      run_step(k);
      job_of_[k] = threads::team_jobs();
    };
    auto team_steps = [&] {
      team_first = n;
      run_team_step(n++);
      while (n < steps_.size() && (next = ask(n)) == Boundary::kRun && in_team(n)) run_team_step(n++);
    };
    next = Boundary::kRun;
    threads::run_with_team(env_.pool, team_steps);
  }
  if (learn) {  // from "step k split" to "steps from k to its stretch's end that split"
    for (size_t k = steps_.size(); k-- > 0;) {
      if (!in_team(k)) {
        splitting_ahead_[k] = 0;  // a stretch ends before it
        continue;
      }
      if (k + 1 < steps_.size() && in_team(k + 1)) splitting_ahead_[k] += splitting_ahead_[k + 1];
    }
    teams_learned_ = true;
  }
  cpu_preference_.end(placement, yielded);
  return GraphError::kNone;
}

void PreparedGraph::gather_step_pointers() {
  size_t total = 0;
  for (const Step& step : steps_) total += step.in_slots.size() + step.out_slots.size();
  step_pointers_.resize(total);  // sized once: the steps do not change between executes
  size_t at = 0;
  for (Step& step : steps_) {
    step.pointers_at = at;
    for (int slot : step.in_slots) step_pointers_[at++] = slot < 0 ? nullptr : pointers_[slot];
    for (int slot : step.out_slots) step_pointers_[at++] = pointers_[slot];
  }
  step_pointers_valid_ = true;
  // Which steps may start before the one before them ended (share_chain.h),
  // with these pointers.
  chained_.assign(steps_.size(), 0);
  fenced_.assign(steps_.size(), 0);
  wait_for_.assign(steps_.size(), SIZE_MAX);
  job_of_.assign(steps_.size(), 0);
  const size_t threads = env_.num_threads;
  if (threads < 2 || env_.pool == nullptr || !share_chains_enabled()) return;
  ShareChain chain(threads);
  std::vector<ops::ShareAccess> shares;
  for (size_t n = 0; n < steps_.size(); ++n) {
    const Step& step = steps_[n];
    shares.clear();
    if (step.kernel->chained_shares() == threads) {
      void* const* p = step_pointers_.data() + step.pointers_at;
      const std::span<const void* const> ins(p, step.in_slots.size());
      const std::span<void* const> outs(p + step.in_slots.size(), step.out_slots.size());
      shares.resize(threads);
      for (size_t t = 0; t < threads; ++t) step.kernel->share_access(ins, outs, t, &shares[t]);
    }
    const ShareChain::Start start = chain.add(shares);
    chained_[n] = start.chained ? 1 : 0;
    wait_for_[n] = start.wait_for;
    const bool splits_like_before = !shares.empty() && n > 0 && steps_[n - 1].kernel->chained_shares() == threads;
    fenced_[n] = !start.chained && splits_like_before && share_fences_enabled() ? 1 : 0;
  }
}

void PreparedGraph::run_step(size_t n) {
  Step& step = steps_[n];
  void* const* p = step_pointers_.data() + step.pointers_at;
  const std::span<const void* const> ins(p, step.in_slots.size());
  const std::span<void* const> outs(p + step.in_slots.size(), step.out_slots.size());
  if (!profile_nodes_) {
    step.kernel->run(ins, outs);
    return;
  }
  // Per thread: a step whose kernel opens OpenMP regions of its own is read
  // off the threads' CPU clocks; every other step's shares are timed by the
  // threads that run them (threads/share_times.h), and the executing thread
  // is busy for the step's time less its waits for the others. No thread
  // spends more than the step's wall time; what the clocks' own reads add
  // beyond it is not the step's.
  const bool own_regions = step.kernel->uses_openmp_team();
  threads::ShareTimes shares;
  if (own_regions) thread_clocks_.read(&clocks_before_, /*self_last=*/true);
  uint64_t wall = 0;
  {
    const threads::ScopedShareTimes timed(own_regions ? nullptr : &shares);
    const uint64_t t0 = interval_ticks();
    step.kernel->run(ins, outs);
    wall = interval_ns(interval_ticks() - t0);
  }
  step.total_ns += wall;
  ++step.runs;
  if (own_regions) {
    thread_clocks_.read(&clocks_after_, /*self_last=*/false);
    if (step.thread_ns.size() < clocks_after_.size()) step.thread_ns.resize(clocks_after_.size());
    for (size_t t = 0; t < clocks_after_.size(); ++t) {
      step.thread_ns[t] += std::min(clocks_after_[t] - clocks_before_[t], wall);
    }
    return;
  }
  const size_t threads = std::min(env_.num_threads, threads::kMaxTimedThreads);
  if (step.thread_ns.size() < threads) step.thread_ns.resize(threads);
  step.thread_ns[0] += wall - std::min(interval_ns(shares.caller_wait_ticks), wall);
  for (size_t t = 1; t < threads; ++t) step.thread_ns[t] += std::min(interval_ns(shares.busy[t].ticks), wall);
}

void PreparedGraph::live_vtcm_at(size_t next_step, std::vector<RegionRange>* ranges) const {
  ranges->clear();
  const int boundary = static_cast<int>(next_step);
  for (const PlacedSlot& p : placed_) {
    if (p.where.region != Region::kVtcm) continue;
    if (first_use_[p.slot] < boundary && last_use_[p.slot] >= boundary) {
      ranges->push_back({p.where.offset, slot_bytes_[p.slot]});
    }
  }
  std::sort(ranges->begin(), ranges->end(), [](const RegionRange& a, const RegionRange& b) { return a.offset < b.offset; });
}

std::vector<PreparedGraph::NodeProfile> PreparedGraph::node_profile() const {
  std::vector<NodeProfile> out;
  for (const Step& s : steps_) out.push_back({s.name, s.type, s.impl, s.total_ns, s.runs, s.thread_ns});
  return out;
}

}  // namespace openhtp::htp
