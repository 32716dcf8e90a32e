#include "kernels/broadcast_runs.h"

namespace openhtp::kernels {

int BroadcastRuns::row_input() const {
  if (dims.size() != 2) return -1;
  const std::vector<size_t> dense = {dims[1], 1}, row = {0, 1};
  if (sa == dense && sb == row) return 1;
  if (sb == dense && sa == row) return 0;
  return -1;
}

BroadcastRuns collapse_broadcast(const std::vector<uint32_t>& out_dims, const std::vector<size_t>& sa_in,
                                 const std::vector<size_t>& sb_in) {
  // Element-wise ops have rank <= 5 (the reference's limit), so the runs fit.
  const Runs<2> runs = collapse_runs<2>(out_dims, {sa_in, sb_in});
  BroadcastRuns r;
  r.dims.assign(runs.dims.begin(), runs.dims.begin() + runs.rank);
  r.sa.assign(runs.strides[0].begin(), runs.strides[0].begin() + runs.rank);
  r.sb.assign(runs.strides[1].begin(), runs.strides[1].begin() + runs.rank);
  return r;
}

}  // namespace openhtp::kernels
