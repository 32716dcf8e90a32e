// openhtp-cdsp: the emulated compute DSP. One process per client process,
// started by libcdsprpc on first use; see src/ipc/call_protocol.h.
#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "common/openmp_policy.h"
#include "dsp/client_channel.h"
#include "ipc/call_protocol.h"

int main(int argc, char** argv) {
  int control_fd = openhtp::ipc::kDspControlFd;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--control-fd") == 0) control_fd = std::atoi(argv[i + 1]);
  }
  // A terminal's Ctrl-C reaches the whole process group; the client decides
  // when we stop (by going away), so ignore it and let EOF end us.
  signal(SIGINT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  // Reachable only by its client (docs/design.md §1): not dumpable, so that
  // another process of the same user cannot ptrace it or take its fds and
  // sockets through /proc or pidfd_getfd; and no new privileges for anything
  // it runs. The client process is left as its owner set it.
  // OPENHTP_DSP_DUMPABLE=1 keeps it dumpable, to attach a debugger or read
  // its /proc memory figures without privileges (bench_memory does).
  const char* dumpable = std::getenv("OPENHTP_DSP_DUMPABLE");
  if (dumpable == nullptr || std::strcmp(dumpable, "1") != 0) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  openhtp::prefer_openmp_spin_then_sleep();  // before any skel (and so libgomp) is loaded
  // The DSP process holds large transient buffers (a decoded context binary's
  // weights before they move into an external buffer). glibc's adaptive mmap
  // threshold would keep such a freed block in the heap as private memory;
  // a fixed threshold returns every large block to the system when freed.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  openhtp::dsp::ClientChannel channel(control_fd);
  return channel.run();
}
