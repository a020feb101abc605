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
    Rb_KeyTable readFirst;	/* For a split run: block not yet written
				 * -> its reads so far, which an earlier
				 * shard's write of it would make reads
				 * after write; at most -limit blocks. */
    uint64_t reads, rawReads, writes, overwrites;
    uint64_t untracked;		/* Writes to blocks past the limit, and
				 * block accesses counted without a look-up
				 * (the tables full). */
    uint64_t readsLost;		/* Reads of blocks past readFirst's limit:
				 * a merge cannot settle them. */
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
    if (st->readFirst.valSize == 0) {
	Rb_KeyTableInit(&st->readFirst, sizeof(uint64_t));
    }
    Rb_KeyTableClear(&st->readFirst);
    st->reads = st->rawReads = st->writes = st->overwrites = 0;
    st->untracked = st->readsLost = 0;
    return TCL_OK;
}

/*
 * ReadAfterWriteBatch --
 *	For each block of each selected I/O: a read counts as read-after-
 *	write when the block was written before; a write as an overwrite
 *	when it was, and marks the block written.  The reads of a block
 *	not yet written are counted in readFirst, for the merge.  I/Os
 *	without an op are skipped.  Once -limit blocks are written (and,
 *	for a read, -limit blocks read first), the blocks of later I/Os are
 *	counted without a look-up and the result is no longer exact.
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
	    if ((int64_t)st->written.count >= st->limit
		    && (op == RB_OP_WRITE
		    || (int64_t)st->readFirst.count >= st->limit)) {
		/* Full: looking up every block left (most of them misses,
		 * on corrupt offsets and sizes) would cost far more than
		 * filling the tables.  Counted, not classified: the
		 * result is inexact from here on. */
		int64_t left = first + count - k;

		if (op == RB_OP_READ) {
		    st->reads += left;
		    st->readsLost += left;
		} else {
		    st->writes += left;
		}
		st->untracked += left;
		break;
	    }
	    if (op == RB_OP_READ) {
		uint64_t *early;

		st->reads++;
		if (Rb_KeyTableFind(&st->written, k, 0) != NULL) {
		    st->rawReads++;
		} else if ((early = Rb_KeyTableFindLimited(&st->readFirst, k,
			st->limit)) != NULL) {
		    (*early)++;
		} else {
		    st->readsLost++;
		}
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
    Rb_KeyTableFree(&st->readFirst);
    RbBlockMapFree(&st->map);
}

/*
 * ReadAfterWriteSerialize, ReadAfterWriteDeserialize --
 *	serialize and deserialize hooks: the devices, the blocks written,
 *	the reads of the blocks read before written, and the counts.
 */
static int
ReadAfterWriteSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ReadAfterWriteState *st = a->state;

    RbBlockMapPut(b, &st->map);
    Rb_KeyTablePut(b, &st->written, NULL);
    Rb_KeyTablePut(b, &st->readFirst, NULL);
    RbKitPutCounters(b, &st->reads, 6);
    return TCL_OK;
}

static int
ReadAfterWriteDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ReadAfterWriteState *st = a->state;

    RbBlockMapGet(b, &st->map);
    Rb_KeyTableGet(b, &st->written, NULL);
    Rb_KeyTableGet(b, &st->readFirst, NULL);
    RbKitGetCounters(b, &st->reads, 6);
    return TCL_OK;
}

/*
 * ReadAfterWriteMerge --
 *	merge hook: other's I/Os follow a's.  A block that a wrote makes
 *	other's reads of it before other wrote it reads after write, and
 *	other's first write of it an overwrite; the blocks other wrote join
 *	a's, and its reads of blocks a did not write stay pending for a
 *	shard before, as a's own pending reads do.  Exact while no table
 *	passes -limit blocks; past it the blocks that find no room, and
 *	the reads other could not keep pending, are counted untracked
 *	(ReadAfterWriteExact 0).
 * Results: TCL_OK, or TCL_ERROR past 2^15 devices.
 */
static int
ReadAfterWriteMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ReadAfterWriteState *st = a->state;
    const ReadAfterWriteState *ost = other->state;
    int64_t *devices = RbBlockMapAdopt(&st->map, &ost->map, NULL);
    uint64_t i;

    if (devices == NULL) {
	Rb_AnalyzerError(a, "RUBICON LIMIT DEVICES",
		"%s: more than 32768 devices to merge", a->cls->name);
	return TCL_ERROR;
    }
    st->reads += ost->reads;
    st->rawReads += ost->rawReads;
    st->writes += ost->writes;
    st->overwrites += ost->overwrites;
    st->untracked += ost->untracked + ost->readsLost;
    st->readsLost += ost->readsLost;
    for (i = 0; i < ost->readFirst.cap; i++) {
	uint64_t n, *early;
	int64_t key;

	if (!ost->readFirst.used[i]) {
	    continue;
	}
	n = *(const uint64_t *)Rb_KeyTableValue(&ost->readFirst, i);
	key = RbBlockRekey(&st->map, devices, ost->readFirst.keys[i]);
	if (Rb_KeyTableFind(&st->written, key, 0) != NULL) {
	    st->rawReads += n;
	} else if ((early = Rb_KeyTableFindLimited(&st->readFirst, key,
		st->limit)) != NULL) {
	    *early += n;
	} else {
	    st->untracked += n;
	}
    }
    for (i = 0; i < ost->written.cap; i++) {
	int64_t key;

	if (!ost->written.used[i]) {
	    continue;
	}
	key = RbBlockRekey(&st->map, devices, ost->written.keys[i]);
	if (Rb_KeyTableFind(&st->written, key, 0) != NULL) {
	    st->overwrites++;
	} else {
	    if (Rb_KeyTableFindLimited(&st->written, key, st->limit)
		    == NULL) {
		st->untracked++;
	    }
	}
    }
    free(devices);
    return TCL_OK;
}

/*
 * Mergeable in time order: a shard's reads before its first write of a
 * block, and that write, are settled against the blocks the shards
 * before it wrote (ReadAfterWriteMerge).
 */
const Rb_AnalyzerClass Rb_ReadAfterWriteAnalyzerClass = {
    .name = "ReadAfterWriteAnalyzer",
    .help = "fraction of block reads of blocks written earlier, and of "
	    "overwrites",
    .stateSize = sizeof(ReadAfterWriteState),
    .options = readAfterWriteOptions,
    .attrs = readAfterWriteAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = ReadAfterWriteStart,
    .batch = ReadAfterWriteBatch,
    .end = ReadAfterWriteEnd,
    .freeState = ReadAfterWriteFree,
    .merge = ReadAfterWriteMerge,
    .serialize = ReadAfterWriteSerialize,
    .deserialize = ReadAfterWriteDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_OP) | RB_FIELD_BIT(RB_IO_SIZE),
};
