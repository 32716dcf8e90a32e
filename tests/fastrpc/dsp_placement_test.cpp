// The DSP process's CPUs when the client binds its OpenMP threads: this test
// links libgomp, which (OMP_PROC_BIND=true, set by CTest: it is read as the
// library loads) binds the test's main thread to its first place before
// main. The DSP process started from that thread must get every CPU of the
// client's places and none of the client's binding variables
// (fastrpc/dsp_session.cpp, common/openmp_places.h), and the client's thread
// its own mask back. Across the real process boundary: /proc of the DSP
// process.
#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/openmp_places.h"
#include "common/cpu_mask.h"
#include "openhtp/fastrpc_ext.h"
#include "remote.h"
#include "test_skel_methods.h"

namespace {

// "0-1,4" -> {0, 1, 4}
std::vector<int> parse_cpu_list(const std::string& list) {
  std::vector<int> cpus;
  std::stringstream in(list);
  for (std::string range; std::getline(in, range, ',');) {
    const size_t dash = range.find('-');
    const int lo = std::stoi(range.substr(0, dash));
    const int hi = dash == std::string::npos ? lo : std::stoi(range.substr(dash + 1));
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  return cpus;
}

std::string status_field(int pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) {
      const size_t start = line.find_first_not_of(" \t", field.size() + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "";
}

std::vector<std::string> environment_of(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  std::vector<std::string> vars;
  for (std::string v; std::getline(in, v, '\0');) vars.push_back(v);
  return vars;
}

TEST(DspPlacement, TheClientsOpenMpBindingStaysInTheClient) {
  const std::vector<int> places = openhtp::openmp_place_cpus();
  ASSERT_FALSE(places.empty()) << "OMP_PROC_BIND=true makes places of the test's CPUs";
  std::vector<int> first(static_cast<size_t>(omp_get_place_num_procs(0)));
  omp_get_place_proc_ids(0, first.data());
  const std::vector<int> bound = openhtp::calling_thread_cpus();
  ASSERT_EQ(bound, first) << "libgomp bound this thread to its first place as it loaded";

  remote_handle64 h = 0;
  ASSERT_EQ(remote_handle64_open(kTestSkelUri, &h), 0);
  const int dsp = openhtp_fastrpc_dsp_pid();
  ASSERT_GT(dsp, 0);
  EXPECT_EQ(parse_cpu_list(status_field(dsp, "Cpus_allowed_list")), places)
      << "the DSP process starts on every CPU of the client's places";
  for (const std::string& v : environment_of(dsp)) {
    EXPECT_NE(v.rfind("OMP_PROC_BIND=", 0), 0u) << v;
    EXPECT_NE(v.rfind("OMP_PLACES=", 0), 0u) << v;
    EXPECT_NE(v.rfind("GOMP_CPU_AFFINITY=", 0), 0u) << v;
  }
  EXPECT_EQ(openhtp::calling_thread_cpus(), bound) << "the client's thread keeps its own binding";
  EXPECT_EQ(remote_handle64_close(h), 0);
}

}  // namespace
