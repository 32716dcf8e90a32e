// A small program the interposer test runs under openhtp-dsp-run. It knows
// nothing of the DSP heap at build time (like a real Non-RPC program) and
// finds its API, if present, with dlsym(RTLD_DEFAULT) as libQnnHtp does.
//   heap_probe pointers     allocates every way a program does and prints
//                           "ptr <what> <address>" lines, "present <0|1>",
//                           "region <base> <size>" and "preload <LD_PRELOAD>"
//   heap_probe pinned-free  pins a block, frees it (one report line on
//                           stderr), unpins it
//   heap_probe bench <n>    n malloc/free pairs of mixed sizes; "bench <ops/s>"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <malloc.h>
#include <new>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "dsp_heap/dsp_heap.h"  // types only; the functions come from dlsym

namespace {

std::vector<std::pair<std::string, const void*>> g_pointers;

void note(const std::string& what, const void* p) { g_pointers.emplace_back(what, p); }

template <typename Fn>
Fn find(const char* name) {
  return reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, name));
}

struct alignas(64) CacheLine {
  char bytes[64];
};

int pointers() {
  void* m = std::malloc(100);
  note("malloc", m);
  note("malloc-0", std::malloc(0));
  note("malloc-big", std::malloc(64 << 20));
  note("calloc", std::calloc(10, 100));
  void* r = std::realloc(std::malloc(10), 100000);
  note("realloc-grow", r);
  note("realloc-shrink", std::realloc(r, 50));
  note("reallocarray", ::reallocarray(nullptr, 100, 8));
  void* pm = nullptr;
  if (::posix_memalign(&pm, 4096, 1000) == 0) note("posix_memalign-4096", pm);
  note("aligned_alloc-256", std::aligned_alloc(256, 512));
  note("memalign-128", ::memalign(128, 100));
  note("valloc", ::valloc(100));
  note("pvalloc", ::pvalloc(100));
  note("new", new int(7));
  note("new[]", new double[1000]);
  note("aligned-new-64", new CacheLine);
  note("aligned-new-65536", ::operator new(1000, std::align_val_t{65536}));
  auto* v = new std::vector<int>;
  for (int i = 0; i < 100000; ++i) v->push_back(i);
  note("vector-data", v->data());
  auto* s = new std::string;
  for (int i = 0; i < 10000; ++i) *s += 'x';
  note("string-data", s->data());
  note("strdup", ::strdup("a string"));
  std::printf("usable-ok %d\n", ::malloc_usable_size(m) >= 100 ? 1 : 0);

  std::vector<std::vector<std::pair<std::string, const void*>>> per_thread(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &per_thread] {
      std::string tag = "thread" + std::to_string(t) + "-";
      per_thread[t].emplace_back(tag + "malloc", std::malloc(1000 + t));
      auto* tv = new std::vector<long>(10000 * (t + 1));
      per_thread[t].emplace_back(tag + "vector", tv->data());
      per_thread[t].emplace_back(tag + "new", new char[333]);
    });
  }
  for (auto& th : threads) th.join();
  for (auto& list : per_thread) g_pointers.insert(g_pointers.end(), list.begin(), list.end());

  for (auto& [what, p] : g_pointers) std::printf("ptr %s %p\n", what.c_str(), p);
  auto present = find<int (*)()>("openhtp_dsp_heap_present");
  std::printf("present %d\n", present != nullptr ? present() : 0);
  if (auto stats = find<void (*)(openhtp_dsp_heap_stats_t*)>("openhtp_dsp_heap_stats")) {
    openhtp_dsp_heap_stats_t st{};
    stats(&st);
    std::printf("region 0x%llx 0x%llx\n", static_cast<unsigned long long>(st.region_base),
                static_cast<unsigned long long>(st.region_size));
  }
  const char* preload = std::getenv("LD_PRELOAD");
  std::printf("preload %s\n", preload != nullptr ? preload : "");
  return 0;
}

int pinned_free() {
  auto pin = find<int (*)(uint64_t, uint64_t, const char*, uint64_t*)>("openhtp_dsp_heap_pin");
  auto unpin = find<int (*)(uint64_t)>("openhtp_dsp_heap_unpin");
  if (pin == nullptr || unpin == nullptr) {
    std::fprintf(stderr, "heap_probe: no DSP heap in this process\n");
    return 3;
  }
  char* p = static_cast<char*>(std::malloc(4096));
  std::strcpy(p, "still here");
  uint64_t id = 0;
  if (pin(reinterpret_cast<uint64_t>(p), 4096, "context 0x3, QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER", &id) != 0) return 4;
  std::free(p);
  // Reading it after free() is the point: the heap keeps a pinned block.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuse-after-free"
  std::printf("after-free %s\n", p);
#pragma GCC diagnostic pop
  std::printf("unpinned %d\n", unpin(id));
  return 0;
}

int bench(long n) {
  std::mt19937 rng(7);
  std::vector<size_t> sizes(4096);
  for (auto& s : sizes) s = rng() % 8 == 0 ? 1 + rng() % 65536 : 1 + rng() % 512;
  std::vector<void*> slots(256, nullptr);
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < n; ++i) {
    void*& slot = slots[i & 255];
    std::free(slot);
    slot = std::malloc(sizes[i & 4095]);
    static_cast<char*>(slot)[0] = 1;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (void* p : slots) std::free(p);
  std::printf("bench %.0f\n", 2.0 * static_cast<double>(n) / seconds);  // a free and a malloc per step
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "pointers") return pointers();
  if (mode == "pinned-free") return pinned_free();
  if (mode == "bench" && argc > 2) return bench(std::atol(argv[2]));
  std::fprintf(stderr, "usage: heap_probe pointers | pinned-free | bench <n>\n");
  return 2;
}
