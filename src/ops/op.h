// The one internal kernel interface every op implements.
//
// Lifecycle (after XNNPACK): an op is *prepared* once from a NodeDesc — shapes,
// data types and parameters are validated there and anything expensive (weight
// packing, index tables) is done there — and the resulting OpKernel is *run*
// many times with nothing but data pointers. Validation (graphAddNode,
// backendValidateOpConfig) is the same prepare call with no kernel requested,
// so the rules live in exactly one place.
//
// This header is deliberately free of QNN headers: the DSP side and the client
// side both use it, and tests can drive kernels without the QNN API. Data type
// codes are Qnn_DataType_t's numeric values so no translation table is needed.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace openhtp::ops {

// Qnn_DataType_t values (see include/QNN/QnnTypes.h); only the ones kernels use.
namespace dtype {
inline constexpr uint32_t kInt8 = 0x0008;
inline constexpr uint32_t kInt16 = 0x0016;
inline constexpr uint32_t kInt32 = 0x0032;
inline constexpr uint32_t kInt64 = 0x0064;
inline constexpr uint32_t kUint8 = 0x0108;
inline constexpr uint32_t kUint16 = 0x0116;
inline constexpr uint32_t kUint32 = 0x0132;
inline constexpr uint32_t kUint64 = 0x0164;
inline constexpr uint32_t kFloat16 = 0x0216;
inline constexpr uint32_t kFloat32 = 0x0232;
inline constexpr uint32_t kFloat64 = 0x0264;
inline constexpr uint32_t kBfloat16 = 0x0226;
inline constexpr uint32_t kSfixed8 = 0x0308;
inline constexpr uint32_t kSfixed16 = 0x0316;
inline constexpr uint32_t kSfixed32 = 0x0332;
inline constexpr uint32_t kUfixed8 = 0x0408;
inline constexpr uint32_t kUfixed16 = 0x0416;
inline constexpr uint32_t kBool8 = 0x0508;
// Bytes per element, 0 for unknown/undefined types.
size_t element_size(uint32_t dt);
// Human-readable name ("FLOAT_32") for log lines.
const char* name(uint32_t dt);
}  // namespace dtype

// Quantization (QNN convention: real = (q + offset) * scale, so `offset` is
// the negative zero point). Per-tensor (SCALE_OFFSET) uses scale/offset;
// per-channel (AXIS_SCALE_OFFSET, BW_AXIS_SCALE_OFFSET) sets axis >= 0 and
// one scale/offset per index along that axis.
struct Quant {
  bool present = false;
  float scale = 0.0f;
  int32_t offset = 0;
  int32_t axis = -1;             // >= 0: per-channel along this dim
  std::vector<float> scales;     // per-channel only
  std::vector<int32_t> offsets;  // per-channel only (0 = symmetric)

  // A per-tensor (SCALE_OFFSET) encoding.
  static Quant per_tensor(float scale, int32_t offset) {
    Quant q;
    q.present = true;
    q.scale = scale;
    q.offset = offset;
    return q;
  }
  bool per_channel() const { return present && axis >= 0; }
  // Scale/offset of channel c (the per-tensor pair when not per-channel).
  float scale_at(size_t c) const { return per_channel() ? scales[c] : scale; }
  int32_t offset_at(size_t c) const { return per_channel() ? offsets[c] : offset; }
};

// A sparse tensor (QNN_TENSOR_DATA_FORMAT_SPARSE, layout HYBRID_COO): of
// shape [d0..d(r-1)], its first S = sparse_dims dims are sparse and the rest
// form a dense block of B = d(S)*...*d(r-1) elements (1 when S = r); K =
// specified entries are stored. Only NATIVE tensors can be sparse (the QNN
// layer refuses sparse graph inputs, outputs and static tensors), so their
// memory layout is this emulator's own, never seen by a client:
//   K*S INT_32 indices, entry k's index along sparse dim s at [k*S + s],
//   then, right after them (no padding), K*B elements of the tensor's data
//   type, entry k's block at [k*B .. k*B + B).
// Kernels move the values with memcpy (they may be unaligned for 8-byte
// types). Only the sparse ops (op_flags::kSparseTensors) see such tensors.
struct Sparsity {
  bool is_sparse = false;
  uint32_t specified = 0;    // K, Qnn_SparseLayoutHybridCoo_t::numSpecifiedElements
  uint32_t sparse_dims = 0;  // S, numSparseDimensions (1..rank)
  bool operator==(const Sparsity&) const = default;
};

// Bytes of the storage above for `dims` and elements of elem_bytes;
// saturates at SIZE_MAX instead of wrapping.
inline size_t sparse_storage_bytes(const Sparsity& s, std::span<const uint32_t> dims, size_t elem_bytes) {
  auto mul = [](size_t a, size_t b) -> size_t { return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b; };
  size_t block = 1;
  for (size_t i = s.sparse_dims; i < dims.size(); ++i) block = mul(block, dims[i]);
  const size_t index_bytes = mul(mul(s.specified, s.sparse_dims), sizeof(int32_t));
  const size_t value_bytes = mul(mul(s.specified, block), elem_bytes);
  return index_bytes > SIZE_MAX - value_bytes ? SIZE_MAX : index_bytes + value_bytes;
}

// What a kernel knows about one tensor at prepare time.
struct TensorDesc {
  bool present = true;          // false for an omitted optional input (QNN NULL tensor)
  uint32_t dtype = 0;           // Qnn_DataType_t value
  std::vector<uint32_t> dims;   // row-major, NHWC for activations
  Quant quant;
  const void* static_data = nullptr;  // non-null for STATIC tensors (weights, bias)
  // Set by the runtime for the intermediates it plans (htp::PreparedGraph,
  // NATIVE tensors): a kernel may read up to its OpKernel::read_slack_bytes()
  // past such a tensor's end, because the runtime keeps that much memory
  // readable after it. False, the safe default, for everything else: graph
  // inputs and outputs (the client's buffers may end on a page end) and
  // static tensors.
  bool planned = false;
  // Set for a sparse tensor (see Sparsity); num_elements() stays the dense
  // count of dims, num_bytes() is the sparse storage size.
  Sparsity sparse{};

  size_t num_elements() const;
  size_t num_bytes() const {
    return sparse.is_sparse ? sparse_storage_bytes(sparse, dims, dtype::element_size(dtype))
                            : num_elements() * dtype::element_size(dtype);
  }
};

// One node parameter: a scalar or a (static) tensor, as in Qnn_Param_t.
struct Param {
  std::string name;
  bool is_tensor = false;
  uint32_t dtype = 0;            // Qnn_DataType_t of the scalar or tensor elements
  // Scalar value. Integers and booleans are in `i`, floats in `f`; the QNN layer
  // fills both from the Qnn_Scalar_t so a kernel may read either.
  int64_t i = 0;
  double f = 0.0;
  // Tensor value.
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;     // raw little-endian elements of `dtype`
};

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // shapes/params/types break the op definition
  kUnsupported,      // valid QNN, but not supported by this backend
};

struct Status {
  StatusCode code = StatusCode::kOk;
  std::string message;  // names the rule and the offending value
  bool ok() const { return code == StatusCode::kOk; }
  static Status Ok() { return {}; }
  static Status Invalid(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
  static Status Unsupported(std::string msg) { return {StatusCode::kUnsupported, std::move(msg)}; }
};

}  // namespace openhtp::ops

// pthreadpool (Debian libpthreadpool-dev) is the kernels' thread pool; only a
// pointer travels through this header.
struct pthreadpool;

namespace openhtp::ops {

struct FastPath;
struct ParsedParams;  // parsed_params.h

// What the runtime lends kernels when it builds them. Validation-only callers
// (graphAddNode, backendValidateOpConfig) pass none: reference kernels only.
struct KernelEnv {
  // Threads the graph may use (graph config NUM_HVX_THREADS; default the
  // machine's cores). `pool` has that many threads, or is null for 1.
  pthreadpool* pool = nullptr;
  size_t num_threads = 1;
  // Fast paths the runtime links (src/kernels); empty = reference only.
  std::span<const FastPath> fast_paths;
};

// Work fused onto the end of a producer op (htp/fusion.h decides when):
// after the op has computed its output y,
//   y = y + residual            when `residual` is set (same dims and type as
//                               y; its data is the input right after the op's
//                               own: run()'s in[node.inputs.size()]), then
//   y = y * sigmoid(y)          when `swish` is set (SiLU: FLOAT_32 only), then
//   y = min(max(y, lo), hi)     when `clamp` is set (real values; for an 8-bit
//                               output, of the output's encoding).
// For a FLOAT_16 or 8-bit output, the separate nodes round on the way — the
// producer's output into its own type and encoding, the Add's (when a clamp
// follows it) into the Add's — and a kernel may round at the same places
// (`producer_output`, `sum_output` describe those tensors), so it computes
// what the nodes did: the 8-bit residual kernels and the type adapter
// (type_adapter.h) do. Kernels that meet htp/fusion.h's rules without them
// (an output range clamp, a half's clamp) ignore them.
// The graph computes exactly what the unfused producer -> epilogue nodes
// would: the reference kernels run their op and then apply(); a fast path
// honours the epilogue (oneDNN post-ops, XNNPACK output min/max) or declines
// the node. A fast path that never looks at NodeDesc::epilogue must decline
// every node that has one.
struct Epilogue {
  const TensorDesc* residual = nullptr;
  bool clamp = false;
  float lo = 0.0f, hi = 0.0f;
  bool swish = false;
  // Not FLOAT_32 (above): the producer's output tensor, and the Add's output
  // when a clamp follows it (else null). Null for a FLOAT_32 output.
  const TensorDesc* producer_output = nullptr;
  const TensorDesc* sum_output = nullptr;

  bool empty() const { return residual == nullptr && !clamp && !swish; }
  // The reference epilogue over n floats (residual may be null when unset).
  void apply(float* y, const float* res, size_t n) const {
    if (residual != nullptr) {
      for (size_t i = 0; i < n; ++i) y[i] += res[i];
    }
    if (swish) {  // the reference Sigmoid's arithmetic, then the float product
      for (size_t i = 0; i < n; ++i) y[i] = y[i] * static_cast<float>(1.0 / (1.0 + std::exp(-double{y[i]})));
    }
    if (clamp) {
      for (size_t i = 0; i < n; ++i) y[i] = y[i] < lo ? lo : (y[i] > hi ? hi : y[i]);
    }
  }
};

// Everything prepare needs about one node.
struct NodeDesc {
  std::string_view name;      // node name, for messages
  std::string_view type;      // e.g. "Conv2d"
  std::span<const TensorDesc> inputs;
  std::span<const TensorDesc> outputs;
  std::span<const Param> params;
  const KernelEnv* env = nullptr;  // null: reference kernels, one thread
  // The op's typed parameters (parsed_params.h), read once by prepare_node
  // and handed on to the reference prepare and the fast paths; null before.
  const ParsedParams* parsed = nullptr;
  // Fused epilogue (see Epilogue); null for an ordinary node.
  const Epilogue* epilogue = nullptr;
  // Fused channel scale in front of the op (htp/fusion.h, "channel scale"):
  // the op's input 0 is x, and it computes as if it read x * s, s being
  // this tensor ([1, 1, 1, C]: one factor per channel of x). Its data is
  // run()'s in[input_scale_index()], after the op's own inputs and the
  // epilogue's residual. Null for an ordinary node. Only a fast path whose
  // FastPath::takes_input_scale is set is given such a node; no reference
  // kernel takes one.
  const TensorDesc* input_scale = nullptr;
  // Fused ReduceMean of the op's (epilogue's) output over its H and W
  // (htp/fusion.h, "channel mean"): the output is [1, H, W, C] and this
  // tensor, C floats, is written as run()'s out[1]. Null for an ordinary
  // node. Only a fast path whose FastPath::takes_channel_mean is set is
  // given such a node; no reference kernel takes one.
  const TensorDesc* channel_mean = nullptr;
  // 256 output codes (htp/fusion.h, "producer table"): the op quantizes its
  // 8-bit output as outputs[0] says, then writes table[code] in place of
  // each code (a pointwise chain's answers; the buffer is the chain's
  // output). Null for an ordinary node. Only a fast path whose
  // FastPath::takes_output_table is set is given such a node; no reference
  // kernel takes one.
  const uint8_t* output_table = nullptr;

  bool has_epilogue() const { return epilogue != nullptr && !epilogue->empty(); }
  size_t input_scale_index() const {
    return inputs.size() + (epilogue != nullptr && epilogue->residual != nullptr ? 1 : 0);
  }
  // Parameter lookup; nullptr when absent.
  const Param* find_param(std::string_view param_name) const;
};

// The memory one thread's share of a split run() touches: byte ranges it
// reads and writes (ops::OpKernel::share_access).
struct ShareAccess {
  struct Span {
    uintptr_t begin = 0, end = 0;  // [begin, end)
  };
  static constexpr size_t kMaxSpans = 4;
  std::array<Span, kMaxSpans> reads{}, writes{};
  size_t n_reads = 0, n_writes = 0;
  // More spans were given than fit: what the share touches is not known,
  // and the step does not chain (htp/share_chain.h).
  bool overflowed = false;

  void read(const void* p, size_t bytes) { add(&reads, &n_reads, p, bytes); }
  void write(const void* p, size_t bytes) { add(&writes, &n_writes, p, bytes); }

 private:
  void add(std::array<Span, kMaxSpans>* spans, size_t* n, const void* p, size_t bytes) {
    if (bytes == 0) return;
    if (*n == kMaxSpans) {
      overflowed = true;
      return;
    }
    const uintptr_t b = reinterpret_cast<uintptr_t>(p);
    (*spans)[(*n)++] = {b, b + bytes};
  }
};

// A prepared node. run() must not allocate on the hot path beyond what prepare
// decided, and must be safe to call repeatedly.
class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // in[i] / out[i] point at tensor data laid out as the TensorDescs given to
  // prepare. Absent optional inputs are nullptr.
  virtual void run(std::span<const void* const> in, std::span<void* const> out) = 0;

  // Scratch memory sized by the activations (XNNPACK's operator workspace,
  // TFLite Micro's scratch buffers): a kernel declares at prepare how many
  // bytes it needs instead of owning them for the graph's life, the runtime
  // plans them like an intermediate alive for this node only (VTCM or
  // spill-fill), and passes their address to set_workspace() before the
  // first run() and again whenever the regions move. 64-byte aligned; the
  // content does not survive between runs. ops::Workspace (workspace.h) is
  // what kernels keep it in. Constant-size state (a 256-entry table) stays
  // in the kernel.
  virtual size_t workspace_bytes() const { return 0; }
  virtual void set_workspace(void* memory) { (void)memory; }
  // Bytes run() may read past the end of an input the runtime planned
  // (TensorDesc::planned), as XNNPACK's micro-kernels do (XNN_EXTRA_BYTES).
  virtual size_t read_slack_bytes() const { return 0; }
  // Whether run() opens OpenMP parallel regions of its own (a oneDNN
  // primitive planned for several threads), which it could not do inside
  // the runtime's thread team (threads/team.h): such a step runs between
  // teams. A kernel that splits its work only through the graph's pool
  // (parallel_tiles.h, XNNPACK's pthreadpool calls), or not at all, says no.
  virtual bool uses_openmp_team() const { return false; }

  // Chained shares (threads/team.h UnjoinedShares, htp/share_chain.h): a
  // kernel whose run() is one split loop over the graph's pool, in one share
  // per thread, says how many shares (the pool's threads) here and what
  // share t touches in share_access(); 0 (the default) for any other. Its
  // promise, which lets the runtime leave the loop unjoined and start the
  // next step's shares while the others finish theirs:
  //  - run() reads no input and writes no output on the calling thread
  //    outside the loop, and makes no other split loop;
  //  - the loop's context lives in the kernel, not in run()'s frame, and
  //    stays valid until the next run();
  //  - share t touches no memory beyond what share_access(in, out, t, ...)
  //    gives for the same in and out (the kernel's own weights aside: they
  //    are only read).
  virtual size_t chained_shares() const { return 0; }
  virtual void share_access(std::span<const void* const> in, std::span<void* const> out, size_t t,
                            ShareAccess* access) const {
    (void)in, (void)out, (void)t, (void)access;
  }
};

// A reference kernel followed by node.epilogue (the golden model of a fused
// node): wraps `inner` when the node has an epilogue, returns it as is
// otherwise. `out_elements`: floats in out[0].
class EpilogueKernel final : public OpKernel {
 public:
  EpilogueKernel(std::unique_ptr<OpKernel> inner, const Epilogue& e, size_t residual_input, size_t out_elements)
      : inner_(std::move(inner)), e_(e), residual_input_(residual_input), n_(out_elements) {}
  void run(std::span<const void* const> in, std::span<void* const> out) override {
    inner_->run(in, out);
    e_.apply(static_cast<float*>(out[0]),
             e_.residual ? static_cast<const float*>(in[residual_input_]) : nullptr, n_);
  }
  size_t workspace_bytes() const override { return inner_->workspace_bytes(); }
  void set_workspace(void* memory) override { inner_->set_workspace(memory); }
  size_t read_slack_bytes() const override { return inner_->read_slack_bytes(); }
  bool uses_openmp_team() const override { return inner_->uses_openmp_team(); }

 private:
  std::unique_ptr<OpKernel> inner_;
  Epilogue e_;  // its residual pointer is only compared with null, never read at run
  size_t residual_input_, n_;
};
inline std::unique_ptr<OpKernel> with_epilogue(const NodeDesc& node, std::unique_ptr<OpKernel> inner) {
  if (!node.has_epilogue() || !inner) return inner;
  return std::make_unique<EpilogueKernel>(std::move(inner), *node.epilogue, node.inputs.size(),
                                          node.outputs[0].num_elements());
}

// Validates `node`; when `kernel` is non-null also builds the kernel.
using PrepareFn = Status (*)(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel);

// OpDef::flags
namespace op_flags {
// The reference kernel computes in FLOAT_32; for FLOAT_16 and fixed-point
// tensors prepare_node() wraps it in the type adapter (type_adapter.h):
// inputs are dequantized, the float kernel runs, outputs are quantized with
// their own encodings. Ops without this flag see every tensor's real type and
// must check it themselves (data movement, Quantize/Dequantize/Cast, ...).
inline constexpr uint32_t kAdaptTypes = 1u << 0;
// The op reads or writes sparse tensors (TensorDesc::sparse) itself: the
// sparse family. prepare_node() refuses a sparse input or output to every op
// without this flag, naming the op, the node and the tensor.
inline constexpr uint32_t kSparseTensors = 1u << 1;
}  // namespace op_flags

struct OpDef {
  std::string_view type_name;  // QNN op type name in package qti.aisw
  PrepareFn prepare;           // validation + reference kernel
  uint32_t flags = 0;          // op_flags
  // Reads the node's parameters into a typed value (parsed_params.h), for
  // ops with a geometry; nullptr for the others.
  Status (*parse)(const NodeDesc& node, ParsedParams* out) = nullptr;
};

// A faster kernel for some cases of one op, from a kernel library. prepare is
// called only for nodes the reference prepare accepted; it returns false
// (building nothing) for cases it does not cover, and the reference kernel
// is used. It must produce what the reference kernel produces, within the
// tolerance its tests state. For ops with an OpDef::parse it reads the
// geometry from node.parsed, never from the parameters, and declines a node
// without one.
using FastPrepareFn = bool (*)(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel);

// One node of a pointwise chain (htp/fusion.h, "pointwise chains"): the
// node, and where each of its inputs comes from: -1 the chain's input, j >= 0
// the output of link j (an earlier one), kChainStatic a one-element static
// tensor (its TensorDesc's static_data).
inline constexpr int kChainStatic = -3;
struct ChainLink {
  NodeDesc node;
  std::vector<int> sources;
};
// Builds ONE kernel for a whole chain (from the chain's input to the last
// link's output), or declines (false).
using PrepareChainFn = bool (*)(std::span<const ChainLink> chain, const KernelEnv& env,
                                std::unique_ptr<OpKernel>* kernel);
// The chain's 256 answers when its output is 8-bit too (table[code of the
// input] = code of the output), or false.
using ChainTableFn = bool (*)(std::span<const ChainLink> chain, std::vector<uint8_t>* table);

struct FastPath {
  std::string_view type_name;  // op type it accelerates (kPointwiseChain: a chain)
  std::string_view library;    // "xnnpack", "onednn", ... (logs, tests)
  FastPrepareFn prepare;       // null for a chain entry
  PrepareChainFn prepare_chain = nullptr;
  // It honours NodeDesc::input_scale (or declines such a node); the others
  // are not asked about a node that has one.
  bool takes_input_scale = false;
  // The same for NodeDesc::channel_mean.
  bool takes_channel_mean = false;
  // The same for NodeDesc::output_table.
  bool takes_output_table = false;
  // A chain entry's table maker (null: its chains are never a producer's).
  ChainTableFn chain_table = nullptr;
};
// The type_name of the fast path entry that builds pointwise chains; no op
// has this name.
inline constexpr std::string_view kPointwiseChain = "(pointwise chain)";
// The type_name of the fast path entry (and of the NodeDesc it is given) for
// an Add -> LayerNorm step (htp/fusion.h): inputs the Add's two operands,
// then the LayerNorm's gamma and beta (absent or static); the LayerNorm's
// parameters and output. No op has this name.
inline constexpr std::string_view kAddLayerNorm = "(ElementWiseAdd + LayerNorm)";

// The one entry point for validating and building a node's kernel: finds the
// op, applies the type adapter where the op asks for it, validates, then
// tries node.env's fast paths before the reference kernel. kernel == nullptr
// validates only. Unknown op types are kUnsupported.
//
// `impl`, when given, receives which kernel was built, for profiles and logs:
// a fast path's library name ("xnnpack", "onednn"), "reference", or either
// with " via type adapter" when the adapter wraps it.
Status prepare_node(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel, std::string* impl = nullptr);
// Same, reference kernel only (what fast paths are tested against).
Status prepare_reference(const NodeDesc& node, std::unique_ptr<OpKernel>* kernel);

inline constexpr std::string_view kPackageName = "qti.aisw";

// Every op this backend supports, in a stable order.
std::span<const OpDef> all_ops();
// nullptr when the op type is unknown.
const OpDef* find_op(std::string_view type_name);

}  // namespace openhtp::ops
