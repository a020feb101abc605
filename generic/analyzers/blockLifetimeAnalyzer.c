/*
 * blockLifetimeAnalyzer.c --
 *
 *	BlockLifetimeAnalyzer: how long written data lives, what an SSD's
 *	garbage collection cares about.  For each block a write touches, the
 *	time from that write to the next write of the same block (an
 *	overwrite) is a lifetime; the data of a block's last write lives
 *	past the end of the trace and gives none.  Percentiles within 1% and
 *	the exact mean of the lifetimes, the fraction of written blocks never
 *	overwritten, and the bytes overwritten.  Per block written one entry
 *	in a key table of at most -limit blocks.
 */

#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

/* Per block written (64-bit words, serialized as counters). */
typedef struct BlockWrites {
    int64_t last;		/* Time of its last write. */
    int64_t first;		/* Time of its first write (for a split
				 * run: the lifetime across the boundary), */
    int64_t firstBytes;		/* and the bytes it wrote in the block. */
    int64_t writes;		/* Writes of the block. */
} BlockWrites;

typedef struct BlockLifetimeState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    int64_t limit;		/* -limit */
    Rb_KeyTable blocks;		/* block key -> BlockWrites */
    Rb_LogHist lifetimes;	/* In ns. */
    uint64_t blockWrites;	/* Counters, serialized in this order. */
    uint64_t overwrites;
    uint64_t overwrittenBytes;
    uint64_t untracked;		/* Block writes to blocks past -limit. */
} BlockLifetimeState;

static const Rb_Option blockLifetimeOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(BlockLifetimeState, map.deviceField),
	"deviceNo", "field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(BlockLifetimeState,
	map.offsetField), "devOffset", "field holding the offset in bytes"},
    {"-block", RB_OPT_INT, offsetof(BlockLifetimeState, map.block), "4096",
	"block size in bytes"},
    {"-limit", RB_OPT_INT, offsetof(BlockLifetimeState, limit), "10000000",
	"written blocks remembered"},
    {NULL}
};

static const char *const blockLifetimeAttrs[] = {
    "BlockLifetime", "MeanBlockLifetime", "NeverOverwrittenFraction",
    "OverwrittenBytes", "BlocksWritten", "BlockWrites", "BlockLifetimeExact",
    NULL
};

/*
 * BlockLifetimeInit --
 *	Checks -block and -limit.
 */
static int
BlockLifetimeInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    BlockLifetimeState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    if (st->map.block <= 0) {
	return RbKitOptionError(a, interp,
		"-block must be a positive number of bytes");
    }
    return TCL_OK;
}

/*
 * BlockLifetimeStart --
 *	Resolves the fields and forgets the blocks of a previous run.
 */
static int
BlockLifetimeStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    BlockLifetimeState *st = a->state;

    if (BlockLifetimeInit(a, NULL) != TCL_OK
	    || RbBlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->blocks.valSize == 0) {
	Rb_KeyTableInit(&st->blocks, sizeof(BlockWrites));
    }
    Rb_KeyTableClear(&st->blocks);
    Rb_LogHistReset(&st->lifetimes);
    st->blockWrites = st->overwrites = st->overwrittenBytes = 0;
    st->untracked = 0;
    return TCL_OK;
}

/*
 * Overwrite --
 *	Counts a write at time t of bytes into a block last written at
 *	last: an overwrite, and a lifetime unless t is earlier (out of
 *	order).
 */
static void
Overwrite(BlockLifetimeState *st, int64_t last, int64_t t, int64_t bytes)
{
    int64_t life;

    st->overwrites++;
    st->overwrittenBytes += (uint64_t)bytes;
    if (t >= last && !__builtin_sub_overflow(t, last, &life)) {
	Rb_LogHistAdd(&st->lifetimes, (double)life);
    }
}

/*
 * BlockLifetimeBatch --
 *	For each block of each selected write with a time: an overwrite
 *	when the block was written before (a lifetime since then), else
 *	the block's first write.  Reads, I/Os without an op or time and
 *	writes the block map cannot key are skipped; a new block past
 *	-limit is counted untracked.
 */
static void
BlockLifetimeBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    BlockLifetimeState *st = a->state;
    const int64_t *times = b->col[RB_IO_TIME];
    const int64_t *ops = b->col[RB_IO_OP];
    const int64_t *offsets = b->col[st->map.offsetIndex];
    const int64_t *sizes = b->col[RB_IO_SIZE];
    int j;

    for (j = 0; j < nsel; j++) {
	int i = (int)sel[j];
	int64_t first, count, k, t = times[i], firstBytes, lastBytes;

	if (ops[i] != RB_OP_WRITE || t == RB_ABSENT
		|| !RbBlockRange(&st->map, b, i, &first, &count)) {
	    continue;
	}
	RbIoEdgeBytes(&st->map, offsets[i], sizes[i], count, &firstBytes,
		&lastBytes);
	for (k = 0; k < count; k++) {
	    int64_t bytes = RbIoBlockBytes(&st->map, k, count, firstBytes,
		    lastBytes);
	    BlockWrites *w = Rb_KeyTableFind(&st->blocks, first + k, 0);

	    st->blockWrites++;
	    if (w != NULL) {
		Overwrite(st, w->last, t, bytes);
	    } else if ((w = Rb_KeyTableFindLimited(&st->blocks, first + k,
		    st->limit)) == NULL) {
		st->untracked++;
		continue;
	    } else {
		w->first = t;
		w->firstBytes = bytes;
	    }
	    w->last = t;
	    w->writes++;
	}
    }
}

/*
 * BlockLifetimeEnd --
 *	Sets the lifetime percentiles and mean (s), the never-overwritten
 *	fraction, the counts and whether they are exact.
 */
static int
BlockLifetimeEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    BlockLifetimeState *st = a->state;
    const Rb_Moments *m = &st->lifetimes.moments;
    uint64_t i, once = 0;

    for (i = 0; i < st->blocks.cap; i++) {
	if (st->blocks.used[i]) {
	    once += ((BlockWrites *)Rb_KeyTableValue(&st->blocks, i))->writes
		    == 1;
	}
    }
    Rb_AnalyzerSet(a, Rb_LogHistAttr(&st->lifetimes, "BlockLifetime", "s",
	    1.0 / RB_NS_PER_S, "percentiles of the time from a block's "
	    "write to its next overwrite (within 1%)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanBlockLifetime",
	    m->n ? m->mean / RB_NS_PER_S : 0.0, "s",
	    "mean time from a block's write to its next overwrite"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("NeverOverwrittenFraction",
	    st->blocks.count ? (double)once / (double)st->blocks.count : 0.0,
	    "", "written blocks written only once (never overwritten before "
	    "the end of the trace), over written blocks"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("OverwrittenBytes",
	    (double)st->overwrittenBytes, "bytes",
	    "bytes written to blocks written before"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("BlocksWritten",
	    (double)st->blocks.count, "", "distinct blocks written"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("BlockWrites", (double)st->blockWrites,
	    "", "block writes (a write of n blocks counts n)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("BlockLifetimeExact",
	    st->untracked == 0, "", "1 if exact, 0 if -limit was reached "
	    "(overwrites of the blocks past it are missed)"));
    return TCL_OK;
}

/*
 * BlockLifetimeFree --
 *	Frees the blocks, the buckets and the device map.
 */
static void
BlockLifetimeFree(Rb_Analyzer *a)
{
    BlockLifetimeState *st = a->state;

    Rb_KeyTableFree(&st->blocks);
    Rb_LogHistFree(&st->lifetimes);
    RbBlockMapFree(&st->map);
}

/*
 * BlockLifetimeSerialize, BlockLifetimeDeserialize --
 *	serialize and deserialize hooks: the devices, each block's first
 *	and last write, the lifetimes and the counters.
 */
static int
BlockLifetimeSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    BlockLifetimeState *st = a->state;

    RbBlockMapPut(b, &st->map);
    Rb_KeyTablePut(b, &st->blocks, NULL);
    Rb_LogHistPut(b, &st->lifetimes);
    RbKitPutCounters(b, &st->blockWrites, 4);
    return TCL_OK;
}

static int
BlockLifetimeDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    BlockLifetimeState *st = a->state;

    RbBlockMapGet(b, &st->map);
    Rb_KeyTableGet(b, &st->blocks, NULL);
    Rb_LogHistGet(b, &st->lifetimes);
    RbKitGetCounters(b, &st->blockWrites, 4);
    return TCL_OK;
}

/*
 * BlockLifetimeMerge --
 *	merge hook: other's writes follow a's, so a block's first write in
 *	other overwrites its last in a, as in one pass.  Exact while no
 *	shard and not the union pass -limit blocks; past it the blocks
 *	that find no room are counted untracked.
 * Results: TCL_OK, or TCL_ERROR past 2^15 devices.
 */
static int
BlockLifetimeMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    BlockLifetimeState *st = a->state;
    const BlockLifetimeState *ost = other->state;
    int64_t *devices = RbBlockMapAdopt(&st->map, &ost->map, NULL);
    uint64_t i;

    if (devices == NULL) {
	Rb_AnalyzerError(a, "RUBICON LIMIT DEVICES",
		"%s: more than 32768 devices to merge", a->cls->name);
	return TCL_ERROR;
    }
    for (i = 0; i < ost->blocks.cap; i++) {
	const BlockWrites *o;
	BlockWrites *w;
	int64_t key;

	if (!ost->blocks.used[i]) {
	    continue;
	}
	o = Rb_KeyTableValue(&ost->blocks, i);
	key = RbBlockRekey(&st->map, devices, ost->blocks.keys[i]);
	if ((w = Rb_KeyTableFind(&st->blocks, key, 0)) != NULL) {
	    Overwrite(st, w->last, o->first, o->firstBytes);
	    w->last = o->last;
	    w->writes += o->writes;
	} else if ((w = Rb_KeyTableFindLimited(&st->blocks, key,
		st->limit)) != NULL) {
	    *w = *o;
	} else {
	    st->untracked += (uint64_t)o->writes;
	}
    }
    free(devices);
    st->blockWrites += ost->blockWrites;
    st->overwrites += ost->overwrites;
    st->overwrittenBytes += ost->overwrittenBytes;
    st->untracked += ost->untracked;
    return Rb_LogHistMerge(a, &st->lifetimes, &ost->lifetimes);
}

/*
 * Mergeable in time order: a block's first write in a shard overwrites
 * its last in the shard before (BlockLifetimeMerge).
 */
const Rb_AnalyzerClass Rb_BlockLifetimeAnalyzerClass = {
    .name = "BlockLifetimeAnalyzer",
    .help = "time from a block's write to its overwrite: percentiles, "
	    "mean, blocks never overwritten, bytes overwritten",
    .stateSize = sizeof(BlockLifetimeState),
    .options = blockLifetimeOptions,
    .attrs = blockLifetimeAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = BlockLifetimeInit,
    .start = BlockLifetimeStart,
    .batch = BlockLifetimeBatch,
    .end = BlockLifetimeEnd,
    .freeState = BlockLifetimeFree,
    .merge = BlockLifetimeMerge,
    .serialize = BlockLifetimeSerialize,
    .deserialize = BlockLifetimeDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_OP)
	    | RB_FIELD_BIT(RB_IO_SIZE),
};
