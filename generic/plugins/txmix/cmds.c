/*
 * cmds.c --
 *
 *	The Tcl commands of the transaction-mix plugin, for use on data
 *	already in Tcl (from the TxMixAnalyzer's Attributes, a CSV file, a
 *	simulator):
 *
 *	  txmix::lar X y ?-intercept bool?
 *	  txmix::ols X y ?-intercept bool?
 *	  txmix::fit N y ?options?
 *	  txmix::accuracy y yhat ?-mask list?
 *	  txmix::anomalies N y ?options?
 *
 *	A matrix is a list of rows, each a list of numbers.  Results are
 *	dicts (see doc/Txmix.n).
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/txmix/txmix.h"

/*
 * GetVector --
 *	Parses a list of numbers into a malloc'd array.
 * Results: TCL_OK with *v and *n set, or TCL_ERROR with a message.
 */
static int
GetVector(Tcl_Interp *interp, Tcl_Obj *obj, const char *what, double **v,
	int *n)
{
    Tcl_Obj **elems;
    int i;

    *v = NULL;
    if (Tcl_ListObjGetElements(interp, obj, n, &elems) != TCL_OK) {
	return TCL_ERROR;
    }
    *v = Rb_AllocArray(*n + 1, sizeof(double));
    for (i = 0; i < *n; i++) {
	if (Tcl_GetDoubleFromObj(NULL, elems[i], &(*v)[i]) != TCL_OK) {
	    free(*v);
	    *v = NULL;
	    return Rb_SetInterpError(interp, "RUBICON TXMIX VALUE",
		    "%s element %d is not a number: \"%s\"", what, i + 1,
		    Tcl_GetString(elems[i]));
	}
    }
    return TCL_OK;
}

/*
 * GetMatrix --
 *	Parses a list of rows into a malloc'd row-major array.  Every row
 *	must have the same length; with addIntercept a column of ones is
 *	put first.
 * Results: TCL_OK with *m, *rows, *cols set, or TCL_ERROR.
 */
static int
GetMatrix(Tcl_Interp *interp, Tcl_Obj *obj, const char *what,
	int addIntercept, double **m, int *rows, int *cols)
{
    Tcl_Obj **rowObjs;
    int i, off = addIntercept ? 1 : 0;

    *m = NULL;
    *cols = -1;
    if (Tcl_ListObjGetElements(interp, obj, rows, &rowObjs) != TCL_OK) {
	return TCL_ERROR;
    }
    for (i = 0; i < *rows; i++) {
	double *v;
	int n;

	if (GetVector(interp, rowObjs[i], what, &v, &n) != TCL_OK) {
	    free(*m);
	    *m = NULL;
	    return TCL_ERROR;
	}
	if (*cols < 0) {
	    *cols = n + off;
	    *m = Rb_AllocArray((size_t)*rows * *cols + 1, sizeof(double));
	} else if (n + off != *cols) {
	    free(v);
	    free(*m);
	    *m = NULL;
	    return Rb_SetInterpError(interp, "RUBICON TXMIX SHAPE",
		    "%s row %d has %d values, row 1 has %d", what, i + 1, n,
		    *cols - off);
	}
	if (off) {
	    (*m)[(size_t)i * *cols] = 1.0;
	}
	memcpy(*m + (size_t)i * *cols + off, v, sizeof(double) * n);
	free(v);
    }
    if (*cols < 0) {
	*cols = off;
    }
    return TCL_OK;
}

/*
 * NewDoubleList --
 *	A Tcl list of n doubles.
 */
static Tcl_Obj *
NewDoubleList(const double *v, int n)
{
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);
    int i;

    for (i = 0; i < n; i++) {
	Tcl_ListObjAppendElement(NULL, list, Tcl_NewDoubleObj(v[i]));
    }
    return list;
}

/*
 * DictPut --
 *	Adds key -> value to dict.
 */
static void
DictPut(Tcl_Obj *dict, const char *key, Tcl_Obj *value)
{
    Tcl_DictObjPut(NULL, dict, Tcl_NewStringObj(key, -1), value);
}

/*
 * RegressCmd --
 *	txmix::lar and txmix::ols: X y ?-intercept bool?.  Returns a dict
 *	with coefficients (intercept first when asked), objective (the sum
 *	of absolute, for ols squared, residuals), sae, and for lar the
 *	simplex iterations.
 */
static int
RegressCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    TxMethod method = (TxMethod)(intptr_t)cd;
    int intercept = 0, n, p, ny, iterations = 0, i, j, rc;
    double *X, *y, *coef, objective, sae = 0.0;
    Tcl_Obj *result;

    if (objc != 3 && objc != 5) {
	Tcl_WrongNumArgs(interp, 1, objv, "X y ?-intercept bool?");
	return TCL_ERROR;
    }
    if (objc == 5) {
	if (strcmp(Tcl_GetString(objv[3]), "-intercept") != 0) {
	    return Rb_SetInterpError(interp, "RUBICON TXMIX OPTION",
		    "unknown option \"%s\": must be -intercept",
		    Tcl_GetString(objv[3]));
	}
	if (Tcl_GetBooleanFromObj(interp, objv[4], &intercept) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    if (GetMatrix(interp, objv[1], "X", intercept, &X, &n, &p) != TCL_OK) {
	return TCL_ERROR;
    }
    if (GetVector(interp, objv[2], "y", &y, &ny) != TCL_OK) {
	free(X);
	return TCL_ERROR;
    }
    if (ny != n || n == 0 || p == 0) {
	free(X);
	free(y);
	return Rb_SetInterpError(interp, "RUBICON TXMIX SHAPE",
		"X has %d rows and %d columns, y has %d values", n, p, ny);
    }
    coef = Rb_AllocArray(p, sizeof(double));
    rc = method == TX_LAR
	    ? RbTxmixLar(n, p, X, y, coef, &objective, &iterations)
	    : RbTxmixOls(n, p, X, y, coef, &objective);
    if (rc != 0) {
	free(X);
	free(y);
	free(coef);
	return Rb_SetInterpError(interp, "RUBICON TXMIX NUMERIC",
		"regression failed after %d iterations", iterations);
    }
    for (i = 0; i < n; i++) {
	double e = y[i];

	for (j = 0; j < p; j++) {
	    e -= X[(size_t)i * p + j] * coef[j];
	}
	sae += fabs(e);
    }
    result = Tcl_NewDictObj();
    DictPut(result, "coefficients", NewDoubleList(coef, p));
    DictPut(result, "objective", Tcl_NewDoubleObj(objective));
    DictPut(result, "sae", Tcl_NewDoubleObj(sae));
    if (method == TX_LAR) {
	DictPut(result, "iterations", Tcl_NewIntObj(iterations));
    }
    Tcl_SetObjResult(interp, result);
    free(X);
    free(y);
    free(coef);
    return TCL_OK;
}

/* What txmix::fit and txmix::anomalies are given. */
typedef struct FitArgs {
    TxData d;
    double *N, *U, *y;
    unsigned char *train;	/* NULL: all */
    TxModel model;
    TxMethod method;
    int intercept;
    TxScheme scheme;
    double fraction;
    int resource;
    int span;
    double threshold;
} FitArgs;

static const char *const methodNames[] = {"lar", "ols", NULL};

/*
 * FreeFitArgs --
 *	Frees the arrays of parsed arguments.
 */
static void
FreeFitArgs(FitArgs *fa)
{
    free(fa->N);
    free(fa->U);
    free(fa->y);
    free(fa->train);
}

/*
 * ParseFitArgs --
 *	N y ?-utilization U? ?-model M? ?-method lar|ols? ?-intercept b?
 *	?-train mask? ?-scheme all|prefix|lowutil? ?-fraction f?
 *	?-resource r? ?-span n? ?-threshold k?
 * Results: TCL_OK with *fa filled (free with FreeFitArgs), or TCL_ERROR.
 */
static int
ParseFitArgs(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
	FitArgs *fa)
{
    static const char *const options[] = {
	"-utilization", "-model", "-method", "-intercept", "-train",
	"-scheme", "-fraction", "-resource", "-span", "-threshold", NULL
    };
    enum {
	O_UTIL, O_MODEL, O_METHOD, O_INTERCEPT, O_TRAIN, O_SCHEME,
	O_FRACTION, O_RESOURCE, O_SPAN, O_THRESHOLD
    };
    int i, ny, idx, cols;
    Tcl_Obj *utilObj = NULL, *trainObj = NULL;

    memset(fa, 0, sizeof(*fa));
    fa->fraction = 0.5;
    fa->span = 30;
    fa->threshold = 5.0;
    if (objc < 3 || (objc - 3) % 2 != 0) {
	Tcl_WrongNumArgs(interp, 1, objv, "N y ?-option value ...?");
	return TCL_ERROR;
    }
    for (i = 3; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], options, "option", 0, &idx)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	switch (idx) {
	case O_UTIL: utilObj = objv[i + 1]; break;
	case O_TRAIN: trainObj = objv[i + 1]; break;
	case O_MODEL:
	    if (Tcl_GetIndexFromObj(interp, objv[i + 1], Rb_TxmixModelNames,
		    "model", 0, &idx) != TCL_OK) {
		return TCL_ERROR;
	    }
	    fa->model = idx;
	    break;
	case O_METHOD:
	    if (Tcl_GetIndexFromObj(interp, objv[i + 1], methodNames,
		    "method", 0, &idx) != TCL_OK) {
		return TCL_ERROR;
	    }
	    fa->method = idx;
	    break;
	case O_SCHEME:
	    if (Tcl_GetIndexFromObj(interp, objv[i + 1], Rb_TxmixSchemeNames,
		    "scheme", 0, &idx) != TCL_OK) {
		return TCL_ERROR;
	    }
	    fa->scheme = idx;
	    break;
	case O_INTERCEPT:
	    if (Tcl_GetBooleanFromObj(interp, objv[i + 1], &fa->intercept)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	    break;
	case O_FRACTION:
	    if (Tcl_GetDoubleFromObj(interp, objv[i + 1], &fa->fraction)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	    break;
	case O_THRESHOLD:
	    if (Tcl_GetDoubleFromObj(interp, objv[i + 1], &fa->threshold)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	    break;
	case O_RESOURCE:
	    if (Tcl_GetIntFromObj(interp, objv[i + 1], &fa->resource)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	    break;
	case O_SPAN:
	    if (Tcl_GetIntFromObj(interp, objv[i + 1], &fa->span) != TCL_OK) {
		return TCL_ERROR;
	    }
	    break;
	}
    }
    if (GetMatrix(interp, objv[1], "N", 0, &fa->N, &fa->d.m, &fa->d.J)
	    != TCL_OK
	    || GetVector(interp, objv[2], "y", &fa->y, &ny) != TCL_OK) {
	FreeFitArgs(fa);
	return TCL_ERROR;
    }
    if (ny != fa->d.m) {
	FreeFitArgs(fa);
	return Rb_SetInterpError(interp, "RUBICON TXMIX SHAPE",
		"N has %d windows, y has %d", fa->d.m, ny);
    }
    if (utilObj) {
	int rows;

	if (GetMatrix(interp, utilObj, "U", 0, &fa->U, &rows, &cols)
		!= TCL_OK) {
	    FreeFitArgs(fa);
	    return TCL_ERROR;
	}
	if (rows != fa->d.m) {
	    FreeFitArgs(fa);
	    return Rb_SetInterpError(interp, "RUBICON TXMIX SHAPE",
		    "N has %d windows, U has %d", fa->d.m, rows);
	}
	fa->d.R = cols;
    }
    fa->d.N = fa->N;
    fa->d.U = fa->U;
    fa->d.y = fa->y;
    if (trainObj) {
	double *mask;
	int n;

	if (GetVector(interp, trainObj, "-train", &mask, &n) != TCL_OK) {
	    FreeFitArgs(fa);
	    return TCL_ERROR;
	}
	if (n != fa->d.m) {
	    free(mask);
	    FreeFitArgs(fa);
	    return Rb_SetInterpError(interp, "RUBICON TXMIX SHAPE",
		    "-train has %d values for %d windows", n, fa->d.m);
	}
	fa->train = Rb_Alloc(fa->d.m + 1);
	for (i = 0; i < fa->d.m; i++) {
	    fa->train[i] = mask[i] != 0;
	}
	free(mask);
    } else if (fa->scheme != TX_ALL) {
	fa->train = Rb_Alloc(fa->d.m + 1);
	if (RbTxmixTrainMask(&fa->d, fa->scheme, fa->fraction, fa->resource,
		fa->train) < 0) {
	    FreeFitArgs(fa);
	    return Rb_SetInterpError(interp, "RUBICON TXMIX OPTION",
		    "scheme lowutil needs -utilization with resource %d",
		    fa->resource);
	}
    }
    return TCL_OK;
}

/*
 * AccuracyDict --
 *	The accuracy measures as a dict.
 */
static Tcl_Obj *
AccuracyDict(const TxAccuracy *acc)
{
    Tcl_Obj *d = Tcl_NewDictObj();

    DictPut(d, "windows", Tcl_NewIntObj(acc->n));
    DictPut(d, "aggregate", Tcl_NewDoubleObj(acc->aggregate));
    DictPut(d, "median", Tcl_NewDoubleObj(acc->median));
    DictPut(d, "p10", Tcl_NewDoubleObj(acc->p10));
    DictPut(d, "p25", Tcl_NewDoubleObj(acc->p25));
    DictPut(d, "p75", Tcl_NewDoubleObj(acc->p75));
    DictPut(d, "p90", Tcl_NewDoubleObj(acc->p90));
    DictPut(d, "max", Tcl_NewDoubleObj(acc->max));
    return d;
}

/*
 * FitCmd --
 *	txmix::fit N y ?options?: calibrates a model and returns a dict:
 *	model, method, terms, coefficients, objective, predicted (every
 *	window), utilcoef (both Composites: per resource, b_0r then b_jr), train
 *	and test accuracy (test: the windows not calibrated on).
 */
static int
FitCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    FitArgs fa;
    TxFit fit;
    TxAccuracy acc;
    char err[200], **names;
    double *yhat;
    unsigned char *test;
    Tcl_Obj *result, *terms;
    int i, p;

    if (ParseFitArgs(interp, objc, objv, &fa) != TCL_OK) {
	return TCL_ERROR;
    }
    if (RbTxmixFit(&fa.d, fa.model, fa.method, fa.intercept, fa.train,
	    &fit, err, sizeof(err)) != 0) {
	FreeFitArgs(&fa);
	return Rb_SetInterpError(interp, "RUBICON TXMIX FIT", "%s", err);
    }
    yhat = Rb_AllocArray(fa.d.m + 1, sizeof(double));
    RbTxmixPredict(&fa.d, &fit, 0, fa.d.m, yhat);
    result = Tcl_NewDictObj();
    DictPut(result, "model", Tcl_NewStringObj(Rb_TxmixModelNames[fa.model],
	    -1));
    DictPut(result, "method", Tcl_NewStringObj(methodNames[fa.method], -1));
    p = RbTxmixModelTerms(fa.model, fa.d.J, fa.d.R, fa.intercept, &names);
    terms = Tcl_NewListObj(0, NULL);
    for (i = 0; i < p; i++) {
	Tcl_ListObjAppendElement(NULL, terms, Tcl_NewStringObj(names[i], -1));
	free(names[i]);
    }
    free(names);
    DictPut(result, "terms", terms);
    DictPut(result, "coefficients", NewDoubleList(fit.coef, fit.p));
    DictPut(result, "objective", Tcl_NewDoubleObj(fit.objective));
    DictPut(result, "predicted", NewDoubleList(yhat, fa.d.m));
    if (fit.ucoef) {
	Tcl_Obj *u = Tcl_NewListObj(0, NULL);

	for (i = 0; i < fa.d.R; i++) {
	    Tcl_ListObjAppendElement(NULL, u, NewDoubleList(
		    fit.ucoef + (size_t)i * fit.uterms, fit.uterms));
	}
	DictPut(result, "utilcoef", u);
    }
    RbTxmixAccuracy(fa.d.m, fa.d.y, yhat, fa.train, &acc);
    DictPut(result, "train", AccuracyDict(&acc));
    test = Rb_Alloc(fa.d.m + 1);
    for (i = 0; i < fa.d.m; i++) {
	test[i] = fa.train ? !fa.train[i] : 1;
    }
    RbTxmixAccuracy(fa.d.m, fa.d.y, yhat, test, &acc);
    DictPut(result, "test", AccuracyDict(&acc));
    Tcl_SetObjResult(interp, result);
    free(test);
    free(yhat);
    RbTxmixFitFree(&fit);
    FreeFitArgs(&fa);
    return TCL_OK;
}

/*
 * AccuracyCmd --
 *	txmix::accuracy y yhat ?-mask list?: the accuracy dict (windows,
 *	aggregate, median, p10, p25, p75, p90, max of |e|/y).
 */
static int
AccuracyCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    double *y, *yhat, *maskv = NULL;
    unsigned char *mask = NULL;
    int n, nhat, nmask, i;
    TxAccuracy acc;

    if (objc != 3 && !(objc == 5
	    && strcmp(Tcl_GetString(objv[3]), "-mask") == 0)) {
	Tcl_WrongNumArgs(interp, 1, objv, "y yhat ?-mask list?");
	return TCL_ERROR;
    }
    if (GetVector(interp, objv[1], "y", &y, &n) != TCL_OK) {
	return TCL_ERROR;
    }
    if (GetVector(interp, objv[2], "yhat", &yhat, &nhat) != TCL_OK) {
	free(y);
	return TCL_ERROR;
    }
    if (objc == 5 && GetVector(interp, objv[4], "-mask", &maskv, &nmask)
	    != TCL_OK) {
	free(y);
	free(yhat);
	return TCL_ERROR;
    }
    if (nhat != n || (maskv && nmask != n)) {
	free(y);
	free(yhat);
	free(maskv);
	return Rb_SetInterpError(interp, "RUBICON TXMIX SHAPE",
		"y, yhat and -mask must have the same length");
    }
    if (maskv) {
	mask = Rb_Alloc(n + 1);
	for (i = 0; i < n; i++) {
	    mask[i] = maskv[i] != 0;
	}
    }
    RbTxmixAccuracy(n, y, yhat, mask, &acc);
    Tcl_SetObjResult(interp, AccuracyDict(&acc));
    free(y);
    free(yhat);
    free(maskv);
    free(mask);
    return TCL_OK;
}

/*
 * AnomaliesCmd --
 *	txmix::anomalies N y ?options? (-span windows to recalibrate on,
 *	-threshold score): a dict with scores (one per window) and flagged
 *	(the 0-based windows whose score exceeds the threshold).
 */
static int
AnomaliesCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    FitArgs fa;
    double *score;
    unsigned char *flag;
    char err[200];
    Tcl_Obj *result, *flagged;
    int i;

    if (ParseFitArgs(interp, objc, objv, &fa) != TCL_OK) {
	return TCL_ERROR;
    }
    if (fa.span < 1 || fa.span >= fa.d.m) {
	FreeFitArgs(&fa);
	return Rb_SetInterpError(interp, "RUBICON TXMIX OPTION",
		"-span must be between 1 and the windows less one (%d)",
		fa.d.m - 1);
    }
    score = Rb_AllocArray(fa.d.m + 1, sizeof(double));
    flag = Rb_Alloc(fa.d.m + 1);
    if (RbTxmixAnomalies(&fa.d, fa.model, fa.method, fa.intercept, fa.span,
	    fa.threshold, score, flag, err, sizeof(err)) < 0) {
	free(score);
	free(flag);
	FreeFitArgs(&fa);
	return Rb_SetInterpError(interp, "RUBICON TXMIX FIT", "%s", err);
    }
    result = Tcl_NewDictObj();
    flagged = Tcl_NewListObj(0, NULL);
    for (i = 0; i < fa.d.m; i++) {
	if (flag[i]) {
	    Tcl_ListObjAppendElement(NULL, flagged, Tcl_NewIntObj(i));
	}
    }
    DictPut(result, "scores", NewDoubleList(score, fa.d.m));
    DictPut(result, "flagged", flagged);
    Tcl_SetObjResult(interp, result);
    free(score);
    free(flag);
    FreeFitArgs(&fa);
    return TCL_OK;
}

/*
 * RbTxmixCommandsInit --
 *	Creates the txmix:: commands.
 */
int
RbTxmixCommandsInit(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::txmix::lar", RegressCmd,
	    (ClientData)(intptr_t)TX_LAR, NULL);
    Tcl_CreateObjCommand(interp, "::txmix::ols", RegressCmd,
	    (ClientData)(intptr_t)TX_OLS, NULL);
    Tcl_CreateObjCommand(interp, "::txmix::fit", FitCmd, NULL, NULL);
    Tcl_CreateObjCommand(interp, "::txmix::accuracy", AccuracyCmd, NULL,
	    NULL);
    Tcl_CreateObjCommand(interp, "::txmix::anomalies", AnomaliesCmd, NULL,
	    NULL);
    return TCL_OK;
}
