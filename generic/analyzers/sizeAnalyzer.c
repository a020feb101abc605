/*
 * sizeAnalyzer.c --
 *
 *	SizeAnalyzer: mean, smallest and largest request size; with -block,
 *	also the blocks the I/Os touch, counted as the block analyzers
 *	count them (RbBlockRange), at the cost of a sum per I/O.
 */

#include <stddef.h>
#include "analyzers.h"

typedef struct SizeState {
    uint64_t count;		/* The five counters, in this order, are */
    uint64_t bytes;		/* the shard state (SizeSerialize). */
    int64_t minSize;
    int64_t maxSize;
    uint64_t blocks;		/* -block: block accesses */
    Rb_BlockMap map;		/* -block; the devices and offsets are
				 * deviceNo and devOffset */
} SizeState;

static const Rb_Option sizeOptions[] = {
    {"-block", RB_OPT_INT, offsetof(SizeState, map.block), "0",
	"block size in bytes: also count the blocks the I/Os touch "
	"(BlockAccesses); 0: no"},
    {NULL}
};

static const char *const sizeAttrs[] = {
    "MeanSize", "MinSize", "MaxSize", "BlockAccesses", NULL
};

/*
 * SizeInit --
 *	Checks -block (also from start, with interp NULL).
 */
static int
SizeInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    SizeState *st = a->state;

    if (st->map.block < 0) {
	return RbKitOptionError(a, interp,
		"-block must be 0 (none) or a positive number of bytes");
    }
    return TCL_OK;
}

/*
 * SizeStart --
 *	Resets the sums for a new run.
 */
static int
SizeStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SizeState *st = a->state;

    st->count = 0;
    st->bytes = 0;
    st->minSize = INT64_MAX;
    st->maxSize = INT64_MIN;
    st->blocks = 0;
    if (SizeInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->map.block > 0) {
	st->map.deviceField = "deviceNo";
	st->map.offsetField = "devOffset";
	return RbBlockMapStart(a, &st->map, run);
    }
    return TCL_OK;
}

/*
 * SizeBatch --
 *	Adds the selected records that have a size (a negative size is
 *	malformed and skipped).
 */
static void
SizeBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    SizeState *st = a->state;
    const int64_t *size = b->col[RB_IO_SIZE];
    /* Kept in locals: the column could alias the state. */
    uint64_t count = st->count, bytes = st->bytes;
    int64_t minSize = st->minSize, maxSize = st->maxSize;
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t reqSize = size[sel[j]];

	if (reqSize == RB_ABSENT || reqSize < 0) {
	    continue;
	}
	count++;
	bytes += (uint64_t)reqSize;
	minSize = reqSize < minSize ? reqSize : minSize;
	maxSize = reqSize > maxSize ? reqSize : maxSize;
    }
    st->count = count;
    st->bytes = bytes;
    st->minSize = minSize;
    st->maxSize = maxSize;
    if (st->map.block > 0) {
	uint64_t blocks = st->blocks;

	for (j = 0; j < nsel; j++) {
	    int64_t first, n;

	    if (RbBlockRange(&st->map, b, (int)sel[j], &first, &n)) {
		blocks += (uint64_t)n;
	    }
	}
	st->blocks = blocks;
    }
}

/*
 * SizeEnd --
 *	Sets MeanSize, MinSize and MaxSize (all 0 when no I/O had a size),
 *	and with -block BlockAccesses.
 */
static int
SizeEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SizeState *st = a->state;
    int any = st->count > 0;

    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanSize",
	    any ? (double)st->bytes / (double)st->count : 0.0, "bytes",
	    "mean request size"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MinSize",
	    any ? (double)st->minSize : 0.0, "bytes", "smallest request size"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MaxSize",
	    any ? (double)st->maxSize : 0.0, "bytes", "largest request size"));
    if (st->map.block > 0) {
	Rb_AnalyzerSet(a, Rb_AttrScalar("BlockAccesses", (double)st->blocks,
		"", "blocks of -block bytes the I/Os touch, each once per "
		"I/O"));
    }
    return TCL_OK;
}

/*
 * SizeFree --
 *	Frees the device table of -block.
 */
static void
SizeFree(Rb_Analyzer *a)
{
    RbBlockMapFree(&((SizeState *)a->state)->map);
}

/*
 * SizeMerge --
 *	Combines the sums of other (a shard's partial state) into a.
 */
static int
SizeMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    SizeState *st = a->state;
    const SizeState *ost = other->state;

    st->count += ost->count;
    st->bytes += ost->bytes;
    if (ost->minSize < st->minSize) {
	st->minSize = ost->minSize;
    }
    if (ost->maxSize > st->maxSize) {
	st->maxSize = ost->maxSize;
    }
    st->blocks += ost->blocks;
    return TCL_OK;
}


/*
 * SizeSerialize, SizeDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
SizeSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SizeState *st = a->state;

    RbKitPutCounters(b, &st->count, 5);
    return TCL_OK;
}

static int
SizeDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SizeState *st = a->state;

    RbKitGetCounters(b, &st->count, 5);
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_SizeAnalyzerClass = {
    .name = "SizeAnalyzer",
    .help = "mean, smallest and largest request size",
    .stateSize = sizeof(SizeState),
    .options = sizeOptions,
    .attrs = sizeAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = SizeInit,
    .start = SizeStart,
    .batch = SizeBatch,
    .end = SizeEnd,
    .merge = SizeMerge,
    .serialize = SizeSerialize,
    .deserialize = SizeDeserialize,
    .freeState = SizeFree,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
