// A graph's memory plan (memory_plan.h) as the JSON object
// qnn-context-binary-utility writes under graphs[i].info.memoryPlan
// (an openhtp key; docs/tools.md lists every field):
//   {"stored", "alignment", "vtcmBudgetBytes", "vtcmBytes", "spillFillBytes",
//    "arenaBytes", "weightsBytes", "clientIoBytes", "numOps",
//    "ops": [{"index", "name", "type", "inputs": [ids], "outputs": [ids]}],
//    "tensors": [{"id", "name", "type", "dataType", "dimensions", "region",
//                 "offset" (null for client I/O and unplaced), "bytes",
//                 "slotBytes", "firstUse", "lastUse", "spillReason"}]}
#pragma once

#include <nlohmann/json.hpp>

#include "memory_plan.h"

namespace openhtp::tools {

nlohmann::json memory_plan_to_json(const GraphMemoryPlan& plan);

// Adds info.graphs[i].info.memoryPlan to a binary_info_to_json() document for
// every graph whose name has a plan; other graphs and keys stay as they are.
void add_memory_plans(nlohmann::json* binary_info, const std::vector<GraphMemoryPlan>& plans);

}  // namespace openhtp::tools
