/*
 * reporterCsv.c --
 *
 *	ReporterCsv: Attributes as CSV (RFC 4180).  By default one tidy
 *	long-format file, one line per cell:
 *	    flow,attribute,kind,row,column,value,unit
 *	With -wide 1, the output is a directory holding one file per Flow
 *	and Attribute whose header row is the column names.
 */

#include <stddef.h>
#include <inttypes.h>
#include <string.h>
#include "util.h"

typedef struct CsvState {
    int wide;			/* -wide: a file per attribute per flow */
} CsvState;

static const Rb_Option csvOptions[] = {
    {"-wide", RB_OPT_BOOL, offsetof(CsvState, wide), "0",
	"write one file per flow and attribute into the -output directory"},
    {NULL}
};

/*
 * WriteLongAttr --
 *	The long-format lines of one Attribute: one per cell, rows numbered
 *	from 0; a text Attribute is one cell, row 0, column "text".
 */
static void
WriteLongAttr(FILE *fp, const char *flow, const Rb_Attribute *a)
{
    char buf[RB_NUMBUF], rowNo[24];
    const char *kind = Rb_AttrKindName(a->kind);
    int r, c;

    if (a->kind == RB_ATTR_TEXT) {
	RbReportCsvField(fp, flow);
	putc(',', fp);
	RbReportCsvField(fp, a->name);
	fprintf(fp, ",%s,0,text,", kind);
	RbReportCsvField(fp, a->text ? a->text : "");
	fputs(",\n", fp);
	return;
    }
    for (r = 0; r < a->nrows; r++) {
	snprintf(rowNo, sizeof(rowNo), "%d", r);
	for (c = 0; c < a->ncols; c++) {
	    RbReportCsvField(fp, flow);
	    putc(',', fp);
	    RbReportCsvField(fp, a->name);
	    fprintf(fp, ",%s,%s,", kind, rowNo);
	    RbReportCsvField(fp, a->cols[c].name);
	    putc(',', fp);
	    RbReportCsvField(fp, RbReportCell(a, r, c, buf));
	    putc(',', fp);
	    RbReportCsvField(fp, RbReportColUnit(a, c));
	    fputs("\n", fp);
	}
    }
    if (a->elided > 0) {
	/* Rows of empty intervals left out (RbAttrElideEmptyRuns): one
	 * line with no row number. */
	RbReportCsvField(fp, flow);
	putc(',', fp);
	RbReportCsvField(fp, a->name);
	fprintf(fp, ",%s,,elided,%" PRId64 ",rows\n", kind, a->elided);
    }
}

/*
 * WriteLong --
 *	The long-format body: the header, then every cell.
 */
static void
WriteLong(FILE *fp, const Rb_RunInfo *run, const Rb_ReportSet *set)
{
    int j;

    fputs("flow,attribute,kind,row,column,value,unit\n", fp);
    for (j = 0; j < set->nitems; j++) {
	WriteLongAttr(fp, Rb_FlowName(set->items[j].flow), set->items[j].attr);
    }
}

/*
 * WriteWideAttr --
 *	One Attribute as its own CSV file: a header row of column names,
 *	then its rows (a text Attribute: column "text", one row).
 * Results: TCL_OK or TCL_ERROR naming the file.
 */
static int
WriteWideAttr(Tcl_Interp *interp, const char *dir, const char *name,
	const Rb_Attribute *a)
{
    Rb_Out out;
    char buf[RB_NUMBUF];
    int r, c;

    if (RbReportOpen(interp, dir, name, ".csv", &out) != TCL_OK) {
	return TCL_ERROR;
    }
    if (a->kind == RB_ATTR_TEXT) {
	fputs("text\n", out.fp);
	RbReportCsvField(out.fp, a->text ? a->text : "");
	fputs("\n", out.fp);
	return Rb_OutClose(interp, &out);
    }
    for (c = 0; c < a->ncols; c++) {
	if (c) {
	    putc(',', out.fp);
	}
	RbReportCsvField(out.fp, a->cols[c].name);
    }
    fputs("\n", out.fp);
    for (r = 0; r < a->nrows; r++) {
	for (c = 0; c < a->ncols; c++) {
	    if (c) {
		putc(',', out.fp);
	    }
	    RbReportCsvField(out.fp, RbReportCell(a, r, c, buf));
	}
	fputs("\n", out.fp);
    }
    return Rb_OutClose(interp, &out);
}

/*
 * WriteWide --
 *	One file FLOW.ATTRIBUTE.csv (names sanitized) per bound pair, in
 *	the directory r->output, created if missing.
 * Results: TCL_OK, or TCL_ERROR at the first file that failed.
 */
static int
WriteWide(Rb_Reporter *r, const Rb_ReportSet *set)
{
    Rb_ReportNames names;
    Tcl_DString base;
    int j, code = TCL_OK;

    if (RbReportMkdir(r->interp, r->output) != TCL_OK) {
	return TCL_ERROR;
    }
    RbReportNamesInit(&names);
    for (j = 0; j < set->nitems && code == TCL_OK; j++) {
	RbReportFileName(&names, Rb_FlowName(set->items[j].flow),
		set->items[j].attr->name, &base);
	code = WriteWideAttr(r->interp, r->output, Tcl_DStringValue(&base),
		set->items[j].attr);
	Tcl_DStringFree(&base);
    }
    RbReportNamesFree(&names);
    return code;
}

/*
 * CsvWrite --
 *	The write hook: long or wide format after -wide.
 */
static int
CsvWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    CsvState *st = r->state;
    Rb_ReportSet set;
    int code;

    if (!st->wide) {
	return RbReportWriteFile(r, run, WriteLong);
    }
    if (RbReportCollect(r, &set) != TCL_OK) {
	return TCL_ERROR;
    }
    code = WriteWide(r, &set);
    RbReportSetFree(&set);
    return code;
}

const Rb_ReporterClass Rb_ReporterCsvClass = {
    "ReporterCsv",
    "CSV: one tidy long-format file, or with -wide a file per attribute",
    sizeof(CsvState),
    csvOptions,
    "rubicon.csv",
    NULL,
    CsvWrite,
    NULL
};
