// File descriptors across the process boundary: SCM_RIGHTS over a Unix
// SOCK_SEQPACKET socket. Only fds travel this way; call data goes through
// shared memory (see call_protocol.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace openhtp::ipc {

inline constexpr size_t kMaxFdsPerMessage = 64;

// Sends `len` bytes and `fds` in one message. Returns 0 or -errno.
int send_with_fds(int sock, const void* data, size_t len, const int* fds, size_t nfds);

// Receives one message: up to `cap` bytes into `data`, fds appended to `fds`
// (marked close-on-exec). Returns bytes received, 0 on EOF, or -errno.
long recv_with_fds(int sock, void* data, size_t cap, std::vector<int>* fds);

}  // namespace openhtp::ipc
