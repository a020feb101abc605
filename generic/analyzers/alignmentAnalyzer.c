/*
 * alignmentAnalyzer.c --
 *
 *	AlignmentAnalyzer: the fraction of I/Os not aligned to a block size,
 *	by offset, by size, and either.
 */

#include <stddef.h>
#include "analyzers.h"

typedef struct AlignmentState {
    char *offsetField;		/* -offsetField */
    int64_t block;		/* -block, bytes */
    int offsetIndex;
    uint64_t ios, badOffset, badSize, either;
} AlignmentState;

static const Rb_Option alignmentOptions[] = {
    {"-offsetField", RB_OPT_FIELD, offsetof(AlignmentState, offsetField),
	"devOffset", "field holding the offset in bytes"},
    {"-block", RB_OPT_INT, offsetof(AlignmentState, block), "4096",
	"alignment in bytes"},
    {NULL}
};

static const char *const alignmentAttrs[] = {
    "UnalignedFraction", "UnalignedOffsetFraction", "UnalignedSizeFraction",
    NULL
};

/*
 * AlignmentStart --
 *	Checks -block, resolves the offset field and resets the counts.
 */
static int
AlignmentStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    AlignmentState *st = a->state;

    if (st->block <= 0) {
	return RbKitOptionError(a, NULL,
		"-block must be a positive number of bytes");
    }
    if (RbKitIntegerField(a, run, st->offsetField, &st->offsetIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    st->ios = st->badOffset = st->badSize = st->either = 0;
    return TCL_OK;
}

/*
 * AlignmentBatch --
 *	Counts the I/Os whose offset or size is not a multiple of -block.
 *	I/Os without an offset or size, or with a negative one, are skipped.
 */
static void
AlignmentBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    AlignmentState *st = a->state;
    const int64_t *offsets = b->col[st->offsetIndex];
    const int64_t *sizes = b->col[RB_IO_SIZE];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t offset = offsets[sel[j]], reqSize = sizes[sel[j]];
	int badOffset, badSize;

	if (offset == RB_ABSENT || reqSize == RB_ABSENT || offset < 0
		|| reqSize < 0) {
	    continue;
	}
	badOffset = offset % st->block != 0;
	badSize = reqSize % st->block != 0;
	st->ios++;
	st->badOffset += badOffset;
	st->badSize += badSize;
	st->either += badOffset || badSize;
    }
}

/*
 * AlignmentEnd --
 *	Sets the three fractions (0 when no I/O was counted).
 */
static int
AlignmentEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    AlignmentState *st = a->state;
    double n = st->ios ? (double)st->ios : 1.0;

    Rb_AnalyzerSet(a, Rb_AttrScalar("UnalignedFraction",
	    (double)st->either / n, "",
	    "fraction of I/Os whose offset or size is not block-aligned"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnalignedOffsetFraction",
	    (double)st->badOffset / n, "",
	    "fraction of I/Os whose offset is not block-aligned"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnalignedSizeFraction",
	    (double)st->badSize / n, "",
	    "fraction of I/Os whose size is not a multiple of the block"));
    return TCL_OK;
}

/*
 * AlignmentMerge --
 *	Adds the counts of other (a shard's partial state) into a.
 */
static int
AlignmentMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    AlignmentState *st = a->state;
    const AlignmentState *ost = other->state;

    st->ios += ost->ios;
    st->badOffset += ost->badOffset;
    st->badSize += ost->badSize;
    st->either += ost->either;
    return TCL_OK;
}


/*
 * AlignmentSerialize, AlignmentDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
AlignmentSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    AlignmentState *st = a->state;

    RbKitPutCounters(b, &st->ios, 4);
    return TCL_OK;
}

static int
AlignmentDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    AlignmentState *st = a->state;

    RbKitGetCounters(b, &st->ios, 4);
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_AlignmentAnalyzerClass = {
    .name = "AlignmentAnalyzer",
    .help = "fraction of I/Os not aligned to a block size",
    .stateSize = sizeof(AlignmentState),
    .options = alignmentOptions,
    .attrs = alignmentAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = AlignmentStart,
    .batch = AlignmentBatch,
    .end = AlignmentEnd,
    .merge = AlignmentMerge,
    .serialize = AlignmentSerialize,
    .deserialize = AlignmentDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
