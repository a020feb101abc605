/*
 * queueDepthAnalyzer.c --
 *
 *	QueueDepthAnalyzer: the time-weighted distribution of the number of
 *	outstanding I/Os, each outstanding from its enqueue time to its
 *	completion.  Arrivals come in time order; pending completions wait
 *	in a min-heap, so memory is bounded by the largest number of I/Os
 *	outstanding at once.
 */

#include <stddef.h>
#include "analyzers.h"

typedef struct QueueDepthState {
    Rb_Heap completions;	/* (finish, 0) of outstanding I/Os. */
    int64_t last;		/* Time up to which depth time is counted. */
    int started;
    Rb_TimeBins nsAtDepth;	/* ns spent at each depth (a growable array
				 * indexed by depth). */
} QueueDepthState;

static const char *const queueDepthAttrs[] = {
    "QueueDepth", "MeanQueueDepth", "MaxQueueDepth", NULL
};

/*
 * QueueDepthStart --
 *	Empties the heap and the times for a new run.
 */
static int
QueueDepthStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    QueueDepthState *st = a->state;

    st->completions.n = 0;
    st->started = 0;
    st->nsAtDepth.lo = st->nsAtDepth.n = 0;
    return TCL_OK;
}

/*
 * CountUntil --
 *	Counts the time from st->last to t (>= st->last) at the current
 *	depth.
 */
static void
CountUntil(QueueDepthState *st, int64_t t)
{
    uint64_t *slot = Rb_TimeBinsSlot(&st->nsAtDepth,
	    (int64_t)st->completions.n);

    if (slot != NULL) {
	*slot += (uint64_t)t - (uint64_t)st->last;
    }
    st->last = t;
}

/*
 * Retire --
 *	Counts the time until each completion due by t, in order, and
 *	removes them.
 */
static void
Retire(QueueDepthState *st, int64_t t)
{
    while (st->completions.n > 0 && st->completions.items[0].key <= t) {
	CountUntil(st, st->completions.items[0].key);
	RbHeapPop(&st->completions);
    }
}

/*
 * QueueDepthBatch --
 *	Each selected I/O becomes outstanding at its enqueue time until its
 *	finish time.  I/Os without both, or finishing before enqueue, are
 *	skipped; an arrival before the time already counted (out of order)
 *	is taken to arrive then.
 */
static void
QueueDepthBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    QueueDepthState *st = a->state;
    const int64_t *times = b->col[RB_IO_TIME];
    const int64_t *finishes = b->col[RB_IO_FINISH];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t t = times[sel[j]], finish = finishes[sel[j]];

	if (t == RB_ABSENT || finish == RB_ABSENT || finish < t) {
	    continue;
	}
	if (!st->started) {
	    st->last = t;
	    st->started = 1;
	}
	Retire(st, t);
	if (t > st->last) {
	    CountUntil(st, t);
	}
	RbHeapPush(&st->completions, finish, 0);
    }
}

/*
 * QueueDepthEnd --
 *	Retires every outstanding I/O and sets the distribution (time and
 *	fraction of time at each depth, from the first arrival to the last
 *	completion), its mean and maximum.
 */
static int
QueueDepthEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    QueueDepthState *st = a->state;
    Rb_TimeBins *tb = &st->nsAtDepth;
    Rb_Attribute *attr = Rb_AttrCreate("QueueDepth", RB_ATTR_HISTOGRAM, "s",
	    "time spent with each number of I/Os outstanding");
    int loCol = Rb_AttrAddColumn(attr, "lo", "", 0);
    int hiCol = Rb_AttrAddColumn(attr, "hi", "", 0);
    int timeCol = Rb_AttrAddColumn(attr, "time", "s", 0);
    int fracCol = Rb_AttrAddColumn(attr, "fraction", "", 0);
    double total = 0.0, weighted = 0.0;
    int64_t k, maxDepth = 0;

    Retire(st, INT64_MAX);
    for (k = 0; k < tb->n; k++) {
	total += (double)tb->sums[k];
	weighted += (double)(tb->lo + k) * (double)tb->sums[k];
	if (tb->sums[k] > 0) {
	    maxDepth = tb->lo + k;
	}
    }
    for (k = 0; k <= maxDepth && k < tb->n; k++) {
	int row = Rb_AttrAddRow(attr);

	Rb_AttrSetNum(attr, row, loCol, (double)(tb->lo + k));
	Rb_AttrSetNum(attr, row, hiCol, (double)(tb->lo + k + 1));
	Rb_AttrSetNum(attr, row, timeCol, (double)tb->sums[k] / RB_NS_PER_S);
	Rb_AttrSetNum(attr, row, fracCol,
		total > 0 ? (double)tb->sums[k] / total : 0.0);
    }
    Rb_AnalyzerSet(a, attr);
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanQueueDepth",
	    total > 0 ? weighted / total : 0.0, "IOs",
	    "time-weighted mean number of outstanding I/Os"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MaxQueueDepth", (double)maxDepth,
	    "IOs", "largest number of outstanding I/Os"));
    return TCL_OK;
}

/*
 * QueueDepthFree --
 *	Frees the heap and the times.
 */
static void
QueueDepthFree(Rb_Analyzer *a)
{
    QueueDepthState *st = a->state;

    RbHeapFree(&st->completions);
    Rb_TimeBinsFree(&st->nsAtDepth);
}

/*
 * Not mergeable: I/Os of one shard outstanding at another's arrivals
 * change the depth those arrivals see.
 */
const Rb_AnalyzerClass Rb_QueueDepthAnalyzerClass = {
    .name = "QueueDepthAnalyzer",
    .help = "time-weighted distribution of outstanding I/Os (enqueue to "
	    "completion)",
    .stateSize = sizeof(QueueDepthState),
    .attrs = queueDepthAttrs,
    .mergeable = 0,
    .perRecordState = 0,
    .start = QueueDepthStart,
    .batch = QueueDepthBatch,
    .end = QueueDepthEnd,
    .freeState = QueueDepthFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_FINISH),
};
