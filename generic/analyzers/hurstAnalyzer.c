/*
 * hurstAnalyzer.c --
 *
 *	HurstAnalyzer: two estimates of the Hurst parameter H of the series
 *	of arrival counts per -base interval: the variance-time plot and
 *	rescaled range (R/S) analysis.  H = 0.5 for short-range dependent
 *	arrivals (Poisson); 0.5 < H < 1 for self-similar, long-range
 *	dependent ones.
 */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

/*
 * The aggregation levels used: variance-time needs this many complete
 * blocks for a usable variance; R/S starts at blocks of MIN_RS_SIZE
 * values, below which R/S is strongly biased, and needs MIN_RS_BLOCKS of
 * them to average.
 */
#define MIN_VT_BLOCKS 10
#define MIN_RS_SIZE 16
#define MIN_RS_BLOCKS 4
#define MAX_LEVELS 64

static const Rb_Option hurstOptions[] = {
    {"-base", RB_OPT_TIME, offsetof(Rb_TotalState, interval), "0.1",
	"interval of the count series"},
    {NULL}
};

static const char *const hurstAttrs[] = {
    "HurstVarianceTime", "HurstRescaledRange", NULL
};

/*
 * VarianceTimeH --
 *	Fits log var(X^(m)) = c + (2H - 2) log m over m = 1, 2, 4, ... where
 *	X^(m) is the series averaged over blocks of m.
 * Results: H, or NaN with fewer than two usable levels.
 */
static double
VarianceTimeH(const double *x, int64_t n)
{
    double logM[MAX_LEVELS], logVar[MAX_LEVELS];
    int levels = 0;
    int64_t m;
    Rb_Moments sums;

    for (m = 1; n / m >= MIN_VT_BLOCKS && levels < MAX_LEVELS; m *= 2) {
	double sd;

	RbBlockSums(x, n, m, &sums);
	sd = Rb_MomentsStddev(&sums) / (double)m;
	if (sd > 0) {
	    logM[levels] = log((double)m);
	    logVar[levels++] = 2 * log(sd);
	}
    }
    return 1 + RbFitSlope(logM, logVar, levels) / 2;
}

/*
 * RescaledRange --
 *	The mean over complete blocks of s values of R/S: the range of the
 *	block's cumulative deviations from its mean over its standard
 *	deviation.  Blocks with no variation are left out.
 * Results: the mean R/S, 0 when no block varies.
 */
static double
RescaledRange(const double *x, int64_t n, int64_t s)
{
    int64_t blk, k;
    Rb_Moments block, rs;

    Rb_MomentsReset(&rs);
    for (blk = 0; blk + s <= n; blk += s) {
	double y = 0, lo = 0, hi = 0, sd;

	Rb_MomentsReset(&block);
	for (k = blk; k < blk + s; k++) {
	    Rb_MomentsAdd(&block, x[k]);
	}
	for (k = blk; k < blk + s; k++) {
	    y += x[k] - block.mean;
	    lo = y < lo ? y : lo;
	    hi = y > hi ? y : hi;
	}
	sd = Rb_MomentsStddev(&block);
	if (sd > 0) {
	    Rb_MomentsAdd(&rs, (hi - lo) / sd);
	}
    }
    return rs.n ? rs.mean : 0.0;
}

/*
 * RescaledRangeH --
 *	Fits log E[R/S] = c + H log s over s = 16, 32, ...
 * Results: H, or NaN with fewer than two usable sizes.
 */
static double
RescaledRangeH(const double *x, int64_t n)
{
    double logS[MAX_LEVELS], logRS[MAX_LEVELS];
    int levels = 0;
    int64_t s;

    for (s = MIN_RS_SIZE; n / s >= MIN_RS_BLOCKS && levels < MAX_LEVELS;
	    s *= 2) {
	double rs = RescaledRange(x, n, s);

	if (rs > 0) {
	    logS[levels] = log((double)s);
	    logRS[levels++] = log(rs);
	}
    }
    return RbFitSlope(logS, logRS, levels);
}

/*
 * HurstEnd --
 *	Sets both estimates from the count series.
 */
static int
HurstEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    Rb_TotalState *st = a->state;
    int64_t n;
    double *counts = Rb_TimeBinsValues(&st->bins, run, &n, NULL);

    Rb_AnalyzerSet(a, Rb_AttrScalar("HurstVarianceTime",
	    VarianceTimeH(counts, n), "",
	    "Hurst parameter from the variance-time plot"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("HurstRescaledRange",
	    RescaledRangeH(counts, n), "",
	    "Hurst parameter from rescaled range (R/S) analysis"));
    free(counts);
    return TCL_OK;
}

/*
 * Mergeable: the state is the per-interval counts, which add exactly
 * when the shards' intervals line up; both estimates are computed from
 * them at end.
 */
const Rb_AnalyzerClass Rb_HurstAnalyzerClass = {
    .name = "HurstAnalyzer",
    .help = "Hurst parameter of the arrival counts: variance-time and R/S",
    .stateSize = sizeof(Rb_TotalState),
    .options = hurstOptions,
    .attrs = hurstAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = RbBurstStart,
    .batch = RbTotalCountBatch,
    .end = HurstEnd,
    .merge = RbTotalMerge,
    .serialize = RbTotalSerialize,
    .deserialize = RbTotalDeserialize,
    .freeState = RbTotalFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
