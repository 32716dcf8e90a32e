// RotaryEmbedding (RoPE), as ONNX's RotaryEmbedding, which QNN's op mirrors:
//   in[0] x [batch, num_heads, seq, head_size]
//   in[1] cos, in[2] sin: per position, rotary_embedding_dim / 2 values
//   in[3] position_ids [batch or 1, seq] (optional, INT_32/UINT_32/INT_64)
// With position_ids, cos/sin are tables [max_position, rd/2] indexed by the
// position of each (batch, seq); without, they are [seq, rd/2] (every batch)
// or [batch or 1, seq, rd/2]. Only the first rd = `rotary_embedding_dim`
// (0, the default: head_size) values of each head rotate; the rest pass
// through. Pairs (x1, x2) become (x1 cos - x2 sin, x2 cos + x1 sin): with
// `interleaved` the pairs are neighbours (2i, 2i+1), without they are
// (i, i + rd/2). x, cos and sin are float (FLOAT_16 and fixed point through
// the type adapter).
#include <algorithm>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

enum class PosType { kNone, kInt32, kUint32, kInt64 };

struct Geometry {
  size_t batch = 0, heads = 0, seq = 0, head_size = 0;
  size_t half = 0;             // rd / 2
  bool interleaved = false;
  PosType pos_type = PosType::kNone;
  size_t table_rows = 0;       // with position_ids: max_position
  bool batched = false;        // cos/sin (no ids) or position_ids have a row per batch
};

class RotaryKernel final : public OpKernel {
 public:
  explicit RotaryKernel(const Geometry& g) : g_(g) {}

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    const float* cos = static_cast<const float*>(in[1]);
    const float* sin = static_cast<const float*>(in[2]);
    float* y = static_cast<float*>(out[0]);
    const size_t h = g_.head_size, half = g_.half;
    for (size_t b = 0; b < g_.batch; ++b) {
      for (size_t n = 0; n < g_.heads; ++n) {
        for (size_t s = 0; s < g_.seq; ++s) {
          const size_t row = table_row(in.size() > 3 ? in[3] : nullptr, b, s);
          const float* c = cos + row * half;
          const float* sn = sin + row * half;
          const size_t at = ((b * g_.heads + n) * g_.seq + s) * h;
          for (size_t i = 0; i < half; ++i) {
            const size_t i1 = g_.interleaved ? 2 * i : i;
            const size_t i2 = g_.interleaved ? 2 * i + 1 : i + half;
            const double x1 = x[at + i1], x2 = x[at + i2];
            y[at + i1] = static_cast<float>(x1 * c[i] - x2 * sn[i]);
            y[at + i2] = static_cast<float>(x2 * c[i] + x1 * sn[i]);
          }
          for (size_t j = 2 * half; j < h; ++j) y[at + j] = x[at + j];
        }
      }
    }
  }

 private:
  // The cos/sin row of (batch b, position s). run() cannot fail, so a
  // position id outside [0, max_position - 1] is clamped into it (as Gather
  // clamps its indices) rather than read past the table.
  size_t table_row(const void* ids, size_t b, size_t s) const {
    const size_t bb = g_.batched ? b : 0;
    if (g_.pos_type == PosType::kNone || ids == nullptr) return bb * g_.seq + s;
    const size_t k = bb * g_.seq + s;
    int64_t p = 0;
    switch (g_.pos_type) {
      case PosType::kInt32: p = static_cast<const int32_t*>(ids)[k]; break;
      case PosType::kUint32: p = static_cast<const uint32_t*>(ids)[k]; break;
      case PosType::kInt64: p = static_cast<const int64_t*>(ids)[k]; break;
      case PosType::kNone: break;
    }
    return static_cast<size_t>(std::clamp<int64_t>(p, 0, static_cast<int64_t>(g_.table_rows) - 1));
  }

  Geometry g_;
};

// A tensor of the given (non-float) type with the float check's shape rules.
Status check_shape_only(const NodeDesc& node, const TensorDesc& t, const std::string& label) {
  TensorDesc as_float = t;
  as_float.dtype = dtype::kFloat32;
  return check_f32_tensor(node, as_float, label);
}

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 3, 4, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"", "cos", "sin", "position_ids"};
  for (size_t i = 0; i < 3; ++i) {
    if (Status s = check_f32_tensor(node, node.inputs[i], in_label(i, kRoles[i])); !s.ok()) return s;
  }
  if (Status s = check_f32_tensor(node, node.outputs[0], out_label(0)); !s.ok()) return s;
  Geometry g;
  const bool has_ids = has_input(node, 3);
  if (has_ids) {
    const TensorDesc& ids = node.inputs[3];
    switch (ids.dtype) {
      case dtype::kInt32: g.pos_type = PosType::kInt32; break;
      case dtype::kUint32: g.pos_type = PosType::kUint32; break;
      case dtype::kInt64: g.pos_type = PosType::kInt64; break;
      default:
        return unsupported(node, "in[3] (position_ids) data type is ",
                           ids.dtype == dtype::kFloat32 ? "a float type" : dtype::name(ids.dtype),
                           ", expected INT_32, UINT_32 or INT_64");
    }
    if (Status s = check_shape_only(node, ids, in_label(3, kRoles[3])); !s.ok()) return s;
  }
  ParamReader params(node);
  if (Status s = params.check_names({"interleaved", "rotary_embedding_dim"}); !s.ok()) return s;
  if (Status s = params.bool_scalar("interleaved", false, &g.interleaved); !s.ok()) return s;
  uint32_t rd = 0;
  if (Status s = params.u32_scalar("rotary_embedding_dim", 0u, &rd); !s.ok()) return s;

  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, ""), 4, 4, StatusCode::kInvalidArgument); !s.ok()) {
    s.message += " ([batch, num_heads, seq, head_size])";
    return s;
  }
  g.batch = x.dims[0];
  g.heads = x.dims[1];
  g.seq = x.dims[2];
  g.head_size = x.dims[3];
  if (rd == 0) rd = x.dims[3];
  if (rd > x.dims[3] || rd % 2 != 0) {
    return invalid(node, "parameter 'rotary_embedding_dim' is ", rd, ", expected an even number <= head_size ",
                   x.dims[3]);
  }
  g.half = rd / 2;

  const TensorDesc& cos = node.inputs[1];
  const TensorDesc& sin = node.inputs[2];
  if (sin.dims != cos.dims) {
    return invalid(node, "in[2] (sin) dims are ", dims_str(sin.dims), ", expected in[1] (cos)'s ", dims_str(cos.dims));
  }
  const size_t cr = cos.dims.size();
  if (cr < 2 || cr > (has_ids ? 2u : 3u) || cos.dims[cr - 1] != g.half) {
    return invalid(node, "in[1] (cos) dims are ", dims_str(cos.dims), ", expected ",
                   has_ids ? "[max_position, " : "[seq, or [batch or 1, seq, ", g.half,
                   "] (rotary_embedding_dim / 2 per position)");
  }
  if (has_ids) {
    const TensorDesc& ids = node.inputs[3];
    if (ids.dims.size() != 2 || (ids.dims[0] != 1 && ids.dims[0] != g.batch) || ids.dims[1] != g.seq) {
      return invalid(node, "in[3] (position_ids) dims are ", dims_str(ids.dims), ", expected [", g.batch,
                     " or 1, ", g.seq, "]");
    }
    g.table_rows = cos.dims[0];
    g.batched = ids.dims[0] == g.batch && g.batch > 1;
  } else {
    const uint32_t rows_seq = cos.dims[cr - 2];
    const uint32_t rows_batch = cr == 3 ? cos.dims[0] : 1;
    if (rows_seq != g.seq || (rows_batch != 1 && rows_batch != g.batch)) {
      return invalid(node, "in[1] (cos) dims are ", dims_str(cos.dims), ", expected [", g.seq, ", ", g.half,
                     "] or [", g.batch, " or 1, ", g.seq, ", ", g.half, "] without position_ids");
    }
    g.batched = rows_batch == g.batch && g.batch > 1;
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<RotaryKernel>(g);
  return Status::Ok();
}

}  // namespace

OpDef rotary_embedding_def() {
  return {"RotaryEmbedding", &guarded_prepare<prepare>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
