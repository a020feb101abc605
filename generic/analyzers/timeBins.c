/*
 * timeBins.c --
 *
 *	Sums per interval of trace time, shared by RateAnalyzer and
 *	BandwidthAnalyzer for their time-series Attributes.
 */

#include <string.h>
#include <stdlib.h>
#include "analyzers.h"

/*
 * Rb_TimeBinsStart --
 *	Empties tb for a new run with the given interval (ns).
 * Side effects: keeps any allocation for reuse, and remembers run.
 */
void
Rb_TimeBinsStart(Rb_TimeBins *tb, int64_t interval, const Rb_RunInfo *run)
{
    tb->interval = interval;
    tb->run = run;
    tb->hasOrigin = Rb_RunTimesKnown(run);
    tb->origin = tb->hasOrigin ? run->firstTime : 0;
    tb->lo = 0;
    tb->n = 0;
}

/*
 * Rb_TimeBinsSetOrigin --
 *	Fixes the origin when the first value arrives at time t.  The engine
 *	starts analyzers before it reads, so the run's first time is not known
 *	at start; it is known by the first push, because the engine notes each
 *	batch's times in the run before pushing it.  Reading it here, from the
 *	run given to start, aligns a Flow that sees its first record late with
 *	every other Flow.  Without a usable run time, t itself is the origin.
 */
void
Rb_TimeBinsSetOrigin(Rb_TimeBins *tb, int64_t t)
{
    const Rb_RunInfo *run = tb->run;

    tb->origin = (run != NULL && Rb_RunTimesKnown(run)
	    && run->firstTime <= t) ? run->firstTime : t;
    tb->hasOrigin = 1;
}

/*
 * Rb_TimeBinsCover --
 *	Grows the held range of bins to include bin k; new bins are zero.
 * Side effects: may reallocate tb->sums.
 */
void
Rb_TimeBinsCover(Rb_TimeBins *tb, int64_t k)
{
    int64_t newLo, newHi, newN, shift;

    if (tb->n == 0) {
	newLo = newHi = k;
    } else {
	newLo = k < tb->lo ? k : tb->lo;
	newHi = k > tb->lo + tb->n - 1 ? k : tb->lo + tb->n - 1;
    }
    newN = newHi - newLo + 1;
    if (newN > tb->cap) {
	int64_t cap = tb->cap ? tb->cap : 64;

	while (cap < newN) {
	    cap *= 2;
	}
	tb->sums = Rb_KitRealloc(tb->sums, (size_t)cap * sizeof(int64_t));
	tb->cap = cap;
    }
    shift = tb->lo - newLo;
    if (tb->n > 0 && shift > 0) {
	memmove(tb->sums + shift, tb->sums, (size_t)tb->n * sizeof(int64_t));
    }
    if (tb->n == 0) {
	memset(tb->sums, 0, (size_t)newN * sizeof(int64_t));
    } else {
	memset(tb->sums, 0, (size_t)shift * sizeof(int64_t));
	memset(tb->sums + shift + tb->n, 0,
		(size_t)(newN - shift - tb->n) * sizeof(int64_t));
    }
    tb->lo = newLo;
    tb->n = newN;
}

/*
 * Rb_TimeBinsMerge --
 *	Adds the bins of other into tb.  The two grids must line up: same
 *	interval, origins a whole number of intervals apart (always so when
 *	the shards were started with the run's first record time).
 * Results: TCL_OK, or TCL_ERROR with an analyzer error when the grids
 *	differ.
 */
int
Rb_TimeBinsMerge(Rb_Analyzer *a, Rb_TimeBins *tb, const Rb_TimeBins *other)
{
    int64_t shift, j;

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
    if ((other->origin - tb->origin) % tb->interval != 0) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH",
		"cannot merge time series whose intervals do not line up "
		"(start every shard with the run's first record time)");
	return TCL_ERROR;
    }
    shift = (other->origin - tb->origin) / tb->interval;
    Rb_TimeBinsCover(tb, other->lo + shift);
    Rb_TimeBinsCover(tb, other->lo + shift + other->n - 1);
    for (j = 0; j < other->n; j++) {
	tb->sums[other->lo + shift + j - tb->lo] += other->sums[j];
    }
    return TCL_OK;
}

/*
 * Rb_TimeBinsSeries --
 *	Builds a series Attribute with columns time (s from the run's first
 *	record time to the start of the interval) and value (the bin's sum
 *	per second).  Rows cover every interval from the run's first to its
 *	last record time, empty ones included, so that series of different
 *	Flows have the same rows.
 * Results: a new Attribute.
 */
Rb_Attribute *
Rb_TimeBinsSeries(const Rb_TimeBins *tb, const Rb_RunInfo *run,
	const char *name, const char *unit, const char *help)
{
    Rb_Attribute *attr = Rb_AttrCreate(name, RB_ATTR_SERIES, unit, help);
    int runKnown = Rb_RunTimesKnown(run);
    int64_t ref, origin, kFirst, kLast, k;
    double seconds = (double)tb->interval / RB_NS_PER_S;
    int timeCol, valueCol;

    timeCol = Rb_AttrAddColumn(attr, "time", "s", 0);
    valueCol = Rb_AttrAddColumn(attr, "value", unit, 0);
    if (!runKnown && !tb->hasOrigin) {
	return attr;
    }
    origin = tb->hasOrigin ? tb->origin : run->firstTime;
    ref = runKnown ? run->firstTime : origin;
    kFirst = kLast = Rb_FloorDiv(ref - origin, tb->interval);
    if (runKnown) {
	kLast = Rb_FloorDiv(run->lastTime - origin, tb->interval);
    }
    if (tb->n > 0) {
	kFirst = tb->lo < kFirst ? tb->lo : kFirst;
	kLast = tb->lo + tb->n - 1 > kLast ? tb->lo + tb->n - 1 : kLast;
    }
    for (k = kFirst; k <= kLast; k++) {
	int row = Rb_AttrAddRow(attr);
	int64_t sum = (k >= tb->lo && k < tb->lo + tb->n)
		? tb->sums[k - tb->lo] : 0;

	Rb_AttrSetNum(attr, row, timeCol,
		(double)(origin + k * tb->interval - ref) / RB_NS_PER_S);
	Rb_AttrSetNum(attr, row, valueCol, (double)sum / seconds);
    }
    return attr;
}

/*
 * Rb_TimeBinsFree --
 *	Releases the bins' memory.
 */
void
Rb_TimeBinsFree(Rb_TimeBins *tb)
{
    free(tb->sums);
    memset(tb, 0, sizeof(*tb));
}

/*
 * Rb_CheckInterval --
 *	Checks an -interval option value (at init with interp, at start with
 *	interp NULL).
 * Results: TCL_OK, or TCL_ERROR with the error set.
 */
int
Rb_CheckInterval(Rb_Analyzer *a, Tcl_Interp *interp, int64_t interval)
{
    if (interval <= 0) {
	return Rb_KitOptionError(a, interp,
		"-interval must be a positive time");
    }
    return TCL_OK;
}
