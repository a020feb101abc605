/*
 * disk.c --
 *
 *	The Observer's disk model (Thereska 2007, section 5.2.2).  Three
 *	uses of one request sequence {client op block ?blocks?}:
 *	  observer::disk MISSES      a simulation of the head: sequential
 *				     and random reads and writes charged
 *				     apart, runs broken when workloads
 *				     interleave or round-robin quanta end
 *	  observer::disk demand      equation (5.3), the service time of
 *				     each request from the runs of its
 *				     client, and with quanta equation (5.4),
 *				     each request's and client's demand
 *	  observer::disk quanta      (5.4) inverted: the quanta that give
 *				     each client a target demand
 *	In every use a RUN is requests of one operation, each starting
 *	where the one before ended (reads or writes respectively); with
 *	-prefetch P, the prefetching policy's reading, a read starting up
 *	to P blocks past the previous read's end continues the read RUN
 *	(the disk read those blocks ahead in the same stream).
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

/*
 * The scan for the quanta's total in RbDiskQuantaSolve: points from
 * SOLVE_LOW of the largest possible total up to it, geometric, beside
 * the totals where a client's roots meet or leave (0, S).
 */
#define SOLVE_GRID 20000
#define SOLVE_LOW 1e-12

/*
 * Continues --
 *	Whether an access of op at block continues the RUN of the last
 *	access (of lastOp, ended at end): the same operation starting
 *	where it ended, or for a read up to p->prefetch blocks past that.
 */
static int
Continues(const Rb_DiskParams *p, int op, int64_t block, int lastOp,
	int64_t end)
{
    if (end == RB_ABSENT || lastOp != op || block < end) {
	return 0;
    }
    return block == end || (op != RB_OP_WRITE
	    && (double)(block - end) <= p->prefetch);
}

/*
 * Charge --
 *	Charges one access against the head: sequential when it is of the
 *	operation of the last access served and starts where that ended.
 */
static double
Charge(const Rb_DiskParams *p, int op, int64_t block, int64_t len,
	int64_t *head, int *headOp, Rb_DiskCharge *c)
{
    int seq = Continues(p, op, block, *headOp, *head);
    double t;

    if (op == RB_OP_WRITE) {
	t = seq ? p->seqWrite : p->randWrite;
	seq ? c->seqWrites++ : c->randWrites++;
    } else {
	t = seq ? p->seqRead : p->randRead;
	seq ? c->seqReads++ : c->randReads++;
    }
    c->busy += t;
    *head = block + len;
    *headOp = op;
    return t;
}

/*
 * RbDiskModelCharge --
 *	Serves n accesses: with no quantum, in the order given (so
 *	interleaved workloads break each other's runs); with a quantum, in
 *	round-robin turns, each workload served from its own queue for up
 *	to quantum seconds.  An access is sequential when it is of the
 *	operation of the last one served and starts where that ended.
 *	Returns the busy time.
 */
double
RbDiskModelCharge(const Rb_DiskParams *p, int n, const int *workload,
	const int *op, const int64_t *block, const int64_t *len, int nw,
	Rb_DiskCharge *charge)
{
    int64_t head = RB_ABSENT;
    int headOp = -1;
    double busy = 0;
    int i, w;

    memset(charge, 0, nw * sizeof(Rb_DiskCharge));
    if (p->quantum <= 0) {
	for (i = 0; i < n; i++) {
	    busy += Charge(p, op[i], block[i], len[i], &head, &headOp,
		    &charge[workload[i]]);
	}
	return busy;
    }
    {
	int *next = Rb_AllocArray(nw, sizeof(int)), left = n;

	while (left > 0) {
	    for (w = 0; w < nw; w++) {
		double turn = 0;

		while (turn < p->quantum) {
		    while (next[w] < n && workload[next[w]] != w) {
			next[w]++;
		    }
		    if (next[w] >= n) {
			break;
		    }
		    i = next[w]++;
		    turn += Charge(p, op[i], block[i], len[i], &head, &headOp,
			    &charge[w]);
		    left--;
		}
		busy += turn;
	    }
	}
	free(next);
    }
    return busy;
}

/*
 * RbDiskRequestService --
 *	Equation (5.3): the service time of each of n requests.  Within
 *	its client's quantum a request is served after its client's
 *	previous request, so it is in a RUN, and not its first, when that
 *	request is of the same operation and ended where it starts: then
 *	SEQ of its operation, else (a RUN's first, or in no RUN) RND of
 *	its operation.  Sets service[i], and sequential[i] to 1 or 0.
 */
void
RbDiskRequestService(const Rb_DiskParams *p, int n, const int *client,
	const int *op, const int64_t *block, const int64_t *len, int nc,
	double *service, int *sequential)
{
    int64_t *end = Rb_AllocArray(nc, sizeof(int64_t));
    int *lastOp = Rb_AllocArray(nc, sizeof(int));
    int i, c;

    for (c = 0; c < nc; c++) {
	end[c] = RB_ABSENT;
	lastOp[c] = -1;
    }
    for (i = 0; i < n; i++) {
	c = client[i];
	sequential[i] = Continues(p, op[i], block[i], lastOp[c], end[c]);
	if (op[i] == RB_OP_WRITE) {
	    service[i] = sequential[i] ? p->seqWrite : p->randWrite;
	} else {
	    service[i] = sequential[i] ? p->seqRead : p->randRead;
	}
	end[c] = block[i] + len[i];
	lastOp[c] = op[i];
    }
    free(end);
    free(lastOp);
}

/*
 * RbDiskQuantaDemand --
 *	Equation (5.4) for a request of service time D' (5.3) whose client
 *	has quantum q of a round of total quanta: (q / total) D' +
 *	((total - q) / total) ((total - q) / 2), as printed.
 */
double
RbDiskQuantaDemand(double service, double quantum, double total)
{
    double others = total - quantum;

    return quantum / total * service + others / total * others / 2;
}

/*
 * CompareDouble --
 *	qsort order of doubles.
 */
static int
CompareDouble(const void *p, const void *r)
{
    double a = *(const double *) p, b = *(const double *) r;

    return (a > b) - (a < b);
}

/*
 * QuantaAt --
 *	For a total S of the quanta, each client's quantum that gives its
 *	target demand by (5.4), the root of Q^2/2 - (S - d) Q + S^2/2 - T S
 *	chosen by bit c of branch (set: the larger root).  Fills q[] and
 *	returns 1 if every quantum is in (0, S), else 0.
 */
static int
QuantaAt(int nc, const double *service, const double *target,
	unsigned branch, double total, double *q)
{
    int c;

    for (c = 0; c < nc; c++) {
	double d = service[c];
	double disc = d * d - 2 * total * (d - target[c]);

	if (disc < 0 && disc > -1e-12 * d * d) {
	    disc = 0;		/* rounding at the total where roots meet */
	}
	if (disc < 0) {
	    return 0;
	}
	q[c] = total - d + ((branch >> c & 1) ? sqrt(disc) : -sqrt(disc));
	if (!(q[c] > 0 && q[c] < total)) {
	    return 0;
	}
    }
    return 1;
}

/*
 * Excess --
 *	The sum of the quanta QuantaAt finds for total S, less S; sets
 *	*valid to whether every quantum is in (0, S).
 */
static double
Excess(int nc, const double *service, const double *target,
	unsigned branch, double total, double *q, int *valid)
{
    double sum = 0;
    int c;

    *valid = QuantaAt(nc, service, target, branch, total, q);
    for (c = 0; *valid && c < nc; c++) {
	sum += q[c];
    }
    return sum - total;
}

/*
 * Meets --
 *	Whether quanta q give every client its target demand by (5.4), to
 *	a relative 1e-9.
 */
static int
Meets(int nc, const double *service, const double *target, const double *q)
{
    double total = 0;
    int c;

    for (c = 0; c < nc; c++) {
	total += q[c];
    }
    for (c = 0; c < nc; c++) {
	double got = RbDiskQuantaDemand(service[c], q[c], total);
	double scale = fmax(fmax(target[c], service[c]), total);

	if (!(fabs(got - target[c]) <= 1e-9 * scale)) {
	    return 0;
	}
    }
    return 1;
}

/*
 * AddSolution --
 *	Appends quanta q to the nfound solutions in out (room for max)
 *	unless one of them already has them, to a relative 1e-6.
 */
static void
AddSolution(int nc, const double *q, double *out, int *nfound, int max)
{
    int s, c;

    for (s = 0; s < *nfound; s++) {
	for (c = 0; c < nc; c++) {
	    if (fabs(out[s * nc + c] - q[c]) > 1e-6 * fmax(q[c], 1e-300)) {
		break;
	    }
	}
	if (c == nc) {
	    return;
	}
    }
    if (*nfound < max) {
	memcpy(out + *nfound * nc, q, nc * sizeof(double));
	(*nfound)++;
    }
}

/*
 * SortByTotal --
 *	Orders n solutions (rows of nc quanta in out) by their total, by
 *	insertion (there are at most a few).
 */
static void
SortByTotal(int nc, double *out, int n)
{
    double *row = Rb_AllocArray(nc, sizeof(double));
    int i, j, c;

    for (i = 1; i < n; i++) {
	double total = 0;

	memcpy(row, out + i * nc, nc * sizeof(double));
	for (c = 0; c < nc; c++) {
	    total += row[c];
	}
	for (j = i; j > 0; j--) {
	    double prev = 0;

	    for (c = 0; c < nc; c++) {
		prev += out[(j - 1) * nc + c];
	    }
	    if (prev <= total) {
		break;
	    }
	    memcpy(out + j * nc, out + (j - 1) * nc, nc * sizeof(double));
	}
	memcpy(out + j * nc, row, nc * sizeof(double));
    }
    free(row);
}

/*
 * RbDiskQuantaSolve --
 *	Inverts (5.4) for nc clients (2 to RB_DISK_SOLVE_MAX): given each
 *	client's mean service time service[c] (5.3) and target demand
 *	target[c], the positive quanta that give every target.  With the
 *	total S of the quanta fixed, each client's equation is a quadratic
 *	in its quantum, so the quanta are found on a scan of S: for every
 *	choice of root per client, where the roots' sum crosses S, by
 *	bisection, each kept only if (5.4) gives the targets back.  S is
 *	at most 2 (nc / (nc - 1))^2 max(target): the client with the
 *	largest share of the others' time, at least (nc - 1) / nc, waits
 *	that share squared times S / 2.  The scan takes SOLVE_GRID points
 *	from SOLVE_LOW of that bound up to it and the totals where a
 *	client's two roots meet (d^2 / 2(d - T)) or one reaches 0 (2T);
 *	a sum that touches S without crossing it, or crosses it twice,
 *	between two points is not found.
 * Results: the number of solutions (at most max), in out as rows of nc
 *	quanta, by increasing total.
 */
int
RbDiskQuantaSolve(int nc, const double *service, const double *target,
	double *out, int max)
{
    int npts = SOLVE_GRID + 1 + 6 * nc, ngrid = 0, nfound = 0, c, g;
    double hiT = 0, smax, *grid = Rb_AllocArray(npts, sizeof(double));
    double *q = Rb_AllocArray(nc, sizeof(double));
    unsigned branch;

    for (c = 0; c < nc; c++) {
	hiT = fmax(hiT, target[c]);
    }
    smax = 2 * hiT * ((double) nc / (nc - 1)) * ((double) nc / (nc - 1));
    for (g = 0; g <= SOLVE_GRID; g++) {
	grid[ngrid++] = smax * pow(SOLVE_LOW, 1 - (double) g / SOLVE_GRID);
    }
    for (c = 0; c < nc; c++) {
	double d = service[c], at[2];
	int k, e;

	at[0] = 2 * target[c];
	at[1] = d > target[c] ? d * d / (2 * (d - target[c])) : -1;
	for (k = 0; k < 2; k++) {
	    for (e = -1; e <= 1; e++) {
		double x = at[k] * (1 + e * 1e-9);

		if (x > grid[0] && x < smax) {
		    grid[ngrid++] = x;
		}
	    }
	}
    }
    qsort(grid, ngrid, sizeof(double), CompareDouble);
    for (branch = 0; smax > 0 && branch < (1u << nc); branch++) {
	double prevS = 0, prevH = 0;
	int prevValid = 0;

	for (g = 0; g < ngrid; g++) {
	    double s = grid[g];
	    int valid, it;
	    double h = Excess(nc, service, target, branch, s, q, &valid);

	    if (valid && h == 0 && Meets(nc, service, target, q)) {
		AddSolution(nc, q, out, &nfound, max);
	    } else if (valid && prevValid && (h < 0) != (prevH < 0)) {
		double lo = prevS, hi = s, hlo = prevH;

		for (it = 0; it < 200 && hi - lo > 1e-15 * hi; it++) {
		    double mid = (lo + hi) / 2, hm;
		    int ok;

		    hm = Excess(nc, service, target, branch, mid, q, &ok);
		    if (!ok) {
			break;
		    }
		    if ((hm < 0) == (hlo < 0)) {
			lo = mid;
			hlo = hm;
		    } else {
			hi = mid;
		    }
		}
		Excess(nc, service, target, branch, (lo + hi) / 2, q, &valid);
		if (valid && Meets(nc, service, target, q)) {
		    AddSolution(nc, q, out, &nfound, max);
		}
	    }
	    prevS = s;
	    prevH = h;
	    prevValid = valid;
	}
    }
    free(q);
    free(grid);
    SortByTotal(nc, out, nfound);
    return nfound;
}

/*
 * Requests --
 *	A request sequence parsed: per request its client (an index into
 *	names, numbered as first seen), operation, first block and length
 *	in blocks.
 */
typedef struct Requests {
    int n, nc;
    int *client, *op;
    int64_t *block, *len;
    Tcl_Obj *names;		/* List of the clients' names */
} Requests;

/*
 * FreeRequests --
 *	Frees what ParseRequests made.
 */
static void
FreeRequests(Requests *q)
{
    free(q->client);
    free(q->op);
    free(q->block);
    free(q->len);
    if (q->names) {
	Tcl_DecrRefCount(q->names);
    }
}

/*
 * ParseRequests --
 *	Parses a list of {client block}, {client op block} or {client op
 *	block blocks} (op read or write, default read; blocks at least 1,
 *	default 1).  Returns TCL_ERROR naming the bad request.
 */
static int
ParseRequests(Tcl_Interp *interp, Tcl_Obj *list, Requests *q)
{
    static const char *const ops[] = {"read", "write", NULL};
    Tcl_Obj **acc;
    Tcl_HashTable ids;
    int i, rc = TCL_ERROR;

    memset(q, 0, sizeof(*q));
    if (Tcl_ListObjGetElements(interp, list, &q->n, &acc) != TCL_OK) {
	return TCL_ERROR;
    }
    q->client = Rb_AllocArray(q->n + 1, sizeof(int));
    q->op = Rb_AllocArray(q->n + 1, sizeof(int));
    q->block = Rb_AllocArray(q->n + 1, sizeof(int64_t));
    q->len = Rb_AllocArray(q->n + 1, sizeof(int64_t));
    q->names = Tcl_NewObj();
    Tcl_IncrRefCount(q->names);
    Tcl_InitHashTable(&ids, TCL_STRING_KEYS);
    for (i = 0; i < q->n; i++) {
	Tcl_Obj **f;
	int nf, isNew;
	Tcl_WideInt b, len = 1;
	Tcl_HashEntry *e;

	if (Tcl_ListObjGetElements(interp, acc[i], &nf, &f) != TCL_OK) {
	    goto done;
	}
	if (nf < 2 || nf > 4) {
	    Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE", "request %d "
		    "is \"%s\": expected {client ?op? block} or {client op "
		    "block blocks}", i + 1, Tcl_GetString(acc[i]));
	    goto done;
	}
	if ((nf >= 3 && Tcl_GetIndexFromObj(interp, f[1], ops, "op", 0,
		&q->op[i]) != TCL_OK)
		|| Tcl_GetWideIntFromObj(interp, f[nf == 2 ? 1 : 2], &b)
		!= TCL_OK
		|| (nf == 4 && Tcl_GetWideIntFromObj(interp, f[3], &len)
		!= TCL_OK)) {
	    Tcl_Obj *why = Tcl_GetObjResult(interp);

	    Tcl_IncrRefCount(why);
	    Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE", "request %d "
		    "is \"%s\": %s", i + 1, Tcl_GetString(acc[i]),
		    Tcl_GetString(why));
	    Tcl_DecrRefCount(why);
	    goto done;
	}
	if (len < 1 || b < 0 || b > INT64_MAX - len) {
	    Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE", "request %d "
		    "is \"%s\": the block must be non-negative and the length "
		    "at least 1", i + 1, Tcl_GetString(acc[i]));
	    goto done;
	}
	q->block[i] = b;
	q->len[i] = len;
	e = Tcl_CreateHashEntry(&ids, Tcl_GetString(f[0]), &isNew);
	if (isNew) {
	    Tcl_SetHashValue(e, (ClientData) (intptr_t) (ids.numEntries - 1));
	    Tcl_ListObjAppendElement(NULL, q->names, f[0]);
	}
	q->client[i] = (int) (intptr_t) Tcl_GetHashValue(e);
    }
    q->nc = ids.numEntries;
    rc = TCL_OK;
  done:
    Tcl_DeleteHashTable(&ids);
    return rc;
}

/*
 * ClientValues --
 *	Reads a dict {client value ...} (the option named opt) into v[]
 *	by the clients of q: every client once, no other, each value
 *	non-negative (positive when positive is set).
 */
static int
ClientValues(Tcl_Interp *interp, const char *opt, Tcl_Obj *dict,
	const Requests *q, int positive, double *v)
{
    Tcl_Obj **kv;
    int nkv, i, c;

    if (Tcl_ListObjGetElements(interp, dict, &nkv, &kv) != TCL_OK) {
	return TCL_ERROR;
    }
    if (nkv % 2) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"%s must be a list of client value pairs", opt);
    }
    for (c = 0; c < q->nc; c++) {
	v[c] = -1;
    }
    for (i = 0; i < nkv; i += 2) {
	const char *name = Tcl_GetString(kv[i]);
	double x;

	for (c = 0; c < q->nc; c++) {
	    Tcl_Obj *e;

	    Tcl_ListObjIndex(NULL, q->names, c, &e);
	    if (strcmp(Tcl_GetString(e), name) == 0) {
		break;
	    }
	}
	if (c == q->nc) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER WORKLOAD",
		    "%s names client \"%s\", which has no request", opt, name);
	}
	if (Tcl_GetDoubleFromObj(interp, kv[i + 1], &x) != TCL_OK) {
	    return TCL_ERROR;
	}
	if (!(positive ? x > 0 : x >= 0) || isinf(x)) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		    "%s of client \"%s\" must be %s", opt, name,
		    positive ? "positive" : "non-negative");
	}
	v[c] = x;
    }
    for (c = 0; c < q->nc; c++) {
	if (v[c] < 0) {
	    Tcl_Obj *e;

	    Tcl_ListObjIndex(NULL, q->names, c, &e);
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "%s gives no value for client \"%s\"", opt,
		    Tcl_GetString(e));
	}
    }
    return TCL_OK;
}

/*
 * ParseParams --
 *	Reads the options from objv[first] on: the four service times
 *	into p, and -quanta or -target (named by extra, NULL for none)
 *	into *extraObj.
 */
static int
ParseParams(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[], int first,
	Rb_DiskParams *p, const char *extra, Tcl_Obj **extraObj)
{
    static const char *const opts[] = {"-seqread", "-seqwrite", "-randread",
	"-randwrite", "-quantum", "-quanta", "-target", "-prefetch", NULL};
    double *field[] = {&p->seqRead, &p->seqWrite, &p->randRead,
	&p->randWrite, &p->quantum};
    Rb_DiskParams given = *p;
    int i, idx;

    for (i = first; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (idx == 7) {
	    double v;

	    if (Tcl_GetDoubleFromObj(interp, objv[i + 1], &v) != TCL_OK) {
		*p = given;
		return TCL_ERROR;
	    }
	    if (!(v >= 0) || isinf(v)) {
		*p = given;
		return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
			"-prefetch must be non-negative blocks");
	    }
	    p->prefetch = v;
	    continue;
	}
	if (idx >= 4 && !(extra ? strcmp(opts[idx], extra) == 0 : idx == 4)) {
	    *p = given;
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "%s does not apply here", opts[idx]);
	}
	if (idx >= 5) {
	    *extraObj = objv[i + 1];
	    continue;
	}
	if (Tcl_GetDoubleFromObj(interp, objv[i + 1], field[idx]) != TCL_OK) {
	    *p = given;
	    return TCL_ERROR;
	}
	if (!(*field[idx] >= 0) || isinf(*field[idx])) {
	    *p = given;
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		    "%s must be non-negative", opts[idx]);
	}
    }
    return TCL_OK;
}

/*
 * ClassName --
 *	The (5.3) case of a request: seqread, seqwrite, randread or
 *	randwrite.
 */
static const char *
ClassName(int op, int sequential)
{
    return op == RB_OP_WRITE ? (sequential ? "seqwrite" : "randwrite")
	    : (sequential ? "seqread" : "randread");
}

/*
 * DiskDemandCmd --
 *	observer::disk demand REQUESTS ?-quanta {client Q ...}? ?times?:
 *	see RbObsDiskCmd.
 */
static int
DiskDemandCmd(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
	Rb_DiskParams *p)
{
    Tcl_Obj *quantaObj = NULL, *reqs, *clients, *name;
    Requests q;
    double *service = NULL, *quanta = NULL, *sum = NULL, total = 0;
    int *seq = NULL, i, c, rc = TCL_ERROR;
    int64_t (*count)[4] = NULL;

    memset(&q, 0, sizeof(q));
    if (ParseParams(interp, objc, objv, 3, p, "-quanta", &quantaObj)
	    != TCL_OK || ParseRequests(interp, objv[2], &q) != TCL_OK) {
	if (q.names) {
	    FreeRequests(&q);
	}
	return TCL_ERROR;
    }
    service = Rb_AllocArray(q.n + 1, sizeof(double));
    seq = Rb_AllocArray(q.n + 1, sizeof(int));
    quanta = Rb_AllocArray(q.nc + 1, sizeof(double));
    sum = Rb_AllocArray(q.nc + 1, sizeof(double));
    count = Rb_AllocArray(q.nc + 1, sizeof(*count));
    if (quantaObj && ClientValues(interp, "-quanta", quantaObj, &q, 0,
	    quanta) != TCL_OK) {
	goto done;
    }
    for (c = 0; c < q.nc; c++) {
	total += quanta[c];
    }
    if (quantaObj && !(total > 0)) {
	Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"-quanta must not all be 0");
	goto done;
    }
    RbDiskRequestService(p, q.n, q.client, q.op, q.block, q.len, q.nc,
	    service, seq);
    reqs = Tcl_NewListObj(0, NULL);
    for (i = 0; i < q.n; i++) {
	Tcl_Obj *r = Tcl_NewListObj(0, NULL);

	c = q.client[i];
	Tcl_ListObjIndex(NULL, q.names, c, &name);
	Tcl_ListObjAppendElement(NULL, r, name);
	Tcl_ListObjAppendElement(NULL, r,
		Tcl_NewStringObj(ClassName(q.op[i], seq[i]), -1));
	Tcl_ListObjAppendElement(NULL, r, Tcl_NewDoubleObj(service[i]));
	if (quantaObj) {
	    Tcl_ListObjAppendElement(NULL, r, Tcl_NewDoubleObj(
		    RbDiskQuantaDemand(service[i], quanta[c], total)));
	}
	Tcl_ListObjAppendElement(NULL, reqs, r);
	sum[c] += service[i];
	count[c][(q.op[i] == RB_OP_WRITE) * 2 + !seq[i]]++;
    }
    clients = Tcl_NewDictObj();
    for (c = 0; c < q.nc; c++) {
	int64_t n = count[c][0] + count[c][1] + count[c][2] + count[c][3];
	double mean = sum[c] / n, others = total - quanta[c];
	Tcl_Obj *d = Tcl_ObjPrintf("requests %lld seqReads %lld randReads "
		"%lld seqWrites %lld randWrites %lld service %.17g",
		(long long) n, (long long) count[c][0],
		(long long) count[c][1], (long long) count[c][2],
		(long long) count[c][3], mean);

	if (quantaObj) {
	    Tcl_AppendPrintfToObj(d, " quantum %.17g share %.17g wait %.17g "
		    "demand %.17g", quanta[c], quanta[c] / total,
		    others / total * others / 2,
		    RbDiskQuantaDemand(mean, quanta[c], total));
	}
	Tcl_ListObjIndex(NULL, q.names, c, &name);
	Tcl_DictObjPut(NULL, clients, name, d);
    }
    {
	Tcl_Obj *out = Tcl_NewDictObj();

	Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("requests", -1), reqs);
	Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("clients", -1), clients);
	Tcl_SetObjResult(interp, out);
    }
    rc = TCL_OK;
  done:
    free(service);
    free(seq);
    free(quanta);
    free(sum);
    free(count);
    FreeRequests(&q);
    return rc;
}

/*
 * DiskQuantaCmd --
 *	observer::disk quanta REQUESTS -target {client T ...} ?times?: see
 *	RbObsDiskCmd.
 */
static int
DiskQuantaCmd(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
	Rb_DiskParams *p)
{
    enum { MAX_SOLUTIONS = 16 };
    Tcl_Obj *targetObj = NULL, *name, *sols, *svc = NULL, *out;
    Requests q;
    double *service = NULL, *mean = NULL, *target = NULL, *found = NULL;
    int *seq = NULL, i, c, s, nfound, rc = TCL_ERROR;
    int *n = NULL;

    memset(&q, 0, sizeof(q));
    if (ParseParams(interp, objc, objv, 3, p, "-target", &targetObj)
	    != TCL_OK || ParseRequests(interp, objv[2], &q) != TCL_OK) {
	if (q.names) {
	    FreeRequests(&q);
	}
	return TCL_ERROR;
    }
    if (targetObj == NULL) {
	FreeRequests(&q);
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"observer::disk quanta needs -target {client demand ...}");
    }
    if (q.nc == 0 || q.nc > RB_DISK_SOLVE_MAX) {
	FreeRequests(&q);
	return Rb_SetInterpError(interp, "RUBICON OBSERVER TOOBIG",
		"observer::disk quanta takes 1 to %d clients, not %d",
		RB_DISK_SOLVE_MAX, q.nc);
    }
    service = Rb_AllocArray(q.n, sizeof(double));
    seq = Rb_AllocArray(q.n, sizeof(int));
    mean = Rb_AllocArray(q.nc, sizeof(double));
    target = Rb_AllocArray(q.nc, sizeof(double));
    n = Rb_AllocArray(q.nc, sizeof(int));
    found = Rb_AllocArray((size_t) MAX_SOLUTIONS * q.nc, sizeof(double));
    if (ClientValues(interp, "-target", targetObj, &q, 1, target)
	    != TCL_OK) {
	goto done;
    }
    RbDiskRequestService(p, q.n, q.client, q.op, q.block, q.len, q.nc,
	    service, seq);
    for (i = 0; i < q.n; i++) {
	mean[q.client[i]] += service[i];
	n[q.client[i]]++;
    }
    svc = Tcl_NewDictObj();
    Tcl_IncrRefCount(svc);
    for (c = 0; c < q.nc; c++) {
	mean[c] /= n[c];
	Tcl_ListObjIndex(NULL, q.names, c, &name);
	Tcl_DictObjPut(NULL, svc, name, Tcl_NewDoubleObj(mean[c]));
    }
    if (q.nc == 1) {
	/* (5.4) with one client: D = D' whatever the quantum. */
	Tcl_ListObjIndex(NULL, q.names, 0, &name);
	if (!(fabs(target[0] - mean[0]) <= 1e-9 * fmax(target[0], mean[0]))) {
	    Rb_SetInterpError(interp, "RUBICON OBSERVER INFEASIBLE", "no "
		    "quantum gives client \"%s\" demand %.6g: alone, (5.4) "
		    "gives its service time %.6g whatever its quantum",
		    Tcl_GetString(name), target[0], mean[0]);
	    goto done;
	}
	out = Tcl_NewDictObj();
	Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("quanta", -1),
		Tcl_NewListObj(2, (Tcl_Obj *[]) {name,
		Tcl_NewStringObj("any", -1)}));
	Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("solutions", -1),
		Tcl_NewListObj(0, NULL));
	Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("service", -1), svc);
	Tcl_SetObjResult(interp, out);
	rc = TCL_OK;
	goto done;
    }
    nfound = RbDiskQuantaSolve(q.nc, mean, target, found, MAX_SOLUTIONS);
    if (nfound == 0) {
	double hiT = 0;

	for (c = 0; c < q.nc; c++) {
	    hiT = fmax(hiT, target[c]);
	}
	Rb_SetInterpError(interp, "RUBICON OBSERVER INFEASIBLE", "no quanta "
		"give these demands by (5.4): with mean service times {%s} "
		"(5.3), no positive quanta summing to at most %.6g do",
		Tcl_GetString(svc), 2 * hiT * q.nc * q.nc
		/ ((q.nc - 1.0) * (q.nc - 1)));
	goto done;
    }
    sols = Tcl_NewListObj(0, NULL);
    for (s = 0; s < nfound; s++) {
	Tcl_Obj *d = Tcl_NewDictObj();

	for (c = 0; c < q.nc; c++) {
	    Tcl_ListObjIndex(NULL, q.names, c, &name);
	    Tcl_DictObjPut(NULL, d, name,
		    Tcl_NewDoubleObj(found[s * q.nc + c]));
	}
	Tcl_ListObjAppendElement(NULL, sols, d);
    }
    out = Tcl_NewDictObj();
    Tcl_ListObjIndex(NULL, sols, 0, &name);
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("quanta", -1), name);
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("solutions", -1), sols);
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("service", -1), svc);
    Tcl_SetObjResult(interp, out);
    rc = TCL_OK;
  done:
    free(service);
    free(seq);
    free(mean);
    free(target);
    free(n);
    free(found);
    if (svc) {
	Tcl_DecrRefCount(svc);
    }
    FreeRequests(&q);
    return rc;
}

/*
 * RbObsDiskCmd --
 *	observer::disk MISSES ?-seqread S? ?-seqwrite S? ?-randread S?
 *	?-randwrite S? ?-quantum S?: the head simulation (see
 *	RbDiskModelCharge).  Returns {busy B workloads {W {seqReads ..
 *	randReads .. seqWrites .. randWrites .. busy .. demand ..}}} where
 *	demand is busy per access.
 *	observer::disk demand REQUESTS ?-quanta {client Q ...}? ?times?:
 *	(5.3) and, with quanta, (5.4).  Returns {requests {{client case
 *	D' ?D?} ...} clients {C {requests .. seqReads .. randReads ..
 *	seqWrites .. randWrites .. service D' ?quantum .. share .. wait ..
 *	demand D?}}}.
 *	observer::disk quanta REQUESTS -target {client T ...} ?times?: (5.4)
 *	inverted.  Returns {quanta {C Q ...} solutions {{C Q ...} ...}
 *	service {C D' ...}}, or the error RUBICON OBSERVER INFEASIBLE.
 */
int
RbObsDiskCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const forms[] = {"demand", "quanta", NULL};
    Rb_DiskParams p = {0.0001, 0.0001, 0.008, 0.009, 0, 0};
    Tcl_Obj *out, *wls, *name;
    Requests q;
    Rb_DiskCharge *ch;
    double busy;
    int form, i;

    if (objc >= 2 && Tcl_GetIndexFromObj(NULL, objv[1], forms, NULL,
	    TCL_EXACT, &form) == TCL_OK) {
	if (objc < 3 || objc % 2 == 0) {
	    Tcl_WrongNumArgs(interp, 2, objv, form == 0 ? "requests ?-quanta "
		    "{client q ...}? ?-seqread s? ?-seqwrite s? ?-randread s? "
		    "?-randwrite s? ?-prefetch blocks?" : "requests -target "
		    "{client demand ...} ?-seqread s? ?-seqwrite s? "
		    "?-randread s? ?-randwrite s? ?-prefetch blocks?");
	    return TCL_ERROR;
	}
	return form == 0 ? DiskDemandCmd(interp, objc, objv, &p)
		: DiskQuantaCmd(interp, objc, objv, &p);
    }
    if (objc < 2 || objc % 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "misses ?-seqread s? ?-seqwrite s? "
		"?-randread s? ?-randwrite s? ?-quantum s? ?-prefetch blocks?");
	return TCL_ERROR;
    }
    memset(&q, 0, sizeof(q));
    if (ParseParams(interp, objc, objv, 2, &p, NULL, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    if (ParseRequests(interp, objv[1], &q) != TCL_OK) {
	if (q.names) {
	    FreeRequests(&q);
	}
	return TCL_ERROR;
    }
    ch = Rb_AllocArray(q.nc + 1, sizeof(Rb_DiskCharge));
    busy = RbDiskModelCharge(&p, q.n, q.client, q.op, q.block, q.len, q.nc,
	    ch);
    out = Tcl_NewDictObj();
    wls = Tcl_NewDictObj();
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("busy", -1),
	    Tcl_NewDoubleObj(busy));
    for (i = 0; i < q.nc; i++) {
	int64_t cnt = ch[i].seqReads + ch[i].randReads + ch[i].seqWrites
		+ ch[i].randWrites;

	Tcl_ListObjIndex(NULL, q.names, i, &name);
	Tcl_DictObjPut(NULL, wls, name, Tcl_ObjPrintf("seqReads %lld "
		"randReads %lld seqWrites %lld randWrites %lld busy %.17g "
		"demand %.17g", (long long) ch[i].seqReads,
		(long long) ch[i].randReads, (long long) ch[i].seqWrites,
		(long long) ch[i].randWrites, ch[i].busy,
		cnt ? ch[i].busy / cnt : 0.0));
    }
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("workloads", -1), wls);
    Tcl_SetObjResult(interp, out);
    free(ch);
    FreeRequests(&q);
    return TCL_OK;
}
