#include "kernels/float_reduce.h"

#include <pthreadpool.h>

#include <algorithm>
#include <vector>

#include "kernels/parallel_tiles.h"
#include "kernels/reduce_layout.h"
#include "ops/workspace.h"

namespace openhtp::kernels::f32 {

namespace {

// Work per pool task: summing is memory-bound (~1 ns per 4 floats), so a
// task reads at least this many bytes or the split costs more than it saves.
constexpr size_t kTaskBytes = size_t{256} << 10;
// A global pool is split into one share of rows per thread from this many
// bytes (see run()).
constexpr size_t kShareBytes = size_t{64} << 10;

// Columns a column-sum task accumulates at once: 64 floats, four AVX-512
// registers. Before, the sums lived in the output (which may alias the
// input as far as the compiler knows, so every row loaded and stored them):
// EfficientNet's 112x112x32 pool 90 us, 18 GB/s from cache (bench_kernels
// gap_f32_*).
constexpr size_t kColumns = 64;

// y[c] = scale * sum over r < rows of x[r * stride + c], c < N.
template <size_t N>
void column_sums(const float* x, size_t rows, size_t stride, float scale, float* y) {
  float acc[N] = {};
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x + r * stride;
    for (size_t c = 0; c < N; ++c) acc[c] += row[c];
  }
  for (size_t c = 0; c < N; ++c) y[c] = acc[c] * scale;
}

// The same for the last n < kColumns columns.
void column_sums_tail(const float* x, size_t rows, size_t stride, size_t n, float scale, float* y) {
  float acc[kColumns] = {};
  for (size_t r = 0; r < rows; ++r) {
    const float* row = x + r * stride;
    for (size_t c = 0; c < n; ++c) acc[c] += row[c];
  }
  for (size_t c = 0; c < n; ++c) y[c] = acc[c] * scale;
}

class ReduceMeanKernel final : public ops::OpKernel {
 public:
  ReduceMeanKernel(const ReduceLayout& l, pthreadpool_t pool) : l_(l), pool_(pool) {
    shares_ = threads::pool_threads(pool);
    if (l_.outer == 1 && l_.inner > 1 && shares_ > 1 && l_.reduced >= shares_) {
      ws_ = ops::Workspace(shares_ * l_.inner * sizeof(float));  // the partial sums
    }
  }
  size_t workspace_bytes() const override { return ws_.bytes(); }
  void set_workspace(void* memory) override { ws_.bind(memory); }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    x_ = static_cast<const float*>(in[0]);
    y_ = static_cast<float*>(out[0]);
    const float scale = 1.0f / static_cast<float>(l_.reduced);
    const size_t bytes = l_.outer * l_.reduced * l_.inner * sizeof(float);
    pthreadpool_t pool = bytes >= 2 * kTaskBytes ? pool_ : nullptr;
    if (l_.inner == 1) {
      // Rows of `reduced` contiguous values, one output each.
      const size_t rows_per_task = std::max<size_t>(1, kTaskBytes / (l_.reduced * sizeof(float)));
      auto body = [&](size_t start, size_t count) {
        for (size_t o = start; o < start + count; ++o) {
          const float* r = x_ + o * l_.reduced;
          // Eight partial sums keep the loop vectorized and the error small.
          float acc[8] = {};
          size_t i = 0;
          for (; i + 8 <= l_.reduced; i += 8) {
            for (size_t k = 0; k < 8; ++k) acc[k] += r[i + k];
          }
          float s = 0.0f;
          for (; i < l_.reduced; ++i) s += r[i];
          for (float a : acc) s += a;
          y_[o] = s * scale;
        }
      };
      run_tiles(pool, l_.outer, rows_per_task, body);
      return;
    }
    if (ws_.bytes() != 0 && bytes >= kShareBytes) {
      // A global pool on several threads: one share of rows per thread (the
      // shares a multi-threaded producer wrote, parallel_tiles.h), each
      // summed into its own partial row, then the partials added in thread
      // order. Splitting by column blocks instead made every thread read
      // every row: the half the other core wrote came from its cache, and
      // with C <= 64 there was one block, on one thread.
      float* partial = reinterpret_cast<float*>(ws_.data());
      const size_t n = l_.reduced, inner = l_.inner;
      auto share = [&](size_t start, size_t count) {
        for (size_t t = start; t < start + count; ++t) {
          const size_t r0 = n * t / shares_, r1 = n * (t + 1) / shares_;
          float* p = partial + t * inner;
          for (size_t c0 = 0; c0 < inner; c0 += kColumns) {
            if (c0 + kColumns <= inner) column_sums<kColumns>(x_ + r0 * inner + c0, r1 - r0, inner, 1.0f, p + c0);
            else column_sums_tail(x_ + r0 * inner + c0, r1 - r0, inner, inner - c0, 1.0f, p + c0);
          }
        }
      };
      parallel_tiles(pool_, shares_, 1, share);
      for (size_t c = 0; c < inner; ++c) {
        float s = 0.0f;
        for (size_t t = 0; t < shares_; ++t) s += partial[t * inner + c];
        y_[c] = s * scale;
      }
      return;
    }
    // [outer, reduced, inner]: inner columns accumulate row by row (a global
    // average pool over H, W of NHWC). Each task sums whole rows (so it reads
    // memory in order) into accumulators of kColumns columns held in
    // registers; split over (outer, column block).
    const size_t blocks = (l_.inner + kColumns - 1) / kColumns;
    auto body = [&](size_t start, size_t count) {
      for (size_t t = start; t < start + count; ++t) {
        const size_t o = t / blocks, c0 = (t % blocks) * kColumns;
        const float* x = x_ + o * l_.reduced * l_.inner + c0;
        float* y = y_ + o * l_.inner + c0;
        if (c0 + kColumns <= l_.inner) {
          column_sums<kColumns>(x, l_.reduced, l_.inner, scale, y);
        } else {
          column_sums_tail(x, l_.reduced, l_.inner, l_.inner - c0, scale, y);
        }
      }
    };
    run_tiles(pool, l_.outer * blocks, 1, body);
  }

 private:
  ReduceLayout l_;
  pthreadpool_t pool_;
  size_t shares_ = 1;
  ops::Workspace ws_;
  const float* x_ = nullptr;
  float* y_ = nullptr;
};

}  // namespace

bool prepare_reduce_mean(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1 || node.has_epilogue()) return false;
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& y = node.outputs[0];
  if (x.dtype != ops::dtype::kFloat32 || y.dtype != ops::dtype::kFloat32 || x.static_data != nullptr) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // validates axes, keep_dims, output dims
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  ReduceLayout l;
  if (!contiguous_reduce_layout(node, &l) || l.reduced == 0) return false;
  *kernel = std::make_unique<ReduceMeanKernel>(l, graph_pool(node));
  return true;
}

}  // namespace openhtp::kernels::f32
