/*
 * objectSizeAnalyzer.c --
 *
 *	ObjectSizeAnalyzer: the distribution of object sizes counted by
 *	request (every request's size) and by object (each distinct object
 *	once, at the last size a request gave it), in power-of-two bins,
 *	and how both move over time in windows of -interval.  Exact: one
 *	size per distinct object, at most -limit objects over the run and
 *	as many again in the current window.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

#define NBINS 65		/* [0,1), [1,2), [2,4) ... [2^62, 2^63) */

typedef struct ObjectSizeState {
    char *key;			/* -key */
    char *sizeField;		/* -field */
    int64_t interval;		/* -interval, ns; 0: no windows */
    int64_t limit;		/* -limit */
    int keyIndex, sizeIndex;
    int failed;
    const Rb_RunInfo *run;	/* The run's: windows count from its
				 * firstTime. */
    uint64_t byRequest[NBINS];
    double totalBytes;		/* Of the requests counted. */
    Rb_KeyTable last;		/* key -> int64 last size, whole run */
    Rb_KeyTable window;		/* key -> int64 last size, this window */
    int64_t windowNo;		/* Of the window in `window`; -1 none. */
    uint64_t windowRequests;
    double windowBytes;
    double *rows;		/* Per window done: number, requests, mean
				 * request size, objects, mean object
				 * size. */
    size_t nrows, rowCap;
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
	Rb_KeyTableInit(&st->window, sizeof(int64_t));
    }
    Rb_KeyTableClear(&st->last);
    Rb_KeyTableClear(&st->window);
    for (k = 0; k < NBINS; k++) {
	st->byRequest[k] = 0;
    }
    st->totalBytes = 0;
    st->windowNo = -1;
    st->windowRequests = 0;
    st->windowBytes = 0;
    st->nrows = 0;
    st->failed = 0;
    st->run = run;
    return TCL_OK;
}

/*
 * Bin --
 *	The power-of-two bin of a size >= 0: 0 for 0, else 1 + floor(log2).
 */
static int
Bin(int64_t size)
{
    return size == 0 ? 0 : 64 - __builtin_clzll((uint64_t)size);
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
 * CloseWindow --
 *	Adds the row of the window in st->window and empties it.
 */
static void
CloseWindow(ObjectSizeState *st)
{
    double *row;

    if (st->windowNo < 0) {
	return;
    }
    if (st->nrows == st->rowCap) {
	st->rowCap = st->rowCap ? 2 * st->rowCap : 64;
	st->rows = Rb_ReallocArray(st->rows, st->rowCap, 5 * sizeof(double));
    }
    row = st->rows + 5 * st->nrows++;
    row[0] = (double)st->windowNo;
    row[1] = (double)st->windowRequests;
    row[2] = st->windowRequests ? st->windowBytes
	    / (double)st->windowRequests : 0;
    row[3] = (double)st->window.count;
    row[4] = MeanOf(&st->window);
    Rb_KeyTableClear(&st->window);
    st->windowRequests = 0;
    st->windowBytes = 0;
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
	    int64_t w = (times[i] - st->run->firstTime) / st->interval;

	    if (w > st->windowNo) {
		CloseWindow(st);
		st->windowNo = w;
	    }
	    if (!Keep(a, &st->window, keys[i], sizes[i], record)) {
		break;
	    }
	    st->windowRequests++;
	    st->windowBytes += (double)sizes[i];
	}
	if (!Keep(a, &st->last, keys[i], sizes[i], record)) {
	    break;
	}
	st->byRequest[Bin(sizes[i])]++;
	st->totalBytes += (double)sizes[i];
    }
}

/*
 * Histogram --
 *	A histogram Attribute of counts by power-of-two bin, up to the last
 *	bin that holds any.
 */
static Rb_Attribute *
Histogram(const char *name, const uint64_t *counts, const char *help)
{
    Rb_Attribute *h = Rb_AttrCreate(name, RB_ATTR_HISTOGRAM, "bytes", help);
    int lo = Rb_AttrAddColumn(h, "lo", "bytes", 0);
    int hi = Rb_AttrAddColumn(h, "hi", "bytes", 0);
    int cc = Rb_AttrAddColumn(h, "count", "", 0);
    int top = NBINS - 1, k;

    while (top > 0 && counts[top] == 0) {
	top--;
    }
    for (k = 0; k <= top; k++) {
	int r = Rb_AttrAddRow(h);

	Rb_AttrSetNum(h, r, lo, k == 0 ? 0 : (double)((uint64_t)1 << (k - 1)));
	Rb_AttrSetNum(h, r, hi, (double)((uint64_t)1 << k));
	Rb_AttrSetNum(h, r, cc, (double)counts[k]);
    }
    return h;
}

/*
 * ObjectSizeEnd --
 *	Sets the two histograms, the two means, and the series of windows
 *	(a row for every window from the first to the last, empty ones 0).
 */
static int
ObjectSizeEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ObjectSizeState *st = a->state;
    uint64_t byObject[NBINS] = {0}, requests = 0, slot;
    int k;

    for (slot = 0; slot < st->last.cap; slot++) {
	if (st->last.used[slot]) {
	    byObject[Bin(*(int64_t *)Rb_KeyTableValue(&st->last, slot))]++;
	}
    }
    for (k = 0; k < NBINS; k++) {
	requests += st->byRequest[k];
    }
    Rb_AnalyzerSet(a, Histogram("SizeByRequest", st->byRequest,
	    "requests by the size they give their object"));
    Rb_AnalyzerSet(a, Histogram("SizeByObject", byObject,
	    "distinct objects by their last size"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanObjectSize", MeanOf(&st->last),
	    "bytes", "mean of the distinct objects' last sizes"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanRequestSize", requests
	    ? st->totalBytes / (double)requests : 0, "bytes",
	    "mean size of the requests"));
    if (st->interval > 0) {
	Rb_Attribute *s = Rb_AttrCreate("ObjectSizeSeries", RB_ATTR_SERIES,
		"bytes", "per window: mean object size by request and by "
		"object");
	int tc = Rb_AttrAddColumn(s, "time", "s", 0);
	int vc = Rb_AttrAddColumn(s, "value", "bytes", 0);
	int rc = Rb_AttrAddColumn(s, "requests", "", 0);
	int mc = Rb_AttrAddColumn(s, "byObject", "bytes", 0);
	int oc = Rb_AttrAddColumn(s, "objects", "", 0);
	size_t n;
	int64_t w = 0;

	CloseWindow(st);
	for (n = 0; n < st->nrows; n++) {
	    const double *row = st->rows + 5 * n;

	    for (; (double)w <= row[0]; w++) {
		int r = Rb_AttrAddRow(s);
		int here = (double)w == row[0];

		Rb_AttrSetNum(s, r, tc, (double)w * (double)st->interval
			/ RB_NS_PER_S);
		Rb_AttrSetNum(s, r, vc, here ? row[2] : 0);
		Rb_AttrSetNum(s, r, rc, here ? row[1] : 0);
		Rb_AttrSetNum(s, r, mc, here ? row[4] : 0);
		Rb_AttrSetNum(s, r, oc, here ? row[3] : 0);
	    }
	}
	Rb_AnalyzerSet(a, s);
    }
    return TCL_OK;
}

static void
ObjectSizeFree(Rb_Analyzer *a)
{
    ObjectSizeState *st = a->state;

    Rb_KeyTableFree(&st->last);
    Rb_KeyTableFree(&st->window);
    free(st->rows);
}

const Rb_AnalyzerClass Rb_ObjectSizeAnalyzerClass = {
    .name = "ObjectSizeAnalyzer",
    .help = "object size distribution by request and by object, and over "
	    "time",
    .stateSize = sizeof(ObjectSizeState),
    .options = objectSizeOptions,
    .attrs = objectSizeAttrs,
    .init = ObjectSizeInit,
    .start = ObjectSizeStart,
    .batch = ObjectSizeBatch,
    .end = ObjectSizeEnd,
    .freeState = ObjectSizeFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
