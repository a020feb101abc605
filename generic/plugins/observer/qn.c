/*
 * qn.c --
 *
 *	Solvers for separable queueing networks (Lazowska, Zahorjan, Graham
 *	and Sevcik, "Quantitative System Performance", 1984): exact Mean
 *	Value Analysis for one or several closed classes (ch. 6 and 7),
 *	Bard-Schweitzer approximate MVA for large populations (ch. 7.4.2),
 *	open classes by the utilization law and residence times D/(1-U),
 *	mixed networks by inflating closed demands with the open load
 *	(ch. 7.5), asymptotic and balanced job bounds (ch. 5).  A queueing
 *	center may have m identical servers: closed classes see it through
 *	load-dependent MVA with its marginal queue-length probabilities
 *	(Bolch, Greiner, de Meer and Trivedi, "Queueing Networks and Markov
 *	Chains", 1998, section 8.2), open classes through the M/M/m delay
 *	(Erlang's C formula).
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

#define EXACT_AUTO_LIMIT 4e6	/* queue-length cells AUTO allows exact */
#define EXACT_HARD_LIMIT 5e7	/* cells EXACT is allowed at all */
#define APPROX_MAX_ITER 100000

/*
 * RbQnStates --
 *	The number of population vectors exact MVA visits: the product of
 *	(N_k + 1) over the closed classes.
 */
double
RbQnStates(const Rb_QnNet *net)
{
    double s = 1;
    int k;

    for (k = 0; k < net->nk; k++) {
	if (!net->isOpen[k]) {
	    s *= floor(net->population[k]) + 1;
	}
    }
    return s;
}

/*
 * CenterName, WorkloadName --
 *	A name for messages: the model's, or "#i".
 */
static const char *
CenterName(const Rb_QnNet *net, int c, char *buf)
{
    if (net->centerNames) {
	return net->centerNames[c];
    }
    sprintf(buf, "#%d", c);
    return buf;
}

static const char *
WorkloadName(const Rb_QnNet *net, int k, char *buf)
{
    if (net->workloadNames) {
	return net->workloadNames[k];
    }
    sprintf(buf, "#%d", k);
    return buf;
}

/*
 * Servers --
 *	The number of servers of center c: 1 unless the net says more.
 */
static int
Servers(const Rb_QnNet *net, int c)
{
    return net->servers && net->servers[c] > 1 && !net->isDelay[c]
	    ? net->servers[c] : 1;
}

/*
 * MultiServerTail --
 *	The extra waiting an arrival at an m-server center meets because
 *	fewer than m servers are busy: sum over j < m - 1 of (m - 1 - j)
 *	p(j), given the marginal probabilities p[0..m-1] of j jobs there.
 */
static double
MultiServerTail(int m, const double *p)
{
    double t = 0;
    int j;

    for (j = 0; j < m - 1; j++) {
	t += (m - 1 - j) * p[j];
    }
    return t;
}

/*
 * MultiServerP0 --
 *	Completes marginal probabilities p[1..m-1] of an m-server center
 *	with p[0], from the balance of its busy servers: the mean number
 *	busy, sum_j min(j, m) p(j), equals the offered load u (jobs/s times
 *	demand, summed over classes), so p(0) = 1 - (u + sum_{j<m} (m - j)
 *	p(j)) / m.  Rounding can push it below zero at large populations;
 *	it is kept at zero.
 */
static void
MultiServerP0(int m, double u, double *p)
{
    double s = u;
    int j;

    for (j = 1; j < m; j++) {
	s += (m - j) * p[j];
    }
    p[0] = fmax(0, 1 - s / m);
}

/*
 * ErlangC --
 *	The probability that an arrival at an M/M/m queue with offered
 *	load a (< m) waits.
 */
static double
ErlangC(int m, double a)
{
    double term = 1, sum = 1, last;
    int i;

    for (i = 1; i < m; i++) {
	term *= a / i;
	sum += term;
    }
    last = term * a / m / (1 - a / m);
    return last / (sum + last);
}

/*
 * OpenLoad --
 *	Fills uOpen[c] with the utilization of center c by the open
 *	classes (utilization law U = lambda D).  Fails naming the first
 *	queueing center the open load saturates.
 */
static int
OpenLoad(const Rb_QnNet *net, double *uOpen, Rb_Error *err)
{
    int c, k;
    char buf[32];

    for (c = 0; c < net->nc; c++) {
	uOpen[c] = 0;
	for (k = 0; k < net->nk; k++) {
	    if (net->isOpen[k]) {
		uOpen[c] += net->lambda[k] * RB_QN_DEMAND(net, k, c);
	    }
	}
	if (!net->isDelay[c] && uOpen[c] >= Servers(net, c)) {
	    Rb_SetError(err, "RUBICON OBSERVER SATURATED",
		    "center %s is saturated by the open workloads "
		    "(utilization %.4g)", CenterName(net, c, buf),
		    uOpen[c] / Servers(net, c));
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

/*
 * CheckMixedMultiServer --
 *	Fails when open and closed classes both use a multi-server center:
 *	the product form then has no MVA of this kind, and an answer from
 *	a stretched demand would be a guess.
 */
static int
CheckMixedMultiServer(const Rb_QnNet *net, Rb_Error *err)
{
    int c, k;
    char buf[32];

    for (c = 0; c < net->nc; c++) {
	int open = 0, closed = 0;

	if (Servers(net, c) == 1) {
	    continue;
	}
	for (k = 0; k < net->nk; k++) {
	    if (RB_QN_DEMAND(net, k, c) > 0) {
		*(net->isOpen[k] ? &open : &closed) = 1;
	    }
	}
	if (open && closed) {
	    Rb_SetError(err, "RUBICON OBSERVER UNSUPPORTED", "center %s has "
		    "%d servers and both open and closed workloads; mixed "
		    "networks need single-server centers",
		    CenterName(net, c, buf), Servers(net, c));
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

/*
 * ClosedDemand --
 *	Demand of closed class k at center c as the closed classes see it:
 *	stretched by 1/(1 - U_open) at a queueing center, since the open
 *	classes take that share of its capacity.
 */
static double
ClosedDemand(const Rb_QnNet *net, const double *uOpen, int k, int c)
{
    double d = RB_QN_DEMAND(net, k, c);

    return net->isDelay[c] ? d : d / (1 - uOpen[c]);
}

/*
 * ExactMva --
 *	Exact multi-class MVA over every population vector up to the
 *	target, in mixed-radix order so that n - e_k is always done
 *	before n.  Q holds the total queue at each center per vector, P
 *	the marginal probabilities p_c(j | n), j < m_c, of each
 *	multi-server center c (Bolch et al. 1998, eq. 8.31-8.33):
 *	    R_kc(n) = D_kc / m_c (1 + Q_c(n - e_k)
 *			+ sum_{j<m_c-1} (m_c - 1 - j) p_c(j | n - e_k))
 *	    p_c(j | n) = 1/j sum_k D_kc X_k(n) p_c(j - 1 | n - e_k).
 *	Leaves residence and throughput of the closed classes in res.
 */
static int
ExactMva(const Rb_QnNet *net, const double *uOpen, Rb_QnResult *res,
	Rb_Error *err)
{
    int nc = net->nc, nk = net->nk, c, k, j, np = 0;
    double states = RbQnStates(net);
    double *Q, *R, *X, *P;
    long *stride, *count, idx, nstates;
    int *pOff = Rb_AllocArray(nc + 1, sizeof(int));

    for (c = 0; c < nc; c++) {
	pOff[c] = np;
	np += Servers(net, c) > 1 ? Servers(net, c) : 0;
    }
    if (states * (nc + np) > EXACT_HARD_LIMIT) {
	free(pOff);
	Rb_SetError(err, "RUBICON OBSERVER TOOBIG", "exact MVA would visit "
		"%.0f population vectors; use -method approx", states);
	return TCL_ERROR;
    }
    nstates = (long) states;
    Q = Rb_AllocArray((size_t) nstates * nc, sizeof(double));
    P = Rb_AllocArray((size_t) nstates * np + 1, sizeof(double));
    R = Rb_AllocArray((size_t) nk * nc, sizeof(double));
    X = Rb_AllocArray(nk, sizeof(double));
    stride = Rb_AllocArray(nk, sizeof(long));
    count = Rb_AllocArray(nk, sizeof(long));
    idx = 1;
    for (k = 0; k < nk; k++) {
	stride[k] = idx;
	if (!net->isOpen[k]) {
	    idx *= (long) floor(net->population[k]) + 1;
	}
    }
    for (c = 0; c < nc; c++) {
	if (Servers(net, c) > 1) {
	    P[pOff[c]] = 1;		/* The empty network. */
	}
    }
    for (idx = 1; idx < nstates; idx++) {
	double *p = P + idx * np;

	/* Advance the population vector (mixed radix over closed k). */
	for (k = 0; k < nk; k++) {
	    if (net->isOpen[k]) {
		continue;
	    }
	    if (count[k] < (long) floor(net->population[k])) {
		count[k]++;
		break;
	    }
	    count[k] = 0;
	}
	for (c = 0; c < nc; c++) {
	    Q[idx * nc + c] = 0;
	}
	for (k = 0; k < nk; k++) {
	    double rsum = 0;
	    long prev = idx - stride[k];

	    X[k] = 0;
	    if (net->isOpen[k] || count[k] == 0) {
		continue;
	    }
	    for (c = 0; c < nc; c++) {
		double d = ClosedDemand(net, uOpen, k, c);
		int m = Servers(net, c);

		if (net->isDelay[c]) {
		    R[k * nc + c] = d;
		} else if (m == 1) {
		    R[k * nc + c] = d * (1 + Q[prev * nc + c]);
		} else {
		    R[k * nc + c] = d / m * (1 + Q[prev * nc + c]
			    + MultiServerTail(m, P + prev * np + pOff[c]));
		}
		rsum += R[k * nc + c];
	    }
	    X[k] = count[k] / (net->think[k] + rsum);
	    for (c = 0; c < nc; c++) {
		Q[idx * nc + c] += X[k] * R[k * nc + c];
	    }
	}
	for (c = 0; c < nc; c++) {
	    int m = Servers(net, c);
	    double u = 0;

	    if (m == 1) {
		continue;
	    }
	    for (k = 0; k < nk; k++) {
		u += X[k] * ClosedDemand(net, uOpen, k, c);
	    }
	    for (j = 1; j < m; j++) {
		double s = 0;

		for (k = 0; k < nk; k++) {
		    if (!net->isOpen[k] && count[k] > 0) {
			s += ClosedDemand(net, uOpen, k, c) * X[k]
				* P[(idx - stride[k]) * np + pOff[c] + j - 1];
		    }
		}
		p[pOff[c] + j] = s / j;
	    }
	    MultiServerP0(m, u, p + pOff[c]);
	}
    }
    for (k = 0; k < nk; k++) {
	if (net->isOpen[k]) {
	    continue;
	}
	res->throughput[k] = X[k];
	for (c = 0; c < nc; c++) {
	    res->residence[k * nc + c] = (nstates > 1 && count[k] > 0)
		    ? R[k * nc + c] : ClosedDemand(net, uOpen, k, c);
	}
    }
    free(Q);
    free(P);
    free(R);
    free(X);
    free(stride);
    free(count);
    free(pOff);
    return TCL_OK;
}

/*
 * ApproxMva --
 *	Bard-Schweitzer approximate MVA: the queue a class-k arrival sees
 *	is the full-population queue less 1/N_k of its own class's share,
 *	iterated to a fixed point (relative change below tolerance).  At
 *	a multi-server center the marginal probabilities an arrival sees
 *	are taken as those at the full population (Bolch et al. 1998,
 *	section 8.2.2), p(j) = p(0) u^j / j! for j < m with u the offered
 *	load of the last iterate.
 */
static int
ApproxMva(const Rb_QnNet *net, const double *uOpen, double tolerance,
	Rb_QnResult *res, Rb_Error *err)
{
    int nc = net->nc, nk = net->nk, c, k, j, iter, nq = 0, mmax = 1;
    double *Q = Rb_AllocArray((size_t) nk * nc, sizeof(double));
    double *Qc = Rb_AllocArray(nc, sizeof(double));
    double *tail = Rb_AllocArray(nc, sizeof(double));
    double *R = res->residence, *p;

    for (c = 0; c < nc; c++) {
	mmax = Servers(net, c) > mmax ? Servers(net, c) : mmax;
    }
    p = Rb_AllocArray(mmax, sizeof(double));

    for (c = 0; c < nc; c++) {
	nq += !net->isDelay[c];
    }
    for (k = 0; k < nk; k++) {
	for (c = 0; c < nc; c++) {
	    if (!net->isOpen[k] && !net->isDelay[c] && nq > 0) {
		Q[k * nc + c] = net->population[k] / nq;
	    }
	}
    }
    for (iter = 1; iter <= APPROX_MAX_ITER; iter++) {
	double change = 0;

	for (c = 0; c < nc; c++) {
	    int m = Servers(net, c);

	    Qc[c] = 0;
	    for (k = 0; k < nk; k++) {
		Qc[c] += Q[k * nc + c];
	    }
	    if (m > 1) {
		double u = 0, sum = 1, term = 1;

		for (k = 0; k < nk; k++) {
		    if (!net->isOpen[k]) {
			u += res->throughput[k]
				* ClosedDemand(net, uOpen, k, c);
		    }
		}
		/* p(j) = p(0) u^j / j!, p(0) from the busy-server balance. */
		for (j = 1; j < m; j++) {
		    term *= u / j;
		    sum += (double) (m - j) / m * term;
		}
		p[0] = fmax(0, (1 - u / m) / sum);
		for (j = 1; j < m; j++) {
		    p[j] = p[j - 1] * u / j;
		}
		tail[c] = MultiServerTail(m, p);
	    }
	}
	for (k = 0; k < nk; k++) {
	    double n = net->population[k], rsum = 0;

	    if (net->isOpen[k]) {
		continue;
	    }
	    for (c = 0; c < nc; c++) {
		double d = ClosedDemand(net, uOpen, k, c);
		double seen = n > 0 ? Qc[c] - Q[k * nc + c] / n : Qc[c];
		int m = Servers(net, c);

		R[k * nc + c] = net->isDelay[c] ? d
			: d / m * (1 + seen + (m > 1 ? tail[c] : 0));
		rsum += R[k * nc + c];
	    }
	    res->throughput[k] = n / (net->think[k] + rsum);
	    for (c = 0; c < nc; c++) {
		double q = res->throughput[k] * R[k * nc + c];
		double rel = fabs(q - Q[k * nc + c]) / (q > 1e-12 ? q : 1e-12);

		if (rel > change) {
		    change = rel;
		}
		Q[k * nc + c] = q;
	    }
	}
	if (change < tolerance) {
	    break;
	}
    }
    res->iterations = iter;
    free(Q);
    free(Qc);
    free(tail);
    free(p);
    if (iter > APPROX_MAX_ITER) {
	Rb_SetError(err, "RUBICON OBSERVER CONVERGE", "approximate MVA did "
		"not converge in %d iterations", APPROX_MAX_ITER);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * RbQnSolve --
 *	Solves net: closed classes by exact or approximate MVA (AUTO picks
 *	exact while the state space is small), open classes by residence
 *	times D (1 + Q_closed) / (1 - U_open), or at an m-server center
 *	D (1 + C(m, U) / (m - U)).  Utilization is per server.  Fills res
 *	(freed with RbQnResultFree even on error); TCL_ERROR with err set
 *	when an open load saturates a center, open and closed workloads
 *	share a multi-server center, or the solver cannot proceed.
 */
int
RbQnSolve(const Rb_QnNet *net, Rb_QnMethod method, double tolerance,
	Rb_QnResult *res, Rb_Error *err)
{
    int nc = net->nc, nk = net->nk, c, k, rc;
    double *uOpen = Rb_AllocArray(nc ? nc : 1, sizeof(double));
    double *qClosed = Rb_AllocArray(nc ? nc : 1, sizeof(double));

    memset(res, 0, sizeof(*res));
    res->nc = nc;
    res->nk = nk;
    res->throughput = Rb_AllocArray(nk ? nk : 1, sizeof(double));
    res->response = Rb_AllocArray(nk ? nk : 1, sizeof(double));
    res->residence = Rb_AllocArray((size_t) nk * nc + 1, sizeof(double));
    res->queue = Rb_AllocArray((size_t) nk * nc + 1, sizeof(double));
    res->utilization = Rb_AllocArray(nc ? nc : 1, sizeof(double));
    res->bottleneck = -1;
    if (tolerance <= 0) {
	tolerance = 1e-10;
    }
    rc = OpenLoad(net, uOpen, err);
    if (rc == TCL_OK) {
	rc = CheckMixedMultiServer(net, err);
    }
    for (k = 0; k < nk && rc == TCL_OK; k++) {
	double d = net->isOpen[k] ? 1 : net->think[k];

	for (c = 0; c < nc; c++) {
	    d += RB_QN_DEMAND(net, k, c);
	}
	if (!(d > 0)) {
	    char buf[32];

	    Rb_SetError(err, "RUBICON OBSERVER VALUE", "closed workload %s "
		    "has neither demand nor think time",
		    WorkloadName(net, k, buf));
	    rc = TCL_ERROR;
	}
    }
    if (rc == TCL_OK) {
	if (method == RB_QN_AUTO) {
	    method = RbQnStates(net) * nc <= EXACT_AUTO_LIMIT
		    ? RB_QN_EXACT : RB_QN_APPROX;
	}
	res->method = method;
	rc = method == RB_QN_EXACT ? ExactMva(net, uOpen, res, err)
		: ApproxMva(net, uOpen, tolerance, res, err);
    }
    if (rc != TCL_OK) {
	free(uOpen);
	free(qClosed);
	return rc;
    }
    for (k = 0; k < nk; k++) {
	if (!net->isOpen[k]) {
	    for (c = 0; c < nc; c++) {
		qClosed[c] += res->throughput[k] * res->residence[k * nc + c];
	    }
	}
    }
    for (k = 0; k < nk; k++) {
	if (!net->isOpen[k]) {
	    continue;
	}
	res->throughput[k] = net->lambda[k];
	for (c = 0; c < nc; c++) {
	    double d = RB_QN_DEMAND(net, k, c);
	    int m = Servers(net, c);

	    res->residence[k * nc + c] = net->isDelay[c] ? d
		    : m > 1 ? d * (1 + ErlangC(m, uOpen[c]) / (m - uOpen[c]))
		    : d * (1 + qClosed[c]) / (1 - uOpen[c]);
	}
    }
    for (k = 0; k < nk; k++) {
	res->response[k] = 0;
	for (c = 0; c < nc; c++) {
	    res->response[k] += res->residence[k * nc + c];
	    res->queue[k * nc + c] = res->throughput[k]
		    * res->residence[k * nc + c];
	    res->utilization[c] += res->throughput[k] * RB_QN_DEMAND(net, k, c)
		    / Servers(net, c);
	}
    }
    for (c = 0; c < nc; c++) {
	if (!net->isDelay[c] && (res->bottleneck < 0
		|| res->utilization[c] > res->utilization[res->bottleneck])) {
	    res->bottleneck = c;
	}
    }
    free(uOpen);
    free(qClosed);
    return TCL_OK;
}

/*
 * RbQnResultFree --
 *	Frees the arrays of a result.
 */
void
RbQnResultFree(Rb_QnResult *res)
{
    free(res->throughput);
    free(res->response);
    free(res->residence);
    free(res->queue);
    free(res->utilization);
    memset(res, 0, sizeof(*res));
}

/*
 * BalancedWhyNot --
 *	Says in b->whyNot, unless a multi-server center already has, why
 *	workload k has no balanced job bounds: they are defined (Lazowska
 *	et al. 1984, ch. 5) for one closed class with some demand at
 *	single-server queueing centers (and delay centers).
 */
static void
BalancedWhyNot(const Rb_QnNet *net, int k, int used, Rb_QnBounds *b)
{
    char nbuf[32];

    if (b->whyNot[0] != 0) {
	return;
    }
    if (net->nk > 1) {
	snprintf(b->whyNot, sizeof(b->whyNot), "the model has %d "
		"workloads: Lazowska et al. (1984, ch. 5) define balanced "
		"job bounds for a model of one class", net->nk);
    } else if (net->isOpen[k]) {
	snprintf(b->whyNot, sizeof(b->whyNot), "workload %s is open: "
		"balanced job bounds are for a closed class",
		WorkloadName(net, k, nbuf));
    } else if (net->population[k] < 1) {
	snprintf(b->whyNot, sizeof(b->whyNot), "workload %s has no jobs",
		WorkloadName(net, k, nbuf));
    } else if (used == 0) {
	snprintf(b->whyNot, sizeof(b->whyNot), "workload %s has no demand "
		"at a queueing center", WorkloadName(net, k, nbuf));
    }
}

/*
 * RbQnBoundsFor --
 *	Asymptotic bounds for workload k.  Closed: X <= min(N/(D+Z),
 *	1/Dmax), R >= max(D, N Dmax - Z), and, since an arrival finds at
 *	most Ntot - 1 others queued at each center, X >= N/(Ntot Dq + Dd
 *	+ Z) and R <= Ntot Dq + Dd, where Dq and Dd are its demands at
 *	queueing and delay centers and Ntot the whole closed population.
 *	Dmax is the largest demand per server.  Open: X = lambda below
 *	saturation 1/Dmax, R >= D.  Closed demands are stretched by any
 *	open load, as the solver does.
 *
 *	When k is the only workload, closed, and its queueing centers have
 *	one server each, also the balanced job bounds (Lazowska et al.
 *	1984, section 5.4, with think time): with D = Dq, Davg = D / K
 *	over the K centers it uses and Z' = Z + Dd (a delay center is
 *	think time to the bounds),
 *	    N / (D + Z' + (N-1) Dmax / (1 + Z'/(N D))) <= X
 *	    X <= min(1/Dmax, N / (D + Z' + (N-1) Davg / (1 + Z'/D)))
 *	    max(N Dmax - Z', D + (N-1) Davg / (1 + Z'/D)) <= R - Dd
 *	    R - Dd <= D + (N-1) Dmax / (1 + Z'/(N D)).
 */
void
RbQnBoundsFor(const Rb_QnNet *net, int k, Rb_QnBounds *b)
{
    int nc = net->nc, c, j, used = 0, multi = 0;
    double dq = 0, dd = 0, dmax = 0, ntot = 0, n, z;
    char nbuf[32];
    double *uOpen = Rb_AllocArray(nc ? nc : 1, sizeof(double));
    Rb_Error err;

    OpenLoad(net, uOpen, &err);
    b->bottleneck = -1;
    b->balanced = 0;
    b->whyNot[0] = 0;
    for (c = 0; c < nc; c++) {
	double d = net->isOpen[k] ? RB_QN_DEMAND(net, k, c)
		: uOpen[c] < 1 ? ClosedDemand(net, uOpen, k, c) : INFINITY;

	if (net->isDelay[c]) {
	    dd += d;
	} else {
	    dq += d;
	    used += d > 0;
	    if (Servers(net, c) > 1 && d > 0 && !multi) {
		multi = 1;
		snprintf(b->whyNot, sizeof(b->whyNot), "center %s has %d "
			"servers: Lazowska et al. (1984, ch. 5) define "
			"balanced job bounds for single-server queueing and "
			"delay centers only", CenterName(net, c, nbuf),
			Servers(net, c));
	    }
	    if (b->bottleneck < 0 || d / Servers(net, c) > dmax) {
		dmax = d / Servers(net, c);
		b->bottleneck = c;
	    }
	}
    }
    free(uOpen);
    b->lambdaSat = dmax > 0 ? 1 / dmax : INFINITY;
    BalancedWhyNot(net, k, used, b);
    if (net->isOpen[k]) {
	b->xUpper = b->xLower = net->lambda[k];
	b->rLower = dq + dd;
	b->rUpper = INFINITY;
	b->nStar = 0;
	return;
    }
    for (j = 0; j < net->nk; j++) {
	if (!net->isOpen[j]) {
	    ntot += net->population[j];
	}
    }
    n = net->population[k];
    z = net->think[k];
    b->xUpper = n / (dq + dd + z);
    if (dmax > 0 && b->lambdaSat < b->xUpper) {
	b->xUpper = b->lambdaSat;
    }
    b->xLower = n > 0 ? n / (ntot * dq + dd + z) : 0;
    b->rLower = fmax(dq + dd, n * dmax - z);
    b->rUpper = fmax(ntot, 1) * dq + dd;
    b->nStar = dmax > 0 ? (dq + dd + z) / dmax : INFINITY;
    if (b->whyNot[0] == 0) {
	double zz = z + dd, davg = dq / used;
	double upperR = dq + (n - 1) * dmax / (1 + zz / (n * dq));
	double lowerR = dq + (n - 1) * davg / (1 + zz / dq);

	b->balanced = 1;
	b->bjbXLower = n / (upperR + zz);
	b->bjbXUpper = fmin(1 / dmax, n / (lowerR + zz));
	b->bjbRLower = fmax(n * dmax - zz, lowerR) + dd;
	b->bjbRUpper = upperR + dd;
    }
}
