// HadamardTransform: y = scale * H_n x along the last axis, n = the last dim,
// a power of two; H_n is the Sylvester-ordered Hadamard matrix
// (H_n[i][j] = (-1)^popcount(i & j), unnormalised), computed by the fast
// Walsh-Hadamard butterfly. param scale f32, 1.0 (pass 1/sqrt(n) for the
// orthonormal transform, as QuaRot/SpinQuant rotations do).
#include <cmath>
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

class HadamardKernel final : public OpKernel {
 public:
  HadamardKernel(size_t rows, size_t n, float scale) : rows_(rows), n_(n), scale_(scale) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    for (size_t r = 0; r < rows_; ++r) {
      float* v = y + r * n_;
      for (size_t i = 0; i < n_; ++i) v[i] = x[r * n_ + i];
      for (size_t h = 1; h < n_; h *= 2) {
        for (size_t i = 0; i < n_; i += 2 * h) {
          for (size_t j = i; j < i + h; ++j) {
            const float a = v[j], b = v[j + h];
            v[j] = a + b;
            v[j + h] = a - b;
          }
        }
      }
      for (size_t i = 0; i < n_; ++i) v[i] *= scale_;
    }
  }

 private:
  size_t rows_, n_;
  float scale_;
};

Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"in"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"scale"}); !s.ok()) return s;
  float scale = 1.0f;
  if (Status s = params.f32_scalar("scale", 1.0f, &scale); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  if (Status s = check_rank(node, x, in_label(0, "in"), 1, 8, StatusCode::kInvalidArgument); !s.ok()) return s;
  const uint32_t n = x.dims.back();
  if ((n & (n - 1)) != 0) {
    return invalid(node, "in[0] last dim is ", n, ", expected a power of two (the Hadamard size)");
  }
  if (Status s = check_output_dims(node, 0, x.dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<HadamardKernel>(x.num_elements() / n, n, scale);
  return Status::Ok();
}

}  // namespace

OpDef hadamard_transform_def() { return {"HadamardTransform", &guarded_prepare<prepare>, op_flags::kAdaptTypes}; }

}  // namespace openhtp::ops::detail
