/*
 * ioInt.h --
 *
 *	Helpers shared by the trace readers of generic/io.
 */

#ifndef RB_IO_INT_H
#define RB_IO_INT_H

#include <stdarg.h>
#include "core/rbInt.h"

/*
 * RbAbsentBatches, RbSetAbsent --
 *	Columns a reader never writes are set absent once in a batch, over
 *	its whole capacity, and stay so.  A run reads into two batches in
 *	turn, so a reader remembers the last two it set (each with the mask
 *	of fields it set then).  RbSetAbsent sets the fields of mask absent
 *	in b unless b was set with that mask already.
 */
typedef struct RbAbsentBatches {
    const Rb_Batch *batch[2];
    uint64_t mask[2];
    int next;			/* The entry to replace next. */
} RbAbsentBatches;

static inline void
RbSetAbsent(RbAbsentBatches *ab, Rb_Batch *b, uint64_t mask)
{
    int f, i;

    for (i = 0; i < 2; i++) {
	if (ab->batch[i] == b && ab->mask[i] == mask) {
	    return;
	}
    }
    for (f = 0; f < b->schema->nfields; f++) {
	if (mask & RB_FIELD_BIT(f)) {
	    int64_t *c = b->col[f];

	    for (i = 0; i < b->cap; i++) {
		c[i] = RB_ABSENT;
	    }
	}
    }
    ab->batch[ab->next] = b;
    ab->mask[ab->next] = mask;
    ab->next ^= 1;
}

/*
 * RbTimeJumps --
 *	1 if time t, not before r->lastTime, is later than it by more than
 *	r->maxGap (a corrupt time that would stretch every time series
 *	over the gap): the record is malformed, of kind "time-jump".  The
 *	first record of a reader is never one.
 */
static inline int
RbTimeJumps(const Rb_Reader *r, int64_t t)
{
    return r->maxGap > 0 && r->lastTime != INT64_MIN
	    && (uint64_t)t - (uint64_t)r->lastTime > (uint64_t)r->maxGap;
}

/*
 * RbReaderBadFatal --
 *	A malformed record after which the next record cannot be found
 *	(a wrong length word, a broken block): counts it through
 *	Rb_ReaderBad like any other, but stops reading under every policy.
 * Results: always 1; err names the file, record and byte offset.
 */
static inline int
RbReaderBadFatal(Rb_Reader *r, Rb_Error *err, const char *kind,
	uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static inline int
RbReaderBadFatal(Rb_Reader *r, Rb_Error *err, const char *kind,
	uint64_t offset, const char *fmt, ...)
{
    char detail[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    if (Rb_ReaderBad(r, err, kind, offset, "%s", detail) == 0) {
	Rb_SetError(err, "RUBICON READER CORRUPT",
		"%s: record %llu at byte offset %llu: %s (%s); the next "
		"record cannot be found, reading stops", Rb_InputPath(r->in),
		(unsigned long long)r->recordNo, (unsigned long long)offset,
		detail, kind);
    }
    return 1;
}

/*
 * RbReaderFail --
 *	Ends a reader's next call on the error in *pending: the records
 *	appended in this call (from index start) are returned first and
 *	the error on the next call (*failed set), so results up to the
 *	error stay usable.  Sets *done.
 * Results: what a reader's next returns.
 */
static inline int
RbReaderFail(int *done, int *failed, const Rb_Error *pending,
	const Rb_Batch *b, int start, Rb_Error *err)
{
    *done = 1;
    if (b->n > start) {
	*failed = 1;
	return b->n - start;
    }
    *err = *pending;
    return -1;
}

/*
 * RbReaderOption --
 *	The value of key in the reader's -readeroptions dict, or NULL.
 */
static inline Tcl_Obj *
RbReaderOption(const Rb_Reader *r, const char *key)
{
    Tcl_Obj *k, *v = NULL;

    if (r->options == NULL) {
	return NULL;
    }
    k = Tcl_NewStringObj(key, -1);
    Tcl_IncrRefCount(k);
    Tcl_DictObjGet(NULL, r->options, k, &v);
    Tcl_DecrRefCount(k);
    return v;
}

/*
 * RbReaderCount --
 *	Adds one to the count of kind in r->skipCounts, the dict the run
 *	summary shows.
 */
static inline void
RbReaderCount(Rb_Reader *r, const char *kind)
{
    Tcl_Obj *key = Tcl_NewStringObj(kind, -1), *cnt;
    Tcl_WideInt n = 0;

    Tcl_IncrRefCount(key);
    if (Tcl_IsShared(r->skipCounts)) {
	Tcl_Obj *copy = Tcl_DuplicateObj(r->skipCounts);

	Tcl_DecrRefCount(r->skipCounts);
	r->skipCounts = copy;
	Tcl_IncrRefCount(copy);
    }
    if (Tcl_DictObjGet(NULL, r->skipCounts, key, &cnt) == TCL_OK && cnt) {
	Tcl_GetWideIntFromObj(NULL, cnt, &n);
    }
    Tcl_DictObjPut(NULL, r->skipCounts, key, Tcl_NewWideIntObj(n + 1));
    Tcl_DecrRefCount(key);
}

/*
 * RbReaderNote --
 *	Counts, by kind, an input event that is well formed but yields no
 *	record (a completion whose request was queued before the trace
 *	began, a request still outstanding at its end), so that the run
 *	summary shows it; under "warn" it is also told on stderr.  Unlike
 *	Rb_ReaderBad it does not stop the run or count as skipped: there is
 *	no malformed record.
 */
static inline void
RbReaderNote(Rb_Reader *r, const char *kind, uint64_t offset,
	const char *detail)
{
    RbReaderCount(r, kind);
    if (r->onError == RB_ONERROR_WARN) {
	fprintf(stderr, "rubicon: note: %s: record %llu at byte offset %llu: "
		"%s (%s)\n", Rb_InputPath(r->in),
		(unsigned long long)r->recordNo, (unsigned long long)offset,
		detail, kind);
    }
}

#endif /* RB_IO_INT_H */
