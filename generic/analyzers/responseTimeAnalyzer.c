/*
 * responseTimeAnalyzer.c --
 *
 *	ResponseTimeAnalyzer: percentiles, mean and count of the time from
 *	one time field of an I/O to another (by default enqueue to completion,
 *	the response time; startTime to finishTime gives the service time,
 *	time to startTime the queueing time).
 *
 *	Percentiles of an unbounded stream in bounded memory: durations are
 *	counted in logarithmic buckets, bucket k holding (g^(k-1), g^k] ns
 *	with g = (1 + ALPHA) / (1 - ALPHA), and a percentile is reported as
 *	2 g^k / (g + 1), which is within a relative ALPHA of every value in
 *	the bucket.  Since the counts are exact, the bucket holding the rank
 *	is exact, so the reported value is within ALPHA (1%) of the exact
 *	order statistic.  Count, mean, minimum and maximum are kept exactly.
 */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

#define ALPHA 0.01

/* Enough buckets for any positive int64 duration: ln(2^63) / ln(g) is
 * about 2184. */
#define NBUCKETS 2200

typedef struct ResponseTimeState {
    char *fromField;		/* -from */
    char *toField;		/* -to */
    int fromIndex, toIndex;	/* Resolved at start. */
    double invLogGamma;		/* 1 / ln(g) */
    uint64_t count;
    uint64_t zeros;		/* Durations of 0 ns. */
    uint64_t sumNs;
    int64_t minNs, maxNs;
    uint64_t *buckets;		/* NBUCKETS counts. */
} ResponseTimeState;

static const Rb_Option responseTimeOptions[] = {
    {"-from", RB_OPT_FIELD, offsetof(ResponseTimeState, fromField), "time",
	"time field where the measured interval begins"},
    {"-to", RB_OPT_FIELD, offsetof(ResponseTimeState, toField), "finishTime",
	"time field where the measured interval ends"},
    {NULL}
};

static const char *const responseTimeAttrs[] = {
    "ResponseTime", "MeanResponseTime", "ResponseTimeCount", NULL
};

/* The percentiles reported; 0 and 100 are the exact minimum and maximum. */
static const double reportedPercentiles[] = {
    0, 50, 90, 95, 99, 99.9, 100
};

/*
 * Gamma --
 *	The ratio g between consecutive bucket bounds.
 */
static double
Gamma(void)
{
    return (1.0 + ALPHA) / (1.0 - ALPHA);
}

/*
 * ResolveTimeField --
 *	Looks up a -from/-to field and checks that it holds a time in ns.
 * Results: TCL_OK with *index set, or TCL_ERROR with an analyzer error.
 */
static int
ResolveTimeField(Rb_Analyzer *a, const Rb_RunInfo *run, const char *name,
	int *index)
{
    const Rb_Field *f;

    *index = -1;
    if (Rb_AnalyzerField(a, run, name, index) < 0 || *index < 0) {
	return TCL_ERROR;
    }
    f = &run->schema->fields[*index];
    if (f->type != RB_FT_INT || f->unit != RB_UNIT_NS) {
	return Rb_KitOptionError(a, NULL,
		"field \"%s\" is not a time in nanoseconds", f->name);
    }
    return TCL_OK;
}

/*
 * ResponseTimeStart --
 *	Resolves the fields and empties the buckets for a new run.
 * Results: TCL_OK, or TCL_ERROR when a field is unknown or not a time.
 */
static int
ResponseTimeStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ResponseTimeState *st = a->state;

    if (ResolveTimeField(a, run, st->fromField, &st->fromIndex) != TCL_OK
	    || ResolveTimeField(a, run, st->toField, &st->toIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->buckets == NULL) {
	st->buckets = Rb_KitRealloc(NULL, NBUCKETS * sizeof(uint64_t));
    }
    memset(st->buckets, 0, NBUCKETS * sizeof(uint64_t));
    st->invLogGamma = 1.0 / log(Gamma());
    st->count = st->zeros = 0;
    st->sumNs = 0;
    st->minNs = INT64_MAX;
    st->maxNs = INT64_MIN;
    return TCL_OK;
}

/*
 * ResponseTimeBatch --
 *	Counts the duration of each selected I/O.  I/Os missing either time,
 *	whose end precedes their beginning, or whose times are too far apart
 *	for int64 (corrupt), are skipped.
 */
static void
ResponseTimeBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ResponseTimeState *st = a->state;
    const int64_t *from = b->col[st->fromIndex];
    const int64_t *to = b->col[st->toIndex];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t t0 = from[sel[j]], t1 = to[sel[j]], ns;

	if (t0 == RB_ABSENT || t1 == RB_ABSENT || t1 < t0
		|| __builtin_sub_overflow(t1, t0, &ns)) {
	    continue;
	}
	st->count++;
	st->sumNs += (uint64_t)ns;
	if (ns < st->minNs) {
	    st->minNs = ns;
	}
	if (ns > st->maxNs) {
	    st->maxNs = ns;
	}
	if (ns == 0) {
	    st->zeros++;
	} else {
	    int k = (int)ceil(log((double)ns) * st->invLogGamma);

	    st->buckets[k < NBUCKETS ? k : NBUCKETS - 1]++;
	}
    }
}

/*
 * PercentileNs --
 *	The p-th percentile (nearest rank: the value of rank ceil(p/100 n),
 *	at least 1) estimated from the buckets, within ALPHA of the exact
 *	value and clamped to the exact [min, max].  count must be > 0.
 */
static double
PercentileNs(const ResponseTimeState *st, double p)
{
    double exactRank = p / 100.0 * (double)st->count;
    /* Shave rounding noise so that 99.9% of 5000 is rank 4995, not 4996. */
    uint64_t rank = (uint64_t)ceil(exactRank - exactRank * 1e-12);
    uint64_t seen = st->zeros;
    double est = 0.0;
    int k;

    if (p <= 0.0) {
	return (double)st->minNs;
    }
    if (p >= 100.0) {
	return (double)st->maxNs;
    }
    if (rank < 1) {
	rank = 1;
    }
    if (seen < rank) {
	for (k = 0; k < NBUCKETS; k++) {
	    seen += st->buckets[k];
	    if (seen >= rank) {
		break;
	    }
	}
	est = 2.0 * pow(Gamma(), k) / (Gamma() + 1.0);
    }
    if (est < (double)st->minNs) {
	est = (double)st->minNs;
    }
    if (est > (double)st->maxNs) {
	est = (double)st->maxNs;
    }
    return est;
}

/*
 * ResponseTimeEnd --
 *	Sets ResponseTime (no rows when nothing was measured),
 *	MeanResponseTime and ResponseTimeCount.
 */
static int
ResponseTimeEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ResponseTimeState *st = a->state;
    Rb_Attribute *attr = Rb_AttrCreate("ResponseTime", RB_ATTR_PERCENTILES,
	    "s", "percentiles of the response time (within 1%)");
    int pCol = Rb_AttrAddColumn(attr, "p", "%", 0);
    int valueCol = Rb_AttrAddColumn(attr, "value", "s", 0);
    size_t i;

    for (i = 0; st->count > 0 && i < sizeof(reportedPercentiles)
	    / sizeof(reportedPercentiles[0]); i++) {
	int row = Rb_AttrAddRow(attr);

	Rb_AttrSetNum(attr, row, pCol, reportedPercentiles[i]);
	Rb_AttrSetNum(attr, row, valueCol,
		PercentileNs(st, reportedPercentiles[i]) / RB_NS_PER_S);
    }
    Rb_AnalyzerSet(a, attr);
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanResponseTime", st->count > 0
	    ? (double)st->sumNs / (double)st->count / RB_NS_PER_S : 0.0, "s",
	    "mean response time"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ResponseTimeCount", (double)st->count,
	    "", "number of I/Os whose response time was measured"));
    return TCL_OK;
}

/*
 * ResponseTimeMerge --
 *	Adds the buckets and sums of other (a shard's partial state) into a.
 */
static int
ResponseTimeMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ResponseTimeState *st = a->state;
    const ResponseTimeState *ost = other->state;
    int k;

    if (ost->count == 0) {
	return TCL_OK;
    }
    if (st->buckets == NULL) {
	st->buckets = Rb_KitRealloc(NULL, NBUCKETS * sizeof(uint64_t));
	memset(st->buckets, 0, NBUCKETS * sizeof(uint64_t));
    }
    for (k = 0; k < NBUCKETS; k++) {
	st->buckets[k] += ost->buckets[k];
    }
    st->count += ost->count;
    st->zeros += ost->zeros;
    st->sumNs += ost->sumNs;
    if (ost->minNs < st->minNs) {
	st->minNs = ost->minNs;
    }
    if (ost->maxNs > st->maxNs) {
	st->maxNs = ost->maxNs;
    }
    return TCL_OK;
}

/*
 * ResponseTimeFree --
 *	Frees the buckets.
 */
static void
ResponseTimeFree(Rb_Analyzer *a)
{
    ResponseTimeState *st = a->state;

    free(st->buckets);
    st->buckets = NULL;
}

const Rb_AnalyzerClass Rb_ResponseTimeAnalyzerClass = {
    .name = "ResponseTimeAnalyzer",
    .help = "response time (or service or queue time) percentiles, "
	    "mean and count",
    .stateSize = sizeof(ResponseTimeState),
    .options = responseTimeOptions,
    .attrs = responseTimeAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = ResponseTimeStart,
    .batch = ResponseTimeBatch,
    .end = ResponseTimeEnd,
    .merge = ResponseTimeMerge,
    .freeState = ResponseTimeFree,
};
