/*
 * srt.c --
 *
 *	Reader of HP SRT v7 block-I/O traces: a text header closed by a form
 *	feed, then big-endian records that begin with their own length and
 *	a version/type word.  Only v7 I/O records (88 bytes) carry data; the
 *	word-to-field mapping and how it was established are in doc/srt.n.
 */

#include <stdlib.h>
#include <string.h>
#include "io/ioInt.h"
#include "io/srt.h"

#define SRT_REC_LEN	88		/* v7 I/O record, bytes */
#define SRT_V7_IO	0x00070001u	/* version 7 << 16 | type 1 (I/O) */
#define SRT_MAX_HEADER	65536		/* form feed must come by then */
#define SRT_MAX_REC	65536		/* larger length words are garbage */
#define SRT_READ_BIT	0x00080000u	/* is_read in the flags word */
#define SRT_BUF		(RB_BATCH_SIZE * SRT_REC_LEN + SRT_MAX_REC)

typedef struct SrtState {
    char *header;		/* Header text, NUL-terminated. */
    unsigned char *buf;		/* Undecoded bytes: buf[0, have). */
    size_t have;
    uint64_t bufOffset;		/* Stream offset of buf[0]. */
    uint64_t recNo;		/* Records seen, good or bad. */
    int64_t epochSec;		/* Unix seconds of trace time 0. */
    int done;			/* End of input reached. */
    int failed;			/* pending holds an error for next call. */
    Rb_Error pending;
} SrtState;

/*
 * Be32 --
 *	The big-endian 32-bit word at p.
 */
static inline uint32_t
Be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16)
	    | ((uint32_t)p[2] << 8) | p[3];
}

static inline int64_t
Be64(const unsigned char *p)
{
    return (int64_t)(((uint64_t)Be32(p) << 32) | Be32(p + 4));
}

/*
 * SrtSniff --
 *	SRT files begin with "$$TR_IOREC".
 */
static int
SrtSniff(const unsigned char *head, size_t n)
{
    return n >= 10 && memcmp(head, "$$TR_IOREC", 10) == 0 ? 95 : 0;
}

/*
 * HeaderText --
 *	The header's n bytes as a C string without its NUL bytes: the first
 *	line of real SRT headers ends in a NUL before its newline.
 * Results: a malloc'd string.
 */
static char *
HeaderText(const char *head, size_t n)
{
    char *text = Rb_Alloc(n + 1);
    size_t i, k = 0;

    for (i = 0; i < n; i++) {
	if (head[i] != '\0') {
	    text[k++] = head[i];
	}
    }
    text[k] = '\0';
    return text;
}

/*
 * CheckVersion --
 *	Verifies a "version = 1.7;" header line when the header has one.
 * Results: TCL_OK, or TCL_ERROR with err set.
 */
static int
CheckVersion(Rb_Reader *r, const char *header, Rb_Error *err)
{
    const char *line = header;
    char version[32];

    while (line != NULL && *line != '\0') {
	if (sscanf(line, "version = %31[^; \t\r\n]", version) == 1) {
	    if (strcmp(version, "1.7") != 0) {
		Rb_SetError(err, "RUBICON READER FORMAT", "%s: SRT version "
			"%s is not supported (only 1.7, v7 records)",
			Rb_InputPath(r->in), version);
		return TCL_ERROR;
	    }
	    return TCL_OK;
	}
	line = strchr(line, '\n');
	if (line != NULL) {
	    line++;
	}
    }
    return TCL_OK;
}

/*
 * SrtOpen --
 *	Reads the text header (up to and including its form feed), checks
 *	its version and takes the epoch from the first record's enqueue
 *	time, truncated to the second.
 * Results: TCL_OK, or TCL_ERROR with err set (a header without a form
 *	feed within 64 KiB is "bad-header").
 */
static int
SrtOpen(Rb_Reader *r, Rb_Error *err)
{
    SrtState *st = r->state;
    unsigned char first[12];
    char *head, *ff;
    long n;
    int ok;

    head = Rb_Alloc(SRT_MAX_HEADER + 1);
    n = Rb_InputPeek(r->in, head, SRT_MAX_HEADER, err);
    if (n < 0) {
	free(head);
	return TCL_ERROR;
    }
    ff = memchr(head, '\f', (size_t)n);
    if (ff == NULL) {
	Rb_SetError(err, "RUBICON READER CORRUPT", "%s: the SRT header has "
		"no form feed (0x0C) within its first %ld bytes (bad-header)",
		Rb_InputPath(r->in), n);
	free(head);
	return TCL_ERROR;
    }
    st->header = HeaderText(head, (size_t)(ff - head));
    ok = Rb_InputReadFull(r->in, head, (size_t)(ff - head) + 1, err) == 1;
    free(head);
    if (!ok || CheckVersion(r, st->header, err) != TCL_OK) {
	return TCL_ERROR;
    }
    st->buf = Rb_Alloc(SRT_BUF);
    st->bufOffset = Rb_InputOffset(r->in);
    n = Rb_InputPeek(r->in, first, sizeof(first), err);
    if (n < 0) {
	return TCL_ERROR;
    }
    if (n == (long)sizeof(first)) {
	st->epochSec = Be32(first + 8);
    }
    r->epochNs = st->epochSec * 1000000000;
    r->schema = Rb_IoSchema();
    return TCL_OK;
}

/*
 * Fail --
 *	Ends a next call on an error in st->pending: records already
 *	appended in this call are returned first and the error on the
 *	next call, so results up to the error stay usable.
 * Results: what next returns.
 */
static int
Fail(SrtState *st, Rb_Batch *b, int start, Rb_Error *err)
{
    return Rb_ReaderFail(&st->done, &st->failed, &st->pending, b, start,
	    err);
}

/*
 * Consume --
 *	Drops the first p decoded bytes of the buffer.
 */
static void
Consume(SrtState *st, size_t p)
{
    memmove(st->buf, st->buf + p, st->have - p);
    st->have -= p;
    st->bufOffset += p;
}

/*
 * Refill --
 *	Moves the undecoded tail buf[p, have) to the front and reads more.
 * Results: bytes read, 0 at the end of input, -1 on an input error
 *	(st->pending set).  *pp is reset to 0.
 */
static long
Refill(Rb_Reader *r, SrtState *st, size_t *pp)
{
    long got;

    Consume(st, *pp);
    *pp = 0;
    got = Rb_InputRead(r->in, st->buf + st->have, SRT_BUF - st->have,
	    &st->pending);
    if (got > 0) {
	st->have += (size_t)got;
    }
    return got;
}

/*
 * SrtNext --
 *	Decodes records straight into the batch columns until the batch is
 *	full or the input ends.  Malformed records go through Rb_ReaderBad:
 *	"bad-type" and "out-of-order" can be skipped, "bad-length" always
 *	stops (the next record cannot be found), "short-record" ends the
 *	input.  An out-of-order record under the warn policy is delivered.
 * Results: records appended, 0 at the end, -1 on error (err set).
 */
static int
SrtNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    SrtState *st = r->state;
    int64_t *cTime = b->col[RB_IO_TIME], *cStart = b->col[RB_IO_START];
    int64_t *cFinish = b->col[RB_IO_FINISH], *cDevType = b->col[RB_IO_DEVTYPE];
    int64_t *cQueue = b->col[RB_IO_QUEUELEN], *cOp = b->col[RB_IO_OP];
    int64_t *cSize = b->col[RB_IO_SIZE], *cDev = b->col[RB_IO_DEVICE];
    int64_t *cOffset = b->col[RB_IO_OFFSET], *cLvNo = b->col[RB_IO_LVNO];
    int64_t *cLvOff = b->col[RB_IO_LVOFFSET], *cPid = b->col[RB_IO_PID];
    int64_t *cThread = b->col[RB_IO_THREAD], *cMachine = b->col[RB_IO_MACHINE];
    int64_t *cFlags = b->col[RB_IO_FLAGS];
    const int64_t epochUs = st->epochSec * 1000000;
    int start = b->n;
    size_t p = 0;
    long got;

    if (st->failed) {
	st->failed = 0;
	*err = st->pending;
	return -1;
    }
    if (st->done) {
	return 0;
    }
    if (b->n == 0) {
	b->firstRecord = r->records + 1;
    }
    while (b->n < b->cap) {
	const unsigned char *rec = st->buf + p;
	size_t avail = st->have - p;
	uint32_t len, vt;

	if (avail >= SRT_REC_LEN && Be32(rec) == SRT_REC_LEN
		&& Be32(rec + 4) == SRT_V7_IO) {
	    int i = b->n;
	    uint32_t flags = Be32(rec + 44);
	    int64_t t = ((int64_t)Be32(rec + 8) * 1000000
		    + Be32(rec + 12) - epochUs) * 1000;

	    st->recNo++;
	    cTime[i] = t;
	    cStart[i] = t + (int64_t)Be32(rec + 16) * 1000;
	    cFinish[i] = t + (int64_t)Be32(rec + 20) * 1000;
	    cSize[i] = Be32(rec + 24);
	    cMachine[i] = Be32(rec + 28);
	    cDev[i] = Be32(rec + 32);
	    cFlags[i] = flags;
	    cOp[i] = (flags & SRT_READ_BIT) ? RB_OP_READ : RB_OP_WRITE;
	    cDevType[i] = Be32(rec + 48) >> 16;
	    cQueue[i] = Be32(rec + 52);
	    cPid[i] = Be32(rec + 56);
	    cLvNo[i] = Be32(rec + 60);
	    cOffset[i] = Be64(rec + 64);
	    cLvOff[i] = Be64(rec + 72);
	    cThread[i] = RB_ABSENT;
	    p += SRT_REC_LEN;
	    if (t >= r->lastTime) {
		r->lastTime = t;
		b->n++;
		continue;
	    }
	    r->recordNo = st->recNo;
	    if (Rb_ReaderBad(r, &st->pending, "out-of-order",
		    st->bufOffset + p - SRT_REC_LEN, "enqueue time goes back "
		    "%.6f s", (double)(r->lastTime - t) / 1e9)) {
		return Fail(st, b, start, err);
	    }
	    if (r->onError == RB_ONERROR_WARN) {
		b->n++;
	    }
	    continue;
	}

	/* Anything else: more bytes needed, the end, or a bad record. */
	len = avail >= 8 ? Be32(rec) : 0;
	vt = avail >= 8 ? Be32(rec + 4) : 0;
	if (avail >= 8 && (vt == SRT_V7_IO ? len != SRT_REC_LEN
		: len < 8 || len > SRT_MAX_REC)) {
	    r->recordNo = ++st->recNo;
	    Rb_ReaderBadFatal(r, &st->pending, "bad-length",
		    st->bufOffset + p, "length word %u in a record of version "
		    "%u type %u (v7 I/O records have %d)", len, vt >> 16,
		    vt & 0xffff, SRT_REC_LEN);
	    return Fail(st, b, start, err);
	}
	if (avail < (avail < 8 ? 8 : len)) {
	    got = Refill(r, st, &p);
	    if (got < 0) {
		return Fail(st, b, start, err);
	    }
	    if (got > 0) {
		continue;
	    }
	    st->done = 1;
	    if (st->have == 0) {
		break;
	    }
	    r->recordNo = ++st->recNo;
	    if (Rb_ReaderBad(r, &st->pending, "short-record", st->bufOffset,
		    "the input ends %zu bytes into a record", st->have)) {
		return Fail(st, b, start, err);
	    }
	    st->have = 0;
	    break;
	}
	r->recordNo = ++st->recNo;
	if (Rb_ReaderBad(r, &st->pending, "bad-type", st->bufOffset + p,
		"record version %u type %u is not a v7 I/O record",
		vt >> 16, vt & 0xffff)) {
	    return Fail(st, b, start, err);
	}
	p += len;
    }
    Consume(st, p);
    r->recordNo = st->recNo;
    return b->n - start;
}

/*
 * SrtClose --
 *	Frees the reader state's buffers.
 */
static void
SrtClose(Rb_Reader *r)
{
    SrtState *st = r->state;

    free(st->header);
    free(st->buf);
}

/*
 * Rb_SrtHeader --
 *	The header text of an SRT reader, or NULL for another format.
 */
const char *
Rb_SrtHeader(const Rb_Reader *r)
{
    if (r == NULL || r->cls != &Rb_SrtReaderClass) {
	return NULL;
    }
    return ((const SrtState *)r->state)->header;
}

const Rb_ReaderClass Rb_SrtReaderClass = {
    "srt",
    "HP SRT v7 block-I/O trace (text header, 88-byte big-endian records)",
    sizeof(SrtState),
    SrtSniff,
    SrtOpen,
    SrtNext,
    SrtClose,
};
