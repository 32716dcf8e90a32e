#include "ipc/htp_protocol.h"

namespace openhtp::ipc::htp_wire {

bool encode_execute(uint64_t graph_id, std::span<const htp::ExecBinding> inputs,
                    std::span<const htp::ExecBinding> outputs, WireStatus* st, ExecEncoding* enc, std::string* why) {
  uint32_t raw_in = 0, raw_out = 0;
  for (const auto& b : inputs) raw_in += b.mem_id == 0 ? 1 : 0;
  for (const auto& b : outputs) raw_out += b.mem_id == 0 ? 1 : 0;
  if (raw_in > kMaxRawBuffers || raw_out > kMaxRawBuffers) {
    *why = "an execute passes at most " + std::to_string(kMaxRawBuffers) + " client-buffer " +
           (raw_in > kMaxRawBuffers ? "inputs (got " + std::to_string(raw_in) : "outputs (got " + std::to_string(raw_out)) +
           "); register the rest as memory handles";
    return false;
  }
  const size_t n_bind = inputs.size() + outputs.size();
  enc->request.resize(sizeof(ExecRequest) + n_bind * sizeof(WireBinding));
  const ExecRequest hdr{graph_id, static_cast<uint32_t>(inputs.size()), static_cast<uint32_t>(outputs.size())};
  std::memcpy(enc->request.data(), &hdr, sizeof hdr);
  enc->args.resize(1 + raw_in + raw_out + 1);
  enc->args[0].buf = {enc->request.data(), enc->request.size()};
  // Buffer arguments: in0 is the request, then raw inputs, then raw outputs.
  uint32_t next_in = 1, next_out = 1 + raw_in;
  auto* wire = reinterpret_cast<uint8_t*>(enc->request.data()) + sizeof hdr;
  size_t k = 0;
  auto put = [&](const htp::ExecBinding& b, uint32_t* next) {
    WireBinding w;
    w.tensor_id = b.tensor_id;
    if (b.mem_id != 0) {
      w.kind = kBindMemHandle;
      w.mem_id = b.mem_id;
    } else {
      w.kind = kBindBuffer;
      w.arg_index = (*next)++;
      enc->args[w.arg_index].buf = {b.data, static_cast<size_t>(b.bytes)};
    }
    std::memcpy(wire + k++ * sizeof(WireBinding), &w, sizeof w);
  };
  for (const auto& b : inputs) put(b, &next_in);
  for (const auto& b : outputs) put(b, &next_out);
  enc->args.back().buf = {st, sizeof *st};
  enc->raw_inputs = raw_in;
  enc->raw_outputs = raw_out;
  enc->sc = REMOTE_SCALARS_MAKEX(0, kGraphExecute, 1 + raw_in, raw_out + 1, 0, 0);
  return true;
}

bool decode_execute(uint32_t sc, const remote_arg* pra, ExecDecoding* dec, std::string* why) {
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(sc), n_out = REMOTE_SCALARS_OUTBUFS(sc);
  if (n_in < 1 || n_out < 1 || REMOTE_SCALARS_INHANDLES(sc) != 0 || pra[0].buf.nLen < sizeof(ExecRequest) ||
      pra[0].buf.pv == nullptr) {
    *why = "execute request: malformed call";
    return false;
  }
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

WireStatus* status_of(uint32_t sc, remote_arg* pra) {
  const uint32_t n_in = REMOTE_SCALARS_INBUFS(sc), n_out = REMOTE_SCALARS_OUTBUFS(sc);
  if (n_out == 0) return nullptr;
  remote_arg& a = pra[n_in + n_out - 1];
  if (a.buf.nLen != sizeof(WireStatus) || a.buf.pv == nullptr) return nullptr;
  return static_cast<WireStatus*>(a.buf.pv);
}

}  // namespace openhtp::ipc::htp_wire
