/*
 * peakRateAnalyzer.c --
 *
 *	PeakRateAnalyzer: the peak I/O rate and bandwidth at several time
 *	scales.  For each window length of -windows, the trace time is cut
 *	into windows of that length aligned to the run's time origin (its
 *	first record time, as the time bins of RateAnalyzer); the window
 *	with the most I/Os and the one with the most bytes give the peaks,
 *	as rates and as ratios to the mean window.
 *
 *	Records come in time order, so only the window being filled is held
 *	per length, with the first window apart (a split run's boundary:
 *	the last window of one shard and the first of the next may be one)
 *	and the largest closed ones: memory does not grow with the run.
 */

#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct Window {
    int64_t k;			/* Window number from the origin. */
    uint64_t count, bytes;
    int used;
} Window;

typedef struct PeakScale {
    Rb_TimeBins grid;		/* Interval and origin only (no sums). */
    Window first;		/* The first window. */
    Window cur;			/* The window being filled, when another
				 * than the first. */
    uint64_t maxCount, maxBytes;/* Over the other, closed windows. */
    int64_t lo, hi, k;		/* The window [lo, hi) a time fell in
				 * last, number k, when known: a time in it
				 * needs no division. */
    int known;
} PeakScale;

typedef struct PeakRateState {
    Tcl_Obj *windowsObj;	/* -windows, s */
    int nscales;
    PeakScale *scales;
    int64_t firstTime, lastTime;/* First and last record times, or
				 * RB_ABSENT (for a split run). */
    uint64_t outOfOrder;	/* Records earlier than the one before. */
    uint64_t total, totalBytes;
} PeakRateState;

static const Rb_Option peakRateOptions[] = {
    {"-windows", RB_OPT_OBJ, offsetof(PeakRateState, windowsObj),
	"0.001 0.01 0.1 1 10", "window lengths in seconds"},
    {NULL}
};

static const char *const peakRateAttrs[] = {
    "PeakRate", "PeakRateOutOfOrder", NULL
};

/*
 * PeakRateInit --
 *	Checks -windows.
 */
static int
PeakRateInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    PeakRateState *st = a->state;

    if (RbKitParseSeconds(st->windowsObj, NULL) < 0) {
	return RbKitOptionError(a, interp, "-windows must be a non-empty "
		"list of positive numbers of seconds");
    }
    return TCL_OK;
}

/*
 * PeakRateStart --
 *	Checks -windows and makes an empty scale per window length.
 */
static int
PeakRateStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    PeakRateState *st = a->state;
    int64_t *ns;
    int i;

    if (PeakRateInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    free(st->scales);
    st->nscales = RbKitParseSeconds(st->windowsObj, &ns);
    st->scales = Rb_AllocArray((size_t)st->nscales, sizeof(PeakScale));
    for (i = 0; i < st->nscales; i++) {
	Rb_TimeBinsStart(&st->scales[i].grid, ns[i], run);
	st->scales[i].grid.hasOrigin = 0;
    }
    free(ns);
    st->firstTime = st->lastTime = RB_ABSENT;
    st->outOfOrder = st->total = st->totalBytes = 0;
    return TCL_OK;
}

/*
 * AddToWindow --
 *	Adds count I/Os of bytes to window k of s: to the window being
 *	filled when it is k, else to a new one (the one filled before is
 *	closed).  In time order each window is filled once; a trace that
 *	goes back in time fills a window again as a new one.
 */
static void
AddToWindow(PeakScale *s, int64_t k, uint64_t count, uint64_t bytes)
{
    Window *w = s->cur.used ? &s->cur : &s->first;

    if (!w->used) {
	w->k = k;
	w->used = 1;
    } else if (w->k != k) {
	if (s->cur.used) {
	    if (s->cur.count > s->maxCount) {
		s->maxCount = s->cur.count;
	    }
	    if (s->cur.bytes > s->maxBytes) {
		s->maxBytes = s->cur.bytes;
	    }
	}
	w = &s->cur;
	w->k = k;
	w->count = w->bytes = 0;
	w->used = 1;
    }
    w->count += count;
    w->bytes += bytes;
}

/*
 * PeakRateBatch --
 *	Counts each selected record with a time in its window of every
 *	length; its bytes when it has a non-negative size.  A record earlier
 *	than the one before it is counted as out of order.
 */
static void
PeakRateBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    PeakRateState *st = a->state;
    const int64_t *times = b->col[RB_IO_TIME], *sizes = b->col[RB_IO_SIZE];
    int j, i;

    for (j = 0; j < nsel; j++) {
	int64_t t = times[sel[j]], reqSize = sizes[sel[j]];

	if (t == RB_ABSENT) {
	    continue;
	}
	if (st->firstTime == RB_ABSENT) {
	    st->firstTime = t;
	} else if (t < st->lastTime) {
	    st->outOfOrder++;
	}
	st->lastTime = t;
	st->total++;
	st->totalBytes += reqSize >= 0 ? (uint64_t)reqSize : 0;
    }
    /* A scale at a time: the records in the window of the one before are
     * summed and added to it at once (AddToWindow of each in turn would
     * add the same), so that a window holding most of the batch costs a
     * comparison a record. */
    for (i = 0; i < st->nscales; i++) {
	PeakScale *s = &st->scales[i];
	uint64_t count = 0, bytes = 0;

	for (j = 0; j < nsel; j++) {
	    int64_t t = times[sel[j]], reqSize = sizes[sel[j]], k;
	    uint64_t nb = reqSize >= 0 ? (uint64_t)reqSize : 0;

	    if (t == RB_ABSENT) {
		continue;
	    }
	    if (s->known && t >= s->lo && t < s->hi) {
		count++;
		bytes += nb;
		continue;
	    }
	    if (count > 0) {
		AddToWindow(s, s->k, count, bytes);
		count = bytes = 0;
	    }
	    if (!s->grid.hasOrigin) {
		Rb_TimeBinsSetOrigin(&s->grid, t);
	    }
	    if (Rb_TimeBinOf(&s->grid, t, &k)) {
		int64_t lo;

		s->known = !__builtin_mul_overflow(k, s->grid.interval, &lo)
			&& !__builtin_add_overflow(lo, s->grid.origin, &s->lo)
			&& !__builtin_add_overflow(s->lo, s->grid.interval,
			&s->hi);
		s->k = k;
		if (s->known) {
		    count = 1;
		    bytes = nb;
		} else {
		    AddToWindow(s, k, 1, nb);
		}
	    }
	}
	if (count > 0) {
	    AddToWindow(s, s->k, count, bytes);
	}
    }
}

/*
 * WindowsInRun --
 *	The number of windows of s from the one holding the run's first
 *	record time to the one holding its last (at least 1).
 */
static double
WindowsInRun(const PeakScale *s, const Rb_RunInfo *run)
{
    int64_t k0, k1;

    if (!s->grid.hasOrigin || !RbRunTimesKnown(run)
	    || !Rb_TimeBinOf(&s->grid, run->firstTime, &k0)
	    || !Rb_TimeBinOf(&s->grid, run->lastTime, &k1) || k1 < k0) {
	return 1.0;
    }
    return (double)(k1 - k0) + 1.0;
}

/*
 * PeakRateEnd --
 *	Sets the PeakRate table, a row per window length, and the count of
 *	records out of time order.
 */
static int
PeakRateEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    PeakRateState *st = a->state;
    Rb_Attribute *t = Rb_AttrCreate("PeakRate", RB_ATTR_TABLE, "IO/s",
	    "largest I/O count and bytes in a window, per window length");
    int i, c;

    Rb_AttrAddColumn(t, "window", "s", 0);
    Rb_AttrAddColumn(t, "peakCount", "", 0);
    Rb_AttrAddColumn(t, "peakRate", "IO/s", 0);
    Rb_AttrAddColumn(t, "rateToMean", "", 0);
    Rb_AttrAddColumn(t, "peakBytes", "bytes", 0);
    Rb_AttrAddColumn(t, "peakBandwidth", "bytes/s", 0);
    Rb_AttrAddColumn(t, "bandwidthToMean", "", 0);
    for (i = 0; i < st->nscales; i++) {
	const PeakScale *s = &st->scales[i];
	double seconds = (double)s->grid.interval / RB_NS_PER_S;
	double windows = WindowsInRun(s, run);
	uint64_t count = s->maxCount, bytes = s->maxBytes;
	double v[7];
	int row = Rb_AttrAddRow(t);

	for (c = 0; c < 2; c++) {
	    const Window *w = c ? &s->cur : &s->first;

	    if (w->used && w->count > count) {
		count = w->count;
	    }
	    if (w->used && w->bytes > bytes) {
		bytes = w->bytes;
	    }
	}
	v[0] = seconds;
	v[1] = (double)count;
	v[2] = (double)count / seconds;
	v[3] = st->total ? (double)count / ((double)st->total / windows) : 0;
	v[4] = (double)bytes;
	v[5] = (double)bytes / seconds;
	v[6] = st->totalBytes
		? (double)bytes / ((double)st->totalBytes / windows) : 0;
	for (c = 0; c < 7; c++) {
	    Rb_AttrSetNum(t, row, c, v[c]);
	}
    }
    Rb_AnalyzerSet(a, t);
    Rb_AnalyzerSet(a, Rb_AttrScalar("PeakRateOutOfOrder",
	    (double)st->outOfOrder, "", "records earlier than the one "
	    "before them"));
    return TCL_OK;
}

/*
 * PeakRateMerge --
 *	merge hook: other's records follow a's.  Per length, other's first
 *	window joins a's last one when they are the same window (the
 *	boundary cut it in two), its closed windows join a's, and its window
 *	being filled becomes a's: as one pass would fill them.
 * Results: TCL_OK, or TCL_ERROR when the windows of the two do not line
 *	up (origins not a whole number of windows apart).
 */
static int
PeakRateMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    PeakRateState *st = a->state;
    const PeakRateState *ost = other->state;
    int i;

    for (i = 0; i < st->nscales && i < ost->nscales; i++) {
	PeakScale *s = &st->scales[i];
	const PeakScale *o = &ost->scales[i];
	int64_t shift;

	if (!o->first.used) {
	    continue;
	}
	if (!s->grid.hasOrigin) {
	    s->grid.origin = o->grid.origin;
	    s->grid.hasOrigin = 1;
	}
	if (!Rb_TimeBinOf(&s->grid, o->grid.origin, &shift)
		|| (o->grid.origin - s->grid.origin) % s->grid.interval != 0) {
	    Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: windows of "
		    "the shards do not line up", a->cls->name);
	    return TCL_ERROR;
	}
	AddToWindow(s, o->first.k + shift, o->first.count, o->first.bytes);
	if (o->maxCount > s->maxCount) {
	    s->maxCount = o->maxCount;
	}
	if (o->maxBytes > s->maxBytes) {
	    s->maxBytes = o->maxBytes;
	}
	if (o->cur.used) {
	    AddToWindow(s, o->cur.k + shift, o->cur.count, o->cur.bytes);
	}
    }
    if (ost->firstTime != RB_ABSENT) {
	if (st->firstTime == RB_ABSENT) {
	    st->firstTime = ost->firstTime;
	} else if (ost->firstTime < st->lastTime) {
	    st->outOfOrder++;
	}
	st->lastTime = ost->lastTime;
    }
    st->outOfOrder += ost->outOfOrder;
    st->total += ost->total;
    st->totalBytes += ost->totalBytes;
    return TCL_OK;
}

/*
 * PutWindow, GetWindow --
 *	One window: number, count, bytes, whether used.
 */
static void
PutWindow(Rb_Buf *b, const Window *w)
{
    Rb_BufPutInt(b, w->k);
    Rb_BufPutInt(b, (int64_t)w->count);
    Rb_BufPutInt(b, (int64_t)w->bytes);
    Rb_BufPutInt(b, w->used);
}

static void
GetWindow(Rb_Buf *b, Window *w)
{
    w->k = Rb_BufGetInt(b);
    w->count = (uint64_t)Rb_BufGetInt(b);
    w->bytes = (uint64_t)Rb_BufGetInt(b);
    w->used = Rb_BufGetInt(b) != 0;
}

/*
 * PeakRateSerialize, PeakRateDeserialize --
 *	serialize and deserialize hooks: the totals, then per length the
 *	origin, the first and current windows and the closed maxima.
 */
static int
PeakRateSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    PeakRateState *st = a->state;
    int i;

    RbKitPutCounters(b, &st->firstTime, 5);
    for (i = 0; i < st->nscales; i++) {
	const PeakScale *s = &st->scales[i];

	Rb_BufPutInt(b, s->grid.hasOrigin);
	Rb_BufPutInt(b, s->grid.origin);
	PutWindow(b, &s->first);
	PutWindow(b, &s->cur);
	Rb_BufPutInt(b, (int64_t)s->maxCount);
	Rb_BufPutInt(b, (int64_t)s->maxBytes);
    }
    return TCL_OK;
}

static int
PeakRateDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    PeakRateState *st = a->state;
    int i;

    RbKitGetCounters(b, &st->firstTime, 5);
    for (i = 0; i < st->nscales; i++) {
	PeakScale *s = &st->scales[i];

	s->grid.hasOrigin = Rb_BufGetInt(b) != 0;
	s->grid.origin = Rb_BufGetInt(b);
	GetWindow(b, &s->first);
	GetWindow(b, &s->cur);
	s->maxCount = (uint64_t)Rb_BufGetInt(b);
	s->maxBytes = (uint64_t)Rb_BufGetInt(b);
    }
    return TCL_OK;
}

/*
 * PeakRateFree --
 *	Frees the scales.
 */
static void
PeakRateFree(Rb_Analyzer *a)
{
    PeakRateState *st = a->state;

    free(st->scales);
}

/*
 * Mergeable in time order: each shard keeps its first window per length
 * apart, and the merge joins it to the previous shard's last window when
 * the boundary cuts a window in two.
 */
const Rb_AnalyzerClass Rb_PeakRateAnalyzerClass = {
    .name = "PeakRateAnalyzer",
    .help = "peak I/O rate and bandwidth in windows of several lengths, "
	    "and their ratio to the mean",
    .stateSize = sizeof(PeakRateState),
    .options = peakRateOptions,
    .attrs = peakRateAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = PeakRateInit,
    .start = PeakRateStart,
    .batch = PeakRateBatch,
    .end = PeakRateEnd,
    .merge = PeakRateMerge,
    .serialize = PeakRateSerialize,
    .deserialize = PeakRateDeserialize,
    .freeState = PeakRateFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_SIZE),
};
