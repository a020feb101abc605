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
 *	Sampled (SHARDS, Waldspurger et al., FAST 2015): with -sample R a
 *	block is tracked only when hash(block) mod P < T = R P (P = 2^24),
 *	so about a fraction R of the blocks, each with all its accesses, and
 *	a distance d among them stands for d / R; with -samplesize S the
 *	threshold T is lowered, dropping the tracked blocks of the largest
 *	hash, whenever more than S are tracked, and the counts already made
 *	are scaled by T'/T (kept as weights 1/T at the time of each access,
 *	so that the rescaling costs nothing).
 *
 *	The state grows with the distinct blocks, so it is bounded by
 *	-limit: the access that would hold one block more stops the run
 *	with RUBICON LIMIT DISTINCT rather than letting a trace of a billion
 *	distinct offsets exhaust the machine's memory.
 */

#include <inttypes.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"
#include "core/mpi.h"

/*
 * The table from block to the position of its last access, the one lookup
 * of every access: open addressing with linear probing like Rb_KeyTable,
 * but each key beside its position in one 16-byte entry, so that a lookup
 * of a block not in the processor's caches costs one memory access rather
 * than three (Rb_KeyTable keeps its used flags, keys and values in three
 * arrays).  Keys are >= 0 (RbBlockKey's); an empty entry holds -1.
 */
typedef struct PosEntry {
    int64_t key, pos;
} PosEntry;

typedef struct PosTable {
    PosEntry *e;
    uint64_t cap, count;	/* cap a power of two, or 0 */
} PosTable;

/* The hash space of SHARDS' sampling. */
#define SAMPLE_BITS 24
#define SAMPLE_P ((uint64_t)1 << SAMPLE_BITS)

/*
 * The blocks -samplesize tracks, to be dropped largest hash first: a
 * radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, J. ACM 1990) on u =
 * SAMPLE_P - 1 - hash.  It serves here because the queue is monotone:
 * it only ever gives up its largest hash, which becomes the threshold,
 * and is only given hashes below the threshold.  Bucket 0 holds the
 * items whose u equals last (the u of the hash given up last), bucket i
 * those whose u first differs from last in bit i - 1; the next hash to
 * give up is found by scanning the lowest non-empty bucket and
 * spreading it into lower ones.  Each item moves at most SAMPLE_BITS
 * times, along arrays in order, where a binary heap of a quarter of a
 * million items walked 18 levels per push and pop, the lower ones each
 * a cache miss.
 */
#define QUEUE_BUCKETS (SAMPLE_BITS + 1)

typedef struct QueueItem {
    int64_t block;
    uint32_t u;
} QueueItem;

typedef struct HashQueue {
    QueueItem *items[QUEUE_BUCKETS];
    size_t n[QUEUE_BUCKETS], cap[QUEUE_BUCKETS];
    size_t count;		/* Items in all buckets. */
    size_t room;		/* Items they have room for. */
    uint32_t last;
} HashQueue;

typedef struct ReuseDistanceState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    char *key;			/* -key: a field, or "" for blocks */
    int keyIndex;		/* -1: blocks */
    int sizeIndex;		/* With -key: the records' size field. */
    char *sizes;		/* -sizes: extra cache sizes, in blocks */
    int64_t limit;		/* -limit: most distinct blocks held */
    int failed;			/* -limit was reached: ignore the rest. */
    PosTable lastPos;		/* block -> position of its last access */
    int32_t *tree;		/* Fenwick tree, 1-based, cap entries. */
    int64_t *owner;		/* Block at each position, or RB_ABSENT. */
    int64_t cap, next;		/* Positions 1..next-1 are used. */
    Rb_TimeBins atDistance;	/* Accesses by distance (growable array). */
    Rb_TimeBins bytesAtDistance;	/* Their bytes. */
    uint64_t cold, accesses;	/* Tracked accesses (all when exact). */
    uint64_t coldBytes, bytes;
    uint64_t allAccesses;	/* Every block access, tracked or not. */
    double sample;		/* -sample: R */
    int64_t sampleSize;		/* -samplesize: S, 0 for none */
    int sampled;		/* -sample < 1 or -samplesize given. */
    uint64_t threshold;		/* T: blocks whose hash is below are
				 * tracked. */
    HashQueue byHash;		/* Tracked blocks by hash, with
				 * -samplesize. */
    Rb_KeyTable weighted;	/* Sampled: scaled distance -> Weight;
				 * exact: the distances beyond the 2^20
				 * that atDistance spans. */
    double wAccesses, wBytes, wCold, wColdBytes;
    int64_t *firsts;		/* Exact: the cold accesses in order, as
				 * (block, bytes) pairs, which a split run's
				 * merge settles against the shards before. */
    size_t nfirsts, firstsCap;
} ReuseDistanceState;

/* Accesses and bytes at one scaled distance, each weighted 1/T. */
typedef struct Weight {
    double count, bytes;
} Weight;

/*
 * QueueBucket, QueuePush, QueueTop, QueuePop, QueueClear, QueueFree --
 *	The HashQueue: the bucket of u; adds block of hash (below the
 *	threshold); the largest hash held (count > 0), its blocks then
 *	all in bucket 0, which QueuePop takes from; empties and frees.
 */
static inline int
QueueBucket(uint32_t u, uint32_t last)
{
    return u == last ? 0 : 32 - __builtin_clz(u ^ last);
}

static void
QueueAppend(HashQueue *q, int i, int64_t block, uint32_t u)
{
    if (q->n[i] == q->cap[i]) {
	q->room += q->cap[i] ? q->cap[i] : 64;
	q->cap[i] = q->cap[i] ? 2 * q->cap[i] : 64;
	q->items[i] = Rb_ReallocArray(q->items[i], q->cap[i],
		sizeof(QueueItem));
    }
    q->items[i][q->n[i]].block = block;
    q->items[i][q->n[i]].u = u;
    q->n[i]++;
}

static void
QueuePush(HashQueue *q, uint64_t hash, int64_t block)
{
    uint32_t u = (uint32_t)(SAMPLE_P - 1 - hash);

    QueueAppend(q, QueueBucket(u, q->last), block, u);
    q->count++;
}

static uint64_t
QueueTop(HashQueue *q)
{
    if (q->n[0] == 0) {
	int i = 1;
	size_t k, n;
	uint32_t least;

	while (q->n[i] == 0) {
	    i++;
	}
	least = q->items[i][0].u;
	for (k = 1; k < q->n[i]; k++) {
	    if (q->items[i][k].u < least) {
		least = q->items[i][k].u;
	    }
	}
	q->last = least;
	n = q->n[i];
	q->n[i] = 0;
	for (k = 0; k < n; k++) {
	    const QueueItem *it = &q->items[i][k];

	    /* Each lands in a lower bucket: it agreed with the old last
	     * above bit i - 1, and so does least. */
	    QueueAppend(q, QueueBucket(it->u, least), it->block, it->u);
	}
	/* The emptied bucket's room goes when the buckets have room for
	 * over twice the items (and 64 K more): so much stays at most. */
	if (q->room > 2 * q->count + 65536) {
	    q->room -= q->cap[i];
	    free(q->items[i]);
	    q->items[i] = NULL;
	    q->cap[i] = 0;
	}
    }
    return SAMPLE_P - 1 - q->last;
}

static int64_t
QueuePop(HashQueue *q)
{
    q->count--;
    return q->items[0][--q->n[0]].block;
}

static void
QueueClear(HashQueue *q)
{
    int i;

    for (i = 0; i < QUEUE_BUCKETS; i++) {
	q->n[i] = 0;
    }
    q->count = 0;
    q->last = 0;
}

static void
QueueFree(HashQueue *q)
{
    int i;

    for (i = 0; i < QUEUE_BUCKETS; i++) {
	free(q->items[i]);
    }
    memset(q, 0, sizeof(*q));
}

static const Rb_Option reuseDistanceOptions[] = {
    {"-key", RB_OPT_FIELD, offsetof(ReuseDistanceState, key), "",
	"integer field whose values are the keys (objectId for objects), "
	"one access per record; empty: the blocks the I/Os touch"},
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
    {"-sample", RB_OPT_DOUBLE, offsetof(ReuseDistanceState, sample), "1",
	"SHARDS sampling rate R in (0, 1]: track the blocks whose hash "
	"mod 2^24 is below R 2^24 (1: exact)"},
    {"-samplesize", RB_OPT_INT, offsetof(ReuseDistanceState, sampleSize),
	"0", "SHARDS fixed size: track at most this many blocks, lowering "
	"the rate as needed (0: no bound)"},
    {NULL}
};

static const char *const reuseDistanceAttrs[] = {
    "ReuseDistance", "HitRatioCurve", "ColdMisses", "BlockAccesses",
    "ColdMissRatio", "SampleRate", NULL
};

/*
 * PosHome, PosClear, PosFree --
 *	The slot where key's probe sequence starts; empties the table
 *	(keeping its allocation); frees it.  The slot comes from the hash's
 *	high bits first (rotated): SHARDS keeps the blocks whose low 24 bits are small
 *	(BlockHash), which would otherwise all start their probes in the
 *	table's first slots and make linear probing quadratic.
 */
static inline uint64_t
PosHome(const PosTable *t, int64_t key)
{
    uint64_t h = Rb_HashKey(key);

    return ((h >> 32) | (h << 32)) & (t->cap - 1);
}

static void
PosClear(PosTable *t)
{
    uint64_t i;

    for (i = 0; i < t->cap; i++) {
	t->e[i].key = -1;
    }
    t->count = 0;
}

static void
PosFree(PosTable *t)
{
    free(t->e);
    t->e = NULL;
    t->cap = t->count = 0;
}

/*
 * PosGrow --
 *	Doubles the table (or makes its first 1024 entries) and rehashes it.
 */
static void
PosGrow(PosTable *t)
{
    PosTable old = *t;
    uint64_t i, h;

    t->cap = old.cap ? 2 * old.cap : 1024;
    t->e = RbAllocHuge(t->cap, sizeof(PosEntry));
    memset(t->e, 0, t->cap * sizeof(PosEntry));
    PosClear(t);
    for (i = 0; i < old.cap; i++) {
	if (old.e[i].key < 0) {
	    continue;
	}
	for (h = PosHome(t, old.e[i].key); t->e[h].key >= 0;
		h = (h + 1) & (t->cap - 1)) {
	}
	t->e[h] = old.e[i];
    }
    t->count = old.count;
    free(old.e);
}

/*
 * PosFind --
 *	The position of key's last access; when key is absent, a new entry
 *	of position 0 if create, else NULL.
 * Side effects: may grow the table, moving every entry.
 */
static int64_t *
PosFind(PosTable *t, int64_t key, int create)
{
    uint64_t h;

    if (create && (t->count + 1) * 4 > t->cap * 3) {
	PosGrow(t);
    }
    if (t->cap == 0) {
	return NULL;
    }
    for (h = PosHome(t, key); t->e[h].key >= 0; h = (h + 1) & (t->cap - 1)) {
	if (t->e[h].key == key) {
	    return &t->e[h].pos;
	}
    }
    if (!create) {
	return NULL;
    }
    t->e[h].key = key;
    t->e[h].pos = 0;
    t->count++;
    return &t->e[h].pos;
}

/*
 * PosRemove --
 *	Removes key if present, moving back the entries after it in its
 *	cluster that would otherwise become unreachable (as
 *	Rb_KeyTableRemove does).
 */
static void
PosRemove(PosTable *t, int64_t key)
{
    uint64_t mask = t->cap - 1, hole, j, home;

    if (t->cap == 0) {
	return;
    }
    for (hole = PosHome(t, key); t->e[hole].key >= 0
	    && t->e[hole].key != key; hole = (hole + 1) & mask) {
    }
    if (t->e[hole].key < 0) {
	return;
    }
    for (j = (hole + 1) & mask; t->e[j].key >= 0; j = (j + 1) & mask) {
	home = PosHome(t, t->e[j].key);
	if (((j - home) & mask) >= ((j - hole) & mask)) {
	    t->e[hole] = t->e[j];
	    hole = j;
	}
    }
    t->e[hole].key = -1;
    t->count--;
}

/*
 * ReuseDistanceInit --
 *	Checks -limit, -sample and -samplesize.
 * Results: TCL_OK or TCL_ERROR with the error set (in interp, or as an
 *	analyzer error from start).
 */
static int
ReuseDistanceInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    ReuseDistanceState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    if (!(st->sample > 0.0 && st->sample <= 1.0)
	    || (uint64_t)(st->sample * (double)SAMPLE_P) == 0) {
	return RbKitOptionError(a, interp, "-sample must be in (0, 1] and "
		"at least 2^-24");
    }
    if (st->sampleSize < 0) {
	return RbKitOptionError(a, interp,
		"-samplesize must be 0 (none) or positive");
    }
    return TCL_OK;
}

/*
 * SampledRefusal --
 *	The error of a SHARDS instance asked to merge.
 * Results: TCL_ERROR.
 */
static int
SampledRefusal(Rb_Analyzer *a)
{
    Rb_AnalyzerError(a, "RUBICON SPLIT UNMERGEABLE", "%s: SHARDS sampling "
	    "(-sample, -samplesize) cannot merge partial results exactly, "
	    "so a run split over processes would be wrong; run it in one "
	    "process (mpirun -np 1, or without mpirun), or split it exact "
	    "(without -sample and -samplesize)",
	    a->cmdName ? a->cmdName : a->cls->name);
    return TCL_ERROR;
}

static void	BuildTree(ReuseDistanceState *st, int64_t live);

/*
 * ReuseDistanceStart --
 *	Checks the options and empties the state for a new run.
 */
static int
ReuseDistanceStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReuseDistanceState *st = a->state;

    st->keyIndex = -1;
    if (ReuseDistanceInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->key != NULL && st->key[0] != '\0') {
	/* Keys of a field: no devices, so the map stays empty (a split
	 * run's partial state still carries it). */
	if (Rb_AnalyzerTypedField(a, run, st->key, RB_FT_BIT(RB_FT_INT),
		&st->keyIndex) != TCL_OK
		|| RbKitIntegerField(a, run, "size", &st->sizeIndex)
		!= TCL_OK) {
	    st->keyIndex = -1;
	    return TCL_ERROR;
	}
	RbBlockMapClear(&st->map);
    } else if (RbBlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    st->sampled = st->sample < 1.0 || st->sampleSize > 0;
    st->threshold = (uint64_t)(st->sample * (double)SAMPLE_P);
    if (st->weighted.valSize == 0) {
	Rb_KeyTableInit(&st->weighted, sizeof(Weight));
    }
    Rb_KeyTableClear(&st->weighted);
    QueueClear(&st->byHash);
    st->wAccesses = st->wBytes = st->wCold = st->wColdBytes = 0.0;
    st->bytesAtDistance.lo = st->bytesAtDistance.n = 0;
    st->coldBytes = st->bytes = st->allAccesses = 0;
    PosClear(&st->lastPos);
    /* An empty stack: the tree of the run before counts nothing. */
    BuildTree(st, 0);
    st->atDistance.lo = st->atDistance.n = 0;
    st->cold = st->accesses = 0;
    st->nfirsts = 0;
    st->failed = 0;
    return st->sampled && RbMergeWanted() ? SampledRefusal(a) : TCL_OK;
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
 * BuildTree --
 *	Makes the positions 1..live (owner holds their blocks, lastPos
 *	points at them) the whole stack, in a tree of twice that size,
 *	built in linear time.
 */
static void
BuildTree(ReuseDistanceState *st, int64_t live)
{
    int64_t pos, parent;

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
 * Compact --
 *	Renumbers the live positions 1..live in order and rebuilds the
 *	tree.
 */
static void
Compact(ReuseDistanceState *st)
{
    int64_t live = 0, pos;

    for (pos = 1; pos < st->next; pos++) {
	if (st->owner[pos - 1] != RB_ABSENT) {
	    st->owner[live++] = st->owner[pos - 1];
	    *PosFind(&st->lastPos, st->owner[live - 1], 0)
		    = live;
	}
    }
    BuildTree(st, live);
}

/*
 * Access --
 *	Moves block key to the top of the stack, at the next position.
 * Results: its stack distance, 0 for a first access (cold), or -1
 *	(nothing done) when key is a new block and -limit blocks are
 *	already held.
 */
static int64_t
Access(ReuseDistanceState *st, int64_t key)
{
    int64_t *last, pos = st->next, distance = 0;

    if (pos > st->cap) {
	Compact(st);
	pos = st->next;
    }
    last = PosFind(&st->lastPos, key, (int64_t)st->lastPos.count < st->limit);
    if (last == NULL) {
	return -1;
    }
    if (*last != 0) {
	distance = TreePrefix(st, pos - 1) - TreePrefix(st, *last) + 1;
	TreeAdd(st, *last, -1);
	st->owner[*last - 1] = RB_ABSENT;
    }
    TreeAdd(st, pos, 1);
    st->owner[pos - 1] = key;
    *last = pos;
    st->next = pos + 1;
    return distance;
}

/*
 * BlockHash --
 *	The hash of block key that sampling compares with the threshold.
 */
static uint64_t
BlockHash(int64_t key)
{
    return Rb_HashKey(key) & (SAMPLE_P - 1);
}

/*
 * Shrink --
 *	-samplesize: while more than S blocks are tracked, lowers the
 *	threshold to the largest tracked hash and drops every block of that
 *	hash from the stack.
 */
static void
Shrink(ReuseDistanceState *st)
{
    while ((int64_t)st->lastPos.count > st->sampleSize
	    && st->byHash.count > 0) {
	st->threshold = QueueTop(&st->byHash);
	while (st->byHash.n[0] > 0) {
	    int64_t block = QueuePop(&st->byHash);
	    int64_t *last = PosFind(&st->lastPos, block, 0);

	    if (last != NULL) {
		TreeAdd(st, *last, -1);
		st->owner[*last - 1] = RB_ABSENT;
		PosRemove(&st->lastPos, block);
	    }
	}
    }
}

/*
 * NoteFirst --
 *	Appends a cold access of an exact instance to the list a split
 *	run's merge settles.
 */
static void
NoteFirst(ReuseDistanceState *st, int64_t key, uint64_t bytes)
{
    RbKitAppendPair(&st->firsts, &st->nfirsts, &st->firstsCap, 1024, key,
	    (int64_t)bytes);
}

/*
 * AddAtDistance --
 *	Counts an exact re-access at distance: in the array, or beyond the
 *	2^20 distances it spans in the table sampling uses, each access
 *	weighing 1.
 */
static void
AddAtDistance(ReuseDistanceState *st, int64_t distance, uint64_t bytes)
{
    uint64_t *slot;

    if ((slot = Rb_TimeBinsSlot(&st->atDistance, distance)) != NULL) {
	(*slot)++;
	if ((slot = Rb_TimeBinsSlot(&st->bytesAtDistance, distance))
		!= NULL) {
	    *slot += bytes;
	}
    } else {
	Weight *wt = Rb_KeyTableFind(&st->weighted, distance, 1);

	wt->count += 1.0;
	wt->bytes += (double)bytes;
    }
}

/*
 * Count --
 *	Counts one access to block key of bytes bytes (when tracked).
 * Results: 1, or 0 when -limit blocks are held and key is another.
 */
static int
Count(ReuseDistanceState *st, int64_t key, uint64_t bytes)
{
    uint64_t hash = 0;
    int64_t distance;

    if (st->sampled && (hash = BlockHash(key)) >= st->threshold) {
	st->allAccesses++;
	return 1;
    }
    if ((distance = Access(st, key)) < 0) {
	return 0;
    }
    st->allAccesses++;
    st->accesses++;
    st->bytes += bytes;
    if (!st->sampled) {
	if (distance == 0) {
	    st->cold++;
	    st->coldBytes += bytes;
	    NoteFirst(st, key, bytes);
	} else {
	    AddAtDistance(st, distance, bytes);
	}
	return 1;
    } else {
	/* Each access weighs 1/T: when T drops to T' the counts made
	 * before are worth T'/T of those made after, as SHARDS rescales
	 * them. */
	double w = 1.0 / (double)st->threshold;

	st->wAccesses += w;
	st->wBytes += w * (double)bytes;
	if (distance == 0) {
	    st->cold++;
	    st->wCold += w;
	    st->wColdBytes += w * (double)bytes;
	    if (st->sampleSize > 0) {
		QueuePush(&st->byHash, hash, key);
		Shrink(st);
	    }
	} else {
	    Weight *wt = Rb_KeyTableFind(&st->weighted, llround((double)
		    distance * (double)SAMPLE_P / (double)st->threshold), 1);

	    wt->count += w;
	    wt->bytes += w * (double)bytes;
	}
    }
    return 1;
}

/*
 * The block accesses of a batch are gathered AHEAD_KEYS at a time before
 * they are counted, so that the memory each will touch is fetched while
 * earlier ones are counted: its table entry AHEAD_SLOT accesses ahead,
 * then (the entry now at hand) its last position's tree and owner
 * entries AHEAD_TREE accesses ahead.  On a stack of a million blocks each
 * of these is a cache miss otherwise.  Sampled, the accesses gathered are
 * those under the threshold, and the table of -samplesize blocks (4 MB
 * and more at 262,144) is as far out of cache.
 */
#define AHEAD_KEYS 1024
#define AHEAD_SLOT 16
#define AHEAD_TREE 8

typedef struct Ahead {
    int64_t key;
    uint64_t bytes;
    uint64_t record;		/* for the error of -limit */
} Ahead;

/*
 * Prefetch --
 *	Prefetches for access i + AHEAD_SLOT of acc[0..n-1] its table entry,
 *	and for access i + AHEAD_TREE its tree and owner entries.  A block
 *	re-accessed in between makes a prefetch useless, never wrong.
 */
static inline void
Prefetch(ReuseDistanceState *st, const Ahead *acc, int i, int n)
{
    int64_t *last;

    if (i + AHEAD_SLOT < n && st->lastPos.cap > 0) {
	__builtin_prefetch(&st->lastPos.e[PosHome(&st->lastPos,
		acc[i + AHEAD_SLOT].key)]);
    }
    if (i + AHEAD_TREE < n && (last = PosFind(&st->lastPos,
	    acc[i + AHEAD_TREE].key, 0)) != NULL && *last > 0
	    && *last <= st->cap) {
	__builtin_prefetch(&st->tree[*last - 1], 1);
	__builtin_prefetch(&st->owner[*last - 1], 1);
    }
}

/*
 * FieldAccesses --
 *	With -key: the accesses of the selected records from sel[*j] on,
 *	one per record with a key, into acc (at most AHEAD_KEYS).  A key
 *	is taken modulo 2^63 (its sign bit cleared: the position table
 *	holds keys of 0 and up); a record without a size counts no bytes.
 * Results: the number of accesses; *j moves past the records taken.
 */
static int
FieldAccesses(ReuseDistanceState *st, const Rb_Batch *b,
	const uint32_t *sel, int nsel, int *j, Ahead *acc)
{
    const int64_t *keys = b->col[st->keyIndex];
    const int64_t *size = b->col[st->sizeIndex];
    int n = 0;

    for (; *j < nsel && n < AHEAD_KEYS; (*j)++) {
	int rec = (int)sel[*j];

	if (keys[rec] == RB_ABSENT) {
	    st->map.skipped++;
	    continue;
	}
	acc[n].key = keys[rec] & INT64_MAX;
	acc[n].bytes = size[rec] > 0 ? (uint64_t)size[rec] : 0;
	acc[n].record = b->firstRecord + (uint64_t)rec;
	n++;
    }
    return n;
}

/*
 * ReuseDistanceBatch --
 *	Accesses, in order, every block of each selected I/O (with -key,
 *	the key of each selected record), up to the first block beyond
 *	-limit; that one stops the run with an error naming its record.
 */
static void
ReuseDistanceBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ReuseDistanceState *st = a->state;
    const int64_t *offset = st->keyIndex < 0 ? b->col[st->map.offsetIndex]
	    : NULL;
    const int64_t *size = b->col[RB_IO_SIZE];
    Ahead acc[AHEAD_KEYS];
    int64_t first = 0, count = 0, k = 0, firstBytes = 0, lastBytes = 0;
    int j = 0, n, i, rec = 0, edges = 0;

    while (!st->failed && (j < nsel || k < count)) {
	/* The next accesses, resuming inside an I/O of many blocks. */
	for (n = 0; st->keyIndex < 0 && n < AHEAD_KEYS; n++, k++) {
	    while (k == count && j < nsel) {
		k = count = 0;
		if (RbBlockRange(&st->map, b, sel[j], &first, &count)) {
		    rec = sel[j];
		    edges = 0;	/* RbIoEdgeBytes when a block is taken */
		}
		j++;
	    }
	    if (k == count) {
		break;
	    }
	    if (st->sampled) {
		/* Blocks out of the sample now, so out of it when Count
		 * would see them (the threshold only falls): counted here,
		 * passed in a loop of their own (most blocks are), and the
		 * next block in the sample, or of the next I/O, takes their
		 * place. */
		int64_t from = k;
		uint64_t threshold = st->threshold;

		while (k < count && BlockHash(first + k) >= threshold) {
		    k++;
		}
		st->allAccesses += (uint64_t)(k - from);
		if (k == count) {
		    k--;
		    n--;
		    continue;
		}
	    }
	    if (!edges) {
		RbIoEdgeBytes(&st->map, offset[rec], size[rec], count,
			&firstBytes, &lastBytes);
		edges = 1;
	    }
	    acc[n].key = first + k;
	    acc[n].bytes = (uint64_t)RbIoBlockBytes(&st->map, k, count,
		    firstBytes, lastBytes);
	    acc[n].record = b->firstRecord + (uint64_t)rec;
	}
	if (st->keyIndex >= 0) {
	    n = FieldAccesses(st, b, sel, nsel, &j, acc);
	}
	for (i = 0; i < n; i++) {
	    Prefetch(st, acc, i, n);
	    if (!Count(st, acc[i].key, acc[i].bytes)) {
		st->failed = 1;
		Rb_AnalyzerError(a, "RUBICON LIMIT DISTINCT", "%s: more than "
			"-limit %" PRId64 " distinct blocks at record %" PRIu64
			" (raise -limit; each block held costs up to about "
			"86 bytes)", a->cls->name, st->limit, acc[i].record);
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
 * Results: a malloc'd sorted array without repeats; *n set to its
 *	length.
 */
static int64_t *
CacheSizes(const ReuseDistanceState *st, int64_t distinct, int *n)
{
    int64_t c, *sizes = NULL;
    const char *p = st->sizes ? st->sizes : "";
    char *end;
    int k = 0, i, j;

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
    /* A -sizes entry that is also a power of two, or the number of
     * distinct blocks, is one row. */
    for (i = 0, j = 0; i < k; i++) {
	if (j == 0 || sizes[i] != sizes[j - 1]) {
	    sizes[j++] = sizes[i];
	}
    }
    *n = j;
    return sizes;
}

/* One distance of the curve: re-accesses and their bytes at it. */
typedef struct AtDistance {
    double distance, count, bytes;
} AtDistance;

/*
 * CompareDistances --
 *	qsort order of AtDistance by distance.
 */
static int
CompareDistances(const void *p, const void *q)
{
    double x = ((const AtDistance *)p)->distance;
    double y = ((const AtDistance *)q)->distance;

    return (x > y) - (x < y);
}

/*
 * Distances --
 *	The re-accesses by distance in increasing order: exact counts (from
 *	the array, and from the table for distances beyond its span), or
 *	(sampled) the weights at each scaled distance.
 * Results: a malloc'd array; *n set to its length.
 */
static AtDistance *
Distances(const ReuseDistanceState *st, int64_t *n)
{
    const Rb_TimeBins *tb = &st->atDistance, *bb = &st->bytesAtDistance;
    AtDistance *d;
    uint64_t i;
    int64_t j;

    *n = 0;
    if (!st->sampled) {
	d = Rb_Realloc(NULL, (size_t)(tb->n + 1 + (int64_t)st->weighted.count)
		* sizeof(AtDistance));
	for (j = 0; j < tb->n; j++) {
	    int64_t dist = tb->lo + j;

	    if (tb->sums[j] == 0) {
		continue;
	    }
	    d[*n].distance = (double)dist;
	    d[*n].count = (double)tb->sums[j];
	    d[*n].bytes = dist >= bb->lo && dist < bb->lo + bb->n
		    ? (double)bb->sums[dist - bb->lo] : 0.0;
	    (*n)++;
	}
	if (st->weighted.count == 0) {
	    return d;
	}
    } else {
	d = Rb_Realloc(NULL, (st->weighted.count + 1) * sizeof(AtDistance));
    }
    for (i = 0; i < st->weighted.cap; i++) {
	const Weight *w;

	if (!st->weighted.used[i]) {
	    continue;
	}
	w = Rb_KeyTableValue(&st->weighted, i);
	d[*n].distance = (double)st->weighted.keys[i];
	d[*n].count = w->count;
	d[*n].bytes = w->bytes;
	(*n)++;
    }
    qsort(d, (size_t)*n, sizeof(AtDistance), CompareDistances);
    return d;
}

/*
 * Clamp --
 *	x within [0, 1] (a sampled estimate may stray outside).
 */
static double
Clamp(double x)
{
    return x < 0 ? 0.0 : x > 1 ? 1.0 : x;
}

/*
 * ReuseDistanceEnd --
 *	Sets the distance histogram (log2 bins), the hit-ratio curve (by
 *	accesses and by bytes), the cold misses and their ratio, the number
 *	of block accesses and the sampling rate in force at the end.
 *	Sampled, counts are estimates: a ratio of weights times the block
 *	accesses.
 */
static int
ReuseDistanceEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReuseDistanceState *st = a->state;
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
    int byteRatioCol = Rb_AttrAddColumn(curve, "byteHitRatio", "", 0);
    double rate = st->sampled
	    ? (double)st->threshold / (double)SAMPLE_P : 1.0;
    double total = st->sampled ? st->wAccesses : (double)st->accesses;
    double totalBytes = st->sampled ? st->wBytes : (double)st->bytes;
    double cold = st->sampled ? st->wCold : (double)st->cold;
    double scale, hits = 0, hitBytes = 0, bins[64] = {0};
    int64_t distinct = (int64_t)llround((double)st->lastPos.count / rate);
    int nsizes, s, row, k, firstBin = 64, lastBin = -1;
    int64_t *sizes = CacheSizes(st, distinct, &nsizes), n, j;
    AtDistance *d = Distances(st, &n);

    if (st->sampled && total > 0) {
	/* SHARDS_adj: the weight expected of the accesses, each tracked
	 * with probability T/P and weighing 1/T, is their number over P; the
	 * difference from the weight seen (most of it from whether a few
	 * hot blocks were sampled) is counted as hits at the smallest
	 * distance, and the expected weight is the denominator. */
	double expected = (double)st->allAccesses / (double)SAMPLE_P;

	hits = expected - total;
	hitBytes = hits * totalBytes / total;
	totalBytes *= expected / total;
	total = expected;
    }
    scale = total > 0 ? (double)st->allAccesses / total : 0.0;
    for (j = 0, s = 0; s < nsizes; s++) {
	for (; j < n && d[j].distance <= (double)sizes[s]; j++) {
	    hits += d[j].count;
	    hitBytes += d[j].bytes;
	}
	if (st->sampled && (double)sizes[s] * (double)(st->threshold + 1)
		< (double)SAMPLE_P) {
	    /* Below 1/R a sampled cache holds less than one block: its
	     * estimate means nothing, so the row is left out (R is T/P,
	     * T truncated from R P: T + 1 keeps a size of exactly 1/R). */
	    continue;
	}
	row = Rb_AttrAddRow(curve);
	Rb_AttrSetNum(curve, row, sizeCol, (double)sizes[s]);
	Rb_AttrSetNum(curve, row, bytesCol,
		(double)sizes[s] * (double)st->map.block);
	Rb_AttrSetNum(curve, row, hitsCol, st->sampled
		? round(Clamp(hits / total) * (double)st->allAccesses) : hits);
	Rb_AttrSetNum(curve, row, ratioCol, total > 0
		? Clamp(hits / total) : 0.0);
	Rb_AttrSetNum(curve, row, byteRatioCol, totalBytes > 0
		? Clamp(hitBytes / totalBytes) : 0.0);
    }
    for (j = 0; j < n; j++) {
	/* Distances are >= 1: bin k holds [2^k, 2^(k+1)). */
	k = 63 - __builtin_clzll((uint64_t)d[j].distance);
	bins[k] += d[j].count * scale;
	firstBin = k < firstBin ? k : firstBin;
	lastBin = k > lastBin ? k : lastBin;
    }
    for (k = firstBin; k <= lastBin; k++) {
	row = Rb_AttrAddRow(hist);
	Rb_AttrSetNum(hist, row, loCol, ldexp(1.0, k));
	Rb_AttrSetNum(hist, row, hiCol, ldexp(1.0, k + 1));
	Rb_AttrSetNum(hist, row, countCol, st->sampled ? round(bins[k])
		: bins[k]);
    }
    free(sizes);
    free(d);
    Rb_AnalyzerSet(a, hist);
    Rb_AnalyzerSet(a, curve);
    Rb_AnalyzerSet(a, Rb_AttrScalar("ColdMisses", st->sampled
	    ? round(cold * scale) : cold, "",
	    "first accesses to a block (misses in a cache of any size)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ColdMissRatio", total > 0
	    ? Clamp(cold / total) : 0.0, "",
	    "cold misses over block accesses (the compulsory miss ratio)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("BlockAccesses",
	    (double)st->allAccesses, "",
	    "block accesses (an I/O accesses each block it touches)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("SampleRate", rate, "",
	    "fraction of the blocks tracked (SHARDS rate at the end; 1 "
	    "when exact)"));
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

    PosFree(&st->lastPos);
    RbBlockMapFree(&st->map);
    Rb_TimeBinsFree(&st->atDistance);
    Rb_TimeBinsFree(&st->bytesAtDistance);
    Rb_KeyTableFree(&st->weighted);
    QueueFree(&st->byHash);
    free(st->tree);
    free(st->owner);
    free(st->firsts);
    st->tree = NULL;
    st->owner = NULL;
    st->firsts = NULL;
    st->cap = 0;
    st->firstsCap = st->nfirsts = 0;
}

/*
 * ReuseDistanceSerialize, ReuseDistanceDeserialize --
 *	serialize and deserialize hooks (exact only): the devices, the
 *	counts, the distances, the stack from its bottom (least recently
 *	used) up, and the cold accesses in order.
 */
static int
ReuseDistanceSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ReuseDistanceState *st = a->state;
    int64_t pos;
    size_t k;

    if (st->sampled) {
	return SampledRefusal(a);
    }
    RbBlockMapPut(b, &st->map);
    RbKitPutCounters(b, &st->cold, 2);
    RbKitPutCounters(b, &st->coldBytes, 3);
    Rb_TimeBinsPut(b, &st->atDistance);
    Rb_TimeBinsPut(b, &st->bytesAtDistance);
    Rb_KeyTablePut(b, &st->weighted, NULL);
    Rb_BufPutInt(b, (int64_t)st->lastPos.count);
    for (pos = 1; pos < st->next; pos++) {
	if (st->owner[pos - 1] != RB_ABSENT) {
	    Rb_BufPutInt(b, st->owner[pos - 1]);
	}
    }
    Rb_BufPutInt(b, (int64_t)st->nfirsts);
    for (k = 0; k < 2 * st->nfirsts; k++) {
	Rb_BufPutInt(b, st->firsts[k]);
    }
    return TCL_OK;
}

static int
ReuseDistanceDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ReuseDistanceState *st = a->state;
    int64_t n, pos, m, k;

    if (st->sampled) {
	return SampledRefusal(a);
    }
    RbBlockMapGet(b, &st->map);
    RbKitGetCounters(b, &st->cold, 2);
    RbKitGetCounters(b, &st->coldBytes, 3);
    Rb_TimeBinsGet(b, &st->atDistance);
    Rb_TimeBinsGet(b, &st->bytesAtDistance);
    Rb_KeyTableGet(b, &st->weighted, NULL);
    n = Rb_BufGetCount(b, 8);
    if (n > st->limit) {
	b->bad = 1;
	return TCL_OK;
    }
    st->owner = Rb_ReallocArray(st->owner, (size_t)n + 1, sizeof(int64_t));
    for (pos = 1; pos <= n; pos++) {
	st->owner[pos - 1] = Rb_BufGetInt(b);
	*PosFind(&st->lastPos, st->owner[pos - 1], 1) = pos;
    }
    BuildTree(st, n);
    m = Rb_BufGetCount(b, 16);
    st->firsts = Rb_ReallocArray(st->firsts, 2 * (size_t)m + 2,
	    sizeof(int64_t));
    st->firstsCap = (size_t)m + 1;
    for (k = 0; k < 2 * m; k++) {
	st->firsts[k] = Rb_BufGetInt(b);
    }
    st->nfirsts = (size_t)m;
    return TCL_OK;
}

/*
 * Rekey --
 *	The key in a's numbering of a key of other's: a block's keyed again
 *	by its device (RbBlockRekey), a -key value as it is.
 */
static int64_t
Rekey(ReuseDistanceState *st, const int64_t *devices, int64_t key)
{
    return st->keyIndex >= 0 ? key : RbBlockRekey(&st->map, devices, key);
}

/*
 * SettleFirsts --
 *	Passes other's cold accesses, in order, to a's final stack: the
 *	k-th is to a block a holds at position q, at distance 1 + k (the
 *	distinct blocks other accessed before it) + the blocks above q in
 *	a's stack that other has not accessed yet, counted in a's tree
 *	from which each block settled is taken out; a block a does not
 *	hold stays cold, a first access of the merged shards.
 * Results: the accesses settled as re-accesses (*hitBytes their bytes).
 */
static uint64_t
SettleFirsts(ReuseDistanceState *st, const ReuseDistanceState *ost,
	const int64_t *devices, uint64_t *hitBytes)
{
    uint64_t hits = 0;
    size_t k;

    *hitBytes = 0;
    for (k = 0; k < ost->nfirsts; k++) {
	int64_t key = Rekey(st, devices, ost->firsts[2 * k]);
	int64_t bytes = ost->firsts[2 * k + 1], distance;
	int64_t *last = PosFind(&st->lastPos, key, 0);

	if (last == NULL || st->owner[*last - 1] == RB_ABSENT) {
	    NoteFirst(st, key, (uint64_t)bytes);
	    continue;
	}
	distance = (int64_t)k + 1 + TreePrefix(st, st->next - 1)
		- TreePrefix(st, *last);
	TreeAdd(st, *last, -1);
	st->owner[*last - 1] = RB_ABSENT;
	hits++;
	*hitBytes += (uint64_t)bytes;
	AddAtDistance(st, distance, (uint64_t)bytes);
    }
    return hits;
}

/*
 * ReuseDistanceMerge --
 *	merge hook (exact only): other's accesses follow a's.  Its
 *	re-accesses of blocks it had accessed keep their distances; its
 *	cold accesses are settled against a's final stack (SettleFirsts);
 *	the merged stack is other's on top of a's blocks other did not
 *	access.  Memory stays that of the distinct blocks.
 * Results: TCL_OK, or TCL_ERROR when the merged shards hold more than
 *	-limit blocks (one process would have stopped), past 2^15
 *	devices, or for SHARDS (RUBICON SPLIT UNMERGEABLE).
 */
static int
ReuseDistanceMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ReuseDistanceState *st = a->state;
    const ReuseDistanceState *ost = other->state;
    int64_t *devices, *stack, pos, live = 0;
    uint64_t hits, hitBytes, i;

    if (st->sampled || ost->sampled) {
	return SampledRefusal(a);
    }
    if ((devices = RbBlockMapAdopt(&st->map, &ost->map, NULL)) == NULL) {
	Rb_AnalyzerError(a, "RUBICON LIMIT DEVICES",
		"%s: more than 32768 devices to merge", a->cls->name);
	return TCL_ERROR;
    }
    hits = SettleFirsts(st, ost, devices, &hitBytes);
    stack = Rb_AllocArray(st->lastPos.count + ost->lastPos.count + 1,
	    sizeof(int64_t));
    for (pos = 1; pos < st->next; pos++) {
	if (st->owner[pos - 1] != RB_ABSENT) {
	    stack[live++] = st->owner[pos - 1];
	}
    }
    for (pos = 1; pos < ost->next; pos++) {
	if (ost->owner[pos - 1] != RB_ABSENT) {
	    stack[live++] = Rekey(st, devices, ost->owner[pos - 1]);
	}
    }
    free(devices);
    if (live > st->limit) {
	free(stack);
	Rb_AnalyzerError(a, "RUBICON LIMIT DISTINCT", "%s: more than -limit "
		"%" PRId64 " distinct blocks in the merged shards (raise "
		"-limit; each block held costs up to about 86 bytes)",
		a->cls->name, st->limit);
	return TCL_ERROR;
    }
    PosClear(&st->lastPos);
    for (pos = 1; pos <= live; pos++) {
	*PosFind(&st->lastPos, stack[pos - 1], 1) = pos;
    }
    free(st->owner);
    st->owner = stack;
    BuildTree(st, live);
    st->cold += ost->cold - hits;
    st->coldBytes += ost->coldBytes - hitBytes;
    st->accesses += ost->accesses;
    st->bytes += ost->bytes;
    st->allAccesses += ost->allAccesses;
    Rb_TimeBinsAddBins(&st->atDistance, &ost->atDistance);
    Rb_TimeBinsAddBins(&st->bytesAtDistance, &ost->bytesAtDistance);
    for (i = 0; i < ost->weighted.cap; i++) {
	if (ost->weighted.used[i]) {
	    const Weight *ow = Rb_KeyTableValue(&ost->weighted, i);
	    Weight *wt = Rb_KeyTableFind(&st->weighted,
		    ost->weighted.keys[i], 1);

	    wt->count += ow->count;
	    wt->bytes += ow->bytes;
	}
    }
    return TCL_OK;
}

/*
 * Mergeable when exact: a shard's first access to each block is settled
 * against the final LRU stack of the shards before it
 * (ReuseDistanceMerge).  SHARDS instances refuse a split run at start.
 */
const Rb_AnalyzerClass Rb_ReuseDistanceAnalyzerClass = {
    .name = "ReuseDistanceAnalyzer",
    .help = "LRU stack distance of block accesses and the hit-ratio curve "
	    "for every cache size",
    .stateSize = sizeof(ReuseDistanceState),
    .options = reuseDistanceOptions,
    .attrs = reuseDistanceAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = ReuseDistanceInit,
    .start = ReuseDistanceStart,
    .batch = ReuseDistanceBatch,
    .end = ReuseDistanceEnd,
    .freeState = ReuseDistanceFree,
    .merge = ReuseDistanceMerge,
    .serialize = ReuseDistanceSerialize,
    .deserialize = ReuseDistanceDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
