/*
 * queueDepthAnalyzer.c --
 *
 *	QueueDepthAnalyzer: the time-weighted distribution of the number of
 *	outstanding I/Os, each outstanding from its enqueue time to its
 *	completion.  Arrivals come in time order; pending completions wait
 *	in a min-heap, so memory is bounded by the largest number of I/Os
 *	outstanding at once.
 *
 *	For a split run a shard also keeps the arrival and finish of its
 *	I/Os within -boundary of its first: the merge passes them again
 *	through the state the shards before it ended in, whose I/Os still
 *	outstanding deepen the queue they see, until those have completed.
 */

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"
#include "core/mpi.h"

/* The queue as one pass over records sees it. */
typedef struct DepthMachine {
    Rb_Heap completions;	/* (finish, 0) of outstanding I/Os. */
    int64_t last;		/* Time up to which depth time is counted. */
    int started;
    Rb_TimeBins nsAtDepth;	/* ns spent at each depth (a growable array
				 * indexed by depth). */
} DepthMachine;

typedef struct QueueDepthState {
    int64_t boundary;		/* -boundary, ns */
    DepthMachine m;
    int64_t firstT;		/* The shard's first arrival. */
    RbKitPacked early;		/* (arrival, finish) of the I/Os arriving
				 * within -boundary of firstT (read in
				 * place when deserialized), */
    int cut;			/* and whether any arrived later. */
    int keep;			/* Whether early arrivals are kept: not on
				 * rank 0 of a split run, whose state is
				 * merged into no other. */
    /* SweepBatch's scratch, room for cap records: */
    int cap;
    int64_t *t, *f;		/* The batch's arrivals and finishes. */
    uint32_t *ord, *tmp;	/* Its records by finish. */
    int64_t *pend;		/* The queue's completions, in order. */
    size_t pendCap;
} QueueDepthState;

static const Rb_Option queueDepthOptions[] = {
    {"-boundary", RB_OPT_TIME, offsetof(QueueDepthState, boundary), "60",
	"time after a shard's first I/O whose arrivals are kept for a "
	"split run's merge"},
    {NULL}
};

static const char *const queueDepthAttrs[] = {
    "QueueDepth", "MeanQueueDepth", "MaxQueueDepth", NULL
};

/*
 * QueueDepthStart --
 *	Checks -boundary; empties the queue, the times and the early
 *	arrivals for a new run.
 */
static int
QueueDepthStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    QueueDepthState *st = a->state;

    if (st->boundary < 0) {
	return RbKitOptionError(a, NULL, "-boundary must not be negative");
    }
    st->m.completions.n = 0;
    st->m.started = 0;
    st->m.nsAtDepth.lo = st->m.nsAtDepth.n = 0;
    RbKitPackedClear(&st->early);
    st->cut = 0;
    st->keep = !(RbMergeWanted() && RbShardFirst());
    return TCL_OK;
}

/*
 * CountUntil --
 *	Counts the time from m->last to t (>= m->last) at the current
 *	depth.
 */
static void
CountUntil(DepthMachine *m, int64_t t)
{
    uint64_t *slot = Rb_TimeBinsSlot(&m->nsAtDepth,
	    (int64_t)m->completions.n);

    if (slot != NULL) {
	*slot += (uint64_t)t - (uint64_t)m->last;
    }
    m->last = t;
}

/*
 * Retire --
 *	Counts the time until each completion due by t, in order, and
 *	removes them.
 */
static void
Retire(DepthMachine *m, int64_t t)
{
    while (m->completions.n > 0 && m->completions.items[0].key <= t) {
	CountUntil(m, m->completions.items[0].key);
	RbHeapPop(&m->completions);
    }
}

/*
 * Arrive --
 *	An I/O outstanding from t to finish (>= t) joins the queue.  An
 *	arrival before the time already counted (out of order) is taken to
 *	arrive then.
 */
static void
Arrive(DepthMachine *m, int64_t t, int64_t finish)
{
    if (!m->started) {
	m->last = t;
	m->started = 1;
    }
    Retire(m, t);
    if (t > m->last) {
	CountUntil(m, t);
    }
    RbHeapPush(&m->completions, finish, 0);
}

/*
 * KeepEarly --
 *	Keeps an arrival within -boundary of the shard's first (while none
 *	later has come), or notes that one came later (unless st->keep is
 *	0).
 */
static void
KeepEarly(QueueDepthState *st, int64_t t, int64_t finish)
{
    if (!st->keep) {
	return;
    }
    if (st->cut || (t > st->firstT && t - st->firstT >= st->boundary)) {
	st->cut = 1;
	return;
    }
    RbKitPackedAppend(&st->early, t, finish);
}

/*
 * SortByFinish --
 *	Puts the records 0..n-1 in st->ord in order of finish (st->f, each
 *	at least base), equal finishes in record order: an LSD radix sort on
 *	the finish less base, 11 bits a pass, as many passes as its largest
 *	value needs.
 */
#define RADIX_BITS 11
#define RADIX_SIZE (1 << RADIX_BITS)

static void
SortByFinish(QueueDepthState *st, int n, int64_t base, uint64_t range)
{
    uint32_t count[RADIX_SIZE], *from = st->ord, *to = st->tmp, *swap;
    int shift, i;

    for (i = 0; i < n; i++) {
	from[i] = (uint32_t)i;
    }
    for (shift = 0; shift < 64 && (range >> shift) != 0;
	    shift += RADIX_BITS) {
	uint32_t sum = 0;

	memset(count, 0, sizeof(count));
	for (i = 0; i < n; i++) {
	    count[((uint64_t)(st->f[i] - base) >> shift) & (RADIX_SIZE - 1)]++;
	}
	for (i = 0; i < RADIX_SIZE; i++) {
	    uint32_t c = count[i];

	    count[i] = sum;
	    sum += c;
	}
	for (i = 0; i < n; i++) {
	    uint32_t r = from[i];

	    to[count[((uint64_t)(st->f[r] - base) >> shift)
		    & (RADIX_SIZE - 1)]++] = r;
	}
	swap = from;
	from = to;
	to = swap;
    }
    if (from != st->ord) {
	memcpy(st->ord, from, (size_t)n * sizeof(uint32_t));
    }
}

/*
 * SweepBatch --
 *	What Arrive does for each of the batch's n I/Os (arrivals st->t in
 *	time order, none before the time counted; finishes st->f), with
 *	the completions sorted once instead of a heap per I/O: the queue's
 *	completions and the batch's, merged in order of time, are retired
 *	before each arrival as Retire would take them from the heap (those
 *	due by its time, of I/Os that arrived before it), and those still
 *	due after the last arrival become the queue.  The time counted at
 *	each depth is the same, in the same steps.
 */
static void
SweepBatch(QueueDepthState *st, int n)
{
    DepthMachine *m = &st->m;
    size_t np = m->completions.n, pi = 0, depth = np, k;
    int64_t last = m->last, lastF = st->t[0];
    int i, ci = 0;
    uint64_t *slot;

    for (i = 0; i < n; i++) {
	lastF = st->f[i] > lastF ? st->f[i] : lastF;
    }
    SortByFinish(st, n, st->t[0], (uint64_t)(lastF - st->t[0]));
    if (np > st->pendCap) {
	st->pendCap = 2 * np;
	st->pend = Rb_ReallocArray(st->pend, st->pendCap, sizeof(int64_t));
    }
    /* The queue's completions in order, taken from its heap. */
    for (k = 0; k < np; k++) {
	st->pend[k] = RbHeapPop(&m->completions).key;
    }
#define COUNT_UNTIL(time) \
    do { \
	if ((slot = Rb_TimeBinsSlot(&m->nsAtDepth, (int64_t)depth)) \
		!= NULL) { \
	    *slot += (uint64_t)(time) - (uint64_t)last; \
	} \
	last = (time); \
    } while (0)
    for (i = 0; i < n; i++) {
	int64_t t = st->t[i];

	for (;;) {
	    if (pi < np && (ci == n || st->pend[pi] <= st->f[st->ord[ci]])) {
		if (st->pend[pi] > t) {
		    break;
		}
		COUNT_UNTIL(st->pend[pi]);
		pi++;
	    } else if (ci < n) {
		uint32_t r = st->ord[ci];

		/* Due by t, and of an I/O that arrived before this one. */
		if (st->f[r] > t || (st->f[r] == t && (int)r >= i)) {
		    break;
		}
		COUNT_UNTIL(st->f[r]);
		ci++;
	    } else {
		break;
	    }
	    depth--;
	}
	if (t > last) {
	    COUNT_UNTIL(t);
	}
	depth++;
    }
#undef COUNT_UNTIL
    m->last = last;
    /* The rest, in order (a heap as it is), into the emptied heap. */
    while (pi < np || ci < n) {
	if (pi < np && (ci == n || st->pend[pi] <= st->f[st->ord[ci]])) {
	    RbHeapPush(&m->completions, st->pend[pi++], 0);
	} else {
	    RbHeapPush(&m->completions, st->f[st->ord[ci++]], 0);
	}
    }
}

/*
 * QueueDepthBatch --
 *	Each selected I/O becomes outstanding at its enqueue time until its
 *	finish time (Arrive).  I/Os without both, or finishing before
 *	enqueue, are skipped.  When the batch's arrivals are in time order
 *	and none comes before the time counted, SweepBatch does the same
 *	for the whole batch.
 */
static void
QueueDepthBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    QueueDepthState *st = a->state;
    const int64_t *times = b->col[RB_IO_TIME];
    const int64_t *finishes = b->col[RB_IO_FINISH];
    int j, n = 0, inOrder = 1;

    if (nsel > st->cap) {
	st->cap = nsel;
	st->t = Rb_ReallocArray(st->t, (size_t)nsel, sizeof(int64_t));
	st->f = Rb_ReallocArray(st->f, (size_t)nsel, sizeof(int64_t));
	st->ord = Rb_ReallocArray(st->ord, (size_t)nsel, sizeof(uint32_t));
	st->tmp = Rb_ReallocArray(st->tmp, (size_t)nsel, sizeof(uint32_t));
    }
    for (j = 0; j < nsel; j++) {
	int64_t t = times[sel[j]], finish = finishes[sel[j]];

	if (t == RB_ABSENT || finish == RB_ABSENT || finish < t) {
	    continue;
	}
	inOrder &= n == 0 || t >= st->t[n - 1];
	st->t[n] = t;
	st->f[n++] = finish;
    }
    if (n == 0) {
	return;
    }
    if (!st->m.started) {
	st->firstT = st->t[0];
	st->m.last = st->t[0];
	st->m.started = 1;
    }
    for (j = 0; j < n; j++) {
	KeepEarly(st, st->t[j], st->f[j]);
    }
    if (inOrder && st->t[0] >= st->m.last) {
	SweepBatch(st, n);
	return;
    }
    for (j = 0; j < n; j++) {
	Arrive(&st->m, st->t[j], st->f[j]);
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
    Rb_TimeBins *tb = &st->m.nsAtDepth;
    Rb_Attribute *attr = Rb_AttrCreate("QueueDepth", RB_ATTR_HISTOGRAM, "s",
	    "time spent with each number of I/Os outstanding");
    int loCol = Rb_AttrAddColumn(attr, "lo", "", 0);
    int hiCol = Rb_AttrAddColumn(attr, "hi", "", 0);
    int timeCol = Rb_AttrAddColumn(attr, "time", "s", 0);
    int fracCol = Rb_AttrAddColumn(attr, "fraction", "", 0);
    double total = 0.0, weighted = 0.0;
    int64_t k, maxDepth = 0;

    Retire(&st->m, INT64_MAX);
    for (k = 0; k < tb->n; k++) {
	total += (double)tb->sums[k];
	weighted += (double)(tb->lo + k) * (double)tb->sums[k];
	if (tb->sums[k] > 0) {
	    maxDepth = tb->lo + k;
	}
    }
    /* One row per depth from 0 to the largest held for some time (a
     * queue that never empties counts no time at 0, nor at depths held
     * for no time past the largest). */
    for (k = 0; tb->n > 0 && k <= maxDepth; k++) {
	int row = Rb_AttrAddRow(attr);
	uint64_t ns = k >= tb->lo && k < tb->lo + tb->n ? tb->sums[k - tb->lo]
		: 0;

	Rb_AttrSetNum(attr, row, loCol, (double)k);
	Rb_AttrSetNum(attr, row, hiCol, (double)(k + 1));
	Rb_AttrSetNum(attr, row, timeCol, (double)ns / RB_NS_PER_S);
	Rb_AttrSetNum(attr, row, fracCol, total > 0 ? (double)ns / total : 0.0);
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

    RbHeapFree(&st->m.completions);
    Rb_TimeBinsFree(&st->m.nsAtDepth);
    RbKitPackedFree(&st->early);
    free(st->t);
    free(st->f);
    free(st->ord);
    free(st->tmp);
    free(st->pend);
}

/*
 * QueueDepthSerialize, QueueDepthDeserialize --
 *	serialize and deserialize hooks: the queue (outstanding I/Os, time
 *	counted, time at each depth), the first arrival and the early
 *	arrivals (left where they lie in buf by deserialize: earlyIn).
 */
static int
QueueDepthSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    QueueDepthState *st = a->state;

    RbHeapPut(b, &st->m.completions);
    Rb_BufPutInt(b, st->m.last);
    Rb_BufPutInt(b, st->m.started);
    Rb_TimeBinsPut(b, &st->m.nsAtDepth);
    Rb_BufPutInt(b, st->firstT);
    Rb_BufPutInt(b, st->cut);
    RbKitPackedPut(b, &st->early);
    return TCL_OK;
}

static int
QueueDepthDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    QueueDepthState *st = a->state;

    RbHeapGet(b, &st->m.completions);
    st->m.last = Rb_BufGetInt(b);
    st->m.started = (int)Rb_BufGetInt(b);
    Rb_TimeBinsGet(b, &st->m.nsAtDepth);
    st->firstT = Rb_BufGetInt(b);
    st->cut = (int)Rb_BufGetInt(b);
    RbKitPackedGet(b, &st->early);
    return TCL_OK;
}

/*
 * TakeOver --
 *	After other's early arrivals (all, or up to where the queues
 *	agree) passed through a's queue and through an empty one (alone)
 *	alike: when both queues agree (the I/Os of the shards before have
 *	all completed), a's queue becomes other's, and the time other
 *	counted after those arrivals is added to a's.
 * Results: TCL_OK, or TCL_ERROR (RUBICON MERGE MISMATCH) when they still
 *	differ: an I/O outstanding across the boundary for longer than
 *	-boundary.
 */
static int
TakeOver(Rb_Analyzer *a, const QueueDepthState *ost, const DepthMachine *alone)
{
    QueueDepthState *st = a->state;
    const Rb_TimeBins *tb = &alone->nsAtDepth;
    uint64_t *slot;
    int64_t k;
    size_t i;

    if (st->m.completions.n != alone->completions.n
	    || st->m.last != alone->last) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: an I/O "
		"outstanding across a shard boundary completes more than "
		"-boundary %g s after the next shard's first I/O, or the "
		"shards are not in time order (raise -boundary; give the "
		"traces in time order)", a->cls->name,
		(double)st->boundary / RB_NS_PER_S);
	return TCL_ERROR;
    }
    Rb_TimeBinsAddBins(&st->m.nsAtDepth, &ost->m.nsAtDepth);
    for (k = 0; k < tb->n; k++) {
	if ((slot = Rb_TimeBinsSlot(&st->m.nsAtDepth, tb->lo + k)) != NULL) {
	    *slot -= tb->sums[k];
	}
    }
    st->m.completions.n = 0;
    for (i = 0; i < ost->m.completions.n; i++) {
	RbHeapPush(&st->m.completions, ost->m.completions.items[i].key, 0);
    }
    st->m.last = ost->m.last;
    return TCL_OK;
}

/*
 * QueueDepthMerge --
 *	merge hook: other's I/Os follow a's.  Its early arrivals pass
 *	through a's queue, where a's outstanding I/Os deepen it, as one
 *	pass would count them, and through an empty queue alike, until the
 *	two queues agree (a's I/Os have all completed; usually within a
 *	few arrivals): from there on both would count the same, so other's
 *	queue and the time it counted after that point are taken over
 *	(TakeOver), and the rest of its early arrivals are only kept.
 *	Without agreement, every early arrival has passed through a's
 *	queue; when other had later ones that is a mismatch (TakeOver).
 * Results: TCL_OK, or TCL_ERROR past -boundary.
 */
static int
QueueDepthMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    QueueDepthState *st = a->state;
    const QueueDepthState *ost = other->state;
    DepthMachine alone;
    RbKitPackedIter it;
    int64_t t, finish;
    int code = TCL_OK, agree = 0;

    if (!ost->m.started) {
	return TCL_OK;
    }
    if (!st->m.started) {
	st->firstT = ost->firstT;
    }
    memset(&alone, 0, sizeof(alone));
    RbKitPackedBegin(&ost->early, &it);
    while (code == TCL_OK) {
	if (!RbKitPackedNext(&it, &t, &finish)) {
	    if (it.left > 0) {
		Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: a later "
			"shard's early arrivals are cut short", a->cls->name);
		code = TCL_ERROR;
	    }
	    break;
	}
	KeepEarly(st, t, finish);
	if (!agree) {
	    Arrive(&st->m, t, finish);
	    Arrive(&alone, t, finish);
	    agree = st->m.completions.n == alone.completions.n
		    && st->m.last == alone.last;
	    if (agree) {
		code = TakeOver(a, ost, &alone);
	    }
	} else if (!st->keep || st->cut) {
	    break;		/* nothing left to pass or to keep */
	}
    }
    if (ost->cut && code == TCL_OK) {
	st->cut = 1;
	if (!agree) {
	    code = TakeOver(a, ost, &alone);
	}
    }
    RbHeapFree(&alone.completions);
    Rb_TimeBinsFree(&alone.nsAtDepth);
    return code;
}

/*
 * Mergeable in time order: a shard's arrivals within -boundary of its
 * first pass again through the queue of the shards before it
 * (QueueDepthMerge).
 */


const Rb_AnalyzerClass Rb_QueueDepthAnalyzerClass = {
    .name = "QueueDepthAnalyzer",
    .help = "time-weighted distribution of outstanding I/Os (enqueue to "
	    "completion)",
    .stateSize = sizeof(QueueDepthState),
    .options = queueDepthOptions,
    .attrs = queueDepthAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = QueueDepthStart,
    .batch = QueueDepthBatch,
    .end = QueueDepthEnd,
    .freeState = QueueDepthFree,
    .merge = QueueDepthMerge,
    .serialize = QueueDepthSerialize,
    .deserialize = QueueDepthDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_FINISH),
};
