/*
 * analyzers.h --
 *
 *	The built-in Analyzer classes (one file each in this folder) and the
 *	small helpers they share.  Only rubicon.h is used: the kit is written
 *	against the same interface an outside plugin would use.
 */

#ifndef RB_ANALYZERS_H
#define RB_ANALYZERS_H

#include "rubicon.h"

extern const Rb_AnalyzerClass Rb_RateAnalyzerClass;
extern const Rb_AnalyzerClass Rb_BandwidthAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SizeAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ReadFractionAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SeqRunAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SizeHistogramAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ResponseTimeAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ShareAnalyzerClass;
extern const Rb_AnalyzerClass Rb_FieldStatsAnalyzerClass;
extern const Rb_AnalyzerClass Rb_FieldHistogramAnalyzerClass;
extern const Rb_AnalyzerClass Rb_FieldPercentilesAnalyzerClass;
extern const Rb_AnalyzerClass Rb_DistinctAnalyzerClass;
extern const Rb_AnalyzerClass Rb_InterArrivalAnalyzerClass;
extern const Rb_AnalyzerClass Rb_UtilizationAnalyzerClass;
extern const Rb_AnalyzerClass Rb_QueueDepthAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SeekDistanceAnalyzerClass;
extern const Rb_AnalyzerClass Rb_FootprintAnalyzerClass;
extern const Rb_AnalyzerClass Rb_AlignmentAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ReuseDistanceAnalyzerClass;
extern const Rb_AnalyzerClass Rb_OnOffAnalyzerClass;
extern const Rb_AnalyzerClass Rb_DispersionAnalyzerClass;
extern const Rb_AnalyzerClass Rb_HurstAnalyzerClass;
extern const Rb_AnalyzerClass Rb_OverlapAnalyzerClass;
extern const Rb_AnalyzerClass Rb_CorrelationAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ReadAfterWriteAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ReReferenceAnalyzerClass;
extern const Rb_AnalyzerClass Rb_WorkingSetAnalyzerClass;
extern const Rb_AnalyzerClass Rb_TopKAnalyzerClass;
extern const Rb_AnalyzerClass Rb_StreamAnalyzerClass;
extern const Rb_AnalyzerClass Rb_HotRegionAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SeriesAnalyzerClass;
extern const Rb_AnalyzerClass Rb_HeatmapAnalyzerClass;
extern const Rb_AnalyzerClass Rb_CacheSimAnalyzerClass;
extern const Rb_AnalyzerClass Rb_PopularityAnalyzerClass;

#define RB_NS_PER_S 1e9

/* Helpers of the kit (kit.c). */
int		RbKitOptionError(Rb_Analyzer *a, Tcl_Interp *interp,
		    const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
void		RbKitDeviceLimit(Rb_Analyzer *a, int64_t limit,
		    const char *field, uint64_t record, int64_t bytes);
void		RbKitKeyLimit(Rb_Analyzer *a, int64_t limit,
		    const char *field, uint64_t record, int64_t bytes);

/*
 * Grouping (groupBy.c): a statistics class with -by field and -limit
 * added, one row per value of the field.
 */
const Rb_AnalyzerClass *RbKitGroupedClass(const Rb_AnalyzerClass *base);

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
 * Time bins (timeBins.c): sums of a quantity (I/Os, bytes) per interval
 * of trace time, for the RateSeries and BandwidthSeries attributes.  Bin
 * k covers [origin + k*interval, origin + (k+1)*interval).  The origin
 * is the run's first record time, so that the bins of every Flow line up
 * even when a Flow's first record comes late.  Memory grows with the
 * run's duration divided by the interval, not with the number of records,
 * and is capped at RB_MAX_TIME_BINS bins.
 */
#define RB_MAX_TIME_BINS ((int64_t)1 << 20)

typedef struct Rb_TimeBins {
    int64_t interval;		/* ns, > 0 */
    int64_t origin;		/* Start of bin 0 (when hasOrigin). */
    int hasOrigin;
    int64_t lo;			/* Bin index of sums[0]. */
    int64_t n;			/* Bins held. */
    int64_t cap;
    uint64_t *sums;
    const Rb_RunInfo *run;	/* The run given to start (see
				 * RbTimeBinsSetOrigin). */
    int64_t curStart, curEnd;	/* Times [curStart, curEnd) of bin curK,
				 * the bin added to last: records come in
				 * time order, so most adds land there
				 * without a division.  Empty when equal
				 * (as in a zeroed struct). */
    int64_t curK;
} Rb_TimeBins;

void		RbTimeBinsStart(Rb_TimeBins *tb, int64_t interval,
		    const Rb_RunInfo *run);
void		RbTimeBinsSetOrigin(Rb_TimeBins *tb, int64_t t);
int		RbTimeBinsCover(Rb_TimeBins *tb, int64_t k);
uint64_t	RbTimeBinsAddColumn(Rb_TimeBins *tb, const int64_t *time,
		    const int64_t *value, const uint32_t *sel, int nsel);
int		RbTimeBinsMerge(Rb_Analyzer *a, Rb_TimeBins *tb,
		    const Rb_TimeBins *other);
uint64_t	RbTimeBinsAddBins(Rb_TimeBins *tb,
		    const Rb_TimeBins *other);
double *	RbTimeBinsValues(const Rb_TimeBins *tb,
		    const Rb_RunInfo *run, int64_t *n,
		    double *startSeconds);
double *	RbTimeBinsValuesOn(const Rb_TimeBins *tb,
		    const Rb_TimeBins *grid, const Rb_RunInfo *run, int64_t *n,
		    double *startSeconds);
int		RbTimeBinsRange(const Rb_TimeBins *grid,
		    const Rb_RunInfo *run, int64_t *kFirst, int64_t *n,
		    double *startSeconds);
Rb_Attribute *	RbTimeBinsSeries(const Rb_TimeBins *tb,
		    const Rb_RunInfo *run, const char *name,
		    const char *unit, const char *help);
double		RbTimeBinsPeakToMean(const Rb_TimeBins *tb,
		    const Rb_RunInfo *run);
void		RbTimeBinsFree(Rb_TimeBins *tb);

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
 * RbFloorDiv --
 *	a / b rounded toward minus infinity (b > 0), so that times before the
 *	origin fall in negative bins rather than in bin 0.
 */
static inline int64_t
RbFloorDiv(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b < 0) ? q - 1 : q;
}

/*
 * RbTimeBinOf --
 *	The bin of time t (origin set).
 * Results: 1 with *k set, or 0 when t is too far from the origin for
 *	int64 arithmetic (a corrupt time).
 */
static inline int
RbTimeBinOf(const Rb_TimeBins *tb, int64_t t, int64_t *k)
{
    int64_t ns;

    if (__builtin_sub_overflow(t, tb->origin, &ns)) {
	return 0;
    }
    *k = RbFloorDiv(ns, tb->interval);
    return 1;
}

/*
 * RbTimeBinsSlot --
 *	The counter of bin k, the held range grown to include it.
 * Results: a pointer, or NULL when k lies too far from the held bins.
 */
static inline uint64_t *
RbTimeBinsSlot(Rb_TimeBins *tb, int64_t k)
{
    if ((k < tb->lo || k >= tb->lo + tb->n) && !RbTimeBinsCover(tb, k)) {
	return NULL;
    }
    return &tb->sums[k - tb->lo];
}

/*
 * Moments (kitStats.c): exact count, sum, minimum, maximum, mean and
 * variance of a stream of numbers (Welford's update, Chan's merge), so
 * that the variance stays accurate when the mean is large.
 */
typedef struct Rb_Moments {
    uint64_t n;
    double sum, mean, m2, min, max;
} Rb_Moments;

void		RbMomentsReset(Rb_Moments *m);
void		RbMomentsMerge(Rb_Moments *m, const Rb_Moments *other);
double		RbMomentsStddev(const Rb_Moments *m);

/*
 * RbMomentsAdd --
 *	Adds x to the moments.
 */
static inline void
RbMomentsAdd(Rb_Moments *m, double x)
{
    double delta = x - m->mean;

    m->n++;
    m->sum += x;
    m->mean += delta / (double)m->n;
    m->m2 += delta * (x - m->mean);
    if (x < m->min) {
	m->min = x;
    }
    if (x > m->max) {
	m->max = x;
    }
}

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
 * Logarithmic histograms (logHist.c): percentiles of an unbounded stream
 * of numbers in bounded memory, within a relative error RB_LOGHIST_ALPHA
 * of the exact order statistic (see logHist.c for the method).  Count,
 * sum, minimum and maximum are exact.
 */
#define RB_LOGHIST_ALPHA 0.01

typedef struct Rb_LogHist {
    Rb_Moments moments;
    uint64_t zeros;		/* Values equal to 0. */
    Rb_TimeBins bucket[2];	/* Counts of positive [0] and negative [1]
				 * values by bucket number (used as growable
				 * arrays; their interval is unused). */
} Rb_LogHist;

void		RbLogHistReset(Rb_LogHist *h);
void		RbLogHistAdd(Rb_LogHist *h, double v);
int		RbLogHistMerge(Rb_Analyzer *a, Rb_LogHist *h,
		    const Rb_LogHist *other);
double		RbLogHistPercentile(const Rb_LogHist *h, double p);
Rb_Attribute *	RbLogHistAttr(const Rb_LogHist *h, const char *name,
		    const char *unit, double scale, const char *help);
void		RbLogHistFree(Rb_LogHist *h);

/*
 * Key tables (keyTable.c): open-addressing hash tables from an int64 key
 * to a fixed-size value, zeroed when the key is first seen.  Slot i is in
 * use when used[i]; its value is RbKeyTableValue(t, i).
 */
typedef struct Rb_KeyTable {
    size_t valSize;
    uint64_t cap;		/* Power of two, or 0 before first use. */
    uint64_t count;
    int64_t *keys;
    unsigned char *used;
    unsigned char *vals;
} Rb_KeyTable;

void		RbKeyTableInit(Rb_KeyTable *t, size_t valSize);
void *		RbKeyTableFind(Rb_KeyTable *t, int64_t key, int create);
void *		RbKeyTableFindLimited(Rb_KeyTable *t, int64_t key,
		    int64_t limit);
void		RbKeyTableRemove(Rb_KeyTable *t, int64_t key);
void		RbKeyTableClear(Rb_KeyTable *t);
uint64_t *	RbKeyTableSortedSlots(const Rb_KeyTable *t);
void		RbKeyTableFree(Rb_KeyTable *t);

static inline void *
RbKeyTableValue(const Rb_KeyTable *t, uint64_t slot)
{
    return t->vals + slot * t->valSize;
}

/*
 * RbHashKey --
 *	A well-mixed 64-bit hash of key (the splitmix64 finalizer), for table
 *	slots and for HyperLogLog.
 */
static inline uint64_t
RbHashKey(int64_t key)
{
    uint64_t z = (uint64_t)key + 0x9E3779B97F4A7C15ull;

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/*
 * Distinct sets (distinctSet.c): the number of distinct int64 values,
 * exact while at most `limit` are held in a key table, then estimated by
 * HyperLogLog with 2^RB_HLL_BITS registers (standard error
 * 1.04 / sqrt(2^14), about 0.8%).
 */
#define RB_HLL_BITS 14

typedef struct Rb_DistinctSet {
    int64_t limit;
    Rb_KeyTable exact;
    unsigned char *registers;	/* Non-NULL once estimating. */
} Rb_DistinctSet;

void		RbDistinctReset(Rb_DistinctSet *d, int64_t limit);
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

typedef struct Rb_BlockMap {
    char *deviceField;		/* -field (device) */
    char *offsetField;		/* -offsetField */
    int64_t block;		/* -block, bytes */
    int deviceIndex, offsetIndex;
    Rb_KeyTable devices;	/* device -> dense id + 1 */
    uint64_t skipped;
} Rb_BlockMap;

int		RbBlockMapStart(Rb_Analyzer *a, Rb_BlockMap *m,
		    const Rb_RunInfo *run);
int		RbBlockRange(Rb_BlockMap *m, const Rb_Batch *b, int i,
		    int64_t *first, int64_t *count);
int		RbBlockKey(Rb_BlockMap *m, int64_t dev, int64_t blockNo,
		    int64_t *key);
int64_t		RbBlockBytes(const Rb_BlockMap *m, int64_t offset,
		    int64_t size, int64_t k);
int64_t *	RbBlockMapDevices(const Rb_BlockMap *m);
void		RbBlockOfKey(const int64_t *devices, int64_t key,
		    int64_t *dev, int64_t *blockNo);
void		RbBlockMapFree(Rb_BlockMap *m);

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

void		RbHeapPush(Rb_Heap *h, int64_t key, int64_t value);
Rb_HeapItem	RbHeapPop(Rb_Heap *h);
void		RbHeapFree(Rb_Heap *h);

/*
 * Partial state as bytes for split runs (kitSerialize.c): each Get
 * restores what its Put wrote, into a structure its class's start hook
 * emptied; a short buffer leaves b->bad set.  A text key (textSchema
 * given) travels as its string.
 */
void		RbKitPutCounters(Rb_Buf *b, const void *first, int n);
void		RbKitGetCounters(Rb_Buf *b, void *first, int n);
void		RbKitPutKey(Rb_Buf *b, const Rb_Schema *textSchema,
		    int64_t key);
int64_t		RbKitGetKey(Rb_Buf *b, Rb_Schema *textSchema);
void		RbMomentsPut(Rb_Buf *b, const Rb_Moments *m);
void		RbMomentsGet(Rb_Buf *b, Rb_Moments *m);
void		RbTimeBinsPut(Rb_Buf *b, const Rb_TimeBins *tb);
void		RbTimeBinsGet(Rb_Buf *b, Rb_TimeBins *tb);
void		RbLogHistPut(Rb_Buf *b, const Rb_LogHist *h);
void		RbLogHistGet(Rb_Buf *b, Rb_LogHist *h);
void		RbKeyTablePut(Rb_Buf *b, const Rb_KeyTable *t,
		    const Rb_Schema *textSchema);
void		RbKeyTableGet(Rb_Buf *b, Rb_KeyTable *t,
		    Rb_Schema *textSchema);
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

#endif /* RB_ANALYZERS_H */
