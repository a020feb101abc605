/*
 * ols.c --
 *
 *	Ordinary least squares by Householder QR (no normal equations, whose
 *	squared condition number hurts on near-collinear mixes), and the
 *	one entry point that calibrates by either method.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/txmix/txmix.h"

/*
 * RbTxmixOls --
 *	Least-squares fit of y (n) on the columns of X (n x p, row-major).
 *	A column that is (numerically) a combination of earlier ones gets
 *	coefficient 0, so a rank-deficient design still yields a fit.
 * Results: 0 with coef and *sse (sum of squared residuals) set; -1 when
 *	memory runs out.
 */
int
RbTxmixOls(int n, int p, const double *X, const double *y, double *coef,
	double *sse)
{
    double *A = Rb_AllocArray((size_t)n * p + 1, sizeof(double));
    double *b = Rb_AllocArray(n + 1, sizeof(double));
    unsigned char *dropped = Rb_AllocArray(p + 1, 1);
    double maxDiag = 0.0;
    int i, j, k, row = 0;
    int *pivRow = Rb_AllocArray(p + 1, sizeof(int));

    if (!A || !b || !dropped || !pivRow) {
	free(A);
	free(b);
	free(dropped);
	free(pivRow);
	return -1;
    }
    memcpy(A, X, sizeof(double) * (size_t)n * p);
    memcpy(b, y, sizeof(double) * n);
    memset(coef, 0, sizeof(double) * p);

    /* Householder reflections, one per column; row counts kept columns. */
    for (k = 0; k < p; k++) {
	double norm = 0.0, alpha, vtv, s;

	pivRow[k] = -1;
	if (row >= n) {
	    dropped[k] = 1;
	    continue;
	}
	for (i = row; i < n; i++) {
	    norm += A[(size_t)i * p + k] * A[(size_t)i * p + k];
	}
	norm = sqrt(norm);
	if (norm <= 1e-12 * (maxDiag > 0 ? maxDiag : 1.0)) {
	    dropped[k] = 1;
	    continue;
	}
	alpha = A[(size_t)row * p + k] > 0 ? -norm : norm;
	/* v = x - alpha e1, stored in place of column k below the diagonal. */
	A[(size_t)row * p + k] -= alpha;
	vtv = 0.0;
	for (i = row; i < n; i++) {
	    vtv += A[(size_t)i * p + k] * A[(size_t)i * p + k];
	}
	for (j = k + 1; j < p; j++) {
	    s = 0.0;
	    for (i = row; i < n; i++) {
		s += A[(size_t)i * p + k] * A[(size_t)i * p + j];
	    }
	    s = 2.0 * s / vtv;
	    for (i = row; i < n; i++) {
		A[(size_t)i * p + j] -= s * A[(size_t)i * p + k];
	    }
	}
	s = 0.0;
	for (i = row; i < n; i++) {
	    s += A[(size_t)i * p + k] * b[i];
	}
	s = 2.0 * s / vtv;
	for (i = row; i < n; i++) {
	    b[i] -= s * A[(size_t)i * p + k];
	}
	A[(size_t)row * p + k] = alpha;
	maxDiag = fmax(maxDiag, fabs(alpha));
	pivRow[k] = row++;
    }

    /* Back substitution over the kept columns, last to first. */
    for (k = p - 1; k >= 0; k--) {
	double s;

	if (dropped[k]) {
	    continue;
	}
	s = b[pivRow[k]];
	for (j = k + 1; j < p; j++) {
	    if (!dropped[j]) {
		s -= A[(size_t)pivRow[k] * p + j] * coef[j];
	    }
	}
	coef[k] = s / A[(size_t)pivRow[k] * p + k];
    }
    *sse = 0.0;
    for (i = 0; i < n; i++) {
	double e = y[i];

	for (j = 0; j < p; j++) {
	    e -= X[(size_t)i * p + j] * coef[j];
	}
	*sse += e * e;
    }
    free(A);
    free(b);
    free(dropped);
    free(pivRow);
    return 0;
}

/*
 * RbTxmixRegress --
 *	Calibrates by LAR or OLS.
 * Results: as RbTxmixLar / RbTxmixOls; *objective is the method's own
 *	criterion (sum of absolute or of squared residuals).
 */
int
RbTxmixRegress(TxMethod method, int n, int p, const double *X,
	const double *y, double *coef, double *objective)
{
    if (method == TX_OLS) {
	return RbTxmixOls(n, p, X, y, coef, objective);
    }
    return RbTxmixLar(n, p, X, y, coef, objective, NULL);
}
