/*
 * cacheAnalyzer.c --
 *
 *	ObserverCacheAnalyzer: the buffer-cache model over the I/O records
 *	of its Flow.  Every block an I/O touches (devOffset / -block up to
 *	its last byte, keyed with its device; with -spanning 0 only the
 *	first) is one access; in one pass
 *	the LRU stack distances give the hits of a cache of every size, for
 *	one cache shared by all and, with -partition, for each workload (a
 *	value of that field) alone in its own partition.  The answer is the
 *	table CacheCurve (workload, cacheBlocks, hits, hitRatio, accesses),
 *	whose shared rows carry the workload "all".
 *
 *	The model's memory grows with the distinct blocks, shared and per
 *	workload; -limit bounds it, and the access beyond it stops the run
 *	with RUBICON LIMIT DISTINCT.
 *
 *	With -policy other than lru (fifo ... s3fifo, sieve, 2q, slru: the
 *	kit's simulation, Rb_CacheSimCreate) every access is also fed to a
 *	simulated cache of each size of -sizes, shared and per workload,
 *	and the rows are those sizes' simulated hits.
 *
 *	With -policy lru it merges exactly: a shard's devices and workloads,
 *	in order of first sight, name its blocks and partitions at the
 *	merge, and the model merges its stacks (cache.c).  A simulated
 *	cache's contents depend on every access before, so a split run with
 *	another policy is refused when it starts.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

/* A block key is the device's small id above the block number. */
#define BLOCK_BITS 44
#define MAX_DEVICES (1 << (63 - BLOCK_BITS))

typedef struct CacheState {
    char *deviceField;		/* -field */
    char *offsetField;		/* -offsetField */
    char *sizeField;		/* -sizeField */
    char *partition;		/* -partition: workload field, or "" */
    int64_t block;		/* -block, bytes */
    int spanning;		/* -spanning */
    char *sizes;		/* -sizes: extra cache sizes in blocks */
    int64_t limit;		/* -limit: most entries the model holds */
    char *policy;		/* -policy */
    int failed;			/* -limit was reached: ignore the rest. */

    /* -policy other than lru: caches [row * nsim + i] of simSizes[i]
     * blocks, row 0 shared, row w + 1 workload w's partition. */
    int nsim, simRows;
    int64_t *simSizes;
    Rb_CacheSim **sims;
    uint64_t *simHits;

    int devIdx, offIdx, sizeIdx, partIdx;
    Rb_Schema *schema;		/* The run's, for workload names. */
    Rb_CacheModel *model;
    Tcl_HashTable devices;	/* device value -> small id */
    int64_t *deviceKeys;	/* small id -> device value */
    Tcl_HashTable workloads;	/* workload value -> model index */
    int tablesInit;
    int64_t *workloadKeys;	/* model index -> workload value */
    int nworkloads;
    int64_t unplaced;		/* Records without a device or offset. */
} CacheState;

static const Rb_Option cacheOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(CacheState, deviceField), "deviceNo",
	"field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(CacheState, offsetField),
	"devOffset", "field holding the offset in bytes"},
    {"-sizeField", RB_OPT_FIELD, offsetof(CacheState, sizeField), "size",
	"field holding the request size in bytes"},
    {"-block", RB_OPT_INT, offsetof(CacheState, block), "4096",
	"block (cache line) size in bytes"},
    {"-spanning", RB_OPT_BOOL, offsetof(CacheState, spanning), "1",
	"whether an I/O accesses every block it touches, or only the block "
	"of its offset"},
    {"-partition", RB_OPT_FIELD, offsetof(CacheState, partition), "",
	"field whose values are the workloads, each in its own partition; "
	"empty: one workload"},
    {"-sizes", RB_OPT_STRING, offsetof(CacheState, sizes), "",
	"cache sizes in blocks to report besides the powers of two"},
    {"-limit", RB_OPT_INT, offsetof(CacheState, limit), "10000000",
	"most blocks held, counted in the shared cache and in each "
	"workload's partition; one more stops the run with an error"},
    {"-policy", RB_OPT_STRING, offsetof(CacheState, policy), "lru",
	"replacement policy: lru (every size from stack distances), or "
	"fifo, clock, lfu, arc, s3fifo, sieve, 2q, slru (each size of "
	"-sizes simulated)"},
    {NULL}
};

static const char *const cacheAttrs[] = {"CacheCurve", "CacheUnplaced",
    NULL};

/*
 * FreeTables --
 *	Frees the model and the device and workload tables.
 */
static void
FreeTables(CacheState *st)
{
    int i;

    for (i = 0; i < st->nsim * st->simRows; i++) {
	Rb_CacheSimFree(st->sims[i]);
    }
    free(st->sims);
    free(st->simHits);
    free(st->simSizes);
    st->sims = NULL;
    st->simHits = NULL;
    st->simSizes = NULL;
    st->nsim = st->simRows = 0;
    if (st->model) {
	RbCacheModelFree(st->model);
	st->model = NULL;
    }
    if (st->tablesInit) {
	Tcl_DeleteHashTable(&st->devices);
	Tcl_DeleteHashTable(&st->workloads);
	st->tablesInit = 0;
    }
    free(st->workloadKeys);
    free(st->deviceKeys);
    st->workloadKeys = st->deviceKeys = NULL;
    st->nworkloads = 0;
}

/*
 * ParseSizes --
 *	The sizes of -sizes into a new array (the count in *n).
 */
static int64_t *
ParseSizes(const char *text, int *n)
{
    const char *p = text ? text : "";
    int64_t *sizes = NULL, v;
    char *end;

    *n = 0;
    for (;;) {
	v = strtoll(p, &end, 10);
	if (end == p) {
	    break;
	}
	p = end;
	sizes = Rb_ReallocArray(sizes, *n + 1, sizeof(int64_t));
	sizes[(*n)++] = v;
    }
    return sizes;
}

/*
 * CheckPolicy --
 *	-policy names a policy of the kit's simulation; one other than lru
 *	needs -sizes (it is simulated at those sizes only), each one it can
 *	simulate.
 */
static int
CheckPolicy(Tcl_Interp *interp, const CacheState *st)
{
    const char *policy = st->policy ? st->policy : "";
    int64_t *sizes;
    int n, i, ok = 1;
    Rb_CacheSim *probe;

    if (strcmp(policy, "lru") == 0) {
	return TCL_OK;
    }
    if ((probe = Rb_CacheSimCreate(policy, 1)) == NULL) {
	return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION",
		"ObserverCacheAnalyzer: bad -policy \"%s\": must be lru, "
		"fifo, clock, lfu, arc, s3fifo, sieve, 2q or slru", policy);
    }
    Rb_CacheSimFree(probe);
    sizes = ParseSizes(st->sizes, &n);
    for (i = 0; i < n; i++) {
	ok &= sizes[i] <= ((int64_t) 1 << 28);
    }
    free(sizes);
    if (n == 0 || !ok) {
	return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION",
		"ObserverCacheAnalyzer: -policy %s needs -sizes, each at "
		"most 2**28 blocks (the caches it simulates)", policy);
    }
    return TCL_OK;
}

/*
 * CacheInit --
 *	Checks -block, -limit and -sizes.
 */
static int
CacheInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    CacheState *st = a->state;
    const char *p = st->sizes ? st->sizes : "";
    char *end;

    if (st->block <= 0) {
	return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION",
		"ObserverCacheAnalyzer: -block must be positive");
    }
    if (st->limit <= 0) {
	return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION",
		"ObserverCacheAnalyzer: -limit must be positive");
    }
    for (;;) {
	long long v = strtoll(p, &end, 10);

	if (end == p) {
	    break;
	}
	if (v <= 0) {
	    return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION",
		    "ObserverCacheAnalyzer: -sizes must be positive "
		    "integers, not \"%s\"", st->sizes);
	}
	p = end;
    }
    while (*p == ' ' || *p == '\t') {
	p++;
    }
    if (*p != '\0') {
	return Rb_SetInterpError(interp, "RUBICON ANALYZER OPTION",
		"ObserverCacheAnalyzer: -sizes must be positive integers, "
		"not \"%s\"", st->sizes);
    }
    return CheckPolicy(interp, st);
}

/*
 * GrowSimRows --
 *	Makes the simulated caches of rows up to rows - 1 (each an empty
 *	cache of every size, all under -policy).
 */
static void
GrowSimRows(CacheState *st, int rows)
{
    int i;

    if (rows <= st->simRows) {
	return;
    }
    st->sims = Rb_ReallocArray(st->sims, (size_t) rows * st->nsim,
	    sizeof(Rb_CacheSim *));
    st->simHits = Rb_ReallocArray(st->simHits, (size_t) rows * st->nsim,
	    sizeof(uint64_t));
    for (i = st->simRows * st->nsim; i < rows * st->nsim; i++) {
	st->sims[i] = Rb_CacheSimCreate(st->policy, st->simSizes[i
		% st->nsim]);
	st->simHits[i] = 0;
    }
    st->simRows = rows;
}

/*
 * SimAccess --
 *	Feeds one access to the simulated caches of a row.
 */
static void
SimAccess(CacheState *st, int row, int64_t block)
{
    int i;

    for (i = 0; i < st->nsim; i++) {
	if (st->sims[row * st->nsim + i] != NULL
		&& Rb_CacheSimAccess(st->sims[row * st->nsim + i], block)) {
	    st->simHits[row * st->nsim + i]++;
	}
    }
}

/*
 * SplitRun --
 *	Whether the run starting is split over the processes of mpirun
 *	(rubicon::mpi split); the interpreter's result is kept.
 */
static int
SplitRun(Tcl_Interp *interp)
{
    Tcl_InterpState saved = Tcl_SaveInterpState(interp, TCL_OK);
    int split = 0;

    if (Tcl_Eval(interp, "::rubicon::mpi split") != TCL_OK
	    || Tcl_GetIntFromObj(NULL, Tcl_GetObjResult(interp), &split)
	    != TCL_OK) {
	split = 0;
    }
    Tcl_RestoreInterpState(interp, saved);
    return split;
}

/*
 * CacheStart --
 *	Resolves the fields (offset and size must hold integers) and starts
 *	an empty model.
 */
static int
CacheStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    CacheState *st = a->state;

    if (st->policy && strcmp(st->policy, "lru") != 0
	    && SplitRun(run->interp)) {
	Rb_AnalyzerError(a, "RUBICON SPLIT UNMERGEABLE", "ObserverCacheAnalyzer "
		"-policy %s cannot merge the partial results of a run split "
		"over processes (a simulated cache holds what every access "
		"before left in it); run it in one process (mpirun -np 1, or "
		"without mpirun), or with -policy lru, which merges exactly",
		st->policy);
	return TCL_ERROR;
    }
    /* The device is only a key; offsets and sizes are byte counts. */
    if (Rb_AnalyzerField(a, run, st->deviceField, &st->devIdx) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->offsetField,
	    RB_FT_BIT(RB_FT_INT), &st->offIdx) != TCL_OK
	    || Rb_AnalyzerTypedField(a, run, st->sizeField,
	    RB_FT_BIT(RB_FT_INT), &st->sizeIdx) != TCL_OK) {
	return TCL_ERROR;
    }
    st->partIdx = -1;
    if (st->partition && st->partition[0] && Rb_AnalyzerField(a, run,
	    st->partition, &st->partIdx) != TCL_OK) {
	return TCL_ERROR;
    }
    FreeTables(st);
    st->schema = run->schema;
    st->model = RbCacheModelCreate(0);
    RbCacheModelLimit(st->model, st->limit);
    st->failed = 0;
    Tcl_InitHashTable(&st->devices, TCL_ONE_WORD_KEYS);
    Tcl_InitHashTable(&st->workloads, TCL_ONE_WORD_KEYS);
    st->tablesInit = 1;
    st->unplaced = 0;
    if (st->policy && strcmp(st->policy, "lru") != 0) {
	/* CacheInit checked the policy and sizes. */
	st->simSizes = ParseSizes(st->sizes, &st->nsim);
	GrowSimRows(st, 1);
    }
    return TCL_OK;
}

/*
 * SmallId --
 *	The id of value in table (0, 1, ... in order of first sight); with
 *	keys, records each new value at its id there.
 */
static int
SmallId(Tcl_HashTable *table, int64_t value, int64_t **keys)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(table,
	    (const char *) (intptr_t) value, &isNew);

    if (isNew) {
	int id = table->numEntries - 1;

	Tcl_SetHashValue(e, (ClientData) (intptr_t) id);
	if (keys) {
	    *keys = Rb_ReallocArray(*keys, id + 1, sizeof(int64_t));
	    (*keys)[id] = value;
	}
    }
    return (int) (intptr_t) Tcl_GetHashValue(e);
}

/*
 * CacheBatch --
 *	Feeds every block of each selected I/O to the model, in order, up
 *	to the first beyond -limit; that one stops the run with an error
 *	naming its record.
 */
static void
CacheBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    CacheState *st = a->state;
    const int64_t *dev = b->col[st->devIdx], *off = b->col[st->offIdx];
    const int64_t *size = b->col[st->sizeIdx];
    int j;

    for (j = 0; j < nsel && !st->failed; j++) {
	int i = (int) sel[j], w = 0, d;
	int64_t first, last, k, len = size[i];

	if (dev[i] == RB_ABSENT || off[i] == RB_ABSENT || off[i] < 0) {
	    st->unplaced++;
	    continue;
	}
	first = off[i] / st->block;
	last = st->spanning && len > 0 && len != RB_ABSENT
		? (off[i] + len - 1) / st->block : first;
	d = SmallId(&st->devices, dev[i], &st->deviceKeys);
	if (last >> BLOCK_BITS || d >= MAX_DEVICES) {
	    st->unplaced++;
	    continue;
	}
	if (st->partIdx >= 0) {
	    w = SmallId(&st->workloads, b->col[st->partIdx][i],
		    &st->workloadKeys);
	}
	if (st->nsim > 0 && st->partIdx >= 0) {
	    GrowSimRows(st, w + 2);
	}
	for (k = first; k <= last; k++) {
	    int64_t key = ((int64_t) d << BLOCK_BITS) | k;

	    if (st->nsim > 0) {
		SimAccess(st, 0, key);
		if (st->partIdx >= 0) {
		    SimAccess(st, w + 1, key);
		}
	    }
	    if (!RbCacheModelAccess(st->model, w, key)) {
		st->failed = 1;
		Rb_AnalyzerError(a, "RUBICON LIMIT DISTINCT",
			"ObserverCacheAnalyzer: more than -limit %" PRId64
			" blocks held (shared and per workload) at record %"
			PRIu64 " (raise -limit; each block held costs up to "
			"about 100 bytes)", st->limit,
			b->firstRecord + (uint64_t) i);
		break;
	    }
	}
    }
}

/*
 * WorkloadName --
 *	The text of workload value v of the -partition field into buf.
 */
static void
WorkloadName(const CacheState *st, int64_t v, char *buf, size_t n)
{
    Rb_FieldType type = st->schema->fields[st->partIdx].type;

    if (v == RB_ABSENT) {
	snprintf(buf, n, "-");
    } else if (type == RB_FT_STRING) {
	const char *s = Rb_SchemaString(st->schema, v);

	snprintf(buf, n, "%s", s ? s : "");
    } else if (type == RB_FT_DOUBLE) {
	union { int64_t i; double d; } u = {v};

	snprintf(buf, n, "%.17g", u.d);
    } else {
	snprintf(buf, n, "%" PRId64, v);
    }
}

/*
 * CompareSizes --
 *	qsort order of cache sizes.
 */
static int
CompareSizes(const void *p, const void *q)
{
    int64_t x = *(const int64_t *) p, y = *(const int64_t *) q;

    return (x > y) - (x < y);
}

/*
 * AddCurveRows --
 *	Appends to t the rows of workload name for curve c: powers of two
 *	up to the largest distance (beyond it the curve is flat), and the
 *	sizes of -sizes.
 */
static void
AddCurveRows(Rb_Attribute *t, const char *name, const Rb_CacheCurve *c,
	const char *extra)
{
    int64_t *sizes = NULL, s, hits = 0, d = 1;
    int n = 0, k, row;
    const char *p = extra ? extra : "";
    char *end;

    for (s = 1;; s *= 2) {
	sizes = Rb_ReallocArray(sizes, n + 1, sizeof(int64_t));
	sizes[n++] = s;
	if (s >= c->maxDistance) {
	    break;
	}
    }
    for (;;) {
	s = strtoll(p, &end, 10);
	if (end == p) {
	    break;
	}
	p = end;
	sizes = Rb_ReallocArray(sizes, n + 1, sizeof(int64_t));
	sizes[n++] = s;
    }
    qsort(sizes, n, sizeof(int64_t), CompareSizes);
    for (k = 0; k < n; k++) {
	if (k > 0 && sizes[k] == sizes[k - 1]) {
	    continue;
	}
	/* Sizes ascend, so the hits accumulate over the distances. */
	for (; d <= sizes[k] && d <= c->maxDistance; d++) {
	    hits += c->atDistance[d];
	}
	row = Rb_AttrAddRow(t);
	Rb_AttrSetText(t, row, 0, name);
	Rb_AttrSetNum(t, row, 1, (double) sizes[k]);
	Rb_AttrSetNum(t, row, 2, (double) hits);
	Rb_AttrSetNum(t, row, 3, c->accesses ? (double) hits / c->accesses
		: 0.0);
	Rb_AttrSetNum(t, row, 4, (double) c->accesses);
    }
    free(sizes);
}

/*
 * AddSimRows --
 *	Appends to t the rows of workload name from its simulated caches
 *	(row of st's), by increasing size.
 */
static void
AddSimRows(Rb_Attribute *t, const char *name, const CacheState *st,
	int simRow, int64_t accesses)
{
    int *order = Rb_AllocArray(st->nsim, sizeof(int)), i, j, row;

    for (i = 0; i < st->nsim; i++) {
	for (j = i; j > 0 && st->simSizes[order[j - 1]] > st->simSizes[i];
		j--) {
	    order[j] = order[j - 1];
	}
	order[j] = i;
    }
    for (i = 0; i < st->nsim; i++) {
	int k = order[i];
	double hits = (double) st->simHits[simRow * st->nsim + k];

	if (i > 0 && st->simSizes[k] == st->simSizes[order[i - 1]]) {
	    continue;
	}
	row = Rb_AttrAddRow(t);
	Rb_AttrSetText(t, row, 0, name);
	Rb_AttrSetNum(t, row, 1, (double) st->simSizes[k]);
	Rb_AttrSetNum(t, row, 2, hits);
	Rb_AttrSetNum(t, row, 3, accesses ? hits / accesses : 0.0);
	Rb_AttrSetNum(t, row, 4, (double) accesses);
    }
    free(order);
}

/*
 * CacheEnd --
 *	Sets CacheCurve (shared rows, then each workload's partition) and
 *	CacheUnplaced.
 */
static int
CacheEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    CacheState *st = a->state;
    Rb_Attribute *t = Rb_AttrCreate("CacheCurve", RB_ATTR_TABLE, "",
	    "hits and hit ratio of a cache of each size under -policy, shared "
	    "and per workload partition");
    int w;

    Rb_AttrAddColumn(t, "workload", "", 1);
    Rb_AttrAddColumn(t, "cacheBlocks", "blocks", 0);
    Rb_AttrAddColumn(t, "hits", "", 0);
    Rb_AttrAddColumn(t, "hitRatio", "", 0);
    Rb_AttrAddColumn(t, "accesses", "", 0);
    if (st->nsim > 0) {
	AddSimRows(t, "all", st, 0,
		RbCacheModelCurve(st->model, -1)->accesses);
    } else {
	AddCurveRows(t, "all", RbCacheModelCurve(st->model, -1), st->sizes);
    }
    if (st->partIdx >= 0) {
	for (w = 0; w < RbCacheModelWorkloads(st->model); w++) {
	    char name[64];

	    WorkloadName(st, st->workloadKeys[w], name, sizeof(name));
	    if (st->nsim > 0) {
		AddSimRows(t, name, st, w + 1,
			RbCacheModelCurve(st->model, w)->accesses);
	    } else {
		AddCurveRows(t, name, RbCacheModelCurve(st->model, w),
			st->sizes);
	    }
	}
    }
    Rb_AnalyzerSet(a, t);
    Rb_AnalyzerSet(a, Rb_AttrScalar("CacheUnplaced", (double) st->unplaced,
	    "", "records without a device or offset (not accessed)"));
    return TCL_OK;
}

/*
 * CacheFree --
 *	Frees the model and tables.
 */
static void
CacheFree(Rb_Analyzer *a)
{
    FreeTables(a->state);
}

/*
 * CacheSerialize --
 *	Records without a place, the devices and workloads in order of
 *	first sight (by value, text as text), then the model.
 */
static int
CacheSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    CacheState *st = a->state;
    int k;

    if (st->nsim > 0) {
	Rb_AnalyzerError(a, "RUBICON SPLIT UNMERGEABLE", "ObserverCacheAnalyzer "
		"-policy %s cannot merge a split run's partial results",
		st->policy);
	return TCL_ERROR;
    }
    Rb_BufPutInt(buf, st->unplaced);
    Rb_BufPutInt(buf, st->failed);
    Rb_BufPutInt(buf, st->devices.numEntries);
    for (k = 0; k < st->devices.numEntries; k++) {
	Rb_BufPutKey(buf, st->schema, st->devIdx, st->deviceKeys[k]);
    }
    Rb_BufPutInt(buf, st->workloads.numEntries);
    for (k = 0; k < st->workloads.numEntries; k++) {
	Rb_BufPutKey(buf, st->schema, st->partIdx, st->workloadKeys[k]);
    }
    RbCacheModelPut(buf, st->model);
    return TCL_OK;
}

/*
 * CacheDeserialize --
 *	Restores what CacheSerialize wrote into a started instance.
 */
static int
CacheDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    CacheState *st = a->state;
    int64_t n, k;

    st->unplaced = Rb_BufGetInt(buf);
    st->failed = (int)Rb_BufGetInt(buf);
    n = Rb_BufGetCount(buf, 8);
    for (k = 0; k < n && !buf->bad; k++) {
	SmallId(&st->devices, Rb_BufGetKey(buf, st->schema, st->devIdx),
		&st->deviceKeys);
    }
    n = Rb_BufGetCount(buf, 8);
    if (n > 0 && st->partIdx < 0) {
	buf->bad = 1;		/* workloads without -partition */
    }
    for (k = 0; k < n && !buf->bad; k++) {
	SmallId(&st->workloads, Rb_BufGetKey(buf, st->schema, st->partIdx),
		&st->workloadKeys);
    }
    if (!buf->bad) {
	RbCacheModelGet(buf, st->model);
    }
    return TCL_OK;		/* the core reports a short buffer */
}

/* Renaming of a later shard's blocks: its device ids to ours. */
typedef struct BlockMap {
    const int64_t *device;
} BlockMap;

static int64_t
MapBlock(void *cd, int64_t block)
{
    const BlockMap *m = cd;

    return (m->device[block >> BLOCK_BITS] << BLOCK_BITS)
	    | (block & (((int64_t)1 << BLOCK_BITS) - 1));
}

/*
 * CacheMerge --
 *	Merges a later shard: its devices and workloads take our ids (new
 *	ones after ours, in its order of first sight, as one pass numbers
 *	them), then the models merge.
 */
static int
CacheMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    CacheState *st = a->state, *o = other->state;
    int nw = RbCacheModelWorkloads(o->model), ok, k;
    int64_t *devMap = Rb_AllocArray(o->devices.numEntries + 1,
	    sizeof(int64_t));
    int *wmap = Rb_AllocArray(nw + 1, sizeof(int));
    BlockMap map = {devMap};

    st->unplaced += o->unplaced;
    st->failed |= o->failed;
    for (k = 0; k < o->devices.numEntries; k++) {
	devMap[k] = SmallId(&st->devices, o->deviceKeys[k], &st->deviceKeys);
    }
    for (k = 0; k < nw; k++) {
	wmap[k] = st->partIdx < 0 ? 0 : SmallId(&st->workloads,
		o->workloadKeys[k], &st->workloadKeys);
    }
    if (st->devices.numEntries > MAX_DEVICES) {
	ok = 0;
	Rb_AnalyzerError(a, "RUBICON LIMIT DISTINCT", "ObserverCacheAnalyzer: "
		"more than %d devices in a split run (run it in one process)",
		MAX_DEVICES);
    } else if (!(ok = RbCacheModelMerge(st->model, o->model, MapBlock, &map,
	    wmap))) {
	Rb_AnalyzerError(a, "RUBICON LIMIT DISTINCT", "ObserverCacheAnalyzer: "
		"more than -limit %" PRId64 " blocks held (shared and per "
		"workload) by the merged shards of a split run (raise -limit; "
		"each block held costs up to about 100 bytes)", st->limit);
    }
    free(devMap);
    free(wmap);
    return ok ? TCL_OK : TCL_ERROR;
}

static const Rb_AnalyzerClass cacheAnalyzerClass = {
    .name = "ObserverCacheAnalyzer",
    .help = "buffer-cache model: LRU hit ratio against cache size in one "
	    "pass, shared and per workload partition",
    .stateSize = sizeof(CacheState),
    .options = cacheOptions,
    .attrs = cacheAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .init = CacheInit,
    .start = CacheStart,
    .batch = CacheBatch,
    .end = CacheEnd,
    .merge = CacheMerge,
    .freeState = CacheFree,
    .serialize = CacheSerialize,
    .deserialize = CacheDeserialize,
};

/*
 * RbObsCacheAnalyzerInit --
 *	Registers ObserverCacheAnalyzer.
 */
int
RbObsCacheAnalyzerInit(Tcl_Interp *interp)
{
    return Rb_RegisterAnalyzer(interp, &cacheAnalyzerClass);
}
