/*
 * heatmapAnalyzer.c --
 *
 *	HeatmapAnalyzer: the two-dimensional distribution of I/Os over two
 *	fields (time and offset, size and response time, ...): counts and
 *	bytes per cell of a grid whose bins are linear (a width) or log2 on
 *	each axis.  Only the cells that hold an I/O are kept, in a key table
 *	of at most -limit cells, so memory follows what the trace touches,
 *	not the extent of the grid.  With -key field, one such grid per
 *	value of the field (a device's offsets by time, per device), the
 *	-limit shared by all of them.
 */

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

/* The bin of the value 0 on a log2 axis (renumbered at end to sit just
 * below the smallest positive bin). */
#define ZERO_BIN INT32_MIN

typedef struct Axis {
    char *field;		/* -x, -y */
    char *bins;			/* -xbins, -ybins: linear or log2 */
    double width;		/* -xwidth, -ywidth, in reported units */
    double base;		/* -xbase, -ybase: log2 bin 0's start */
    int log2;
    int index;			/* The field, or -1 for a duration: */
    int from, to;		/* its two time fields. */
    int isDouble;
    int isTime;			/* An absolute time: counted from the
				 * run's first record time. */
    double scale;		/* Column value to reported unit. */
    const char *unit;
    int shift;			/* A bin is the raw value >> shift (an
				 * integer field in its own unit, linear
				 * bins of 2^shift), or -1. */
    int known;			/* A time axis: raw times in [knownLo,
				 * knownHi) are in bin knownK. */
    int64_t knownLo, knownHi;
    int32_t knownK;
} Axis;

typedef struct Cell {
    uint64_t count, bytes;
} Cell;

/*
 * The column of a grid being filled: most records of a trace in time
 * order fall in the current x bin, and are counted in a dense run of its
 * y bins, [lo, lo + n), without a look-up, moved to the grid's table when
 * the column ends (FlushColumn).  A column is begun only for an x bin
 * past every bin of the grid's table (hiKx), so that none of its cells
 * is in the table: each cell that a record makes is a new cell there as
 * well, counted as one (pending) against -limit and -maxcells when it
 * is made, as a look-up would count it.  A record of another x bin, or
 * of a y bin that would make the run longer than HM_COLUMN_MAX, is
 * counted in the table; the column of an x bin whose record went to the
 * table is not begun again.
 */
#define HM_COLUMN_MAX 1024

typedef struct Column {
    int active;
    int32_t kx;			/* The column's x bin, */
    int64_t lo;			/* the y bin of cells[0], */
    int64_t n, cap;		/* bins in use, allocated. */
    Cell *cells;
    int64_t hiKx;		/* No cell of the grid's table has an x bin
				 * above this (INT64_MIN: none). */
} Column;

typedef struct HeatmapState {
    Axis axis[2];
    char *key;			/* -key: field whose values get a grid
				 * each, or "" */
    int keyIndex;		/* -1 without -key */
    Rb_KeyTable keyIds;		/* -key value -> int64 grid number + 1 */
    Rb_RecentKeys *recent;	/* -key: the grids found last (number
				 * + 1), made at start. */
    int64_t *keyVals;		/* Per grid: its -key value */
    Rb_KeyTable *grids;		/* Per grid: (xbin << 32 | ybin) -> Cell */
    Column *columns;		/* Per grid: its column being filled */
    Column column;		/* That of st->cells */
    uint64_t pending;		/* Cells in columns, not in the tables */
    int64_t ngrids, gridCap;
    uint64_t ncells;		/* Cells of every grid. */
    int64_t limit;		/* -limit: most cells held */
    int64_t maxCells;		/* -maxcells: past it x bins widen; 0: no */
    double xwidth0;		/* -xwidth as given (x bins widen from it) */
    int widenings;		/* x width is xwidth0 * 2^widenings */
    int64_t minKx, maxKx;	/* x bins held (minKx > maxKx: none) */
    double ywidth0;		/* -ywidth as given */
    int ywidenings;		/* y width is ywidth0 * 2^ywidenings */
    int64_t minKy, maxKy;	/* y bins held */
    int sizeIndex;		/* -1 when the schema has no size */
    int failed;
    int hasOrigin;
    int64_t origin;		/* Time 0 of a time axis, ns. */
    uint64_t counted, skipped;
    const Rb_RunInfo *run;	/* Of the current run. */
    Rb_KeyTable cells;		/* (xbin << 32 | ybin) -> Cell */
    struct CellHint *hints;	/* HM_HINTS, made by the first batch */
    uint64_t hintGen;		/* The hints' generation (from 1). */
} HeatmapState;

/*
 * The table cells counted in last, by a hash of their key and grid, in a
 * table of HM_HINTS (4096) hints, 128 KiB an analyzer: the records not
 * counted in a column (see Column: those of axes not in time order, late
 * ones, a column too wide) fall mostly in cells counted in recently, and
 * a hit here costs no table look-up.  A Cell stays where it is until its
 * table grows or is made anew (widening, a new run, a merge), so the
 * hints are kept from batch to batch and forgotten at once by a new
 * generation (ForgetHints) when a table grows (in HeatmapBatch or as a
 * column moves to it) and whenever any other hook runs.
 */
#define HM_HINT_BITS 12
#define HM_HINTS (1 << HM_HINT_BITS)

typedef struct CellHint {
    int64_t key;		/* The cell's key, */
    int64_t grid;		/* its grid (-1: st->cells), */
    Cell *cell;			/* and the cell, */
    uint64_t gen;		/* while st->hintGen is this. */
} CellHint;

/*
 * HintOf --
 *	The hint slot of cell key in grid.
 */
static inline unsigned
HintOf(int64_t key, int64_t grid)
{
    return (unsigned)((((uint64_t)key ^ ((uint64_t)grid << 20))
	    * 0x9E3779B97F4A7C15ULL) >> (64 - HM_HINT_BITS));
}

/*
 * ForgetHints --
 *	Makes every hint stale: cells may have moved.
 */
static void
ForgetHints(HeatmapState *st)
{
    st->hintGen++;
}

static const Rb_Option heatmapOptions[] = {
    {"-x", RB_OPT_FIELD, offsetof(HeatmapState, axis[0].field), "time",
	"field on the x axis (also responseTime, serviceTime, queueTime)"},
    {"-y", RB_OPT_FIELD, offsetof(HeatmapState, axis[1].field), "devOffset",
	"field on the y axis (also responseTime, serviceTime, queueTime)"},
    {"-xbins", RB_OPT_STRING, offsetof(HeatmapState, axis[0].bins),
	"linear", "linear (bins of -xwidth) or log2 (bin k holds "
	"[2^k, 2^(k+1)))"},
    {"-ybins", RB_OPT_STRING, offsetof(HeatmapState, axis[1].bins),
	"linear", "linear (bins of -ywidth) or log2"},
    {"-xwidth", RB_OPT_DOUBLE, offsetof(HeatmapState, axis[0].width), "60",
	"x bin width with -xbins linear (seconds for times, bytes for "
	"sizes and offsets)"},
    {"-ywidth", RB_OPT_DOUBLE, offsetof(HeatmapState, axis[1].width),
	"1073741824", "y bin width with -ybins linear"},
    {"-xbase", RB_OPT_DOUBLE, offsetof(HeatmapState, axis[0].base), "1",
	"with -xbins log2: bin k holds [base 2^k, base 2^(k+1)) (1e-6: "
	"power-of-two microseconds for times)"},
    {"-ybase", RB_OPT_DOUBLE, offsetof(HeatmapState, axis[1].base), "1",
	"with -ybins log2: as -xbase"},
    {"-key", RB_OPT_FIELD, offsetof(HeatmapState, key), "",
	"integer field whose values get a heat map each (deviceNo: one "
	"per device); empty: one for all records"},
    {"-maxcells", RB_OPT_INT, offsetof(HeatmapState, maxCells), "0",
	"with linear x bins: when more cells than this are held, double "
	"the x bin width, merging columns (0: never)"},
    {"-limit", RB_OPT_INT, offsetof(HeatmapState, limit), "1000000",
	"most non-empty cells held (the run stops beyond)"},
    {NULL}
};

static const char *const heatmapAttrs[] = {
    "Heatmap", "HeatmapCount", "HeatmapSkipped", NULL
};

/*
 * HeatmapInit --
 *	Checks -xbins, -ybins, the widths and -limit.
 * Results: TCL_OK or TCL_ERROR with the error set (in interp, or as an
 *	analyzer error from start).
 */
static int
HeatmapInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    HeatmapState *st = a->state;
    int i;

    for (i = 0; i < 2; i++) {
	Axis *ax = &st->axis[i];
	const char *bins = ax->bins ? ax->bins : "linear";
	char c = "xy"[i];

	if (strcmp(bins, "log2") == 0) {
	    ax->log2 = 1;
	    if (!(ax->base > 0) || !isfinite(ax->base)) {
		return RbKitOptionError(a, interp,
			"-%cbase must be a positive number", c);
	    }
	} else if (strcmp(bins, "linear") == 0) {
	    ax->log2 = 0;
	    if (!(ax->width > 0) || !isfinite(ax->width)) {
		return RbKitOptionError(a, interp,
			"-%cwidth must be a positive number", c);
	    }
	} else {
	    return RbKitOptionError(a, interp,
		    "bad -%cbins \"%s\": must be linear or log2", c, bins);
	}
    }
    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    if (st->maxCells < 0) {
	return RbKitOptionError(a, interp,
		"-maxcells must be 0 (never) or positive");
    }
    return TCL_OK;
}

/*
 * ResolveAxis --
 *	Resolves an axis's field: a numeric field of the schema, or one of
 *	the durations between two time fields.
 * Results: TCL_OK, or TCL_ERROR with an analyzer error.
 */
static int
ResolveAxis(Rb_Analyzer *a, const Rb_RunInfo *run, Axis *ax)
{
    const Rb_Field *f;
    int d = RbKitDurationField(a, run, ax->field, &ax->from, &ax->to);

    ax->index = -1;
    ax->isTime = ax->isDouble = 0;
    if (d != 0) {
	ax->scale = 1.0 / RB_NS_PER_S;
	ax->unit = "s";
	return d < 0 ? TCL_ERROR : TCL_OK;
    }
    if (RbKitNumericField(a, run, ax->field, &ax->index) != TCL_OK) {
	return TCL_ERROR;
    }
    f = &run->schema->fields[ax->index];
    ax->isDouble = f->type == RB_FT_DOUBLE;
    ax->scale = RbKitFieldScale(run, ax->index, &ax->unit);
    /* The record time and the I/O schema's start and finish times are
     * instants; other ns fields are durations. */
    ax->isTime = f->type == RB_FT_INT && f->unit == RB_UNIT_NS
	    && (ax->index == RB_IO_TIME || (run->schema == Rb_IoSchema()
	    && (ax->index == RB_IO_START || ax->index == RB_IO_FINISH)));
    return TCL_OK;
}

/*
 * FreeGrids --
 *	Frees the grids of -key (none left).
 */
static void
FreeGrids(HeatmapState *st)
{
    int64_t g;

    ForgetHints(st);
    for (g = 0; g < st->ngrids; g++) {
	Rb_KeyTableFree(&st->grids[g]);
	free(st->columns[g].cells);
    }
    free(st->grids);
    free(st->keyVals);
    free(st->columns);
    st->grids = NULL;
    st->keyVals = NULL;
    st->columns = NULL;
    st->ngrids = st->gridCap = 0;
    st->ncells = 0;
    RbRecentClear(st->recent);
    if (st->keyIds.valSize != 0) {
	Rb_KeyTableClear(&st->keyIds);
    }
}

/*
 * GridOf --
 *	The grid of -key value v, made when new.
 */
static Rb_KeyTable *
GridOf(HeatmapState *st, int64_t v)
{
    int64_t *id, known = RbRecentGet(st->recent, v);

    if (known != 0) {
	return &st->grids[known - 1];
    }
    id = Rb_KeyTableFind(&st->keyIds, v, 1);

    if (*id == 0) {
	if (st->ngrids == st->gridCap) {
	    st->gridCap = st->gridCap ? 2 * st->gridCap : 8;
	    st->grids = Rb_Realloc(st->grids,
		    (size_t)st->gridCap * sizeof(Rb_KeyTable));
	    st->keyVals = Rb_Realloc(st->keyVals,
		    (size_t)st->gridCap * sizeof(int64_t));
	    st->columns = Rb_Realloc(st->columns,
		    (size_t)st->gridCap * sizeof(Column));
	}
	Rb_KeyTableInit(&st->grids[st->ngrids], sizeof(Cell));
	memset(&st->columns[st->ngrids], 0, sizeof(Column));
	st->columns[st->ngrids].hiKx = INT64_MIN;
	st->keyVals[st->ngrids] = v;
	*id = ++st->ngrids;
    }
    RbRecentPut(st->recent, v, *id);
    return &st->grids[*id - 1];
}

/*
 * HoldBins --
 *	Widens the held range of bins to include cell (kx, ky).
 */
static inline void
HoldBins(HeatmapState *st, int64_t kx, int64_t ky)
{
    if (kx < st->minKx) {
	st->minKx = kx;
    }
    if (kx > st->maxKx) {
	st->maxKx = kx;
    }
    if (ky < st->minKy) {
	st->minKy = ky;
    }
    if (ky > st->maxKy) {
	st->maxKy = ky;
    }
}

/*
 * FindCell --
 *	Cell key of grid t, made when new unless -limit cells are held.
 * Results: the cell, or NULL at the limit.
 */
static Cell *
FindCell(HeatmapState *st, Rb_KeyTable *t, int64_t key)
{
    Cell *c;

    if (t == &st->cells) {
	return Rb_KeyTableFindLimited(t, key, st->limit);
    }
    if ((c = Rb_KeyTableFind(t, key, 0)) != NULL) {
	return c;
    }
    if (st->ncells >= (uint64_t)st->limit) {
	return NULL;
    }
    st->ncells++;
    return Rb_KeyTableFind(t, key, 1);
}

static int64_t	CellKey(int32_t kx, int32_t ky);
static void	CellOfKey(int64_t key, int32_t *kx, int32_t *ky);

/*
 * TableOf, ColumnOf --
 *	The table and the column of grid g (-1: st->cells).
 */
static inline Rb_KeyTable *
TableOf(HeatmapState *st, int64_t g)
{
    return g < 0 ? &st->cells : &st->grids[g];
}

static inline Column *
ColumnOf(HeatmapState *st, int64_t g)
{
    return g < 0 ? &st->column : &st->columns[g];
}

/*
 * FlushColumn --
 *	Moves the cells of grid g's column to its table and ends the column.
 */
static void
FlushColumn(HeatmapState *st, int64_t g)
{
    Column *col = ColumnOf(st, g);
    Rb_KeyTable *t = TableOf(st, g);
    uint64_t cap = t->cap;
    int64_t i;

    if (!col->active) {
	return;
    }
    col->active = 0;
    for (i = 0; i < col->n; i++) {
	const Cell *d = &col->cells[i];
	Cell *c;

	if (d->count == 0) {
	    continue;
	}
	c = Rb_KeyTableFind(t, CellKey(col->kx, (int32_t)(col->lo + i)), 1);
	if (c->count == 0 && g >= 0) {
	    st->ncells++;
	}
	st->pending--;
	c->count += d->count;
	c->bytes += d->bytes;
    }
    if (t->cap != cap) {
	ForgetHints(st);
    }
}

/*
 * FlushColumns --
 *	Moves every column's cells to the tables; with known, the tables'
 *	x bins are at most st->maxKx, and none is in a column now.
 */
static void
FlushColumns(HeatmapState *st, int known)
{
    int64_t g;

    for (g = -1; g < st->ngrids; g++) {
	Column *col = ColumnOf(st, g);

	FlushColumn(st, g);
	if (known && col->hiKx < st->maxKx) {
	    col->hiKx = st->maxKx;
	}
    }
}

/*
 * BeginColumn --
 *	Begins grid g's column at x bin kx, over the y bins of its last.
 */
static void
BeginColumn(HeatmapState *st, int64_t g, int32_t kx)
{
    Column *col = ColumnOf(st, g);

    FlushColumn(st, g);
    col->active = 1;
    col->kx = kx;
    col->hiKx = kx;
    if (col->n > 0) {
	memset(col->cells, 0, (size_t)col->n * sizeof(Cell));
    }
}

/*
 * ColumnCell --
 *	The cell of y bin ky in an active column, the column's run of bins
 *	laid out again to hold it and the bins in use (with room to grow
 *	again, a quarter and 8 bins, to at most HM_COLUMN_MAX bins).
 * Results: the cell, or NULL when the bins in use and ky span more.
 */
static Cell *
ColumnCell(Column *col, int32_t ky)
{
    int64_t lo, hi, room, olo, ohi, i, z;
    int used;

    if ((uint64_t)((int64_t)ky - col->lo) < (uint64_t)col->n) {
	return &col->cells[(int64_t)ky - col->lo];
    }
    /* The bins in use, [olo, ohi), if any (ky is not among them). */
    for (i = 0; i < col->n && col->cells[i].count == 0; i++) {
    }
    used = i < col->n;
    olo = ohi = ky;
    if (used) {
	for (z = col->n; col->cells[z - 1].count == 0; z--) {
	}
	olo = col->lo + i;
	ohi = col->lo + z;
    }
    lo = used && olo < ky ? olo : ky;
    hi = used && ohi > (int64_t)ky + 1 ? ohi : (int64_t)ky + 1;
    if (hi - lo > HM_COLUMN_MAX) {
	return NULL;
    }
    room = (hi - lo) / 4 + 8;
    if (hi - lo + room > HM_COLUMN_MAX) {
	room = HM_COLUMN_MAX - (hi - lo);
    }
    if (used && ky < olo) {
	lo = lo - room < (int64_t)INT32_MIN ? INT32_MIN : lo - room;
    } else {
	hi = hi + room > (int64_t)INT32_MAX + 1 ? (int64_t)INT32_MAX + 1
		: hi + room;
    }
    if (hi - lo > col->cap) {
	col->cap = hi - lo;
	col->cells = Rb_Realloc(col->cells, (size_t)col->cap * sizeof(Cell));
    }
    /* The bins in use move to their place in [lo, hi); the others are
     * 0. */
    if (used) {
	memmove(col->cells + (olo - lo), col->cells + (olo - col->lo),
		(size_t)(ohi - olo) * sizeof(Cell));
    } else {
	olo = ohi = lo;
    }
    memset(col->cells, 0, (size_t)(olo - lo) * sizeof(Cell));
    memset(col->cells + (ohi - lo), 0, (size_t)(hi - ohi) * sizeof(Cell));
    col->lo = lo;
    col->n = hi - lo;
    return &col->cells[(int64_t)ky - lo];
}

/*
 * SetShift --
 *	An axis's bin by a shift: the raw value >> shift, where the axis is
 *	an integer field in its reported unit (scale 1, not a time) with
 *	linear bins of 2^shift (the offsets' 1 GiB), so that floor(v /
 *	width) is exactly the shift for |v| < 2^53.  Otherwise -1.
 */
static void
SetShift(Axis *ax)
{
    int e;

    ax->shift = -1;
    ax->known = 0;
    if (ax->log2 || ax->index < 0 || ax->isDouble || ax->isTime
	    || ax->scale != 1.0 || frexp(ax->width, &e) != 0.5
	    || e < 1 || e > 63) {
	return;
    }
    ax->shift = e - 1;
}

/*
 * PullColumn --
 *	Begins grid g's column at x bin kx again with the cells its table
 *	holds of that bin, taken out of the table (as pending cells), when
 *	their y bins fit in a column: after a widening re-binned the column
 *	being filled with the table, the records after it are counted in
 *	the column still.
 */
static void
PullColumn(HeatmapState *st, int64_t g, int32_t kx)
{
    Column *col = ColumnOf(st, g);
    Rb_KeyTable *t = TableOf(st, g);
    int64_t lo = INT64_MAX, hi = INT64_MIN, n = 0, k;
    int64_t keys[HM_COLUMN_MAX];
    uint64_t slot;

    for (slot = 0; slot < t->cap; slot++) {
	int32_t cx, cy;

	if (!t->used[slot]) {
	    continue;
	}
	CellOfKey(t->keys[slot], &cx, &cy);
	if (cx != kx) {
	    continue;
	}
	if (cy < lo) {
	    lo = cy;
	}
	if (cy > hi) {
	    hi = cy;
	}
	if (hi - lo >= HM_COLUMN_MAX) {
	    /* Too wide: the rest of the bin goes to the table. */
	    return;
	}
	keys[n++] = t->keys[slot];
    }
    col->active = 1;
    col->kx = kx;
    col->hiKx = kx;
    /* A run of the pulled cells' bins alone (within HM_COLUMN_MAX). */
    col->n = 0;
    for (k = 0; k < n; k++) {
	int32_t cx, cy;
	Cell *c = Rb_KeyTableFind(t, keys[k], 0), *d;

	CellOfKey(keys[k], &cx, &cy);
	d = ColumnCell(col, cy);
	*d = *c;
	Rb_KeyTableRemove(t, keys[k]);
	if (g >= 0) {
	    st->ncells--;
	}
	st->pending++;
    }
}

/*
 * Widen --
 *	Doubles the x bin width: each cell moves to column floor(kx / 2) of
 *	its grid, merging with its neighbour's.
 */
static void
WidenTable(Rb_KeyTable *t, int axis)
{
    Rb_KeyTable old = *t;
    uint64_t i;

    Rb_KeyTableInit(t, sizeof(Cell));
    for (i = 0; i < old.cap; i++) {
	int32_t kx, ky;
	const Cell *oc;
	Cell *c;

	if (!old.used[i]) {
	    continue;
	}
	CellOfKey(old.keys[i], &kx, &ky);
	oc = Rb_KeyTableValue(&old, i);
	c = Rb_KeyTableFind(t, axis == 0 ? CellKey(kx >> 1, ky)
		: CellKey(kx, ky >> 1), 1);
	c->count += oc->count;
	c->bytes += oc->bytes;
    }
    Rb_KeyTableFree(&old);
}

static void
WidenAxis(HeatmapState *st, int axis)
{
    int64_t g;
    unsigned char *was = Rb_Alloc((size_t)(st->ngrids + 1));

    /* The columns' cells are re-binned with the tables', and those being
     * filled begun again after (a column keeps its kx when it ends). */
    for (g = -1; g < st->ngrids; g++) {
	was[g + 1] = (unsigned char)ColumnOf(st, g)->active;
    }
    FlushColumns(st, 0);
    ForgetHints(st);
    st->axis[axis].width *= 2;
    SetShift(&st->axis[axis]);
    if (axis == 0) {
	for (g = -1; g < st->ngrids; g++) {
	    ColumnOf(st, g)->hiKx >>= 1;
	}
	st->widenings++;
	st->minKx >>= 1;
	st->maxKx >>= 1;
    } else {
	st->ywidenings++;
	st->minKy >>= 1;
	st->maxKy >>= 1;
    }
    WidenTable(&st->cells, axis);
    st->ncells = 0;
    for (g = 0; g < st->ngrids; g++) {
	WidenTable(&st->grids[g], axis);
	st->ncells += st->grids[g].count;
    }
    for (g = -1; g < st->ngrids; g++) {
	if (was[g + 1]) {
	    int32_t kx = ColumnOf(st, g)->kx;

	    PullColumn(st, g, axis == 0 ? kx >> 1 : kx);
	}
    }
    free(was);
}

static void
Widen(HeatmapState *st)
{
    WidenAxis(st, 0);
}

/*
 * Mergeable --
 *	How many bins apart the first and last bins of a linear axis lie,
 *	or 0 when widening can merge none of them: one bin, a log2 axis,
 *	or bins -1 and 0 alone (values either side of zero, a time before
 *	the first record's), which floor(k / 2) keeps apart however wide.
 */
static int64_t
Mergeable(const Axis *ax, int64_t lo, int64_t hi)
{
    return ax->log2 || hi <= lo || (lo == -1 && hi == 0) ? 0 : hi - lo;
}

/*
 * WidenOne --
 *	With -maxcells: widens the linear axis that spans more bins (x on
 *	a tie), of those that widening can merge.
 * Results: 1, or 0 when neither can widen.
 */
static int
WidenOne(HeatmapState *st)
{
    int64_t nx = Mergeable(&st->axis[0], st->minKx, st->maxKx);
    int64_t ny = Mergeable(&st->axis[1], st->minKy, st->maxKy);

    if (nx <= 0 && ny <= 0) {
	return 0;
    }
    WidenAxis(st, nx >= ny ? 0 : 1);
    return 1;
}

/*
 * CellsHeld --
 *	Cells of every grid.
 */
static uint64_t
CellsHeld(const HeatmapState *st)
{
    return st->cells.count + st->ncells + st->pending;
}

/*
 * HeatmapStart --
 *	Checks the options, resolves both axes and the size, and empties
 *	the cells.
 */
static int
HeatmapStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    HeatmapState *st = a->state;

    ForgetHints(st);
    if (HeatmapInit(a, NULL) != TCL_OK
	    || ResolveAxis(a, run, &st->axis[0]) != TCL_OK
	    || ResolveAxis(a, run, &st->axis[1]) != TCL_OK) {
	return TCL_ERROR;
    }
    st->sizeIndex = -1;
    if (Rb_SchemaFieldIndex(run->schema, "size") >= 0
	    && RbKitIntegerField(a, run, "size", &st->sizeIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->xwidth0 > 0) {
	/* A previous run widened the bins: start from -xwidth again. */
	st->axis[0].width = st->xwidth0;
    }
    if (st->ywidth0 > 0) {
	st->axis[1].width = st->ywidth0;
    }
    st->xwidth0 = st->axis[0].width;
    st->ywidth0 = st->axis[1].width;
    SetShift(&st->axis[0]);
    SetShift(&st->axis[1]);
    st->widenings = st->ywidenings = 0;
    st->minKx = st->minKy = INT64_MAX;
    st->maxKx = st->maxKy = INT64_MIN;
    st->keyIndex = -1;
    if (st->key != NULL && st->key[0] != '\0'
	    && RbKitIntegerField(a, run, st->key, &st->keyIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if (st->keyIndex >= 0 && st->recent == NULL) {
	st->recent = Rb_Alloc(sizeof(Rb_RecentKeys));
    }
    if (st->cells.valSize == 0) {
	Rb_KeyTableInit(&st->cells, sizeof(Cell));
	Rb_KeyTableInit(&st->keyIds, sizeof(int64_t));
    }
    Rb_KeyTableClear(&st->cells);
    FreeGrids(st);
    st->column.active = 0;
    st->column.n = 0;
    st->column.hiKx = INT64_MIN;
    st->pending = 0;
    st->counted = st->skipped = 0;
    st->failed = 0;
    st->hasOrigin = 0;
    st->run = run;
    return TCL_OK;
}

/*
 * AxisValue --
 *	The value of record i on axis ax, in reported units (times from the
 *	origin).
 * Results: 1 with *v set, 0 when the record has none.
 */
static inline int
AxisValue(const HeatmapState *st, const Axis *ax, const Rb_Batch *b, int i,
	double *v)
{
    int64_t x, y;

    if (ax->index < 0) {
	x = b->col[ax->from][i];
	y = b->col[ax->to][i];
	if (x == RB_ABSENT || y == RB_ABSENT || y < x) {
	    return 0;
	}
	*v = ((double)y - (double)x) * ax->scale;
	return 1;
    }
    x = b->col[ax->index][i];
    if (x == RB_ABSENT) {
	return 0;
    }
    if (ax->isDouble) {
	*v = Rb_GetDouble(b, ax->index, i) * ax->scale;
    } else if (ax->isTime) {
	*v = RbSecondsBetween(st->origin, x);
    } else {
	*v = (double)x * ax->scale;
    }
    return isfinite(*v);
}

/*
 * BinOf --
 *	The bin of value v on axis ax.
 * Results: 1 with *k set; 0 when v has none (negative on a log2 axis,
 *	or beyond 32-bit bin numbers).  Inline, with floor and frexp done
 *	here (each a library call otherwise on this target): the bin of a
 *	linear axis is floor(v / width) and must lie in (INT32_MIN,
 *	INT32_MAX]; that of a log2 axis is frexp's exponent of v / base
 *	less 1, which for a normal number is its biased exponent less 1022.
 */
static inline int
BinOf(const Axis *ax, double v, int32_t *k)
{
    double q;
    int64_t f;
    int e;

    if (ax->log2) {
	uint64_t bits;

	if (v < 0) {
	    return 0;
	}
	if (v == 0) {
	    *k = ZERO_BIN;
	    return 1;
	}
	q = v / ax->base;
	memcpy(&bits, &q, sizeof bits);
	e = (int)((bits >> 52) & 0x7ff);
	if (e == 0 || e == 0x7ff) {
	    /* Subnormal, infinite or NaN: as frexp has them. */
	    frexp(q, &e);
	    *k = e - 1;
	    return 1;
	}
	*k = e - 1022 - 1;
	return 1;
    }
    q = v / ax->width;
    /* floor(q) in (INT32_MIN, INT32_MAX] exactly when q lies in
     * [INT32_MIN + 1, INT32_MAX + 1); a NaN in neither. */
    if (!(q >= (double)INT32_MIN + 1.0 && q < (double)INT32_MAX + 1.0)) {
	return 0;
    }
    f = (int64_t)q;
    f -= (double)f > q;
    *k = (int32_t)f;
    return 1;
}

/*
 * CellKey, CellOfKey --
 *	The key of cell (kx, ky) and back.
 */
static int64_t
CellKey(int32_t kx, int32_t ky)
{
    return (int64_t)(((uint64_t)(uint32_t)kx << 32) | (uint32_t)ky);
}

static void
CellOfKey(int64_t key, int32_t *kx, int32_t *ky)
{
    *kx = (int32_t)(uint32_t)((uint64_t)key >> 32);
    *ky = (int32_t)(uint32_t)(uint64_t)key;
}

/*
 * InTimeBin --
 *	Whether raw time t falls in bin k of time axis ax.
 */
static int
InTimeBin(const HeatmapState *st, const Axis *ax, int64_t t, int32_t k)
{
    int32_t kt;

    return BinOf(ax, RbSecondsBetween(st->origin, t), &kt) && kt == k;
}

/*
 * LearnTimeBin --
 *	After a record at raw time t0 fell in bin k of time axis ax: the
 *	raw times [knownLo, knownHi) around it that fall in bin k too, so
 *	that the records after need neither division.  The bin's bounds in
 *	ns are guessed from its bounds in seconds and checked: the bin of a
 *	time never decreases as the time grows, so a range whose first and
 *	last times are in bin k has every time between in it.  A bound that
 *	a few ns do not mend is t0's own.
 */
static void
LearnTimeBin(const HeatmapState *st, Axis *ax, int64_t t0, int32_t k)
{
    double lo = (double)k * ax->width * RB_NS_PER_S;
    double hi = ((double)k + 1.0) * ax->width * RB_NS_PER_S;
    int64_t a, z, d;
    int n;

    ax->known = 0;
    /* Every time from a to z then lies less than 2^63 ns from the
     * origin, where RbSecondsBetween subtracts exactly. */
    if (!(fabs(lo) < 4e18 && fabs(hi) < 4e18)
	    || __builtin_add_overflow(st->origin, (int64_t)ceil(lo), &a)
	    || __builtin_add_overflow(st->origin, (int64_t)ceil(hi), &z)
	    || __builtin_sub_overflow(t0, st->origin, &d)) {
	return;
    }
    for (n = 0; n < 4 && a <= t0 && !InTimeBin(st, ax, a, k); n++) {
	a++;
    }
    if (!(a <= t0 && InTimeBin(st, ax, a, k))) {
	a = t0;
    }
    for (n = 0; n < 4 && z - 1 > t0 && !InTimeBin(st, ax, z - 1, k); n++) {
	z--;
    }
    if (!(z - 1 >= t0 && InTimeBin(st, ax, z - 1, k))) {
	z = t0 + 1;
    }
    if (a == RB_ABSENT) {
	return;
    }
    ax->knownLo = a;
    ax->knownHi = z;
    ax->knownK = k;
    ax->known = 1;
}

/*
 * AxisBin --
 *	The bin of record i on axis c: AxisValue and BinOf, or the same
 *	found from the raw value (a time in the range last learnt, or an
 *	integer field binned by a shift).
 * Results: 1 with *k set; 0 when the record has no value or no bin.
 */
static int	AxisBinSlow(HeatmapState *st, Axis *ax, const Rb_Batch *b,
		    int i, int32_t *k) __attribute__((noinline));

static inline int
AxisBin(HeatmapState *st, int c, const Rb_Batch *b, int i, int32_t *k)
{
    Axis *ax = &st->axis[c];

    if (ax->index >= 0) {
	int64_t raw = b->col[ax->index][i];

	if (ax->known && raw >= ax->knownLo && raw < ax->knownHi) {
	    *k = ax->knownK;
	    return 1;
	}
	if (ax->shift >= 0 && raw > -((int64_t)1 << 53)
		&& raw < ((int64_t)1 << 53)) {
	    int64_t q = raw >> ax->shift;

	    if (q < (int64_t)INT32_MIN + 1 || q > INT32_MAX) {
		return 0;
	    }
	    *k = (int32_t)q;
	    return 1;
	}
    }
    return AxisBinSlow(st, ax, b, i, k);
}

/*
 * AxisBinSlow --
 *	AxisBin from the axis's value, learning a time bin's range.
 */
static int
AxisBinSlow(HeatmapState *st, Axis *ax, const Rb_Batch *b, int i,
	int32_t *k)
{
    double v;

    if (!AxisValue(st, ax, b, i, &v) || !BinOf(ax, v, k)) {
	return 0;
    }
    if (ax->isTime && !ax->log2) {
	LearnTimeBin(st, ax, b->col[ax->index][i], *k);
    }
    return 1;
}

/*
 * CountNew --
 *	Counts a cell made in a column against -limit (stopping the run at
 *	record i when it would be one more) and holds its bins.
 * Results: 1, or 0 when the run stops.
 */
static int
CountNew(Rb_Analyzer *a, HeatmapState *st, int64_t g, const Rb_Batch *b,
	int i, int32_t kx, int32_t ky)
{
    uint64_t held = (g < 0 ? st->cells.count : st->ncells) + st->pending;

    if (held >= (uint64_t)st->limit) {
	st->failed = 1;
	RbKitKeyLimit(a, st->limit, "cells", b->firstRecord + (uint64_t)i, 40);
	return 0;
    }
    st->pending++;
    HoldBins(st, kx, ky);
    return 1;
}

/*
 * HeatmapBatch --
 *	Counts each selected record in its cell; a record without a value
 *	on either axis (or one with no bin) is counted as skipped.  The
 *	record that would make one cell more than -limit stops the run.
 *	A chunk of records at a time: first each one's bins and grid, then
 *	each is counted: in its grid's column (see Column) when it falls in
 *	the column's x bin or begins the next; else in the cell the hints
 *	hold for it (no look-up) or else found in its table, the cell of the
 *	record HM_AHEAD on prefetched when it too goes to the table and its
 *	hint misses (the cell tables are large, and a record's cell anywhere
 *	in them).  When -maxcells widens the bins meanwhile, the records
 *	after are binned again, as they would be one at a time.
 */
#define HM_CHUNK 64
#define HM_AHEAD 8

static void
HeatmapBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    HeatmapState *st = a->state;
    const int64_t *size = st->sizeIndex >= 0 ? b->col[st->sizeIndex] : NULL;
    int32_t kx[HM_CHUNK], ky[HM_CHUNK];
    int64_t grid[HM_CHUNK];		/* st->grids index, -1: st->cells, */
    unsigned char ok[HM_CHUNK];		/* 0: skipped */
    CellHint *hints = st->hints;
    uint64_t counted = 0, skipped = 0;
    int from, m, j;

    if (hints == NULL) {
	/* Zeroed: generation 0, before any. */
	hints = st->hints = Rb_AllocArray(HM_HINTS, sizeof(CellHint));
	ForgetHints(st);
    }

    if (!st->hasOrigin && nsel > 0) {
	/* The run's first record time (the engine sets it before the
	 * batch), the same on every shard of a split run. */
	st->origin = RbRunTimesKnown(st->run) ? st->run->firstTime : 0;
	st->hasOrigin = 1;
    }
    for (from = 0; from < nsel && !st->failed; from += m) {
	int64_t widened = st->widenings + st->ywidenings;

	m = nsel - from < HM_CHUNK ? nsel - from : HM_CHUNK;
	for (j = 0; j < m; j++) {
	    int i = (int)sel[from + j];

	    ok[j] = 0;
	    if (st->keyIndex >= 0 && b->col[st->keyIndex][i] == RB_ABSENT) {
		continue;
	    }
	    if (!AxisBin(st, 0, b, i, &kx[j])
		    || !AxisBin(st, 1, b, i, &ky[j])) {
		continue;
	    }
	    grid[j] = st->keyIndex >= 0
		    ? GridOf(st, b->col[st->keyIndex][i]) - st->grids : -1;
	    ok[j] = 1;
	}
	for (j = 0; j < m && !st->failed; j++) {
	    int i = (int)sel[from + j], ahead = j + HM_AHEAD;
	    Rb_KeyTable *t;
	    CellHint *hint;
	    Column *col;
	    uint64_t cap;
	    int64_t key;
	    Cell *c;

	    if (ahead < m && ok[ahead]
		    && st->widenings + st->ywidenings == widened) {
		const Column *acol = ColumnOf(st, grid[ahead]);
		int64_t ak = CellKey(kx[ahead], ky[ahead]);
		const CellHint *ah = &hints[HintOf(ak, grid[ahead])];

		if (!(acol->active && acol->kx == kx[ahead])
			&& kx[ahead] <= acol->hiKx
			&& (ah->gen != st->hintGen || ah->key != ak
			|| ah->grid != grid[ahead])) {
		    RbKeyTablePrefetch(TableOf(st, grid[ahead]), ak);
		}
	    }
	    if (!ok[j]) {
		skipped++;
		continue;
	    }
	    if (st->widenings + st->ywidenings != widened
		    && (!AxisBin(st, 0, b, i, &kx[j])
		    || !AxisBin(st, 1, b, i, &ky[j]))) {
		skipped++;
		continue;
	    }
	    col = ColumnOf(st, grid[j]);
	    if (kx[j] > col->hiKx) {
		BeginColumn(st, grid[j], kx[j]);
	    }
	    if (col->active && col->kx == kx[j]) {
		int64_t y = (int64_t)ky[j] - col->lo;

		if ((uint64_t)y < (uint64_t)col->n) {
		    c = &col->cells[y];
		} else {
		    c = ColumnCell(col, ky[j]);
		}
		if (c != NULL) {
		    int made = c->count == 0;

		    if (made && !CountNew(a, st, grid[j], b, i, kx[j],
			    ky[j])) {
			break;
		    }
		    c->count++;
		    counted++;
		    if (size != NULL && size[i] != RB_ABSENT && size[i] >= 0) {
			c->bytes += (uint64_t)size[i];
		    }
		    /* Widen while bins remain to merge, as below. */
		    while (made && st->maxCells > 0
			    && CellsHeld(st) > (uint64_t)st->maxCells
			    && WidenOne(st)) {
		    }
		    continue;
		}
		/* Too many y bins for the column: it ends, and the rest of
		 * its x bin goes to the table. */
		FlushColumn(st, grid[j]);
	    }
	    key = CellKey(kx[j], ky[j]);
	    hint = &hints[HintOf(key, grid[j])];
	    if (hint->gen == st->hintGen && hint->key == key
		    && hint->grid == grid[j]) {
		/* A cell already held: its bins are, and no cell more
		 * can need a widening. */
		c = hint->cell;
		c->count++;
		counted++;
		if (size != NULL && size[i] != RB_ABSENT && size[i] >= 0) {
		    c->bytes += (uint64_t)size[i];
		}
		continue;
	    }
	    t = TableOf(st, grid[j]);
	    cap = t->cap;
	    if (st->pending > 0 && (grid[j] < 0 ? t->count : st->ncells)
		    + st->pending >= (uint64_t)st->limit
		    && Rb_KeyTableFind(t, key, 0) == NULL) {
		/* One cell more than -limit, with those in columns. */
		c = NULL;
	    } else {
		c = FindCell(st, t, key);
	    }
	    if (c == NULL) {
		st->failed = 1;
		RbKitKeyLimit(a, st->limit, "cells", b->firstRecord + (uint64_t)i,
			40);
		break;
	    }
	    if (t->cap != cap) {
		/* The table grew: its cells moved. */
		ForgetHints(st);
	    }
	    hint->key = key;
	    hint->grid = grid[j];
	    hint->cell = c;
	    hint->gen = st->hintGen;
	    c->count++;
	    counted++;
	    if (size != NULL && size[i] != RB_ABSENT && size[i] >= 0) {
		c->bytes += (uint64_t)size[i];
	    }
	    /* A record here is of an x bin no later than col->hiKx (a later
	     * one begins a column above), so the bound holds. */
	    HoldBins(st, kx[j], ky[j]);
	    /* Widen while bins remain to merge (one cell of a grid more
	     * than -maxcells is left to -limit); WidenAxis forgets the
	     * hints. */
	    while (st->maxCells > 0 && CellsHeld(st) > (uint64_t)st->maxCells
		    && WidenOne(st)) {
	    }
	}
    }
    st->counted += counted;
    st->skipped += skipped;
}

/*
 * BinBounds --
 *	The range [lo, hi) of bin k of axis ax, in reported units (the zero
 *	bin of a log2 axis, renumbered, is [0, 2^(k+1))).
 */
static void
BinBounds(const Axis *ax, int64_t k, int64_t zeroBin, double *lo,
	double *hi)
{
    if (ax->log2) {
	*lo = k == zeroBin ? 0.0 : ax->base * ldexp(1.0, (int)k);
	*hi = ax->base * ldexp(1.0, (int)k + 1);
    } else {
	*lo = (double)k * ax->width;
	*hi = (double)(k + 1) * ax->width;
    }
}

typedef struct Row {
    int64_t key;		/* -key value (0 without -key). */
    int64_t kx, ky;
    const Cell *cell;
} Row;

/*
 * CompareRows --
 *	qsort order of rows: by -key value, x bin, then y bin.
 */
static int
CompareRows(const void *p, const void *q)
{
    const Row *r1 = p, *r2 = q;

    if (r1->key != r2->key) {
	return r1->key < r2->key ? -1 : 1;
    }
    if (r1->kx != r2->kx) {
	return r1->kx < r2->kx ? -1 : 1;
    }
    return (r1->ky > r2->ky) - (r1->ky < r2->ky);
}

/*
 * HeatmapEnd --
 *	Sets Heatmap (one row per non-empty cell, by x bin then y bin; the
 *	zero bin of a log2 axis numbered one below its smallest positive
 *	bin), HeatmapCount and HeatmapSkipped.
 */
static int
HeatmapEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    HeatmapState *st = a->state;
    Rb_Attribute *attr;
    int64_t minBin[2] = {INT64_MAX, INT64_MAX}, zeroBin[2];
    Row *rows;
    uint64_t i, n = 0;
    int64_t g;
    int c, col[8], keyCol = -1;
    char name[256];

    FlushColumns(st, 1);
    ForgetHints(st);
    rows = Rb_Realloc(NULL, (st->cells.count + st->ncells + 1) * sizeof(Row));
    /* The help names the axes, for a Reporter's labels. */
    snprintf(name, sizeof(name), "I/Os per cell of %s (x) by %s (y)",
	    st->axis[0].field, st->axis[1].field);
    attr = Rb_AttrCreate("Heatmap", RB_ATTR_HEATMAP, "", name);

    for (g = -1; g < st->ngrids; g++) {
      const Rb_KeyTable *t = g < 0 ? &st->cells : &st->grids[g];

      for (i = 0; i < t->cap; i++) {
	int32_t kx, ky;

	if (!t->used[i]) {
	    continue;
	}
	CellOfKey(t->keys[i], &kx, &ky);
	rows[n].key = g < 0 ? 0 : st->keyVals[g];
	rows[n].kx = kx;
	rows[n].ky = ky;
	rows[n].cell = Rb_KeyTableValue(t, i);
	if (kx != ZERO_BIN && kx < minBin[0]) {
	    minBin[0] = kx;
	}
	if (ky != ZERO_BIN && ky < minBin[1]) {
	    minBin[1] = ky;
	}
	n++;
      }
    }
    for (c = 0; c < 2; c++) {
	zeroBin[c] = minBin[c] == INT64_MAX ? 0 : minBin[c] - 1;
    }
    for (i = 0; i < n; i++) {
	if (st->axis[0].log2 && rows[i].kx == ZERO_BIN) {
	    rows[i].kx = zeroBin[0];
	}
	if (st->axis[1].log2 && rows[i].ky == ZERO_BIN) {
	    rows[i].ky = zeroBin[1];
	}
    }
    qsort(rows, n, sizeof(Row), CompareRows);
    if (st->keyIndex >= 0) {
	keyCol = Rb_AttrAddColumn(attr, st->key, "", 0);
    }
    col[0] = Rb_AttrAddColumn(attr, "xbin", "", 0);
    col[1] = Rb_AttrAddColumn(attr, "ybin", "", 0);
    for (c = 0; c < 2; c++) {
	snprintf(name, sizeof(name), "%clo", "xy"[c]);
	col[2 + 2 * c] = Rb_AttrAddColumn(attr, name, st->axis[c].unit, 0);
	snprintf(name, sizeof(name), "%chi", "xy"[c]);
	col[3 + 2 * c] = Rb_AttrAddColumn(attr, name, st->axis[c].unit, 0);
    }
    col[6] = Rb_AttrAddColumn(attr, "count", "", 0);
    col[7] = Rb_AttrAddColumn(attr, "bytes", "bytes", 0);
    for (i = 0; i < n; i++) {
	int row = Rb_AttrAddRow(attr);
	double lo, hi;

	if (keyCol >= 0) {
	    Rb_AttrSetNum(attr, row, keyCol, (double)rows[i].key);
	}
	Rb_AttrSetNum(attr, row, col[0], (double)rows[i].kx);
	Rb_AttrSetNum(attr, row, col[1], (double)rows[i].ky);
	BinBounds(&st->axis[0], rows[i].kx, st->axis[0].log2 ? zeroBin[0]
		: INT64_MIN, &lo, &hi);
	Rb_AttrSetNum(attr, row, col[2], lo);
	Rb_AttrSetNum(attr, row, col[3], hi);
	BinBounds(&st->axis[1], rows[i].ky, st->axis[1].log2 ? zeroBin[1]
		: INT64_MIN, &lo, &hi);
	Rb_AttrSetNum(attr, row, col[4], lo);
	Rb_AttrSetNum(attr, row, col[5], hi);
	Rb_AttrSetNum(attr, row, col[6], (double)rows[i].cell->count);
	Rb_AttrSetNum(attr, row, col[7], (double)rows[i].cell->bytes);
    }
    free(rows);
    /* The axes' names, for a Reporter's labels. */
    Rb_AnalyzerSet(a, attr);
    Rb_AnalyzerSet(a, Rb_AttrScalar("HeatmapCount", (double)st->counted, "",
	    "I/Os counted in the heat map"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("HeatmapSkipped", (double)st->skipped,
	    "", "I/Os without a value or bin on an axis"));
    return TCL_OK;
}

/*
 * HeatmapMerge --
 *	Adds the cells of other (a shard's) into a.
 * Results: TCL_ERROR when the time origins differ or the cells pass
 *	-limit.
 */
static int
HeatmapMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    HeatmapState *st = a->state;
    const HeatmapState *ost = other->state;
    uint64_t i;
    int64_t g;
    int shift, yshift;

    /* Both states' cells in their tables: other's columns are moved as
     * its own hooks would move them (its counts do not change). */
    FlushColumns(st, 1);
    FlushColumns((HeatmapState *)ost, 1);
    ForgetHints(st);
    st->axis[0].known = st->axis[1].known = 0;
    if (ost->hasOrigin && st->hasOrigin && ost->origin != st->origin
	    && (st->axis[0].isTime || st->axis[1].isTime)) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "cannot merge heat "
		"maps whose time axes start at different times");
	return TCL_ERROR;
    }
    if (!st->hasOrigin) {
	st->hasOrigin = ost->hasOrigin;
	st->origin = ost->origin;
    }
    /* With -maxcells the shards' x bins may have widened apart: merge at
     * the wider. */
    while (st->widenings < ost->widenings) {
	Widen(st);
    }
    while (st->ywidenings < ost->ywidenings) {
	WidenAxis(st, 1);
    }
    shift = st->widenings - ost->widenings;
    yshift = st->ywidenings - ost->ywidenings;
    for (g = -1; g < ost->ngrids; g++) {
	const Rb_KeyTable *ot = g < 0 ? &ost->cells : &ost->grids[g];
	Rb_KeyTable *t = g < 0 ? &st->cells : GridOf(st, ost->keyVals[g]);

	for (i = 0; i < ot->cap; i++) {
	    const Cell *oc;
	    Cell *c;
	    int32_t kx, ky;
	    int64_t key;

	    if (!ot->used[i]) {
		continue;
	    }
	    oc = Rb_KeyTableValue(ot, i);
	    CellOfKey(ot->keys[i], &kx, &ky);
	    kx >>= shift;
	    ky >>= yshift;
	    key = CellKey(kx, ky);
	    HoldBins(st, kx, ky);
	    if (g >= 0 && Rb_KeyTableFind(t, key, 0) == NULL) {
		st->ncells++;
	    }
	    c = Rb_KeyTableFind(t, key, 1);
	    c->count += oc->count;
	    c->bytes += oc->bytes;
	}
    }
    st->counted += ost->counted;
    st->skipped += ost->skipped;
    st->failed |= ost->failed;
    /* The columns begin past the cells merged. */
    FlushColumns(st, 1);
    if (st->cells.count + st->ncells > (uint64_t)st->limit) {
	RbKitKeyLimit(a, st->limit, "cells", 0, 40);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * HeatmapSerialize, HeatmapDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
HeatmapSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    HeatmapState *st = a->state;
    int64_t g;

    FlushColumns(st, 1);
    Rb_BufPutInt(b, st->failed);
    Rb_BufPutInt(b, st->hasOrigin);
    Rb_BufPutInt(b, st->origin);
    RbKitPutCounters(b, &st->counted, 2);
    Rb_KeyTablePut(b, &st->cells, NULL);
    Rb_BufPutInt(b, st->widenings);
    Rb_BufPutInt(b, st->minKx);
    Rb_BufPutInt(b, st->maxKx);
    Rb_BufPutInt(b, st->ywidenings);
    Rb_BufPutInt(b, st->minKy);
    Rb_BufPutInt(b, st->maxKy);
    Rb_BufPutInt(b, st->ngrids);
    for (g = 0; g < st->ngrids; g++) {
	Rb_BufPutInt(b, st->keyVals[g]);
	Rb_KeyTablePut(b, &st->grids[g], NULL);
    }
    return TCL_OK;
}

static int
HeatmapDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    HeatmapState *st = a->state;
    int64_t g, n;

    FlushColumns(st, 0);
    ForgetHints(st);
    st->failed = (int)Rb_BufGetInt(b);
    st->hasOrigin = (int)Rb_BufGetInt(b);
    st->origin = Rb_BufGetInt(b);
    RbKitGetCounters(b, &st->counted, 2);
    Rb_KeyTableGet(b, &st->cells, NULL);
    /* The shard's bins as they were (the cells read are at its width). */
    st->widenings = (int)Rb_BufGetInt(b);
    st->axis[0].width = st->xwidth0 * ldexp(1.0, st->widenings);
    st->minKx = Rb_BufGetInt(b);
    st->maxKx = Rb_BufGetInt(b);
    st->ywidenings = (int)Rb_BufGetInt(b);
    st->axis[1].width = st->ywidth0 * ldexp(1.0, st->ywidenings);
    st->minKy = Rb_BufGetInt(b);
    st->maxKy = Rb_BufGetInt(b);
    n = Rb_BufGetInt(b);
    for (g = 0; g < n && !b->bad; g++) {
	Rb_KeyTable *t = GridOf(st, Rb_BufGetInt(b));
	uint64_t before = t->count;

	Rb_KeyTableGet(b, t, NULL);
	st->ncells += t->count - before;
    }
    SetShift(&st->axis[0]);
    SetShift(&st->axis[1]);
    /* The columns begin past the cells read. */
    FlushColumns(st, 1);
    return b->bad ? TCL_ERROR : TCL_OK;
}

/*
 * HeatmapFree --
 *	Frees the cells.
 */
static void
HeatmapFree(Rb_Analyzer *a)
{
    HeatmapState *st = a->state;

    Rb_KeyTableFree(&st->cells);
    FreeGrids(st);
    free(st->column.cells);
    st->column.cells = NULL;
    st->column.n = st->column.cap = 0;
    Rb_KeyTableFree(&st->keyIds);
    free(st->recent);
    st->recent = NULL;
    free(st->hints);
    st->hints = NULL;
}

/*
 * Mergeable: counts per cell add; a time axis counts from the run's
 * first record time, which every shard of a split run shares.
 */
const Rb_AnalyzerClass Rb_HeatmapAnalyzerClass = {
    .name = "HeatmapAnalyzer",
    .help = "two-dimensional distribution (heat map) of I/Os and bytes "
	    "over two fields, linear or log2 bins on each axis",
    .stateSize = sizeof(HeatmapState),
    .options = heatmapOptions,
    .attrs = heatmapAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = HeatmapInit,
    .start = HeatmapStart,
    .batch = HeatmapBatch,
    .end = HeatmapEnd,
    .merge = HeatmapMerge,
    .serialize = HeatmapSerialize,
    .deserialize = HeatmapDeserialize,
    .freeState = HeatmapFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
