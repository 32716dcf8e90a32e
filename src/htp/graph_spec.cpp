#include "htp/graph_spec.h"

#include <cstdint>
#include <cstring>

namespace openhtp::htp {

size_t TensorSpec::num_bytes() const {
  // Saturating: a hostile shape's product must not wrap round to a small
  // size that passes every check (it is SIZE_MAX instead, which none does).
  if (sparse.is_sparse) return ops::sparse_storage_bytes(sparse, dims, ops::dtype::element_size(dtype));
  size_t n = ops::dtype::element_size(dtype);
  for (uint32_t d : dims) {
    if (d != 0 && n > SIZE_MAX / d) return SIZE_MAX;
    n *= d;
  }
  return n;
}

namespace {

// FNV-1a over 8-byte words (bytes for the tail): fast enough for weights of
// hundreds of MB, and only ever confirmed by a full compare.
struct Fnv {
  uint64_t h = 0xcbf29ce484222325ull;
  void word(uint64_t w) {
    h ^= w;
    h *= 0x100000001b3ull;
  }
  void bytes(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      word(w);
    }
    for (; i < n; ++i) word(p[i]);
    word(n);
  }
};

template <typename T>
bool same_array(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace

uint64_t static_content_hash(const TensorSpec& t, std::span<const uint8_t> bytes) {
  Fnv f;
  f.word(t.dtype);
  f.bytes(t.dims.data(), t.dims.size() * sizeof(uint32_t));
  f.word(t.quant.present);
  if (t.quant.present) {
    uint32_t scale;
    std::memcpy(&scale, &t.quant.scale, sizeof scale);
    f.word(scale);
    f.word(static_cast<uint32_t>(t.quant.offset));
    f.word(static_cast<uint32_t>(t.quant.axis));
    f.bytes(t.quant.scales.data(), t.quant.scales.size() * sizeof(float));
    f.bytes(t.quant.offsets.data(), t.quant.offsets.size() * sizeof(int32_t));
  }
  f.bytes(bytes.data(), bytes.size());
  return f.h;
}

bool same_static_meta(const TensorSpec& a, const TensorSpec& b) {
  if (a.dtype != b.dtype || a.dims != b.dims || a.quant.present != b.quant.present) return false;
  if (!a.quant.present) return true;
  return std::memcmp(&a.quant.scale, &b.quant.scale, sizeof(float)) == 0 && a.quant.offset == b.quant.offset &&
         a.quant.axis == b.quant.axis && same_array(a.quant.scales, b.quant.scales) &&
         same_array(a.quant.offsets, b.quant.offsets);
}

const TensorSpec* GraphSpec::find_tensor(uint32_t id) const {
  for (const auto& t : tensors) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

}  // namespace openhtp::htp
