/*
 * lar.c --
 *
 *	Least absolute residuals regression, exact: minimize sum_i |y_i -
 *	x_i b| by the Barrodale-Roberts simplex method.  The LP is
 *	X b + u - v = y with u, v >= 0 and b free; its tableau is condensed
 *	to n x p because each residual pair contributes at most one basic
 *	column.  Start: every residual basic (r = y), every b nonbasic.  An
 *	iteration prices each nonbasic column in both directions and moves
 *	along the best one past as many breakpoints (residuals crossing
 *	zero, which flip between u and v) as keep the objective falling:
 *	Barrodale and Roberts' passing of several vertices in one step.
 *	Runs of degenerate steps switch to Bland's rule, which cannot cycle.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "plugins/txmix/txmix.h"

/* A breakpoint of the line search: row i's residual reaches zero at t. */
typedef struct Breakpoint {
    double t;
    int row;
    int ent;			/* Entity number, for Bland's tie rule. */
} Breakpoint;

/*
 * Before --
 *	Heap order of breakpoints: by step length, then by entity number.
 */
static int
Before(const Breakpoint *a, const Breakpoint *b)
{
    return a->t < b->t || (a->t == b->t && a->ent < b->ent);
}

/*
 * SiftDown --
 *	Restores the min-heap property below slot i of h (n entries).
 */
static void
SiftDown(Breakpoint *h, int n, int i)
{
    for (;;) {
	int c = 2 * i + 1;
	Breakpoint tmp;

	if (c >= n) {
	    return;
	}
	if (c + 1 < n && Before(&h[c + 1], &h[c])) {
	    c++;
	}
	if (!Before(&h[c], &h[i])) {
	    return;
	}
	tmp = h[i];
	h[i] = h[c];
	h[c] = tmp;
	i = c;
    }
}

/*
 * PopBreakpoint --
 *	Removes the earliest breakpoint of heap h (*n > 0) into *out.  The
 *	line search usually stops after a few of many breakpoints, so a heap
 *	beats sorting them all.
 */
static void
PopBreakpoint(Breakpoint *h, int *n, Breakpoint *out)
{
    *out = h[0];
    h[0] = h[--*n];
    SiftDown(h, *n, 0);
}

/*
 * SubtractRow --
 *	row -= f * pivotRow over p entries (distinct rows, so the compiler
 *	may vectorize).
 */
static void
SubtractRow(double *restrict row, const double *restrict pivotRow,
	double f, int p)
{
    int j;

    for (j = 0; j < p; j++) {
	row[j] -= f * pivotRow[j];
    }
}

/*
 * EntityId --
 *	Entities are numbered b_0..b_{p-1} then r_0..r_{n-1}; internally a
 *	b column is stored as -1-j and a residual as i.
 */
static int
EntityId(int ent, int p)
{
    return ent < 0 ? -1 - ent : p + ent;
}

/*
 * Pivot --
 *	Exchanges basic row l with nonbasic column k of the condensed
 *	tableau T (n x p) and right-hand side beta (a Jordan exchange).
 */
static void
Pivot(double *T, double *beta, int n, int p, int l, int k)
{
    double *rowL = T + (size_t)l * p;
    double piv = rowL[k];
    int i, j;

    for (j = 0; j < p; j++) {
	if (j != k) {
	    rowL[j] /= piv;
	}
    }
    beta[l] /= piv;
    rowL[k] = 1.0 / piv;
    for (i = 0; i < n; i++) {
	double *row = T + (size_t)i * p, f;

	if (i == l || (f = row[k]) == 0.0) {
	    continue;
	}
	SubtractRow(row, rowL, f, p);
	beta[i] -= f * beta[l];
	row[k] = -f / piv;
    }
}

/*
 * Price --
 *	The pricing step: the slope of the objective along each column, both
 *	ways (z = the sum over residual rows of sign * row, accumulated row
 *	by row because T is row-major), and the steepest descent among them
 *	(or, under Bland's rule, the descending column of least id).
 * Results: the chosen slope, with *k the column and *d the direction;
 *	*k is -1 when no column descends (the optimum).
 * Side effects: overwrites z.
 */
static double
Price(const double *T, int n, int p, const int *rowEnt, const int *colEnt,
	const int *sign, double *z, int bland, double tol, int *k, int *d)
{
    double best = -tol;
    int i, j, enterId = 0;

    *k = -1;
    *d = 0;
    memset(z, 0, sizeof(double) * p);
    for (i = 0; i < n; i++) {
	const double *row = T + (size_t)i * p;

	if (rowEnt[i] < 0) {
	    continue;
	}
	if (sign[i] > 0) {
	    for (j = 0; j < p; j++) {
		z[j] += row[j];
	    }
	} else {
	    for (j = 0; j < p; j++) {
		z[j] -= row[j];
	    }
	}
    }
    for (j = 0; j < p; j++) {
	double c = colEnt[j] >= 0 ? 1.0 : 0.0;
	int id = EntityId(colEnt[j], p), dir;

	for (dir = 1; dir >= -1; dir -= 2) {
	    double g = c - dir * z[j];

	    if (bland ? (g < -tol && (*k < 0 || id < enterId)) : g < best) {
		best = g;
		*k = j;
		*d = dir;
		enterId = id;
	    }
	}
    }
    return best;
}

/*
 * AbsResiduals --
 *	The sum over rows of |y - X coef|, the LAR objective.
 */
static double
AbsResiduals(int n, int p, const double *X, const double *y,
	const double *coef)
{
    double sum = 0.0;
    int i, j;

    for (i = 0; i < n; i++) {
	double fit = 0.0;

	for (j = 0; j < p; j++) {
	    fit += X[(size_t)i * p + j] * coef[j];
	}
	sum += fabs(y[i] - fit);
    }
    return sum;
}

/*
 * RbTxmixLar --
 *	Exact L1 regression of y (n) on the columns of X (n x p, row-major).
 * Results: 0 with coef (p) and *objective = sum |y - X coef| set, and the
 *	number of simplex iterations in *iterations (may be NULL); -1 when
 *	memory runs out or the iteration limit is hit (numerical trouble).
 */
int
RbTxmixLar(int n, int p, const double *X, const double *y, double *coef,
	double *objective, int *iterations)
{
    double *T, *beta, *z, scale = 0.0, tol, pivTol;
    int *rowEnt, *colEnt, *sign, iter = 0, maxIter, degenerate = 0;
    int bland = 0, result = -1, i, j;
    Breakpoint *bp;

    memset(coef, 0, sizeof(double) * p);
    T = Rb_AllocArray((size_t)n * p + 1, sizeof(double));
    beta = Rb_AllocArray(n + 1, sizeof(double));
    rowEnt = Rb_AllocArray(n + 1, sizeof(int));
    colEnt = Rb_AllocArray(p + 1, sizeof(int));
    sign = Rb_AllocArray(n + 1, sizeof(int));
    bp = Rb_AllocArray(n + 1, sizeof(Breakpoint));
    z = Rb_AllocArray(p + 1, sizeof(double));
    if (!T || !beta || !rowEnt || !colEnt || !sign || !bp || !z) {
	goto done;
    }
    memcpy(T, X, sizeof(double) * (size_t)n * p);
    for (i = 0; i < n; i++) {
	beta[i] = y[i];
	rowEnt[i] = i;
	sign[i] = y[i] >= 0 ? 1 : -1;
	scale = fmax(scale, fabs(y[i]));
    }
    for (j = 0; j < p; j++) {
	colEnt[j] = -1 - j;
    }
    for (i = 0; i < n * p; i++) {
	scale = fmax(scale, fabs(X[i]));
    }
    tol = 1e-11 * (1.0 + n);
    pivTol = 1e-12 * (scale > 0 ? scale : 1.0);
    maxIter = 100 * (n + p) + 1000;

    for (;;) {
	int k, d, l = -1, nbp = 0, q;
	double best, slope, step;

	best = Price(T, n, p, rowEnt, colEnt, sign, z, bland, tol, &k, &d);
	if (k < 0) {
	    break;
	}
	if (++iter > maxIter) {
	    goto done;
	}
	slope = best;

	/* Line search along column k in direction d. */
	for (i = 0; i < n; i++) {
	    double a;

	    if (rowEnt[i] < 0) {
		continue;
	    }
	    a = sign[i] * d * T[(size_t)i * p + k];
	    if (a > pivTol) {
		bp[nbp].t = fmax(0.0, sign[i] * beta[i]) / a;
		bp[nbp].row = i;
		bp[nbp].ent = EntityId(rowEnt[i], p);
		nbp++;
	    }
	}
	if (nbp == 0) {
	    goto done;
	}
	for (q = nbp / 2 - 1; q >= 0; q--) {
	    SiftDown(bp, nbp, q);
	}
	/* Pass breakpoints while the slope stays negative; rows passed on
	 * the way change sign (u_i leaves for v_i). */
	for (;;) {
	    Breakpoint next;

	    PopBreakpoint(bp, &nbp, &next);
	    slope += 2.0 * fabs(T[(size_t)next.row * p + k]);
	    if (bland || slope >= -tol || nbp == 0) {
		l = next.row;
		step = next.t;
		break;
	    }
	    sign[next.row] = -sign[next.row];
	}
	if (step <= tol * (1.0 + scale)) {
	    bland = ++degenerate > 2 * p + 10;
	} else {
	    degenerate = 0;
	    bland = 0;
	}
	Pivot(T, beta, n, p, l, k);
	{
	    int leaving = rowEnt[l];

	    rowEnt[l] = colEnt[k];
	    colEnt[k] = leaving;
	    sign[l] = d;
	}
    }

    for (i = 0; i < n; i++) {
	if (rowEnt[i] < 0) {
	    coef[-1 - rowEnt[i]] = beta[i];
	}
    }
    *objective = AbsResiduals(n, p, X, y, coef);
    result = 0;

  done:
    if (iterations) {
	*iterations = iter;
    }
    free(T);
    free(beta);
    free(rowEnt);
    free(colEnt);
    free(sign);
    free(bp);
    free(z);
    return result;
}
