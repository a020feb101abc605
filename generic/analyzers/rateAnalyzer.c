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
    "Rate", "Count", "RateSeries", "RatePeakToMean", NULL
};

/*
 * RateEnd --
 *	Sets Rate, Count, RateSeries and RatePeakToMean.
 */
static int
RateEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    Rb_TotalState *st = a->state;
    double seconds = RbRunSeconds(run);

    Rb_AnalyzerSet(a, Rb_AttrScalar("Rate",
	    seconds > 0 ? (double)st->total / seconds : 0.0, "IO/s",
	    "I/Os per second over the run's duration"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Count", (double)st->total, "",
	    "number of I/Os"));
    Rb_AnalyzerSet(a, Rb_TimeBinsSeries(&st->bins, run, "RateSeries", "IO/s",
	    "I/Os per second in each interval"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("RatePeakToMean",
	    Rb_TimeBinsPeakToMean(&st->bins, run), "",
	    "highest RateSeries value over its mean"));
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
    .init = RbTotalInit,
    .start = RbTotalStart,
    .batch = RbTotalCountBatch,
    .end = RateEnd,
    .merge = RbTotalMerge,
    .serialize = RbTotalSerialize,
    .deserialize = RbTotalDeserialize,
    .freeState = RbTotalFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
