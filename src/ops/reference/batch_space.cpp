// SpaceToBatch and BatchToSpace on NHWC tensors (TensorFlow's
// space_to_batch_nd / batch_to_space_nd with two spatial dims), block_size
// [bh, bw] (UINT_32 tensor of 2):
//
//   SpaceToBatch, pad_amount [[top, bottom], [left, right]] (default 0):
//     x padded with real 0 to [B, Hp, Wp, C] (Hp, Wp divisible by the block)
//     -> [B*bh*bw, Hp/bh, Wp/bw, C], y[(i*bw + j)*B + n, h, w, c] =
//     xpad[n, h*bh + i, w*bw + j, c].
//   BatchToSpace, crops [[top, bottom], [left, right]] (default 0): its
//     inverse, [B, H, W, C] -> [B/(bh*bw), H*bh - top - bottom,
//     W*bw - left - right, C], y[n, oh, ow, c] = x[(i*bw + j)*B' + n, h, w, c]
//     with (h, i) = divmod(oh + top, bh), (w, j) = divmod(ow + left, bw).
//
// Type-generic (elements moved by byte size; encodings as in
// data_movement.cpp); the padding is the input type's 0 (the quantized 0 for
// fixed point).
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/indexing_util.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

template <bool kToBatch>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  const char* pad_name = kToBatch ? "pad_amount" : "crops";
  if (Status s = params.check_names({"block_size", pad_name}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  std::vector<uint32_t> block;
  if (Status s = read_nhwc_block(node, &block); !s.ok()) return s;
  const uint32_t pad_dims[] = {2, 2};
  const uint32_t no_pad[] = {0, 0, 0, 0};
  std::vector<uint32_t> pad;
  if (Status s = params.u32_tensor(pad_name, pad_dims, no_pad, &pad); !s.ok()) return s;
  const uint64_t bh = block[0], bw = block[1], B = x.dims[0], H = x.dims[1], W = x.dims[2], C = x.dims[3];
  std::vector<uint32_t> out_dims;
  if (kToBatch) {
    const uint64_t hp = H + pad[0] + pad[1], wp = W + pad[2] + pad[3];
    if (hp % bh != 0 || wp % bw != 0) {
      return invalid(node, "padded spatial dims ", hp, "x", wp, " are not divisible by block_size ", bh, "x", bw);
    }
    if (B * bh * bw > UINT32_MAX) return unsupported(node, "out[0] batch would overflow");
    out_dims = {uint32_t(B * bh * bw), uint32_t(hp / bh), uint32_t(wp / bw), uint32_t(C)};
  } else {
    if (B % (bh * bw) != 0) {
      return invalid(node, "in[0] batch ", B, " is not divisible by block_size ", bh, "x", bw, " = ", bh * bw);
    }
    const uint64_t hs = H * bh, ws = W * bw;
    if (pad[0] + uint64_t{pad[1]} >= hs || pad[2] + uint64_t{pad[3]} >= ws) {
      return invalid(node, "parameter 'crops' ", dims_str(pad), " leaves nothing of the ", hs, "x", ws,
                     " rearranged space");
    }
    if (hs > UINT32_MAX || ws > UINT32_MAX) return unsupported(node, "out[0] spatial dims would overflow");
    out_dims = {uint32_t(B / (bh * bw)), uint32_t(hs - pad[0] - pad[1]), uint32_t(ws - pad[2] - pad[3]), uint32_t(C)};
  }
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  MoveRoute route;
  if (Status s = route_from_input0(node, 0, {}, &route); !s.ok()) return s;

  if (kernel) {
    // The batch side [Bb, hb, wb, C] and the space side [Bs, hs', ws', C]
    // (before padding / after cropping), walked over the batch side.
    const std::vector<uint32_t>& bd = kToBatch ? out_dims : x.dims;
    const std::vector<uint32_t>& sd = kToBatch ? x.dims : out_dims;
    const std::vector<size_t> bst = row_major_strides(bd), sst = row_major_strides(sd);
    const int64_t top = pad[0], left = pad[2];
    const uint64_t Bs = sd[0];
    route.element.resize(y.num_elements());
    if (kToBatch) route.pad = zero_element(x);
    for (uint64_t ob = 0; ob < bd[0]; ++ob) {
      const uint64_t blk = ob / Bs, n = ob % Bs, i = blk / bw, j = blk % bw;
      for (uint64_t h = 0; h < bd[1]; ++h)
        for (uint64_t w = 0; w < bd[2]; ++w) {
          const int64_t sh = int64_t(h * bh + i) - top, sw = int64_t(w * bw + j) - left;
          const bool inside = sh >= 0 && sw >= 0 && sh < int64_t(sd[1]) && sw < int64_t(sd[2]);
          for (uint64_t c = 0; c < C; ++c) {
            const size_t b_off = ob * bst[0] + h * bst[1] + w * bst[2] + c;
            if (!inside) {
              if (kToBatch) route.element[b_off] = kPadElement;  // padding; cropped cells are just not read
              continue;
            }
            const size_t s_off = n * sst[0] + size_t(sh) * sst[1] + size_t(sw) * sst[2] + c;
            if (kToBatch) {
              route.element[b_off] = static_cast<uint32_t>(s_off);
            } else {
              route.element[s_off] = static_cast<uint32_t>(b_off);
            }
          }
        }
    }
    *kernel = make_move_kernel(dtype::element_size(x.dtype), std::move(route));
  }
  return Status::Ok();
}

}  // namespace

OpDef space_to_batch_def() { return {"SpaceToBatch", &guarded_prepare<prepare<true>>, 0}; }
OpDef batch_to_space_def() { return {"BatchToSpace", &guarded_prepare<prepare<false>>, 0}; }

}  // namespace openhtp::ops::detail
