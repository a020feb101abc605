/*
 * readAfterWriteAnalyzer.c --
 *
 *	ReadAfterWriteAnalyzer: how often a block is read after the run
 *	wrote it, and how often a write overwrites a block the run wrote
 *	before.  Counted per block access; the blocks written are held in a
 *	key table bounded by -limit.  With -samplesize S, only the blocks
 *	whose hash is below a threshold are counted, each with its own
 *	counts, and the threshold halves whenever more than S are held
 *	(their counts leave the totals with them).
 */

#include <stddef.h>
#include "analyzers.h"
#include "core/mpi.h"

/* A sampled block's accesses. */
typedef struct BlockCounts {
    uint32_t reads, rawReads, writes, overwrites;
    uint32_t written;
} BlockCounts;

#define HASH32(key)	(Rb_HashKey(key) >> 32)
#define HASH_SPACE	((uint64_t)1 << 32)

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
    int64_t sampleSize;		/* -samplesize: most blocks held; 0: all */
    uint64_t threshold;		/* Blocks whose HASH32 is below are held. */
    Rb_KeyTable sampled;	/* With -samplesize: block -> BlockCounts */
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
    {"-samplesize", RB_OPT_INT, offsetof(ReadAfterWriteState, sampleSize),
	"0", "sample the blocks by hash, holding at most this many (0: all)"},
    {NULL}
};

static const char *const readAfterWriteAttrs[] = {
    "ReadAfterWriteFraction", "OverwriteFraction", "ReadAfterWriteExact",
    "ReadAfterWriteSampleRate", NULL
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
    if (st->sampleSize < 0) {
	Rb_AnalyzerError(a, "RUBICON ANALYZER OPTION", "%s: -samplesize "
		"must be 0 (none) or positive", a->cls->name);
	return TCL_ERROR;
    }
    if (st->sampleSize > 0 && RbMergeWanted()) {
	Rb_AnalyzerError(a, "RUBICON SPLIT UNMERGEABLE", "%s: -samplesize "
		"lowers its threshold as each process fills up, so processes "
		"would sample different blocks; run it in one process, or "
		"split it without -samplesize", a->cmdName ? a->cmdName
		: a->cls->name);
	return TCL_ERROR;
    }
    if (st->sampled.valSize == 0) {
	Rb_KeyTableInit(&st->sampled, sizeof(BlockCounts));
    }
    Rb_KeyTableClear(&st->sampled);
    st->threshold = HASH_SPACE;
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
 * Shrink --
 *	Halves the threshold, dropping the blocks at or above it and their
 *	counts, until at most -samplesize blocks are held.
 */
static void
Shrink(ReadAfterWriteState *st)
{
    while ((int64_t)st->sampled.count > st->sampleSize
	    && st->threshold > 1) {
	int64_t *drop = Rb_AllocArray(st->sampled.count, sizeof(int64_t));
	uint64_t i, n = 0;

	st->threshold /= 2;
	for (i = 0; i < st->sampled.cap; i++) {
	    const BlockCounts *c;

	    if (!st->sampled.used[i]
		    || HASH32(st->sampled.keys[i]) < st->threshold) {
		continue;
	    }
	    c = Rb_KeyTableValue(&st->sampled, i);
	    st->reads -= c->reads;
	    st->rawReads -= c->rawReads;
	    st->writes -= c->writes;
	    st->overwrites -= c->overwrites;
	    drop[n++] = st->sampled.keys[i];
	}
	for (i = 0; i < n; i++) {
	    Rb_KeyTableRemove(&st->sampled, drop[i]);
	}
	free(drop);
    }
}

/*
 * SampledAccess --
 *	One block access with -samplesize: counted in the block's counts and
 *	the totals when the block's hash is below the threshold.
 */
static void
SampledAccess(ReadAfterWriteState *st, int64_t k, int read)
{
    BlockCounts *c;

    if (HASH32(k) >= st->threshold) {
	return;
    }
    c = Rb_KeyTableFind(&st->sampled, k, 1);
    if (read) {
	c->reads++;
	st->reads++;
	if (c->written) {
	    c->rawReads++;
	    st->rawReads++;
	}
    } else {
	c->writes++;
	st->writes++;
	if (c->written) {
	    c->overwrites++;
	    st->overwrites++;
	}
	c->written = 1;
    }
    if ((int64_t)st->sampled.count > st->sampleSize) {
	Shrink(st);
    }
}

/*
 * ReadAfterWriteBatch --
 *	For each block of each selected I/O: a read counts as read-after-
 *	write when the block was written before; a write as an overwrite
 *	when it was, and marks the block written.  The reads of a block
 *	not yet written are counted in readFirst, for the merge.  I/Os
 *	without an op are skipped.  Once -limit blocks are written (and,
 *	for a read, -limit blocks read first), the blocks of later I/Os are
 *	counted without a look-up and the result is no longer exact.  With
 *	-samplesize, the blocks of the records ahead are prefetched
 *	(RbBlockPrefetchAhead).
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

	if (st->sampleSize > 0) {
	    RbBlockPrefetchAhead(&st->map, b, sel, j, nsel, &st->sampled,
		    st->threshold);
	}
	if ((op != RB_OP_READ && op != RB_OP_WRITE)
		|| !RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	for (k = first; k < first + count; k++) {
	    if (st->sampleSize > 0) {
		SampledAccess(st, k, op == RB_OP_READ);
		continue;
	    }
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
    Rb_AnalyzerSet(a, Rb_AttrScalar("ReadAfterWriteSampleRate",
	    (double)st->threshold / (double)HASH_SPACE, "", "share of the "
	    "block hash space counted (1: every block)"));
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
    Rb_KeyTableFree(&st->sampled);
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

    if (st->sampleSize > 0) {
	Rb_AnalyzerError(a, "RUBICON SPLIT UNMERGEABLE", "%s: a sampled "
		"state (-samplesize) is not saved", a->cls->name);
	return TCL_ERROR;
    }
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

    if (st->sampleSize > 0) {
	Rb_AnalyzerError(a, "RUBICON SPLIT UNMERGEABLE", "%s: a sampled "
		"state (-samplesize) is not saved", a->cls->name);
	return TCL_ERROR;
    }
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
