// openhtp-dsp-run [--heap-mb N] [--] program [args...]
//
// Runs program with libopenhtp_dsp_malloc.so preloaded, so that its whole
// heap comes from the DSP heap's region below 4 GiB: every pointer it gets
// is a valid 32-bit QURT address, as on the DSP (docs/dsp-heap.md). The
// library is found relative to this executable (bin/ -> lib/dsp/), in the
// build tree and in an install alike.
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {

constexpr const char* kUsage =
    "usage: openhtp-dsp-run [--heap-mb N] [--] program [args...]\n"
    "Runs program with its malloc/new served from the DSP heap, below 4 GiB.\n"
    "  --version    print the version and exit\n"
    "  --heap-mb N  size of the heap's region in MiB (1..4080; default 2048,\n"
    "               or OPENHTP_DSP_HEAP_MB from the environment)\n";

constexpr long kMaxHeapMiB = 4080;  // src/dsp_heap/region.h

// The interposer beside this executable's libraries: <exe dir>/../lib/dsp/
// in the build tree, <exe dir>/../../lib/x86_64-linux-clang/dsp/ in the
// installed SDK layout (the flat bin/ entries are symlinks, and
// /proc/self/exe names the real file). "" when /proc/self/exe cannot be read.
std::string interposer_path() {
  char exe[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return {};
  std::string dir(exe, static_cast<size_t>(n));
  dir.erase(dir.rfind('/') + 1);
  std::string first;
  for (const char* rel : {"../lib/dsp/", "../../lib/x86_64-linux-clang/dsp/"}) {
    const std::string path = dir + rel + "libopenhtp_dsp_malloc.so";
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) != nullptr) return resolved;
    if (first.empty()) first = path;
  }
  return first;  // named in the error line
}

bool parse_mib(const char* s, long* out) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < 1 || v > kMaxHeapMiB) return false;
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int i = 1;
  long heap_mib = 0;
  for (; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    // Before the program: "openhtp-dsp-run prog --version" is prog's.
    if (arg == "--version") {
      std::printf("openhtp-dsp-run (openhtp %s)\n", OPENHTP_VERSION);
      return 0;
    }
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--heap-mb" || arg.rfind("--heap-mb=", 0) == 0) {
      const char* value = arg == "--heap-mb" ? (i + 1 < argc ? argv[++i] : "") : argv[i] + std::strlen("--heap-mb=");
      if (!parse_mib(value, &heap_mib)) {
        std::fprintf(stderr, "openhtp-dsp-run: --heap-mb needs a size in MiB from 1 to %ld, not '%s'\n", kMaxHeapMiB,
                     value);
        return 2;
      }
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "openhtp-dsp-run: unknown option %s\n%s", argv[i], kUsage);
      return 2;
    }
    break;
  }
  if (i >= argc) {
    std::fputs(kUsage, stderr);
    return 2;
  }

  std::string lib = interposer_path();
  if (lib.empty() || ::access(lib.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "openhtp-dsp-run: cannot find the DSP heap's malloc library (%s)\n",
                 lib.empty() ? "/proc/self/exe unreadable" : lib.c_str());
    return 127;
  }
  // ld.so splits LD_PRELOAD at spaces and colons: such a path cannot be given.
  if (lib.find_first_of(" :") != std::string::npos) {
    std::fprintf(stderr, "openhtp-dsp-run: the library path %s contains a space or ':', which LD_PRELOAD cannot carry\n",
                 lib.c_str());
    return 127;
  }
  // First, so that its malloc is the one every later object binds to;
  // earlier entries are kept behind it.
  std::string preload = lib;
  if (const char* old = std::getenv("LD_PRELOAD"); old != nullptr && *old != '\0') preload += std::string(":") + old;
  ::setenv("LD_PRELOAD", preload.c_str(), 1);
  if (heap_mib != 0) ::setenv("OPENHTP_DSP_HEAP_MB", std::to_string(heap_mib).c_str(), 1);

  ::execvp(argv[i], argv + i);
  std::fprintf(stderr, "openhtp-dsp-run: cannot run %s: %s\n", argv[i], std::strerror(errno));
  return 127;
}
