/*
 * strideAnalyzer.c --
 *
 *	StrideAnalyzer: constant-stride access, per device (or per value of
 *	any -by field).  In stream order, an I/O is strided when its offset
 *	minus the previous I/O's offset (of the same key) equals the
 *	previous such difference and is neither 0 nor the previous I/O's
 *	size (that would be a re-read or a sequential I/O).  The fraction of
 *	strided I/Os, the strides most often seen, and the longest run of
 *	consecutive strided I/Os.  One entry per key and one per distinct
 *	stride, each table at most -limit entries.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

/* Per key: its last I/O, its runs, and its first two I/Os (for a split
 * run: the I/Os after a boundary are judged again).  64-bit words,
 * serialized as counters. */
typedef struct StrideStream {
    int64_t n;			/* I/Os of the key. */
    int64_t firstOffset, firstSize, secondOffset;
    int64_t lastOffset, lastSize;
    int64_t lastDiff;		/* lastOffset minus the offset before, */
    int64_t hasDiff;		/* when n >= 2 and it did not overflow. */
    int64_t run;		/* Strided I/Os ending at the last one. */
    int64_t lead;		/* Consecutive strided I/Os from the third
				 * on. */
} StrideStream;

typedef struct StrideState {
    char *by;			/* -by */
    char *offsetField;		/* -offsetField */
    int64_t k;			/* -k */
    int64_t limit;		/* -limit: most keys, and most strides */
    int failed;
    int keyIndex, offsetIndex;
    Rb_KeyTable streams;	/* key -> StrideStream */
    Rb_KeyTable strides;	/* stride -> uint64 strided I/Os */
    uint64_t ios, strided;	/* Counters, serialized in this order. */
    int64_t longest;
} StrideState;

static const Rb_Option strideOptions[] = {
    {"-by", RB_OPT_FIELD, offsetof(StrideState, by), "deviceNo",
	"field whose values each have their own stream of offsets"},
    {"-offsetField", RB_OPT_FIELD, offsetof(StrideState, offsetField),
	"devOffset", "field holding the I/O's offset in bytes"},
    {"-k", RB_OPT_INT, offsetof(StrideState, k), "10",
	"number of strides listed"},
    {"-limit", RB_OPT_INT, offsetof(StrideState, limit), "1000000",
	"most distinct keys, and most distinct strides, held (the run "
	"stops beyond)"},
    {NULL}
};

static const char *const strideAttrs[] = {
    "StridedFraction", "StridedIOs", "LongestStridedRun", "TopStrides",
    "Strides", NULL
};

/*
 * StrideInit --
 *	Checks -k and -limit.
 */
static int
StrideInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    StrideState *st = a->state;

    if (st->k <= 0) {
	return RbKitOptionError(a, interp, "-k must be positive");
    }
    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    return TCL_OK;
}

/*
 * StrideStart --
 *	Resolves the fields and empties the tables.
 */
static int
StrideStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    StrideState *st = a->state;

    if (StrideInit(a, NULL) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->by, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK
	    || RbKitIntegerField(a, run, st->offsetField, &st->offsetIndex)
	    != TCL_OK) {
	st->keyIndex = -1;
	return TCL_ERROR;
    }
    if (st->streams.valSize == 0) {
	Rb_KeyTableInit(&st->streams, sizeof(StrideStream));
	Rb_KeyTableInit(&st->strides, sizeof(uint64_t));
    }
    Rb_KeyTableClear(&st->streams);
    Rb_KeyTableClear(&st->strides);
    st->ios = st->strided = 0;
    st->longest = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * CountStride --
 *	Counts one strided I/O of the given stride.
 * Results: 1, or 0 (run stopped) when the stride is one past -limit;
 *	record 0 means while merging.
 */
static int
CountStride(Rb_Analyzer *a, int64_t stride, uint64_t record)
{
    StrideState *st = a->state;
    uint64_t *c = Rb_KeyTableFindLimited(&st->strides, stride, st->limit);

    if (c == NULL) {
	st->failed = 1;
	RbKitKeyLimit(a, st->limit, "strides", record, 30);
	return 0;
    }
    (*c)++;
    st->strided++;
    return 1;
}

/*
 * IsStrided --
 *	Whether an I/O whose offset lies diff (diffOk: computed without
 *	overflow) past the previous I/O's, of size prevSize, continues the
 *	stride prevDiff (hasPrevDiff: known).
 */
static int
IsStrided(int hasPrevDiff, int64_t prevDiff, int64_t prevSize, int diffOk,
	int64_t diff)
{
    return hasPrevDiff && diffOk && diff == prevDiff && diff != 0
	    && diff != prevSize;
}

/*
 * AddIo --
 *	Adds an I/O at offset of reqSize bytes to stream s.
 * Results: 1, or 0 when the run had to stop (stride table full).
 */
static int
AddIo(Rb_Analyzer *a, StrideStream *s, int64_t offset, int64_t reqSize,
	uint64_t record)
{
    StrideState *st = a->state;
    int64_t diff = 0;
    int diffOk = 0, strided = 0;

    if (s->n >= 1) {
	diffOk = !__builtin_sub_overflow(offset, s->lastOffset, &diff);
	strided = IsStrided((int)s->hasDiff, s->lastDiff, s->lastSize,
		diffOk, diff);
	s->hasDiff = diffOk;
	s->lastDiff = diffOk ? diff : 0;
    }
    if (strided) {
	if (!CountStride(a, diff, record)) {
	    return 0;
	}
	/* Strided implies n >= 2: the lead grows while it is unbroken. */
	s->lead += s->lead == s->n - 2;
	if (++s->run > st->longest) {
	    st->longest = s->run;
	}
    } else {
	s->run = 0;
    }
    if (s->n == 0) {
	s->firstOffset = offset;
	s->firstSize = reqSize;
    } else if (s->n == 1) {
	s->secondOffset = offset;
    }
    s->n++;
    s->lastOffset = offset;
    s->lastSize = reqSize;
    st->ios++;
    return 1;
}

/*
 * StrideBatch --
 *	Adds each selected I/O with a key, an offset and a size >= 0 to
 *	its key's stream.  A key or a stride one past -limit stops the run.
 */
static void
StrideBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    StrideState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex];
    const int64_t *offsets = b->col[st->offsetIndex];
    const int64_t *sizes = b->col[RB_IO_SIZE];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int64_t key = keys[sel[j]], offset = offsets[sel[j]];
	int64_t reqSize = sizes[sel[j]];
	StrideStream *s;

	if (key == RB_ABSENT || offset == RB_ABSENT || reqSize == RB_ABSENT
		|| reqSize < 0) {
	    continue;
	}
	s = Rb_KeyTableFindLimited(&st->streams, key, st->limit);
	if (s == NULL) {
	    st->failed = 1;
	    RbKitKeyLimit(a, st->limit, st->by, b->firstRecord + sel[j],
		    100);
	    break;
	}
	AddIo(a, s, offset, reqSize, b->firstRecord + sel[j]);
    }
}

/*
 * ByCount --
 *	qsort_r order of stride table slots: most I/Os first, ties by the
 *	smaller stride.
 */
static int
ByCount(const void *p, const void *q, void *table)
{
    const Rb_KeyTable *t = table;
    uint64_t s1 = *(const uint64_t *)p, s2 = *(const uint64_t *)q;
    uint64_t c1 = *(const uint64_t *)Rb_KeyTableValue(t, s1);
    uint64_t c2 = *(const uint64_t *)Rb_KeyTableValue(t, s2);

    if (c1 != c2) {
	return c1 > c2 ? -1 : 1;
    }
    return (t->keys[s1] > t->keys[s2]) - (t->keys[s1] < t->keys[s2]);
}

/*
 * StrideEnd --
 *	Sets the fraction and count of strided I/Os, the longest run, the
 *	-k most frequent strides and the number of distinct strides.
 */
static int
StrideEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    StrideState *st = a->state;
    uint64_t *slots = Rb_KeyTableSortedSlots(&st->strides), i;
    Rb_Attribute *table = Rb_AttrCreate("TopStrides", RB_ATTR_TABLE, "",
	    "the strides of the most strided I/Os");
    int strideCol = Rb_AttrAddColumn(table, "stride", "bytes", 0);
    int countCol = Rb_AttrAddColumn(table, "ios", "", 0);
    int fracCol = Rb_AttrAddColumn(table, "fraction", "", 0);

    qsort_r(slots, st->strides.count, sizeof(uint64_t), ByCount,
	    &st->strides);
    for (i = 0; i < st->strides.count && i < (uint64_t)st->k; i++) {
	uint64_t c = *(const uint64_t *)Rb_KeyTableValue(&st->strides,
		slots[i]);
	int row = Rb_AttrAddRow(table);

	Rb_AttrSetNum(table, row, strideCol,
		(double)st->strides.keys[slots[i]]);
	Rb_AttrSetNum(table, row, countCol, (double)c);
	Rb_AttrSetNum(table, row, fracCol, (double)c / (double)st->strided);
    }
    free(slots);
    Rb_AnalyzerSet(a, Rb_AttrScalar("StridedFraction",
	    st->ios ? (double)st->strided / (double)st->ios : 0.0, "",
	    "strided I/Os over I/Os"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("StridedIOs", (double)st->strided, "",
	    "I/Os that continue a constant stride"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("LongestStridedRun",
	    (double)st->longest, "IOs",
	    "most consecutive strided I/Os of one key"));
    Rb_AnalyzerSet(a, table);
    Rb_AnalyzerSet(a, Rb_AttrScalar("Strides", (double)st->strides.count,
	    "", "distinct strides seen"));
    return TCL_OK;
}

/*
 * StrideFree --
 *	Frees both tables.
 */
static void
StrideFree(Rb_Analyzer *a)
{
    StrideState *st = a->state;

    Rb_KeyTableFree(&st->streams);
    Rb_KeyTableFree(&st->strides);
}

/*
 * StrideSerialize, StrideDeserialize --
 *	serialize and deserialize hooks: counters, streams and strides.
 */
static int
StrideSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    StrideState *st = a->state;

    Rb_BufPutInt(b, st->failed);
    RbKitPutCounters(b, &st->ios, 3);
    Rb_KeyTablePut(b, &st->streams, RbKitTextSchema(run, st->keyIndex));
    Rb_KeyTablePut(b, &st->strides, NULL);
    return TCL_OK;
}

static int
StrideDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    StrideState *st = a->state;

    st->failed = (int)Rb_BufGetInt(b);
    RbKitGetCounters(b, &st->ios, 3);
    Rb_KeyTableGet(b, &st->streams, RbKitTextSchema(run, st->keyIndex));
    Rb_KeyTableGet(b, &st->strides, NULL);
    return TCL_OK;
}

/*
 * JoinStreams --
 *	Appends stream o (a later shard's) to s.  Within o alone its first
 *	two I/Os could not be strided; here they are judged again after s's
 *	last I/O, and the runs through them joined, as one pass does.
 * Results: 1, or 0 when the stride table is full.
 */
static int
JoinStreams(Rb_Analyzer *a, StrideStream *s, const StrideStream *o)
{
    StrideState *st = a->state;
    int64_t d1 = 0, d2 = 0, r1, r2, f1, f2, f3;
    int ok1, ok2 = 0, s1, s2 = 0;

    ok1 = !__builtin_sub_overflow(o->firstOffset, s->lastOffset, &d1);
    s1 = IsStrided((int)s->hasDiff, s->lastDiff, s->lastSize, ok1, d1);
    if (o->n >= 2) {
	ok2 = !__builtin_sub_overflow(o->secondOffset, o->firstOffset, &d2);
	s2 = IsStrided(ok1, d1, o->firstSize, ok2, d2);
    }
    if ((s1 && !CountStride(a, d1, 0)) || (s2 && !CountStride(a, d2, 0))) {
	return 0;
    }
    /* Runs ending at o's first and second I/O, and through o's lead. */
    r1 = s1 ? s->run + 1 : 0;
    r2 = s2 ? r1 + 1 : 0;
    st->longest = r1 > st->longest ? r1 : st->longest;
    st->longest = r2 > st->longest ? r2 : st->longest;
    if (o->n >= 3 && o->lead > 0 && r2 + o->lead > st->longest) {
	st->longest = r2 + o->lead;
    }
    /* Consecutive strided I/Os of o from its first, second, third on. */
    f3 = o->n >= 3 ? o->lead : 0;
    f2 = o->n >= 2 && s2 ? 1 + f3 : 0;
    f1 = s1 ? 1 + f2 : 0;
    if (s->n >= 3) {
	s->lead += s->lead == s->n - 2 ? f1 : 0;
    } else {
	s->lead = s->n == 2 ? f1 : f2;
    }
    if (s->n == 1) {
	s->secondOffset = o->firstOffset;
    }
    if (o->n == 1) {
	s->run = r1;
	s->hasDiff = ok1;
	s->lastDiff = ok1 ? d1 : 0;
    } else {
	s->run = o->n == 2 ? r2
		: o->run == o->n - 2 ? r2 + o->run : o->run;
	s->hasDiff = o->hasDiff;
	s->lastDiff = o->lastDiff;
    }
    s->lastOffset = o->lastOffset;
    s->lastSize = o->lastSize;
    s->n += o->n;
    return 1;
}

/*
 * StrideMerge --
 *	merge hook: other's I/Os follow a's.  Its strides add; each of its
 *	streams is joined to a's of the same key (JoinStreams).
 * Results: TCL_OK, or TCL_ERROR past -limit keys or strides.
 */
static int
StrideMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    StrideState *st = a->state;
    const StrideState *ost = other->state;
    uint64_t i;

    st->failed |= ost->failed;
    st->ios += ost->ios;
    st->strided += ost->strided;
    st->longest = ost->longest > st->longest ? ost->longest : st->longest;
    for (i = 0; i < ost->strides.cap; i++) {
	uint64_t *c;

	if (!ost->strides.used[i]) {
	    continue;
	}
	c = Rb_KeyTableFindLimited(&st->strides, ost->strides.keys[i],
		st->limit);
	if (c == NULL) {
	    RbKitKeyLimit(a, st->limit, "strides", 0, 30);
	    return TCL_ERROR;
	}
	*c += *(const uint64_t *)Rb_KeyTableValue(&ost->strides, i);
    }
    for (i = 0; i < ost->streams.cap; i++) {
	const StrideStream *o;
	StrideStream *s;

	if (!ost->streams.used[i]) {
	    continue;
	}
	o = Rb_KeyTableValue(&ost->streams, i);
	s = Rb_KeyTableFindLimited(&st->streams, ost->streams.keys[i],
		st->limit);
	if (s == NULL) {
	    RbKitKeyLimit(a, st->limit, st->by, 0, 100);
	    return TCL_ERROR;
	}
	if (s->n == 0) {
	    *s = *o;
	} else if (!JoinStreams(a, s, o)) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

/*
 * Mergeable in time order: each key's first two I/Os and last stride
 * let the I/Os after a shard boundary be judged as in one pass
 * (JoinStreams).
 */
const Rb_AnalyzerClass Rb_StrideAnalyzerClass = {
    .name = "StrideAnalyzer",
    .help = "constant-stride access per device or -by key: strided "
	    "fraction, top strides, longest strided run",
    .stateSize = sizeof(StrideState),
    .options = strideOptions,
    .attrs = strideAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = StrideInit,
    .start = StrideStart,
    .batch = StrideBatch,
    .end = StrideEnd,
    .freeState = StrideFree,
    .merge = StrideMerge,
    .serialize = StrideSerialize,
    .deserialize = StrideDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
