/*
 * popularityDecayAnalyzer.c --
 *
 *	PopularityDecayAnalyzer: how the popularity of new objects fades,
 *	as libCacheSim's traceAnalyzer computes it (popularityDecay): the
 *	objects first requested in a window of -interval are that window's
 *	new objects; for each later window, the requests made to them and
 *	how many of them are requested, by age (windows since the window
 *	they were new in).  Objects first requested during -warmup are
 *	left out.  Exact: each distinct object's window of creation, at
 *	most -limit objects; a row of -maxAge + 1 cells per window.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

typedef struct Created {
    int64_t window;		/* Window the object was new in; -1: new
				 * during the warm-up. */
    int64_t lastWindow;		/* Window of its last request. */
} Created;

typedef struct Cell {
    uint64_t requests, objects;
} Cell;

typedef struct DecayState {
    char *key;			/* -key */
    int64_t interval;		/* -interval, ns */
    int64_t warmup;		/* -warmup, ns */
    int64_t maxAge;		/* -maxAge, windows */
    int64_t limit;		/* -limit */
    int keyIndex;
    int failed;
    const Rb_RunInfo *run;	/* Windows count from its firstTime. */
    Rb_KeyTable objects;	/* key -> Created */
    Cell *cells;		/* Row w (creation window), column age:
				 * cells[w * (maxAge + 1) + age]. */
    int64_t nwindows;		/* Rows held (0 .. last window seen). */
    int64_t rowCap;
} DecayState;

static const Rb_Option decayOptions[] = {
    {"-key", RB_OPT_FIELD, offsetof(DecayState, key), "objectId",
	"field whose values are the objects"},
    {"-interval", RB_OPT_TIME, offsetof(DecayState, interval), "300",
	"window length"},
    {"-warmup", RB_OPT_TIME, offsetof(DecayState, warmup), "0",
	"trace time whose objects are not new"},
    {"-maxAge", RB_OPT_INT, offsetof(DecayState, maxAge), "100",
	"ages counted apart (older requests count at -maxAge)"},
    {"-limit", RB_OPT_INT, offsetof(DecayState, limit), "10000000",
	"most distinct objects held (the run stops beyond)"},
    {NULL}
};

static const char *const decayAttrs[] = {
    "PopularityDecay", "DecayByAge", NULL
};

static int
DecayInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    DecayState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    if (st->interval <= 0) {
	return RbKitOptionError(a, interp, "-interval must be positive");
    }
    if (st->warmup < 0) {
	return RbKitOptionError(a, interp, "-warmup must not be negative");
    }
    if (st->maxAge < 0 || st->maxAge > 100000) {
	return RbKitOptionError(a, interp,
		"-maxAge must be between 0 and 100000");
    }
    return TCL_OK;
}

/*
 * DecayStart --
 *	Resolves -key (an integer or text field) and empties the state.
 */
static int
DecayStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    DecayState *st = a->state;

    if (DecayInit(a, NULL) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->key, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->objects.valSize == 0) {
	Rb_KeyTableInit(&st->objects, sizeof(Created));
    }
    Rb_KeyTableClear(&st->objects);
    st->nwindows = 0;
    st->failed = 0;
    st->run = run;
    return TCL_OK;
}

/*
 * Cover --
 *	Makes rows 0 .. w exist (zeroed).
 * Results: 1, or 0 when w is past RB_MAX_TIME_BINS windows.
 */
static int
Cover(DecayState *st, int64_t w)
{
    size_t width = (size_t)st->maxAge + 1;

    if (w >= RB_MAX_TIME_BINS) {
	return 0;
    }
    if (w >= st->rowCap) {
	int64_t cap = st->rowCap ? st->rowCap : 64;

	while (cap <= w) {
	    cap *= 2;
	}
	st->cells = Rb_ReallocArray(st->cells, (size_t)cap * width,
		sizeof(Cell));
	st->rowCap = cap;
    }
    if (w >= st->nwindows) {
	memset(st->cells + (size_t)st->nwindows * width, 0,
		(size_t)(w + 1 - st->nwindows) * width * sizeof(Cell));
	st->nwindows = w + 1;
    }
    return 1;
}

/*
 * DecayBatch --
 *	For each selected record with a key and a time: notes its object's
 *	window of creation when new, and counts the request (and the object,
 *	on its first request in the window) in the cell of that window and
 *	the request's age.
 */
static void
DecayBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    DecayState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex], *times = b->col[RB_IO_TIME];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int i = (int)sel[j];
	int64_t since, w, age;
	Created *c;
	Cell *cell;
	int isNew;

	if (keys[i] == RB_ABSENT || times[i] == RB_ABSENT) {
	    continue;
	}
	since = times[i] > st->run->firstTime
		? times[i] - st->run->firstTime : 0;
	w = since / st->interval;
	isNew = (c = Rb_KeyTableFind(&st->objects, keys[i], 0)) == NULL;
	if (isNew && (c = Rb_KeyTableFindLimited(&st->objects, keys[i],
		st->limit)) == NULL) {
	    st->failed = 1;
	    RbKitKeyLimit(a, st->limit, st->key,
		    b->firstRecord + (uint64_t)i, 44);
	    break;
	}
	if (isNew) {
	    c->window = since < st->warmup ? -1 : w;
	    c->lastWindow = -1;
	}
	if (!Cover(st, w) || c->window < 0) {
	    continue;
	}
	/* A time out of order counts in the window of creation. */
	age = w > c->window ? w - c->window : 0;
	if (age > st->maxAge) {
	    age = st->maxAge;
	}
	cell = st->cells + (size_t)c->window * ((size_t)st->maxAge + 1)
		+ (size_t)age;
	cell->requests++;
	if (w > c->lastWindow) {
	    cell->objects++;
	    c->lastWindow = w;
	}
    }
}

/*
 * DecayEnd --
 *	Sets PopularityDecay, a row per creation window that has new
 *	objects and age up to the last window, and DecayByAge, each age's
 *	requests over the age-0 requests of the windows old enough to have
 *	it.
 */
static int
DecayEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    DecayState *st = a->state;
    size_t width = (size_t)st->maxAge + 1;
    double seconds = (double)st->interval / RB_NS_PER_S;
    Rb_Attribute *t = Rb_AttrCreate("PopularityDecay", RB_ATTR_TABLE, "",
	    "requests in each window to the objects new in an earlier one, by "
	    "age");
    int cc = Rb_AttrAddColumn(t, "created", "s", 0);
    int ac = Rb_AttrAddColumn(t, "age", "", 0);
    int rc = Rb_AttrAddColumn(t, "requests", "", 0);
    int oc = Rb_AttrAddColumn(t, "objects", "", 0);
    int vc = Rb_AttrAddColumn(t, "relative", "", 0);
    Rb_Attribute *d = Rb_AttrCreate("DecayByAge", RB_ATTR_TABLE, "",
	    "requests at each age over those at age 0, over the windows "
	    "that reach the age");
    int dac = Rb_AttrAddColumn(d, "age", "", 0);
    int dvc = Rb_AttrAddColumn(d, "relative", "", 0);
    int dnc = Rb_AttrAddColumn(d, "windows", "", 0);
    int64_t w, age;

    for (w = 0; w < st->nwindows; w++) {
	const Cell *row = st->cells + (size_t)w * width;

	if (row[0].requests == 0) {
	    continue;		/* No object was new in window w. */
	}
	for (age = 0; age <= st->maxAge && w + age < st->nwindows; age++) {
	    int r = Rb_AttrAddRow(t);

	    Rb_AttrSetNum(t, r, cc, (double)w * seconds);
	    Rb_AttrSetNum(t, r, ac, (double)age);
	    Rb_AttrSetNum(t, r, rc, (double)row[age].requests);
	    Rb_AttrSetNum(t, r, oc, (double)row[age].objects);
	    Rb_AttrSetNum(t, r, vc, (double)row[age].requests
		    / (double)row[0].requests);
	}
    }
    for (age = 0; age <= st->maxAge && age < st->nwindows; age++) {
	uint64_t base = 0, at = 0, windows = 0;
	int r;

	for (w = 0; w + age < st->nwindows; w++) {
	    const Cell *row = st->cells + (size_t)w * width;

	    if (row[0].requests > 0) {
		base += row[0].requests;
		at += row[age].requests;
		windows++;
	    }
	}
	if (windows == 0) {
	    break;
	}
	r = Rb_AttrAddRow(d);
	Rb_AttrSetNum(d, r, dac, (double)age);
	Rb_AttrSetNum(d, r, dvc, (double)at / (double)base);
	Rb_AttrSetNum(d, r, dnc, (double)windows);
    }
    Rb_AnalyzerSet(a, t);
    Rb_AnalyzerSet(a, d);
    return TCL_OK;
}

static void
DecayFree(Rb_Analyzer *a)
{
    DecayState *st = a->state;

    Rb_KeyTableFree(&st->objects);
    free(st->cells);
    st->cells = NULL;
    st->rowCap = st->nwindows = 0;
}

/*
 * Not mergeable: a shard cannot tell which of its objects are new (an
 * earlier shard may have requested them), and keeping every object's
 * requests per window to settle it later would grow with the trace.
 */
const Rb_AnalyzerClass Rb_PopularityDecayAnalyzerClass = {
    .name = "PopularityDecayAnalyzer",
    .help = "how the popularity of new objects fades with their age, per "
	    "window of creation",
    .stateSize = sizeof(DecayState),
    .options = decayOptions,
    .attrs = decayAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .init = DecayInit,
    .start = DecayStart,
    .batch = DecayBatch,
    .end = DecayEnd,
    .freeState = DecayFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
