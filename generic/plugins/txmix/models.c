/*
 * models.c --
 *
 *	The transaction-mix models of Kelly and Zhang.  Window i has counts
 *	N_ij per transaction type j, total n_i = sum_j N_ij, utilizations
 *	U_ir per resource r, and summed response time y_i.  Each model is a
 *	linear regression of y on terms built from these:
 *
 *	  Basic      y = sum_j a_j N_ij
 *	  Extended   y = sum_j a_j N_ij + n_i sum_r a_r U_ir / (1 - U_ir)
 *	  Composite  Kelly and Zhang's: Extended, calibrated on measured
 *		     utilizations, predicting from U_ir replaced by its
 *		     prediction b_0r + sum_j b_jr N_ij (clamped to [0,
 *		     1 - 1e-3]), so that only the mix is needed to predict
 *	  Composite-refit  the same utilization model, but the response
 *		     time coefficients are calibrated on the predicted
 *		     utilizations too (Rubicon's earlier Composite)
 *	  Naive      y = sum_j a_j N_ij + sum_r a_r U_ir  (waiting linear
 *		     in utilization, for comparison)
 *
 *	The Scalar variants use n_i in place of the vector N_i.  An optional
 *	intercept is the first term.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/txmix/txmix.h"

const char *const Rb_TxmixModelNames[] = {
    "basic", "extended", "composite", "composite-refit", "naive",
    "scalar-basic", "scalar-extended", "scalar-composite",
    "scalar-composite-refit", "scalar-naive",
    NULL
};

/*
 * IsScalar, UsesQueue, UsesUtil --
 *	What a model's terms are made of.
 */
static int
IsScalar(TxModel model)
{
    return model >= TX_SCALAR_BASIC;
}

static TxModel
BaseModel(TxModel model)
{
    return IsScalar(model) ? model - TX_SCALAR_BASIC : model;
}

static int
UsesUtil(TxModel model)
{
    return BaseModel(model) != TX_BASIC;
}

static int
IsComposite(TxModel model)
{
    return BaseModel(model) == TX_COMPOSITE
	    || BaseModel(model) == TX_COMPOSITE_REFIT;
}

/*
 * RbTxmixModelTerms --
 *	The number of terms of a model, and when names is not NULL a
 *	malloc'd array of malloc'd term names: "intercept", "N<j>" (or "n"
 *	for the Scalar total), "Q<r>" for n U/(1-U), "U<r>" for linear U.
 */
int
RbTxmixModelTerms(TxModel model, int J, int R, int intercept, char ***names)
{
    int p = (intercept ? 1 : 0) + (IsScalar(model) ? 1 : J)
	    + (UsesUtil(model) ? R : 0);
    int t = 0, j;
    char buf[32];

    if (names == NULL) {
	return p;
    }
    *names = Rb_AllocArray(p + 1, sizeof(char *));
    if (intercept) {
	(*names)[t++] = Rb_Strdup("intercept");
    }
    if (IsScalar(model)) {
	(*names)[t++] = Rb_Strdup("n");
    } else {
	for (j = 0; j < J; j++) {
	    snprintf(buf, sizeof(buf), "N%d", j);
	    (*names)[t++] = Rb_Strdup(buf);
	}
    }
    if (UsesUtil(model)) {
	for (j = 0; j < R; j++) {
	    snprintf(buf, sizeof(buf), "%c%d",
		    BaseModel(model) == TX_NAIVE ? 'U' : 'Q', j);
	    (*names)[t++] = Rb_Strdup(buf);
	}
    }
    return p;
}

/*
 * WindowTotal --
 *	n_i, the number of transactions in window i.
 */
static double
WindowTotal(const TxData *d, int i)
{
    double n = 0.0;
    int j;

    for (j = 0; j < d->J; j++) {
	n += d->N[(size_t)i * d->J + j];
    }
    return n;
}

/*
 * DesignRow --
 *	Fills out[] with the terms of window i, taking utilizations from
 *	urow (R values, already clamped where the model needs it).
 */
static void
DesignRow(const TxData *d, TxModel model, int intercept, int i,
	const double *urow, double *out)
{
    double n = WindowTotal(d, i);
    int t = 0, j, r;

    if (intercept) {
	out[t++] = 1.0;
    }
    if (IsScalar(model)) {
	out[t++] = n;
    } else {
	for (j = 0; j < d->J; j++) {
	    out[t++] = d->N[(size_t)i * d->J + j];
	}
    }
    if (!UsesUtil(model)) {
	return;
    }
    for (r = 0; r < d->R; r++) {
	double u = fmin(fmax(urow[r], 0.0), TX_UMAX);

	out[t++] = BaseModel(model) == TX_NAIVE ? urow[r] : n * u / (1.0 - u);
    }
}

/*
 * PredictUtil --
 *	Composite: the utilizations of window i predicted from its mix by
 *	the fitted utilization model, clamped to [0, TX_UMAX].
 */
static void
PredictUtil(const TxData *d, const TxFit *fit, int i, double *urow)
{
    int r, j;

    for (r = 0; r < d->R; r++) {
	const double *b = fit->ucoef + (size_t)r * fit->uterms;
	double u = b[0];

	if (IsScalar(fit->model)) {
	    u += b[1] * WindowTotal(d, i);
	} else {
	    for (j = 0; j < d->J; j++) {
		u += b[1 + j] * d->N[(size_t)i * d->J + j];
	    }
	}
	urow[r] = fmin(fmax(u, 0.0), TX_UMAX);
    }
}

/*
 * FitUtilModel --
 *	Composite: regresses each resource's utilization on the mix (with an
 *	intercept, b_0r) over the training windows.
 * Results: 0, or -1 when a regression fails.
 */
static int
FitUtilModel(const TxData *d, TxFit *fit, const unsigned char *train,
	int ntrain)
{
    int q = 1 + (IsScalar(fit->model) ? 1 : d->J);
    double *X = Rb_AllocArray((size_t)ntrain * q + 1, sizeof(double));
    double *u = Rb_AllocArray(ntrain + 1, sizeof(double)), obj;
    int r, i, row, j, result = 0;

    fit->uterms = q;
    fit->ucoef = Rb_AllocArray((size_t)d->R * q + 1, sizeof(double));
    for (r = 0; r < d->R && result == 0; r++) {
	for (i = 0, row = 0; i < d->m; i++) {
	    double *x = X + (size_t)row * q;

	    if (train && !train[i]) {
		continue;
	    }
	    x[0] = 1.0;
	    if (IsScalar(fit->model)) {
		x[1] = WindowTotal(d, i);
	    } else {
		for (j = 0; j < d->J; j++) {
		    x[1 + j] = d->N[(size_t)i * d->J + j];
		}
	    }
	    u[row++] = d->U[(size_t)i * d->R + r];
	}
	result = RbTxmixRegress(fit->method, ntrain, q, X, u,
		fit->ucoef + (size_t)r * q, &obj);
    }
    free(X);
    free(u);
    return result;
}

/*
 * RbTxmixFit --
 *	Calibrates a model on the windows where train[i] is set (all when
 *	train is NULL).
 * Results: 0 with *fit filled (free with RbTxmixFitFree); -1 with a
 *	message in errBuf when the model needs utilizations that are missing,
 *	there are no training windows, or the regression fails.
 */
int
RbTxmixFit(const TxData *d, TxModel model, TxMethod method, int intercept,
	const unsigned char *train, TxFit *fit, char *errBuf, size_t errLen)
{
    int p = RbTxmixModelTerms(model, d->J, d->R, intercept, NULL);
    int ntrain = 0, i, row;
    double *X, *y, *urow;

    memset(fit, 0, sizeof(*fit));
    fit->model = model;
    fit->method = method;
    fit->intercept = intercept;
    fit->p = p;
    if (UsesUtil(model) && (d->U == NULL || d->R == 0)) {
	snprintf(errBuf, errLen, "model \"%s\" needs utilizations",
		Rb_TxmixModelNames[model]);
	return -1;
    }
    for (i = 0; i < d->m; i++) {
	ntrain += !train || train[i];
    }
    if (ntrain == 0 || p == 0) {
	snprintf(errBuf, errLen, "no windows to calibrate on");
	return -1;
    }
    if (IsComposite(model) && FitUtilModel(d, fit, train, ntrain) != 0) {
	snprintf(errBuf, errLen, "utilization regression failed");
	RbTxmixFitFree(fit);
	return -1;
    }
    X = Rb_AllocArray((size_t)ntrain * p + 1, sizeof(double));
    y = Rb_AllocArray(ntrain + 1, sizeof(double));
    urow = Rb_AllocArray(d->R + 1, sizeof(double));
    fit->coef = Rb_AllocArray(p, sizeof(double));
    for (i = 0, row = 0; i < d->m; i++) {
	if (train && !train[i]) {
	    continue;
	}
	/* Only the refit variant calibrates on predicted utilizations. */
	if (BaseModel(model) == TX_COMPOSITE_REFIT) {
	    PredictUtil(d, fit, i, urow);
	} else if (d->R > 0 && d->U) {
	    memcpy(urow, d->U + (size_t)i * d->R, sizeof(double) * d->R);
	}
	DesignRow(d, model, intercept, i, urow, X + (size_t)row * p);
	y[row++] = d->y[i];
    }
    i = RbTxmixRegress(method, ntrain, p, X, y, fit->coef, &fit->objective);
    free(X);
    free(y);
    free(urow);
    if (i != 0) {
	snprintf(errBuf, errLen, "regression failed (numerical trouble)");
	RbTxmixFitFree(fit);
	return -1;
    }
    return 0;
}

/*
 * RbTxmixPredict --
 *	The fitted model's prediction of y for windows lo..hi-1 of d, in
 *	yhat[lo..hi-1].
 */
void
RbTxmixPredict(const TxData *d, const TxFit *fit, int lo, int hi,
	double *yhat)
{
    double *x = Rb_AllocArray(fit->p + 1, sizeof(double));
    double *urow = Rb_AllocArray(d->R + 1, sizeof(double));
    int i, t;

    for (i = lo; i < hi; i++) {
	if (IsComposite(fit->model)) {
	    PredictUtil(d, fit, i, urow);
	} else if (d->R > 0 && d->U) {
	    memcpy(urow, d->U + (size_t)i * d->R, sizeof(double) * d->R);
	}
	DesignRow(d, fit->model, fit->intercept, i, urow, x);
	yhat[i] = 0.0;
	for (t = 0; t < fit->p; t++) {
	    yhat[i] += x[t] * fit->coef[t];
	}
    }
    free(x);
    free(urow);
}

/*
 * RbTxmixFitFree --
 *	Frees what a fit points to.
 */
void
RbTxmixFitFree(TxFit *fit)
{
    free(fit->coef);
    free(fit->ucoef);
    fit->coef = fit->ucoef = NULL;
}

/*
 * CompareDoubles --
 *	qsort order for doubles, ascending.
 */
static int
CompareDoubles(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;

    return a < b ? -1 : a > b;
}

/*
 * OrderStat --
 *	The q-quantile of sorted v (n > 0) by linear interpolation.
 */
static double
OrderStat(const double *v, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)floor(pos);

    if (lo >= n - 1) {
	return v[n - 1];
    }
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

/*
 * RbTxmixMedian --
 *	Sorts v (n values) in place and returns its median (0 when n = 0).
 */
double
RbTxmixMedian(double *v, int n)
{
    if (n <= 0) {
	return 0.0;
    }
    qsort(v, n, sizeof(double), CompareDoubles);
    return OrderStat(v, n, 0.5);
}

/*
 * RbTxmixAccuracy --
 *	Normalized aggregate error sum|e|/sum y and order statistics of the
 *	relative error |e|/y over the masked windows.  Windows with y <= 0
 *	(idle) count in the aggregate but have no relative error.
 */
void
RbTxmixAccuracy(int m, const double *y, const double *yhat,
	const unsigned char *mask, TxAccuracy *acc)
{
    double *rel = Rb_AllocArray(m + 1, sizeof(double)), sumE = 0, sumY = 0;
    int i, n = 0;

    memset(acc, 0, sizeof(*acc));
    for (i = 0; i < m; i++) {
	if (mask && !mask[i]) {
	    continue;
	}
	sumE += fabs(y[i] - yhat[i]);
	sumY += y[i];
	if (y[i] > 0) {
	    rel[n++] = fabs(y[i] - yhat[i]) / y[i];
	}
    }
    acc->n = n;
    acc->aggregate = sumY > 0 ? sumE / sumY : 0.0;
    if (n > 0) {
	acc->median = RbTxmixMedian(rel, n);
	acc->p10 = OrderStat(rel, n, 0.1);
	acc->p25 = OrderStat(rel, n, 0.25);
	acc->p75 = OrderStat(rel, n, 0.75);
	acc->p90 = OrderStat(rel, n, 0.9);
	acc->max = rel[n - 1];
    }
    free(rel);
}
