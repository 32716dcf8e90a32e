// The system provider and its table; the small entry points (tensor
// footprint, logging, the unsupported DLC/profile families).
#include <cstdarg>
#include <cstdio>
#include <string>

#include "HTP/QnnHtpCommon.h"
#include "system_test_util.h"

using namespace systest;

TEST(SystemInterface, OneProviderWithAFullTable) {
  const QnnSystemInterface_t** providers = nullptr;
  uint32_t n = 0;
  ASSERT_EQ(QnnSystemInterface_getProviders(&providers, &n), QNN_SUCCESS);
  ASSERT_EQ(n, 1u);
  const QnnSystemInterface_t* p = providers[0];
  EXPECT_EQ(p->backendId, static_cast<uint32_t>(QNN_BACKEND_ID_HTP));
  EXPECT_STREQ(p->providerName, "SYSTEM_QTI_AISW");
  EXPECT_EQ(p->systemApiVersion.major, 1u);
  EXPECT_EQ(p->systemApiVersion.minor, 7u);
  EXPECT_EQ(p->systemApiVersion.patch, 0u);
  // Every one of the 16 entries is set.
  static_assert(sizeof(QNN_SYSTEM_INTERFACE_VER_TYPE) == 16 * sizeof(void*));
  const auto* entries = reinterpret_cast<void* const*>(&p->QNN_SYSTEM_INTERFACE_VER_NAME);
  for (int i = 0; i < 16; ++i) EXPECT_NE(entries[i], nullptr) << "entry " << i;
  // The table points at the exported plain C functions.
  EXPECT_EQ(p->v1_7.systemContextCreate, &QnnSystemContext_create);
  EXPECT_EQ(p->v1_7.systemContextGetMetaData, &QnnSystemContext_getMetadata);
}

TEST(SystemInterface, GetProvidersRejectsNullArguments) {
  const QnnSystemInterface_t** providers = nullptr;
  uint32_t n = 0;
  EXPECT_EQ(QnnSystemInterface_getProviders(nullptr, &n), QNN_SYSTEM_INTERFACE_ERROR_INVALID_PARAMETER);
  EXPECT_EQ(QnnSystemInterface_getProviders(&providers, nullptr), QNN_SYSTEM_INTERFACE_ERROR_INVALID_PARAMETER);
}

TEST(SystemInterface, UnsupportedEntriesSayNotSupported) {
  QnnSystemDlc_Handle_t dlc = nullptr;
  EXPECT_EQ(sys().systemDlcCreateFromFile(nullptr, "model.dlc", &dlc), QNN_SYSTEM_COMMON_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(sys().systemDlcCreateFromBinary(nullptr, nullptr, 0, &dlc), QNN_SYSTEM_COMMON_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(sys().systemDlcFree(dlc), QNN_SYSTEM_COMMON_ERROR_UNSUPPORTED_FEATURE);
  QnnSystemProfile_SerializationTarget_t target{};
  QnnSystemProfile_SerializationTargetHandle_t th = nullptr;
  EXPECT_EQ(sys().systemProfileCreateSerializationTarget(target, nullptr, 0, &th),
            QNN_SYSTEM_COMMON_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(QNN_SYSTEM_COMMON_ERROR_UNSUPPORTED_FEATURE, QNN_COMMON_ERROR_NOT_SUPPORTED);
}

TEST(SystemTensor, MemoryFootprintIsElementsTimesElementSize) {
  std::vector<uint32_t> dims = {2, 3, 5};
  uint64_t bytes = 0;
  Qnn_Tensor_t t = make_tensor("t", QNN_TENSOR_TYPE_APP_WRITE, dims, QNN_DATATYPE_FLOAT_32);
  ASSERT_EQ(sys().systemTensorGetMemoryFootprint(t, &bytes), QNN_SUCCESS);
  EXPECT_EQ(bytes, 2u * 3 * 5 * 4);
  t.v1.dataType = QNN_DATATYPE_UFIXED_POINT_16;
  ASSERT_EQ(sys().systemTensorGetMemoryFootprint(t, &bytes), QNN_SUCCESS);
  EXPECT_EQ(bytes, 2u * 3 * 5 * 2);
  t.v1.rank = 0;  // a scalar
  ASSERT_EQ(sys().systemTensorGetMemoryFootprint(t, &bytes), QNN_SUCCESS);
  EXPECT_EQ(bytes, 2u);
  // Version 2 reads the same leading fields.
  Qnn_Tensor_t t2 = t;
  t2.version = QNN_TENSOR_VERSION_2;
  ASSERT_EQ(sys().systemTensorGetMemoryFootprint(t2, &bytes), QNN_SUCCESS);

  EXPECT_EQ(sys().systemTensorGetMemoryFootprint(t, nullptr), QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT);
  t.v1.dataType = QNN_DATATYPE_UNDEFINED;
  EXPECT_EQ(sys().systemTensorGetMemoryFootprint(t, &bytes), QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT);
  t.v1.dataType = QNN_DATATYPE_FLOAT_32;
  t.v1.rank = 3;
  t.v1.dimensions = nullptr;
  EXPECT_EQ(sys().systemTensorGetMemoryFootprint(t, &bytes), QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT);
  t.version = QNN_TENSOR_VERSION_UNDEFINED;
  EXPECT_EQ(sys().systemTensorGetMemoryFootprint(t, &bytes), QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT);
}

namespace {
std::vector<std::string> g_lines;
void capture(const char* fmt, QnnLog_Level_t, uint64_t, va_list args) {
  char buf[1024];
  std::vsnprintf(buf, sizeof buf, fmt, args);
  g_lines.push_back(buf);
}
}  // namespace

TEST(SystemLog, ErrorsReachLiveLogHandles) {
  Qnn_LogHandle_t log = nullptr;
  ASSERT_EQ(sys().systemLogCreate(capture, QNN_LOG_LEVEL_ERROR, &log), QNN_SUCCESS);
  g_lines.clear();
  QnnSystemContext_Handle_t ctx = nullptr;
  ASSERT_EQ(sys().systemContextCreate(&ctx), QNN_SUCCESS);
  const uint8_t junk[64] = {1, 2, 3};
  const QnnSystemContext_BinaryInfo_t* bi = nullptr;
  EXPECT_EQ(sys().systemContextGetMetaData(ctx, junk, sizeof junk, &bi), QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY);
  ASSERT_EQ(g_lines.size(), 1u);
  EXPECT_NE(g_lines[0].find("malformed context binary"), std::string::npos) << g_lines[0];
  // Raising the threshold or freeing the handle stops delivery.
  EXPECT_EQ(sys().systemLogSetLogLevel(log, QNN_LOG_LEVEL_DEBUG), QNN_SUCCESS);
  EXPECT_EQ(sys().systemLogSetLogLevel(log, static_cast<QnnLog_Level_t>(0)), QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sys().systemLogFree(log), QNN_SUCCESS);
  EXPECT_EQ(sys().systemLogFree(log), QNN_SYSTEM_COMMON_ERROR_INVALID_HANDLE);
  EXPECT_EQ(sys().systemLogSetLogLevel(log, QNN_LOG_LEVEL_ERROR), QNN_SYSTEM_COMMON_ERROR_INVALID_HANDLE);
  EXPECT_EQ(sys().systemContextGetMetaData(ctx, junk, sizeof junk, &bi), QNN_SYSTEM_CONTEXT_ERROR_MALFORMED_BINARY);
  EXPECT_EQ(g_lines.size(), 1u);
  EXPECT_EQ(sys().systemLogCreate(capture, QNN_LOG_LEVEL_ERROR, nullptr), QNN_SYSTEM_COMMON_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(sys().systemContextFree(ctx), QNN_SUCCESS);
}
