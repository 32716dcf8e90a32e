#include "binary/context_codec.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <unordered_map>

#include "binary/aligned_bytes.h"
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

// A STATIC tensor of graph `g`, tensor `t` of an image.
struct StaticRef {
  uint32_t g, t;
};

// The image's STATIC tensors grouped by content (dtype, dims, encoding,
// bytes), in order of first appearance.
std::vector<std::vector<StaticRef>> group_static(const std::vector<GraphImage>& graphs) {
  std::vector<std::vector<StaticRef>> groups;
  std::unordered_multimap<uint64_t, size_t> by_hash;
  for (uint32_t gi = 0; gi < graphs.size(); ++gi) {
    const auto& tensors = graphs[gi].spec.tensors;
    for (uint32_t ti = 0; ti < tensors.size(); ++ti) {
      const htp::TensorSpec& t = tensors[ti];
      if (t.type != htp::tensor_type::kStatic || t.static_data.empty()) continue;
      const uint64_t h = htp::static_content_hash(t, t.static_data);
      size_t found = SIZE_MAX;
      auto [lo, hi] = by_hash.equal_range(h);
      for (auto it = lo; it != hi && found == SIZE_MAX; ++it) {
        const StaticRef& first = groups[it->second].front();
        const htp::TensorSpec& u = graphs[first.g].spec.tensors[first.t];
        if (htp::same_static_meta(u, t) && u.static_data == t.static_data) found = it->second;
      }
      if (found == SIZE_MAX) {
        found = groups.size();
        groups.emplace_back();
        by_hash.emplace(h, found);
      }
      groups[found].push_back({gi, ti});
    }
  }
  return groups;
}
ApiVersion from_fb(const fb::Version* v) { return v ? ApiVersion{v->major(), v->minor(), v->patch()} : ApiVersion{}; }

}  // namespace

uint64_t weights_bytes(const std::vector<GraphImage>& graphs, uint64_t alignment, bool shared) {
  uint64_t total = 0;
  if (shared) {
    for (const auto& group : group_static(graphs)) {
      const size_t n = graphs[group.front().g].spec.tensors[group.front().t].static_data.size();
      total += (n + alignment - 1) / alignment * alignment;
    }
    return total;
  }
  for (const auto& g : graphs) {
    for (const auto& t : g.spec.tensors) {
      if (t.type == htp::tensor_type::kStatic) total += (t.static_data.size() + alignment - 1) / alignment * alignment;
    }
  }
  return total;
}

std::vector<uint8_t> encode_context(const ContextImage& image) {
  return encode_context_as(image, image.weight_sharing ? kContextFormat : kContextFormatUnshared);
}

std::vector<uint8_t> encode_context_as(const ContextImage& image, ApiVersion format_version) {
  flatbuffers::FlatBufferBuilder pb(1 << 16);
  // Weight sharing: each content two or more STATIC tensors hold becomes one
  // blob, written first; those tensors are written without data and listed
  // in their graph's shared_weights.
  std::vector<flatbuffers::Offset<fb::WeightBlob>> blobs;
  std::vector<std::set<uint32_t>> omit(image.graphs.size());
  std::vector<std::vector<fb::SharedWeightRef>> refs(image.graphs.size());
  if (image.weight_sharing) {
    for (const auto& group : group_static(image.graphs)) {
      if (group.size() < 2) continue;
      const auto& bytes = image.graphs[group.front().g].spec.tensors[group.front().t].static_data;
      const auto blob = static_cast<uint32_t>(blobs.size());
      blobs.push_back(fb::CreateWeightBlob(pb, pb.CreateVector(bytes.data(), bytes.size())));
      for (const StaticRef& r : group) {
        const uint32_t id = image.graphs[r.g].spec.tensors[r.t].id;
        omit[r.g].insert(id);
        refs[r.g].emplace_back(id, blob);
      }
    }
  }
  std::vector<flatbuffers::Offset<fb::GraphRecord>> records;
  for (size_t gi = 0; gi < image.graphs.size(); ++gi) {
    const GraphImage& g = image.graphs[gi];
    auto graph = build_graph(pb, g.spec, omit[gi].empty() ? nullptr : &omit[gi]);
    std::vector<fb::Placement> placements;
    for (const auto& [id, where] : g.placements) {
      placements.emplace_back(id, static_cast<uint8_t>(where.region), where.offset);
    }
    // By tensor id: the same context writes the same bytes every time.
    std::sort(placements.begin(), placements.end(),
              [](const fb::Placement& x, const fb::Placement& y) { return x.tensor_id() < y.tensor_id(); });
    std::sort(refs[gi].begin(), refs[gi].end(), [](const fb::SharedWeightRef& x, const fb::SharedWeightRef& y) {
      return x.tensor_id() < y.tensor_id();
    });
    records.push_back(fb::CreateGraphRecord(pb, graph, g.arena_bytes, g.vtcm_bytes, g.spill_fill_bytes,
                                            placements.empty() ? 0 : pb.CreateVectorOfStructs(placements),
                                            refs[gi].empty() ? 0 : pb.CreateVectorOfStructs(refs[gi])));
  }
  const fb::Version core = to_fb(image.core_api), backend = to_fb(image.backend_api);
  auto ctx = fb::CreateContextBinary(pb, pb.CreateString(image.build_id), &core, &backend, image.soc_model,
                                     image.dsp_arch, pb.CreateVector(records), image.weights_bytes,
                                     blobs.empty() ? 0 : pb.CreateVector(blobs), image.weight_sharing);
  pb.Finish(ctx);

  return wrap_context_payload(std::vector<uint8_t>(pb.GetBufferPointer(), pb.GetBufferPointer() + pb.GetSize()),
                              format_version);
}

std::vector<uint8_t> wrap_context_payload(const std::vector<uint8_t>& payload_bytes, ApiVersion format_version) {
  flatbuffers::FlatBufferBuilder eb(payload_bytes.size() + 256);
  const fb::Version format = to_fb(format_version);
  // The payload is a FlatBuffer of its own, with 8-byte fields (Placement's
  // offset): its bytes start 8-aligned so a reader can use them in place.
  eb.ForceVectorAlignment(payload_bytes.size(), 1, 8);
  auto payload = eb.CreateVector(payload_bytes.data(), payload_bytes.size());
  auto env = fb::CreateContextEnvelope(eb, &format, payload, crc32_of(payload_bytes.data(), payload_bytes.size()));
  eb.Finish(env, fb::ContextEnvelopeIdentifier());
  return std::vector<uint8_t>(eb.GetBufferPointer(), eb.GetBufferPointer() + eb.GetSize());
}

namespace {
template <typename T>
T read_le(const uint8_t* p) {  // FlatBuffers are little-endian; `p` may be unaligned
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
}  // namespace

// A finished FlatBuffer has no length of its own: its extent is where its
// parts end. The envelope is built payload first, so the payload vector
// lies at the buffer's end, behind the root table and its vtable, and
// Finish() pads the whole to the builder's largest alignment (8: the
// payload's, encode_context). Every offset is checked against `size` before
// it is followed; decode_context still verifies the binary as a whole.
size_t context_binary_extent(const uint8_t* data, size_t size) {
  constexpr size_t kFinishAlignment = 8;
  if (data == nullptr || size < 8 || !fb::ContextEnvelopeBufferHasIdentifier(data)) return 0;
  const uint64_t table = read_le<uint32_t>(data);
  if (table + 4 > size) return 0;
  const int64_t vtable = static_cast<int64_t>(table) - read_le<int32_t>(data + table);
  if (vtable < 0 || static_cast<uint64_t>(vtable) + 4 > size) return 0;
  const uint16_t vtable_bytes = read_le<uint16_t>(data + vtable), table_bytes = read_le<uint16_t>(data + vtable + 2);
  if (static_cast<uint64_t>(vtable) + vtable_bytes > size || table + table_bytes > size) return 0;
  uint64_t end = std::max<uint64_t>(static_cast<uint64_t>(vtable) + vtable_bytes, table + table_bytes);
  const size_t payload_slot = fb::ContextEnvelope::VT_PAYLOAD;  // byte offset of `payload` in the vtable
  if (payload_slot + 2 <= vtable_bytes) {
    const uint16_t field = read_le<uint16_t>(data + vtable + payload_slot);
    if (field != 0) {
      const uint64_t at = table + field;
      if (at + 4 > size) return 0;
      const uint64_t vec = at + read_le<uint32_t>(data + at);
      if (vec + 4 > size) return 0;
      const uint64_t vec_end = vec + 4 + read_le<uint32_t>(data + vec);
      if (vec_end > size) return 0;
      end = std::max(end, vec_end);
    }
  }
  const uint64_t padded = (end + kFinishAlignment - 1) / kFinishAlignment * kFinishAlignment;
  return static_cast<size_t>(std::min<uint64_t>(padded, size));
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

BinaryError decode_context(const uint8_t* data, size_t size, ContextImage* image, std::string* error,
                           std::shared_ptr<const void> in_place) {
  AlignedBytes whole;
  if (data != nullptr) {
    const uint8_t* given = data;
    data = whole.get(data, size);
    if (data != given) in_place.reset();  // read from a copy: views would outlive it
  }
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
  AlignedBytes nested;
  const uint8_t* payload_data = nested.get(payload->data(), payload->size());
  if (payload_data != payload->data()) in_place.reset();
  flatbuffers::Verifier pv(payload_data, payload->size());
  if (!pv.VerifyBuffer<fb::ContextBinary>(nullptr)) {
    *error = "context binary payload failed verification";
    return BinaryError::kMalformed;
  }
  const fb::ContextBinary* ctx = flatbuffers::GetRoot<fb::ContextBinary>(payload_data);
  ContextImage out;
  out.build_id = ctx->build_id() ? ctx->build_id()->str() : std::string();
  out.core_api = from_fb(ctx->core_api());
  out.backend_api = from_fb(ctx->backend_api());
  out.soc_model = ctx->soc_model();
  out.dsp_arch = ctx->dsp_arch();
  out.weights_bytes = ctx->weights_bytes();
  out.weight_sharing = ctx->weight_sharing();
  const auto* blobs = ctx->weight_blobs();
  const uint32_t n_blobs = blobs == nullptr ? 0 : blobs->size();
  out.weight_blobs = n_blobs;
  for (uint32_t b = 0; b < n_blobs; ++b) {
    const auto* d = blobs->Get(b)->data();
    out.weight_blob_bytes += d == nullptr ? 0 : d->size();
  }
  if (ctx->graphs() != nullptr) {
    for (const fb::GraphRecord* r : *ctx->graphs()) {
      GraphImage g;
      if (!read_graph(r->graph(), &g.spec, error, in_place)) {
        *error = "context binary: " + *error;
        return BinaryError::kMalformed;
      }
      g.arena_bytes = r->arena_bytes();
      g.vtcm_bytes = r->vtcm_bytes();
      g.spill_fill_bytes = r->spill_fill_bytes();
      if (r->placements() != nullptr) {
        // The verifier checks a vector's length word, not that its 8-byte
        // structs are 8-aligned: a writer always aligns them, so a vector
        // that is not was crafted or corrupted (reading it would be UB).
        if (reinterpret_cast<uintptr_t>(r->placements()->Data()) % alignof(fb::Placement) != 0) {
          *error = "context binary: graph '" + g.spec.name + "' has a misaligned placement table";
          return BinaryError::kMalformed;
        }
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
      if (r->shared_weights() != nullptr) {
        std::set<uint32_t> seen;
        for (const fb::SharedWeightRef* s : *r->shared_weights()) {
          const std::string where = "context binary: graph '" + g.spec.name + "' tensor id " +
                                    std::to_string(s->tensor_id());
          htp::TensorSpec* t = nullptr;
          for (auto& cand : g.spec.tensors) {
            if (cand.id == s->tensor_id()) t = &cand;
          }
          if (t == nullptr || t->type != htp::tensor_type::kStatic) {
            *error = where + " refers to weight blob " + std::to_string(s->blob()) + " but is not a STATIC tensor of it";
            return BinaryError::kMalformed;
          }
          if (s->blob() >= n_blobs) {
            *error = where + " ('" + t->name + "') refers to weight blob " + std::to_string(s->blob()) +
                     ", the binary has " + std::to_string(n_blobs);
            return BinaryError::kMalformed;
          }
          if (!seen.insert(s->tensor_id()).second || !t->static_data.empty()) {
            *error = where + " ('" + t->name + "') has data of its own or refers to a weight blob twice";
            return BinaryError::kMalformed;
          }
          const auto* d = blobs->Get(s->blob())->data();
          const size_t have = d == nullptr ? 0 : d->size();
          if (have != t->num_bytes()) {
            *error = where + " ('" + t->name + "') needs " + std::to_string(t->num_bytes()) + " bytes, weight blob " +
                     std::to_string(s->blob()) + " holds " + std::to_string(have);
            return BinaryError::kMalformed;
          }
          if (have > 0) {
            const std::span<const uint8_t> bytes(d->data(), have);
            t->static_data = in_place ? htp::StaticBytes::view(in_place, bytes) : htp::StaticBytes::copy_of(bytes);
          }
          ++out.shared_tensors;
        }
      }
      out.graphs.push_back(std::move(g));
    }
  }
  *image = std::move(out);
  return BinaryError::kNone;
}

}  // namespace openhtp::binary
