/*
 * workingSetAnalyzer.c --
 *
 *	WorkingSetAnalyzer: the working set, the number of distinct blocks
 *	touched, in each window of -window seconds, as a series; exact to
 *	-limit blocks per window, then a HyperLogLog estimate
 *	(distinctSet.c).
 */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

#define KEPT 8

typedef struct WorkingSetState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    int64_t window;		/* -window, ns */
    int64_t limit;		/* -limit */
    Rb_DistinctSet current;	/* Blocks of the open window. */
    int64_t open;		/* Index of the open window. */
    int hasOpen;
    int exact;			/* Every closed window was exact. */
    Rb_TimeBins sizes;		/* Working set of each closed window. */
    /* The first KEPT closed windows, kept for a split run: records
     * out of time order may put them in the open window of the shard
     * before. */
    int nkept;
    int64_t keptWindow[KEPT];	/* Index of each... */
    int64_t keptCloser[KEPT];	/* ... the window that closed it ... */
    Rb_DistinctSet kept[KEPT];	/* ... and its blocks. */
} WorkingSetState;

static const Rb_Option workingSetOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(WorkingSetState, map.deviceField),
	"deviceNo", "field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(WorkingSetState,
	map.offsetField), "devOffset", "field holding the offset in bytes"},
    {"-block", RB_OPT_INT, offsetof(WorkingSetState, map.block), "4096",
	"block size in bytes"},
    {"-window", RB_OPT_TIME, offsetof(WorkingSetState, window), "60",
	"length of one window"},
    {"-limit", RB_OPT_INT, offsetof(WorkingSetState, limit), "1000000",
	"blocks per window counted exactly before estimating"},
    {NULL}
};

static const char *const workingSetAttrs[] = {
    "WorkingSetSeries", "MeanWorkingSet", "MaxWorkingSet",
    "WorkingSetExact", NULL
};

/*
 * WorkingSetStart --
 *	Checks the options and empties the windows.
 */
static int
WorkingSetStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    WorkingSetState *st = a->state;
    int k;

    if (st->window <= 0) {
	return RbKitOptionError(a, NULL, "-window must be a positive time");
    }
    if (RbBlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    RbDistinctReset(&st->current, st->limit);
    RbDistinctOfBlocks(&st->current, &st->map);
    Rb_TimeBinsStart(&st->sizes, st->window, run);
    st->hasOpen = 0;
    st->exact = 1;
    for (k = 0; k < st->nkept; k++) {
	RbDistinctFree(&st->kept[k]);
    }
    st->nkept = 0;
    return TCL_OK;
}

/*
 * CloseWindow --
 *	Records the open window's working set, closed by a record of window
 *	closer, and empties the set (the sets of the first KEPT windows are
 *	kept instead).
 */
static void
CloseWindow(WorkingSetState *st, int64_t closer)
{
    uint64_t *slot = Rb_TimeBinsSlot(&st->sizes, st->open);

    if (slot != NULL) {
	*slot = (uint64_t)llround(RbDistinctCount(&st->current));
    }
    st->exact &= RbDistinctIsExact(&st->current);
    if (st->nkept < KEPT) {
	st->keptWindow[st->nkept] = st->open;
	st->keptCloser[st->nkept] = closer;
	st->kept[st->nkept++] = st->current;
	memset(&st->current, 0, sizeof(st->current));
    }
    RbDistinctReset(&st->current, st->limit);
    RbDistinctOfBlocks(&st->current, &st->map);
    st->hasOpen = 0;
}

/*
 * WorkingSetBatch --
 *	Adds the blocks of each selected I/O with a time to its window's
 *	set, closing the open window when a later one begins.  An I/O of an
 *	earlier window (out of order) counts in the open one.
 */
static void
WorkingSetBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    WorkingSetState *st = a->state;
    const int64_t *times = b->col[RB_IO_TIME];
    int j;

    for (j = 0; j < nsel; j++) {
	int64_t first, count, k, window, t = times[sel[j]];

	if (t == RB_ABSENT) {
	    continue;
	}
	if (!st->sizes.hasOrigin) {
	    Rb_TimeBinsSetOrigin(&st->sizes, t);
	}
	if (!Rb_TimeBinOf(&st->sizes, t, &window)
		|| !RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	if (st->hasOpen && window > st->open) {
	    CloseWindow(st, window);
	}
	if (!st->hasOpen) {
	    st->open = window;
	    st->hasOpen = 1;
	}
	for (k = first; k < first + count; k++) {
	    RbDistinctAdd(&st->current, k);
	}
    }
}

/*
 * WorkingSetEnd --
 *	Closes the last window and sets the series (one row per window from
 *	the run's first record to its last, empty ones 0), its mean and
 *	maximum, and whether every window was counted exactly.
 */
static int
WorkingSetEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    WorkingSetState *st = a->state;
    Rb_Attribute *series = Rb_AttrCreate("WorkingSetSeries", RB_ATTR_SERIES,
	    "blocks", "distinct blocks touched in each window");
    double seconds = (double)st->window / RB_NS_PER_S, start = 0;
    double *sizes;
    int64_t n, k;
    int timeCol, valueCol;
    Rb_Moments m;

    if (st->hasOpen) {
	CloseWindow(st, INT64_MAX);
    }
    sizes = Rb_TimeBinsValues(&st->sizes, run, &n, &start);
    timeCol = Rb_AttrAddColumn(series, "time", "s", 0);
    valueCol = Rb_AttrAddColumn(series, "value", "blocks", 0);
    Rb_MomentsReset(&m);
    for (k = 0; k < n; k++) {
	int row = Rb_AttrAddRow(series);

	Rb_AttrSetNum(series, row, timeCol, start + (double)k * seconds);
	Rb_AttrSetNum(series, row, valueCol, sizes[k]);
	Rb_MomentsAdd(&m, sizes[k]);
    }
    free(sizes);
    Rb_AnalyzerSet(a, series);
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanWorkingSet", m.n ? m.mean : 0.0,
	    "blocks", "mean working set over the windows"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("MaxWorkingSet", m.n ? m.max : 0.0,
	    "blocks", "largest working set of a window"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("WorkingSetExact", st->exact, "",
	    "1 if every window is exact, 0 if some are HyperLogLog "
	    "estimates"));
    return TCL_OK;
}

/*
 * WorkingSetFree --
 *	Frees the set, the series and the device map.
 */
static void
WorkingSetFree(Rb_Analyzer *a)
{
    WorkingSetState *st = a->state;

    int k;

    RbDistinctFree(&st->current);
    for (k = 0; k < st->nkept; k++) {
	RbDistinctFree(&st->kept[k]);
    }
    st->nkept = 0;
    Rb_TimeBinsFree(&st->sizes);
    RbBlockMapFree(&st->map);
}

/*
 * WorkingSetSerialize, WorkingSetDeserialize --
 *	serialize and deserialize hooks: the devices, the open window and
 *	the first one with their blocks, and the closed windows' sizes.
 */
static int
WorkingSetSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    WorkingSetState *st = a->state;
    int k;

    RbBlockMapPut(b, &st->map);
    RbDistinctPut(b, &st->current, NULL);
    Rb_BufPutInt(b, st->open);
    Rb_BufPutInt(b, st->hasOpen);
    Rb_BufPutInt(b, st->exact);
    Rb_BufPutInt(b, st->nkept);
    for (k = 0; k < st->nkept; k++) {
	Rb_BufPutInt(b, st->keptWindow[k]);
	Rb_BufPutInt(b, st->keptCloser[k]);
	RbDistinctPut(b, &st->kept[k], NULL);
    }
    Rb_TimeBinsPut(b, &st->sizes);
    return TCL_OK;
}

static int
WorkingSetDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    WorkingSetState *st = a->state;
    int64_t n;
    int k;

    RbBlockMapGet(b, &st->map);
    RbDistinctGet(b, &st->current, NULL);
    st->open = Rb_BufGetInt(b);
    st->hasOpen = (int)Rb_BufGetInt(b);
    st->exact = (int)Rb_BufGetInt(b);
    n = Rb_BufGetInt(b);
    if (n < 0 || n > KEPT) {
	b->bad = 1;
	return TCL_OK;
    }
    for (k = 0; k < (int)n && !b->bad; k++) {
	st->keptWindow[k] = Rb_BufGetInt(b);
	st->keptCloser[k] = Rb_BufGetInt(b);
	RbDistinctReset(&st->kept[k], st->limit);
	RbDistinctOfBlocks(&st->kept[k], &st->map);
	st->nkept = k + 1;
	RbDistinctGet(b, &st->kept[k], NULL);
    }
    Rb_TimeBinsGet(b, &st->sizes);
    return TCL_OK;
}

/*
 * WorkingSetMerge --
 *	merge hook: other's records follow a's.  One pass puts each record
 *	in the latest window seen so far, so other's windows up to a's open
 *	one are part of it (they exist when other's first records are out of
 *	time order, or share that window): their blocks join a's open
 *	window, and other's counts of them are taken back.  Other's later
 *	windows are its own; its first KEPT sets extend a's kept ones.
 *	Other's windows are numbered from its origin, on the same grid, and
 *	its devices as one pass numbers them.
 * Results: TCL_OK, or TCL_ERROR with RUBICON MERGE MISMATCH when a
 *	window of other up to a's open one was not kept (more than KEPT
 *	windows out of time order across the boundary) or sketches were
 *	numbered otherwise, RUBICON LIMIT DEVICES past 2^15 devices.
 */
static int
WorkingSetMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    WorkingSetState *st = a->state;
    const WorkingSetState *ost = other->state;
    int64_t *devices, shift = 0, next, j;
    int sameIds, ok = 1, m = 0, k, aEmpty = !st->hasOpen && st->nkept == 0;
    uint64_t *slot;

    if (!ost->hasOpen && ost->nkept == 0) {
	return TCL_OK;
    }
    if (!aEmpty && !Rb_TimeBinOf(&st->sizes, ost->sizes.origin, &shift)) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: windows of two "
		"shards do not line up", a->cls->name);
	return TCL_ERROR;
    }
    /* Other's windows up to a's open one: the first m kept, then next. */
    while (!aEmpty && m < ost->nkept
	    && ost->keptWindow[m] + shift <= st->open) {
	m++;
    }
    next = m < ost->nkept ? ost->keptWindow[m] + shift
	    : ost->nkept == KEPT ? ost->keptCloser[KEPT - 1] + shift
	    : ost->open + shift;
    if (!aEmpty && next <= st->open && (m < ost->nkept
	    || ost->nkept == KEPT)) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: more than %d "
		"windows out of time order across a shard boundary",
		a->cls->name, KEPT);
	return TCL_ERROR;
    }
    if ((devices = RbBlockMapAdopt(&st->map, &ost->map, &sameIds))
	    == NULL) {
	Rb_AnalyzerError(a, "RUBICON LIMIT DEVICES",
		"%s: more than 32768 devices to merge", a->cls->name);
	return TCL_ERROR;
    }
    for (k = 0; k < m && ok; k++) {
	ok = RbDistinctAddRekeyed(&st->current, &ost->kept[k], &st->map,
		devices, sameIds);
    }
    if (ok && !aEmpty && next <= st->open) {
	/* Every record of other falls in a's open window. */
	ok = RbDistinctAddRekeyed(&st->current, &ost->current, &st->map,
		devices, sameIds);
	st->exact &= ost->exact;
	goto done;
    }
    if (ok && !aEmpty) {
	CloseWindow(st, next);
    }
    if (ok && Rb_TimeBinsMerge(a, &st->sizes, &ost->sizes) != TCL_OK) {
	free(devices);
	return TCL_ERROR;
    }
    for (k = 0; k < m; k++) {
	j = ost->keptWindow[k] - ost->sizes.lo;
	if (j >= 0 && j < ost->sizes.n && (slot = Rb_TimeBinsSlot(&st->sizes,
		ost->keptWindow[k] + shift)) != NULL) {
	    *slot -= ost->sizes.sums[j];	/* counted in a's window */
	}
    }
    for (k = m; k < ost->nkept && st->nkept < KEPT && ok; k++) {
	st->keptWindow[st->nkept] = ost->keptWindow[k] + shift;
	st->keptCloser[st->nkept] = ost->keptCloser[k] + shift;
	RbDistinctReset(&st->kept[st->nkept], st->limit);
	RbDistinctOfBlocks(&st->kept[st->nkept], &st->map);
	ok = RbDistinctAddRekeyed(&st->kept[st->nkept++], &ost->kept[k],
		&st->map, devices, sameIds);
    }
    if (ok) {
	RbDistinctReset(&st->current, st->limit);
	RbDistinctOfBlocks(&st->current, &st->map);
	ok = RbDistinctAddRekeyed(&st->current, &ost->current, &st->map,
		devices, sameIds);
	st->open = ost->open + shift;
	st->hasOpen = ost->hasOpen;
	st->exact &= ost->exact;
    }
  done:
    free(devices);
    if (!ok) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: shards that "
		"first saw their devices in different orders hold estimates "
		"beyond -limit that cannot be merged (raise -limit)",
		a->cls->name);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * Mergeable in time order: the window that spans a shard boundary
 * unites its blocks from both shards (WorkingSetMerge).
 */
const Rb_AnalyzerClass Rb_WorkingSetAnalyzerClass = {
    .name = "WorkingSetAnalyzer",
    .help = "distinct blocks touched per window, as a series",
    .stateSize = sizeof(WorkingSetState),
    .options = workingSetOptions,
    .attrs = workingSetAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = WorkingSetStart,
    .batch = WorkingSetBatch,
    .end = WorkingSetEnd,
    .freeState = WorkingSetFree,
    .merge = WorkingSetMerge,
    .serialize = WorkingSetSerialize,
    .deserialize = WorkingSetDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_SIZE),
};
