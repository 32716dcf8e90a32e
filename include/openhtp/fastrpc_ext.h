/* openhtp extensions to libcdsprpc (not part of the FastRPC API).
 *
 * Copy accounting: every remote call records how many bytes it copied through
 * the transport buffer and how many it passed by reference (rpcmem or
 * fastrpc_mmap memory that the DSP process maps in place). libQnnHtp reads
 * these after each graphExecute and reports them as profile events; tests and
 * benchmarks read them directly. */
#ifndef OPENHTP_FASTRPC_EXT_H
#define OPENHTP_FASTRPC_EXT_H

#include <stdint.h>

#include "remote.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define OPENHTP_FASTRPC_API __attribute__((visibility("default")))
#else
#define OPENHTP_FASTRPC_API
#endif

typedef struct {
  uint64_t bytesCopiedIn;    /* client → DSP through the transport buffer */
  uint64_t bytesCopiedOut;   /* DSP → client through the transport buffer */
  uint64_t bytesByReference; /* buffer arguments passed in place */
  uint32_t fdsSent;          /* file descriptors that crossed the socket */
  uint32_t reserved;
} openhtp_fastrpc_call_stats;

/* Statistics of the calling thread's most recent remote_handle64_invoke. */
OPENHTP_FASTRPC_API void openhtp_fastrpc_last_call_stats(openhtp_fastrpc_call_stats* out);

/* Nanoseconds the calling thread's most recent remote_handle64_invoke spent
 * copying buffer arguments through the transport, in and out (0 for what
 * rode in the slot with the doorbell, and for arguments passed in place).
 * Either pointer may be NULL. */
OPENHTP_FASTRPC_API void openhtp_fastrpc_last_call_copy_ns(uint64_t* copy_in_ns, uint64_t* copy_out_ns);

/* 1 when `fd` (or a buffer with the same identity) is currently mapped with
 * fastrpc_mmap, else 0. */
OPENHTP_FASTRPC_API int openhtp_fastrpc_fd_is_mapped(int fd);

/* libQnnHtp reports each QNN memory handle's start (delta 1) and end
 * (delta -1) on the buffer whose identity is (dev, ino), the st_dev/st_ino
 * of the fd it registered. rpcmem_free of an allocation a handle still names
 * then logs a warning: the DSP keeps its mapping, so executes through the
 * handle would write memory the program has freed. */
OPENHTP_FASTRPC_API void openhtp_fastrpc_note_qnn_registration(uint64_t dev, uint64_t ino, int delta);

/* Process id of this client's DSP process, or -1 when none is running. */
OPENHTP_FASTRPC_API int openhtp_fastrpc_dsp_pid(void);

/* 1 when the DSP process behind remote handle `h` is gone (it died, or a new
 * session has replaced it): every call on `h` fails, and a new
 * remote_handle64_open starts a fresh DSP process. 0 while it serves `h`. */
OPENHTP_FASTRPC_API int openhtp_fastrpc_handle_lost(remote_handle64 h);

/* "dma_heap" or "memfd": what rpcmem allocations are backed by. */
OPENHTP_FASTRPC_API const char* openhtp_rpcmem_backing(void);

/* Spin budget of a remote call's wait for its reply, process wide: how long
 * the calling thread spins (yielding now and then) before it sleeps in
 * FUTEX_WAIT. Spinning saves the wake-up latency of a sleeping caller at the
 * cost of a busy CPU; 0 never spins. libQnnHtp sets it from the HTP RPC
 * polling vote. Until set (or after OPENHTP_FASTRPC_CALL_SPIN_DEFAULT) the
 * machine's default applies: 30 us, none on a single-CPU machine.
 * Returns AEE_SUCCESS, or AEE_EBADPARM above OPENHTP_FASTRPC_CALL_SPIN_MAX_US. */
#define OPENHTP_FASTRPC_CALL_SPIN_DEFAULT 0xFFFFFFFFu
#define OPENHTP_FASTRPC_CALL_SPIN_MAX_US 1000000u
OPENHTP_FASTRPC_API int openhtp_fastrpc_set_call_spin_us(uint32_t us);

/* The spin budget in force, nanoseconds. */
OPENHTP_FASTRPC_API int64_t openhtp_fastrpc_call_spin_ns(void);

#ifdef __cplusplus
}
#endif

#endif /* OPENHTP_FASTRPC_EXT_H */
