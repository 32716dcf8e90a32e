// The skel's wire format (src/ipc/htp_protocol.h): what the stub encodes the
// skel decodes to the same values, for every method, and a decode refuses
// calls whose counts, sizes or indices do not add up — the checks a crafted
// remote call meets before anything is read.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include "ipc/htp_protocol.h"

using namespace openhtp;
namespace wire = openhtp::ipc::htp_wire;

namespace {

TEST(HtpProtocol, FixedRequestsRoundTrip) {
  const wire::ContextCreateReq req{7, 0, 11, 4096};
  wire::WireStatus st;
  remote_arg a[2];
  const uint32_t sc = wire::encode_fixed(wire::kContextCreate, req, &st, a);
  EXPECT_EQ(REMOTE_SCALARS_METHOD(sc), wire::kContextCreate);
  wire::ContextCreateReq got;
  ASSERT_TRUE(wire::decode_fixed(sc, a, &got));
  EXPECT_EQ(got.priority, 7u);
  EXPECT_EQ(got.spill_fill_group, 11u);
  EXPECT_EQ(got.reserve_spill_fill_bytes, 4096u);
  EXPECT_EQ(wire::status_of(sc, a), &st);

  for (wire::Method m : {wire::kContextFree, wire::kGraphFree, wire::kMemDeregister}) {
    const wire::IdReq id{42};
    const uint32_t s2 = wire::encode_fixed(m, id, &st, a);
    wire::IdReq back;
    ASSERT_TRUE(wire::decode_fixed(s2, a, &back));
    EXPECT_EQ(back.id, 42u);
    EXPECT_EQ(REMOTE_SCALARS_METHOD(s2), m);
  }
  const wire::GraphThreadsReq threads{9, 4, 0};
  const uint32_t s3 = wire::encode_fixed(wire::kGraphSetThreads, threads, &st, a);
  wire::GraphThreadsReq tback;
  ASSERT_TRUE(wire::decode_fixed(s3, a, &tback));
  EXPECT_EQ(tback.graph_id, 9u);
  EXPECT_EQ(tback.num_threads, 4u);
}

TEST(HtpProtocol, FixedRequestsOfTheWrongShapeAreRefused) {
  const wire::IdReq id{1};
  wire::WireStatus st;
  remote_arg a[2];
  const uint32_t sc = wire::encode_fixed(wire::kContextFree, id, &st, a);
  wire::ContextCreateReq wrong_type;  // a 24-byte request where 8 bytes came
  EXPECT_FALSE(wire::decode_fixed(sc, a, &wrong_type));
  wire::IdReq back;
  EXPECT_FALSE(wire::decode_fixed(REMOTE_SCALARS_MAKEX(0, wire::kContextFree, 2, 1, 0, 0), a, &back));
  EXPECT_FALSE(wire::decode_fixed(REMOTE_SCALARS_MAKEX(0, wire::kContextFree, 1, 1, 1, 0), a, &back));
  a[0].buf.pv = nullptr;
  EXPECT_FALSE(wire::decode_fixed(sc, a, &back));
  remote_arg no_status[2];
  no_status[1].buf = {&st, sizeof st - 1};
  EXPECT_EQ(wire::status_of(sc, no_status), nullptr);
  EXPECT_EQ(wire::status_of(REMOTE_SCALARS_MAKEX(0, 0, 1, 0, 0, 0), no_status), nullptr);
}

TEST(HtpProtocol, GraphPrepareLoadBinaryAndPlanRoundTrip) {
  wire::WireStatus st;
  {
    const std::vector<uint8_t> blob = {1, 2, 3, 4, 5};
    wire::GraphInfoWire info;
    remote_arg a[6];
    const wire::IdReq five{5};
    wire::IdReq ctx;
    std::span<const uint8_t> got;
    std::vector<ipc::StaticRefWire> got_refs;
    int fd = 0;
    wire::GraphInfoWire* out = nullptr;
    // Without an upload: no refs, no handle.
    uint32_t sc = wire::encode_graph_prepare(five, blob, {}, -1, &info, &st, a);
    ASSERT_TRUE(wire::decode_graph_prepare(sc, a, &ctx, &got, &got_refs, &fd, &out));
    EXPECT_EQ(ctx.id, 5u);
    EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), blob);
    EXPECT_TRUE(got_refs.empty());
    EXPECT_EQ(fd, -1);
    EXPECT_EQ(out, &info);
    a[3].buf.nLen = 3;
    EXPECT_FALSE(wire::decode_graph_prepare(sc, a, &ctx, &got, &got_refs, &fd, &out));
    // With one: the refs come back as sent and the handle is the fd.
    const std::vector<ipc::StaticRefWire> refs = {{2, 0, 0, 64}, {7, 0, 64, 12}};
    sc = wire::encode_graph_prepare(five, blob, refs, 42, &info, &st, a);
    ASSERT_TRUE(wire::decode_graph_prepare(sc, a, &ctx, &got, &got_refs, &fd, &out));
    ASSERT_EQ(got_refs.size(), 2u);
    EXPECT_EQ(got_refs[1].tensor_id, 7u);
    EXPECT_EQ(got_refs[1].offset, 64u);
    EXPECT_EQ(got_refs[1].size, 12u);
    EXPECT_EQ(fd, 42);
    // Malformed: a partial ref, refs without the handle, a handle without refs.
    a[2].buf.nLen = sizeof(ipc::StaticRefWire) + 5;
    EXPECT_FALSE(wire::decode_graph_prepare(sc, a, &ctx, &got, &got_refs, &fd, &out));
    a[2].buf.nLen = 2 * sizeof(ipc::StaticRefWire);
    EXPECT_FALSE(wire::decode_graph_prepare(REMOTE_SCALARS_MAKEX(0, wire::kGraphPrepare, 3, 2, 0, 0), a, &ctx, &got,
                                            &got_refs, &fd, &out));
    a[2].buf.nLen = 0;
    EXPECT_FALSE(wire::decode_graph_prepare(sc, a, &ctx, &got, &got_refs, &fd, &out));
  }
  {
    const std::vector<uint8_t> binary(100, 7);
    std::vector<wire::GraphInfoWire> infos(3);
    remote_arg a[5];
    const wire::LoadBinaryReq load{8, 3, 0};
    uint32_t sc = wire::encode_load_binary(load, binary, -1, infos, &st, a);
    wire::LoadBinaryReq req;
    std::span<const uint8_t> got;
    std::span<wire::GraphInfoWire> out;
    int fd = 0;
    ASSERT_TRUE(wire::decode_load_binary(sc, a, &req, &got, &fd, &out));
    EXPECT_EQ(req.context_id, 8u);
    EXPECT_EQ(out.size(), 3u);
    EXPECT_EQ(got.size(), 100u);
    EXPECT_EQ(fd, -1);
    // A graph count the output buffer does not match.
    wire::LoadBinaryReq lie{8, 4, 0};
    a[0].buf = {&lie, sizeof lie};
    EXPECT_FALSE(wire::decode_load_binary(sc, a, &req, &got, &fd, &out));
    // In an upload: no in-band bytes, the fd is the handle; both at once is malformed.
    sc = wire::encode_load_binary(load, binary, 42, infos, &st, a);
    ASSERT_TRUE(wire::decode_load_binary(sc, a, &req, &got, &fd, &out));
    EXPECT_EQ(fd, 42);
    EXPECT_TRUE(got.empty());
    a[1].buf.nLen = 100;
    EXPECT_FALSE(wire::decode_load_binary(sc, a, &req, &got, &fd, &out));
  }
  {
    std::vector<wire::PlacementWire> room(4);
    remote_arg a[3];
    const wire::IdReq three{3};
    const uint32_t sc = wire::encode_graph_plan(three, room, &st, a);
    wire::IdReq g;
    std::span<wire::PlacementWire> out;
    ASSERT_TRUE(wire::decode_graph_plan(sc, a, &g, &out));
    EXPECT_EQ(g.id, 3u);
    EXPECT_EQ(out.size(), 4u);
    a[1].buf.nLen = sizeof(wire::PlacementWire) * 2 + 1;
    EXPECT_FALSE(wire::decode_graph_plan(sc, a, &g, &out));
  }
}

TEST(HtpProtocol, MemRegisterQueryAndErrorMessageRoundTrip) {
  wire::WireStatus st;
  {
    const wire::MemRegisterReq req{2, 4096, 8192, static_cast<uint32_t>(htp::MemoryKind::kWeights), 0};
    remote_arg a[3];
    const uint32_t sc = wire::encode_mem_register(req, 17, &st, a);
    EXPECT_EQ(REMOTE_SCALARS_INHANDLES(sc), 1u);
    wire::MemRegisterReq got;
    int fd = -1;
    ASSERT_TRUE(wire::decode_mem_register(sc, a, &got, &fd));
    EXPECT_EQ(fd, 17);
    EXPECT_EQ(got.offset, 4096u);
    EXPECT_EQ(got.size, 8192u);
    EXPECT_EQ(got.kind, static_cast<uint32_t>(htp::MemoryKind::kWeights));
    wire::MemRegisterReq bad_kind = req;
    bad_kind.kind = 9;
    a[0].buf = {&bad_kind, sizeof bad_kind};
    EXPECT_FALSE(wire::decode_mem_register(sc, a, &got, &fd));
    EXPECT_FALSE(wire::decode_mem_register(REMOTE_SCALARS_MAKEX(0, wire::kMemRegister, 1, 1, 0, 0), a, &got, &fd));
  }
  {
    wire::QueryResp resp;
    remote_arg a[2];
    const uint32_t sc = wire::encode_query(&resp, &st, a);
    wire::QueryResp* out = nullptr;
    ASSERT_TRUE(wire::decode_query(sc, a, &out));
    EXPECT_EQ(out, &resp);
  }
  {
    char text[wire::kErrorMessageBytes];
    remote_arg a[3];
    const wire::IdReq ticket99{99};
    const uint32_t sc = wire::encode_error_message(ticket99, text, &st, a);
    wire::IdReq ticket;
    char* out = nullptr;
    ASSERT_TRUE(wire::decode_error_message(sc, a, &ticket, &out));
    EXPECT_EQ(ticket.id, 99u);
    EXPECT_EQ(out, text);
    a[1].buf.nLen = 10;
    EXPECT_FALSE(wire::decode_error_message(sc, a, &ticket, &out));
  }
}

TEST(HtpProtocol, ExecuteRoundTripsMixedBindings) {
  float x[4] = {1, 2, 3, 4}, y[2] = {}, z[3] = {};
  const std::vector<htp::ExecBinding> in = {{10, 0, x, sizeof x}, {11, 5, nullptr, 0}};
  const std::vector<htp::ExecBinding> out = {{12, 6, nullptr, 0}, {13, 0, y, sizeof y}, {14, 0, z, sizeof z}};
  wire::WireStatus st;
  wire::ExecEncoding enc;
  std::string why;
  ASSERT_TRUE(wire::encode_execute(77, in, out, htp::ExecTiming::kSkip, &st, &enc, &why)) << why;
  EXPECT_EQ(REMOTE_SCALARS_INBUFS(enc.sc), 2u);   // request + x
  EXPECT_EQ(REMOTE_SCALARS_OUTBUFS(enc.sc), 3u);  // y, z, status
  EXPECT_EQ(wire::status_of(enc.sc, enc.args.data()), &st);
  wire::ExecDecoding dec;
  ASSERT_TRUE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why)) << why;
  EXPECT_EQ(dec.graph_id, 77u);
  EXPECT_EQ(dec.timing, htp::ExecTiming::kSkip);
  ASSERT_EQ(dec.inputs.size(), 2u);
  ASSERT_EQ(dec.outputs.size(), 3u);
  EXPECT_EQ(dec.inputs[0].tensor_id, 10u);
  EXPECT_EQ(dec.inputs[0].data, x);
  EXPECT_EQ(dec.inputs[0].bytes, sizeof x);
  EXPECT_EQ(dec.inputs[1].mem_id, 5u);
  EXPECT_EQ(dec.outputs[0].mem_id, 6u);
  EXPECT_EQ(dec.outputs[1].data, y);
  EXPECT_EQ(dec.outputs[2].data, z);
  EXPECT_EQ(dec.outputs[2].bytes, sizeof z);
}

// Whether the DSP measures the execute's time travels in both request forms
// and survives a signal's control argument being added and taken off.
TEST(HtpProtocol, ExecuteTimingTravelsInBothForms) {
  float x[2] = {1, 2};
  const std::vector<htp::ExecBinding> compact_in = {{10, 5, nullptr, 0}};
  const std::vector<htp::ExecBinding> full_in = {{10, 0, x, sizeof x}};
  const std::vector<htp::ExecBinding> out = {{12, 6, nullptr, 0}};
  for (const auto* in : {&compact_in, &full_in}) {
    for (htp::ExecTiming timing : {htp::ExecTiming::kMeasure, htp::ExecTiming::kSkip}) {
      wire::WireStatus st;
      wire::ExecEncoding enc;
      std::string why;
      ASSERT_TRUE(wire::encode_execute(77, *in, out, timing, &st, &enc, &why)) << why;
      wire::ExecDecoding dec;
      ASSERT_TRUE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why)) << why;
      EXPECT_EQ(dec.timing, timing);
      wire::ControlWire control;
      std::vector<remote_arg> with, stripped;
      const uint32_t sc = wire::with_control(enc.sc, enc.args.data(), &control, &with);
      uint32_t stripped_sc = 0;
      const wire::ControlWire* seen = nullptr;
      ASSERT_TRUE(wire::strip_control(sc, with.data(), &stripped_sc, &stripped, &seen));
      EXPECT_EQ(seen, &control);
      ASSERT_TRUE(wire::decode_execute(stripped_sc, stripped.data(), &dec, &why)) << why;
      EXPECT_EQ(dec.timing, timing);
    }
  }
}

// An execute of memory handles only travels in the compact form, 8 bytes a
// tensor, so that a tiny execute fits in one cache line of the call slot;
// anything else keeps the full form.
TEST(HtpProtocol, ExecuteOfMemoryHandlesOnlyTravelsCompact) {
  const std::vector<htp::ExecBinding> in = {{10, 5, nullptr, 0}, {11, 9, nullptr, 0}};
  const std::vector<htp::ExecBinding> out = {{12, 6, nullptr, 0}};
  wire::WireStatus st;
  wire::ExecEncoding enc;
  std::string why;
  ASSERT_TRUE(wire::encode_execute(77, in, out, htp::ExecTiming::kSkip, &st, &enc, &why)) << why;
  EXPECT_EQ(REMOTE_SCALARS_METHOD_ATTR(enc.sc), wire::kAttrCompactExec);
  EXPECT_EQ(enc.request.size(), sizeof(wire::CompactExecRequest) + 3 * sizeof(wire::CompactBinding));
  EXPECT_EQ(REMOTE_SCALARS_INBUFS(enc.sc), 1u);
  EXPECT_EQ(REMOTE_SCALARS_OUTBUFS(enc.sc), 1u);
  wire::ExecDecoding dec;
  ASSERT_TRUE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why)) << why;
  EXPECT_EQ(dec.graph_id, 77u);
  ASSERT_EQ(dec.inputs.size(), 2u);
  ASSERT_EQ(dec.outputs.size(), 1u);
  EXPECT_EQ(dec.inputs[0].tensor_id, 10u);
  EXPECT_EQ(dec.inputs[0].mem_id, 5u);
  EXPECT_EQ(dec.inputs[1].tensor_id, 11u);
  EXPECT_EQ(dec.inputs[1].mem_id, 9u);
  EXPECT_EQ(dec.outputs[0].tensor_id, 12u);
  EXPECT_EQ(dec.outputs[0].mem_id, 6u);
  EXPECT_EQ(dec.outputs[0].data, nullptr);

  // Ids beyond 32 bits, or one client buffer, and the full form is used.
  for (uint64_t graph : {uint64_t{1} << 32, uint64_t{77}}) {
    std::vector<htp::ExecBinding> big = in;
    if (graph == 77) big[1].mem_id = uint64_t{1} << 33;
    wire::ExecEncoding full;
    ASSERT_TRUE(wire::encode_execute(graph, big, out, htp::ExecTiming::kSkip, &st, &full, &why)) << why;
    EXPECT_EQ(REMOTE_SCALARS_METHOD_ATTR(full.sc), 0u);
    ASSERT_TRUE(wire::decode_execute(full.sc, full.args.data(), &dec, &why)) << why;
    EXPECT_EQ(dec.graph_id, graph);
    EXPECT_EQ(dec.inputs[1].mem_id, big[1].mem_id);
  }
  float x[2];
  wire::ExecEncoding mixed;
  ASSERT_TRUE(wire::encode_execute(77, {{{10, 0, x, sizeof x}}}, out, htp::ExecTiming::kSkip, &st, &mixed, &why)) << why;
  EXPECT_EQ(REMOTE_SCALARS_METHOD_ATTR(mixed.sc), 0u);
}

// The stub's encoding and the skel's decoding are kept per thread, and a
// request that repeats the last one is not encoded or decoded again: over a
// random run of requests, most repeating, some changing one field, the kept
// pair must always give what a fresh pair gives.
TEST(HtpProtocol, RepeatedExecutesDecodeAsFreshOnes) {
  std::mt19937 rng(1234);
  float x[3] = {1, 2, 3};
  std::vector<htp::ExecBinding> in = {{10, 5, nullptr, 0}, {11, 9, nullptr, 0}};
  std::vector<htp::ExecBinding> out = {{12, 6, nullptr, 0}};
  uint64_t graph = 77;
  htp::ExecTiming timing = htp::ExecTiming::kSkip;
  wire::ExecEncoding kept_enc;
  wire::ExecDecoding kept_dec;
  int repeats = 0;
  for (int step = 0; step < 400; ++step) {
    switch (rng() % 10) {  // 0..3: repeat as it is
      case 4: in[rng() % in.size()].mem_id = 1 + rng() % 4; break;
      case 5: out[0].tensor_id = 12 + rng() % 2; break;
      case 6: graph = 77 + rng() % 2; break;
      case 7: timing = timing == htp::ExecTiming::kSkip ? htp::ExecTiming::kMeasure : htp::ExecTiming::kSkip; break;
      case 8:  // one binding more or fewer: the counts change, not the first bytes
        if (in.size() == 2) in.push_back({13, 7, nullptr, 0}); else in.resize(2);
        break;
      case 9:  // a client buffer: the full form, then back
        in[0] = in[0].mem_id == 0 ? htp::ExecBinding{10, 5, nullptr, 0} : htp::ExecBinding{10, 0, x, sizeof x};
        break;
      default: ++repeats; break;
    }
    wire::WireStatus st_fresh, st_kept;
    wire::ExecEncoding fresh_enc;
    wire::ExecDecoding fresh_dec;
    std::string why;
    ASSERT_TRUE(wire::encode_execute(graph, in, out, timing, &st_fresh, &fresh_enc, &why)) << why;
    ASSERT_TRUE(wire::encode_execute(graph, in, out, timing, &st_kept, &kept_enc, &why)) << why;
    ASSERT_EQ(kept_enc.sc, fresh_enc.sc) << "step " << step;
    EXPECT_EQ(wire::status_of(kept_enc.sc, kept_enc.args.data()), &st_kept) << "step " << step;
    ASSERT_TRUE(wire::decode_execute(fresh_enc.sc, fresh_enc.args.data(), &fresh_dec, &why)) << why;
    ASSERT_TRUE(wire::decode_execute(kept_enc.sc, kept_enc.args.data(), &kept_dec, &why)) << why;
    EXPECT_EQ(kept_dec.graph_id, fresh_dec.graph_id) << "step " << step;
    EXPECT_EQ(kept_dec.timing, fresh_dec.timing) << "step " << step;
    EXPECT_EQ(kept_dec.inputs, fresh_dec.inputs) << "step " << step;
    EXPECT_EQ(kept_dec.outputs, fresh_dec.outputs) << "step " << step;
    EXPECT_EQ(fresh_dec.graph_id, graph);
    EXPECT_EQ(fresh_dec.inputs.size(), in.size());
  }
  EXPECT_GT(repeats, 100);
}

// A refused request leaves nothing behind for the next one to reuse.
TEST(HtpProtocol, ARefusedCompactExecuteIsNotRemembered) {
  const std::vector<htp::ExecBinding> in = {{10, 5, nullptr, 0}};
  const std::vector<htp::ExecBinding> out = {{12, 6, nullptr, 0}};
  wire::WireStatus st;
  wire::ExecEncoding enc;
  std::string why;
  ASSERT_TRUE(wire::encode_execute(3, in, out, htp::ExecTiming::kSkip, &st, &enc, &why));
  wire::ExecDecoding dec;
  ASSERT_TRUE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why)) << why;
  // The same bytes with one memory handle id forged to 0: refused, and then
  // refused again (not matched against what the refusal left).
  std::vector<uint8_t> forged = enc.request;
  const uint32_t zero = 0;
  std::memcpy(forged.data() + sizeof(wire::CompactExecRequest) + offsetof(wire::CompactBinding, mem_id), &zero,
              sizeof zero);
  remote_arg args[2] = {enc.args[0], enc.args[1]};
  args[0].buf = {forged.data(), forged.size()};
  EXPECT_FALSE(wire::decode_execute(enc.sc, args, &dec, &why));
  EXPECT_FALSE(wire::decode_execute(enc.sc, args, &dec, &why));
  // And the original decodes as before.
  ASSERT_TRUE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why)) << why;
  ASSERT_EQ(dec.inputs.size(), 1u);
  EXPECT_EQ(dec.inputs[0].mem_id, 5u);
}

TEST(HtpProtocol, ForgedCompactExecuteRequestsAreRefused) {
  const std::vector<htp::ExecBinding> in = {{10, 5, nullptr, 0}};
  const std::vector<htp::ExecBinding> out = {{12, 6, nullptr, 0}};
  wire::WireStatus st;
  std::string why;
  wire::ExecDecoding dec;
  auto fresh = [&] {
    wire::ExecEncoding e;
    EXPECT_TRUE(wire::encode_execute(3, in, out, htp::ExecTiming::kSkip, &st, &e, &why));
    return e;
  };
  {  // a count that does not match the bytes
    wire::ExecEncoding e = fresh();
    e.request[4] = 2;  // num_inputs
    why.clear();
    EXPECT_FALSE(wire::decode_execute(e.sc, e.args.data(), &dec, &why));
    EXPECT_NE(why.find("compact execute request"), std::string::npos) << why;
  }
  {  // memory handle id 0
    wire::ExecEncoding e = fresh();
    std::memset(e.request.data() + sizeof(wire::CompactExecRequest) + 4, 0, 4);
    why.clear();
    EXPECT_FALSE(wire::decode_execute(e.sc, e.args.data(), &dec, &why));
    EXPECT_NE(why.find("memory handle id 0"), std::string::npos) << why;
  }
  {  // a compact request with a client buffer argument beside it
    wire::ExecEncoding e = fresh();
    float x[2];
    remote_arg a[3] = {e.args[0], {}, e.args[1]};
    a[1].buf = {x, sizeof x};
    const uint32_t sc = REMOTE_SCALARS_MAKEX(wire::kAttrCompactExec, wire::kGraphExecute, 2, 1, 0, 0);
    why.clear();
    EXPECT_FALSE(wire::decode_execute(sc, a, &dec, &why));
    EXPECT_NE(why.find("malformed"), std::string::npos) << why;
  }
  {  // a request shorter than its header
    wire::ExecEncoding e = fresh();
    e.args[0].buf.nLen = 3;
    why.clear();
    EXPECT_FALSE(wire::decode_execute(e.sc, e.args.data(), &dec, &why));
  }
}

// Rewrites binding `k` of an encoded execute request.
void forge(wire::ExecEncoding* enc, size_t k, void (*edit)(wire::WireBinding*)) {
  wire::WireBinding b;
  uint8_t* at = enc->request.data() + sizeof(wire::ExecRequest) + k * sizeof b;
  std::memcpy(&b, at, sizeof b);
  edit(&b);
  std::memcpy(at, &b, sizeof b);
}

TEST(HtpProtocol, ForgedExecuteRequestsAreRefused) {
  float x[4], y[4], o[4];
  const std::vector<htp::ExecBinding> in = {{1, 0, x, sizeof x}, {2, 0, y, sizeof y}};
  const std::vector<htp::ExecBinding> out = {{3, 0, o, sizeof o}};
  wire::WireStatus st;
  std::string why;
  auto fresh = [&] {
    wire::ExecEncoding enc;
    EXPECT_TRUE(wire::encode_execute(1, in, out, htp::ExecTiming::kSkip, &st, &enc, &why));
    return enc;
  };
  wire::ExecDecoding dec;
  struct Case {
    const char* what;
    void (*edit)(wire::WireBinding*);
    size_t binding;
    const char* says;
  };
  const Case cases[] = {
      {"input bound to the output's argument", [](wire::WireBinding* b) { b->arg_index = 3; }, 0, "bad buffer argument 3"},
      {"output bound to an input's argument", [](wire::WireBinding* b) { b->arg_index = 1; }, 2, "bad buffer argument 1"},
      {"argument index past the call", [](wire::WireBinding* b) { b->arg_index = 200; }, 1, "bad buffer argument 200"},
      {"the request itself as a buffer", [](wire::WireBinding* b) { b->arg_index = 0; }, 0, "bad buffer argument 0"},
      {"one argument bound twice", [](wire::WireBinding* b) { b->arg_index = 1; }, 1, "bad buffer argument 1"},
      {"an unknown binding kind", [](wire::WireBinding* b) { b->kind = 7; }, 0, "(kind 7)"},
      {"memory handle id 0", [](wire::WireBinding* b) { b->kind = wire::kBindMemHandle, b->mem_id = 0; }, 0,
       "memory handle id 0"},
  };
  for (const Case& c : cases) {
    wire::ExecEncoding enc = fresh();
    forge(&enc, c.binding, c.edit);
    EXPECT_FALSE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why)) << c.what;
    EXPECT_NE(why.find(c.says), std::string::npos) << c.what << ": " << why;
  }
  {  // a raw argument no binding claims
    wire::ExecEncoding enc = fresh();
    forge(&enc, 1, [](wire::WireBinding* b) { b->kind = wire::kBindMemHandle, b->mem_id = 4; });
    EXPECT_FALSE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why));
    EXPECT_NE(why.find("buffer argument 2 is bound to no tensor"), std::string::npos) << why;
  }
  {  // counts that do not match the request's size
    wire::ExecEncoding enc = fresh();
    wire::ExecRequest hdr;
    std::memcpy(&hdr, enc.request.data(), sizeof hdr);
    hdr.num_outputs = 1000;
    std::memcpy(enc.request.data(), &hdr, sizeof hdr);
    EXPECT_FALSE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why));
    EXPECT_NE(why.find("for 2 inputs and 1000 outputs"), std::string::npos) << why;
    enc.args[0].buf.nLen = 3;
    EXPECT_FALSE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why));
  }
}

// REMOTE_SCALARS_OUTBUFS is 8 bits: 255 buffers, one of them the status. A
// call with more client buffers in a direction packs them into one argument;
// up to 254 each travel on their own.
TEST(HtpProtocol, MoreClientBuffersThanACallCarriesArePacked) {
  constexpr uint32_t kOuts = 1000, kIns = 300;
  std::vector<float> in_data(kIns), out_data(kOuts, -1.0f);
  for (uint32_t i = 0; i < kIns; ++i) in_data[i] = static_cast<float>(i);
  std::vector<htp::ExecBinding> ins, outs;
  for (uint32_t i = 0; i < kIns; ++i) ins.push_back({i, 0, &in_data[i], sizeof(float)});
  ins.push_back({5000, 9, nullptr, 0});  // a memory handle among them
  for (uint32_t i = 0; i < kOuts; ++i) outs.push_back({10000 + i, 0, &out_data[i], sizeof(float)});
  wire::WireStatus st;
  wire::ExecEncoding enc;
  std::string why;
  ASSERT_TRUE(wire::encode_execute(1, ins, outs, htp::ExecTiming::kSkip, &st, &enc, &why)) << why;
  EXPECT_EQ(REMOTE_SCALARS_INBUFS(enc.sc), 2u);   // request + the packed inputs
  EXPECT_EQ(REMOTE_SCALARS_OUTBUFS(enc.sc), 2u);  // the packed outputs + status
  wire::ExecDecoding dec;
  ASSERT_TRUE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why)) << why;
  ASSERT_EQ(dec.inputs.size(), kIns + 1);
  ASSERT_EQ(dec.outputs.size(), kOuts);
  EXPECT_EQ(dec.inputs[kIns].mem_id, 9u);
  for (uint32_t i = 0; i < kIns; ++i) {
    ASSERT_EQ(dec.inputs[i].bytes, sizeof(float));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(dec.inputs[i].data) % 64, reinterpret_cast<uintptr_t>(enc.packed_in.data()) % 64);
    EXPECT_EQ(*static_cast<const float*>(dec.inputs[i].data), static_cast<float>(i)) << i;
  }
  // What the "DSP" writes into the packed outputs reaches the client's buffers.
  for (uint32_t i = 0; i < kOuts; ++i) *static_cast<float*>(dec.outputs[i].data) = 0.5f * i;
  wire::finish_execute(enc);
  for (uint32_t i = 0; i < kOuts; ++i) ASSERT_EQ(out_data[i], 0.5f * i) << i;

  // Packed ranges that overlap, run backwards or leave the argument are forged.
  auto forge_packed = [&](size_t k, uint64_t offset, uint32_t bytes) {
    wire::ExecEncoding e2;
    EXPECT_TRUE(wire::encode_execute(1, ins, outs, htp::ExecTiming::kSkip, &st, &e2, &why));
    wire::WireBinding w;
    uint8_t* at = e2.request.data() + sizeof(wire::ExecRequest) + k * sizeof w;
    std::memcpy(&w, at, sizeof w);
    w.mem_id = offset;
    w.packed_bytes = bytes;
    std::memcpy(at, &w, sizeof w);
    wire::ExecDecoding d2;
    const bool ok = wire::decode_execute(e2.sc, e2.args.data(), &d2, &why);
    return ok ? std::string() : why;
  };
  EXPECT_NE(forge_packed(1, 0, 4).find("bad packed range 0 + 4"), std::string::npos);          // over binding 0
  EXPECT_NE(forge_packed(kIns - 1, 1u << 30, 4).find("bad packed range"), std::string::npos);  // past the end
  EXPECT_NE(forge_packed(kIns - 1, 0, 0).find("bad packed range"), std::string::npos);         // backwards
  EXPECT_EQ(forge_packed(5, 5 * 64, 4), "");                                                   // the same range: fine

  // 254 client buffers still travel one per argument.
  outs.resize(254);
  ASSERT_TRUE(wire::encode_execute(1, {}, outs, htp::ExecTiming::kSkip, &st, &enc, &why)) << why;
  EXPECT_EQ(REMOTE_SCALARS_OUTBUFS(enc.sc), 255u);
  ASSERT_TRUE(wire::decode_execute(enc.sc, enc.args.data(), &dec, &why)) << why;
  EXPECT_EQ(dec.outputs[253].data, &out_data[253]);
}

}  // namespace

namespace {

// Node times carry each step's per-thread CPU time (the trace's HVX thread
// tracks); a crafted reply whose counts run past its bytes is refused.
TEST(HtpProtocol, StepTimesRoundTripWithPerThreadTimes) {
  std::vector<htp::StepTime> steps = {{"conv_1+relu_1", 1500, 3, {900, 600, 0}},
                                      {"", 7, 1, {}},
                                      {"softmax", 42, 2, {42}}};
  const std::vector<std::string> names = {"conv_1", "relu_1", "", "softmax"};
  std::vector<uint8_t> buf(wire::step_times_capacity(names));
  const size_t used = wire::encode_step_times(steps, buf);
  ASSERT_GT(used, 0u);
  std::vector<htp::StepTime> back;
  ASSERT_TRUE(wire::decode_step_times(std::span<const uint8_t>(buf.data(), used), &back));
  ASSERT_EQ(back.size(), steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(back[i].name, steps[i].name);
    EXPECT_EQ(back[i].total_ns, steps[i].total_ns);
    EXPECT_EQ(back[i].runs, steps[i].runs);
    EXPECT_EQ(back[i].thread_ns, steps[i].thread_ns);
  }
  // Too small a buffer: nothing written.
  EXPECT_EQ(wire::encode_step_times(steps, std::span<uint8_t>(buf.data(), used - 8)), 0u);
  // A thread count past the bytes, or past the limit, is refused.
  std::vector<uint8_t> forged(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(used));
  uint32_t threads = 1000;
  std::memcpy(forged.data() + 20, &threads, 4);
  EXPECT_FALSE(wire::decode_step_times(forged, &back));
  threads = 50;
  std::memcpy(forged.data() + 20, &threads, 4);
  EXPECT_FALSE(wire::decode_step_times(forged, &back));
  // More threads than travel: the first kMaxWireThreads do.
  htp::StepTime wide{"w", 1, 1, std::vector<uint64_t>(wire::kMaxWireThreads + 5, 3)};
  std::vector<uint8_t> wbuf(wire::step_times_capacity(std::vector<std::string>{"w"}));
  const size_t wused = wire::encode_step_times(std::vector<htp::StepTime>{wide}, wbuf);
  ASSERT_GT(wused, 0u);
  ASSERT_TRUE(wire::decode_step_times(std::span<const uint8_t>(wbuf.data(), wused), &back));
  EXPECT_EQ(back.at(0).thread_ns.size(), wire::kMaxWireThreads);
}

}  // namespace

namespace {

// An execute's waits travel in its status's id, in microseconds, saturating.
TEST(HtpProtocol, ExecuteWaitsPackIntoTheStatus) {
  uint64_t q = 0, p = 0;
  wire::unpack_exec_waits(wire::pack_exec_waits(1'234'567, 89'000), &q, &p);
  EXPECT_EQ(q, 1'234'000u);
  EXPECT_EQ(p, 89'000u);
  wire::unpack_exec_waits(wire::pack_exec_waits(UINT64_MAX, 0), &q, &p);
  EXPECT_EQ(q, uint64_t{UINT32_MAX} * 1000);
  EXPECT_EQ(p, 0u);
}

// Each typed value the stub and the skel exchange has one encode and one
// decode: what goes in comes back, and what does not fit is refused or
// saturated, never wrapped.
TEST(HtpProtocol, ContextOptionsRoundTripAndUnknownFlagsAreRefused) {
  for (bool sharing : {false, true}) {
    const htp::ContextOptions o{300, 5, 4096, sharing};
    htp::ContextOptions back;
    ASSERT_TRUE(wire::from_wire(wire::to_wire(o), &back));
    EXPECT_EQ(back.priority, 300u);
    EXPECT_EQ(back.spill_fill_group, 5u);
    EXPECT_EQ(back.reserve_spill_fill_bytes, 4096u);
    EXPECT_EQ(back.weight_sharing, sharing);
  }
  wire::ContextCreateReq forged = wire::to_wire(htp::ContextOptions{});
  forged.flags |= 1u << 7;
  htp::ContextOptions back;
  EXPECT_FALSE(wire::from_wire(forged, &back));
}

TEST(HtpProtocol, GraphInfoAndPlanRoundTrip) {
  const htp::GraphInfo info{17, 1 << 20, 4096, 8192};
  const htp::GraphInfo info_back = wire::from_wire(wire::to_wire(info));
  EXPECT_EQ(info_back.graph_id, 17u);
  EXPECT_EQ(info_back.arena_bytes, uint64_t{1} << 20);
  EXPECT_EQ(info_back.vtcm_bytes, 4096u);
  EXPECT_EQ(info_back.spill_fill_bytes, 8192u);

  htp::StoredPlan plan;
  plan[3] = {htp::Region::kVtcm, 0};
  plan[9] = {htp::Region::kSpillFill, 12345};
  plan[11] = {htp::Region::kVtcm, 64};
  std::vector<wire::PlacementWire> room(4);
  uint64_t count = 0;
  ASSERT_TRUE(wire::encode_plan(plan, room, &count));
  EXPECT_EQ(count, 3u);
  htp::StoredPlan back;
  wire::decode_plan(room, count, &back);
  ASSERT_EQ(back.size(), plan.size());
  for (const auto& [id, where] : plan) {
    ASSERT_TRUE(back.count(id)) << id;
    EXPECT_EQ(back[id].region, where.region) << id;
    EXPECT_EQ(back[id].offset, where.offset) << id;
  }
  std::vector<wire::PlacementWire> small(2);
  EXPECT_FALSE(wire::encode_plan(plan, small, &count));
  // A count beyond the buffer (a forged status) reads only the buffer.
  wire::decode_plan(std::span<const wire::PlacementWire>(room).first(2), 99, &back);
  EXPECT_EQ(back.size(), 2u);
}

TEST(HtpProtocol, ExecResultTravelsInTheStatusSaturating) {
  htp::ExecResult r;
  r.exec_ns = 123'456'789'012;
  r.threads = 3;
  r.yields = 70'000;                        // over 16 bits
  r.vtcm_saved_bytes = uint64_t{5} << 32;   // over 32 bits
  r.vtcm_save_ns = 77;
  r.vtcm_restore_ns = 88;
  r.queue_wait_ns = 5'000;
  r.preempted_ns = 9'000;
  wire::WireStatus st;
  wire::encode_exec_result(r, true, &st);
  const htp::ExecResult back = wire::decode_exec_result(st, true);
  EXPECT_EQ(back.exec_ns, r.exec_ns);
  EXPECT_EQ(back.threads, 3u);
  EXPECT_EQ(back.yields, uint32_t{UINT16_MAX});
  EXPECT_EQ(back.vtcm_saved_bytes, uint64_t{UINT32_MAX});
  EXPECT_EQ(back.vtcm_save_ns, 77u);
  EXPECT_EQ(back.vtcm_restore_ns, 88u);
  EXPECT_EQ(back.queue_wait_ns, 5'000u);
  EXPECT_EQ(back.preempted_ns, 9'000u);

  // A failed execute's id is its message's ticket: left alone, and no waits
  // are read from it.
  wire::WireStatus failed;
  failed.id = 41;
  wire::encode_exec_result(r, false, &failed);
  EXPECT_EQ(failed.id, 41u);
  const htp::ExecResult failed_back = wire::decode_exec_result(failed, false);
  EXPECT_EQ(failed_back.queue_wait_ns, 0u);
  EXPECT_EQ(failed_back.preempted_ns, 0u);
}

}  // namespace
