/* The FastRPC error codes openhtp's libcdsprpc returns (AEE convention:
 * 0 is success, anything else an error). */
#ifndef AEESTDERR_H
#define AEESTDERR_H

#define AEE_SUCCESS 0
#define AEE_EFAILED 1
#define AEE_ENOMEMORY 2
#define AEE_EBADSTATE 13
#define AEE_EBADPARM 14
#define AEE_EINVALIDFORMAT 17
#define AEE_EUNSUPPORTED 20
#define AEE_ENOSUCH 39
#define AEE_EBADHANDLE 44
#define AEE_EINTERRUPTED 46
/* The Hexagon SDK's "mmap failed" (its AEE_EOFFSET + 0x65; the offset is 0 on
 * the application processor): the DSP could not map a buffer of the call. */
#define AEE_EMMAP 101

#endif /* AEESTDERR_H */
