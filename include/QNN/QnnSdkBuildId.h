/*
 * openhtp - QNN-compatible public API.
 * QnnSdkBuildId.h: build id string reported by the openhtp libraries.
 */
#ifndef QNN_SDK_BUILD_ID_H
#define QNN_SDK_BUILD_ID_H

#ifndef QNN_SDK_BUILD_ID
#define QNN_SDK_BUILD_ID "v2.39.0.openhtp"
#endif

#endif /* QNN_SDK_BUILD_ID_H */
