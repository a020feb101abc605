/*
 * bandwidthAnalyzer.c --
 *
 *	BandwidthAnalyzer: bytes per second over the run, and per interval.
 *	Its state and most hooks are the shared Rb_Total* ones (timeBins.c).
 */

#include <stddef.h>
#include "analyzers.h"

static const Rb_Option bandwidthOptions[] = {
    {"-interval", RB_OPT_TIME, offsetof(Rb_TotalState, interval), "10",
	"length of one BandwidthSeries interval"},
    {NULL}
};

static const char *const bandwidthAttrs[] = {
    "Bandwidth", "Bytes", "BandwidthSeries", "BandwidthPeakToMean", NULL
};

/*
 * BandwidthBatch --
 *	Adds the sizes of the selected records that have a time and a size
 *	(a negative size is malformed and skipped).
 */
static void
BandwidthBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    Rb_TotalState *st = a->state;

    st->total += Rb_TimeBinsAddColumn(&st->bins, b->col[RB_IO_TIME],
	    b->col[RB_IO_SIZE], sel, nsel);
}

/*
 * BandwidthEnd --
 *	Sets Bandwidth, Bytes, BandwidthSeries and BandwidthPeakToMean.
 */
static int
BandwidthEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    Rb_TotalState *st = a->state;
    double seconds = RbRunSeconds(run);

    Rb_AnalyzerSet(a, Rb_AttrScalar("Bandwidth",
	    seconds > 0 ? (double)st->total / seconds : 0.0, "bytes/s",
	    "bytes transferred per second over the run's duration"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Bytes", (double)st->total, "bytes",
	    "bytes transferred"));
    Rb_AnalyzerSet(a, Rb_TimeBinsSeries(&st->bins, run, "BandwidthSeries",
	    "bytes/s", "bytes per second in each interval"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("BandwidthPeakToMean",
	    Rb_TimeBinsPeakToMean(&st->bins, run), "",
	    "highest BandwidthSeries value over its mean"));
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_BandwidthAnalyzerClass = {
    .name = "BandwidthAnalyzer",
    .help = "bandwidth (bytes per second) over the run and per interval",
    .stateSize = sizeof(Rb_TotalState),
    .options = bandwidthOptions,
    .attrs = bandwidthAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = RbTotalInit,
    .start = RbTotalStart,
    .batch = BandwidthBatch,
    .end = BandwidthEnd,
    .merge = RbTotalMerge,
    .serialize = RbTotalSerialize,
    .deserialize = RbTotalDeserialize,
    .freeState = RbTotalFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_SIZE),
};
