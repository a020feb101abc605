/*
 * dispersionAnalyzer.c --
 *
 *	DispersionAnalyzer: the index of dispersion for counts (variance over
 *	mean of the number of arrivals per window) at window lengths -base,
 *	2 -base, 4 -base, ...  1 at every scale for Poisson arrivals; growing
 *	with the scale for bursty, long-range dependent ones.
 */

#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

static const Rb_Option dispersionOptions[] = {
    {"-base", RB_OPT_TIME, offsetof(Rb_TotalState, interval), "0.1",
	"shortest window; each further scale doubles it"},
    {NULL}
};

static const char *const dispersionAttrs[] = {"Dispersion", NULL};

/*
 * DispersionEnd --
 *	Sets the table of (scale, windows, idc), one row per doubling of the
 *	window while at least two complete windows fit in the run.
 */
static int
DispersionEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    Rb_TotalState *st = a->state;
    Rb_Attribute *table = Rb_AttrCreate("Dispersion", RB_ATTR_TABLE, "",
	    "index of dispersion for counts by window length");
    int scaleCol, windowsCol, idcCol;
    int64_t n, m;
    double *counts = Rb_TimeBinsValues(&st->bins, run, &n, NULL);
    Rb_Moments sums;

    scaleCol = Rb_AttrAddColumn(table, "scale", "s", 0);
    windowsCol = Rb_AttrAddColumn(table, "windows", "", 0);
    idcCol = Rb_AttrAddColumn(table, "idc", "", 0);
    for (m = 1; n / m >= 2; m *= 2) {
	int row = Rb_AttrAddRow(table);
	double var;

	RbBlockSums(counts, n, m, &sums);
	var = Rb_MomentsStddev(&sums) * Rb_MomentsStddev(&sums);
	Rb_AttrSetNum(table, row, scaleCol,
		(double)m * (double)st->interval / RB_NS_PER_S);
	Rb_AttrSetNum(table, row, windowsCol, (double)sums.n);
	Rb_AttrSetNum(table, row, idcCol,
		sums.mean > 0 ? var / sums.mean : 0.0);
    }
    free(counts);
    Rb_AnalyzerSet(a, table);
    return TCL_OK;
}

/*
 * Mergeable: the state is the per-interval counts, which add exactly
 * when the shards' intervals line up (as RateAnalyzer's).
 */
const Rb_AnalyzerClass Rb_DispersionAnalyzerClass = {
    .name = "DispersionAnalyzer",
    .help = "index of dispersion for counts across doubling time scales",
    .stateSize = sizeof(Rb_TotalState),
    .options = dispersionOptions,
    .attrs = dispersionAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = RbBurstStart,
    .batch = RbTotalCountBatch,
    .end = DispersionEnd,
    .merge = RbTotalMerge,
    .serialize = RbTotalSerialize,
    .deserialize = RbTotalDeserialize,
    .freeState = RbTotalFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
