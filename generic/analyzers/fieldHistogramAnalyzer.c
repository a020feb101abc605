/*
 * fieldHistogramAnalyzer.c --
 *
 *	FieldHistogramAnalyzer: how many records fall in each range of any
 *	numeric field's values, with power-of-two bins (the default) or bins
 *	of equal width (e.g. -field queueLen -bins linear -width 1 for the
 *	queue-length field's own distribution).  -field also takes the
 *	durations of an I/O (responseTime, serviceTime, queueTime), in ns,
 *	and -base scales the log2 bins (-field responseTime -base 1000:
 *	power-of-two microseconds, as biolatency counts them).
 */

#include <math.h>
#include <stddef.h>
#include <string.h>
#include "analyzers.h"

typedef struct FieldHistogramState {
    char *field;		/* -field */
    char *bins;			/* -bins: "log2" or "linear" */
    double width;		/* -width (linear bins) */
    double base;		/* -base (log2 bins) */
    int index;			/* The field, or -1 for a duration: */
    int from, to;		/* its two time fields. */
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
    {"-base", RB_OPT_DOUBLE, offsetof(FieldHistogramState, base), "1",
	"with -bins log2: bins [0,base), [base,2 base), [2 base,4 base) ... "
	"(1000 for microseconds of a time in ns)"},
    {NULL}
};

static const char *const fieldHistogramAttrs[] = {
    "FieldHistogram", "FieldHistogramOutside", NULL
};

/*
 * FieldHistogramInit --
 *	Checks -bins, -width and -base (also from start, with interp NULL).
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
    if (!(st->base > 0 && isfinite(st->base))) {
	return RbKitOptionError(a, interp, "-base must be positive");
    }
    return TCL_OK;
}

/*
 * ResolveField --
 *	Resolves -field: a numeric field of the schema, or one of the
 *	durations between two time fields.
 * Results: TCL_OK, or TCL_ERROR with an analyzer error.
 */
static int
ResolveField(Rb_Analyzer *a, const Rb_RunInfo *run, FieldHistogramState *st)
{
    int d = RbKitDurationField(a, run, st->field, &st->from, &st->to);

    st->index = -1;
    return d < 0 ? TCL_ERROR : d > 0 ? TCL_OK
	    : RbKitNumericField(a, run, st->field, &st->index);
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
	    || ResolveField(a, run, st) != TCL_OK) {
	return TCL_ERROR;
    }
    st->counts.lo = st->counts.n = 0;
    st->outside = 0;
    return TCL_OK;
}

/*
 * BinOf --
 *	The bin number of v: floor(v / width) for linear bins; for log2
 *	bins, with q = v / base, -1 for negatives, 0 for [0,1), k + 1 for
 *	[2^k, 2^(k+1)): frexp's exponent of q, exact where floor(log2(q))
 *	may round up just below a power of two.
 */
static int64_t
BinOf(const FieldHistogramState *st, double v)
{
    double k;
    int e;

    if (st->linear) {
	k = floor(v / st->width);
    } else if (v < 0) {
	return -1;
    } else if ((v /= st->base) < 1) {
	return 0;
    } else {
	/* q = m 2^e with m in [0.5, 1): q in [2^(e-1), 2^e), bin e, which
	 * for q >= 1 finite is its biased exponent less 1022 (frexp, a
	 * library call, for an infinite q). */
	uint64_t bits;

	memcpy(&bits, &v, sizeof bits);
	e = (int)((bits >> 52) & 0x7ff);
	if (e == 0x7ff) {
	    frexp(v, &e);
	    return e;
	}
	return e - 1022;
    }
    /* Out-of-range bins are refused by Rb_TimeBinsCover. */
    return k < -9e18 ? INT64_MIN / 2 : k > 9e18 ? INT64_MAX / 2
	    : (int64_t)k;
}

/*
 * FieldHistogramBatch --
 *	Counts each selected record's value in its bin.  A duration is left
 *	out when either time is missing, the end precedes the beginning or
 *	they are too far apart for int64 (as ResponseTimeAnalyzer has it).
 */
static void
FieldHistogramBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    FieldHistogramState *st = a->state;
    const int64_t *from = st->index < 0 ? b->col[st->from] : NULL;
    const int64_t *to = st->index < 0 ? b->col[st->to] : NULL;
    int j;

    for (j = 0; j < nsel; j++) {
	double v;
	uint64_t *slot;

	if (from != NULL) {
	    int64_t ns;

	    if (!RbLatencyNs(from[sel[j]], to[sel[j]], &ns)) {
		continue;
	    }
	    v = (double)ns;
	} else {
	    v = Rb_FieldAsDouble(b, st->index, sel[j]);
	}
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
	*hi = st->base;
    } else {
	*lo = st->base * ldexp(1.0, (int)(k - 1));
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

    if (st->index < 0) {
	unit = "ns";
    } else {
	RbKitFieldScale(run, st->index, &unit);
	if (run->schema->fields[st->index].unit == RB_UNIT_NS) {
	    unit = "ns";
	}
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
	    || (st->linear ? st->width != ost->width : st->base != ost->base)) {
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
