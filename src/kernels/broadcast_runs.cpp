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
  BroadcastRuns r;
  for (size_t ax = 0; ax < out_dims.size(); ++ax) {
    const size_t d = out_dims[ax];
    if (d == 1) continue;
    if (!r.dims.empty() && r.sa.back() == sa_in[ax] * d && r.sb.back() == sb_in[ax] * d) {
      r.dims.back() *= d;
      r.sa.back() = sa_in[ax];
      r.sb.back() = sb_in[ax];
      continue;
    }
    r.dims.push_back(d);
    r.sa.push_back(sa_in[ax]);
    r.sb.push_back(sb_in[ax]);
  }
  if (r.dims.empty()) {
    r.dims.push_back(1);
    r.sa.push_back(0);
    r.sb.push_back(0);
  }
  return r;
}

}  // namespace openhtp::kernels
