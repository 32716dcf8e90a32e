#include "kernels/convert_shares.h"

#include <string_view>

#include "kernels/parallel_tiles.h"
#include "ops/quant_shares.h"
#include "ops/workspace.h"

namespace openhtp::kernels {
namespace {

namespace dtype = ops::dtype;

class ConvertKernel final : public ops::OpKernel {
 public:
  ConvertKernel(const ops::TensorDesc& in, const ops::TensorDesc& out, pthreadpool_t pool)
      : in_(in),
        out_(out),
        pool_(pool),
        // Through a float copy unless one side is float already.
        floats_(in.dtype != dtype::kFloat32 && out.dtype != dtype::kFloat32 ? in.num_elements() * sizeof(float) : 0) {
    in_.static_data = out_.static_data = nullptr;
  }
  size_t workspace_bytes() const override { return floats_.bytes(); }
  void set_workspace(void* memory) override { floats_.bind(memory); }

  void run(std::span<const void* const> in, std::span<void* const> out) override {
    using namespace ops::quant;
    if (out_.dtype == dtype::kFloat32) {
      to_float_in_shares(in_, in[0], static_cast<float*>(out[0]), pool_);
    } else if (in_.dtype == dtype::kFloat32) {
      from_float_in_shares(out_, static_cast<const float*>(in[0]), out[0], pool_);
    } else {
      float* f = reinterpret_cast<float*>(floats_.data());
      to_float_in_shares(in_, in[0], f, pool_);
      from_float_in_shares(out_, f, out[0], pool_);
    }
  }

 private:
  ops::TensorDesc in_, out_;
  pthreadpool_t pool_;
  ops::Workspace floats_;
};

}  // namespace

bool prepare_convert(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  const std::string_view t = node.type;
  if ((t != "Convert" && t != "Dequantize") || node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  {
    std::unique_ptr<ops::OpKernel> check;  // the reference validates types, encodings and shapes
    if (!ops::prepare_reference(node, &check).ok() || !check) return false;
  }
  *kernel = std::make_unique<ConvertKernel>(node.inputs[0], node.outputs[0], graph_pool(node));
  return true;
}

}  // namespace openhtp::kernels
