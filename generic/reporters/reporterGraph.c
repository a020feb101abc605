/*
 * reporterGraph.c --
 *
 *	ReporterGraph: gnuplot scripts and their data in an output directory,
 *	rendered to PNG and SVG when gnuplot is installed.  What is drawn
 *	depends only on the Attribute kind:
 *	    series	one line per numeric column over the time column
 *	    histogram	boxes from lo to hi, log2 x axis for log2 bins, log y
 *			axis when the counts are skewed (see IsSkewed)
 *	    percentiles	value against p, log y axis when skewed
 *	    vector	each numeric column against the row index
 *	    heatmap	an image of counts per cell, log colour scale
 *	    scalar	one bar chart per scalar name found in several Flows
 *	Tables and text have no generic picture and are left out.
 */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "util.h"

typedef struct GraphState {
    int render;			/* -render: run gnuplot when installed */
    char *logscale;		/* -logscale: auto or a boolean */
} GraphState;

/*
 * One writing of every picture: where to, whether to render, the file
 * names taken so far, and whom to tell about each picture made.
 */
typedef struct GraphRun {
    Tcl_Interp *interp;
    const char *dir;
    int render;
    int logMode;		/* RB_LOG_AUTO, 0 or 1 (-logscale) */
    Rb_ReportNames names;
    Rb_GraphDone *done;
    void *cd;
} GraphRun;

static const Rb_Option graphOptions[] = {
    {"-render", RB_OPT_BOOL, offsetof(GraphState, render), "1",
	"run gnuplot (when on PATH) to draw NAME.png and NAME.svg"},
    {"-logscale", RB_OPT_STRING, offsetof(GraphState, logscale), "auto",
	"log value axis of histograms and percentiles: auto (when the "
	"largest positive value is over 100 times the smallest), or a "
	"boolean to force it on or off"},
    {NULL}
};

/*
 * One picture: the script's text parts, the numeric columns written to
 * the data file (in that order, so gnuplot column k is cols[k-1]), and
 * the plot command.
 */
typedef struct Graph {
    Tcl_DString comment, title, xlabel, ylabel, setup, plot;
    int ncols;
    int *cols;
    int width;			/* Picture width in pixels. */
} Graph;

/*
 * GraphInit, GraphFree --
 *	Set up and release a Graph's strings and column list.
 */
static void
GraphInit(Graph *g, const Rb_Attribute *a)
{
    Tcl_DStringInit(&g->comment);
    Tcl_DStringInit(&g->title);
    Tcl_DStringInit(&g->xlabel);
    Tcl_DStringInit(&g->ylabel);
    Tcl_DStringInit(&g->setup);
    Tcl_DStringInit(&g->plot);
    g->ncols = 0;
    g->width = 900;
    g->cols = (int *) Rb_AllocArray(a ? a->ncols + 1 : 1, sizeof(int));
}

static void
GraphFree(Graph *g)
{
    Tcl_DStringFree(&g->comment);
    Tcl_DStringFree(&g->title);
    Tcl_DStringFree(&g->xlabel);
    Tcl_DStringFree(&g->ylabel);
    Tcl_DStringFree(&g->setup);
    Tcl_DStringFree(&g->plot);
    free(g->cols);
}

/*
 * AppendGpString --
 *	Appends s as a gnuplot single-quoted string: quotes doubled, control
 *	characters (which would end the script line) as spaces.
 */
static void
AppendGpString(Tcl_DString *ds, const char *s)
{
    const char *p;

    Tcl_DStringAppend(ds, "'", 1);
    for (p = s; *p; p++) {
	if (*p == '\'') {
	    Tcl_DStringAppend(ds, "''", 2);
	} else if ((unsigned char) *p < 0x20) {
	    Tcl_DStringAppend(ds, " ", 1);
	} else {
	    Tcl_DStringAppend(ds, p, 1);
	}
    }
    Tcl_DStringAppend(ds, "'", 1);
}

/*
 * AppendLine --
 *	Appends s with control characters as spaces: names go into script
 *	comments and data headers, where a newline would end the comment
 *	and let a Flow's name become a gnuplot command.
 */
static void
AppendLine(Tcl_DString *ds, const char *s)
{
    const char *p;

    for (p = s; *p; p++) {
	Tcl_DStringAppend(ds, (unsigned char) *p < 0x20 ? " " : p, 1);
    }
}

/*
 * SetLabel --
 *	Sets ds to "name (unit)", or just name when there is no unit.
 */
static void
SetLabel(Tcl_DString *ds, const char *name, const char *unit)
{
    Tcl_DStringSetLength(ds, 0);
    Tcl_DStringAppend(ds, name, -1);
    if (unit != NULL && *unit != '\0') {
	Tcl_DStringAppend(ds, " (", 2);
	Tcl_DStringAppend(ds, unit, -1);
	Tcl_DStringAppend(ds, ")", 1);
    }
}

/*
 * SetTitle --
 *	The title of a per-flow picture: "Flow F: Attribute".
 */
static void
SetTitle(Graph *g, const char *flow, const Rb_Attribute *a)
{
    Tcl_DStringAppend(&g->title, "Flow ", -1);
    Tcl_DStringAppend(&g->title, flow, -1);
    Tcl_DStringAppend(&g->title, ": ", -1);
    Tcl_DStringAppend(&g->title, a->name, -1);
    if (a->partial) {
	Tcl_DStringAppend(&g->title, " (partial run)", -1);
    }
    Tcl_DStringAppend(&g->comment, "Flow ", -1);
    AppendLine(&g->comment, flow);
    Tcl_DStringAppend(&g->comment, ", attribute ", -1);
    AppendLine(&g->comment, a->name);
    Tcl_DStringAppend(&g->comment, " (", -1);
    Tcl_DStringAppend(&g->comment, Rb_AttrKindName(a->kind), -1);
    Tcl_DStringAppend(&g->comment, ")", -1);
}

/*
 * NumColumn --
 *	Index of the numeric column called name, else of the fallback-th
 *	numeric column, else -1.  Contract names come first so that extra
 *	columns before them do not confuse the picture.
 */
static int
NumColumn(const Rb_Attribute *a, const char *name, int fallback)
{
    int c = Rb_AttrColumnIndex(a, name);

    if (c >= 0 && !a->cols[c].isText) {
	return c;
    }
    for (c = 0; c < a->ncols; c++) {
	if (!a->cols[c].isText && fallback-- == 0) {
	    return c;
	}
    }
    return -1;
}

/*
 * HasPoint --
 *	1 when some row has a finite value in column y and, unless x is
 *	-1, in column x: gnuplot refuses a plot with no valid point.
 */
static int
HasPoint(const Rb_Attribute *a, int x, int y)
{
    int r;

    for (r = 0; r < a->nrows; r++) {
	if (isfinite(a->cols[y].num[r])
		&& (x < 0 || isfinite(a->cols[x].num[r]))) {
	    return 1;
	}
    }
    return 0;
}

/*
 * IsLog2Bins --
 *	1 when a histogram's bins double: every bin with lo > 0 has
 *	hi == 2 lo (a first bin from 0 is allowed), at least two of them.
 */
static int
IsLog2Bins(const Rb_Attribute *a, int lo, int hi)
{
    int r, n = 0;

    for (r = 0; r < a->nrows; r++) {
	double l = a->cols[lo].num[r], h = a->cols[hi].num[r];

	if (l > 0 && fabs(h - 2 * l) <= 1e-9 * h) {
	    n++;
	} else if (!(l == 0 && h > 0 && r == 0)) {
	    return 0;
	}
    }
    return n >= 2;
}

/*
 * AppendYRange --
 *	A y range from 0 (or the lowest value, if negative) to a little
 *	above the highest value of column y, so that boxes and bars stand
 *	on zero and a column of zeros still has a range.
 */
static void
AppendYRange(Tcl_DString *setup, const double *v, int n)
{
    double lo = 0, hi = 0;
    char buf[128];
    int i;

    for (i = 0; i < n; i++) {
	if (isfinite(v[i])) {
	    lo = v[i] < lo ? v[i] : lo;
	    hi = v[i] > hi ? v[i] : hi;
	}
    }
    if (hi == lo) {
	hi = lo + 1;
    }
    snprintf(buf, sizeof(buf), "set yrange [%.6g:%.6g]\n",
	    lo < 0 ? lo - 0.05 * (hi - lo) : 0.0, hi + 0.05 * (hi - lo));
    Tcl_DStringAppend(setup, buf, -1);
}

/*
 * A histogram or a distribution whose values span more than SKEW_RATIO
 * (the largest positive value over the smallest) is drawn on a
 * logarithmic value axis: on a linear one, a queue depth at 0 most of the
 * time flattens every other depth to nothing, and a reuse-distance bin of
 * 60 beside one of 11000 cannot be seen.  -logscale forces either axis.
 */
#define SKEW_RATIO 100.0

/*
 * RbReportLogMode --
 *	Parses a -logscale value: "auto" or a Tcl boolean.
 * Results: TCL_OK with *mode RB_LOG_AUTO, 0 or 1; else TCL_ERROR with
 *	RUBICON OPTION VALUE in interp.
 */
int
RbReportLogMode(Tcl_Interp *interp, const char *value, int *mode)
{
    if (value == NULL || strcmp(value, "auto") == 0) {
	*mode = RB_LOG_AUTO;
	return TCL_OK;
    }
    if (Tcl_GetBoolean(NULL, value, mode) != TCL_OK) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-logscale expects auto or a boolean, got \"%s\"", value);
    }
    return TCL_OK;
}

/*
 * PositiveRange --
 *	The smallest and largest positive finite values of v[0..n-1].
 * Results: the number of negative values; *lo and *hi are 0 when no
 *	value is positive.
 */
static int
PositiveRange(const double *v, int n, double *lo, double *hi)
{
    int i, negative = 0;

    *lo = *hi = 0;
    for (i = 0; i < n; i++) {
	if (!isfinite(v[i])) {
	    continue;
	}
	if (v[i] < 0) {
	    negative++;
	} else if (v[i] > 0) {
	    *lo = *lo == 0 || v[i] < *lo ? v[i] : *lo;
	    *hi = v[i] > *hi ? v[i] : *hi;
	}
    }
    return negative;
}

/*
 * IsSkewed --
 *	Whether values v[0..n-1] get a logarithmic axis under logMode: when
 *	forced, if any value is positive; under auto, when none is negative
 *	and the largest positive one is over SKEW_RATIO times the smallest.
 */
static int
IsSkewed(const double *v, int n, int logMode)
{
    double lo, hi;
    int negative = PositiveRange(v, n, &lo, &hi);

    if (logMode != RB_LOG_AUTO) {
	return logMode && hi > 0;
    }
    return negative == 0 && lo > 0 && hi > SKEW_RATIO * lo;
}

/*
 * AppendLogYRange --
 *	Sets a logarithmic y axis over the positive values of v, from the
 *	power of ten below the smallest (so that its box has a height) to
 *	twice the largest.
 * Results: the bottom of the axis, where boxes start.
 */
static double
AppendLogYRange(Tcl_DString *setup, const double *v, int n)
{
    double lo, hi, floor10;
    char buf[128];

    PositiveRange(v, n, &lo, &hi);
    floor10 = pow(10.0, floor(log10(lo)));
    if (floor10 >= lo * (1 - 1e-9)) {
	floor10 /= 10;
    }
    snprintf(buf, sizeof(buf), "set logscale y\nset format y \"%%g\"\n"
	    "set yrange [%.6g:%.6g]\n",
	    floor10, 2 * hi);
    Tcl_DStringAppend(setup, buf, -1);
    return floor10;
}

/*
 * PlanSeries, PlanHistogram, PlanPercentiles, PlanVector --
 *	Fill g for one Attribute of that kind.
 * Results: 1 if there is something to draw, 0 if not (no rows, no
 *	numeric columns, no finite point).
 */
static int
PlanSeries(Graph *g, const Rb_Attribute *a, const char *dat)
{
    int x = NumColumn(a, "time", 0), c, ny = 0, lines = 0;
    char buf[64];

    if (x < 0) {
	return 0;
    }
    g->cols[g->ncols++] = x;
    SetLabel(&g->xlabel, a->cols[x].name, RbReportColUnit(a, x));
    for (c = 0; c < a->ncols; c++) {
	if (c != x && !a->cols[c].isText) {
	    ny++;
	}
    }
    Tcl_DStringAppend(&g->plot, "plot", -1);
    for (c = 0; c < a->ncols; c++) {
	if (c == x || a->cols[c].isText || !HasPoint(a, x, c)) {
	    continue;
	}
	g->cols[g->ncols++] = c;
	if (lines == 0) {
	    /* One line is labelled by its axis, several by a key. */
	    if (ny == 1) {
		SetLabel(&g->ylabel, strcmp(a->cols[c].name, "value") == 0
			? a->name : a->cols[c].name, RbReportColUnit(a, c));
	    } else {
		SetLabel(&g->ylabel, a->name, a->unit);
	    }
	}
	Tcl_DStringAppend(&g->plot, lines ? ", ''" : " ", -1);
	Tcl_DStringAppend(&g->plot, lines ? "" : dat, -1);
	/* Points too when they are few, so a value between two gaps shows. */
	snprintf(buf, sizeof(buf), " using 1:%d with %s ", g->ncols,
		a->nrows <= 100 ? "linespoints pt 7 ps 0.5" : "lines");
	Tcl_DStringAppend(&g->plot, buf, -1);
	if (ny == 1) {
	    Tcl_DStringAppend(&g->plot, "notitle", -1);
	} else {
	    Tcl_DStringAppend(&g->plot, "title ", -1);
	    AppendGpString(&g->plot, a->cols[c].name);
	}
	lines++;
    }
    Tcl_DStringAppend(&g->plot, "\n", 1);
    return lines > 0;
}

static int
PlanHistogram(Graph *g, const Rb_Attribute *a, const char *dat, int logMode)
{
    int lo = NumColumn(a, "lo", 0), hi = NumColumn(a, "hi", 1);
    int count = NumColumn(a, "count", 2);
    char y[64], base[32];

    if (lo < 0 || hi < 0 || count < 0 || !HasPoint(a, lo, count)) {
	return 0;
    }
    g->cols[g->ncols++] = lo;
    g->cols[g->ncols++] = hi;
    g->cols[g->ncols++] = count;
    SetLabel(&g->xlabel, a->name, RbReportColUnit(a, lo));
    SetLabel(&g->ylabel, a->cols[count].name, RbReportColUnit(a, count));
    if (IsSkewed(a->cols[count].num, a->nrows, logMode)) {
	/* Boxes stand on the axis's bottom; an empty bin has none. */
	snprintf(base, sizeof(base), "(%.6g)", AppendLogYRange(&g->setup,
		a->cols[count].num, a->nrows));
	snprintf(y, sizeof(y), "($3 > 0 ? $3 : 1/0)");
    } else {
	AppendYRange(&g->setup, a->cols[count].num, a->nrows);
	snprintf(base, sizeof(base), "(0)");
	snprintf(y, sizeof(y), "3");
    }
    Tcl_DStringAppend(&g->setup, "set style fill solid 0.5 border -1\n", -1);
    Tcl_DStringAppend(&g->plot, "plot ", -1);
    Tcl_DStringAppend(&g->plot, dat, -1);
    if (IsLog2Bins(a, lo, hi)) {
	/* A first bin from 0 cannot sit on a log axis: draw it from hi/2. */
	Tcl_DStringAppend(&g->setup, "set logscale x 2\n"
		"binlo(l, h) = l > 0 ? l : h / 2\n", -1);
	Tcl_DStringAppend(&g->plot, " using (sqrt(binlo($1,$2)*$2)):", -1);
	Tcl_DStringAppend(&g->plot, y, -1);
	Tcl_DStringAppend(&g->plot, ":(binlo($1,$2)):2:", -1);
    } else {
	Tcl_DStringAppend(&g->plot, " using (($1+$2)/2):", -1);
	Tcl_DStringAppend(&g->plot, y, -1);
	Tcl_DStringAppend(&g->plot, ":1:2:", -1);
    }
    Tcl_DStringAppend(&g->plot, base, -1);
    Tcl_DStringAppend(&g->plot, ":", -1);
    Tcl_DStringAppend(&g->plot, y, -1);
    Tcl_DStringAppend(&g->plot, " with boxxyerror notitle\n", -1);
    return 1;
}

static int
PlanPercentiles(Graph *g, const Rb_Attribute *a, const char *dat,
	int logMode)
{
    int p = NumColumn(a, "p", 0), value = NumColumn(a, "value", 1);

    if (p < 0 || value < 0 || !HasPoint(a, p, value)) {
	return 0;
    }
    g->cols[g->ncols++] = p;
    g->cols[g->ncols++] = value;
    SetLabel(&g->xlabel, "percentile", RbReportColUnit(a, p));
    SetLabel(&g->ylabel, a->name, *RbReportColUnit(a, value)
	    ? RbReportColUnit(a, value) : a->unit);
    Tcl_DStringAppend(&g->plot, "plot ", -1);
    Tcl_DStringAppend(&g->plot, dat, -1);
    if (IsSkewed(a->cols[value].num, a->nrows, logMode)) {
	AppendLogYRange(&g->setup, a->cols[value].num, a->nrows);
	Tcl_DStringAppend(&g->plot, " using 1:($2 > 0 ? $2 : 1/0)", -1);
    } else {
	Tcl_DStringAppend(&g->plot, " using 1:2", -1);
    }
    Tcl_DStringAppend(&g->plot, " with linespoints notitle\n", -1);
    return 1;
}

static int
PlanVector(Graph *g, const Rb_Attribute *a, const char *dat)
{
    int c;
    char buf[64];

    SetLabel(&g->xlabel, "index", "");
    SetLabel(&g->ylabel, a->name, a->unit);
    for (c = 0; c < a->ncols; c++) {
	if (!a->cols[c].isText && HasPoint(a, -1, c)) {
	    g->cols[g->ncols++] = c;
	}
    }
    for (c = 0; c < g->ncols; c++) {
	Tcl_DStringAppend(&g->plot, c ? ", ''" : "plot ", -1);
	Tcl_DStringAppend(&g->plot, c ? "" : dat, -1);
	snprintf(buf, sizeof(buf), " using 0:%d with linespoints ", c + 1);
	Tcl_DStringAppend(&g->plot, buf, -1);
	Tcl_DStringAppend(&g->plot, "title ", -1);
	AppendGpString(&g->plot, a->cols[g->cols[c]].name);
    }
    Tcl_DStringAppend(&g->plot, "\n", 1);
    return g->ncols > 0;
}

/*
 * Heat maps are drawn with gnuplot's "with image" over a dense grid of
 * bin numbers (a cell without I/Os is NaN, left blank), the tics labelled
 * with the bins' lower bounds and the colour scale logarithmic, since
 * I/O counts per cell are usually skewed over orders of magnitude.  A
 * grid of more than HEATMAP_MAX_CELLS cells is not drawn.
 */
#define HEATMAP_MAX_CELLS (1 << 20)

typedef struct HeatGrid {
    int xbin, ybin, lo[2], hi[2], count;	/* Columns. */
    double kmin[2], kmax[2];	/* Bin number ranges of x and y. */
} HeatGrid;

/*
 * HeatGridOf --
 *	Finds a heat map's columns and bin ranges.
 * Results: 1 when it has cells and a drawable grid, else 0.
 */
static int
HeatGridOf(const Rb_Attribute *a, HeatGrid *hg)
{
    int r, c;
    const char *names[2][2] = {{"xlo", "xhi"}, {"ylo", "yhi"}};

    hg->xbin = Rb_AttrColumnIndex(a, "xbin");
    hg->ybin = Rb_AttrColumnIndex(a, "ybin");
    hg->count = Rb_AttrColumnIndex(a, "count");
    for (c = 0; c < 2; c++) {
	hg->lo[c] = Rb_AttrColumnIndex(a, names[c][0]);
	hg->hi[c] = Rb_AttrColumnIndex(a, names[c][1]);
	if (hg->lo[c] < 0 || hg->hi[c] < 0) {
	    return 0;
	}
    }
    if (hg->xbin < 0 || hg->ybin < 0 || hg->count < 0 || a->nrows == 0) {
	return 0;
    }
    for (r = 0; r < a->nrows; r++) {
	double k[2] = {a->cols[hg->xbin].num[r], a->cols[hg->ybin].num[r]};

	for (c = 0; c < 2; c++) {
	    if (!isfinite(k[c])) {
		return 0;
	    }
	    hg->kmin[c] = r == 0 || k[c] < hg->kmin[c] ? k[c] : hg->kmin[c];
	    hg->kmax[c] = r == 0 || k[c] > hg->kmax[c] ? k[c] : hg->kmax[c];
	}
    }
    return (hg->kmax[0] - hg->kmin[0] + 1) * (hg->kmax[1] - hg->kmin[1] + 1)
	    <= HEATMAP_MAX_CELLS;
}

/*
 * AppendHeatTics --
 *	"set xtics (...)" (axis "x" or "y") with at most 8 tics at bin
 *	numbers, each labelled with its bin's lower bound: 2^k for log2
 *	bins, k times the width for linear ones, read off the cells.
 */
static void
AppendHeatTics(Tcl_DString *setup, const Rb_Attribute *a,
	const HeatGrid *hg, int axis)
{
    int kcol = axis ? hg->ybin : hg->xbin, r, log2 = 1, i;
    double width = 0, kmin = hg->kmin[axis], kmax = hg->kmax[axis], step;
    char buf[128], num[RB_NUMBUF];

    for (r = 0; r < a->nrows; r++) {
	double k = a->cols[kcol].num[r], lo = a->cols[hg->lo[axis]].num[r];
	double hi = a->cols[hg->hi[axis]].num[r];

	if (lo != ldexp(1.0, (int)k) && !(lo == 0 && hi == ldexp(1.0,
		(int)k + 1))) {
	    log2 = 0;
	}
	width = hi - lo;
    }
    step = ceil((kmax - kmin + 1) / 8.0);
    snprintf(buf, sizeof(buf), "set %ctics (", "xy"[axis]);
    Tcl_DStringAppend(setup, buf, -1);
    for (i = 0; kmin + i * step <= kmax; i++) {
	double k = kmin + i * step;
	double v = log2 ? ldexp(1.0, (int)k) : k * width;

	snprintf(buf, sizeof(buf), "%s'%s' %.0f", i ? ", " : "",
		RbReportNum(v, num), k);
	Tcl_DStringAppend(setup, buf, -1);
    }
    Tcl_DStringAppend(setup, ")\n", -1);
}

/*
 * PlanHeatmap --
 *	Fills g for a heat map (its data is written by WriteHeatData).
 * Results: 1 if there is something to draw, else 0.
 */
static int
PlanHeatmap(Graph *g, const Rb_Attribute *a, const char *dat)
{
    HeatGrid hg;
    char xname[64] = "x", yname[64] = "y", buf[160];

    if (!HeatGridOf(a, &hg)) {
	return 0;
    }
    /* HeatmapAnalyzer's help names the fields of its axes. */
    if (sscanf(a->help, "I/Os per cell of %63s (x) by %63s (y)", xname,
	    yname) != 2) {
	strcpy(xname, "x");
	strcpy(yname, "y");
    }
    SetLabel(&g->xlabel, xname, RbReportColUnit(a, hg.lo[0]));
    SetLabel(&g->ylabel, yname, RbReportColUnit(a, hg.lo[1]));
    snprintf(buf, sizeof(buf), "set xrange [%.1f:%.1f]\n"
	    "set yrange [%.1f:%.1f]\n", hg.kmin[0] - 0.5, hg.kmax[0] + 0.5,
	    hg.kmin[1] - 0.5, hg.kmax[1] + 0.5);
    Tcl_DStringAppend(&g->setup, buf, -1);
    AppendHeatTics(&g->setup, a, &hg, 0);
    AppendHeatTics(&g->setup, a, &hg, 1);
    Tcl_DStringAppend(&g->setup, "set grid front\nset logscale cb\n"
	    "set cblabel 'I/Os per cell'\nset palette rgb 21,22,23\n"
	    "set xtics rotate by -30\n", -1);
    Tcl_DStringAppend(&g->plot, "plot ", -1);
    Tcl_DStringAppend(&g->plot, dat, -1);
    Tcl_DStringAppend(&g->plot, " using 1:2:3 with image notitle\n", -1);
    return 1;
}

/*
 * WriteHeatData --
 *	Writes dir/base.dat for a heat map: every cell of the grid of bin
 *	numbers, x bin by x bin (a blank line between them), as "xbin ybin
 *	count", NaN for a cell without I/Os.
 * Results: TCL_OK or TCL_ERROR naming the file.
 */
static int
WriteHeatData(Tcl_Interp *interp, const char *dir, const char *base,
	const Rb_Attribute *a)
{
    HeatGrid hg;
    int64_t nx, ny, i, j;
    double *grid;
    char buf[RB_NUMBUF];
    Rb_Out out;
    int r;

    if (!HeatGridOf(a, &hg)) {
	return TCL_OK;
    }
    nx = (int64_t)(hg.kmax[0] - hg.kmin[0]) + 1;
    ny = (int64_t)(hg.kmax[1] - hg.kmin[1]) + 1;
    grid = Rb_AllocArray((size_t)nx * ny, sizeof(double));
    for (i = 0; i < nx * ny; i++) {
	grid[i] = NAN;
    }
    for (r = 0; r < a->nrows; r++) {
	i = (int64_t)(a->cols[hg.xbin].num[r] - hg.kmin[0]);
	j = (int64_t)(a->cols[hg.ybin].num[r] - hg.kmin[1]);
	grid[i * ny + j] = a->cols[hg.count].num[r] > 0
		? a->cols[hg.count].num[r] : NAN;
    }
    if (RbReportOpen(interp, dir, base, ".dat", &out) != TCL_OK) {
	free(grid);
	return TCL_ERROR;
    }
    fputs("# xbin\tybin\tcount\n", out.fp);
    for (i = 0; i < nx; i++) {
	for (j = 0; j < ny; j++) {
	    double v = grid[i * ny + j];

	    fprintf(out.fp, "%.0f\t%.0f\t%s\n", hg.kmin[0] + (double)i,
		    hg.kmin[1] + (double)j,
		    isfinite(v) ? RbReportNum(v, buf) : "NaN");
	}
	fputs("\n", out.fp);
    }
    free(grid);
    return Rb_OutClose(interp, &out);
}

/*
 * WriteScript --
 *	Writes dir/base.gp: labels, the kind's setup and plot command, once
 *	to PNG (pngcairo when the gnuplot has it) and once to SVG.  Paths in
 *	the script are relative to its directory.
 * Results: TCL_OK or TCL_ERROR naming the file.
 */
static int
WriteScript(Tcl_Interp *interp, const char *dir, const char *base, Graph *g)
{
    Tcl_DString ds;
    char size[32];
    Rb_Out out;

    if (RbReportOpen(interp, dir, base, ".gp", &out) != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_DStringInit(&ds);
    Tcl_DStringAppend(&ds, "# Rubicon ReporterGraph: ", -1);
    Tcl_DStringAppend(&ds, Tcl_DStringValue(&g->comment), -1);
    Tcl_DStringAppend(&ds, "\n# Render with: gnuplot ", -1);
    Tcl_DStringAppend(&ds, base, -1);
    Tcl_DStringAppend(&ds, ".gp (in this directory)\n"
	    "set datafile separator \"\\t\"\n"
	    "set grid\nset title ", -1);
    AppendGpString(&ds, Tcl_DStringValue(&g->title));
    Tcl_DStringAppend(&ds, " noenhanced\nset xlabel ", -1);
    AppendGpString(&ds, Tcl_DStringValue(&g->xlabel));
    Tcl_DStringAppend(&ds, " noenhanced\nset ylabel ", -1);
    AppendGpString(&ds, Tcl_DStringValue(&g->ylabel));
    Tcl_DStringAppend(&ds, " noenhanced\n", -1);
    Tcl_DStringAppend(&ds, Tcl_DStringValue(&g->setup), -1);
    snprintf(size, sizeof(size), "%d,560", g->width);
    Tcl_DStringAppend(&ds, "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) "
	    "{ set terminal pngcairo size ", -1);
    Tcl_DStringAppend(&ds, size, -1);
    Tcl_DStringAppend(&ds, " noenhanced } "
	    "else { set terminal png size ", -1);
    Tcl_DStringAppend(&ds, size, -1);
    Tcl_DStringAppend(&ds, " noenhanced }\nset output '", -1);
    Tcl_DStringAppend(&ds, base, -1);
    Tcl_DStringAppend(&ds, ".png'\n", -1);
    Tcl_DStringAppend(&ds, Tcl_DStringValue(&g->plot), -1);
    Tcl_DStringAppend(&ds, "set terminal svg size ", -1);
    Tcl_DStringAppend(&ds, size, -1);
    Tcl_DStringAppend(&ds, " noenhanced\nset output '", -1);
    Tcl_DStringAppend(&ds, base, -1);
    Tcl_DStringAppend(&ds, ".svg'\nreplot\nset output\n", -1);
    fputs(Tcl_DStringValue(&ds), out.fp);
    Tcl_DStringFree(&ds);
    return Rb_OutClose(interp, &out);
}

/*
 * WriteData --
 *	Writes dir/base.dat: a comment line naming the columns, then the
 *	chosen numeric columns of every row, tab-separated.  Undefined
 *	values are written NaN, which gnuplot draws as a gap in a line.
 * Results: TCL_OK or TCL_ERROR naming the file.
 */
static int
WriteData(Tcl_Interp *interp, const char *dir, const char *base,
	const Rb_Attribute *a, const Graph *g)
{
    Tcl_DString header;
    char buf[RB_NUMBUF];
    Rb_Out out;
    int r, c;

    if (RbReportOpen(interp, dir, base, ".dat", &out) != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_DStringInit(&header);
    for (c = 0; c < g->ncols; c++) {
	Tcl_DStringAppend(&header, c ? "\t" : "# ", -1);
	AppendLine(&header, a->cols[g->cols[c]].name);
    }
    fprintf(out.fp, "%s\n", Tcl_DStringValue(&header));
    Tcl_DStringFree(&header);
    for (r = 0; r < a->nrows; r++) {
	for (c = 0; c < g->ncols; c++) {
	    double v = a->cols[g->cols[c]].num[r];

	    fprintf(out.fp, "%s%s", c ? "\t" : "",
		    isfinite(v) ? RbReportNum(v, buf) : "NaN");
	}
	fputs("\n", out.fp);
    }
    return Rb_OutClose(interp, &out);
}

/*
 * ChargeFile --
 *	Charges the size of file path, written by gnuplot, to safe mode's
 *	-outlimit.
 * Results: TCL_OK, or TCL_ERROR with RUBICON SAFE LIMIT OUTPUT.
 */
static int
ChargeFile(Tcl_Interp *interp, const char *path)
{
    struct stat sb;

    if (stat(path, &sb) != 0) {
	return TCL_OK;
    }
    return Rb_SafeOutputCharge(interp, path, (Tcl_WideInt) sb.st_size);
}

/*
 * Render --
 *	Runs gnuplot on dir/base.gp from dir, through Tcl's exec so that
 *	its output is captured for the error message.  Warnings on stderr
 *	are not failures; a non-zero exit is.
 * Results: TCL_OK, or TCL_ERROR naming the script, with gnuplot's
 *	output.
 * Side effects: writes dir/base.png and .svg; removes them on failure,
 *	since a half-drawn picture should not look like a finished one.
 */
static int
Render(Tcl_Interp *interp, const char *dir, const char *base)
{
    Tcl_Obj *cmd, *cd;
    Tcl_DString script, ds;
    Tcl_Interp *runIn = interp;
    int code, limited = 0;

    /* A safe interpreter has no exec; its trusted parent runs gnuplot on
     * the script written here, whose only text from the configuration is
     * in single-quoted strings (no backquote or macro substitution) and
     * comments, and on files inside the output directory. */
    while (Tcl_IsSafe(runIn) && Tcl_GetMaster(runIn) != NULL) {
	runIn = Tcl_GetMaster(runIn);
    }

    Tcl_DStringInit(&ds);
    Tcl_DStringAppend(&ds, "cd ", -1);
    AppendGpString(&ds, dir);
    cd = Tcl_NewStringObj(Tcl_DStringValue(&ds), -1);
    Tcl_DStringFree(&ds);
    Tcl_DStringInit(&ds);
    Tcl_DStringAppend(&ds, base, -1);
    Tcl_DStringAppend(&ds, ".gp", -1);

    cmd = Tcl_NewListObj(0, NULL);
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj("::exec", -1));
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj("gnuplot", -1));
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj("-e", -1));
    Tcl_ListObjAppendElement(NULL, cmd, cd);
    Tcl_ListObjAppendElement(NULL, cmd,
	    Tcl_NewStringObj(Tcl_DStringValue(&ds), -1));
    Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj("2>@1", -1));
    Tcl_DStringFree(&ds);
    Tcl_IncrRefCount(cmd);
    code = Tcl_EvalObjEx(runIn, cmd, TCL_EVAL_GLOBAL);
    Tcl_DecrRefCount(cmd);
    if (code == TCL_OK) {
	Tcl_ResetResult(runIn);
	/* gnuplot wrote by name, past Rb_Out's count of bytes. */
	RbReportJoinPath(dir, base, ".png", &ds);
	code = ChargeFile(interp, Tcl_DStringValue(&ds));
	Tcl_DStringFree(&ds);
	RbReportJoinPath(dir, base, ".svg", &ds);
	if (code == TCL_OK) {
	    code = ChargeFile(interp, Tcl_DStringValue(&ds));
	}
	Tcl_DStringFree(&ds);
	if (code == TCL_OK) {
	    return TCL_OK;
	}
	limited = 1;
    } else if (runIn != interp) {
	Tcl_SetObjResult(interp, Tcl_GetObjResult(runIn));
	Tcl_ResetResult(runIn);
    }

    RbReportJoinPath(dir, base, ".gp", &script);
    RbReportJoinPath(dir, base, ".png", &ds);
    remove(Tcl_DStringValue(&ds));
    Tcl_DStringFree(&ds);
    RbReportJoinPath(dir, base, ".svg", &ds);
    remove(Tcl_DStringValue(&ds));
    Tcl_DStringFree(&ds);
    if (limited) {
	Tcl_DStringFree(&script);
	return TCL_ERROR;
    }
    code = Rb_SetInterpError(interp, "RUBICON REPORTER GNUPLOT",
	    "gnuplot failed on \"%s\": %s", Tcl_DStringValue(&script),
	    Tcl_GetStringResult(interp));
    Tcl_DStringFree(&script);
    return code;
}

/*
 * Emit --
 *	Writes a planned picture's data and script, renders it if asked
 *	to, and tells gr->done about it.
 * Results: TCL_OK or TCL_ERROR naming the file that failed.
 */
static int
Emit(GraphRun *gr, const Rb_Flow *flow, const char *base,
	const Rb_Attribute *a, Graph *g)
{
    if (a != NULL && WriteData(gr->interp, gr->dir, base, a, g) != TCL_OK) {
	return TCL_ERROR;
    }
    if (WriteScript(gr->interp, gr->dir, base, g) != TCL_OK) {
	return TCL_ERROR;
    }
    if (gr->render && Render(gr->interp, gr->dir, base) != TCL_OK) {
	return TCL_ERROR;
    }
    if (gr->done != NULL) {
	gr->done(gr->cd, flow, base, Tcl_DStringValue(&g->title));
    }
    return TCL_OK;
}

/*
 * GraphAttr --
 *	The picture of one (flow, attribute), when its kind has one.
 */
static int
GraphAttr(GraphRun *gr, const Rb_ReportItem *it)
{
    const Rb_Attribute *a = it->attr;
    const char *flow = Rb_FlowName(it->flow);
    Tcl_DString base, dat, quoted;
    Graph g;
    int planned, code = TCL_OK;

    if (a->nrows == 0 || a->ncols == 0) {
	return TCL_OK;
    }
    RbReportFileName(&gr->names, flow, a->name, &base);
    Tcl_DStringInit(&dat);
    Tcl_DStringAppend(&dat, Tcl_DStringValue(&base), -1);
    Tcl_DStringAppend(&dat, ".dat", -1);
    Tcl_DStringInit(&quoted);
    AppendGpString(&quoted, Tcl_DStringValue(&dat));
    GraphInit(&g, a);
    SetTitle(&g, flow, a);
    switch (a->kind) {
    case RB_ATTR_SERIES:
	planned = PlanSeries(&g, a, Tcl_DStringValue(&quoted));
	break;
    case RB_ATTR_HISTOGRAM:
	planned = PlanHistogram(&g, a, Tcl_DStringValue(&quoted),
		gr->logMode);
	break;
    case RB_ATTR_PERCENTILES:
	planned = PlanPercentiles(&g, a, Tcl_DStringValue(&quoted),
		gr->logMode);
	break;
    case RB_ATTR_VECTOR:
	planned = PlanVector(&g, a, Tcl_DStringValue(&quoted));
	break;
    case RB_ATTR_HEATMAP:
	planned = PlanHeatmap(&g, a, Tcl_DStringValue(&quoted));
	if (planned && WriteHeatData(gr->interp, gr->dir,
		Tcl_DStringValue(&base), a) != TCL_OK) {
	    code = TCL_ERROR;
	    planned = 0;
	}
	break;
    default:
	planned = 0;
	break;
    }
    if (planned) {
	code = Emit(gr, it->flow, Tcl_DStringValue(&base),
		a->kind == RB_ATTR_HEATMAP ? NULL : a, &g);
    }
    GraphFree(&g);
    Tcl_DStringFree(&quoted);
    Tcl_DStringFree(&dat);
    Tcl_DStringFree(&base);
    return code;
}

/*
 * CompareScalarItems --
 *	qsort order for scalar items: by attribute name, then by position
 *	(items carry their index in the set through the pointer order).
 */
static int
CompareScalarItems(const void *pa, const void *pb)
{
    const Rb_ReportItem *a = *(const Rb_ReportItem *const *) pa;
    const Rb_ReportItem *b = *(const Rb_ReportItem *const *) pb;
    int c = strcmp(a->attr->name, b->attr->name);

    return c ? c : (a < b ? -1 : a > b);
}

/*
 * FlowAmong --
 *	1 if flow is that of one of the n items: a Flow bound twice still
 *	counts once towards "appears in several Flows".
 */
static int
FlowAmong(const Rb_ReportItem *const *items, int n, const Rb_Flow *flow)
{
    int i;

    for (i = 0; i < n; i++) {
	if (items[i]->flow == flow) {
	    return 1;
	}
    }
    return 0;
}

/*
 * WriteBarData --
 *	The data of a bar chart: "index value flow" for each of n scalar
 *	items (flow names with tabs and newlines made spaces, since they
 *	are tick labels in a tab-separated file).
 */
static int
WriteBarData(Tcl_Interp *interp, const char *dir, const char *base,
	const Rb_ReportItem *const *items, int n)
{
    char buf[RB_NUMBUF];
    Rb_Out out;
    const char *p;
    int i;

    if (RbReportOpen(interp, dir, base, ".dat", &out) != TCL_OK) {
	return TCL_ERROR;
    }
    fputs("# index\tvalue\tflow\n", out.fp);
    for (i = 0; i < n; i++) {
	double v = items[i]->attr->cols[0].num[0];

	fprintf(out.fp, "%d\t%s\t", i,
		isfinite(v) ? RbReportNum(v, buf) : "NaN");
	for (p = Rb_FlowName(items[i]->flow); *p; p++) {
	    putc((unsigned char) *p < 0x20 || *p == '"' ? ' ' : *p, out.fp);
	}
	fputs("\n", out.fp);
    }
    return Rb_OutClose(interp, &out);
}

/*
 * GraphBars --
 *	One bar chart, a bar per Flow, for each numeric scalar name that
 *	appears in two or more bound Flows (the paper's "Bandwidth per
 *	device" picture), or in one when the reporter names its Attributes
 *	(the user asked for that picture).
 * Results: TCL_OK or TCL_ERROR naming the file that failed.
 */
static int
GraphBars(GraphRun *gr, const Rb_ReportSet *set)
{
    const Rb_ReportItem **sc;
    int n = 0, i, j, k, code = TCL_OK;

    sc = (const Rb_ReportItem **) Rb_AllocArray(set->nitems + 1,
	    sizeof(Rb_ReportItem *));
    for (i = 0; i < set->nitems; i++) {
	const Rb_Attribute *a = set->items[i].attr;

	if (a->kind == RB_ATTR_SCALAR && a->nrows >= 1 && a->ncols >= 1
		&& !a->cols[0].isText) {
	    sc[n++] = &set->items[i];
	}
    }
    qsort(sc, n, sizeof(*sc), CompareScalarItems);

    for (i = 0; i < n && code == TCL_OK; i = j) {
	const Rb_Attribute *a = sc[i]->attr;
	int nflows = 0, finite = 0;
	double *v;
	Tcl_DString base, quoted;
	Graph g;
	char buf[64];

	for (j = i; j < n && strcmp(sc[j]->attr->name, a->name) == 0; j++) {
	    nflows += !FlowAmong(sc + i, j - i, sc[j]->flow);
	    finite += isfinite(sc[j]->attr->cols[0].num[0]) != 0;
	}
	if (nflows < (set->named ? 1 : 2) || finite == 0) {
	    continue;
	}

	RbReportFileName(&gr->names, "by-flow", a->name, &base);
	GraphInit(&g, NULL);
	Tcl_DStringAppend(&g.title, a->name, -1);
	Tcl_DStringAppend(&g.title, " by Flow", -1);
	Tcl_DStringAppend(&g.comment, "attribute ", -1);
	AppendLine(&g.comment, a->name);
	Tcl_DStringAppend(&g.comment, " of each Flow (scalar)", -1);
	SetLabel(&g.xlabel, "Flow", "");
	SetLabel(&g.ylabel, a->name, RbReportColUnit(a, 0));
	v = (double *) Rb_AllocArray(j - i, sizeof(double));
	for (k = i; k < j; k++) {
	    v[k - i] = sc[k]->attr->cols[0].num[0];
	}
	AppendYRange(&g.setup, v, j - i);
	free(v);
	snprintf(buf, sizeof(buf), "set xrange [-0.6:%d.6]\n", j - i - 1);
	Tcl_DStringAppend(&g.setup, buf, -1);
	Tcl_DStringAppend(&g.setup, "set style fill solid 0.6 border -1\n"
		"set boxwidth 0.7\nset grid noxtics ytics\n", -1);
	/* Many Flows (one per disk, LUN or volume): a wider picture and
	 * upright names, so that every bar keeps a readable label. */
	if (j - i > 6) {
	    Tcl_DStringAppend(&g.setup, "set xtics rotate by 90 right"
		    " font ',9'\n", -1);
	}
	if (140 + 16 * (j - i) > g.width) {
	    g.width = 140 + 16 * (j - i);
	}
	Tcl_DStringInit(&quoted);
	Tcl_DStringAppend(&quoted, Tcl_DStringValue(&base), -1);
	Tcl_DStringAppend(&quoted, ".dat", -1);
	Tcl_DStringAppend(&g.plot, "plot ", -1);
	AppendGpString(&g.plot, Tcl_DStringValue(&quoted));
	Tcl_DStringAppend(&g.plot,
		" using 1:2:xtic(3) with boxes notitle\n", -1);
	Tcl_DStringFree(&quoted);

	code = WriteBarData(gr->interp, gr->dir, Tcl_DStringValue(&base),
		sc + i, j - i);
	if (code == TCL_OK) {
	    code = Emit(gr, NULL, Tcl_DStringValue(&base), NULL, &g);
	}
	GraphFree(&g);
	Tcl_DStringFree(&base);
    }
    free(sc);
    return code;
}

/*
 * RbReportGraphs --
 *	Writes the picture of every item of set that has one, then the
 *	per-flow bar charts, into the existing directory dir; renders them
 *	when render is set (gnuplot must be on PATH).  ReporterGraph and
 *	ReporterHtml both draw through here.
 * Results: TCL_OK, or TCL_ERROR at the first file or gnuplot run that
 *	failed.
 * Side effects: calls done(cd, flow, base, title) for each picture
 *	made (flow NULL for a bar chart), when done is not NULL.
 */
int
RbReportGraphs(Tcl_Interp *interp, const char *dir, const Rb_ReportSet *set,
	int render, int logMode, Rb_GraphDone *done, void *cd)
{
    GraphRun gr;
    int j, code = TCL_OK;

    gr.interp = interp;
    gr.dir = dir;
    gr.render = render;
    gr.logMode = logMode;
    gr.done = done;
    gr.cd = cd;
    RbReportNamesInit(&gr.names);
    for (j = 0; j < set->nitems && code == TCL_OK; j++) {
	code = GraphAttr(&gr, &set->items[j]);
    }
    if (code == TCL_OK) {
	code = GraphBars(&gr, set);
    }
    RbReportNamesFree(&gr.names);
    return code;
}

/*
 * GraphInitHook --
 *	The check of a configure: -logscale is auto or a boolean.
 */
static int
GraphInitHook(Rb_Reporter *r, Tcl_Interp *interp)
{
    GraphState *st = r->state;
    int mode;

    return RbReportLogMode(interp, st->logscale, &mode);
}

/*
 * GraphWrite --
 *	The write hook: creates the output directory and draws into it.
 * Results: TCL_OK, or TCL_ERROR at the first file or gnuplot run that
 *	failed.
 */
static int
GraphWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    GraphState *st = r->state;
    Rb_ReportSet set;
    int code, logMode;

    if (RbReportLogMode(r->interp, st->logscale, &logMode) != TCL_OK
	    || RbReportCollect(r, &set) != TCL_OK) {
	return TCL_ERROR;
    }
    code = RbReportMkdir(r->interp, r->output);
    if (code == TCL_OK) {
	code = RbReportGraphs(r->interp, r->output, &set,
		st->render && RbReportOnPath("gnuplot"), logMode, NULL, NULL);
    }
    RbReportSetFree(&set);
    return code;
}

const Rb_ReporterClass Rb_ReporterGraphClass = {
    "ReporterGraph",
    "gnuplot scripts and data per attribute, rendered to PNG and SVG",
    sizeof(GraphState),
    graphOptions,
    "graphs",
    GraphInitHook,
    GraphWrite,
    NULL
};
