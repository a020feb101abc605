/*
 * avRequestSize.c --
 *
 *	The extension examples of the Rubicon paper (Veitch & Keeton), its
 *	Figures 5, 6 and 7, written again in C against Rubicon's public API:
 *	an Attribute holding the average request size (Figure 5), the
 *	Analyzer that computes it, AnalyzerAvRequestSize (Figure 6), and a
 *	simple Reporter, ReporterSimple (Figure 7).  The paper wrote them as
 *	C++ classes; here an Attribute is a value built with Rb_AttrCreate,
 *	and an Analyzer or Reporter class a struct of hooks.  It includes
 *	only rubicon.h, links only the Tcl stub library, and is built
 *	outside the tree (see the Makefile beside it):
 *
 *	    package require paperexample
 *	    set f [Flow disk1]
 *	    AnalyzerAvRequestSize $f
 *	    ReporterSimple $f AvRequestSize -output simple.txt
 */

#define RUBICON_STUBS_IMPLEMENTATION
#include "rubicon.h"

/*
 * Figure 5: the Attribute.  The average request size of a Flow, in
 * bytes, with the counts it came from, so that a reader of the report
 * can tell an average over three I/Os from one over three million.
 */
static Rb_Attribute *
NewAvRequestSize(double bytes, double ios)
{
    Rb_Attribute *attr = Rb_AttrCreate("AvRequestSize", RB_ATTR_SCALAR,
	    "bytes", "average request size, bytes per I/O");
    int value = Rb_AttrAddColumn(attr, "value", "bytes", 0);
    int count = Rb_AttrAddColumn(attr, "ios", "I/Os", 0);
    int total = Rb_AttrAddColumn(attr, "bytes", "bytes", 0);
    int row = Rb_AttrAddRow(attr);

    Rb_AttrSetNum(attr, row, value, ios > 0 ? bytes / ios : 0);
    Rb_AttrSetNum(attr, row, count, ios);
    Rb_AttrSetNum(attr, row, total, bytes);
    return attr;
}

/*
 * Figure 6: the Analyzer.  It sums the sizes of the records it is given
 * and, at the end, sets the Attribute on its Flow.
 */
typedef struct AvRequestSizeState {
    double bytes;
    double ios;
} AvRequestSizeState;

static const char *const avRequestSizeAttrs[] = {"AvRequestSize", NULL};

static int
AvRequestSizeStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    AvRequestSizeState *s = a->state;

    s->bytes = s->ios = 0;
    return TCL_OK;
}

static void
AvRequestSizeRecord(Rb_Analyzer *a, const Rb_Batch *b, int i)
{
    AvRequestSizeState *s = a->state;
    int64_t size = b->col[RB_IO_SIZE][i];

    if (size != RB_ABSENT) {
	s->bytes += (double)size;
	s->ios += 1;
    }
}

static int
AvRequestSizeEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    AvRequestSizeState *s = a->state;

    Rb_AnalyzerSet(a, NewAvRequestSize(s->bytes, s->ios));
    return TCL_OK;
}

static const Rb_AnalyzerClass avRequestSizeClass = {
    .name = "AnalyzerAvRequestSize",
    .help = "the paper's Figure 6: average request size of a Flow",
    .stateSize = sizeof(AvRequestSizeState),
    .attrs = avRequestSizeAttrs,
    .start = AvRequestSizeStart,
    .record = AvRequestSizeRecord,
    .end = AvRequestSizeEnd,
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};

/*
 * Figure 7: the Reporter.  One line per Attribute: the Flow, the
 * Attribute's name, and its value with its unit (or, for anything but a
 * number, its kind and row count).
 */
static int
SimpleLine(Rb_Reporter *r, const Rb_Flow *flow, const Rb_Attribute *attr,
	void *cd)
{
    FILE *fp = cd;
    char num[TCL_DOUBLE_SPACE];

    if (attr->kind == RB_ATTR_SCALAR && attr->nrows > 0 && attr->ncols > 0
	    && !attr->cols[0].isText) {
	Tcl_PrintDouble(NULL, attr->cols[0].num[0], num);
	fprintf(fp, "%s %s %s %s\n", Rb_FlowName(flow), attr->name, num,
		attr->unit ? attr->unit : "");
    } else {
	fprintf(fp, "%s %s (%s, %d rows)\n", Rb_FlowName(flow), attr->name,
		Rb_AttrKindName(attr->kind), attr->nrows);
    }
    return TCL_OK;
}

static int
SimpleWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    Rb_Out out;

    if (Rb_OutOpen(r->interp, r->output, &out) != TCL_OK) {
	return TCL_ERROR;
    }
    if (Rb_ReporterEach(r, SimpleLine, out.fp) != TCL_OK) {
	Rb_OutAbort(&out);
	return TCL_ERROR;
    }
    return Rb_OutClose(r->interp, &out);
}

static const Rb_ReporterClass simpleClass = {
    .name = "ReporterSimple",
    .help = "the paper's Figure 7: one line per Attribute",
    .defaultOutput = "-",
    .write = SimpleWrite,
};

/*
 * Paperexample_Init --
 *	Package entry: binds to Tcl and Rubicon through their stubs and
 *	registers both classes, which makes their commands.
 */
int
Paperexample_Init(Tcl_Interp *interp)
{
    if (Tcl_InitStubs(interp, "8.6", 0) == NULL
	    || Rubicon_InitStubs(interp) == NULL
	    || Rb_RegisterAnalyzer(interp, &avRequestSizeClass) != TCL_OK
	    || Rb_RegisterReporter(interp, &simpleClass) != TCL_OK) {
	return TCL_ERROR;
    }
    return Tcl_PkgProvide(interp, "paperexample", "1.0");
}
