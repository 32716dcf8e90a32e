// A feature's switch in the environment, kept for comparisons
// (OPENHTP_FUSION, OPENHTP_THREAD_TEAMS, OPENHTP_SHARE_CHAINS): on unless the
// variable says "off". Each caller reads its own once, into a static.
#pragma once

#include <cstdlib>
#include <cstring>

namespace openhtp {

inline bool env_switch_on(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr || std::strcmp(v, "off") != 0;
}

}  // namespace openhtp
