#include "kernels/lookup_table.h"

#include <immintrin.h>
#include <pthreadpool.h>

#include <cstring>
#include <vector>

#include "kernels/parallel_tiles.h"
#include "ops/quant.h"

namespace openhtp::kernels::lut {
namespace {

namespace dtype = ops::dtype;

// A table lookup splits into one share per thread from kShareMinElems
// (parallel_tiles.h). It was 128K-element tiles from 256K elements, which
// left most of EfficientNet-B0's lookups on one thread reading half their
// input from the other core's cache.

// y[i] = table[x[i]] for a 256-byte table, 64 elements per step with
// AVX-512 VBMI: two 128-byte permutes (vpermi2b on the index's low 7 bits,
// one per table half) and a blend on the index's top bit. The scalar loop is
// a load per element (~1 ns); this is memory-bound. Runtime-dispatched:
// the build's baseline is SSE2.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookup_vbmi(const uint8_t* table, const uint8_t* x,
                                                                         uint8_t* y, size_t n) {
  const __m512i t0 = _mm512_loadu_si512(table);
  const __m512i t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128);
  const __m512i t3 = _mm512_loadu_si512(table + 192);
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i idx = _mm512_loadu_si512(x + i);
    const __m512i lo = _mm512_permutex2var_epi8(t0, idx, t1);  // table[idx & 127]
    const __m512i hi = _mm512_permutex2var_epi8(t2, idx, t3);  // table[128 + (idx & 127)]
    _mm512_storeu_si512(y + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi));
  }
  if (i < n) {  // the tail with masked loads and stores: no read past x + n
    const __mmask64 m = ~__mmask64{0} >> (64 - (n - i));
    const __m512i idx = _mm512_maskz_loadu_epi8(m, x + i);
    const __m512i lo = _mm512_permutex2var_epi8(t0, idx, t1);
    const __m512i hi = _mm512_permutex2var_epi8(t2, idx, t3);
    _mm512_mask_storeu_epi8(y + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), lo, hi));
  }
}

bool have_vbmi() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  }();
  return yes;
}

// y[i] = table[x[i]]: `in_bytes`-wide codes (1: 256 entries, 2: 65536),
// entries of out_bytes each.
class LookupKernel final : public ops::OpKernel {
 public:
  LookupKernel(std::vector<uint8_t> table, size_t in_bytes, size_t out_bytes, size_t n, pthreadpool* pool)
      : table_(std::move(table)), in_bytes_(in_bytes), out_bytes_(out_bytes), n_(n), pool_(pool) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    x_ = static_cast<const uint8_t*>(in[0]);
    y_ = static_cast<uint8_t*>(out[0]);
    auto body = [this](size_t start, size_t count) { apply(start, count); };
    run_in_shares(pool_, n_, kShareMinElems, body);
  }

 private:
  void apply(size_t start, size_t count) const {
    const uint8_t* table = table_.data();  // a local: y may alias anything, the table must stay in a register
    uint8_t* y = y_ + start * out_bytes_;
    auto entries = [&](const auto* x) {  // entries of any width, one memcpy each
      for (size_t i = 0; i < count; ++i) std::memcpy(y + i * out_bytes_, table + size_t{x[i]} * out_bytes_, out_bytes_);
    };
    if (in_bytes_ == 2) {
      const uint16_t* x = reinterpret_cast<const uint16_t*>(x_) + start;
      if (out_bytes_ == 2) {
        lookup_halves(reinterpret_cast<const uint16_t*>(table), x, reinterpret_cast<uint16_t*>(y), count);
      } else {
        entries(x);
      }
      return;
    }
    const uint8_t* x = x_ + start;
    if (out_bytes_ == 1) {
      lookup_bytes(table, x, y, count);
    } else {
      entries(x);
    }
  }

  std::vector<uint8_t> table_;  // (1 << 8 * in_bytes_) entries of out_bytes_ each
  size_t in_bytes_, out_bytes_, n_;
  pthreadpool* pool_;
  const uint8_t* x_ = nullptr;  // valid during run() only
  uint8_t* y_ = nullptr;
};

bool is_8bit_quantized(const ops::TensorDesc& t) {
  return (t.dtype == dtype::kUfixed8 || t.dtype == dtype::kSfixed8) && t.quant.present && !t.quant.per_channel();
}

// FLOAT_16, or 16-bit fixed point with one encoding: 65536 possible inputs.
bool is_16bit_table_input(const ops::TensorDesc& t) {
  if (t.dtype == dtype::kFloat16) return true;
  return (t.dtype == dtype::kUfixed16 || t.dtype == dtype::kSfixed16) && t.quant.present && !t.quant.per_channel();
}

// The reference's answers for `node` over every code of its input: the
// same node on a tensor of all 2^(8 in_bytes) codes, prepared and run by the
// reference kernel (through the type adapter), `table` its output.
bool reference_answers(const ops::NodeDesc& node, size_t in_bytes, std::vector<uint8_t>* table) {
  const size_t codes_n = size_t{1} << (8 * in_bytes);
  const size_t out_bytes = dtype::element_size(node.outputs[0].dtype);
  ops::TensorDesc xs = node.inputs[0], ys = node.outputs[0];
  xs.dims = {static_cast<uint32_t>(codes_n)};
  ys.dims = {static_cast<uint32_t>(codes_n)};
  xs.planned = ys.planned = false;
  xs.static_data = nullptr;
  const ops::TensorDesc ins[] = {xs};
  const ops::TensorDesc outs[] = {ys};
  const ops::NodeDesc probe{node.name, node.type, ins, outs, node.params, nullptr};
  std::unique_ptr<ops::OpKernel> reference;
  if (!ops::prepare_reference(probe, &reference).ok() || !reference) return false;
  std::vector<uint8_t> codes(codes_n * in_bytes);
  for (size_t i = 0; i < codes_n; ++i) {
    if (in_bytes == 1) {
      codes[i] = static_cast<uint8_t>(i);
    } else {
      const uint16_t c = static_cast<uint16_t>(i);
      std::memcpy(&codes[2 * i], &c, 2);
    }
  }
  table->assign(codes_n * out_bytes, 0);
  const void* in_ptrs[] = {codes.data()};
  void* out_ptrs[] = {table->data()};
  reference->run(in_ptrs, out_ptrs);
  return true;
}

}  // namespace

bool prepare_unary(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  if (!x.present || y.quant.per_channel() || y.dims != x.dims) return false;
  const size_t out_bytes = dtype::element_size(y.dtype);
  if (out_bytes == 0 || out_bytes > 4) return false;
  size_t in_bytes = 0;
  if (is_8bit_quantized(x)) {
    in_bytes = 1;
  } else if (is_16bit_table_input(x) && x.num_elements() >= kMin16BitTableElems) {
    in_bytes = 2;
  } else {
    return false;
  }
  std::vector<uint8_t> table;
  if (!reference_answers(node, in_bytes, &table)) return false;
  *kernel = std::make_unique<LookupKernel>(std::move(table), in_bytes, out_bytes, x.num_elements(), graph_pool(node));
  return true;
}

namespace {

// The chain's answers over the 256 codes of its input x (table, 256 entries
// of the last link's output element), and x; false when it cannot be made.
bool chain_answers(std::span<const ops::ChainLink> chain, std::vector<uint8_t>* table, const ops::TensorDesc** input) {
  if (chain.empty()) return false;
  // The chain's input: the first source -1 found (every link reads only it
  // and earlier links, htp/fusion.cpp).
  const ops::TensorDesc* x = nullptr;
  for (const ops::ChainLink& l : chain) {
    if (l.sources.size() != l.node.inputs.size()) return false;
    for (size_t k = 0; k < l.sources.size(); ++k) {
      if (l.sources[k] == -1 && x == nullptr) x = &l.node.inputs[k];
    }
  }
  const ops::NodeDesc& last = chain.back().node;
  if (x == nullptr || !is_8bit_quantized(*x) || last.outputs.size() != 1) return false;
  const ops::TensorDesc& y = last.outputs[0];
  const size_t out_bytes = dtype::element_size(y.dtype);
  if (y.quant.per_channel() || y.dims != x->dims || out_bytes == 0 || out_bytes > 4) return false;

  std::vector<uint8_t> codes(256);
  for (size_t i = 0; i < 256; ++i) codes[i] = static_cast<uint8_t>(i);
  // answers[j]: link j's output over the 256 codes.
  std::vector<std::vector<uint8_t>> answers(chain.size());
  for (size_t j = 0; j < chain.size(); ++j) {
    const ops::ChainLink& l = chain[j];
    if (l.node.outputs.size() != 1) return false;
    std::vector<ops::TensorDesc> ins(l.node.inputs.begin(), l.node.inputs.end());
    std::vector<const void*> in_ptrs;
    for (size_t k = 0; k < ins.size(); ++k) {
      const int src = l.sources[k];
      ins[k].planned = false;
      if (src == ops::kChainStatic) {  // one element, broadcast by the op itself
        if (ins[k].static_data == nullptr || ins[k].num_elements() != 1) return false;
        in_ptrs.push_back(ins[k].static_data);
        continue;
      }
      if (src < -1 || src >= static_cast<int>(j)) return false;
      ins[k].dims = {256};
      ins[k].static_data = nullptr;
      in_ptrs.push_back(src == -1 ? codes.data() : answers[src].data());
    }
    ops::TensorDesc out = l.node.outputs[0];
    out.dims = {256};
    out.planned = false;
    const size_t bytes = dtype::element_size(out.dtype);
    if (bytes == 0) return false;
    answers[j].resize(256 * bytes);
    const ops::TensorDesc outs[] = {out};
    const ops::NodeDesc probe{l.node.name, l.node.type, ins, outs, l.node.params, nullptr};
    std::unique_ptr<ops::OpKernel> reference;
    if (!ops::prepare_reference(probe, &reference).ok() || !reference) return false;
    std::vector<uint8_t> ws(reference->workspace_bytes() + 64);
    if (reference->workspace_bytes() > 0) {
      reference->set_workspace(reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(ws.data()) + 63) & ~uintptr_t{63}));
    }
    void* out_ptrs[] = {answers[j].data()};
    reference->run(in_ptrs, out_ptrs);
  }
  *table = std::move(answers.back());
  *input = x;
  return true;
}

}  // namespace

bool prepare_chain(std::span<const ops::ChainLink> chain, const ops::KernelEnv& env,
                   std::unique_ptr<ops::OpKernel>* kernel) {
  std::vector<uint8_t> table;
  const ops::TensorDesc* x = nullptr;
  if (!chain_answers(chain, &table, &x)) return false;
  const size_t out_bytes = table.size() / 256;
  *kernel = std::make_unique<LookupKernel>(std::move(table), 1, out_bytes, x->num_elements(), env.pool);
  return true;
}

bool chain_table(std::span<const ops::ChainLink> chain, std::vector<uint8_t>* table) {
  const ops::TensorDesc* x = nullptr;
  return chain_answers(chain, table, &x) && table->size() == 256;
}

void lookup_bytes(const uint8_t* table, const uint8_t* x, uint8_t* y, size_t n) {
  if (have_vbmi()) {
    lookup_vbmi(table, x, y, n);
    return;
  }
  for (size_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

// A load per element, ~1 cycle: the 128 KiB table stays in L2. AVX-512
// gathers (16 lanes of 4 bytes at table + 2 * code) were slower here:
// 189-204 against 128-132 us for 451K elements.
void lookup_halves(const uint16_t* table, const uint16_t* x, uint16_t* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

void lookup_bytes_in_shares(pthreadpool_t pool, const uint8_t* table, uint8_t* y, size_t n) {
  auto body = [table, y](size_t start, size_t count) { lookup_bytes(table, y + start, y + start, count); };
  run_in_shares(pool, n, kShareMinElems, body);
}

}  // namespace openhtp::kernels::lut
