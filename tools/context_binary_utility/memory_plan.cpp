#include "memory_plan.h"

#include <algorithm>
#include <unordered_map>

#include "binary/context_codec.h"
#include "htp/device_spec.h"
#include "htp/vtcm_plan.h"

namespace openhtp::tools {
namespace {

// The runtime's arena alignment (kArenaAlignment in src/htp/prepared_graph.cpp):
// every VTCM / spill-fill slot is a multiple of it. The binary does not store
// it; a stored offset that is not a multiple would have been refused at load.
constexpr uint64_t kArenaAlignment = 64;

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// The planner (src/htp/vtcm_plan.h) does not record why a tensor went to
// spill-fill; its rule makes the reason derivable from the finished plan:
// a tensor stays in VTCM when its slot in one unbounded greedy plan ends
// within the budget. So a spilled tensor either
//   - is bigger than the whole budget on its own,
//   - or meets, at some op of its life, VTCM tensors whose slots plus its
//     own exceed the budget (VTCM full there),
//   - or would fit by bytes but found no gap low enough: in the unbounded
//     plan larger tensors alive with it (spilled ones too) were placed first,
//     lowest offsets first, or kernel workspaces (planned as well, but not
//     stored in the binary) held the space.
std::string derive_spill_reason(const PlannedTensor& t, const GraphMemoryPlan& g) {
  const uint64_t need = t.slot_bytes;
  if (need > g.vtcm_budget_bytes) {
    return "too big for VTCM: needs " + std::to_string(need) + " bytes, the budget is " +
           std::to_string(g.vtcm_budget_bytes);
  }
  uint64_t worst = 0;
  int worst_op = t.first_use;
  for (int op = t.first_use; op <= t.last_use; ++op) {
    uint64_t live = 0;
    for (const PlannedTensor& o : g.tensors) {
      if (o.region == MemoryRegion::kVtcm && o.first_use <= op && op <= o.last_use) live += o.slot_bytes;
    }
    if (live > worst) {
      worst = live;
      worst_op = op;
    }
  }
  const std::string at = "op " + std::to_string(worst_op) +
                         (worst_op >= 0 && static_cast<size_t>(worst_op) < g.ops.size()
                              ? " (" + g.ops[worst_op].name + ")"
                              : std::string());
  if (worst + need > g.vtcm_budget_bytes) {
    return "VTCM full at " + at + ": " + std::to_string(worst) + " bytes held by tensors alive there, " +
           std::to_string(need) + " more needed, budget " + std::to_string(g.vtcm_budget_bytes);
  }
  return "no VTCM gap low enough: larger tensors planned first, or kernel workspaces, took the space below the "
         "budget (busiest at " + at + ": " + std::to_string(worst) + " of " + std::to_string(g.vtcm_budget_bytes) +
         " VTCM bytes held)";
}

GraphMemoryPlan plan_of(const binary::GraphImage& image, uint64_t* weights_cursor) {
  const htp::GraphSpec& spec = image.spec;
  GraphMemoryPlan g;
  g.graph_name = spec.name;
  g.stored = !image.placements.empty();
  g.alignment = kArenaAlignment;
  g.vtcm_budget_bytes = spec.vtcm_budget_bytes != 0 ? spec.vtcm_budget_bytes : htp::kDefaultVtcmBytes;
  g.vtcm_bytes = image.vtcm_bytes;
  g.spill_fill_bytes = image.spill_fill_bytes;
  g.arena_bytes = image.arena_bytes;

  // Lifetimes in node order, as the runtime computes them (PreparedGraph):
  // first and last op that reads or writes the tensor.
  std::unordered_map<uint32_t, std::pair<int, int>> use;
  for (size_t n = 0; n < spec.nodes.size(); ++n) {
    const htp::NodeSpec& node = spec.nodes[n];
    PlannedOp op{node.name, node.type, {}, {}};
    auto touch = [&](uint32_t id) {
      auto [it, added] = use.try_emplace(id, static_cast<int>(n), static_cast<int>(n));
      if (!added) it->second.second = static_cast<int>(n);
    };
    for (uint32_t id : node.inputs) {
      if (id == htp::kNoTensor) continue;
      op.inputs.push_back(id);
      touch(id);
    }
    for (uint32_t id : node.outputs) {
      op.outputs.push_back(id);
      touch(id);
    }
    g.ops.push_back(std::move(op));
  }

  for (const htp::TensorSpec& s : spec.tensors) {
    auto u = use.find(s.id);
    if (u == use.end() || s.type == htp::tensor_type::kNull) continue;  // takes no memory
    PlannedTensor t;
    t.id = s.id;
    t.name = s.name;
    t.tensor_type = s.type;
    t.data_type = s.dtype;
    t.dims = s.dims;
    t.bytes = s.num_bytes();
    t.first_use = u->second.first;
    t.last_use = u->second.second;
    if (s.type == htp::tensor_type::kStatic) {
      // The weights buffer packs every graph's STATIC tensors in binary and
      // creation order, each on the buffer-start alignment (Runtime::place_weights).
      t.region = MemoryRegion::kWeights;
      t.offset = htp::kDevice.align_up(*weights_cursor);
      t.slot_bytes = align_up(t.bytes, htp::kDevice.buffer_start_alignment);
      *weights_cursor = t.offset + t.bytes;
      g.weights_bytes += t.slot_bytes;
    } else if (s.is_graph_input() || s.is_graph_output()) {
      t.region = MemoryRegion::kClientIo;
      t.slot_bytes = t.bytes;
      g.client_io_bytes += t.bytes;
    } else if (auto p = image.placements.find(s.id); p != image.placements.end()) {
      t.region = p->second.region == htp::Region::kVtcm ? MemoryRegion::kVtcm : MemoryRegion::kSpillFill;
      t.offset = p->second.offset;
      t.slot_bytes = align_up(t.bytes, kArenaAlignment);
    } else {
      t.region = MemoryRegion::kUnplaced;
      t.slot_bytes = align_up(t.bytes, kArenaAlignment);
    }
    g.tensors.push_back(std::move(t));
  }
  for (PlannedTensor& t : g.tensors) {
    if (t.region == MemoryRegion::kSpillFill) t.spill_reason = derive_spill_reason(t, g);
  }
  return g;
}

}  // namespace

const char* memory_region_name(MemoryRegion r) {
  switch (r) {
    case MemoryRegion::kVtcm: return "VTCM";
    case MemoryRegion::kSpillFill: return "spill-fill";
    case MemoryRegion::kWeights: return "weights";
    case MemoryRegion::kClientIo: return "client I/O";
    case MemoryRegion::kUnplaced: return "unplaced";
  }
  return "?";
}

bool read_memory_plans(const uint8_t* bytes, size_t size, std::vector<GraphMemoryPlan>* plans, std::string* error) {
  binary::ContextImage image;
  if (binary::decode_context(bytes, size, &image, error) != binary::BinaryError::kNone) return false;
  plans->clear();
  uint64_t weights_cursor = 0;
  for (const binary::GraphImage& g : image.graphs) plans->push_back(plan_of(g, &weights_cursor));
  return true;
}

}  // namespace openhtp::tools
