/*
 * model.c --
 *
 *	observer::model: a queueing-network model built from Tcl.  Centers
 *	(queueing with one or more servers, or delay, with a speed),
 *	workloads (closed with a population and think time, or open with an
 *	arrival rate), and the demand of each workload at each center, with
 *	its visits; solve answers throughput,
 *	response time, utilizations, the bottleneck and bounds, and whatif
 *	answers the same for a changed copy beside the original.
 */

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

typedef struct Center {
    char *name;
    int isDelay;
    int servers;		/* Of a queueing center, >= 1. */
    double speed;		/* Demands are divided by it. */
} Center;

typedef struct Workload {
    char *name;
    int isOpen;
    double population, think, lambda;
} Workload;

typedef struct Model {
    int nc, nk, capC, capK;
    Center *centers;
    Workload *workloads;
    double *demand;		/* [k * capC + c], seconds at speed 1 */
    double *visits;		/* [k * capC + c], visits per job (1 unless
				 * given) */
    Tcl_Command token;
} Model;

static int modelCounter;

static Tcl_ObjCmdProc ModelObjCmd;

/*
 * Dup --
 *	A malloc'd copy of a string.
 */
static char *
Dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = Rb_Alloc(n);

    memcpy(d, s, n);
    return d;
}

static int
FindCenter(const Model *m, const char *name)
{
    int c;

    for (c = 0; c < m->nc; c++) {
	if (strcmp(m->centers[c].name, name) == 0) {
	    return c;
	}
    }
    return -1;
}

static int
FindWorkload(const Model *m, const char *name)
{
    int k;

    for (k = 0; k < m->nk; k++) {
	if (strcmp(m->workloads[k].name, name) == 0) {
	    return k;
	}
    }
    return -1;
}

/*
 * GetCenter, GetWorkload --
 *	Index of the named center or workload, or TCL_ERROR with a message
 *	listing the known names.
 */
static int
GetCenter(Tcl_Interp *interp, const Model *m, Tcl_Obj *obj, int *c)
{
    int i;
    Tcl_Obj *known = Tcl_NewObj();

    if ((*c = FindCenter(m, Tcl_GetString(obj))) >= 0) {
	Tcl_DecrRefCount(known);
	return TCL_OK;
    }
    for (i = 0; i < m->nc; i++) {
	Tcl_ListObjAppendElement(NULL, known,
		Tcl_NewStringObj(m->centers[i].name, -1));
    }
    Rb_SetInterpError(interp, "RUBICON OBSERVER CENTER",
	    "no center \"%s\"; centers are: %s", Tcl_GetString(obj),
	    Tcl_GetString(known));
    Tcl_DecrRefCount(known);
    return TCL_ERROR;
}

static int
GetWorkload(Tcl_Interp *interp, const Model *m, Tcl_Obj *obj, int *k)
{
    int i;
    Tcl_Obj *known = Tcl_NewObj();

    if ((*k = FindWorkload(m, Tcl_GetString(obj))) >= 0) {
	Tcl_DecrRefCount(known);
	return TCL_OK;
    }
    for (i = 0; i < m->nk; i++) {
	Tcl_ListObjAppendElement(NULL, known,
		Tcl_NewStringObj(m->workloads[i].name, -1));
    }
    Rb_SetInterpError(interp, "RUBICON OBSERVER WORKLOAD",
	    "no workload \"%s\"; workloads are: %s", Tcl_GetString(obj),
	    Tcl_GetString(known));
    Tcl_DecrRefCount(known);
    return TCL_ERROR;
}

/*
 * GrowDemand --
 *	Makes room in the demand matrix for capK x capC, keeping values.
 */
static void
GrowDemand(Model *m, int capK, int capC)
{
    double *d, *v;
    int k, c;

    if (capK <= m->capK && capC <= m->capC) {
	return;
    }
    capK = capK > m->capK ? capK * 2 : m->capK;
    capC = capC > m->capC ? capC * 2 : m->capC;
    d = Rb_AllocArray((size_t) capK * capC, sizeof(double));
    v = Rb_AllocArray((size_t) capK * capC, sizeof(double));
    for (k = 0; k < m->nk; k++) {
	for (c = 0; c < m->nc; c++) {
	    d[k * capC + c] = m->demand[k * m->capC + c];
	    v[k * capC + c] = m->visits[k * m->capC + c];
	}
    }
    free(m->demand);
    free(m->visits);
    m->demand = d;
    m->visits = v;
    m->centers = Rb_ReallocArray(m->centers, capC, sizeof(Center));
    m->workloads = Rb_ReallocArray(m->workloads, capK, sizeof(Workload));
    m->capK = capK;
    m->capC = capC;
}

/*
 * DemandAt, VisitsAt --
 *	Where the demand and the visits of workload k at center c are kept.
 */
static double *
DemandAt(Model *m, int k, int c)
{
    return &m->demand[k * m->capC + c];
}

static double *
VisitsAt(Model *m, int k, int c)
{
    return &m->visits[k * m->capC + c];
}

static int
AddCenter(Model *m, const char *name)
{
    int c = m->nc;

    GrowDemand(m, m->nk, c + 1);
    m->centers[c].name = Dup(name);
    m->centers[c].isDelay = 0;
    m->centers[c].servers = 1;
    m->centers[c].speed = 1;
    for (int k = 0; k < m->nk; k++) {
	*DemandAt(m, k, c) = 0;
	*VisitsAt(m, k, c) = 1;
    }
    m->nc++;
    return c;
}

static int
AddWorkload(Model *m, const char *name)
{
    int k = m->nk;

    GrowDemand(m, k + 1, m->nc);
    memset(&m->workloads[k], 0, sizeof(Workload));
    m->workloads[k].name = Dup(name);
    for (int c = 0; c < m->nc; c++) {
	*DemandAt(m, k, c) = 0;
	*VisitsAt(m, k, c) = 1;
    }
    m->nk++;
    return k;
}

/*
 * RemoveCenter --
 *	Deletes center c and its column of demands.
 */
static void
RemoveCenter(Model *m, int c)
{
    int k, j;

    free(m->centers[c].name);
    for (j = c; j < m->nc - 1; j++) {
	m->centers[j] = m->centers[j + 1];
	for (k = 0; k < m->nk; k++) {
	    *DemandAt(m, k, j) = *DemandAt(m, k, j + 1);
	    *VisitsAt(m, k, j) = *VisitsAt(m, k, j + 1);
	}
    }
    m->nc--;
}

static void
RemoveWorkload(Model *m, int k)
{
    int j, c;

    free(m->workloads[k].name);
    for (j = k; j < m->nk - 1; j++) {
	m->workloads[j] = m->workloads[j + 1];
	for (c = 0; c < m->nc; c++) {
	    *DemandAt(m, j, c) = *DemandAt(m, j + 1, c);
	    *VisitsAt(m, j, c) = *VisitsAt(m, j + 1, c);
	}
    }
    m->nk--;
}

/*
 * CopyModel --
 *	A deep copy of m (without a command).
 */
static Model *
CopyModel(const Model *m)
{
    Model *n = Rb_Alloc(sizeof(Model));
    int c, k;

    GrowDemand(n, m->nk > 0 ? m->nk : 1, m->nc > 0 ? m->nc : 1);
    for (c = 0; c < m->nc; c++) {
	AddCenter(n, m->centers[c].name);
	n->centers[c].isDelay = m->centers[c].isDelay;
	n->centers[c].servers = m->centers[c].servers;
	n->centers[c].speed = m->centers[c].speed;
    }
    for (k = 0; k < m->nk; k++) {
	char *name;

	AddWorkload(n, m->workloads[k].name);
	name = n->workloads[k].name;	/* AddWorkload's copy */
	n->workloads[k] = m->workloads[k];
	n->workloads[k].name = name;
	for (c = 0; c < m->nc; c++) {
	    *DemandAt(n, k, c) = m->demand[k * m->capC + c];
	    *VisitsAt(n, k, c) = m->visits[k * m->capC + c];
	}
    }
    return n;
}

static void
FreeModel(Model *m)
{
    int i;

    for (i = 0; i < m->nc; i++) {
	free(m->centers[i].name);
    }
    for (i = 0; i < m->nk; i++) {
	free(m->workloads[i].name);
    }
    free(m->centers);
    free(m->workloads);
    free(m->demand);
    free(m->visits);
    free(m);
}

static void
ModelDeleteProc(ClientData cd)
{
    FreeModel(cd);
}

/*
 * ParseCenterOptions --
 *	-type queue|delay, -servers M and -speed FACTOR applied to center
 *	c.  Nothing is changed unless every option is valid.
 */
static int
ParseCenterOptions(Tcl_Interp *interp, Model *m, int c, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-type", "-speed", "-servers", NULL};
    static const char *const types[] = {"queue", "delay", NULL};
    int i, idx, t;
    double speed;
    Center new = m->centers[c];

    if (objc % 2) {
	Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"center options come in pairs: -type queue|delay -servers M "
		"-speed F");
	return TCL_ERROR;
    }
    for (i = 0; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (idx == 0) {
	    if (Tcl_GetIndexFromObj(interp, objv[i + 1], types, "type", 0, &t)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	    new.isDelay = t == 1;
	} else if (idx == 2) {
	    if (Tcl_GetIntFromObj(interp, objv[i + 1], &t) != TCL_OK) {
		return TCL_ERROR;
	    }
	    if (t < 1) {
		return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
			"servers must be a positive integer, not %s",
			Tcl_GetString(objv[i + 1]));
	    }
	    new.servers = t;
	} else {
	    if (Tcl_GetDoubleFromObj(interp, objv[i + 1], &speed) != TCL_OK) {
		return TCL_ERROR;
	    }
	    if (!(speed > 0)) {
		Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
			"speed must be positive, not %g", speed);
		return TCL_ERROR;
	    }
	    new.speed = speed;
	}
    }
    if (new.isDelay && new.servers > 1) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"a delay center has no number of servers; -servers is for "
		"queueing centers");
    }
    m->centers[c] = new;
    return TCL_OK;
}

/*
 * NonNegative --
 *	Reads a double that must be >= 0 (and integral when wantInt).
 */
static int
NonNegative(Tcl_Interp *interp, Tcl_Obj *obj, const char *what, int wantInt,
	double *v)
{
    if (Tcl_GetDoubleFromObj(interp, obj, v) != TCL_OK) {
	return TCL_ERROR;
    }
    if (!(*v >= 0) || isinf(*v) || (wantInt && *v != floor(*v))) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"%s must be a non-negative %s, not %s", what,
		wantInt ? "integer" : "number", Tcl_GetString(obj));
    }
    return TCL_OK;
}

/*
 * ParseWorkloadOptions --
 *	-closed N, -think Z, -open LAMBDA for workload k, all or none.
 * Results: TCL_OK, or TCL_ERROR with the workload unchanged.
 */
static int
ParseWorkloadOptions(Tcl_Interp *interp, Model *m, int k, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-closed", "-think", "-open", NULL};
    Workload copy = m->workloads[k], *w = &copy;
    int i, idx;
    double v;

    if (objc % 2) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"workload options come in pairs: -closed N -think Z, "
		"or -open RATE");
    }
    for (i = 0; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK
		|| NonNegative(interp, objv[i + 1], opts[idx] + 1, idx == 0,
		&v) != TCL_OK) {
	    return TCL_ERROR;
	}
	switch (idx) {
	case 0: w->isOpen = 0; w->population = v; break;
	case 1: w->think = v; break;
	case 2: w->isOpen = 1; w->lambda = v; break;
	}
    }
    m->workloads[k] = copy;
    return TCL_OK;
}

/*
 * BalancedMissing --
 *	TCL_OK when every workload has balanced job bounds, else TCL_ERROR
 *	with RUBICON OBSERVER UNSUPPORTED in interp saying why.
 */
static int
BalancedMissing(Tcl_Interp *interp, const Model *m, const Rb_QnNet *net)
{
    Rb_QnBounds bd;
    int k;

    for (k = 0; k < net->nk; k++) {
	RbQnBoundsFor(net, k, &bd);
	if (!bd.balanced) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER UNSUPPORTED",
		    "no balanced job bounds for workload %s: %s",
		    m->workloads[k].name, bd.whyNot);
	}
    }
    if (net->nk == 0) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER UNSUPPORTED",
		"no balanced job bounds: the model has no workload");
    }
    return TCL_OK;
}

/*
 * BoundsObj --
 *	The bounds of workload k as a dict: the asymptotic ones, and the
 *	balanced job bounds where they are defined, else balancedUndefined
 *	saying why.
 */
static Tcl_Obj *
BoundsObj(const Model *m, const Rb_QnNet *net, int k)
{
    Tcl_Obj *b;
    Rb_QnBounds bd;

    RbQnBoundsFor(net, k, &bd);
    b = Tcl_NewDictObj();
#define PUT(key, v) Tcl_DictObjPut(NULL, b, Tcl_NewStringObj(key, -1), \
	Tcl_NewDoubleObj(v))
    PUT("throughputUpper", bd.xUpper);
    PUT("throughputLower", bd.xLower);
    PUT("responseLower", bd.rLower);
    PUT("responseUpper", bd.rUpper);
    PUT("saturation", bd.lambdaSat);
    if (!net->isOpen[k]) {
	PUT("nstar", bd.nStar);
    }
    if (bd.balanced) {
	PUT("balancedThroughputUpper", bd.bjbXUpper);
	PUT("balancedThroughputLower", bd.bjbXLower);
	PUT("balancedResponseLower", bd.bjbRLower);
	PUT("balancedResponseUpper", bd.bjbRUpper);
    } else {
	Tcl_DictObjPut(NULL, b, Tcl_NewStringObj("balancedUndefined", -1),
		Tcl_NewStringObj(bd.whyNot, -1));
    }
#undef PUT
    Tcl_DictObjPut(NULL, b, Tcl_NewStringObj("bottleneck", -1),
	    Tcl_NewStringObj(bd.bottleneck >= 0
	    ? m->centers[bd.bottleneck].name : "", -1));
    return b;
}

/*
 * SolveModel --
 *	Solves m and returns the answer as a dict, or NULL with the error
 *	in interp.  With balanced, a workload without balanced job bounds
 *	is an error.
 */
static Tcl_Obj *
SolveModel(Tcl_Interp *interp, Model *m, Rb_QnMethod method, double tol,
	int balanced)
{
    int nc = m->nc, nk = m->nk, c, k;
    int *isDelay = Rb_AllocArray(nc + 1, sizeof(int));
    int *servers = Rb_AllocArray(nc + 1, sizeof(int));
    int *isOpen = Rb_AllocArray(nk + 1, sizeof(int));
    double *dem = Rb_AllocArray((size_t) nc * nk + 1, sizeof(double));
    double *pop = Rb_AllocArray(nk + 1, sizeof(double));
    double *think = Rb_AllocArray(nk + 1, sizeof(double));
    double *lambda = Rb_AllocArray(nk + 1, sizeof(double));
    const char **cnames = Rb_AllocArray(nc + 1, sizeof(char *));
    const char **wnames = Rb_AllocArray(nk + 1, sizeof(char *));
    Rb_QnNet net = {nc, nk, isDelay, dem, isOpen, pop, think, lambda,
	cnames, wnames, servers};
    Rb_QnResult res;
    Rb_Error err;
    Tcl_Obj *out = NULL, *wls, *cts, *bds;
    static const char *const methods[] = {"auto", "exact", "approx"};

    for (c = 0; c < nc; c++) {
	isDelay[c] = m->centers[c].isDelay;
	servers[c] = m->centers[c].servers;
	cnames[c] = m->centers[c].name;
    }
    for (k = 0; k < nk; k++) {
	isOpen[k] = m->workloads[k].isOpen;
	wnames[k] = m->workloads[k].name;
	pop[k] = m->workloads[k].population;
	think[k] = m->workloads[k].think;
	lambda[k] = m->workloads[k].lambda;
	for (c = 0; c < nc; c++) {
	    dem[k * nc + c] = *DemandAt(m, k, c) / m->centers[c].speed;
	}
    }
    memset(&res, 0, sizeof(res));
    if (balanced && BalancedMissing(interp, m, &net) != TCL_OK) {
	goto done;
    }
    if (RbQnSolve(&net, method, tol, &res, &err) != TCL_OK) {
	Rb_ErrorToInterp(interp, &err);
	goto done;
    }
    out = Tcl_NewDictObj();
    wls = Tcl_NewDictObj();
    cts = Tcl_NewDictObj();
    bds = Tcl_NewDictObj();
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("method", -1),
	    Tcl_NewStringObj(methods[res.method], -1));
    for (k = 0; k < nk; k++) {
	Tcl_Obj *w = Tcl_NewDictObj(), *r = Tcl_NewDictObj(), *b;
	Tcl_Obj *cx = Tcl_NewDictObj(), *vr = Tcl_NewDictObj();

	for (c = 0; c < nc; c++) {
	    Tcl_Obj *name = Tcl_NewStringObj(m->centers[c].name, -1);
	    double v = *VisitsAt(m, k, c);

	    Tcl_DictObjPut(NULL, r, name,
		    Tcl_NewDoubleObj(res.residence[k * nc + c]));
	    if (*DemandAt(m, k, c) > 0 && v > 0) {
		Tcl_DictObjPut(NULL, cx, name,
			Tcl_NewDoubleObj(res.throughput[k] * v));
		Tcl_DictObjPut(NULL, vr, name,
			Tcl_NewDoubleObj(res.residence[k * nc + c] / v));
	    }
	}
	Tcl_DictObjPut(NULL, w, Tcl_NewStringObj("throughput", -1),
		Tcl_NewDoubleObj(res.throughput[k]));
	Tcl_DictObjPut(NULL, w, Tcl_NewStringObj("response", -1),
		Tcl_NewDoubleObj(res.response[k]));
	Tcl_DictObjPut(NULL, w, Tcl_NewStringObj("residence", -1), r);
	Tcl_DictObjPut(NULL, w, Tcl_NewStringObj("centerThroughput", -1), cx);
	Tcl_DictObjPut(NULL, w, Tcl_NewStringObj("visitResponse", -1), vr);
	Tcl_DictObjPut(NULL, wls, Tcl_NewStringObj(m->workloads[k].name, -1),
		w);

	b = BoundsObj(m, &net, k);
	Tcl_DictObjPut(NULL, bds, Tcl_NewStringObj(m->workloads[k].name, -1),
		b);
    }
    for (c = 0; c < nc; c++) {
	Tcl_Obj *d = Tcl_NewDictObj(), *r = Tcl_NewDictObj();
	double q = 0, x = 0;

	for (k = 0; k < nk; k++) {
	    Tcl_DictObjPut(NULL, r, Tcl_NewStringObj(m->workloads[k].name, -1),
		    Tcl_NewDoubleObj(res.residence[k * nc + c]));
	    q += res.queue[k * nc + c];
	    if (*DemandAt(m, k, c) > 0) {
		x += res.throughput[k] * *VisitsAt(m, k, c);
	    }
	}
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("throughput", -1),
		Tcl_NewDoubleObj(x));
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("utilization", -1),
		Tcl_NewDoubleObj(res.utilization[c]));
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("queue", -1),
		Tcl_NewDoubleObj(q));
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("residence", -1), r);
	Tcl_DictObjPut(NULL, cts, Tcl_NewStringObj(m->centers[c].name, -1),
		d);
    }
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("workloads", -1), wls);
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("centers", -1), cts);
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("bottleneck", -1),
	    Tcl_NewStringObj(res.bottleneck >= 0
	    ? m->centers[res.bottleneck].name : "", -1));
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("bounds", -1), bds);
  done:
    RbQnResultFree(&res);
    free(isDelay);
    free(servers);
    free(isOpen);
    free(dem);
    free(pop);
    free(think);
    free(lambda);
    free(cnames);
    free(wnames);
    return out;
}

/*
 * ParseSolveOptions --
 *	-method auto|exact|approx, -tolerance T, -balanced (balanced job
 *	bounds asked for: an error where they are not defined) and, for
 *	whatif, -apply from objv; the rest of the words (the what-if
 *	changes) are left at *rest.
 */
static int
ParseSolveOptions(Tcl_Interp *interp, int objc, Tcl_Obj *const objv[],
	Rb_QnMethod *method, double *tol, int *balanced, int *apply,
	int *rest)
{
    static const char *const opts[] = {"-method", "-tolerance", "-apply",
	"-balanced", NULL};
    static const char *const methods[] = {"auto", "exact", "approx", NULL};
    int i, idx, mi;

    *method = RB_QN_AUTO;
    *tol = 1e-10;
    *balanced = 0;
    for (i = 0; i < objc && Tcl_GetString(objv[i])[0] == '-'; i++) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (idx == 3) {
	    *balanced = 1;
	    continue;
	}
	if (idx == 2) {
	    if (apply == NULL) {
		return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
			"-apply is an option of whatif");
	    }
	    *apply = 1;
	    continue;
	}
	if (i + 1 >= objc) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "%s needs a value", opts[idx]);
	}
	i++;
	if (idx == 0) {
	    if (Tcl_GetIndexFromObj(interp, objv[i], methods, "method", 0, &mi)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	    *method = (Rb_QnMethod) mi;
	} else if (Tcl_GetDoubleFromObj(interp, objv[i], tol) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    if (rest) {
	*rest = i;
    } else if (i < objc) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"unexpected argument \"%s\"", Tcl_GetString(objv[i]));
    }
    return TCL_OK;
}

/*
 * ApplyChange --
 *	Applies one what-if change, a list {op args...}, to m:
 *	  speed CENTER FACTOR        the center becomes FACTOR times faster
 *				     (multiplying its speed)
 *	  addcenter NAME ?options?   a new center (-type, -speed)
 *	  removecenter NAME
 *	  population WL N | think WL Z | arrival WL RATE
 *	  move WL FROM TO ?SCALE?    WL's demand at FROM goes to TO (x SCALE)
 *	  demand WL CENTER SECONDS
 *	  servers CENTER M           the center gets M servers
 */
static int
ApplyChange(Tcl_Interp *interp, Model *m, Tcl_Obj *change)
{
    static const char *const ops[] = {"speed", "addcenter", "removecenter",
	"population", "think", "arrival", "move", "demand", "servers", NULL};
    static const int minArgs[] = {3, 2, 2, 3, 3, 3, 4, 4, 3};
    enum {SPEED, ADDC, REMC, POP, THINK, ARRIVAL, MOVE, DEMAND, SERVERS};
    Tcl_Obj **w;
    int n, op, c, c2, k;
    double v, scale = 1;

    if (Tcl_ListObjGetElements(interp, change, &n, &w) != TCL_OK) {
	return TCL_ERROR;
    }
    if (n == 0 || Tcl_GetIndexFromObj(interp, w[0], ops, "what-if change",
	    0, &op) != TCL_OK) {
	if (n == 0) {
	    Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "empty what-if change");
	}
	return TCL_ERROR;
    }
    if (n < minArgs[op]) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"what-if change \"%s\" needs %d arguments",
		Tcl_GetString(w[0]), minArgs[op] - 1);
    }
    switch (op) {
    case SPEED:
	if (GetCenter(interp, m, w[1], &c) != TCL_OK
		|| Tcl_GetDoubleFromObj(interp, w[2], &v) != TCL_OK) {
	    return TCL_ERROR;
	}
	if (!(v > 0) || isinf(v)) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		    "speed factor must be positive, not %s",
		    Tcl_GetString(w[2]));
	}
	m->centers[c].speed *= v;
	return TCL_OK;
    case ADDC:
	if (FindCenter(m, Tcl_GetString(w[1])) >= 0) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER EXISTS",
		    "center \"%s\" exists", Tcl_GetString(w[1]));
	}
	return ParseCenterOptions(interp, m,
		AddCenter(m, Tcl_GetString(w[1])), n - 2, w + 2);
    case REMC:
	if (GetCenter(interp, m, w[1], &c) != TCL_OK) {
	    return TCL_ERROR;
	}
	RemoveCenter(m, c);
	return TCL_OK;
    case POP: case THINK: case ARRIVAL:
	if (GetWorkload(interp, m, w[1], &k) != TCL_OK
		|| NonNegative(interp, w[2], ops[op], op == POP, &v)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (op == POP) {
	    m->workloads[k].isOpen = 0;
	    m->workloads[k].population = v;
	} else if (op == THINK) {
	    m->workloads[k].think = v;
	} else {
	    m->workloads[k].isOpen = 1;
	    m->workloads[k].lambda = v;
	}
	return TCL_OK;
    case MOVE:
	if (GetWorkload(interp, m, w[1], &k) != TCL_OK
		|| GetCenter(interp, m, w[2], &c) != TCL_OK
		|| GetCenter(interp, m, w[3], &c2) != TCL_OK
		|| (n > 4 && NonNegative(interp, w[4], "scale", 0, &scale)
		!= TCL_OK)) {
	    return TCL_ERROR;
	}
	if (c != c2) {
	    if (*DemandAt(m, k, c2) == 0) {
		*VisitsAt(m, k, c2) = *VisitsAt(m, k, c);
	    }
	    *DemandAt(m, k, c2) += *DemandAt(m, k, c) * scale;
	    *DemandAt(m, k, c) = 0;
	}
	return TCL_OK;
    case DEMAND:
	if (GetWorkload(interp, m, w[1], &k) != TCL_OK
		|| GetCenter(interp, m, w[2], &c) != TCL_OK
		|| NonNegative(interp, w[3], "demand", 0, &v) != TCL_OK) {
	    return TCL_ERROR;
	}
	*DemandAt(m, k, c) = v;
	return TCL_OK;
    case SERVERS:
	if (GetCenter(interp, m, w[1], &c) != TCL_OK
		|| NonNegative(interp, w[2], "servers", 1, &v) != TCL_OK) {
	    return TCL_ERROR;
	}
	if (v < 1 || m->centers[c].isDelay) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		    "servers must be at least 1, at a queueing center");
	}
	m->centers[c].servers = (int) fmin(v, INT_MAX);
	return TCL_OK;
    }
    return TCL_OK;
}

/*
 * Describe --
 *	The model as a dict: centers {name {type T speed S ?servers M?}},
 *	workloads {name {closed N think Z | open RATE}}, demands {wl
 *	{center D}}, visits {wl {center V}}.
 */
static Tcl_Obj *
Describe(Model *m)
{
    Tcl_Obj *out = Tcl_NewDictObj(), *cs = Tcl_NewDictObj();
    Tcl_Obj *ws = Tcl_NewDictObj(), *ds = Tcl_NewDictObj();
    Tcl_Obj *vs = Tcl_NewDictObj();
    int c, k;

    for (c = 0; c < m->nc; c++) {
	Tcl_Obj *d = Tcl_NewDictObj();

	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("type", -1),
		Tcl_NewStringObj(m->centers[c].isDelay ? "delay" : "queue", -1));
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("speed", -1),
		Tcl_NewDoubleObj(m->centers[c].speed));
	if (!m->centers[c].isDelay) {
	    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("servers", -1),
		    Tcl_NewIntObj(m->centers[c].servers));
	}
	Tcl_DictObjPut(NULL, cs, Tcl_NewStringObj(m->centers[c].name, -1), d);
    }
    for (k = 0; k < m->nk; k++) {
	Workload *w = &m->workloads[k];
	Tcl_Obj *d = Tcl_NewDictObj(), *dd = Tcl_NewDictObj();
	Tcl_Obj *vv = Tcl_NewDictObj();

	if (w->isOpen) {
	    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("open", -1),
		    Tcl_NewDoubleObj(w->lambda));
	} else {
	    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("closed", -1),
		    Tcl_NewWideIntObj((Tcl_WideInt) w->population));
	    Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("think", -1),
		    Tcl_NewDoubleObj(w->think));
	}
	Tcl_DictObjPut(NULL, ws, Tcl_NewStringObj(w->name, -1), d);
	for (c = 0; c < m->nc; c++) {
	    Tcl_DictObjPut(NULL, dd, Tcl_NewStringObj(m->centers[c].name, -1),
		    Tcl_NewDoubleObj(*DemandAt(m, k, c)));
	    Tcl_DictObjPut(NULL, vv, Tcl_NewStringObj(m->centers[c].name, -1),
		    Tcl_NewDoubleObj(*VisitsAt(m, k, c)));
	}
	Tcl_DictObjPut(NULL, ds, Tcl_NewStringObj(w->name, -1), dd);
	Tcl_DictObjPut(NULL, vs, Tcl_NewStringObj(w->name, -1), vv);
    }
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("centers", -1), cs);
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("workloads", -1), ws);
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("demands", -1), ds);
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("visits", -1), vs);
    return out;
}

/*
 * NewModelCommand --
 *	Creates the object command for m; its name is left in interp.
 */
static void
NewModelCommand(Tcl_Interp *interp, Model *m)
{
    char name[64];
    Tcl_CmdInfo info;

    do {
	snprintf(name, sizeof(name), "::observer::model%d", ++modelCounter);
    } while (Tcl_GetCommandInfo(interp, name, &info));
    m->token = Tcl_CreateObjCommand(interp, name, ModelObjCmd, m,
	    ModelDeleteProc);
    Tcl_SetObjResult(interp, Tcl_NewStringObj(name, -1));
}

/*
 * DemandCmd --
 *	$m demand WL CENTER ?SECONDS? ?-visits V?, or WL CENTER -service S
 *	?-visits V? (D = V S), or WL CENTER -utilization U -throughput X
 *	?-visits V? (the service demand law D = U / X).  The visits (1
 *	unless given) are kept for the per-center answers of solve.
 *	Returns the demand.
 */
static int
DemandCmd(Tcl_Interp *interp, Model *m, int objc, Tcl_Obj *const objv[])
{
    static const char *const opts[] = {"-visits", "-service",
	"-utilization", "-throughput", NULL};
    enum {VISITS, SERVICE, UTIL, TPUT};
    double val[4], d = 0;
    int given[4] = {0, 0, 0, 0}, k, c, i = 4, idx, positional = 0;

    if (objc < 4) {
	Tcl_WrongNumArgs(interp, 2, objv, "workload center ?seconds? "
		"?-visits V? | workload center -service S ?-visits V? | "
		"workload center -utilization U -throughput X ?-visits V?");
	return TCL_ERROR;
    }
    if (GetWorkload(interp, m, objv[2], &k) != TCL_OK
	    || GetCenter(interp, m, objv[3], &c) != TCL_OK) {
	return TCL_ERROR;
    }
    if (objc > 4 && Tcl_GetString(objv[4])[0] != '-') {
	if (NonNegative(interp, objv[4], "demand", 0, &d) != TCL_OK) {
	    return TCL_ERROR;
	}
	positional = 1;
	i = 5;
    }
    for (; i < objc; i += 2) {
	if (Tcl_GetIndexFromObj(interp, objv[i], opts, "option", 0, &idx)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (i + 1 >= objc) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		    "%s needs a value", opts[idx]);
	}
	if (NonNegative(interp, objv[i + 1], opts[idx] + 1, 0, &val[idx])
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	given[idx] = 1;
    }
    if (positional + given[SERVICE] + (given[UTIL] || given[TPUT]) > 1
	    || given[UTIL] != given[TPUT]) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"give the demand one way: seconds, -service S, or "
		"-utilization U -throughput X");
    }
    if (given[SERVICE] && !given[VISITS]) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER USAGE",
		"-service needs -visits (the demand is visits x service)");
    }
    if (given[VISITS] && !(val[VISITS] > 0)) {
	return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		"visits must be positive to have a demand");
    }
    if (given[UTIL]) {
	if (val[TPUT] <= 0) {
	    return Rb_SetInterpError(interp, "RUBICON OBSERVER VALUE",
		    "throughput must be positive to derive a demand");
	}
	d = val[UTIL] / val[TPUT];
    } else if (given[SERVICE]) {
	d = val[VISITS] * val[SERVICE];
    } else if (!positional) {
	if (given[VISITS]) {
	    *VisitsAt(m, k, c) = val[VISITS];
	}
	Tcl_SetObjResult(interp, Tcl_NewDoubleObj(*DemandAt(m, k, c)));
	return TCL_OK;
    }
    *DemandAt(m, k, c) = d;
    *VisitsAt(m, k, c) = given[VISITS] ? val[VISITS] : 1;
    Tcl_SetObjResult(interp, Tcl_NewDoubleObj(d));
    return TCL_OK;
}

/*
 * WhatIfCmd --
 *	$m whatif ?-apply? ?-method M? CHANGE ?CHANGE...?: solves the model
 *	and a copy with the changes; returns {before S after S changes L}.
 *	With -apply the model keeps the changes.
 */
static int
WhatIfCmd(Tcl_Interp *interp, Model *m, int objc, Tcl_Obj *const objv[])
{
    Rb_QnMethod method;
    double tol;
    int apply = 0, rest, i, balanced;
    Model *copy;
    Tcl_Obj *before, *after, *out;

    if (ParseSolveOptions(interp, objc - 2, objv + 2, &method, &tol,
	    &balanced, &apply, &rest) != TCL_OK) {
	return TCL_ERROR;
    }
    rest += 2;
    if (rest >= objc) {
	Tcl_WrongNumArgs(interp, 2, objv, "?-apply? ?-method M? "
		"?-balanced? change ?change ...?");
	return TCL_ERROR;
    }
    copy = CopyModel(m);
    for (i = rest; i < objc; i++) {
	if (ApplyChange(interp, copy, objv[i]) != TCL_OK) {
	    FreeModel(copy);
	    return TCL_ERROR;
	}
    }
    before = SolveModel(interp, m, method, tol, balanced);
    if (before == NULL) {
	FreeModel(copy);
	return TCL_ERROR;
    }
    Tcl_IncrRefCount(before);
    after = SolveModel(interp, copy, method, tol, balanced);
    if (after == NULL) {
	Tcl_DecrRefCount(before);
	FreeModel(copy);
	return TCL_ERROR;
    }
    out = Tcl_NewDictObj();
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("before", -1), before);
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("after", -1), after);
    Tcl_DictObjPut(NULL, out, Tcl_NewStringObj("changes", -1),
	    Tcl_NewListObj(objc - rest, objv + rest));
    Tcl_DecrRefCount(before);
    if (apply) {
	Model tmp = *m;

	/* Swap contents so the command keeps its token and the copy's
	 * model; the old contents are freed with the copy. */
	*m = *copy;
	m->token = tmp.token;
	*copy = tmp;
    }
    FreeModel(copy);
    Tcl_SetObjResult(interp, out);
    return TCL_OK;
}

/*
 * ModelObjCmd --
 *	The model object: center, workload, demand, remove, centers,
 *	workloads, describe, solve, whatif, copy, delete.
 */
static int
ModelObjCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    static const char *const subs[] = {"center", "workload", "demand",
	"remove", "centers", "workloads", "describe", "solve", "whatif",
	"copy", "delete", NULL};
    enum {CENTER, WORKLOAD, DEMAND, REMOVE, CENTERS, WORKLOADS, DESCRIBE,
	SOLVE, WHATIF, COPY, DELETE};
    Model *m = cd;
    int sub, i, idx, isNew, balanced;
    Rb_QnMethod method;
    double tol;
    Tcl_Obj *res;

    if (objc < 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "subcommand ?arg ...?");
	return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObj(interp, objv[1], subs, "subcommand", 0, &sub)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    switch (sub) {
    case CENTER:
	if (objc < 3) {
	    Tcl_WrongNumArgs(interp, 2, objv, "name ?-type queue|delay? "
		    "?-servers M? ?-speed F?");
	    return TCL_ERROR;
	}
	idx = FindCenter(m, Tcl_GetString(objv[2]));
	i = idx < 0;
	if (idx < 0) {
	    idx = AddCenter(m, Tcl_GetString(objv[2]));
	}
	if (ParseCenterOptions(interp, m, idx, objc - 3, objv + 3)
		!= TCL_OK) {
	    if (i) {
		RemoveCenter(m, idx);
	    }
	    return TCL_ERROR;
	}
	Tcl_SetObjResult(interp, objv[2]);
	return TCL_OK;
    case WORKLOAD:
	if (objc < 3) {
	    Tcl_WrongNumArgs(interp, 2, objv, "name ?-closed N? ?-think Z? "
		    "?-open RATE?");
	    return TCL_ERROR;
	}
	idx = FindWorkload(m, Tcl_GetString(objv[2]));
	isNew = idx < 0;
	if (isNew) {
	    idx = AddWorkload(m, Tcl_GetString(objv[2]));
	}
	if (ParseWorkloadOptions(interp, m, idx, objc - 3, objv + 3)
		!= TCL_OK) {
	    if (isNew) {
		RemoveWorkload(m, idx);
	    }
	    return TCL_ERROR;
	}
	Tcl_SetObjResult(interp, objv[2]);
	return TCL_OK;
    case DEMAND:
	return DemandCmd(interp, m, objc, objv);
    case REMOVE:
	if (objc != 4 || (strcmp(Tcl_GetString(objv[2]), "center") != 0
		&& strcmp(Tcl_GetString(objv[2]), "workload") != 0)) {
	    Tcl_WrongNumArgs(interp, 2, objv, "center|workload name");
	    return TCL_ERROR;
	}
	if (Tcl_GetString(objv[2])[0] == 'c') {
	    if (GetCenter(interp, m, objv[3], &idx) != TCL_OK) {
		return TCL_ERROR;
	    }
	    RemoveCenter(m, idx);
	} else {
	    if (GetWorkload(interp, m, objv[3], &idx) != TCL_OK) {
		return TCL_ERROR;
	    }
	    RemoveWorkload(m, idx);
	}
	return TCL_OK;
    case CENTERS:
    case WORKLOADS:
	res = Tcl_NewObj();
	for (i = 0; i < (sub == CENTERS ? m->nc : m->nk); i++) {
	    Tcl_ListObjAppendElement(NULL, res, Tcl_NewStringObj(sub == CENTERS
		    ? m->centers[i].name : m->workloads[i].name, -1));
	}
	Tcl_SetObjResult(interp, res);
	return TCL_OK;
    case DESCRIBE:
	Tcl_SetObjResult(interp, Describe(m));
	return TCL_OK;
    case SOLVE:
	if (ParseSolveOptions(interp, objc - 2, objv + 2, &method, &tol,
		&balanced, NULL, NULL) != TCL_OK) {
	    return TCL_ERROR;
	}
	res = SolveModel(interp, m, method, tol, balanced);
	if (res == NULL) {
	    return TCL_ERROR;
	}
	Tcl_SetObjResult(interp, res);
	return TCL_OK;
    case WHATIF:
	return WhatIfCmd(interp, m, objc, objv);
    case COPY:
	NewModelCommand(interp, CopyModel(m));
	return TCL_OK;
    case DELETE:
	Tcl_DeleteCommandFromToken(interp, m->token);
	return TCL_OK;
    }
    return TCL_OK;
}

/*
 * RbObsModelCmd --
 *	observer::model: a new, empty model; returns its command.
 */
int
RbObsModelCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    if (objc != 1) {
	Tcl_WrongNumArgs(interp, 1, objv, "");
	return TCL_ERROR;
    }
    NewModelCommand(interp, Rb_Alloc(sizeof(Model)));
    return TCL_OK;
}
