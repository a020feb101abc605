/*
 * flowgraph.c --
 *
 *	StardustFlowGraphAnalyzer: request flow graphs.  The nodes are
 *	instrumentation points -- a record type, with its service and name
 *	when it has them ("Call fe read") -- and the edges carry latencies.
 *	Per request, a breadcrumb's records follow one another in time; a
 *	sub-request stitched in while its parent waits between two records
 *	A and B replaces the edge A->B by A->(child's first record) and
 *	(child's last record)->B, and one started after the parent's last
 *	record (delayed work) hangs from that last record.  The union over
 *	all requests counts each edge and averages its latency.  Each
 *	request's first time at each point is kept too, for the A-to-B
 *	query (stardust::latency).
 *
 *	Mergeable, exactly: everything is computed at the end from the
 *	records kept, so a later shard's records are appended to each
 *	breadcrumb's, its points numbered after ours in its order of first
 *	sight, and its changes to the request graph (new breadcrumbs and
 *	stitches, logged in record order) replayed after ours, which builds
 *	the graph one pass builds, down to the order its requests are walked.
 */

#include <stdlib.h>
#include <string.h>
#include "plugins/stardust/stardust.h"

#define NS 1e9

typedef struct FgRec {
    int64_t time;
    int point;			/* Index into the point names. */
} FgRec;

typedef struct FgCrumb {
    int n, cap;
    FgRec *recs;
    int sorted;
} FgCrumb;

typedef struct FgEdge {
    int from, to;
    double count, sum;		/* latencies in s */
} FgEdge;

typedef struct FlowState {
    int maxRequests;		/* -maxrequests for RequestPoints, 0 all */
    char *call;			/* -call: glob on a root's first point */
    int64_t client;		/* -client: a root's client, -1 any */
    int64_t sample;		/* -sample: roots walked, 0 all */
    int64_t seed;		/* -seed of the sample */
    Rb_Attribute *reqEdges;	/* RequestEdges while a kept root is */
    const char *reqName;	/* walked, and its name; else NULL. */

    SdFields f;
    SdGraph graph;		/* stitches */
    Tcl_HashTable crumbs;	/* breadcrumb -> FgCrumb * */
    Tcl_HashTable pointIds;	/* point name -> index */
    int npoints, capPoints;
    char **points;
    Tcl_HashTable edges;	/* {from, to} -> FgEdge * */
    int64_t (*ops)[2];		/* The graph's changes in order: {bc, 0} a
				 * new breadcrumb, {src, dst} a stitch. */
    size_t nops, capOps;
    int started;
} FlowState;

static const Rb_Option flowOptions[] = {
    {"-maxrequests", RB_OPT_INT, offsetof(FlowState, maxRequests), "0",
     "requests kept in RequestPoints and RequestEdges (0: all)"},
    {"-call", RB_OPT_STRING, offsetof(FlowState, call), "",
     "only root requests whose first point matches this glob (Figure "
     "4.12: one call type)"},
    {"-client", RB_OPT_INT, offsetof(FlowState, client), "-1",
     "only root requests of this client (the breadcrumb's top 8 bits; "
     "-1: any)"},
    {"-sample", RB_OPT_INT, offsetof(FlowState, sample), "0",
     "walk this many of the selected root requests, chosen at random "
     "(0: all)"},
    {"-seed", RB_OPT_INT, offsetof(FlowState, seed), "1",
     "seed of the -sample choice"},
    {NULL}
};

static const char *const flowAttrs[] = {
    "FlowEdges", "FlowGraphDot", "RequestPoints", "RequestEdges",
    "SelectedRequests", NULL
};

static void
FreeFlow(FlowState *st)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;
    int k;

    if (!st->started) {
	return;
    }
    for (e = Tcl_FirstHashEntry(&st->crumbs, &s); e; e = Tcl_NextHashEntry(&s)) {
	FgCrumb *c = Tcl_GetHashValue(e);

	free(c->recs);
	free(c);
    }
    for (e = Tcl_FirstHashEntry(&st->edges, &s); e; e = Tcl_NextHashEntry(&s)) {
	free(Tcl_GetHashValue(e));
    }
    for (k = 0; k < st->npoints; k++) {
	free(st->points[k]);
    }
    free(st->points);
    free(st->ops);
    st->ops = NULL;
    st->nops = st->capOps = 0;
    st->points = NULL;
    st->npoints = st->capPoints = 0;
    Tcl_DeleteHashTable(&st->crumbs);
    Tcl_DeleteHashTable(&st->pointIds);
    Tcl_DeleteHashTable(&st->edges);
    Sd_GraphFree(&st->graph);
    st->started = 0;
}

static void
FlowFree(Rb_Analyzer *a)
{
    FreeFlow(a->state);
}

static int
FlowStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    FlowState *st = a->state;

    FreeFlow(st);
    if (Sd_CheckSchema(a, run) != TCL_OK
	    || Sd_ResolveFields(a, run, &st->f) != TCL_OK) {
	return TCL_ERROR;
    }
    Sd_GraphInit(&st->graph);
    Tcl_InitHashTable(&st->crumbs, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&st->pointIds, TCL_STRING_KEYS);
    Tcl_InitHashTable(&st->edges, TCL_ONE_WORD_KEYS);
    st->started = 1;
    return TCL_OK;
}

/*
 * PointIndex --
 *	The index of the point of that name, made on first use.
 */
static int
PointIndex(FlowState *st, const char *name)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&st->pointIds, name, &isNew);

    if (isNew) {
	if (st->npoints == st->capPoints) {
	    st->capPoints = st->capPoints ? 2 * st->capPoints : 64;
	    st->points = Rb_ReallocArray(st->points, st->capPoints,
		    sizeof(char *));
	}
	st->points[st->npoints] = Rb_Strdup(name);
	Tcl_SetHashValue(e, (ClientData)(intptr_t)st->npoints++);
    }
    return (int)(intptr_t)Tcl_GetHashValue(e);
}

/*
 * GraphOp --
 *	Applies a change to the request graph, {bc, 0} a breadcrumb seen or
 *	{src, dst} a stitch, and logs it for a split run's merge.
 */
static void
GraphOp(FlowState *st, int64_t src, int64_t dst)
{
    if (st->nops == st->capOps) {
	st->capOps = st->capOps ? 2 * st->capOps : 64;
	st->ops = Rb_ReallocArray(st->ops, st->capOps, sizeof(*st->ops));
    }
    st->ops[st->nops][0] = src;
    st->ops[st->nops++][1] = dst;
    if (dst == 0) {
	Sd_GraphNode(&st->graph, src);
    } else {
	Sd_GraphStitch(&st->graph, src, dst);
    }
}

/*
 * PointOf --
 *	The instrumentation point of record i: its type, then its service
 *	attribute when it has one, and for a Call or Reply the name of the
 *	call.  Another type's attribute that happens to be called name (a
 *	file's, a user's) is a value of the record, not part of its point.
 * Results: the point's index, made on first use.
 */
static int
PointOf(FlowState *st, const Rb_Batch *b, int i)
{
    const SdFields *f = &st->f;
    Tcl_DString ds;
    int k, point;
    int64_t type = b->col[f->type][i];
    int fields[2] = {f->service,
	type == f->tCall || type == f->tReply ? f->name : -1};

    Tcl_DStringInit(&ds);
    Tcl_DStringAppend(&ds, Rb_SchemaString(b->schema, type), -1);
    for (k = 0; k < 2; k++) {
	const char *text = fields[k] >= 0 && b->col[fields[k]][i] != RB_ABSENT
		? Rb_SchemaString(b->schema, b->col[fields[k]][i]) : NULL;

	if (text != NULL && *text) {
	    Tcl_DStringAppend(&ds, " ", 1);
	    Tcl_DStringAppend(&ds, text, -1);
	}
    }
    point = PointIndex(st, Tcl_DStringValue(&ds));
    Tcl_DStringFree(&ds);
    return point;
}

/*
 * Crumb --
 *	The records of breadcrumb bc, or NULL; with create, made on first
 *	sight, when the breadcrumb joins the request graph.
 */
static FgCrumb *
Crumb(FlowState *st, int64_t bc, int create)
{
    int isNew;
    Tcl_HashEntry *e;

    if (!create) {
	e = Tcl_FindHashEntry(&st->crumbs, (const char *)(intptr_t)bc);
	return e ? Tcl_GetHashValue(e) : NULL;
    }
    e = Tcl_CreateHashEntry(&st->crumbs, (const char *)(intptr_t)bc, &isNew);
    if (isNew) {
	FgCrumb *c = Rb_Alloc(sizeof(*c));

	c->sorted = 1;
	Tcl_SetHashValue(e, c);
	GraphOp(st, bc, 0);
    }
    return Tcl_GetHashValue(e);
}

/*
 * AddRecord --
 *	Appends a record (time, point) to a breadcrumb's, noting when they
 *	fall out of time order.
 */
static void
AddRecord(FgCrumb *c, int64_t time, int point)
{
    if (c->n == c->cap) {
	c->cap = c->cap ? 2 * c->cap : 4;
	c->recs = Rb_ReallocArray(c->recs, c->cap, sizeof(FgRec));
    }
    if (c->n > 0 && time < c->recs[c->n - 1].time) {
	c->sorted = 0;
    }
    c->recs[c->n].time = time;
    c->recs[c->n].point = point;
    c->n++;
}

/*
 * FlowBatch --
 *	Keeps each request record's time and point under its breadcrumb;
 *	context switches are not instrumentation points, Stitch records
 *	build the graph.
 */
static void
FlowBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    FlowState *st = a->state;
    const SdFields *f = &st->f;
    int j;

    for (j = 0; j < nsel; j++) {
	int i = (int)sel[j];
	int64_t type = b->col[f->type][i], bc = b->col[f->bc][i];

	if (type == f->tStitch) {
	    int64_t src = b->col[f->srcBc][i], dst = b->col[f->dstBc][i];

	    if (src != RB_ABSENT && dst != RB_ABSENT && src && dst) {
		GraphOp(st, src, dst);
	    }
	    continue;
	}
	if (bc == 0 || type == f->tUserSwitch || type == f->tKernelSwitch
		|| type == f->tSpanSelf) {
	    continue;
	}
	AddRecord(Crumb(st, bc, 1), b->col[SD_F_TIME][i], PointOf(st, b, i));
    }
}

/*
 * FlowSerialize --
 *	The points by name, the graph's changes in order, and each
 *	breadcrumb's records (time, point) as they came.
 */
static int
FlowSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    FlowState *st = a->state;
    Tcl_HashSearch s;
    Tcl_HashEntry *e;
    size_t k;
    int r;

    Rb_BufPutInt(buf, st->npoints);
    for (r = 0; r < st->npoints; r++) {
	Rb_BufPutString(buf, st->points[r], strlen(st->points[r]));
    }
    Rb_BufPutInt(buf, (int64_t)st->nops);
    for (k = 0; k < st->nops; k++) {
	Rb_BufPutInt(buf, st->ops[k][0]);
	Rb_BufPutInt(buf, st->ops[k][1]);
    }
    Rb_BufPutInt(buf, st->crumbs.numEntries);
    for (e = Tcl_FirstHashEntry(&st->crumbs, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	const FgCrumb *c = Tcl_GetHashValue(e);

	Rb_BufPutInt(buf, (int64_t)(intptr_t)Tcl_GetHashKey(&st->crumbs, e));
	Rb_BufPutInt(buf, c->n);
	for (r = 0; r < c->n; r++) {
	    Rb_BufPutInt(buf, c->recs[r].time);
	    Rb_BufPutInt(buf, c->recs[r].point);
	}
    }
    return TCL_OK;
}

/*
 * ReplayOps --
 *	Applies a later shard's graph changes after ours, logging them: a
 *	breadcrumb new here joins the graph as in one pass (one seen before
 *	changes nothing), a stitch is made.
 */
static void
ReplayOps(FlowState *st, const int64_t (*ops)[2], size_t nops)
{
    size_t k;

    for (k = 0; k < nops; k++) {
	if (ops[k][1] == 0) {
	    Crumb(st, ops[k][0], 1);	/* logs the breadcrumb, once */
	} else {
	    GraphOp(st, ops[k][0], ops[k][1]);
	}
    }
}

/*
 * FlowDeserialize --
 *	Restores what FlowSerialize wrote into a started instance.
 */
static int
FlowDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    FlowState *st = a->state;
    int64_t n, k, m, r;

    n = Rb_BufGetCount(buf, 8);
    for (k = 0; k < n && !buf->bad; k++) {
	size_t len;
	const char *name = Rb_BufGetString(buf, &len);
	Tcl_DString ds;

	Tcl_DStringInit(&ds);
	Tcl_DStringAppend(&ds, name ? name : "", name ? (int)len : 0);
	if (PointIndex(st, Tcl_DStringValue(&ds)) != k) {
	    buf->bad = 1;	/* a name twice */
	}
	Tcl_DStringFree(&ds);
    }
    n = Rb_BufGetCount(buf, 16);
    for (k = 0; k < n && !buf->bad; k++) {
	int64_t ops[1][2];

	ops[0][0] = Rb_BufGetInt(buf);
	ops[0][1] = Rb_BufGetInt(buf);
	ReplayOps(st, (const int64_t (*)[2])ops, 1);
    }
    n = Rb_BufGetCount(buf, 16);
    for (k = 0; k < n && !buf->bad; k++) {
	FgCrumb *c = Crumb(st, Rb_BufGetInt(buf), 1);

	m = Rb_BufGetCount(buf, 16);
	for (r = 0; r < m && !buf->bad; r++) {
	    int64_t time = Rb_BufGetInt(buf), point = Rb_BufGetInt(buf);

	    if (point < 0 || point >= st->npoints) {
		buf->bad = 1;
	    } else {
		AddRecord(c, time, (int)point);
	    }
	}
    }
    return TCL_OK;		/* the core reports a short buffer */
}

/*
 * FlowMerge --
 *	Adds a later shard: its points after ours, its graph changes
 *	replayed after ours, its records after each breadcrumb's.
 */
static int
FlowMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    FlowState *st = a->state, *o = other->state;
    int *pointMap = Rb_AllocArray(o->npoints + 1, sizeof(int)), k, r;
    Tcl_HashSearch s;
    Tcl_HashEntry *e;

    for (k = 0; k < o->npoints; k++) {
	pointMap[k] = PointIndex(st, o->points[k]);
    }
    ReplayOps(st, (const int64_t (*)[2])o->ops, o->nops);
    for (e = Tcl_FirstHashEntry(&o->crumbs, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	const FgCrumb *from = Tcl_GetHashValue(e);
	FgCrumb *c = Crumb(st, (int64_t)(intptr_t)Tcl_GetHashKey(&o->crumbs,
		e), 1);

	for (r = 0; r < from->n; r++) {
	    AddRecord(c, from->recs[r].time, pointMap[from->recs[r].point]);
	}
    }
    free(pointMap);
    return TCL_OK;
}

static int
CompareRec(const void *x, const void *y)
{
    const FgRec *a = x, *b = y;

    return a->time < b->time ? -1 : a->time > b->time;
}

/*
 * Records --
 *	A breadcrumb's records in time order, or NULL if it has none.
 */
static FgCrumb *
Records(FlowState *st, int64_t bc)
{
    FgCrumb *c = Crumb(st, bc, 0);

    if (c != NULL && !c->sorted) {
	qsort(c->recs, c->n, sizeof(FgRec), CompareRec);
	c->sorted = 1;
    }
    return c != NULL && c->n > 0 ? c : NULL;
}

/*
 * AddEdge --
 *	Counts one traversal of from->to taking dt ns.
 */
static void
AddEdge(FlowState *st, const FgRec *from, const FgRec *to)
{
    int64_t key = (int64_t)from->point << 32 | (uint32_t)to->point;
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&st->edges,
	    (const char *)(intptr_t)key, &isNew);
    FgEdge *edge;

    if (isNew) {
	edge = Rb_Alloc(sizeof(*edge));
	edge->from = from->point;
	edge->to = to->point;
	Tcl_SetHashValue(e, edge);
    }
    edge = Tcl_GetHashValue(e);
    edge->count++;
    edge->sum += (to->time - from->time) / NS;
    if (st->reqEdges != NULL) {
	int row = Rb_AttrAddRow(st->reqEdges);

	Rb_AttrSetText(st->reqEdges, row, 0, st->reqName);
	Rb_AttrSetText(st->reqEdges, row, 1, st->points[from->point]);
	Rb_AttrSetText(st->reqEdges, row, 2, st->points[to->point]);
	Rb_AttrSetNum(st->reqEdges, row, 3, (to->time - from->time) / NS);
    }
}

/*
 * Span --
 *	The first and last records of a breadcrumb, or of its sub-requests
 *	when it has none of its own (a pure hand-off).
 * Results: 1 if found.
 */
static int
Span(FlowState *st, int64_t bc, const FgRec **first, const FgRec **last,
	int depth)
{
    FgCrumb *c = Records(st, bc);
    SdNode *n;
    int k;

    if (c != NULL) {
	*first = &c->recs[0];
	*last = &c->recs[c->n - 1];
	return 1;
    }
    n = Sd_GraphFind(&st->graph, bc);
    if (n == NULL || depth > 64) {
	return 0;
    }
    *first = *last = NULL;
    for (k = 0; k < n->nchildren; k++) {
	const FgRec *f1, *l1;

	if (Span(st, n->children[k], &f1, &l1, depth + 1)) {
	    if (*first == NULL || f1->time < (*first)->time) {
		*first = f1;
	    }
	    if (*last == NULL || l1->time > (*last)->time) {
		*last = l1;
	    }
	}
    }
    return *first != NULL;
}

/*
 * Walk --
 *	Adds the edges of breadcrumb bc and, recursively, of its
 *	sub-requests, to the union; records each point's first time in the
 *	request in firstAt.  visited guards against stitch cycles.
 */
static void
Walk(FlowState *st, int64_t bc, Tcl_HashTable *visited, int64_t *firstAt)
{
    FgCrumb *c;
    SdNode *n = Sd_GraphFind(&st->graph, bc);
    int isNew, k, r;

    Tcl_CreateHashEntry(visited, (const char *)(intptr_t)bc, &isNew);
    if (!isNew) {
	return;
    }
    c = Records(st, bc);
    if (c != NULL) {
	for (r = 0; r < c->n; r++) {
	    if (firstAt[c->recs[r].point] == RB_ABSENT) {
		firstAt[c->recs[r].point] = c->recs[r].time;
	    }
	}
    }
    for (r = 0; c != NULL && r + 1 < c->n; r++) {
	const FgRec *a = &c->recs[r], *b = &c->recs[r + 1];
	int nested = 0;

	for (k = 0; n != NULL && k < n->nchildren; k++) {
	    const FgRec *f1, *l1;

	    if (Span(st, n->children[k], &f1, &l1, 0)
		    && f1->time >= a->time && f1->time < b->time) {
		AddEdge(st, a, f1);
		/* A child still busy at b runs on beside its parent. */
		if (l1->time <= b->time) {
		    AddEdge(st, l1, b);
		    nested = 1;
		}
	    }
	}
	if (!nested) {
	    AddEdge(st, a, b);
	}
    }
    for (k = 0; n != NULL && k < n->nchildren; k++) {
	const FgRec *f1, *l1;

	if (c != NULL && Span(st, n->children[k], &f1, &l1, 0)
		&& f1->time >= c->recs[c->n - 1].time) {
	    AddEdge(st, &c->recs[c->n - 1], f1);
	}
	Walk(st, n->children[k], visited, firstAt);
    }
}

/*
 * DotQuote --
 *	Appends s to ds as a DOT double-quoted string.
 */
static void
DotQuote(Tcl_DString *ds, const char *s)
{
    Tcl_DStringAppend(ds, "\"", 1);
    for (; *s; s++) {
	if (*s == '"' || *s == '\\') {
	    Tcl_DStringAppend(ds, "\\", 1);
	}
	Tcl_DStringAppend(ds, s, 1);
    }
    Tcl_DStringAppend(ds, "\"", 1);
}

static int
CompareEdge(const void *x, const void *y)
{
    const FgEdge *a = *(const FgEdge *const *)x, *b = *(const FgEdge *const *)y;

    if (a->from != b->from) {
	return a->from - b->from;
    }
    return a->to - b->to;
}

/*
 * Mix --
 *	SplitMix64's finalizer: a well-spread 64-bit hash.
 */
static uint64_t
Mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

typedef struct Pick {
    uint64_t key;
    int idx;
} Pick;

static int
ComparePick(const void *x, const void *y)
{
    const Pick *a = x, *b = y;

    if (a->key != b->key) {
	return a->key < b->key ? -1 : 1;
    }
    return a->idx - b->idx;
}

static int
CompareIdx(const void *x, const void *y)
{
    return ((const Pick *)x)->idx - ((const Pick *)y)->idx;
}

/*
 * Select --
 *	The root requests to walk, in the request graph's order: those of
 *	-client whose first point matches -call (Figure 4.12: one call
 *	type from one client), and of those, with -sample N, the N whose
 *	breadcrumbs hash (with -seed) lowest: a uniform random choice that
 *	does not depend on the order requests come in.  Sets *n.
 */
static SdNode **
Select(FlowState *st, int *n)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;
    SdNode **roots = Rb_AllocArray(st->graph.nodes.numEntries + 1,
	    sizeof(SdNode *)), **out;
    Pick *picks;
    int k, m = 0;

    for (e = Tcl_FirstHashEntry(&st->graph.nodes, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	SdNode *node = Tcl_GetHashValue(e);
	const FgRec *first, *last;

	if (node->nparents != 0) {
	    continue;
	}
	if (st->client >= 0
		&& (int64_t)(((uint64_t)node->bc >> 56) & 0xff) != st->client) {
	    continue;
	}
	if (st->call != NULL && st->call[0] != '\0'
		&& !(Span(st, node->bc, &first, &last, 0)
		&& Tcl_StringMatch(st->points[first->point], st->call))) {
	    continue;
	}
	roots[m++] = node;
    }
    if (st->sample <= 0 || m <= st->sample) {
	*n = m;
	return roots;
    }
    picks = Rb_AllocArray(m, sizeof(Pick));
    for (k = 0; k < m; k++) {
	picks[k].key = Mix((uint64_t)roots[k]->bc ^ Mix((uint64_t)st->seed));
	picks[k].idx = k;
    }
    qsort(picks, m, sizeof(Pick), ComparePick);
    qsort(picks, (size_t)st->sample, sizeof(Pick), CompareIdx);
    out = Rb_AllocArray((int)st->sample + 1, sizeof(SdNode *));
    for (k = 0; k < st->sample; k++) {
	out[k] = roots[picks[k].idx];
    }
    free(picks);
    free(roots);
    *n = (int)st->sample;
    return out;
}

/*
 * FlowEnd --
 *	Walks every root request, then sets FlowEdges (the union: count and
 *	mean latency per edge), FlowGraphDot and RequestPoints.
 */
static int
FlowEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    FlowState *st = a->state;
    Rb_Attribute *edges, *pts;
    Tcl_HashSearch s;
    Tcl_HashEntry *e;
    FgEdge **list;
    SdNode **roots;
    Rb_Attribute *reqEdges;
    int nedges = 0, k, row, nreq = 0, nroots, j;
    int64_t *firstAt = NULL;
    Tcl_DString dot;
    char buf[64];

    pts = Rb_AttrCreate("RequestPoints", RB_ATTR_TABLE, "", "per request, "
	    "the first time it reached each instrumentation point");
    Rb_AttrAddColumn(pts, "request", "", 1);
    Rb_AttrAddColumn(pts, "point", "", 1);
    Rb_AttrAddColumn(pts, "time", "s", 0);
    reqEdges = Rb_AttrCreate("RequestEdges", RB_ATTR_TABLE, "", "per "
	    "request, the edges of its own flow graph and their latency");
    Rb_AttrAddColumn(reqEdges, "request", "", 1);
    Rb_AttrAddColumn(reqEdges, "from", "", 1);
    Rb_AttrAddColumn(reqEdges, "to", "", 1);
    Rb_AttrAddColumn(reqEdges, "latency", "s", 0);
    roots = Select(st, &nroots);
    for (j = 0; j < nroots; j++) {
	SdNode *n = roots[j];
	Tcl_HashTable visited;
	int keep = st->maxRequests <= 0 || nreq < st->maxRequests;

	firstAt = Rb_ReallocArray(firstAt, st->npoints + 1, sizeof(int64_t));
	for (k = 0; k < st->npoints; k++) {
	    firstAt[k] = RB_ABSENT;
	}
	snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)n->bc);
	st->reqEdges = keep ? reqEdges : NULL;
	st->reqName = buf;
	Tcl_InitHashTable(&visited, TCL_ONE_WORD_KEYS);
	Walk(st, n->bc, &visited, firstAt);
	Tcl_DeleteHashTable(&visited);
	st->reqEdges = NULL;
	if (!keep) {
	    continue;
	}
	nreq++;
	for (k = 0; k < st->npoints; k++) {
	    if (firstAt[k] != RB_ABSENT) {
		row = Rb_AttrAddRow(pts);
		Rb_AttrSetText(pts, row, 0, buf);
		Rb_AttrSetText(pts, row, 1, st->points[k]);
		Rb_AttrSetNum(pts, row, 2, firstAt[k] / NS);
	    }
	}
    }
    free(firstAt);
    free(roots);

    list = Rb_AllocArray((st->started ? st->edges.numEntries : 0) + 1,
	    sizeof(FgEdge *));
    for (e = st->started ? Tcl_FirstHashEntry(&st->edges, &s) : NULL; e;
	    e = Tcl_NextHashEntry(&s)) {
	list[nedges++] = Tcl_GetHashValue(e);
    }
    qsort(list, nedges, sizeof(FgEdge *), CompareEdge);
    edges = Rb_AttrCreate("FlowEdges", RB_ATTR_TABLE, "", "request flow "
	    "graph over all requests: edge, traversals, mean latency");
    Rb_AttrAddColumn(edges, "from", "", 1);
    Rb_AttrAddColumn(edges, "to", "", 1);
    Rb_AttrAddColumn(edges, "count", "", 0);
    Rb_AttrAddColumn(edges, "meanLatency", "s", 0);
    Tcl_DStringInit(&dot);
    Tcl_DStringAppend(&dot, "digraph flow {\n  node [shape=box];\n", -1);
    for (k = 0; k < nedges; k++) {
	const FgEdge *x = list[k];

	row = Rb_AttrAddRow(edges);
	Rb_AttrSetText(edges, row, 0, st->points[x->from]);
	Rb_AttrSetText(edges, row, 1, st->points[x->to]);
	Rb_AttrSetNum(edges, row, 2, x->count);
	Rb_AttrSetNum(edges, row, 3, x->sum / x->count);
	Tcl_DStringAppend(&dot, "  ", 2);
	DotQuote(&dot, st->points[x->from]);
	Tcl_DStringAppend(&dot, " -> ", 4);
	DotQuote(&dot, st->points[x->to]);
	snprintf(buf, sizeof(buf), " [label=\"%.3f ms (%.0f)\"];\n",
		x->sum / x->count * 1e3, x->count);
	Tcl_DStringAppend(&dot, buf, -1);
    }
    Tcl_DStringAppend(&dot, "}\n", 2);
    free(list);
    Rb_AnalyzerSet(a, edges);
    Rb_AnalyzerSet(a, pts);
    Rb_AnalyzerSet(a, reqEdges);
    Rb_AnalyzerSet(a, Rb_AttrScalar("SelectedRequests", (double)nroots, "",
	    "root requests walked (after -call, -client and -sample)"));
    Rb_AnalyzerSet(a, Rb_AttrTextNew("FlowGraphDot", Tcl_DStringValue(&dot),
	    "the request flow graph in Graphviz DOT"));
    Tcl_DStringFree(&dot);
    return TCL_OK;
}

const Rb_AnalyzerClass Sd_FlowGraphAnalyzerClass = {
    .name = "StardustFlowGraphAnalyzer",
    .help = "Stardust: request flow graphs (points, edge latencies), "
	    "union over requests, DOT",
    .stateSize = sizeof(FlowState),
    .options = flowOptions,
    .attrs = flowAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = FlowStart,
    .batch = FlowBatch,
    .end = FlowEnd,
    .merge = FlowMerge,
    .freeState = FlowFree,
    .serialize = FlowSerialize,
    .deserialize = FlowDeserialize,
};
