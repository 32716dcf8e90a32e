// widen_to_openmp_places (common/openmp_places.h), in a process libgomp loaded into with
// OMP_PROC_BIND=true (OPENHTP_EXPECT_PLACES 1; CTest sets the variable, since
// libgomp reads it before main) and in one without (0).
#include "common/openmp_places.h"
#include "common/cpu_mask.h"

#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <vector>

namespace openhtp {
namespace {

#if OPENHTP_EXPECT_PLACES

TEST(OpenMpPlaces, BindingNarrowsTheFirstThreadAndWideningUndoesIt) {
  const std::vector<int> places = openmp_place_cpus();
  ASSERT_FALSE(places.empty()) << "OMP_PROC_BIND=true makes places of the process's CPUs";
  // libgomp bound this (the initial) thread to the first place as it loaded.
  std::vector<int> first(static_cast<size_t>(omp_get_place_num_procs(0)));
  omp_get_place_proc_ids(0, first.data());
  EXPECT_EQ(calling_thread_cpus(), first);
  ASSERT_TRUE(widen_to_openmp_places());
  EXPECT_EQ(calling_thread_cpus(), places);
  // What a re-executed program inherits: a child forked now starts with it.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  if (child == 0) {
    const std::vector<int> m = calling_thread_cpus();
    const int n = static_cast<int>(m.size());
    (void)!write(fds[1], &n, sizeof n);
    _exit(0);
  }
  int n = -1;
  ASSERT_EQ(read(fds[0], &n, sizeof n), static_cast<ssize_t>(sizeof n));
  EXPECT_EQ(n, static_cast<int>(places.size()));
  close(fds[0]);
  close(fds[1]);
}

#else

TEST(OpenMpPlaces, NoPlacesNoChange) {
  const std::vector<int> before = calling_thread_cpus();
  EXPECT_TRUE(openmp_place_cpus().empty());
  EXPECT_FALSE(widen_to_openmp_places());
  EXPECT_EQ(calling_thread_cpus(), before);
}

#endif

}  // namespace
}  // namespace openhtp
