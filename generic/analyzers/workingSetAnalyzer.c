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
#include "analyzers.h"

typedef struct WorkingSetState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    int64_t window;		/* -window, ns */
    int64_t limit;		/* -limit */
    Rb_DistinctSet current;	/* Blocks of the open window. */
    int64_t open;		/* Index of the open window. */
    int hasOpen;
    int exact;			/* Every closed window was exact. */
    Rb_TimeBins sizes;		/* Working set of each closed window. */
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

    if (st->window <= 0) {
	return Rb_KitOptionError(a, NULL, "-window must be a positive time");
    }
    if (Rb_BlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    Rb_DistinctReset(&st->current, st->limit);
    Rb_TimeBinsStart(&st->sizes, st->window, run);
    st->hasOpen = 0;
    st->exact = 1;
    return TCL_OK;
}

/*
 * CloseWindow --
 *	Records the open window's working set and empties the set.
 */
static void
CloseWindow(WorkingSetState *st)
{
    uint64_t *slot = Rb_TimeBinsSlot(&st->sizes, st->open);

    if (slot != NULL) {
	*slot = (uint64_t)llround(Rb_DistinctCount(&st->current));
    }
    st->exact &= Rb_DistinctIsExact(&st->current);
    Rb_DistinctReset(&st->current, st->limit);
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
		|| !Rb_BlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	if (st->hasOpen && window > st->open) {
	    CloseWindow(st);
	}
	if (!st->hasOpen) {
	    st->open = window;
	    st->hasOpen = 1;
	}
	for (k = first; k < first + count; k++) {
	    Rb_DistinctAdd(&st->current, k);
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
	CloseWindow(st);
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

    Rb_DistinctFree(&st->current);
    Rb_TimeBinsFree(&st->sizes);
    Rb_BlockMapFree(&st->map);
}

/*
 * Not mergeable: a window's blocks seen by two shards would need their
 * sets, not their counts, and block keys are numbered per shard.
 */
const Rb_AnalyzerClass Rb_WorkingSetAnalyzerClass = {
    .name = "WorkingSetAnalyzer",
    .help = "distinct blocks touched per window, as a series",
    .stateSize = sizeof(WorkingSetState),
    .options = workingSetOptions,
    .attrs = workingSetAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .start = WorkingSetStart,
    .batch = WorkingSetBatch,
    .end = WorkingSetEnd,
    .freeState = WorkingSetFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME) | RB_FIELD_BIT(RB_IO_SIZE),
};
