/*
 * accounting.c --
 *
 *	StardustDemandAnalyzer: per-client, per-resource demand from
 *	activity records, as Stardust computed it for queueing models.
 *	CPU comes from context switches: while a process is on a processor
 *	its running thread accrues time, billed to the breadcrumb of the
 *	last record that thread posted.  Disk service time is the span of
 *	a paired DiskOpStart/DiskOpEnd (same disk and ioId), billed to the
 *	start's breadcrumb.  Network demand is NetworkTransmit bytes (and
 *	time, given -bandwidth).  Work then rolls up through the request
 *	graph (graph.c) to root requests and their clients; delayed work
 *	carrying the original breadcrumb is billed to it without help.
 *
 *	Memory does not grow with the number of requests: a breadcrumb with
 *	no activity for -retire of trace time, and no sub-request still
 *	open, is retired -- its work billed to its clients and its node
 *	freed.  Its roll-up is kept as a tombstone for TOMB_RETIRES times
 *	-retire more, so that a late record is counted and still billed to
 *	the right client.
 */

#include <stdlib.h>
#include <string.h>
#include "plugins/stardust/stardust.h"

#define NS 1e9

#define TOMB_RETIRES 4

typedef struct SdProc {
    int64_t curTid;		/* Running thread, 0 none. */
    int userSeen;		/* UserThreadSwitch names its threads. */
    int kernelSeen;		/* KernelProcessSwitch schedules it. */
    int onCpu;
    int64_t lastCharge;		/* Time up to which CPU is billed. */
} SdProc;

typedef struct SdDiskOp {
    int64_t start, bc;
} SdDiskOp;

typedef struct SdBufferAccess {
    int64_t time, bc, file, offset, size;
    int kind;
    int client;			/* Resolved when its node retires. */
    size_t next;		/* The node's previous access + 1, 0 none. */
} SdBufferAccess;

/* What a client has been billed by retired breadcrumbs. */
typedef struct SdClientSum {
    int used;
    double requests, cpu, disk, netBytes, buf[6];
} SdClientSum;

/* A retired breadcrumb: when, and its roll-up. */
typedef struct SdTomb {
    int64_t retiredAt;
    int nshares;
    SdShare *shares;
} SdTomb;

/* A RequestDemand row, made when a root request retires. */
typedef struct SdRequestRow {
    int64_t bc;
    double v[3];
} SdRequestRow;

typedef struct DemandState {
    double bandwidth;		/* -bandwidth bytes/s, 0: no net time */
    int perRequest;		/* -perrequest */
    int bufferLog;		/* -bufferlog */
    int64_t interval;		/* -interval ns, 0: no series */
    int64_t retire;		/* -retire ns, 0: keep all to the end */

    SdFields f;
    SdGraph graph;
    Tcl_HashTable procs;	/* pid -> SdProc * */
    Tcl_HashTable threads;	/* pid << 32 | tid -> current breadcrumb */
    Tcl_HashTable diskOps;	/* {disk, ioId} -> SdDiskOp * */
    double unattributed[3];	/* cpu s, disk s, net bytes of breadcrumb 0 */
    uint64_t unmatchedDisk;
    SdBufferAccess *log;
    size_t nlog, capLog;
    int64_t binStart;		/* Start of the open series interval. */
    double binSums[256][3];	/* Retired work of the open interval. */
    int binUsed[256];
    SdClientSum clients[256];
    Tcl_HashTable tombs;	/* breadcrumb -> SdTomb * */
    int64_t nextSweep;		/* Trace time of the next retirement. */
    uint64_t lateRecords, refusedStitches;
    size_t peakHeld;		/* Most nodes and tombstones at once. */
    SdRequestRow *reqRows;
    size_t nreq, capReq;
    Tcl_Obj *series;		/* rows {time client cpu disk bytes} */
    Tcl_HashTable spans;	/* {service, name} -> SdSpanSum * */
    Tcl_HashTable clientSpans;	/* {client, service} -> SdSpanSum * */
    const Rb_Schema *schema;	/* The run's, for the span names. */
    int started;
} DemandState;

/* What SpanSelf records billed to an endpoint or a client's service. */
typedef struct SdSpanSum {
    double spans, self;		/* self in s */
} SdSpanSum;

static const Rb_Option demandOptions[] = {
    {"-bandwidth", RB_OPT_DOUBLE, offsetof(DemandState, bandwidth), "0",
     "network bandwidth in bytes/s, for network time (0: none)"},
    {"-perrequest", RB_OPT_BOOL, offsetof(DemandState, perRequest), "0",
     "also set RequestDemand, a row per root request"},
    {"-bufferlog", RB_OPT_BOOL, offsetof(DemandState, bufferLog), "0",
     "keep the buffer-cache access sequence (BufferAccesses)"},
    {"-interval", RB_OPT_TIME, offsetof(DemandState, interval), "0",
     "prune into DemandSeries every interval (0: no series)"},
    {"-retire", RB_OPT_TIME, offsetof(DemandState, retire), "10",
     "bill and free a breadcrumb quiet this long (0: keep all to the end)"},
    {NULL}
};

static const char *const demandAttrs[] = {
    "ClientDemand", "RequestDemand", "UnattributedCpu", "UnattributedDisk",
    "UnattributedNetBytes", "UnmatchedDiskOps",
    "BufferAccesses", "DemandSeries", "LateRecords", "RefusedStitches",
    "PeakBreadcrumbs", "SpanDemand", "ClientSpanDemand", NULL
};

/*
 * FreeTables --
 *	Frees the per-run state (not the options).
 */
static void
FreeTables(DemandState *st)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;

    if (!st->started) {
	return;
    }
    for (e = Tcl_FirstHashEntry(&st->procs, &s); e; e = Tcl_NextHashEntry(&s)) {
	free(Tcl_GetHashValue(e));
    }
    for (e = Tcl_FirstHashEntry(&st->diskOps, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	free(Tcl_GetHashValue(e));
    }
    for (e = Tcl_FirstHashEntry(&st->tombs, &s); e; e = Tcl_NextHashEntry(&s)) {
	SdTomb *tomb = Tcl_GetHashValue(e);

	free(tomb->shares);
	free(tomb);
    }
    Tcl_DeleteHashTable(&st->tombs);
    for (e = Tcl_FirstHashEntry(&st->spans, &s); e; e = Tcl_NextHashEntry(&s)) {
	free(Tcl_GetHashValue(e));
    }
    for (e = Tcl_FirstHashEntry(&st->clientSpans, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	free(Tcl_GetHashValue(e));
    }
    Tcl_DeleteHashTable(&st->spans);
    Tcl_DeleteHashTable(&st->clientSpans);
    free(st->reqRows);
    st->reqRows = NULL;
    st->nreq = st->capReq = 0;
    Tcl_DeleteHashTable(&st->procs);
    Tcl_DeleteHashTable(&st->threads);
    Tcl_DeleteHashTable(&st->diskOps);
    Sd_GraphFree(&st->graph);
    free(st->log);
    st->log = NULL;
    st->nlog = st->capLog = 0;
    if (st->series) {
	Tcl_DecrRefCount(st->series);
	st->series = NULL;
    }
    st->started = 0;
}

static void
DemandFree(Rb_Analyzer *a)
{
    FreeTables(a->state);
}

static int
DemandStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    DemandState *st = a->state;

    FreeTables(st);
    if (Sd_CheckSchema(a, run) != TCL_OK
	    || Sd_ResolveFields(a, run, &st->f) != TCL_OK) {
	return TCL_ERROR;
    }
    Sd_GraphInit(&st->graph);
    Tcl_InitHashTable(&st->procs, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&st->threads, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&st->diskOps, (int)(2 * sizeof(int64_t) / sizeof(int)));
    Tcl_InitHashTable(&st->tombs, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&st->spans, (int)(2 * sizeof(int64_t) / sizeof(int)));
    Tcl_InitHashTable(&st->clientSpans,
	    (int)(2 * sizeof(int64_t) / sizeof(int)));
    st->schema = run->schema;
    memset(st->unattributed, 0, sizeof(st->unattributed));
    memset(st->binSums, 0, sizeof(st->binSums));
    memset(st->binUsed, 0, sizeof(st->binUsed));
    memset(st->clients, 0, sizeof(st->clients));
    st->unmatchedDisk = 0;
    st->nextSweep = INT64_MIN;
    st->lateRecords = st->refusedStitches = 0;
    st->peakHeld = 0;
    st->binStart = RB_ABSENT;
    st->series = Tcl_NewListObj(0, NULL);
    Tcl_IncrRefCount(st->series);
    st->started = 1;
    return TCL_OK;
}

/*
 * SpanSum --
 *	The sum kept under key {k0, k1} of table t, made on first use.
 */
static SdSpanSum *
SpanSum(Tcl_HashTable *t, int64_t k0, int64_t k1)
{
    int64_t key[2] = {k0, k1};
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(t, (const char *)key, &isNew);

    if (isNew) {
	Tcl_SetHashValue(e, Rb_Alloc(sizeof(SdSpanSum)));
    }
    return Tcl_GetHashValue(e);
}

static SdProc *
Proc(DemandState *st, int64_t pid)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&st->procs,
	    (const char *)(intptr_t)pid, &isNew);

    if (isNew) {
	Tcl_SetHashValue(e, Rb_Alloc(sizeof(SdProc)));
    }
    return Tcl_GetHashValue(e);
}

static Tcl_HashEntry *
Thread(DemandState *st, int64_t pid, int64_t tid)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&st->threads,
	    (const char *)(intptr_t)((uint64_t)pid << 32 | (uint32_t)tid),
	    &isNew);

    if (isNew) {
	Tcl_SetHashValue(e, (ClientData)0);
    }
    return e;
}

/*
 * Running --
 *	Whether a process is on a processor: as kernel switches say, or,
 *	for a process no kernel switch has named, once user-level switches
 *	have shown it running a thread (a processor of its own).
 */
static int
Running(const SdProc *p)
{
    return p->kernelSeen ? p->onCpu : p->userSeen;
}

/*
 * Tomb --
 *	The tombstone of a retired breadcrumb, or NULL.
 */
static SdTomb *
Tomb(DemandState *st, int64_t bc)
{
    Tcl_HashEntry *e = Tcl_FindHashEntry(&st->tombs,
	    (const char *)(intptr_t)bc);

    return e ? Tcl_GetHashValue(e) : NULL;
}

/*
 * Live --
 *	The node of breadcrumb bc, made on first use, marked active at t;
 *	NULL if bc was retired (its tombstone in *tombPtr, when asked).
 */
static SdNode *
Live(DemandState *st, int64_t bc, int64_t t, SdTomb **tombPtr)
{
    SdNode *n = Sd_GraphFind(&st->graph, bc);
    SdTomb *tomb = NULL;

    if (n == NULL && (tomb = Tomb(st, bc)) == NULL) {
	n = Sd_GraphNode(&st->graph, bc);
    }
    if (n != NULL && t > n->lastTime) {
	n->lastTime = t;
    }
    if (tombPtr != NULL) {
	*tombPtr = tomb;
    }
    return n;
}

/*
 * BinAdd --
 *	Adds v of resource r to the open series interval's sum for the
 *	client of root.
 */
static void
BinAdd(DemandState *st, int64_t root, int r, double v)
{
    st->binSums[SD_CLIENT(root)][r] += v;
    st->binUsed[SD_CLIENT(root)] = 1;
}

/*
 * BillShares --
 *	Adds v of resource r (0 cpu s, 1 disk s, 2 net bytes) to the
 *	clients of a roll-up, and to the open series interval.
 */
static void
BillShares(DemandState *st, const SdShare *sh, int ns, int r, double v)
{
    int j;

    for (j = 0; j < ns; j++) {
	SdClientSum *c = &st->clients[SD_CLIENT(sh[j].root)];
	double w = sh[j].weight * v;

	c->used = 1;
	if (r == 0) {
	    c->cpu += w;
	} else if (r == 1) {
	    c->disk += w;
	} else {
	    c->netBytes += w;
	}
	if (st->interval > 0) {
	    BinAdd(st, sh[j].root, r, w);
	}
    }
}

/*
 * AddDemand --
 *	Adds to resource r (0 cpu s, 1 disk s, 2 net bytes) of breadcrumb
 *	bc at time t; work of breadcrumb 0 (no request) is kept as
 *	unattributed, work of a retired breadcrumb goes straight to the
 *	clients of its roll-up.
 */
static void
AddDemand(DemandState *st, int64_t bc, int r, double v, int64_t t)
{
    SdTomb *tomb;
    SdNode *n;

    if (bc == 0) {
	st->unattributed[r] += v;
	return;
    }
    n = Live(st, bc, t, &tomb);
    if (n == NULL) {
	BillShares(st, tomb->shares, tomb->nshares, r, v);
	return;
    }
    if (r == 0) {
	n->cpu += v;
    } else if (r == 1) {
	n->disk += v;
    } else {
	n->netBytes += v;
    }
    if (st->interval > 0) {
	n->pend[r] += v;
    }
}

/*
 * Charge --
 *	Bills a process's running thread for the time since its last
 *	charge, up to t.
 */
static void
Charge(DemandState *st, int64_t pid, SdProc *p, int64_t t)
{
    if (Running(p) && p->curTid != 0 && t > p->lastCharge) {
	int64_t bc = (int64_t)(intptr_t)Tcl_GetHashValue(Thread(st, pid,
		p->curTid));

	AddDemand(st, bc, 0, (t - p->lastCharge) / NS, t);
    }
    if (t > p->lastCharge) {
	p->lastCharge = t;
    }
}

/*
 * AddRow --
 *	Appends a series row {time client cpu disk bytes}.
 */
static void
AddRow(Tcl_Obj *rows, double time, int client, const double v[3])
{
    Tcl_Obj *row[5];

    row[0] = Tcl_NewDoubleObj(time);
    row[1] = Tcl_NewIntObj(client);
    row[2] = Tcl_NewDoubleObj(v[0]);
    row[3] = Tcl_NewDoubleObj(v[1]);
    row[4] = Tcl_NewDoubleObj(v[2]);
    Tcl_ListObjAppendElement(NULL, rows, Tcl_NewListObj(5, row));
}

/*
 * Prune --
 *	Closes the series interval [binStart, binEnd): bills running
 *	threads up to binEnd, rolls each live breadcrumb's work since the
 *	last prune up to clients through the graph as it stands, adds the
 *	work of breadcrumbs retired in the interval, and appends a row per
 *	client to the series.
 */
static void
Prune(DemandState *st, int64_t binEnd)
{
    int k, ns;
    Tcl_HashSearch s;
    Tcl_HashEntry *e;

    for (e = Tcl_FirstHashEntry(&st->procs, &s); e; e = Tcl_NextHashEntry(&s)) {
	Charge(st, (int64_t)(intptr_t)Tcl_GetHashKey(&st->procs, e),
		Tcl_GetHashValue(e), binEnd);
    }
    Sd_GraphForgetRoots(&st->graph);
    for (e = Tcl_FirstHashEntry(&st->graph.nodes, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	SdNode *n = Tcl_GetHashValue(e);
	const SdShare *sh;

	if (n->pend[0] == 0 && n->pend[1] == 0 && n->pend[2] == 0) {
	    continue;
	}
	sh = Sd_GraphRoots(&st->graph, n, &ns);
	for (k = 0; k < 3; k++) {
	    int j;

	    for (j = 0; j < ns; j++) {
		BinAdd(st, sh[j].root, k, sh[j].weight * n->pend[k]);
	    }
	}
	memset(n->pend, 0, sizeof(n->pend));
    }
    for (k = 0; k < 256; k++) {
	if (st->binUsed[k]) {
	    AddRow(st->series, st->binStart / NS, k, st->binSums[k]);
	}
    }
    memset(st->binSums, 0, sizeof(st->binSums));
    memset(st->binUsed, 0, sizeof(st->binUsed));
    Sd_GraphForgetRoots(&st->graph);
}

/*
 * AdvanceBins --
 *	Prunes every interval that ends at or before t.  More than
 *	MAX_QUIET_BINS intervals without a record are crossed in one step
 *	(their CPU, if a thread ran all along, lands in t's interval), so
 *	a wild timestamp cannot stall the run.
 */
#define MAX_QUIET_BINS 100000

static void
AdvanceBins(DemandState *st, int64_t t)
{
    __int128 gap;

    if (st->binStart == RB_ABSENT) {
	st->binStart = t;
	return;
    }
    while ((__int128)t - st->binStart >= st->interval) {
	Prune(st, st->binStart + st->interval);
	st->binStart += st->interval;
	gap = ((__int128)t - st->binStart) / st->interval;
	if (gap > MAX_QUIET_BINS) {
	    st->binStart += (int64_t)gap * st->interval;
	}
    }
}

/*
 * MainClient --
 *	The client bearing the largest share of a roll-up.
 */
static int
MainClient(const SdShare *sh, int ns)
{
    int j, best = 0;

    for (j = 1; j < ns; j++) {
	if (sh[j].weight > sh[best].weight) {
	    best = j;
	}
    }
    return SD_CLIENT(sh[best].root);
}

/*
 * Retire --
 *	Bills node n (which has no children) to the clients of its
 *	roll-up, and to its root requests' totals while they are live;
 *	a root request retiring counts as a request of its client and
 *	makes its RequestDemand row.  Frees the node, leaving a tombstone
 *	unless final, then retires each parent left quiet and childless.
 */
static void
Retire(DemandState *st, SdNode *n, int64_t now, int final)
{
    int ns, j, k, nparents = n->nparents;
    const SdShare *sh = Sd_GraphRoots(&st->graph, n, &ns);
    int64_t parents[8], *ps = parents;
    size_t x;

    for (j = 0; j < ns; j++) {
	SdClientSum *c = &st->clients[SD_CLIENT(sh[j].root)];
	double w = sh[j].weight;
	SdNode *root = Sd_GraphFind(&st->graph, sh[j].root);

	c->used = 1;
	c->cpu += w * n->cpu;
	c->disk += w * n->disk;
	c->netBytes += w * n->netBytes;
	for (k = 0; k < 6; k++) {
	    c->buf[k] += w * n->buf[k];
	}
	for (k = 0; k < 3; k++) {
	    if (n->pend[k] != 0) {
		BinAdd(st, sh[j].root, k, w * n->pend[k]);
	    }
	}
	if (root != NULL) {
	    root->acc[0] += w * n->cpu;
	    root->acc[1] += w * n->disk;
	    root->acc[2] += w * n->netBytes;
	}
    }
    for (x = n->logHead; x != 0; x = st->log[x - 1].next) {
	st->log[x - 1].client = MainClient(sh, ns);
    }
    if (n->nparents == 0 && n->ninherit == 0) {
	st->clients[SD_CLIENT(n->bc)].used = 1;
	st->clients[SD_CLIENT(n->bc)].requests++;
	if (st->perRequest) {
	    if (st->nreq == st->capReq) {
		st->capReq = st->capReq ? 2 * st->capReq : 256;
		st->reqRows = Rb_ReallocArray(st->reqRows, st->capReq,
			sizeof(SdRequestRow));
	    }
	    st->reqRows[st->nreq].bc = n->bc;
	    memcpy(st->reqRows[st->nreq++].v, n->acc, sizeof(n->acc));
	}
    }
    if (!final) {
	int isNew;
	Tcl_HashEntry *e = Tcl_CreateHashEntry(&st->tombs,
		(const char *)(intptr_t)n->bc, &isNew);
	SdTomb *tomb = isNew ? Rb_Alloc(sizeof(*tomb)) : Tcl_GetHashValue(e);

	tomb->retiredAt = now;
	tomb->nshares = ns;
	tomb->shares = Rb_ReallocArray(tomb->shares, ns, sizeof(SdShare));
	memcpy(tomb->shares, sh, ns * sizeof(SdShare));
	Tcl_SetHashValue(e, tomb);
    }
    if (nparents > 8) {
	ps = Rb_AllocArray(nparents, sizeof(int64_t));
    }
    if (nparents > 0) {
	memcpy(ps, n->parents, nparents * sizeof(int64_t));
    }
    Sd_GraphRemove(&st->graph, n);
    for (j = 0; j < nparents; j++) {
	SdNode *p = Sd_GraphFind(&st->graph, ps[j]);

	if (p != NULL && p->nchildren == 0 && (final
		|| (__int128)p->lastTime + st->retire <= now)) {
	    Retire(st, p, now, final);
	}
    }
    if (ps != parents) {
	free(ps);
    }
}

/*
 * Sweep --
 *	Retires every breadcrumb quiet for -retire by now (every one, if
 *	final) whose sub-requests are all retired, and forgets tombstones
 *	older than TOMB_RETIRES times -retire.
 */
static void
Sweep(DemandState *st, int64_t now, int final)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;
    int64_t *leaves;
    size_t nleaves = 0, k;

    for (e = Tcl_FirstHashEntry(&st->tombs, &s); e; e = Tcl_NextHashEntry(&s)) {
	SdTomb *tomb = Tcl_GetHashValue(e);

	if (final || (__int128)tomb->retiredAt
		+ (__int128)TOMB_RETIRES * st->retire <= now) {
	    free(tomb->shares);
	    free(tomb);
	    Tcl_DeleteHashEntry(e);
	}
    }
    Sd_GraphForgetRoots(&st->graph);
    leaves = Rb_AllocArray(st->graph.nodes.numEntries + 1, sizeof(int64_t));
    for (e = Tcl_FirstHashEntry(&st->graph.nodes, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	SdNode *n = Tcl_GetHashValue(e);

	if (n->nchildren == 0
		&& (final || (__int128)n->lastTime + st->retire <= now)) {
	    leaves[nleaves++] = n->bc;
	}
    }
    for (k = 0; k < nleaves; k++) {
	SdNode *n = Sd_GraphFind(&st->graph, leaves[k]);

	if (n != NULL) {
	    Retire(st, n, now, final);
	}
    }
    free(leaves);
    Sd_GraphForgetRoots(&st->graph);
}

/*
 * LogBuffer --
 *	Appends one buffer-cache access to the sequence kept for the cache
 *	model; its client is known when its breadcrumb retires (or now, if
 *	it already has).
 */
static void
LogBuffer(DemandState *st, const Rb_Batch *b, int i, int kind, SdNode *n,
	const SdTomb *tomb)
{
    const SdFields *f = &st->f;
    SdBufferAccess *x;

    if (st->nlog == st->capLog) {
	st->capLog = st->capLog ? 2 * st->capLog : 1024;
	st->log = Rb_ReallocArray(st->log, st->capLog, sizeof(SdBufferAccess));
    }
    x = &st->log[st->nlog++];
    x->time = b->col[SD_F_TIME][i];
    x->bc = b->col[f->bc][i];
    x->kind = kind;
    x->file = f->file >= 0 ? b->col[f->file][i] : RB_ABSENT;
    x->offset = f->offset >= 0 ? b->col[f->offset][i] : RB_ABSENT;
    x->size = f->size >= 0 ? b->col[f->size][i] : RB_ABSENT;
    x->client = -1;
    x->next = 0;
    if (n != NULL) {
	x->next = n->logHead;
	n->logHead = st->nlog;
    } else if (tomb != NULL) {
	x->client = MainClient(tomb->shares, tomb->nshares);
    }
}

static inline int64_t
Col(const Rb_Batch *b, int field, int i)
{
    return field >= 0 ? b->col[field][i] : RB_ABSENT;
}

/*
 * StitchRecord --
 *	A Stitch from src to dst at t.  Into a retired dst it is late and
 *	left out; from a retired src, dst takes the roll-up src had.
 *	Returns whether it named a retired breadcrumb.
 */
static int
StitchRecord(DemandState *st, int64_t src, int64_t dst, int64_t t)
{
    SdTomb *srcTomb, *dstTomb;
    SdNode *d;

    if (src == RB_ABSENT || dst == RB_ABSENT || src == 0 || dst == 0) {
	return 0;
    }
    d = Live(st, dst, t, &dstTomb);
    if (d == NULL) {
	return 1;
    }
    if (Live(st, src, t, &srcTomb) == NULL) {
	Sd_GraphInherit(d, srcTomb->shares, srcTomb->nshares);
	return 1;
    }
    if (Sd_GraphStitch(&st->graph, src, dst) != SD_STITCH_OK) {
	st->refusedStitches++;
    }
    return 0;
}

/*
 * DemandRecord --
 *	One activity record.  Records are taken in the order given, which
 *	for CPU accounting must be time order per process.
 */
static void
DemandRecord(Rb_Analyzer *a, const Rb_Batch *b, int i)
{
    DemandState *st = a->state;
    const SdFields *f = &st->f;
    int64_t t = b->col[SD_F_TIME][i], type = b->col[f->type][i];
    int64_t bc = b->col[f->bc][i], pid = b->col[f->pid][i];
    int64_t tid = b->col[f->tid][i];
    SdProc *p;
    SdNode *n = NULL;
    SdTomb *tomb = NULL;
    size_t held;
    int k, late = 0;

    if (st->interval > 0) {
	AdvanceBins(st, t);
    }
    if (st->retire > 0 && t >= st->nextSweep) {
	Sweep(st, t, 0);
	st->nextSweep = t > INT64_MAX - st->retire / 4 - 1 ? INT64_MAX
		: t + st->retire / 4 + 1;
    }
    if (type == f->tKernelSwitch) {
	int64_t oldPid = Col(b, f->oldPid, i), newPid = Col(b, f->newPid, i);

	if (oldPid > 0 && oldPid != RB_ABSENT) {
	    p = Proc(st, oldPid);
	    Charge(st, oldPid, p, t);
	    p->kernelSeen = 1;
	    p->onCpu = 0;
	}
	if (newPid > 0 && newPid != RB_ABSENT) {
	    p = Proc(st, newPid);
	    Charge(st, newPid, p, t);
	    p->kernelSeen = 1;
	    p->onCpu = 1;
	    p->lastCharge = t;
	}
	return;
    }
    if (type == f->tUserSwitch) {
	int64_t newTid = Col(b, f->newTid, i);

	p = Proc(st, pid);
	Charge(st, pid, p, t);
	if (!p->userSeen && !p->kernelSeen) {
	    p->lastCharge = t;
	}
	p->userSeen = 1;
	p->curTid = newTid == RB_ABSENT ? 0 : newTid;
	/* A thread scheduler that knows what request the new thread takes
	 * up says so in the switch's breadcrumb. */
	if (bc != 0 && p->curTid != 0) {
	    Tcl_SetHashValue(Thread(st, pid, p->curTid),
		    (ClientData)(intptr_t)bc);
	}
	return;
    }

    /* Any other record says what request its thread now works on. */
    p = Proc(st, pid);
    if (!p->userSeen && p->curTid != tid) {
	Charge(st, pid, p, t);
	p->curTid = tid;
    } else if (p->curTid == tid) {
	Charge(st, pid, p, t);
    }
    Tcl_SetHashValue(Thread(st, pid, tid), (ClientData)(intptr_t)bc);
    if (bc != 0) {
	n = Live(st, bc, t, &tomb);
	late = n == NULL;
    }

    if (type == f->tSpanSelf) {
	int64_t self = Col(b, f->self, i), svc = Col(b, f->service, i);
	SdSpanSum *sum;

	if (self != RB_ABSENT && svc != RB_ABSENT) {
	    /* A span's own time: billed to its endpoint, and to its
	     * service for the client its breadcrumb names. */
	    sum = SpanSum(&st->spans, svc, Col(b, f->name, i));
	    sum->spans++;
	    sum->self += self / NS;
	    sum = SpanSum(&st->clientSpans, SD_CLIENT(bc), svc);
	    sum->spans++;
	    sum->self += self / NS;
	}
    } else if (type == f->tStitch) {
	late |= StitchRecord(st, Col(b, f->srcBc, i), Col(b, f->dstBc, i), t);
    } else if (type == f->tDiskStart) {
	int64_t key[2] = {Col(b, f->disk, i), Col(b, f->ioId, i)};
	int isNew;
	Tcl_HashEntry *e = Tcl_CreateHashEntry(&st->diskOps,
		(const char *)key, &isNew);
	SdDiskOp *op = isNew ? Rb_Alloc(sizeof(*op)) : Tcl_GetHashValue(e);

	op->start = t;
	op->bc = bc;
	Tcl_SetHashValue(e, op);
    } else if (type == f->tDiskEnd) {
	int64_t key[2] = {Col(b, f->disk, i), Col(b, f->ioId, i)};
	Tcl_HashEntry *e = Tcl_FindHashEntry(&st->diskOps, (const char *)key);

	if (e == NULL) {
	    st->unmatchedDisk++;
	} else {
	    SdDiskOp *op = Tcl_GetHashValue(e);

	    AddDemand(st, op->bc, 1, (t - op->start) / NS, t);
	    free(op);
	    Tcl_DeleteHashEntry(e);
	}
    } else if (type == f->tNet) {
	int64_t bytes = Col(b, f->bytes, i);

	if (bytes != RB_ABSENT) {
	    AddDemand(st, bc, 2, (double)bytes, t);
	}
    } else {
	for (k = 0; k < 6; k++) {
	    if (type == f->tBuffer[k]) {
		if (n != NULL) {
		    n->buf[k]++;
		} else if (tomb != NULL) {
		    int j;

		    for (j = 0; j < tomb->nshares; j++) {
			SdClientSum *c = &st->clients[
				SD_CLIENT(tomb->shares[j].root)];

			c->used = 1;
			c->buf[k] += tomb->shares[j].weight;
		    }
		}
		if (st->bufferLog) {
		    LogBuffer(st, b, i, k, n, tomb);
		}
		break;
	    }
	}
    }
    if (late) {
	st->lateRecords++;
    }
    held = (size_t)st->graph.nodes.numEntries + st->tombs.numEntries;
    if (held > st->peakHeld) {
	st->peakHeld = held;
    }
}

/*
 * DemandBatch --
 *	The selected records in order.
 */
static void
DemandBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    int j;

    for (j = 0; j < nsel; j++) {
	DemandRecord(a, b, (int)sel[j]);
    }
}

/*
 * TableAttr --
 *	A table attribute with the numeric columns named in cols.
 */
static Rb_Attribute *
TableAttr(const char *name, const char *help, const char *const cols[],
	const char *const units[])
{
    Rb_Attribute *attr = Rb_AttrCreate(name, RB_ATTR_TABLE, "", help);
    int k;

    for (k = 0; cols[k]; k++) {
	Rb_AttrAddColumn(attr, cols[k], units[k], 0);
    }
    return attr;
}

/*
 * SpanTables --
 *	SpanDemand (service, endpoint, spans, self seconds) and
 *	ClientSpanDemand (client, service, spans, self seconds) from the
 *	SpanSelf records, when there were any.
 */
static void
SpanTables(Rb_Analyzer *a, DemandState *st)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;
    int t;

    for (t = 0; t < 2; t++) {
	Tcl_HashTable *table = t ? &st->clientSpans : &st->spans;
	Rb_Attribute *attr;

	if (table->numEntries == 0) {
	    continue;
	}
	attr = Rb_AttrCreate(t ? "ClientSpanDemand" : "SpanDemand",
		RB_ATTR_TABLE, "", t ? "per client and service: spans and "
		"their self time (duration less the children's)"
		: "per service and endpoint: spans and their self time "
		"(duration less the children's)");
	if (t) {
	    Rb_AttrAddColumn(attr, "client", "", 0);
	    Rb_AttrAddColumn(attr, "service", "", 1);
	} else {
	    Rb_AttrAddColumn(attr, "service", "", 1);
	    Rb_AttrAddColumn(attr, "endpoint", "", 1);
	}
	Rb_AttrAddColumn(attr, "spans", "", 0);
	Rb_AttrAddColumn(attr, "self", "s", 0);
	for (e = Tcl_FirstHashEntry(table, &s); e; e = Tcl_NextHashEntry(&s)) {
	    const int64_t *key = (const int64_t *)Tcl_GetHashKey(table, e);
	    const SdSpanSum *sum = Tcl_GetHashValue(e);
	    const char *name = key[1] == RB_ABSENT ? ""
		    : Rb_SchemaString(st->schema, key[1]);
	    int row = Rb_AttrAddRow(attr);

	    if (t) {
		Rb_AttrSetNum(attr, row, 0, (double)key[0]);
	    } else {
		Rb_AttrSetText(attr, row, 0,
			Rb_SchemaString(st->schema, key[0]));
	    }
	    Rb_AttrSetText(attr, row, 1, name ? name : "");
	    Rb_AttrSetNum(attr, row, 2, sum->spans);
	    Rb_AttrSetNum(attr, row, 3, sum->self);
	}
	Rb_AnalyzerSet(a, attr);
    }
}

/*
 * DemandEnd --
 *	Retires every breadcrumb left, so that all work is billed, and
 *	sets the Attributes.
 */
static int
DemandEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    static const char *const clientCols[] = {
	"client", "requests", "cpu", "disk", "netBytes", "netTime",
	"bufferReadHit", "bufferReadMiss", "bufferWrite", "bufferReadAhead",
	"bufferFlush", "bufferEvict", NULL
    };
    static const char *const clientUnits[] = {
	"", "", "s", "s", "bytes", "s", "", "", "", "", "", ""
    };
    static const char *const reqCols[] = {
	"client", "cpu", "disk", "netBytes", NULL
    };
    static const char *const reqUnits[] = {"", "s", "s", "bytes"};
    static const char *const seriesCols[] = {
	"time", "client", "cpu", "disk", "netBytes", NULL
    };
    static const char *const seriesUnits[] = {"s", "", "s", "s", "bytes"};
    DemandState *st = a->state;
    int j, k, row;
    Rb_Attribute *attr, *req;
    Tcl_Obj **rows;
    int nrows;
    char hex[24];

    if (st->interval > 0 && st->binStart != RB_ABSENT) {
	/* Running threads are billed up to the end. */
	Prune(st, run->lastTime >= st->binStart ? run->lastTime + 1
		: st->binStart + 1);
    }
    Sweep(st, INT64_MAX, 1);
    if (st->perRequest) {
	req = Rb_AttrCreate("RequestDemand", RB_ATTR_TABLE, "", "demand of "
		"each root request, sub-requests and its share of coalesced "
		"work included");
	Rb_AttrAddColumn(req, "breadcrumb", "", 1);
	for (k = 0; reqCols[k]; k++) {
	    Rb_AttrAddColumn(req, reqCols[k], reqUnits[k], 0);
	}
	for (j = 0; j < (int)st->nreq; j++) {
	    snprintf(hex, sizeof(hex), "0x%016llx",
		    (unsigned long long)st->reqRows[j].bc);
	    row = Rb_AttrAddRow(req);
	    Rb_AttrSetText(req, row, 0, hex);
	    Rb_AttrSetNum(req, row, 1, SD_CLIENT(st->reqRows[j].bc));
	    for (k = 0; k < 3; k++) {
		Rb_AttrSetNum(req, row, 2 + k, st->reqRows[j].v[k]);
	    }
	}
	Rb_AnalyzerSet(a, req);
    }

    attr = TableAttr("ClientDemand", "per client: root requests, CPU, disk "
	    "and network demand, buffer-cache accesses", clientCols,
	    clientUnits);
    for (k = 0; k < 256; k++) {
	const SdClientSum *c = &st->clients[k];

	if (!c->used) {
	    continue;
	}
	row = Rb_AttrAddRow(attr);
	Rb_AttrSetNum(attr, row, 0, k);
	Rb_AttrSetNum(attr, row, 1, c->requests);
	Rb_AttrSetNum(attr, row, 2, c->cpu);
	Rb_AttrSetNum(attr, row, 3, c->disk);
	Rb_AttrSetNum(attr, row, 4, c->netBytes);
	Rb_AttrSetNum(attr, row, 5, st->bandwidth > 0
		? c->netBytes / st->bandwidth : 0);
	for (j = 0; j < 6; j++) {
	    Rb_AttrSetNum(attr, row, 6 + j, c->buf[j]);
	}
    }
    Rb_AnalyzerSet(a, attr);
    SpanTables(a, st);
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnattributedCpu", st->unattributed[0],
	    "s", "CPU time of threads not working on any request"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnattributedDisk", st->unattributed[1],
	    "s", "disk service time of operations with breadcrumb 0"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnattributedNetBytes",
	    st->unattributed[2], "bytes", "bytes sent with breadcrumb 0"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnmatchedDiskOps",
	    (double)(st->unmatchedDisk + st->diskOps.numEntries), "",
	    "DiskOpEnd without a start, and starts never ended"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("LateRecords", (double)st->lateRecords,
	    "", "records naming a breadcrumb already retired (billed to its "
	    "roll-up)"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("RefusedStitches",
	    (double)st->refusedStitches, "", "stitches refused for closing a "
	    "cycle or chaining deeper than 64"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("PeakBreadcrumbs", (double)st->peakHeld,
	    "", "most breadcrumbs held at once, live and retired "
	    "(tombstones)"));

    if (st->bufferLog) {
	attr = Rb_AttrCreate("BufferAccesses", RB_ATTR_TABLE, "",
		"buffer-cache access sequence, for the cache model");
	Rb_AttrAddColumn(attr, "time", "s", 0);
	Rb_AttrAddColumn(attr, "client", "", 0);
	Rb_AttrAddColumn(attr, "kind", "", 1);
	Rb_AttrAddColumn(attr, "file", "", 0);
	Rb_AttrAddColumn(attr, "offset", "bytes", 0);
	Rb_AttrAddColumn(attr, "size", "bytes", 0);
	for (k = 0; k < (int)st->nlog; k++) {
	    const SdBufferAccess *x = &st->log[k];

	    row = Rb_AttrAddRow(attr);
	    Rb_AttrSetNum(attr, row, 0, x->time / NS);
	    Rb_AttrSetNum(attr, row, 1, x->client);
	    Rb_AttrSetText(attr, row, 2, Sd_BufferTypes[x->kind]);
	    Rb_AttrSetNum(attr, row, 3, (double)x->file);
	    Rb_AttrSetNum(attr, row, 4, (double)x->offset);
	    Rb_AttrSetNum(attr, row, 5, (double)x->size);
	}
	Rb_AnalyzerSet(a, attr);
    }
    if (st->interval > 0) {
	attr = TableAttr("DemandSeries", "per interval and client: CPU, disk "
		"and network demand (pruned counters)", seriesCols,
		seriesUnits);
	attr->kind = RB_ATTR_SERIES;
	Tcl_ListObjGetElements(NULL, st->series, &nrows, &rows);
	for (j = 0; j < nrows; j++) {
	    Tcl_Obj **cells;
	    int nc;
	    double v;

	    row = Rb_AttrAddRow(attr);
	    Tcl_ListObjGetElements(NULL, rows[j], &nc, &cells);
	    for (k = 0; k < nc; k++) {
		Tcl_GetDoubleFromObj(NULL, cells[k], &v);
		Rb_AttrSetNum(attr, row, k, v);
	    }
	}
	Rb_AnalyzerSet(a, attr);
    }
    return TCL_OK;
}

const Rb_AnalyzerClass Sd_DemandAnalyzerClass = {
    .name = "StardustDemandAnalyzer",
    .help = "Stardust: per-client CPU, disk and network demand, stitched "
	    "sub-requests rolled up",
    .stateSize = sizeof(DemandState),
    .options = demandOptions,
    .attrs = demandAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .start = DemandStart,
    .batch = DemandBatch,
    .end = DemandEnd,
    .freeState = DemandFree,
};
