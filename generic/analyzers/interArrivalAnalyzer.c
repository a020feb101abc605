/*
 * interArrivalAnalyzer.c --
 *
 *	InterArrivalAnalyzer: the distribution of the times between
 *	consecutive arrivals (enqueue times) of the records reaching it:
 *	mean, coefficient of variation and percentiles (within 1%).
 */

#include <stddef.h>
#include "analyzers.h"

typedef struct InterArrivalState {
    int64_t prev;		/* Previous arrival, or RB_ABSENT. */
    int64_t first;		/* First arrival, or RB_ABSENT (for a split
				 * run: the gap from the shard before). */
    uint64_t outOfOrder;	/* Arrivals earlier than the previous one. */
    Rb_LogHist gaps;		/* In ns. */
} InterArrivalState;

static const char *const interArrivalAttrs[] = {
    "InterArrival", "MeanInterArrival", "InterArrivalCV", NULL
};

/*
 * InterArrivalStart --
 *	Forgets the previous arrival and the gaps for a new run.
 */
static int
InterArrivalStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    InterArrivalState *st = a->state;

    st->prev = st->first = RB_ABSENT;
    st->outOfOrder = 0;
    Rb_LogHistReset(&st->gaps);
    return TCL_OK;
}

/*
 * InterArrivalBatch --
 *	Counts the gap before each selected record.  A record without a time
 *	is skipped; one earlier than its predecessor (out of order) is
 *	counted apart and becomes the new predecessor.
 */
static void
InterArrivalBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    InterArrivalState *st = a->state;
    const int64_t *times = b->col[RB_IO_TIME];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t t = times[sel[j]], gap;

	if (t == RB_ABSENT) {
	    continue;
	}
	if (st->first == RB_ABSENT) {
	    st->first = t;
	}
	if (st->prev != RB_ABSENT) {
	    if (t < st->prev || __builtin_sub_overflow(t, st->prev, &gap)) {
		st->outOfOrder++;
	    } else {
		Rb_LogHistAdd(&st->gaps, (double)gap);
	    }
	}
	st->prev = t;
    }
}

/*
 * InterArrivalEnd --
 *	Sets the percentiles, the mean (s) and the coefficient of variation
 *	(population standard deviation over mean; 0 when the mean is 0).
 */
static int
InterArrivalEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    InterArrivalState *st = a->state;
    const Rb_Moments *m = &st->gaps.moments;

    Rb_AnalyzerSet(a, Rb_LogHistAttr(&st->gaps, "InterArrival", "s",
	    1.0 / RB_NS_PER_S, "percentiles of the time between arrivals "
	    "(within 1%)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanInterArrival",
	    m->n ? m->mean / RB_NS_PER_S : 0.0, "s",
	    "mean time between arrivals"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("InterArrivalCV",
	    m->n && m->mean > 0 ? Rb_MomentsStddev(m) / m->mean : 0.0, "",
	    "coefficient of variation of the time between arrivals "
	    "(1 for Poisson arrivals)"));
    return TCL_OK;
}

/*
 * InterArrivalFree --
 *	Frees the buckets.
 */
static void
InterArrivalFree(Rb_Analyzer *a)
{
    InterArrivalState *st = a->state;

    Rb_LogHistFree(&st->gaps);
}

/*
 * InterArrivalSerialize, InterArrivalDeserialize --
 *	serialize and deserialize hooks: first and last arrival, the
 *	out-of-order count and the gaps.
 */
static int
InterArrivalSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    InterArrivalState *st = a->state;

    RbKitPutCounters(b, &st->prev, 3);
    Rb_LogHistPut(b, &st->gaps);
    return TCL_OK;
}

static int
InterArrivalDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    InterArrivalState *st = a->state;

    RbKitGetCounters(b, &st->prev, 3);
    Rb_LogHistGet(b, &st->gaps);
    return TCL_OK;
}

/*
 * InterArrivalMerge --
 *	merge hook: other's arrivals follow a's, so the gap from a's last
 *	arrival to other's first is counted as one pass would count it.
 * Results: TCL_OK.
 */
static int
InterArrivalMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    InterArrivalState *st = a->state;
    const InterArrivalState *ost = other->state;
    int64_t gap;

    if (ost->first == RB_ABSENT) {
	return TCL_OK;
    }
    if (st->prev != RB_ABSENT) {
	if (ost->first < st->prev
		|| __builtin_sub_overflow(ost->first, st->prev, &gap)) {
	    st->outOfOrder++;
	} else {
	    Rb_LogHistAdd(&st->gaps, (double)gap);
	}
    }
    if (st->first == RB_ABSENT) {
	st->first = ost->first;
    }
    st->prev = ost->prev;
    st->outOfOrder += ost->outOfOrder;
    return Rb_LogHistMerge(a, &st->gaps, &ost->gaps);
}

/*
 * Mergeable in time order: the gap between the last arrival of one shard
 * and the first of the next is counted at the merge (InterArrivalMerge).
 */
const Rb_AnalyzerClass Rb_InterArrivalAnalyzerClass = {
    .name = "InterArrivalAnalyzer",
    .help = "time between arrivals: percentiles, mean, coefficient of "
	    "variation",
    .stateSize = sizeof(InterArrivalState),
    .attrs = interArrivalAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = InterArrivalStart,
    .batch = InterArrivalBatch,
    .end = InterArrivalEnd,
    .freeState = InterArrivalFree,
    .merge = InterArrivalMerge,
    .serialize = InterArrivalSerialize,
    .deserialize = InterArrivalDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
