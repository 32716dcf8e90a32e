// Conv2d and DepthWiseConv2d with 8-bit activations through oneDNN's int8
// kernels: UFIXED_POINT_8 or SFIXED_POINT_8 activations (per-tensor, any
// zero point), SFIXED_POINT_8 symmetric weights (per-channel on axis 3 or
// per-tensor), SFIXED_POINT_32 bias, 8-bit output with its zero point.
//
// Why: with VNNI, oneDNN's int8 kernels are exact and scale with threads,
// where this XNNPACK build's qc8/qu8 barely gains from a second thread.
// Without VNNI they are wrong (int16 saturation), so prepare declines unless
// onednn::int8_convolution_exact() (CPU check + self-test) holds, and XNNPACK
// (listed after this path) takes the node.
//
// Arithmetic: acc = sum (x - x_zp) * w + bias in int32 (exact), then
// y = round(acc * in_scale * w_scale[c] / out_scale) + y_zp, saturated. The
// reference computes the same in float, so a tie or float error can put the
// two 1 LSB apart; the tests allow that.
//
// The HWIO filter is reordered once at prepare into the kernel's layout
// (with oneDNN's zero-point / s8 compensation); the kernel keeps no pointer
// to the node's buffers. run() only swaps the src/dst data handles.
//
// A node with an output table (htp/fusion.h, "producer table": the
// pointwise chain after it, SiLU in EfficientNet) maps its codes through the
// table right after the primitive: in a slab's rows on the thread that just
// wrote them, else over the output in the shares the primitive's threads
// wrote.
#include <array>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "kernels/lookup_table.h"
#include "kernels/onednn_int8.h"
#include "kernels/onednn_paths.h"
#include "kernels/onednn_runtime.h"
#include "kernels/onednn_slabs.h"
#include "kernels/parallel_tiles.h"
#include "kernels/quant_params.h"
#include "ops/parsed_params.h"

namespace openhtp::kernels::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;
using ops::ConvGeometry;

// The QNN filter [kh][kw][Cin/g][Cout] as s8 oneDNN weights (as in
// onednn_convolution.cpp): {Cout, Cin, KH, KW} without groups,
// {G, Cout/G, Cin/G, KH, KW} with them (output channel g*Cout/G + o).
memory::desc user_weights(const ConvGeometry& g) {
  const memory::dim cin_g = g.cin_g(), cout = g.Cout, kw = g.KW;
  const memory::dim s_i = cout, s_w = cin_g * cout, s_h = kw * cin_g * cout;
  if (g.group == 1) return memory::desc({cout, cin_g, g.KH, g.KW}, dt::s8, memory::dims{1, s_i, s_h, s_w});
  const memory::dim cout_g = g.cout_g();
  return memory::desc({memory::dim{g.group}, cout_g, cin_g, g.KH, g.KW}, dt::s8,
                      memory::dims{cout_g, 1, s_i, s_h, s_w});
}

bool prepare_int8(const ops::NodeDesc& node, const ConvGeometry& g, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& w = node.inputs[1];
  if (w.static_data == nullptr) return false;  // weights are reordered once; dynamic ones are not
  const auto x = int8_operand(node.inputs[0]);
  const auto y = int8_operand(node.outputs[0]);
  if (!x || !y) return false;
  const auto w_scales = symmetric_s8_scales(w, 3, g.Cout);
  if (!w_scales) return false;
  dnnl::primitive_attr attr = default_attr();
  // A fused clamp or residual (onednn_int8.h: with a residual the
  // accumulators requantize into the producer's own encoding, which the
  // post-ops take on to the Add's).
  const auto epilogue = int8_epilogue(node, *y, &attr);
  if (!epilogue || (epilogue->residual && node.output_table != nullptr)) return false;
  const float unit_scale = epilogue->unit_scale;
  std::vector<int32_t> bias;
  if (!int32_bias(node, x->scale, *w_scales, unit_scale, &bias)) return false;

  // Requantization multiplier per output channel, one value when all agree.
  std::vector<float> out_scales(g.Cout);
  bool per_channel = false;
  for (size_t c = 0; c < g.Cout; ++c) {
    out_scales[c] = static_cast<float>(double{x->scale} * (*w_scales)[c] / unit_scale);
    per_channel |= out_scales[c] != out_scales[0];
  }
  if (!per_channel) out_scales.resize(1);

  attr.set_output_scales(per_channel ? 1 << 1 : 0, out_scales);  // dst dims {N, C, H, W}: C is dim 1
  ZeroPoints zero_points;
  zero_points.add(DNNL_ARG_SRC, x->zero_point);
  // What the primitive writes: y, or with a residual the Add's output,
  // which a clamp's table then maps to y (as a producer table maps x's).
  const Int8Operand& written = epilogue->written;
  const uint8_t* table = epilogue->table() != nullptr ? epilogue->table() : node.output_table;
  zero_points.add(DNNL_ARG_DST, written.zero_point);
  zero_points.declare(&attr);

  const memory::desc w_user = user_weights(g);
  const memory::desc bias_md({memory::dim{g.Cout}}, dt::s32, tag::x);
  memory b(bias_md, engine());
  std::memcpy(b.get_data_handle(), bias.data(), bias.size() * sizeof(int32_t));
  memory w_packed;  // shared by the slabs when their primitives want one layout

  // The primitive for geometry sg (the node's, or one slab's), planned for
  // `threads`; false when oneDNN has only its reference implementation (far
  // slower than XNNPACK: leave those cases to it).
  auto make = [&](const ConvGeometry& sg, int threads, std::optional<Executor>* out, size_t* src_slot,
                  size_t* dst_slot) {
    const memory::desc src({sg.N, sg.Cin, sg.H, sg.W}, x->type, tag::nhwc);
    const memory::desc dst({sg.N, sg.Cout, sg.Ho, sg.Wo}, written.type, tag::nhwc);
    const memory::desc w_any(w_user.dims(), dt::s8, tag::any);
    // oneDNN's dilation counts the gaps: QNN's 1 is its 0.
    const memory::dims strides{sg.sh, sg.sw}, dilates{sg.dh - 1, sg.dw - 1};
    const memory::dims pad_l{sg.pt, sg.pl}, pad_r{sg.pb, sg.pr};
    using conv = dnnl::convolution_forward;
    // The bias is always given (zeros when absent): one primitive shape.
    const conv::primitive_desc pd(conv::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                             src, w_any, bias_md, dst, strides, dilates, pad_l, pad_r),
                                  attr, engine());
    if (std::string_view(pd.impl_info_str()).starts_with("ref")) return false;
    if (!w_packed || w_packed.get_desc() != pd.weights_desc()) {
      w_packed = memory(pd.weights_desc(), engine());
      memory w_src(w_user, engine(), const_cast<void*>(w.static_data));
      dnnl::stream s(engine());
      dnnl::reorder(w_src, w_packed).execute(s, w_src, w_packed);
      s.wait();
    }
    Executor& ex = out->emplace(conv(pd), pd.scratchpad_desc(), threads);
    ex.add_fixed(DNNL_ARG_WEIGHTS, w_packed);
    ex.add_fixed(DNNL_ARG_BIAS, b);
    zero_points.bind(&ex);
    *src_slot = ex.add_bound(DNNL_ARG_SRC, src);
    *dst_slot = ex.add_bound(DNNL_ARG_DST, dst);
    return true;
  };

  const size_t threads = static_cast<size_t>(threads_of(node));
  if (slab_shape(g, threads)) {
    // One slab per thread: pixels, or output rows (onednn_slabs.h).
    std::vector<SlabKernel::Slab> slabs;
    const OneThreadPlanning one_thread;
    bool ok = true;
    for (const SlabExtent& r : slab_extents(g, threads)) {
      std::optional<Executor> ex;
      size_t src_slot = 0, dst_slot = 0;
      ok = make(r.g, 1, &ex, &src_slot, &dst_slot);
      if (!ok) break;
      SlabKernel::Slab sl{std::move(*ex), src_slot, dst_slot};  // a residual: `sum`, res unbound
      sl.in_offset = r.in_pixel * g.Cin;  // 8-bit: elements are bytes
      sl.in_bytes = size_t{r.g.H} * r.g.W * g.Cin;
      sl.in_row_bytes = r.g.H > 1 ? size_t{r.g.W} * g.Cin : 0;
      sl.out_offset = r.out_pixel * g.Cout;
      sl.out_bytes = size_t{r.g.Ho} * r.g.Wo * g.Cout;
      slabs.push_back(std::move(sl));
    }
    if (!ok) return false;
    SlabKernel::After table_rows;
    if (table != nullptr) {
      std::array<uint8_t, 256> codes;
      std::memcpy(codes.data(), table, codes.size());
      table_rows = [codes](void* rows, size_t bytes, float*) {
        lut::lookup_bytes(codes.data(), static_cast<uint8_t*>(rows), static_cast<uint8_t*>(rows), bytes);
      };
    }
    *kernel = std::make_unique<SlabKernel>(std::move(slabs), epilogue->residual ? residual_input(node) : SIZE_MAX,
                                           graph_pool(node), std::move(table_rows));
    return true;
  }
  std::optional<Executor> ex;
  size_t src_slot = 0, dst_slot = 0;
  const int planned = conv_threads(node, g);
  std::optional<OneThreadPlanning> one_thread;
  if (planned == 1) one_thread.emplace();
  if (!make(g, planned, &ex, &src_slot, &dst_slot)) return false;
  *kernel = with_int8_epilogue(std::make_unique<Int8Kernel>(std::move(*ex), src_slot, dst_slot), node, *epilogue);
  if (node.output_table != nullptr) {
    *kernel = std::make_unique<TabledOutput>(std::move(*kernel), node.output_table, node.outputs[0].num_elements(),
                                             graph_pool(node));
  }
  return true;
}

}  // namespace

bool prepare_conv2d_int8(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  use_graph_threads(node);
  const ConvGeometry* g = ops::parsed_as<ConvGeometry>(node);
  if (g == nullptr || node.inputs[1].dtype != ops::dtype::kSfixed8) return false;
  if (!int8_convolution_exact()) return false;  // checked last: the first call runs the self-test
  try {
    return prepare_int8(node, *g, kernel);
  } catch (const dnnl::error&) {
    return false;  // oneDNN has no implementation for this case: next path
  }
}

}  // namespace openhtp::kernels::onednn
