// Transpose of 1-, 2-, 4- and 8-byte elements (FLOAT_32, FLOAT_16, the
// 8/16-bit fixed-point and integer types, ...) as a blocked copy on the
// graph's pool. This XNNPACK (2022) has no transpose_nd operator, so the
// copy is ours; it lives with the XNNPACK paths because it follows their
// threading rules (xnnpack_elementwise.h). A transpose only moves bytes, so
// it is bit-exact; one that would requantize (input and output encodings
// differ) is the reference's.
//
// At prepare the permutation is simplified: size-1 axes are dropped and
// input axes that stay neighbours in the output are merged (NCHW -> NHWC of
// 1x3x224x224 becomes a 3 x 50176 -> 50176 x 3 matrix transpose). Then:
//   - the innermost input axis stays innermost: rows of contiguous bytes,
//     one memcpy each;
//   - otherwise: for each index of the other axes, a 2-D transpose between
//     the output axis that is contiguous in the input and the output's
//     innermost axis, in 32 x 32 blocks so both sides stay in cache lines;
//     when that innermost axis is 2-4 long and the output is one run (an
//     RGB image's NCHW -> NHWC), the planes are interleaved in one loop over
//     the whole share, the count fixed at compile time and the loop built
//     for the CPU's vector ISA (isa_level.h). 1x3x224x224, one thread
//     (bench_kernels transpose_nchw_to_nhwc): floats 75 -> 37 us as a
//     scalar loop in 32-pixel blocks, 33-45 -> 12 us vectorized; 8-bit 31
//     -> 2.8 us.
// The work splits into one contiguous share per thread (threads/shares.h)
// from kShareMinElems, as the other memory-bound passes do: the graph-edge
// transpose of a 1x3x224x224 image (150K elements) ran on one thread below
// the cheap loops' 256K, and the first convolution, split by rows, then read
// half of its input from the other core's cache (both transposes and the
// convolution after them slower at two threads than at one).
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include "kernels/isa_level.h"
#include "kernels/parallel_tiles.h"
#include "kernels/xnnpack_elementwise.h"
#include "kernels/xnnpack_paths.h"

namespace openhtp::kernels::xnn {
namespace {

namespace dtype = ops::dtype;

constexpr size_t kMaxRank = 5;
constexpr size_t kBlock = 32;

// The axes outside the copied block(s): dims with source and destination
// strides (elements), walked as an odometer from any flat start index.
struct Outer {
  size_t rank = 0;
  std::array<size_t, kMaxRank> dims{}, src{}, dst{};
  size_t count = 1;

  // Offsets of flat outer index o.
  void offsets(size_t o, size_t* s, size_t* d) const {
    *s = *d = 0;
    for (size_t k = rank; k-- > 0;) {
      const size_t i = o % dims[k];
      o /= dims[k];
      *s += i * src[k];
      *d += i * dst[k];
    }
  }
};

// y[i * B + k] = plane k's element i (planes `plane` elements apart), for i
// in [a0, a1): B fixed, so the vectorizer sees one store stream of B-element
// groups. Built once per ISA level (isa_level.h).
template <typename T, size_t B>
__attribute__((always_inline)) inline void interleave_planes(const T* __restrict x, size_t plane, T* __restrict y,
                                                             size_t a0, size_t a1) {
  for (size_t i = a0; i < a1; ++i) {
    for (size_t k = 0; k < B; ++k) y[i * B + k] = x[k * plane + i];
  }
}
template <typename T, size_t B>
void interleave_baseline(const T* x, size_t plane, T* y, size_t a0, size_t a1) {
  interleave_planes<T, B>(x, plane, y, a0, a1);
}
template <typename T, size_t B>
__attribute__((target("avx2"))) void interleave_avx2(const T* x, size_t plane, T* y, size_t a0, size_t a1) {
  interleave_planes<T, B>(x, plane, y, a0, a1);
}
template <typename T, size_t B>
__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) void interleave_avx512(const T* x, size_t plane, T* y,
                                                                                       size_t a0, size_t a1) {
  interleave_planes<T, B>(x, plane, y, a0, a1);
}

template <typename T>
using InterleaveFn = void (*)(const T*, size_t, T*, size_t, size_t);

template <typename T, size_t B>
InterleaveFn<T> interleave_for_isa() {
  switch (isa_level()) {
    case IsaLevel::kAvx512: return &interleave_avx512<T, B>;
    case IsaLevel::kAvx2: return &interleave_avx2<T, B>;
    default: return &interleave_baseline<T, B>;
  }
}

// The interleave for b planes, or null where b is not 2-4.
template <typename T>
InterleaveFn<T> interleave_of(size_t b) {
  switch (b) {
    case 2: return interleave_for_isa<T, 2>();
    case 3: return interleave_for_isa<T, 3>();
    case 4: return interleave_for_isa<T, 4>();
    default: return nullptr;
  }
}

template <typename T>
class TransposeKernel final : public ops::OpKernel {
 public:
  // rows_: contiguous row length (case A), or 0 for the 2-D case with
  // a_ (input-contiguous axis: length, destination stride) and
  // b_ (output-innermost axis: length, source stride).
  TransposeKernel(const Outer& outer, size_t row, size_t a, size_t a_dst, size_t b, size_t b_src, pthreadpool_t pool)
      : outer_(outer), row_(row), a_(a), a_dst_(a_dst), b_(b), b_src_(b_src), pool_(pool) {
    a_blocks_ = row_ == 0 ? (a_ + kBlock - 1) / kBlock : 1;
    const size_t unit = row_ != 0 ? row_ : kBlock * b_;  // elements per task unit
    min_units_ = std::max<size_t>(1, kShareMinElems / unit);
    // A few planes interleaved (NCHW -> NHWC of an RGB image: b_ = 3): the
    // output is one contiguous run, the planes are read in step.
    if (row_ == 0 && a_dst_ == b_) interleave_ = interleave_of<T>(b_);
  }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    x_ = static_cast<const T*>(in[0]);
    y_ = static_cast<T*>(out[0]);
    const size_t units = outer_.count * a_blocks_;
    auto body = [this](size_t start, size_t count) {
      if (row_ != 0) {
        rows(start, count);
      } else if (interleave_ != nullptr) {
        interleaved(start, count);
      } else {
        blocks(start, count);
      }
    };
    run_in_shares(pool_, units, min_units_, body);
  }

 private:
  void rows(size_t start, size_t count) const {
    for (size_t o = start; o < start + count; ++o) {
      size_t s, d;
      outer_.offsets(o, &s, &d);
      std::memcpy(y_ + d, x_ + s, row_ * sizeof(T));
    }
  }

  void blocks(size_t start, size_t count) const {
    for (size_t u = start; u < start + count; ++u) {
      size_t s, d;
      outer_.offsets(u / a_blocks_, &s, &d);
      const size_t a0 = (u % a_blocks_) * kBlock;
      const size_t a1 = std::min(a_, a0 + kBlock);
      const T* x = x_ + s;
      T* y = y_ + d;
      for (size_t b0 = 0; b0 < b_; b0 += kBlock) {
        const size_t b1 = std::min(b_, b0 + kBlock);
        for (size_t ai = a0; ai < a1; ++ai) {
          T* yrow = y + ai * a_dst_;
          const T* xcol = x + ai;
          for (size_t bi = b0; bi < b1; ++bi) yrow[bi] = xcol[bi * b_src_];
        }
      }
    }
  }

  // Units [start, start + count) as one interleave call per outer index:
  // the blocks of one outer index are one contiguous range of pixels.
  void interleaved(size_t start, size_t count) const {
    const size_t end = start + count;
    for (size_t u = start; u < end;) {
      const size_t o = u / a_blocks_;
      const size_t last = std::min(end, (o + 1) * a_blocks_);
      size_t s, d;
      outer_.offsets(o, &s, &d);
      const size_t a0 = (u - o * a_blocks_) * kBlock;
      const size_t a1 = std::min(a_, (last - o * a_blocks_) * kBlock);
      interleave_(x_ + s, b_src_, y_ + d, a0, a1);
      u = last;
    }
  }

  Outer outer_;
  size_t row_, a_, a_dst_, b_, b_src_;
  size_t a_blocks_ = 1, min_units_ = 1;
  InterleaveFn<T> interleave_ = nullptr;
  pthreadpool_t pool_;
  const T* x_ = nullptr;  // valid during run() only
  T* y_ = nullptr;
};

bool same_encoding(const ops::TensorDesc& x, const ops::TensorDesc& y) {
  if (x.dtype != y.dtype || x.quant.present != y.quant.present) return false;
  if (!x.quant.present) return true;
  if (x.quant.per_channel() || y.quant.per_channel()) return false;
  return x.quant.scale == y.quant.scale && x.quant.offset == y.quant.offset;
}

template <typename T>
std::unique_ptr<ops::OpKernel> make(const Outer& outer, size_t row, size_t a, size_t a_dst, size_t b, size_t b_src,
                                    pthreadpool_t pool) {
  return std::make_unique<TransposeKernel<T>>(outer, row, a, a_dst, b, b_src, pool);
}

}  // namespace

bool prepare_transpose(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  const size_t elem = dtype::element_size(x.dtype);
  if (!x.present || !same_encoding(x, y) || x.dims.empty() || x.dims.size() > kMaxRank) return false;
  if (elem != 1 && elem != 2 && elem != 4 && elem != 8) return false;
  const size_t rank = x.dims.size();
  const ops::Param* p = node.find_param("perm");
  if (p == nullptr || !p->is_tensor || p->data.size() != rank * 4) return false;
  std::array<uint32_t, kMaxRank> perm{};
  std::memcpy(perm.data(), p->data.data(), rank * 4);

  // Simplify: keep input axes longer than 1, in output order, then merge
  // runs of consecutive input axes.
  std::array<size_t, kMaxRank> in_dims{};  // merged input axes, input order
  std::array<size_t, kMaxRank> out_of{};   // output position k -> merged input axis
  std::array<uint32_t, kMaxRank> kept{};   // original input axes, output order
  size_t nk = 0;
  for (size_t k = 0; k < rank; ++k) {
    if (x.dims[perm[k]] > 1) kept[nk++] = perm[k];
  }
  // Groups in output order: a new group starts unless the input axis
  // follows the previous one (size-1 axes between them do not matter).
  std::array<uint32_t, kMaxRank> group_first{}, group_last{};
  size_t ng = 0;
  for (size_t k = 0; k < nk; ++k) {
    bool follows = false;
    if (ng > 0) {
      follows = true;
      for (uint32_t i = group_last[ng - 1] + 1; i < kept[k]; ++i) follows = follows && x.dims[i] == 1;
      follows = follows && kept[k] > group_last[ng - 1];
    }
    if (follows) {
      group_last[ng - 1] = kept[k];
    } else {
      group_first[ng] = group_last[ng] = kept[k];
      ++ng;
    }
  }
  // Merged input axis of each group: its rank among the groups' first axes.
  for (size_t g = 0; g < ng; ++g) {
    size_t r = 0;
    for (size_t h = 0; h < ng; ++h) r += group_first[h] < group_first[g];
    out_of[g] = r;
    size_t len = 1;
    for (uint32_t i = group_first[g]; i <= group_last[g]; ++i) len *= x.dims[i];
    in_dims[r] = len;
  }
  std::array<size_t, kMaxRank> in_stride{}, out_dims{}, out_stride{};
  size_t s = 1;
  for (size_t r = ng; r-- > 0;) {
    in_stride[r] = s;
    s *= in_dims[r];
  }
  s = 1;
  for (size_t k = ng; k-- > 0;) {
    out_dims[k] = in_dims[out_of[k]];
    out_stride[k] = s;
    s *= out_dims[k];
  }

  const size_t n = x.num_elements();
  pthreadpool_t pool = elementwise_pool(node, n, kShareMinElems);
  Outer outer;
  size_t row = 0, a = 0, a_dst = 0, b = 0, b_src = 0;
  if (ng <= 1 || out_of[ng - 1] == ng - 1) {
    // Rows: the last group is contiguous on both sides.
    row = ng == 0 ? 1 : out_dims[ng - 1];
    for (size_t k = 0; k + 1 < ng; ++k) {
      outer.dims[outer.rank] = out_dims[k];
      outer.src[outer.rank] = in_stride[out_of[k]];
      outer.dst[outer.rank] = out_stride[k];
      outer.count *= out_dims[k];
      ++outer.rank;
    }
  } else {
    size_t kin = 0;
    while (out_of[kin] != ng - 1) ++kin;
    a = out_dims[kin];
    a_dst = out_stride[kin];
    b = out_dims[ng - 1];
    b_src = in_stride[out_of[ng - 1]];
    for (size_t k = 0; k + 1 < ng; ++k) {
      if (k == kin) continue;
      outer.dims[outer.rank] = out_dims[k];
      outer.src[outer.rank] = in_stride[out_of[k]];
      outer.dst[outer.rank] = out_stride[k];
      outer.count *= out_dims[k];
      ++outer.rank;
    }
  }
  switch (elem) {
    case 1: *kernel = make<uint8_t>(outer, row, a, a_dst, b, b_src, pool); break;
    case 2: *kernel = make<uint16_t>(outer, row, a, a_dst, b, b_src, pool); break;
    case 4: *kernel = make<uint32_t>(outer, row, a, a_dst, b, b_src, pool); break;
    default: *kernel = make<uint64_t>(outer, row, a, a_dst, b, b_src, pool); break;
  }
  return true;
}

}  // namespace openhtp::kernels::xnn
