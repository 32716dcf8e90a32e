#include "common/openmp_places.h"

#include "common/cpu_mask.h"

#include <dlfcn.h>

#include <algorithm>

namespace openhtp {

std::vector<int> openmp_place_cpus() {
  // OpenMP 4.5's place queries, from the OpenMP runtime the process has
  // loaded, if any: asked of the library itself (RTLD_NOLOAD), since a
  // client that dlopens libQnnHtp keeps its dependencies out of the global
  // scope that RTLD_DEFAULT searches.
  std::vector<int> cpus;
  void* omp = nullptr;
  for (const char* name : {"libgomp.so.1", "libomp.so", "libomp.so.5"}) {
    if ((omp = dlopen(name, RTLD_LAZY | RTLD_NOLOAD)) != nullptr) break;
  }
  if (omp == nullptr) return cpus;
  using Count = int (*)();
  using Procs = int (*)(int);
  using Ids = void (*)(int, int*);
  const auto num_places = reinterpret_cast<Count>(dlsym(omp, "omp_get_num_places"));
  const auto num_procs = reinterpret_cast<Procs>(dlsym(omp, "omp_get_place_num_procs"));
  const auto proc_ids = reinterpret_cast<Ids>(dlsym(omp, "omp_get_place_proc_ids"));
  if (num_places == nullptr || num_procs == nullptr || proc_ids == nullptr) {
    dlclose(omp);
    return cpus;
  }
  const int places = num_places();
  for (int p = 0; p < places; ++p) {
    std::vector<int> ids(static_cast<size_t>(std::max(num_procs(p), 0)));
    if (!ids.empty()) proc_ids(p, ids.data());
    cpus.insert(cpus.end(), ids.begin(), ids.end());
  }
  dlclose(omp);  // the reference RTLD_NOLOAD took; the library stays
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

bool widen_to_openmp_places() { return set_calling_thread_cpus(openmp_place_cpus()); }

}  // namespace openhtp
