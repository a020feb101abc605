/*
 * rateAnalyzer.c --
 *
 *	RateAnalyzer: I/Os per second over the run, and per interval.
 */

#include <stddef.h>
#include "analyzers.h"

typedef struct RateState {
    int64_t interval;		/* -interval, ns */
    uint64_t count;
    Rb_TimeBins bins;
} RateState;

static const Rb_Option rateOptions[] = {
    {"-interval", RB_OPT_TIME, offsetof(RateState, interval), "10",
	"length of one RateSeries interval"},
    {NULL}
};

static const char *const rateAttrs[] = {
    "Rate", "Count", "RateSeries", NULL
};

/*
 * RateInit --
 *	Checks the options.
 * Results: TCL_OK or TCL_ERROR with a message in interp.
 */
static int
RateInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    RateState *st = a->state;

    return Rb_CheckInterval(a, interp, st->interval);
}

/*
 * RateStart --
 *	Resets the counts for a new run.
 */
static int
RateStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    RateState *st = a->state;

    if (Rb_CheckInterval(a, NULL, st->interval) != TCL_OK) {
	return TCL_ERROR;
    }
    st->count = 0;
    Rb_TimeBinsStart(&st->bins, st->interval, run);
    return TCL_OK;
}

/*
 * RateBatch --
 *	Counts the selected records that have a time.
 */
static void
RateBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    RateState *st = a->state;
    const int64_t *time = b->col[RB_IO_TIME];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t t = time[sel[j]];

	if (t != RB_ABSENT) {
	    st->count++;
	    Rb_TimeBinsAdd(&st->bins, t, 1);
	}
    }
}

/*
 * RateEnd --
 *	Sets Rate, Count and RateSeries.
 */
static int
RateEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    RateState *st = a->state;
    double seconds = Rb_RunSeconds(run);

    Rb_AnalyzerSet(a, Rb_AttrScalar("Rate",
	    seconds > 0 ? (double)st->count / seconds : 0.0, "IO/s",
	    "I/Os per second over the run's duration"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Count", (double)st->count, "",
	    "number of I/Os"));
    Rb_AnalyzerSet(a, Rb_TimeBinsSeries(&st->bins, run, "RateSeries", "IO/s",
	    "I/Os per second in each interval"));
    return TCL_OK;
}

/*
 * RateMerge --
 *	Adds the counts of other (a shard's partial state) into a.
 */
static int
RateMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    RateState *st = a->state;
    const RateState *ost = other->state;

    st->count += ost->count;
    return Rb_TimeBinsMerge(a, &st->bins, &ost->bins);
}

/*
 * RateFree --
 *	Frees the time bins.
 */
static void
RateFree(Rb_Analyzer *a)
{
    RateState *st = a->state;

    Rb_TimeBinsFree(&st->bins);
}

const Rb_AnalyzerClass Rb_RateAnalyzerClass = {
    .name = "RateAnalyzer",
    .help = "I/O rate (I/Os per second) over the run and per interval",
    .stateSize = sizeof(RateState),
    .options = rateOptions,
    .attrs = rateAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = RateInit,
    .start = RateStart,
    .batch = RateBatch,
    .end = RateEnd,
    .merge = RateMerge,
    .freeState = RateFree,
};
