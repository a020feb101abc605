/*
 * test_loghist.c --
 *
 *	Unit tests of the logarithmic histogram's buckets (Rb_LogHistAdd,
 *	generic/toolbox/logHist.c).  Bucket k holds (g^(k-1), g^k] with
 *	g = (1 + RB_LOGHIST_ALPHA) / (1 - RB_LOGHIST_ALPHA), and the bucket
 *	of v is the ceiling of log|v| / log g.  Rb_LogHistAdd finds it from
 *	the exponent and a table, falling back to log near a bound; these
 *	tests take each value's bucket from that formula with libm's log and
 *	compare, over values spread across every magnitude and values one
 *	ulp either side of computed bounds.  RbLogHistAddMany (a batch at
 *	a time) is checked the same way, with its counts of zeros and
 *	values and their sum counted apart.
 */

#include <math.h>
#include <stdint.h>
#include "rbtest.h"
#include "toolbox/toolbox.h"

/*
 * FormulaBucket --
 *	The bucket of v != 0 by the formula, with libm's log.
 */
static int64_t
FormulaBucket(double v)
{
    double g = (1.0 + RB_LOGHIST_ALPHA) / (1.0 - RB_LOGHIST_ALPHA);

    return (int64_t)ceil(log(fabs(v)) / log(g));
}

/*
 * AddedBucket --
 *	The bucket Rb_LogHistAdd counts v in: the one bin of a fresh
 *	histogram's positive or negative side holding a count.
 */
static int64_t
AddedBucket(double v)
{
    Rb_LogHist h;
    const Rb_TimeBins *tb;
    int64_t j, found = INT64_MIN;

    memset(&h, 0, sizeof h);
    Rb_LogHistAdd(&h, v);
    tb = &h.bucket[v < 0];
    for (j = 0; j < tb->n; j++) {
	if (tb->sums[j] != 0) {
	    ck_assert_int_eq(tb->sums[j], 1);
	    ck_assert_int_eq(found, INT64_MIN);
	    found = tb->lo + j;
	}
    }
    ck_assert_int_eq(h.bucket[v >= 0].n == 0
	    || h.bucket[v >= 0].sums[0] == 0, 1);
    Rb_LogHistFree(&h);
    return found;
}

/* A 64-bit generator (splitmix64) for reproducible values. */
static uint64_t
Next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

START_TEST(buckets_of_values_across_all_magnitudes)
{
    uint64_t s = 42;
    int i;

    for (i = 0; i < 500000; i++) {
	/* Any positive finite double, normal or subnormal: random bits
	 * below the exponent 0x7ff. */
	uint64_t bits = Next(&s) & 0x7fffffffffffffffULL;
	double v;

	if ((bits >> 52) == 0x7ff || bits == 0) {
	    continue;
	}
	memcpy(&v, &bits, sizeof v);
	if (i & 1) {
	    v = -v;
	}
	ck_assert_int_eq(AddedBucket(v), FormulaBucket(v));
    }
}
END_TEST

START_TEST(buckets_of_values_at_the_bounds)
{
    double g = (1.0 + RB_LOGHIST_ALPHA) / (1.0 - RB_LOGHIST_ALPHA);
    int k;

    /* Latencies and sizes live between 1e-9 and 1e12; bounds g^k there,
     * and the doubles one and two ulps either side. */
    for (k = -1100; k <= 1400; k++) {
	double b = pow(g, k), v = b;
	int d;

	for (d = 0; d < 2; d++) {
	    v = nextafter(v, 0);
	}
	for (d = 0; d < 5; d++) {
	    ck_assert_int_eq(AddedBucket(v), FormulaBucket(v));
	    v = nextafter(v, INFINITY);
	}
    }
    /* Values with few mantissa bits (whole numbers of microseconds,
     * sizes), where a table edge falls exactly on the value. */
    for (k = 1; k <= 1 << 18; k++) {
	ck_assert_int_eq(AddedBucket((double)k), FormulaBucket((double)k));
	ck_assert_int_eq(AddedBucket(k * 1e-6), FormulaBucket(k * 1e-6));
    }
}
END_TEST

START_TEST(buckets_at_the_edges_of_the_cells)
{
    int e, i, d;

    /* Rb_LogHistAdd looks most values up by their exponent and top 10
     * fraction bits (a cell); a cell that a bucket bound cuts is worked
     * out value by value.  The first and last doubles of every cell of
     * every fourth exponent from 1e-9 to 1e12, and those two ulps either
     * side, against the formula. */
    for (e = 1023 - 30; e <= 1023 + 40; e += 4) {
	for (i = 0; i < 1024; i++) {
	    uint64_t edge[2];
	    int k;

	    edge[0] = (uint64_t)e << 52 | (uint64_t)i << 42;
	    edge[1] = edge[0] | (((uint64_t)1 << 42) - 1);
	    for (k = 0; k < 2; k++) {
		for (d = -2; d <= 2; d++) {
		    uint64_t bits = edge[k] + (uint64_t)(int64_t)d;
		    double v;

		    memcpy(&v, &bits, sizeof v);
		    ck_assert_int_eq(AddedBucket(v), FormulaBucket(v));
		}
	    }
	}
    }
}
END_TEST

START_TEST(many_values_counted_as_the_formula_buckets_them)
{
    static uint64_t want[2][4096];
    static double v[300];
    uint64_t s = 7, zeros = 0, n = 0;
    double sum = 0.0;
    Rb_LogHist h;
    int i, side, done = 0;

    memset(&h, 0, sizeof h);
    memset(want, 0, sizeof want);
    while (done < 20000) {
	int m = 1 + (int)(Next(&s) % 300);

	for (i = 0; i < m; i++, done++) {
	    /* 1e-4 to 1e2 (seconds of latency), uniform in the log; every
	     * 17th 0, every 13th negative, every 101st NaN. */
	    double x = pow(10.0, -4.0 + 6.0 * (double)(Next(&s) >> 11)
		    / 9007199254740992.0);

	    if (done % 17 == 0) {
		x = 0.0;
	    } else if (done % 101 == 0) {
		x = NAN;
	    } else if (done % 13 == 0) {
		x = -x;
	    }
	    v[i] = x;
	    if (isnan(x)) {
		continue;
	    }
	    n++;
	    sum += x;
	    if (x == 0.0) {
		zeros++;
	    } else {
		want[x < 0][FormulaBucket(x) + 2048]++;
	    }
	}
	RbLogHistAddMany(&h, v, m);
    }
    ck_assert_int_eq(h.moments.n, n);
    ck_assert_int_eq(h.zeros, zeros);
    ck_assert(fabs(h.moments.sum - sum) <= 1e-9 * fabs(sum));
    for (side = 0; side < 2; side++) {
	const Rb_TimeBins *tb = &h.bucket[side];
	uint64_t total = 0, counted = 0;
	int64_t j;

	for (j = 0; j < tb->n; j++) {
	    ck_assert_int_eq(tb->sums[j], want[side][tb->lo + j + 2048]);
	    counted += tb->sums[j];
	}
	for (j = 0; j < 4096; j++) {
	    total += want[side][j];
	}
	ck_assert_int_eq(counted, total);
    }
    Rb_LogHistFree(&h);
}
END_TEST

/*
 * moments_in_groups_as_by_two_passes --
 *	RbMomentsAddMany, fed groups of 0 to 300 values (below four it adds
 *	one at a time), against a second computation: two passes over all
 *	the values in long double, the mean first and then the squared
 *	deviations from it.  The values are latencies riding on a large
 *	offset (1e9 plus 0 to 1), where a sum of squares less the square of
 *	the sum would lose every digit.  Count, minimum and maximum are
 *	exact; sum, mean and the sum of squared deviations are within
 *	rounding.
 */
START_TEST(moments_in_groups_as_by_two_passes)
{
    static double all[40000];
    uint64_t s = 11;
    long double mean = 0.0L, m2 = 0.0L;
    double lo = INFINITY, hi = -INFINITY;
    Rb_Moments m;
    int i, n = 0;

    Rb_MomentsReset(&m);
    while (n < 30000) {
	int g = (int)(Next(&s) % 301);

	for (i = 0; i < g; i++) {
	    double x = 1e9 + (double)(Next(&s) >> 11) / 9007199254740992.0;

	    all[n + i] = x;
	    lo = x < lo ? x : lo;
	    hi = x > hi ? x : hi;
	}
	RbMomentsAddMany(&m, all + n, g);
	n += g;
    }
    for (i = 0; i < n; i++) {
	mean += all[i];
    }
    mean /= n;
    for (i = 0; i < n; i++) {
	m2 += (all[i] - mean) * (all[i] - mean);
    }
    ck_assert_int_eq(m.n, n);
    ck_assert(m.min == lo && m.max == hi);
    /* Welford's update, one value at a time, is off by 5e-15, 1.2e-15
     * and 1.0e-7 of these here (and the groups by less): the bounds
     * allow that much, not a lost term (without the groups' own squared
     * deviations m2 is off by 0.99 of itself, without the merge's term
     * for the distance between means by 0.007). */
    ck_assert(fabsl(m.sum - mean * n) <= 1e-14L * mean * n);
    ck_assert(fabsl(m.mean - mean) <= 1e-14L * mean);
    ck_assert(fabsl(m.m2 - m2) <= 1e-6L * m2);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("loghist");
    TCase *tc = tcase_create("loghist");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, buckets_of_values_across_all_magnitudes);
    tcase_add_test(tc, buckets_of_values_at_the_bounds);
    tcase_add_test(tc, buckets_at_the_edges_of_the_cells);
    tcase_add_test(tc, many_values_counted_as_the_formula_buckets_them);
    tcase_add_test(tc, moments_in_groups_as_by_two_passes);
    suite_add_tcase(s, tc);
    return s;
}
