#include "binary/context_load.h"

#include <utility>

namespace openhtp::binary {

htp::Status prepare_image_graphs(htp::Runtime& rt, uint64_t context_id, std::vector<GraphImage>&& graphs,
                                 std::vector<htp::GraphInfo>* infos, const htp::CallControl* control) {
  infos->clear();
  infos->reserve(graphs.size());
  for (GraphImage& g : graphs) {
    htp::GraphInfo info;
    const htp::StoredPlan* plan = g.placements.empty() ? nullptr : &g.placements;
    if (htp::Status s = rt.prepare_graph(context_id, std::move(g.spec), plan, &info, control); !s.ok()) return s;
    infos->push_back(info);
  }
  return htp::Status::Ok();
}

}  // namespace openhtp::binary
