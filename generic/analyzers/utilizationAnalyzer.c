/*
 * utilizationAnalyzer.c --
 *
 *	UtilizationAnalyzer: device busy time, the length of the union of the
 *	[startTime, finishTime) intervals of each device's I/Os, and the
 *	fraction of the run it covers.
 *
 *	Records arrive in enqueue order, not issue order, so a device's
 *	intervals are held in a min-heap by start until no later record can
 *	start before them: a record enqueued at t starts at or after t, so
 *	intervals starting at or before the latest enqueue time are merged in
 *	start order.  The heap holds the I/Os enqueued but not yet issued.
 *	At most -limit devices are held: the I/O of one device more stops
 *	the run with RUBICON LIMIT KEYS.
 *
 *	For a split run each device also keeps the busy periods it closed
 *	within -boundary of its first I/O: a busy interval of the shard
 *	before that is still open may overlap them, and the merge measures
 *	their union again.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct BusyDevice {
    Rb_Heap pending;		/* (start, finish) not yet merged. */
    int64_t curStart, curEnd;	/* The busy period being extended. */
    int active;			/* Whether cur* hold a period. */
    uint64_t busyNs;		/* Closed busy periods. */
    int seen;			/* Whether firstT and lastT are set: */
    int64_t firstT, lastT;	/* enqueue times of its first and last
				 * I/O in the shard. */
    int64_t *early;		/* Closed periods starting before firstT +
				 * -boundary: (start, end) pairs, */
    size_t nearly, earlyCap;
    int cut;			/* and whether any closed later. */
} BusyDevice;

typedef struct UtilizationState {
    char *field;		/* -field */
    int64_t limit;		/* -limit: most devices held */
    int64_t boundary;		/* -boundary, ns */
    int failed;			/* -limit was reached: ignore the rest. */
    int index;
    Rb_KeyTable devices;	/* device -> BusyDevice */
} UtilizationState;

static const Rb_Option utilizationOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(UtilizationState, field), "deviceNo",
	"field naming the device whose busy time is measured"},
    {"-limit", RB_OPT_INT, offsetof(UtilizationState, limit), "1000000",
	"most distinct devices held (the run stops beyond)"},
    {"-boundary", RB_OPT_TIME, offsetof(UtilizationState, boundary), "60",
	"time after a shard's first I/O of a device whose busy periods "
	"are kept for a split run's merge"},
    {NULL}
};

static const char *const utilizationAttrs[] = {
    "Utilization", "BusyTime", "UtilizationByDevice", NULL
};

/*
 * FreeDevices --
 *	Frees the heaps of every device and empties the table.
 */
static void
FreeDevices(UtilizationState *st)
{
    uint64_t i;

    for (i = 0; i < st->devices.cap; i++) {
	if (st->devices.used[i]) {
	    BusyDevice *dev = Rb_KeyTableValue(&st->devices, i);

	    RbHeapFree(&dev->pending);
	    free(dev->early);
	}
    }
    Rb_KeyTableClear(&st->devices);
}

/*
 * UtilizationStart --
 *	Checks -limit, resolves -field and forgets the devices of a
 *	previous run.
 */
static int
UtilizationStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    UtilizationState *st = a->state;

    if (st->limit <= 0) {
	return RbKitOptionError(a, NULL, "-limit must be positive");
    }
    if (st->boundary < 0) {
	return RbKitOptionError(a, NULL, "-boundary must not be negative");
    }
    if (RbKitNumericField(a, run, st->field, &st->index) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->devices.valSize == 0) {
	Rb_KeyTableInit(&st->devices, sizeof(BusyDevice));
    }
    FreeDevices(st);
    st->failed = 0;
    return TCL_OK;
}

/*
 * ClosePeriod --
 *	Counts the device's current period, and keeps it among the early
 *	ones when it starts within boundary of the device's first I/O.
 */
static void
ClosePeriod(BusyDevice *dev, int64_t boundary)
{
    dev->busyNs += (uint64_t)dev->curEnd - (uint64_t)dev->curStart;
    if (!dev->seen || dev->curStart - dev->firstT >= boundary) {
	dev->cut = 1;
	return;
    }
    RbKitAppendPair(&dev->early, &dev->nearly, &dev->earlyCap, 16,
	    dev->curStart, dev->curEnd);
}

/*
 * MergePending --
 *	Merges into the device's busy periods, in start order, its pending
 *	intervals starting at or before upTo.
 */
static void
MergePending(BusyDevice *dev, int64_t upTo, int64_t boundary)
{
    while (dev->pending.n > 0 && dev->pending.items[0].key <= upTo) {
	Rb_HeapItem iv = RbHeapPop(&dev->pending);

	if (dev->active && iv.key <= dev->curEnd) {
	    if (iv.value > dev->curEnd) {
		dev->curEnd = iv.value;
	    }
	    continue;
	}
	if (dev->active) {
	    ClosePeriod(dev, boundary);
	}
	dev->curStart = iv.key;
	dev->curEnd = iv.value;
	dev->active = 1;
    }
}

/*
 * UtilizationBatch --
 *	Adds each selected I/O's service interval to its device.  I/Os
 *	without a device, start or finish, or finishing before they start,
 *	are skipped.  The I/O of a device one beyond -limit stops the run
 *	with an error naming its record.
 */
static void
UtilizationBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    UtilizationState *st = a->state;
    const int64_t *keys = b->col[st->index];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int i = sel[j];
	int64_t start = b->col[RB_IO_START][i];
	int64_t finish = b->col[RB_IO_FINISH][i];
	int64_t t = b->col[RB_IO_TIME][i];
	BusyDevice *dev;

	if (keys[i] == RB_ABSENT || start == RB_ABSENT || finish == RB_ABSENT
		|| finish < start) {
	    continue;
	}
	dev = Rb_KeyTableFindLimited(&st->devices, keys[i], st->limit);
	if (dev == NULL) {
	    st->failed = 1;
	    RbKitDeviceLimit(a, st->limit, st->field, b->firstRecord + i, 175);
	    break;
	}
	RbHeapPush(&dev->pending, start, finish);
	if (t != RB_ABSENT) {
	    if (!dev->seen) {
		dev->seen = 1;
		dev->firstT = t;
	    }
	    dev->lastT = t;
	    MergePending(dev, t, st->boundary);
	}
    }
}

/*
 * UtilizationEnd --
 *	Merges what is pending and sets the mean utilization over devices,
 *	the total busy time and the per-device table.
 */
static int
UtilizationEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    UtilizationState *st = a->state;
    uint64_t *slots = Rb_KeyTableSortedSlots(&st->devices), k;
    double seconds = RbRunSeconds(run), totalBusy = 0.0;
    Rb_Attribute *table = Rb_AttrCreate("UtilizationByDevice",
	    RB_ATTR_TABLE, "", "busy time and utilization of each device");
    int devCol = Rb_AttrAddColumn(table, "device", "", 0);
    int busyCol = Rb_AttrAddColumn(table, "busy", "s", 0);
    int utilCol = Rb_AttrAddColumn(table, "utilization", "", 0);

    for (k = 0; k < st->devices.count; k++) {
	BusyDevice *dev = Rb_KeyTableValue(&st->devices, slots[k]);
	double busy;
	int row = Rb_AttrAddRow(table);

	MergePending(dev, INT64_MAX, st->boundary);
	if (dev->active) {
	    ClosePeriod(dev, st->boundary);
	    dev->active = 0;
	}
	busy = (double)dev->busyNs / RB_NS_PER_S;
	totalBusy += busy;
	Rb_AttrSetNum(table, row, devCol,
		(double)st->devices.keys[slots[k]]);
	Rb_AttrSetNum(table, row, busyCol, busy);
	Rb_AttrSetNum(table, row, utilCol, seconds > 0 ? busy / seconds : 0);
    }
    free(slots);
    Rb_AnalyzerSet(a, Rb_AttrScalar("Utilization", seconds > 0
	    && st->devices.count > 0 ? totalBusy / seconds
	    / (double)st->devices.count : 0.0, "",
	    "fraction of the run the devices were busy (mean over devices)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("BusyTime", totalBusy, "s",
	    "busy time summed over devices"));
    Rb_AnalyzerSet(a, table);
    return TCL_OK;
}

/*
 * UtilizationFree --
 *	Frees the devices' heaps and the table.
 */
static void
UtilizationFree(Rb_Analyzer *a)
{
    UtilizationState *st = a->state;

    FreeDevices(st);
    Rb_KeyTableFree(&st->devices);
}

/*
 * UtilizationSerialize, UtilizationDeserialize --
 *	serialize and deserialize hooks: for each device its closed busy
 *	time, open period, first and last enqueue times, early periods and
 *	pending intervals.
 */
static int
UtilizationSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    UtilizationState *st = a->state;
    uint64_t i;

    Rb_BufPutInt(b, (int64_t)st->devices.count);
    for (i = 0; i < st->devices.cap; i++) {
	const BusyDevice *dev;

	if (!st->devices.used[i]) {
	    continue;
	}
	dev = Rb_KeyTableValue(&st->devices, i);
	Rb_BufPutInt(b, st->devices.keys[i]);
	Rb_BufPutInt(b, (int64_t)dev->busyNs);
	Rb_BufPutInt(b, dev->curStart);
	Rb_BufPutInt(b, dev->curEnd);
	Rb_BufPutInt(b, dev->active);
	Rb_BufPutInt(b, dev->seen);
	Rb_BufPutInt(b, dev->firstT);
	Rb_BufPutInt(b, dev->lastT);
	Rb_BufPutInt(b, dev->cut);
	RbKitPutPairs(b, dev->early, dev->nearly);
	RbHeapPut(b, &dev->pending);
    }
    return TCL_OK;
}

static int
UtilizationDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    UtilizationState *st = a->state;
    int64_t n = Rb_BufGetCount(b, 8 * 11), k;

    if (n > st->limit) {
	b->bad = 1;
	return TCL_OK;
    }
    for (k = 0; k < n && !b->bad; k++) {
	BusyDevice *dev = Rb_KeyTableFind(&st->devices, Rb_BufGetInt(b), 1);

	dev->busyNs = (uint64_t)Rb_BufGetInt(b);
	dev->curStart = Rb_BufGetInt(b);
	dev->curEnd = Rb_BufGetInt(b);
	dev->active = (int)Rb_BufGetInt(b);
	dev->seen = (int)Rb_BufGetInt(b);
	dev->firstT = Rb_BufGetInt(b);
	dev->lastT = Rb_BufGetInt(b);
	dev->cut = (int)Rb_BufGetInt(b);
	free(dev->early);
	dev->early = RbKitGetPairs(b, &dev->nearly);
	dev->earlyCap = dev->nearly;
	RbHeapGet(b, &dev->pending);
    }
    return TCL_OK;
}

/*
 * MergeDevice --
 *	Adds to dev (of the shards before) the busy periods of the same
 *	device in a later shard, o: o's early periods and open period
 *	join dev's pending intervals and are merged with dev's open period
 *	up to o's last enqueue time, as one pass would merge them; o's
 *	periods closed later are disjoint from all of dev's and only
 *	counted; o's pending intervals stay pending.
 * Results: TCL_OK, or TCL_ERROR (RUBICON MERGE MISMATCH) when dev has an
 *	interval reaching past o's early periods, or o's first I/O arrives
 *	before dev's last.
 */
static int
MergeDevice(Rb_Analyzer *a, BusyDevice *dev, const BusyDevice *o)
{
    UtilizationState *st = a->state;
    int64_t reach = dev->active ? dev->curEnd : INT64_MIN;
    uint64_t earlyNs = 0;
    size_t k;

    if (dev->seen && o->seen && o->firstT < dev->lastT) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: a shard's I/Os "
		"of a device arrive before the last of the shard before it "
		"(give the traces in time order)", a->cls->name);
	return TCL_ERROR;
    }
    for (k = 0; k < dev->pending.n; k++) {
	if (dev->pending.items[k].value > reach) {
	    reach = dev->pending.items[k].value;
	}
    }
    if (o->cut && o->seen && reach > o->firstT
	    && reach - o->firstT > st->boundary) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: an I/O busy "
		"across a shard boundary reaches more than -boundary %g s "
		"past the next shard's first I/O (raise -boundary)",
		a->cls->name, (double)st->boundary / RB_NS_PER_S);
	return TCL_ERROR;
    }
    for (k = 0; k < o->nearly; k++) {
	RbHeapPush(&dev->pending, o->early[2 * k], o->early[2 * k + 1]);
	earlyNs += (uint64_t)o->early[2 * k + 1] - (uint64_t)o->early[2 * k];
    }
    if (o->active) {
	RbHeapPush(&dev->pending, o->curStart, o->curEnd);
    }
    if (o->seen) {
	if (!dev->seen) {
	    dev->seen = 1;
	    dev->firstT = o->firstT;
	}
	dev->lastT = o->lastT;
	MergePending(dev, o->lastT, st->boundary);
    }
    dev->busyNs += o->busyNs - earlyNs;
    dev->cut |= o->cut;
    for (k = 0; k < o->pending.n; k++) {
	RbHeapPush(&dev->pending, o->pending.items[k].key,
		o->pending.items[k].value);
    }
    return TCL_OK;
}

/*
 * UtilizationMerge --
 *	merge hook: other's I/Os follow a's; each of its devices is merged
 *	into a's (MergeDevice), a new one added.
 * Results: TCL_OK, or TCL_ERROR past -limit devices (RUBICON LIMIT
 *	KEYS) or -boundary.
 */
static int
UtilizationMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    UtilizationState *st = a->state;
    const UtilizationState *ost = other->state;
    uint64_t i;

    for (i = 0; i < ost->devices.cap; i++) {
	BusyDevice *dev;

	if (!ost->devices.used[i]) {
	    continue;
	}
	dev = Rb_KeyTableFindLimited(&st->devices, ost->devices.keys[i],
		st->limit);
	if (dev == NULL) {
	    Rb_AnalyzerError(a, "RUBICON LIMIT KEYS", "%s: more than -limit "
		    "%" PRId64 " devices in the merged shards (raise -limit)",
		    a->cls->name, st->limit);
	    return TCL_ERROR;
	}
	if (MergeDevice(a, dev, Rb_KeyTableValue(&ost->devices, i))
		!= TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

/*
 * Mergeable in time order: a shard's busy periods within -boundary of
 * its first I/O are measured again with the open periods of the shards
 * before it (UtilizationMerge).
 */
const Rb_AnalyzerClass Rb_UtilizationAnalyzerClass = {
    .name = "UtilizationAnalyzer",
    .help = "device utilization from the union of busy (start to finish) "
	    "intervals",
    .stateSize = sizeof(UtilizationState),
    .options = utilizationOptions,
    .attrs = utilizationAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = UtilizationStart,
    .batch = UtilizationBatch,
    .end = UtilizationEnd,
    .freeState = UtilizationFree,
    .merge = UtilizationMerge,
    .serialize = UtilizationSerialize,
    .deserialize = UtilizationDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_TIME)
	    | RB_FIELD_BIT(RB_IO_START)
	    | RB_FIELD_BIT(RB_IO_FINISH),
};
