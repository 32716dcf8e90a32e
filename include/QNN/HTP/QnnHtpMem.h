/*
 * openhtp - QNN-compatible public API.
 * HTP/QnnHtpMem.h: the descriptor behind Qnn_MemDescriptor_t.customInfo when
 * memType is QNN_MEM_TYPE_CUSTOM on the HTP backend.
 */
#ifndef QNN_HTP_MEM_H
#define QNN_HTP_MEM_H

#include "QnnCommon.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  /* A buffer already mapped in the DSP address space (native use). */
  QNN_HTP_MEM_QURT = 0,
  /* One fd shared by several tensors, each at its own offset. */
  QNN_HTP_MEM_SHARED_BUFFER = 1,
  /* Client-provided storage for all weights of a context. */
  QNN_HTP_MEM_WEIGHTS_BUFFER = 2,
  /* Client-provided spill-fill scratch, shareable between contexts. */
  QNN_HTP_MEM_SHARED_SPILLFILL_BUFFER = 3,
  /* Client-provided VTCM backup area (native use). The value 4 is our
   * choice: no public header with this enumerator has been found. */
  QNN_HTP_MEM_SHARED_VTCMBACKUP_BUFFER = 4,
  QNN_HTP_MEM_UNDEFINED = 0x7FFFFFFF
} QnnHtpMem_Type_t;

/* An address valid only on the DSP side. */
typedef uint32_t QnnHtpMem_QurtAddress_t;

/* A region of a DMA buffer. fd is -1 when unused. */
typedef struct {
  int32_t fd;
  uint64_t offset;
} QnnHtpMem_SharedBufferConfig_t;

/* 32 bytes on LP64: type @0, size @8, union @16. */
typedef struct {
  QnnHtpMem_Type_t type;
  /* Whole buffer size (tensor size for QURT). */
  uint64_t size;
  union UNNAMED {
    QnnHtpMem_QurtAddress_t qurtAddress;                        /* QURT */
    QnnHtpMem_SharedBufferConfig_t sharedBufferConfig;          /* SHARED_BUFFER */
    QnnHtpMem_SharedBufferConfig_t weightsBufferConfig;         /* WEIGHTS_BUFFER */
    QnnHtpMem_SharedBufferConfig_t sharedSpillfillBufferConfig; /* SHARED_SPILLFILL_BUFFER */
    /* Second spelling of sharedSpillfillBufferConfig (used by the shared
     * buffer tutorial); same storage. */
    QnnHtpMem_SharedBufferConfig_t spillfillBufferConfig;
    /* SHARED_SPILLFILL_BUFFER given as a DSP address (native use). */
    QnnHtpMem_QurtAddress_t sharedSpillfillBufferQurtAddress;
    /* SHARED_VTCMBACKUP_BUFFER given as a DSP address (native use). */
    QnnHtpMem_QurtAddress_t sharedVTCMBackupBufferQurtAddress;
  };
} QnnMemHtp_Descriptor_t;

#ifdef __cplusplus
}
#endif

#endif /* QNN_HTP_MEM_H */
