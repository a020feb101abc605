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
    unsigned char *buf;		/* Undecoded bytes: buf[pos, have). */
    size_t pos, have;
    uint64_t bufOffset;		/* Stream offset of buf[0]. */
    uint32_t *recPos;		/* Per batch slot: where in buf its record
				 * lies, until its columns are decoded. */
    int recCap;
    RbAbsentBatches absent;	/* The batches whose unread columns were
				 * set absent (this reader never writes
				 * them after). */
    uint64_t recNo;		/* Records seen, good or bad. */
    int64_t epochSec;		/* Unix seconds of trace time 0. */
    int done;			/* End of input reached. */
    int failed;			/* pending holds an error for next call. */
    Rb_Error pending;
} SrtState;

/*
 * Where each field but the time lies in a v7 I/O record, and how it is
 * decoded.  The time is decoded with the record's checks; these columns
 * afterwards, one at a time and only those the DAG reads (r->fields).
 */
typedef enum SrtDecode {
    SRT_WORD,			/* the big-endian word */
    SRT_WORD_HIGH,		/* its upper 16 bits */
    SRT_DWORD,			/* the big-endian 64-bit word */
    SRT_AFTER_ENQUEUE,		/* microseconds after the enqueue time */
    SRT_READ_FLAG,		/* RB_OP_READ if the flags say is_read */
    SRT_NONE			/* not in the format: RB_ABSENT */
} SrtDecode;

typedef struct SrtColumn {
    int field;
    int offset;			/* bytes into the record */
    SrtDecode how;
} SrtColumn;

static const SrtColumn srtColumns[] = {
    {RB_IO_START, 16, SRT_AFTER_ENQUEUE},
    {RB_IO_FINISH, 20, SRT_AFTER_ENQUEUE},
    {RB_IO_SIZE, 24, SRT_WORD},
    {RB_IO_MACHINE, 28, SRT_WORD},
    {RB_IO_DEVICE, 32, SRT_WORD},
    {RB_IO_FLAGS, 44, SRT_WORD},
    {RB_IO_OP, 44, SRT_READ_FLAG},
    {RB_IO_DEVTYPE, 48, SRT_WORD_HIGH},
    {RB_IO_QUEUELEN, 52, SRT_WORD},
    {RB_IO_PID, 56, SRT_WORD},
    {RB_IO_LVNO, 60, SRT_WORD},
    {RB_IO_OFFSET, 64, SRT_DWORD},
    {RB_IO_LVOFFSET, 72, SRT_DWORD},
    {RB_IO_THREAD, 0, SRT_NONE},
};

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
 * PrepareBatch --
 *	Makes room for the buffer positions of b's records and, the first
 *	time b comes (or when r->fields changed), sets the columns nothing
 *	reads to RB_ABSENT over b's whole capacity: this reader never writes
 *	them, so they stay so (RbSetAbsent).
 */
static void
PrepareBatch(const Rb_Reader *r, SrtState *st, Rb_Batch *b)
{
    uint64_t unread = 0;
    size_t c;

    if (b->cap > st->recCap) {
	st->recPos = Rb_ReallocArray(st->recPos, (size_t)b->cap,
		sizeof(uint32_t));
	st->recCap = b->cap;
    }
    for (c = 0; c < sizeof(srtColumns) / sizeof(srtColumns[0]); c++) {
	if (!(r->fields & RB_FIELD_BIT(srtColumns[c].field))) {
	    unread |= RB_FIELD_BIT(srtColumns[c].field);
	}
    }
    RbSetAbsent(&st->absent, b, unread);
}

/*
 * DecodeChunk, DecodeColumns --
 *	Fill the columns the DAG reads for batch records [from, to), whose
 *	records lie in the buffer at st->recPos[]: a column at a time, a
 *	tight loop each, so that a column nothing reads costs nothing;
 *	DecodeColumns in chunks of SRT_CHUNK records (22 KB of the buffer),
 *	so that the columns after the first find the records in the L1
 *	cache.
 */
#define SRT_CHUNK 256

static void
DecodeChunk(const Rb_Reader *r, const SrtState *st, Rb_Batch *b, int from,
	int to)
{
    const uint32_t *pos = st->recPos;
    const int64_t *time = b->col[RB_IO_TIME];
    size_t c;
    int i;

    for (c = 0; c < sizeof(srtColumns) / sizeof(srtColumns[0]); c++) {
	const SrtColumn *sc = &srtColumns[c];
	const unsigned char *at = st->buf + sc->offset;
	int64_t *col = b->col[sc->field];

	if (!(r->fields & RB_FIELD_BIT(sc->field))) {
	    continue;
	}
	switch (sc->how) {
	case SRT_WORD:
	    for (i = from; i < to; i++) {
		col[i] = Be32(at + pos[i]);
	    }
	    break;
	case SRT_WORD_HIGH:
	    for (i = from; i < to; i++) {
		col[i] = Be32(at + pos[i]) >> 16;
	    }
	    break;
	case SRT_DWORD:
	    for (i = from; i < to; i++) {
		col[i] = Be64(at + pos[i]);
	    }
	    break;
	case SRT_AFTER_ENQUEUE:
	    for (i = from; i < to; i++) {
		col[i] = time[i] + (int64_t)Be32(at + pos[i]) * 1000;
	    }
	    break;
	case SRT_READ_FLAG:
	    for (i = from; i < to; i++) {
		col[i] = (Be32(at + pos[i]) & SRT_READ_BIT)
			? RB_OP_READ : RB_OP_WRITE;
	    }
	    break;
	case SRT_NONE:
	    for (i = from; i < to; i++) {
		col[i] = RB_ABSENT;
	    }
	    break;
	}
    }
}

static void
DecodeColumns(const Rb_Reader *r, const SrtState *st, Rb_Batch *b, int from,
	int to)
{
    int i;

    for (i = from; i < to; i += SRT_CHUNK) {
	DecodeChunk(r, st, b, i, to - i < SRT_CHUNK ? to : i + SRT_CHUNK);
    }
}

/*
 * Fail --
 *	Ends a next call on an error in st->pending: records already
 *	appended in this call (their columns from index decoded still to
 *	fill) are returned first and the error on the next call, so results
 *	up to the error stay usable.
 * Results: what next returns.
 */
static int
Fail(Rb_Reader *r, SrtState *st, Rb_Batch *b, int start, int decoded,
	Rb_Error *err)
{
    DecodeColumns(r, st, b, decoded, b->n);
    return RbReaderFail(&st->done, &st->failed, &st->pending, b, start,
	    err);
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
    size_t p = *pp;
    long got;

    memmove(st->buf, st->buf + p, st->have - p);
    st->have -= p;
    /* The buffer ends where the input stands (also after a split run
     * moved the input: RbInputWindow). */
    st->bufOffset = Rb_InputOffset(r->in) - st->have;
    *pp = 0;
    got = Rb_InputRead(r->in, st->buf + st->have, SRT_BUF - st->have,
	    &st->pending);
    if (got > 0) {
	st->have += (size_t)got;
    }
    return got;
}

/*
 * TakeRun --
 *	The common case, kept to a tight loop: appends the whole v7 I/O
 *	records in time order that lie in the buffer from *pp, up to the
 *	batch's capacity, setting each one's time and position.
 * Results: *pp is past them; it stops at the first record that needs a
 *	closer look (more bytes, another type or length, a time going back
 *	or jumping ahead by more than -maxgap).
 */
static void
TakeRun(Rb_Reader *r, SrtState *st, Rb_Batch *b, size_t *pp, int64_t epochUs)
{
    const unsigned char *buf = st->buf;
    int64_t *cTime = b->col[RB_IO_TIME], last = r->lastTime;
    uint32_t *recPos = st->recPos;
    uint64_t gap = r->maxGap > 0 ? (uint64_t)r->maxGap : UINT64_MAX;
    size_t p = *pp, room = (st->have - p) / SRT_REC_LEN;
    int n = b->n, end = b->cap - n < (int64_t)room ? b->cap : n + (int)room;

    for (; n < end; n++, p += SRT_REC_LEN) {
	const unsigned char *rec = buf + p;
	int64_t t;

	if (Be32(rec) != SRT_REC_LEN || Be32(rec + 4) != SRT_V7_IO) {
	    break;
	}
	t = ((int64_t)Be32(rec + 8) * 1000000 + Be32(rec + 12) - epochUs)
		* 1000;
	if (t < last || ((uint64_t)t - (uint64_t)last > gap
		&& last != INT64_MIN)) {
	    break;
	}
	cTime[n] = last = t;
	recPos[n] = (uint32_t)p;
    }
    st->recNo += (uint64_t)(n - b->n);
    b->n = n;
    r->lastTime = last;
    *pp = p;
}

/*
 * SrtNext --
 *	Appends records to the batch until it is full or the input ends:
 *	each record is checked and its time decoded as it comes (TakeRun
 *	while all is well), its other columns (those the DAG reads) when the
 *	buffer is about to move and at the end.  Malformed records go through Rb_ReaderBad: "bad-type",
 *	"out-of-order" and "time-jump" can be skipped, "bad-length" always stops (the
 *	next record cannot be found), "short-record" ends the input.  An
 *	out-of-order record under the warn policy is delivered.
 * Results: records appended, 0 at the end, -1 on error (err set).
 */
static int
SrtNext(Rb_Reader *r, Rb_Batch *b, Rb_Error *err)
{
    SrtState *st = r->state;
    int64_t *cTime = b->col[RB_IO_TIME];
    const int64_t epochUs = st->epochSec * 1000000;
    int start = b->n, decoded = b->n;
    size_t p = st->pos;
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
    PrepareBatch(r, st, b);
    while (b->n < b->cap) {
	const unsigned char *rec;
	size_t avail;
	uint32_t len, vt;

	TakeRun(r, st, b, &p, epochUs);
	if (b->n == b->cap) {
	    break;
	}
	rec = st->buf + p;
	avail = st->have - p;
	if (avail >= SRT_REC_LEN && Be32(rec) == SRT_REC_LEN
		&& Be32(rec + 4) == SRT_V7_IO) {
	    /* A whole record TakeRun stopped at: its time goes back, or
	     * jumps ahead past -maxgap (skipped unless reading stops). */
	    int i = b->n;
	    int64_t t = ((int64_t)Be32(rec + 8) * 1000000
		    + Be32(rec + 12) - epochUs) * 1000;

	    st->recNo++;
	    cTime[i] = t;
	    st->recPos[i] = (uint32_t)p;
	    p += SRT_REC_LEN;
	    r->recordNo = st->recNo;
	    if (t >= r->lastTime) {
		if (Rb_ReaderBad(r, &st->pending, "time-jump",
			st->bufOffset + p - SRT_REC_LEN, "enqueue time jumps "
			"%.6f s past the record before, more than -maxgap "
			"%.9g s", (double)(t - r->lastTime) / 1e9,
			(double)r->maxGap / 1e9)) {
		    return Fail(r, st, b, start, decoded, err);
		}
		continue;
	    }
	    if (Rb_ReaderBad(r, &st->pending, "out-of-order",
		    st->bufOffset + p - SRT_REC_LEN, "enqueue time goes back "
		    "%.6f s", (double)(r->lastTime - t) / 1e9)) {
		return Fail(r, st, b, start, decoded, err);
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
	    RbReaderBadFatal(r, &st->pending, "bad-length",
		    st->bufOffset + p, "length word %u in a record of version "
		    "%u type %u (v7 I/O records have %d)", len, vt >> 16,
		    vt & 0xffff, SRT_REC_LEN);
	    return Fail(r, st, b, start, decoded, err);
	}
	if (avail < (avail < 8 ? 8 : len)) {
	    /* The records so far are decoded before the buffer moves. */
	    DecodeColumns(r, st, b, decoded, b->n);
	    decoded = b->n;
	    got = Refill(r, st, &p);
	    if (got < 0) {
		return Fail(r, st, b, start, decoded, err);
	    }
	    if (got > 0) {
		continue;
	    }
	    st->done = 1;
	    if (st->have == 0) {
		break;
	    }
	    if (RbInputWindowShort(r->in)) {
		/* A split run's cut, not the file's end, cuts this record:
		 * the cut was not at a record boundary (RbInputWindow). */
		uint64_t before, bytes;

		RbInputBases(r->in, &before, &bytes);
		Rb_SetError(&st->pending, "RUBICON READER SPLIT", "%s: record "
			"%llu at byte offset %llu: the split run cut the file "
			"%zu bytes into it (record contents that imitate "
			"record heads?); run it in one process",
			Rb_InputPath(r->in),
			(unsigned long long)(before + st->recNo + 1),
			(unsigned long long)st->bufOffset, st->have);
		return Fail(r, st, b, start, decoded, err);
	    }
	    r->recordNo = ++st->recNo;
	    if (Rb_ReaderBad(r, &st->pending, "short-record", st->bufOffset,
		    "the input ends %zu bytes into a record", st->have)) {
		return Fail(r, st, b, start, decoded, err);
	    }
	    st->have = 0;
	    break;
	}
	r->recordNo = ++st->recNo;
	if (Rb_ReaderBad(r, &st->pending, "bad-type", st->bufOffset + p,
		"record version %u type %u is not a v7 I/O record",
		vt >> 16, vt & 0xffff)) {
	    return Fail(r, st, b, start, decoded, err);
	}
	p += len;
    }
    DecodeColumns(r, st, b, decoded, b->n);
    st->pos = p;
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
    free(st->recPos);
}

/*
 * RbSrtHeader --
 *	The header text of an SRT reader, or NULL for another format.
 */
const char *
RbSrtHeader(const Rb_Reader *r)
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
