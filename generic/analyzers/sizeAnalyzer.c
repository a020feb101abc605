/*
 * sizeAnalyzer.c --
 *
 *	SizeAnalyzer: mean, smallest and largest request size.
 */

#include "analyzers.h"

typedef struct SizeState {
    uint64_t count;
    uint64_t bytes;
    int64_t minSize;
    int64_t maxSize;
} SizeState;

static const char *const sizeAttrs[] = {
    "MeanSize", "MinSize", "MaxSize", NULL
};

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
}

/*
 * SizeEnd --
 *	Sets MeanSize, MinSize and MaxSize (all 0 when no I/O had a size).
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
    return TCL_OK;
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

    RbKitPutCounters(b, &st->count, 4);
    return TCL_OK;
}

static int
SizeDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SizeState *st = a->state;

    RbKitGetCounters(b, &st->count, 4);
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_SizeAnalyzerClass = {
    .name = "SizeAnalyzer",
    .help = "mean, smallest and largest request size",
    .stateSize = sizeof(SizeState),
    .options = NULL,
    .attrs = sizeAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = SizeStart,
    .batch = SizeBatch,
    .end = SizeEnd,
    .merge = SizeMerge,
    .serialize = SizeSerialize,
    .deserialize = SizeDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
