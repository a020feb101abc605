/*
 * fieldHistogramAnalyzer.c --
 *
 *	FieldHistogramAnalyzer: how many records fall in each range of any
 *	numeric field's values, with power-of-two bins (the default) or bins
 *	of equal width (e.g. -field queueLen -bins linear -width 1 for the
 *	queue-length field's own distribution).
 */

#include <math.h>
#include <stddef.h>
#include <string.h>
#include "analyzers.h"

typedef struct FieldHistogramState {
    char *field;		/* -field */
    char *bins;			/* -bins: "log2" or "linear" */
    double width;		/* -width (linear bins) */
    int index;
    int linear;
    Rb_TimeBins counts;		/* Counts by bin number (a growable array;
				 * its interval is unused). */
    uint64_t outside;		/* Values whose bin lay beyond the
				 * RB_MAX_TIME_BINS held. */
} FieldHistogramState;

static const Rb_Option fieldHistogramOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(FieldHistogramState, field), "size",
	"numeric field to count"},
    {"-bins", RB_OPT_STRING, offsetof(FieldHistogramState, bins), "log2",
	"log2: bins [0,1), [1,2), [2,4) ... and (-inf,0); linear: bins of "
	"-width"},
    {"-width", RB_OPT_DOUBLE, offsetof(FieldHistogramState, width), "1",
	"bin width with -bins linear, in the field's unit"},
    {NULL}
};

static const char *const fieldHistogramAttrs[] = {
    "FieldHistogram", "FieldHistogramOutside", NULL
};

/*
 * FieldHistogramInit --
 *	Checks -bins and -width (also from start, with interp NULL).
 */
static int
FieldHistogramInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    FieldHistogramState *st = a->state;
    const char *bins = st->bins ? st->bins : "log2";

    st->linear = strcmp(bins, "linear") == 0;
    if (!st->linear && strcmp(bins, "log2") != 0) {
	return RbKitOptionError(a, interp,
		"bad -bins \"%s\": must be log2 or linear", bins);
    }
    if (st->linear && !(st->width > 0 && isfinite(st->width))) {
	return RbKitOptionError(a, interp, "-width must be positive");
    }
    return TCL_OK;
}

/*
 * FieldHistogramStart --
 *	Resolves -field and empties the bins.
 */
static int
FieldHistogramStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    FieldHistogramState *st = a->state;

    if (FieldHistogramInit(a, NULL) != TCL_OK
	    || RbKitNumericField(a, run, st->field, &st->index) != TCL_OK) {
	return TCL_ERROR;
    }
    st->counts.lo = st->counts.n = 0;
    st->outside = 0;
    return TCL_OK;
}

/*
 * BinOf --
 *	The bin number of v: floor(v / width) for linear bins; for log2
 *	bins -1 for negatives, 0 for [0,1), k + 1 for [2^k, 2^(k+1)).
 */
static int64_t
BinOf(const FieldHistogramState *st, double v)
{
    double k;

    if (st->linear) {
	k = floor(v / st->width);
    } else if (v < 0) {
	return -1;
    } else if (v < 1) {
	return 0;
    } else {
	k = floor(log2(v)) + 1;
    }
    /* Out-of-range bins are refused by Rb_TimeBinsCover. */
    return k < -9e18 ? INT64_MIN / 2 : k > 9e18 ? INT64_MAX / 2
	    : (int64_t)k;
}

/*
 * FieldHistogramBatch --
 *	Counts each selected record's value in its bin.
 */
static void
FieldHistogramBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    FieldHistogramState *st = a->state;
    int j;

    for (j = 0; j < nsel; j++) {
	double v = Rb_FieldAsDouble(b, st->index, sel[j]);
	uint64_t *slot;

	if (!isfinite(v)) {
	    continue;
	}
	slot = Rb_TimeBinsSlot(&st->counts, BinOf(st, v));
	if (slot == NULL) {
	    st->outside++;
	} else {
	    (*slot)++;
	}
    }
}

/*
 * BinRange --
 *	The [lo, hi) of bin k.
 */
static void
BinRange(const FieldHistogramState *st, int64_t k, double *lo, double *hi)
{
    if (st->linear) {
	*lo = (double)k * st->width;
	*hi = *lo + st->width;
    } else if (k < 0) {
	*lo = -INFINITY;
	*hi = 0.0;
    } else if (k == 0) {
	*lo = 0.0;
	*hi = 1.0;
    } else {
	*lo = ldexp(1.0, (int)(k - 1));
	*hi = 2.0 * *lo;
    }
}

/*
 * FieldHistogramEnd --
 *	Sets FieldHistogram (rows from the lowest to the highest non-empty
 *	bin, empty ones between included) and FieldHistogramOutside.
 */
static int
FieldHistogramEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    FieldHistogramState *st = a->state;
    const Rb_TimeBins *tb = &st->counts;
    const char *unit;
    Rb_Attribute *attr;
    int loCol, hiCol, countCol;
    int64_t first = 0, last = tb->n - 1, j;

    RbKitFieldScale(run, st->index, &unit);
    if (run->schema->fields[st->index].unit == RB_UNIT_NS) {
	unit = "ns";
    }
    attr = Rb_AttrCreate("FieldHistogram", RB_ATTR_HISTOGRAM, unit,
	    "number of records per range of the field's values");
    loCol = Rb_AttrAddColumn(attr, "lo", unit, 0);
    hiCol = Rb_AttrAddColumn(attr, "hi", unit, 0);
    countCol = Rb_AttrAddColumn(attr, "count", "", 0);
    while (first < tb->n && tb->sums[first] == 0) {
	first++;
    }
    while (last >= first && tb->sums[last] == 0) {
	last--;
    }
    for (j = first; j <= last; j++) {
	int row = Rb_AttrAddRow(attr);
	double lo, hi;

	BinRange(st, tb->lo + j, &lo, &hi);
	Rb_AttrSetNum(attr, row, loCol, lo);
	Rb_AttrSetNum(attr, row, hiCol, hi);
	Rb_AttrSetNum(attr, row, countCol, (double)tb->sums[j]);
    }
    Rb_AnalyzerSet(a, attr);
    Rb_AnalyzerSet(a, Rb_AttrScalar("FieldHistogramOutside",
	    (double)st->outside, "", "values too far from the others to "
	    "be held in the histogram's bins"));
    return TCL_OK;
}

/*
 * FieldHistogramMerge --
 *	Adds the counts of other (a shard's partial state) into a.
 * Results: TCL_ERROR when the two use different bins.
 */
static int
FieldHistogramMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    FieldHistogramState *st = a->state;
    const FieldHistogramState *ost = other->state;

    if (st->linear != ost->linear
	    || (st->linear && st->width != ost->width)) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH",
		"cannot merge histograms with different bins");
	return TCL_ERROR;
    }
    st->outside += ost->outside + Rb_TimeBinsAddBins(&st->counts,
	    &ost->counts);
    return TCL_OK;
}

/*
 * FieldHistogramFree --
 *	Frees the bins.
 */
static void
FieldHistogramFree(Rb_Analyzer *a)
{
    FieldHistogramState *st = a->state;

    Rb_TimeBinsFree(&st->counts);
}


/*
 * FieldHistogramSerialize, FieldHistogramDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
FieldHistogramSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    FieldHistogramState *st = a->state;

    Rb_BufPutInt(b, (int64_t)st->outside);
    Rb_TimeBinsPut(b, &st->counts);
    return TCL_OK;
}

static int
FieldHistogramDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    FieldHistogramState *st = a->state;

    st->outside = (uint64_t)Rb_BufGetInt(b);
    Rb_TimeBinsGet(b, &st->counts);
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_FieldHistogramAnalyzerClass = {
    .name = "FieldHistogramAnalyzer",
    .help = "histogram of any numeric field, power-of-two or fixed-width "
	    "bins",
    .stateSize = sizeof(FieldHistogramState),
    .options = fieldHistogramOptions,
    .attrs = fieldHistogramAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = FieldHistogramInit,
    .start = FieldHistogramStart,
    .batch = FieldHistogramBatch,
    .end = FieldHistogramEnd,
    .merge = FieldHistogramMerge,
    .serialize = FieldHistogramSerialize,
    .deserialize = FieldHistogramDeserialize,
    .freeState = FieldHistogramFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
