/*
 * oneHitWonderAnalyzer.c --
 *
 *	OneHitWonderAnalyzer: the share of the objects (the values of a key
 *	field, objectId by default) that are requested exactly once, over
 *	the whole run and in each window of -interval: the "one-hit
 *	wonders" of cache workload studies, which a cache admits for
 *	nothing.  Exact: one count per distinct key, at most -limit keys
 *	over the run and as many again in each open window (keyWindows.c).
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
    uint64_t requests;
    Rb_KeyTable all;		/* key -> uint64 requests, whole run */
    RbKeyWindows windows;	/* key -> uint64 requests per window;
				 * sums[0] requests. */
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
 * WindowRow --
 *	A window's figures: one-hit share, requests, objects, one-hit
 *	objects.
 */
static void
WindowRow(const RbKeyWindow *w, double *row)
{
    uint64_t once = OnceCount(&w->keys);

    row[0] = w->keys.count ? (double)once / (double)w->keys.count : 0;
    row[1] = w->sums[0];
    row[2] = (double)w->keys.count;
    row[3] = (double)once;
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
    }
    Rb_KeyTableClear(&st->all);
    RbKeyWindowsStart(&st->windows, st->interval, run, sizeof(uint64_t),
	    1, 4, WindowRow);
    st->requests = 0;
    st->failed = 0;
    return TCL_OK;
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
 *	out), overall and in the window of its time.
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
	    RbKeyWindow *w = RbKeyWindowsAt(&st->windows, times[i]);

	    if (!Count(a, &w->keys, keys[i], record)) {
		break;
	    }
	    w->sums[0]++;
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
    static const char *const cols[] = {
	"value", "requests", "objects", "oneHit"
    };
    static const char *const units[] = {"", "", "", ""};
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
	Rb_AnalyzerSet(a, RbKeyWindowsSeries(&st->windows,
		"OneHitWonderSeries", "", "share of each window's objects "
		"requested exactly once in it", cols, units));
    }
    return TCL_OK;
}

/*
 * OneHitSerialize, OneHitDeserialize --
 *	serialize and deserialize hooks: the request count, every key's
 *	count (a text key as its string) and the windows.
 */
static int
OneHitSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    OneHitState *st = a->state;
    const Rb_Schema *text = RbKitTextSchema(run, st->keyIndex);

    Rb_BufPutInt(b, (int64_t)st->requests);
    Rb_KeyTablePut(b, &st->all, text);
    RbKeyWindowsPut(b, &st->windows, text);
    return TCL_OK;
}

static int
OneHitDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    OneHitState *st = a->state;
    Rb_Schema *text = RbKitTextSchema(run, st->keyIndex);

    st->requests = (uint64_t)Rb_BufGetInt(b);
    Rb_KeyTableGet(b, &st->all, text);
    RbKeyWindowsGet(b, &st->windows, text);
    return TCL_OK;
}

/*
 * OneHitMerge --
 *	merge hook: counts add key by key, over the run and in the window
 *	two shards share.
 * Results: TCL_OK, or TCL_ERROR with RUBICON LIMIT KEYS past -limit
 *	objects (one process would have stopped too).
 */
static int
OneHitMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    OneHitState *st = a->state;
    const OneHitState *ost = other->state;

    if (!RbKeyTableJoin(&st->all, &ost->all, 1, st->limit)
	    || !RbKeyWindowsMerge(&st->windows, &ost->windows, st->limit)) {
	RbKitKeyLimit(a, st->limit, st->key, 0, 32);
	return TCL_ERROR;
    }
    st->requests += ost->requests;
    return TCL_OK;
}

static void
OneHitFree(Rb_Analyzer *a)
{
    OneHitState *st = a->state;

    Rb_KeyTableFree(&st->all);
    RbKeyWindowsFree(&st->windows);
}

/*
 * Mergeable: counts add key by key; a window two shards share is joined
 * before its figures are made (keyWindows.c).
 */
const Rb_AnalyzerClass Rb_OneHitWonderAnalyzerClass = {
    .name = "OneHitWonderAnalyzer",
    .help = "share of the objects requested exactly once, overall and per "
	    "window",
    .stateSize = sizeof(OneHitState),
    .options = oneHitOptions,
    .attrs = oneHitAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = OneHitInit,
    .start = OneHitStart,
    .batch = OneHitBatch,
    .end = OneHitEnd,
    .merge = OneHitMerge,
    .serialize = OneHitSerialize,
    .deserialize = OneHitDeserialize,
    .freeState = OneHitFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
