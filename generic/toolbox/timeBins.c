/*
 * timeBins.c --
 *
 *	Sums per interval of trace time, and the hooks that RateAnalyzer and
 *	BandwidthAnalyzer share around them.
 */

#include <string.h>
#include <stdlib.h>
#include "toolbox/toolbox.h"

/*
 * Rb_TimeBinsStart --
 *	Empties tb for a run with bins of interval ns, keeping any allocation
 *	for reuse.  Call it from the start hook; a zeroed struct needs it too.
 * Results: none.
 * Side effects: remembers run, whose first record time becomes the origin.
 */
void
Rb_TimeBinsStart(Rb_TimeBins *tb, int64_t interval, const Rb_RunInfo *run)
{
    tb->interval = interval;
    tb->run = run;
    tb->hasOrigin = RbRunTimesKnown(run);
    tb->origin = tb->hasOrigin ? run->firstTime : 0;
    tb->lo = 0;
    tb->n = 0;
    tb->curStart = tb->curEnd = 0;
}

/*
 * Rb_TimeBinsSetOrigin --
 *	Fixes the origin when the first value arrives at time t.  The engine
 *	starts analyzers before it reads, so the run's first time is not known
 *	at start; it is known by the first push, because the engine notes each
 *	batch's times in the run before pushing it.  Reading it here, from the
 *	run given to start, aligns a Flow that sees its first record late with
 *	every other Flow.  Without a usable run time, t itself is the origin.
 * Results: none.
 * Side effects: sets tb->origin and tb->hasOrigin, once.
 */
void
Rb_TimeBinsSetOrigin(Rb_TimeBins *tb, int64_t t)
{
    const Rb_RunInfo *run = tb->run;
    int64_t ahead;

    tb->origin = (run != NULL && RbRunTimesKnown(run)
	    && run->firstTime <= t) ? run->firstTime : t;
    if (run != NULL && RbRunTimesKnown(run) && run->firstTime > t
	    && tb->interval > 0
	    && !__builtin_sub_overflow(run->firstTime, t, &ahead)) {
	/* Only in a split run (the engine notes a batch's times before
	 * pushing it): a rank's record earlier than the run's first time
	 * keeps to the run's grid, so that the shards' bins line up. */
	tb->origin = run->firstTime
		- (ahead / tb->interval + (ahead % tb->interval != 0))
		* tb->interval;
    }
    tb->hasOrigin = 1;
    tb->curStart = tb->curEnd = 0;
}

/*
 * AddToNewBin --
 *	Adds v to the bin of time t, which lies outside the bin added to
 *	last: fixes the origin if this is the first time, and makes t's bin
 *	the one added to last (unless its bounds overflow int64, when every
 *	add keeps coming here).  A time so far from the others that its bin
 *	would exceed RB_MAX_TIME_BINS is left out.
 */
static void
AddToNewBin(Rb_TimeBins *tb, int64_t t, uint64_t v)
{
    int64_t k, start, end;
    uint64_t *slot;

    if (!tb->hasOrigin) {
	Rb_TimeBinsSetOrigin(tb, t);
    }
    if (!Rb_TimeBinOf(tb, t, &k) || (slot = Rb_TimeBinsSlot(tb, k)) == NULL) {
	return;
    }
    *slot += v;
    if (!__builtin_mul_overflow(k, tb->interval, &start)
	    && !__builtin_add_overflow(start, tb->origin, &start)
	    && !__builtin_add_overflow(start, tb->interval, &end)) {
	tb->curStart = start;
	tb->curEnd = end;
	tb->curK = k;
    }
}

/*
 * CurrentBin --
 *	The start and width of the bin added to last, as unsigned numbers
 *	for one compare; width 0 for none, and for a bin starting at
 *	INT64_MIN, which would hold RB_ABSENT.
 */
static inline void
CurrentBin(const Rb_TimeBins *tb, uint64_t *start, uint64_t *width)
{
    *start = (uint64_t)tb->curStart;
    *width = tb->curStart == RB_ABSENT ? 0
	    : (uint64_t)tb->curEnd - (uint64_t)tb->curStart;
}

/*
 * AddSelected --
 *	Rb_TimeBinsAddColumn, inlined twice so that the test of value is made
 *	once per call: a record in the bin added to last (an absent time,
 *	INT64_MIN, never is) costs one unsigned compare.
 */
static inline __attribute__((always_inline)) uint64_t
AddSelected(Rb_TimeBins *tb, const int64_t *time, const int64_t *value,
	const uint32_t *sel, int nsel)
{
    uint64_t start, width, inBin = 0, total = 0;
    int j;

    CurrentBin(tb, &start, &width);
    for (j = 0; j < nsel; j++) {
	int64_t t = time[sel[j]];
	int64_t v = value != NULL ? value[sel[j]] : 1;

	if ((uint64_t)t - start < width && v >= 0) {
	    inBin += (uint64_t)v;
	    continue;
	}
	if (v < 0 || t == RB_ABSENT) {	/* RB_ABSENT is negative too */
	    continue;
	}
	if (inBin > 0) {
	    tb->sums[tb->curK - tb->lo] += inBin;
	    total += inBin;
	    inBin = 0;
	}
	total += (uint64_t)v;
	AddToNewBin(tb, t, (uint64_t)v);
	CurrentBin(tb, &start, &width);
    }
    if (inBin > 0) {
	tb->sums[tb->curK - tb->lo] += inBin;
	total += inBin;
    }
    return total;
}

/*
 * Rb_TimeBinsAddColumn --
 *	Adds to the bins of their times, for the selected records that have
 *	a time, their value in column value, or 1 each when value is NULL
 *	(a record with an absent or negative value is skipped).  Records
 *	come in time order, so most land in the bin added to last: their
 *	sum is kept aside until a record leaves that bin, and only then is
 *	there a division.
 * Results: the sum of what was added, including any value whose time was
 *	too far out for the series (the analyzer's total).
 * Side effects: fixes the origin on the first time; may grow tb->sums.
 */
uint64_t
Rb_TimeBinsAddColumn(Rb_TimeBins *tb, const int64_t *time,
	const int64_t *value, const uint32_t *sel, int nsel)
{
    if (value == NULL) {
	return AddSelected(tb, time, NULL, sel, nsel);
    }
    return AddSelected(tb, time, value, sel, nsel);
}

/*
 * Rb_TimeBinsCover --
 *	Grows the held range of bins to include bin k; new bins are zero.
 * Results: 1, or 0 (nothing changed) when the range would exceed
 *	RB_MAX_TIME_BINS bins.
 * Side effects: may reallocate tb->sums.
 */
int
Rb_TimeBinsCover(Rb_TimeBins *tb, int64_t k)
{
    int64_t newLo, newHi, shift;
    uint64_t newN;

    if (tb->n == 0) {
	newLo = newHi = k;
    } else {
	newLo = k < tb->lo ? k : tb->lo;
	newHi = k > tb->lo + tb->n - 1 ? k : tb->lo + tb->n - 1;
    }
    newN = (uint64_t)newHi - (uint64_t)newLo + 1;
    if (newN > (uint64_t)RB_MAX_TIME_BINS) {
	return 0;
    }
    if ((int64_t)newN > tb->cap) {
	int64_t cap = tb->cap ? tb->cap : 64;

	while (cap < (int64_t)newN) {
	    cap *= 2;
	}
	tb->sums = Rb_ReallocArray(tb->sums, (size_t)cap, sizeof(uint64_t));
	tb->cap = cap;
    }
    shift = tb->lo - newLo;
    if (tb->n == 0) {
	memset(tb->sums, 0, (size_t)newN * sizeof(uint64_t));
    } else {
	memmove(tb->sums + shift, tb->sums, (size_t)tb->n * sizeof(uint64_t));
	memset(tb->sums, 0, (size_t)shift * sizeof(uint64_t));
	memset(tb->sums + shift + tb->n, 0,
		(size_t)((int64_t)newN - shift - tb->n) * sizeof(uint64_t));
    }
    tb->lo = newLo;
    tb->n = (int64_t)newN;
    return 1;
}

/*
 * Rb_TimeBinsMerge --
 *	Adds the bins of other into tb.  The two grids must line up: same
 *	interval, origins a whole number of intervals apart (always so when
 *	the shards were started with the run's first record time).
 * Results: TCL_OK, or TCL_ERROR with an analyzer error on a when the grids
 *	differ or the merged range is too long.
 * Side effects: may grow tb; takes other's origin when tb has none.
 */
int
Rb_TimeBinsMerge(Rb_Analyzer *a, Rb_TimeBins *tb, const Rb_TimeBins *other)
{
    int64_t shift, k0, j;

    if (other->n == 0) {
	return TCL_OK;
    }
    if (other->interval != tb->interval) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH",
		"cannot merge time series with different intervals");
	return TCL_ERROR;
    }
    if (!tb->hasOrigin) {
	tb->origin = other->origin;
	tb->hasOrigin = 1;
    }
    if (!Rb_TimeBinOf(tb, other->origin, &shift)
	    || (other->origin - tb->origin) % tb->interval != 0) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH",
		"cannot merge time series whose intervals do not line up "
		"(start every shard with the run's first record time)");
	return TCL_ERROR;
    }
    k0 = other->lo + shift;
    if (!Rb_TimeBinsCover(tb, k0) || !Rb_TimeBinsCover(tb, k0 + other->n - 1)) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH",
		"merged time series would exceed %lld intervals",
		(long long)RB_MAX_TIME_BINS);
	return TCL_ERROR;
    }
    for (j = 0; j < other->n; j++) {
	tb->sums[k0 + j - tb->lo] += other->sums[j];
    }
    return TCL_OK;
}

/*
 * Rb_TimeBinsAddBins --
 *	Adds the counters of other to those of tb with the same bin numbers
 *	(no time alignment: for bins that number buckets, not intervals).
 * Results: the sum of the counters that could not be held.
 * Side effects: may grow tb->sums.
 */
uint64_t
Rb_TimeBinsAddBins(Rb_TimeBins *tb, const Rb_TimeBins *other)
{
    uint64_t lost = 0, *slot;
    int64_t j;

    for (j = 0; j < other->n; j++) {
	if (other->sums[j] == 0) {
	    continue;
	}
	slot = Rb_TimeBinsSlot(tb, other->lo + j);
	if (slot == NULL) {
	    lost += other->sums[j];
	} else {
	    *slot += other->sums[j];
	}
    }
    return lost;
}

/*
 * SeriesRange --
 *	The bins a series shows: every interval from the run's first to its
 *	last record time, and any held bin outside that, so that series of
 *	different Flows have the same rows (at most RB_MAX_TIME_BINS).
 * Results: 0 when there is nothing to show; else 1 with *grid (tb with
 *	its origin fixed), *kFirst, *kLast and *ref (the time series times
 *	are measured from) set.
 */
static int
SeriesRange(const Rb_TimeBins *tb, const Rb_RunInfo *run, Rb_TimeBins *grid,
	int64_t *kFirst, int64_t *kLast, int64_t *ref)
{
    *grid = *tb;
    if (!grid->hasOrigin) {
	if (!RbRunTimesKnown(run)) {
	    return 0;
	}
	grid->origin = run->firstTime;
    }
    *ref = RbRunTimesKnown(run) ? run->firstTime : grid->origin;
    if (grid->n > 0) {
	*kFirst = grid->lo;
	*kLast = grid->lo + grid->n - 1;
    } else if (!Rb_TimeBinOf(grid, *ref, kFirst)) {
	return 0;
    } else {
	*kLast = *kFirst;
    }
    if (RbRunTimesKnown(run)) {
	int64_t kRunFirst, kRunLast;

	if (Rb_TimeBinOf(grid, run->firstTime, &kRunFirst)
		&& kRunFirst < *kFirst) {
	    *kFirst = kRunFirst;
	}
	if (Rb_TimeBinOf(grid, run->lastTime, &kRunLast)
		&& kRunLast > *kLast) {
	    *kLast = kRunLast;
	}
    }
    if ((uint64_t)*kLast - (uint64_t)*kFirst >= (uint64_t)RB_MAX_TIME_BINS) {
	*kLast = *kFirst + RB_MAX_TIME_BINS - 1;
    }
    return 1;
}

/*
 * Rb_TimeBinsValues --
 *	The sums of the bins a series shows (every interval from the run's
 *	first to its last record time, and any held bin outside that), in
 *	time order, empty bins included: the input of the burstiness
 *	analyzers.
 * Results: a malloc'd array of *n sums (free it), NULL with *n = 0 when
 *	there is none; *startSeconds (when not NULL) is the start of the
 *	first bin in s from the run's first record time.
 * Side effects: none.
 */
double *
Rb_TimeBinsValues(const Rb_TimeBins *tb, const Rb_RunInfo *run, int64_t *n,
	double *startSeconds)
{
    return Rb_TimeBinsValuesOn(tb, tb, run, n, startSeconds);
}

/*
 * Rb_TimeBinsValuesOn --
 *	Rb_TimeBinsValues of tb over the bins the series of grid shows, so
 *	that several sums kept on one grid (the same interval and origin)
 *	give rows that line up.
 * Results: as Rb_TimeBinsValues.
 * Side effects: none.
 */
double *
Rb_TimeBinsValuesOn(const Rb_TimeBins *tb, const Rb_TimeBins *grid,
	const Rb_RunInfo *run, int64_t *n, double *startSeconds)
{
    int64_t kFirst, k;
    double *values;

    if (!Rb_TimeBinsRange(grid, run, &kFirst, n, startSeconds)) {
	return NULL;
    }
    values = Rb_AllocArray((size_t)*n, sizeof(double));
    for (k = kFirst; k < kFirst + *n; k++) {
	values[k - kFirst] = (k >= tb->lo && k < tb->lo + tb->n)
		? (double)tb->sums[k - tb->lo] : 0.0;
    }
    return values;
}

/*
 * Rb_TimeBinsRange --
 *	The bins the series of grid shows (as Rb_TimeBinsValues), for a
 *	class that keeps something other than sums on that grid.
 * Results: 0 with *n = 0 when there is nothing to show; else 1 with
 *	*kFirst (the first bin's number), *n and, when not NULL,
 *	*startSeconds (as Rb_TimeBinsValues) set.
 * Side effects: none.
 */
int
Rb_TimeBinsRange(const Rb_TimeBins *grid, const Rb_RunInfo *run,
	int64_t *kFirst, int64_t *n, double *startSeconds)
{
    Rb_TimeBins g;
    int64_t kLast, ref;

    *n = 0;
    if (!SeriesRange(grid, run, &g, kFirst, &kLast, &ref)) {
	return 0;
    }
    *n = kLast - *kFirst + 1;
    if (startSeconds != NULL) {
	*startSeconds = RbSecondsBetween(ref, g.origin)
		+ (double)*kFirst * ((double)grid->interval / RB_NS_PER_S);
    }
    return 1;
}

/*
 * Rb_TimeBinsSeries --
 *	Builds a series Attribute with columns time (s from the run's first
 *	record time to the start of the interval) and value (the bin's sum
 *	per second), one row per bin of Rb_TimeBinsValues.
 * Results: a new Attribute (give it to Rb_AnalyzerSet).
 * Side effects: none.
 */
Rb_Attribute *
Rb_TimeBinsSeries(const Rb_TimeBins *tb, const Rb_RunInfo *run,
	const char *name, const char *unit, const char *help)
{
    Rb_Attribute *attr = Rb_AttrCreate(name, RB_ATTR_SERIES, unit, help);
    double seconds = (double)tb->interval / RB_NS_PER_S, startSeconds = 0;
    int64_t n, k;
    double *values = Rb_TimeBinsValues(tb, run, &n, &startSeconds);
    int timeCol, valueCol;

    timeCol = Rb_AttrAddColumn(attr, "time", "s", 0);
    valueCol = Rb_AttrAddColumn(attr, "value", unit, 0);
    for (k = 0; k < n; k++) {
	int row = Rb_AttrAddRow(attr);

	Rb_AttrSetNum(attr, row, timeCol, startSeconds + (double)k * seconds);
	Rb_AttrSetNum(attr, row, valueCol, values[k] / seconds);
    }
    free(values);
    return attr;
}

/*
 * Rb_TimeBinsPeakToMean --
 *	The largest bin of the series over the mean bin (every bin of
 *	Rb_TimeBinsValues, empty ones included): 1 for a perfectly steady
 *	load, the number of bins when all the load falls in one.
 * Results: the ratio, 0 when the series is empty or all zero.
 * Side effects: none.
 */
double
Rb_TimeBinsPeakToMean(const Rb_TimeBins *tb, const Rb_RunInfo *run)
{
    int64_t n, k;
    double *values = Rb_TimeBinsValues(tb, run, &n, NULL);
    Rb_Moments m;

    Rb_MomentsReset(&m);
    for (k = 0; k < n; k++) {
	Rb_MomentsAdd(&m, values[k]);
    }
    free(values);
    return m.n && m.mean > 0 ? m.max / m.mean : 0.0;
}

/*
 * Rb_TimeBinsFree --
 *	Releases the bins' memory.
 * Results: none.
 * Side effects: tb holds no bins afterwards (Rb_TimeBinsStart makes it usable
 *	again).
 */
void
Rb_TimeBinsFree(Rb_TimeBins *tb)
{
    free(tb->sums);
    memset(tb, 0, sizeof(*tb));
}

/*
 * RbTotalInit --
 *	init hook of a total-and-series analyzer: checks -interval.
 * Results: TCL_OK or TCL_ERROR with a message in interp.
 */
int
RbTotalInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    Rb_TotalState *st = a->state;

    if (st->interval <= 0) {
	return RbKitOptionError(a, interp,
		"-interval must be a positive time");
    }
    return TCL_OK;
}

/*
 * RbTotalStart --
 *	start hook: checks -interval again (configure may have changed it)
 *	and resets the total and the bins for a new run.
 */
int
RbTotalStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    Rb_TotalState *st = a->state;

    if (RbTotalInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    st->total = 0;
    Rb_TimeBinsStart(&st->bins, st->interval, run);
    return TCL_OK;
}

/*
 * RbTotalCountBatch --
 *	batch hook that counts the selected records that have a time, in the
 *	total and in their bins (RateAnalyzer, and the burstiness analyzers
 *	whose state begins with an Rb_TotalState).
 */
void
RbTotalCountBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    Rb_TotalState *st = a->state;

    st->total += Rb_TimeBinsAddColumn(&st->bins, b->col[RB_IO_TIME], NULL,
	    sel, nsel);
}

/*
 * RbTotalMerge --
 *	merge hook: adds the total and bins of other (a shard's partial
 *	state) into a.
 * Results: TCL_ERROR when the bins do not line up (see Rb_TimeBinsMerge).
 */
int
RbTotalMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    Rb_TotalState *st = a->state;
    const Rb_TotalState *ost = other->state;

    st->total += ost->total;
    return Rb_TimeBinsMerge(a, &st->bins, &ost->bins);
}

/*
 * RbTotalFree --
 *	freeState hook: frees the bins.
 */
void
RbTotalFree(Rb_Analyzer *a)
{
    Rb_TotalState *st = a->state;

    Rb_TimeBinsFree(&st->bins);
}
