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
} BusyDevice;

typedef struct UtilizationState {
    char *field;		/* -field */
    int64_t limit;		/* -limit: most devices held */
    int failed;			/* -limit was reached: ignore the rest. */
    int index;
    Rb_KeyTable devices;	/* device -> BusyDevice */
} UtilizationState;

static const Rb_Option utilizationOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(UtilizationState, field), "deviceNo",
	"field naming the device whose busy time is measured"},
    {"-limit", RB_OPT_INT, offsetof(UtilizationState, limit), "1000000",
	"most distinct devices held (the run stops beyond)"},
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
	    RbHeapFree(&((BusyDevice *)Rb_KeyTableValue(&st->devices,
		    i))->pending);
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
 * MergePending --
 *	Merges into the device's busy periods, in start order, its pending
 *	intervals starting at or before upTo.
 */
static void
MergePending(BusyDevice *dev, int64_t upTo)
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
	    dev->busyNs += (uint64_t)dev->curEnd - (uint64_t)dev->curStart;
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
	    MergePending(dev, t);
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

	MergePending(dev, INT64_MAX);
	if (dev->active) {
	    dev->busyNs += (uint64_t)dev->curEnd - (uint64_t)dev->curStart;
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
 * Not mergeable: a busy period spanning two shards would be counted in
 * both where their intervals overlap.
 */
const Rb_AnalyzerClass Rb_UtilizationAnalyzerClass = {
    .name = "UtilizationAnalyzer",
    .help = "device utilization from the union of busy (start to finish) "
	    "intervals",
    .stateSize = sizeof(UtilizationState),
    .options = utilizationOptions,
    .attrs = utilizationAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .start = UtilizationStart,
    .batch = UtilizationBatch,
    .end = UtilizationEnd,
    .freeState = UtilizationFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME)
	    | RB_FIELD_BIT(RB_IO_START)
	    | RB_FIELD_BIT(RB_IO_FINISH),
};
