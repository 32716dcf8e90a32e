/*
 * openhtp - QNN-compatible public API.
 * HTP/QnnHtpProperty.h: HTP custom capability keys for
 * QnnProperty_hasCapability, in the QNN_PROPERTY_GROUP_CUSTOM range.
 */
#ifndef QNN_HTP_PROPERTY_H
#define QNN_HTP_PROPERTY_H

#include "QnnProperty.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the backend can run in an unsigned protection domain. QNN's header
 * writes this without parentheses; the value is the same. The only HTP key
 * found in public copies (2022 through SDK 2.48). */
#define QNN_PROPERTY_CUSTOM_HTP_UNSIGNED_PD_SUPPORT (QNN_PROPERTY_GROUP_CUSTOM + 1)

#ifdef __cplusplus
}
#endif

#endif /* QNN_HTP_PROPERTY_H */
