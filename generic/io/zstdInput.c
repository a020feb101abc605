/*
 * zstdInput.c --
 *
 *	Zstandard frames decompressed through libzstd's streaming API (see
 *	zstdInput.h).  Frame layout (RFC 8878, section 3.1.1): a 4-byte
 *	little-endian magic number 0xFD2FB528, a frame header whose first
 *	byte (the descriptor) has its bit 3 reserved and zero, blocks, and
 *	an optional checksum.  Skippable frames (magic 0x184D2A50 to
 *	0x184D2A5F) carry no data; libzstd passes over them.
 */

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <zstd.h>
#include "core/rbInt.h"
#include "io/zstdInput.h"

struct RbZstd {
    ZSTD_DStream *ds;
};

/*
 * RbZstdCreate --
 *	A decompressor at the start of a frame.
 * Results: the decompressor, or NULL when libzstd cannot make one (no
 *	memory).
 * Side effects: allocates it; RbZstdFree frees it.
 */
RbZstd *
RbZstdCreate(void)
{
    RbZstd *z = Rb_Alloc(sizeof(*z));

    z->ds = ZSTD_createDStream();
    if (z->ds == NULL || ZSTD_isError(ZSTD_initDStream(z->ds))) {
	RbZstdFree(z);
	return NULL;
    }
    return z;
}

/*
 * RbZstdFree --
 *	Frees a decompressor (NULL: nothing).
 */
void
RbZstdFree(RbZstd *z)
{
    if (z != NULL) {
	ZSTD_freeDStream(z->ds);
	free(z);
    }
}

/*
 * RbZstdReset --
 *	Drops any frame begun and readies z for the start of a new one (a
 *	split run moving to another frame of the file).
 */
void
RbZstdReset(RbZstd *z)
{
    ZSTD_DCtx_reset(z->ds, ZSTD_reset_session_only);
}

/*
 * RbZstdDecompress --
 *	Decompresses from the inLen bytes at in into the outCap bytes at
 *	out, stopping at the end of a frame so that the caller sees frame
 *	boundaries (the next call starts the next frame).
 * Results: RB_ZSTD_FRAME_END when a frame ended and all its bytes are
 *	out, RB_ZSTD_MORE when it goes on (more input, or more room for
 *	output, is needed), RB_ZSTD_ERROR with *msg (a static string) for
 *	corrupt data.  *inUsed and *outMade get the bytes taken and given.
 */
RbZstdStatus
RbZstdDecompress(RbZstd *z, const void *in, size_t inLen, size_t *inUsed,
	void *out, size_t outCap, size_t *outMade, const char **msg)
{
    ZSTD_inBuffer ib = {in, inLen, 0};
    ZSTD_outBuffer ob = {out, outCap, 0};
    size_t rc;

    /* libzstd stops at a frame's end and returns 0 there. */
    rc = ZSTD_decompressStream(z->ds, &ob, &ib);
    *inUsed = ib.pos;
    *outMade = ob.pos;
    if (ZSTD_isError(rc)) {
	*msg = ZSTD_getErrorName(rc);
	return RB_ZSTD_ERROR;
    }
    return rc == 0 ? RB_ZSTD_FRAME_END : RB_ZSTD_MORE;
}

/*
 * RbZstdIsMagic --
 *	Whether the n bytes at p begin with the magic number of a zstd
 *	frame or of a skippable frame (for sniffing the compression).
 */
int
RbZstdIsMagic(const unsigned char *p, size_t n)
{
    if (n < 4) {
	return 0;
    }
    return (p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
	    || ((p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d
	    && p[3] == 0x18);
}

/*
 * RbZstdIsFrameHead --
 *	Whether the n bytes at p can begin a zstd data frame: the magic
 *	number, then a frame header descriptor with its reserved bit clear
 *	(for finding a frame's start in the middle of a file; the caller
 *	confirms it by decompressing the frame).
 */
int
RbZstdIsFrameHead(const unsigned char *p, size_t n)
{
    return n >= 6 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f
	    && p[3] == 0xfd && (p[4] & 0x08) == 0;
}

/*
 * RbZstdFrameAt --
 *	The frame at byte off of the file fd (size bytes long), read by its
 *	headers alone (RFC 8878, section 3.1), without decompressing: where
 *	the next frame begins (*next) and the size of its content
 *	(*content, UINT64_MAX when the frame does not declare it; 0 for a
 *	skippable frame).
 * Results: 1, or 0 when no whole frame begins there.
 */
int
RbZstdFrameAt(int fd, uint64_t off, uint64_t size, uint64_t *content,
	uint64_t *next)
{
    static const int didBytes[4] = {0, 1, 2, 4};
    unsigned char h[18];		/* the longest frame header */
    ssize_t n = size > off ? pread(fd, h, sizeof(h), (off_t)off) : 0;
    uint32_t magic;
    uint64_t pos;
    unsigned long long fcs;
    int fcsFlag, single, fcsBytes;

    if (n < 8) {
	return 0;
    }
    magic = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16
	    | (uint32_t)h[3] << 24;
    if ((magic & 0xFFFFFFF0u) == ZSTD_MAGIC_SKIPPABLE_START) {
	*content = 0;
	*next = off + 8 + ((uint64_t)h[4] | (uint64_t)h[5] << 8
		| (uint64_t)h[6] << 16 | (uint64_t)h[7] << 24);
	return *next <= size;
    }
    if (magic != ZSTD_MAGICNUMBER || (h[4] & 0x08) != 0) {
	return 0;
    }
    fcs = ZSTD_getFrameContentSize(h, (size_t)n);
    if (fcs == ZSTD_CONTENTSIZE_ERROR) {
	return 0;
    }
    *content = fcs == ZSTD_CONTENTSIZE_UNKNOWN ? UINT64_MAX : (uint64_t)fcs;
    fcsFlag = h[4] >> 6;
    single = (h[4] >> 5) & 1;
    fcsBytes = fcsFlag == 0 ? single : 1 << fcsFlag;
    pos = off + 5 + (single ? 0 : 1) + didBytes[h[4] & 3] + fcsBytes;
    for (;;) {
	unsigned char b[3];
	uint32_t bh, type;

	if (pos + 3 > size || pread(fd, b, 3, (off_t)pos) != 3) {
	    return 0;
	}
	bh = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16;
	type = (bh >> 1) & 3;
	if (type == 3) {
	    return 0;		/* reserved */
	}
	/* An RLE block holds one byte, repeated Block_Size times. */
	pos += 3 + (type == 1 ? 1 : bh >> 3);
	if (bh & 1) {
	    break;
	}
    }
    if (h[4] & 0x04) {
	pos += 4;		/* Content_Checksum */
    }
    *next = pos;
    return pos <= size;
}
