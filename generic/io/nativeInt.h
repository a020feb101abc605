/*
 * nativeInt.h --
 *
 *	The column codec of native format version 2 (nativeCols.c), shared
 *	by its writer and reader in native.c.  A column of a block is stored
 *	in one of these encodings (doc/native.n, LAYOUT):
 */

#ifndef RB_NATIVE_INT_H
#define RB_NATIVE_INT_H

#include <stddef.h>
#include <stdint.h>

#define RB_NCOL_RAW	0	/* N little-endian int64 */
#define RB_NCOL_CONST	1	/* one int64: every value of the block */
#define RB_NCOL_ZSTD	2	/* the N values packed, in a zstd frame */
#define RB_NCOL_DELTA	3	/* their differences packed, in a zstd frame */
#define RB_NCOL_PACKED	4	/* the values packed, not compressed */
#define RB_NCOL_PACKED_DELTA 5	/* their differences packed, likewise */
#define RB_NCOL_KINDS	6

typedef struct RbColCoder RbColCoder;

/* A coder; level is the zstd level the encoder uses, 0 for none (every
 * column raw or constant). */
RbColCoder *	RbColCoderCreate(int level);
void		RbColCoderFree(RbColCoder *c);
/* Encodes v[0..n): returns the encoding; *out and *len get the payload,
 * valid until the next call on c. */
int		RbColEncode(RbColCoder *c, const int64_t *v, int n,
		    const void **out, size_t *len);
/* Decodes the payload src[0..len) of encoding kind into dst[0..n).
 * Returns 1, or 0 with why (whyLen bytes) saying what is wrong. */
int		RbColDecode(RbColCoder *c, int kind, const unsigned char *src,
		    size_t len, int64_t *dst, int n, char *why, size_t whyLen);

#endif /* RB_NATIVE_INT_H */
