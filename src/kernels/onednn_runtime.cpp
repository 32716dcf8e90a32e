#include "kernels/onednn_runtime.h"

#include <omp.h>

#include <cstdint>
#include <vector>

namespace openhtp::kernels::onednn {

const dnnl::engine& engine() {
  static const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

dnnl::primitive_attr default_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

Executor::Executor(dnnl::primitive prim, const dnnl::memory::desc& scratchpad_md, int threads)
    : prim_(std::move(prim)), stream_(engine()), threads_(threads), scratchpad_(scratchpad_md.get_size()) {
  // Reserve so that args_ never reallocates after the memories are added.
  keep_.reserve(8);
  args_.reserve(8);
  scratchpad_slot_ = add_bound(DNNL_ARG_SCRATCHPAD, scratchpad_md);
}

size_t Executor::add_bound(int arg, const dnnl::memory::desc& md) {
  add_fixed(arg, dnnl::memory(md, engine(), DNNL_MEMORY_NONE));
  return args_.size() - 1;
}

void Executor::add_fixed(int arg, dnnl::memory mem) {
  args_.push_back({arg, mem.get()});
  keep_.push_back(std::move(mem));
}

void use_graph_threads(const ops::NodeDesc& node) { omp_set_num_threads(threads_of(node)); }

void Executor::execute() {
  // Sizes oneDNN's OpenMP team like the graph's pthreadpool (see header).
  omp_set_num_threads(threads_);
  if (void* s = scratchpad_.data(); s != scratchpad_bound_) {  // first run, or the regions moved
    bind(scratchpad_slot_, s);
    scratchpad_bound_ = s;
  }
  dnnl_primitive_execute(prim_.get(), stream_.get(), static_cast<int>(args_.size()), args_.data());
  dnnl_stream_wait(stream_.get());
}

// ---- int8 exactness gate -------------------------------------------------

namespace {

bool cpu_has_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512vnni") || __builtin_cpu_supports("avxvnni");
#else
  return false;
#endif
}

// One self-test convolution: NHWC src (u8 or s8, zero point src_zp), s8
// weights HWIO ([kh,kw,Cin/g,Cout]), s32 bias, s32 dst; 'same' padding 1 for
// 3x3, none for 1x1.
struct SelfTestCase {
  bool s8_src;
  bool depthwise;
  int k;  // 3 or 1
  int cin, cout;
  int32_t src_zp;
};

bool run_self_test_case(const SelfTestCase& tc) {
  using dnnl::memory;
  using dt = memory::data_type;
  using tag = memory::format_tag;
  constexpr int kH = 5, kW = 6;
  const int k = tc.k, pad = k / 2, group = tc.depthwise ? tc.cin : 1;
  const int cin_g = tc.cin / group, cout_g = tc.cout / group;

  // Deterministic data. Inputs alternate between a saturating block (all
  // 255 / 127) and pseudo-random values; weights are full range and start
  // each output channel with +-127 runs, so any int16 pair product
  // (255*127*2 = 64770) overflows where a non-VNNI kernel is used.
  uint32_t state = 12345u + static_cast<uint32_t>(tc.cin * 7 + tc.k);
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  std::vector<uint8_t> x(size_t{kH} * kW * tc.cin);
  for (size_t i = 0; i < x.size(); ++i) {
    const bool hot = (i / tc.cin) % 3 == 0;
    const uint8_t v = hot ? (tc.s8_src ? 127 : 255) : static_cast<uint8_t>(next());
    x[i] = v;
  }
  std::vector<int8_t> w(size_t(k) * k * cin_g * tc.cout);
  for (size_t i = 0; i < w.size(); ++i) {
    const size_t co = i % tc.cout;
    const bool hot = (i / tc.cout) % 4 < 2;
    w[i] = hot ? static_cast<int8_t>(co % 2 ? -127 : 127) : static_cast<int8_t>(static_cast<int>(next() % 255) - 127);
  }
  std::vector<int32_t> bias(tc.cout);
  for (int c = 0; c < tc.cout; ++c) bias[c] = static_cast<int32_t>(next() % 2001) - 1000;

  auto src_value = [&](size_t i) { return tc.s8_src ? int64_t{static_cast<int8_t>(x[i])} : int64_t{x[i]}; };
  std::vector<int32_t> expected(size_t{kH} * kW * tc.cout);
  for (int oh = 0; oh < kH; ++oh)
    for (int ow = 0; ow < kW; ++ow)
      for (int co = 0; co < tc.cout; ++co) {
        int64_t acc = bias[co];
        const int g = co / cout_g;
        for (int kh = 0; kh < k; ++kh)
          for (int kw = 0; kw < k; ++kw) {
            const int ih = oh - pad + kh, iw = ow - pad + kw;
            if (ih < 0 || iw < 0 || ih >= kH || iw >= kW) continue;  // padding is the zero point: adds 0
            for (int ci = 0; ci < cin_g; ++ci) {
              const int64_t xv = src_value((size_t(ih) * kW + iw) * tc.cin + g * cin_g + ci) - tc.src_zp;
              acc += xv * w[((size_t(kh) * k + kw) * cin_g + ci) * tc.cout + co];
            }
          }
        expected[(size_t(oh) * kW + ow) * tc.cout + co] = static_cast<int32_t>(acc);
      }

  const memory::desc src({1, tc.cin, kH, kW}, tc.s8_src ? dt::s8 : dt::u8, tag::nhwc);
  const memory::desc dst({1, tc.cout, kH, kW}, dt::s32, tag::nhwc);
  const memory::dims w_dims = group == 1 ? memory::dims{tc.cout, cin_g, k, k}
                                         : memory::dims{group, cout_g, cin_g, k, k};
  const memory::desc w_user(w_dims, dt::s8, group == 1 ? tag::hwio : tag::hwigo);
  const memory::desc w_any(w_dims, dt::s8, tag::any);
  const memory::desc bias_md({memory::dim{tc.cout}}, dt::s32, tag::x);
  dnnl::primitive_attr attr;
  attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  using conv = dnnl::convolution_forward;
  const conv::primitive_desc pd(conv::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                           src, w_any, bias_md, dst, {1, 1}, {pad, pad}, {pad, pad}),
                                attr, engine());
  dnnl::stream s(engine());
  memory w_src(w_user, engine(), w.data()), w_packed(pd.weights_desc(), engine());
  dnnl::reorder(w_src, w_packed).execute(s, w_src, w_packed);
  std::vector<int32_t> y(expected.size(), 0x5a5a5a5a);
  int32_t zp = tc.src_zp;
  memory x_mem(src, engine(), x.data()), b_mem(bias_md, engine(), bias.data()), y_mem(dst, engine(), y.data());
  memory zp_mem({{1}, dt::s32, tag::x}, engine(), &zp);
  conv(pd).execute(s, {{DNNL_ARG_SRC, x_mem},
                       {DNNL_ARG_WEIGHTS, w_packed},
                       {DNNL_ARG_BIAS, b_mem},
                       {DNNL_ARG_DST, y_mem},
                       {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zp_mem}});
  s.wait();
  return y == expected;
}

}  // namespace

bool int8_self_test() {
  static constexpr SelfTestCase kCases[] = {
      {false, false, 3, 32, 16, 0},    // u8 3x3, the common case
      {false, false, 3, 24, 8, 131},   // u8 3x3, asymmetric src (zero-point compensation)
      {true, false, 3, 32, 16, -5},    // s8 src (oneDNN shifts it to u8 internally)
      {false, false, 1, 64, 32, 128},  // 1x1
      {false, true, 3, 32, 32, 17},    // depthwise
  };
  try {
    for (const SelfTestCase& tc : kCases) {
      if (!run_self_test_case(tc)) return false;
    }
  } catch (const dnnl::error&) {
    return false;
  }
  return true;
}

bool int8_convolution_exact() {
  static const bool exact = cpu_has_vnni() && int8_self_test();
  return exact;
}

}  // namespace openhtp::kernels::onednn
