/*
 * popularityAnalyzer.c --
 *
 *	PopularityAnalyzer: how skewed the accesses are over their keys
 *	(blocks by default, or the values of any field): the rank-frequency
 *	table, the Zipf exponent fitted by least squares on its log-log
 *	points with the fit's standard error and R^2, and the share of the
 *	accesses that go to the most popular 1% and 10% of the keys.
 *	Counts are exact, one per distinct key in a key table of at most
 *	-limit keys; with -samplesize S, only the keys whose hash is below a
 *	threshold are counted, and the threshold halves whenever more than
 *	S keys are held (a fixed-size spatial sample, as SHARDS samples).
 */

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"
#include "core/mpi.h"

/* Ranks of the table (and fit) past 10: this many per factor of 10. */
#define RANKS_PER_DECADE 20

typedef struct PopularityState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    char *key;			/* -key: a field, or "" for blocks */
    int64_t limit;		/* -limit: most distinct keys held */
    int keyIndex;		/* -1: blocks */
    int keyIsText;
    int failed;
    uint64_t accesses;		/* Accesses to the keys held. */
    int64_t sampleSize;		/* -samplesize: most keys held, 0: all. */
    uint64_t threshold;		/* Keys whose HASH32 is below are held. */
    Rb_KeyTable counts;		/* key -> uint64 accesses */
} PopularityState;

/* The sampling hash of a key: the top 32 bits of Rb_HashKey (the key
 * table's slots use the low bits), compared with the threshold. */
#define HASH32(key)	(Rb_HashKey(key) >> 32)
#define HASH_SPACE	((uint64_t)1 << 32)

static const Rb_Option popularityOptions[] = {
    {"-key", RB_OPT_FIELD, offsetof(PopularityState, key), "",
	"field whose values are the keys; empty: the blocks the I/Os touch"},
    {"-block", RB_OPT_INT, offsetof(PopularityState, map.block), "4096",
	"block size in bytes (block keys)"},
    {"-field", RB_OPT_FIELD, offsetof(PopularityState, map.deviceField),
	"deviceNo", "field naming the device (block keys)"},
    {"-offsetField", RB_OPT_FIELD, offsetof(PopularityState,
	map.offsetField), "devOffset", "field holding the offset in bytes "
	"(block keys)"},
    {"-limit", RB_OPT_INT, offsetof(PopularityState, limit), "10000000",
	"most distinct keys held (the run stops beyond)"},
    {"-samplesize", RB_OPT_INT, offsetof(PopularityState, sampleSize), "0",
	"sample the keys by hash, holding at most this many (0: all)"},
    {NULL}
};

static const char *const popularityAttrs[] = {
    "RankFrequency", "ZipfExponent", "ZipfFitError", "ZipfFitR2",
    "Top1PercentShare", "Top10PercentShare", "DistinctKeys", "Accesses",
    "KeySampleRate", NULL
};

/*
 * PopularityInit --
 *	Checks -limit and -block.
 */
static int
PopularityInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    PopularityState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    if (st->map.block <= 0) {
	return RbKitOptionError(a, interp,
		"-block must be a positive number of bytes");
    }
    if (st->sampleSize < 0) {
	return RbKitOptionError(a, interp,
		"-samplesize must be 0 (none) or positive");
    }
    return TCL_OK;
}

/*
 * SampledRefusal --
 *	The error of a sampled instance in a split run.
 * Results: TCL_ERROR.
 */
static int
SampledRefusal(Rb_Analyzer *a)
{
    Rb_AnalyzerError(a, "RUBICON SPLIT UNMERGEABLE", "%s: -samplesize "
	    "lowers its threshold as each process fills up, so processes "
	    "would sample different keys; run it in one process (mpirun -np "
	    "1, or without mpirun), or split it without -samplesize",
	    a->cmdName ? a->cmdName : a->cls->name);
    return TCL_ERROR;
}

/*
 * PopularityStart --
 *	Resolves the key (a field, or the block fields) and empties the
 *	counts.
 */
static int
PopularityStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    PopularityState *st = a->state;

    if (PopularityInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    st->keyIndex = -1;
    st->keyIsText = 0;
    if (st->key != NULL && st->key[0] != '\0') {
	if (Rb_AnalyzerTypedField(a, run, st->key, RB_FT_BIT(RB_FT_INT)
		| RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK) {
	    st->keyIndex = -1;
	    return TCL_ERROR;
	}
	st->keyIsText = run->schema->fields[st->keyIndex].type
		== RB_FT_STRING;
    } else if (RbBlockKeysStart(a, &st->map, run, "-key") != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->counts.valSize == 0) {
	Rb_KeyTableInit(&st->counts, sizeof(uint64_t));
    }
    Rb_KeyTableClear(&st->counts);
    st->accesses = 0;
    st->threshold = HASH_SPACE;
    st->failed = 0;
    return st->sampleSize > 0 && RbMergeWanted() ? SampledRefusal(a)
	    : TCL_OK;
}

/*
 * Shrink --
 *	Halves the threshold, dropping the keys at or above it and their
 *	accesses, until at most -samplesize keys are held.
 */
static void
Shrink(PopularityState *st)
{
    while ((int64_t)st->counts.count > st->sampleSize && st->threshold > 1) {
	int64_t *drop = Rb_AllocArray(st->counts.count, sizeof(int64_t));
	uint64_t i, n = 0;

	st->threshold /= 2;
	for (i = 0; i < st->counts.cap; i++) {
	    if (st->counts.used[i]
		    && HASH32(st->counts.keys[i]) >= st->threshold) {
		drop[n++] = st->counts.keys[i];
		st->accesses -= *(const uint64_t *)Rb_KeyTableValue(
			&st->counts, i);
	    }
	}
	for (i = 0; i < n; i++) {
	    Rb_KeyTableRemove(&st->counts, drop[i]);
	}
	free(drop);
    }
}

/*
 * CountKey --
 *	Counts one access to key.
 * Results: 1, or 0 (with the run stopped) when key is one past -limit.
 */
static int
CountKey(Rb_Analyzer *a, int64_t key, uint64_t record)
{
    PopularityState *st = a->state;
    uint64_t *c;

    if (st->sampleSize > 0 && HASH32(key) >= st->threshold) {
	return 1;
    }
    c = Rb_KeyTableFindLimited(&st->counts, key, st->limit);
    if (c == NULL) {
	st->failed = 1;
	RbKitKeyLimit(a, st->limit, st->keyIndex >= 0 ? st->key : "blocks",
		record, 45);
	return 0;
    }
    (*c)++;
    st->accesses++;
    if (st->sampleSize > 0 && (int64_t)st->counts.count > st->sampleSize) {
	Shrink(st);
    }
    return 1;
}

/*
 * PopularityBatch --
 *	Counts each selected record's key (records without one are left
 *	out), or each block its I/O touches, the counters of the records
 *	ahead prefetched (RbBlockPrefetchAhead).
 */
static void
PopularityBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    PopularityState *st = a->state;
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	uint64_t record = b->firstRecord + sel[j];
	int64_t first, count, k;

	if (st->keyIndex >= 0) {
	    int64_t key = b->col[st->keyIndex][sel[j]];

	    if (key != RB_ABSENT) {
		CountKey(a, key, record);
	    }
	    continue;
	}
	RbBlockPrefetchAhead(&st->map, b, sel, j, nsel, &st->counts,
		st->sampleSize > 0 ? st->threshold : UINT64_MAX);
	if (!RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	for (k = 0; k < count && CountKey(a, first + k, record); k++) {
	}
    }
}

/* A key of the table as the ranking sorts it. */
typedef struct Ranked {
    uint64_t count;
    int64_t key;
    uint64_t slot;
} Ranked;

/*
 * SortWord, RadixPass --
 *	An LSD radix sort's pieces: the word a Ranked key sorts by (~count
 *	for counts, the key with its sign bit flipped for keys: unsigned
 *	order is the wanted one); one pass moving the n items of from,
 *	stably by the byte at shift of that word, into to.
 */
static inline uint64_t
SortWord(const Ranked *r, int byCount)
{
    return byCount ? ~r->count : (uint64_t)r->key ^ ((uint64_t)1 << 63);
}

static void
RadixPass(const Ranked *from, Ranked *to, uint64_t n, int byCount, int shift)
{
    uint64_t counts[256] = {0}, i, at = 0;
    int b;

    for (i = 0; i < n; i++) {
	counts[(SortWord(&from[i], byCount) >> shift) & 0xff]++;
    }
    for (b = 0; b < 256; b++) {
	uint64_t c = counts[b];

	counts[b] = at;
	at += c;
    }
    for (i = 0; i < n; i++) {
	to[counts[(SortWord(&from[i], byCount) >> shift) & 0xff]++] = from[i];
    }
}

/*
 * RankedSlots --
 *	The slots of the table's keys, most accesses first, ties by key: an
 *	LSD radix sort of (count, key) pairs by key and then, stably, by
 *	count, a byte a pass, leaving out the bytes every pair shares (found
 *	in one pass beforehand); a sort of slots through the table took two
 *	thirds of the time of an exact run over millions of blocks.
 * Results: a malloc'd array of counts.count slots.
 */
static uint64_t *
RankedSlots(const Rb_KeyTable *t)
{
    uint64_t n = t->count, i, k = 0, all[2], any[2];
    Ranked *a = Rb_AllocArray(n + 1, sizeof(Ranked));
    Ranked *tmp = Rb_AllocArray(n + 1, sizeof(Ranked));
    uint64_t *slots = Rb_AllocArray(n + 1, sizeof(uint64_t));
    int byCount, shift;

    all[0] = all[1] = ~(uint64_t)0;
    any[0] = any[1] = 0;
    for (i = 0; i < t->cap; i++) {
	if (t->used[i]) {
	    a[k].count = *(const uint64_t *)Rb_KeyTableValue(t, i);
	    a[k].key = t->keys[i];
	    a[k].slot = i;
	    for (byCount = 0; byCount < 2; byCount++) {
		all[byCount] &= SortWord(&a[k], byCount);
		any[byCount] |= SortWord(&a[k], byCount);
	    }
	    k++;
	}
    }
    for (byCount = 0; byCount < 2; byCount++) {
	for (shift = 0; shift < 64; shift += 8) {
	    if ((((all[byCount] ^ any[byCount]) >> shift) & 0xff) != 0) {
		Ranked *swap = a;

		RadixPass(a, tmp, k, byCount, shift);
		a = tmp;
		tmp = swap;
	    }
	}
    }
    for (i = 0; i < k; i++) {
	slots[i] = a[i].slot;
    }
    free(a);
    free(tmp);
    return slots;
}

/*
 * NextRank --
 *	The rank of the table after rank r: every rank to 10, then
 *	RANKS_PER_DECADE per factor of 10 (rounded, repeats skipped).
 */
static uint64_t
NextRank(uint64_t r)
{
    double j;

    if (r < 10) {
	return r + 1;
    }
    j = floor(log10((double)r) * RANKS_PER_DECADE + 1e-9);
    for (;;) {
	uint64_t next = (uint64_t)llround(pow(10.0, ++j / RANKS_PER_DECADE));

	if (next > r) {
	    return next;
	}
    }
}

/*
 * TopShare --
 *	The share of the accesses that go to the first ceil(fraction n) keys
 *	(at least one) of the n sorted by count.
 */
static double
TopShare(const PopularityState *st, const uint64_t *slots, double fraction)
{
    uint64_t n = st->counts.count, top, i, sum = 0;

    if (n == 0 || st->accesses == 0) {
	return 0.0;
    }
    top = (uint64_t)ceil(fraction * (double)n - 1e-9);
    top = top < 1 ? 1 : top;
    for (i = 0; i < top; i++) {
	sum += *(const uint64_t *)Rb_KeyTableValue(&st->counts, slots[i]);
    }
    return (double)sum / (double)st->accesses;
}

/*
 * PopularityEnd --
 *	Sorts the keys by count and sets the rank-frequency table, the Zipf
 *	fit over its rows, the top shares and the totals.
 */
static int
PopularityEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    PopularityState *st = a->state;
    uint64_t n = st->counts.count, *slots, r, i, cum = 0;
    Rb_Attribute *table = Rb_AttrCreate("RankFrequency", RB_ATTR_TABLE, "",
	    "accesses of the key at each rank (log-spaced ranks)");
    int rankCol = Rb_AttrAddColumn(table, "rank", "", 0), keyCol, offCol = -1;
    int countCol, fracCol, cumCol;
    int64_t *devices = NULL;
    double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, m = 0;
    double slope = NAN, se = NAN, r2 = NAN;
    double rate = (double)st->threshold / (double)HASH_SPACE;

    if (st->keyIndex >= 0) {
	keyCol = Rb_AttrAddColumn(table, st->key, "", st->keyIsText);
    } else {
	keyCol = Rb_AttrAddColumn(table, st->map.deviceField, "", 0);
	offCol = Rb_AttrAddColumn(table, "offset", "bytes", 0);
	devices = RbBlockMapDevices(&st->map);
    }
    countCol = Rb_AttrAddColumn(table, "count", "", 0);
    fracCol = Rb_AttrAddColumn(table, "fraction", "", 0);
    cumCol = Rb_AttrAddColumn(table, "cumulativeFraction", "", 0);
    slots = RankedSlots(&st->counts);
    for (r = 1, i = 0; r <= n; r = r == n ? n + 1 : (NextRank(r) < n
	    ? NextRank(r) : n)) {
	uint64_t count;
	int64_t key;
	int row = Rb_AttrAddRow(table);
	double x, y;

	for (; i < r; i++) {
	    cum += *(const uint64_t *)Rb_KeyTableValue(&st->counts, slots[i]);
	}
	count = *(const uint64_t *)Rb_KeyTableValue(&st->counts,
		slots[r - 1]);
	key = st->counts.keys[slots[r - 1]];
	Rb_AttrSetNum(table, row, rankCol, (double)r / rate);
	if (st->keyIsText) {
	    const char *text = Rb_SchemaString(run->schema, key);

	    Rb_AttrSetText(table, row, keyCol, text ? text : "");
	} else if (devices != NULL) {
	    int64_t dev, blockNo;

	    RbBlockOfKey(devices, key, &dev, &blockNo);
	    Rb_AttrSetNum(table, row, keyCol, (double)dev);
	    Rb_AttrSetNum(table, row, offCol,
		    (double)blockNo * (double)st->map.block);
	} else {
	    Rb_AttrSetNum(table, row, keyCol, (double)key);
	}
	Rb_AttrSetNum(table, row, countCol, (double)count);
	Rb_AttrSetNum(table, row, fracCol,
		(double)count / (double)st->accesses);
	Rb_AttrSetNum(table, row, cumCol, (double)cum / (double)st->accesses);
	/* The fit's point: log10 rank, log10 count. */
	x = log10((double)r / rate);
	y = log10((double)count);
	sx += x;
	sy += y;
	sxx += x * x;
	sxy += x * y;
	syy += y * y;
	m++;
    }
    if (m >= 3) {
	double vx = sxx - sx * sx / m, vy = syy - sy * sy / m;
	double cxy = sxy - sx * sy / m, ssr;

	slope = cxy / vx;
	ssr = vy - slope * cxy;
	ssr = ssr > 0 ? ssr : 0;
	se = sqrt(ssr / (m - 2) / vx);
	r2 = vy > 0 ? 1 - ssr / vy : 1.0;
    }
    Rb_AnalyzerSet(a, table);
    Rb_AnalyzerSet(a, Rb_AttrScalar("ZipfExponent", -slope, "",
	    "Zipf exponent: minus the least-squares slope of log count on "
	    "log rank over the RankFrequency rows"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ZipfFitError", se, "",
	    "standard error of that slope"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ZipfFitR2", r2, "",
	    "coefficient of determination R^2 of the fit"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Top1PercentShare",
	    TopShare(st, slots, 0.01), "",
	    "share of the accesses to the most popular 1% of the keys"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Top10PercentShare",
	    TopShare(st, slots, 0.10), "",
	    "share of the accesses to the most popular 10% of the keys"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("DistinctKeys", (double)n / rate, "",
	    "distinct keys accessed (sampled: the keys held over KeySampleRate)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("KeySampleRate", rate, "",
	    "share of the key hash space sampled (1: every key)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Accesses", (double)st->accesses, "",
	    "accesses counted (block accesses for block keys; sampled: to "
	    "the keys held)"));
    free(slots);
    free(devices);
    return TCL_OK;
}

/*
 * PopularityFree --
 *	Frees the counts and the device table.
 */
static void
PopularityFree(Rb_Analyzer *a)
{
    PopularityState *st = a->state;

    Rb_KeyTableFree(&st->counts);
    RbBlockMapFree(&st->map);
}

/*
 * PopularitySerialize, PopularityDeserialize --
 *	serialize and deserialize hooks: the devices (block keys), the
 *	accesses and every key's count (a text key as its string).
 */
static int
PopularitySerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    PopularityState *st = a->state;

    if (st->sampleSize > 0) {
	return SampledRefusal(a);
    }
    RbBlockMapPut(b, &st->map);
    Rb_BufPutInt(b, (int64_t)st->accesses);
    Rb_KeyTablePut(b, &st->counts, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

static int
PopularityDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    PopularityState *st = a->state;

    if (st->sampleSize > 0) {
	return SampledRefusal(a);
    }
    RbBlockMapGet(b, &st->map);
    st->accesses = (uint64_t)Rb_BufGetInt(b);
    Rb_KeyTableGet(b, &st->counts, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

/*
 * PopularityMerge --
 *	merge hook: adds other's counts key by key.  Block keys are keyed
 *	again with the device ids one pass over both shards gives
 *	(RbBlockMapAdopt), so that ties, ordered by key, rank as in one
 *	process.
 * Results: TCL_OK, or TCL_ERROR with RUBICON LIMIT KEYS when the union
 *	holds more than -limit keys (one process would have stopped too),
 *	or RUBICON LIMIT DEVICES.
 */
static int
PopularityMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    PopularityState *st = a->state;
    const PopularityState *ost = other->state;

    if (st->sampleSize > 0) {
	return SampledRefusal(a);
    }
    if (RbKitAddCounts(a, &st->counts, &ost->counts,
	    st->keyIndex < 0 ? &st->map : NULL, &ost->map, st->limit,
	    st->keyIndex >= 0 ? st->key : "blocks", 45) != TCL_OK) {
	return TCL_ERROR;
    }
    st->accesses += ost->accesses;
    return TCL_OK;
}

/*
 * Mergeable: counts add key by key; block keys are keyed again with the
 * device ids of one pass (PopularityMerge).
 */
const Rb_AnalyzerClass Rb_PopularityAnalyzerClass = {
    .name = "PopularityAnalyzer",
    .help = "popularity skew of blocks or any field: rank-frequency table, "
	    "fitted Zipf exponent, top 1% and 10% shares",
    .stateSize = sizeof(PopularityState),
    .options = popularityOptions,
    .attrs = popularityAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = PopularityInit,
    .start = PopularityStart,
    .batch = PopularityBatch,
    .end = PopularityEnd,
    .freeState = PopularityFree,
    .merge = PopularityMerge,
    .serialize = PopularitySerialize,
    .deserialize = PopularityDeserialize,
    /* And size, device and offset for block keys (start resolves
     * them). */
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
