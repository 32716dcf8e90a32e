#include "binary/context_codec.h"

#include <zlib.h>

#include <algorithm>

#include "binary/graph_tables.h"
#include "context_generated.h"

namespace openhtp::binary {
namespace {

uint32_t crc32_of(const uint8_t* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed large payloads in pieces.
  while (size > 0) {
    const uInt n = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    crc = crc32(crc, data, n);
    data += n;
    size -= n;
  }
  return static_cast<uint32_t>(crc);
}

fb::Version to_fb(const ApiVersion& v) { return fb::Version(v.major, v.minor, v.patch); }
ApiVersion from_fb(const fb::Version* v) { return v ? ApiVersion{v->major(), v->minor(), v->patch()} : ApiVersion{}; }

}  // namespace

uint64_t weights_bytes(const std::vector<GraphImage>& graphs, uint64_t alignment) {
  uint64_t total = 0;
  for (const auto& g : graphs) {
    for (const auto& t : g.spec.tensors) {
      if (t.type == htp::tensor_type::kStatic) total += (t.static_data.size() + alignment - 1) / alignment * alignment;
    }
  }
  return total;
}

std::vector<uint8_t> encode_context(const ContextImage& image) { return encode_context_as(image, kContextFormat); }

std::vector<uint8_t> encode_context_as(const ContextImage& image, ApiVersion format_version) {
  flatbuffers::FlatBufferBuilder pb(1 << 16);
  std::vector<flatbuffers::Offset<fb::GraphRecord>> records;
  for (const auto& g : image.graphs) {
    auto graph = build_graph(pb, g.spec);
    std::vector<fb::Placement> placements;
    for (const auto& [id, where] : g.placements) {
      placements.emplace_back(id, static_cast<uint8_t>(where.region), where.offset);
    }
    // By tensor id: the same context writes the same bytes every time.
    std::sort(placements.begin(), placements.end(),
              [](const fb::Placement& x, const fb::Placement& y) { return x.tensor_id() < y.tensor_id(); });
    records.push_back(fb::CreateGraphRecord(pb, graph, g.arena_bytes, g.vtcm_bytes, g.spill_fill_bytes,
                                            placements.empty() ? 0 : pb.CreateVectorOfStructs(placements)));
  }
  const fb::Version core = to_fb(image.core_api), backend = to_fb(image.backend_api);
  auto ctx = fb::CreateContextBinary(pb, pb.CreateString(image.build_id), &core, &backend, image.soc_model,
                                     image.dsp_arch, pb.CreateVector(records), image.weights_bytes);
  pb.Finish(ctx);

  return wrap_context_payload(std::vector<uint8_t>(pb.GetBufferPointer(), pb.GetBufferPointer() + pb.GetSize()),
                              format_version);
}

std::vector<uint8_t> wrap_context_payload(const std::vector<uint8_t>& payload_bytes, ApiVersion format_version) {
  flatbuffers::FlatBufferBuilder eb(payload_bytes.size() + 256);
  const fb::Version format = to_fb(format_version);
  auto payload = eb.CreateVector(payload_bytes.data(), payload_bytes.size());
  auto env = fb::CreateContextEnvelope(eb, &format, payload, crc32_of(payload_bytes.data(), payload_bytes.size()));
  eb.Finish(env, fb::ContextEnvelopeIdentifier());
  return std::vector<uint8_t>(eb.GetBufferPointer(), eb.GetBufferPointer() + eb.GetSize());
}

bool context_payload(const uint8_t* data, size_t size, std::vector<uint8_t>* payload) {
  if (data == nullptr || size < 8 || !fb::ContextEnvelopeBufferHasIdentifier(data)) return false;
  flatbuffers::Verifier ev(data, size);
  if (!fb::VerifyContextEnvelopeBuffer(ev)) return false;
  const auto* p = fb::GetContextEnvelope(data)->payload();
  if (p == nullptr) return false;
  payload->assign(p->data(), p->data() + p->size());
  return true;
}

BinaryError decode_context(const uint8_t* data, size_t size, ContextImage* image, std::string* error) {
  if (data == nullptr || size < 8 || !fb::ContextEnvelopeBufferHasIdentifier(data)) {
    *error = "not an openhtp context binary (" + std::to_string(size) + " bytes, no OHTC identifier)";
    return BinaryError::kMalformed;
  }
  flatbuffers::Verifier ev(data, size);
  if (!fb::VerifyContextEnvelopeBuffer(ev)) {
    *error = "context binary envelope failed verification (truncated or corrupted, " + std::to_string(size) + " bytes)";
    return BinaryError::kMalformed;
  }
  const fb::ContextEnvelope* env = fb::GetContextEnvelope(data);
  const ApiVersion format = from_fb(env->format());
  if (format.major != kContextFormat.major || format.minor > kContextFormat.minor) {
    *error = "context binary format " + std::to_string(format.major) + "." + std::to_string(format.minor) +
             " is not readable by this backend (format " + std::to_string(kContextFormat.major) + "." +
             std::to_string(kContextFormat.minor) + ")";
    return BinaryError::kVersion;
  }
  const auto* payload = env->payload();
  if (payload == nullptr || crc32_of(payload->data(), payload->size()) != env->payload_crc32()) {
    *error = "context binary payload fails its CRC-32 check (corrupted)";
    return BinaryError::kMalformed;
  }
  flatbuffers::Verifier pv(payload->data(), payload->size());
  if (!pv.VerifyBuffer<fb::ContextBinary>(nullptr)) {
    *error = "context binary payload failed verification";
    return BinaryError::kMalformed;
  }
  const fb::ContextBinary* ctx = flatbuffers::GetRoot<fb::ContextBinary>(payload->data());
  ContextImage out;
  out.build_id = ctx->build_id() ? ctx->build_id()->str() : std::string();
  out.core_api = from_fb(ctx->core_api());
  out.backend_api = from_fb(ctx->backend_api());
  out.soc_model = ctx->soc_model();
  out.dsp_arch = ctx->dsp_arch();
  out.weights_bytes = ctx->weights_bytes();
  if (ctx->graphs() != nullptr) {
    for (const fb::GraphRecord* r : *ctx->graphs()) {
      GraphImage g;
      if (!read_graph(r->graph(), &g.spec, error)) {
        *error = "context binary: " + *error;
        return BinaryError::kMalformed;
      }
      g.arena_bytes = r->arena_bytes();
      g.vtcm_bytes = r->vtcm_bytes();
      g.spill_fill_bytes = r->spill_fill_bytes();
      if (r->placements() != nullptr) {
        for (const fb::Placement* p : *r->placements()) {
          if (p->region() > static_cast<uint8_t>(htp::Region::kSpillFill) || g.spec.find_tensor(p->tensor_id()) == nullptr) {
            *error = "context binary: graph '" + g.spec.name + "' stores a placement for tensor id " +
                     std::to_string(p->tensor_id()) + " in region " + std::to_string(p->region()) +
                     ", which the graph does not have";
            return BinaryError::kMalformed;
          }
          if (!g.placements.emplace(p->tensor_id(), htp::TensorPlacement{static_cast<htp::Region>(p->region()),
                                                                         static_cast<size_t>(p->offset())})
                   .second) {
            *error = "context binary: graph '" + g.spec.name + "' stores two placements for tensor id " +
                     std::to_string(p->tensor_id());
            return BinaryError::kMalformed;
          }
        }
      }
      out.graphs.push_back(std::move(g));
    }
  }
  *image = std::move(out);
  return BinaryError::kNone;
}

}  // namespace openhtp::binary
