#include "heap_test_support.h"

#include <cstdlib>
#include <mutex>
#include <string>

namespace openhtp::dsp_heap::testing {
namespace {

// Static initialization: before main, so before any test touches the heap.
const bool kRegionSized = [] {
  ::setenv("OPENHTP_DSP_HEAP_MB", std::to_string(kTestRegionMiB).c_str(), 0);
  return true;
}();

std::mutex g_lines_mutex;
std::vector<std::string> g_lines;

void collect(const char* line) {
  std::lock_guard<std::mutex> lock(g_lines_mutex);
  g_lines.emplace_back(line);
}

uint8_t pattern_byte(uint64_t id, size_t offset) {
  uint64_t x = (id + 1) * 0x9e3779b97f4a7c15ull ^ (offset * 0xbf58476d1ce4e5b9ull);
  x ^= x >> 31;
  return static_cast<uint8_t>(x);
}

template <typename Visit>
void for_pattern_offsets(size_t size, Visit visit) {
  const size_t head = size < 256 ? size : 256;
  const size_t tail = size > 512 ? size - 256 : head;  // the last 256 bytes
  for (size_t i = 0; i < head; ++i) visit(i);
  for (size_t i = head; i < tail; i += 16384) visit(i);
  for (size_t i = tail; i < size; ++i) visit(i);
}

}  // namespace

openhtp_dsp_heap_stats_t stats() {
  (void)kRegionSized;
  openhtp_dsp_heap_stats_t s{};
  openhtp_dsp_heap_stats(&s);
  return s;
}

ReportCapture::ReportCapture() {
  std::lock_guard<std::mutex> lock(g_lines_mutex);
  g_lines.clear();
  openhtp_dsp_heap_set_report(collect);
}

ReportCapture::~ReportCapture() { openhtp_dsp_heap_set_report(nullptr); }

std::vector<std::string> ReportCapture::lines() const {
  std::lock_guard<std::mutex> lock(g_lines_mutex);
  return g_lines;
}

void fill_pattern(void* p, size_t size, uint64_t id) {
  auto* bytes = static_cast<uint8_t*>(p);
  for_pattern_offsets(size, [&](size_t i) { bytes[i] = pattern_byte(id, i); });
}

bool check_pattern(const void* p, size_t size, uint64_t id, size_t limit) {
  const auto* bytes = static_cast<const uint8_t*>(p);
  bool ok = true;
  for_pattern_offsets(size, [&](size_t i) { ok = ok && (i >= limit || bytes[i] == pattern_byte(id, i)); });
  return ok;
}

}  // namespace openhtp::dsp_heap::testing
