/*
 * resources.c --
 *
 *	The Observer's per-resource models (Thereska 2007, ch. 5), which
 *	turn a workload's behaviour into demands for the queueing model:
 *	  observer::disk     service of a miss sequence: sequential and
 *			     random reads and writes charged apart, runs
 *			     broken when round-robin quanta interleave
 *			     workloads
 *	  observer::network  bytes and time per request of an m-of-n
 *			     encoding
 *	  observer::cpu      CPU demand interpolated in a measured table
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

/*
 * Charge --
 *	Charges one access against the head position *head.
 */
static double
Charge(const Rb_DiskParams *p, int op, int64_t block, int64_t *head,
	Rb_DiskCharge *c)
{
    int seq = *head != RB_ABSENT && block == *head + 1;
    double t;

    if (op == RB_OP_WRITE) {
	t = seq ? p->seqWrite : p->randWrite;
	seq ? c->seqWrites++ : c->randWrites++;
    } else {
	t = seq ? p->seqRead : p->randRead;
	seq ? c->seqReads++ : c->randReads++;
    }
    c->busy += t;
    *head = block;
    return t;
}

/*
 * RbDiskModelCharge --
 *	Serves n accesses: with no quantum, in the order given (so
 *	interleaved workloads break each other's runs); with a quantum, in
 *	round-robin turns, each workload served from its own queue for up
 *	to quantum seconds.  An access is sequential when its block
 *	follows the last one served.  Returns the busy time.
 */
double
RbDiskModelCharge(const Rb_DiskParams *p, int n, const int *workload,
	const int *op, const int64_t *block, int nw, Rb_DiskCharge *charge)
{
    int64_t head = RB_ABSENT;
    double busy = 0;
    int i, w;

    memset(charge, 0, nw * sizeof(Rb_DiskCharge));
    if (p->quantum <= 0) {
	for (i = 0; i < n; i++) {
	    busy += Charge(p, op[i], block[i], &head, &charge[workload[i]]);
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
		    turn += Charge(p, op[i], block[i], &head, &charge[w]);
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
 * RbObsDiskCmd --
 *	observer::disk MISSES ?-seqread S? ?-seqwrite S? ?-randread S?
 *	?-randwrite S? ?-quantum S?: MISSES is a list of {workload op
 *	block} (op read or write) or {workload block}.  Returns {busy B
 *	workloads {W {seqReads .. randReads .. seqWrites .. randWrites ..
 *	busy .. demand ..}}} where demand is busy per access.
 */
int
RbObsDiskCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-seqread", "-seqwrite", "-randread",
	"-randwrite", "-quantum", NULL};
    static const char *const ops[] = {"read", "write", NULL};
    Rb_DiskParams p = {0.0001, 0.0001, 0.008, 0.009, 0};
    double *field[] = {&p.seqRead, &p.seqWrite, &p.randRead, &p.randWrite,
	&p.quantum};
    Tcl_Obj **acc, *names, *out, *wls;
    Tcl_HashTable ids;
    int nacc, i, idx, rc = TCL_ERROR, nw, *wl, *op;
    int64_t *block;
    Rb_DiskCharge *ch = NULL;
    double busy;

    if (objc < 2 || objc % 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "misses ?-seqread s? ?-seqwrite s? "
		"?-randread s? ?-randwrite s? ?-quantum s?");
	return TCL_ERROR;
    }
    for (i = 2; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK || Tcl_GetDoubleFromObj(interp, objv[i + 1],
		field[idx]) != TCL_OK) {
	    return TCL_ERROR;
	}
	if (!(*field[idx] >= 0)) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		    "%s must be non-negative", opts[idx]);
	}
    }
    if (Tcl_ListObjGetElements(interp, objv[1], &nacc, &acc) != TCL_OK) {
	return TCL_ERROR;
    }
    wl = Rb_AllocArray(nacc + 1, sizeof(int));
    op = Rb_AllocArray(nacc + 1, sizeof(int));
    block = Rb_AllocArray(nacc + 1, sizeof(int64_t));
    names = Tcl_NewObj();
    Tcl_IncrRefCount(names);
    Tcl_InitHashTable(&ids, TCL_STRING_KEYS);
    for (i = 0; i < nacc; i++) {
	Tcl_Obj **f;
	int nf, isNew;
	Tcl_WideInt b;
	Tcl_HashEntry *e;

	if (Tcl_ListObjGetElements(interp, acc[i], &nf, &f) != TCL_OK) {
	    goto done;
	}
	if (nf != 2 && nf != 3) {
	    Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE", "miss %d is "
		    "\"%s\": expected {workload ?op? block}", i + 1,
		    Tcl_GetString(acc[i]));
	    goto done;
	}
	if ((nf == 3 && Tcl_GetIndexFromObj(interp, f[1], ops, "op", 0,
		&op[i]) != TCL_OK)
		|| Tcl_GetWideIntFromObj(interp, f[nf - 1], &b) != TCL_OK) {
	    goto done;
	}
	block[i] = b;
	e = Tcl_CreateHashEntry(&ids, Tcl_GetString(f[0]), &isNew);
	if (isNew) {
	    Tcl_SetHashValue(e, (ClientData) (intptr_t) (ids.numEntries - 1));
	    Tcl_ListObjAppendElement(NULL, names, f[0]);
	}
	wl[i] = (int) (intptr_t) Tcl_GetHashValue(e);
    }
    nw = ids.numEntries;
    ch = Rb_AllocArray(nw + 1, sizeof(Rb_DiskCharge));
    busy = RbDiskModelCharge(&p, nacc, wl, op, block, nw, ch);
    out = Tcl_NewDictObj();
    wls = Tcl_NewDictObj();
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("busy", -1),
	    Tcl_NewDoubleObj(busy));
    for (i = 0; i < nw; i++) {
	Tcl_Obj *name;
	int64_t cnt = ch[i].seqReads + ch[i].randReads + ch[i].seqWrites
		+ ch[i].randWrites;

	Tcl_ListObjIndex(NULL, names, i, &name);
	Tcl_DictObjPut(NULL, wls, name, Tcl_ObjPrintf("seqReads %lld "
		"randReads %lld seqWrites %lld randWrites %lld busy %.17g "
		"demand %.17g", (long long) ch[i].seqReads,
		(long long) ch[i].randReads, (long long) ch[i].seqWrites,
		(long long) ch[i].randWrites, ch[i].busy,
		cnt ? ch[i].busy / cnt : 0.0));
    }
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("workloads", -1), wls);
    Tcl_SetObjResult(interp, out);
    rc = TCL_OK;
  done:
    free(wl);
    free(op);
    free(block);
    free(ch);
    Tcl_DeleteHashTable(&ids);
    Tcl_DecrRefCount(names);
    return rc;
}

/*
 * RbObsNetworkCmd --
 *	observer::network -block B -m M -n N -readfraction F -bandwidth BW
 *	?-setup S?: per request of an m-of-n encoding (any m of n fragments
 *	rebuild a block), a read moves one block and a write n/m blocks:
 *	bytes = F B + (1 - F) B n / m, time = bytes / BW + S.  Returns
 *	{bytes X time T}.
 */
int
RbObsNetworkCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-block", "-m", "-n", "-readfraction",
	"-bandwidth", "-setup", NULL};
    double v[6] = {-1, -1, -1, -1, -1, 0}, bytes;
    int i, idx;

    if (objc % 2 == 0) {
	Tcl_WrongNumArgs(interp, 1, objv, "-block B -m M -n N -readfraction F "
		"-bandwidth BW ?-setup S?");
	return TCL_ERROR;
    }
    for (i = 1; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK || Tcl_GetDoubleFromObj(interp, objv[i + 1], &v[idx])
		!= TCL_OK) {
	    return TCL_ERROR;
	}
    }
    for (i = 0; i < 5; i++) {
	if (!(v[i] >= 0)) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "observer::network needs a non-negative %s", opts[i]);
	}
    }
    if (v[1] <= 0 || v[2] < v[1] || v[3] > 1 || v[4] <= 0) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"need 0 < m <= n, readfraction in [0, 1], bandwidth > 0");
    }
    bytes = v[3] * v[0] + (1 - v[3]) * v[0] * v[2] / v[1];
    Tcl_SetObjResult(interp, Tcl_ObjPrintf("bytes %.17g time %.17g", bytes,
	    bytes / v[4] + v[5]));
    return TCL_OK;
}

/*
 * RbObsCpuCmd --
 *	observer::cpu TABLE SIZE: TABLE is a list of measured {size
 *	seconds} points; the CPU demand of a request of SIZE bytes by
 *	linear interpolation between the points around it, extended
 *	linearly past either end.
 */
int
RbObsCpuCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    Tcl_Obj **rows;
    int nrows, i;
    double size, *x, *y, t;

    if (objc != 3) {
	Tcl_WrongNumArgs(interp, 1, objv, "table size");
	return TCL_ERROR;
    }
    if (Tcl_ListObjGetElements(interp, objv[1], &nrows, &rows) != TCL_OK
	    || Tcl_GetDoubleFromObj(interp, objv[2], &size) != TCL_OK) {
	return TCL_ERROR;
    }
    if (nrows == 0) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"the CPU table is empty");
    }
    x = Rb_AllocArray(nrows, sizeof(double));
    y = Rb_AllocArray(nrows, sizeof(double));
    for (i = 0; i < nrows; i++) {
	Tcl_Obj **f;
	int nf;

	if (Tcl_ListObjGetElements(interp, rows[i], &nf, &f) != TCL_OK
		|| nf != 2 || Tcl_GetDoubleFromObj(interp, f[0], &x[i])
		!= TCL_OK || Tcl_GetDoubleFromObj(interp, f[1], &y[i])
		!= TCL_OK || (i > 0 && x[i] <= x[i - 1])) {
	    free(x);
	    free(y);
	    Tcl_ResetResult(interp);
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		    "CPU table row %d must be {size seconds} with sizes "
		    "increasing", i + 1);
	}
    }
    if (nrows == 1) {
	t = x[0] > 0 ? y[0] * size / x[0] : y[0];
    } else {
	for (i = 1; i < nrows - 1 && size > x[i]; i++) {
	}
	t = y[i - 1] + (y[i] - y[i - 1]) * (size - x[i - 1])
		/ (x[i] - x[i - 1]);
    }
    free(x);
    free(y);
    Tcl_SetObjResult(interp, Tcl_NewDoubleObj(t));
    return TCL_OK;
}
