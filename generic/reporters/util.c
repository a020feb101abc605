/*
 * util.c --
 *
 *	Helpers shared by the built-in Reporters, so that every format
 *	walks Attributes, formats numbers, quotes strings and names files
 *	the same way.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util.h"

/*
 * CollectVisitor --
 *	Rb_ReporterEach callback: appends (flow, attr) to the set.
 */
static int
CollectVisitor(Rb_Reporter *r, const Rb_Flow *flow, const Rb_Attribute *attr,
	void *cd)
{
    Rb_ReportSet *set = cd;

    if (set->nitems == set->cap) {
	set->cap = set->cap ? 2 * set->cap : 16;
	set->items = (Rb_ReportItem *) Rb_ReallocArray(set->items, set->cap,
		sizeof(Rb_ReportItem));
    }
    set->items[set->nitems].flow = flow;
    set->items[set->nitems].attr = attr;
    set->nitems++;
    return TCL_OK;
}

/*
 * RbReportCollect --
 *	Gathers every (flow, attribute) the reporter is bound to, in the
 *	order of Rb_ReporterEach, grouped by bound flow.  Each flow is
 *	walked through a one-flow view of the reporter, so the grouping is
 *	exact even when a flow is bound twice.
 * Results: TCL_OK, or the walk's error.
 * Side effects: fills *set; free it with RbReportSetFree.
 */
int
RbReportCollect(Rb_Reporter *r, Rb_ReportSet *set)
{
    Rb_Reporter view = *r;
    int i;

    memset(set, 0, sizeof(*set));
    set->nflows = r->nflows;
    set->flows = r->flows;
    set->named = r->nattrs > 0;
    set->first = (int *) Rb_AllocArray(r->nflows + 1, sizeof(int));
    view.nflows = 1;
    for (i = 0; i < r->nflows; i++) {
	set->first[i] = set->nitems;
	view.flows = &r->flows[i];
	if (Rb_ReporterEach(&view, CollectVisitor, set) != TCL_OK) {
	    RbReportSetFree(set);
	    return TCL_ERROR;
	}
    }
    set->first[r->nflows] = set->nitems;
    return TCL_OK;
}

/*
 * RbReportSetFree --
 *	Frees what RbReportCollect allocated (not the Attributes).
 */
void
RbReportSetFree(Rb_ReportSet *set)
{
    free(set->first);
    if (set->items != NULL) {
	free(set->items);
    }
    memset(set, 0, sizeof(*set));
}

/*
 * RbReportWriteFile --
 *	Writes a one-file report: collects what r is bound to, opens
 *	r->output through Rb_Out, lets body write, and closes.
 * Results: TCL_OK, or TCL_ERROR naming the file that could not be
 *	written.
 * Side effects: creates or replaces r->output ("-": standard output).
 */
int
RbReportWriteFile(Rb_Reporter *r, const Rb_RunInfo *run,
	Rb_ReportBody *body)
{
    Rb_ReportSet set;
    Rb_Out out;

    if (RbReportCollect(r, &set) != TCL_OK) {
	return TCL_ERROR;
    }
    if (Rb_OutOpen(r->interp, r->output, &out) != TCL_OK) {
	RbReportSetFree(&set);
	return TCL_ERROR;
    }
    body(out.fp, run, &set);
    RbReportSetFree(&set);
    return Rb_OutClose(r->interp, &out);
}

/*
 * RbReportNum --
 *	Formats a number for a report: integral values without a fraction
 *	("42", not "42.0"), others in the fewest digits that read back as
 *	the same double, non-finite values as NaN, Inf or -Inf.  Every
 *	format is exact, so that a value read from any report is the value
 *	the Analyzer computed.
 * Results: a pointer to buf (RB_NUMBUF bytes) or to a constant string.
 */
const char *
RbReportNum(double v, char *buf)
{
    int prec;

    if (isnan(v)) {
	return "NaN";
    }
    if (isinf(v)) {
	return v > 0 ? "Inf" : "-Inf";
    }
    if (v == floor(v) && fabs(v) < 1e15) {
	/* "%.0f" of -0.0 is "-0", which no reader wants to see. */
	snprintf(buf, RB_NUMBUF, "%.0f", v == 0 ? 0.0 : v);
	return buf;
    }
    for (prec = 15; prec < 17; prec++) {
	snprintf(buf, RB_NUMBUF, "%.*g", prec, v);
	if (strtod(buf, NULL) == v) {
	    return buf;
	}
    }
    snprintf(buf, RB_NUMBUF, "%.17g", v);
    return buf;
}

/*
 * RbReportRounded --
 *	Formats a number for a report people read (text, HTML): integral
 *	values as RbReportNum does, others to ten significant digits, which
 *	drops the noise of binary fractions ("0.000619", not
 *	"0.0006190000000000001") and keeps what any measurement here has.
 *	The machine-read formats (CSV, JSON, spreadsheet) keep
 *	RbReportNum's exact digits.
 * Results: a pointer to buf (RB_NUMBUF bytes) or to a constant string.
 */
const char *
RbReportRounded(double v, char *buf)
{
    if (!isfinite(v) || (v == floor(v) && fabs(v) < 1e15)) {
	return RbReportNum(v, buf);
    }
    snprintf(buf, RB_NUMBUF, "%.10g", v);
    return buf;
}

/*
 * RbReportRoundedCell --
 *	A cell as RbReportCell gives it, its number by RbReportRounded.
 */
const char *
RbReportRoundedCell(const Rb_Attribute *a, int row, int col, char *buf)
{
    const Rb_Column *c = &a->cols[col];

    return c->isText ? RbReportCell(a, row, col, buf)
	    : RbReportRounded(c->num[row], buf);
}

/*
 * RbReportCell --
 *	The text of one cell: a text cell's string ("" when unset) or the
 *	number formatted by RbReportNum.
 * Results: a string valid until buf or the Attribute changes.
 */
const char *
RbReportCell(const Rb_Attribute *a, int row, int col, char *buf)
{
    const Rb_Column *c = &a->cols[col];

    if (c->isText) {
	return c->text[row] ? c->text[row] : "";
    }
    return RbReportNum(c->num[row], buf);
}

/*
 * RbReportColUnit --
 *	Unit of a column, falling back to the Attribute's unit for the
 *	single value column of a scalar that did not set its own.
 */
const char *
RbReportColUnit(const Rb_Attribute *a, int col)
{
    const char *unit = a->cols[col].unit;

    if ((unit == NULL || *unit == '\0') && a->kind == RB_ATTR_SCALAR
	    && a->unit != NULL) {
	return a->unit;
    }
    return unit ? unit : "";
}

/*
 * RbReportCsvField --
 *	Writes s as one CSV field (RFC 4180): quoted, with quotes doubled,
 *	when it holds a comma, quote, CR or LF; as is otherwise.
 */
void
RbReportCsvField(FILE *fp, const char *s)
{
    const char *p;

    if (strpbrk(s, ",\"\r\n") == NULL) {
	fputs(s, fp);
	return;
    }
    putc('"', fp);
    for (p = s; *p; p++) {
	if (*p == '"') {
	    putc('"', fp);
	}
	putc(*p, fp);
    }
    putc('"', fp);
}

/*
 * Utf8Length --
 *	Length of the valid UTF-8 sequence at p (1-4), or 0 if the bytes
 *	there are not valid UTF-8 (overlong, surrogate, truncated...).
 */
static int
Utf8Length(const unsigned char *p)
{
    int n, i;
    unsigned int cp;

    if (p[0] < 0x80) {
	return 1;
    } else if ((p[0] & 0xE0) == 0xC0) {
	n = 2; cp = p[0] & 0x1F;
    } else if ((p[0] & 0xF0) == 0xE0) {
	n = 3; cp = p[0] & 0x0F;
    } else if ((p[0] & 0xF8) == 0xF0) {
	n = 4; cp = p[0] & 0x07;
    } else {
	return 0;
    }
    for (i = 1; i < n; i++) {
	if ((p[i] & 0xC0) != 0x80) {
	    return 0;
	}
	cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800)
	    || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))
	    || (cp >= 0xD800 && cp <= 0xDFFF)) {
	return 0;
    }
    return n;
}

/*
 * Rb_JsonString --
 *	Writes s as a JSON string literal.  Control characters are escaped
 *	(\n, \r, \t by name, the rest as \u00XX); bytes that are not valid
 *	UTF-8 become U+FFFD so that the file stays valid JSON whatever a
 *	trace contained.  The JSON reporter, the Chrome trace writer and the
 *	Magpie plugin's Chrome timeline all write strings through it.
 * Results: none.
 * Side effects: writes to fp.
 */
void
Rb_JsonString(FILE *fp, const char *s)
{
    const unsigned char *p = (const unsigned char *) s;
    int n;

    putc('"', fp);
    while (*p) {
	if (*p == '"' || *p == '\\') {
	    putc('\\', fp);
	    putc(*p++, fp);
	} else if (*p == '\n') {
	    fputs("\\n", fp); p++;
	} else if (*p == '\r') {
	    fputs("\\r", fp); p++;
	} else if (*p == '\t') {
	    fputs("\\t", fp); p++;
	} else if (*p < 0x20 || *p == 0x7F) {
	    fprintf(fp, "\\u%04x", *p++);
	} else if ((n = Utf8Length(p)) == 0) {
	    fputs("\\ufffd", fp); p++;
	} else {
	    fwrite(p, 1, n, fp);
	    p += n;
	}
    }
    putc('"', fp);
}

/*
 * RbReportHtmlString --
 *	Writes s as HTML text or attribute value: & < > " and ' as
 *	character references, control characters other than tab and
 *	newline (which HTML forbids) and bytes that are not valid UTF-8 as
 *	U+FFFD, so that any name from a trace leaves the page well formed.
 */
void
RbReportHtmlString(FILE *fp, const char *s)
{
    const unsigned char *p = (const unsigned char *) s;
    int n;

    while (*p) {
	switch (*p) {
	case '&': fputs("&amp;", fp); p++; continue;
	case '<': fputs("&lt;", fp); p++; continue;
	case '>': fputs("&gt;", fp); p++; continue;
	case '"': fputs("&quot;", fp); p++; continue;
	case '\'': fputs("&#39;", fp); p++; continue;
	}
	if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7F
		|| (n = Utf8Length(p)) == 0) {
	    fputs("&#xfffd;", fp);
	    p++;
	} else {
	    fwrite(p, 1, n, fp);
	    p += n;
	}
    }
}

/*
 * RbReportJsonNum --
 *	Writes a number as JSON: NaN and infinities, which JSON cannot
 *	express, as null.
 */
void
RbReportJsonNum(FILE *fp, double v)
{
    char buf[RB_NUMBUF];

    fputs(isfinite(v) ? RbReportNum(v, buf) : "null", fp);
}

/*
 * RbReportSanitize --
 *	Appends to out a file-name-safe form of s: every byte outside
 *	[A-Za-z0-9_.-] becomes '_', a leading '.' or '-' too (no hidden
 *	files, no "..", nothing a command takes for an option), and an
 *	empty name becomes "_".
 */
void
RbReportSanitize(const char *s, Tcl_DString *out)
{
    const char *p;
    char c;

    if (*s == '\0') {
	Tcl_DStringAppend(out, "_", 1);
	return;
    }
    for (p = s; *p; p++) {
	c = *p;
	if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
		|| (c >= '0' && c <= '9') || c == '_'
		|| ((c == '.' || c == '-') && p != s))) {
	    c = '_';
	}
	Tcl_DStringAppend(out, &c, 1);
    }
}

void
RbReportNamesInit(Rb_ReportNames *names)
{
    Tcl_InitHashTable(&names->used, TCL_STRING_KEYS);
}

void
RbReportNamesFree(Rb_ReportNames *names)
{
    Tcl_DeleteHashTable(&names->used);
}

/*
 * RbReportFileName --
 *	A file base name (no extension) for a flow's attribute, "FLOW.ATTR"
 *	sanitized, or "FLOW" when attr is NULL.  Different names can
 *	sanitize alike ("a b", "a_b"), so a repeat gets "-2", "-3"...
 * Results: the name, in out (initialized here).
 * Side effects: records the name as used.
 */
const char *
RbReportFileName(Rb_ReportNames *names, const char *flow, const char *attr,
	Tcl_DString *out)
{
    int isNew, len, n = 1;
    char suffix[24];

    Tcl_DStringInit(out);
    RbReportSanitize(flow, out);
    if (attr != NULL) {
	Tcl_DStringAppend(out, ".", 1);
	RbReportSanitize(attr, out);
    }
    len = Tcl_DStringLength(out);
    for (;;) {
	Tcl_CreateHashEntry(&names->used, Tcl_DStringValue(out), &isNew);
	if (isNew) {
	    return Tcl_DStringValue(out);
	}
	Tcl_DStringSetLength(out, len);
	snprintf(suffix, sizeof(suffix), "-%d", ++n);
	Tcl_DStringAppend(out, suffix, -1);
    }
}

/*
 * RbReportJoinPath --
 *	Sets out (initialized here) to dir/name.ext (ext may be "").
 */
void
RbReportJoinPath(const char *dir, const char *name, const char *ext,
	Tcl_DString *out)
{
    Tcl_DStringInit(out);
    Tcl_DStringAppend(out, dir, -1);
    Tcl_DStringAppend(out, "/", 1);
    Tcl_DStringAppend(out, name, -1);
    Tcl_DStringAppend(out, ext, -1);
}

/*
 * RbReportOpen --
 *	Opens dir/name.ext through Rb_Out (temporary name, renamed by
 *	Rb_OutClose).
 * Results: TCL_OK, or TCL_ERROR naming the file.
 */
int
RbReportOpen(Tcl_Interp *interp, const char *dir, const char *name,
	const char *ext, Rb_Out *out)
{
    Tcl_DString path;
    int code;

    RbReportJoinPath(dir, name, ext, &path);
    code = Rb_OutOpen(interp, Tcl_DStringValue(&path), out);
    Tcl_DStringFree(&path);
    return code;
}

/*
 * RbReportMkdir --
 *	Creates directory path and any missing parents, like mkdir -p.  In
 *	safe mode the whole path is checked first, so that no parent is made
 *	outside the output directory before a write there is refused.
 * Results: TCL_OK, or TCL_ERROR with a message naming the directory.
 */
int
RbReportMkdir(Tcl_Interp *interp, const char *path)
{
    Tcl_DString ds;
    char *p, *s;
    struct stat st;
    int code = TCL_OK;

    if (*path == '\0') {
	return Rb_SetInterpError(interp, "RUBICON REPORTER IO",
		"empty output directory name");
    }
    Tcl_DStringInit(&ds);
    /* A file in the directory may be written only if the directory is
     * inside the output directory. */
    Tcl_DStringAppend(&ds, path, -1);
    Tcl_DStringAppend(&ds, "/.", 2);
    code = Rb_SafeCheckWrite(interp, Tcl_DStringValue(&ds));
    Tcl_DStringSetLength(&ds, 0);
    if (code != TCL_OK) {
	Tcl_DStringFree(&ds);
	return code;
    }
    s = Tcl_DStringAppend(&ds, path, -1);
    for (p = s + 1; ; p++) {
	if (*p == '/' || *p == '\0') {
	    char save = *p;
	    int err;

	    *p = '\0';
	    if (mkdir(s, 0777) != 0 && !((err = errno) == EEXIST
		    && stat(s, &st) == 0 && S_ISDIR(st.st_mode))) {
		code = Rb_SetInterpError(interp, "RUBICON REPORTER IO",
			"cannot create output directory \"%s\": %s", path,
			err == EEXIST ? "not a directory" : strerror(err));
		break;
	    }
	    *p = save;
	    if (save == '\0') {
		break;
	    }
	}
    }
    Tcl_DStringFree(&ds);
    return code;
}

/*
 * RbReportOnPath --
 *	1 if an executable called program is in a directory of PATH (an
 *	empty entry is the current directory), else 0.
 */
int
RbReportOnPath(const char *program)
{
    const char *path = getenv("PATH"), *p, *end;
    Tcl_DString ds;
    int found = 0;

    for (p = path ? path : ""; !found; p = end + 1) {
	end = strchr(p, ':');
	if (end == NULL) {
	    end = p + strlen(p);
	}
	Tcl_DStringInit(&ds);
	Tcl_DStringAppend(&ds, end > p ? p : ".", end > p ? (int) (end - p)
		: 1);
	Tcl_DStringAppend(&ds, "/", 1);
	Tcl_DStringAppend(&ds, program, -1);
	found = access(Tcl_DStringValue(&ds), X_OK) == 0;
	Tcl_DStringFree(&ds);
	if (*end == '\0') {
	    break;
	}
    }
    return found;
}
