#include "dsp_heap/report_line.h"

#include <atomic>
#include <cerrno>
#include <unistd.h>

namespace openhtp::dsp_heap {
namespace {

constinit std::atomic<ReportFn> g_sink{nullptr};

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // nowhere to report that reporting failed
    p += w;
    n -= static_cast<size_t>(w);
  }
}

}  // namespace

void ReportLine::put(char c) {
  if (len_ < kCapacity) buf_[len_++] = c;
  buf_[len_] = '\0';
}

ReportLine& ReportLine::text(const char* s) {
  if (s == nullptr) s = "(null)";
  while (*s != '\0') put(*s++);
  return *this;
}

ReportLine& ReportLine::hex(uint64_t v) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v != 0);
  put('0');
  put('x');
  while (n > 0) put(digits[--n]);
  return *this;
}

ReportLine& ReportLine::dec(uint64_t v) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) put(digits[--n]);
  return *this;
}

void set_report_sink(ReportFn fn) { g_sink.store(fn, std::memory_order_release); }

void emit(const ReportLine& line) {
  if (line.empty()) return;
  int saved_errno = errno;  // a report inside free() must not change errno
  char buf[ReportLine::kCapacity + 2];
  size_t n = 0;
  for (const char* p = line.c_str(); *p != '\0'; ++p) buf[n++] = *p;
  buf[n++] = '\n';
  write_all(STDERR_FILENO, buf, n);
  if (ReportFn fn = g_sink.load(std::memory_order_acquire)) fn(line.c_str());
  errno = saved_errno;
}

}  // namespace openhtp::dsp_heap
