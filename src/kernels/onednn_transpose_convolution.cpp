// TransposeConv2d in FLOAT_32 through oneDNN's deconvolution, with a fused
// epilogue (htp/fusion.h: residual Add, clamp) as its post-ops.
//
// Why: the reference gathers each output from its taps one multiply-add at a
// time; a decoder's upsampling layer is a GEMM-sized job. oneDNN's
// deconvolution is the same sum (input position i scatters into output
// i * stride - pad_begin + k, no flip of the filter), run by its JIT kernels.
//
// QNN's filter [kh][kw][Cin][Cout/group] is described to oneDNN with explicit
// strides and reordered once at prepare: {Cout, Cin, KH, KW} without groups,
// {G, Cout/G, Cin/G, KH, KW} with them (output channel g * Cout/G + o reads
// input channels g * Cin/G ...). output_padding extends the end of each
// axis: oneDNN sees it as that much less end padding, so a node whose
// output_padding exceeds its end padding is left to the reference. The
// parameters come checked, as the reference reads them
// (ops/transpose_conv_geometry.h).
#include <omp.h>

#include <array>
#include <cstring>
#include <string_view>
#include <vector>

#include "kernels/onednn_paths.h"
#include "kernels/onednn_runtime.h"
#include "ops/parsed_params.h"

namespace openhtp::kernels::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

class DeconvKernel final : public ops::OpKernel {
 public:
  DeconvKernel(Executor ex, size_t src, size_t dst, size_t res_slot, size_t res_in)
      : ex_(std::move(ex)), src_(src), dst_(dst), res_slot_(res_slot), res_in_(res_in) {}
  size_t workspace_bytes() const override { return ex_.workspace_bytes(); }
  bool uses_openmp_team() const override { return ex_.multi_threaded(); }
  void set_workspace(void* memory) override { ex_.set_workspace(memory); }
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    ex_.bind(src_, in[0]);
    if (res_slot_ != SIZE_MAX) ex_.bind(res_slot_, in[res_in_]);
    ex_.bind(dst_, out[0]);
    ex_.execute();
  }

 private:
  Executor ex_;
  size_t src_, dst_, res_slot_, res_in_;
};

bool prepare_deconv(const ops::NodeDesc& node, const ops::TransposeConvGeometry& g,
                    std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& w = node.inputs[1];
  if (w.static_data == nullptr || (g.has_bias && node.inputs[2].static_data == nullptr)) return false;
  const ops::TransposeConvAxis& ah = g.axes[1];
  const ops::TransposeConvAxis& aw = g.axes[2];
  // output_padding is that much less end padding to oneDNN, which takes none below 0 here.
  if (ah.out_pad > ah.pad_end || aw.out_pad > aw.pad_end) return false;
  const memory::dim N = g.N, H = ah.in, W = aw.in, Cin = g.Cin, KH = ah.k, KW = aw.k;
  const memory::dim G = g.group, cout_g = g.cout_g(), cin_g = g.cin_g(), Cout = g.Cout, Ho = ah.out, Wo = aw.out;
  const bool has_bias = g.has_bias;

  // QNN [kh][kw][Cin][Cout/G]: element (kh, kw, ci, co) at ((kh*KW + kw)*Cin + ci)*Cout/G + co.
  const memory::desc w_user =
      G == 1 ? memory::desc({Cout, Cin, KH, KW}, dt::f32, memory::dims{1, Cout, KW * Cin * Cout, Cin * Cout})
             : memory::desc({G, cout_g, cin_g, KH, KW}, dt::f32,
                            memory::dims{cin_g * cout_g, 1, cout_g, KW * Cin * cout_g, Cin * cout_g});
  const memory::desc w_any(w_user.dims(), dt::f32, tag::any);
  const memory::desc src({N, Cin, H, W}, dt::f32, tag::nhwc);
  const memory::desc dst({N, Cout, Ho, Wo}, dt::f32, tag::nhwc);
  const memory::desc bias_md({Cout}, dt::f32, tag::x);
  const memory::dims strides{ah.stride, aw.stride}, dilates{0, 0};
  const memory::dims pad_l{ah.pad_begin, aw.pad_begin};
  const memory::dims pad_r{memory::dim{ah.pad_end} - ah.out_pad, memory::dim{aw.pad_end} - aw.out_pad};

  const int threads = threads_of(node);
  omp_set_num_threads(threads);
  dnnl::primitive_attr attr = default_attr();
  add_epilogue(node, dst, &attr);
  using deconv = dnnl::deconvolution_forward;
  const auto inference = dnnl::prop_kind::forward_inference;
  const auto direct = dnnl::algorithm::deconvolution_direct;
  const deconv::desc d = has_bias ? deconv::desc(inference, direct, src, w_any, bias_md, dst, strides, dilates, pad_l, pad_r)
                                  : deconv::desc(inference, direct, src, w_any, dst, strides, dilates, pad_l, pad_r);
  const deconv::primitive_desc pd(d, attr, engine());
  // oneDNN's reference deconvolution is no faster than ours: leave it.
  if (std::string_view(pd.impl_info_str()).starts_with("ref")) return false;

  memory w_packed(pd.weights_desc(), engine());
  {
    memory w_src(w_user, engine(), const_cast<void*>(w.static_data));
    dnnl::stream s(engine());
    dnnl::reorder(w_src, w_packed).execute(s, w_src, w_packed);
    s.wait();
  }
  Executor ex(deconv(pd), pd.scratchpad_desc(), threads);
  ex.add_fixed(DNNL_ARG_WEIGHTS, w_packed);
  if (has_bias) {
    memory b(bias_md, engine());
    std::memcpy(b.get_data_handle(), node.inputs[2].static_data, size_t(Cout) * sizeof(float));
    ex.add_fixed(DNNL_ARG_BIAS, b);
  }
  const size_t src_slot = ex.add_bound(DNNL_ARG_SRC, src);
  const size_t dst_slot = ex.add_bound(DNNL_ARG_DST, dst);
  const size_t res_slot = has_residual(node) ? ex.add_bound(residual_arg(), dst) : SIZE_MAX;
  *kernel = std::make_unique<DeconvKernel>(std::move(ex), src_slot, dst_slot, res_slot, residual_input(node));
  return true;
}

}  // namespace

bool prepare_transpose_conv2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  use_graph_threads(node);
  if (node.inputs.size() < 2 || node.inputs.size() > 3 || !all_f32(node) || !epilogue_fits_f32(node)) return false;
  // A fused SiLU is the convolutions' (their pass or swish post-op): not here.
  if (node.has_epilogue() && node.epilogue->swish) return false;
  const ops::TransposeConvGeometry* g = ops::parsed_as<ops::TransposeConvGeometry>(node);
  if (g == nullptr || g->spatial != 2) return false;
  try {
    return prepare_deconv(node, *g, kernel);
  } catch (const dnnl::error&) {
    return false;  // oneDNN has no implementation for this case: the reference's
  }
}

}  // namespace openhtp::kernels::onednn
