/*
 * resources.c --
 *
 *	The Observer's per-resource models (Thereska 2007, ch. 5), which
 *	turn a workload's behaviour into demands for the queueing model
 *	(the disk's is in disk.c):
 *	  observer::network  bytes and time per request of an m-of-n
 *			     encoding
 *	  observer::cpu      CPU demand interpolated in a measured table,
 *			     or by encoding from measurements per encoding
 *			     and the read:write ratio
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

/*
 * RbObsNetworkCmd --
 *	observer::network -block B -m M -n N -readfraction F -bandwidth BW
 *	?-setup S?: per request of an m-of-n encoding (any m of n fragments
 *	rebuild a block), a read moves one block and a write n/m blocks:
 *	bytes = F B + (1 - F) B n / m, time = bytes / BW + S.  Returns
 *	{bytes X time T}.
 */
int
RbObsNetworkCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-block", "-m", "-n", "-readfraction",
	"-bandwidth", "-setup", NULL};
    double v[6] = {-1, -1, -1, -1, -1, 0}, bytes;
    int i, idx;

    if (objc % 2 == 0) {
	Tcl_WrongNumArgs(interp, 1, objv, "-block B -m M -n N -readfraction F "
		"-bandwidth BW ?-setup S?");
	return TCL_ERROR;
    }
    for (i = 1; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK || Tcl_GetDoubleFromObj(interp, objv[i + 1], &v[idx])
		!= TCL_OK) {
	    return TCL_ERROR;
	}
    }
    for (i = 0; i < 5; i++) {
	if (!(v[i] >= 0)) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "observer::network needs a non-negative %s", opts[i]);
	}
    }
    if (v[1] <= 0 || v[2] < v[1] || v[3] > 1 || v[4] <= 0) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"need 0 < m <= n, readfraction in [0, 1], bandwidth > 0");
    }
    bytes = v[3] * v[0] + (1 - v[3]) * v[0] * v[2] / v[1];
    Tcl_SetObjResult(interp, Tcl_ObjPrintf("bytes %.17g time %.17g", bytes,
	    bytes / v[4] + v[5]));
    return TCL_OK;
}

/*
 * CpuInterp --
 *	observer::cpu TABLE SIZE: TABLE is a list of measured {size
 *	seconds} points; the CPU demand of a request of SIZE bytes by
 *	linear interpolation between the points around it, extended
 *	linearly past either end.
 */
static int
CpuInterp(Tcl_Interp *interp, Tcl_Obj *table, double size, double *out)
{
    Tcl_Obj **rows;
    int nrows, i;
    double *x, *y, t;

    if (Tcl_ListObjGetElements(interp, table, &nrows, &rows) != TCL_OK) {
	return TCL_ERROR;
    }
    if (nrows == 0) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"the CPU table is empty");
    }
    x = Rb_AllocArray(nrows, sizeof(double));
    y = Rb_AllocArray(nrows, sizeof(double));
    for (i = 0; i < nrows; i++) {
	Tcl_Obj **f;
	int nf;

	if (Tcl_ListObjGetElements(interp, rows[i], &nf, &f) != TCL_OK
		|| nf != 2 || Tcl_GetDoubleFromObj(interp, f[0], &x[i])
		!= TCL_OK || Tcl_GetDoubleFromObj(interp, f[1], &y[i])
		!= TCL_OK || (i > 0 && x[i] <= x[i - 1])) {
	    free(x);
	    free(y);
	    Tcl_ResetResult(interp);
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		    "CPU table row %d must be {size seconds} with sizes "
		    "increasing", i + 1);
	}
    }
    if (nrows == 1) {
	t = x[0] > 0 ? y[0] * size / x[0] : y[0];
    } else {
	for (i = 1; i < nrows - 1 && size > x[i]; i++) {
	}
	t = y[i - 1] + (y[i] - y[i - 1]) * (size - x[i - 1])
		/ (x[i] - x[i - 1]);
    }
    free(x);
    free(y);
    *out = t;
    return TCL_OK;
}

/*
 * CpuMeasured --
 *	One measured cost of an encoding: a number of seconds per request,
 *	or a {size seconds} table interpolated at size (which must then be
 *	given).
 */
static int
CpuMeasured(Tcl_Interp *interp, Tcl_Obj *v, double size, const char *what,
	double *out)
{
    int n;

    if (Tcl_GetDoubleFromObj(NULL, v, out) == TCL_OK) {
	if (!(*out >= 0)) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		    "the %s CPU cost must be non-negative seconds", what);
	}
	return TCL_OK;
    }
    if (Tcl_ListObjLength(NULL, v, &n) != TCL_OK || n == 0) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"the %s CPU cost must be seconds or a {size seconds} table",
		what);
    }
    if (!(size >= 0)) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"the %s CPU cost is a table: give -size", what);
    }
    return CpuInterp(interp, v, size, out);
}

/*
 * CpuEncoding --
 *	observer::cpu encoding MEASURED E -readfraction F ?-size B?: the
 *	thesis's CPU What...if model (5.2.2): MEASURED is a dict of
 *	encoding -> {read R write W}, the directly measured mean CPU cost
 *	of a read (decode, decrypt) and a write (encode, encrypt) under
 *	that encoding, each seconds or a {size seconds} table; the demand
 *	of a request of the workload under E is F R + (1 - F) W.  Returns
 *	{demand D read R write W}.
 */
static int
CpuEncoding(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-readfraction", "-size", NULL};
    double v[2] = {-1, -1}, r, w;
    Tcl_Obj *row, *rv, *wv;
    int i, idx;

    if (objc < 4 || objc % 2) {
	Tcl_WrongNumArgs(interp, 1, objv,
		"encoding measured encoding -readfraction F ?-size B?");
	return TCL_ERROR;
    }
    for (i = 4; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK || Tcl_GetDoubleFromObj(interp, objv[i + 1], &v[idx])
		!= TCL_OK) {
	    return TCL_ERROR;
	}
    }
    if (!(v[0] >= 0 && v[0] <= 1)) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"observer::cpu encoding needs -readfraction in [0, 1]");
    }
    if (Tcl_DictObjGet(interp, objv[2], objv[3], &row) != TCL_OK) {
	return TCL_ERROR;
    }
    if (row == NULL) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"no CPU measurements for encoding \"%s\"",
		Tcl_GetString(objv[3]));
    }
    if (Tcl_DictObjGet(NULL, row, Tcl_NewStringObj("read", -1), &rv)
	    != TCL_OK || Tcl_DictObjGet(NULL, row,
	    Tcl_NewStringObj("write", -1), &wv) != TCL_OK
	    || rv == NULL || wv == NULL) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"the measurements of encoding \"%s\" must be {read R write "
		"W}", Tcl_GetString(objv[3]));
    }
    if (CpuMeasured(interp, rv, v[1], "read", &r) != TCL_OK
	    || CpuMeasured(interp, wv, v[1], "write", &w) != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_SetObjResult(interp, Tcl_ObjPrintf("demand %.17g read %.17g "
	    "write %.17g", v[0] * r + (1 - v[0]) * w, r, w));
    return TCL_OK;
}

int
RbObsCpuCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    double size, t;

    if (objc >= 2 && strcmp(Tcl_GetString(objv[1]), "encoding") == 0) {
	return CpuEncoding(interp, objc, objv);
    }
    if (objc != 3) {
	Tcl_WrongNumArgs(interp, 1, objv, "table size");
	return TCL_ERROR;
    }
    if (Tcl_GetDoubleFromObj(interp, objv[2], &size) != TCL_OK
	    || CpuInterp(interp, objv[1], size, &t) != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_SetObjResult(interp, Tcl_NewDoubleObj(t));
    return TCL_OK;
}
