/*
 * reuseTimeAnalyzer.c --
 *
 *	ReuseTimeAnalyzer: the time between consecutive requests to the
 *	same object (the values of a key field, objectId by default), in
 *	trace time and in requests ("real" and "virtual" reuse time in
 *	libCacheSim's traceAnalyzer): percentiles and a power-of-two
 *	histogram.  Exact per object: the first and last request of each
 *	distinct key, at most -limit keys, which is also what a split run
 *	needs to join the reuses that cross a shard boundary.  Totals are
 *	exact integers, so that a split run's figures are one process's.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct Reuse {
    int64_t firstTime, firstReq;	/* Of this key's first request */
    int64_t lastTime, lastReq;		/* and its last (request numbers
					 * from 1 in the run or shard). */
} Reuse;

typedef struct ReuseTimeState {
    char *key;			/* -key */
    int64_t resolution;		/* -resolution, ns */
    int64_t limit;		/* -limit */
    int keyIndex;
    int failed;
    int64_t requests;		/* Counted so far. */
    Rb_KeyTable keys;		/* key -> Reuse */
    uint64_t timeBins[RB_POW2_BINS];	/* Reuse times in -resolution
					 * units. */
    uint64_t reqBins[RB_POW2_BINS];	/* Reuse distances in requests. */
    Rb_LogHist seconds;		/* Reuse times, s. */
    Rb_LogHist reqs;		/* Reuse times, requests. */
    Sum128 totalNs;		/* Of the reuse times, exact (so that a
				 * split run's mean is one process's). */
} ReuseTimeState;

static const Rb_Option reuseTimeOptions[] = {
    {"-key", RB_OPT_FIELD, offsetof(ReuseTimeState, key), "objectId",
	"field whose values are the objects"},
    {"-resolution", RB_OPT_TIME, offsetof(ReuseTimeState, resolution),
	"0.000001", "unit of ReuseTimeHistogram's bins"},
    {"-limit", RB_OPT_INT, offsetof(ReuseTimeState, limit), "10000000",
	"most distinct objects held (the run stops beyond)"},
    {NULL}
};

static const char *const reuseTimeAttrs[] = {
    "ReuseTime", "ReuseTimeHistogram", "ReuseRequests",
    "ReuseRequestsHistogram", "MeanReuseTime", "Reuses", "FirstRequests",
    NULL
};

static int
ReuseTimeInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    ReuseTimeState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    if (st->resolution <= 0) {
	return RbKitOptionError(a, interp, "-resolution must be positive");
    }
    return TCL_OK;
}

/*
 * ReuseTimeStart --
 *	Resolves -key (an integer or text field) and empties the state.
 */
static int
ReuseTimeStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReuseTimeState *st = a->state;
    int k;

    if (ReuseTimeInit(a, NULL) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->key, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->keys.valSize == 0) {
	Rb_KeyTableInit(&st->keys, sizeof(Reuse));
    }
    Rb_KeyTableClear(&st->keys);
    for (k = 0; k < RB_POW2_BINS; k++) {
	st->timeBins[k] = st->reqBins[k] = 0;
    }
    Rb_LogHistReset(&st->seconds);
    Rb_LogHistReset(&st->reqs);
    st->requests = 0;
    st->totalNs = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * AddReuse --
 *	Counts one reuse: dt ns after the object's previous request, dr
 *	requests after it.  A request earlier than the previous one (a
 *	trace out of time order) counts as a reuse time of 0.
 */
static void
AddReuse(ReuseTimeState *st, int64_t dt, int64_t dr)
{
    if (dt < 0) {
	dt = 0;
    }
    st->timeBins[RbPow2Bin(dt / st->resolution)]++;
    st->reqBins[RbPow2Bin(dr)]++;
    st->totalNs += dt;
    Rb_LogHistAdd(&st->seconds, (double)dt / RB_NS_PER_S);
    Rb_LogHistAdd(&st->reqs, (double)dr);
}

/*
 * ReuseTimeBatch --
 *	For each selected record with a key and a time: counts the reuse
 *	since its key's previous request, if any, and makes it the last.
 */
static void
ReuseTimeBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ReuseTimeState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex], *times = b->col[RB_IO_TIME];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int i = (int)sel[j];
	Reuse *r;
	int seen;

	if (keys[i] == RB_ABSENT || times[i] == RB_ABSENT) {
	    continue;
	}
	st->requests++;
	seen = (r = Rb_KeyTableFind(&st->keys, keys[i], 0)) != NULL;
	if (!seen && (r = Rb_KeyTableFindLimited(&st->keys, keys[i],
		st->limit)) == NULL) {
	    st->failed = 1;
	    RbKitKeyLimit(a, st->limit, st->key,
		    b->firstRecord + (uint64_t)i, 55);
	    break;
	}
	if (seen) {
	    AddReuse(st, times[i] - r->lastTime, st->requests - r->lastReq);
	} else {
	    r->firstTime = times[i];
	    r->firstReq = st->requests;
	}
	r->lastTime = times[i];
	r->lastReq = st->requests;
    }
}

/*
 * ReuseTimeEnd --
 *	Sets the percentiles, histograms and counts.
 */
static int
ReuseTimeEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReuseTimeState *st = a->state;

    Rb_AnalyzerSet(a, Rb_LogHistAttr(&st->seconds, "ReuseTime", "s", 1,
	    "time from an object's previous request to this one"));
    Rb_AnalyzerSet(a, RbPow2HistAttr("ReuseTimeHistogram", st->timeBins,
	    "s", (double)st->resolution / RB_NS_PER_S, "reuses by reuse "
	    "time in power-of-two multiples of -resolution"));
    Rb_AnalyzerSet(a, Rb_LogHistAttr(&st->reqs, "ReuseRequests", "", 1,
	    "requests from an object's previous request to this one"));
    Rb_AnalyzerSet(a, RbPow2HistAttr("ReuseRequestsHistogram", st->reqBins,
	    "", 1, "reuses by requests since the object's previous one"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanReuseTime",
	    st->seconds.moments.n ? (double)st->totalNs / RB_NS_PER_S
	    / (double)st->seconds.moments.n : 0, "s",
	    "mean time between consecutive requests to an object"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Reuses",
	    (double)st->seconds.moments.n, "", "requests to an object "
	    "requested before"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("FirstRequests",
	    (double)st->keys.count, "", "first requests of objects "
	    "(distinct objects)"));
    return TCL_OK;
}

/*
 * ReuseTimeSerialize, ReuseTimeDeserialize --
 *	serialize and deserialize hooks: the request count, the bins, both
 *	percentile histograms and every key's first and last request (a
 *	text key as its string).
 */
static int
ReuseTimeSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ReuseTimeState *st = a->state;

    Rb_BufPutInt(b, st->requests);
    RbKitPut128(b, st->totalNs);
    RbKitPutCounters(b, st->timeBins, RB_POW2_BINS);
    RbKitPutCounters(b, st->reqBins, RB_POW2_BINS);
    Rb_LogHistPut(b, &st->seconds);
    Rb_LogHistPut(b, &st->reqs);
    Rb_KeyTablePut(b, &st->keys, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

static int
ReuseTimeDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ReuseTimeState *st = a->state;

    st->requests = Rb_BufGetInt(b);
    st->totalNs = RbKitGet128(b);
    RbKitGetCounters(b, st->timeBins, RB_POW2_BINS);
    RbKitGetCounters(b, st->reqBins, RB_POW2_BINS);
    Rb_LogHistGet(b, &st->seconds);
    Rb_LogHistGet(b, &st->reqs);
    Rb_KeyTableGet(b, &st->keys, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

/*
 * ReuseTimeMerge --
 *	merge hook: other's records follow a's.  A key of both gets the
 *	reuse from its last request in a to its first in other; other's
 *	request numbers move on by a's request count.
 * Results: TCL_OK, or TCL_ERROR with RUBICON LIMIT KEYS when the union
 *	holds more than -limit keys (one process would have stopped too).
 */
static int
ReuseTimeMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ReuseTimeState *st = a->state;
    const ReuseTimeState *ost = other->state;
    int64_t shift = st->requests;
    uint64_t slot;
    int k;

    if (Rb_LogHistMerge(a, &st->seconds, &ost->seconds) != TCL_OK
	    || Rb_LogHistMerge(a, &st->reqs, &ost->reqs) != TCL_OK) {
	return TCL_ERROR;
    }
    for (k = 0; k < RB_POW2_BINS; k++) {
	st->timeBins[k] += ost->timeBins[k];
	st->reqBins[k] += ost->reqBins[k];
    }
    st->requests += ost->requests;
    st->totalNs += ost->totalNs;
    for (slot = 0; slot < ost->keys.cap; slot++) {
	const Reuse *o;
	Reuse *r;

	if (!ost->keys.used[slot]) {
	    continue;
	}
	o = Rb_KeyTableValue(&ost->keys, slot);
	if ((r = Rb_KeyTableFind(&st->keys, ost->keys.keys[slot], 0))
		!= NULL) {
	    AddReuse(st, o->firstTime - r->lastTime,
		    o->firstReq + shift - r->lastReq);
	} else if ((r = Rb_KeyTableFindLimited(&st->keys,
		ost->keys.keys[slot], st->limit)) == NULL) {
	    RbKitKeyLimit(a, st->limit, st->key, 0, 55);
	    return TCL_ERROR;
	} else {
	    r->firstTime = o->firstTime;
	    r->firstReq = o->firstReq + shift;
	}
	r->lastTime = o->lastTime;
	r->lastReq = o->lastReq + shift;
    }
    return TCL_OK;
}

static void
ReuseTimeFree(Rb_Analyzer *a)
{
    ReuseTimeState *st = a->state;

    Rb_KeyTableFree(&st->keys);
    Rb_LogHistFree(&st->seconds);
    Rb_LogHistFree(&st->reqs);
}

/*
 * Mergeable: each key's first and last request join the reuses across a
 * shard boundary (ReuseTimeMerge); bins and histograms add.
 */
const Rb_AnalyzerClass Rb_ReuseTimeAnalyzerClass = {
    .name = "ReuseTimeAnalyzer",
    .help = "time and requests between consecutive requests to the same "
	    "object: percentiles and histograms",
    .stateSize = sizeof(ReuseTimeState),
    .options = reuseTimeOptions,
    .attrs = reuseTimeAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = ReuseTimeInit,
    .start = ReuseTimeStart,
    .batch = ReuseTimeBatch,
    .end = ReuseTimeEnd,
    .merge = ReuseTimeMerge,
    .serialize = ReuseTimeSerialize,
    .deserialize = ReuseTimeDeserialize,
    .freeState = ReuseTimeFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
