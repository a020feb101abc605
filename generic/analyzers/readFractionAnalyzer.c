/*
 * readFractionAnalyzer.c --
 *
 *	ReadFractionAnalyzer: the share of reads, by count and by bytes.
 */

#include "analyzers.h"

typedef struct ReadFractionState {
    uint64_t reads, writes;
    uint64_t readBytes, writeBytes;
} ReadFractionState;

static const char *const readFractionAttrs[] = {
    "ReadFraction", "ReadByteFraction", "Reads", "Writes", NULL
};

/*
 * ReadFractionStart --
 *	Resets the counts for a new run.
 */
static int
ReadFractionStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReadFractionState *st = a->state;

    st->reads = st->writes = 0;
    st->readBytes = st->writeBytes = 0;
    return TCL_OK;
}

/*
 * ReadFractionBatch --
 *	Counts the selected reads and writes.  An I/O without a (valid) size
 *	counts toward the fraction by count only; one whose op is absent or neither
 *	read nor write counts toward neither.
 */
static void
ReadFractionBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ReadFractionState *st = a->state;
    const int64_t *op = b->col[RB_IO_OP];
    const int64_t *size = b->col[RB_IO_SIZE];
    /* In locals, without branches: reads and writes come in no order. */
    uint64_t reads = st->reads, writes = st->writes;
    uint64_t readBytes = st->readBytes, writeBytes = st->writeBytes;
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t reqSize = size[sel[j]];
	uint64_t bytes = (reqSize == RB_ABSENT || reqSize < 0)
		? 0 : (uint64_t)reqSize;
	uint64_t isRead = op[sel[j]] == RB_OP_READ;
	uint64_t isWrite = op[sel[j]] == RB_OP_WRITE;

	reads += isRead;
	readBytes += bytes & -isRead;
	writes += isWrite;
	writeBytes += bytes & -isWrite;
    }
    st->reads = reads;
    st->writes = writes;
    st->readBytes = readBytes;
    st->writeBytes = writeBytes;
}

/*
 * ReadFractionEnd --
 *	Sets ReadFraction, ReadByteFraction (0 when there is nothing to
 *	divide), Reads and Writes.
 */
static int
ReadFractionEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ReadFractionState *st = a->state;
    uint64_t ios = st->reads + st->writes;
    uint64_t bytes = st->readBytes + st->writeBytes;

    Rb_AnalyzerSet(a, Rb_AttrScalar("ReadFraction",
	    ios > 0 ? (double)st->reads / (double)ios : 0.0, "",
	    "fraction of I/Os that are reads"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ReadByteFraction",
	    bytes > 0 ? (double)st->readBytes / (double)bytes : 0.0, "",
	    "fraction of bytes transferred by reads"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Reads", (double)st->reads, "",
	    "number of reads"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("Writes", (double)st->writes, "",
	    "number of writes"));
    return TCL_OK;
}

/*
 * ReadFractionMerge --
 *	Adds the counts of other (a shard's partial state) into a.
 */
static int
ReadFractionMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ReadFractionState *st = a->state;
    const ReadFractionState *ost = other->state;

    st->reads += ost->reads;
    st->writes += ost->writes;
    st->readBytes += ost->readBytes;
    st->writeBytes += ost->writeBytes;
    return TCL_OK;
}


/*
 * ReadFractionSerialize, ReadFractionDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
ReadFractionSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ReadFractionState *st = a->state;

    RbKitPutCounters(b, &st->reads, 4);
    return TCL_OK;
}

static int
ReadFractionDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ReadFractionState *st = a->state;

    RbKitGetCounters(b, &st->reads, 4);
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_ReadFractionAnalyzerClass = {
    .name = "ReadFractionAnalyzer",
    .help = "fraction of reads by count and by bytes",
    .stateSize = sizeof(ReadFractionState),
    .options = NULL,
    .attrs = readFractionAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = ReadFractionStart,
    .batch = ReadFractionBatch,
    .end = ReadFractionEnd,
    .merge = ReadFractionMerge,
    .serialize = ReadFractionSerialize,
    .deserialize = ReadFractionDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_OP) | RB_FIELD_BIT(RB_IO_SIZE),
};
