/*
 * objectSizeAnalyzer.c --
 *
 *	ObjectSizeAnalyzer: the distribution of object sizes counted by
 *	request (every request's size) and by object (each distinct object
 *	once, at the last size a request gave it), in power-of-two bins,
 *	and how both move over time in windows of -interval.  Exact: one
 *	size per distinct object, at most -limit objects over the run and
 *	as many again in each open window (keyWindows.c).
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct ObjectSizeState {
    char *key;			/* -key */
    char *sizeField;		/* -field */
    int64_t interval;		/* -interval, ns; 0: no windows */
    int64_t limit;		/* -limit */
    int keyIndex, sizeIndex;
    int failed;
    uint64_t byRequest[RB_POW2_BINS];
    double totalBytes;		/* Of the requests counted. */
    Rb_KeyTable last;		/* key -> int64 last size, whole run */
    RbKeyWindows windows;	/* key -> int64 last size per window;
				 * sums[0] requests, sums[1] bytes. */
} ObjectSizeState;

static const Rb_Option objectSizeOptions[] = {
    {"-key", RB_OPT_FIELD, offsetof(ObjectSizeState, key), "objectId",
	"field whose values are the objects"},
    {"-field", RB_OPT_FIELD, offsetof(ObjectSizeState, sizeField), "size",
	"field holding the size in bytes (objectSize for objects)"},
    {"-interval", RB_OPT_TIME, offsetof(ObjectSizeState, interval), "0",
	"window length for ObjectSizeSeries; 0: none"},
    {"-limit", RB_OPT_INT, offsetof(ObjectSizeState, limit), "10000000",
	"most distinct objects held (the run stops beyond)"},
    {NULL}
};

static const char *const objectSizeAttrs[] = {
    "SizeByRequest", "SizeByObject", "MeanRequestSize", "MeanObjectSize",
    "ObjectSizeSeries", NULL
};

static int
ObjectSizeInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    ObjectSizeState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    if (st->interval < 0) {
	return RbKitOptionError(a, interp, "-interval must not be negative");
    }
    return TCL_OK;
}

/*
 * MeanOf --
 *	The mean of the int64 values of t (0 when empty).
 */
static double
MeanOf(const Rb_KeyTable *t)
{
    double sum = 0;
    uint64_t slot;

    for (slot = 0; slot < t->cap; slot++) {
	if (t->used[slot]) {
	    sum += (double)*(int64_t *)Rb_KeyTableValue(t, slot);
	}
    }
    return t->count ? sum / (double)t->count : 0;
}

/*
 * WindowRow --
 *	A window's figures: mean request size, requests, mean object size
 *	(each object at its last size in the window), objects.
 */
static void
WindowRow(const RbKeyWindow *w, double *row)
{
    row[0] = w->sums[0] ? w->sums[1] / w->sums[0] : 0;
    row[1] = w->sums[0];
    row[2] = MeanOf(&w->keys);
    row[3] = (double)w->keys.count;
}

/*
 * ObjectSizeStart --
 *	Resolves -key (integer or text) and -field (integer) and empties
 *	the state.
 */
static int
ObjectSizeStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ObjectSizeState *st = a->state;
    int k;

    if (ObjectSizeInit(a, NULL) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->key, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK
	    || RbKitIntegerField(a, run, st->sizeField, &st->sizeIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->last.valSize == 0) {
	Rb_KeyTableInit(&st->last, sizeof(int64_t));
    }
    Rb_KeyTableClear(&st->last);
    RbKeyWindowsStart(&st->windows, st->interval, run, sizeof(int64_t),
	    0, 4, WindowRow);
    for (k = 0; k < RB_POW2_BINS; k++) {
	st->byRequest[k] = 0;
    }
    st->totalBytes = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * Keep --
 *	Makes size the last size of key in t.
 * Results: 1, or 0 (run stopped) when key would be one past -limit.
 */
static int
Keep(Rb_Analyzer *a, Rb_KeyTable *t, int64_t key, int64_t size,
	uint64_t record)
{
    ObjectSizeState *st = a->state;
    int64_t *v = Rb_KeyTableFindLimited(t, key, st->limit);

    if (v == NULL) {
	st->failed = 1;
	RbKitKeyLimit(a, st->limit, st->key, record, 32);
	return 0;
    }
    *v = size;
    return 1;
}

/*
 * ObjectSizeBatch --
 *	Counts each selected record that has a key and a size of 0 or more.
 */
static void
ObjectSizeBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ObjectSizeState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex];
    const int64_t *sizes = b->col[st->sizeIndex];
    const int64_t *times = b->col[RB_IO_TIME];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int i = (int)sel[j];
	uint64_t record = b->firstRecord + (uint64_t)i;

	if (keys[i] == RB_ABSENT || sizes[i] == RB_ABSENT || sizes[i] < 0) {
	    continue;
	}
	if (st->interval > 0) {
	    RbKeyWindow *w = RbKeyWindowsAt(&st->windows, times[i]);

	    if (!Keep(a, &w->keys, keys[i], sizes[i], record)) {
		break;
	    }
	    w->sums[0]++;
	    w->sums[1] += (double)sizes[i];
	}
	if (!Keep(a, &st->last, keys[i], sizes[i], record)) {
	    break;
	}
	st->byRequest[RbPow2Bin(sizes[i])]++;
	st->totalBytes += (double)sizes[i];
    }
}

/*
 * ObjectSizeEnd --
 *	Sets the two histograms, the two means, and the series of windows
 *	(a row for every window from the first to the last, empty ones 0).
 */
static int
ObjectSizeEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    static const char *const cols[] = {
	"value", "requests", "byObject", "objects"
    };
    static const char *const units[] = {"bytes", "", "bytes", ""};
    ObjectSizeState *st = a->state;
    uint64_t byObject[RB_POW2_BINS] = {0}, requests = 0, slot;
    int k;

    for (slot = 0; slot < st->last.cap; slot++) {
	if (st->last.used[slot]) {
	    byObject[RbPow2Bin(*(int64_t *)Rb_KeyTableValue(&st->last,
		    slot))]++;
	}
    }
    for (k = 0; k < RB_POW2_BINS; k++) {
	requests += st->byRequest[k];
    }
    Rb_AnalyzerSet(a, RbPow2HistAttr("SizeByRequest", st->byRequest,
	    "bytes", 1, "requests by the size they give their object"));
    Rb_AnalyzerSet(a, RbPow2HistAttr("SizeByObject", byObject, "bytes", 1,
	    "distinct objects by their last size"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanObjectSize", MeanOf(&st->last),
	    "bytes", "mean of the distinct objects' last sizes"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanRequestSize", requests
	    ? st->totalBytes / (double)requests : 0, "bytes",
	    "mean size of the requests"));
    if (st->interval > 0) {
	Rb_AnalyzerSet(a, RbKeyWindowsSeries(&st->windows,
		"ObjectSizeSeries", "bytes", "per window: mean object size "
		"by request and by object", cols, units));
    }
    return TCL_OK;
}

/*
 * ObjectSizeSerialize, ObjectSizeDeserialize --
 *	serialize and deserialize hooks: the bins, the bytes, every key's
 *	last size (a text key as its string) and the windows.
 */
static int
ObjectSizeSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ObjectSizeState *st = a->state;
    const Rb_Schema *text = RbKitTextSchema(run, st->keyIndex);

    RbKitPutCounters(b, st->byRequest, RB_POW2_BINS);
    Rb_BufPutDouble(b, st->totalBytes);
    Rb_KeyTablePut(b, &st->last, text);
    RbKeyWindowsPut(b, &st->windows, text);
    return TCL_OK;
}

static int
ObjectSizeDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ObjectSizeState *st = a->state;
    Rb_Schema *text = RbKitTextSchema(run, st->keyIndex);

    RbKitGetCounters(b, st->byRequest, RB_POW2_BINS);
    st->totalBytes = Rb_BufGetDouble(b);
    Rb_KeyTableGet(b, &st->last, text);
    RbKeyWindowsGet(b, &st->windows, text);
    return TCL_OK;
}

/*
 * ObjectSizeMerge --
 *	merge hook: bins and bytes add; an object's last size is the later
 *	shard's when it has one, over the run and in a window two shards
 *	share.
 * Results: TCL_OK, or TCL_ERROR with RUBICON LIMIT KEYS past -limit
 *	objects (one process would have stopped too).
 */
static int
ObjectSizeMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ObjectSizeState *st = a->state;
    const ObjectSizeState *ost = other->state;
    int k;

    if (!RbKeyTableJoin(&st->last, &ost->last, 0, st->limit)
	    || !RbKeyWindowsMerge(&st->windows, &ost->windows, st->limit)) {
	RbKitKeyLimit(a, st->limit, st->key, 0, 32);
	return TCL_ERROR;
    }
    for (k = 0; k < RB_POW2_BINS; k++) {
	st->byRequest[k] += ost->byRequest[k];
    }
    st->totalBytes += ost->totalBytes;
    return TCL_OK;
}

static void
ObjectSizeFree(Rb_Analyzer *a)
{
    ObjectSizeState *st = a->state;

    Rb_KeyTableFree(&st->last);
    RbKeyWindowsFree(&st->windows);
}

/*
 * Mergeable: bins and byte totals (integers, exact in a double below
 * 2^53) add; last sizes are the later shard's; a window two shards share
 * is joined before its figures are made (keyWindows.c).
 */
const Rb_AnalyzerClass Rb_ObjectSizeAnalyzerClass = {
    .name = "ObjectSizeAnalyzer",
    .help = "object size distribution by request and by object, and over "
	    "time",
    .stateSize = sizeof(ObjectSizeState),
    .options = objectSizeOptions,
    .attrs = objectSizeAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = ObjectSizeInit,
    .start = ObjectSizeStart,
    .batch = ObjectSizeBatch,
    .end = ObjectSizeEnd,
    .merge = ObjectSizeMerge,
    .serialize = ObjectSizeSerialize,
    .deserialize = ObjectSizeDeserialize,
    .freeState = ObjectSizeFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
