/*
 * test_analyzers3.c --
 *
 *	Unit tests of the Analyzer kit's burstiness, staged, temporal,
 *	spatial and top-K classes, and of the peak-to-mean ratios of the
 *	rate series.  Each answer is worked out by hand in a comment, or by a
 *	short second implementation in this file that shares no code with
 *	the class.
 */

#include <math.h>
#include "kitTest.h"

/*
 * ReadsPerSecond --
 *	counts[k] reads of 4 KiB in second k, spread 1 ms apart from the
 *	start of the second.
 */
static Rb_Batch *
ReadsPerSecond(const int *counts, int n)
{
    Rb_Batch *b;
    int k, j, total = 0;

    for (k = 0; k < n; k++) {
	total += counts[k];
    }
    b = NewBatch(total + 1);
    for (k = 0; k < n; k++) {
	for (j = 0; j < counts[k]; j++) {
	    AddIo(b, k * SEC + j * MS, RB_OP_READ, 4096, 1, 0);
	}
    }
    return b;
}

/*
 * ---------------------------------------------------------------------
 * Peak-to-mean ratios of the rate and bandwidth series
 * ---------------------------------------------------------------------
 */

START_TEST(rate_and_bandwidth_peak_to_mean)
{
    static const int counts[] = {3, 1, 0, 4};
    Rb_Batch *b = ReadsPerSecond(counts, 4);
    Rb_Flow *rate = RunAll(&Rb_RateAnalyzerClass, "-interval 1", b);
    Rb_Flow *bw;

    /* Per second 3 1 0 4: mean 2, peak 4, ratio 2.  Every I/O is 4 KiB,
     * so bandwidth has the same ratio. */
    ck_assert_near(Scalar(rate, "RatePeakToMean"), 2);
    bw = RunAll(&Rb_BandwidthAnalyzerClass, "-interval 1", b);
    ck_assert_near(Scalar(bw, "BandwidthPeakToMean"), 2);
    RbFlowDelete(rate);
    RbFlowDelete(bw);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(peak_to_mean_of_empty_run_is_zero)
{
    Rb_Batch *b = NewBatch(1);
    Rb_Flow *rate = RunAll(&Rb_RateAnalyzerClass, "", b);

    ck_assert_near(Scalar(rate, "RatePeakToMean"), 0);
    RbFlowDelete(rate);
    Rb_BatchFree(b);
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * Burstiness
 * ---------------------------------------------------------------------
 */

START_TEST(on_off_periods_by_hand)
{
    static const int64_t at[] = {0, 500, 1200, 2800, 5000, 5500, 9000};
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *p;
    int k;

    /* -idle 1 s, arrivals in ms; the I/O at 1.2 s completes at 2.0 s, so
     * 2.8 s is 0.8 s after activity and continues the period.  Periods
     * [0, 2.8] [5, 5.5] [9, 9]: ON 2.8 + 0.5 + 0 = 3.3 s of 9 s, mean
     * 1.1 s; OFF 5 - 2.8 = 2.2 and 9 - 5.5 = 3.5, mean 2.85 s. */
    for (k = 0; k < 7; k++) {
	AddIo(b, at[k] * MS, RB_OP_READ, 512, 1, 0);
    }
    b->col[RB_IO_FINISH][2] = 2000 * MS;
    flow = RunAll(&Rb_OnOffAnalyzerClass, "-idle 1", b);
    p = Attr(flow, "OnPeriods");
    ck_assert_int_eq(p->nrows, 3);
    ck_assert_near(Cell(p, 0, "start"), 0);
    ck_assert_near(Cell(p, 0, "end"), 2.8);
    ck_assert_near(Cell(p, 1, "start"), 5);
    ck_assert_near(Cell(p, 1, "end"), 5.5);
    ck_assert_near(Cell(p, 2, "length"), 0);
    ck_assert_near(Scalar(flow, "OnFraction"), 3.3 / 9);
    ck_assert_near(Scalar(flow, "MeanOnPeriod"), 1.1);
    ck_assert_near(Scalar(flow, "MeanOffPeriod"), 2.85);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(dispersion_by_hand)
{
    static const int counts[] = {3, 1, 0, 4, 2};
    Rb_Batch *b = ReadsPerSecond(counts, 5);
    Rb_Flow *flow = RunAll(&Rb_DispersionAnalyzerClass, "-base 1", b);
    const Rb_Attribute *t = Attr(flow, "Dispersion");

    /* 1 s windows: 3 1 0 4 2, mean 2, squared deviations 1+1+4+4+0 = 10,
     * variance 2, IDC 1.  2 s windows: 4 4 (the fifth second is an
     * incomplete window), variance 0, IDC 0.  4 s: one window, no row. */
    ck_assert_int_eq(t->nrows, 2);
    ck_assert_near(Cell(t, 0, "scale"), 1);
    ck_assert_near(Cell(t, 0, "windows"), 5);
    ck_assert_near(Cell(t, 0, "idc"), 1);
    ck_assert_near(Cell(t, 1, "scale"), 2);
    ck_assert_near(Cell(t, 1, "windows"), 2);
    ck_assert_near(Cell(t, 1, "idc"), 0);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

/*
 * Gaussian --
 *	A standard normal deviate (Box-Muller) from the test's generator.
 */
static double
Gaussian(uint64_t *seed)
{
    double u1 = ((double)(NextRandom(seed) >> 11) + 0.5) / 9007199254740992.0;
    double u2 = (double)(NextRandom(seed) >> 11) / 9007199254740992.0;

    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * Fft --
 *	In-place radix-2 discrete Fourier transform of n (a power of two)
 *	complex values re + i im: X_k = sum_j x_j exp(-2 pi i jk / n).
 */
static void
Fft(double *re, double *im, int n)
{
    int i, j, len, k;

    for (i = 1, j = 0; i < n; i++) {
	int bit = n >> 1;

	for (; j & bit; bit >>= 1) {
	    j ^= bit;
	}
	j ^= bit;
	if (i < j) {
	    double t = re[i]; re[i] = re[j]; re[j] = t;
	    t = im[i]; im[i] = im[j]; im[j] = t;
	}
    }
    for (len = 2; len <= n; len <<= 1) {
	double ang = -2 * M_PI / len;

	for (i = 0; i < n; i += len) {
	    for (k = 0; k < len / 2; k++) {
		double wr = cos(ang * k), wi = sin(ang * k);
		double *ur = &re[i + k], *ui = &im[i + k];
		double *vr = &re[i + k + len / 2], *vi = &im[i + k + len / 2];
		double tr = *vr * wr - *vi * wi, ti = *vr * wi + *vi * wr;

		*vr = *ur - tr;
		*vi = *ui - ti;
		*ur += tr;
		*ui += ti;
	    }
	}
    }
}

/*
 * FractionalGaussianNoise --
 *	n (a power of two) values of fractional Gaussian noise with Hurst
 *	parameter h and unit variance, by the exact Davies-Harte method: the
 *	autocovariance g(k) = (|k+1|^2h - 2|k|^2h + |k-1|^2h) / 2 embedded in
 *	a circulant of size 2n, whose eigenvalues (its FFT) scale complex
 *	Gaussian noise that a second FFT turns into the series.
 * Results: a malloc'd array.
 */
static double *
FractionalGaussianNoise(int n, double h, uint64_t *seed)
{
    int m = 2 * n, k;
    double *re = calloc(m, sizeof(double)), *im = calloc(m, sizeof(double));
    double *lambda = malloc(m * sizeof(double)), *x = malloc(n * sizeof(double));

    for (k = 0; k <= n; k++) {
	double g = 0.5 * (pow(k + 1, 2 * h) - 2 * pow(k, 2 * h)
		+ pow(abs(k - 1), 2 * h));

	re[k] = g;
	if (k > 0 && k < n) {
	    re[m - k] = g;
	}
    }
    Fft(re, im, m);
    for (k = 0; k < m; k++) {
	ck_assert_msg(re[k] > -1e-9, "negative eigenvalue %g", re[k]);
	lambda[k] = re[k] > 0 ? re[k] : 0;
    }
    re[0] = sqrt(lambda[0] / m) * Gaussian(seed);
    im[0] = 0;
    re[n] = sqrt(lambda[n] / m) * Gaussian(seed);
    im[n] = 0;
    for (k = 1; k < n; k++) {
	double s = sqrt(lambda[k] / (2.0 * m));

	re[k] = s * Gaussian(seed);
	im[k] = s * Gaussian(seed);
	re[m - k] = re[k];
	im[m - k] = -im[k];
    }
    Fft(re, im, m);
    for (k = 0; k < n; k++) {
	x[k] = re[k];
    }
    free(re);
    free(im);
    free(lambda);
    return x;
}

/*
 * HurstOf --
 *	Runs HurstAnalyzer (-base 1) on arrivals whose count in second k is
 *	round(10 + 3 noise[k]) and returns both estimates.
 */
static void
HurstOf(const double *noise, int n, double *vt, double *rs)
{
    int *counts = malloc(n * sizeof(int)), k;
    Rb_Batch *b;
    Rb_Flow *flow;

    for (k = 0; k < n; k++) {
	double c = round(10 + 3 * noise[k]);

	counts[k] = c > 0 ? (int)c : 0;
    }
    b = ReadsPerSecond(counts, n);
    flow = RunAll(&Rb_HurstAnalyzerClass, "-base 1", b);
    *vt = Scalar(flow, "HurstVarianceTime");
    *rs = Scalar(flow, "HurstRescaledRange");
    RbFlowDelete(flow);
    Rb_BatchFree(b);
    free(counts);
}

enum { HURST_N = 1 << 14 };

/* Five seeds: one lucky seed would not show the tolerance holds. */
static const uint64_t hurstSeeds[] = {42, 7, 1999, 271828, 0xC0FFEE};
#define HURST_SEEDS (int)(sizeof(hurstSeeds) / sizeof(hurstSeeds[0]))

START_TEST(hurst_of_white_noise_is_half)
{
    double *noise = malloc(HURST_N * sizeof(double)), vt, rs;
    int s, k;

    for (s = 0; s < HURST_SEEDS; s++) {
	uint64_t seed = hurstSeeds[s];

	for (k = 0; k < HURST_N; k++) {
	    noise[k] = Gaussian(&seed);
	}
	HurstOf(noise, HURST_N, &vt, &rs);
	printf("white noise, seed %llu: variance-time H %.3f, R/S H %.3f\n",
		(unsigned long long)hurstSeeds[s], vt, rs);
	ck_assert_msg(fabs(vt - 0.5) <= 0.1, "seed %llu: variance-time H %g",
		(unsigned long long)hurstSeeds[s], vt);
	ck_assert_msg(fabs(rs - 0.5) <= 0.1, "seed %llu: R/S H %g",
		(unsigned long long)hurstSeeds[s], rs);
    }
    free(noise);
}
END_TEST

START_TEST(hurst_of_fractional_gaussian_noise)
{
    int s;

    for (s = 0; s < HURST_SEEDS; s++) {
	uint64_t seed = hurstSeeds[s];
	double *noise = FractionalGaussianNoise(HURST_N, 0.8, &seed), vt, rs;

	HurstOf(noise, HURST_N, &vt, &rs);
	printf("fGn H = 0.8, seed %llu: variance-time H %.3f, R/S H %.3f\n",
		(unsigned long long)hurstSeeds[s], vt, rs);
	ck_assert_msg(fabs(vt - 0.8) <= 0.1, "seed %llu: variance-time H %g",
		(unsigned long long)hurstSeeds[s], vt);
	ck_assert_msg(fabs(rs - 0.8) <= 0.1, "seed %llu: R/S H %g",
		(unsigned long long)hurstSeeds[s], rs);
	free(noise);
    }
}
END_TEST

START_TEST(merge_burstiness)
{
    CheckMerge(&Rb_DispersionAnalyzerClass, "-base 0.01");
    CheckMerge(&Rb_HurstAnalyzerClass, "-base 0.01");
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * Temporal
 * ---------------------------------------------------------------------
 */

START_TEST(read_after_write_by_hand)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    /* 4 KiB blocks: W{0,1} R{1}* R{2} W{1}+ R{2,3} W{3} R{3}*.  Reads of
     * written blocks (*): 2 of 5 block reads; overwrites (+): 1 of 4
     * block writes. */
    AddIo(b, 0, RB_OP_WRITE, 8192, 1, 0);
    AddIo(b, 1, RB_OP_READ, 4096, 1, 4096);
    AddIo(b, 2, RB_OP_READ, 4096, 1, 8192);
    AddIo(b, 3, RB_OP_WRITE, 4096, 1, 4096);
    AddIo(b, 4, RB_OP_READ, 8192, 1, 8192);
    AddIo(b, 5, RB_OP_WRITE, 4096, 1, 12288);
    AddIo(b, 6, RB_OP_READ, 4096, 1, 12288);
    flow = RunAll(&Rb_ReadAfterWriteAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "ReadAfterWriteFraction"), 0.4);
    ck_assert_near(Scalar(flow, "OverwriteFraction"), 0.25);
    ck_assert_near(Scalar(flow, "ReadAfterWriteExact"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(read_after_write_past_the_limit_is_flagged)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;

    /* -limit 1: block 0 is remembered, block 1 is not, so its second
     * write and its read are missed: 0 of 3 writes overwrite (truly 1),
     * 0 of 1 reads after a write (truly 1), and the flag says so. */
    AddIo(b, 0, RB_OP_WRITE, 4096, 1, 0);
    AddIo(b, 1, RB_OP_WRITE, 4096, 1, 4096);
    AddIo(b, 2, RB_OP_WRITE, 4096, 1, 4096);
    AddIo(b, 3, RB_OP_READ, 4096, 1, 4096);
    flow = RunAll(&Rb_ReadAfterWriteAnalyzerClass, "-limit 1", b);
    ck_assert_near(Scalar(flow, "OverwriteFraction"), 0);
    ck_assert_near(Scalar(flow, "ReadAfterWriteFraction"), 0);
    ck_assert_near(Scalar(flow, "ReadAfterWriteExact"), 0);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(re_reference_intervals_by_hand)
{
    static const int64_t at[] = {0, 1, 2, 3, 5}, block[] = {0, 1, 0, 0, 1};
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *p;
    int k;

    /* Block 0 at 0, 2, 3 s; block 1 at 1, 5 s.  Intervals 2, 1, 4: mean
     * 7/3 s, minimum 1, maximum 4; 3 of 5 accesses are re-references. */
    for (k = 0; k < 5; k++) {
	AddIo(b, at[k] * SEC, RB_OP_READ, 4096, 1, block[k] * 4096);
    }
    flow = RunAll(&Rb_ReReferenceAnalyzerClass, "", b);
    ck_assert_near(Scalar(flow, "MeanReReference"), 7.0 / 3);
    ck_assert_near(Scalar(flow, "ReReferenceFraction"), 0.6);
    ck_assert_near(Scalar(flow, "ReReferenceExact"), 1);
    p = Attr(flow, "ReReference");
    ck_assert_near(Cell(p, 0, "value"), 1);
    ck_assert_double_eq_tol(Cell(p, 1, "value"), 2, 0.02);
    ck_assert_near(Cell(p, 6, "value"), 4);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(working_set_per_window)
{
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *w;

    /* -window 10: [0,10) touches blocks {0,1} (block 0 twice): 2;
     * [10,20) nothing: 0; [20,30) one I/O over blocks 5..7: 3.  Mean
     * 5/3, maximum 3. */
    AddIo(b, 0, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 3 * SEC, RB_OP_WRITE, 4096, 1, 4096);
    AddIo(b, 9 * SEC, RB_OP_READ, 4096, 1, 0);
    AddIo(b, 25 * SEC, RB_OP_READ, 3 * 4096, 1, 5 * 4096);
    flow = RunAll(&Rb_WorkingSetAnalyzerClass, "-window 10", b);
    w = Attr(flow, "WorkingSetSeries");
    ck_assert_int_eq(w->nrows, 3);
    ck_assert_near(Cell(w, 0, "value"), 2);
    ck_assert_near(Cell(w, 1, "time"), 10);
    ck_assert_near(Cell(w, 1, "value"), 0);
    ck_assert_near(Cell(w, 2, "value"), 3);
    ck_assert_near(Scalar(flow, "MeanWorkingSet"), 5.0 / 3);
    ck_assert_near(Scalar(flow, "MaxWorkingSet"), 3);
    ck_assert_near(Scalar(flow, "WorkingSetExact"), 1);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

/*
 * ---------------------------------------------------------------------
 * Per-key breakdowns
 * ---------------------------------------------------------------------
 */

START_TEST(top_k_processes_by_requests_and_bytes)
{
    static const int64_t pid[] = {7, 3, 7, 5, 3, 7}, size[] = {100, 5000,
	    100, 800, 5000, 100};
    Rb_Batch *b = NewBatch(0);
    Rb_Flow *flow;
    const Rb_Attribute *r, *y;
    int k;

    /* pid 7: 3 requests, 300 bytes; pid 3: 2, 10000; pid 5: 1, 800.
     * Totals 6 requests, 11100 bytes.  -k 2: by requests 7 then 3; by
     * bytes 3 then 5. */
    for (k = 0; k < 6; k++) {
	AddIo(b, k, RB_OP_READ, size[k], 1, 0);
	b->col[RB_IO_PID][b->n - 1] = pid[k];
    }
    flow = RunAll(&Rb_TopKAnalyzerClass, "-k 2", b);
    r = Attr(flow, "TopKByRequests");
    y = Attr(flow, "TopKByBytes");
    ck_assert_int_eq(r->nrows, 2);
    ck_assert_near(Cell(r, 0, "key"), 7);
    ck_assert_near(Cell(r, 0, "requests"), 3);
    ck_assert_near(Cell(r, 0, "requestFraction"), 0.5);
    ck_assert_near(Cell(r, 1, "key"), 3);
    ck_assert_near(Cell(y, 0, "key"), 3);
    ck_assert_near(Cell(y, 0, "byteFraction"), 10000.0 / 11100);
    ck_assert_near(Cell(y, 1, "key"), 5);
    ck_assert_near(Scalar(flow, "Keys"), 3);
    RbFlowDelete(flow);
    Rb_BatchFree(b);
}
END_TEST

START_TEST(merge_top_k)
{
    CheckMerge(&Rb_TopKAnalyzerClass, "-field deviceNo -k 3");
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("analyzers3");
    TCase *tc;

    tc = tcase_create("peak");
    tcase_add_test(tc, rate_and_bandwidth_peak_to_mean);
    tcase_add_test(tc, peak_to_mean_of_empty_run_is_zero);
    suite_add_tcase(s, tc);

    tc = tcase_create("burstiness");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, on_off_periods_by_hand);
    tcase_add_test(tc, dispersion_by_hand);
    tcase_add_test(tc, hurst_of_white_noise_is_half);
    tcase_add_test(tc, hurst_of_fractional_gaussian_noise);
    tcase_add_test(tc, merge_burstiness);
    suite_add_tcase(s, tc);

    tc = tcase_create("temporal");
    tcase_add_test(tc, read_after_write_by_hand);
    tcase_add_test(tc, read_after_write_past_the_limit_is_flagged);
    tcase_add_test(tc, re_reference_intervals_by_hand);
    tcase_add_test(tc, working_set_per_window);
    suite_add_tcase(s, tc);

    tc = tcase_create("keys");
    tcase_add_test(tc, top_k_processes_by_requests_and_bytes);
    tcase_add_test(tc, merge_top_k);
    suite_add_tcase(s, tc);
    return s;
}
