/*
 * eval.c --
 *
 *	How well a transaction-mix model predicts: which windows it is
 *	calibrated on (all, a prefix, or the low-utilization share, the
 *	paper's tests of extrapolation in time and to heavier load), and
 *	anomaly detection, which recalibrates on a moving window of past
 *	windows and flags a window whose residual is far outside the
 *	model's normal error there.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/txmix/txmix.h"

const char *const Rb_TxmixSchemeNames[] = {"all", "prefix", "lowutil", NULL};

/* Sort key for the low-utilization split. */
typedef struct UtilKey {
    double u;
    int window;
} UtilKey;

/*
 * CompareUtilKeys --
 *	qsort order: by utilization, then window (a stable split).
 */
static int
CompareUtilKeys(const void *pa, const void *pb)
{
    const UtilKey *a = pa, *b = pb;

    if (a->u != b->u) {
	return a->u < b->u ? -1 : 1;
    }
    return a->window - b->window;
}

/*
 * RbTxmixTrainMask --
 *	Sets train[i] for the windows a scheme calibrates on: all of them;
 *	the first fraction of them (prefix); or the fraction with the lowest
 *	utilization of resource r (lowutil).
 * Results: the number of training windows, or -1 when lowutil is asked
 *	of data without resource r.
 */
int
RbTxmixTrainMask(const TxData *d, TxScheme scheme, double fraction, int r,
	unsigned char *train)
{
    int k = (int)floor(fraction * d->m + 0.5), i;
    UtilKey *keys;

    if (k < 1) {
	k = 1;
    }
    if (k > d->m) {
	k = d->m;
    }
    memset(train, scheme == TX_ALL, d->m);
    if (scheme == TX_ALL) {
	return d->m;
    }
    if (scheme == TX_PREFIX) {
	memset(train, 1, k);
	return k;
    }
    if (d->U == NULL || r < 0 || r >= d->R) {
	return -1;
    }
    keys = Rb_AllocArray(d->m + 1, sizeof(UtilKey));
    for (i = 0; i < d->m; i++) {
	keys[i].u = d->U[(size_t)i * d->R + r];
	keys[i].window = i;
    }
    qsort(keys, d->m, sizeof(UtilKey), CompareUtilKeys);
    for (i = 0; i < k; i++) {
	train[keys[i].window] = 1;
    }
    free(keys);
    return k;
}

/*
 * RbTxmixAnomalies --
 *	For every window i >= span: calibrates on windows i-span..i-1,
 *	predicts window i, and scores it as |e_i| divided by the median
 *	|e| of the calibration windows (the model's normal error there).
 *	score[i] is 0 for the first span windows; flag[i] is set when the
 *	score exceeds threshold.
 * Results: the number of flagged windows, or -1 when a calibration
 *	fails (errBuf says why).
 */
int
RbTxmixAnomalies(const TxData *d, TxModel model, TxMethod method,
	int intercept, int span, double threshold, double *score,
	unsigned char *flag, char *errBuf, size_t errLen)
{
    unsigned char *train = Rb_Alloc(d->m + 1);
    double *yhat = Rb_AllocArray(d->m + 1, sizeof(double));
    double *err = Rb_AllocArray(span + 1, sizeof(double));
    int i, k, flagged = 0;

    memset(score, 0, sizeof(double) * d->m);
    memset(flag, 0, d->m);
    for (i = span; i < d->m; i++) {
	TxFit fit;
	double normal;

	memset(train, 0, d->m);
	memset(train + i - span, 1, span);
	if (RbTxmixFit(d, model, method, intercept, train, &fit, errBuf,
		errLen) != 0) {
	    flagged = -1;
	    break;
	}
	RbTxmixPredict(d, &fit, i - span, i + 1, yhat);
	RbTxmixFitFree(&fit);
	for (k = 0; k < span; k++) {
	    err[k] = fabs(d->y[i - span + k] - yhat[i - span + k]);
	}
	normal = RbTxmixMedian(err, span);
	/* A perfect calibration fit leaves no scale; use the data's. */
	if (normal <= 1e-12 * (1.0 + fabs(d->y[i]))) {
	    normal = 1e-12 * (1.0 + fabs(d->y[i]));
	}
	score[i] = fabs(d->y[i] - yhat[i]) / normal;
	if (score[i] > threshold) {
	    flag[i] = 1;
	    flagged++;
	}
    }
    free(train);
    free(yhat);
    free(err);
    return flagged;
}
