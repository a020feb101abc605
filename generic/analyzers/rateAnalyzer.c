/*
 * rateAnalyzer.c --
 *
 *	RateAnalyzer: I/Os per second over the run, and per interval.  Its
 *	state and most hooks are the shared Rb_Total* ones (timeBins.c).
 */

#include <stddef.h>
#include "analyzers.h"

static const Rb_Option rateOptions[] = {
    {"-interval", RB_OPT_TIME, offsetof(Rb_TotalState, interval), "10",
	"length of one RateSeries interval"},
    {NULL}
};

static const char *const rateAttrs[] = {
    "Rate", "Count", "RateSeries", NULL
};

/*
 * RateBatch --
 *	Counts the selected records that have a time.
 */
static void
RateBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    Rb_TotalState *st = a->state;
    const int64_t *time = b->col[RB_IO_TIME];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t t = time[sel[j]];

	if (t != RB_ABSENT) {
	    st->total++;
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
    Rb_TotalState *st = a->state;
    double seconds = Rb_RunSeconds(run);

    Rb_AnalyzerSet(a, Rb_AttrScalar("Rate",
	    seconds > 0 ? (double)st->total / seconds : 0.0, "IO/s",
	    "I/Os per second over the run's duration"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Count", (double)st->total, "",
	    "number of I/Os"));
    Rb_AnalyzerSet(a, Rb_TimeBinsSeries(&st->bins, run, "RateSeries", "IO/s",
	    "I/Os per second in each interval"));
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_RateAnalyzerClass = {
    .name = "RateAnalyzer",
    .help = "I/O rate (I/Os per second) over the run and per interval",
    .stateSize = sizeof(Rb_TotalState),
    .options = rateOptions,
    .attrs = rateAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = Rb_TotalInit,
    .start = Rb_TotalStart,
    .batch = RateBatch,
    .end = RateEnd,
    .merge = Rb_TotalMerge,
    .freeState = Rb_TotalFree,
};
