// The facts of the one emulated HTP device, in one place: what the backend
// reports (deviceGetInfo, context binaries) and what the runtime enforces
// (the VTCM a graph may plan into, the alignment of external buffers, the
// most HVX threads a graph may ask for) must never disagree, so every layer
// reads them from here (docs/design.md §1, §3).
#pragma once

#include <cstddef>
#include <cstdint>

namespace openhtp::htp {

struct DeviceSpec {
  // On-chip memory shared by whichever graph runs (docs/design.md §3).
  size_t vtcm_bytes = size_t{8} << 20;
  // What deviceGetInfo and context binaries report: an SM8550-class SoC
  // (QNN's SoC model 43) with a V73 HTP.
  uint32_t soc_model = 43;
  uint32_t dsp_arch = 73;
  uint32_t num_cores = 1;
  // QNN_HTP_CONTEXT_GET_PROP_BUFFER_START_ALIGNMENT: external weights and
  // spill-fill buffers start on a page, and each graph's weights are packed
  // into the weights buffer on this boundary.
  uint64_t buffer_start_alignment = 4096;
  // NUM_HVX_THREADS above this is refused, whichever door it comes through:
  // more threads than any host has cores only adds contention.
  uint32_t max_hvx_threads = 64;

  size_t vtcm_mib() const { return vtcm_bytes >> 20; }
  uint64_t align_up(uint64_t v) const {
    return (v + buffer_start_alignment - 1) / buffer_start_alignment * buffer_start_alignment;
  }
};

// The device openhtp emulates.
inline constexpr DeviceSpec kDevice{};

}  // namespace openhtp::htp
