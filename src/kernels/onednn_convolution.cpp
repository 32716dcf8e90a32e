// Conv2d and DepthWiseConv2d in FLOAT_32 through oneDNN (about 2x this
// XNNPACK build's fp32 speed on AVX2, see the kernel evaluation notes).
// Activations are used in NHWC directly; the HWIO filter is described with
// explicit strides and reordered once, at prepare, into the layout the JIT
// kernel wants. The kernel keeps no pointer to the node's weight or bias
// buffers.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include "kernels/onednn_paths.h"
#include "kernels/onednn_runtime.h"
#include "kernels/onednn_slabs.h"
#include "kernels/parallel_tiles.h"
#include "kernels/silu.h"
#include "ops/parsed_params.h"

namespace openhtp::kernels::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;
using ops::ConvGeometry;

class ConvKernel final : public ops::OpKernel {
 public:
  // res_slot: the residual's executor slot (SIZE_MAX: none), read from in[res_in].
  // scaled: channel-scaled weights (null: none), the factors read from in[scale_in].
  ConvKernel(Executor ex, size_t src, size_t dst, size_t res_slot, size_t res_in, EpilogueTail tail,
             std::shared_ptr<ChannelScaledWeights> scaled, size_t scale_in)
      : ex_(std::move(ex)),
        src_(src),
        dst_(dst),
        res_slot_(res_slot),
        res_in_(res_in),
        tail_(tail),
        scaled_(std::move(scaled)),
        scale_in_(scale_in) {}
  size_t workspace_bytes() const override { return ex_.workspace_bytes(); }
  bool uses_openmp_team() const override { return ex_.multi_threaded(); }
  void set_workspace(void* memory) override { ex_.set_workspace(memory); }
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    if (scaled_) scaled_->apply(static_cast<const float*>(in[scale_in_]));
    ex_.bind(src_, in[0]);
    if (res_slot_ != SIZE_MAX) ex_.bind(res_slot_, in[res_in_]);
    ex_.bind(dst_, out[0]);
    ex_.execute();
    tail_.apply(out[0], out.size() > 1 ? out[1] : nullptr);
  }

 private:
  Executor ex_;
  size_t src_, dst_, res_slot_, res_in_;
  EpilogueTail tail_;
  std::shared_ptr<ChannelScaledWeights> scaled_;
  size_t scale_in_;
};

}  // namespace

int conv_threads(const ops::NodeDesc& node, const ConvGeometry& g) {
  const uint64_t macs = uint64_t{g.N} * g.Ho * g.Wo * g.Cout * g.cin_g() * g.KH * g.KW;
  return macs < kSmallConvMacs ? 1 : threads_of(node);
}

bool slab_convolution(const ops::NodeDesc& node) {
  const ConvGeometry* g = ops::parsed_as<ConvGeometry>(node);
  return g != nullptr && slab_shape(*g, static_cast<size_t>(threads_of(node)));
}

namespace {

// The fp32 slabs (onednn_slabs.h): a fused residual is read at each slab's
// offset, a fused SiLU (and the clamp after it) runs on each slab right
// after it; the slabs share one copy of the packed weights.
bool prepare_slabs(const ops::NodeDesc& node, const ConvGeometry& g, std::unique_ptr<ops::OpKernel>* kernel) {
  const size_t threads = static_cast<size_t>(threads_of(node));
  const OneThreadPlanning one_thread;  // each slab's primitive is planned for one thread
  memory shared;
  std::shared_ptr<ChannelScaledWeights> scaled;
  std::vector<std::shared_ptr<ChannelScaledWeights>> distinct_scaled;  // one per weights layout the slabs use
  std::vector<SlabKernel::Slab> slabs;
  for (const SlabExtent& r : slab_extents(g, threads)) {
    const memory::desc src({1, g.Cin, r.g.H, r.g.W}, dt::f32, tag::nhwc);
    const memory::desc dst({1, g.Cout, r.g.Ho, r.g.Wo}, dt::f32, tag::nhwc);
    dnnl::primitive_attr attr = default_attr();
    add_epilogue(node, dst, &attr, ResidualAs::kBinary, SiluAs::kPass);
    dnnl::convolution_forward::primitive_desc pd;
    SlabKernel::Slab sl{make_conv_f32(node, r.g, dnnl::algorithm::convolution_direct, src, dst, attr, 1, &pd, &shared,
                                      node.input_scale != nullptr ? &scaled : nullptr)};
    if (scaled && (distinct_scaled.empty() || distinct_scaled.back() != scaled)) distinct_scaled.push_back(scaled);
    sl.src = sl.ex.add_bound(DNNL_ARG_SRC, src);
    sl.dst = sl.ex.add_bound(DNNL_ARG_DST, dst);
    if (has_residual(node)) sl.res = sl.ex.add_bound(residual_arg(), dst);
    sl.in_offset = r.in_pixel * g.Cin * sizeof(float);
    sl.in_bytes = size_t{r.g.H} * r.g.W * g.Cin * sizeof(float);
    sl.in_row_bytes = r.g.H > 1 ? size_t{r.g.W} * g.Cin * sizeof(float) : 0;
    sl.out_offset = r.out_pixel * g.Cout * sizeof(float);
    sl.out_bytes = size_t{r.g.Ho} * r.g.Wo * g.Cout * sizeof(float);
    slabs.push_back(std::move(sl));
  }
  SlabKernel::Before before;
  if (!distinct_scaled.empty()) {
    before = [weights = std::move(distinct_scaled), at = node.input_scale_index()](std::span<const void* const> in) {
      for (const auto& w : weights) w->apply(static_cast<const float*>(in[at]));
    };
  }
  const size_t mean_channels = node.channel_mean != nullptr ? size_t{g.Cout} : 0;
  *kernel = std::make_unique<SlabKernel>(std::move(slabs), has_residual(node) ? residual_input(node) : SIZE_MAX,
                                         graph_pool(node), silu_on_slab(node), std::move(before), mean_channels);
  return true;
}

}  // namespace

memory::desc user_weights(const ConvGeometry& g) {
  const memory::dim cin_g = g.cin_g(), cout = g.Cout, kw = g.KW;
  const memory::dim s_i = cout, s_w = cin_g * cout, s_h = kw * cin_g * cout;
  if (g.group == 1) return memory::desc({cout, cin_g, g.KH, g.KW}, dt::f32, memory::dims{1, s_i, s_h, s_w});
  const memory::dim cout_g = g.cout_g();
  return memory::desc({memory::dim{g.group}, cout_g, cin_g, g.KH, g.KW}, dt::f32,
                      memory::dims{cout_g, 1, s_i, s_h, s_w});
}

Executor make_conv_f32(const ops::NodeDesc& node, const ConvGeometry& g, dnnl::algorithm alg,
                       const memory::desc& src, const memory::desc& dst, const dnnl::primitive_attr& attr, int threads,
                       dnnl::convolution_forward::primitive_desc* pd, memory* shared_weights,
                       std::shared_ptr<ChannelScaledWeights>* scaled_weights, const OutputChannels* slice) {
  const memory::desc w_user = user_weights(g);
  const float* weights = static_cast<const float*>(node.inputs[1].static_data);
  const float* bias = g.has_bias ? static_cast<const float*>(node.inputs[2].static_data) : nullptr;
  std::vector<float> sliced;
  if (slice != nullptr) {
    // The QNN filter [kh][kw][Cin][full]: the slice's channels are the
    // innermost axis's [first, first + Cout), copied out dense (oneDNN's
    // Winograd weight reorders take dense layouts only).
    const size_t rows = size_t{g.KH} * g.KW * g.Cin;
    sliced.resize(rows * g.Cout);
    for (size_t r = 0; r < rows; ++r) {
      std::memcpy(&sliced[r * g.Cout], weights + r * slice->full + slice->first, size_t{g.Cout} * sizeof(float));
    }
    weights = sliced.data();
    if (bias != nullptr) bias += slice->first;
  }
  const memory::desc w_any(w_user.dims(), dt::f32, tag::any);
  const memory::desc bias_md({memory::dim{g.Cout}}, dt::f32, tag::x);
  // oneDNN's dilation counts the gaps: QNN's 1 is its 0.
  const memory::dims strides{g.sh, g.sw}, dilates{g.dh - 1, g.dw - 1};
  const memory::dims pad_l{g.pt, g.pl}, pad_r{g.pb, g.pr};
  using conv = dnnl::convolution_forward;
  const auto inference = dnnl::prop_kind::forward_inference;
  const conv::desc d = g.has_bias ? conv::desc(inference, alg, src, w_any, bias_md, dst, strides, dilates, pad_l, pad_r)
                                  : conv::desc(inference, alg, src, w_any, dst, strides, dilates, pad_l, pad_r);
  *pd = conv::primitive_desc(d, attr, engine());
  if (g.group > 1 && threads == 1) {
    // A depthwise convolution planned for one thread (a one-thread graph's,
    // or one slab of a split one): oneDNN 2.6's jit_dw kernel where it has
    // one, not its first choice brdgmm_dw. One thread: MobileNetV2 fp32
    // 3.49-3.67 ms against 3.69-3.75 (17 depthwise convolutions 0.51 against
    // 0.62 ms). Slabs: twice as fast in a warm loop (docs/performance.md,
    // session 10), and once pointwise slabs split by pixels, MobileNetV2
    // fp32 at two threads 2.47 -> 2.40 and 2.64 -> 2.52 ms (medians of 10
    // and 12 alternations; EfficientNet-B0 level).
    for (conv::primitive_desc p = *pd; ; ) {
      if (std::string_view(p.impl_info_str()).rfind("jit_dw", 0) == 0) {
        *pd = p;
        break;
      }
      if (!p.next_impl()) break;
    }
  }

  // Weights: reorder once into the primitive's layout.
  memory w_packed;
  if (shared_weights != nullptr && *shared_weights && shared_weights->get_desc() == pd->weights_desc()) {
    w_packed = *shared_weights;
  } else {
    w_packed = memory(pd->weights_desc(), engine());
    memory w_src(w_user, engine(), const_cast<float*>(weights));
    dnnl::stream s(engine());
    dnnl::reorder(w_src, w_packed).execute(s, w_src, w_packed);
    s.wait();
    if (shared_weights != nullptr) *shared_weights = w_packed;
  }
  Executor ex(conv(*pd), pd->scratchpad_desc(), threads);
  if (scaled_weights != nullptr) {
    if (!*scaled_weights || (*scaled_weights)->weights().get_desc() != pd->weights_desc()) {
      *scaled_weights = std::make_shared<ChannelScaledWeights>(w_packed, w_user, g);
    }
    ex.add_fixed(DNNL_ARG_WEIGHTS, (*scaled_weights)->weights());
  } else {
    ex.add_fixed(DNNL_ARG_WEIGHTS, w_packed);
  }
  if (g.has_bias) {
    memory b(bias_md, engine());
    std::memcpy(b.get_data_handle(), bias, size_t{g.Cout} * sizeof(float));
    ex.add_fixed(DNNL_ARG_BIAS, b);
  }
  return ex;
}

namespace {

bool prepare_f32(const ops::NodeDesc& node, const ConvGeometry& g, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& w = node.inputs[1];
  if (w.static_data == nullptr) return false;
  if (g.has_bias && node.inputs[2].static_data == nullptr) return false;
  // The work split is planned for the team size at creation (use_graph_threads).
  // Every convolution, small depthwise ones too, takes the graph's threads:
  // its input was most likely written by a convolution on all of them, and
  // reading half of it from the other core's cache costs more than the
  // split's wake-up (docs/performance.md, session 6: MobileNetV2 fp32 at 2
  // threads 3.76 -> 3.21 ms when the one-thread rule for depthwise
  // convolutions under 8M MACs went).
  if (slab_convolution(node)) return prepare_slabs(node, g, kernel);
  const int threads = conv_threads(node, g);
  omp_set_num_threads(threads);

  const memory::desc src({g.N, g.Cin, g.H, g.W}, dt::f32, tag::nhwc);
  const memory::desc dst({g.N, g.Cout, g.Ho, g.Wo}, dt::f32, tag::nhwc);
  dnnl::primitive_attr attr = default_attr();
  add_epilogue(node, dst, &attr);
  dnnl::convolution_forward::primitive_desc pd;
  std::shared_ptr<ChannelScaledWeights> scaled;
  Executor ex = make_conv_f32(node, g, dnnl::algorithm::convolution_direct, src, dst, attr, threads, &pd, nullptr,
                              node.input_scale != nullptr ? &scaled : nullptr);
  const size_t src_slot = ex.add_bound(DNNL_ARG_SRC, src);
  const size_t dst_slot = ex.add_bound(DNNL_ARG_DST, dst);
  const size_t res_slot = has_residual(node) ? ex.add_bound(residual_arg(), dst) : SIZE_MAX;
  *kernel = std::make_unique<ConvKernel>(std::move(ex), src_slot, dst_slot, res_slot, residual_input(node),
                                         EpilogueTail(node), std::move(scaled), node.input_scale_index());
  return true;
}

}  // namespace

void add_epilogue(const ops::NodeDesc& node, const memory::desc& dst, dnnl::primitive_attr* attr, ResidualAs residual,
                  SiluAs silu) {
  if (!node.has_epilogue()) return;
  const ops::Epilogue& e = *node.epilogue;
  dnnl::post_ops po;
  if (e.residual != nullptr) {
    if (residual == ResidualAs::kSum) po.append_sum(1.0f);  // the caller put the residual in dst
    else po.append_binary(dnnl::algorithm::binary_add, dst);  // post-op 0: residual_arg()
  }
  // SiLU, and the clamp after it, are the EpilogueTail's (after the
  // primitive) on one thread, oneDNN's swish post-op on more.
  const bool tail = silu == SiluAs::kPass ? e.swish : silu_after_primitive(node);
  if (e.swish && !tail) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f, 0.0f);  // x * sigmoid(1 * x)
  if (e.clamp && !tail) {
    // Relu is its own (cheaper) post-op; infinite bounds become the float
    // range, which changes no finite value.
    constexpr float kMax = std::numeric_limits<float>::max();
    if (e.lo == 0.0f && e.hi == std::numeric_limits<float>::infinity()) {
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    } else {
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, std::max(e.lo, -kMax), std::min(e.hi, kMax));
    }
  }
  attr->set_post_ops(po);
}

bool silu_after_primitive(const ops::NodeDesc& node) {
  // A channel mean is summed in the pass, so a node with one takes the pass
  // on any number of threads (only small maps get here on several: larger
  // ones run as slabs, each with its own pass).
  return node.has_epilogue() && node.epilogue->swish && (threads_of(node) == 1 || node.channel_mean != nullptr);
}

EpilogueTail::EpilogueTail(const ops::NodeDesc& node) {
  if (!silu_after_primitive(node)) return;
  active_ = true;
  n_ = node.outputs[0].num_elements();
  if (node.channel_mean != nullptr) channels_ = node.outputs[0].dims.back();  // shape: channel_mean_fits
  silu_clamp_bounds(*node.epilogue, &lo_, &hi_);
}

void EpilogueTail::apply(void* out, void* mean) const {
  if (!active_) return;
  if (channels_ == 0 || mean == nullptr) {
    silu_clamp_f32(static_cast<float*>(out), n_, lo_, hi_);
    return;
  }
  float* sums = static_cast<float*>(mean);
  std::fill(sums, sums + channels_, 0.0f);
  const size_t pixels = n_ / channels_;
  silu_clamp_f32_sums(static_cast<float*>(out), pixels, channels_, lo_, hi_, sums);
  finish_channel_mean(sums, 1, channels_, pixels, sums);
}

void finish_channel_mean(const float* sums, size_t parts, size_t channels, size_t pixels, float* mean) {
  const float scale = 1.0f / static_cast<float>(pixels);
  for (size_t c = 0; c < channels; ++c) {
    float s = 0.0f;
    for (size_t i = 0; i < parts; ++i) s += sums[i * channels + c];
    mean[c] = s * scale;
  }
}

bool channel_mean_fits(const ops::NodeDesc& node) {
  if (node.channel_mean == nullptr) return true;
  const ops::TensorDesc& y = node.outputs[0];
  return node.has_epilogue() && node.epilogue->swish && y.dtype == ops::dtype::kFloat32 && y.dims.size() == 4 &&
         y.dims[0] == 1 && node.channel_mean->dtype == ops::dtype::kFloat32 &&
         node.channel_mean->num_elements() == y.dims[3];
}

bool prepare_conv2d(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  use_graph_threads(node);
  const ConvGeometry* g = ops::parsed_as<ConvGeometry>(node);
  if (g == nullptr || node.inputs[0].dtype != ops::dtype::kFloat32 || !epilogue_fits_f32(node)) return false;
  if (node.input_scale != nullptr &&
      (node.input_scale->dtype != ops::dtype::kFloat32 || node.input_scale->num_elements() != g->Cin)) {
    return false;
  }
  if (!channel_mean_fits(node)) return false;
  try {
    return prepare_f32(node, *g, kernel);
  } catch (const dnnl::error&) {
    return false;  // oneDNN has no implementation for this case: reference kernel
  }
}

}  // namespace openhtp::kernels::onednn
