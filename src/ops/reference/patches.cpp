// Sliding-window patches of an NHWC image: Im2Col, Col2Im, ExtractPatches.
//
// A window at output position (oh, ow) reads input pixels
//   h = oh*stride_h - pad_top + i*dilation_h,  w = ow*stride_w - pad_left + j*dilation_w
// for taps (i, j) in [0, kh) x [0, kw); a pixel outside the image reads 0.
// A patch is laid out (i, j, c), c fastest: the order of Conv2d's HWIO
// filter flattened to [kh*kw*Cin, Cout], so Im2Col followed by a MatMul with
// that matrix is the convolution.
//
// Im2Col         in[0] [N, H, W, C]; kernel_size u32[2] M; stride u32[2],
//                [1,1]; pad_amount u32[2,2], 0 ([[top,bottom],[left,right]]);
//                dilation u32[2], [1,1]; out[0] [N, Ho*Wo, kh*kw*C],
//                Ho = (H + pt + pb - ((kh-1)*dh + 1)) / sh + 1 (floor), as Conv2d.
// Col2Im         the adjoint: in[0] [N, Ho*Wo, kh*kw*C], out[0] [N, H, W, C]
//                (H, W from out[0]); every column element is added into the
//                pixel it was read from (PyTorch fold), padding taps dropped.
// ExtractPatches TensorFlow's extract_image_patches: size u32[2] M (kh, kw);
//                stride u32[2] M; rate u32[2] M (dilation); padding u32 M
//                (VALID 0, SAME 1); out[0] [N, Ho, Wo, kh*kw*C]. VALID:
//                Ho = (H - eff_h) / sh + 1; SAME: Ho = ceil(H / sh), pad
//                before = max((Ho-1)*sh + eff_h - H, 0) / 2 (the rest after).
#include <vector>

#include "ops/op_defs.h"
#include "ops/param_reader.h"
#include "ops/shape.h"
#include "ops/validate.h"

namespace openhtp::ops::detail {
namespace {

struct Window {
  uint32_t n = 0, h = 0, w = 0, c = 0;
  uint32_t kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1;
  uint32_t pt = 0, pl = 0;
  uint32_t oh = 0, ow = 0;
};

// Source element of every column element (N*Ho*Wo*kh*kw*C), -1 for padding.
std::vector<int64_t> column_sources(const Window& g) {
  std::vector<int64_t> src;
  src.reserve(size_t{g.n} * g.oh * g.ow * g.kh * g.kw * g.c);
  for (uint32_t b = 0; b < g.n; ++b)
    for (uint32_t y = 0; y < g.oh; ++y)
      for (uint32_t x = 0; x < g.ow; ++x)
        for (uint32_t i = 0; i < g.kh; ++i)
          for (uint32_t j = 0; j < g.kw; ++j) {
            const int64_t hh = int64_t{y} * g.sh - g.pt + int64_t{i} * g.dh;
            const int64_t ww = int64_t{x} * g.sw - g.pl + int64_t{j} * g.dw;
            const bool inside = hh >= 0 && hh < g.h && ww >= 0 && ww < g.w;
            for (uint32_t ch = 0; ch < g.c; ++ch) {
              src.push_back(inside ? ((int64_t{b} * g.h + hh) * g.w + ww) * g.c + ch : -1);
            }
          }
  return src;
}

class GatherColumns final : public OpKernel {
 public:
  explicit GatherColumns(std::vector<int64_t> src) : src_(std::move(src)) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    for (size_t o = 0; o < src_.size(); ++o) y[o] = src_[o] < 0 ? 0.0f : x[src_[o]];
  }

 private:
  std::vector<int64_t> src_;
};

class ScatterColumns final : public OpKernel {
 public:
  ScatterColumns(std::vector<int64_t> dst, size_t out_n) : dst_(std::move(dst)), out_n_(out_n) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out[0]);
    for (size_t i = 0; i < out_n_; ++i) y[i] = 0.0f;
    for (size_t o = 0; o < dst_.size(); ++o) {
      if (dst_[o] >= 0) y[dst_[o]] += x[o];
    }
  }

 private:
  std::vector<int64_t> dst_;
  size_t out_n_;
};

// kernel_size / size, stride, dilation / rate as [2] tensors (each element >= 1).
Status read_pair(const NodeDesc& node, const ParamReader& params, std::string_view name,
                 std::span<const uint32_t> def, uint32_t* a, uint32_t* b) {
  const uint32_t dims[] = {2};
  std::vector<uint32_t> v;
  if (Status s = params.u32_tensor(name, dims, def, &v); !s.ok()) return s;
  for (size_t i = 0; i < 2; ++i) {
    if (v[i] == 0) return invalid(node, "parameter '", name, "' element ", i, " is 0, expected >= 1");
  }
  *a = v[0];
  *b = v[1];
  return Status::Ok();
}

// The image side (in[0] for Im2Col/ExtractPatches, out[0] for Col2Im).
Status read_image(const NodeDesc& node, const TensorDesc& t, const std::string& label, Window* g) {
  if (Status s = check_rank(node, t, label, 4, 4, StatusCode::kInvalidArgument); !s.ok()) return s;
  g->n = t.dims[0];
  g->h = t.dims[1];
  g->w = t.dims[2];
  g->c = t.dims[3];
  return Status::Ok();
}

// Conv2d-style geometry (Im2Col, Col2Im): kernel_size, stride, pad_amount, dilation.
Status read_conv_window(const NodeDesc& node, Window* g) {
  ParamReader params(node);
  if (Status s = params.check_names({"kernel_size", "stride", "pad_amount", "dilation"}); !s.ok()) return s;
  const uint32_t ones[] = {1, 1};
  if (Status s = read_pair(node, params, "kernel_size", {}, &g->kh, &g->kw); !s.ok()) return s;
  if (Status s = read_pair(node, params, "stride", ones, &g->sh, &g->sw); !s.ok()) return s;
  if (Status s = read_pair(node, params, "dilation", ones, &g->dh, &g->dw); !s.ok()) return s;
  const uint32_t pad_dims[] = {2, 2};
  const uint32_t zeros[] = {0, 0, 0, 0};
  std::vector<uint32_t> pad;
  if (Status s = params.u32_tensor("pad_amount", pad_dims, zeros, &pad); !s.ok()) return s;
  g->pt = pad[0];
  g->pl = pad[2];
  const uint64_t eh = uint64_t{g->kh - 1} * g->dh + 1, ew = uint64_t{g->kw - 1} * g->dw + 1;
  const uint64_t ph = uint64_t{g->h} + pad[0] + pad[1], pw = uint64_t{g->w} + pad[2] + pad[3];
  if (eh > ph || ew > pw) {
    return invalid(node, "the dilated kernel ", eh, "x", ew, " is larger than the padded image ", ph, "x", pw);
  }
  g->oh = static_cast<uint32_t>((ph - eh) / g->sh + 1);
  g->ow = static_cast<uint32_t>((pw - ew) / g->sw + 1);
  return Status::Ok();
}

Status check_column_size(const NodeDesc& node, const Window& g) {
  const uint64_t n = uint64_t{g.n} * g.oh * g.ow * g.kh * g.kw * g.c;
  if (n > kMaxElements) return unsupported(node, "the columns hold ", n, " elements, more than ", kMaxElements);
  return Status::Ok();
}

Status prepare_im2col(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"in"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  Window g;
  if (Status s = read_image(node, node.inputs[0], in_label(0, "in"), &g); !s.ok()) return s;
  if (Status s = read_conv_window(node, &g); !s.ok()) return s;
  if (Status s = check_column_size(node, g); !s.ok()) return s;
  const uint32_t out_dims[] = {g.n, g.oh * g.ow, g.kh * g.kw * g.c};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<GatherColumns>(column_sources(g));
  return Status::Ok();
}

Status prepare_col2im(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"columns"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  Window g;
  if (Status s = read_image(node, node.outputs[0], out_label(0), &g); !s.ok()) return s;
  if (Status s = read_conv_window(node, &g); !s.ok()) return s;
  if (Status s = check_column_size(node, g); !s.ok()) return s;
  const TensorDesc& cols = node.inputs[0];
  const std::vector<uint32_t> want = {g.n, g.oh * g.ow, g.kh * g.kw * g.c};
  if (cols.dims != want) {
    return invalid(node, "in[0] (columns) dims are ", dims_str(cols.dims), ", expected ", dims_str(want),
                   " for out[0] ", dims_str(node.outputs[0].dims));
  }
  if (kernel) *kernel = std::make_unique<ScatterColumns>(column_sources(g), node.outputs[0].num_elements());
  return Status::Ok();
}

Status prepare_extract_patches(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel) {
  if (Status s = check_io_count(node, 1, 1, 1); !s.ok()) return s;
  static constexpr std::string_view kRoles[] = {"in"};
  if (Status s = check_all_f32(node, kRoles, 1); !s.ok()) return s;
  Window g;
  if (Status s = read_image(node, node.inputs[0], in_label(0, "in"), &g); !s.ok()) return s;
  ParamReader params(node);
  if (Status s = params.check_names({"size", "stride", "rate", "padding"}); !s.ok()) return s;
  if (Status s = read_pair(node, params, "size", {}, &g.kh, &g.kw); !s.ok()) return s;
  if (Status s = read_pair(node, params, "stride", {}, &g.sh, &g.sw); !s.ok()) return s;
  if (Status s = read_pair(node, params, "rate", {}, &g.dh, &g.dw); !s.ok()) return s;
  uint32_t padding = 0;
  if (Status s = params.u32_scalar("padding", std::nullopt, &padding); !s.ok()) return s;
  if (padding > 1) return invalid(node, "parameter 'padding' is ", padding, ", expected VALID 0 or SAME 1");
  const uint64_t eh = uint64_t{g.kh - 1} * g.dh + 1, ew = uint64_t{g.kw - 1} * g.dw + 1;
  if (padding == 0) {
    if (eh > g.h || ew > g.w) {
      return invalid(node, "padding VALID: the dilated patch ", eh, "x", ew, " is larger than the image ", g.h, "x",
                     g.w);
    }
    g.oh = static_cast<uint32_t>((g.h - eh) / g.sh + 1);
    g.ow = static_cast<uint32_t>((g.w - ew) / g.sw + 1);
  } else {
    g.oh = (g.h + g.sh - 1) / g.sh;
    g.ow = (g.w + g.sw - 1) / g.sw;
    const int64_t th = (int64_t{g.oh} - 1) * g.sh + static_cast<int64_t>(eh) - g.h;
    const int64_t tw = (int64_t{g.ow} - 1) * g.sw + static_cast<int64_t>(ew) - g.w;
    g.pt = static_cast<uint32_t>(th > 0 ? th / 2 : 0);
    g.pl = static_cast<uint32_t>(tw > 0 ? tw / 2 : 0);
  }
  if (Status s = check_column_size(node, g); !s.ok()) return s;
  const uint32_t out_dims[] = {g.n, g.oh, g.ow, g.kh * g.kw * g.c};
  if (Status s = check_output_dims(node, 0, out_dims); !s.ok()) return s;
  if (kernel) *kernel = std::make_unique<GatherColumns>(column_sources(g));
  return Status::Ok();
}

}  // namespace

OpDef im2col_def() { return {"Im2Col", &guarded_prepare<prepare_im2col>, op_flags::kAdaptTypes}; }
OpDef col2im_def() { return {"Col2Im", &guarded_prepare<prepare_col2im>, op_flags::kAdaptTypes}; }
OpDef extract_patches_def() {
  return {"ExtractPatches", &guarded_prepare<prepare_extract_patches>, op_flags::kAdaptTypes};
}

}  // namespace openhtp::ops::detail
