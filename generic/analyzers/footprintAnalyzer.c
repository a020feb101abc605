/*
 * footprintAnalyzer.c --
 *
 *	FootprintAnalyzer: how many distinct blocks the I/Os touch, over
 *	every device of the Flow; exact up to -limit blocks, then a
 *	HyperLogLog estimate (distinctSet.c).
 */

#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct FootprintState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    int64_t limit;		/* -limit */
    Rb_DistinctSet blocks;
} FootprintState;

static const Rb_Option footprintOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(FootprintState, map.deviceField),
	"deviceNo", "field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(FootprintState,
	map.offsetField), "devOffset", "field holding the offset in bytes"},
    {"-block", RB_OPT_INT, offsetof(FootprintState, map.block), "4096",
	"block size in bytes"},
    {"-limit", RB_OPT_INT, offsetof(FootprintState, limit), "10000000",
	"blocks counted exactly before switching to an estimate"},
    {NULL}
};

static const char *const footprintAttrs[] = {
    "Footprint", "FootprintBytes", "FootprintExact", NULL
};

/*
 * FootprintStart --
 *	Checks the options and empties the block set.
 */
static int
FootprintStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    FootprintState *st = a->state;

    if (RbBlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    RbDistinctReset(&st->blocks, st->limit);
    RbDistinctOfBlocks(&st->blocks, &st->map);
    return TCL_OK;
}

/*
 * FootprintBatch --
 *	Adds every block each selected I/O touches.
 */
static void
FootprintBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    FootprintState *st = a->state;
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t first, count, k;

	if (RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    for (k = 0; k < count; k++) {
		RbDistinctAdd(&st->blocks, first + k);
	    }
	}
    }
}

/*
 * FootprintEnd --
 *	Sets the footprint in blocks and bytes, and whether it is exact.
 */
static int
FootprintEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    FootprintState *st = a->state;
    double blocks = RbDistinctCount(&st->blocks);

    Rb_AnalyzerSet(a, Rb_AttrScalar("Footprint", blocks, "blocks",
	    "distinct blocks touched"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("FootprintBytes",
	    blocks * (double)st->map.block, "bytes",
	    "distinct blocks touched times the block size"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("FootprintExact",
	    RbDistinctIsExact(&st->blocks), "",
	    "1 if the footprint is exact, 0 if a HyperLogLog estimate"));
    return TCL_OK;
}

/*
 * FootprintFree --
 *	Frees the block set and the device map.
 */
static void
FootprintFree(Rb_Analyzer *a)
{
    FootprintState *st = a->state;

    RbDistinctFree(&st->blocks);
    RbBlockMapFree(&st->map);
}

/*
 * FootprintSerialize, FootprintDeserialize --
 *	serialize and deserialize hooks: the devices in the order of their
 *	ids, and the block set.
 */
static int
FootprintSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    FootprintState *st = a->state;

    RbBlockMapPut(b, &st->map);
    RbDistinctPut(b, &st->blocks, NULL);
    return TCL_OK;
}

static int
FootprintDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    FootprintState *st = a->state;

    RbBlockMapGet(b, &st->map);
    RbDistinctGet(b, &st->blocks, NULL);
    return TCL_OK;
}

/*
 * FootprintMerge --
 *	merge hook: adds the blocks of other, whose I/Os follow a's.  Its
 *	devices are numbered first, in the order other first saw them, so
 *	that each gets the id one pass over both would have given it; then
 *	its blocks are keyed again with those ids.
 * Results: TCL_OK, or TCL_ERROR (RUBICON MERGE MISMATCH) when other holds
 *	an estimate keyed with ids that differ from a's.
 */
static int
FootprintMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    FootprintState *st = a->state;
    const FootprintState *ost = other->state;
    int sameIds;
    int64_t *devices = RbBlockMapAdopt(&st->map, &ost->map, &sameIds);

    if (devices == NULL) {
	Rb_AnalyzerError(a, "RUBICON LIMIT DEVICES",
		"%s: more than 32768 devices to merge", a->cls->name);
	return TCL_ERROR;
    }
    /* Sketches count (device, block) (RbDistinctOfBlocks): they merge
     * whatever ids the shards gave their devices. */
    RbDistinctAddRekeyed(&st->blocks, &ost->blocks, &st->map, devices,
	    sameIds);
    free(devices);
    return TCL_OK;
}

/*
 * Mergeable in time order: blocks are keyed again with the ids one pass
 * would give (FootprintMerge); estimates beyond -limit merge register by
 * register, as they count (device, block).
 */
const Rb_AnalyzerClass Rb_FootprintAnalyzerClass = {
    .name = "FootprintAnalyzer",
    .help = "distinct blocks touched (exact to -limit, then HyperLogLog)",
    .stateSize = sizeof(FootprintState),
    .options = footprintOptions,
    .attrs = footprintAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = FootprintStart,
    .batch = FootprintBatch,
    .end = FootprintEnd,
    .freeState = FootprintFree,
    .merge = FootprintMerge,
    .serialize = FootprintSerialize,
    .deserialize = FootprintDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
