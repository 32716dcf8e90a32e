// MatMul (batched, broadcasting, transpose_in0/in1) and FullyConnected in
// FLOAT_32 through oneDNN's matmul primitive.
//
// FullyConnected fp32 goes here rather than to XNNPACK: kernels_bench
// measured oneDNN ahead on FC 512x512 (this XNNPACK build's fp32 GEMM
// micro-kernel spills an accumulator and runs at about half the speed, see
// the kernel evaluation notes), and batch-1 FC is memory-bound where both
// libraries stream the same packed weights.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/onednn_paths.h"
#include "kernels/onednn_runtime.h"

namespace openhtp::kernels::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

// Runs a matmul whose bound arguments are in[0] (src), optionally in[1]
// (weights, for MatMul) and out[0] (dst).
class MatMulKernel final : public ops::OpKernel {
 public:
  // res_slot: the fused residual's executor slot (SIZE_MAX: none), read from in[res_in].
  MatMulKernel(Executor ex, size_t src, size_t weights, size_t dst, bool bind_weights, size_t res_slot, size_t res_in,
               EpilogueTail tail)
      : ex_(std::move(ex)), src_(src), weights_(weights), dst_(dst), bind_weights_(bind_weights), res_slot_(res_slot),
        res_in_(res_in), tail_(tail) {}
  size_t workspace_bytes() const override { return ex_.workspace_bytes(); }
  bool uses_openmp_team() const override { return ex_.multi_threaded(); }
  void set_workspace(void* memory) override { ex_.set_workspace(memory); }
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    ex_.bind(src_, in[0]);
    if (bind_weights_) ex_.bind(weights_, in[1]);
    if (res_slot_ != SIZE_MAX) ex_.bind(res_slot_, in[res_in_]);
    ex_.bind(dst_, out[0]);
    ex_.execute();
    tail_.apply(out[0]);
  }

 private:
  Executor ex_;
  size_t src_, weights_, dst_;
  bool bind_weights_;
  size_t res_slot_, res_in_;
  EpilogueTail tail_;
};

memory bias_memory(const memory::desc& md, const void* data, size_t n) {
  memory b(md, engine());
  std::memcpy(b.get_data_handle(), data, n * sizeof(float));
  return b;
}

bool prepare_fc(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& x = node.inputs[0];
  const ops::TensorDesc& w = node.inputs[1];
  if (w.static_data == nullptr || w.dims.size() != 2 || node.outputs[0].dims.size() != 2) return false;
  const bool has_bias = node.inputs.size() > 2 && node.inputs[2].present;
  if (has_bias && node.inputs[2].static_data == nullptr) return false;
  const memory::dim m = w.dims[0], n = w.dims[1], batch = node.outputs[0].dims[0];
  if (x.num_elements() != size_t(batch * n)) return false;

  const memory::desc src({batch, n}, dt::f32, tag::ab);
  const memory::desc dst({batch, m}, dt::f32, tag::ab);
  // Weights [m][n] are B^T: B = {n, m} with strides {1, n}.
  const memory::desc w_user({n, m}, dt::f32, memory::dims{1, n});
  const memory::desc w_any({n, m}, dt::f32, tag::any);
  const memory::desc bias_md({1, m}, dt::f32, tag::ab);
  const dnnl::matmul::desc d = has_bias ? dnnl::matmul::desc(src, w_any, bias_md, dst)
                                        : dnnl::matmul::desc(src, w_any, dst);
  dnnl::primitive_attr attr = default_attr();
  add_epilogue(node, dst, &attr);
  const dnnl::matmul::primitive_desc pd(d, attr, engine());
  memory w_packed(pd.weights_desc(), engine());
  {
    memory w_src(w_user, engine(), const_cast<void*>(w.static_data));
    dnnl::stream s(engine());
    dnnl::reorder(w_src, w_packed).execute(s, w_src, w_packed);
    s.wait();
  }
  Executor ex(dnnl::matmul(pd), pd.scratchpad_desc(), threads_of(node));
  ex.add_fixed(DNNL_ARG_WEIGHTS, w_packed);
  if (has_bias) ex.add_fixed(DNNL_ARG_BIAS, bias_memory(bias_md, node.inputs[2].static_data, m));
  const size_t s = ex.add_bound(DNNL_ARG_SRC, src);
  const size_t o = ex.add_bound(DNNL_ARG_DST, dst);
  const size_t r = has_residual(node) ? ex.add_bound(residual_arg(), dst) : SIZE_MAX;
  *kernel = std::make_unique<MatMulKernel>(std::move(ex), s, 0, o, false, r, residual_input(node), EpilogueTail(node));
  return true;
}

bool prepare_mm(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  const ops::TensorDesc& b = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  MatMulLayout l;
  if (!matmul_layout(node, &l)) return false;
  const bool has_bias = node.inputs.size() > 2 && node.inputs[2].present;
  if (has_bias && node.inputs[2].static_data == nullptr) return false;
  const size_t rank = l.rank;
  const bool ta = l.ta, tb = l.tb;
  const std::vector<uint32_t>& a_dims = l.a_dims;
  const std::vector<uint32_t>& y_dims = l.y_dims;

  const memory::desc src = matmul_operand(a_dims, rank, ta, dt::f32);
  const memory::desc wei = matmul_operand(b.dims, rank, tb, dt::f32);
  const memory::desc dst(memory::dims(y_dims.begin(), y_dims.end()), dt::f32,
                         rank == 2 ? tag::ab : rank == 3 ? tag::abc : tag::abcd);
  memory::dims bias_dims(rank, 1);
  bias_dims.back() = y.dims.back();
  const memory::desc bias_md(bias_dims, dt::f32, rank == 2 ? tag::ab : rank == 3 ? tag::abc : tag::abcd);
  // Static 2-D weights are packed once into the layout oneDNN picks (as
  // FullyConnected's are); anything else is bound as stored on every run.
  const bool pack = b.static_data != nullptr && rank == 2;
  const memory::desc wei_md = pack ? memory::desc(wei.dims(), dt::f32, tag::any) : wei;
  const dnnl::matmul::desc d = has_bias ? dnnl::matmul::desc(src, wei_md, bias_md, dst)
                                        : dnnl::matmul::desc(src, wei_md, dst);
  dnnl::primitive_attr attr = default_attr();
  add_epilogue(node, dst, &attr);
  const dnnl::matmul::primitive_desc pd(d, attr, engine());
  Executor ex(dnnl::matmul(pd), pd.scratchpad_desc(), threads_of(node));
  if (has_bias) ex.add_fixed(DNNL_ARG_BIAS, bias_memory(bias_md, node.inputs[2].static_data, y.dims.back()));
  const size_t s = ex.add_bound(DNNL_ARG_SRC, src);
  if (pack) {
    memory w_packed(pd.weights_desc(), engine());
    memory w_src(wei, engine(), const_cast<void*>(b.static_data));
    dnnl::stream st(engine());
    dnnl::reorder(w_src, w_packed).execute(st, w_src, w_packed);
    st.wait();
    ex.add_fixed(DNNL_ARG_WEIGHTS, w_packed);
    const size_t o = ex.add_bound(DNNL_ARG_DST, dst);
    const size_t r = has_residual(node) ? ex.add_bound(residual_arg(), dst) : SIZE_MAX;
    *kernel = std::make_unique<MatMulKernel>(std::move(ex), s, 0, o, false, r, residual_input(node), EpilogueTail(node));
    return true;
  }
  const size_t w = ex.add_bound(DNNL_ARG_WEIGHTS, wei);
  const size_t o = ex.add_bound(DNNL_ARG_DST, dst);
  const size_t r = has_residual(node) ? ex.add_bound(residual_arg(), dst) : SIZE_MAX;
  *kernel = std::make_unique<MatMulKernel>(std::move(ex), s, w, o, true, r, residual_input(node), EpilogueTail(node));
  return true;
}

}  // namespace

memory::desc matmul_operand(const std::vector<uint32_t>& stored, size_t rank, bool transpose, memory::data_type type) {
  memory::dims dims(rank, 1), strides(rank, 0);
  const size_t r = stored.size(), lead = rank - r;
  memory::dim stride = 1;
  std::vector<memory::dim> stored_strides(r);
  for (size_t i = r; i-- > 0;) {
    stored_strides[i] = stride;
    stride *= stored[i];
  }
  for (size_t i = 0; i < lead; ++i) strides[i] = stride;  // broadcast leading dims: any valid stride
  for (size_t i = 0; i < r; ++i) {
    dims[lead + i] = stored[i];
    strides[lead + i] = stored_strides[i];
  }
  if (transpose) {
    std::swap(dims[rank - 1], dims[rank - 2]);
    std::swap(strides[rank - 1], strides[rank - 2]);
  }
  return memory::desc(dims, type, strides);
}

bool matmul_layout(const ops::NodeDesc& node, MatMulLayout* out) {
  const ops::TensorDesc& a = node.inputs[0];
  const ops::TensorDesc& b = node.inputs[1];
  const ops::TensorDesc& y = node.outputs[0];
  MatMulLayout l;
  if (const ops::Param* p = node.find_param("transpose_in0")) l.ta = p->i != 0;
  if (const ops::Param* p = node.find_param("transpose_in1")) l.tb = p->i != 0;
  l.rank = y.dims.size();
  if (l.rank < 2 || a.dims.size() > l.rank || b.dims.size() > l.rank) return false;
  l.a_dims = a.dims;
  l.y_dims = y.dims;
  // [..., M, K] x [K, N] (a 2-D in[1], in[0] not transposed): the batch of
  // GEMMs is one GEMM of batch * M rows, since in[0] and the output are
  // row-major. PyTorch's attention exports its input projection as
  // [128, 1, 256] x [256, 768]: 128 GEMVs against the same weights, which
  // oneDNN ran as a batched matmul ~3x slower than the one GEMM.
  if (b.dims.size() == 2 && !l.ta && a.dims.size() == l.rank && l.rank > 2) {
    uint64_t rows = 1;
    for (size_t i = 0; i + 1 < l.rank; ++i) rows *= a.dims[i];
    if (rows <= UINT32_MAX) {
      l.a_dims = {static_cast<uint32_t>(rows), a.dims.back()};
      l.y_dims = {static_cast<uint32_t>(rows), y.dims.back()};
      l.rank = 2;
    }
  }
  if (l.rank > 4) return false;
  *out = std::move(l);
  return true;
}


bool prepare_fully_connected(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  use_graph_threads(node);
  if (!all_f32(node) || node.inputs.size() < 2 || !epilogue_fits_f32(node)) return false;
  try {
    return prepare_fc(node, kernel);
  } catch (const dnnl::error&) {
    return false;
  }
}

bool prepare_matmul(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel) {
  use_graph_threads(node);
  if (!all_f32(node) || node.inputs.size() < 2 || !epilogue_fits_f32(node)) return false;
  try {
    return prepare_mm(node, kernel);
  } catch (const dnnl::error&) {
    return false;
  }
}

}  // namespace openhtp::kernels::onednn
