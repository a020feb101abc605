/*
 * muxTable.c --
 *
 *	The Filters under one Mux compiled as a whole.  A Filter that is, or
 *	starts with (an and of), an equality "field = k" or a range
 *	"lo <= field <= hi" (from <, <=, >, >=, between) is dispatched: the
 *	Mux looks each record's value up once, in a hash or direct table for
 *	the equalities on one field and in an interval index (sorted
 *	breakpoints, one binary search) for the ranges on one field, and
 *	appends the record to the selection of every Filter whose key holds.
 *	Only a compound Filter's residual terms then run, on the records its
 *	key selected.  So a thousand per-volume Filters, each on an offset
 *	range or a device number and a size, cost one lookup per record, not
 *	a thousand tests.  Other children get the whole input.
 */

#include <string.h>
#include "engine.h"

#define MUX_SCAN_MAX 8	/* Up to this many keys a Mux compares, no lookup. */
#define SEG_ENTRIES_MAX(n) (32 * (int64_t)(n) + 4096)	/* index size cap */

/*
 * Equalities on one field: an open-addressing hash of key -> chain of
 * entries (one per Filter), and a direct array when the keys span a
 * small range.
 */
typedef struct EqIndex {
    int field;			/* -1: none */
    int64_t directMin;		/* keys in [directMin, directMin + directLen) */
    int64_t directLen;		/* 0: no direct table, hash only */
    int *direct;		/* key - directMin -> first entry, -1 none */
    int *directChild;		/* instead, when no key has two entries:
				 * key - directMin -> child, -1 none */
    int nslots;			/* power of two */
    int64_t *keys;
    int *first;			/* first entry index per slot, -1 empty */
    int nentries;
    int *entryChild;		/* child index of entry */
    int *entryNext;		/* next entry with the same key, -1 end */
    int64_t *entryKey;		/* key of entry */
} EqIndex;

/*
 * Ranges on one field: breakpoints b[0] < b[1] < ... cut the line into
 * segments [b[i], b[i+1]); segment i's Filters are
 * segKids[segFirst[i] .. segFirst[i+1]).  Values below b[0] match none.
 */
typedef struct RangeIndex {
    int field;			/* -1: none */
    int nbreaks;
    int64_t *breaks;
    int *segFirst;		/* nbreaks + 1 entries */
    int *segKids;
    /* A value v from breaks[0] up lies in bucket (v - breaks[0]) >>
     * shift; bucketSeg[b] is the segment holding bucket b's first value
     * (RANGE_BUCKETS + 1 entries), so that the search for v's segment
     * starts between bucketSeg[b] and bucketSeg[b + 1], mostly one or
     * two breakpoints apart, instead of among all of them. */
    int shift;
    int nbuckets;		/* a power of two, RANGE_BUCKETS at least */
    int *bucketSeg;
    int *bucketSlot;		/* with segChild: per bucket lying in one
				 * segment, its child + 1 (0 none); -1 for
				 * a bucket across breakpoints */
    /* When no two Filters' ranges overlap (each segment has at most one
     * child, the common case of volumes or slices of a device): segment
     * -> child, -1 none, so that dispatch needs no per-segment loop. */
    int *segChild;
} RangeIndex;

#define RANGE_BUCKETS 2048
#define RANGE_BUCKETS_MAX (1 << 18)	/* 16 per breakpoint up to this */

struct MuxTable {
    EqIndex eq;
    RangeIndex range;
    int nchildren;
    int *isDispatched;		/* per child: 1 by eq, 2 by range, 0 not */
    int *hasResidual;		/* per child: terms beyond its key */
    uint32_t **childSel;	/* per dispatched child, RB_BATCH_SIZE */
    int *childN;
    uint32_t *residualOut;	/* RB_BATCH_SIZE, for residual results */

    /* The range index's output, grouped by child (a counting sort), so
     * that the records of a batch land in one array rather than in a
     * buffer per child, most of them cold. */
    int *segOf;			/* RB_BATCH_SIZE: each record's segment
				 * (with segChild: its child + 1, 0 none) */
    int *rangeStart, *rangeCount;	/* per child */
    uint32_t *rangeSel;
    int64_t rangeCap;
    int *slotCount, *slotPos;	/* with segChild: per child + 1 (slot 0:
				 * records of no child) */

    /* Per dispatched child whose only child is a Flow: that Flow, and
     * its analyzers (ana[anaFirst[c] .. anaFirst[c + 1])), so that the
     * push skips the Filter's and the Flow's nodes and their arrays:
     * with hundreds of children, each getting a few records per batch,
     * each of those is a cache miss. */
    Rb_Flow **flowOf;
    int *anaFirst;
    Rb_Analyzer **ana;
};


/*
 * RbMuxTableFree --
 *	Frees a dispatch table (NULL is allowed).
 */
void
RbMuxTableFree(MuxTable *t)
{
    int i;

    if (t == NULL) {
	return;
    }
    for (i = 0; i < t->nchildren; i++) {
	free(t->childSel[i]);
    }
    free(t->childSel);
    free(t->childN);
    free(t->isDispatched);
    free(t->hasResidual);
    free(t->residualOut);
    free(t->segOf);
    free(t->rangeStart);
    free(t->rangeCount);
    free(t->slotCount);
    free(t->slotPos);
    free(t->rangeSel);
    free(t->eq.direct);
    free(t->eq.directChild);
    free(t->eq.keys);
    free(t->eq.first);
    free(t->eq.entryChild);
    free(t->eq.entryNext);
    free(t->eq.entryKey);
    free(t->range.breaks);
    free(t->range.bucketSeg);
    free(t->range.segFirst);
    free(t->range.segKids);
    free(t->range.segChild);
    free(t->range.bucketSlot);
    free(t->flowOf);
    free(t->anaFirst);
    free(t->ana);
    free(t);
}

/*
 * ChildKey --
 *	The dispatch key of child c on field, if it is a Filter with one.
 * Results: 1 with *lo, *hi, *residual set, else 0.
 */
static int
ChildKey(Rb_Node *mux, int c, int field, int64_t *lo, int64_t *hi,
	int *residual)
{
    Rb_Node *child = mux->children[c];

    return child->kind == NODE_FILTER && child->prog != NULL
	    && RbFilterKeyOn(child->prog, field, lo, hi, residual);
}

/*
 * BestField --
 *	The field on which most of the children not yet dispatched have a
 *	key of the wanted shape (equalities: lo == hi; ranges: any).
 * Results: the field, or -1 when fewer than two children share one.
 */
static int
BestField(Rb_Node *mux, const int *isDispatched, int wantEq, int nfields)
{
    int f, c, best = -1, bestCount = 1, residual;
    int64_t lo, hi;

    for (f = 0; f < nfields; f++) {
	int count = 0;

	for (c = 0; c < mux->nchildren; c++) {
	    if (!isDispatched[c] && ChildKey(mux, c, f, &lo, &hi, &residual)
		    && (!wantEq || lo == hi)) {
		count++;
	    }
	}
	if (count > bestCount) {
	    bestCount = count;
	    best = f;
	}
    }
    return best;
}

/*
 * BuildDirect --
 *	When the equality keys span a small range (device numbers 0..N,
 *	store numbers), also index entries by key - min in a plain array: a
 *	lookup is then one subtraction and one load instead of a hash probe;
 *	when no key has two entries, the array holds the child itself.
 */
static void
BuildDirect(EqIndex *q)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, k;
    int slot, e, single = 1;

    for (slot = 0; slot < q->nslots; slot++) {
	if (q->first[slot] >= 0) {
	    lo = q->keys[slot] < lo ? q->keys[slot] : lo;
	    hi = q->keys[slot] > hi ? q->keys[slot] : hi;
	}
    }
    if (lo > hi || hi - lo >= 65536 || hi - lo < 0) {
	return;
    }
    q->directMin = lo;
    q->directLen = hi - lo + 1;
    for (e = 0; e < q->nentries; e++) {
	single &= q->entryNext[e] < 0;
    }
    q->direct = Rb_AllocArray(q->directLen, sizeof(int));
    for (k = 0; k < q->directLen; k++) {
	q->direct[k] = -1;
    }
    for (slot = 0; slot < q->nslots; slot++) {
	if (q->first[slot] >= 0) {
	    q->direct[q->keys[slot] - lo] = single
		    ? q->entryChild[q->first[slot]] : q->first[slot];
	}
    }
    if (single) {
	q->directChild = q->direct;
	q->direct = NULL;
    }
}

/*
 * BuildEq --
 *	Indexes the children whose key on q->field is an equality.
 */
static void
BuildEq(MuxTable *t, Rb_Node *mux)
{
    EqIndex *q = &t->eq;
    int c, i, count = 0, residual;
    int64_t lo, hi;

    for (c = 0; c < mux->nchildren; c++) {
	count += ChildKey(mux, c, q->field, &lo, &hi, &residual) && lo == hi;
    }
    for (q->nslots = 16; q->nslots < 2 * count; q->nslots *= 2) {
    }
    q->keys = Rb_AllocArray(q->nslots, sizeof(int64_t));
    q->first = Rb_AllocArray(q->nslots, sizeof(int));
    for (i = 0; i < q->nslots; i++) {
	q->first[i] = -1;
    }
    q->entryChild = Rb_AllocArray(count + 1, sizeof(int));
    q->entryNext = Rb_AllocArray(count + 1, sizeof(int));
    q->entryKey = Rb_AllocArray(count + 1, sizeof(int64_t));
    for (c = 0; c < mux->nchildren; c++) {
	uint64_t h;
	int slot, e;

	if (!ChildKey(mux, c, q->field, &lo, &hi, &residual) || lo != hi) {
	    continue;
	}
	t->isDispatched[c] = 1;
	t->hasResidual[c] = residual;
	h = (uint64_t)lo * 0x9E3779B97F4A7C15ULL;
	slot = (int)(h >> 32) & (q->nslots - 1);
	while (q->first[slot] >= 0 && q->keys[slot] != lo) {
	    slot = (slot + 1) & (q->nslots - 1);
	}
	e = q->nentries++;
	q->entryChild[e] = c;
	q->entryNext[e] = -1;
	q->entryKey[e] = lo;
	if (q->first[slot] < 0) {
	    q->keys[slot] = lo;
	    q->first[slot] = e;
	} else {
	    int last = q->first[slot];

	    while (q->entryNext[last] >= 0) {
		last = q->entryNext[last];
	    }
	    q->entryNext[last] = e;
	}
    }
    BuildDirect(q);
}

static int
CompareInt64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/*
 * SegmentOf --
 *	The segment holding v: the last breakpoint <= v.
 * Results: its index, or -1 when v is below every breakpoint.
 */
static inline int
SegmentOf(const RangeIndex *r, int64_t v)
{
    const int64_t *base = r->breaks;
    int n = r->nbreaks;

    if (n == 0) {
	return -1;
    }
    /* Branch-free: the records' values come in no order, and a branch
     * per step would mispredict half the time. */
    while (n > 1) {
	int half = n >> 1;

	base = base[half] <= v ? base + half : base;
	n -= half;
    }
    return (int)(base - r->breaks) + (*base <= v) - 1;
}

/*
 * BuildBuckets --
 *	Sets r->shift and r->bucketSeg for SegmentOfFast (r->nbreaks > 0).
 */
static void
BuildBuckets(RangeIndex *r)
{
    uint64_t span = (uint64_t)r->breaks[r->nbreaks - 1]
	    - (uint64_t)r->breaks[0];
    int b;

    for (r->nbuckets = RANGE_BUCKETS; r->nbuckets < RANGE_BUCKETS_MAX
	    && r->nbuckets < 16 * r->nbreaks; r->nbuckets *= 2) {
    }
    r->shift = 0;
    while ((span >> r->shift) >= (uint64_t)r->nbuckets) {
	r->shift++;
    }
    r->bucketSeg = Rb_AllocArray(r->nbuckets + 1, sizeof(int));
    for (b = 0; b <= r->nbuckets; b++) {
	uint64_t off = (uint64_t)b << r->shift;

	/* Past the last breakpoint (or past int64): the last segment. */
	r->bucketSeg[b] = off > span ? r->nbreaks - 1
		: SegmentOf(r, (int64_t)((uint64_t)r->breaks[0] + off));
    }
}

/*
 * SegmentOfFast --
 *	SegmentOf through the buckets: v's bucket bounds its segment to
 *	[bucketSeg[b], bucketSeg[b + 1]], searched without branches.
 */
static inline int
SegmentOfFast(const RangeIndex *r, int64_t v)
{
    uint64_t b;
    const int64_t *base;
    int n;

    if (r->nbreaks == 0 || v < r->breaks[0]) {
	return -1;
    }
    b = ((uint64_t)v - (uint64_t)r->breaks[0]) >> r->shift;
    if (b >= (uint64_t)r->nbuckets) {
	return r->nbreaks - 1;
    }
    base = r->breaks + r->bucketSeg[b];
    n = r->bucketSeg[b + 1] - r->bucketSeg[b] + 1;
    while (n > 1) {
	int half = n >> 1;

	base = base[half] <= v ? base + half : base;
	n -= half;
    }
    return (int)(base - r->breaks);
}

/*
 * BuildRange --
 *	Indexes the children not yet dispatched whose key on r->field is a
 *	range.  Overlapping ranges put a child in every segment it covers;
 *	an index that would grow past SEG_ENTRIES_MAX is not built (those
 *	Filters then run as usual).
 * Results: 1 if built.
 */
static int
BuildRange(MuxTable *t, Rb_Node *mux)
{
    RangeIndex *r = &t->range;
    int c, i, n = 0, nb = 0, residual, *count;
    int64_t lo, hi, total = 0;
    int64_t *breaks = Rb_AllocArray(2 * mux->nchildren + 1, sizeof(int64_t));
    int *take = Rb_AllocArray(mux->nchildren + 1, sizeof(int));

    for (c = 0; c < mux->nchildren; c++) {
	if (t->isDispatched[c]
		|| !ChildKey(mux, c, r->field, &lo, &hi, &residual)) {
	    continue;
	}
	take[c] = 1;
	n++;
	breaks[nb++] = lo;
	if (hi != INT64_MAX) {
	    breaks[nb++] = hi + 1;
	}
    }
    qsort(breaks, nb, sizeof(int64_t), CompareInt64);
    for (i = 0, r->nbreaks = 0; i < nb; i++) {
	if (r->nbreaks == 0 || breaks[i] != breaks[r->nbreaks - 1]) {
	    breaks[r->nbreaks++] = breaks[i];
	}
    }
    r->breaks = breaks;

    /* Count, then fill, each segment's children. */
    count = Rb_AllocArray(r->nbreaks + 1, sizeof(int));
    for (c = 0; c < mux->nchildren; c++) {
	int s, e;

	if (!take[c]) {
	    continue;
	}
	ChildKey(mux, c, r->field, &lo, &hi, &residual);
	s = SegmentOf(r, lo);
	e = hi == INT64_MAX ? r->nbreaks : SegmentOf(r, hi + 1);
	total += e - s;
	for (i = s; i < e; i++) {
	    count[i]++;
	}
    }
    if (total > SEG_ENTRIES_MAX(n)) {
	free(count);
	free(take);
	free(r->breaks);
	r->breaks = NULL;
	r->nbreaks = 0;
	r->field = -1;
	return 0;
    }
    r->segFirst = Rb_AllocArray(r->nbreaks + 1, sizeof(int));
    for (i = 0; i < r->nbreaks; i++) {
	r->segFirst[i + 1] = r->segFirst[i] + count[i];
	count[i] = r->segFirst[i];
    }
    r->segKids = Rb_AllocArray(total + 1, sizeof(int));
    for (c = 0; c < mux->nchildren; c++) {
	int s, e;

	if (!take[c]) {
	    continue;
	}
	ChildKey(mux, c, r->field, &lo, &hi, &residual);
	t->isDispatched[c] = 2;
	t->hasResidual[c] = residual;
	s = SegmentOf(r, lo);
	e = hi == INT64_MAX ? r->nbreaks : SegmentOf(r, hi + 1);
	for (i = s; i < e; i++) {
	    r->segKids[count[i]++] = c;
	}
    }
    free(count);
    free(take);
    if (r->nbreaks > 0) {
	BuildBuckets(r);
    }
    if (total <= r->nbreaks) {
	int single = 1;

	for (i = 0; i < r->nbreaks && single; i++) {
	    single = r->segFirst[i + 1] - r->segFirst[i] <= 1;
	}
	if (single && r->nbreaks > 0) {
	    r->segChild = Rb_AllocArray(r->nbreaks + 1, sizeof(int));
	    for (i = 0; i < r->nbreaks; i++) {
		r->segChild[i] = r->segFirst[i + 1] > r->segFirst[i]
			? r->segKids[r->segFirst[i]] : -1;
	    }
	    r->bucketSlot = Rb_AllocArray(r->nbuckets, sizeof(int));
	    for (i = 0; i < r->nbuckets; i++) {
		r->bucketSlot[i] = r->bucketSeg[i] == r->bucketSeg[i + 1]
			? r->segChild[r->bucketSeg[i]] + 1 : -1;
	    }
	}
    }
    return 1;
}

/*
 * BuildFlows --
 *	Sets t->flowOf, anaFirst and ana: each dispatched child that is a
 *	Filter into one Flow, with that Flow's analyzers.
 */
static void
BuildFlows(MuxTable *t, Rb_Node *mux)
{
    int c, n = 0, i;

    t->flowOf = Rb_AllocArray(mux->nchildren + 1, sizeof(Rb_Flow *));
    t->anaFirst = Rb_AllocArray(mux->nchildren + 1, sizeof(int));
    for (c = 0; c < mux->nchildren; c++) {
	Rb_Node *child = mux->children[c];

	if (t->isDispatched[c] && child->nchildren == 1
		&& child->children[0]->kind == NODE_FLOW) {
	    t->flowOf[c] = child->children[0]->flow;
	    n += t->flowOf[c]->nanalyzers;
	}
    }
    t->ana = Rb_AllocArray(n + 1, sizeof(Rb_Analyzer *));
    for (n = 0, c = 0; c < mux->nchildren; c++) {
	t->anaFirst[c] = n;
	for (i = 0; t->flowOf[c] && i < t->flowOf[c]->nanalyzers; i++) {
	    t->ana[n++] = t->flowOf[c]->analyzers[i];
	}
    }
    t->anaFirst[mux->nchildren] = n;
}

/*
 * RbMuxTableBuild --
 *	Compiles the Filters under a Mux (after they are compiled for the
 *	run): an equality index on the field most of them test for
 *	equality, then a range index on the field most of the rest test for
 *	a range, each when at least two children share the field.
 * Results: the table, or NULL when nothing is worth dispatching.
 */
MuxTable *
RbMuxTableBuild(Rb_Node *mux, const Rb_Schema *schema)
{
    MuxTable *t = Rb_Alloc(sizeof(*t));
    int c, nfields = schema->nfields;

    t->nchildren = mux->nchildren;
    t->isDispatched = Rb_AllocArray(mux->nchildren + 1, sizeof(int));
    t->hasResidual = Rb_AllocArray(mux->nchildren + 1, sizeof(int));
    t->childSel = Rb_AllocArray(mux->nchildren + 1, sizeof(uint32_t *));
    t->childN = Rb_AllocArray(mux->nchildren + 1, sizeof(int));
    t->eq.field = BestField(mux, t->isDispatched, 1, nfields);
    if (t->eq.field >= 0) {
	BuildEq(t, mux);
    }
    t->range.field = BestField(mux, t->isDispatched, 0, nfields);
    if (t->range.field >= 0) {
	BuildRange(t, mux);
    }
    if (t->eq.field < 0 && t->range.field < 0) {
	RbMuxTableFree(t);
	return NULL;
    }
    for (c = 0; c < mux->nchildren; c++) {
	if (t->isDispatched[c] == 1) {
	    t->childSel[c] = Rb_AllocArray(RB_BATCH_SIZE, sizeof(uint32_t));
	}
    }
    t->residualOut = Rb_AllocArray(RB_BATCH_SIZE, sizeof(uint32_t));
    BuildFlows(t, mux);
    if (t->range.field >= 0) {
	t->segOf = Rb_AllocArray(RB_BATCH_SIZE, sizeof(int));
	t->rangeStart = Rb_AllocArray(mux->nchildren + 1, sizeof(int));
	t->rangeCount = Rb_AllocArray(mux->nchildren + 1, sizeof(int));
	t->slotCount = Rb_AllocArray(mux->nchildren + 1, sizeof(int));
	t->slotPos = Rb_AllocArray(mux->nchildren + 1, sizeof(int));
	t->rangeCap = RB_BATCH_SIZE;
	t->rangeSel = Rb_AllocArray(t->rangeCap, sizeof(uint32_t));
    }
    return t;
}

/*
 * RbMuxTableFields --
 *	RB_FIELD_BIT of the fields the table looks up.
 */
uint64_t
RbMuxTableFields(const MuxTable *t)
{
    return (t->eq.field >= 0 ? RB_FIELD_BIT(t->eq.field) : 0)
	    | (t->range.field >= 0 ? RB_FIELD_BIT(t->range.field) : 0);
}

/*
 * DispatchEq --
 *	Appends each selected record to the selection of every child whose
 *	equality key it has.  With only a few keys, a branch-free compare
 *	per key and record beats the lookup, whose branches the records'
 *	keys, in no order, keep mispredicting.
 */
static void
DispatchEq(MuxTable *t, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    const EqIndex *q = &t->eq;
    const int64_t *col = b->col[q->field];
    int k, c, e, mask = q->nslots - 1;

    if (q->nentries <= MUX_SCAN_MAX) {
	for (e = 0; e < q->nentries; e++) {
	    uint32_t *out = t->childSel[q->entryChild[e]];
	    int64_t key = q->entryKey[e];
	    int m = 0;

	    for (k = 0; k < nsel; k++) {
		out[m] = sel[k];
		m += col[sel[k]] == key;
	    }
	    t->childN[q->entryChild[e]] = m;
	}
    } else if (q->directChild) {
	uint32_t **childSel = t->childSel;
	int *childN = t->childN;

	for (k = 0; k < nsel; k++) {
	    uint32_t r = sel[k];
	    uint64_t off = (uint64_t)(col[r] - (uint64_t)q->directMin);

	    if (off < (uint64_t)q->directLen
		    && (c = q->directChild[off]) >= 0) {
		childSel[c][childN[c]++] = r;
	    }
	}
    } else if (q->direct) {
	for (k = 0; k < nsel; k++) {
	    uint32_t r = sel[k];
	    uint64_t off = (uint64_t)(col[r] - (uint64_t)q->directMin);

	    if (off < (uint64_t)q->directLen) {
		for (e = q->direct[off]; e >= 0; e = q->entryNext[e]) {
		    c = q->entryChild[e];
		    t->childSel[c][t->childN[c]++] = r;
		}
	    }
	}
    } else for (k = 0; k < nsel; k++) {
	uint32_t r = sel[k];
	int64_t v = col[r];
	uint64_t h = (uint64_t)v * 0x9E3779B97F4A7C15ULL;
	int slot = (int)(h >> 32) & mask;

	while (q->first[slot] >= 0) {
	    if (q->keys[slot] == v) {
		for (e = q->first[slot]; e >= 0; e = q->entryNext[e]) {
		    c = q->entryChild[e];
		    t->childSel[c][t->childN[c]++] = r;
		}
		break;
	    }
	    slot = (slot + 1) & mask;
	}
    }
}

/*
 * DispatchRangeSingle --
 *	DispatchRange when each segment has at most one child (segChild):
 *	one pass notes each record's child and counts it, a second places
 *	it, without branches (records of no child go to a slot 0 that is
 *	never read).
 */
static void
DispatchRangeSingle(MuxTable *t, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    const RangeIndex *r = &t->range;
    const int64_t *col = b->col[r->field];
    const int *segChild = r->segChild;
    int *slotOf = t->segOf, *count = t->slotCount, *pos = t->slotPos;
    int k, c, at;

    memset(count, 0, (size_t)(t->nchildren + 1) * sizeof(int));
    for (k = 0; k < nsel; k++) {
	int64_t v = col[sel[k]];
	uint64_t bucket = ((uint64_t)v - (uint64_t)r->breaks[0]) >> r->shift;
	int slot = 0;

	/* Mostly v's bucket lies in one segment and gives the child. */
	if (v != RB_ABSENT && v >= r->breaks[0]) {
	    slot = bucket < (uint64_t)r->nbuckets ? r->bucketSlot[bucket] : -1;
	    if (slot < 0) {
		slot = segChild[SegmentOfFast(r, v)] + 1;
	    }
	}
	slotOf[k] = slot;
	count[slot]++;
    }
    /* The records of no child (slot 0) go past the children's, in
     * rangeSel's spare room (nsel <= rangeCap). */
    for (at = 0, c = 1; c <= t->nchildren; c++) {
	t->rangeStart[c - 1] = pos[c] = at;
	t->rangeCount[c - 1] = count[c];
	at += count[c];
    }
    pos[0] = at;
    for (k = 0; k < nsel; k++) {
	t->rangeSel[pos[slotOf[k]]++] = sel[k];
    }
}

/*
 * DispatchRange --
 *	Finds each selected record's segment (one branch-free binary search
 *	per record), then groups the records by child in t->rangeSel: child
 *	c's are rangeSel[rangeStart[c] .. + rangeCount[c]), in input order.
 */
static void
DispatchRange(MuxTable *t, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    const RangeIndex *r = &t->range;
    const int64_t *col = b->col[r->field];
    int64_t total = 0;
    int k, i, c, pos;

    if (r->segChild != NULL) {
	DispatchRangeSingle(t, b, sel, nsel);
	return;
    }
    for (c = 0; c < t->nchildren; c++) {
	t->rangeCount[c] = 0;
    }
    for (k = 0; k < nsel; k++) {
	int64_t v = col[sel[k]];
	int s = v == RB_ABSENT ? -1 : SegmentOfFast(r, v);

	t->segOf[k] = s;
	if (s >= 0) {
	    for (i = r->segFirst[s]; i < r->segFirst[s + 1]; i++) {
		t->rangeCount[r->segKids[i]]++;
	    }
	    total += r->segFirst[s + 1] - r->segFirst[s];
	}
    }
    if (total > t->rangeCap) {
	t->rangeCap = total;
	free(t->rangeSel);
	t->rangeSel = Rb_AllocArray(t->rangeCap, sizeof(uint32_t));
    }
    for (pos = 0, c = 0; c < t->nchildren; c++) {
	t->rangeStart[c] = pos;
	pos += t->rangeCount[c];
	t->rangeCount[c] = 0;
    }
    for (k = 0; k < nsel; k++) {
	int s = t->segOf[k];

	if (s < 0) {
	    continue;
	}
	for (i = r->segFirst[s]; i < r->segFirst[s + 1]; i++) {
	    c = r->segKids[i];
	    t->rangeSel[t->rangeStart[c] + t->rangeCount[c]++] = sel[k];
	}
    }
}

/*
 * RbMuxPushChild --
 *	Pushes child c of mux its records of a batch: with a dispatch table,
 *	those DispatchEq or DispatchRange selected for it (after its Filter's
 *	residual, worked out in scratch, RB_BATCH_SIZE entries), or the whole
 *	selection for a child the table does not dispatch; without one, the
 *	whole selection.  Children share no scratch, so that they can run on
 *	threads of their own (parallel.c).
 */
void
RbMuxPushChild(Rb_Node *mux, int c, const Rb_Batch *b, const uint32_t *sel,
	int nsel, uint32_t *scratch)
{
    MuxTable *t = mux->table;
    Rb_Node *child = mux->children[c];
    const uint32_t *out;
    int i, m;

    if (t == NULL) {
	RbNodePush(child, b, sel, nsel);
	return;
    }
    switch (t->isDispatched[c]) {
    case 0:
	RbNodePush(child, b, sel, nsel);
	return;
    case 1:
	out = t->childSel[c];
	m = t->childN[c];
	break;
    default:
	out = t->rangeSel + t->rangeStart[c];
	m = t->rangeCount[c];
	break;
    }
    if (m == 0) {
	return;
    }
    if (t->hasResidual[c]) {
	m = RbFilterSelectResidual(child->prog, t->isDispatched[c] == 1
		? t->eq.field : t->range.field, b, out, m, scratch);
	out = scratch;
    }
    if (t->flowOf[c] != NULL) {
	if (m > 0) {
	    RbFlowPushTo(t->flowOf[c], t->ana + t->anaFirst[c],
		    t->anaFirst[c + 1] - t->anaFirst[c], b, out, m);
	}
	return;
    }
    for (i = 0; i < child->nchildren && m > 0; i++) {
	RbNodePush(child->children[i], b, out, m);
    }
}

/*
 * DispatchSlice --
 *	MuxDispatch for at most RB_BATCH_SIZE selected records.
 */
static void
DispatchSlice(Rb_Node *mux, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    MuxTable *t = mux->table;
    int c;

    if (t->eq.field >= 0) {
	for (c = 0; c < t->nchildren; c++) {
	    t->childN[c] = 0;
	}
	DispatchEq(t, b, sel, nsel);
    }
    if (t->range.field >= 0) {
	DispatchRange(t, b, sel, nsel);
    }
    if (mux->parallel && RbParallelChildren(mux, b, sel, nsel)) {
	return;
    }
    for (c = 0; c < t->nchildren; c++) {
	RbMuxPushChild(mux, c, b, sel, nsel, t->residualOut);
    }
}

/*
 * RbMuxDispatch --
 *	Pushes a batch through a Mux with a dispatch table: one lookup per
 *	record per index fills each dispatched Filter's selection, whose
 *	residual (if any) then runs on it, and the Filter's children get
 *	the records directly; other children get the whole input.  Inputs
 *	longer than a batch (below an expanding Transformer) go in slices.
 */
void
RbMuxDispatch(Rb_Node *mux, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    int off;

    for (off = 0; off < nsel; off += RB_BATCH_SIZE) {
	DispatchSlice(mux, b, sel + off, nsel - off < RB_BATCH_SIZE
		? nsel - off : RB_BATCH_SIZE);
    }
}
