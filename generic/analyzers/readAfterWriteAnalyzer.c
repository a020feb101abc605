/*
 * readAfterWriteAnalyzer.c --
 *
 *	ReadAfterWriteAnalyzer: how often a block is read after the run
 *	wrote it, and how often a write overwrites a block the run wrote
 *	before.  Counted per block access; the blocks written are held in a
 *	key table bounded by -limit.
 */

#include <stddef.h>
#include "analyzers.h"

typedef struct ReadAfterWriteState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    int64_t limit;		/* -limit */
    Rb_KeyTable written;	/* Blocks written (value unused). */
    uint64_t reads, rawReads, writes, overwrites;
    uint64_t untracked;		/* Writes to blocks past the limit. */
} ReadAfterWriteState;

static const Rb_Option readAfterWriteOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(ReadAfterWriteState, map.deviceField),
	"deviceNo", "field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(ReadAfterWriteState,
	map.offsetField), "devOffset", "field holding the offset in bytes"},
    {"-block", RB_OPT_INT, offsetof(ReadAfterWriteState, map.block), "4096",
	"block size in bytes"},
    {"-limit", RB_OPT_INT, offsetof(ReadAfterWriteState, limit), "10000000",
	"written blocks remembered"},
    {NULL}
};

static const char *const readAfterWriteAttrs[] = {
    "ReadAfterWriteFraction", "OverwriteFraction", "ReadAfterWriteExact",
    NULL
};

/*
 * ReadAfterWriteStart --
 *	Checks the options and forgets the blocks written in a previous run.
 */
static int
ReadAfterWriteStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReadAfterWriteState *st = a->state;

    if (RbBlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->written.valSize == 0) {
	Rb_KeyTableInit(&st->written, 1);
    }
    Rb_KeyTableClear(&st->written);
    st->reads = st->rawReads = st->writes = st->overwrites = 0;
    st->untracked = 0;
    return TCL_OK;
}

/*
 * ReadAfterWriteBatch --
 *	For each block of each selected I/O: a read counts as read-after-
 *	write when the block was written before; a write as an overwrite
 *	when it was, and marks the block written.  I/Os without an op are
 *	skipped.
 */
static void
ReadAfterWriteBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ReadAfterWriteState *st = a->state;
    const int64_t *ops = b->col[RB_IO_OP];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t first, count, k, op = ops[sel[j]];

	if ((op != RB_OP_READ && op != RB_OP_WRITE)
		|| !RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	for (k = first; k < first + count; k++) {
	    if (op == RB_OP_READ) {
		st->reads++;
		st->rawReads += Rb_KeyTableFind(&st->written, k, 0) != NULL;
	    } else {
		st->writes++;
		if (Rb_KeyTableFind(&st->written, k, 0) != NULL) {
		    st->overwrites++;
		} else if (Rb_KeyTableFindLimited(&st->written, k,
			st->limit) == NULL) {
		    st->untracked++;
		}
	    }
	}
    }
}

/*
 * ReadAfterWriteEnd --
 *	Sets the two fractions and whether they are exact.
 */
static int
ReadAfterWriteEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReadAfterWriteState *st = a->state;

    Rb_AnalyzerSet(a, Rb_AttrScalar("ReadAfterWriteFraction",
	    st->reads ? (double)st->rawReads / (double)st->reads : 0.0, "",
	    "block reads of blocks written earlier in the run, over block "
	    "reads"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("OverwriteFraction",
	    st->writes ? (double)st->overwrites / (double)st->writes : 0.0, "",
	    "block writes to blocks written earlier in the run, over block "
	    "writes"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ReadAfterWriteExact",
	    st->untracked == 0, "", "1 if exact, 0 if -limit was reached "
	    "and both fractions are lower bounds"));
    return TCL_OK;
}

/*
 * ReadAfterWriteFree --
 *	Frees the written blocks and the device map.
 */
static void
ReadAfterWriteFree(Rb_Analyzer *a)
{
    ReadAfterWriteState *st = a->state;

    Rb_KeyTableFree(&st->written);
    RbBlockMapFree(&st->map);
}

/*
 * Not mergeable: whether a read follows a write depends on the order of
 * I/Os across shards, and block keys are numbered per shard.
 */
const Rb_AnalyzerClass Rb_ReadAfterWriteAnalyzerClass = {
    .name = "ReadAfterWriteAnalyzer",
    .help = "fraction of block reads of blocks written earlier, and of "
	    "overwrites",
    .stateSize = sizeof(ReadAfterWriteState),
    .options = readAfterWriteOptions,
    .attrs = readAfterWriteAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .start = ReadAfterWriteStart,
    .batch = ReadAfterWriteBatch,
    .end = ReadAfterWriteEnd,
    .freeState = ReadAfterWriteFree,
    .fields = RB_FIELD_BIT(RB_IO_OP) | RB_FIELD_BIT(RB_IO_SIZE),
};
