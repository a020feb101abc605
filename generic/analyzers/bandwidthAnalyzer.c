/*
 * bandwidthAnalyzer.c --
 *
 *	BandwidthAnalyzer: bytes per second over the run, and per interval.
 */

#include <stddef.h>
#include "analyzers.h"

typedef struct BandwidthState {
    int64_t interval;		/* -interval, ns */
    int64_t bytes;
    Rb_TimeBins bins;
} BandwidthState;

static const Rb_Option bandwidthOptions[] = {
    {"-interval", RB_OPT_TIME, offsetof(BandwidthState, interval), "10",
	"length of one BandwidthSeries interval"},
    {NULL}
};

static const char *const bandwidthAttrs[] = {
    "Bandwidth", "Bytes", "BandwidthSeries", NULL
};

/*
 * BandwidthInit --
 *	Checks the options.
 * Results: TCL_OK or TCL_ERROR with a message in interp.
 */
static int
BandwidthInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    BandwidthState *st = a->state;

    return Rb_CheckInterval(a, interp, st->interval);
}

/*
 * BandwidthStart --
 *	Resets the sums for a new run.
 */
static int
BandwidthStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    BandwidthState *st = a->state;

    if (Rb_CheckInterval(a, NULL, st->interval) != TCL_OK) {
	return TCL_ERROR;
    }
    st->bytes = 0;
    Rb_TimeBinsStart(&st->bins, st->interval, run);
    return TCL_OK;
}

/*
 * BandwidthBatch --
 *	Adds the sizes of the selected records that have a time and a size.
 */
static void
BandwidthBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    BandwidthState *st = a->state;
    const int64_t *time = b->col[RB_IO_TIME];
    const int64_t *size = b->col[RB_IO_SIZE];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t t = time[sel[j]], reqSize = size[sel[j]];

	if (t != RB_ABSENT && reqSize != RB_ABSENT) {
	    st->bytes += reqSize;
	    Rb_TimeBinsAdd(&st->bins, t, reqSize);
	}
    }
}

/*
 * BandwidthEnd --
 *	Sets Bandwidth, Bytes and BandwidthSeries.
 */
static int
BandwidthEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    BandwidthState *st = a->state;
    double seconds = Rb_RunSeconds(run);

    Rb_AnalyzerSet(a, Rb_AttrScalar("Bandwidth",
	    seconds > 0 ? (double)st->bytes / seconds : 0.0, "bytes/s",
	    "bytes transferred per second over the run's duration"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Bytes", (double)st->bytes, "bytes",
	    "bytes transferred"));
    Rb_AnalyzerSet(a, Rb_TimeBinsSeries(&st->bins, run, "BandwidthSeries",
	    "bytes/s", "bytes per second in each interval"));
    return TCL_OK;
}

/*
 * BandwidthMerge --
 *	Adds the sums of other (a shard's partial state) into a.
 */
static int
BandwidthMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    BandwidthState *st = a->state;
    const BandwidthState *ost = other->state;

    st->bytes += ost->bytes;
    return Rb_TimeBinsMerge(a, &st->bins, &ost->bins);
}

/*
 * BandwidthFree --
 *	Frees the time bins.
 */
static void
BandwidthFree(Rb_Analyzer *a)
{
    BandwidthState *st = a->state;

    Rb_TimeBinsFree(&st->bins);
}

const Rb_AnalyzerClass Rb_BandwidthAnalyzerClass = {
    .name = "BandwidthAnalyzer",
    .help = "bandwidth (bytes per second) over the run and per interval",
    .stateSize = sizeof(BandwidthState),
    .options = bandwidthOptions,
    .attrs = bandwidthAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = BandwidthInit,
    .start = BandwidthStart,
    .batch = BandwidthBatch,
    .end = BandwidthEnd,
    .merge = BandwidthMerge,
    .freeState = BandwidthFree,
};
