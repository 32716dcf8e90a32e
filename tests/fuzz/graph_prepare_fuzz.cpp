// Fuzz target: the DSP's graph decoder (what graphFinalize sends) and then
// the runtime's prepare of whatever decodes — op validation, kernel choice,
// the memory plan — with the reference kernels. Each input must be refused
// with a message or prepared; never a crash, a hang, an out-of-bounds read
// (ASan in the sanitizer pass) or an allocation the runtime cannot back.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <iterator>
#include <random>
#include <string>

#include "binary/graph_codec.h"
#include "fuzz_target.h"
#include "htp/runtime.h"

namespace {

struct Fixture {
  std::unique_ptr<openhtp::htp::Runtime> rt = openhtp::htp::make_runtime({});
  uint64_t context = 0;
  Fixture() {
    if (!rt->create_context({}, &context).ok()) __builtin_trap();
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

// How deep inputs got, printed at exit: a campaign whose inputs all die in
// the decoder tests only the decoder.
struct Depth {
  uint64_t decoded = 0, prepared = 0;
  ~Depth() {
    std::fprintf(stderr, "fuzz_graph_prepare: %llu inputs decoded, %llu prepared\n",
                 static_cast<unsigned long long>(decoded), static_cast<unsigned long long>(prepared));
  }
} depth;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  openhtp::htp::GraphSpec spec;
  std::string error;
  if (!openhtp::binary::decode_graph(data, size, &spec, &error)) {
    if (error.empty()) __builtin_trap();  // every refusal explains itself
    return 0;
  }
  ++depth.decoded;
  Fixture& f = fixture();
  openhtp::htp::GraphInfo info;
  const openhtp::htp::Status s = f.rt->prepare_graph(f.context, std::move(spec), nullptr, &info);
  if (!s.ok()) {
    if (s.message.empty()) __builtin_trap();
    return 0;
  }
  ++depth.prepared;
  // A prepared graph's plan stays inside the device.
  if (info.vtcm_bytes > f.rt->device().vtcm_bytes || info.arena_bytes < info.vtcm_bytes) __builtin_trap();
  if (!f.rt->free_graph(info.graph_id).ok()) __builtin_trap();
  return 0;
}

namespace fuzz {
namespace {

using namespace openhtp;

htp::TensorSpec t(uint32_t id, const char* name, uint32_t type, std::vector<uint32_t> dims) {
  return {id, name, type, ops::dtype::kFloat32, std::move(dims), {}, {}};
}

}  // namespace

// Small graphs of the ops most inputs reach: elementwise with a STATIC
// operand, a convolution (parameters, weights, bias), a reshape chain.
std::vector<std::vector<uint8_t>> seeds() {
  std::vector<std::vector<uint8_t>> out;
  {
    htp::GraphSpec g;
    g.name = "add";
    g.tensors = {t(1, "x", htp::tensor_type::kAppWrite, {1, 8}), t(2, "w", htp::tensor_type::kStatic, {1, 8}),
                 t(3, "a", htp::tensor_type::kNative, {1, 8}), t(4, "y", htp::tensor_type::kAppRead, {1, 8})};
    g.tensors[1].static_data = std::vector<uint8_t>(32, 1);
    g.nodes.push_back({"add", "qti.aisw", "ElementWiseAdd", {}, {1, 2}, {3}});
    g.nodes.push_back({"relu", "qti.aisw", "Relu", {}, {3}, {4}});
    g.num_hvx_threads = 1;
    out.push_back(binary::encode_graph(g));
  }
  {
    htp::GraphSpec g;
    g.name = "conv";
    g.tensors = {t(1, "x", htp::tensor_type::kAppWrite, {1, 6, 6, 2}), t(2, "w", htp::tensor_type::kStatic, {3, 3, 2, 4}),
                 t(3, "b", htp::tensor_type::kStatic, {4}), t(4, "y", htp::tensor_type::kAppRead, {1, 4, 4, 4})};
    g.tensors[1].static_data = std::vector<uint8_t>(3 * 3 * 2 * 4 * 4, 0);
    g.tensors[2].static_data = std::vector<uint8_t>(16, 0);
    g.nodes.push_back({"conv", "qti.aisw", "Conv2d", {}, {1, 2, 3}, {4}});
    g.num_hvx_threads = 1;
    out.push_back(binary::encode_graph(g));
  }
  // Fused steps through the type adapter (htp/fusion.h): an fp16
  // FullyConnected + residual Add + Relu, and a uint8 TransposeConv2d + Add
  // + Relu with encodings of their own.
  {
    htp::GraphSpec g;
    g.name = "fc_f16";
    g.tensors = {t(1, "x", htp::tensor_type::kAppWrite, {2, 8}), t(2, "w", htp::tensor_type::kStatic, {4, 8}),
                 t(3, "f", htp::tensor_type::kNative, {2, 4}), t(4, "r", htp::tensor_type::kAppWrite, {2, 4}),
                 t(5, "s", htp::tensor_type::kNative, {2, 4}), t(6, "y", htp::tensor_type::kAppRead, {2, 4})};
    for (auto& x : g.tensors) x.dtype = ops::dtype::kFloat16;
    g.tensors[1].static_data = std::vector<uint8_t>(4 * 8 * 2, 0x3c);
    g.nodes.push_back({"fc", "qti.aisw", "FullyConnected", {}, {1, 2}, {3}});
    g.nodes.push_back({"add", "qti.aisw", "ElementWiseAdd", {}, {3, 4}, {5}});
    g.nodes.push_back({"relu", "qti.aisw", "Relu", {}, {5}, {6}});
    g.num_hvx_threads = 1;
    out.push_back(binary::encode_graph(g));
  }
  {
    htp::GraphSpec g;
    g.name = "tconv_u8";
    g.tensors = {t(1, "x", htp::tensor_type::kAppWrite, {1, 3, 3, 2}), t(2, "w", htp::tensor_type::kStatic, {2, 2, 2, 4}),
                 t(3, "c", htp::tensor_type::kNative, {1, 6, 6, 4}), t(4, "r", htp::tensor_type::kAppWrite, {1, 6, 6, 4}),
                 t(5, "s", htp::tensor_type::kNative, {1, 6, 6, 4}), t(6, "y", htp::tensor_type::kAppRead, {1, 6, 6, 4})};
    for (auto& x : g.tensors) {
      x.dtype = ops::dtype::kUfixed8;
      x.quant = ops::Quant::per_tensor(0.02f * static_cast<float>(x.id), -static_cast<int32_t>(10 * x.id));
    }
    g.tensors[1].dtype = ops::dtype::kSfixed8;
    g.tensors[1].quant = ops::Quant::per_tensor(0.01f, 0);
    g.tensors[1].static_data = std::vector<uint8_t>(2 * 2 * 2 * 4, 3);
    auto u32s = [](const char* name, std::vector<uint32_t> dims, std::vector<uint32_t> values) {
      ops::Param p;
      p.name = name;
      p.is_tensor = true;
      p.dtype = ops::dtype::kUint32;
      p.dims = std::move(dims);
      p.data.resize(values.size() * 4);
      std::memcpy(p.data.data(), values.data(), p.data.size());
      return p;
    };
    g.nodes.push_back({"tconv", "qti.aisw", "TransposeConv2d",
                       {u32s("stride", {2}, {2, 2}), u32s("pad_amount", {2, 2}, {0, 0, 0, 0})}, {1, 2}, {3}});
    g.nodes.push_back({"add", "qti.aisw", "ElementWiseAdd", {}, {3, 4}, {5}});
    g.nodes.push_back({"relu", "qti.aisw", "Relu", {}, {5}, {6}});
    g.num_hvx_threads = 1;
    out.push_back(binary::encode_graph(g));
  }
  return out;
}

bool unwrap(const std::vector<uint8_t>&, std::vector<uint8_t>*) { return false; }  // no framing: no CRC to pass
std::vector<uint8_t> wrap(const std::vector<uint8_t>& inner) { return inner; }

// Decode, change one thing a graph is made of, encode: inputs that pass the
// decoder's verifier and reach prepare's rules (few byte mutations do).
bool mutate_structure(std::vector<uint8_t>* input, uint64_t random) {
  htp::GraphSpec g;
  std::string error;
  if (!binary::decode_graph(input->data(), input->size(), &g, &error) || g.tensors.empty()) return false;
  std::mt19937_64 rng(random);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  // Values that sit on the edges of what the rules allow.
  const uint32_t edgy[] = {0, 1, 2, 3, 7, 64, 255, 256, 65535, 1u << 20, 1u << 31, 0xffffffffu};
  const uint32_t dtypes[] = {ops::dtype::kFloat32, ops::dtype::kFloat16, ops::dtype::kUfixed8, ops::dtype::kSfixed8,
                             ops::dtype::kUfixed16, ops::dtype::kSfixed32, ops::dtype::kInt32, ops::dtype::kUint8,
                             ops::dtype::kBool8, 0, 0x7fffffffu};
  htp::TensorSpec& t = g.tensors[pick(g.tensors.size())];
  switch (rng() % 9) {
    case 0:  // a dimension
      if (!t.dims.empty()) t.dims[pick(t.dims.size())] = edgy[pick(std::size(edgy))];
      break;
    case 1:  // the rank
      if (rng() % 2 == 0 && !t.dims.empty()) {
        t.dims.pop_back();
      } else if (t.dims.size() < 8) {
        t.dims.push_back(1 + static_cast<uint32_t>(rng() % 4));
      }
      break;
    case 2: t.dtype = dtypes[pick(std::size(dtypes))]; break;
    case 3: t.type = static_cast<uint32_t>(rng() % 8); break;
    case 4:  // static data of another size
      t.static_data = std::vector<uint8_t>(rng() % 2 == 0 ? t.static_data.size() / 2
                                                          : t.static_data.size() + 1 + rng() % 64);
      break;
    case 5: {  // a node's connection
      if (g.nodes.empty()) break;
      htp::NodeSpec& n = g.nodes[pick(g.nodes.size())];
      auto& ends = rng() % 2 == 0 ? n.inputs : n.outputs;
      if (!ends.empty()) ends[pick(ends.size())] = rng() % 3 == 0 ? edgy[pick(std::size(edgy))] : g.tensors[pick(g.tensors.size())].id;
      break;
    }
    case 6: {  // a node's op
      if (g.nodes.empty()) break;
      const auto ops_list = ops::all_ops();
      g.nodes[pick(g.nodes.size())].type = std::string(ops_list[pick(ops_list.size())].type_name);
      break;
    }
    case 7: {  // a node's parameter: dropped, or a scalar or tensor of odd value
      if (g.nodes.empty()) break;
      htp::NodeSpec& n = g.nodes[pick(g.nodes.size())];
      if (!n.params.empty() && rng() % 3 == 0) {
        n.params.erase(n.params.begin() + static_cast<long>(pick(n.params.size())));
        break;
      }
      ops::Param p;
      const char* names[] = {"stride", "pad_amount", "dilation", "group", "axis", "keep_dims", "perm", "shape"};
      p.name = names[pick(std::size(names))];
      p.is_tensor = rng() % 2 == 0;
      p.dtype = rng() % 2 == 0 ? ops::dtype::kUint32 : ops::dtype::kInt32;
      p.i = static_cast<int64_t>(edgy[pick(std::size(edgy))]) - (rng() % 2 == 0 ? 0 : 4);
      if (p.is_tensor) {
        const uint32_t n_el = static_cast<uint32_t>(rng() % 5);
        p.dims = {n_el};
        p.data.resize(4 * n_el);
        for (auto& b : p.data) b = static_cast<uint8_t>(rng() % 4 == 0 ? rng() : rng() % 3);
      }
      n.params.push_back(std::move(p));
      break;
    }
    case 8: {  // the thread count, around its limits (1..64); not near 64: a
               // pool that size costs ~250 ms to make, which would starve the
               // campaign of inputs
      const uint32_t threads[] = {0, 1, 2, 65, 1u << 31, 0xffffffffu};
      g.num_hvx_threads = threads[pick(std::size(threads))];
      break;
    }
  }
  *input = binary::encode_graph(g);
  return true;
}

}  // namespace fuzz
