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
 */

#include <stdlib.h>
#include <string.h>
#include "plugins/stardust/stardust.h"

#define NS 1e9

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
} SdBufferAccess;

typedef struct DemandState {
    double bandwidth;		/* -bandwidth bytes/s, 0: no net time */
    int perRequest;		/* -perrequest */
    int bufferLog;		/* -bufferlog */
    int64_t interval;		/* -interval ns, 0: no series */

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
    Tcl_Obj *series;		/* rows {time client cpu disk bytes} */
    int started;
    int inert;			/* The run's records are not activity
				 * records. */
} DemandState;

static const Rb_Option demandOptions[] = {
    {"-bandwidth", RB_OPT_DOUBLE, offsetof(DemandState, bandwidth), "0",
     "network bandwidth in bytes/s, for network time (0: none)"},
    {"-perrequest", RB_OPT_BOOL, offsetof(DemandState, perRequest), "0",
     "also set RequestDemand, a row per root request"},
    {"-bufferlog", RB_OPT_BOOL, offsetof(DemandState, bufferLog), "0",
     "keep the buffer-cache access sequence (BufferAccesses)"},
    {"-interval", RB_OPT_TIME, offsetof(DemandState, interval), "0",
     "prune into DemandSeries every interval (0: no series)"},
    {NULL}
};

static const char *const demandAttrs[] = {
    "ClientDemand", "RequestDemand", "UnattributedCpu", "UnattributedDisk",
    "UnattributedNetBytes", "UnmatchedDiskOps",
    "BufferAccesses", "DemandSeries", NULL
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
    /* On records without breadcrumbs (an I/O trace in a kit of every
     * class) there is nothing to bill: the tables stay empty. */
    st->inert = Rb_SchemaFieldIndex(run->schema, "breadcrumb") < 0;
    if (!st->inert && Sd_ResolveFields(a, run, &st->f) != TCL_OK) {
	return TCL_ERROR;
    }
    Sd_GraphInit(&st->graph);
    Tcl_InitHashTable(&st->procs, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&st->threads, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&st->diskOps, (int)(2 * sizeof(int64_t) / sizeof(int)));
    memset(st->unattributed, 0, sizeof(st->unattributed));
    st->unmatchedDisk = 0;
    st->binStart = RB_ABSENT;
    st->series = Tcl_NewListObj(0, NULL);
    Tcl_IncrRefCount(st->series);
    st->started = 1;
    return TCL_OK;
}

static SdProc *
Proc(DemandState *st, int64_t pid)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&st->procs,
	    (const char *)(intptr_t)pid, &isNew);

    if (isNew) {
	Tcl_SetHashValue(e, calloc(1, sizeof(SdProc)));
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
 * AddDemand --
 *	Adds to resource r (0 cpu s, 1 disk s, 2 net bytes) of breadcrumb
 *	bc; work of breadcrumb 0 (no request) is kept as unattributed.
 */
static void
AddDemand(DemandState *st, int64_t bc, int r, double v)
{
    SdNode *n;

    if (bc == 0) {
	st->unattributed[r] += v;
	return;
    }
    n = Sd_GraphNode(&st->graph, bc);
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

	AddDemand(st, bc, 0, (t - p->lastCharge) / NS);
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
 *	threads up to binEnd, rolls each breadcrumb's work since the last
 *	prune up to clients through the graph as it stands, and appends a
 *	row per client to the series.
 */
static void
Prune(DemandState *st, int64_t binEnd)
{
    double sums[256][3];
    int used[256], k, j, ns;
    Tcl_HashSearch s;
    Tcl_HashEntry *e;

    for (e = Tcl_FirstHashEntry(&st->procs, &s); e; e = Tcl_NextHashEntry(&s)) {
	Charge(st, (int64_t)(intptr_t)Tcl_GetHashKey(&st->procs, e),
		Tcl_GetHashValue(e), binEnd);
    }
    memset(sums, 0, sizeof(sums));
    memset(used, 0, sizeof(used));
    Sd_GraphForgetRoots(&st->graph);
    for (e = Tcl_FirstHashEntry(&st->graph.nodes, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	SdNode *n = Tcl_GetHashValue(e);
	const SdShare *sh;

	if (n->pend[0] == 0 && n->pend[1] == 0 && n->pend[2] == 0) {
	    continue;
	}
	sh = Sd_GraphRoots(&st->graph, n, &ns);
	for (j = 0; j < ns; j++) {
	    int c = SD_CLIENT(sh[j].root);

	    used[c] = 1;
	    for (k = 0; k < 3; k++) {
		sums[c][k] += sh[j].weight * n->pend[k];
	    }
	}
	memset(n->pend, 0, sizeof(n->pend));
    }
    for (k = 0; k < 256; k++) {
	if (used[k]) {
	    AddRow(st->series, st->binStart / NS, k, sums[k]);
	}
    }
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
 * LogBuffer --
 *	Appends one buffer-cache access to the sequence kept for the cache
 *	model.
 */
static void
LogBuffer(DemandState *st, const Rb_Batch *b, int i, int kind)
{
    const SdFields *f = &st->f;
    SdBufferAccess *x;

    if (st->nlog == st->capLog) {
	st->capLog = st->capLog ? 2 * st->capLog : 1024;
	st->log = realloc(st->log, st->capLog * sizeof(SdBufferAccess));
    }
    x = &st->log[st->nlog++];
    x->time = b->col[SD_F_TIME][i];
    x->bc = b->col[f->bc][i];
    x->kind = kind;
    x->file = f->file >= 0 ? b->col[f->file][i] : RB_ABSENT;
    x->offset = f->offset >= 0 ? b->col[f->offset][i] : RB_ABSENT;
    x->size = f->size >= 0 ? b->col[f->size][i] : RB_ABSENT;
}

static inline int64_t
Col(const Rb_Batch *b, int field, int i)
{
    return field >= 0 ? b->col[field][i] : RB_ABSENT;
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
    int k;

    if (st->interval > 0) {
	AdvanceBins(st, t);
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
	SdNode *n = Sd_GraphNode(&st->graph, bc);

	if (t < n->firstTime) {
	    n->firstTime = t;
	}
    }

    if (type == f->tStitch) {
	int64_t src = Col(b, f->srcBc, i), dst = Col(b, f->dstBc, i);

	if (src != RB_ABSENT && dst != RB_ABSENT && src != 0 && dst != 0) {
	    Sd_GraphStitch(&st->graph, src, dst);
	}
    } else if (type == f->tDiskStart) {
	int64_t key[2] = {Col(b, f->disk, i), Col(b, f->ioId, i)};
	int isNew;
	Tcl_HashEntry *e = Tcl_CreateHashEntry(&st->diskOps,
		(const char *)key, &isNew);
	SdDiskOp *op = isNew ? malloc(sizeof(*op)) : Tcl_GetHashValue(e);

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

	    AddDemand(st, op->bc, 1, (t - op->start) / NS);
	    free(op);
	    Tcl_DeleteHashEntry(e);
	}
    } else if (type == f->tNet) {
	int64_t bytes = Col(b, f->bytes, i);

	if (bytes != RB_ABSENT) {
	    AddDemand(st, bc, 2, (double)bytes);
	}
    } else {
	for (k = 0; k < 6; k++) {
	    if (type == f->tBuffer[k]) {
		if (bc != 0) {
		    Sd_GraphNode(&st->graph, bc)->buf[k]++;
		}
		if (st->bufferLog) {
		    LogBuffer(st, b, i, k);
		}
		break;
	    }
	}
    }
}

/*
 * DemandBatch --
 *	The selected records in order, unless the run has no activity
 *	records.
 */
static void
DemandBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    DemandState *st = a->state;
    int j;

    if (st->inert) {
	return;
    }
    for (j = 0; j < nsel; j++) {
	DemandRecord(a, b, (int)sel[j]);
    }
}

/*
 * MainClient --
 *	The client bearing the largest share of a node's work.
 */
static int
MainClient(SdGraph *g, int64_t bc)
{
    SdNode *n = Sd_GraphFind(g, bc);
    const SdShare *sh;
    int ns, j, best = 0;

    if (n == NULL) {
	return SD_CLIENT(bc);
    }
    sh = Sd_GraphRoots(g, n, &ns);
    for (j = 1; j < ns; j++) {
	if (sh[j].weight > sh[best].weight) {
	    best = j;
	}
    }
    return SD_CLIENT(sh[best].root);
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
 * DemandEnd --
 *	Rolls every breadcrumb's work up to root requests and clients and
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
    double client[256][11];
    int used[256], j, k, ns, row;
    Tcl_HashSearch s;
    Tcl_HashEntry *e;
    Rb_Attribute *attr, *req = NULL;
    Tcl_Obj **rows;
    int nrows;
    char hex[24];

    if (st->interval > 0 && st->binStart != RB_ABSENT) {
	Prune(st, run->lastTime >= st->binStart ? run->lastTime + 1
		: st->binStart + 1);
    }
    memset(client, 0, sizeof(client));
    memset(used, 0, sizeof(used));
    if (st->perRequest) {
	req = Rb_AttrCreate("RequestDemand", RB_ATTR_TABLE, "", "demand of "
		"each root request, sub-requests and its share of coalesced "
		"work included");
	Rb_AttrAddColumn(req, "breadcrumb", "", 1);
	for (k = 0; reqCols[k]; k++) {
	    Rb_AttrAddColumn(req, reqCols[k], reqUnits[k], 0);
	}
    }
    for (e = Tcl_FirstHashEntry(&st->graph.nodes, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	SdNode *n = Tcl_GetHashValue(e);
	const SdShare *sh = Sd_GraphRoots(&st->graph, n, &ns);

	if (n->nparents == 0) {
	    client[SD_CLIENT(n->bc)][0]++;
	    used[SD_CLIENT(n->bc)] = 1;
	}
	for (j = 0; j < ns; j++) {
	    int c = SD_CLIENT(sh[j].root);
	    double w = sh[j].weight;

	    used[c] = 1;
	    client[c][1] += w * n->cpu;
	    client[c][2] += w * n->disk;
	    client[c][3] += w * n->netBytes;
	    for (k = 0; k < 6; k++) {
		client[c][5 + k] += w * n->buf[k];
	    }
	}
    }
    if (req != NULL) {
	/* A second pass, with pend (empty after the last prune) as each
	 * root's accumulator. */
	for (e = Tcl_FirstHashEntry(&st->graph.nodes, &s); e;
		e = Tcl_NextHashEntry(&s)) {
	    SdNode *n = Tcl_GetHashValue(e), *root;
	    const SdShare *sh = Sd_GraphRoots(&st->graph, n, &ns);

	    for (j = 0; j < ns; j++) {
		root = Sd_GraphFind(&st->graph, sh[j].root);
		root->pend[0] += sh[j].weight * n->cpu;
		root->pend[1] += sh[j].weight * n->disk;
		root->pend[2] += sh[j].weight * n->netBytes;
	    }
	}
	for (e = Tcl_FirstHashEntry(&st->graph.nodes, &s); e;
		e = Tcl_NextHashEntry(&s)) {
	    SdNode *n = Tcl_GetHashValue(e);

	    if (n->nparents != 0) {
		continue;
	    }
	    snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)n->bc);
	    row = Rb_AttrAddRow(req);
	    Rb_AttrSetText(req, row, 0, hex);
	    Rb_AttrSetNum(req, row, 1, SD_CLIENT(n->bc));
	    for (k = 0; k < 3; k++) {
		Rb_AttrSetNum(req, row, 2 + k, n->pend[k]);
	    }
	    memset(n->pend, 0, sizeof(n->pend));
	}
	Rb_AnalyzerSet(a, req);
    }

    attr = TableAttr("ClientDemand", "per client: root requests, CPU, disk "
	    "and network demand, buffer-cache accesses", clientCols,
	    clientUnits);
    for (k = 0; k < 256; k++) {
	if (!used[k]) {
	    continue;
	}
	row = Rb_AttrAddRow(attr);
	Rb_AttrSetNum(attr, row, 0, k);
	Rb_AttrSetNum(attr, row, 1, client[k][0]);
	Rb_AttrSetNum(attr, row, 2, client[k][1]);
	Rb_AttrSetNum(attr, row, 3, client[k][2]);
	Rb_AttrSetNum(attr, row, 4, client[k][3]);
	Rb_AttrSetNum(attr, row, 5, st->bandwidth > 0
		? client[k][3] / st->bandwidth : 0);
	for (j = 0; j < 6; j++) {
	    Rb_AttrSetNum(attr, row, 6 + j, client[k][5 + j]);
	}
    }
    Rb_AnalyzerSet(a, attr);
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnattributedCpu", st->unattributed[0],
	    "s", "CPU time of threads not working on any request"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnattributedDisk", st->unattributed[1],
	    "s", "disk service time of operations with breadcrumb 0"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnattributedNetBytes",
	    st->unattributed[2], "bytes", "bytes sent with breadcrumb 0"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("UnmatchedDiskOps",
	    (double)(st->unmatchedDisk + st->diskOps.numEntries), "",
	    "DiskOpEnd without a start, and starts never ended"));

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
	    Rb_AttrSetNum(attr, row, 1, x->bc == 0 ? -1
		    : MainClient(&st->graph, x->bc));
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
