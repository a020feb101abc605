/*
 * mismatch.c --
 *
 *	observer::mismatch: localizes where a model and the system part
 *	ways (Thereska 2007, ch. 6).
 *
 *	  observer::mismatch PREDICTED OBSERVED ?HISTORY? ?-spread f?
 *
 *	PREDICTED maps a center (or a request-graph edge, any name) to the
 *	expected value, or to {mean stddev}; without a stddev the
 *	expectation's spread is f times |mean| (-spread, default 0.1).
 *	OBSERVED maps a center to its measured value, HISTORY a center to
 *	its past measured values.  A center is flagged when its observed
 *	value lies more than one standard deviation from the expectation
 *	(reason "expectation"), from the mean of its history (at least two
 *	values; reason "history"), or both ("both"); a center observed but
 *	not predicted is "unpredicted", one predicted but not observed
 *	"unobserved".  The answer is a list of {center reason predicted
 *	observed}, the farthest (in standard deviations) first.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

typedef struct Flag {
    Tcl_Obj *center;
    const char *reason;
    Tcl_Obj *predicted, *observed;
    double distance;		/* In standard deviations; inf: missing. */
} Flag;

/*
 * CompareFlags --
 *	qsort order: farthest first, then by center name.
 */
static int
CompareFlags(const void *p, const void *q)
{
    const Flag *a = p, *b = q;

    if (a->distance != b->distance) {
	return a->distance > b->distance ? -1 : 1;
    }
    return strcmp(Tcl_GetString(a->center), Tcl_GetString(b->center));
}

/*
 * Expectation --
 *	Parses a predicted value (mean or {mean stddev}).
 */
static int
Expectation(Tcl_Interp *interp, Tcl_Obj *obj, double spread, double *mean,
	double *sd)
{
    Tcl_Obj **v;
    int n;

    if (Tcl_ListObjGetElements(interp, obj, &n, &v) != TCL_OK) {
	return TCL_ERROR;
    }
    if (n != 1 && n != 2) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"a prediction is a mean or {mean stddev}, not \"%s\"",
		Tcl_GetString(obj));
    }
    if (Tcl_GetDoubleFromObj(interp, v[0], mean) != TCL_OK
	    || (n == 2 && Tcl_GetDoubleFromObj(interp, v[1], sd) != TCL_OK)) {
	return TCL_ERROR;
    }
    if (n == 1) {
	*sd = spread * fabs(*mean);
    }
    return TCL_OK;
}

/*
 * HistoryStats --
 *	Mean and sample standard deviation of a list of past values.
 * Results: TCL_OK with *n set to the count (the stats are valid when it
 *	is at least 2), or TCL_ERROR.
 */
static int
HistoryStats(Tcl_Interp *interp, Tcl_Obj *list, int *n, double *mean,
	double *sd)
{
    Tcl_Obj **v;
    double x, sum = 0, sum2 = 0;
    int i;

    if (Tcl_ListObjGetElements(interp, list, n, &v) != TCL_OK) {
	return TCL_ERROR;
    }
    for (i = 0; i < *n; i++) {
	if (Tcl_GetDoubleFromObj(interp, v[i], &x) != TCL_OK) {
	    return TCL_ERROR;
	}
	sum += x;
    }
    *mean = *n ? sum / *n : 0;
    for (i = 0; i < *n; i++) {
	Tcl_GetDoubleFromObj(NULL, v[i], &x);
	sum2 += (x - *mean) * (x - *mean);
    }
    *sd = *n > 1 ? sqrt(sum2 / (*n - 1)) : 0;
    return TCL_OK;
}

/*
 * Outside --
 *	How many standard deviations x is from mean, or 0 when it is
 *	within one (a zero deviation allows only equality).
 */
static double
Outside(double x, double mean, double sd)
{
    double d = fabs(x - mean);

    if (d <= sd) {
	return 0;
    }
    return sd > 0 ? d / sd : INFINITY;
}

/*
 * RbObsMismatchCmd --
 *	Compares observed with predicted and history as described above.
 */
int
RbObsMismatchCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    Tcl_Obj *pred, *obs, *hist = NULL, *key, *value, *h, *out, *none;
    Tcl_DictSearch search;
    Flag *flags = NULL;
    double spread = 0.1;
    int nflags = 0, done, i, rc = TCL_ERROR, nargs = objc;

    if (objc >= 5 && strcmp(Tcl_GetString(objv[objc - 2]), "-spread") == 0) {
	if (Tcl_GetDoubleFromObj(interp, objv[objc - 1], &spread) != TCL_OK) {
	    return TCL_ERROR;
	}
	nargs -= 2;
    }
    if (nargs != 3 && nargs != 4) {
	Tcl_WrongNumArgs(interp, 1, objv,
		"predicted observed ?history? ?-spread f?");
	return TCL_ERROR;
    }
    pred = objv[1];
    obs = objv[2];
    if (nargs == 4) {
	hist = objv[3];
    }
    if (Tcl_DictObjSize(interp, pred, &i) != TCL_OK
	    || Tcl_DictObjSize(interp, obs, &i) != TCL_OK
	    || (hist && Tcl_DictObjSize(interp, hist, &i) != TCL_OK)) {
	return TCL_ERROR;
    }
    if (Tcl_DictObjFirst(interp, obs, &search, &key, &value, &done)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    none = Tcl_NewObj();	/* the missing side of a flag */
    Tcl_IncrRefCount(none);
    for (; !done; Tcl_DictObjNext(&search, &key, &value, &done)) {
	Tcl_Obj *p;
	double x, mean = 0, sd = 0, dModel, dHist = 0, hMean = 0, hSd = 0;
	int hn = 0;

	flags = Rb_ReallocArray(flags, nflags + 1, sizeof(Flag));
	if (Tcl_GetDoubleFromObj(interp, value, &x) != TCL_OK
		|| Tcl_DictObjGet(interp, pred, key, &p) != TCL_OK
		|| (p && Expectation(interp, p, spread, &mean, &sd)
		!= TCL_OK)) {
	    Tcl_DictObjDone(&search);
	    goto done;
	}
	h = NULL;
	if (hist && (Tcl_DictObjGet(interp, hist, key, &h) != TCL_OK
		|| (h && HistoryStats(interp, h, &hn, &hMean, &hSd)
		!= TCL_OK))) {
	    Tcl_DictObjDone(&search);
	    goto done;
	}
	if (p == NULL) {
	    flags[nflags++] = (Flag) {key, "unpredicted", none, value,
		INFINITY};
	    continue;
	}
	dModel = Outside(x, mean, sd);
	if (hn >= 2) {
	    dHist = Outside(x, hMean, hSd);
	}
	if (dModel > 0 || dHist > 0) {
	    flags[nflags++] = (Flag) {key, dModel > 0 && dHist > 0 ? "both"
		: dModel > 0 ? "expectation" : "history", p, value,
		fmax(dModel, dHist)};
	}
    }
    Tcl_DictObjDone(&search);
    if (Tcl_DictObjFirst(interp, pred, &search, &key, &value, &done)
	    != TCL_OK) {
	goto done;
    }
    for (; !done; Tcl_DictObjNext(&search, &key, &value, &done)) {
	Tcl_Obj *o;

	Tcl_DictObjGet(NULL, obs, key, &o);
	if (o == NULL) {
	    flags = Rb_ReallocArray(flags, nflags + 1, sizeof(Flag));
	    flags[nflags++] = (Flag) {key, "unobserved", value, none,
		INFINITY};
	}
    }
    Tcl_DictObjDone(&search);
    qsort(flags, nflags, sizeof(Flag), CompareFlags);
    out = Tcl_NewObj();
    for (i = 0; i < nflags; i++) {
	Tcl_ListObjAppendElement(NULL, out, Tcl_NewListObj(4, (Tcl_Obj *[]) {
	    flags[i].center, Tcl_NewStringObj(flags[i].reason, -1),
	    flags[i].predicted, flags[i].observed}));
    }
    Tcl_SetObjResult(interp, out);
    rc = TCL_OK;
  done:
    Tcl_DecrRefCount(none);
    free(flags);
    return rc;
}
