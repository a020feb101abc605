/*
 * zstdInput.h --
 *
 *	Zstandard decompression of a stream of frames, one call at a time,
 *	over libzstd's streaming API: what the trace input (input.c) needs
 *	to read a .zst file, and what any other reader of zstd frames (the
 *	native format's compressed blocks) can share.  A frame is told by
 *	its magic number; several frames one after another are one stream.
 */

#ifndef RB_ZSTD_INPUT_H
#define RB_ZSTD_INPUT_H

#include <stddef.h>
#include <stdint.h>

typedef struct RbZstd RbZstd;

/* The outcome of one RbZstdDecompress call. */
typedef enum {
    RB_ZSTD_MORE = 0,		/* the frame goes on: call again */
    RB_ZSTD_FRAME_END = 1,	/* a frame ended (all its bytes given) */
    RB_ZSTD_ERROR = -1		/* corrupt data: *msg says how */
} RbZstdStatus;

RbZstd *	RbZstdCreate(void);
void		RbZstdFree(RbZstd *z);
void		RbZstdReset(RbZstd *z);
RbZstdStatus	RbZstdDecompress(RbZstd *z, const void *in, size_t inLen,
		    size_t *inUsed, void *out, size_t outCap,
		    size_t *outMade, const char **msg);
int		RbZstdIsMagic(const unsigned char *p, size_t n);
int		RbZstdIsFrameHead(const unsigned char *p, size_t n);
int		RbZstdFrameAt(int fd, uint64_t off, uint64_t size,
		    uint64_t *content, uint64_t *next);

#endif /* RB_ZSTD_INPUT_H */
