/*
 * oneHitWonderAnalyzer.c --
 *
 *	OneHitWonderAnalyzer: the share of the objects (the values of a key
 *	field, objectId by default) that are requested exactly once, over
 *	the whole run and in each window of -interval: the "one-hit
 *	wonders" of cache workload studies, which a cache admits for
 *	nothing.  Exact: one count per distinct key, at most -limit keys
 *	over the run and as many again in the current window.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct OneHitState {
    char *key;			/* -key */
    int64_t interval;		/* -interval, ns; 0: no windows */
    int64_t limit;		/* -limit */
    int keyIndex;
    int failed;
    const Rb_RunInfo *run;	/* The run's (valid from start to end):
				 * windows count from its firstTime. */
    uint64_t requests;
    Rb_KeyTable all;		/* key -> uint64 requests, whole run */
    Rb_KeyTable window;		/* key -> uint64 requests, this window */
    int64_t windowNo;		/* Of the window in `window`; -1 none. */
    uint64_t windowRequests;
    int64_t *rows;		/* Per window done: number, requests,
				 * objects, one-hit objects. */
    size_t nrows, rowCap;
} OneHitState;

static const Rb_Option oneHitOptions[] = {
    {"-key", RB_OPT_FIELD, offsetof(OneHitState, key), "objectId",
	"field whose values are the objects"},
    {"-interval", RB_OPT_TIME, offsetof(OneHitState, interval), "0",
	"window length for OneHitWonderSeries; 0: none"},
    {"-limit", RB_OPT_INT, offsetof(OneHitState, limit), "10000000",
	"most distinct objects held (the run stops beyond)"},
    {NULL}
};

static const char *const oneHitAttrs[] = {
    "OneHitWonderRatio", "OneHitObjects", "DistinctObjects",
    "OneHitRequestShare", "OneHitWonderSeries", NULL
};

static int
OneHitInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    OneHitState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    if (st->interval < 0) {
	return RbKitOptionError(a, interp, "-interval must not be negative");
    }
    return TCL_OK;
}

/*
 * OneHitStart --
 *	Resolves -key (an integer or text field) and empties the counts.
 */
static int
OneHitStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    OneHitState *st = a->state;

    if (OneHitInit(a, NULL) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->key, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->all.valSize == 0) {
	Rb_KeyTableInit(&st->all, sizeof(uint64_t));
	Rb_KeyTableInit(&st->window, sizeof(uint64_t));
    }
    Rb_KeyTableClear(&st->all);
    Rb_KeyTableClear(&st->window);
    st->windowNo = -1;
    st->requests = st->windowRequests = 0;
    st->nrows = 0;
    st->failed = 0;
    st->run = run;
    return TCL_OK;
}

/*
 * OnceCount --
 *	The keys of t requested exactly once.
 */
static uint64_t
OnceCount(const Rb_KeyTable *t)
{
    uint64_t slot, n = 0;

    for (slot = 0; slot < t->cap; slot++) {
	if (t->used[slot] && *(uint64_t *)Rb_KeyTableValue(t, slot) == 1) {
	    n++;
	}
    }
    return n;
}

/*
 * CloseWindow --
 *	Adds the row of the window in st->window and empties it.
 */
static void
CloseWindow(OneHitState *st)
{
    int64_t *row;

    if (st->windowNo < 0) {
	return;
    }
    if (st->nrows == st->rowCap) {
	st->rowCap = st->rowCap ? 2 * st->rowCap : 64;
	st->rows = Rb_ReallocArray(st->rows, st->rowCap, 4 * sizeof(int64_t));
    }
    row = st->rows + 4 * st->nrows++;
    row[0] = st->windowNo;
    row[1] = (int64_t)st->windowRequests;
    row[2] = (int64_t)st->window.count;
    row[3] = (int64_t)OnceCount(&st->window);
    Rb_KeyTableClear(&st->window);
    st->windowRequests = 0;
}

/*
 * Count --
 *	Counts one request of key in table t.
 * Results: 1, or 0 (run stopped) when key would be one past -limit.
 */
static int
Count(Rb_Analyzer *a, Rb_KeyTable *t, int64_t key, uint64_t record)
{
    OneHitState *st = a->state;
    uint64_t *c = Rb_KeyTableFindLimited(t, key, st->limit);

    if (c == NULL) {
	st->failed = 1;
	RbKitKeyLimit(a, st->limit, st->key, record, 32);
	return 0;
    }
    (*c)++;
    return 1;
}

/*
 * OneHitBatch --
 *	Counts each selected record's key (records without one are left
 *	out), closing the windows the records have moved past.
 */
static void
OneHitBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    OneHitState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex], *times = b->col[RB_IO_TIME];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int i = (int)sel[j];
	uint64_t record = b->firstRecord + (uint64_t)i;

	if (keys[i] == RB_ABSENT) {
	    continue;
	}
	if (st->interval > 0) {
	    int64_t w = (times[i] - st->run->firstTime) / st->interval;

	    if (w > st->windowNo) {
		CloseWindow(st);
		st->windowNo = w;
	    }
	    if (!Count(a, &st->window, keys[i], record)) {
		break;
	    }
	    st->windowRequests++;
	}
	if (!Count(a, &st->all, keys[i], record)) {
	    break;
	}
	st->requests++;
    }
}

/*
 * OneHitEnd --
 *	Sets the ratios and counts, and the series of windows (a row for
 *	every window from the first to the last, empty ones with 0).
 */
static int
OneHitEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    OneHitState *st = a->state;
    uint64_t once = OnceCount(&st->all), distinct = st->all.count;

    Rb_AnalyzerSet(a, Rb_AttrScalar("OneHitWonderRatio", distinct
	    ? (double)once / (double)distinct : 0, "", "share of the objects "
	    "requested exactly once"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("OneHitObjects", (double)once, "",
	    "objects requested exactly once"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("DistinctObjects", (double)distinct, "",
	    "distinct objects requested"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("OneHitRequestShare", st->requests
	    ? (double)once / (double)st->requests : 0, "", "share of the "
	    "requests that are to objects requested exactly once"));
    if (st->interval > 0) {
	Rb_Attribute *s = Rb_AttrCreate("OneHitWonderSeries", RB_ATTR_SERIES,
		"", "share of each window's objects requested exactly once "
		"in it");
	int tc = Rb_AttrAddColumn(s, "time", "s", 0);
	int vc = Rb_AttrAddColumn(s, "value", "", 0);
	int rc = Rb_AttrAddColumn(s, "requests", "", 0);
	int oc = Rb_AttrAddColumn(s, "objects", "", 0);
	int hc = Rb_AttrAddColumn(s, "oneHit", "", 0);
	size_t k;
	int64_t w = 0;

	CloseWindow(st);
	for (k = 0; k < st->nrows; k++) {
	    const int64_t *row = st->rows + 4 * k;

	    for (; w <= row[0]; w++) {
		int r = Rb_AttrAddRow(s);
		int here = w == row[0];

		Rb_AttrSetNum(s, r, tc, (double)w * (double)st->interval
			/ RB_NS_PER_S);
		Rb_AttrSetNum(s, r, vc, here && row[2] ? (double)row[3]
			/ (double)row[2] : 0);
		Rb_AttrSetNum(s, r, rc, here ? (double)row[1] : 0);
		Rb_AttrSetNum(s, r, oc, here ? (double)row[2] : 0);
		Rb_AttrSetNum(s, r, hc, here ? (double)row[3] : 0);
	    }
	}
	Rb_AnalyzerSet(a, s);
    }
    return TCL_OK;
}

static void
OneHitFree(Rb_Analyzer *a)
{
    OneHitState *st = a->state;

    Rb_KeyTableFree(&st->all);
    Rb_KeyTableFree(&st->window);
    free(st->rows);
}

const Rb_AnalyzerClass Rb_OneHitWonderAnalyzerClass = {
    .name = "OneHitWonderAnalyzer",
    .help = "share of the objects requested exactly once, overall and per "
	    "window",
    .stateSize = sizeof(OneHitState),
    .options = oneHitOptions,
    .attrs = oneHitAttrs,
    .init = OneHitInit,
    .start = OneHitStart,
    .batch = OneHitBatch,
    .end = OneHitEnd,
    .freeState = OneHitFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
