// One error line of the DSP heap, built and emitted without allocating.
//
// The heap sits under malloc, so nothing on its report path may allocate:
// no std::string, no stdio (printf may malloc for some formats, and stdio
// buffers are allocated on first use). A line is composed in a fixed buffer
// (longer text is cut) and written with write(2).
#pragma once

#include <cstddef>
#include <cstdint>

namespace openhtp::dsp_heap {

class ReportLine {
 public:
  static constexpr size_t kCapacity = 480;

  ReportLine& text(const char* s);
  ReportLine& hex(uint64_t v);  // 0x-prefixed, lower case
  ReportLine& dec(uint64_t v);

  bool empty() const { return len_ == 0; }
  const char* c_str() const { return buf_; }

 private:
  void put(char c);

  char buf_[kCapacity + 1] = {};
  size_t len_ = 0;
};

using ReportFn = void (*)(const char* line);

// Where lines go besides stderr (nullptr: stderr only). Atomic: set from any
// thread while others report.
void set_report_sink(ReportFn fn);

// Writes the line and a newline to stderr, then hands it to the sink. Must be
// called with no heap lock held: the sink may allocate. Empty lines are
// skipped, so callers can emit unconditionally.
void emit(const ReportLine& line);

}  // namespace openhtp::dsp_heap
