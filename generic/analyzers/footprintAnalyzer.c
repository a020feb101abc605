/*
 * footprintAnalyzer.c --
 *
 *	FootprintAnalyzer: how many distinct blocks the I/Os touch, over
 *	every device of the Flow; exact up to -limit blocks, then a
 *	HyperLogLog estimate (distinctSet.c).
 */

#include <stddef.h>
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

    if (Rb_BlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    Rb_DistinctReset(&st->blocks, st->limit);
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

	if (Rb_BlockRange(&st->map, b, sel[j], &first, &count)) {
	    for (k = 0; k < count; k++) {
		Rb_DistinctAdd(&st->blocks, first + k);
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
    double blocks = Rb_DistinctCount(&st->blocks);

    Rb_AnalyzerSet(a, Rb_AttrScalar("Footprint", blocks, "blocks",
	    "distinct blocks touched"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("FootprintBytes",
	    blocks * (double)st->map.block, "bytes",
	    "distinct blocks touched times the block size"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("FootprintExact",
	    Rb_DistinctIsExact(&st->blocks), "",
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

    Rb_DistinctFree(&st->blocks);
    Rb_BlockMapFree(&st->map);
}

/*
 * Not mergeable: block keys carry a device id numbered in the order each
 * shard first saw its devices, so two shards' keys do not correspond.
 */
const Rb_AnalyzerClass Rb_FootprintAnalyzerClass = {
    .name = "FootprintAnalyzer",
    .help = "distinct blocks touched (exact to -limit, then HyperLogLog)",
    .stateSize = sizeof(FootprintState),
    .options = footprintOptions,
    .attrs = footprintAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .start = FootprintStart,
    .batch = FootprintBatch,
    .end = FootprintEnd,
    .freeState = FootprintFree,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
