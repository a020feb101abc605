/*
 * timelineDraw.c --
 *
 *	magpie::timeline FLOW REQUEST FILE ?-attribute NAME? ?-gnuplot FILE?
 *	    ?-width PX?
 *
 *	Draws one request listed by a MagpieParserAnalyzer (its entries, as
 *	magpie::request gives them) as SVG: one lane per thread (or
 *	interrupt context) per machine, a bar per CPU run, a dot per event,
 *	and a line per packet hop and per synchronization.  Machines other
 *	than the one the request began on are moved onto its clock by the
 *	offset the request's packet hops give (see AlignClocks).  With
 *	-gnuplot the same picture is also written as a gnuplot script.
 */

#include <math.h>
#include <stdlib.h>
#include "plugins/magpie/magpie.h"

#define LABEL_WIDTH	160.0	/* px left of the time axis */
#define LANE_HEIGHT	30.0
#define TOP		40.0	/* px above the first lane */
#define MAX_LANES	256

/* One thing drawn: a CPU run ("run", or "intr" on an interrupt
 * context's lane), an "event", or a "hop" or "sync" from one lane to
 * another.  Times in seconds of the machine's own clock. */
typedef struct Row {
    const char *kind, *machine, *toMachine, *label;
    char lane[48], toLane[48];
    double begin, end;
} Row;

typedef struct Lane {
    const char *machine, *lane;
} Lane;

typedef struct Drawing {
    Row *rows;
    int nrows;
    const char *home;		/* Machine the request began on. */
    int nmachines;
    const char *machines[MAX_LANES];
    double offset[MAX_LANES];	/* Seconds to subtract from its clock. */
    int nlanes;
    Lane lanes[MAX_LANES];
    double t0, t1;		/* Aligned time range drawn. */
    double width;		/* px of the time axis */
} Drawing;

/*
 * MachineIndex --
 *	The index of machine m in the drawing, added if new.
 */
static int
MachineIndex(Drawing *d, const char *m)
{
    int k;

    for (k = 0; k < d->nmachines; k++) {
	if (strcmp(d->machines[k], m) == 0) {
	    return k;
	}
    }
    if (d->nmachines == MAX_LANES) {
	return 0;
    }
    d->machines[d->nmachines] = m;
    d->offset[d->nmachines] = 0;
    return d->nmachines++;
}

/*
 * LaneIndex --
 *	The index of lane (machine, lane), or -1.
 */
static int
LaneIndex(const Drawing *d, const char *machine, const char *lane)
{
    int k;

    for (k = 0; k < d->nlanes; k++) {
	if (strcmp(d->lanes[k].machine, machine) == 0
		&& strcmp(d->lanes[k].lane, lane) == 0) {
	    return k;
	}
    }
    return -1;
}

static void
AddLane(Drawing *d, const char *machine, const char *lane)
{
    if (LaneIndex(d, machine, lane) < 0 && d->nlanes < MAX_LANES) {
	d->lanes[d->nlanes].machine = machine;
	d->lanes[d->nlanes++].lane = lane;
    }
}

/*
 * AlignClocks --
 *	The offset of each machine's clock from the home machine's, from
 *	the request's packet hops: with hops both ways, half the difference
 *	of the mean one-way delays out and back (the NTP estimate, exact
 *	when the two directions take equal time); with hops one way only,
 *	the smallest delay (as if the network took no time).  A machine
 *	with no hop to or from home keeps its own clock.
 */
static void
AlignClocks(Drawing *d)
{
    int m, k;

    for (m = 0; m < d->nmachines; m++) {
	double out = 0, back = 0, minOut = HUGE_VAL, minBack = HUGE_VAL;
	int nout = 0, nback = 0;

	if (strcmp(d->machines[m], d->home) == 0) {
	    continue;
	}
	for (k = 0; k < d->nrows; k++) {
	    const Row *r = &d->rows[k];
	    double delay = r->end - r->begin;

	    if (strcmp(r->kind, "hop") != 0) {
		continue;
	    }
	    if (strcmp(r->machine, d->home) == 0
		    && strcmp(r->toMachine, d->machines[m]) == 0) {
		out += delay;
		minOut = fmin(minOut, delay);
		nout++;
	    } else if (strcmp(r->machine, d->machines[m]) == 0
		    && strcmp(r->toMachine, d->home) == 0) {
		back += delay;
		minBack = fmin(minBack, delay);
		nback++;
	    }
	}
	if (nout > 0 && nback > 0) {
	    d->offset[m] = (out / nout - back / nback) / 2;
	} else if (nout > 0) {
	    d->offset[m] = minOut;
	} else if (nback > 0) {
	    d->offset[m] = -minBack;
	}
    }
}

/*
 * Aligned --
 *	Time t of machine m on the home machine's clock.
 */
static double
Aligned(Drawing *d, const char *m, double t)
{
    return t - d->offset[MachineIndex(d, m)];
}

static double
X(const Drawing *d, double t)
{
    return LABEL_WIDTH + (t - d->t0) / (d->t1 - d->t0) * d->width;
}

static double
Y(const Drawing *d, const char *machine, const char *lane)
{
    return TOP + LaneIndex(d, machine, lane) * LANE_HEIGHT
	    + LANE_HEIGHT / 2;
}

/*
 * Layout --
 *	Lanes (the home machine's first, each in order of appearance) and
 *	the time range, after the clocks are aligned.
 */
static void
Layout(Drawing *d)
{
    int pass, k;

    MachineIndex(d, d->home);
    for (k = 0; k < d->nrows; k++) {
	MachineIndex(d, d->rows[k].machine);
	if (*d->rows[k].toMachine) {
	    MachineIndex(d, d->rows[k].toMachine);
	}
    }
    AlignClocks(d);
    for (pass = 0; pass < 2; pass++) {
	for (k = 0; k < d->nrows; k++) {
	    const Row *r = &d->rows[k];

	    if ((strcmp(r->machine, d->home) == 0) == (pass == 0)) {
		AddLane(d, r->machine, r->lane);
	    }
	    if (*r->toMachine && (strcmp(r->toMachine, d->home) == 0)
		    == (pass == 0)) {
		AddLane(d, r->toMachine, r->toLane);
	    }
	}
    }
    d->t0 = HUGE_VAL;
    d->t1 = -HUGE_VAL;
    for (k = 0; k < d->nrows; k++) {
	const Row *r = &d->rows[k];
	double b, e;

	b = Aligned(d, r->machine, r->begin);
	e = Aligned(d, *r->toMachine ? r->toMachine : r->machine, r->end);
	d->t0 = fmin(d->t0, fmin(b, e));
	d->t1 = fmax(d->t1, fmax(b, e));
    }
    if (!(d->t1 > d->t0)) {
	d->t1 = d->t0 + 1e-6;
    }
}

/*
 * PutXml --
 *	Writes s with XML's special characters escaped.
 */
static void
PutXml(FILE *fp, const char *s)
{
    for (; *s; s++) {
	switch (*s) {
	case '<': fputs("&lt;", fp); break;
	case '>': fputs("&gt;", fp); break;
	case '&': fputs("&amp;", fp); break;
	case '"': fputs("&quot;", fp); break;
	default: fputc(*s, fp);
	}
    }
}

/*
 * PutGnuplotString --
 *	Writes s as a double-quoted gnuplot string.
 */
static void
PutGnuplotString(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
	if (*s == '"' || *s == '\\') {
	    fputc('\\', fp);
	}
	fputc(*s == '\n' ? ' ' : *s, fp);
    }
    fputc('"', fp);
}

/*
 * WriteSvg --
 *	The drawing as SVG.  Every element carries its times as data-
 *	attributes (seconds, home clock) beside its coordinates.
 */
static void
WriteSvg(FILE *fp, Drawing *d, const char *request)
{
    int l, k;

    fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
	    "height=\"%.0f\" data-t0=\"%.9f\" data-t1=\"%.9f\">\n",
	    LABEL_WIDTH + d->width + 20, TOP + d->nlanes * LANE_HEIGHT + 20,
	    d->t0, d->t1);
    fprintf(fp, "<title>Magpie request ");
    PutXml(fp, request);
    fprintf(fp, "</title>\n<style>.run{fill:#4a7ebb}.intr{fill:#d9822b}"
	    ".event{fill:#222}.hop{stroke:#c03030;stroke-width:1.5}"
	    ".sync{stroke:#2a9d4a;stroke-dasharray:4 2}"
	    ".guide{stroke:#ccc}text{font:11px sans-serif}</style>\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    fprintf(fp, "<g class=\"axis\"><text x=\"%.3f\" y=\"%.0f\">%.6f s"
	    "</text><text x=\"%.3f\" y=\"%.0f\" text-anchor=\"end\">%.6f s"
	    "</text></g>\n", LABEL_WIDTH, TOP - 12, d->t0,
	    LABEL_WIDTH + d->width, TOP - 12, d->t1);
    for (l = 0; l < d->nlanes; l++) {
	const Lane *ln = &d->lanes[l];
	double y = Y(d, ln->machine, ln->lane);

	fprintf(fp, "<g class=\"lane\" data-machine=\"");
	PutXml(fp, ln->machine);
	fprintf(fp, "\" data-lane=\"");
	PutXml(fp, ln->lane);
	fprintf(fp, "\" data-offset=\"%.9f\">\n<text x=\"4\" y=\"%.3f\">",
		d->offset[MachineIndex(d, ln->machine)], y + 4);
	PutXml(fp, ln->machine);
	fputc(' ', fp);
	PutXml(fp, ln->lane);
	fprintf(fp, "</text>\n<line class=\"guide\" x1=\"%.3f\" y1=\"%.3f\" "
		"x2=\"%.3f\" y2=\"%.3f\"/>\n", LABEL_WIDTH, y,
		LABEL_WIDTH + d->width, y);
	for (k = 0; k < d->nrows; k++) {
	    const Row *r = &d->rows[k];
	    double b, e;

	    if (strcmp(r->machine, ln->machine) != 0
		    || strcmp(r->lane, ln->lane) != 0) {
		continue;
	    }
	    b = Aligned(d, r->machine, r->begin);
	    e = Aligned(d, r->machine, r->end);
	    if (strcmp(r->kind, "run") == 0 || strcmp(r->kind, "intr") == 0) {
		fprintf(fp, "<rect class=\"%s\" x=\"%.3f\" y=\"%.3f\" "
			"width=\"%.3f\" height=\"%.3f\" data-begin=\"%.9f\" "
			"data-end=\"%.9f\"/>\n", r->kind, X(d, b),
			y - LANE_HEIGHT / 4, X(d, e) - X(d, b),
			LANE_HEIGHT / 2, b, e);
	    } else if (strcmp(r->kind, "event") == 0) {
		fprintf(fp, "<circle class=\"event\" cx=\"%.3f\" cy=\"%.3f\" "
			"r=\"3\" data-time=\"%.9f\"><title>", X(d, b),
			y - LANE_HEIGHT / 4 - 3, b);
		PutXml(fp, r->label);
		fprintf(fp, "</title></circle>\n");
	    }
	}
	fprintf(fp, "</g>\n");
    }
    for (k = 0; k < d->nrows; k++) {
	const Row *r = &d->rows[k];
	double b, e;

	if (strcmp(r->kind, "hop") != 0 && strcmp(r->kind, "sync") != 0) {
	    continue;
	}
	b = Aligned(d, r->machine, r->begin);
	e = Aligned(d, r->toMachine, r->end);
	fprintf(fp, "<line class=\"%s\" x1=\"%.3f\" y1=\"%.3f\" x2=\"%.3f\" "
		"y2=\"%.3f\" data-begin=\"%.9f\" data-end=\"%.9f\"><title>",
		r->kind, X(d, b), Y(d, r->machine, r->lane), X(d, e),
		Y(d, r->toMachine, r->toLane), b, e);
	PutXml(fp, r->label);
	fprintf(fp, "</title></line>\n");
    }
    fprintf(fp, "</svg>\n");
}

/*
 * WriteGnuplot --
 *	The same drawing as a gnuplot script: lane y is its index, x the
 *	aligned time in seconds; runs are rectangles, hops and syncs arrows,
 *	events points.  The terminal is left to the caller.
 */
static void
WriteGnuplot(FILE *fp, Drawing *d, const char *request)
{
    int l, k, obj = 0;

    fprintf(fp, "# Magpie request %s: lanes (thread or interrupt context "
	    "per machine), CPU runs, events, packet hops and syncs.\n",
	    request);
    fprintf(fp, "set title ");
    PutGnuplotString(fp, request);
    fprintf(fp, "\nset xlabel \"seconds\"\nset xrange [%.9f:%.9f]\n"
	    "set yrange [-1:%d]\nset ytics (", d->t0, d->t1, d->nlanes);
    for (l = 0; l < d->nlanes; l++) {
	char name[256];

	snprintf(name, sizeof(name), "%s %s", d->lanes[l].machine,
		d->lanes[l].lane);
	fprintf(fp, l ? ", " : "");
	PutGnuplotString(fp, name);
	fprintf(fp, " %d", l);
    }
    fprintf(fp, ")\nunset key\n");
    for (k = 0; k < d->nrows; k++) {
	const Row *r = &d->rows[k];
	double b = Aligned(d, r->machine, r->begin);
	int y = LaneIndex(d, r->machine, r->lane);

	if (strcmp(r->kind, "run") == 0 || strcmp(r->kind, "intr") == 0) {
	    fprintf(fp, "set object %d rect from %.9f,%g to %.9f,%g "
		    "fc rgb \"%s\" fs solid noborder\n", ++obj, b, y - 0.25,
		    Aligned(d, r->machine, r->end), y + 0.25,
		    r->kind[0] == 'r' ? "#4a7ebb" : "#d9822b");
	} else if (strcmp(r->kind, "hop") == 0
		|| strcmp(r->kind, "sync") == 0) {
	    fprintf(fp, "set arrow from %.9f,%d to %.9f,%d lc rgb \"%s\"\n",
		    b, y, Aligned(d, r->toMachine, r->end),
		    LaneIndex(d, r->toMachine, r->toLane),
		    r->kind[0] == 'h' ? "#c03030" : "#2a9d4a");
	} else if (strcmp(r->kind, "event") == 0) {
	    fprintf(fp, "set label ");
	    PutGnuplotString(fp, r->label);
	    fprintf(fp, " at %.9f,%g point pt 7 ps 0.5 font \",7\" "
		    "rotate by 45\n", b, y + 0.3);
	}
    }
    fprintf(fp, "plot NaN notitle\n");
}

/*
 * LaneName --
 *	The lane of an entry as text: the thread's value, or intr:N for the
 *	interrupt context begun at record N (as magpie::request names them).
 */
static void
LaneName(const MgSchema *mg, const MgEvent *e, char *buf, size_t n)
{
    int f, threadIsString = 0;

    for (f = 0; f < mg->rec->nfields; f++) {
	if (mg->threadDomain >= 0 && mg->fieldDomain[f] == mg->threadDomain) {
	    threadIsString = mg->rec->fields[f].type == RB_FT_STRING;
	    break;
	}
    }
    if (e->intr) {
	snprintf(buf, n, "intr:%lld", (long long)e->thread);
    } else if (e->thread == RB_ABSENT) {
	snprintf(buf, n, "-");
    } else if (threadIsString) {
	snprintf(buf, n, "%s", Rb_SchemaString(mg->rec, e->thread));
    } else {
	snprintf(buf, n, "%lld", (long long)e->thread);
    }
}

/*
 * EventOf --
 *	The entry of the event with record number recNo, or NULL.
 */
static const MgEvent *
EventOf(const MgRequest *r, int64_t recNo)
{
    int k;

    for (k = 0; k < r->nev; k++) {
	if (r->ev[k].kind == MG_EVENT && (int64_t)r->ev[k].recNo == recNo) {
	    return &r->ev[k];
	}
    }
    return NULL;
}

/*
 * Link --
 *	A "hop" or "sync" row from the entry at one end to the other.
 */
static void
Link(const MgSchema *mg, Row *row, const char *kind, const MgEvent *from,
	const MgEvent *to, int type)
{
    row->kind = kind;
    row->machine = Rb_SchemaString(mg->rec, from->machine);
    LaneName(mg, from, row->lane, sizeof(row->lane));
    row->begin = from->time / 1e9;
    row->toMachine = Rb_SchemaString(mg->rec, to->machine);
    LaneName(mg, to, row->toLane, sizeof(row->toLane));
    row->end = to->time / 1e9;
    row->label = mg->events[type].name;
}

/*
 * BuildRows --
 *	What to draw of request r: its CPU charges (a lane's consecutive
 *	charges are one run), its events other than context switches, a
 *	hop per MG_HOP entry (from the sending event) and a sync per Signal
 *	(to the event it signals).
 */
static void
BuildRows(const MgSchema *mg, const MgRequest *r, Drawing *d)
{
    int k;

    d->rows = (Row *)Rb_AllocArray(r->nev, sizeof(Row));
    d->home = Rb_SchemaString(mg->rec, r->machine);
    for (k = 0; k < r->nev; k++) {
	const MgEvent *e = &r->ev[k], *other;
	Row *row = &d->rows[d->nrows], *prev = NULL;
	int j;

	row->toMachine = "";
	row->label = "";
	switch (e->kind) {
	case MG_CPU:
	    row->kind = e->intr ? "intr" : "run";
	    row->machine = Rb_SchemaString(mg->rec, e->machine);
	    LaneName(mg, e, row->lane, sizeof(row->lane));
	    row->begin = (e->time - e->amount) / 1e9;
	    row->end = e->time / 1e9;
	    for (j = d->nrows - 1; j >= 0 && prev == NULL; j--) {
		if (strcmp(d->rows[j].kind, row->kind) == 0
			&& strcmp(d->rows[j].machine, row->machine) == 0
			&& strcmp(d->rows[j].lane, row->lane) == 0) {
		    prev = &d->rows[j];
		}
	    }
	    if (prev != NULL && prev->end == row->begin) {
		prev->end = row->end;
	    } else {
		d->nrows++;
	    }
	    break;
	case MG_EVENT:
	    if (mg->events[e->type].cswitchCpu >= 0) {
		break;
	    }
	    row->kind = "event";
	    row->machine = Rb_SchemaString(mg->rec, e->machine);
	    LaneName(mg, e, row->lane, sizeof(row->lane));
	    row->begin = row->end = e->time / 1e9;
	    row->label = mg->events[e->type].name;
	    d->nrows++;
	    break;
	case MG_HOP:
	    if ((other = EventOf(r, e->amount)) != NULL) {
		Link(mg, row, "hop", other, e, e->type);
		d->nrows++;
	    }
	    break;
	case MG_SIGNAL:
	    if ((other = EventOf(r, e->amount)) != NULL) {
		Link(mg, row, "sync", e, other, e->type);
		d->nrows++;
	    }
	    break;
	default:
	    break;
	}
    }
}

/*
 * TimelineCmd --
 *	magpie::timeline FLOW REQUEST FILE ?-attribute NAME? ?-gnuplot FILE?
 *	    ?-width PX?
 * Results: TCL_OK with the number of lanes drawn, or TCL_ERROR.
 * Side effects: writes FILE (and the gnuplot script), each through a
 *	temporary file renamed when complete.
 */
static int
TimelineCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-attribute", "-gnuplot", "-width",
	NULL};
    const char *attrName = "Requests", *gnuplot = NULL;
    const MgRequest *r;
    const MgSchema *mg;
    Drawing d;
    Rb_Out out;
    int k, opt, rc = TCL_ERROR;

    if (objc < 4 || objc % 2 != 0) {
	Tcl_WrongNumArgs(interp, 1, objv, "flow request file ?-attribute "
		"name? ?-gnuplot file? ?-width px?");
	return TCL_ERROR;
    }
    memset(&d, 0, sizeof(d));
    d.width = 800;
    for (k = 4; k < objc; k += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[k], opts, "option", 0, &opt)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (opt == 0) {
	    attrName = Tcl_GetString(objv[k + 1]);
	} else if (opt == 1) {
	    gnuplot = Tcl_GetString(objv[k + 1]);
	} else if (Tcl_GetDoubleFromObj(interp, objv[k + 1], &d.width)
		!= TCL_OK || !(d.width >= 50 && d.width <= 100000)) {
	    return Rb_SetInterpError(interp, "RUBICON MAGPIE TIMELINE",
		    "-width must be 50 to 100000 pixels");
	}
    }
    r = MgFlowRequest(interp, objv[1], objv[2], attrName,
	    "RUBICON MAGPIE TIMELINE", &mg);
    if (r == NULL) {
	return TCL_ERROR;
    }
    BuildRows(mg, r, &d);
    Layout(&d);
    if (Rb_OutOpen(interp, Tcl_GetString(objv[3]), &out) != TCL_OK) {
	goto done;
    }
    WriteSvg(out.fp, &d, Tcl_GetString(objv[2]));
    if (Rb_OutClose(interp, &out) != TCL_OK) {
	goto done;
    }
    if (gnuplot != NULL) {
	if (Rb_OutOpen(interp, gnuplot, &out) != TCL_OK) {
	    goto done;
	}
	WriteGnuplot(out.fp, &d, Tcl_GetString(objv[2]));
	if (Rb_OutClose(interp, &out) != TCL_OK) {
	    goto done;
	}
    }
    Tcl_SetObjResult(interp, Tcl_NewIntObj(d.nlanes));
    rc = TCL_OK;
  done:
    free(d.rows);
    return rc;
}

/*
 * MgTimelineInitCmds --
 *	Creates magpie::timeline.
 */
int
MgTimelineInitCmds(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::magpie::timeline", TimelineCmd, NULL,
	    NULL);
    return TCL_OK;
}
