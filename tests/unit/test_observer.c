/*
 * test_observer.c --
 *
 *	Unit tests of the Observer plugin's queueing-network solvers.
 *	Published answers are cited where used; the rest are worked out by
 *	hand in comments or checked as properties (bounds bracket the exact
 *	solution, Little's law, approximate close to exact).
 */

#include <math.h>
#include "rbtest.h"
#include "plugins/observer/observer.h"

#define ck_assert_rel(x, want, rel) do {				\
	double x_ = (x), w_ = (want);					\
	ck_assert_msg(fabs(x_ - w_) <= (rel) * fabs(w_) + 1e-12,	\
		"%s = %.6g, want %.6g (within %g)", #x, x_, w_,		\
		(double) (rel));					\
    } while (0)

/* x agrees with a value published to the given number of decimals. */
#define ck_assert_places(x, want, places) do {				\
	double x_ = (x), w_ = (want);					\
	ck_assert_msg(fabs(x_ - w_) <= 0.5 * pow(10, -(places)) + 1e-12,\
		"%s = %.6g, published %.*f", #x, x_, (places), w_);	\
    } while (0)

/* Builds a net over caller-owned arrays: nc centers, nk classes. */
#define NET(nc, nk, delay, dem, open, pop, z, lam) \
    ((Rb_QnNet) {(nc), (nk), (delay), (dem), (open), (pop), (z), (lam)})

/*
 * Hand-worked single-class case: D_cpu = 0.5, D_disk = 1, Z = 1, N = 2.
 *   n=1: R = 0.5 + 1 = 1.5, X = 1/2.5 = 0.4, Q = (0.2, 0.4)
 *   n=2: R = 0.5*1.2 + 1*1.4 = 2.0, X = 2/3
 */
START_TEST(mva_single_class_by_hand)
{
    int delay[] = {0, 0}, open[] = {0};
    double dem[] = {0.5, 1.0}, pop[] = {2}, z[] = {1}, lam[] = {0};
    Rb_QnNet net = NET(2, 1, delay, dem, open, pop, z, lam);
    Rb_QnResult r;
    Rb_Error err;

    ck_assert_int_eq(RbQnSolve(&net, RB_QN_EXACT, 0, &r, &err), TCL_OK);
    ck_assert_rel(r.response[0], 2.0, 1e-12);
    ck_assert_rel(r.throughput[0], 2.0 / 3, 1e-12);
    ck_assert_rel(r.residence[0], 0.6, 1e-12);
    ck_assert_rel(r.residence[1], 1.4, 1e-12);
    ck_assert_rel(r.utilization[1], 2.0 / 3, 1e-12);
    ck_assert_int_eq(r.bottleneck, 1);
    RbQnResultFree(&r);
}
END_TEST

/*
 * Lazowska, Zahorjan, Graham, Sevcik, "Quantitative System Performance"
 * (1984), the two-class example of p. 142 (as reproduced in the test
 * suite of Marzolla's Octave "queueing" package, qncmmva.m): demands
 * class A (1, 3), class B (2, 4), one customer each, no think time.
 * Published: X = (3/19, 2/19); residence A (4/3, 5), B (5/2, 7);
 * queues center 1 (4/19 from A, 5/19 from B), center 2 (15/19, 14/19).
 */
START_TEST(mva_two_class_lazowska_p142)
{
    int delay[] = {0, 0}, open[] = {0, 0};
    double dem[] = {1, 3, 2, 4}, pop[] = {1, 1}, z[] = {0, 0}, lam[2];
    Rb_QnNet net = NET(2, 2, delay, dem, open, pop, z, lam);
    Rb_QnResult r;
    Rb_Error err;

    ck_assert_int_eq(RbQnSolve(&net, RB_QN_EXACT, 0, &r, &err), TCL_OK);
    ck_assert_rel(r.throughput[0], 3.0 / 19, 1e-12);
    ck_assert_rel(r.throughput[1], 2.0 / 19, 1e-12);
    ck_assert_rel(r.residence[0], 4.0 / 3, 1e-12);
    ck_assert_rel(r.residence[1], 5, 1e-12);
    ck_assert_rel(r.residence[2], 5.0 / 2, 1e-12);
    ck_assert_rel(r.residence[3], 7, 1e-12);
    ck_assert_rel(r.queue[0], 4.0 / 19, 1e-12);
    ck_assert_rel(r.queue[1], 15.0 / 19, 1e-12);
    ck_assert_rel(r.queue[2], 5.0 / 19, 1e-12);
    ck_assert_rel(r.queue[3], 14.0 / 19, 1e-12);
    RbQnResultFree(&r);
}
END_TEST

/*
 * Schwetman, "Testing network-of-queues software", Purdue CSD-TR 330
 * (1980), example 5(b) (also table 5 of CSD-TR-355, 1982): one
 * processor-sharing center, class 1 with 15 terminals (Z = 1 s,
 * D = 0.025 s), class 2 with 5 (Z = 15 s, D = 0.5 s).  Published to
 * three places: X = (14.323, 0.314), R = (0.047, 0.934), U = (0.358,
 * 0.157), Q = (0.677, 0.293).
 */
START_TEST(mva_two_class_schwetman_terminals)
{
    int delay[] = {0}, open[] = {0, 0};
    double dem[] = {0.025, 0.5}, pop[] = {15, 5}, z[] = {1, 15}, lam[2];
    Rb_QnNet net = NET(1, 2, delay, dem, open, pop, z, lam);
    Rb_QnResult r;
    Rb_Error err;

    ck_assert_int_eq(RbQnSolve(&net, RB_QN_EXACT, 0, &r, &err), TCL_OK);
    ck_assert_places(r.throughput[0], 14.323, 3);
    ck_assert_places(r.throughput[1], 0.314, 3);
    ck_assert_places(r.response[0], 0.047, 3);
    ck_assert_places(r.response[1], 0.934, 3);
    ck_assert_places(r.throughput[0] * 0.025, 0.358, 3);
    ck_assert_places(r.throughput[1] * 0.5, 0.157, 3);
    ck_assert_places(r.queue[0], 0.677, 3);
    ck_assert_places(r.queue[1], 0.293, 3);
    RbQnResultFree(&r);
}
END_TEST

/*
 * Bolch, Greiner, de Meer, Trivedi, "Queueing Networks and Markov
 * Chains" (1998), example 8.3, p. 331: service times (0.02, 0.2, 0.4,
 * 0.6) s, visits (1, 0.4, 0.2, 0.1), so demands (0.02, 0.08, 0.08,
 * 0.06); N = 6, no think time.  Published: X = 9.920 (at center 1),
 * U = (0.198, 0.794, 0.794, 0.595), Q = (0.244, 2.261, 2.261, 1.234).
 */
START_TEST(mva_single_class_bolch_8_3)
{
    int delay[] = {0, 0, 0, 0}, open[] = {0};
    double dem[] = {0.02, 0.08, 0.08, 0.06}, pop[] = {6}, z[] = {0}, lam[1];
    double u[] = {0.198, 0.794, 0.794, 0.595}, q[] = {0.244, 2.261, 2.261,
	1.234};
    Rb_QnNet net = NET(4, 1, delay, dem, open, pop, z, lam);
    Rb_QnResult r;
    Rb_Error err;
    int c;

    ck_assert_int_eq(RbQnSolve(&net, RB_QN_EXACT, 0, &r, &err), TCL_OK);
    ck_assert_places(r.throughput[0], 9.920, 3);
    for (c = 0; c < 4; c++) {
	ck_assert_places(r.utilization[c], u[c], 3);
	ck_assert_places(r.queue[c], q[c], 3);
    }
    RbQnResultFree(&r);
}
END_TEST

/*
 * Bolch et al. (1998), example 8.4, p. 333: the network of 8.3's kind
 * with K = 3, a two-server station (S 0.5 s, 1 visit), two single
 * servers (0.6 and 0.8 s, 0.5 visits) and a delay of 1 s.  Published:
 * X = 1.218 at station 1, Q = (0.624, 0.473, 0.686, 1.217).
 */
START_TEST(mva_multiserver_bolch_8_4)
{
    int delay[] = {0, 0, 0, 1}, open[] = {0}, servers[] = {2, 1, 1, 1};
    double dem[] = {0.5, 0.3, 0.4, 1.0}, pop[] = {3}, z[] = {0}, lam[1];
    double q[] = {0.624, 0.473, 0.686, 1.217};
    Rb_QnNet net = NET(4, 1, delay, dem, open, pop, z, lam);
    Rb_QnResult r;
    Rb_Error err;
    int c;

    net.servers = servers;
    ck_assert_int_eq(RbQnSolve(&net, RB_QN_EXACT, 0, &r, &err), TCL_OK);
    ck_assert(fabs(r.throughput[0] - 1.218) < 1e-3);
    for (c = 0; c < 4; c++) {
	ck_assert(fabs(r.queue[c] - q[c]) < 1e-3);
    }
    RbQnResultFree(&r);
}
END_TEST

/*
 * Lazowska et al. (1984), the approximate-MVA example of p. 117 (as
 * reproduced in qncsmvaap.m of the Octave "queueing" package): demands
 * (0.605, 2.1, 1.35) s, N = 3, Z = 15 s.  Published approximate
 * answers: X = 0.1510/s, R = 4.87 s, Q = (0.0973, 0.4021, 0.2359).
 * The exact answer must be near it (the approximation is within a few
 * per cent at small N).
 */
START_TEST(amva_lazowska_p117)
{
    int delay[] = {0, 0, 0}, open[] = {0};
    double dem[] = {0.605, 2.1, 1.35}, pop[] = {3}, z[] = {15}, lam[1];
    double q[] = {0.0973, 0.4021, 0.2359};
    Rb_QnNet net = NET(3, 1, delay, dem, open, pop, z, lam);
    Rb_QnResult r, e;
    Rb_Error err;
    int c;

    ck_assert_int_eq(RbQnSolve(&net, RB_QN_APPROX, 1e-8, &r, &err), TCL_OK);
    ck_assert_int_eq(r.method, RB_QN_APPROX);
    ck_assert_places(r.throughput[0], 0.1510, 4);
    ck_assert_places(r.response[0], 4.87, 2);
    for (c = 0; c < 3; c++) {
	ck_assert_places(r.queue[c], q[c], 4);
    }
    ck_assert_int_eq(RbQnSolve(&net, RB_QN_EXACT, 0, &e, &err), TCL_OK);
    ck_assert_rel(r.throughput[0], e.throughput[0], 0.02);
    RbQnResultFree(&r);
    RbQnResultFree(&e);
}
END_TEST

/*
 * Bounds of the p. 117 example, by hand: D = 4.055, Dmax = 2.1, Z = 15,
 * N = 3.  X <= min(3/19.055, 1/2.1) = 0.157439; X >= 3/(3*4.055 + 15)
 * = 0.110436; R >= max(4.055, 3*2.1 - 15) = 4.055; R <= 3*4.055 =
 * 12.165; N* = 19.055/2.1 = 9.07381.
 */
START_TEST(bounds_closed_by_hand)
{
    int delay[] = {0, 0, 0}, open[] = {0};
    double dem[] = {0.605, 2.1, 1.35}, pop[] = {3}, z[] = {15}, lam[1];
    Rb_QnNet net = NET(3, 1, delay, dem, open, pop, z, lam);
    Rb_QnBounds b;

    RbQnBoundsFor(&net, 0, &b);
    ck_assert_rel(b.xUpper, 3 / 19.055, 1e-12);
    ck_assert_rel(b.xLower, 3 / 27.165, 1e-12);
    ck_assert_rel(b.rLower, 4.055, 1e-12);
    ck_assert_rel(b.rUpper, 12.165, 1e-12);
    ck_assert_rel(b.nStar, 19.055 / 2.1, 1e-12);
    ck_assert_int_eq(b.bottleneck, 1);
    /* Beyond N*, the bottleneck caps X at 1/Dmax and R >= N Dmax - Z. */
    pop[0] = 20;
    RbQnBoundsFor(&net, 0, &b);
    ck_assert_rel(b.xUpper, 1 / 2.1, 1e-12);
    ck_assert_rel(b.rLower, 20 * 2.1 - 15, 1e-12);
}
END_TEST

/*
 * Open network by hand: lambda = 2/s, demands 0.1 (queue), 0.3
 * (queue), 1.0 (delay).  U = (0.2, 0.6); R = 0.1/0.8 + 0.3/0.4 + 1.0
 * = 0.125 + 0.75 + 1 = 1.875 s; queue at center 2 = 2 * 0.75 = 1.5.
 * At lambda = 4 center 2 saturates (U = 1.2): an error naming it.
 */
START_TEST(open_network_by_hand)
{
    int delay[] = {0, 0, 1}, open[] = {1};
    double dem[] = {0.1, 0.3, 1.0}, pop[1] = {0}, z[1] = {0}, lam[] = {2};
    Rb_QnNet net = NET(3, 1, delay, dem, open, pop, z, lam);
    Rb_QnResult r;
    Rb_QnBounds b;
    Rb_Error err;

    ck_assert_int_eq(RbQnSolve(&net, RB_QN_AUTO, 0, &r, &err), TCL_OK);
    ck_assert_rel(r.response[0], 1.875, 1e-12);
    ck_assert_rel(r.utilization[1], 0.6, 1e-12);
    ck_assert_rel(r.queue[1], 1.5, 1e-12);
    ck_assert_int_eq(r.bottleneck, 1);
    RbQnResultFree(&r);
    RbQnBoundsFor(&net, 0, &b);
    ck_assert_rel(b.lambdaSat, 1 / 0.3, 1e-12);
    ck_assert_rel(b.rLower, 1.4, 1e-12);
    lam[0] = 4;
    ck_assert_int_eq(RbQnSolve(&net, RB_QN_AUTO, 0, &r, &err), TCL_ERROR);
    ck_assert_str_eq(err.code, "RUBICON OBSERVER SATURATED");
    RbQnResultFree(&r);
}
END_TEST

/*
 * Mixed network (Lazowska ch. 7.5 method) by hand: one queueing center,
 * open class lambda = 0.5 with D = 1 (U_open = 0.5); closed class N = 1,
 * Z = 0, D = 1.  The closed class sees D/(1-0.5) = 2: R = 2, X = 0.5,
 * Q_closed = 1.  The open class: R = 1 * (1 + 1) / 0.5 = 4.
 */
START_TEST(mixed_network_by_hand)
{
    int delay[] = {0}, open[] = {1, 0};
    double dem[] = {1, 1}, pop[] = {0, 1}, z[] = {0, 0}, lam[] = {0.5, 0};
    Rb_QnNet net = NET(1, 2, delay, dem, open, pop, z, lam);
    Rb_QnResult r;
    Rb_Error err;

    ck_assert_int_eq(RbQnSolve(&net, RB_QN_EXACT, 0, &r, &err), TCL_OK);
    ck_assert_rel(r.response[1], 2, 1e-12);
    ck_assert_rel(r.throughput[1], 0.5, 1e-12);
    ck_assert_rel(r.response[0], 4, 1e-12);
    ck_assert_rel(r.utilization[0], 1.0, 1e-12);
    RbQnResultFree(&r);
}
END_TEST

/* A small deterministic generator (xorshift64*) for property tests. */
static uint64_t rngState = 0x9E3779B97F4A7C15ULL;

static double
Uniform(void)
{
    rngState ^= rngState >> 12;
    rngState ^= rngState << 25;
    rngState ^= rngState >> 27;
    return (double) ((rngState * 2685821657736338717ULL) >> 11)
	    / 9007199254740992.0;
}

/*
 * Property: over 500 random closed networks (1-3 classes, 1-6 centers,
 * some delay, populations 0-12, think 0-5 s, some with an open class),
 * the asymptotic bounds bracket exact MVA, Little's law holds at every
 * center, and the utilization law holds.
 */
START_TEST(bounds_bracket_exact_random_networks)
{
    int trial;

    for (trial = 0; trial < 500; trial++) {
	int nc = 1 + (int) (Uniform() * 6), nk = 1 + (int) (Uniform() * 3);
	int delay[6], open[3], c, k;
	double dem[18], pop[3], z[3], lam[3];
	Rb_QnNet net = NET(nc, nk, delay, dem, open, pop, z, lam);
	Rb_QnResult r;
	Rb_Error err;

	for (c = 0; c < nc; c++) {
	    delay[c] = c > 0 && Uniform() < 0.2;
	}
	for (k = 0; k < nk; k++) {
	    open[k] = k > 0 && Uniform() < 0.25;
	    pop[k] = floor(Uniform() * 13);
	    z[k] = Uniform() < 0.3 ? 0 : Uniform() * 5;
	    for (c = 0; c < nc; c++) {
		dem[k * nc + c] = c > 0 && Uniform() < 0.1 ? 0 : Uniform();
	    }
	    /* Open load kept below saturation: at most 0.3 per center. */
	    lam[k] = 0.3 / (nc * 1.0 + 1e-9);
	}
	ck_assert_int_eq(RbQnSolve(&net, RB_QN_EXACT, 0, &r, &err), TCL_OK);
	for (k = 0; k < nk; k++) {
	    Rb_QnBounds b;
	    double tol = 1e-9;

	    RbQnBoundsFor(&net, k, &b);
	    ck_assert_msg(r.throughput[k] <= b.xUpper * (1 + tol) + 1e-12
		    && r.throughput[k] >= b.xLower * (1 - tol) - 1e-12,
		    "trial %d class %d: X %g outside [%g, %g]", trial, k,
		    r.throughput[k], b.xLower, b.xUpper);
	    if (open[k] || pop[k] > 0) {
		ck_assert_msg(r.response[k] >= b.rLower * (1 - tol) - 1e-12
			&& r.response[k] <= b.rUpper * (1 + tol) + 1e-12,
			"trial %d class %d: R %g outside [%g, %g]", trial, k,
			r.response[k], b.rLower, b.rUpper);
	    }
	    for (c = 0; c < nc; c++) {
		ck_assert_rel(r.queue[k * nc + c],
			r.throughput[k] * r.residence[k * nc + c], 1e-12);
	    }
	}
	for (c = 0; c < nc; c++) {
	    double u = 0;

	    for (k = 0; k < nk; k++) {
		u += r.throughput[k] * dem[k * nc + c];
	    }
	    ck_assert_rel(r.utilization[c], u, 1e-12);
	    if (!delay[c]) {
		ck_assert(r.utilization[c] <= 1 + 1e-9);
	    }
	}
	RbQnResultFree(&r);
    }
}
END_TEST

/*
 * Property: Bard-Schweitzer is within 10% of exact in throughput on
 * random single-class networks, and AUTO chooses approx for a state
 * space too big for exact.
 */
START_TEST(approx_close_to_exact)
{
    int trial;

    for (trial = 0; trial < 200; trial++) {
	int nc = 1 + (int) (Uniform() * 5), c;
	int delay[5] = {0}, open[1] = {0};
	double dem[5], pop[1], z[1], lam[1];
	Rb_QnNet net = NET(nc, 1, delay, dem, open, pop, z, lam);
	Rb_QnResult r, e;
	Rb_Error err;

	for (c = 0; c < nc; c++) {
	    dem[c] = 0.01 + Uniform();
	}
	pop[0] = 1 + floor(Uniform() * 40);
	z[0] = Uniform() * 10;
	ck_assert_int_eq(RbQnSolve(&net, RB_QN_EXACT, 0, &e, &err), TCL_OK);
	ck_assert_int_eq(RbQnSolve(&net, RB_QN_APPROX, 1e-9, &r, &err),
		TCL_OK);
	ck_assert_rel(r.throughput[0], e.throughput[0], 0.10);
	RbQnResultFree(&r);
	RbQnResultFree(&e);
    }
    {
	int delay[2] = {0, 0}, open[3] = {0, 0, 0};
	double dem[6] = {1, 1, 1, 1, 1, 1}, pop[3] = {300, 300, 300};
	double z[3] = {1, 1, 1}, lam[3];
	Rb_QnNet net = NET(2, 3, delay, dem, open, pop, z, lam);
	Rb_QnResult r;
	Rb_Error err;

	ck_assert_int_eq(RbQnSolve(&net, RB_QN_AUTO, 0, &r, &err), TCL_OK);
	ck_assert_int_eq(r.method, RB_QN_APPROX);
	/* Symmetric classes: equal throughputs, summing to at most 1/D. */
	ck_assert_rel(r.throughput[0], r.throughput[2], 1e-6);
	ck_assert(r.utilization[0] <= 1 + 1e-9);
	RbQnResultFree(&r);
    }
}
END_TEST

/*
 * Exact MVA with 1000 customers on 100 centers (the size make bench
 * times) agrees with approx MVA's X within 1% and saturates the
 * bottleneck: with one center at D = 0.05 and the rest below, X is
 * close to 1/0.05 = 20.
 */
START_TEST(mva_large_population)
{
    int delay[100] = {0}, open[1] = {0}, c;
    double dem[100], pop[1] = {1000}, z[1] = {5}, lam[1];
    Rb_QnNet net = NET(100, 1, delay, dem, open, pop, z, lam);
    Rb_QnResult r, a;
    Rb_Error err;

    for (c = 0; c < 100; c++) {
	dem[c] = c == 17 ? 0.05 : 0.001 + 0.0003 * c;
    }
    ck_assert_int_eq(RbQnSolve(&net, RB_QN_EXACT, 0, &r, &err), TCL_OK);
    ck_assert_int_eq(RbQnSolve(&net, RB_QN_APPROX, 1e-10, &a, &err), TCL_OK);
    ck_assert_rel(r.throughput[0], 20, 1e-3);
    ck_assert_rel(a.throughput[0], r.throughput[0], 0.01);
    ck_assert_int_eq(r.bottleneck, 17);
    RbQnResultFree(&r);
    RbQnResultFree(&a);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("observer");
    TCase *tc = tcase_create("queueing");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, mva_single_class_by_hand);
    tcase_add_test(tc, mva_two_class_lazowska_p142);
    tcase_add_test(tc, mva_two_class_schwetman_terminals);
    tcase_add_test(tc, mva_single_class_bolch_8_3);
    tcase_add_test(tc, mva_multiserver_bolch_8_4);
    tcase_add_test(tc, amva_lazowska_p117);
    tcase_add_test(tc, bounds_closed_by_hand);
    tcase_add_test(tc, open_network_by_hand);
    tcase_add_test(tc, mixed_network_by_hand);
    tcase_add_test(tc, bounds_bracket_exact_random_networks);
    tcase_add_test(tc, approx_close_to_exact);
    tcase_add_test(tc, mva_large_population);
    suite_add_tcase(s, tc);
    return s;
}
