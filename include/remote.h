/* remote: FastRPC remote handles and memory mapping (openhtp implementation).
 *
 * A remote handle names a module ("skel" library) loaded into the DSP
 * process. remote_handle64_invoke calls one of its methods with an array of
 * remote_arg: input buffers, then output buffers, then input handles, then
 * output handles, counted by the REMOTE_SCALARS fields of `scalars`.
 * Buffers that lie inside rpcmem memory (or a region mapped with
 * fastrpc_mmap) are passed by reference — the DSP uses the same pages — and
 * all other buffers are copied through the call's transport buffer. An input
 * handle of the DMA kind (remote_dma_handle) passes a file descriptor that the
 * DSP process maps. */
#ifndef REMOTE_H
#define REMOTE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "AEEStdErr.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define REMOTE_API __attribute__((visibility("default")))
#else
#define REMOTE_API
#endif

#define REMOTE_SCALARS_METHOD_ATTR(sc) (((sc) >> 29) & 0x7)
#define REMOTE_SCALARS_METHOD(sc) (((sc) >> 24) & 0x1f)
#define REMOTE_SCALARS_INBUFS(sc) (((sc) >> 16) & 0x0ff)
#define REMOTE_SCALARS_OUTBUFS(sc) (((sc) >> 8) & 0x0ff)
#define REMOTE_SCALARS_INHANDLES(sc) (((sc) >> 4) & 0x0f)
#define REMOTE_SCALARS_OUTHANDLES(sc) ((sc) & 0x0f)
#define REMOTE_SCALARS_MAKEX(nAttr, nMethod, nIn, nOut, noIn, noOut) \
  ((((uint32_t)(nAttr) & 0x7) << 29) | (((uint32_t)(nMethod) & 0x1f) << 24) |  \
   (((uint32_t)(nIn) & 0xff) << 16) | (((uint32_t)(nOut) & 0xff) << 8) |       \
   (((uint32_t)(noIn) & 0x0f) << 4) | ((uint32_t)(noOut) & 0x0f))
#define REMOTE_SCALARS_MAKE(nMethod, nIn, nOut) REMOTE_SCALARS_MAKEX(0, nMethod, nIn, nOut, 0, 0)
#define REMOTE_SCALARS_LENGTH(sc)                                              \
  (REMOTE_SCALARS_INBUFS(sc) + REMOTE_SCALARS_OUTBUFS(sc) +                    \
   REMOTE_SCALARS_INHANDLES(sc) + REMOTE_SCALARS_OUTHANDLES(sc))

/* Domains. openhtp emulates the compute DSP; the others are refused. */
#define ADSP_DOMAIN_ID 0
#define MDSP_DOMAIN_ID 1
#define SDSP_DOMAIN_ID 2
#define CDSP_DOMAIN_ID 3
#define CDSP1_DOMAIN_ID 4
#define ADSP_DOMAIN_NAME "adsp"
#define MDSP_DOMAIN_NAME "mdsp"
#define SDSP_DOMAIN_NAME "sdsp"
#define CDSP_DOMAIN_NAME "cdsp"
#define CDSP1_DOMAIN_NAME "cdsp1"
#define ADSP_DOMAIN "&_dom=adsp"
#define MDSP_DOMAIN "&_dom=mdsp"
#define SDSP_DOMAIN "&_dom=sdsp"
#define CDSP_DOMAIN "&_dom=cdsp"
#define CDSP1_DOMAIN "&_dom=cdsp1"

typedef uint32_t remote_handle;
typedef uint64_t remote_handle64;

typedef struct {
  void* pv;
  size_t nLen;
} remote_buf;

typedef struct {
  int32_t fd;
  uint32_t offset;
} remote_dma_handle;

typedef union {
  remote_buf buf;
  remote_handle h;
  remote_handle64 h64;
  remote_dma_handle dma;
} remote_arg;

/* Request ids for remote_session_control. */
enum session_control_req_id {
  FASTRPC_RESERVED_1,
  FASTRPC_THREAD_PARAMS,
  DSPRPC_CONTROL_UNSIGNED_MODULE,
  FASTRPC_RESERVED_2,
  FASTRPC_RELATIVE_THREAD_PRIORITY,
  FASTRPC_RESERVED_3,
  FASTRPC_REMOTE_PROCESS_KILL,
  FASTRPC_SESSION_CLOSE,
  FASTRPC_CONTROL_PD_DUMP,
  FASTRPC_REMOTE_PROCESS_EXCEPTION,
  FASTRPC_REMOTE_PROCESS_TYPE,
  FASTRPC_REGISTER_STATUS_NOTIFICATIONS,
  FASTRPC_PD_INITMEM_SIZE,
  FASTRPC_RESERVE_NEW_SESSION,
  FASTRPC_GET_EFFECTIVE_DOMAIN_ID,
  FASTRPC_GET_URI,
  FASTRPC_MAX_THREAD_PARAM,
  FASTRPC_CONTEXT_CREATE,
  FASTRPC_CONTEXT_DESTROY
};

struct remote_rpc_thread_params {
  int domain;
  int prio;
  int stack_size;
};

struct remote_rpc_control_unsigned_module {
  int domain;
  int enable;
};

struct remote_rpc_process_clean_params {
  int domain;
};

struct remote_rpc_session_close {
  int domain;
};

/* Flags for fastrpc_mmap. */
enum fastrpc_map_flags {
  FASTRPC_MAP_STATIC,
  FASTRPC_MAP_RESERVED,
  FASTRPC_MAP_FD,
  FASTRPC_MAP_FD_DELAYED,
  FASTRPC_MAP_RESERVED_4,
  FASTRPC_MAP_RESERVED_5,
  FASTRPC_MAP_RESERVED_6,
  FASTRPC_MAP_RESERVED_7,
  FASTRPC_MAP_RESERVED_8,
  FASTRPC_MAP_RESERVED_9,
  FASTRPC_MAP_RESERVED_10,
  FASTRPC_MAP_RESERVED_11,
  FASTRPC_MAP_RESERVED_12,
  FASTRPC_MAP_RESERVED_13,
  FASTRPC_MAP_RESERVED_14,
  FASTRPC_MAP_RESERVED_15,
  FASTRPC_MAP_FD_NOMAP,
  FASTRPC_MAP_MAX
};

/* Opens a module in the DSP process. `name` is a URI such as
 * "file:///libQnnHtpSkel.so?QnnHtp_skel_handle_invoke&_modver=1.0&_dom=cdsp".
 * The DSP process is started on first use. */
REMOTE_API int remote_handle64_open(const char* name, remote_handle64* ph);
REMOTE_API int remote_handle64_invoke(remote_handle64 h, uint32_t scalars, remote_arg* pra);
REMOTE_API int remote_handle64_close(remote_handle64 h);

/* Maps `length` bytes of `fd` (client address `addr`) into the DSP process so
 * that buffers inside it are passed by reference. */
REMOTE_API int fastrpc_mmap(int domain, int fd, void* addr, int offset, size_t length,
                            enum fastrpc_map_flags flags);
REMOTE_API int fastrpc_munmap(int domain, int fd, void* addr, size_t length);

/* Session controls; openhtp honours DSPRPC_CONTROL_UNSIGNED_MODULE (accepted),
 * FASTRPC_THREAD_PARAMS (accepted), FASTRPC_REMOTE_PROCESS_KILL and
 * FASTRPC_SESSION_CLOSE (both end the DSP process). */
REMOTE_API int remote_session_control(uint32_t req, void* data, uint32_t datalen);

#ifdef __cplusplus
}
#endif

#endif /* REMOTE_H */
