/*
 * resources.c --
 *
 *	The Observer's per-resource models (Thereska 2007, ch. 5), which
 *	turn a workload's behaviour into demands for the queueing model
 *	(the disk's is in disk.c):
 *	  observer::network  bytes and time per request of an m-of-n
 *			     encoding
 *	  observer::cpu      CPU demand interpolated in a measured table
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
 * RbObsCpuCmd --
 *	observer::cpu TABLE SIZE: TABLE is a list of measured {size
 *	seconds} points; the CPU demand of a request of SIZE bytes by
 *	linear interpolation between the points around it, extended
 *	linearly past either end.
 */
int
RbObsCpuCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    Tcl_Obj **rows;
    int nrows, i;
    double size, *x, *y, t;

    if (objc != 3) {
	Tcl_WrongNumArgs(interp, 1, objv, "table size");
	return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(interp, objv[1], &nrows, &rows) != TCL_OK
	    || Tcl_GetDoubleFromObj(interp, objv[2], &size) != TCL_OK) {
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
    Tcl_SetObjResult(interp, Tcl_NewDoubleObj(t));
    return TCL_OK;
}
