#include "ipc/htp_protocol.h"

namespace openhtp::ipc::htp_wire {

namespace {

constexpr uint64_t kPackAlign = 64;
uint64_t pack_align(uint64_t v) { return (v + kPackAlign - 1) / kPackAlign * kPackAlign; }

}  // namespace

bool ExecEncoding::CompactMemo::repeats(uint64_t graph, std::span<const htp::ExecBinding> in,
                                        std::span<const htp::ExecBinding> out, htp::ExecTiming t) const {
  if (!valid || graph != graph_id || t != timing || in.size() != num_inputs ||
      in.size() + out.size() != bindings.size()) {
    return false;
  }
  auto same = [](const htp::ExecBinding& b, const CompactBinding& w) {
    return b.tensor_id == w.tensor_id && b.mem_id == w.mem_id;
  };
  for (size_t i = 0; i < in.size(); ++i) {
    if (!same(in[i], bindings[i])) return false;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!same(out[i], bindings[num_inputs + i])) return false;
  }
  return true;
}

bool encode_execute(uint64_t graph_id, std::span<const htp::ExecBinding> inputs,
                    std::span<const htp::ExecBinding> outputs, htp::ExecTiming timing, WireStatus* st,
                    ExecEncoding* enc, std::string* why) {
  const size_t n_bind = inputs.size() + outputs.size();
  const uint32_t timed = timing == htp::ExecTiming::kMeasure ? kAttrTimed : 0;
  ExecEncoding::CompactMemo& memo = enc->compact;
  if (memo.repeats(graph_id, inputs, outputs, timing)) {
    enc->args[1].buf = {st, sizeof *st};  // the request, sc and other arguments are as the last call left them
    return true;
  }
  // Memory handles only (the common case, and the one whose cost is the
  // call itself): checked first, in one pass.
  bool compact = graph_id <= UINT32_MAX && inputs.size() <= UINT16_MAX && outputs.size() <= UINT16_MAX;
  for (const auto& b : inputs) compact = compact && b.mem_id != 0 && b.mem_id <= UINT32_MAX;
  for (const auto& b : outputs) compact = compact && b.mem_id != 0 && b.mem_id <= UINT32_MAX;
  if (compact) {
    memo.valid = false;  // until the request below is whole (an allocation may throw on the way)
    memo.bindings.clear();
    for (auto bindings : {inputs, outputs}) {
      for (const auto& b : bindings) memo.bindings.push_back({b.tensor_id, static_cast<uint32_t>(b.mem_id)});
    }
    const CompactExecRequest hdr{static_cast<uint32_t>(graph_id), static_cast<uint16_t>(inputs.size()),
                                 static_cast<uint16_t>(outputs.size())};
    enc->request.resize(sizeof hdr + n_bind * sizeof(CompactBinding));
    std::memcpy(enc->request.data(), &hdr, sizeof hdr);
    std::memcpy(enc->request.data() + sizeof hdr, memo.bindings.data(), n_bind * sizeof(CompactBinding));
    enc->args.resize(2);
    enc->args[0].buf = {enc->request.data(), enc->request.size()};
    enc->args[1].buf = {st, sizeof *st};
    enc->scatter.clear();
    enc->raw_inputs = enc->raw_outputs = 0;
    enc->sc = REMOTE_SCALARS_MAKEX(kAttrCompactExec | timed, kGraphExecute, 1, 1, 0, 0);
    memo.graph_id = graph_id;
    memo.timing = timing;
    memo.num_inputs = inputs.size();
    memo.valid = true;
    return true;
  }
  enc->compact.valid = false;
  uint32_t raw_in = 0, raw_out = 0;
  uint64_t in_bytes = 0, out_bytes = 0;
  for (const auto& b : inputs) {
    if (b.mem_id == 0) ++raw_in, in_bytes = pack_align(in_bytes) + b.bytes;
  }
  for (const auto& b : outputs) {
    if (b.mem_id == 0) ++raw_out, out_bytes = pack_align(out_bytes) + b.bytes;
  }
  const bool pack_in = raw_in > kMaxRawBuffers, pack_out = raw_out > kMaxRawBuffers;
  for (auto [bindings, packed] : {std::pair{inputs, pack_in}, std::pair{outputs, pack_out}}) {
    for (const auto& b : bindings) {
      if (packed && b.mem_id == 0 && b.bytes > UINT32_MAX) {
        *why = "tensor id " + std::to_string(b.tensor_id) + ": a client buffer of " + std::to_string(b.bytes) +
               " bytes in a call with more than " + std::to_string(kMaxRawBuffers) +
               " client buffers (register it as a memory handle)";
        return false;
      }
    }
  }
  const uint32_t in_args = pack_in ? 1 : raw_in, out_args = pack_out ? 1 : raw_out;
  enc->request.resize(sizeof(ExecRequest) + n_bind * sizeof(WireBinding));
  const ExecRequest hdr{graph_id, static_cast<uint32_t>(inputs.size()), static_cast<uint32_t>(outputs.size())};
  std::memcpy(enc->request.data(), &hdr, sizeof hdr);
  enc->args.resize(1 + in_args + out_args + 1);
  enc->args[0].buf = {enc->request.data(), enc->request.size()};
  enc->scatter.clear();
  if (pack_in) {
    enc->packed_in.resize(in_bytes);
    enc->args[1].buf = {enc->packed_in.data(), enc->packed_in.size()};
  }
  if (pack_out) {
    enc->packed_out.resize(out_bytes);
    enc->args[1 + in_args].buf = {enc->packed_out.data(), enc->packed_out.size()};
  }
  // Buffer arguments: in0 is the request, then raw inputs, then raw outputs.
  uint32_t next_in = 1, next_out = 1 + in_args;
  uint64_t in_at = 0, out_at = 0;
  auto* wire = enc->request.data() + sizeof hdr;
  size_t k = 0;
  auto put = [&](const htp::ExecBinding& b, bool is_input) {
    WireBinding w;
    w.tensor_id = b.tensor_id;
    const bool packed = is_input ? pack_in : pack_out;
    if (b.mem_id != 0) {
      w.kind = kBindMemHandle;
      w.mem_id = b.mem_id;
    } else if (packed) {
      uint64_t& at = is_input ? in_at : out_at;
      at = pack_align(at);
      w.kind = kBindPacked;
      w.arg_index = is_input ? 1 : 1 + in_args;
      w.mem_id = at;
      w.packed_bytes = static_cast<uint32_t>(b.bytes);
      if (is_input) {
        std::memcpy(enc->packed_in.data() + at, b.data, b.bytes);
      } else {
        enc->scatter.push_back({b.data, at, b.bytes});
      }
      at += b.bytes;
    } else {
      w.kind = kBindBuffer;
      w.arg_index = is_input ? next_in++ : next_out++;
      enc->args[w.arg_index].buf = {b.data, static_cast<size_t>(b.bytes)};
    }
    std::memcpy(wire + k++ * sizeof(WireBinding), &w, sizeof w);
  };
  for (const auto& b : inputs) put(b, true);
  for (const auto& b : outputs) put(b, false);
  enc->args.back().buf = {st, sizeof *st};
  enc->raw_inputs = raw_in;
  enc->raw_outputs = raw_out;
  enc->sc = REMOTE_SCALARS_MAKEX(timed, kGraphExecute, 1 + in_args, out_args + 1, 0, 0);
  return true;
}

void finish_execute(const ExecEncoding& enc) {
  for (const auto& s : enc.scatter) std::memcpy(s.to, enc.packed_out.data() + s.offset, s.bytes);
}

bool decode_execute(uint32_t sc, const remote_arg* pra, ExecDecoding* dec, std::string* why) {
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(sc), n_out = REMOTE_SCALARS_OUTBUFS(sc);
  if (n_in < 1 || n_out < 1 || REMOTE_SCALARS_INHANDLES(sc) != 0 || pra[0].buf.nLen < sizeof(ExecRequest) ||
      pra[0].buf.pv == nullptr) {
    *why = "execute request: malformed call";
    return false;
  }
  dec->timing = (REMOTE_SCALARS_METHOD_ATTR(sc) & kAttrTimed) != 0 ? htp::ExecTiming::kMeasure : htp::ExecTiming::kSkip;
  if ((REMOTE_SCALARS_METHOD_ATTR(sc) & kAttrCompactExec) != 0) {
    CompactExecRequest req;
    if (n_in != 1 || n_out != 1 || pra[0].buf.nLen < sizeof req) {
      *why = "compact execute request: malformed call";
      return false;
    }
    const auto* bytes = static_cast<const uint8_t*>(pra[0].buf.pv);
    if (pra[0].buf.nLen == dec->compact_request.size() &&
        std::memcmp(bytes, dec->compact_request.data(), pra[0].buf.nLen) == 0) {
      return true;
    }
    dec->compact_request.clear();
    std::memcpy(&req, bytes, sizeof req);
    const uint64_t n_bind = uint64_t{req.num_inputs} + req.num_outputs;
    if (pra[0].buf.nLen != sizeof req + n_bind * sizeof(CompactBinding)) {
      *why = "compact execute request: " + std::to_string(pra[0].buf.nLen) + " bytes for " +
             std::to_string(req.num_inputs) + " inputs and " + std::to_string(req.num_outputs) + " outputs";
      return false;
    }
    dec->graph_id = req.graph_id;
    dec->inputs.resize(req.num_inputs);
    dec->outputs.resize(req.num_outputs);
    const auto* wire = static_cast<const uint8_t*>(pra[0].buf.pv) + sizeof req;
    for (uint64_t i = 0; i < n_bind; ++i) {
      CompactBinding w;
      std::memcpy(&w, wire + i * sizeof w, sizeof w);
      if (w.mem_id == 0) {
        *why = "tensor id " + std::to_string(w.tensor_id) + ": memory handle id 0";
        return false;
      }
      htp::ExecBinding& b = i < req.num_inputs ? dec->inputs[i] : dec->outputs[i - req.num_inputs];
      b = htp::ExecBinding{};
      b.tensor_id = w.tensor_id;
      b.mem_id = w.mem_id;
    }
    dec->compact_request.assign(bytes, bytes + pra[0].buf.nLen);
    return true;
  }
  dec->compact_request.clear();
  ExecRequest req;
  std::memcpy(&req, pra[0].buf.pv, sizeof req);
  const uint64_t n_bind = uint64_t{req.num_inputs} + req.num_outputs;
  if (pra[0].buf.nLen != sizeof(ExecRequest) + n_bind * sizeof(WireBinding)) {
    *why = "execute request: " + std::to_string(pra[0].buf.nLen) + " bytes for " + std::to_string(req.num_inputs) +
           " inputs and " + std::to_string(req.num_outputs) + " outputs";
    return false;
  }
  dec->graph_id = req.graph_id;
  dec->inputs.resize(req.num_inputs);
  dec->outputs.resize(req.num_outputs);
  // Each raw buffer argument backs exactly one binding: one bound twice (or
  // left over) is a forged request, not a client mistake.
  const uint32_t last_out = n_in + n_out - 1;  // the status argument
  dec->arg_used.assign(last_out, 0);
  const auto* wire = static_cast<const uint8_t*>(pra[0].buf.pv) + sizeof req;
  uint64_t packed_in_end = 0, packed_out_end = 0;
  for (uint64_t i = 0; i < n_bind; ++i) {
    WireBinding w;
    std::memcpy(&w, wire + i * sizeof w, sizeof w);
    const bool is_input = i < req.num_inputs;
    htp::ExecBinding& b = is_input ? dec->inputs[i] : dec->outputs[i - req.num_inputs];
    b = htp::ExecBinding{};
    b.tensor_id = w.tensor_id;
    if (w.kind == kBindMemHandle) {
      if (w.mem_id == 0) {
        *why = "tensor id " + std::to_string(w.tensor_id) + ": memory handle id 0";
        return false;
      }
      b.mem_id = w.mem_id;
      continue;
    }
    const uint32_t lo = is_input ? 1 : n_in, hi = is_input ? n_in : last_out;
    if (w.kind == kBindPacked) {
      // A packed argument serves many bindings, each in its own range, in
      // increasing order: one may not read or write another's bytes.
      uint64_t& end = is_input ? packed_in_end : packed_out_end;
      const bool in_range = w.arg_index >= lo && w.arg_index < hi;
      const uint64_t len = in_range ? pra[w.arg_index].buf.nLen : 0;
      if (!in_range || dec->arg_used[w.arg_index] == 1 || w.mem_id < end || w.mem_id > len ||
          w.packed_bytes > len - w.mem_id) {
        *why = "tensor id " + std::to_string(w.tensor_id) + ": bad packed range " + std::to_string(w.mem_id) + " + " +
               std::to_string(w.packed_bytes) + " of buffer argument " + std::to_string(w.arg_index);
        return false;
      }
      dec->arg_used[w.arg_index] = 2;
      end = w.mem_id + w.packed_bytes;
      b.data = static_cast<uint8_t*>(pra[w.arg_index].buf.pv) + w.mem_id;
      b.bytes = w.packed_bytes;
      continue;
    }
    if (w.kind != kBindBuffer || w.arg_index < lo || w.arg_index >= hi || dec->arg_used[w.arg_index] != 0) {
      *why = "tensor id " + std::to_string(w.tensor_id) + ": bad buffer argument " + std::to_string(w.arg_index) +
             " (kind " + std::to_string(w.kind) + ")";
      return false;
    }
    dec->arg_used[w.arg_index] = 1;
    b.data = pra[w.arg_index].buf.pv;
    b.bytes = pra[w.arg_index].buf.nLen;
  }
  for (uint32_t a = 1; a < last_out; ++a) {
    if (dec->arg_used[a] == 0) {
      *why = "execute request: buffer argument " + std::to_string(a) + " is bound to no tensor";
      return false;
    }
  }
  return true;
}

uint32_t with_control(uint32_t sc, const remote_arg* args, ControlWire* control, std::vector<remote_arg>* out) {
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(sc), n_out = REMOTE_SCALARS_OUTBUFS(sc);
  const uint32_t n_hin = REMOTE_SCALARS_INHANDLES(sc), n_hout = REMOTE_SCALARS_OUTHANDLES(sc);
  out->assign(args, args + n_in);
  remote_arg c;
  c.buf = {control, sizeof *control};
  out->push_back(c);
  out->insert(out->end(), args + n_in, args + n_in + n_out + n_hin + n_hout);
  return REMOTE_SCALARS_MAKEX(REMOTE_SCALARS_METHOD_ATTR(sc) | kAttrControl, REMOTE_SCALARS_METHOD(sc), n_in + 1, n_out,
                              n_hin, n_hout);
}

bool strip_control(uint32_t sc, const remote_arg* pra, uint32_t* stripped_sc, std::vector<remote_arg>* out,
                   const ControlWire** control) {
  *control = nullptr;
  *stripped_sc = sc;
  if (!has_control(sc)) return true;
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(sc);
  if (n_in == 0 || pra[n_in - 1].buf.nLen != sizeof(ControlWire) || pra[n_in - 1].buf.pv == nullptr ||
      reinterpret_cast<uintptr_t>(pra[n_in - 1].buf.pv) % alignof(ControlWire) != 0) {
    return false;
  }
  *control = static_cast<const ControlWire*>(pra[n_in - 1].buf.pv);
  const uint32_t rest = REMOTE_SCALARS_LENGTH(sc) - n_in;
  out->assign(pra, pra + n_in - 1);
  out->insert(out->end(), pra + n_in, pra + n_in + rest);
  *stripped_sc = REMOTE_SCALARS_MAKEX(REMOTE_SCALARS_METHOD_ATTR(sc) & ~kAttrControl, REMOTE_SCALARS_METHOD(sc), n_in - 1,
                                      REMOTE_SCALARS_OUTBUFS(sc), REMOTE_SCALARS_INHANDLES(sc),
                                      REMOTE_SCALARS_OUTHANDLES(sc));
  return true;
}

}  // namespace openhtp::ipc::htp_wire
