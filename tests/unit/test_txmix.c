/*
 * test_txmix.c --
 *
 *	Unit tests of the transaction-mix plugin's regressions
 *	(generic/plugins/txmix): exact least absolute residuals against the
 *	published stack-loss fit and against brute force over every basic
 *	solution, least squares against the published OLS fit, and the
 *	models on windows whose answer is known.
 */

#include <math.h>
#include "rbtest.h"
#include "plugins/txmix/txmix.h"

/*
 * Brownlee's stack-loss data (R's datasets::stackloss, the copy in
 * data/perfmodels/stackloss.csv): Air.Flow, Water.Temp,
 * Acid.Conc., stack.loss.
 */
static const double stackloss[21][4] = {
    {80, 27, 89, 42}, {80, 27, 88, 37}, {75, 25, 90, 37}, {62, 24, 87, 28},
    {62, 22, 87, 18}, {62, 23, 87, 18}, {62, 24, 93, 19}, {62, 24, 93, 20},
    {58, 23, 87, 15}, {58, 18, 80, 14}, {58, 18, 89, 14}, {58, 17, 88, 13},
    {58, 18, 82, 11}, {58, 19, 93, 12}, {50, 18, 89, 8}, {50, 18, 86, 7},
    {50, 19, 72, 8}, {50, 19, 79, 8}, {50, 20, 80, 9}, {56, 20, 82, 15},
    {70, 20, 91, 15}
};

/*
 * StacklossDesign --
 *	X (21 x 4, intercept first) and y of the stack-loss data; checks the
 *	table above against the shared CSV when it is present.
 */
static void
StacklossDesign(double *X, double *y)
{
    FILE *f = fopen(rbtest_data("perfmodels/stackloss.csv"), "r");
    int i;

    for (i = 0; i < 21; i++) {
	X[i * 4] = 1.0;
	X[i * 4 + 1] = stackloss[i][0];
	X[i * 4 + 2] = stackloss[i][1];
	X[i * 4 + 3] = stackloss[i][2];
	y[i] = stackloss[i][3];
    }
    if (f != NULL) {
	char line[256];
	double a, b, c, d;

	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	for (i = 0; i < 21; i++) {
	    ck_assert_int_eq(fscanf(f, "%lf,%lf,%lf,%lf", &a, &b, &c, &d), 4);
	    ck_assert(a == stackloss[i][0] && b == stackloss[i][1]
		    && c == stackloss[i][2] && d == stackloss[i][3]);
	}
	fclose(f);
    }
}

/*
 * The least-absolute-deviation fit of stack.loss on the other three,
 * as printed by R's quantreg: rq(stack.loss ~ ., tau = 0.5) (method
 * "br", Barrodale-Roberts), and identically by L1pack's
 * summary(lad(stack.loss ~ ., data = stackloss)):
 *   (Intercept) -39.68985507  Air.Flow 0.83188406
 *   Water.Temp    0.57391304  Acid.Conc. -0.06086957
 * The fit passes through four observations, so the values are exact
 * rationals and we match all eight printed digits.
 */
START_TEST(lar_reproduces_quantreg_stackloss_fit)
{
    static const double published[4] = {
	-39.68985507, 0.83188406, 0.57391304, -0.06086957
    };
    double X[84], y[21], coef[4], obj, sae = 0.0;
    int it, i, j;

    StacklossDesign(X, y);
    ck_assert_int_eq(RbTxmixLar(21, 4, X, y, coef, &obj, &it), 0);
    for (j = 0; j < 4; j++) {
	ck_assert_double_eq_tol(coef[j], published[j], 5e-9);
    }
    for (i = 0; i < 21; i++) {
	double e = y[i];

	for (j = 0; j < 4; j++) {
	    e -= X[i * 4 + j] * coef[j];
	}
	sae += fabs(e);
    }
    ck_assert_double_eq_tol(obj, sae, 1e-9);
    /* The minimum sum of absolute residuals, 42.08116 (quantreg's rho). */
    ck_assert_double_eq_tol(obj, 42.0811594, 1e-6);
}
END_TEST

/*
 * R's lm(stack.loss ~ ., data = stackloss) prints (Intercept) -39.9197,
 * Air.Flow 0.7156, Water.Temp 1.2953, Acid.Conc. -0.1521.
 */
START_TEST(ols_reproduces_lm_stackloss_fit)
{
    static const double published[4] = {-39.9197, 0.7156, 1.2953, -0.1521};
    double X[84], y[21], coef[4], sse;
    int j;

    StacklossDesign(X, y);
    ck_assert_int_eq(RbTxmixOls(21, 4, X, y, coef, &sse), 0);
    for (j = 0; j < 4; j++) {
	ck_assert_double_eq_tol(coef[j], published[j], 5e-5);
    }
    /* Residual standard error 3.243 on 17 degrees of freedom. */
    ck_assert_double_eq_tol(sqrt(sse / 17), 3.243, 5e-4);
}
END_TEST

/*
 * Solve --
 *	Gaussian elimination with partial pivoting on the p x p system A b =
 *	c (A and c are overwritten).
 * Results: 1 when solved, 0 when A is singular.
 */
static int
Solve(int p, double *A, double *c, double *b)
{
    int i, j, k;

    for (k = 0; k < p; k++) {
	int piv = k;

	for (i = k + 1; i < p; i++) {
	    if (fabs(A[i * p + k]) > fabs(A[piv * p + k])) {
		piv = i;
	    }
	}
	if (fabs(A[piv * p + k]) < 1e-9) {
	    return 0;
	}
	for (j = 0; j < p; j++) {
	    double t = A[k * p + j];

	    A[k * p + j] = A[piv * p + j];
	    A[piv * p + j] = t;
	}
	{
	    double t = c[k];

	    c[k] = c[piv];
	    c[piv] = t;
	}
	for (i = k + 1; i < p; i++) {
	    double f = A[i * p + k] / A[k * p + k];

	    for (j = k; j < p; j++) {
		A[i * p + j] -= f * A[k * p + j];
	    }
	    c[i] -= f * c[k];
	}
    }
    for (k = p - 1; k >= 0; k--) {
	double s = c[k];

	for (j = k + 1; j < p; j++) {
	    s -= A[k * p + j] * b[j];
	}
	b[k] = s / A[k * p + k];
    }
    return 1;
}

/*
 * BruteForceL1 --
 *	The minimum of sum |y - X b| over every basic solution: b through p
 *	observations exactly.  An L1 regression with X of full column rank
 *	has an optimal vertex of this form (the LP's basic solutions), so
 *	this is the exact minimum, found with no simplex at all.
 */
static double
BruteForceL1(int n, int p, const double *X, const double *y)
{
    int idx[8], i, j, k;
    double best = HUGE_VAL;

    for (k = 0; k < p; k++) {
	idx[k] = k;
    }
    for (;;) {
	double A[64], c[8], b[8], obj = 0.0;

	for (k = 0; k < p; k++) {
	    for (j = 0; j < p; j++) {
		A[k * p + j] = X[idx[k] * p + j];
	    }
	    c[k] = y[idx[k]];
	}
	if (Solve(p, A, c, b)) {
	    for (i = 0; i < n; i++) {
		double e = y[i];

		for (j = 0; j < p; j++) {
		    e -= X[i * p + j] * b[j];
		}
		obj += fabs(e);
	    }
	    if (obj < best) {
		best = obj;
	    }
	}
	/* Next p-subset of n in lexicographic order. */
	for (k = p - 1; k >= 0 && idx[k] == n - p + k; k--) {
	}
	if (k < 0) {
	    break;
	}
	idx[k]++;
	for (j = k + 1; j < p; j++) {
	    idx[j] = idx[j - 1] + 1;
	}
    }
    return best;
}

/*
 * NextRandom --
 *	A small deterministic generator (xorshift64*), so failures repeat.
 */
static double
NextRandom(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/*
 * 600 random problems of 5..12 observations and 1..4 columns, half with
 * continuous values and half with small integers (ties, repeated rows
 * and zero residuals at the start: the degenerate cases where a
 * simplex can stall).  The exact LAR objective never exceeds the
 * brute-force minimum over all basic solutions, and equals it.
 */
START_TEST(lar_objective_matches_brute_force_lp_on_random_problems)
{
    uint64_t seed = 88172645463325252ULL;
    int trial, worse = 0;

    for (trial = 0; trial < 600; trial++) {
	int n = 5 + (int)(NextRandom(&seed) * 8), p = 1 + trial % 4;
	int integers = trial % 2, i, j;
	double X[12 * 4], y[12], coef[4], obj, best;

	for (i = 0; i < n; i++) {
	    for (j = 0; j < p; j++) {
		double r = NextRandom(&seed);

		X[i * p + j] = integers ? floor(r * 4) - 1 : r * 20 - 10;
	    }
	    y[i] = integers ? floor(NextRandom(&seed) * 6) - 2
		    : NextRandom(&seed) * 50 - 25;
	}
	ck_assert_int_eq(RbTxmixLar(n, p, X, y, coef, &obj, NULL), 0);
	best = BruteForceL1(n, p, X, y);
	if (best == HUGE_VAL) {
	    continue;		/* X is rank-deficient: no basic solution */
	}
	if (obj > best + 1e-9 * (1.0 + best)) {
	    worse++;
	    fprintf(stderr, "trial %d n=%d p=%d: lar %.12g > lp %.12g\n",
		    trial, n, p, obj, best);
	}
	ck_assert_double_le_tol(fabs(obj - best), 0.0, 1e-9 * (1.0 + best));
    }
    ck_assert_int_eq(worse, 0);
}
END_TEST

/*
 * Four windows, two types with service demands 0.2 s and 0.5 s and no
 * queueing: Basic recovers the demands exactly by LAR and OLS, and an
 * outlier window moves LAR not at all (OLS is pulled).
 */
START_TEST(basic_model_recovers_demands_and_lar_ignores_an_outlier)
{
    double N[] = {10, 0, 0, 10, 5, 5, 8, 2, 3, 9, 6, 6};
    double y[6], U[6] = {0};
    TxData d = {6, 2, 1, N, U, y};
    TxFit lar, ols;
    char err[100];
    int i;

    for (i = 0; i < 6; i++) {
	y[i] = 0.2 * N[2 * i] + 0.5 * N[2 * i + 1];
    }
    y[5] += 30.0;
    ck_assert_int_eq(RbTxmixFit(&d, TX_BASIC, TX_LAR, 0, NULL, &lar, err,
	    sizeof(err)), 0);
    ck_assert_int_eq(RbTxmixFit(&d, TX_BASIC, TX_OLS, 0, NULL, &ols, err,
	    sizeof(err)), 0);
    ck_assert_int_eq(lar.p, 2);
    ck_assert_double_eq_tol(lar.coef[0], 0.2, 1e-12);
    ck_assert_double_eq_tol(lar.coef[1], 0.5, 1e-12);
    ck_assert_double_eq_tol(lar.objective, 30.0, 1e-9);
    ck_assert(fabs(ols.coef[1] - 0.5) > 0.1);
    RbTxmixFitFree(&lar);
    RbTxmixFitFree(&ols);
}
END_TEST

/*
 * Extended without utilizations is refused with a message; the normalized
 * aggregate error and median relative error are worked by hand.
 */
START_TEST(models_need_utilization_and_accuracy_is_by_hand)
{
    double N[] = {1, 2}, y[] = {4, 10}, yhat[] = {5, 8};
    TxData d = {2, 1, 0, N, NULL, y};
    TxFit fit;
    TxAccuracy acc;
    char err[100];

    ck_assert_int_eq(RbTxmixFit(&d, TX_EXTENDED, TX_LAR, 0, NULL, &fit,
	    err, sizeof(err)), -1);
    ck_assert_str_eq(err, "model \"extended\" needs utilizations");
    /* |e| = 1, 2; sum y = 14: 3/14. Relative 0.25, 0.2: median 0.225. */
    RbTxmixAccuracy(2, y, yhat, NULL, &acc);
    ck_assert_double_eq_tol(acc.aggregate, 3.0 / 14.0, 1e-15);
    ck_assert_double_eq_tol(acc.median, 0.225, 1e-15);
    ck_assert_double_eq_tol(acc.max, 0.25, 1e-15);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("txmix");
    TCase *tc = tcase_create("regression");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, lar_reproduces_quantreg_stackloss_fit);
    tcase_add_test(tc, ols_reproduces_lm_stackloss_fit);
    tcase_add_test(tc, lar_objective_matches_brute_force_lp_on_random_problems);
    tcase_add_test(tc, basic_model_recovers_demands_and_lar_ignores_an_outlier);
    tcase_add_test(tc, models_need_utilization_and_accuracy_is_by_hand);
    suite_add_tcase(s, tc);
    return s;
}
