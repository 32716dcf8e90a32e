// The static-data upload of a FastRPC finalize (src/ipc/static_upload.h), both
// halves without FastRPC: what the client fills is what the DSP's tensors
// read, and every reference or fd the DSP should not trust is refused with
// the rule and the value.
#include "ipc/static_upload.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <numeric>
#include <string>
#include <vector>

using namespace openhtp;

namespace {

htp::GraphSpec graph_with_weights() {
  htp::GraphSpec g;
  g.name = "g";
  std::vector<uint8_t> a(100), b(7);
  std::iota(a.begin(), a.end(), uint8_t{1});
  std::iota(b.begin(), b.end(), uint8_t{200});
  g.tensors = {{1, "x", htp::tensor_type::kAppWrite, ops::dtype::kUint8, {100}, {}, {}},
               {2, "a", htp::tensor_type::kStatic, ops::dtype::kUint8, {100}, {}, std::move(a)},
               {3, "b", htp::tensor_type::kStatic, ops::dtype::kUint8, {7}, {}, std::move(b)},
               {4, "y", htp::tensor_type::kAppRead, ops::dtype::kUint8, {100}, {}, {}}};
  return g;
}

// The graph as the DSP decodes it from a blob written without the bytes.
htp::GraphSpec without_bytes(htp::GraphSpec g) {
  for (auto& t : g.tensors) t.static_data.reset();
  return g;
}

TEST(StaticUpload, WhatTheClientFillsIsWhatTheDspReads) {
  const htp::GraphSpec sent = graph_with_weights();
  ipc::StaticUpload up;
  std::string why;
  ASSERT_TRUE(up.fill(sent, &why)) << why;
  ASSERT_GE(up.fd(), 0);
  ASSERT_EQ(up.refs().size(), 2u);
  EXPECT_EQ(up.refs()[1].offset % 64, 0u) << "each tensor starts on a cache line";
  const int seals = fcntl(up.fd(), F_GET_SEALS);
  EXPECT_NE(seals & F_SEAL_SHRINK, 0);
  EXPECT_NE(seals & F_SEAL_WRITE, 0) << "nothing can change the bytes the DSP uses";
  htp::GraphSpec got = without_bytes(sent);
  ASSERT_TRUE(ipc::attach_static_upload(up.refs(), up.fd(), &got, &why)) << why;
  EXPECT_TRUE(got.tensors[1].static_data == sent.tensors[1].static_data);
  EXPECT_TRUE(got.tensors[2].static_data == sent.tensors[2].static_data);
  EXPECT_NE(got.tensors[1].static_data.data(), sent.tensors[1].static_data.data()) << "read from the mapping";
  EXPECT_TRUE(got.tensors[0].static_data.empty());
}

TEST(StaticUpload, NothingToMoveIsNoFd) {
  htp::GraphSpec g = without_bytes(graph_with_weights());
  ipc::StaticUpload up;
  std::string why;
  ASSERT_TRUE(up.fill(g, &why));
  EXPECT_EQ(up.fd(), -1);
  EXPECT_TRUE(up.refs().empty());
  EXPECT_TRUE(ipc::attach_static_upload(up.refs(), -1, &g, &why));
}

TEST(StaticUpload, TheDspRefusesWhatItShouldNotTrust) {
  const htp::GraphSpec sent = graph_with_weights();
  ipc::StaticUpload up;
  std::string why;
  ASSERT_TRUE(up.fill(sent, &why)) << why;
  const std::vector<ipc::StaticRefWire> good(up.refs().begin(), up.refs().end());
  auto refused = [&](std::vector<ipc::StaticRefWire> refs, int fd, const char* words) {
    htp::GraphSpec g = without_bytes(sent);
    std::string w;
    EXPECT_FALSE(ipc::attach_static_upload(refs, fd, &g, &w)) << words;
    EXPECT_NE(w.find(words), std::string::npos) << w;
  };
  auto with = [&](size_t i, auto change) {
    std::vector<ipc::StaticRefWire> r = good;
    change(r[i]);
    return r;
  };
  refused(with(0, [](auto& r) { r.tensor_id = 1; }), up.fd(), "tensor 1, not a STATIC tensor");
  refused(with(0, [](auto& r) { r.tensor_id = 99; }), up.fd(), "tensor 99, not a STATIC tensor");
  refused(with(1, [](auto& r) { r.tensor_id = 2; }), up.fd(), "tensor 2 its bytes twice");
  refused(with(1, [](auto& r) { r.offset = ~uint64_t{0} - 2; }), up.fd(), "is outside its");
  refused(with(0, [](auto& r) { r.size = 1u << 20; }), up.fd(), "is outside its");
  // A memfd that could shrink under a running graph (a SIGBUS in the DSP).
  const int loose = memfd_create("loose", MFD_CLOEXEC);
  ASSERT_EQ(ftruncate(loose, 4096), 0);
  refused(good, loose, "not a memfd sealed against shrinking");
  close(loose);
  refused(good, -1, "not a memfd sealed against shrinking");
}

}  // namespace
