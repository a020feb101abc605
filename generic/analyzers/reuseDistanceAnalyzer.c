/*
 * reuseDistanceAnalyzer.c --
 *
 *	ReuseDistanceAnalyzer: the LRU stack distance of every block access
 *	(1 + the number of distinct other blocks accessed since the block's
 *	previous access), and the hit ratio it implies for an LRU cache of
 *	every size in one pass: an access hits a cache of C blocks exactly
 *	when its distance is at most C (Mattson et al., 1970).
 *
 *	Exact, in O(log n) per access: each block's latest access holds a 1
 *	at its position in a Fenwick tree over access positions, so the
 *	distance is a prefix-sum difference.  Positions are renumbered
 *	compactly when they run out, keeping the tree at most twice the
 *	number of distinct blocks (plus 1024).
 *
 *	The state grows with the distinct blocks, so it is bounded by
 *	-limit: the access that would hold one block more stops the run
 *	with RUBICON LIMIT DISTINCT rather than letting a trace of a billion
 *	distinct offsets exhaust the machine's memory.
 */

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

typedef struct ReuseDistanceState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    char *sizes;		/* -sizes: extra cache sizes, in blocks */
    int64_t limit;		/* -limit: most distinct blocks held */
    int failed;			/* -limit was reached: ignore the rest. */
    Rb_KeyTable lastPos;	/* block -> position of its last access */
    int32_t *tree;		/* Fenwick tree, 1-based, cap entries. */
    int64_t *owner;		/* Block at each position, or RB_ABSENT. */
    int64_t cap, next;		/* Positions 1..next-1 are used. */
    Rb_TimeBins atDistance;	/* Accesses by distance (growable array). */
    uint64_t cold, accesses;
} ReuseDistanceState;

static const Rb_Option reuseDistanceOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(ReuseDistanceState, map.deviceField),
	"deviceNo", "field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(ReuseDistanceState,
	map.offsetField), "devOffset", "field holding the offset in bytes"},
    {"-block", RB_OPT_INT, offsetof(ReuseDistanceState, map.block), "4096",
	"block (cache line) size in bytes"},
    {"-sizes", RB_OPT_STRING, offsetof(ReuseDistanceState, sizes), "",
	"cache sizes in blocks to report besides the powers of two"},
    {"-limit", RB_OPT_INT, offsetof(ReuseDistanceState, limit), "20000000",
	"most distinct blocks held; one more stops the run with an error"},
    {NULL}
};

static const char *const reuseDistanceAttrs[] = {
    "ReuseDistance", "HitRatioCurve", "ColdMisses", "BlockAccesses", NULL
};

/*
 * ReuseDistanceStart --
 *	Checks the options and empties the state for a new run.
 */
static int
ReuseDistanceStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReuseDistanceState *st = a->state;

    if (Rb_BlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->limit <= 0) {
	return Rb_KitOptionError(a, NULL, "-limit must be positive");
    }
    if (st->lastPos.valSize == 0) {
	Rb_KeyTableInit(&st->lastPos, sizeof(int64_t));
    }
    Rb_KeyTableClear(&st->lastPos);
    st->next = 1;
    st->atDistance.lo = st->atDistance.n = 0;
    st->cold = st->accesses = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * TreeAdd, TreePrefix --
 *	Adds delta at position pos; the sum over positions 1..pos.
 */
static void
TreeAdd(ReuseDistanceState *st, int64_t pos, int delta)
{
    for (; pos <= st->cap; pos += pos & -pos) {
	st->tree[pos - 1] += delta;
    }
}

static int64_t
TreePrefix(const ReuseDistanceState *st, int64_t pos)
{
    int64_t sum = 0;

    for (; pos > 0; pos -= pos & -pos) {
	sum += st->tree[pos - 1];
    }
    return sum;
}

/*
 * Compact --
 *	Renumbers the live positions 1..live in order, in a tree of twice
 *	that size, and rebuilds the tree in linear time.
 */
static void
Compact(ReuseDistanceState *st)
{
    int64_t live = 0, pos, parent;

    for (pos = 1; pos < st->next; pos++) {
	if (st->owner[pos - 1] != RB_ABSENT) {
	    st->owner[live++] = st->owner[pos - 1];
	    *(int64_t *)Rb_KeyTableFind(&st->lastPos, st->owner[live - 1], 0)
		    = live;
	}
    }
    st->cap = 2 * live + 1024;
    st->owner = Rb_ReallocArray(st->owner, (size_t)st->cap, sizeof(int64_t));
    st->tree = Rb_ReallocArray(st->tree, (size_t)st->cap, sizeof(int32_t));
    memset(st->tree, 0, (size_t)st->cap * sizeof(int32_t));
    for (pos = 1; pos <= st->cap; pos++) {
	st->tree[pos - 1] += pos <= live;
	parent = pos + (pos & -pos);
	if (parent <= st->cap) {
	    st->tree[parent - 1] += st->tree[pos - 1];
	}
    }
    st->next = live + 1;
}

/*
 * Access --
 *	Counts one access to block key at the next position.
 * Results: 1, or 0 (nothing counted) when key is a new block and -limit
 *	blocks are already held.
 */
static int
Access(ReuseDistanceState *st, int64_t key)
{
    int64_t *last, pos = st->next;

    if (pos > st->cap) {
	Compact(st);
	pos = st->next;
    }
    last = Rb_KeyTableFindLimited(&st->lastPos, key, st->limit);
    if (last == NULL) {
	return 0;
    }
    st->accesses++;
    if (*last == 0) {
	st->cold++;
    } else {
	uint64_t *slot = Rb_TimeBinsSlot(&st->atDistance,
		TreePrefix(st, pos - 1) - TreePrefix(st, *last) + 1);

	if (slot != NULL) {
	    (*slot)++;
	}
	TreeAdd(st, *last, -1);
	st->owner[*last - 1] = RB_ABSENT;
    }
    TreeAdd(st, pos, 1);
    st->owner[pos - 1] = key;
    *last = pos;
    st->next = pos + 1;
    return 1;
}

/*
 * ReuseDistanceBatch --
 *	Accesses, in order, every block of each selected I/O, up to the
 *	first block beyond -limit; that one stops the run with an error
 *	naming its record.
 */
static void
ReuseDistanceBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ReuseDistanceState *st = a->state;
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int64_t first, count, k;

	if (!Rb_BlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	for (k = 0; k < count; k++) {
	    if (!Access(st, first + k)) {
		st->failed = 1;
		Rb_AnalyzerError(a, "RUBICON LIMIT DISTINCT", "%s: more than "
			"-limit %" PRId64 " distinct blocks at record %" PRIu64
			" (raise -limit; each block held costs up to about "
			"70 bytes)", a->cls->name, st->limit,
			b->firstRecord + sel[j]);
		break;
	    }
	}
    }
}

/*
 * CompareSizes --
 *	qsort order of cache sizes.
 */
static int
CompareSizes(const void *p, const void *q)
{
    int64_t x = *(const int64_t *)p, y = *(const int64_t *)q;

    return (x > y) - (x < y);
}

/*
 * CacheSizes --
 *	The cache sizes of the curve: 1, 2, 4 ... up to the number of
 *	distinct blocks (then it is flat), that number, and those of -sizes.
 * Results: a malloc'd sorted array; *n set to its length.
 */
static int64_t *
CacheSizes(const ReuseDistanceState *st, int *n)
{
    int64_t distinct = (int64_t)st->lastPos.count, c, *sizes = NULL;
    const char *p = st->sizes ? st->sizes : "";
    char *end;
    int k = 0;

    for (c = 1; c < distinct; c *= 2) {
	sizes = Rb_ReallocArray(sizes, (size_t)(k + 1), sizeof(int64_t));
	sizes[k++] = c;
    }
    sizes = Rb_ReallocArray(sizes, (size_t)(k + 1), sizeof(int64_t));
    sizes[k++] = distinct > 0 ? distinct : 1;
    for (;;) {
	c = strtoll(p, &end, 10);
	if (end == p) {
	    break;
	}
	p = end;
	if (c > 0) {
	    sizes = Rb_ReallocArray(sizes, (size_t)(k + 1), sizeof(int64_t));
	    sizes[k++] = c;
	}
    }
    qsort(sizes, (size_t)k, sizeof(int64_t), CompareSizes);
    *n = k;
    return sizes;
}

/*
 * ReuseDistanceEnd --
 *	Sets the distance histogram (log2 bins), the hit-ratio curve, the
 *	cold misses and the number of block accesses.
 */
static int
ReuseDistanceEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReuseDistanceState *st = a->state;
    const Rb_TimeBins *tb = &st->atDistance;
    Rb_Attribute *hist = Rb_AttrCreate("ReuseDistance", RB_ATTR_HISTOGRAM,
	    "blocks", "block accesses by LRU stack distance (re-accesses)");
    Rb_Attribute *curve = Rb_AttrCreate("HitRatioCurve", RB_ATTR_TABLE, "",
	    "hits and hit ratio of an LRU cache of each size");
    int loCol = Rb_AttrAddColumn(hist, "lo", "blocks", 0);
    int hiCol = Rb_AttrAddColumn(hist, "hi", "blocks", 0);
    int countCol = Rb_AttrAddColumn(hist, "count", "", 0);
    int sizeCol = Rb_AttrAddColumn(curve, "cacheSize", "blocks", 0);
    int bytesCol = Rb_AttrAddColumn(curve, "cacheBytes", "bytes", 0);
    int hitsCol = Rb_AttrAddColumn(curve, "hits", "", 0);
    int ratioCol = Rb_AttrAddColumn(curve, "hitRatio", "", 0);
    int nsizes, s, row, k, firstBin = 64, lastBin = -1;
    int64_t *sizes = CacheSizes(st, &nsizes), j;
    uint64_t hits = 0, bins[64] = {0};

    for (j = 0, s = 0; s < nsizes; s++) {
	for (; j < tb->n && tb->lo + j <= sizes[s]; j++) {
	    hits += tb->sums[j];
	}
	row = Rb_AttrAddRow(curve);
	Rb_AttrSetNum(curve, row, sizeCol, (double)sizes[s]);
	Rb_AttrSetNum(curve, row, bytesCol,
		(double)sizes[s] * (double)st->map.block);
	Rb_AttrSetNum(curve, row, hitsCol, (double)hits);
	Rb_AttrSetNum(curve, row, ratioCol, st->accesses
		? (double)hits / (double)st->accesses : 0.0);
    }
    for (j = 0; j < tb->n; j++) {
	if (tb->sums[j] > 0) {
	    /* Distances are >= 1: bin k holds [2^k, 2^(k+1)). */
	    k = 63 - __builtin_clzll((uint64_t)(tb->lo + j));
	    bins[k] += tb->sums[j];
	    firstBin = k < firstBin ? k : firstBin;
	    lastBin = k > lastBin ? k : lastBin;
	}
    }
    for (k = firstBin; k <= lastBin; k++) {
	row = Rb_AttrAddRow(hist);
	Rb_AttrSetNum(hist, row, loCol, ldexp(1.0, k));
	Rb_AttrSetNum(hist, row, hiCol, ldexp(1.0, k + 1));
	Rb_AttrSetNum(hist, row, countCol, (double)bins[k]);
    }
    free(sizes);
    Rb_AnalyzerSet(a, hist);
    Rb_AnalyzerSet(a, curve);
    Rb_AnalyzerSet(a, Rb_AttrScalar("ColdMisses", (double)st->cold, "",
	    "first accesses to a block (misses in a cache of any size)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("BlockAccesses", (double)st->accesses,
	    "", "block accesses (an I/O accesses each block it touches)"));
    return TCL_OK;
}

/*
 * ReuseDistanceFree --
 *	Frees the tables and the tree.
 */
static void
ReuseDistanceFree(Rb_Analyzer *a)
{
    ReuseDistanceState *st = a->state;

    Rb_KeyTableFree(&st->lastPos);
    Rb_BlockMapFree(&st->map);
    Rb_TimeBinsFree(&st->atDistance);
    free(st->tree);
    free(st->owner);
    st->tree = NULL;
    st->owner = NULL;
    st->cap = 0;
}

/*
 * Not mergeable: a block's distance depends on every access before it,
 * in whichever shard.
 */
const Rb_AnalyzerClass Rb_ReuseDistanceAnalyzerClass = {
    .name = "ReuseDistanceAnalyzer",
    .help = "LRU stack distance of block accesses and the hit-ratio curve "
	    "for every cache size",
    .stateSize = sizeof(ReuseDistanceState),
    .options = reuseDistanceOptions,
    .attrs = reuseDistanceAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .start = ReuseDistanceStart,
    .batch = ReuseDistanceBatch,
    .end = ReuseDistanceEnd,
    .freeState = ReuseDistanceFree,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
