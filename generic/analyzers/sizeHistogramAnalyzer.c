/*
 * sizeHistogramAnalyzer.c --
 *
 *	SizeHistogramAnalyzer: how many I/Os fall in each range of request
 *	sizes, with power-of-two bins (the default) or bins of equal width.
 */

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

/* Log2 bins: slot 0 holds size 0, slot k+1 holds [2^k, 2^(k+1)). */
#define LOG2_SLOTS 64

/* Linear bins past this many are folded into the last one, so a wild
 * size cannot make the histogram take gigabytes. */
#define MAX_LINEAR_SLOTS (1 << 20)

typedef struct SizeHistogramState {
    char *bins;			/* -bins: "log2" or "linear" */
    int64_t width;		/* -width, bytes (linear bins) */
    int linear;
    int64_t *counts;		/* Per slot. */
    int64_t nslots;		/* Slots allocated. */
    int64_t maxSize;		/* Largest size seen (for the last linear
				 * bin's upper bound). */
} SizeHistogramState;

static const Rb_Option sizeHistogramOptions[] = {
    {"-bins", RB_OPT_STRING, offsetof(SizeHistogramState, bins), "log2",
	"log2: bin k holds sizes in [2^k, 2^(k+1)); linear: bins of -width"},
    {"-width", RB_OPT_INT, offsetof(SizeHistogramState, width), "4096",
	"bin width in bytes with -bins linear"},
    {NULL}
};

static const char *const sizeHistogramAttrs[] = {
    "SizeHistogram", NULL
};

/*
 * SizeHistogramInit --
 *	Checks -bins and -width (called from start too, with interp NULL,
 *	since configure may have changed them).
 * Results: TCL_OK or TCL_ERROR with the error set.
 * Side effects: sets st->linear.
 */
static int
SizeHistogramInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    SizeHistogramState *st = a->state;
    const char *bins = st->bins ? st->bins : "log2";

    if (strcmp(bins, "log2") == 0) {
	st->linear = 0;
    } else if (strcmp(bins, "linear") == 0) {
	st->linear = 1;
	if (st->width <= 0) {
	    return RbKitOptionError(a, interp,
		    "-width must be a positive number of bytes");
	}
    } else {
	return RbKitOptionError(a, interp,
		"bad -bins \"%s\": must be log2 or linear", bins);
    }
    return TCL_OK;
}

/*
 * SizeHistogramStart --
 *	Empties the histogram for a new run.
 */
static int
SizeHistogramStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SizeHistogramState *st = a->state;

    if (SizeHistogramInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->nslots < LOG2_SLOTS) {
	st->counts = Rb_ReallocArray(st->counts, LOG2_SLOTS, sizeof(int64_t));
	st->nslots = LOG2_SLOTS;
    }
    memset(st->counts, 0, (size_t)st->nslots * sizeof(int64_t));
    st->maxSize = 0;
    return TCL_OK;
}

/*
 * Log2Slot --
 *	Slot of a size >= 0 in the log2 histogram: 0 for size 0, else
 *	floor(log2(size)) + 1.
 */
static int
Log2Slot(int64_t reqSize)
{
    return reqSize == 0 ? 0 : 64 - __builtin_clzll((uint64_t)reqSize);
}

/*
 * GrowSlots --
 *	Makes slot k (linear bins) exist, zeroed.
 */
static void
GrowSlots(SizeHistogramState *st, int64_t k)
{
    int64_t n = st->nslots > LOG2_SLOTS ? st->nslots : LOG2_SLOTS;

    while (n <= k) {
	n *= 2;
    }
    st->counts = Rb_ReallocArray(st->counts, (size_t)n, sizeof(int64_t));
    memset(st->counts + st->nslots, 0,
	    (size_t)(n - st->nslots) * sizeof(int64_t));
    st->nslots = n;
}

/*
 * SizeHistogramBatch --
 *	Counts each selected I/O in its size's bin.  Absent and negative
 *	sizes are skipped.
 */
static void
SizeHistogramBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    SizeHistogramState *st = a->state;
    const int64_t *size = b->col[RB_IO_SIZE];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t reqSize = size[sel[j]], k;

	if (reqSize == RB_ABSENT || reqSize < 0) {
	    continue;
	}
	if (!st->linear) {
	    st->counts[Log2Slot(reqSize)]++;
	    continue;
	}
	if (reqSize > st->maxSize) {
	    st->maxSize = reqSize;
	}
	k = reqSize / st->width;
	if (k >= MAX_LINEAR_SLOTS) {
	    k = MAX_LINEAR_SLOTS - 1;
	}
	if (k >= st->nslots) {
	    GrowSlots(st, k);
	}
	st->counts[k]++;
    }
}

/*
 * SlotRange --
 *	The [lo, hi) bytes of slot k.
 */
static void
SlotRange(const SizeHistogramState *st, int64_t k, double *lo, double *hi)
{
    if (st->linear) {
	*lo = (double)k * (double)st->width;
	*hi = *lo + (double)st->width;
	if (k == MAX_LINEAR_SLOTS - 1 && st->maxSize >= *hi) {
	    *hi = (double)st->maxSize + 1.0;
	}
    } else if (k == 0) {
	*lo = 0.0;
	*hi = 1.0;
    } else {
	*lo = (double)((uint64_t)1 << (k - 1));
	*hi = 2.0 * *lo;
    }
}

/*
 * SizeHistogramEnd --
 *	Sets SizeHistogram: one row per bin from the smallest to the largest
 *	non-empty one, empty bins between included, so rows are contiguous.
 */
static int
SizeHistogramEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SizeHistogramState *st = a->state;
    Rb_Attribute *attr = Rb_AttrCreate("SizeHistogram", RB_ATTR_HISTOGRAM,
	    "bytes", "number of I/Os per range of request sizes");
    int loCol = Rb_AttrAddColumn(attr, "lo", "bytes", 0);
    int hiCol = Rb_AttrAddColumn(attr, "hi", "bytes", 0);
    int countCol = Rb_AttrAddColumn(attr, "count", "", 0);
    int64_t first = 0, last = st->nslots - 1, k;

    while (first < st->nslots && st->counts[first] == 0) {
	first++;
    }
    while (last >= first && st->counts[last] == 0) {
	last--;
    }
    for (k = first; k <= last; k++) {
	int row = Rb_AttrAddRow(attr);
	double lo, hi;

	SlotRange(st, k, &lo, &hi);
	Rb_AttrSetNum(attr, row, loCol, lo);
	Rb_AttrSetNum(attr, row, hiCol, hi);
	Rb_AttrSetNum(attr, row, countCol, (double)st->counts[k]);
    }
    Rb_AnalyzerSet(a, attr);
    return TCL_OK;
}

/*
 * SizeHistogramMerge --
 *	Adds the counts of other (a shard's partial state) into a.
 * Results: TCL_ERROR when the two use different bins.
 */
static int
SizeHistogramMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    SizeHistogramState *st = a->state;
    const SizeHistogramState *ost = other->state;
    int64_t k;

    if (st->linear != ost->linear
	    || (st->linear && st->width != ost->width)) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH",
		"cannot merge size histograms with different bins");
	return TCL_ERROR;
    }
    if (ost->nslots > st->nslots) {
	GrowSlots(st, ost->nslots - 1);
    }
    for (k = 0; k < ost->nslots; k++) {
	st->counts[k] += ost->counts[k];
    }
    if (ost->maxSize > st->maxSize) {
	st->maxSize = ost->maxSize;
    }
    return TCL_OK;
}

/*
 * SizeHistogramFree --
 *	Frees the bin counts.
 */
static void
SizeHistogramFree(Rb_Analyzer *a)
{
    SizeHistogramState *st = a->state;

    free(st->counts);
    st->counts = NULL;
}


/*
 * SizeHistogramSerialize, SizeHistogramDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
SizeHistogramSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SizeHistogramState *st = a->state;

    int64_t k;

    Rb_BufPutInt(b, st->maxSize);
    Rb_BufPutInt(b, st->nslots);
    for (k = 0; k < st->nslots; k++) {
	Rb_BufPutInt(b, st->counts[k]);
    }
    return TCL_OK;
}

static int
SizeHistogramDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SizeHistogramState *st = a->state;

    int64_t k, n;

    st->maxSize = Rb_BufGetInt(b);
    n = Rb_BufGetCount(b, 8);
    if (n > 0) {
	GrowSlots(st, n - 1);
    }
    for (k = 0; k < n; k++) {
	st->counts[k] = Rb_BufGetInt(b);
    }
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_SizeHistogramAnalyzerClass = {
    .name = "SizeHistogramAnalyzer",
    .help = "histogram of request sizes, power-of-two or fixed-width bins",
    .stateSize = sizeof(SizeHistogramState),
    .options = sizeHistogramOptions,
    .attrs = sizeHistogramAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = SizeHistogramInit,
    .start = SizeHistogramStart,
    .batch = SizeHistogramBatch,
    .end = SizeHistogramEnd,
    .merge = SizeHistogramMerge,
    .serialize = SizeHistogramSerialize,
    .deserialize = SizeHistogramDeserialize,
    .freeState = SizeHistogramFree,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
