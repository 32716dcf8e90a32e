/*
 * openhtp - QNN-compatible public API.
 * Saver/QnnSaverCommon.h: identity and API version of QNN's Saver backend
 * (libQnnSaver.so, which records API calls to C source). openhtp ships no
 * Saver; this lets clients that select or check it compile unchanged.
 */
#ifndef QNN_SAVER_COMMON_H
#define QNN_SAVER_COMMON_H

#include "QnnCommon.h"

#define QNN_BACKEND_ID_SAVER 2

#define QNN_SAVER_INTERFACE_PROVIDER_NAME "SAVER_QTI_AISW"

/* Saver backend API version. 1.0.0 is what every public copy found says
 * (2020-2021 header, still used by current LiteRT); not confirmed for 2.39. */
#define QNN_SAVER_API_VERSION_MAJOR 1
#define QNN_SAVER_API_VERSION_MINOR 0
#define QNN_SAVER_API_VERSION_PATCH 0

#define QNN_SAVER_API_VERSION_INIT                                                  \
  {{QNN_API_VERSION_MAJOR, QNN_API_VERSION_MINOR, QNN_API_VERSION_PATCH},           \
   {QNN_SAVER_API_VERSION_MAJOR, QNN_SAVER_API_VERSION_MINOR, QNN_SAVER_API_VERSION_PATCH}}

#endif /* QNN_SAVER_COMMON_H */
