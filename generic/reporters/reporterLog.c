/*
 * reporterLog.c --
 *
 *	ReporterLog: a flat, human-readable text report.  A run header, then
 *	per Flow one line per scalar ("flow  Name = value unit") and an
 *	aligned table with a header row for everything else.  A table cell
 *	is cut at LOG_CELL_MAX characters, so that one long name (a corrupt
 *	span name, a path) cannot pad every row of its column to its width.
 */

#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include "util.h"

/* The widest a table cell or column heading is written, in characters;
 * a longer one ends in "..." (doc/ReporterLog.n). */
#define LOG_CELL_MAX 256

/*
 * LogEscape --
 *	Sets out (initialized here) to s with newlines, tabs and other
 *	control characters written as \n, \t, \xHH, so that a cell or a
 *	name never breaks a line of the log.
 * Results: the escaped string.
 */
static const char *
LogEscape(const char *s, Tcl_DString *out)
{
    const unsigned char *p;
    char buf[8];

    Tcl_DStringInit(out);
    for (p = (const unsigned char *) s; *p; p++) {
	if (*p == '\n') {
	    Tcl_DStringAppend(out, "\\n", 2);
	} else if (*p == '\t') {
	    Tcl_DStringAppend(out, "\\t", 2);
	} else if (*p < 0x20 || *p == 0x7F) {
	    snprintf(buf, sizeof(buf), "\\x%02x", *p);
	    Tcl_DStringAppend(out, buf, -1);
	} else {
	    Tcl_DStringAppend(out, (const char *) p, 1);
	}
    }
    return Tcl_DStringValue(out);
}

/*
 * LogCell --
 *	LogEscape for a table cell or heading, cut to LOG_CELL_MAX
 *	characters, the last three "..." when it was longer.
 * Results: the cell, in out (initialized here).
 */
static const char *
LogCell(const char *s, Tcl_DString *out)
{
    const char *e = LogEscape(s, out);

    if (Tcl_NumUtfChars(e, Tcl_DStringLength(out)) > LOG_CELL_MAX) {
	Tcl_DStringSetLength(out, (int) (Tcl_UtfAtIndex(e, LOG_CELL_MAX - 3)
		- e));
	Tcl_DStringAppend(out, "...", 3);
    }
    return Tcl_DStringValue(out);
}

/*
 * WriteRunHeader --
 *	Writes what the run read: traces, config, records read and skipped
 *	(by kind), the time span, and a marker when the run was partial.
 */
static void
WriteRunHeader(FILE *fp, const Rb_RunInfo *run)
{
    char first[48], last[48], span[48];
    Tcl_DictSearch search;
    Tcl_Obj *key, *value;
    int done, n = 0;

    fprintf(fp, "Rubicon %s report\n", RUBICON_VERSION);
    fprintf(fp, "  traces:   %s\n", run->traces && *run->traces
	    ? run->traces : "(none)");
    if (run->config && *run->config) {
	fprintf(fp, "  config:   %s\n", run->config);
    }
    fprintf(fp, "  records:  %llu read, %llu skipped",
	    (unsigned long long) run->records,
	    (unsigned long long) run->skipped);
    if (run->skipCounts != NULL && Tcl_DictObjFirst(NULL, run->skipCounts,
	    &search, &key, &value, &done) == TCL_OK) {
	for (; !done; Tcl_DictObjNext(&search, &key, &value, &done)) {
	    fprintf(fp, "%s%s %s", n++ ? ", " : " (", Tcl_GetString(key),
		    Tcl_GetString(value));
	}
	Tcl_DictObjDone(&search);
	if (n) {
	    fputs(")", fp);
	}
    }
    fputs("\n", fp);
    if (run->records > 0 && run->firstTime <= run->lastTime) {
	Rb_FormatTime(run->firstTime, first, sizeof(first));
	Rb_FormatTime(run->lastTime, last, sizeof(last));
	Rb_FormatTime(run->lastTime - run->firstTime, span, sizeof(span));
	fprintf(fp, "  time:     %s s to %s s (%s s)\n", first, last, span);
    }
    if (run->partial) {
	fputs("  PARTIAL:  the run stopped before the end of its input; "
		"results cover only the records read\n", fp);
    }
}

/*
 * WriteScalar --
 *	One line: "flow  Name = value unit", "(partial)" appended when the
 *	Attribute came from an interrupted run.
 */
static void
WriteScalar(FILE *fp, const char *flow, const Rb_Attribute *a)
{
    char buf[RB_NUMBUF];
    Tcl_DString ds;
    const char *unit;

    fprintf(fp, "%s  %s = ", flow, a->name);
    if (a->nrows < 1 || a->ncols < 1) {
	fputs("(no value)", fp);
    } else {
	fputs(LogEscape(RbReportRoundedCell(a, 0, 0, buf), &ds), fp);
	Tcl_DStringFree(&ds);
	unit = RbReportColUnit(a, 0);
	if (*unit) {
	    fprintf(fp, " %s", unit);
	}
    }
    fputs(a->partial ? "  (partial)\n" : "\n", fp);
}

/*
 * WriteText --
 *	A text Attribute: on the same line when it is one line, else on
 *	the following lines, indented; control characters escaped.
 */
static void
WriteText(FILE *fp, const char *flow, const Rb_Attribute *a)
{
    const char *text = a->text ? a->text : "", *nl;
    Tcl_DString line, escaped;

    fprintf(fp, "%s  %s:%s", flow, a->name, a->partial ? " (partial)" : "");
    if (strchr(text, '\n') == NULL) {
	fprintf(fp, " %s\n", LogEscape(text, &escaped));
	Tcl_DStringFree(&escaped);
	return;
    }
    fputs("\n", fp);
    while (*text) {
	nl = strchr(text, '\n');
	if (nl == NULL) {
	    nl = text + strlen(text);
	}
	Tcl_DStringInit(&line);
	Tcl_DStringAppend(&line, text, (int) (nl - text));
	fprintf(fp, "    %s\n", LogEscape(Tcl_DStringValue(&line), &escaped));
	Tcl_DStringFree(&escaped);
	Tcl_DStringFree(&line);
	text = *nl ? nl + 1 : nl;
    }
}

/*
 * WriteTable --
 *	Any kind with rows and columns: a title line, then a header row of
 *	"name (unit)" and one line per row, columns aligned; numbers right,
 *	text left.
 */
static void
WriteTable(FILE *fp, const char *flow, const Rb_Attribute *a)
{
    Tcl_DString ds, *head;
    char buf[RB_NUMBUF];
    int *width, r, c, w;

    fprintf(fp, "%s  %s (%s, %d row%s%s%s%s)", flow, a->name,
	    Rb_AttrKindName(a->kind), a->nrows, a->nrows == 1 ? "" : "s",
	    a->unit && *a->unit ? ", " : "", a->unit ? a->unit : "",
	    a->partial ? ", partial" : "");
    if (a->elided > 0) {
	fprintf(fp, " (%" PRId64 " empty interval%s left out)", a->elided,
		a->elided == 1 ? "" : "s");
    }
    fprintf(fp, "%s%s\n", a->help && *a->help ? ": " : "",
	    a->help ? a->help : "");
    if (a->ncols == 0 || a->nrows == 0) {
	fputs("    (no rows)\n", fp);
	return;
    }

    width = (int *) Rb_AllocArray(a->ncols, sizeof(int));
    head = (Tcl_DString *) Rb_AllocArray(a->ncols, sizeof(Tcl_DString));
    for (c = 0; c < a->ncols; c++) {
	const char *unit = RbReportColUnit(a, c);

	Tcl_DStringInit(&head[c]);
	Tcl_DStringAppend(&head[c], a->cols[c].name, -1);
	if (*unit) {
	    Tcl_DStringAppend(&head[c], " (", 2);
	    Tcl_DStringAppend(&head[c], unit, -1);
	    Tcl_DStringAppend(&head[c], ")", 1);
	}
	LogCell(Tcl_DStringValue(&head[c]), &ds);
	Tcl_DStringFree(&head[c]);
	Tcl_DStringInit(&head[c]);
	Tcl_DStringAppend(&head[c], Tcl_DStringValue(&ds), -1);
	Tcl_DStringFree(&ds);
	width[c] = Tcl_NumUtfChars(Tcl_DStringValue(&head[c]), -1);
	for (r = 0; r < a->nrows; r++) {
	    w = Tcl_NumUtfChars(LogCell(RbReportRoundedCell(a, r, c, buf), &ds), -1);
	    Tcl_DStringFree(&ds);
	    if (w > width[c]) {
		width[c] = w;
	    }
	}
    }

    for (r = -1; r < a->nrows; r++) {
	fputs("   ", fp);
	for (c = 0; c < a->ncols; c++) {
	    const char *cell;
	    int last = (c == a->ncols - 1), pad;

	    if (r < 0) {
		cell = Tcl_DStringValue(&head[c]);
		Tcl_DStringInit(&ds);
	    } else {
		cell = LogCell(RbReportRoundedCell(a, r, c, buf), &ds);
	    }
	    pad = width[c] - Tcl_NumUtfChars(cell, -1);
	    if (a->cols[c].isText) {
		fprintf(fp, " %s%*s", cell, last ? 0 : pad, "");
	    } else {
		fprintf(fp, " %*s%s", pad, "", cell);
	    }
	    Tcl_DStringFree(&ds);
	}
	fputs("\n", fp);
    }

    for (c = 0; c < a->ncols; c++) {
	Tcl_DStringFree(&head[c]);
    }
    free(head);
    free(width);
}

/*
 * WriteLog --
 *	The report body: run header, then every bound Flow and Attribute.
 */
static void
WriteLog(FILE *fp, const Rb_RunInfo *run, const Rb_ReportSet *set)
{
    Tcl_DString ds;
    const char *flow;
    int i, j;

    WriteRunHeader(fp, run);
    if (set->nflows == 0) {
	fputs("\n(no flows)\n", fp);
    }
    for (i = 0; i < set->nflows; i++) {
	flow = LogEscape(Rb_FlowName(set->flows[i]), &ds);
	fprintf(fp, "\nFlow %s\n", flow);
	if (set->first[i] == set->first[i + 1]) {
	    fprintf(fp, "%s  (no attributes)\n", flow);
	}
	for (j = set->first[i]; j < set->first[i + 1]; j++) {
	    const Rb_Attribute *a = set->items[j].attr;

	    switch (a->kind) {
	    case RB_ATTR_SCALAR:
		WriteScalar(fp, flow, a);
		break;
	    case RB_ATTR_TEXT:
		WriteText(fp, flow, a);
		break;
	    default:
		WriteTable(fp, flow, a);
		break;
	    }
	}
	Tcl_DStringFree(&ds);
    }
}

/*
 * LogWrite --
 *	The write hook: the whole report to r->output through Rb_Out.
 * Results: TCL_OK, or TCL_ERROR naming the file that could not be
 *	written.
 */
static int
LogWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    return RbReportWriteFile(r, run, WriteLog);
}

const Rb_ReporterClass Rb_ReporterLogClass = {
    "ReporterLog",
    "flat text report: run summary, scalars as lines, tables aligned",
    0,				/* no state */
    NULL,			/* no options beyond -output */
    "-",			/* standard output */
    NULL,
    LogWrite,
    NULL
};
