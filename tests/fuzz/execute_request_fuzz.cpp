// The DSP's execute-request decoder (ipc/htp_protocol.h, decode_execute)
// under a bounded mutation fuzzer in every test run, under ASan in the
// sanitizer pass. Seeds are real encodings (client buffers, memory handles,
// packed buffers); mutations hit the request bytes and the call's buffer
// counts and lengths. The oracle: a decode that succeeds hands out only
// memory inside the call's own argument buffers, each tensor's range inside
// one argument, and a refused one says why; a decoding kept from call to
// call (as the skel keeps it) gives what a fresh one gives.
//   fuzz_execute_request [seconds] [seed]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ipc/htp_protocol.h"

namespace wire = openhtp::ipc::htp_wire;
using openhtp::htp::ExecBinding;

namespace {

constexpr size_t kMaxArgs = 520;  // the most a call can carry: 255 buffers each way + handles

struct Seed {
  std::vector<uint8_t> request;
  std::vector<size_t> arg_sizes;  // of args 1..n-1 (arg 0 is the request, the last the status)
  uint32_t n_in = 0, n_out = 0;
  uint32_t attrs = 0;  // the call's method attributes (kAttrTimed; kAttrCompactExec for an all-memory-handle seed)
};

Seed seed(uint32_t raw_in, uint32_t mem_in, uint32_t raw_out, uint32_t mem_out) {
  static std::vector<float> data(4096);
  std::vector<ExecBinding> ins, outs;
  uint32_t id = 1;
  for (uint32_t i = 0; i < raw_in; ++i) ins.push_back({id++, 0, &data[i % data.size()], 8});
  for (uint32_t i = 0; i < mem_in; ++i) ins.push_back({id++, 100 + i, nullptr, 0});
  for (uint32_t i = 0; i < raw_out; ++i) outs.push_back({id++, 0, &data[i % data.size()], 12});
  for (uint32_t i = 0; i < mem_out; ++i) outs.push_back({id++, 200 + i, nullptr, 0});
  wire::WireStatus st;
  wire::ExecEncoding enc;
  std::string why;
  if (!wire::encode_execute(7, ins, outs, openhtp::htp::ExecTiming::kMeasure, &st, &enc, &why)) {
    std::fprintf(stderr, "seed does not encode: %s\n", why.c_str());
    std::exit(2);
  }
  Seed s;
  s.request = enc.request;
  s.n_in = REMOTE_SCALARS_INBUFS(enc.sc);
  s.n_out = REMOTE_SCALARS_OUTBUFS(enc.sc);
  s.attrs = REMOTE_SCALARS_METHOD_ATTR(enc.sc);
  for (uint32_t a = 1; a + 1 < s.n_in + s.n_out; ++a) s.arg_sizes.push_back(enc.args[a].buf.nLen);
  return s;
}

// Decodes one call; returns false when the oracle fails.
bool check(const std::vector<uint8_t>& request, uint32_t n_in, uint32_t n_out, uint32_t attrs,
           const std::vector<size_t>& sizes, wire::ExecDecoding* dec, bool* decoded) {
  *decoded = false;
  std::vector<std::vector<uint8_t>> bufs;
  std::vector<remote_arg> args(n_in + n_out);
  args[0].buf = {const_cast<uint8_t*>(request.data()), request.size()};
  for (uint32_t a = 1; a + 1 < n_in + n_out; ++a) {
    bufs.emplace_back(a - 1 < sizes.size() ? sizes[a - 1] : 0);
    args[a].buf = {bufs.back().data(), bufs.back().size()};
  }
  wire::WireStatus st;
  args.back().buf = {&st, sizeof st};
  const uint32_t sc = REMOTE_SCALARS_MAKEX(attrs, wire::kGraphExecute, n_in, n_out, 0, 0);
  std::string why;
  // `dec` is kept across calls as the skel keeps it (a repeated compact
  // request reuses its decoding): it must answer as a fresh one does.
  wire::ExecDecoding fresh;
  std::string fresh_why;
  const bool fresh_ok = wire::decode_execute(sc, args.data(), &fresh, &fresh_why);
  if (!wire::decode_execute(sc, args.data(), dec, &why)) return !fresh_ok && !why.empty();
  if (!fresh_ok || fresh.graph_id != dec->graph_id || fresh.inputs != dec->inputs || fresh.outputs != dec->outputs) {
    return false;
  }
  *decoded = true;
  const bool timed = (attrs & wire::kAttrTimed) != 0;
  if (dec->timing != (timed ? openhtp::htp::ExecTiming::kMeasure : openhtp::htp::ExecTiming::kSkip)) return false;
  auto inside_one_arg = [&](const ExecBinding& b, uint32_t lo, uint32_t hi) {
    if (b.mem_id != 0) return b.data == nullptr;
    for (uint32_t a = lo; a < hi; ++a) {
      const auto* base = static_cast<const uint8_t*>(args[a].buf.pv);
      const auto* p = static_cast<const uint8_t*>(b.data);
      if (p >= base && b.bytes <= args[a].buf.nLen && p - base <= static_cast<ptrdiff_t>(args[a].buf.nLen - b.bytes)) {
        return true;
      }
    }
    return false;
  };
  for (const auto& b : dec->inputs) {
    if (!inside_one_arg(b, 1, n_in)) return false;
  }
  for (const auto& b : dec->outputs) {
    if (!inside_one_arg(b, n_in, n_in + n_out - 1)) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  std::mt19937_64 rng(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1);
  const std::vector<Seed> seeds = {seed(2, 1, 1, 0), seed(0, 3, 0, 2), seed(5, 2, 4, 3), seed(300, 4, 260, 5)};
  if ((seeds[1].attrs & wire::kAttrCompactExec) == 0 || (seeds[0].attrs & wire::kAttrCompactExec) != 0) {
    std::fprintf(stderr, "the seeds do not cover both request forms\n");
    return 1;
  }
  wire::ExecDecoding dec;
  bool decoded = false;
  for (const auto& s : seeds) {
    if (!check(s.request, s.n_in, s.n_out, s.attrs, s.arg_sizes, &dec, &decoded) || !decoded) {
      std::fprintf(stderr, "a seed fails the oracle\n");
      return 1;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = 0, accepted = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const Seed& s = seeds[rng() % seeds.size()];
    std::vector<uint8_t> req = s.request;
    std::vector<size_t> sizes = s.arg_sizes;
    uint32_t n_in = s.n_in, n_out = s.n_out, attrs = s.attrs;
    const int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 9) {
        case 0: if (!req.empty()) req[rng() % req.size()] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
        case 1: if (!req.empty()) req[rng() % req.size()] = static_cast<uint8_t>(rng()); break;
        case 2: if (!req.empty()) req.resize(rng() % req.size()); break;
        case 3: {  // a field set to an edge value: 0, ~0, a small count
          if (req.size() >= 4) {
            const uint32_t v[] = {0u, ~0u, 1u, 255u, 256u, static_cast<uint32_t>(rng() % 64)};
            std::memcpy(&req[(rng() % (req.size() / 4)) * 4], &v[rng() % 6], 4);
          }
          break;
        }
        case 4: n_in = 1 + static_cast<uint32_t>(rng() % 6); break;
        case 5: n_out = 1 + static_cast<uint32_t>(rng() % 6); break;
        case 6: if (!sizes.empty()) sizes[rng() % sizes.size()] = rng() % 64; break;
        case 7: attrs ^= wire::kAttrCompactExec; break;  // one form's bytes read as the other's
        case 8: attrs ^= wire::kAttrTimed; break;
      }
    }
    if (n_in + n_out > kMaxArgs) continue;
    if (!check(req, n_in, n_out, attrs, sizes, &dec, &decoded)) {
      std::fprintf(stderr, "oracle failed after %llu runs (seed %llu)\n", static_cast<unsigned long long>(runs),
                   static_cast<unsigned long long>(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1));
      return 1;
    }
    ++runs;
    accepted += decoded ? 1 : 0;
  }
  std::printf("fuzz_execute_request: %llu mutated requests (%llu decoded, the rest refused), none broke the "
              "decoder's rules\n",
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(accepted));
  return runs > 0 ? 0 : 1;
}
