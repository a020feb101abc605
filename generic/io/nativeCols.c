/*
 * nativeCols.c --
 *
 *	The column codec of native format version 2: a column of a block is
 *	stored raw, as one constant (an absent field costs 8 bytes a block),
 *	or packed: its values or their differences (times and other rising
 *	columns) less the least, in the fewest bytes that hold them, then
 *	in a zstd frame when that saves a third.  zstd frames carry their
 *	content checksum, so a damaged frame is an error, never wrong
 *	values.  This is the only file that calls libzstd for native blocks
 *	(zstd-compressed trace input is the input layer's).
 */

#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "core/rbInt.h"
#include "io/nativeInt.h"

/* A packed payload: base (8 bytes), first value (8 bytes: the
 * differences' start; 0 for values), width (1 byte), 7 zero bytes, then
 * the zstd frame. */
#define PACK_HEAD 24

struct RbColCoder {
    int level;			/* zstd level; 0: no compression */
    ZSTD_CCtx *cctx;		/* Made on first use. */
    ZSTD_DCtx *dctx;
    unsigned char *buf[4];	/* Scratch: packed values, little-endian
				 * values, two compressed payloads. */
    size_t cap[4];
    int64_t scratch[RB_BATCH_SIZE];
};

/*
 * ToLe64 --
 *	Host order to the file's little-endian order and back.
 */
static inline uint64_t
ToLe64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

/*
 * Scratch --
 *	Scratch buffer i of at least n bytes.
 */
static unsigned char *
Scratch(RbColCoder *c, int i, size_t n)
{
    if (c->cap[i] < n) {
	free(c->buf[i]);
	c->buf[i] = Rb_Alloc(n);
	c->cap[i] = n;
    }
    return c->buf[i];
}

/*
 * RbColCoderCreate, RbColCoderFree --
 *	A coder compressing at zstd level (0: not at all), and its end.
 */
RbColCoder *
RbColCoderCreate(int level)
{
    RbColCoder *c = Rb_Alloc(sizeof(*c));

    c->level = level;
    return c;
}

void
RbColCoderFree(RbColCoder *c)
{
    int i;

    if (c == NULL) {
	return;
    }
    ZSTD_freeCCtx(c->cctx);
    ZSTD_freeDCtx(c->dctx);
    for (i = 0; i < 4; i++) {
	free(c->buf[i]);
    }
    free(c);
}

/*
 * Compress --
 *	One zstd frame (with its checksum) of the n bytes at src into
 *	scratch buffer i.
 * Results: its length, or 0 when zstd failed (the caller stores the
 *	column raw).
 */
static size_t
Compress(RbColCoder *c, int i, const void *src, size_t n)
{
    size_t bound = ZSTD_compressBound(n), got;
    unsigned char *dst = Scratch(c, i, bound + PACK_HEAD);

    if (c->cctx == NULL) {
	c->cctx = ZSTD_createCCtx();
	if (c->cctx == NULL) {
	    return 0;
	}
	ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, c->level);
	ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_checksumFlag, 1);
	/* Matches of 7 bytes or more only: packed columns then come out
	 * mostly as Huffman-coded literals, which decode at a fraction of
	 * the cost of many short matches (Figure 4 on the 10 M-record
	 * trace: 2.54 G instructions at the default, 1.74 G), for a file
	 * 15% larger. */
	ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_minMatch, 7);
    }
    got = ZSTD_compress2(c->cctx, dst, bound, src, n);
    return ZSTD_isError(got) ? 0 : got;
}

/*
 * Pack --
 *	Frame of reference: the values v[0..n) (with delta, their
 *	differences, the first from itself: 0) less their least,
 *	little-endian in the fewest bytes (1 to 8) that hold every one,
 *	into scratch buffer 0.  Arithmetic wraps, as the decoder's does.
 * Results: the width; *base the least value.
 */
static int
Pack(RbColCoder *c, const int64_t *v, int n, int delta, uint64_t *base)
{
    uint64_t prev = (uint64_t)v[0], lo, hi, range, x;
    unsigned char *out;
    int i, w, k;

    for (i = 0; i < n; i++) {
	x = (uint64_t)v[i] - (delta ? prev : 0);
	prev = (uint64_t)v[i];
	c->scratch[i] = (int64_t)x;
    }
    lo = hi = (uint64_t)c->scratch[0];
    for (i = 1; i < n; i++) {
	int64_t y = c->scratch[i];

	lo = y < (int64_t)lo ? (uint64_t)y : lo;
	hi = y > (int64_t)hi ? (uint64_t)y : hi;
    }
    range = hi - lo;
    for (w = 1; w < 8 && range >> (8 * w) != 0; w++) {
    }
    out = Scratch(c, 0, (size_t)w * n + 8);
    for (i = 0; i < n; i++) {
	x = (uint64_t)c->scratch[i] - lo;
	for (k = 0; k < w; k++) {
	    out[(size_t)i * w + k] = (unsigned char)(x >> (8 * k));
	}
    }
    *base = lo;
    return w;
}

/*
 * RbColEncode --
 *	Chooses the smallest encoding of v[0..n): a constant when every
 *	value is the same; without compression, else raw.  Compressed, the
 *	values or their differences (whichever packs narrower: Pack) go to
 *	one zstd frame after their base and width.
 * Results: the encoding; *out, *len the payload (valid until the next
 *	call on c).
 */
int
RbColEncode(RbColCoder *c, const int64_t *v, int n, const void **out,
	size_t *len)
{
    uint64_t *le = (uint64_t *)Scratch(c, 1, sizeof(int64_t) * n);
    uint64_t base, deltaBase;
    size_t raw = sizeof(int64_t) * n, got;
    unsigned char *pay;
    int i, same = 1, w, deltaW, delta, kind;

    for (i = 0; i < n; i++) {
	le[i] = ToLe64((uint64_t)v[i]);
	same &= v[i] == v[0];
    }
    *out = le;
    if (same) {
	*len = sizeof(int64_t);
	return RB_NCOL_CONST;
    }
    *len = raw;
    if (c->level == 0) {
	return RB_NCOL_RAW;
    }
    deltaW = Pack(c, v, n, 1, &deltaBase);
    w = Pack(c, v, n, 0, &base);
    got = Compress(c, 2, c->buf[0], (size_t)w * n);
    delta = deltaW < w;
    if (deltaW <= w) {
	/* Differences as wide as the values may still compress better
	 * (times rising by similar steps): the smaller frame wins. */
	size_t got2;

	Pack(c, v, n, 1, &deltaBase);
	got2 = Compress(c, 3, c->buf[0], (size_t)deltaW * n);
	if (got2 > 0 && (got == 0 || got2 < got || delta)) {
	    delta = 1;
	    got = got2;
	    w = deltaW;
	    base = deltaBase;
	}
    }
    pay = c->buf[delta ? 3 : 2];
    if (got == 0 || got > (size_t)w * n / 3 * 2) {
	/* zstd saves less than a third: the packed values alone, which
	 * decode several times faster. */
	if (PACK_HEAD + (size_t)w * n >= raw) {
	    return RB_NCOL_RAW;
	}
	Pack(c, v, n, delta, &base);
	got = (size_t)w * n;
	pay = Scratch(c, delta ? 3 : 2, got + PACK_HEAD);
	memcpy(pay, c->buf[0], got);
	kind = delta ? RB_NCOL_PACKED_DELTA : RB_NCOL_PACKED;
    } else {
	kind = delta ? RB_NCOL_DELTA : RB_NCOL_ZSTD;
    }
    memmove(pay + PACK_HEAD, pay, got);
    memset(pay, 0, PACK_HEAD);
    base = ToLe64(base);
    memcpy(pay, &base, 8);
    if (delta) {
	uint64_t first = ToLe64((uint64_t)v[0]);

	memcpy(pay + 8, &first, 8);
    }
    pay[16] = (unsigned char)w;
    *out = pay;
    *len = got + PACK_HEAD;
    return kind;
}

/*
 * Load --
 *	The w-byte little-endian integer at p, reading 8 bytes when the
 *	buffer (end) allows, else byte by byte.
 */
static inline uint64_t
Load(const unsigned char *p, const unsigned char *end, int w, uint64_t mask)
{
    uint64_t x = 0;
    int k;

    if (end - p >= 8) {
	memcpy(&x, p, 8);
	return ToLe64(x) & mask;
    }
    for (k = w - 1; k >= 0; k--) {
	x = x << 8 | p[k];
    }
    return x;
}

/*
 * Unpack --
 *	Widens the n values of w bytes at src (its len bytes) to base plus
 *	each; with first, each is the difference from the one before, from
 *	*first on.
 */
static void
Unpack(const unsigned char *src, size_t len, int w, int n, uint64_t base,
	const uint64_t *first, int64_t *dst)
{
    const unsigned char *end = src + len;
    uint64_t mask = w == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * w)) - 1;
    uint64_t v;
    int i;

    if (first != NULL) {
	v = *first;
	for (i = 0; i < n; i++) {
	    v += base + Load(src + (size_t)i * w, end, w, mask);
	    dst[i] = (int64_t)v;
	}
	return;
    }
    switch (w) {
    case 1:
	for (i = 0; i < n; i++) {
	    dst[i] = (int64_t)(base + src[i]);
	}
	break;
    case 2:
	for (i = 0; i < n; i++) {
	    dst[i] = (int64_t)(base + ((uint64_t)src[2 * i]
		    | (uint64_t)src[2 * i + 1] << 8));
	}
	break;
    default:
	for (i = 0; i < n; i++) {
	    dst[i] = (int64_t)(base + Load(src + (size_t)i * w, end, w, mask));
	}
	break;
    }
}

/*
 * RbColDecode --
 *	Decodes a payload into dst[0..n) in host order.
 * Results: 1, or 0 with why set (a length that does not fit the
 *	encoding, or zstd's reason: a damaged frame fails its checksum).
 */
int
RbColDecode(RbColCoder *c, int kind, const unsigned char *src, size_t len,
	int64_t *dst, int n, char *why, size_t whyLen)
{
    size_t want = sizeof(int64_t) * n, got;
    uint64_t v, base;
    unsigned char *packed;
    int i, w, delta;

    switch (kind) {
    case RB_NCOL_RAW:
	if (len != want) {
	    snprintf(why, whyLen, "a raw column of %zu bytes for %d records",
		    len, n);
	    return 0;
	}
	memcpy(dst, src, want);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	for (i = 0; i < n; i++) {
	    dst[i] = (int64_t)ToLe64((uint64_t)dst[i]);
	}
#endif
	return 1;
    case RB_NCOL_CONST:
	if (len != sizeof(int64_t)) {
	    snprintf(why, whyLen, "a constant column of %zu bytes", len);
	    return 0;
	}
	memcpy(&v, src, sizeof(v));
	v = ToLe64(v);
	for (i = 0; i < n; i++) {
	    dst[i] = (int64_t)v;
	}
	return 1;
    case RB_NCOL_ZSTD:
    case RB_NCOL_DELTA:
    case RB_NCOL_PACKED:
    case RB_NCOL_PACKED_DELTA:
	if (len < PACK_HEAD || src[16] < 1 || src[16] > 8) {
	    snprintf(why, whyLen, "a packed column without its base and "
		    "width");
	    return 0;
	}
	w = src[16];
	want = (size_t)w * n;
	memcpy(&base, src, 8);
	base = ToLe64(base);
	memcpy(&v, src + 8, 8);
	v = ToLe64(v);
	delta = kind == RB_NCOL_DELTA || kind == RB_NCOL_PACKED_DELTA;
	if (kind == RB_NCOL_PACKED || kind == RB_NCOL_PACKED_DELTA) {
	    if (len - PACK_HEAD != want) {
		snprintf(why, whyLen, "a packed column of %zu bytes for %d "
			"values of %d bytes", len - PACK_HEAD, n, w);
		return 0;
	    }
	    Unpack(src + PACK_HEAD, want, w, n, base, delta ? &v : NULL, dst);
	    return 1;
	}
	if (c->dctx == NULL && (c->dctx = ZSTD_createDCtx()) == NULL) {
	    snprintf(why, whyLen, "cannot start the zstd decompressor");
	    return 0;
	}
	packed = Scratch(c, 0, want + 8);
	got = ZSTD_decompressDCtx(c->dctx, packed, want, src + PACK_HEAD,
		len - PACK_HEAD);
	if (ZSTD_isError(got)) {
	    snprintf(why, whyLen, "zstd: %s", ZSTD_getErrorName(got));
	    return 0;
	}
	if (got != want) {
	    snprintf(why, whyLen, "a zstd frame of %zu bytes for %d values "
		    "of %d bytes", got, n, w);
	    return 0;
	}
	Unpack(packed, want + 8, w, n, base, delta ? &v : NULL, dst);
	return 1;
    default:
	snprintf(why, whyLen, "unknown column encoding %d", kind);
	return 0;
    }
}
