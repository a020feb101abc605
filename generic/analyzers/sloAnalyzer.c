/*
 * sloAnalyzer.c --
 *
 *	SloAnalyzer: latency service-level objectives.  For each threshold of
 *	-thresholds, the number and fraction of I/Os whose latency (response,
 *	service or queueing time) exceeds it; per -interval of arrival time,
 *	the fraction over the first threshold; and the intervals that
 *	violate the objective (that fraction above -target): how many, their
 *	share and the longest run of consecutive ones.
 *
 *	Counts are exact.  Memory is one counter per threshold and two per
 *	interval of the run.
 */

#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct SloState {
    char *fieldName;		/* -field */
    Tcl_Obj *thresholdsObj;	/* -thresholds, s */
    int64_t interval;		/* -interval, ns */
    double target;		/* -target */
    int from, to;		/* I/O time fields of the latency. */
    int nthr;
    int64_t *thr;		/* Thresholds, ns. */
    uint64_t measured;		/* I/Os whose latency was measured. */
    uint64_t *over;		/* Per threshold: I/Os above it. */
    Rb_TimeBins measuredBins;	/* Per interval: I/Os measured ... */
    Rb_TimeBins overBins;	/* ... and above the first threshold. */
} SloState;

static const Rb_Option sloOptions[] = {
    {"-thresholds", RB_OPT_OBJ, offsetof(SloState, thresholdsObj),
	"0.01 0.1 1", "latency thresholds in seconds; the first sets the "
	"per-interval objective"},
    {"-field", RB_OPT_STRING, offsetof(SloState, fieldName), "responseTime",
	"latency measured: responseTime, serviceTime or queueTime"},
    {"-interval", RB_OPT_TIME, offsetof(SloState, interval), "60",
	"interval of the per-interval objective, s"},
    {"-target", RB_OPT_DOUBLE, offsetof(SloState, target), "0.01",
	"largest fraction of an interval's I/Os allowed over the first "
	"threshold"},
    {NULL}
};

static const char *const sloAttrs[] = {
    "SloOver", "SloSeries", "SloMeasured", "SloViolations",
    "SloViolationShare", "SloLongestViolation", NULL
};

/*
 * SloInit --
 *	Checks -field, -thresholds, -interval and -target.
 * Results: TCL_OK, or TCL_ERROR with an option error.
 */
static int
SloInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    SloState *st = a->state;

    if (RbKitLatencyField(a, interp, st->fieldName, &st->from, &st->to)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    if (RbKitParseSeconds(st->thresholdsObj, NULL) < 0) {
	return RbKitOptionError(a, interp, "-thresholds must be a non-empty "
		"list of positive numbers of seconds");
    }
    if (st->interval <= 0) {
	return RbKitOptionError(a, interp, "-interval must be positive");
    }
    if (!(st->target >= 0 && st->target <= 1)) {
	return RbKitOptionError(a, interp, "-target must be a fraction "
		"from 0 to 1");
    }
    return TCL_OK;
}

/*
 * SloStart --
 *	Checks the options and empties the counts for a new run.
 */
static int
SloStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SloState *st = a->state;

    if (SloInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    free(st->thr);
    free(st->over);
    st->nthr = RbKitParseSeconds(st->thresholdsObj, &st->thr);
    st->over = Rb_AllocArray((size_t)st->nthr, sizeof(uint64_t));
    st->measured = 0;
    Rb_TimeBinsStart(&st->measuredBins, st->interval, run);
    Rb_TimeBinsStart(&st->overBins, st->interval, run);
    return TCL_OK;
}

/*
 * AddToBins --
 *	Counts the nm records of measuredSel, and the no of overSel, in the
 *	intervals of their times.
 */
static void
AddToBins(SloState *st, const Rb_Batch *b, const uint32_t *measuredSel,
	int nm, const uint32_t *overSel, int no)
{
    st->measured += nm;
    Rb_TimeBinsAddColumn(&st->measuredBins, b->col[RB_IO_TIME], NULL,
	    measuredSel, nm);
    Rb_TimeBinsAddColumn(&st->overBins, b->col[RB_IO_TIME], NULL, overSel,
	    no);
}

/*
 * SloBatch --
 *	Counts the latency of each selected I/O against every threshold,
 *	and in its arrival's interval.  I/Os missing a time of the latency
 *	or whose end precedes its beginning are not measured.  The records
 *	measured and those over the first threshold are gathered into
 *	selections, RB_BATCH_SIZE at most at a time, for the bins.
 */
static void
SloBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    SloState *st = a->state;
    const int64_t *from = b->col[st->from], *to = b->col[st->to];
    uint32_t measuredSel[RB_BATCH_SIZE], overSel[RB_BATCH_SIZE];
    int j, t, nm = 0, no = 0;

    for (j = 0; j < nsel; j++) {
	int64_t ns;

	if (!RbLatencyNs(from[sel[j]], to[sel[j]], &ns)) {
	    continue;
	}
	measuredSel[nm++] = sel[j];
	if (ns > st->thr[0]) {
	    overSel[no++] = sel[j];
	}
	for (t = 0; t < st->nthr; t++) {
	    st->over[t] += ns > st->thr[t];
	}
	if (nm == RB_BATCH_SIZE) {
	    AddToBins(st, b, measuredSel, nm, overSel, no);
	    nm = no = 0;
	}
    }
    AddToBins(st, b, measuredSel, nm, overSel, no);
}

/*
 * BinAt --
 *	The sum of bin k of tb (0 outside the held bins).
 */
static uint64_t
BinAt(const Rb_TimeBins *tb, int64_t k)
{
    return k >= tb->lo && k < tb->lo + tb->n ? tb->sums[k - tb->lo] : 0;
}

/*
 * OverTable --
 *	The SloOver table: per threshold, the I/Os above it and their
 *	fraction of those measured.
 */
static Rb_Attribute *
OverTable(const SloState *st)
{
    Rb_Attribute *t = Rb_AttrCreate("SloOver", RB_ATTR_TABLE, "",
	    "I/Os whose latency exceeds each threshold");
    int thrCol = Rb_AttrAddColumn(t, "threshold", "s", 0);
    int countCol = Rb_AttrAddColumn(t, "count", "", 0);
    int fracCol = Rb_AttrAddColumn(t, "fraction", "", 0);
    int i;

    for (i = 0; i < st->nthr; i++) {
	int row = Rb_AttrAddRow(t);

	Rb_AttrSetNum(t, row, thrCol, (double)st->thr[i] / RB_NS_PER_S);
	Rb_AttrSetNum(t, row, countCol, (double)st->over[i]);
	Rb_AttrSetNum(t, row, fracCol, st->measured
		? (double)st->over[i] / (double)st->measured : 0.0);
    }
    return t;
}

/*
 * SloEnd --
 *	Sets the table of thresholds, the per-interval series of the
 *	fraction over the first threshold (0 in an interval without
 *	measured I/Os), and the violations of the objective.
 */
static int
SloEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SloState *st = a->state;
    Rb_Attribute *series = Rb_AttrCreate("SloSeries", RB_ATTR_SERIES, "",
	    "per interval, the fraction of I/Os over the first threshold");
    int timeCol = Rb_AttrAddColumn(series, "time", "s", 0);
    int valueCol = Rb_AttrAddColumn(series, "value", "", 0);
    int countCol = Rb_AttrAddColumn(series, "count", "", 0);
    double seconds = (double)st->interval / RB_NS_PER_S, startSeconds = 0;
    int64_t kFirst = 0, n = 0, k, violations = 0, runLen = 0, longest = 0;

    Rb_TimeBinsRange(&st->measuredBins, run, &kFirst, &n, &startSeconds);
    for (k = kFirst; k < kFirst + n; k++) {
	uint64_t m = BinAt(&st->measuredBins, k);
	double frac = m ? (double)BinAt(&st->overBins, k) / (double)m : 0.0;
	int row = Rb_AttrAddRow(series);

	Rb_AttrSetNum(series, row, timeCol,
		startSeconds + (double)(k - kFirst) * seconds);
	Rb_AttrSetNum(series, row, valueCol, frac);
	Rb_AttrSetNum(series, row, countCol, (double)m);
	if (frac > st->target) {
	    violations++;
	    if (++runLen > longest) {
		longest = runLen;
	    }
	} else {
	    runLen = 0;
	}
    }
    Rb_AnalyzerSet(a, OverTable(st));
    Rb_AnalyzerSet(a, series);
    Rb_AnalyzerSet(a, Rb_AttrScalar("SloMeasured", (double)st->measured, "",
	    "I/Os whose latency was measured"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("SloViolations", (double)violations, "",
	    "intervals whose fraction over the first threshold exceeds "
	    "-target"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("SloViolationShare", n
	    ? (double)violations / (double)n : 0.0, "",
	    "share of the run's intervals that violate the objective"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("SloLongestViolation",
	    (double)longest * seconds, "s",
	    "longest run of consecutive violating intervals"));
    return TCL_OK;
}

/*
 * SloMerge --
 *	merge hook: adds other's counts and interval bins into a.
 */
static int
SloMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    SloState *st = a->state;
    const SloState *ost = other->state;
    int i;

    st->measured += ost->measured;
    for (i = 0; i < st->nthr && i < ost->nthr; i++) {
	st->over[i] += ost->over[i];
    }
    if (Rb_TimeBinsMerge(a, &st->measuredBins, &ost->measuredBins) != TCL_OK) {
	return TCL_ERROR;
    }
    return Rb_TimeBinsMerge(a, &st->overBins, &ost->overBins);
}

/*
 * SloSerialize, SloDeserialize --
 *	serialize and deserialize hooks: the counts and both sets of bins.
 */
static int
SloSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SloState *st = a->state;

    Rb_BufPutInt(b, (int64_t)st->measured);
    RbKitPutCounters(b, st->over, st->nthr);
    Rb_TimeBinsPut(b, &st->measuredBins);
    Rb_TimeBinsPut(b, &st->overBins);
    return TCL_OK;
}

static int
SloDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SloState *st = a->state;

    st->measured = (uint64_t)Rb_BufGetInt(b);
    RbKitGetCounters(b, st->over, st->nthr);
    Rb_TimeBinsGet(b, &st->measuredBins);
    Rb_TimeBinsGet(b, &st->overBins);
    return TCL_OK;
}

/*
 * SloFree --
 *	Frees the thresholds, their counts and the bins.
 */
static void
SloFree(Rb_Analyzer *a)
{
    SloState *st = a->state;

    free(st->thr);
    free(st->over);
    Rb_TimeBinsFree(&st->measuredBins);
    Rb_TimeBinsFree(&st->overBins);
}

/*
 * Mergeable: the counts and the per-interval bins (on the run's grid)
 * add exactly; the violations are found at end from the merged bins.
 */
const Rb_AnalyzerClass Rb_SloAnalyzerClass = {
    .name = "SloAnalyzer",
    .help = "latency objectives: fraction of I/Os over thresholds, "
	    "violating intervals",
    .stateSize = sizeof(SloState),
    .options = sloOptions,
    .attrs = sloAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = SloInit,
    .start = SloStart,
    .batch = SloBatch,
    .end = SloEnd,
    .merge = SloMerge,
    .serialize = SloSerialize,
    .deserialize = SloDeserialize,
    .freeState = SloFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_START)
	    | RB_FIELD_BIT(RB_IO_FINISH),
};
