/*
 * reporterHtml.c --
 *
 *	ReporterHtml: one self-contained HTML page per run.  The run summary
 *	(traces, records read and skipped, the configuration script), the
 *	DAG drawn by Graphviz, and per Flow a table of its scalars, a table
 *	of every other Attribute and its plots, inlined as SVG.  The plots
 *	are ReporterGraph's, drawn by the same code into a hidden temporary
 *	directory beside the page and removed afterwards; nothing else is
 *	needed to view the page.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <inttypes.h>
#include "util.h"

typedef struct HtmlState {
    int plots;			/* -plots: inline gnuplot SVGs */
    int64_t maxRows;		/* -maxrows: rows shown per table, 0 all */
    char *logscale;		/* -logscale: auto or a boolean */
} HtmlState;

static const Rb_Option htmlOptions[] = {
    {"-plots", RB_OPT_BOOL, offsetof(HtmlState, plots), "1",
	"draw the plots with gnuplot (when on PATH) and inline them"},
    {"-maxrows", RB_OPT_INT, offsetof(HtmlState, maxRows), "1000",
	"rows shown per table (0: all); the rest are counted"},
    {"-logscale", RB_OPT_STRING, offsetof(HtmlState, logscale), "auto",
	"log value axis of histograms and percentiles, as ReporterGraph's"},
    {NULL}
};

/*
 * A plot drawn into the temporary directory, in drawing order.
 */
typedef struct Plot {
    const Rb_Flow *flow;	/* NULL: a chart across Flows */
    char *base;
    char *title;
} Plot;

typedef struct Plots {
    int n, cap;
    Plot *list;
} Plots;

/*
 * AddPlot --
 *	Rb_GraphDone callback: remembers a picture to inline.
 */
static void
AddPlot(void *cd, const Rb_Flow *flow, const char *base, const char *title)
{
    Plots *plots = cd;

    if (plots->n == plots->cap) {
	plots->cap = plots->cap ? 2 * plots->cap : 16;
	plots->list = (Plot *) Rb_ReallocArray(plots->list, plots->cap,
		sizeof(Plot));
    }
    plots->list[plots->n].flow = flow;
    plots->list[plots->n].base = Rb_Strdup(base);
    plots->list[plots->n].title = Rb_Strdup(title);
    plots->n++;
}

/*
 * FreePlots --
 *	Frees the list of plots.
 */
static void
FreePlots(Plots *plots)
{
    int i;

    for (i = 0; i < plots->n; i++) {
	free(plots->list[i].base);
	free(plots->list[i].title);
    }
    if (plots->list != NULL) {
	free(plots->list);
    }
}

/*
 * WriteSvg --
 *	Copies an SVG document into the page from its <svg> element on:
 *	the XML declaration and DOCTYPE before it are not allowed inside
 *	HTML.
 * Results: 1 if an <svg> element was found and written, else 0.
 */
static int
WriteSvg(FILE *fp, const char *svg)
{
    const char *start = strstr(svg, "<svg");

    if (start == NULL) {
	return 0;
    }
    fputs(start, fp);
    return 1;
}

/*
 * ReadWhole --
 *	Sets ds (initialized) to the contents of path.
 * Results: 1 if it could be read, else 0.
 */
static int
ReadWhole(const char *path, Tcl_DString *ds)
{
    FILE *in = fopen(path, "rb");
    char buf[8192];
    size_t n;

    Tcl_DStringSetLength(ds, 0);
    if (in == NULL) {
	return 0;
    }
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
	Tcl_DStringAppend(ds, buf, (int) n);
    }
    fclose(in);
    return 1;
}

/*
 * WriteRun --
 *	The run summary: traces, records read and skipped by kind, the time
 *	span, and the configuration script's text (the file run->config
 *	names, or the string itself if it names none).
 */
static void
WriteRun(FILE *fp, const Rb_RunInfo *run)
{
    Tcl_DictSearch search;
    Tcl_Obj *key, *value;
    Tcl_DString config;
    char first[48], last[48], span[48];
    int done;

    Tcl_DStringInit(&config);
    fputs("<section id=\"run\">\n<h2>Run</h2>\n<table class=\"run\">\n"
	    "<tr><th>traces</th><td>", fp);
    RbReportHtmlString(fp, run->traces && *run->traces ? run->traces
	    : "(none)");
    fprintf(fp, "</td></tr>\n<tr><th>records read</th>"
	    "<td class=\"num\" id=\"records\">%llu</td></tr>\n"
	    "<tr><th>records skipped</th>"
	    "<td class=\"num\" id=\"skipped\">%llu</td></tr>\n",
	    (unsigned long long) run->records,
	    (unsigned long long) run->skipped);
    if (run->skipCounts != NULL && Tcl_DictObjFirst(NULL, run->skipCounts,
	    &search, &key, &value, &done) == TCL_OK) {
	for (; !done; Tcl_DictObjNext(&search, &key, &value, &done)) {
	    fputs("<tr><th>skipped: ", fp);
	    RbReportHtmlString(fp, Tcl_GetString(key));
	    fputs("</th><td class=\"num\">", fp);
	    RbReportHtmlString(fp, Tcl_GetString(value));
	    fputs("</td></tr>\n", fp);
	}
	Tcl_DictObjDone(&search);
    }
    if (run->records > 0 && run->firstTime <= run->lastTime) {
	Rb_FormatTime(run->firstTime, first, sizeof(first));
	Rb_FormatTime(run->lastTime, last, sizeof(last));
	Rb_FormatTime(run->lastTime - run->firstTime, span, sizeof(span));
	fprintf(fp, "<tr><th>time</th><td>%s s to %s s (%s s)</td></tr>\n",
		first, last, span);
    }
    if (run->partial) {
	fputs("<tr><th>status</th><td class=\"partial\">partial: the run "
		"stopped before the end of its input</td></tr>\n", fp);
    }
    fputs("</table>\n<h3>Configuration</h3>\n", fp);
    if (run->config == NULL || *run->config == '\0') {
	fputs("<p>(none)</p>\n", fp);
    } else if (ReadWhole(run->config, &config)) {
	fputs("<p>", fp);
	RbReportHtmlString(fp, run->config);
	fputs("</p>\n<pre class=\"config\">", fp);
	RbReportHtmlString(fp, Tcl_DStringValue(&config));
	fputs("</pre>\n", fp);
    } else {
	fputs("<pre class=\"config\">", fp);
	RbReportHtmlString(fp, run->config);
	fputs("</pre>\n", fp);
    }
    Tcl_DStringFree(&config);
    fputs("</section>\n", fp);
}

/*
 * EvalList --
 *	Evaluates the command made of the n words, at global level.
 * Results: the Tcl code; the result or error is in the interpreter.
 */
static int
EvalList(Tcl_Interp *interp, int n, const char *const *words)
{
    Tcl_Obj *cmd = Tcl_NewListObj(0, NULL);
    int i, code;

    for (i = 0; i < n; i++) {
	Tcl_ListObjAppendElement(NULL, cmd, Tcl_NewStringObj(words[i], -1));
    }
    Tcl_IncrRefCount(cmd);
    code = Tcl_EvalObjEx(interp, cmd, TCL_EVAL_GLOBAL);
    Tcl_DecrRefCount(cmd);
    return code;
}

/*
 * WriteDag --
 *	The DAG: "rubicon::dag dot" rendered by Graphviz to inline SVG when
 *	dot is installed, else its DOT text.  A DAG that cannot be drawn is
 *	shown as text with the reason, not a failed report.
 */
static void
WriteDag(FILE *fp, Tcl_Interp *interp)
{
    static const char *const dagDot[] = {"::rubicon::dag", "dot"};
    const char *svgCmd[] = {"::exec", "dot", "-Tsvg", "<<", NULL};
    Tcl_Obj *dot;
    int drawn = 0;

    fputs("<section id=\"dag\">\n<h2>DAG</h2>\n", fp);
    if (EvalList(interp, 2, dagDot) != TCL_OK) {
	fputs("<p>(no DAG: ", fp);
	RbReportHtmlString(fp, Tcl_GetStringResult(interp));
	fputs(")</p>\n</section>\n", fp);
	Tcl_ResetResult(interp);
	return;
    }
    dot = Tcl_GetObjResult(interp);
    Tcl_IncrRefCount(dot);
    if (RbReportOnPath("dot")) {
	svgCmd[4] = Tcl_GetString(dot);
	if (EvalList(interp, 5, svgCmd) == TCL_OK) {
	    fputs("<div class=\"dag\">\n", fp);
	    drawn = WriteSvg(fp, Tcl_GetStringResult(interp));
	    fputs("</div>\n", fp);
	}
    }
    if (!drawn) {
	fputs("<pre class=\"dot\">", fp);
	RbReportHtmlString(fp, Tcl_GetString(dot));
	fputs("</pre>\n", fp);
    }
    Tcl_DecrRefCount(dot);
    Tcl_ResetResult(interp);
    fputs("</section>\n", fp);
}

/*
 * WriteCell --
 *	One <td>: numbers right-aligned, exact as in every report.
 */
static void
WriteCell(FILE *fp, const Rb_Attribute *a, int row, int col)
{
    char buf[RB_NUMBUF];

    fputs(a->cols[col].isText ? "<td>" : "<td class=\"num\">", fp);
    RbReportHtmlString(fp, RbReportRoundedCell(a, row, col, buf));
    fputs("</td>", fp);
}

/*
 * WriteScalars --
 *	One table of the Flow's numeric scalars: name, value, unit, help.
 *	Each row carries data-attr so that a reader finds it by name.
 */
static void
WriteScalars(FILE *fp, const Rb_ReportSet *set, int i)
{
    int j, n = 0;

    for (j = set->first[i]; j < set->first[i + 1]; j++) {
	const Rb_Attribute *a = set->items[j].attr;

	if (a->kind != RB_ATTR_SCALAR || a->nrows < 1 || a->ncols < 1) {
	    continue;
	}
	if (n++ == 0) {
	    fputs("<table class=\"scalars\">\n<tr><th>Attribute</th>"
		    "<th>Value</th><th>Unit</th><th>Meaning</th></tr>\n", fp);
	}
	fputs("<tr data-attr=\"", fp);
	RbReportHtmlString(fp, a->name);
	fputs("\"><th>", fp);
	RbReportHtmlString(fp, a->name);
	fputs(a->partial ? " (partial)</th>" : "</th>", fp);
	WriteCell(fp, a, 0, 0);
	fputs("<td>", fp);
	RbReportHtmlString(fp, RbReportColUnit(a, 0));
	fputs("</td><td>", fp);
	RbReportHtmlString(fp, a->help ? a->help : "");
	fputs("</td></tr>\n", fp);
    }
    if (n > 0) {
	fputs("</table>\n", fp);
    }
}

/*
 * WriteTable --
 *	A non-scalar Attribute: a heading, its help, and a table whose
 *	header row is "column (unit)"; at most maxRows rows (0: all), the
 *	rest counted.  A text Attribute is a <pre>.
 */
static void
WriteTable(FILE *fp, const Rb_Attribute *a, int64_t maxRows)
{
    int r, c, shown = a->nrows;

    fputs("<h3>", fp);
    RbReportHtmlString(fp, a->name);
    fprintf(fp, "%s</h3>\n<p class=\"help\">", a->partial ? " (partial)"
	    : "");
    RbReportHtmlString(fp, a->help ? a->help : "");
    fprintf(fp, " [%s]", Rb_AttrKindName(a->kind));
    if (a->elided > 0) {
	fprintf(fp, " (%" PRId64 " empty interval%s left out)", a->elided,
		a->elided == 1 ? "" : "s");
    }
    fputs("</p>\n", fp);
    if (a->kind == RB_ATTR_TEXT) {
	fputs("<pre class=\"text\" data-attr=\"", fp);
	RbReportHtmlString(fp, a->name);
	fputs("\">", fp);
	RbReportHtmlString(fp, a->text ? a->text : "");
	fputs("</pre>\n", fp);
	return;
    }
    if (maxRows > 0 && shown > maxRows) {
	shown = (int) maxRows;
    }
    fputs("<table class=\"attr\" data-attr=\"", fp);
    RbReportHtmlString(fp, a->name);
    fputs("\">\n<thead><tr>", fp);
    for (c = 0; c < a->ncols; c++) {
	const char *unit = RbReportColUnit(a, c);

	fputs("<th>", fp);
	RbReportHtmlString(fp, a->cols[c].name);
	if (*unit) {
	    fputs(" (", fp);
	    RbReportHtmlString(fp, unit);
	    fputs(")", fp);
	}
	fputs("</th>", fp);
    }
    fputs("</tr></thead>\n<tbody>\n", fp);
    for (r = 0; r < shown; r++) {
	fputs("<tr>", fp);
	for (c = 0; c < a->ncols; c++) {
	    WriteCell(fp, a, r, c);
	}
	fputs("</tr>\n", fp);
    }
    fputs("</tbody>\n</table>\n", fp);
    if (shown < a->nrows) {
	fprintf(fp, "<p class=\"more\">%d more rows not shown (-maxrows "
		"%lld); ReporterCsv writes them all.</p>\n",
		a->nrows - shown, (long long) maxRows);
    }
}

/*
 * WritePlots --
 *	Inlines the SVG of every plot of flow (NULL: the charts across
 *	Flows) from the directory they were drawn in.
 */
static void
WritePlots(FILE *fp, const Plots *plots, const Rb_Flow *flow,
	const char *dir)
{
    Tcl_DString path, svg;
    int i;

    for (i = 0; i < plots->n; i++) {
	if (plots->list[i].flow != flow) {
	    continue;
	}
	RbReportJoinPath(dir, plots->list[i].base, ".svg", &path);
	Tcl_DStringInit(&svg);
	if (ReadWhole(Tcl_DStringValue(&path), &svg)) {
	    fputs("<figure class=\"plot\">\n", fp);
	    WriteSvg(fp, Tcl_DStringValue(&svg));
	    fputs("<figcaption>", fp);
	    RbReportHtmlString(fp, plots->list[i].title);
	    fputs("</figcaption>\n</figure>\n", fp);
	}
	Tcl_DStringFree(&svg);
	Tcl_DStringFree(&path);
    }
}

/*
 * Page --
 *	What the page body needs besides the file.
 */
typedef struct Page {
    Tcl_Interp *interp;
    const Rb_RunInfo *run;
    const Rb_ReportSet *set;
    const Plots *plots;
    const char *plotDir;	/* NULL: no plots */
    int64_t maxRows;
} Page;

/*
 * WritePage --
 *	The whole page.
 */
static void
WritePage(FILE *fp, const Page *pg)
{
    const Rb_ReportSet *set = pg->set;
    int i, j;

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<title>Rubicon report</title>\n"
	    "<style>\n"
	    "body { font-family: sans-serif; margin: 2em; }\n"
	    "table { border-collapse: collapse; margin: 0.5em 0 1em; }\n"
	    "th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; "
	    "text-align: left; }\n"
	    "td.num { text-align: right; font-family: monospace; }\n"
	    "pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; }\n"
	    "figure svg { max-width: 100%; height: auto; }\n"
	    ".partial { color: #a00; }\n"
	    "</style>\n</head>\n<body>\n<h1>Rubicon " RUBICON_VERSION
	    " report</h1>\n", fp);
    WriteRun(fp, pg->run);
    WriteDag(fp, pg->interp);
    for (i = 0; i < set->nflows; i++) {
	fputs("<section class=\"flow\" data-flow=\"", fp);
	RbReportHtmlString(fp, Rb_FlowName(set->flows[i]));
	fputs("\">\n<h2>Flow ", fp);
	RbReportHtmlString(fp, Rb_FlowName(set->flows[i]));
	fputs("</h2>\n", fp);
	if (set->first[i] == set->first[i + 1]) {
	    fputs("<p>(no attributes)</p>\n", fp);
	}
	WriteScalars(fp, set, i);
	for (j = set->first[i]; j < set->first[i + 1]; j++) {
	    if (set->items[j].attr->kind != RB_ATTR_SCALAR) {
		WriteTable(fp, set->items[j].attr, pg->maxRows);
	    }
	}
	if (pg->plotDir != NULL) {
	    WritePlots(fp, pg->plots, set->flows[i], pg->plotDir);
	}
	fputs("</section>\n", fp);
    }
    if (pg->plotDir != NULL) {
	fputs("<section id=\"across\">\n<h2>Across Flows</h2>\n", fp);
	WritePlots(fp, pg->plots, NULL, pg->plotDir);
	fputs("</section>\n", fp);
    }
    fputs("</body>\n</html>\n", fp);
}

static void		RemoveDir(Tcl_DString *dir);

/*
 * RemoveStalePlotDirs --
 *	Removes the plot directories ".rubicon-html-PID-XXXXXX" in dir of
 *	processes that no longer exist (killed while drawing).
 */
static void
RemoveStalePlotDirs(const char *dir)
{
    static const char prefix[] = ".rubicon-html-";
    struct dirent *e;
    DIR *d = opendir(dir);

    while (d != NULL && (e = readdir(d)) != NULL) {
	const char *digits = e->d_name + sizeof(prefix) - 1;
	char *end;
	long pid;

	if (strncmp(e->d_name, prefix, sizeof(prefix) - 1) != 0
		|| !isdigit((unsigned char) *digits)) {
	    continue;
	}
	errno = 0;
	pid = strtol(digits, &end, 10);
	if (*end == '-' && strlen(end) == 7 && errno == 0 && pid > 0
		&& pid != (long) getpid() && pid == (long) (pid_t) pid
		&& kill((pid_t) pid, 0) != 0 && errno == ESRCH) {
	    Tcl_DString stale;

	    Tcl_DStringInit(&stale);
	    Tcl_DStringAppend(&stale, dir, -1);
	    Tcl_DStringAppend(&stale, "/", 1);
	    Tcl_DStringAppend(&stale, e->d_name, -1);
	    RemoveDir(&stale);
	}
    }
    if (d != NULL) {
	closedir(d);
    }
}

/*
 * PageDir --
 *	The directory of the page (the current one for "-" or a bare name)
 *	in dir, initialized here.
 */
static void
PageDir(const char *page, Tcl_DString *dir)
{
    const char *slash = strrchr(page, '/');

    Tcl_DStringInit(dir);
    if (slash == NULL || strcmp(page, "-") == 0) {
	Tcl_DStringAppend(dir, ".", 1);
    } else {
	Tcl_DStringAppend(dir, page, slash > page ? (int) (slash - page) : 1);
    }
}

/*
 * DrawPlots --
 *	Draws every plot as SVG into a new hidden directory beside the page,
 *	".rubicon-html-PID-XXXXXX" (so that in safe mode it is inside the
 *	output directory, and a run killed before removing it leaves it
 *	where the next run's sweep of dead processes' files finds it).
 * Results: TCL_OK with *dir set (free with RemoveDir), or TCL_ERROR
 *	from gnuplot or the directory.
 */
static int
DrawPlots(Tcl_Interp *interp, const char *page, const Rb_ReportSet *set,
	int logMode, Plots *plots, Tcl_DString *dir)
{
    char name[64];

    PageDir(page, dir);
    snprintf(name, sizeof(name), "/.rubicon-html-%ld-XXXXXX",
	    (long) getpid());
    Tcl_DStringAppend(dir, name, -1);
    Tcl_DStringAppend(dir, "/.", 2);
    if (Rb_SafeCheckWrite(interp, Tcl_DStringValue(dir)) != TCL_OK) {
	Tcl_DStringFree(dir);
	return TCL_ERROR;
    }
    Tcl_DStringSetLength(dir, Tcl_DStringLength(dir) - 2);
    if (mkdtemp(Tcl_DStringValue(dir)) == NULL) {
	Rb_SetInterpError(interp, "RUBICON REPORTER IO",
		"cannot create a directory for the plots beside \"%s\": %s",
		page, strerror(errno));
	Tcl_DStringFree(dir);
	return TCL_ERROR;
    }
    return RbReportGraphs(interp, Tcl_DStringValue(dir), set, 1, logMode,
	    AddPlot, plots);
}

/*
 * RemoveDir --
 *	Removes the plots' temporary directory and everything in it.
 */
static void
RemoveDir(Tcl_DString *dir)
{
    Tcl_Obj *path = Tcl_NewStringObj(Tcl_DStringValue(dir), -1), *err = NULL;

    Tcl_IncrRefCount(path);
    Tcl_FSRemoveDirectory(path, 1, &err);
    if (err != NULL) {
	Tcl_DecrRefCount(err);
    }
    Tcl_DecrRefCount(path);
    Tcl_DStringFree(dir);
}

/*
 * HtmlInit --
 *	The check of a configure: -logscale is auto or a boolean.
 */
static int
HtmlInit(Rb_Reporter *r, Tcl_Interp *interp)
{
    HtmlState *st = r->state;
    int mode;

    return RbReportLogMode(interp, st->logscale, &mode);
}

/*
 * HtmlWrite --
 *	The write hook: draws the plots (when asked and gnuplot is on
 *	PATH), then writes the page to r->output through Rb_Out.
 * Results: TCL_OK, or TCL_ERROR naming the page or the plot that
 *	failed.
 */
static int
HtmlWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    HtmlState *st = r->state;
    Rb_ReportSet set;
    Plots plots = {0, 0, NULL};
    Tcl_DString dir;
    Rb_Out out;
    Page pg;
    int code, drawn = 0, logMode;

    if (RbReportLogMode(r->interp, st->logscale, &logMode) != TCL_OK
	    || RbReportCollect(r, &set) != TCL_OK) {
	return TCL_ERROR;
    }
    code = Rb_OutOpen(r->interp, r->output, &out);
    if (code == TCL_OK) {
	PageDir(r->output, &dir);
	RemoveStalePlotDirs(Tcl_DStringValue(&dir));
	Tcl_DStringFree(&dir);
    }
    if (code == TCL_OK && st->plots && RbReportOnPath("gnuplot")) {
	drawn = 1;
	code = DrawPlots(r->interp, r->output, &set, logMode, &plots,
		&dir);
	if (code != TCL_OK) {
	    Rb_OutAbort(&out);
	}
    }
    if (code == TCL_OK) {
	pg.interp = r->interp;
	pg.run = run;
	pg.set = &set;
	pg.plots = &plots;
	pg.plotDir = drawn ? Tcl_DStringValue(&dir) : NULL;
	pg.maxRows = st->maxRows;
	WritePage(out.fp, &pg);
	code = Rb_OutClose(r->interp, &out);
    }
    if (drawn && Tcl_DStringLength(&dir) > 0) {
	RemoveDir(&dir);
    }
    FreePlots(&plots);
    RbReportSetFree(&set);
    return code;
}

const Rb_ReporterClass Rb_ReporterHtmlClass = {
    "ReporterHtml",
    "one self-contained HTML page: run, DAG, tables and inline plots",
    sizeof(HtmlState),
    htmlOptions,
    "rubicon.html",
    HtmlInit,
    HtmlWrite,
    NULL
};
