#include "kernels/onednn_channel_scale.h"

#include <cstring>

#include "kernels/onednn_runtime.h"

namespace openhtp::kernels::onednn {

ChannelScaledWeights::ChannelScaledWeights(const dnnl::memory& packed, const dnnl::memory::desc& user,
                                           const ops::ConvGeometry& g)
    : factor_(size_t{g.Cin} + 1, 0.0f), scaled_(packed.get_desc(), engine()) {
  const size_t n = packed.get_desc().get_size() / sizeof(float);
  packed_.resize(n);
  std::memcpy(packed_.data(), packed.get_data_handle(), n * sizeof(float));
  // The user layout is HWIO: offset ((h * KW + w) * cin_g + i) * Cout + o,
  // output channel o of group o / cout_g reading input channel
  // (o / cout_g) * cin_g + i. Channel numbers stay exact in a float (< 2^24).
  const size_t cin_g = g.cin_g(), cout = g.Cout, cout_g = g.cout_g(), taps = size_t{g.KH} * g.KW;
  std::vector<float> index(taps * cin_g * cout);
  for (size_t t = 0; t < taps; ++t) {
    for (size_t i = 0; i < cin_g; ++i) {
      for (size_t o = 0; o < cout; ++o) index[(t * cin_g + i) * cout + o] = static_cast<float>((o / cout_g) * cin_g + i + 1);
    }
  }
  dnnl::memory from(user, engine(), index.data());
  dnnl::memory to(packed.get_desc(), engine());
  dnnl::stream s(engine());
  dnnl::reorder(from, to).execute(s, from, to);
  s.wait();
  const float* c = static_cast<const float*>(to.get_data_handle());
  channel_.resize(n);
  for (size_t j = 0; j < n; ++j) channel_[j] = static_cast<uint32_t>(c[j]);
  std::memcpy(scaled_.get_data_handle(), packed_.data(), n * sizeof(float));
}

void ChannelScaledWeights::apply(const float* scale) {
  std::memcpy(factor_.data() + 1, scale, (factor_.size() - 1) * sizeof(float));
  float* out = static_cast<float*>(scaled_.get_data_handle());
  const float* f = factor_.data();
  const uint32_t* c = channel_.data();
  const float* w = packed_.data();
  for (size_t j = 0, n = packed_.size(); j < n; ++j) out[j] = w[j] * f[c[j]];
}

}  // namespace openhtp::kernels::onednn
