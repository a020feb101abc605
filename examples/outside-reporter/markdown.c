/*
 * markdown.c --
 *	A Reporter written outside the Rubicon tree: each bound Attribute as
 *	a Markdown table under a heading naming its Flow.  It includes only
 *	rubicon.h, links only the Tcl stub library, and walks Attributes
 *	through the generic interface, as the built-in Reporters do.
 *	    package require mdreport; ReporterMarkdown $f1 $f2 -output r.md
 */
#define RUBICON_STUBS_IMPLEMENTATION
#include "rubicon.h"

/* Cell -- writes a table cell: '|' escaped, line breaks as spaces. */
static void
Cell(FILE *fp, const char *s)
{
    fputs("| ", fp);
    for (; *s; s++) {
	if (*s == '|') {
	    putc('\\', fp);
	}
	putc(*s == '\n' || *s == '\r' ? ' ' : *s, fp);
    }
    putc(' ', fp);
}

/* Visit -- Rb_ReporterEach callback: one Attribute as a table. */
static int
Visit(Rb_Reporter *r, const Rb_Flow *flow, const Rb_Attribute *a, void *cd)
{
    FILE *fp = cd;
    char num[TCL_DOUBLE_SPACE];
    int row, c;

    fprintf(fp, "\n## %s: %s (%s %s)\n\n", Rb_FlowName(flow), a->name,
	    Rb_AttrKindName(a->kind), a->unit ? a->unit : "");
    if (a->kind == RB_ATTR_TEXT) {
	fprintf(fp, "> %s\n", a->text ? a->text : "");
	return TCL_OK;
    }
    for (c = 0; c < a->ncols; c++) {
	Cell(fp, a->cols[c].name);
    }
    fputs("|\n", fp);
    for (c = 0; c < a->ncols; c++) {
	fputs(c + 1 < a->ncols ? "|---" : "|---|\n", fp);
    }
    for (row = 0; row < a->nrows; row++) {
	for (c = 0; c < a->ncols; c++) {
	    if (a->cols[c].isText) {
		Cell(fp, a->cols[c].text[row] ? a->cols[c].text[row] : "");
	    } else {
		/* Tcl's shortest form that reads back as the same double. */
		Tcl_PrintDouble(NULL, a->cols[c].num[row], num);
		Cell(fp, num);
	    }
	}
	fputs("|\n", fp);
    }
    return TCL_OK;
}

/* MarkdownWrite -- the write hook, through Rb_Out: a temporary name
 * renamed when complete; a failure is an error naming the file. */
static int
MarkdownWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    Rb_Out out;

    if (Rb_OutOpen(r->interp, r->output, &out) != TCL_OK) {
	return TCL_ERROR;
    }
    fprintf(out.fp, "# Rubicon report\n\n%llu records read, %llu skipped.\n",
	    (unsigned long long) run->records, (unsigned long long) run->skipped);
    if (Rb_ReporterEach(r, Visit, out.fp) != TCL_OK) {
	Rb_OutAbort(&out);
	return TCL_ERROR;
    }
    return Rb_OutClose(r->interp, &out);
}

static const Rb_ReporterClass markdownClass = {
    .name = "ReporterMarkdown",
    .help = "example plugin: every attribute as a Markdown table",
    .defaultOutput = "rubicon.md",
    .write = MarkdownWrite,
};

/* Mdreport_Init -- package entry: binds to Tcl and Rubicon through their
 * stubs and registers the class, which makes its command. */
int
Mdreport_Init(Tcl_Interp *interp)
{
    if (Tcl_InitStubs(interp, "8.6", 0) == NULL
	    || Rubicon_InitStubs(interp) == NULL
	    || Rb_RegisterReporter(interp, &markdownClass) != TCL_OK) {
	return TCL_ERROR;
    }
    return Tcl_PkgProvide(interp, "mdreport", "1.0");
}
