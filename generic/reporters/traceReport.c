/*
 * traceReport.c --
 *
 *	The two loops of "rubicon report"'s writer (library/report.tcl)
 *	that run once per heat-map cell or table row, in C: at a few
 *	microseconds a value or cell in Tcl they took most of the writer's
 *	time on a large trace.  Each gives exactly the text the Tcl it
 *	replaces gave.  The writer's JSON values are written here too, one
 *	rule for a value alone and in a row:
 *
 *	::rubicon::tracereport::jstr s
 *	    s as a JSON string: backslash, double quote, newline, return
 *	    and tab escaped, other control characters left out.
 *	::rubicon::tracereport::jnum v
 *	    v as a JSON number (as jrows has numbers), null when it is not
 *	    a number.
 *	::rubicon::tracereport::jval v
 *	    v as a number when it is one, else as a string.
 *	::rubicon::tracereport::jrows rows
 *	    A list of row lists as a JSON array of arrays, each value as
 *	    jval has it: an integer (string is wide) as the integer, another
 *	    number as null when it names no finite value (NaN, Inf) or else
 *	    %.10g, any other value as a JSON string.
 *	::rubicon::tracereport::heatrects cells W H L R T B
 *	    The SVG rectangles of an offset-by-time heat map of W by H
 *	    pixels less the margins L R T B: cells are {timeLo timeHi
 *	    offsetLo offsetHi count}, placed by their bounds and shaded by
 *	    log(1 + count) against the largest.  Returns {t0 t1 o0 o1
 *	    rects}: the ranges of time and offset the plot spans, and the
 *	    <rect> elements.
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "core/rbInt.h"

/*
 * IsTclDouble --
 *	Whether v is a number as "string is double -strict" has it (the
 *	strings NaN and Inf included), for a v that Tcl_GetDoubleFromObj
 *	refused: only a NaN can be, so only a string with an n is asked.
 */
static int
IsTclDouble(Tcl_Interp *interp, Tcl_Obj *v)
{
    Tcl_Obj *cmd[4];
    const char *s = Tcl_GetString(v);
    int result = 0, i;

    if (strpbrk(s, "nN") == NULL) {
	return 0;
    }
    cmd[0] = Tcl_NewStringObj("::tcl::string::is", -1);
    cmd[1] = Tcl_NewStringObj("double", -1);
    cmd[2] = Tcl_NewStringObj("-strict", -1);
    cmd[3] = v;
    for (i = 0; i < 4; i++) {
	Tcl_IncrRefCount(cmd[i]);
    }
    if (Tcl_EvalObjv(interp, 4, cmd, 0) == TCL_OK) {
	Tcl_GetBooleanFromObj(NULL, Tcl_GetObjResult(interp), &result);
    }
    for (i = 0; i < 4; i++) {
	Tcl_DecrRefCount(cmd[i]);
    }
    Tcl_ResetResult(interp);
    return result;
}

/*
 * AppendJsonString --
 *	Appends s as a JSON string: backslash and double quote escaped,
 *	newline, return and tab as \n \r \t, other control characters
 *	(U+0000, which Tcl holds as C0 80, among them) left out.
 */
static void
AppendJsonString(Tcl_DString *out, const char *s, int len)
{
    int i, from = 0;

    Tcl_DStringAppend(out, "\"", 1);
    for (i = 0; i < len; i++) {
	unsigned char c = (unsigned char)s[i];
	const char *esc = NULL;
	int skip = 0;

	if (c == '\\') {
	    esc = "\\\\";
	} else if (c == '"') {
	    esc = "\\\"";
	} else if (c == '\n') {
	    esc = "\\n";
	} else if (c == '\r') {
	    esc = "\\r";
	} else if (c == '\t') {
	    esc = "\\t";
	} else if (c < 0x20) {
	    skip = 1;
	} else if (c == 0xC0 && i + 1 < len
		&& (unsigned char)s[i + 1] == 0x80) {
	    skip = 2;
	} else {
	    continue;
	}
	Tcl_DStringAppend(out, s + from, i - from);
	if (esc != NULL) {
	    Tcl_DStringAppend(out, esc, -1);
	    from = i + 1;
	} else {
	    from = i + skip;
	    i += skip - 1;
	}
    }
    Tcl_DStringAppend(out, s + from, len - from);
    Tcl_DStringAppend(out, "\"", 1);
}

/*
 * AppendJsonNumber --
 *	Appends v as a JSON number when it is a number as Tcl reads one
 *	("string is double"): an integer (string is wide) as the integer,
 *	another as %.10g, or null when it names no finite value (NaN, Inf).
 * Results: 1, or 0 (nothing appended) when v is not a number.
 */
static int
AppendJsonNumber(Tcl_Interp *interp, Tcl_DString *out, Tcl_Obj *v)
{
    char buf[64];
    Tcl_WideInt w;
    double d;

    if (Tcl_GetWideIntFromObj(NULL, v, &w) == TCL_OK) {
	snprintf(buf, sizeof(buf), "%" TCL_LL_MODIFIER "d", w);
    } else if (Tcl_GetDoubleFromObj(NULL, v, &d) == TCL_OK) {
	if (!isfinite(d)) {
	    strcpy(buf, "null");
	} else {
	    snprintf(buf, sizeof(buf), "%.10g", d);
	}
    } else if (IsTclDouble(interp, v)) {
	strcpy(buf, "null");		/* A NaN, which Tcl reads as none. */
    } else {
	return 0;
    }
    Tcl_DStringAppend(out, buf, -1);
    return 1;
}

/*
 * AppendJsonValue --
 *	Appends v as JSON: a number (AppendJsonNumber), or else a string.
 */
static void
AppendJsonValue(Tcl_Interp *interp, Tcl_DString *out, Tcl_Obj *v)
{
    const char *s;
    int len;

    if (!AppendJsonNumber(interp, out, v)) {
	s = Tcl_GetStringFromObj(v, &len);
	AppendJsonString(out, s, len);
    }
}

/*
 * JsonOneCmd --
 *	::rubicon::tracereport::jstr s, jnum v and jval v (cd 's', 'n' and
 *	'v'): s as a JSON
 *	string; v as a JSON number, or null when it is not one; v as a
 *	number, or else a string.
 */
static int
JsonOneCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    Tcl_DString out;
    const char *s;
    int len;

    if (objc != 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "value");
	return TCL_ERROR;
    }
    Tcl_DStringInit(&out);
    if ((intptr_t)cd == 's') {
	s = Tcl_GetStringFromObj(objv[1], &len);
	AppendJsonString(&out, s, len);
    } else if ((intptr_t)cd == 'n') {
	if (!AppendJsonNumber(interp, &out, objv[1])) {
	    Tcl_DStringAppend(&out, "null", 4);
	}
    } else {
	AppendJsonValue(interp, &out, objv[1]);
    }
    Tcl_DStringResult(interp, &out);
    return TCL_OK;
}

static int
JrowsCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Tcl_Obj **rows, **vals;
    Tcl_DString out;
    int nrows, nvals, i, j;

    (void)cd;
    if (objc != 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "rows");
	return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(interp, objv[1], &nrows, &rows) != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_DStringInit(&out);
    Tcl_DStringAppend(&out, "[", 1);
    for (i = 0; i < nrows; i++) {
	if (Tcl_ListObjGetElements(interp, rows[i], &nvals, &vals)
		!= TCL_OK) {
	    Tcl_DStringFree(&out);
	    return TCL_ERROR;
	}
	Tcl_DStringAppend(&out, i > 0 ? ", [" : "[", -1);
	for (j = 0; j < nvals; j++) {
	    if (j > 0) {
		Tcl_DStringAppend(&out, ", ", 2);
	    }
	    AppendJsonValue(interp, &out, vals[j]);
	}
	Tcl_DStringAppend(&out, "]", 1);
    }
    Tcl_DStringAppend(&out, "]", 1);
    Tcl_DStringResult(interp, &out);
    return TCL_OK;
}

/*
 * HeatrectsCmd --
 *	::rubicon::tracereport::heatrects (see the top of the file).  The
 *	arithmetic is the Tcl's it replaces, in doubles: the bounds are
 *	whole numbers of bytes and multiples of the bin width, exact in a
 *	double below 2^53.
 */
static int
HeatrectsCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    Tcl_Obj **cells, **c, *result[5];
    Tcl_DString out;
    double *v, t0 = 0, t1 = 0, o0 = 0, o1 = 0, cmax = 0, sx, sy;
    int dims[6], ncells, n, i, k;
    char buf[256];

    (void)cd;
    if (objc != 8) {
	Tcl_WrongNumArgs(interp, 1, objv, "cells W H L R T B");
	return TCL_ERROR;
    }
    for (k = 0; k < 6; k++) {
	if (Tcl_GetIntFromObj(interp, objv[2 + k], &dims[k]) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    if (Tcl_ListObjGetElements(interp, objv[1], &ncells, &cells) != TCL_OK) {
	return TCL_ERROR;
    }
    /* The cells' five numbers; the ranges, and the largest count: as min
     * and max over them. */
    v = Rb_AllocArray((size_t)ncells * 5 + 1, sizeof(double));
    for (i = 0; i < ncells; i++) {
	double *r = v + 5 * i;

	if (Tcl_ListObjGetElements(interp, cells[i], &n, &c) != TCL_OK) {
	    free(v);
	    return TCL_ERROR;
	}
	if (n != 5) {
	    Tcl_SetObjResult(interp, Tcl_ObjPrintf("heat-map cell \"%s\" "
		    "is not {timeLo timeHi offsetLo offsetHi count}",
		    Tcl_GetString(cells[i])));
	    free(v);
	    return TCL_ERROR;
	}
	for (k = 0; k < 5; k++) {
	    if (Tcl_GetDoubleFromObj(interp, c[k], &r[k]) != TCL_OK) {
		free(v);
		return TCL_ERROR;
	    }
	}
	if (i == 0) {
	    t0 = t1 = r[0];
	    o0 = o1 = r[2];
	    cmax = r[4];
	}
	t0 = fmin(t0, fmin(r[0], r[1]));
	t1 = fmax(t1, fmax(r[0], r[1]));
	o0 = fmin(o0, fmin(r[2], r[3]));
	o1 = fmax(o1, fmax(r[2], r[3]));
	cmax = fmax(cmax, r[4]);
    }
    if (ncells == 0 || !(cmax > 0)) {
	free(v);
	Tcl_SetObjResult(interp, Tcl_NewStringObj(
		"heatrects needs cells, with a positive count", -1));
	return TCL_ERROR;
    }
    sx = (dims[0] - dims[2] - dims[3]) / fmax(t1 - t0, 1e-9);
    sy = (dims[1] - dims[4] - dims[5]) / fmax(o1 - o0, 1);
    Tcl_DStringInit(&out);
    for (i = 0; i < ncells; i++) {
	const double *r = v + 5 * i;
	int shade = (int)(255 - 225 * log(1 + r[4]) / log(1 + cmax));

	snprintf(buf, sizeof(buf), "<rect x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\" fill=\"rgb(%d,%d,255)\"/>",
		dims[2] + (r[0] - t0) * sx,
		(dims[1] - dims[5]) - (r[3] - o0) * sy,
		fmax(1.0, (r[1] - r[0]) * sx), fmax(1.0, (r[3] - r[2]) * sy),
		shade, shade);
	Tcl_DStringAppend(&out, buf, -1);
    }
    free(v);
    result[0] = Tcl_NewDoubleObj(t0);
    result[1] = Tcl_NewDoubleObj(t1);
    result[2] = Tcl_NewDoubleObj(o0);
    result[3] = Tcl_NewDoubleObj(o1);
    result[4] = Tcl_NewStringObj(Tcl_DStringValue(&out),
	    Tcl_DStringLength(&out));
    Tcl_DStringFree(&out);
    Tcl_SetObjResult(interp, Tcl_NewListObj(5, result));
    return TCL_OK;
}

/*
 * RbTraceReportInitCmds --
 *	Creates jstr, jnum, jval, jrows and heatrects in
 *	::rubicon::tracereport.
 * Results: TCL_OK.
 */
int
RbTraceReportInitCmds(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::rubicon::tracereport::jstr",
	    JsonOneCmd, (ClientData)(intptr_t)'s', NULL);
    Tcl_CreateObjCommand(interp, "::rubicon::tracereport::jnum",
	    JsonOneCmd, (ClientData)(intptr_t)'n', NULL);
    Tcl_CreateObjCommand(interp, "::rubicon::tracereport::jval",
	    JsonOneCmd, (ClientData)(intptr_t)'v', NULL);
    Tcl_CreateObjCommand(interp, "::rubicon::tracereport::jrows", JrowsCmd,
	    NULL, NULL);
    Tcl_CreateObjCommand(interp, "::rubicon::tracereport::heatrects",
	    HeatrectsCmd, NULL, NULL);
    return TCL_OK;
}
