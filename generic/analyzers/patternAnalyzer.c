/*
 * patternAnalyzer.c --
 *
 *	PatternAnalyzer: the four corners of a workload, the I/Os and bytes
 *	that are sequential reads, random reads, sequential writes and
 *	random writes.  Sequential is SeqRunAnalyzer's definition: in stream
 *	order, an I/O is sequential when its device had an I/O before and it
 *	starts within -gap bytes (0: exactly) of where that I/O ended; a
 *	device's first I/O is random.  State is one entry per device in a key
 *	table of at most -limit devices.
 */

#include <stddef.h>
#include "analyzers.h"

/* Corners, in the order of the table's rows. */
enum { SEQ_READ, RANDOM_READ, SEQ_WRITE, RANDOM_WRITE, NCORNERS };

static const char *const cornerNames[NCORNERS] = {
    "sequentialRead", "randomRead", "sequentialWrite", "randomWrite"
};

/* Per device: what a shard boundary needs (64-bit words, serialized as
 * counters). */
typedef struct PatternDevice {
    int64_t prevEnd;		/* Offset + size of its previous I/O. */
    int64_t firstOffset;	/* Its first I/O: where it starts, */
    int64_t firstSize;		/* its bytes */
    int64_t firstOp;		/* and its op (RB_ABSENT: none). */
    int64_t ios;		/* I/Os seen (0 never stays in the table). */
} PatternDevice;

typedef struct PatternState {
    char *field;		/* -field */
    char *offsetField;		/* -offsetField */
    int64_t gap;		/* -gap, bytes */
    int64_t limit;		/* -limit: most devices held */
    int failed;
    int keyIndex, offsetIndex;
    Rb_KeyTable devices;	/* device -> PatternDevice */
    uint64_t ios[NCORNERS];	/* Counters, in this order (serialized */
    uint64_t bytes[NCORNERS];	/* as one run of counters). */
    uint64_t noOp;		/* I/Os with neither read nor write. */
} PatternState;

static const Rb_Option patternOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(PatternState, field), "deviceNo",
	"field whose value names the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(PatternState, offsetField),
	"devOffset", "field holding the I/O's offset in bytes"},
    {"-gap", RB_OPT_INT, offsetof(PatternState, gap), "0",
	"bytes an I/O may start away from the previous end and still be "
	"sequential"},
    {"-limit", RB_OPT_INT, offsetof(PatternState, limit), "1000000",
	"most distinct devices held (the run stops beyond)"},
    {NULL}
};

static const char *const patternAttrs[] = {
    "AccessPattern", "SeqReadFraction", "RandomReadFraction",
    "SeqWriteFraction", "RandomWriteFraction", NULL
};

/*
 * PatternInit --
 *	Checks -gap and -limit.
 * Results: TCL_OK or TCL_ERROR with a message in interp (or the
 *	analyzer's error when interp is NULL).
 */
static int
PatternInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    PatternState *st = a->state;

    if (st->gap < 0) {
	return RbKitOptionError(a, interp, "-gap must not be negative");
    }
    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    return TCL_OK;
}

/*
 * PatternStart --
 *	Resolves the fields and forgets the devices of a previous run.
 */
static int
PatternStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    PatternState *st = a->state;
    int i;

    if (PatternInit(a, NULL) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->field, RB_FT_BIT(RB_FT_INT)
	    | RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK
	    || RbKitIntegerField(a, run, st->offsetField, &st->offsetIndex)
	    != TCL_OK) {
	st->keyIndex = -1;
	return TCL_ERROR;
    }
    if (st->devices.valSize == 0) {
	Rb_KeyTableInit(&st->devices, sizeof(PatternDevice));
    }
    Rb_KeyTableClear(&st->devices);
    for (i = 0; i < NCORNERS; i++) {
	st->ios[i] = st->bytes[i] = 0;
    }
    st->noOp = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * Corner --
 *	The corner of an I/O of op, sequential or not; -1 for an op that is
 *	neither read nor write.
 */
static int
Corner(int64_t op, int sequential)
{
    if (op == RB_OP_READ) {
	return sequential ? SEQ_READ : RANDOM_READ;
    }
    if (op == RB_OP_WRITE) {
	return sequential ? SEQ_WRITE : RANDOM_WRITE;
    }
    return -1;
}

/*
 * PatternBatch --
 *	Classifies each selected I/O and moves its device's end.  I/Os
 *	without a device, offset or size (or with a negative size) are
 *	skipped, as SeqRunAnalyzer skips them; an I/O of neither op moves
 *	its device's end but is in no corner.  The I/O of a device one past
 *	-limit stops the run.
 */
static void
PatternBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    PatternState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex];
    const int64_t *offsets = b->col[st->offsetIndex];
    const int64_t *sizes = b->col[RB_IO_SIZE];
    const int64_t *ops = b->col[RB_IO_OP];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int64_t key = keys[sel[j]], offset = offsets[sel[j]];
	int64_t reqSize = sizes[sel[j]], op = ops[sel[j]];
	PatternDevice *d;
	int corner;

	if (key == RB_ABSENT || offset == RB_ABSENT || reqSize == RB_ABSENT
		|| reqSize < 0) {
	    continue;
	}
	d = Rb_KeyTableFindLimited(&st->devices, key, st->limit);
	if (d == NULL) {
	    st->failed = 1;
	    RbKitDeviceLimit(a, st->limit, st->field,
		    b->firstRecord + sel[j], 70);
	    break;
	}
	corner = Corner(op, d->ios > 0
		&& RbContinuesRun(d->prevEnd, offset, st->gap));
	if (d->ios == 0) {
	    d->firstOffset = offset;
	    d->firstSize = reqSize;
	    d->firstOp = op;
	}
	d->ios++;
	d->prevEnd = (int64_t)((uint64_t)offset + (uint64_t)reqSize);
	if (corner < 0) {
	    st->noOp++;
	    continue;
	}
	st->ios[corner]++;
	st->bytes[corner] += (uint64_t)reqSize;
    }
}

/*
 * PatternEnd --
 *	Sets the table of the four corners and their four I/O fractions.
 */
static int
PatternEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    PatternState *st = a->state;
    Rb_Attribute *table = Rb_AttrCreate("AccessPattern", RB_ATTR_TABLE, "",
	    "I/Os and bytes that are sequential or random reads or writes");
    int patCol = Rb_AttrAddColumn(table, "pattern", "", 1);
    int iosCol = Rb_AttrAddColumn(table, "ios", "", 0);
    int bytesCol = Rb_AttrAddColumn(table, "bytes", "bytes", 0);
    int iosFracCol = Rb_AttrAddColumn(table, "ioFraction", "", 0);
    int bytesFracCol = Rb_AttrAddColumn(table, "byteFraction", "", 0);
    static const char *const scalars[NCORNERS] = {
	"SeqReadFraction", "RandomReadFraction", "SeqWriteFraction",
	"RandomWriteFraction"
    };
    uint64_t ios = 0, bytes = 0;
    double frac[NCORNERS];
    int i;

    for (i = 0; i < NCORNERS; i++) {
	ios += st->ios[i];
	bytes += st->bytes[i];
    }
    for (i = 0; i < NCORNERS; i++) {
	int row = Rb_AttrAddRow(table);

	frac[i] = ios ? (double)st->ios[i] / (double)ios : 0.0;
	Rb_AttrSetText(table, row, patCol, cornerNames[i]);
	Rb_AttrSetNum(table, row, iosCol, (double)st->ios[i]);
	Rb_AttrSetNum(table, row, bytesCol, (double)st->bytes[i]);
	Rb_AttrSetNum(table, row, iosFracCol, frac[i]);
	Rb_AttrSetNum(table, row, bytesFracCol,
		bytes ? (double)st->bytes[i] / (double)bytes : 0.0);
    }
    Rb_AnalyzerSet(a, table);
    for (i = 0; i < NCORNERS; i++) {
	Rb_AnalyzerSet(a, Rb_AttrScalar(scalars[i], frac[i], "",
		"fraction of the read and write I/Os in this corner"));
    }
    return TCL_OK;
}

/*
 * PatternFree --
 *	Frees the device table.
 */
static void
PatternFree(Rb_Analyzer *a)
{
    PatternState *st = a->state;

    Rb_KeyTableFree(&st->devices);
}

/*
 * PatternSerialize, PatternDeserialize --
 *	serialize and deserialize hooks: the counters and, per device, its
 *	first I/O and the end of its last (the boundary state).
 */
static int
PatternSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    PatternState *st = a->state;

    Rb_BufPutInt(b, st->failed);
    RbKitPutCounters(b, st->ios, 2 * NCORNERS + 1);
    Rb_KeyTablePut(b, &st->devices, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

static int
PatternDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    PatternState *st = a->state;

    st->failed = (int)Rb_BufGetInt(b);
    RbKitGetCounters(b, st->ios, 2 * NCORNERS + 1);
    Rb_KeyTableGet(b, &st->devices, RbKitTextSchema(run, st->keyIndex));
    return TCL_OK;
}

/*
 * PatternMerge --
 *	merge hook: adds other's counts, whose I/Os follow a's.  A device's
 *	first I/O in other was counted random; when it continues where the
 *	device's last I/O in a ended it moves to its sequential corner, as
 *	in one pass.
 * Results: TCL_OK, or TCL_ERROR when the devices exceed -limit.
 */
static int
PatternMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    PatternState *st = a->state;
    const PatternState *ost = other->state;
    uint64_t i;
    int c;

    for (c = 0; c < NCORNERS; c++) {
	st->ios[c] += ost->ios[c];
	st->bytes[c] += ost->bytes[c];
    }
    st->noOp += ost->noOp;
    st->failed |= ost->failed;
    for (i = 0; i < ost->devices.cap; i++) {
	const PatternDevice *od;
	PatternDevice *d;

	if (!ost->devices.used[i]) {
	    continue;
	}
	od = Rb_KeyTableValue(&ost->devices, i);
	d = Rb_KeyTableFindLimited(&st->devices, ost->devices.keys[i],
		st->limit);
	if (d == NULL) {
	    RbKitKeyLimit(a, st->limit, st->field, 0, 70);
	    return TCL_ERROR;
	}
	if (d->ios == 0) {
	    *d = *od;
	    continue;
	}
	if (RbContinuesRun(d->prevEnd, od->firstOffset, st->gap)
		&& (c = Corner(od->firstOp, 0)) >= 0) {
	    /* Random corner to sequential: each pair is adjacent. */
	    st->ios[c]--;
	    st->bytes[c] -= (uint64_t)od->firstSize;
	    st->ios[c - 1]++;
	    st->bytes[c - 1] += (uint64_t)od->firstSize;
	}
	d->ios += od->ios;
	d->prevEnd = od->prevEnd;
    }
    return TCL_OK;
}

/*
 * Mergeable in time order: each device's first I/O and last end decide
 * whether the I/O after a shard boundary is sequential (PatternMerge).
 */
const Rb_AnalyzerClass Rb_PatternAnalyzerClass = {
    .name = "PatternAnalyzer",
    .help = "the four corners: I/Os and bytes of sequential and random "
	    "reads and writes",
    .stateSize = sizeof(PatternState),
    .options = patternOptions,
    .attrs = patternAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = PatternInit,
    .start = PatternStart,
    .batch = PatternBatch,
    .end = PatternEnd,
    .freeState = PatternFree,
    .merge = PatternMerge,
    .serialize = PatternSerialize,
    .deserialize = PatternDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_SIZE) | RB_FIELD_BIT(RB_IO_OP),
};
