#include "memory_plan_json.h"

#include "QnnTypes.h"
#include "enum_names.h"

namespace openhtp::tools {

using nlohmann::json;

nlohmann::json memory_plan_to_json(const GraphMemoryPlan& plan) {
  json ops = json::array();
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const PlannedOp& op = plan.ops[i];
    ops.push_back({{"index", i}, {"name", op.name}, {"type", op.type}, {"inputs", op.inputs}, {"outputs", op.outputs}});
  }
  json tensors = json::array();
  for (const PlannedTensor& t : plan.tensors) {
    const bool has_offset = t.region == MemoryRegion::kVtcm || t.region == MemoryRegion::kSpillFill ||
                            t.region == MemoryRegion::kWeights;
    tensors.push_back({
        {"id", t.id},
        {"name", t.name},
        {"type", tensor_type_name(static_cast<Qnn_TensorType_t>(t.tensor_type))},
        {"dataType", data_type_name(static_cast<Qnn_DataType_t>(t.data_type))},
        {"dimensions", t.dims},
        {"region", memory_region_name(t.region)},
        {"offset", has_offset ? json(t.offset) : json(nullptr)},
        {"bytes", t.bytes},
        {"slotBytes", t.slot_bytes},
        {"firstUse", t.first_use},
        {"lastUse", t.last_use},
        {"spillReason", t.region == MemoryRegion::kSpillFill ? json(t.spill_reason) : json(nullptr)},
    });
  }
  return {
      {"stored", plan.stored},
      {"alignment", plan.alignment},
      {"vtcmBudgetBytes", plan.vtcm_budget_bytes},
      {"vtcmBytes", plan.vtcm_bytes},
      {"spillFillBytes", plan.spill_fill_bytes},
      {"arenaBytes", plan.arena_bytes},
      {"weightsBytes", plan.weights_bytes},
      {"clientIoBytes", plan.client_io_bytes},
      {"numOps", plan.ops.size()},
      {"ops", std::move(ops)},
      {"tensors", std::move(tensors)},
  };
}

void add_memory_plans(nlohmann::json* binary_info, const std::vector<GraphMemoryPlan>& plans) {
  json* info = binary_info->contains("info") ? &(*binary_info)["info"] : nullptr;
  if (info == nullptr || !info->is_object() || !info->contains("graphs")) return;
  for (json& graph : (*info)["graphs"]) {
    json* gi = graph.contains("info") && graph["info"].is_object() ? &graph["info"] : nullptr;
    if (gi == nullptr || !gi->contains("graphName") || !(*gi)["graphName"].is_string()) continue;
    const std::string name = (*gi)["graphName"];
    for (const GraphMemoryPlan& p : plans) {
      if (p.graph_name == name) (*gi)["memoryPlan"] = memory_plan_to_json(p);
    }
  }
}

}  // namespace openhtp::tools
