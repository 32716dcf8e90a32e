// Untrusted binaries and misuse: every truncation, random corruption, junk,
// foreign format versions, bad handles and arguments get their code, never a
// crash.
#include <random>

#include "binary/context_codec.h"
#include "system_test_util.h"

using namespace systest;

using SystemContextHostile = BinaryFixture;

TEST_F(SystemContextHostile, TruncatedBinariesAreMalformed) {
  const QnnSystemContext_BinaryInfo_t* bi = nullptr;
  for (size_t len = 1; len < binary_.size(); len += 3) {
    std::vector<uint8_t> cut(binary_.begin(), binary_.begin() + static_cast<long>(len));  // exact-size allocation
    ASSERT_EQ(sys().systemContextGetMetaData(sys_, cut.data(), cut.size(), &bi), QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY)
        << "length " << len;
  }
}

TEST_F(SystemContextHostile, CorruptedBinariesAreMalformedOrIntact) {
  std::mt19937 rng(11);
  int refused = 0;
  for (int i = 0; i < 400; ++i) {
    auto bad = binary_;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    const QnnSystemContext_BinaryInfo_t* bi = nullptr;
    const Qnn_ErrorHandle_t e = sys().systemContextGetMetaData(sys_, bad.data(), bad.size(), &bi);
    if (e == QNN_SUCCESS) {
      // Only padding was hit: the info must still be whole.
      ASSERT_EQ(bi->contextBinaryInfoV3.numGraphs, 2u);
    } else {
      ASSERT_EQ(e, QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY);
      ++refused;
    }
  }
  EXPECT_GT(refused, 350);
}

TEST_F(SystemContextHostile, JunkAndForeignVersionsAreMalformed) {
  const QnnSystemContext_BinaryInfo_t* bi = nullptr;
  Qnn_ContextBinarySize_t size = 0;
  for (uint8_t fill : {0x00, 0x5a, 0xff}) {
    std::vector<uint8_t> junk(4096, fill);
    EXPECT_EQ(sys().systemContextGetBinaryInfo(sys_, junk.data(), junk.size(), &bi, &size),
              QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY);
  }
  std::mt19937 rng(3);
  std::vector<uint8_t> noise(10000);
  for (auto& b : noise) b = static_cast<uint8_t>(rng());
  EXPECT_EQ(sys().systemContextGetMetaData(sys_, noise.data(), noise.size(), &bi), QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY);
  // A well-formed binary of a format version this reader does not accept.
  openhtp::binary::ContextImage image;
  image.build_id = "future";
  const auto future = openhtp::binary::encode_context_as(image, {openhtp::binary::kContextFormat.major + 1, 0, 0});
  EXPECT_EQ(sys().systemContextGetMetaData(sys_, future.data(), future.size(), &bi),
            QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY);
  // The handle still works afterwards.
  EXPECT_EQ(sys().systemContextGetMetaData(sys_, binary_.data(), binary_.size(), &bi), QNN_SUCCESS);
}

TEST_F(SystemContextHostile, BadArgumentsAndHandlesGetTheirCodes) {
  const QnnSystemContext_BinaryInfo_t* bi = nullptr;
  Qnn_ContextBinarySize_t size = 0;
  void* buf = binary_.data();
  const uint64_t n = binary_.size();
  EXPECT_EQ(sys().systemContextCreate(nullptr), QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sys().systemContextGetBinaryInfo(sys_, nullptr, n, &bi, &size), QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sys().systemContextGetBinaryInfo(sys_, buf, 0, &bi, &size), QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sys().systemContextGetBinaryInfo(sys_, buf, n, nullptr, &size), QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sys().systemContextGetBinaryInfo(sys_, buf, n, &bi, nullptr), QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sys().systemContextGetMetaData(sys_, nullptr, n, &bi), QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sys().systemContextGetMetaData(sys_, buf, n, nullptr), QNN_SYSTEM_CONTEXT_ERROR_INVALID_ARGUMENT);

  // Handles: NULL, made up, a pointer to something else, freed (twice).
  int not_a_handle = 0;
  for (QnnSystemContext_Handle_t h : {static_cast<QnnSystemContext_Handle_t>(nullptr),
                                      reinterpret_cast<QnnSystemContext_Handle_t>(uintptr_t{0xdeadbeef}),
                                      static_cast<QnnSystemContext_Handle_t>(&not_a_handle)}) {
    EXPECT_EQ(sys().systemContextGetBinaryInfo(h, buf, n, &bi, &size), QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE);
    EXPECT_EQ(sys().systemContextGetBinaryInfo(h, buf, n, &bi, nullptr), QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE);
    EXPECT_EQ(sys().systemContextGetMetaData(h, buf, n, &bi), QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE);
    EXPECT_EQ(sys().systemContextFree(h), QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE);
  }
  QnnSystemContext_Handle_t h = nullptr;
  ASSERT_EQ(sys().systemContextCreate(&h), QNN_SUCCESS);
  EXPECT_NE(h, sys_);
  ASSERT_EQ(sys().systemContextFree(h), QNN_SUCCESS);
  EXPECT_EQ(sys().systemContextFree(h), QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(sys().systemContextGetMetaData(h, buf, n, &bi), QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE);
  // Handles are not reused, so the freed one stays invalid after new creates.
  QnnSystemContext_Handle_t h2 = nullptr;
  ASSERT_EQ(sys().systemContextCreate(&h2), QNN_SUCCESS);
  EXPECT_NE(h2, h);
  EXPECT_EQ(sys().systemContextFree(h), QNN_SYSTEM_CONTEXT_ERROR_INVALID_HANDLE);
  EXPECT_EQ(sys().systemContextFree(h2), QNN_SUCCESS);
}
