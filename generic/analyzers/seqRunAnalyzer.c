/*
 * seqRunAnalyzer.c --
 *
 *	SeqRunAnalyzer: sequential runs per device.  In stream (arrival)
 *	order, an I/O continues its device's run when it starts where the
 *	device's previous I/O ended, within -gap bytes; otherwise it starts a
 *	new run.  State is one small entry per distinct device, kept in an
 *	open-addressing hash table keyed by the device number, at most
 *	-limit of them: the I/O of one device more stops the run with
 *	RUBICON LIMIT KEYS.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

typedef struct SeqDevice {
    int64_t key;		/* Device number (or other -field value). */
    int64_t prevEnd;		/* Offset + size of its previous I/O. */
    int64_t firstOffset;	/* Offset of its first I/O (for a split
				 * run: does it continue the shard before?) */
    uint64_t ios;		/* 0 marks an empty slot. */
    uint64_t runs;
} SeqDevice;

typedef struct SeqRunState {
    char *field;		/* -field */
    char *offsetField;		/* -offsetField */
    int64_t gap;		/* -gap, bytes */
    int64_t limit;		/* -limit: most devices held */
    int failed;			/* -limit was reached: ignore the rest. */
    int keyIndex;		/* Resolved at start. */
    int offsetIndex;
    int keyIsText;		/* Key is an interned string id. */
    SeqDevice *slots;		/* Power-of-two sized hash table. */
    uint64_t cap;
    uint64_t ndevices;
    SeqDevice *last;		/* Device of the previous I/O: consecutive
				 * I/Os usually share one. */
    uint64_t bytes;
} SeqRunState;

static const Rb_Option seqRunOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(SeqRunState, field), "deviceNo",
	"field whose value names the device a run belongs to"},
    {"-offsetField", RB_OPT_FIELD, offsetof(SeqRunState, offsetField),
	"devOffset", "field holding the I/O's offset in bytes"},
    {"-gap", RB_OPT_INT, offsetof(SeqRunState, gap), "0",
	"bytes an I/O may start away from the previous end and still "
	"continue the run"},
    {"-limit", RB_OPT_INT, offsetof(SeqRunState, limit), "1000000",
	"most distinct devices held (the run stops beyond)"},
    {NULL}
};

static const char *const seqRunAttrs[] = {
    "SeqRunLength", "SeqRunBytes", "SeqRuns", "SeqFraction",
    "SeqRunsByDevice", NULL
};

/*
 * SeqRunInit --
 *	Checks the options (the fields are checked at start, against the
 *	run's schema).
 * Results: TCL_OK or TCL_ERROR with a message in interp.
 */
static int
SeqRunInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    SeqRunState *st = a->state;

    if (st->gap < 0) {
	return RbKitOptionError(a, interp, "-gap must not be negative");
    }
    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    return TCL_OK;
}

/*
 * SeqRunStart --
 *	Resolves the fields and empties the device table for a new run.
 * Results: TCL_OK, or TCL_ERROR when a field is unknown or -gap bad.
 */
static int
SeqRunStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SeqRunState *st = a->state;

    if (SeqRunInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    st->keyIndex = st->offsetIndex = -1;
    if (Rb_AnalyzerField(a, run, st->field, &st->keyIndex) < 0
	    || st->keyIndex < 0
	    || RbKitIntegerField(a, run, st->offsetField, &st->offsetIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    st->keyIsText = run->schema->fields[st->keyIndex].type == RB_FT_STRING;
    if (st->slots == NULL) {
	st->cap = 64;
	st->slots = Rb_AllocArray(st->cap, sizeof(SeqDevice));
    }
    memset(st->slots, 0, st->cap * sizeof(SeqDevice));
    st->ndevices = 0;
    st->last = NULL;
    st->bytes = 0;
    st->failed = 0;
    return TCL_OK;
}

/*
 * SlotOf --
 *	Home slot of key in a table of cap slots (Fibonacci hashing, so that
 *	consecutive device numbers spread out).
 */
static uint64_t
SlotOf(int64_t key, uint64_t cap)
{
    return (((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/*
 * GrowTable --
 *	Doubles the device table and rehashes it.
 */
static void
GrowTable(SeqRunState *st)
{
    SeqDevice *old = st->slots;
    uint64_t oldCap = st->cap, i, h;

    st->cap *= 2;
    st->slots = Rb_AllocArray(st->cap, sizeof(SeqDevice));
    memset(st->slots, 0, st->cap * sizeof(SeqDevice));
    for (i = 0; i < oldCap; i++) {
	if (old[i].ios == 0) {
	    continue;
	}
	for (h = SlotOf(old[i].key, st->cap); st->slots[h].ios != 0;
		h = (h + 1) & (st->cap - 1)) {
	}
	st->slots[h] = old[i];
    }
    free(old);
    st->last = NULL;
}

/*
 * FindDevice --
 *	The entry of device key, made (with ios 0) if it is new and fewer
 *	than -limit devices are held.
 * Results: the entry, or NULL when key is new and the table is full.
 * Side effects: may grow the table.
 */
static SeqDevice *
FindDevice(SeqRunState *st, int64_t key)
{
    uint64_t h;

    if (st->last != NULL && st->last->key == key) {
	return st->last;
    }
    if ((st->ndevices + 1) * 4 > st->cap * 3) {
	GrowTable(st);
    }
    for (h = SlotOf(key, st->cap);
	    st->slots[h].ios != 0 && st->slots[h].key != key;
	    h = (h + 1) & (st->cap - 1)) {
    }
    if (st->slots[h].ios == 0) {
	if ((int64_t)st->ndevices >= st->limit) {
	    return NULL;
	}
	st->slots[h].key = key;
	st->ndevices++;
    }
    st->last = &st->slots[h];
    return st->last;
}

/*
 * SeqRunBatch --
 *	Extends or starts the run of each selected I/O's device.  I/Os
 *	without a device, offset or size (or with a negative size) are
 *	skipped.  The I/O of a device one beyond -limit stops the run with
 *	an error naming its record.  The current device's counters live in
 *	locals while consecutive I/Os share it (they are stored back before
 *	another device is looked up, which may move the table), and a run's
 *	start is counted without a branch: whether an I/O is sequential
 *	follows no pattern a predictor could learn.
 */
static void
SeqRunBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    SeqRunState *st = a->state;
    const int64_t *keys = b->col[st->keyIndex];
    const int64_t *offsets = b->col[st->offsetIndex];
    const int64_t *sizes = b->col[RB_IO_SIZE];
    uint64_t bytes = st->bytes, ios = 0, runs = 0;
    int64_t prevEnd = 0;
    SeqDevice *dev = NULL;
    int j;

    if (st->failed) {
	return;
    }
    for (j = 0; j < nsel; j++) {
	int64_t key = keys[sel[j]], offset = offsets[sel[j]];
	int64_t reqSize = sizes[sel[j]];

	if (key == RB_ABSENT || offset == RB_ABSENT || reqSize == RB_ABSENT
		|| reqSize < 0) {
	    continue;
	}
	if (dev == NULL || dev->key != key) {
	    if (dev != NULL) {
		dev->prevEnd = prevEnd;
		dev->ios = ios;
		dev->runs = runs;
	    }
	    if ((dev = FindDevice(st, key)) == NULL) {
		st->failed = 1;
		RbKitDeviceLimit(a, st->limit, st->field,
			b->firstRecord + sel[j], 86);
		break;
	    }
	    if (dev->ios == 0) {
		/* A device's first I/O starts its first run. */
		dev->firstOffset = offset;
		ios = runs = 1;
		prevEnd = (int64_t)((uint64_t)offset + (uint64_t)reqSize);
		bytes += (uint64_t)reqSize;
		continue;
	    }
	    prevEnd = dev->prevEnd;
	    ios = dev->ios;
	    runs = dev->runs;
	}
	runs += !RbContinuesRun(prevEnd, offset, st->gap);
	ios++;
	prevEnd = (int64_t)((uint64_t)offset + (uint64_t)reqSize);
	bytes += (uint64_t)reqSize;
    }
    if (dev != NULL) {
	dev->prevEnd = prevEnd;
	dev->ios = ios;
	dev->runs = runs;
    }
    st->bytes = bytes;
}

/*
 * CompareDevices --
 *	qsort order of devices: by key.
 */
static int
CompareDevices(const void *p, const void *q)
{
    const SeqDevice *d1 = p, *d2 = q;

    return (d1->key > d2->key) - (d1->key < d2->key);
}

/*
 * SeqRunEnd --
 *	Sets the run statistics over all devices and the per-device table
 *	(rows in device order).
 */
static int
SeqRunEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SeqRunState *st = a->state;
    SeqDevice *devs = Rb_AllocArray(st->ndevices + 1, sizeof(SeqDevice));
    uint64_t i, n = 0, ios = 0, runs = 0;
    Rb_Attribute *table;
    int devCol, iosCol, runsCol, meanCol;

    for (i = 0; i < st->cap; i++) {
	if (st->slots[i].ios != 0) {
	    devs[n++] = st->slots[i];
	    ios += st->slots[i].ios;
	    runs += st->slots[i].runs;
	}
    }
    qsort(devs, n, sizeof(SeqDevice), CompareDevices);

    Rb_AnalyzerSet(a, Rb_AttrScalar("SeqRunLength",
	    runs ? (double)ios / (double)runs : 0.0, "IOs",
	    "mean number of I/Os per sequential run"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("SeqRunBytes",
	    runs ? (double)st->bytes / (double)runs : 0.0, "bytes",
	    "mean bytes per sequential run"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("SeqRuns", (double)runs, "",
	    "number of sequential runs"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("SeqFraction",
	    ios ? (double)(ios - runs) / (double)ios : 0.0, "",
	    "fraction of I/Os that continue a sequential run"));

    table = Rb_AttrCreate("SeqRunsByDevice", RB_ATTR_TABLE, "",
	    "sequential runs of each device");
    devCol = Rb_AttrAddColumn(table, "device", "", st->keyIsText);
    iosCol = Rb_AttrAddColumn(table, "ios", "", 0);
    runsCol = Rb_AttrAddColumn(table, "runs", "", 0);
    meanCol = Rb_AttrAddColumn(table, "meanRunLength", "IOs", 0);
    for (i = 0; i < n; i++) {
	int row = Rb_AttrAddRow(table);

	if (st->keyIsText) {
	    const char *name = Rb_SchemaString(run->schema, devs[i].key);

	    Rb_AttrSetText(table, row, devCol, name ? name : "");
	} else {
	    Rb_AttrSetNum(table, row, devCol, (double)devs[i].key);
	}
	Rb_AttrSetNum(table, row, iosCol, (double)devs[i].ios);
	Rb_AttrSetNum(table, row, runsCol, (double)devs[i].runs);
	Rb_AttrSetNum(table, row, meanCol,
		(double)devs[i].ios / (double)devs[i].runs);
    }
    Rb_AnalyzerSet(a, table);
    free(devs);
    return TCL_OK;
}

/*
 * SeqRunFree --
 *	Frees the device table.
 */
static void
SeqRunFree(Rb_Analyzer *a)
{
    SeqRunState *st = a->state;

    free(st->slots);
    st->slots = NULL;
}

/*
 * SeqRunSerialize --
 *	serialize hook: per device its first offset, the end of its last
 *	I/O and its counts (the boundary state a merge needs).
 */
static int
SeqRunSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SeqRunState *st = a->state;
    Rb_Schema *text = RbKitTextSchema(run, st->keyIndex);
    uint64_t i;

    Rb_BufPutInt(b, st->failed);
    Rb_BufPutInt(b, (int64_t)st->bytes);
    Rb_BufPutInt(b, (int64_t)st->ndevices);
    for (i = 0; i < st->cap; i++) {
	const SeqDevice *d = &st->slots[i];

	if (d->ios != 0) {
	    RbKitPutKey(b, text, d->key);
	    RbKitPutCounters(b, &d->prevEnd, 4);
	}
    }
    return TCL_OK;
}

/*
 * SeqRunDeserialize --
 *	deserialize hook: restores what SeqRunSerialize wrote.
 */
static int
SeqRunDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SeqRunState *st = a->state;
    Rb_Schema *text = RbKitTextSchema(run, st->keyIndex);
    int64_t n, i;

    st->failed = (int)Rb_BufGetInt(b);
    st->bytes = (uint64_t)Rb_BufGetInt(b);
    n = Rb_BufGetCount(b, 40);
    for (i = 0; i < n && !b->bad; i++) {
	SeqDevice *d = FindDevice(st, RbKitGetKey(b, text));

	if (d == NULL) {
	    Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -limit "
		    "%" PRId64 " devices in a shard", a->cls->name, st->limit);
	    return TCL_ERROR;
	}
	RbKitGetCounters(b, &d->prevEnd, 4);
	if (d->ios == 0) {
	    b->bad = 1;		/* only devices with I/Os are sent */
	}
    }
    return TCL_OK;
}

/*
 * SeqRunMerge --
 *	merge hook: adds the runs of other, whose I/Os follow a's.  A
 *	device's first run in other continues its last run in a when it
 *	starts within -gap of where that ended, exactly as in one pass.
 * Results: TCL_OK, or TCL_ERROR when the devices exceed -limit.
 */
static int
SeqRunMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    SeqRunState *st = a->state;
    const SeqRunState *ost = other->state;
    uint64_t i;

    for (i = 0; i < ost->cap; i++) {
	const SeqDevice *od = &ost->slots[i];
	SeqDevice *d;

	if (od->ios == 0) {
	    continue;
	}
	if ((d = FindDevice(st, od->key)) == NULL) {
	    Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -limit "
		    "%" PRId64 " devices of %s in the merged shards (raise "
		    "-limit)", a->cls->name, st->limit, st->field);
	    return TCL_ERROR;
	}
	if (d->ios == 0) {
	    *d = *od;
	    continue;
	}
	d->runs += od->runs
		- RbContinuesRun(d->prevEnd, od->firstOffset, st->gap);
	d->ios += od->ios;
	d->prevEnd = od->prevEnd;
    }
    st->bytes += ost->bytes;
    st->failed |= ost->failed;
    return TCL_OK;
}

/*
 * Mergeable in time order: each device's first offset and last end
 * join a run that crosses a shard boundary (SeqRunMerge).
 */
const Rb_AnalyzerClass Rb_SeqRunAnalyzerClass = {
    .name = "SeqRunAnalyzer",
    .help = "sequential runs per device: mean run length and bytes, "
	    "fraction of sequential I/Os",
    .stateSize = sizeof(SeqRunState),
    .options = seqRunOptions,
    .attrs = seqRunAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = SeqRunInit,
    .start = SeqRunStart,
    .batch = SeqRunBatch,
    .end = SeqRunEnd,
    .freeState = SeqRunFree,
    .merge = SeqRunMerge,
    .serialize = SeqRunSerialize,
    .deserialize = SeqRunDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
