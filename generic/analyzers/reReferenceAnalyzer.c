/*
 * reReferenceAnalyzer.c --
 *
 *	ReReferenceAnalyzer: the time between consecutive accesses to the
 *	same block (the re-reference interval), as percentiles within 1%,
 *	mean and the fraction of block accesses that are re-references.  The
 *	last access time of each block is held in a key table bounded by
 *	-limit.
 */

#include <stddef.h>
#include "analyzers.h"

typedef struct ReReferenceState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    int64_t limit;		/* -limit */
    Rb_KeyTable last;		/* Block -> time of its last access, then
				 * of its first (for a split run: the
				 * interval from the shard before). */
    Rb_LogHist intervals;	/* In ns. */
    uint64_t accesses;
    uint64_t untracked;		/* Accesses to blocks past the limit. */
} ReReferenceState;

static const Rb_Option reReferenceOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(ReReferenceState, map.deviceField),
	"deviceNo", "field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(ReReferenceState,
	map.offsetField), "devOffset", "field holding the offset in bytes"},
    {"-block", RB_OPT_INT, offsetof(ReReferenceState, map.block), "4096",
	"block size in bytes"},
    {"-limit", RB_OPT_INT, offsetof(ReReferenceState, limit), "10000000",
	"blocks whose last access is remembered"},
    {NULL}
};

static const char *const reReferenceAttrs[] = {
    "ReReference", "MeanReReference", "ReReferenceFraction",
    "ReReferenceExact", NULL
};

/*
 * ReReferenceStart --
 *	Checks the options and forgets the blocks of a previous run.
 */
static int
ReReferenceStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReReferenceState *st = a->state;

    if (RbBlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->last.valSize == 0) {
	Rb_KeyTableInit(&st->last, 2 * sizeof(int64_t));
    }
    Rb_KeyTableClear(&st->last);
    Rb_LogHistReset(&st->intervals);
    st->accesses = st->untracked = 0;
    return TCL_OK;
}

/*
 * ReReferenceBatch --
 *	For each block of each selected I/O with a time: counts the time
 *	since the block's previous access (none for a first access) and
 *	notes this one.  A time earlier than the previous access (out of
 *	order) gives no interval.  Once -limit blocks are held, the blocks
 *	of later I/Os are counted untracked without a look-up.
 */
static void
ReReferenceBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ReReferenceState *st = a->state;
    const int64_t *times = b->col[RB_IO_TIME];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t first, count, k, t = times[sel[j]];

	if (t == RB_ABSENT
		|| !RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	if ((int64_t)st->last.count >= st->limit) {
	    /* Full: the result is inexact already, and looking up every
	     * block of every I/O in a full table (most of them misses, on
	     * corrupt offsets) would cost far more than filling it. */
	    st->accesses += count;
	    st->untracked += count;
	    continue;
	}
	for (k = first; k < first + count; k++) {
	    int64_t *prev = Rb_KeyTableFind(&st->last, k, 0), gap;

	    st->accesses++;
	    if (prev == NULL) {
		prev = Rb_KeyTableFindLimited(&st->last, k, st->limit);
		if (prev == NULL) {
		    st->untracked++;
		    continue;
		}
		prev[1] = t;
	    } else if (t >= *prev && !__builtin_sub_overflow(t, *prev, &gap)) {
		Rb_LogHistAdd(&st->intervals, (double)gap);
	    }
	    *prev = t;
	}
    }
}

/*
 * ReReferenceEnd --
 *	Sets the percentiles and mean (s), the fraction of block accesses
 *	that are re-references, and whether the counts are exact.
 */
static int
ReReferenceEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReReferenceState *st = a->state;
    const Rb_Moments *m = &st->intervals.moments;

    Rb_AnalyzerSet(a, Rb_LogHistAttr(&st->intervals, "ReReference", "s",
	    1.0 / RB_NS_PER_S, "percentiles of the time between accesses "
	    "to the same block (within 1%)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanReReference",
	    m->n ? m->mean / RB_NS_PER_S : 0.0, "s",
	    "mean time between accesses to the same block"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ReReferenceFraction",
	    st->accesses ? (double)m->n / (double)st->accesses : 0.0, "",
	    "block accesses to a block accessed before, over block accesses"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ReReferenceExact", st->untracked == 0,
	    "", "1 if exact, 0 if -limit was reached (re-references of the "
	    "blocks past it are missed)"));
    return TCL_OK;
}

/*
 * ReReferenceFree --
 *	Frees the table, the buckets and the device map.
 */
static void
ReReferenceFree(Rb_Analyzer *a)
{
    ReReferenceState *st = a->state;

    Rb_KeyTableFree(&st->last);
    Rb_LogHistFree(&st->intervals);
    RbBlockMapFree(&st->map);
}

/*
 * ReReferenceSerialize, ReReferenceDeserialize --
 *	serialize and deserialize hooks: the devices, each block's last and
 *	first access, the intervals and the counts.
 */
static int
ReReferenceSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ReReferenceState *st = a->state;

    RbBlockMapPut(b, &st->map);
    Rb_KeyTablePut(b, &st->last, NULL);
    Rb_LogHistPut(b, &st->intervals);
    RbKitPutCounters(b, &st->accesses, 2);
    return TCL_OK;
}

static int
ReReferenceDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ReReferenceState *st = a->state;

    RbBlockMapGet(b, &st->map);
    Rb_KeyTableGet(b, &st->last, NULL);
    Rb_LogHistGet(b, &st->intervals);
    RbKitGetCounters(b, &st->accesses, 2);
    return TCL_OK;
}

/*
 * ReReferenceMerge --
 *	merge hook: other's accesses follow a's, so a block's first access
 *	in other re-references its last in a, as in one pass.  Exact while
 *	no shard and not the union passes -limit blocks; past it the blocks
 *	that find no room are counted untracked (ReReferenceExact 0).
 * Results: TCL_OK, or TCL_ERROR past 2^15 devices.
 */
static int
ReReferenceMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ReReferenceState *st = a->state;
    const ReReferenceState *ost = other->state;
    int64_t *devices = RbBlockMapAdopt(&st->map, &ost->map, NULL);
    uint64_t i;

    if (devices == NULL) {
	Rb_AnalyzerError(a, "RUBICON LIMIT DEVICES",
		"%s: more than 32768 devices to merge", a->cls->name);
	return TCL_ERROR;
    }
    for (i = 0; i < ost->last.cap; i++) {
	const int64_t *o;
	int64_t key, *prev, gap;

	if (!ost->last.used[i]) {
	    continue;
	}
	o = Rb_KeyTableValue(&ost->last, i);
	key = RbBlockRekey(&st->map, devices, ost->last.keys[i]);
	if ((prev = Rb_KeyTableFind(&st->last, key, 0)) != NULL) {
	    if (o[1] >= prev[0]
		    && !__builtin_sub_overflow(o[1], prev[0], &gap)) {
		Rb_LogHistAdd(&st->intervals, (double)gap);
	    }
	    prev[0] = o[0];
	} else if ((prev = Rb_KeyTableFindLimited(&st->last, key,
		st->limit)) != NULL) {
	    prev[0] = o[0];
	    prev[1] = o[1];
	} else {
	    st->untracked++;
	}
    }
    free(devices);
    st->accesses += ost->accesses;
    st->untracked += ost->untracked;
    return Rb_LogHistMerge(a, &st->intervals, &ost->intervals);
}

/*
 * Mergeable in time order: a block's first access in a shard
 * re-references its last in the shard before (ReReferenceMerge).
 */
const Rb_AnalyzerClass Rb_ReReferenceAnalyzerClass = {
    .name = "ReReferenceAnalyzer",
    .help = "time between accesses to the same block: percentiles, mean, "
	    "fraction of re-references",
    .stateSize = sizeof(ReReferenceState),
    .options = reReferenceOptions,
    .attrs = reReferenceAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = ReReferenceStart,
    .batch = ReReferenceBatch,
    .end = ReReferenceEnd,
    .freeState = ReReferenceFree,
    .merge = ReReferenceMerge,
    .serialize = ReReferenceSerialize,
    .deserialize = ReReferenceDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_SIZE),
};
