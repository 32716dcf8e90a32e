// DepthToSpace and SpaceToDepth on NHWC tensors, with block_size
// [bh, bw] (a UINT_32 tensor of 2) and mode DCR (0, default) or CRD (1):
//
//   DepthToSpace: [N,H,W,C] -> [N,H*bh,W*bw,C/(bh*bw)];
//     y[n, h*bh+i, w*bw+j, c] = x[n, h, w, d] with
//     d = (i*bw + j)*C' + c (DCR) or d = c*bh*bw + i*bw + j (CRD), C' = C/(bh*bw).
//   SpaceToDepth is its inverse: [N,H,W,C] -> [N,H/bh,W/bw,C*bh*bw] with
//     y[n, h, w, d] = x[n, h*bh+i, w*bw+j, c] for the same d.
//
// Type-generic (elements moved by byte size; encodings as in data_movement.cpp).
#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/reference/data_movement.h"
#include "ops/reference/indexing_util.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {

namespace {

enum class Mode : uint32_t { kDcr = 0, kCrd = 1 };

template <bool kToSpace>
Status prepare(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"block_size", "mode"}); !s.ok()) return s;
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& y = node.outputs[0];
  if (Status s = check_generic_tensor(node, x, in_label(0, "")); !s.ok()) return s;
  if (Status s = check_generic_tensor(node, y, out_label(0)); !s.ok()) return s;
  std::vector<uint32_t> block;
  if (Status s = read_nhwc_block(node, &block); !s.ok()) return s;
  uint32_t mode = 0;
  if (Status s = params.u32_scalar("mode", 0u, &mode); !s.ok()) return s;
  if (mode > 1) return invalid(node, "parameter 'mode' is ", mode, ", expected 0 (DCR) or 1 (CRD)");
  const size_t bh = block[0], bw = block[1];

  // The space-side (large) shape S and the depth-side (small) shape D; the
  // two ops are the same correspondence read in opposite directions.
  std::vector<uint32_t> space, depth;
  if (kToSpace) {
    depth = x.dims;
    if (x.dims[3] % (bh * bw) != 0) {
      return invalid(node, "in[0] depth ", x.dims[3], " is not divisible by block_size ", bh, "x", bw, " = ",
                     bh * bw);
    }
    const uint64_t H = uint64_t{x.dims[1]} * bh, W = uint64_t{x.dims[2]} * bw;
    if (H > UINT32_MAX || W > UINT32_MAX) return unsupported(node, "out[0] spatial dims would overflow");
    space = {x.dims[0], static_cast<uint32_t>(H), static_cast<uint32_t>(W), static_cast<uint32_t>(x.dims[3] / (bh * bw))};
  } else {
    space = x.dims;
    if (x.dims[1] % bh != 0 || x.dims[2] % bw != 0) {
      return invalid(node, "in[0] spatial dims ", x.dims[1], "x", x.dims[2], " are not divisible by block_size ",
                     bh, "x", bw);
    }
    const uint64_t C = uint64_t{x.dims[3]} * bh * bw;
    if (C > UINT32_MAX) return unsupported(node, "out[0] depth would overflow");
    depth = {x.dims[0], static_cast<uint32_t>(x.dims[1] / bh), static_cast<uint32_t>(x.dims[2] / bw),
             static_cast<uint32_t>(C)};
  }
  if (Status s = check_output_dims(node, 0, kToSpace ? space : depth); !s.ok()) return s;
  MoveRoute route;
  if (Status s = route_from_input0(node, 0, {}, &route); !s.ok()) return s;

  if (kernel) {
    const std::vector<size_t> ss = row_major_strides(space), ds = row_major_strides(depth);
    const size_t c_small = space[3];
    route.element.resize(y.num_elements());
    for (size_t n = 0; n < space[0]; ++n)
      for (size_t h = 0; h < depth[1]; ++h)
        for (size_t w = 0; w < depth[2]; ++w)
          for (size_t i = 0; i < bh; ++i)
            for (size_t j = 0; j < bw; ++j)
              for (size_t c = 0; c < c_small; ++c) {
                const size_t d = static_cast<Mode>(mode) == Mode::kDcr ? (i * bw + j) * c_small + c
                                                                       : c * bh * bw + i * bw + j;
                const size_t s_off = n * ss[0] + (h * bh + i) * ss[1] + (w * bw + j) * ss[2] + c;
                const size_t d_off = n * ds[0] + h * ds[1] + w * ds[2] + d;
                if (kToSpace) {
                  route.element[s_off] = static_cast<uint32_t>(d_off);
                } else {
                  route.element[d_off] = static_cast<uint32_t>(s_off);
                }
              }
    *kernel = make_move_kernel(dtype::element_size(x.dtype), std::move(route));
  }
  return Status::Ok();
}

}  // namespace

OpDef depth_to_space_def() { return {"DepthToSpace", &guarded_prepare<prepare<true>>, 0}; }
OpDef space_to_depth_def() { return {"SpaceToDepth", &guarded_prepare<prepare<false>>, 0}; }

}  // namespace openhtp::ops::detail
