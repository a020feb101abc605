/*
 * hotRegionAnalyzer.c --
 *
 *	HotRegionAnalyzer: the K regions (fixed-size stretches of a device)
 *	with the most accesses.  Counts are held in a key table of at most
 *	-limit regions.  When a region not in the table arrives and the table
 *	is full, every count drops by one and the regions left at zero leave
 *	the table (the Misra-Gries summary), so no count is ever too high and
 *	each is too low by at most the number of such decrements, which is
 *	reported.  While the regions fit, the counts are exact.
 */

#include <stddef.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct RegionCounts {
    uint64_t accesses;		/* Accesses (less the decrements since it
				 * entered the table). */
    uint64_t bytes;		/* Bytes accessed since it entered. */
} RegionCounts;

typedef struct HotRegionState {
    Rb_BlockMap map;		/* -field, -offsetField; block is -region */
    int64_t top;		/* -top */
    int64_t limit;		/* -limit */
    Rb_KeyTable regions;	/* region key -> RegionCounts */
    uint64_t accesses;		/* All region accesses. */
    uint64_t decrements;	/* Most any count is below the truth. */
} HotRegionState;

static const Rb_Option hotRegionOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(HotRegionState, map.deviceField),
	"deviceNo", "field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(HotRegionState,
	map.offsetField), "devOffset", "field holding the offset in bytes"},
    {"-region", RB_OPT_INT, offsetof(HotRegionState, map.block), "1048576",
	"region size in bytes"},
    {"-top", RB_OPT_INT, offsetof(HotRegionState, top), "10",
	"number of regions listed"},
    {"-limit", RB_OPT_INT, offsetof(HotRegionState, limit), "1000000",
	"regions counted at once"},
    {NULL}
};

static const char *const hotRegionAttrs[] = {
    "HotRegions", "HotRegionFraction", "RegionAccesses", "HotRegionError",
    NULL
};

/*
 * HotRegionInit --
 *	Checks the options (the fields are checked at start).
 * Results: TCL_OK or TCL_ERROR with a message in interp.
 */
static int
HotRegionInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    HotRegionState *st = a->state;

    if (st->map.block <= 0) {
	return RbKitOptionError(a, interp,
		"-region must be a positive number of bytes");
    }
    if (st->top <= 0) {
	return RbKitOptionError(a, interp, "-top must be positive");
    }
    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    return TCL_OK;
}

/*
 * HotRegionStart --
 *	Checks the options, resolves the fields and forgets the counts of a
 *	previous run.
 */
static int
HotRegionStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    HotRegionState *st = a->state;

    if (HotRegionInit(a, NULL) != TCL_OK
	    || RbBlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->regions.valSize == 0) {
	Rb_KeyTableInit(&st->regions, sizeof(RegionCounts));
    }
    Rb_KeyTableClear(&st->regions);
    st->accesses = st->decrements = 0;
    return TCL_OK;
}

/*
 * Decrement --
 *	Lowers every count by amount and drops the regions left at zero or
 *	below.
 */
static void
Decrement(HotRegionState *st, uint64_t amount)
{
    Rb_KeyTable kept;
    uint64_t i;

    Rb_KeyTableInit(&kept, sizeof(RegionCounts));
    for (i = 0; i < st->regions.cap; i++) {
	const RegionCounts *c;
	RegionCounts *k;

	if (!st->regions.used[i]) {
	    continue;
	}
	c = Rb_KeyTableValue(&st->regions, i);
	if (c->accesses > amount) {
	    k = Rb_KeyTableFind(&kept, st->regions.keys[i], 1);
	    k->accesses = c->accesses - amount;
	    k->bytes = c->bytes;
	}
    }
    Rb_KeyTableFree(&st->regions);
    st->regions = kept;
    st->decrements += amount;
}

/*
 * CountAccess --
 *	Counts an access of bytes to the region of key.
 */
static void
CountAccess(HotRegionState *st, int64_t key, uint64_t bytes)
{
    RegionCounts *c = Rb_KeyTableFindLimited(&st->regions, key, st->limit);

    st->accesses++;
    if (c == NULL) {
	/* The new region's count of 1 drops to 0 with the others'. */
	Decrement(st, 1);
	return;
    }
    c->accesses++;
    c->bytes += bytes;
}

/*
 * HotRegionBatch --
 *	Counts one access in each region each selected I/O touches, with the
 *	bytes of the I/O that fall in it.  I/Os without a device, offset or
 *	size, or with a negative one, are skipped.
 */
static void
HotRegionBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    HotRegionState *st = a->state;
    const int64_t *offsets = b->col[st->map.offsetIndex];
    const int64_t *sizes = b->col[RB_IO_SIZE];
    uint64_t region = (uint64_t)st->map.block;
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t first, count, k;
	uint64_t from, last, regionStart;

	if (!RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	/* The I/O covers bytes from .. last (none when its size is 0);
	 * RbBlockRange checked that last fits. */
	from = (uint64_t)offsets[sel[j]];
	last = from + (uint64_t)sizes[sel[j]] - 1;
	regionStart = from / region * region;
	for (k = 0; k < count; k++, regionStart += region) {
	    uint64_t lo = from > regionStart ? from : regionStart;
	    uint64_t hi = regionStart + region - 1;

	    if (last < hi) {
		hi = last;
	    }
	    CountAccess(st, first + k, sizes[sel[j]] > 0 ? hi - lo + 1 : 0);
	}
    }
}

/* What CompareRegions needs: the table and the devices by dense id. */
typedef struct RegionOrder {
    const Rb_KeyTable *regions;
    const int64_t *devices;
} RegionOrder;

/*
 * CompareRegions --
 *	qsort_r order of slots: most accesses first, ties by device and then
 *	offset, so that the order is repeatable.
 */
static int
CompareRegions(const void *p, const void *q, void *order)
{
    const RegionOrder *o = order;
    uint64_t s1 = *(const uint64_t *)p, s2 = *(const uint64_t *)q;
    const RegionCounts *c1 = Rb_KeyTableValue(o->regions, s1);
    const RegionCounts *c2 = Rb_KeyTableValue(o->regions, s2);
    int64_t dev1, dev2, region1, region2;

    if (c1->accesses != c2->accesses) {
	return c1->accesses > c2->accesses ? -1 : 1;
    }
    RbBlockOfKey(o->devices, o->regions->keys[s1], &dev1, &region1);
    RbBlockOfKey(o->devices, o->regions->keys[s2], &dev2, &region2);
    if (dev1 != dev2) {
	return dev1 < dev2 ? -1 : 1;
    }
    return (region1 > region2) - (region1 < region2);
}

/*
 * TopSlots --
 *	The slots of the (at most) top regions first in CompareRegions
 *	order, sorted; *n is set to how many.  A heap of the top best so far,
 *	the worst of them at its root, keeps this O(regions log top) where
 *	sorting every region would cost O(regions log regions).
 * Results: a malloc'd array the caller frees.
 */
static uint64_t *
TopSlots(const HotRegionState *st, RegionOrder *order, uint64_t *n)
{
    uint64_t want = st->regions.count < (uint64_t)st->top
	    ? st->regions.count : (uint64_t)st->top;
    uint64_t *heap = Rb_AllocArray(want + 1, sizeof(uint64_t));
    uint64_t i, held = 0;

    for (i = 0; i < st->regions.cap; i++) {
	uint64_t at, child, slot = i;

	if (!st->regions.used[i]) {
	    continue;
	}
	if (held < want) {
	    /* Sift up: the worst (latest in order) rises to the root. */
	    for (at = held++; at > 0 && CompareRegions(&heap[(at - 1) / 2],
		    &slot, order) < 0; at = (at - 1) / 2) {
		heap[at] = heap[(at - 1) / 2];
	    }
	    heap[at] = slot;
	    continue;
	}
	if (want == 0 || CompareRegions(&slot, &heap[0], order) >= 0) {
	    continue;
	}
	/* Replaces the worst held: sift down from the root. */
	for (at = 0; (child = 2 * at + 1) < held; at = child) {
	    if (child + 1 < held
		    && CompareRegions(&heap[child + 1], &heap[child], order) > 0) {
		child++;
	    }
	    if (CompareRegions(&heap[child], &slot, order) <= 0) {
		break;
	    }
	    heap[at] = heap[child];
	}
	heap[at] = slot;
    }
    qsort_r(heap, held, sizeof(uint64_t), CompareRegions, order);
    *n = held;
    return heap;
}

/*
 * HotRegionEnd --
 *	Sets the table of the -top regions with the most accesses, the
 *	fraction of accesses in them, the total and the error bound.
 */
static int
HotRegionEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    HotRegionState *st = a->state;
    int64_t *devices = RbBlockMapDevices(&st->map);
    RegionOrder order = {&st->regions, devices};
    uint64_t nTop, *slots = TopSlots(st, &order, &nTop), i, inTop = 0;
    Rb_Attribute *table = Rb_AttrCreate("HotRegions", RB_ATTR_TABLE, "",
	    "regions with the most accesses");
    int devCol = Rb_AttrAddColumn(table, "device", "", 0);
    int offsetCol = Rb_AttrAddColumn(table, "offset", "bytes", 0);
    int accessCol = Rb_AttrAddColumn(table, "accesses", "", 0);
    int bytesCol = Rb_AttrAddColumn(table, "bytes", "bytes", 0);
    int fracCol = Rb_AttrAddColumn(table, "fraction", "", 0);

    for (i = 0; i < nTop; i++) {
	const RegionCounts *c = Rb_KeyTableValue(&st->regions, slots[i]);
	int row = Rb_AttrAddRow(table);
	int64_t dev, regionNo;

	RbBlockOfKey(devices, st->regions.keys[slots[i]], &dev, &regionNo);
	Rb_AttrSetNum(table, row, devCol, (double)dev);
	Rb_AttrSetNum(table, row, offsetCol,
		(double)regionNo * (double)st->map.block);
	Rb_AttrSetNum(table, row, accessCol, (double)c->accesses);
	Rb_AttrSetNum(table, row, bytesCol, (double)c->bytes);
	Rb_AttrSetNum(table, row, fracCol,
		(double)c->accesses / (double)st->accesses);
	inTop += c->accesses;
    }
    Rb_AnalyzerSet(a, table);
    Rb_AnalyzerSet(a, Rb_AttrScalar("HotRegionFraction", st->accesses
	    ? (double)inTop / (double)st->accesses : 0.0, "",
	    "fraction of region accesses in the listed regions"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("RegionAccesses", (double)st->accesses,
	    "", "region accesses (an I/O that spans regions counts in each)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("HotRegionError",
	    (double)st->decrements, "", "most any count is below the true "
	    "count; 0 when the counts are exact"));
    free(slots);
    free(devices);
    return TCL_OK;
}

/*
 * CompareCounts --
 *	qsort order of access counts: most first.
 */
static int
CompareCounts(const void *p, const void *q)
{
    uint64_t c1 = *(const uint64_t *)p, c2 = *(const uint64_t *)q;

    return (c1 < c2) - (c1 > c2);
}

/*
 * HotRegionMerge --
 *	Adds the counts of other (a shard's partial state) into a, its
 *	region keys renumbered to a's devices.  When the sum holds more than
 *	-limit regions, every count drops by the (limit+1)-th largest, which
 *	leaves at most -limit (the merge of Misra-Gries summaries); the
 *	error bounds of both and that amount add up.
 */
static int
HotRegionMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    HotRegionState *st = a->state;
    const HotRegionState *ost = other->state;
    int64_t *devices = RbBlockMapDevices(&ost->map);
    uint64_t i;

    for (i = 0; i < ost->regions.cap; i++) {
	const RegionCounts *oc;
	RegionCounts *c;
	int64_t dev, regionNo, key;

	if (!ost->regions.used[i]) {
	    continue;
	}
	oc = Rb_KeyTableValue(&ost->regions, i);
	RbBlockOfKey(devices, ost->regions.keys[i], &dev, &regionNo);
	if (!RbBlockKey(&st->map, dev, regionNo, &key)) {
	    free(devices);
	    Rb_AnalyzerError(a, "RUBICON LIMIT DEVICES",
		    "HotRegionAnalyzer: more than 32768 devices to merge");
	    return TCL_ERROR;
	}
	c = Rb_KeyTableFind(&st->regions, key, 1);
	c->accesses += oc->accesses;
	c->bytes += oc->bytes;
    }
    free(devices);
    st->accesses += ost->accesses;
    st->decrements += ost->decrements;
    st->map.skipped += ost->map.skipped;
    if (st->regions.count > (uint64_t)st->limit) {
	uint64_t *counts = Rb_AllocArray(st->regions.count,
		sizeof(uint64_t)), n = 0;

	for (i = 0; i < st->regions.cap; i++) {
	    if (st->regions.used[i]) {
		counts[n++] = ((RegionCounts *)Rb_KeyTableValue(&st->regions,
			i))->accesses;
	    }
	}
	qsort(counts, n, sizeof(uint64_t), CompareCounts);
	Decrement(st, counts[st->limit]);
	free(counts);
    }
    return TCL_OK;
}

/*
 * HotRegionFree --
 *	Frees the counts and the device map.
 */
static void
HotRegionFree(Rb_Analyzer *a)
{
    HotRegionState *st = a->state;

    Rb_KeyTableFree(&st->regions);
    RbBlockMapFree(&st->map);
}


/*
 * HotRegionSerialize, HotRegionDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
HotRegionSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    HotRegionState *st = a->state;

    RbBlockMapPut(b, &st->map);
    RbKitPutCounters(b, &st->accesses, 2);
    Rb_KeyTablePut(b, &st->regions, NULL);
    return TCL_OK;
}

static int
HotRegionDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    HotRegionState *st = a->state;

    RbBlockMapGet(b, &st->map);
    RbKitGetCounters(b, &st->accesses, 2);
    Rb_KeyTableGet(b, &st->regions, NULL);
    return TCL_OK;
}

/*
 * Mergeable: region counts add (renumbered to one device map), and two
 * summaries of at most -limit regions cut back to -limit keep a stated
 * error bound: the sum of both bounds and the count cut.
 */
const Rb_AnalyzerClass Rb_HotRegionAnalyzerClass = {
    .name = "HotRegionAnalyzer",
    .help = "top K regions of a device by accesses, in bounded memory",
    .stateSize = sizeof(HotRegionState),
    .options = hotRegionOptions,
    .attrs = hotRegionAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = HotRegionInit,
    .start = HotRegionStart,
    .batch = HotRegionBatch,
    .end = HotRegionEnd,
    .merge = HotRegionMerge,
    .serialize = HotRegionSerialize,
    .deserialize = HotRegionDeserialize,
    .freeState = HotRegionFree,
    /* And the -field and -offsetField it resolves at start. */
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
