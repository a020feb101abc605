/*
 * fixed.h --
 *
 *	Input of binary traces of fixed-length records with no header
 *	(oraclegeneral, vscsi): records read a batch at a time, each turned
 *	into one record by the reader's parse proc, with the malformed-
 *	record and out-of-order policy applied.
 */

#ifndef RB_FIXED_H
#define RB_FIXED_H

#include "io/ioInt.h"

/* The state a fixed-record reader keeps inside its own state struct. */
typedef struct Rb_Fixed {
    size_t recLen;		/* Bytes per record, set by the reader. */
    int done;
    int failed;			/* pending holds an error for the next call. */
    Rb_Error pending;
    unsigned char *buf;		/* Room for a batch of records. */
    uint64_t writes;		/* Set by the reader at open: the fields
				 * its parse proc writes in every record it
				 * accepts; the others are set absent once
				 * a batch (RbSetAbsent). */
    RbAbsentBatches absent;
} Rb_Fixed;

/* Parses the recLen bytes at rec into record i of b, writing every field
 * of the reader's writes (the others are absent).  Returns NULL when the
 * record is good, or the malformed kind ("bad-field", ...) with a detail
 * in why. */
typedef const char *(Rb_FixedParseProc)(Rb_Reader *r,
		    const unsigned char *rec, Rb_Batch *b, int i, char *why,
		    size_t whyLen);

void		RbFixedFree(Rb_Fixed *fx);

/* Little-endian fields of a record. */
static inline uint16_t
RbLe16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
RbLe32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
	    | (uint32_t)p[3] << 24;
}

static inline uint64_t
RbLe64(const unsigned char *p)
{
    return (uint64_t)RbLe32(p) | (uint64_t)RbLe32(p + 4) << 32;
}

/*
 * RbFixedNext --
 *	A reader's next hook: appends the records of the next bytes of the
 *	input to b.  A malformed record (parse's kind) and a time earlier
 *	than the last record's ("out-of-order") or later than it by more than
 *	-maxgap ("time-jump") go through Rb_ReaderBad: a
 *	skipped record leaves the next one in place, since every record has
 *	the same length.  Bytes at the end that are too few for a record
 *	are a "short-record".
 *	Inline, so that a reader's parse proc (a constant at each call) is
 *	inlined into the loop.
 * Results: records appended, 0 at the end, -1 with err set; an error
 *	after some records comes on the next call (RbReaderFail).
 */
static inline __attribute__((always_inline)) int
RbFixedNext(Rb_Reader *r, Rb_Fixed *fx, Rb_Batch *b,
	Rb_FixedParseProc *parse, Rb_Error *err)
{
    int start = b->n, want = b->cap - b->n;
    char why[256];

    if (fx->failed) {
	fx->failed = 0;
	*err = fx->pending;
	return -1;
    }
    if (want <= 0) {
	return 0;
    }
    if (b->n == 0) {
	b->firstRecord = r->records + 1;
    }
    if (fx->buf == NULL) {
	fx->buf = Rb_Alloc((size_t)b->cap * fx->recLen);
    }
    RbSetAbsent(&fx->absent, b, ~fx->writes);
    /* Reads on while every record read was skipped. */
    while (b->n == start && !fx->done) {
	uint64_t base = Rb_InputOffset(r->in);
	long got = Rb_InputRead(r->in, fx->buf, (size_t)want * fx->recLen,
		&fx->pending);
	size_t rest;
	int k, whole;

	if (got <= 0) {
	    if (got < 0) {
		return RbReaderFail(&fx->done, &fx->failed, &fx->pending, b,
			start, err);
	    }
	    fx->done = 1;
	    break;
	}
	whole = (int)((size_t)got / fx->recLen);
	for (k = 0; k < whole; k++) {
	    const unsigned char *rec = fx->buf + (size_t)k * fx->recLen;
	    uint64_t offset = base + (uint64_t)k * fx->recLen;
	    const char *kind;
	    int64_t t;
	    int i;

	    r->recordNo++;
	    i = b->n++;
	    why[0] = '\0';
	    if ((kind = parse(r, rec, b, i, why, sizeof(why))) != NULL) {
		b->n--;
		if (Rb_ReaderBad(r, &fx->pending, kind, offset, "%s", why)) {
		    return RbReaderFail(&fx->done, &fx->failed, &fx->pending,
			    b, start, err);
		}
		continue;
	    }
	    t = b->col[RB_IO_TIME][i];
	    if (t >= r->lastTime) {
		if (!RbTimeJumps(r, t)) {
		    r->lastTime = t;
		    continue;
		}
		/* A time jump, which Rb_ReaderTimeJump reports. */
		b->n--;
		if (Rb_ReaderTimeJump(r, &fx->pending, t, r->lastTime,
			offset) < 0) {
		    return RbReaderFail(&fx->done, &fx->failed, &fx->pending,
			    b, start, err);
		}
		continue;
	    }
	    if (Rb_ReaderBad(r, &fx->pending, "out-of-order", offset,
		    "time goes back %.9f s", ((double)r->lastTime - (double)t)
		    / 1e9)) {
		b->n--;
		return RbReaderFail(&fx->done, &fx->failed, &fx->pending, b,
			start, err);
	    }
	    if (r->onError != RB_ONERROR_WARN) {
		b->n--;
	    }
	}
	if ((rest = (size_t)got % fx->recLen) != 0) {
	    /* Rb_InputRead stops short only at the end of the data, or
	     * before a failure of the stream, which the next read tells. */
	    unsigned char one;

	    fx->done = 1;
	    if (Rb_InputRead(r->in, &one, 1, &fx->pending) < 0) {
		return RbReaderFail(&fx->done, &fx->failed, &fx->pending, b,
			start, err);
	    }
	    r->recordNo++;
	    if (Rb_ReaderBad(r, &fx->pending, "short-record", base
		    + (uint64_t)whole * fx->recLen, "the data end %zu bytes "
		    "into a record of %zu", rest, fx->recLen)) {
		return RbReaderFail(&fx->done, &fx->failed, &fx->pending, b,
			start, err);
	    }
	}
    }
    return b->n - start;
}

#endif /* RB_FIXED_H */
