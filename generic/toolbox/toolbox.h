/*
 * toolbox.h --
 *
 *	The kit's toolbox: what the built-in Analyzer classes keep their
 *	state in and share, for blocks and objects alike.  Time bins,
 *	moments, logarithmic histograms and key tables are public API
 *	(rubicon.h) and defined here (timeBins.c, kitStats.c, logHist.c,
 *	keyTable.c); this header adds the pieces only the kit uses: distinct
 *	sets, block maps, heaps, packed pairs, the -by grouping, burstiness
 *	statistics, option helpers and the serialize helpers of split runs.
 *	Only rubicon.h is used: the kit is written against the interface an
 *	outside plugin would use.
 */

#ifndef RB_TOOLBOX_H
#define RB_TOOLBOX_H

#include "rubicon.h"

#define RB_NS_PER_S 1e9

/* Exact sums of products of int64 values (ServiceModelAnalyzer,
 * ArrivalFitAnalyzer). */
typedef __int128 Sum128;

/* Helpers of the kit (kitHelpers.c). */
/* The push of a batch to a Flow's analyzers this thread is in, 0 for
 * none: its analyzers get the same batch and selection (core/flow.c). */
uint64_t	RbFlowPushId(void);
int		RbKitOptionError(Rb_Analyzer *a, Tcl_Interp *interp,
		    const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
void		RbKitDeviceLimit(Rb_Analyzer *a, int64_t limit,
		    const char *field, uint64_t record, int64_t bytes);
void		RbKitKeyLimit(Rb_Analyzer *a, int64_t limit,
		    const char *field, uint64_t record, int64_t bytes);
int		RbKitParseSeconds(Tcl_Obj *obj, int64_t **ns);
int		RbKitLatencyField(Rb_Analyzer *a, Tcl_Interp *interp,
		    const char *name, int *from, int *to);
int		RbKitDurationField(Rb_Analyzer *a, const Rb_RunInfo *run,
		    const char *name, int *from, int *to);

/*
 * RbLatencyNs --
 *	The duration from t0 to t1 in ns: 1 with *ns set, or 0 when either
 *	time is absent, t1 precedes t0, or the difference overflows int64
 *	(a corrupt time).
 */
static inline int
RbLatencyNs(int64_t t0, int64_t t1, int64_t *ns)
{
    return t0 != RB_ABSENT && t1 != RB_ABSENT && t1 >= t0
	    && !__builtin_sub_overflow(t1, t0, ns);
}

/*
 * Grouping (groupBy.c): a statistics class with -by field and -limit
 * added, one row per value of the field.
 */
const Rb_AnalyzerClass *RbKitGroupedClass(const Rb_AnalyzerClass *base);
int		RbKitKeyOrder(const void *p, const void *q, void *cd);

/*
 * RbSecondsBetween --
 *	to - from, in seconds.  Exact integer arithmetic when the difference
 *	fits in int64 (always, for real traces); a corrupt time cannot cause
 *	signed overflow.
 */
static inline double
RbSecondsBetween(int64_t from, int64_t to)
{
    int64_t ns;

    if (__builtin_sub_overflow(to, from, &ns)) {
	return ((double)to - (double)from) / RB_NS_PER_S;
    }
    return (double)ns / RB_NS_PER_S;
}

/*
 * RbContinuesRun --
 *	SeqRunAnalyzer's definition of sequential, which PatternAnalyzer
 *	shares: an I/O at offset continues its device's run when it starts
 *	within gap bytes, either way, of prevEnd, where the device's previous
 *	I/O ended.  Unsigned arithmetic: wild offsets cannot overflow.
 */
static inline int
RbContinuesRun(int64_t prevEnd, int64_t offset, int64_t gap)
{
    uint64_t distance = offset >= prevEnd
	    ? (uint64_t)offset - (uint64_t)prevEnd
	    : (uint64_t)prevEnd - (uint64_t)offset;

    return distance <= (uint64_t)gap;
}

/*
 * RbRunTimesKnown --
 *	Whether the run has seen a record time yet (the engine starts with
 *	firstTime > lastTime).
 */
static inline int
RbRunTimesKnown(const Rb_RunInfo *run)
{
    return run->firstTime != RB_ABSENT && run->firstTime <= run->lastTime;
}

/*
 * RbRunSeconds --
 *	The run's duration, last record time minus first, in seconds; 0 when
 *	the run saw fewer than two distinct times.  Every per-device rate
 *	divides by this same duration so that the rates of a partition of the
 *	records add up to the rate of the whole.
 */
static inline double
RbRunSeconds(const Rb_RunInfo *run)
{
    if (!RbRunTimesKnown(run)) {
	return 0.0;
    }
    return RbSecondsBetween(run->firstTime, run->lastTime);
}


/*
 * The state of an analyzer that totals a quantity over the run and per
 * interval: RateAnalyzer (I/Os) and BandwidthAnalyzer (bytes) differ only
 * in what they add and what they call it, so these hooks serve both.
 */
typedef struct Rb_TotalState {
    int64_t interval;		/* -interval, ns */
    uint64_t total;
    Rb_TimeBins bins;
} Rb_TotalState;

int		RbTotalInit(Rb_Analyzer *a, Tcl_Interp *interp);
int		RbTotalStart(Rb_Analyzer *a, const Rb_RunInfo *run);
void		RbTotalCountBatch(Rb_Analyzer *a, const Rb_Batch *b,
		    const uint32_t *sel, int nsel);
int		RbTotalMerge(Rb_Analyzer *a, const Rb_Analyzer *other);
void		RbTotalFree(Rb_Analyzer *a);



/*
 * Burstiness (burst.c): DispersionAnalyzer and HurstAnalyzer keep an
 * Rb_TotalState of counts per -base interval and aggregate it at end.
 */
int		RbBurstStart(Rb_Analyzer *a, const Rb_RunInfo *run);
void		RbBlockSums(const double *x, int64_t n, int64_t m,
		    Rb_Moments *sums);
double		RbFitSlope(const double *x, const double *y, int n);
double		RbPearson(const double *x, const double *y, int64_t n);



/*
 * Recent keys: a direct-mapped memo in front of a key table, for keys that
 * are few and small (devices, volumes), which each record would otherwise
 * look up in the table: key modulo RB_RECENT_KEYS -> a value the caller
 * keeps there, nonzero (0: none).  About 4 KB; made only by the
 * instances that look keys up per record (-by, -key).
 */
#define RB_RECENT_KEYS 256

typedef struct Rb_RecentKeys {
    int64_t key[RB_RECENT_KEYS];
    int64_t val[RB_RECENT_KEYS];
} Rb_RecentKeys;

/* The value kept for key, or 0 (also when r is NULL: none made). */
static inline int64_t
RbRecentGet(const Rb_RecentKeys *r, int64_t key)
{
    unsigned i = (unsigned)((uint64_t)key % RB_RECENT_KEYS);

    return r != NULL && r->val[i] != 0 && r->key[i] == key ? r->val[i] : 0;
}

static inline void
RbRecentPut(Rb_RecentKeys *r, int64_t key, int64_t val)
{
    unsigned i = (unsigned)((uint64_t)key % RB_RECENT_KEYS);

    if (r != NULL) {
	r->key[i] = key;
	r->val[i] = val;
    }
}

/* Forgets every value (r may be NULL). */
static inline void
RbRecentClear(Rb_RecentKeys *r)
{
    int i;

    for (i = 0; r != NULL && i < RB_RECENT_KEYS; i++) {
	r->val[i] = 0;
    }
}

/*
 * Distinct sets (distinctSet.c): the number of distinct int64 values,
 * exact while at most `limit` are held in a key table, then estimated by
 * HyperLogLog with 2^RB_HLL_BITS registers (standard error
 * 1.04 / sqrt(2^14), about 0.8%).
 */
#define RB_HLL_BITS 14

typedef struct Rb_BlockMap Rb_BlockMap;

typedef struct Rb_DistinctSet {
    int64_t limit;
    Rb_KeyTable exact;
    unsigned char *registers;	/* Non-NULL once estimating. */
    const Rb_BlockMap *blocks;	/* Values are block keys of this map:
				 * the sketch counts (device, block), so
				 * that sketches of shards that numbered
				 * their devices otherwise still merge. */
    int64_t *devices;		/* RbBlockMapDevices of blocks, for */
    uint64_t ndevices;		/* that many devices. */
} Rb_DistinctSet;

void		RbKeyTableReserve(Rb_KeyTable *t, uint64_t n);
void		RbDistinctReset(Rb_DistinctSet *d, int64_t limit);
void		RbDistinctOfBlocks(Rb_DistinctSet *d, const Rb_BlockMap *m);
void		RbDistinctAdd(Rb_DistinctSet *d, int64_t v);
double		RbDistinctCount(const Rb_DistinctSet *d);
int		RbDistinctIsExact(const Rb_DistinctSet *d);
void		RbDistinctMerge(Rb_DistinctSet *d, const Rb_DistinctSet *o);
void		RbDistinctFree(Rb_DistinctSet *d);

/*
 * Field lookup shared by the generic analyzers: resolves a numeric field
 * named by an option (an error for a string field).
 */
double		RbKitFieldScale(const Rb_RunInfo *run, int index,
		    const char **unit);
int		RbKitNumericField(Rb_Analyzer *a, const Rb_RunInfo *run,
		    const char *name, int *index);
int		RbKitIntegerField(Rb_Analyzer *a, const Rb_RunInfo *run,
		    const char *name, int *index);

/*
 * Blocks (blocks.c): an I/O of `size` bytes at `offset` touches blocks
 * offset / block .. (offset + size - 1) / block of its device.  The block
 * key packs a dense device id (first seen first) above the block number so
 * that one table covers every device of a Flow exactly.  Keys cannot be
 * made for block numbers of 2^48 or more or for more than 2^15 devices:
 * such I/Os are counted as skipped.  A zero-size I/O touches its first
 * block.  At most RB_MAX_IO_BLOCKS blocks are counted per I/O, so a
 * corrupt size cannot stall a run.
 */
#define RB_MAX_IO_BLOCKS 65536

struct Rb_BlockMap {
    char *deviceField;		/* -field (device) */
    char *offsetField;		/* -offsetField */
    int64_t block;		/* -block, bytes */
    int blockShift;		/* log2(block) + 1 when block is a power of
				 * two (RbBlockMapStart), else 0 */
    int deviceIndex, offsetIndex;
    Rb_KeyTable devices;	/* device -> dense id + 1 */
    uint64_t skipped;
    int64_t recentDev[256];	/* Devices found lately, by a hash of */
    int64_t recentId[256];	/* theirs, and their ids (RbBlockKey); an
				 * id of 0: none (so a zeroed map has
				 * none).  Emptied with the devices
				 * (RbBlockMapClear). */
};

int		RbBlockMapStart(Rb_Analyzer *a, Rb_BlockMap *m,
		    const Rb_RunInfo *run);
void		RbBlockMapClear(Rb_BlockMap *m);
int		RbBlockKeysStart(Rb_Analyzer *a, Rb_BlockMap *m,
		    const Rb_RunInfo *run, const char *fieldOption);
int		RbBlockRange(Rb_BlockMap *m, const Rb_Batch *b, int i,
		    int64_t *first, int64_t *count);
int		RbBlockKey(Rb_BlockMap *m, int64_t dev, int64_t blockNo,
		    int64_t *key);
int64_t		RbBlockBytes(const Rb_BlockMap *m, int64_t offset,
		    int64_t size, int64_t k);
void		RbBlockPrefetch(const Rb_BlockMap *m, const Rb_Batch *b,
		    const uint32_t *sel, int from, int to,
		    const Rb_KeyTable *t, uint64_t threshold);

/*
 * RbBlockPrefetchAhead --
 *	Called at each selected record j of nsel, by a sampled block
 *	analyzer about to look up its blocks in t: every RB_BLOCK_AHEAD
 *	records, RbBlockPrefetch of the RB_BLOCK_AHEAD records after the
 *	next RB_BLOCK_AHEAD (a sample's table is megabytes, and a block's
 *	entry anywhere in it).
 */
#define RB_BLOCK_AHEAD 8

static inline void
RbBlockPrefetchAhead(const Rb_BlockMap *m, const Rb_Batch *b,
	const uint32_t *sel, int j, int nsel, const Rb_KeyTable *t,
	uint64_t threshold)
{
    if (j % RB_BLOCK_AHEAD == 0) {
	RbBlockPrefetch(m, b, sel, j + RB_BLOCK_AHEAD,
		j + 2 * RB_BLOCK_AHEAD < nsel ? j + 2 * RB_BLOCK_AHEAD : nsel,
		t, threshold);
    }
}

/*
 * RbIoEdgeBytes, RbIoBlockBytes --
 *	The bytes of the first and last of the count blocks RbBlockRange
 *	gave an I/O of size bytes at offset (RbBlockBytes, a division each,
 *	once per I/O); the bytes of its k-th block from those (the blocks
 *	between are whole).
 */
/*
 * RbBlockOf --
 *	The block number of byte x >= 0: a shift when the block size is a
 *	power of two.
 */
static inline int64_t
RbBlockOf(const Rb_BlockMap *m, int64_t x)
{
    return m->blockShift > 0 ? x >> (m->blockShift - 1) : x / m->block;
}

static inline void
RbIoEdgeBytes(const Rb_BlockMap *m, int64_t offset, int64_t size,
	int64_t count, int64_t *firstBytes, int64_t *lastBytes)
{
    *firstBytes = RbBlockBytes(m, offset, size, 0);
    *lastBytes = RbBlockBytes(m, offset, size, count - 1);
}

static inline int64_t
RbIoBlockBytes(const Rb_BlockMap *m, int64_t k, int64_t count,
	int64_t firstBytes, int64_t lastBytes)
{
    return k == 0 ? firstBytes : k == count - 1 ? lastBytes : m->block;
}
int64_t *	RbBlockMapDevices(const Rb_BlockMap *m);
void		RbBlockOfKey(const int64_t *devices, int64_t key,
		    int64_t *dev, int64_t *blockNo);
void		RbBlockMapFree(Rb_BlockMap *m);

/*
 * Power-of-two histograms (pow2Hist.c): counts of non-negative integers
 * in bins [0,1), [1,2), [2,4) ... [2^62, 2^63).
 */
#define RB_POW2_BINS 65

int		RbPow2Bin(int64_t v);
Rb_Attribute *	RbPow2HistAttr(const char *name, const uint64_t *counts,
		    const char *unit, double scale, const char *help);

/*
 * Windows of keys (keyWindows.c): a key table per window of trace time,
 * reduced to a row of figures (by close) when the records move past it;
 * the first and the current window stay open so that a split run's merge
 * can join a window that straddles two shards.  At most 3 tables of keys
 * (head, tail and one being joined) and width + 1 doubles per window.
 */
typedef struct RbKeyWindow {
    int64_t no;			/* Window number; -1: none. */
    Rb_KeyTable keys;
    double sums[2];		/* What the class adds up per window. */
} RbKeyWindow;

/* Writes width figures of window w to row. */
typedef void RbKeyWindowClose(const RbKeyWindow *w, double *row);

typedef struct RbKeyWindows {
    int64_t interval;		/* ns, > 0 */
    const Rb_RunInfo *run;	/* Windows count from its firstTime. */
    int addValues;		/* Values are counts that add, else the
				 * later value replaces. */
    int width;			/* Figures per row. */
    RbKeyWindowClose *close;
    RbKeyWindow head;		/* The first window, once past it. */
    RbKeyWindow tail;		/* The current window. */
    double *rows;		/* Closed windows between: number, then
				 * width figures each. */
    size_t nrows, rowCap;
} RbKeyWindows;

int		RbKeyTableJoin(Rb_KeyTable *t, const Rb_KeyTable *later,
		    int addValues, int64_t limit);
void		RbKeyWindowsStart(RbKeyWindows *kw, int64_t interval,
		    const Rb_RunInfo *run, size_t valSize, int addValues,
		    int width, RbKeyWindowClose *close);
RbKeyWindow *	RbKeyWindowsAt(RbKeyWindows *kw, int64_t t);
int		RbKeyWindowsMerge(RbKeyWindows *kw,
		    const RbKeyWindows *other, int64_t limit);
Rb_Attribute *	RbKeyWindowsSeries(const RbKeyWindows *kw,
		    const char *name, const char *unit, const char *help,
		    const char *const *cols, const char *const *units);
void		RbKeyWindowsPut(Rb_Buf *b, const RbKeyWindows *kw,
		    const Rb_Schema *textSchema);
void		RbKeyWindowsGet(Rb_Buf *b, RbKeyWindows *kw,
		    Rb_Schema *textSchema);
void		RbKeyWindowsFree(RbKeyWindows *kw);

/*
 * Min-heaps of (key, value) pairs ordered by key (heap.c), for pending
 * completions and not yet issued busy intervals.
 */
typedef struct Rb_HeapItem {
    int64_t key;
    int64_t value;
} Rb_HeapItem;

typedef struct Rb_Heap {
    Rb_HeapItem *items;
    size_t n, cap;
} Rb_Heap;

/* The salts of key tables' hashes by size (keyTable.c HomeSlot). */
extern const uint64_t rbKeyTableSalt[64];

/*
 * RbKeyTableHome, RbKeyTablePrefetch --
 *	The slot where key's probe sequence starts in t (cap > 0; see
 *	keyTable.c), and a prefetch of what finding key reads first there:
 *	its used flag, key and value.  Always inlined (a call that only
 *	prefetches may be dropped as pure).
 */
static inline uint64_t
RbKeyTableHome(const Rb_KeyTable *t, int64_t key)
{
    return Rb_HashKey(key ^ (int64_t)rbKeyTableSalt[__builtin_ctzll(t->cap)])
	    & (t->cap - 1);
}

static inline __attribute__((always_inline)) void
RbKeyTablePrefetch(const Rb_KeyTable *t, int64_t key)
{
    uint64_t h;

    if (t->cap == 0) {
	return;
    }
    h = RbKeyTableHome(t, key);
    __builtin_prefetch(&t->used[h]);
    __builtin_prefetch(&t->keys[h]);
    __builtin_prefetch(t->vals + h * t->valSize);
}

/* An array read at random places, on huge pages from 2 MiB (keyTable.c). */
void *		RbAllocHuge(size_t count, size_t size);
/* Rb_MomentsAdd of n values (no NaN), as a group (kitStats.c). */
void		RbMomentsAddMany(Rb_Moments *m, const double *v, int n);
/* Rb_LogHistAdd of n values in turn, RB_LOGHIST_CHUNK at a time, each
 * chunk's finite values into the moments by RbMomentsAddMany. */
#define RB_LOGHIST_CHUNK 64
void		RbLogHistAddMany(Rb_LogHist *h, const double *v, int n);
void		RbHeapPush(Rb_Heap *h, int64_t key, int64_t value);
Rb_HeapItem	RbHeapPop(Rb_Heap *h);
void		RbHeapFree(Rb_Heap *h);

/*
 * A packed list of integer pairs (x, y) with x mostly rising and y near
 * x, such as the (arrival, finish) times a shard keeps for a split run's
 * merge (kitSerialize.c): each pair as two variable-length integers, x
 * less the previous pair's x and y less x (zigzag LEB128), 4 to 8 bytes
 * a pair for I/O times in ns instead of 16.  A list deserialized with
 * RbKitPackedGet is read where it lies in the message (in), which stays
 * valid until its instance has been merged (rubicon.h).
 */
typedef struct RbKitPacked {
    unsigned char *bytes;	/* malloc'd (NULL for none), */
    const unsigned char *in;	/* or the message's bytes. */
    size_t len, cap;		/* Bytes used, allocated. */
    size_t n;			/* Pairs. */
    int64_t lastX;		/* The last pair's x. */
} RbKitPacked;

typedef struct RbKitPackedIter {
    const unsigned char *p, *end;
    size_t left;		/* Pairs not read yet. */
    int64_t lastX;
} RbKitPackedIter;

void		RbKitPackedAppend(RbKitPacked *l, int64_t x, int64_t y);
void		RbKitPackedClear(RbKitPacked *l);
void		RbKitPackedFree(RbKitPacked *l);
void		RbKitPackedPut(Rb_Buf *b, const RbKitPacked *l);
void		RbKitPackedGet(Rb_Buf *b, RbKitPacked *l);
void		RbKitPackedBegin(const RbKitPacked *l, RbKitPackedIter *it);
int		RbKitPackedNext(RbKitPackedIter *it, int64_t *x, int64_t *y);

/*
 * Partial state as bytes for split runs (kitSerialize.c): each Get
 * restores what its Put wrote, into a structure its class's start hook
 * emptied; a short buffer leaves b->bad set.  A text key (textSchema
 * given) travels as its string.
 */
void		RbKitPutCounters(Rb_Buf *b, const void *first, int n);
void		RbKitGetCounters(Rb_Buf *b, void *first, int n);
void		RbKitPut128(Rb_Buf *b, Sum128 v);
Sum128		RbKitGet128(Rb_Buf *b);
void		RbKitPutKey(Rb_Buf *b, const Rb_Schema *textSchema,
		    int64_t key);
int64_t		RbKitGetKey(Rb_Buf *b, Rb_Schema *textSchema);
int		RbDistinctPut(Rb_Buf *b, const Rb_DistinctSet *d,
		    const Rb_Schema *textSchema);
void		RbDistinctGet(Rb_Buf *b, Rb_DistinctSet *d,
		    Rb_Schema *textSchema);
void		RbHeapPut(Rb_Buf *b, const Rb_Heap *h);
void		RbHeapGet(Rb_Buf *b, Rb_Heap *h);
void		RbKitPutPairs(Rb_Buf *b, const int64_t *pairs, size_t n);
int64_t *	RbKitGetPairs(Rb_Buf *b, size_t *n);
void		RbKitAppendPair(int64_t **pairs, size_t *n, size_t *cap,
		    size_t first, int64_t x, int64_t y);
void		RbBlockMapPut(Rb_Buf *b, const Rb_BlockMap *m);
void		RbBlockMapGet(Rb_Buf *b, Rb_BlockMap *m);
int64_t *	RbBlockMapAdopt(Rb_BlockMap *m, const Rb_BlockMap *other,
		    int *sameIds);
int		RbKitAddCounts(Rb_Analyzer *a, Rb_KeyTable *counts,
		    const Rb_KeyTable *other, Rb_BlockMap *map,
		    const Rb_BlockMap *omap, int64_t limit,
		    const char *field, int64_t bytes);
int64_t		RbBlockRekey(Rb_BlockMap *m, const int64_t *devices,
		    int64_t key);
int		RbDistinctAddRekeyed(Rb_DistinctSet *d,
		    const Rb_DistinctSet *src, Rb_BlockMap *m,
		    const int64_t *devices, int sameIds);
int		RbKitStatelessSerialize(Rb_Analyzer *a,
		    const Rb_RunInfo *run, Rb_Buf *b);
int		RbKitStatelessDeserialize(Rb_Analyzer *a,
		    const Rb_RunInfo *run, Rb_Buf *b);
int		RbKitStatelessMerge(Rb_Analyzer *a, const Rb_Analyzer *other);
int		RbTotalSerialize(Rb_Analyzer *a, const Rb_RunInfo *run,
		    Rb_Buf *b);
int		RbTotalDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run,
		    Rb_Buf *b);

/*
 * RbKitTextSchema --
 *	The run's schema when field index holds text (its values are string
 *	ids), else NULL: what the Put and Get of keys take.
 */
static inline Rb_Schema *
RbKitTextSchema(const Rb_RunInfo *run, int index)
{
    return index >= 0 && run->schema->fields[index].type == RB_FT_STRING
	    ? run->schema : NULL;
}

#endif /* RB_TOOLBOX_H */
