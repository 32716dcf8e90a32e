// LLM decoding with a KV cache in one multi-tensor shared buffer — the
// flagship use of shared buffers on Snapdragon NPUs (Genie, llama.cpp ports).
//
//   example_llm_decode --binary tinylm.bin --data models/tinylm [--precision float|quantized]
//
// The binary holds two graphs made from models/tinylm (prefill.onnx and
// decode.onnx, converted into ONE context with --weight_sharing_enabled, so
// both read one set of weights):
//   prefill  tokens [1,P] -> logits [1,V], kv [P, L,2,H,D]   (the prompt's keys and values)
//   decode   token [1,1], position [1,1], mask [1,C], past_kv [C, L,2,H,D]
//            -> logits [1,V], kv [1, L,2,H,D]               (this token's keys and values)
// The KV cache is position-major, so one position's keys and values of every
// layer are one contiguous row. What the client does, step by step:
//   1. read both graphs' I/O from the binary with libQnnSystem;
//   2. contextCreateFromBinary, graphRetrieve("prefill"), graphRetrieve("decode");
//   3. ONE rpcmem buffer holds the cache and every other I/O tensor; each
//      tensor gets a QNN_HTP_MEM_SHARED_BUFFER handle at its offset, all
//      registered once, before the first token: the cache as a whole (the
//      decode graph's past_kv, and the prefill's kv output, which fills rows
//      0..P-1), and one handle per cache row P..C-1 for the decode graph's kv
//      output — bound at step t to row P+t, so the graph writes this token's
//      keys and values straight into the cache it reads (updated in place);
//   4. prefill the prompt; then per token: write token, position and one mask
//      value into the buffer, graphExecute(decode), argmax the logits. No
//      tensor byte is copied by the transport (checked with the copy
//      accounting on every execute);
//   5. compare with PyTorch's greedy tokens (models/tinylm/expected.txt) and,
//      in float, its logits (expected_logits/).
//
// Checks:
//   float:     every token equals PyTorch's, except after a step where
//              PyTorch's own top-2 margin is under 1e-4 (reported: such a tie
//              may go either way); logits within 1e-3 of max |logit| while the
//              sequences agree;
//   quantized: >= 90% of the generated tokens equal PyTorch's (--min_agreement).
//   Both: 0 bytes copied in or out on every execute.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "HTP/QnnHtpMem.h"
#include "QnnMem.h"
#include "common/binary_graphs.h"
#include "common/data_files.h"
#include "common/qnn_loader.h"
#include "common/qnn_session.h"
#include "common/report.h"
#include "common/rpcmem_loader.h"

using namespace examples;

namespace {

constexpr double kFloatLogitTolerance = 1e-3;  // of max |logit|: float32 in another summation order
constexpr double kTieMargin = 1e-4;            // PyTorch top-2 margins below this may flip
constexpr float kMaskOn = 0.0f, kMaskOff = -100.0f;  // as models/tinylm/make_tinylm.py

int fail(const char* step, const std::string& why) {
  std::printf("FAILED at %s: %s\n", step, why.c_str());
  return 1;
}

struct Options {
  std::string binary, data, precision;
  double min_agreement = 0.9;
  // Writes what the graphs see (prompts; token, position, mask and cache at
  // some decode steps) as qnn-net-run input lists for a quantized conversion.
  std::string dump_calibration;
  // For the tests that break the rule on purpose: "stale_cache" binds every
  // decode step's kv output to one scratch row past the context, so the
  // cache never learns the new tokens; the checks must then fail.
  std::string fault;
};

bool parse(int argc, char** argv, Options* o, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      *error = "option " + a + " needs a value";
      return false;
    }
    const std::string v = argv[++i];
    if (a == "--binary") o->binary = v;
    else if (a == "--data") o->data = v;
    else if (a == "--precision") o->precision = v;
    else if (a == "--min_agreement") o->min_agreement = std::stod(v);
    else if (a == "--dump_calibration") o->dump_calibration = v;
    else if (a == "--fault" && v == "stale_cache") o->fault = v;
    else {
      *error = "unknown option " + a;
      return false;
    }
  }
  if (o->binary.empty() || o->data.empty()) {
    *error = "usage: example_llm_decode --binary tinylm.bin --data models/tinylm [--precision float|quantized]";
    return false;
  }
  return true;
}

// PyTorch's run of one prompt: its tokens and the top-2 margin at each step.
struct Expected {
  std::vector<int32_t> prompt, tokens;
  std::vector<double> margins;
  std::vector<float> logits;  // [steps, V]
};

bool read_expected(const std::string& data, size_t vocab, std::vector<Expected>* out, std::string* error) {
  std::vector<std::string> prompts, expected;
  if (!read_lines(data + "/prompts.txt", &prompts, error) || !read_lines(data + "/expected.txt", &expected, error)) {
    return false;
  }
  if (prompts.size() != expected.size() || prompts.empty()) {
    *error = "prompts.txt and expected.txt differ in length (or are empty)";
    return false;
  }
  for (size_t i = 0; i < prompts.size(); ++i) {
    Expected e;
    std::istringstream p(prompts[i]);
    for (int32_t t; p >> t;) e.prompt.push_back(t);
    const size_t bar = expected[i].find('|');
    if (bar == std::string::npos) {
      *error = "expected.txt line " + std::to_string(i + 1) + ": no '|' between tokens and margins";
      return false;
    }
    std::istringstream t(expected[i].substr(0, bar)), m(expected[i].substr(bar + 1));
    for (int32_t x; t >> x;) e.tokens.push_back(x);
    for (double x; m >> x;) e.margins.push_back(x);
    if (e.tokens.empty() || e.tokens.size() != e.margins.size()) {
      *error = "expected.txt line " + std::to_string(i + 1) + ": tokens and margins differ in count";
      return false;
    }
    if (!read_floats(data + "/expected_logits/prompt_" + std::to_string(i) + ".raw", e.tokens.size() * vocab,
                     &e.logits, error)) {
      return false;
    }
    out->push_back(std::move(e));
  }
  return true;
}

// The graphs' I/O by name, with the shapes the cache layout relies on checked.
struct Layout {
  GraphIo prefill, decode;
  IoTensor *p_tokens, *p_logits, *p_kv;
  IoTensor *d_token, *d_position, *d_mask, *d_past, *d_logits, *d_kv;
  size_t prompt_len = 0, context = 0, vocab = 0, row_bytes = 0;
};

IoTensor* find(std::vector<IoTensor>& list, const std::string& name) {
  for (IoTensor& t : list) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

bool same_encoding(const IoTensor& a, const IoTensor& b) {
  return a.dtype() == b.dtype() && (!a.quantized() || (a.scale() == b.scale() && a.offset() == b.offset()));
}

bool make_layout(std::vector<GraphIo> graphs, Layout* l, std::string* error) {
  for (GraphIo& g : graphs) {
    if (g.graph_name == "prefill") l->prefill = g;
    if (g.graph_name == "decode") l->decode = g;
  }
  if (l->prefill.graph_name.empty() || l->decode.graph_name.empty()) {
    *error = "the binary needs graphs 'prefill' and 'decode' (convert prefill.onnx and decode.onnx into one context)";
    return false;
  }
  l->p_tokens = find(l->prefill.inputs, "tokens"), l->p_logits = find(l->prefill.outputs, "logits");
  l->p_kv = find(l->prefill.outputs, "kv");
  l->d_token = find(l->decode.inputs, "token"), l->d_position = find(l->decode.inputs, "position");
  l->d_mask = find(l->decode.inputs, "mask"), l->d_past = find(l->decode.inputs, "past_kv");
  l->d_logits = find(l->decode.outputs, "logits"), l->d_kv = find(l->decode.outputs, "kv");
  for (IoTensor* t : {l->p_tokens, l->p_logits, l->p_kv, l->d_token, l->d_position, l->d_mask, l->d_past, l->d_logits,
                      l->d_kv}) {
    if (t == nullptr) {
      *error = "a graph lacks one of tokens/logits/kv (prefill) or token/position/mask/past_kv/logits/kv (decode)";
      return false;
    }
  }
  for (IoTensor* t : {l->p_tokens, l->d_token, l->d_position}) {
    if (t->dtype() != QNN_DATATYPE_INT_32) {
      *error = "token ids and positions must be int32: " + t->describe();
      return false;
    }
  }
  l->prompt_len = l->p_tokens->elements();
  l->context = l->d_past->dims.empty() ? 0 : l->d_past->dims[0];
  l->vocab = l->d_logits->elements();
  l->row_bytes = l->context == 0 ? 0 : l->d_past->bytes() / l->context;
  const bool shapes_ok = l->context > l->prompt_len && l->d_mask->elements() == l->context &&
                         l->p_logits->elements() == l->vocab && l->d_kv->bytes() == l->row_bytes &&
                         l->p_kv->bytes() == l->prompt_len * l->row_bytes;
  if (!shapes_ok) {
    *error = "shapes do not fit a position-major KV cache: " + l->p_kv->describe() + ", " + l->d_past->describe() +
             ", " + l->d_kv->describe() + ", " + l->d_mask->describe();
    return false;
  }
  // In place means one byte format for the cache, whoever writes or reads it.
  if (!same_encoding(*l->p_kv, *l->d_past) || !same_encoding(*l->d_kv, *l->d_past)) {
    *error = "the cache tensors differ in data type or encoding (" + l->p_kv->describe() + ", " +
             l->d_past->describe() + ", " + l->d_kv->describe() +
             "): one buffer cannot serve all three; convert with one encoding for them";
    return false;
  }
  return true;
}

// Float values into a tensor's buffer, quantized when the tensor is.
void write_values(const IoTensor& t, const float* v, size_t n, uint8_t* dst) {
  switch (t.dtype()) {
    case QNN_DATATYPE_FLOAT_32: std::memcpy(dst, v, n * sizeof(float)); return;
    case QNN_DATATYPE_UFIXED_POINT_8:
      for (size_t i = 0; i < n; ++i) {
        dst[i] = static_cast<uint8_t>(std::clamp(std::nearbyint(v[i] / t.scale()) - t.offset(), 0.0f, 255.0f));
      }
      return;
    case QNN_DATATYPE_UFIXED_POINT_16:
      for (size_t i = 0; i < n; ++i) {
        const float q = std::clamp(std::nearbyint(v[i] / t.scale()) - static_cast<float>(t.offset()), 0.0f, 65535.0f);
        const uint16_t u = static_cast<uint16_t>(q);
        std::memcpy(dst + 2 * i, &u, 2);
      }
      return;
    default: return;
  }
}

float read_value(const IoTensor& t, const uint8_t* src, size_t i) {
  switch (t.dtype()) {
    case QNN_DATATYPE_FLOAT_32: {
      float f;
      std::memcpy(&f, src + 4 * i, 4);
      return f;
    }
    case QNN_DATATYPE_UFIXED_POINT_8: return (static_cast<float>(src[i]) + t.offset()) * t.scale();
    case QNN_DATATYPE_UFIXED_POINT_16: {
      uint16_t u;
      std::memcpy(&u, src + 2 * i, 2);
      return (static_cast<float>(u) + t.offset()) * t.scale();
    }
    default: return std::numeric_limits<float>::quiet_NaN();
  }
}

// Index of the largest logit and the logits as floats.
int32_t argmax(const IoTensor& t, const uint8_t* src, std::vector<float>* values) {
  values->resize(t.elements());
  for (size_t i = 0; i < values->size(); ++i) (*values)[i] = read_value(t, src, i);
  return static_cast<int32_t>(std::max_element(values->begin(), values->end()) - values->begin());
}

size_t align64(size_t n) { return (n + 63) & ~size_t{63}; }

// --dump_calibration: raw files and the two input lists, name:=path form.
class CalibrationDump {
 public:
  explicit CalibrationDump(std::string dir) : dir_(std::move(dir)) {}
  bool active() const { return !dir_.empty(); }
  // Decode steps whose inputs are kept: the start, the middle and the end.
  static bool kept_step(size_t step) { return step == 0 || step == 21 || step == 42 || step == 63; }

  void add(const char* list, const std::vector<std::pair<std::string, std::pair<const uint8_t*, size_t>>>& inputs) {
    std::string line;
    for (const auto& [name, bytes] : inputs) {
      const std::string file = std::string(list) + "_" + std::to_string(count_) + "_" + name + ".raw";
      std::FILE* f = std::fopen((dir_ + "/" + file).c_str(), "wb");
      if (f == nullptr || std::fwrite(bytes.first, 1, bytes.second, f) != bytes.second) ok_ = false;
      if (f != nullptr) std::fclose(f);
      line += (line.empty() ? "" : " ") + name + ":=" + file;
    }
    ++count_;
    lines_[list] += line + "\n";
  }
  bool finish(std::string* error) {
    for (const auto& [list, text] : lines_) {
      std::FILE* f = std::fopen((dir_ + "/" + list + "_list.txt").c_str(), "w");
      if (f == nullptr || std::fputs(text.c_str(), f) < 0) ok_ = false;
      if (f != nullptr) std::fclose(f);
    }
    if (!ok_) *error = "cannot write the calibration files under " + dir_;
    return ok_;
  }

 private:
  std::string dir_;
  size_t count_ = 0;
  bool ok_ = true;
  std::map<std::string, std::string> lines_;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string error;
  if (!parse(argc, argv, &opt, &error)) return fail("options", error);

  // Step 1: both graphs' I/O from the binary.
  std::vector<uint8_t> binary;
  if (!read_file(opt.binary, &binary, &error)) return fail("step 1", error);
  std::vector<GraphIo> graphs;
  if (!read_binary_graphs(binary, &graphs, &error)) return fail("step 1", error);
  Layout l;
  if (!make_layout(graphs, &l, &error)) return fail("step 1", error);
  const bool quantized = opt.precision.empty() ? l.d_logits->quantized() : opt.precision == "quantized";
  std::vector<Expected> expected;
  if (!read_expected(opt.data, l.vocab, &expected, &error)) return fail("step 1", error);
  std::printf("step 1  %s: graphs 'prefill' (%s -> %s, %s) and 'decode' (-> %s); context %zu, prompt %zu, "
              "cache row %zu B\n",
              opt.binary.c_str(), l.p_tokens->describe().c_str(), l.p_logits->describe().c_str(),
              l.p_kv->describe().c_str(), l.d_kv->describe().c_str(), l.context, l.prompt_len, l.row_bytes);

  // Step 2: the context and both graphs.
  QnnBackendLibrary qnn;
  RpcMemLibrary rpcmem;
  if (!qnn.load("libQnnHtp.so", &error) || !rpcmem.load(&error)) return fail("step 2", error);
  const auto& api = qnn.api;
  QnnSession session(api);
  uint8_t* mem = nullptr;
  std::vector<Qnn_MemHandle_t> handles;
  auto release = [&] {
    if (!handles.empty()) api.memDeRegister(handles.data(), static_cast<uint32_t>(handles.size()));
    handles.clear();
    session.close();
    if (mem != nullptr) rpcmem.rpcmem_free(mem);
    mem = nullptr;
  };
  auto give_up = [&](const char* step, const std::string& why) {
    release();
    return fail(step, why);
  };
  Qnn_GraphHandle_t prefill = nullptr, decode = nullptr;
  if (!session.open_from_binary(binary, &error) || !session.retrieve("prefill", &prefill, &error) ||
      !session.retrieve("decode", &decode, &error)) {
    return give_up("step 2", error);
  }
  const Qnn_ContextHandle_t context = session.context;
  const Qnn_BackendHandle_t backend = session.backend;
  std::printf("step 2  %s: contextCreateFromBinary (%zu B), graphRetrieve(\"prefill\"), graphRetrieve(\"decode\")\n",
              qnn.path.c_str(), binary.size());

  // Step 3: one buffer, every tensor at its offset, every handle registered now.
  size_t at = 0;
  auto place = [&](size_t bytes) {
    const size_t here = at;
    at = align64(at + bytes);
    return here;
  };
  const size_t off_cache = place(l.context * l.row_bytes), off_tokens = place(l.p_tokens->bytes()),
               off_token = place(l.d_token->bytes()), off_position = place(l.d_position->bytes()),
               off_mask = place(l.d_mask->bytes()), off_p_logits = place(l.p_logits->bytes()),
               off_d_logits = place(l.d_logits->bytes()), off_scratch = place(l.row_bytes);
  const size_t total = at;
  mem = static_cast<uint8_t*>(rpcmem.rpcmem_alloc(kRpcMemHeapIdSystem, kRpcMemDefaultFlags, static_cast<int>(total)));
  const int fd = mem != nullptr ? rpcmem.rpcmem_to_fd(mem) : -1;
  if (fd == -1) return give_up("step 3", "rpcmem_alloc/rpcmem_to_fd of " + std::to_string(total) + " bytes");
  auto register_at = [&](const IoTensor& t, size_t offset, Qnn_MemHandle_t* out) -> bool {
    Qnn_MemDescriptor_t desc = QNN_MEM_DESCRIPTOR_INIT;
    desc.memShape = {static_cast<uint32_t>(t.dims.size()), const_cast<uint32_t*>(t.dims.data()), nullptr};
    desc.dataType = t.dtype();
    desc.memType = QNN_MEM_TYPE_CUSTOM;
    QnnMemHtp_Descriptor_t htp{};
    htp.type = QNN_HTP_MEM_SHARED_BUFFER;
    htp.size = total;  // the whole buffer
    htp.sharedBufferConfig = QnnHtpMem_SharedBufferConfig_t{fd, offset};
    desc.customInfo = &htp;
    if (Qnn_ErrorHandle_t e = api.memRegister(context, &desc, 1, out); e != QNN_SUCCESS) {
      error = "memRegister('" + t.name + "' at offset " + std::to_string(offset) + "): " + describe_qnn_error(api, e);
      return false;
    }
    handles.push_back(*out);
    return true;
  };
  Qnn_MemHandle_t h_cache, h_tokens, h_token, h_position, h_mask, h_p_logits, h_d_logits;
  // The cache's handle has past_kv's shape (all C rows); the prefill's kv
  // output (its first P rows) is bound to the same handle.
  bool ok = register_at(*l.d_past, off_cache, &h_cache) && register_at(*l.p_tokens, off_tokens, &h_tokens) &&
            register_at(*l.d_token, off_token, &h_token) && register_at(*l.d_position, off_position, &h_position) &&
            register_at(*l.d_mask, off_mask, &h_mask) && register_at(*l.p_logits, off_p_logits, &h_p_logits) &&
            register_at(*l.d_logits, off_d_logits, &h_d_logits);
  std::vector<Qnn_MemHandle_t> row(l.context, nullptr);
  for (size_t pos = l.prompt_len; ok && pos < l.context; ++pos) {
    ok = register_at(*l.d_kv, off_cache + pos * l.row_bytes, &row[pos]);
  }
  Qnn_MemHandle_t h_scratch = nullptr;
  if (ok && opt.fault == "stale_cache") ok = register_at(*l.d_kv, off_scratch, &h_scratch);
  if (!ok) return give_up("step 3", error);
  std::printf("step 3  one rpcmem buffer of %zu B (fd %d): the KV cache (%zu rows of %zu B) and every other I/O "
              "tensor; %zu QNN_HTP_MEM_SHARED_BUFFER handles registered once (%zu of them cache rows)\n",
              total, fd, l.context, l.row_bytes, handles.size(), l.context - l.prompt_len);

  auto bind = [](IoTensor* t, Qnn_MemHandle_t h) {
    t->tensor.v1.memType = QNN_TENSORMEMTYPE_MEMHANDLE;
    t->tensor.v1.memHandle = h;
  };
  bind(l.p_tokens, h_tokens), bind(l.p_logits, h_p_logits), bind(l.p_kv, h_cache);
  bind(l.d_token, h_token), bind(l.d_position, h_position), bind(l.d_mask, h_mask), bind(l.d_past, h_cache);
  bind(l.d_logits, h_d_logits);
  // Graph I/O in the binary's order, as graphExecute wants them.
  auto tensors = [](std::vector<IoTensor>& list) {
    std::vector<Qnn_Tensor_t> out;
    for (IoTensor& t : list) out.push_back(t.tensor);
    return out;
  };

  // Steps 4 and 5, per prompt.
  ExecuteReport report(qnn, backend);
  if (!report.init(&error)) return give_up("step 4", error);
  size_t total_tokens = 0, agreeing = 0, copied_executes = 0, executes = 0;
  double worst_logit = 0.0, decode_seconds = 0.0;
  bool float_ok = true;
  auto check_copies = [&](Qnn_GraphHandle_t g) {
    OpenHtp_ExecuteStats_t s{};
    ++executes;
    if (qnn.get_last_execute_stats == nullptr || qnn.get_last_execute_stats(g, &s) != QNN_SUCCESS ||
        s.bytesCopiedIn != 0 || s.bytesCopiedOut != 0) {
      ++copied_executes;
    }
  };
  std::vector<float> values, mask(l.context);
  CalibrationDump dump(opt.dump_calibration);
  if (dump.active() && (l.d_past->quantized() || l.d_mask->quantized())) {
    return give_up("step 4", "--dump_calibration needs the float binary");
  }
  for (size_t p = 0; p < expected.size(); ++p) {
    const Expected& e = expected[p];
    if (e.prompt.size() != l.prompt_len) return give_up("step 4", "a prompt is not " + std::to_string(l.prompt_len) + " tokens");
    // A new sequence starts from a zeroed cache, as PyTorch's run did: rows
    // past the position are masked, and zero rows give the mask nothing to
    // leak (the client's own memory: nothing crosses the transport).
    std::memset(mem + off_cache, 0, l.context * l.row_bytes);
    std::memcpy(mem + off_tokens, e.prompt.data(), l.prompt_len * sizeof(int32_t));
    if (dump.active()) dump.add("prefill", {{"tokens", {mem + off_tokens, l.p_tokens->bytes()}}});
    std::vector<Qnn_Tensor_t> in = tensors(l.prefill.inputs), out = tensors(l.prefill.outputs);
    if (Qnn_ErrorHandle_t err = api.graphExecute(prefill, in.data(), static_cast<uint32_t>(in.size()), out.data(),
                                                 static_cast<uint32_t>(out.size()), p == 0 ? report.profile() : nullptr,
                                                 nullptr);
        err != QNN_SUCCESS) {
      return give_up("step 4", "graphExecute(prefill): " + describe_qnn_error(api, err));
    }
    if (p == 0) {
      std::printf("step 4  prompt 0: prefill of %zu tokens; its copy accounting:\n", l.prompt_len);
      CopyAccounting acct;
      if (!report.read_last(prefill, &acct, &error)) return give_up("step 4", error);
    }
    check_copies(prefill);
    int32_t token = argmax(*l.p_logits, mem + off_p_logits, &values);
    for (size_t i = 0; i < l.context; ++i) mask[i] = i < l.prompt_len ? kMaskOn : kMaskOff;
    write_values(*l.d_mask, mask.data(), l.context, mem + off_mask);
    std::vector<int32_t> got;
    size_t diverged_at = e.tokens.size();
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t step = 0; step < e.tokens.size() && l.prompt_len + step < l.context; ++step) {
      const size_t pos = l.prompt_len + step;
      got.push_back(token);
      const int32_t position = static_cast<int32_t>(pos);
      std::memcpy(mem + off_token, &token, sizeof token);
      std::memcpy(mem + off_position, &position, sizeof position);
      // This token's keys and values land on cache row `pos`.
      bind(l.d_kv, h_scratch != nullptr ? h_scratch : row[pos]);
      if (dump.active() && CalibrationDump::kept_step(step)) {
        dump.add("decode", {{"token", {mem + off_token, l.d_token->bytes()}},
                            {"position", {mem + off_position, l.d_position->bytes()}},
                            {"mask", {mem + off_mask, l.d_mask->bytes()}},
                            {"past_kv", {mem + off_cache, l.d_past->bytes()}}});
      }
      in = tensors(l.decode.inputs), out = tensors(l.decode.outputs);
      if (Qnn_ErrorHandle_t err = api.graphExecute(decode, in.data(), static_cast<uint32_t>(in.size()), out.data(),
                                                   static_cast<uint32_t>(out.size()),
                                                   p == 0 && step == 0 ? report.profile() : nullptr, nullptr);
          err != QNN_SUCCESS) {
        return give_up("step 4", "graphExecute(decode) at position " + std::to_string(pos) + ": " +
                                     describe_qnn_error(api, err));
      }
      if (p == 0 && step == 0) {
        std::printf("step 4  prompt 0: first decode step; its copy accounting:\n");
        CopyAccounting acct;
        if (!report.read_last(decode, &acct, &error)) return give_up("step 4", error);
      }
      check_copies(decode);
      // The row just written is part of the context from the next token on.
      mask[pos] = kMaskOn;
      write_values(*l.d_mask, &mask[pos], 1, mem + off_mask + pos * l.d_mask->element_bytes());
      token = argmax(*l.d_logits, mem + off_d_logits, &values);
      if (diverged_at == e.tokens.size()) {
        double biggest = 0.0, diff = 0.0;
        for (size_t v = 0; v < l.vocab; ++v) {
          const double ref = e.logits[step * l.vocab + v];
          biggest = std::max(biggest, std::fabs(ref));
          diff = std::max(diff, std::fabs(ref - values[v]));
        }
        worst_logit = std::max(worst_logit, diff / std::max(biggest, 1e-30));
      }
      if (got.back() != e.tokens[step] && diverged_at == e.tokens.size()) diverged_at = step;
    }
    decode_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    size_t same = 0;
    for (size_t i = 0; i < got.size(); ++i) same += got[i] == e.tokens[i] ? 1 : 0;
    total_tokens += got.size(), agreeing += same;
    std::string note;
    if (diverged_at < e.tokens.size()) {
      // A divergence is excused only right after a near-tie in PyTorch's own choice.
      const bool tie = diverged_at > 0 && e.margins[diverged_at - 1] < kTieMargin;
      note = ", first differs at step " + std::to_string(diverged_at) +
             (tie ? " (PyTorch's top-2 margin there: " + std::to_string(e.margins[diverged_at - 1]) + ", a tie)" : "");
      if (!tie) float_ok = false;
    }
    std::printf("step 5  prompt %zu: %zu/%zu tokens equal PyTorch's%s\n", p, same, got.size(), note.c_str());
  }

  if (dump.active()) {
    if (!dump.finish(&error)) return give_up("step 5", error);
    std::printf("-- calibration inputs written to %s (prefill_list.txt, decode_list.txt)\n",
                opt.dump_calibration.c_str());
  }
  // The verdict.
  const double agreement = total_tokens ? static_cast<double>(agreeing) / static_cast<double>(total_tokens) : 0.0;
  std::printf("-- %zu tokens decoded, %.1f tokens/s; %zu/%zu executes copied no tensor byte\n", total_tokens,
              static_cast<double>(total_tokens) / decode_seconds, executes - copied_executes, executes);
  bool pass = copied_executes == 0;
  if (quantized) {
    std::printf("-- quantized: %.1f%% of tokens equal PyTorch's (need >= %.0f%%)\n", 100.0 * agreement,
                100.0 * opt.min_agreement);
    pass = pass && agreement >= opt.min_agreement;
  } else {
    std::printf("-- float: max |logit - PyTorch| = %.3g of max |logit| while the sequences agree (bound %.0e)\n",
                worst_logit, kFloatLogitTolerance);
    pass = pass && float_ok && worst_logit <= kFloatLogitTolerance;
  }
  release();
  std::printf("-- checks %s\n", pass ? "passed" : "FAILED");
  return pass ? 0 : 1;
}
