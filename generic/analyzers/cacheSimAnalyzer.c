/*
 * cacheSimAnalyzer.c --
 *
 *	CacheSimAnalyzer: an exact simulation of a cache of each size of
 *	-sizes under each replacement policy of -policy (LRU, FIFO, CLOCK,
 *	LFU, ARC, S3-FIFO, SIEVE, 2Q, SLRU or Belady's OPT), fed every block
 *	access of the I/Os in order, or with -key one access per record to
 *	an object of its own size, giving the hit ratio by accesses and by
 *	bytes of each cache.
 *
 *	Every policy keeps its entries in nodes of one pool, linked into up
 *	to four lists (most recent at the head), with a key index of node
 *	numbers; LFU and OPT order their nodes in an indexed heap instead.
 *	Capacities are weights: 1 per block or object, or an object's bytes.
 *	Sizes given as fractions of the working set, and OPT without a
 *	next-access field, need the whole trace first: the accesses are then
 *	spooled to an unlinked temporary file and simulated at the end (the
 *	next accesses found by a backward pass over the spool).  With
 *	-samplesize S (fractions only) the spool holds the accesses of the
 *	keys whose hash is below a threshold, halved whenever more than S
 *	keys are seen, and the end simulates the keys below the last one: a
 *	spatially hashed sample, as in miniature simulations (Waldspurger et
 *	al., 2017).  The rules of each policy, as published, are in
 *	CacheSimAnalyzer.n.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analyzers.h"
#include "core/mpi.h"

enum { POLICY_LRU, POLICY_FIFO, POLICY_CLOCK, POLICY_LFU, POLICY_ARC,
    POLICY_S3FIFO, POLICY_SIEVE, POLICY_2Q, POLICY_SLRU, POLICY_OPT };

static const char *const policyNames[] = {
    "lru", "fifo", "clock", "lfu", "arc", "s3fifo", "sieve", "2q", "slru",
    "opt", NULL
};
#define POLICY_LIST "lru, fifo, clock, lfu, arc, s3fifo, sieve, 2q, slru " \
	"or opt"

/* The lists a node may be in: the cache's (T1, T2 of ARC; S, M of
 * S3-FIFO; A1in, Am of 2Q; probationary and protected of SLRU; T1 alone
 * for LRU, FIFO, CLOCK and SIEVE) and the ghosts (B1, B2; G; A1out). */
enum { LIST_T1, LIST_T2, LIST_B1, LIST_B2, NLISTS };
#define LIST_S LIST_T1
#define LIST_M LIST_T2
#define LIST_G LIST_B1

#define NIL (-1)
#define NEVER INT64_MAX

/* How many accesses ahead a key's index slot, and the node the slot names,
 * are prefetched. */
#define PREFETCH_SLOT 16
#define PREFETCH_NODE 8

/* The most nodes one cache may hold (node numbers are int32). */
#define MAX_CACHE_BLOCKS ((int64_t)1 << 28)

typedef struct Node {
    int64_t key;
    int64_t weight;		/* 1, or the object's bytes. */
    int32_t prev, next;		/* In its list; NIL at the ends (S3-FIFO:
				 * prev stamps its ring entry, see Ring,
				 * and next holds the low 32 bits of the
				 * key's hash, its index tag). */
    int32_t list;		/* LIST_*, or the heap position (LFU, OPT). */
    uint32_t freq;		/* CLOCK and SIEVE bit, S3-FIFO counter, LFU
				 * count. */
} Node;

typedef struct List {
    int32_t head, tail;
    int64_t n;			/* Nodes. */
    int64_t w;			/* Their weight. */
} List;

/* A FIFO queue of S3-FIFO: a ring of node numbers, entries [tail, head)
 * by position (positions only grow; entry p is at slot[p & (cap - 1)]).
 * An entry is live when its node's list is the queue's and its node's
 * prev holds the low 32 bits of p; an entry taken out from the middle
 * (a ghost brought back, an expiry) is left behind, stale, and skipped
 * when it reaches the tail (see RingPush, RingTail). */
typedef struct Ring {
    int32_t *slot;
    uint64_t cap;		/* A power of 2, or 0. */
    uint64_t head, tail;
    uint64_t aheadNode, aheadSlot;	/* Prefetched up to (RingAhead). */
} Ring;

typedef struct Rb_CacheSim {
    int policy;			/* POLICY_* */
    int ttl;			/* Nodes may expire. */
    uint64_t seq;		/* Accesses so far (LFU's recency). */
    int64_t size;		/* Capacity (weight). */
    int64_t small, main;	/* S3-FIFO: capacities of S and M (G's is
				 * main's); 2Q: Kin and Kout; SLRU: the
				 * protected segment's in main. */
    double p;			/* ARC: target size of T1. */
    Node *nodes;
    int32_t nnodes, cap, freeNode;
    int32_t indexed;		/* Nodes in the key index. */
    uint64_t *seqs;		/* Per node, LFU: last access; OPT: next
				 * access (NULL for other policies). */
    int64_t *expiry;		/* Per node, trace ns (NEVER: no TTL); NULL
				 * unless ttl. */
    int32_t hand;		/* SIEVE: next to look at, NIL: the tail. */
    int32_t hintNode;		/* A node whose key's hash is hintHash (the
				 * tail DropTail prefetched), or NIL. */
    uint64_t hintHash;
    Ring rings[3];		/* S3-FIFO: its queues S, M and G. */
    uint64_t *slots;		/* Key index, open addressing, at most half
				 * full: the low 32 bits of the key's hash
				 * (its tag) << 32 | node + 1 (0: free). */
    uint64_t slotMask;
    List lists[NLISTS];
    int32_t *heap;		/* LFU: nodes by (freq, seq); OPT: by next
				 * access, farthest first. */
    int64_t nheap, heapCap, heapW;
    uint64_t hits, hitBytes;
} Cache;

/* One access, as fed to every cache (and spooled). */
typedef struct Access {
    int64_t key;
    int64_t bytes;		/* For the byte hit ratio. */
    int64_t weight;		/* What it takes of the capacity. */
    int64_t time;		/* Trace ns. */
    int64_t ttl;		/* ns; 0: none. */
    int64_t next;		/* OPT: index of its key's next access. */
    uint64_t hash;		/* Rb_HashKey(key), worked out once. */
} Access;

/* A run of accesses without time, TTL or next access (all but the
 * spooled ones, and those of -ttlField or -nextField), gathered from a
 * batch and fed to one cache after another (FlushRun). */
#define RUN_MAX 4096

typedef struct Run {
    int n;
    int weighed;		/* The bytes are the weights (objects). */
    uint64_t sumBytes;
    int64_t key[RUN_MAX];
    uint64_t hash[RUN_MAX + PREFETCH_SLOT];	/* (see RunCacheAs) */
    int64_t weight[RUN_MAX];
    int64_t bytes[RUN_MAX];
} Run;

/* A size of -sizes: a count (blocks, objects or bytes), bytes given with
 * a unit, or a fraction of the working set. */
typedef struct SizeSpec {
    int kind;			/* SIZE_COUNT, SIZE_BYTES, SIZE_FRACTION */
    int64_t count;
    double fraction;
} SizeSpec;
enum { SIZE_COUNT, SIZE_BYTES, SIZE_FRACTION };

typedef struct CacheSimState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    Tcl_Obj *policyObj;		/* -policy */
    Tcl_Obj *sizesObj;		/* -sizes */
    char *key;			/* -key: a field, or "" for blocks */
    char *sizeField;		/* -sizeField */
    char *ttlField;		/* -ttlField */
    char *nextField;		/* -nextField */
    int64_t limit;		/* -limit: distinct keys of the spool */
    int keyIndex, sizeIndex, ttlIndex, nextIndex;	/* -1: none */
    double ttlScale;		/* To ns. */
    int npolicies, nsizes;
    int *policies;
    SizeSpec *specs;
    int ncaches;		/* npolicies * nsizes, policy-major */
    Cache *caches;
    unsigned char *mine;	/* Per cache: this process simulates it
				 * (all but a share of them in a sweep). */
    int spool;			/* Accesses go to spoolFile first. */
    FILE *spoolFile;
    int needNext;		/* OPT without -nextField. */
    Rb_KeyTable seen;		/* Spool: key -> int64 (working set, next) */
    int64_t workingSet;		/* Weight of the distinct keys. */
    int64_t sampleSize;		/* -samplesize: most keys seen; 0: all. */
    uint64_t *hashes;		/* Per selected record of a batch (-key). */
    int hashCap;
    Run *run;			/* Accesses gathered (NULL until needed). */
    uint64_t threshold;		/* Keys whose KEYHASH32 is below are
				 * simulated. */
    uint64_t fed, fedBytes;	/* Accesses (and bytes) fed to the caches. */
    int failed;
    int finished;		/* Spool simulated, or nothing to do. */
    uint64_t accesses, bytes, skipped;
} CacheSimState;

static const Rb_Option cacheSimOptions[] = {
    {"-policy", RB_OPT_OBJ, offsetof(CacheSimState, policyObj), "lru",
	"replacement policy, or a list of them: " POLICY_LIST},
    {"-sizes", RB_OPT_OBJ, offsetof(CacheSimState, sizesObj),
	"1000 10000 100000", "cache sizes: blocks or objects, bytes "
	"(64MB, 1GB) or fractions of the working set (0.01), each "
	"simulated exactly"},
    {"-block", RB_OPT_INT, offsetof(CacheSimState, map.block), "4096",
	"block (cache line) size in bytes"},
    {"-field", RB_OPT_FIELD, offsetof(CacheSimState, map.deviceField),
	"deviceNo", "field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(CacheSimState, map.offsetField),
	"devOffset", "field holding the offset in bytes"},
    {"-key", RB_OPT_FIELD, offsetof(CacheSimState, key), "",
	"field whose values are the objects; empty: the blocks the I/Os "
	"touch"},
    {"-sizeField", RB_OPT_FIELD, offsetof(CacheSimState, sizeField), "",
	"with -key: field holding each object's size in bytes; empty: "
	"every object counts as one"},
    {"-ttlField", RB_OPT_FIELD, offsetof(CacheSimState, ttlField), "",
	"with -key: field holding a time to live (seconds unless in ns); "
	"an access past it misses"},
    {"-nextField", RB_OPT_FIELD, offsetof(CacheSimState, nextField), "",
	"with -key: field holding the index of the object's next access "
	"(negative: never), for opt"},
    {"-limit", RB_OPT_INT, offsetof(CacheSimState, limit), "100000000",
	"most distinct keys held for fractions and opt (the run stops "
	"beyond)"},
    {"-samplesize", RB_OPT_INT, offsetof(CacheSimState, sampleSize), "0",
	"with fractions only: simulate a sample of the keys by hash, at "
	"most this many (0: every key)"},
    {NULL}
};

static const char *const cacheSimAttrs[] = {
    "HitRatioCurve", "BlockAccesses", "WorkingSet", "SampleRate", NULL
};

/* The sampling hash of a key: the top 32 bits of Rb_HashKey (the caches'
 * key indexes use its low bits). */
#define KEYHASH32(key)	(Rb_HashKey(key) >> 32)
#define KEYHASH_SPACE	((uint64_t)1 << 32)

/*
 * ParseSize --
 *	One element of -sizes: an integer (a count), a number with a unit
 *	B, KB, MB, GB, TB (or KiB ... TiB; powers of 1024), or a real from 0
 *	to 1 (exclusive of 0, inclusive of 1): a fraction of the working
 *	set.
 * Results: 1 with *spec set, or 0.
 */
static int
ParseSize(Tcl_Obj *obj, SizeSpec *spec)
{
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
    static const char *const iec[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    const char *s = Tcl_GetString(obj);
    Tcl_WideInt v;
    double d;
    char *end;
    int u;

    memset(spec, 0, sizeof(*spec));
    if (Tcl_GetWideIntFromObj(NULL, obj, &v) == TCL_OK) {
	spec->kind = SIZE_COUNT;
	spec->count = v;
	return v >= 1 && v <= MAX_CACHE_BLOCKS;
    }
    d = strtod(s, &end);
    if (end == s || !isfinite(d)) {
	return 0;
    }
    if (*end == '\0') {
	spec->kind = SIZE_FRACTION;
	spec->fraction = d;
	return d > 0 && d <= 1;
    }
    for (u = 0; u < 5; u++) {
	if (strcmp(end, units[u]) == 0 || strcmp(end, iec[u]) == 0) {
	    double bytes = d * pow(1024.0, u);

	    spec->kind = SIZE_BYTES;
	    spec->count = (int64_t)bytes;
	    return bytes >= 1 && bytes < 9e18;
	}
    }
    return 0;
}

/*
 * ParseSizes, ParsePolicies --
 *	Read -sizes and -policy.
 * Results: the number of elements (> 0) with *out malloc'd (when out is
 *	not NULL), or -1 when the list is empty or holds something else.
 */
static int
ParseSizes(Tcl_Obj *obj, SizeSpec **out)
{
    Tcl_Obj **objv;
    SizeSpec spec;
    int objc, i;

    if (obj == NULL || Tcl_ListObjGetElements(NULL, obj, &objc, &objv)
	    != TCL_OK || objc == 0) {
	return -1;
    }
    for (i = 0; i < objc; i++) {
	if (!ParseSize(objv[i], &spec)) {
	    return -1;
	}
    }
    if (out != NULL) {
	*out = Rb_Realloc(NULL, (size_t)objc * sizeof(SizeSpec));
	for (i = 0; i < objc; i++) {
	    ParseSize(objv[i], &(*out)[i]);
	}
    }
    return objc;
}

/*
 * PolicyIndex --
 *	The POLICY_* of a policy name, or -1.
 */
static int
PolicyIndex(const char *name)
{
    int k;

    for (k = 0; policyNames[k] != NULL; k++) {
	if (name != NULL && strcmp(name, policyNames[k]) == 0) {
	    return k;
	}
    }
    return -1;
}

static int
ParsePolicies(Tcl_Obj *obj, int **out)
{
    Tcl_Obj **objv;
    int objc, i;

    if (obj == NULL || Tcl_ListObjGetElements(NULL, obj, &objc, &objv)
	    != TCL_OK || objc == 0) {
	return -1;
    }
    for (i = 0; i < objc; i++) {
	if (PolicyIndex(Tcl_GetString(objv[i])) < 0) {
	    return -1;
	}
    }
    if (out != NULL) {
	*out = Rb_Realloc(NULL, (size_t)objc * sizeof(int));
	for (i = 0; i < objc; i++) {
	    (*out)[i] = PolicyIndex(Tcl_GetString(objv[i]));
	}
    }
    return objc;
}

/*
 * HasField --
 *	Whether a field option is given.
 */
static int
HasField(const char *name)
{
    return name != NULL && name[0] != '\0';
}

/*
 * CacheSimInit --
 *	Checks -policy, -sizes, -block, -limit and how the object options go
 *	together.
 */
static int
CacheSimInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    CacheSimState *st = a->state;
    SizeSpec *specs = NULL;
    int *policies = NULL;
    int np, ns, i, objects = HasField(st->key), bytes = 0, arc = 0;

    if ((np = ParsePolicies(st->policyObj, &policies)) < 0) {
	return RbKitOptionError(a, interp, "bad -policy \"%s\": must be "
		"one or more of " POLICY_LIST, st->policyObj
		? Tcl_GetString(st->policyObj) : "");
    }
    for (i = 0; i < np; i++) {
	arc |= policies[i] == POLICY_ARC;
    }
    free(policies);
    if ((ns = ParseSizes(st->sizesObj, &specs)) < 0) {
	return RbKitOptionError(a, interp, "-sizes must be a non-empty "
		"list of cache sizes: counts from 1 to %" PRId64 ", bytes "
		"with a unit (64MB, 1GB) or fractions of the working set "
		"above 0 and at most 1", MAX_CACHE_BLOCKS);
    }
    for (i = 0; i < ns; i++) {
	bytes |= specs[i].kind == SIZE_BYTES;
    }
    free(specs);
    if (st->map.block <= 0) {
	return RbKitOptionError(a, interp,
		"-block must be a positive number of bytes");
    }
    if (st->limit <= 0) {
	return RbKitOptionError(a, interp, "-limit must be positive");
    }
    if (st->sampleSize < 0) {
	return RbKitOptionError(a, interp,
		"-samplesize must be 0 (none) or positive");
    }
    if (st->sampleSize > 0) {
	int fractions = 1;

	ParseSizes(st->sizesObj, &specs);
	for (i = 0; i < ns; i++) {
	    fractions &= specs[i].kind == SIZE_FRACTION;
	}
	free(specs);
	if (!fractions) {
	    return RbKitOptionError(a, interp, "-samplesize needs every "
		    "size of -sizes a fraction of the working set");
	}
    }
    if (!objects && (HasField(st->sizeField) || HasField(st->ttlField)
	    || HasField(st->nextField))) {
	return RbKitOptionError(a, interp, "-sizeField, -ttlField and "
		"-nextField need -key (objects)");
    }
    if (objects && bytes && !HasField(st->sizeField)) {
	return RbKitOptionError(a, interp, "-sizes in bytes need "
		"-sizeField: without it every object counts as one");
    }
    if (arc && HasField(st->sizeField)) {
	return RbKitOptionError(a, interp, "arc counts entries, not bytes: "
		"it cannot run with -sizeField");
    }
    return TCL_OK;
}

/*
 * InitCache, FreeCacheContents --
 *	An empty cache of capacity size under policy; the release of what a
 *	cache holds (not of the structure itself).
 */
static void
InitCache(Cache *ca, int policy, int64_t size)
{
    int l;

    memset(ca, 0, sizeof(Cache));
    ca->policy = policy;
    ca->size = size;
    switch (policy) {
    case POLICY_2Q:
	/* Johnson and Shasha: Kin a quarter, Kout half of the cache. */
	ca->small = size / 4;
	ca->main = size / 2 > 0 ? size / 2 : 1;
	break;
    case POLICY_SLRU:
	ca->small = size - size * 4 / 5;
	ca->main = size * 4 / 5;
	break;
    default:
	ca->small = ca->size / 10 > 0 ? ca->size / 10 : 1;
	ca->main = ca->size - ca->small;
	break;
    }
    ca->freeNode = NIL;
    ca->hand = NIL;
    ca->hintNode = NIL;
    for (l = 0; l < NLISTS; l++) {
	ca->lists[l].head = ca->lists[l].tail = NIL;
    }
}

static void
FreeCacheContents(Cache *ca)
{
    int l;

    for (l = 0; l < 3; l++) {
	free(ca->rings[l].slot);
    }
    free(ca->seqs);
    free(ca->expiry);
    free(ca->nodes);
    free(ca->heap);
    free(ca->slots);
}

/*
 * FreeCaches --
 *	Frees every cache and the spool.
 */
static void
FreeCaches(CacheSimState *st)
{
    int c;

    for (c = 0; c < st->ncaches; c++) {
	if (st->mine[c]) {
	    FreeCacheContents(&st->caches[c]);
	}
    }
    free(st->caches);
    free(st->mine);
    free(st->policies);
    free(st->specs);
    st->caches = NULL;
    st->mine = NULL;
    st->policies = NULL;
    st->specs = NULL;
    st->ncaches = 0;
    if (st->spoolFile != NULL) {
	fclose(st->spoolFile);
	st->spoolFile = NULL;
    }
    if (st->seen.valSize != 0) {
	Rb_KeyTableFree(&st->seen);
	memset(&st->seen, 0, sizeof(st->seen));
    }
}

/*
 * Capacity --
 *	The capacity of size spec (in the weight accesses carry): a count
 *	as it is, bytes in blocks of -block for block keys, a fraction of
 *	the working set rounded down (at least 1).
 */
static int64_t
Capacity(const CacheSimState *st, const SizeSpec *spec)
{
    int64_t c;

    switch (spec->kind) {
    case SIZE_BYTES:
	c = HasField(st->key) ? spec->count : spec->count / st->map.block;
	break;
    case SIZE_FRACTION:
	c = (int64_t)floor(spec->fraction * (double)st->workingSet);
	break;
    default:
	c = spec->count;
	break;
    }
    return c > 0 ? c : 1;
}

/*
 * MakeCaches --
 *	One empty cache per policy and size that this process simulates,
 *	with the capacities known now.
 */
static void
MakeCaches(CacheSimState *st)
{
    int c;

    for (c = 0; c < st->ncaches; c++) {
	if (st->mine[c]) {
	    InitCache(&st->caches[c], st->policies[c / st->nsizes],
		    Capacity(st, &st->specs[c % st->nsizes]));
	    st->caches[c].ttl = st->ttlIndex >= 0;
	}
    }
}

/*
 * ObjectField --
 *	Resolves an optional integer field option into *index (-1 when not
 *	given).
 */
static int
ObjectField(Rb_Analyzer *a, const Rb_RunInfo *run, const char *name,
	int *index)
{
    *index = -1;
    if (!HasField(name)) {
	return TCL_OK;
    }
    return RbKitIntegerField(a, run, name, index);
}

/*
 * OpenSpool --
 *	A temporary file for the accesses, in $TMPDIR (else /tmp), unlinked
 *	at once so that nothing is left behind however the process ends.
 * Results: the open file, or NULL with errno set.
 */
static FILE *
OpenSpool(void)
{
    const char *dir = getenv("TMPDIR");
    Tcl_DString path;
    FILE *f = NULL;
    int fd;

    Tcl_DStringInit(&path);
    Tcl_DStringAppend(&path, dir != NULL && dir[0] != '\0' ? dir : "/tmp",
	    -1);
    Tcl_DStringAppend(&path, "/rubicon-cachesim-XXXXXX", -1);
    fd = mkstemp(Tcl_DStringValue(&path));
    if (fd >= 0) {
	unlink(Tcl_DStringValue(&path));
	if ((f = fdopen(fd, "w+b")) == NULL) {
	    close(fd);
	}
    }
    Tcl_DStringFree(&path);
    return f;
}

/*
 * CacheSimStart --
 *	Checks the options, resolves the fields, shares the caches out in a
 *	sweep and makes an empty cache of each size (or, when it must see
 *	the whole trace first, opens the spool).
 */
static int
CacheSimStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    CacheSimState *st = a->state;
    int c, k, opt = 0;

    if (CacheSimInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    FreeCaches(st);
    st->keyIndex = st->sizeIndex = st->ttlIndex = st->nextIndex = -1;
    if (HasField(st->key)) {
	if (Rb_AnalyzerTypedField(a, run, st->key, RB_FT_BIT(RB_FT_INT)
		| RB_FT_BIT(RB_FT_STRING), &st->keyIndex) != TCL_OK
		|| ObjectField(a, run, st->sizeField, &st->sizeIndex)
		!= TCL_OK
		|| ObjectField(a, run, st->ttlField, &st->ttlIndex) != TCL_OK
		|| ObjectField(a, run, st->nextField, &st->nextIndex)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
	if (st->ttlIndex >= 0) {
	    st->ttlScale = run->schema->fields[st->ttlIndex].unit
		    == RB_UNIT_NS ? 1.0 : (double)RB_NS_PER_S;
	}
    } else if (RbBlockKeysStart(a, &st->map, run, "-key") != TCL_OK) {
	return TCL_ERROR;
    }
    st->npolicies = ParsePolicies(st->policyObj, &st->policies);
    st->nsizes = ParseSizes(st->sizesObj, &st->specs);
    st->ncaches = st->npolicies * st->nsizes;
    st->caches = Rb_Realloc(NULL, (size_t)st->ncaches * sizeof(Cache));
    memset(st->caches, 0, (size_t)st->ncaches * sizeof(Cache));
    st->mine = Rb_Realloc(NULL, (size_t)st->ncaches);
    for (c = 0; c < st->ncaches; c++) {
	st->mine[c] = !RbMpiSweep() || c % RbMpiSize() == RbMpiRank();
    }
    st->spool = 0;
    for (k = 0; k < st->nsizes; k++) {
	st->spool |= st->specs[k].kind == SIZE_FRACTION;
    }
    for (k = 0; k < st->npolicies; k++) {
	opt |= st->policies[k] == POLICY_OPT;
    }
    st->needNext = opt && st->nextIndex < 0;
    st->spool |= st->needNext;
    st->workingSet = 0;
    st->threshold = KEYHASH_SPACE;
    st->fed = st->fedBytes = 0;
    st->accesses = st->bytes = st->skipped = 0;
    st->failed = 0;
    st->finished = 0;
    if (st->spool) {
	if ((st->spoolFile = OpenSpool()) == NULL) {
	    Rb_AnalyzerError(a, "RUBICON ANALYZER SPOOL", "%s: cannot make "
		    "a temporary file for the accesses (fractions of the "
		    "working set and opt need the whole trace): %s",
		    a->cls->name, Tcl_ErrnoMsg(errno));
	    return TCL_ERROR;
	}
	Rb_KeyTableInit(&st->seen, sizeof(int64_t));
    } else {
	MakeCaches(st);
	if (st->run == NULL) {
	    st->run = Rb_Alloc(sizeof(Run));
	    memset(st->run, 0, sizeof(Run));
	}
	st->run->n = 0;
    }
    return TCL_OK;
}

/*
 * SlotOfHash, IndexGrow, IndexAdd, IndexRemove --
 *	The key index of a cache: a table of node numbers (plus 1) by the
 *	hash of their keys, probed linearly, kept at most half full; each
 *	entry holds the low 32 bits of its key's hash beside the node, so
 *	that a probe reads a node (to compare keys) only when those agree,
 *	and moving entries (growing, filling a removal's hole) reads none.
 *	A removal moves the later entries of its probe run back into the
 *	hole, so no tombstones build up.  SlotOfHash gives the slot of key
 *	(of hash h), or the free slot where it would go; IndexRemove finds
 *	node n's slot by its number.
 */
#define SLOT_NODE(e)	((int32_t)(uint32_t)(e) - 1)
#define SLOT_TAG(e)	((uint32_t)((e) >> 32))

static inline uint64_t
SlotOfHash(const Cache *ca, int64_t key, uint64_t h)
{
    uint64_t s = h & ca->slotMask, e;
    uint32_t tag = (uint32_t)h;

    while ((e = ca->slots[s]) != 0 && (SLOT_TAG(e) != tag
	    || ca->nodes[SLOT_NODE(e)].key != key)) {
	s = (s + 1) & ca->slotMask;
    }
    return s;
}

static void
IndexGrow(Cache *ca)
{
    uint64_t oldCap = ca->slots ? ca->slotMask + 1 : 0, i, mask;
    uint64_t *old = ca->slots;

    mask = ca->slotMask = oldCap ? 2 * oldCap - 1 : 127;
    ca->slots = RbAllocHuge(mask + 1, sizeof(uint64_t));
    memset(ca->slots, 0, (mask + 1) * sizeof(uint64_t));
    for (i = 0; i < oldCap; i++) {
	if (old[i] != 0) {
	    uint64_t s = SLOT_TAG(old[i]) & mask;

	    while (ca->slots[s] != 0) {
		s = (s + 1) & mask;
	    }
	    ca->slots[s] = old[i];
	}
    }
    free(old);
}

static void
IndexAdd(Cache *ca, int32_t n, uint64_t h)
{
    if (ca->slots == NULL
	    || (uint64_t)ca->indexed * 2 + 2 > ca->slotMask + 1) {
	IndexGrow(ca);
    }
    ca->slots[SlotOfHash(ca, ca->nodes[n].key, h)] =
	    (uint64_t)(uint32_t)h << 32 | (uint32_t)(n + 1);
    ca->indexed++;
}

static void
IndexRemove(Cache *ca, int32_t n)
{
    uint64_t mask = ca->slotMask, e = (uint32_t)(n + 1), hole, j;

    /* The slot holding node n: no key needs comparing.  Its home slot
     * is the hash's low bits (the index never has 2^32 slots). */
    if (ca->policy == POLICY_S3FIFO) {
	hole = (uint32_t)ca->nodes[n].next & mask;
    } else if (n == ca->hintNode) {
	hole = ca->hintHash & mask;
	ca->hintNode = NIL;
    } else {
	hole = Rb_HashKey(ca->nodes[n].key) & mask;
    }
    while ((uint32_t)ca->slots[hole] != e) {
	hole = (hole + 1) & mask;
    }
    j = hole;
    ca->slots[hole] = 0;
    ca->indexed--;
    for (;;) {
	uint64_t home;

	j = (j + 1) & mask;
	if (ca->slots[j] == 0) {
	    return;
	}
	home = SLOT_TAG(ca->slots[j]) & mask;
	/* Entry j may fill the hole unless its home lies cyclically in
	 * (hole, j]. */
	if (((j - home) & mask) >= ((j - hole) & mask)) {
	    ca->slots[hole] = ca->slots[j];
	    ca->slots[j] = 0;
	    hole = j;
	}
    }
}

/*
 * GrowNodes --
 *	Moves the pool into room for ca->cap nodes, aligned to 64 bytes so
 *	that no node straddles two cache lines (realloc's 16-byte alignment
 *	would split every other one).
 */
static void
GrowNodes(Cache *ca)
{
    size_t bytes = (size_t)ca->cap * sizeof(Node);
    void *p;

    if (posix_memalign(&p, 64, bytes) != 0) {
	p = Rb_Alloc(bytes);		/* Reports the shortage. */
    }
    if (ca->nnodes > 0) {
	memcpy(p, ca->nodes, (size_t)ca->nnodes * sizeof(Node));
    }
    free(ca->nodes);
    ca->nodes = p;
}

/*
 * NewNode, FreeNode --
 *	A node of the pool for key (listed nowhere, in the index), and its
 *	return to the pool (out of its list and the index).
 */
static int32_t
NewNode(Cache *ca, int64_t key, int64_t weight, uint64_t h)
{
    int32_t n;

    if (ca->freeNode != NIL) {
	n = ca->freeNode;
	ca->freeNode = ca->nodes[n].next;
    } else {
	if (ca->nnodes == ca->cap) {
	    ca->cap = ca->cap ? 2 * ca->cap : 64;
	    GrowNodes(ca);
	    if (ca->policy == POLICY_LFU || ca->policy == POLICY_OPT) {
		ca->seqs = Rb_Realloc(ca->seqs, (size_t)ca->cap
			* sizeof(uint64_t));
	    }
	    if (ca->ttl) {
		ca->expiry = Rb_Realloc(ca->expiry, (size_t)ca->cap
			* sizeof(int64_t));
	    }
	}
	n = ca->nnodes++;
    }
    ca->nodes[n].key = key;
    ca->nodes[n].weight = weight;
    if (ca->expiry != NULL) {
	ca->expiry[n] = NEVER;
    }
    ca->nodes[n].prev = ca->nodes[n].next = NIL;
    ca->nodes[n].list = NIL;
    ca->nodes[n].freq = 0;
    IndexAdd(ca, n, h);
    return n;
}

static void
FreeNode(Cache *ca, int32_t n)
{
    IndexRemove(ca, n);
    ca->nodes[n].next = ca->freeNode;
    ca->freeNode = n;
}

/*
 * ClearExpiry --
 *	A ghost brought back into the cache forgets its old time to live.
 */
static void
ClearExpiry(Cache *ca, int32_t n)
{
    if (ca->expiry != NULL) {
	ca->expiry[n] = NEVER;
    }
}

/*
 * Unlink, PushHead --
 *	Takes node n out of its list; puts it at the head of list l.
 */
static void
Unlink(Cache *ca, int32_t n)
{
    Node *x = &ca->nodes[n];
    List *l = &ca->lists[x->list];

    if (x->prev != NIL) {
	ca->nodes[x->prev].next = x->next;
    } else {
	l->head = x->next;
    }
    if (x->next != NIL) {
	ca->nodes[x->next].prev = x->prev;
    } else {
	l->tail = x->prev;
    }
    l->n--;
    l->w -= x->weight;
    x->prev = x->next = NIL;
}

static void
PushHead(Cache *ca, int32_t n, int l)
{
    Node *x = &ca->nodes[n];
    List *list = &ca->lists[l];

    x->list = l;
    x->prev = NIL;
    x->next = list->head;
    if (list->head != NIL) {
	ca->nodes[list->head].prev = n;
    } else {
	list->tail = n;
    }
    list->head = n;
    list->n++;
    list->w += x->weight;
}

/*
 * MoveHead, MoveUp --
 *	Move node n to the head of list l; MoveUp, inlined, only when n is
 *	in l.
 */
static inline __attribute__((always_inline)) void
MoveUp(Cache *ca, int32_t n, int l)
{
    Node *nodes = ca->nodes, *x = &nodes[n];
    List *list = &ca->lists[l];

    /* Within its list: its count and weight stay. */
    if (list->head == n) {
	return;
    }
    nodes[x->prev].next = x->next;
    if (x->next != NIL) {
	nodes[x->next].prev = x->prev;
    } else {
	list->tail = x->prev;
    }
    x->prev = NIL;
    x->next = list->head;
    nodes[list->head].prev = n;
    list->head = n;
}

static void
MoveHead(Cache *ca, int32_t n, int l)
{
    if (ca->nodes[n].list != l) {
	Unlink(ca, n);
	PushHead(ca, n, l);
	return;
    }
    MoveUp(ca, n, l);
}

/*
 * DropTail --
 *	Removes the entry at the tail of list l from the cache altogether.
 *	The entries next to go are prefetched, a step apart: the index slot
 *	of the new tail (its node prefetched by the drop before; its hash
 *	kept as the hint for IndexRemove) and the node before it.
 */
static void
DropTail(Cache *ca, int l)
{
    int32_t n = ca->lists[l].tail, t;

    Unlink(ca, n);
    FreeNode(ca, n);
    if ((t = ca->lists[l].tail) != NIL) {
	const Node *x = &ca->nodes[t];

	ca->hintNode = t;
	ca->hintHash = Rb_HashKey(x->key);
	__builtin_prefetch(&ca->slots[ca->hintHash & ca->slotMask]);
	if (x->prev != NIL) {
	    __builtin_prefetch(&ca->nodes[x->prev]);
	}
    }
}

/*
 * Lookup --
 *	The node of x's key, or NIL.
 */
static inline int32_t
Lookup(Cache *ca, const Access *x)
{
    return ca->slots != NULL
	    ? SLOT_NODE(ca->slots[SlotOfHash(ca, x->key, x->hash)]) : NIL;
}

/*
 * HeapBefore, HeapSwap, SiftDown, SiftUp --
 *	The heap of LFU and OPT, the next victim first: LFU's least
 *	frequently used (the least recently used among equals), OPT's
 *	farthest next access; each node's list field holds its heap
 *	position.
 */
static int
HeapBefore(const Cache *ca, int32_t a, int32_t b)
{
    const Node *x = &ca->nodes[a], *y = &ca->nodes[b];
    uint64_t sa = ca->seqs[a], sb = ca->seqs[b];

    if (ca->policy == POLICY_OPT) {
	/* Among entries never used again, the heaviest goes first. */
	return sa != sb ? sa > sb : x->weight > y->weight;
    }
    return x->freq != y->freq ? x->freq < y->freq : sa < sb;
}

static void
HeapSwap(Cache *ca, int64_t i, int64_t j)
{
    int32_t t = ca->heap[i];

    ca->heap[i] = ca->heap[j];
    ca->heap[j] = t;
    ca->nodes[ca->heap[i]].list = (int32_t)i;
    ca->nodes[ca->heap[j]].list = (int32_t)j;
}

static void
SiftDown(Cache *ca, int64_t i)
{
    for (;;) {
	int64_t l = 2 * i + 1, r = l + 1, m = i;

	if (l < ca->nheap && HeapBefore(ca, ca->heap[l], ca->heap[m])) {
	    m = l;
	}
	if (r < ca->nheap && HeapBefore(ca, ca->heap[r], ca->heap[m])) {
	    m = r;
	}
	if (m == i) {
	    return;
	}
	HeapSwap(ca, i, m);
	i = m;
    }
}

static void
SiftUp(Cache *ca, int64_t i)
{
    while (i > 0 && HeapBefore(ca, ca->heap[i], ca->heap[(i - 1) / 2])) {
	HeapSwap(ca, i, (i - 1) / 2);
	i = (i - 1) / 2;
    }
}

/*
 * HeapRemove, HeapInsert --
 *	Takes the node at heap position i out of the cache; puts a new node
 *	for key in.
 */
static void
HeapRemove(Cache *ca, int64_t i)
{
    int32_t victim = ca->heap[i];

    ca->heapW -= ca->nodes[victim].weight;
    HeapSwap(ca, i, --ca->nheap);
    if (i < ca->nheap) {
	SiftDown(ca, i);
	SiftUp(ca, i);
    }
    FreeNode(ca, victim);
}

static int32_t
HeapInsert(Cache *ca, const Access *x)
{
    int32_t n;

    if (ca->nheap == ca->heapCap) {
	ca->heapCap = ca->heapCap ? 2 * ca->heapCap : 64;
	if (ca->heapCap > ca->size) {
	    ca->heapCap = ca->size;
	}
	ca->heap = Rb_Realloc(ca->heap, (size_t)ca->heapCap
		* sizeof(int32_t));
    }
    n = NewNode(ca, x->key, x->weight, x->hash);
    ca->heap[ca->nheap] = n;
    ca->nodes[n].list = (int32_t)ca->nheap;
    ca->heapW += x->weight;
    ca->nheap++;
    return n;
}

/*
 * AccessLfu --
 *	LFU: a hit counts one more use; a miss evicts the entries of fewest
 *	uses (the least recently used of them) until the new one fits.
 * Results: 1 for a hit.
 */
static int
AccessLfu(Cache *ca, const Access *x)
{
    int32_t n = Lookup(ca, x);

    if (n != NIL) {
	ca->nodes[n].freq++;
	ca->seqs[n] = ca->seq;
	SiftDown(ca, ca->nodes[n].list);
	return 1;
    }
    if (x->weight > ca->size) {
	return 0;
    }
    while (ca->heapW + x->weight > ca->size) {
	HeapRemove(ca, 0);
    }
    n = HeapInsert(ca, x);
    ca->nodes[n].freq = 1;
    ca->seqs[n] = ca->seq;
    SiftUp(ca, ca->nheap - 1);
    return 0;
}

/*
 * AccessOpt --
 *	Belady's OPT: a hit notes the entry's next access; a miss whose next
 *	access is never, or not sooner than the farthest next access held
 *	when room must be made, bypasses the cache; otherwise the entries of
 *	farthest next access are evicted until the new one fits.
 * Results: 1 for a hit.
 */
static int
AccessOpt(Cache *ca, const Access *x)
{
    int32_t n = Lookup(ca, x);
    uint64_t next = (uint64_t)x->next;

    if (n != NIL) {
	ca->seqs[n] = next;
	SiftDown(ca, ca->nodes[n].list);
	SiftUp(ca, ca->nodes[n].list);
	return 1;
    }
    if (x->weight > ca->size || x->next == NEVER
	    || (ca->heapW + x->weight > ca->size
	    && next >= ca->seqs[ca->heap[0]])) {
	return 0;
    }
    while (ca->heapW + x->weight > ca->size) {
	HeapRemove(ca, 0);
    }
    n = HeapInsert(ca, x);
    ca->seqs[n] = next;
    SiftUp(ca, ca->nheap - 1);
    return 0;
}

/*
 * ArcReplace --
 *	ARC's REPLACE(x, p): demotes the LRU block of T1 to B1 when T1 is
 *	above its target p (or at it and x was a B2 ghost), else the LRU
 *	block of T2 to B2.
 */
static void
ArcReplace(Cache *ca, int inB2)
{
    int64_t t1 = ca->lists[LIST_T1].n;

    if (t1 >= 1 && ((inB2 && (double)t1 == ca->p) || (double)t1 > ca->p)) {
	MoveHead(ca, ca->lists[LIST_T1].tail, LIST_B1);
    } else {
	MoveHead(ca, ca->lists[LIST_T2].tail, LIST_B2);
    }
}

/*
 * AccessArc --
 *	ARC (Megiddo and Modha, FAST 2003, Figure 4), cache size c: T1 and
 *	T2 hold the cached blocks, B1 and B2 the ghosts of blocks evicted
 *	from them, p adapts on ghost hits.  Entries weigh 1 (CacheSimInit
 *	refuses object sizes).
 * Results: 1 for a hit (in T1 or T2).
 */
static int
AccessArc(Cache *ca, const Access *x)
{
    int32_t n = Lookup(ca, x);
    double c = (double)ca->size;
    List *t1 = &ca->lists[LIST_T1], *t2 = &ca->lists[LIST_T2];
    List *b1 = &ca->lists[LIST_B1], *b2 = &ca->lists[LIST_B2];

    if (n != NIL && ca->nodes[n].list <= LIST_T2) {
	MoveHead(ca, n, LIST_T2);
	return 1;
    }
    if (n != NIL && ca->nodes[n].list == LIST_B1) {
	double delta = b1->n >= b2->n ? 1.0 : (double)b2->n / (double)b1->n;

	ca->p = ca->p + delta < c ? ca->p + delta : c;
	ArcReplace(ca, 0);
	ClearExpiry(ca, n);
	MoveHead(ca, n, LIST_T2);
	return 0;
    }
    if (n != NIL) {
	double delta = b2->n >= b1->n ? 1.0 : (double)b1->n / (double)b2->n;

	ca->p = ca->p - delta > 0 ? ca->p - delta : 0.0;
	ArcReplace(ca, 1);
	ClearExpiry(ca, n);
	MoveHead(ca, n, LIST_T2);
	return 0;
    }
    if (t1->n + b1->n == ca->size) {
	if (t1->n < ca->size) {
	    DropTail(ca, LIST_B1);
	    ArcReplace(ca, 0);
	} else {
	    DropTail(ca, LIST_T1);
	}
    } else if (t1->n + t2->n + b1->n + b2->n >= ca->size) {
	if (t1->n + t2->n + b1->n + b2->n == 2 * ca->size) {
	    DropTail(ca, LIST_B2);
	}
	ArcReplace(ca, 0);
    }
    PushHead(ca, NewNode(ca, x->key, 1, x->hash), LIST_T1);
    return 0;
}

/*
 * RingLive, RingGrow, RingPush, RingTail, RingForget, RingPop --
 *	The queues of S3-FIFO as rings of node numbers (see Ring): FIFOs
 *	whose entries lie in order in memory, so that the nodes an eviction
 *	will read, each cold, can be prefetched a few entries ahead
 *	(RingAhead); linked lists would name each only from the one before.
 *	A move from a queue's tail to its head writes no neighbour.
 *	RingPush puts node n at the head of queue l; RingTail gives the node
 *	at its tail (the queue holds one), skipping stale entries;
 *	RingForget takes n out of its queue's counts (its entry goes
 *	stale); RingPop takes out the tail RingTail gave.  A full ring is
 *	compacted in place when at least half its entries are stale (so a
 *	ring holds at most about twice its queue's entries), else doubled.
 */
static inline int
RingLive(const Cache *ca, int l, uint64_t p)
{
    const Node *x = &ca->nodes[ca->rings[l].slot[p & (ca->rings[l].cap - 1)]];

    return x->list == l && x->prev == (int32_t)(uint32_t)p;
}

static void
RingGrow(Cache *ca, int l)
{
    Ring *r = &ca->rings[l];
    uint64_t used = r->head - r->tail, p, w, mask = r->cap - 1;

    if (r->cap > 0 && used >= 2 * (uint64_t)ca->lists[l].n + 64) {
	for (p = w = r->tail; p != r->head; p++) {
	    if (RingLive(ca, l, p)) {
		int32_t n = r->slot[p & mask];

		r->slot[w & mask] = n;
		ca->nodes[n].prev = (int32_t)(uint32_t)w;
		w++;
	    }
	}
	r->head = w;
	r->aheadNode = r->aheadSlot = r->tail;
	return;
    }
    {
	uint64_t cap = r->cap ? 2 * r->cap : 64;
	int32_t *slot = RbAllocHuge(cap, sizeof(int32_t));

	/* Every entry keeps its position (so its node's stamp holds). */
	memset(slot, 0, cap * sizeof(int32_t));
	for (p = r->tail; p != r->head; p++) {
	    slot[p & (cap - 1)] = r->slot[p & mask];
	}
	free(r->slot);
	r->slot = slot;
	r->cap = cap;
    }
}

static inline void
RingPush(Cache *ca, int32_t n, int l)
{
    Ring *r = &ca->rings[l];
    Node *x = &ca->nodes[n];

    if (r->head - r->tail == r->cap) {
	RingGrow(ca, l);
    }
    r->slot[r->head & (r->cap - 1)] = n;
    x->list = l;
    x->prev = (int32_t)(uint32_t)r->head;
    r->head++;
    ca->lists[l].n++;
    ca->lists[l].w += x->weight;
}

static inline int32_t
RingTail(Cache *ca, int l)
{
    Ring *r = &ca->rings[l];

    while (!RingLive(ca, l, r->tail)) {
	r->tail++;
    }
    return r->slot[r->tail & (r->cap - 1)];
}

static inline void
RingForget(Cache *ca, int32_t n)
{
    Node *x = &ca->nodes[n];

    ca->lists[x->list].n--;
    ca->lists[x->list].w -= x->weight;
    x->list = NIL;
}

static inline int32_t
RingPop(Cache *ca, int l)
{
    Ring *r = &ca->rings[l];
    int32_t n = r->slot[r->tail & (r->cap - 1)];

    r->tail++;
    RingForget(ca, n);
    return n;
}

/*
 * RingAhead --
 *	Before queue l's tail entry is dealt with: prefetches the nodes of
 *	the entries up to RING_NODE on (stale ones too: the tail passes
 *	them), each once and none past the head, and the index slots of
 *	the nodes up to RING_SLOT on (prefetched RING_NODE - RING_SLOT
 *	entries before) that will be dropped from the index when they reach
 *	the tail as they are: all of G's, M's of count 0.
 */
#define RING_NODE 32
#define RING_SLOT 16

static inline void
RingAhead(Cache *ca, int l)
{
    Ring *r = &ca->rings[l];
    uint64_t mask = r->cap - 1, end;

    end = r->tail + RING_NODE < r->head ? r->tail + RING_NODE : r->head;
    if (r->aheadNode < r->tail) {
	r->aheadNode = r->tail;
    }
    for (; r->aheadNode < end; r->aheadNode++) {
	__builtin_prefetch(&ca->nodes[r->slot[r->aheadNode & mask]]);
    }
    if (l != LIST_S) {
	end = r->tail + RING_SLOT < r->head ? r->tail + RING_SLOT : r->head;
	if (r->aheadSlot < r->tail) {
	    r->aheadSlot = r->tail;
	}
	for (; r->aheadSlot < end; r->aheadSlot++) {
	    const Node *x = &ca->nodes[r->slot[r->aheadSlot & mask]];

	    if (l == LIST_G || x->freq == 0) {
		__builtin_prefetch(&ca->slots[(uint32_t)x->next
			& ca->slotMask]);
	    }
	}
    }
}

/*
 * S3EvictMain, S3EvictSmall, S3FifoMiss, AccessS3Fifo --
 *	S3-FIFO (Yang et al., SOSP 2023, Algorithm 1): a small FIFO S of a
 *	tenth of the cache, a main FIFO M of the rest, a ghost FIFO G of as
 *	much as M; a counter of uses, capped at 3, per entry.  The queues
 *	are rings (RingPush).
 */
static void
S3EvictMain(Cache *ca)
{
    while (ca->lists[LIST_M].n > 0) {
	int32_t t = RingTail(ca, LIST_M);

	RingAhead(ca, LIST_M);
	RingPop(ca, LIST_M);
	if (ca->nodes[t].freq > 0) {
	    ca->nodes[t].freq--;
	    RingPush(ca, t, LIST_M);
	} else {
	    FreeNode(ca, t);
	    return;
	}
    }
}

static void
S3EvictSmall(Cache *ca)
{
    while (ca->lists[LIST_S].n > 0) {
	int32_t t = RingTail(ca, LIST_S);

	RingAhead(ca, LIST_S);
	RingPop(ca, LIST_S);
	if (ca->nodes[t].freq > 1) {
	    ca->nodes[t].freq = 0;
	    RingPush(ca, t, LIST_M);
	    while (ca->lists[LIST_M].w > ca->main) {
		S3EvictMain(ca);
	    }
	} else {
	    RingPush(ca, t, LIST_G);
	    while (ca->lists[LIST_G].w > ca->main) {
		int32_t g = RingTail(ca, LIST_G);

		RingAhead(ca, LIST_G);
		RingPop(ca, LIST_G);
		FreeNode(ca, g);
	    }
	    return;
	}
    }
}

static void
S3FifoMiss(Cache *ca, const Access *x, int32_t n)
{
    if (x->weight > ca->size) {
	return;
    }
    while (ca->lists[LIST_S].w + ca->lists[LIST_M].w + x->weight
	    > ca->size) {
	if (ca->lists[LIST_S].w >= ca->small || ca->lists[LIST_M].n == 0) {
	    S3EvictSmall(ca);
	} else {
	    S3EvictMain(ca);
	}
    }
    /* Evicting may have dropped the ghost of key from G: its node's list
     * is then NIL (no node is taken from the pool until below). */
    if (n != NIL && ca->nodes[n].list == LIST_G) {
	/* A ghost: its entry goes straight to M. */
	RingForget(ca, n);
	ca->nodes[n].freq = 0;
	ca->nodes[n].weight = x->weight;
	ClearExpiry(ca, n);
	RingPush(ca, n, LIST_M);
    } else {
	int32_t m = NewNode(ca, x->key, x->weight, x->hash);

	ca->nodes[m].next = (int32_t)(uint32_t)x->hash;
	RingPush(ca, m, LIST_S);
    }
}

/* The hit, inlined; a miss (n: NIL or a ghost) in S3FifoMiss. */
static inline int
AccessS3Fifo(Cache *ca, const Access *x)
{
    int32_t n = Lookup(ca, x);

    if (n != NIL && ca->nodes[n].list != LIST_G) {
	if (ca->nodes[n].freq < 3) {
	    ca->nodes[n].freq++;
	}
	return 1;
    }
    S3FifoMiss(ca, x, n);
    return 0;
}

/*
 * SieveEvict, SieveMiss, AccessSieve --
 *	SIEVE (Zhang et al., NSDI 2024): one FIFO queue, a visited bit per
 *	entry set by a hit, and a hand that moves from the tail (oldest)
 *	toward the head, clearing set bits, and evicts the first entry whose
 *	bit is clear; it stays where it stopped, wrapping to the tail.  New
 *	entries go to the head.
 */
static void
SieveEvict(Cache *ca)
{
    int32_t n = ca->hand != NIL ? ca->hand : ca->lists[LIST_T1].tail;

    while (ca->nodes[n].freq) {
	ca->nodes[n].freq = 0;
	n = ca->nodes[n].prev;
	if (n == NIL) {
	    n = ca->lists[LIST_T1].tail;
	}
    }
    ca->hand = ca->nodes[n].prev;
    Unlink(ca, n);
    FreeNode(ca, n);
}

static void
SieveMiss(Cache *ca, const Access *x)
{
    if (x->weight > ca->size) {
	return;
    }
    while (ca->lists[LIST_T1].w + x->weight > ca->size) {
	SieveEvict(ca);
    }
    PushHead(ca, NewNode(ca, x->key, x->weight, x->hash), LIST_T1);
}

/* The hit, inlined; a miss in SieveMiss. */
static inline int
AccessSieve(Cache *ca, const Access *x)
{
    int32_t n = Lookup(ca, x);

    if (n != NIL) {
	ca->nodes[n].freq = 1;
	return 1;
    }
    SieveMiss(ca, x);
    return 0;
}

/*
 * Access2Q --
 *	2Q (Johnson and Shasha, VLDB 1994, the full version): A1in a FIFO
 *	of entries seen once (Kin, a quarter of the cache, is its share),
 *	Am an LRU list of entries seen again, A1out the ghosts of entries
 *	paged out of A1in (at most Kout, half the cache).  A hit in Am moves
 *	the entry to Am's head; one in A1in changes nothing.  A miss whose
 *	key is in A1out takes it out of A1out, reclaims room and goes to the
 *	head of Am; any other miss reclaims room and goes to the head of
 *	A1in.  Reclaiming, while the new entry does not fit: when A1in holds
 *	more than Kin (or Am is empty), its tail is paged out to the head of
 *	A1out, A1out dropping its tail beyond Kout; else Am's tail is paged
 *	out and forgotten.
 * Results: 1 for a hit.
 */
static int
Access2Q(Cache *ca, const Access *x)
{
    int32_t n = Lookup(ca, x);
    List *in = &ca->lists[LIST_T1], *am = &ca->lists[LIST_T2];
    List *out = &ca->lists[LIST_B1];

    if (n != NIL && ca->nodes[n].list != LIST_B1) {
	if (ca->nodes[n].list == LIST_T2) {
	    MoveHead(ca, n, LIST_T2);
	}
	return 1;
    }
    if (x->weight > ca->size) {
	return 0;
    }
    if (n != NIL) {
	Unlink(ca, n);
    }
    while (in->w + am->w + x->weight > ca->size) {
	if (in->n > 0 && (in->w > ca->small || am->n == 0)) {
	    MoveHead(ca, in->tail, LIST_B1);
	    while (out->w > ca->main) {
		DropTail(ca, LIST_B1);
	    }
	} else {
	    DropTail(ca, LIST_T2);
	}
    }
    if (n != NIL) {
	ca->nodes[n].weight = x->weight;
	ClearExpiry(ca, n);
	PushHead(ca, n, LIST_T2);
    } else {
	PushHead(ca, NewNode(ca, x->key, x->weight, x->hash), LIST_T1);
    }
    return 0;
}

/*
 * AccessSlru --
 *	SLRU (Karedla, Love and Wherry, IEEE Computer 1994): a probationary
 *	and a protected segment, each an LRU list.  A miss goes to the head
 *	of the probationary segment; a hit goes to the head of the protected
 *	one, which, above its limit (four fifths of the cache), moves its
 *	tail to the head of the probationary segment.  Room is made from
 *	the tail of the probationary segment (of the protected one when it
 *	is empty).
 * Results: 1 for a hit.
 */
static int
AccessSlru(Cache *ca, const Access *x)
{
    int32_t n = Lookup(ca, x);
    List *prob = &ca->lists[LIST_T1], *prot = &ca->lists[LIST_T2];

    if (n != NIL) {
	MoveHead(ca, n, LIST_T2);
	while (prot->w > ca->main) {
	    MoveHead(ca, prot->tail, LIST_T1);
	}
	return 1;
    }
    if (x->weight > ca->size) {
	return 0;
    }
    while (prob->w + prot->w + x->weight > ca->size) {
	DropTail(ca, prob->n > 0 ? LIST_T1 : LIST_T2);
    }
    PushHead(ca, NewNode(ca, x->key, x->weight, x->hash), LIST_T1);
    return 0;
}

/*
 * ListMiss, AccessList --
 *	LRU, FIFO and CLOCK on one list, most recent insertion (LRU: most
 *	recent use) at the head.  LRU moves a hit to the head; FIFO leaves
 *	it; CLOCK sets its reference bit.  A miss evicts the tail until the
 *	new entry fits, CLOCK first giving a second chance to each tail
 *	entry whose bit is set (bit cleared, moved to the head: the clock
 *	hand).
 * Results: 1 for a hit.
 */
static void
ListMiss(Cache *ca, int policy, const Access *x)
{
    List *l = &ca->lists[0];
    int32_t t;

    if (x->weight > ca->size) {
	return;
    }
    while (l->w + x->weight > ca->size) {
	while (policy == POLICY_CLOCK && ca->nodes[t = l->tail].freq) {
	    ca->nodes[t].freq = 0;
	    MoveHead(ca, t, 0);
	}
	DropTail(ca, 0);
    }
    PushHead(ca, NewNode(ca, x->key, x->weight, x->hash), 0);
}

/* The hit, inlined; a miss in ListMiss. */
static inline __attribute__((always_inline)) int
AccessList(Cache *ca, int policy, const Access *x)
{
    int32_t n = Lookup(ca, x);

    if (n != NIL) {
	if (policy == POLICY_LRU) {
	    MoveUp(ca, n, 0);
	} else if (policy == POLICY_CLOCK) {
	    ca->nodes[n].freq = 1;
	}
	return 1;
    }
    ListMiss(ca, policy, x);
    return 0;
}

/*
 * Expire --
 *	Before access x: takes its key's entry out of the cache when its
 *	time to live has passed by x's time (ghosts are left alone).
 */
static void
Expire(Cache *ca, const Access *x)
{
    int32_t n = Lookup(ca, x);

    if (n == NIL || ca->expiry[n] > x->time) {
	return;
    }
    if (ca->policy == POLICY_LFU || ca->policy == POLICY_OPT) {
	HeapRemove(ca, ca->nodes[n].list);
	return;
    }
    if (ca->nodes[n].list > LIST_T2) {
	return;
    }
    if (ca->policy == POLICY_S3FIFO) {
	RingForget(ca, n);
	FreeNode(ca, n);
	return;
    }
    if (ca->hand == n) {
	ca->hand = ca->nodes[n].prev;
    }
    Unlink(ca, n);
    FreeNode(ca, n);
}

/*
 * SetExpiry --
 *	After an access carrying a time to live: the entry of its key, if
 *	the cache holds it, expires that long after the access.
 */
static void
SetExpiry(Cache *ca, const Access *x)
{
    int32_t n = Lookup(ca, x);

    if (n != NIL && (ca->policy == POLICY_LFU || ca->policy == POLICY_OPT
	    || ca->nodes[n].list <= LIST_T2)) {
	ca->expiry[n] = x->time + x->ttl;
    }
}

/*
 * CacheAccessAs, CacheAccess --
 *	One access to the cache, under policy (its own; CacheAccessAs is
 *	called with a constant, which leaves one policy's code).
 * Results: 1 for a hit.
 */
static inline __attribute__((always_inline)) int
CacheAccessAs(Cache *ca, const Access *x, int policy)
{
    int hit;

    ca->seq++;
    if (ca->ttl) {
	Expire(ca, x);
    }
    switch (policy) {
    case POLICY_LFU: hit = AccessLfu(ca, x); break;
    case POLICY_OPT: hit = AccessOpt(ca, x); break;
    case POLICY_ARC: hit = AccessArc(ca, x); break;
    case POLICY_S3FIFO: hit = AccessS3Fifo(ca, x); break;
    case POLICY_SIEVE: hit = AccessSieve(ca, x); break;
    case POLICY_2Q: hit = Access2Q(ca, x); break;
    case POLICY_SLRU: hit = AccessSlru(ca, x); break;
    default: hit = AccessList(ca, policy, x); break;
    }
    if (ca->ttl && x->ttl > 0) {
	SetExpiry(ca, x);
    }
    return hit;
}

static int
CacheAccess(Cache *ca, const Access *x)
{
    return CacheAccessAs(ca, x, ca->policy);
}

/*
 * PrefetchNode --
 *	Prefetches the node the home slot of hash h names in ca's index
 *	(which has slots), when its tag agrees: the node a lookup of that
 *	key will read (see PrefetchSlots, PrefetchNodes).
 */
static inline __attribute__((always_inline)) void
PrefetchNode(const Cache *ca, uint64_t h)
{
    uint64_t e = ca->slots[h & ca->slotMask];

    if (e != 0 && SLOT_TAG(e) == (uint32_t)h) {
	__builtin_prefetch(&ca->nodes[SLOT_NODE(e)]);
    }
}

/*
 * RunCacheAs, RunCache --
 *	A run of accesses (no time, TTL or next access) to one cache, the
 *	policy dispatched once for the run (RunCacheAs is called with a
 *	constant policy), the index slot of each key prefetched a few
 *	accesses ahead.
 */
static inline __attribute__((always_inline)) void
RunCacheAs(Cache *ca, const Run *run, int policy)
{
    const int64_t *bytes = run->weighed ? run->weight : run->bytes;
    uint64_t hits = 0, hitBytes = 0;
    Access x;
    int i;

    memset(&x, 0, sizeof(x));
    x.next = NEVER;
    if (ca->slots == NULL) {
	IndexGrow(ca);
    }
    for (i = 0; i < run->n; i++) {
	/* Past the run's end, the hashes of an earlier one (or 0): still
	 * slots of the index to prefetch. */
	__builtin_prefetch(&ca->slots[run->hash[i + PREFETCH_SLOT]
		& ca->slotMask]);
	PrefetchNode(ca, run->hash[i + PREFETCH_NODE]);
	x.key = run->key[i];
	x.hash = run->hash[i];
	x.weight = run->weight[i];
	x.bytes = bytes[i];
	if (CacheAccessAs(ca, &x, policy)) {
	    hits++;
	    hitBytes += (uint64_t)x.bytes;
	}
    }
    ca->hits += hits;
    ca->hitBytes += hitBytes;
}

static void
RunCache(Cache *ca, const Run *run)
{
    switch (ca->policy) {
    case POLICY_LRU: RunCacheAs(ca, run, POLICY_LRU); break;
    case POLICY_FIFO: RunCacheAs(ca, run, POLICY_FIFO); break;
    case POLICY_CLOCK: RunCacheAs(ca, run, POLICY_CLOCK); break;
    case POLICY_LFU: RunCacheAs(ca, run, POLICY_LFU); break;
    case POLICY_ARC: RunCacheAs(ca, run, POLICY_ARC); break;
    case POLICY_S3FIFO: RunCacheAs(ca, run, POLICY_S3FIFO); break;
    case POLICY_SIEVE: RunCacheAs(ca, run, POLICY_SIEVE); break;
    case POLICY_2Q: RunCacheAs(ca, run, POLICY_2Q); break;
    case POLICY_SLRU: RunCacheAs(ca, run, POLICY_SLRU); break;
    default: RunCacheAs(ca, run, POLICY_OPT); break;
    }
}

/*
 * FlushRun --
 *	Feeds the run of accesses gathered to every cache this process
 *	simulates, one cache after another (each cache sees them in order,
 *	as it would one access at a time), and empties it.
 */
static void
FlushRun(CacheSimState *st)
{
    Run *run = st->run;
    int c;

    st->bytes += run->sumBytes;
    st->accesses += (uint64_t)run->n;
    for (c = 0; c < st->ncaches; c++) {
	if (st->mine[c]) {
	    RunCache(&st->caches[c], run);
	}
    }
    run->n = 0;
    run->sumBytes = 0;
}

/*
 * Feed --
 *	One access to every cache this process simulates.
 */
static inline void
Feed(CacheSimState *st, const Access *x)
{
    int c;

    for (c = 0; c < st->ncaches; c++) {
	Cache *ca = &st->caches[c];

	if (st->mine[c] && CacheAccess(ca, x)) {
	    ca->hits++;
	    ca->hitBytes += (uint64_t)x->bytes;
	}
    }
}

/*
 * Shrink --
 *	Halves the sampling threshold, forgetting the keys at or above it
 *	(their spooled accesses are skipped at the end), until at most
 *	-samplesize keys are seen.
 */
static void
Shrink(CacheSimState *st)
{
    while ((int64_t)st->seen.count > st->sampleSize && st->threshold > 1) {
	int64_t *drop = Rb_AllocArray(st->seen.count, sizeof(int64_t));
	uint64_t i, n = 0;

	st->threshold /= 2;
	for (i = 0; i < st->seen.cap; i++) {
	    if (st->seen.used[i]
		    && KEYHASH32(st->seen.keys[i]) >= st->threshold) {
		drop[n++] = st->seen.keys[i];
		st->workingSet -= *(const int64_t *)Rb_KeyTableValue(
			&st->seen, i);
	    }
	}
	for (i = 0; i < n; i++) {
	    Rb_KeyTableRemove(&st->seen, drop[i]);
	}
	free(drop);
    }
}

/*
 * Take --
 *	One access of the trace: counted, then fed to the caches, or spooled
 *	(its key noted for the working set).
 * Results: 1, or 0 (with the run stopped) when the spool cannot take it.
 */
static inline int
Take(Rb_Analyzer *a, const Access *x, uint64_t record)
{
    CacheSimState *st = a->state;

    st->accesses++;
    st->bytes += (uint64_t)x->bytes;
    if (!st->spool) {
	Feed(st, x);
	return 1;
    }
    if (st->sampleSize > 0 && (x->hash >> 32) >= st->threshold) {
	return 1;
    }
    {
	int64_t *w = Rb_KeyTableFindLimited(&st->seen, x->key, st->limit);

	if (w == NULL) {
	    st->failed = 1;
	    RbKitKeyLimit(a, st->limit, HasField(st->key) ? st->key
		    : "blocks", record, 24);
	    return 0;
	}
	if (*w == 0) {
	    *w = x->weight;
	    st->workingSet += x->weight;
	    if (st->sampleSize > 0
		    && (int64_t)st->seen.count > st->sampleSize) {
		Shrink(st);
	    }
	}
    }
    if (fwrite(x, sizeof(Access), 1, st->spoolFile) != 1) {
	st->failed = 1;
	Rb_AnalyzerError(a, "RUBICON ANALYZER SPOOL", "%s: cannot write "
		"the accesses to its temporary file at record %" PRIu64
		": %s", a->cls->name, record, Tcl_ErrnoMsg(errno));
	return 0;
    }
    return 1;
}

/*
 * PrefetchSlots, PrefetchNodes --
 *	Prefetch, a few accesses ahead, what the lookup of the key of hash h
 *	will read in each cache: its home slot in the index (PREFETCH_SLOT
 *	accesses ahead), then the node that slot names when its tag agrees
 *	(PREFETCH_NODE ahead, the slot being there by then).  The keys lead
 *	anywhere in the index and the pool, and each access would otherwise
 *	wait for memory twice in turn.  What they read may have changed by
 *	the access: a prefetch only guesses.  Always inlined: GCC 12 finds a
 *	function that only prefetches pure, and drops the call.
 */
static inline __attribute__((always_inline)) void
PrefetchSlots(const CacheSimState *st, uint64_t h)
{
    int c;

    for (c = 0; c < st->ncaches; c++) {
	const Cache *ca = &st->caches[c];

	if (ca->slots != NULL) {
	    __builtin_prefetch(&ca->slots[h & ca->slotMask]);
	}
    }
}

static inline __attribute__((always_inline)) void
PrefetchNodes(const CacheSimState *st, uint64_t h)
{
    int c;

    for (c = 0; c < st->ncaches; c++) {
	const Cache *ca = &st->caches[c];

	if (ca->slots != NULL) {
	    PrefetchNode(ca, h);
	}
    }
}

/*
 * RunKeyed --
 *	KeyedBatch's accesses when they need no time, TTL or next access
 *	and go straight to the caches: gathered into runs (FlushRun).
 */
static void
RunKeyed(CacheSimState *st, const int64_t *keys, const int64_t *sizes,
	const uint32_t *sel, int nsel)
{
    Run *run = st->run;
    int j = 0;

    run->weighed = 1;
    while (j < nsel) {
	int n = run->n, end = nsel - j < RUN_MAX - n ? nsel : j + RUN_MAX - n;
	uint64_t sum = 0;

	for (; j < end; j++) {
	    uint32_t r = sel[j];
	    int64_t key = keys[r], w = sizes != NULL ? sizes[r] : 1;

	    if (key == RB_ABSENT || w == RB_ABSENT) {
		st->skipped++;
		continue;
	    }
	    w = w > 1 ? w : 1;
	    run->key[n] = key;
	    run->hash[n] = Rb_HashKey(key);
	    run->weight[n] = w;
	    sum += (uint64_t)w;
	    n++;
	}
	run->n = n;
	run->sumBytes += sum;
	FlushRun(st);
    }
}

/*
 * KeyedBatch --
 *	CacheSimBatch with -key: each selected record's object, one access,
 *	the columns it reads looked up once for the batch and the keys'
 *	hashes worked out first (for the prefetches ahead).
 */
static void
KeyedBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    CacheSimState *st = a->state;
    const int64_t *time = b->col[0], *keys = b->col[st->keyIndex];
    const int64_t *sizes = st->sizeIndex >= 0 ? b->col[st->sizeIndex] : NULL;
    const int64_t *ttls = st->ttlIndex >= 0 ? b->col[st->ttlIndex] : NULL;
    const int64_t *nexts = st->nextIndex >= 0 ? b->col[st->nextIndex]
	    : NULL;
    int j, prefetch = !st->spool;
    uint64_t *hashes;
    Access x;

    if (!st->spool && ttls == NULL && nexts == NULL) {
	RunKeyed(st, keys, sizes, sel, nsel);
	return;
    }
    if (nsel > st->hashCap) {
	st->hashCap = nsel;
	st->hashes = Rb_Realloc(st->hashes, (size_t)nsel
		* sizeof(uint64_t));
    }
    hashes = st->hashes;
    for (j = 0; j < nsel; j++) {
	hashes[j] = Rb_HashKey(keys[sel[j]]);
    }
    for (j = 0; prefetch && j < nsel && j < PREFETCH_SLOT; j++) {
	PrefetchSlots(st, hashes[j]);
    }
    memset(&x, 0, sizeof(x));
    x.next = NEVER;
    for (j = 0; j < nsel && !st->failed; j++) {
	uint32_t r = sel[j];

	if (prefetch) {
	    if (j + PREFETCH_SLOT < nsel) {
		PrefetchSlots(st, hashes[j + PREFETCH_SLOT]);
	    }
	    if (j + PREFETCH_NODE < nsel) {
		PrefetchNodes(st, hashes[j + PREFETCH_NODE]);
	    }
	}
	x.time = time[r];
	x.key = keys[r];
	x.hash = hashes[j];
	x.weight = 1;
	if (sizes != NULL) {
	    x.weight = sizes[r] > 1 ? sizes[r] : 1;
	}
	if (x.key == RB_ABSENT || (sizes != NULL && sizes[r] == RB_ABSENT)) {
	    st->skipped++;
	    continue;
	}
	x.bytes = x.weight;
	if (ttls != NULL) {
	    x.ttl = ttls[r] > 0 && ttls[r] != RB_ABSENT
		    ? (int64_t)((double)ttls[r] * st->ttlScale) : 0;
	}
	if (nexts != NULL) {
	    x.next = nexts[r] < 0 ? NEVER : nexts[r];
	}
	Take(a, &x, b->firstRecord + r);
    }
}

/*
 * RunBlocks --
 *	CacheSimBatch's block accesses when they go straight to the caches:
 *	gathered into runs (FlushRun).
 */
static void
RunBlocks(CacheSimState *st, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    const int64_t *offsets = b->col[st->map.offsetIndex];
    const int64_t *ioSizes = b->col[RB_IO_SIZE];
    Run *run = st->run;
    int j;

    run->weighed = 0;
    for (j = 0; j < nsel; j++) {
	int64_t first, count, k, firstBytes, lastBytes;

	if (!RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	RbIoEdgeBytes(&st->map, offsets[sel[j]], ioSizes[sel[j]], count,
		&firstBytes, &lastBytes);
	for (k = 0; k < count; k++) {
	    run->key[run->n] = first + k;
	    run->hash[run->n] = Rb_HashKey(first + k);
	    run->weight[run->n] = 1;
	    run->bytes[run->n] = RbIoBlockBytes(&st->map, k, count,
		    firstBytes, lastBytes);
	    run->sumBytes += (uint64_t)run->bytes[run->n];
	    if (++run->n == RUN_MAX) {
		FlushRun(st);
	    }
	}
    }
    FlushRun(st);
}

/*
 * CacheSimBatch --
 *	Takes every block of each selected I/O, in order, or each selected
 *	record's object.  Spooling blocks, the table entries of the records
 *	ahead are prefetched (RbBlockPrefetchAhead).
 */
static void
CacheSimBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    CacheSimState *st = a->state;
    const int64_t *time = b->col[0];
    Access x;
    int j;

    if (st->keyIndex >= 0) {
	KeyedBatch(a, b, sel, nsel);
	return;
    }
    if (!st->spool) {
	RunBlocks(st, b, sel, nsel);
	return;
    }
    memset(&x, 0, sizeof(x));
    x.next = NEVER;
    for (j = 0; j < nsel && !st->failed; j++) {
	uint64_t record = b->firstRecord + sel[j];
	int64_t first, count, k, firstBytes, lastBytes;
	int64_t offset = b->col[st->map.offsetIndex][sel[j]];
	int64_t size = b->col[RB_IO_SIZE][sel[j]];

	x.time = time[sel[j]];
	RbBlockPrefetchAhead(&st->map, b, sel, j, nsel, &st->seen,
		st->sampleSize > 0 ? st->threshold : UINT64_MAX);
	if (!RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	RbIoEdgeBytes(&st->map, offset, size, count, &firstBytes, &lastBytes);
	x.weight = 1;
	for (k = 0; k < count; k++) {
	    x.key = first + k;
	    x.hash = Rb_HashKey(x.key);
	    x.bytes = RbIoBlockBytes(&st->map, k, count, firstBytes,
		    lastBytes);
	    if (!Take(a, &x, record)) {
		break;
	    }
	}
    }
}

#define SPOOL_CHUNK 8192

/*
 * NextAccesses --
 *	The backward pass over the spool: each access's next is the index of
 *	its key's next access (NEVER when there is none), written back in
 *	place, a chunk at a time from the end.
 * Results: TCL_OK, or TCL_ERROR with an analyzer error.
 */
static int
NextAccesses(Rb_Analyzer *a)
{
    CacheSimState *st = a->state;
    Access *chunk = Rb_Alloc(SPOOL_CHUNK * sizeof(Access));
    uint64_t end = st->accesses;

    Rb_KeyTableClear(&st->seen);
    while (end > 0) {
	uint64_t start = end > SPOOL_CHUNK ? end - SPOOL_CHUNK : 0;
	size_t n = (size_t)(end - start), i;

	if (fseeko(st->spoolFile, (off_t)(start * sizeof(Access)), SEEK_SET)
		!= 0 || fread(chunk, sizeof(Access), n, st->spoolFile) != n) {
	    break;
	}
	for (i = n; i-- > 0;) {
	    int64_t *later = Rb_KeyTableFind(&st->seen, chunk[i].key, 1);

	    chunk[i].next = *later ? *later - 1 : NEVER;
	    *later = (int64_t)(start + i) + 1;
	}
	if (fseeko(st->spoolFile, (off_t)(start * sizeof(Access)), SEEK_SET)
		!= 0 || fwrite(chunk, sizeof(Access), n, st->spoolFile) != n) {
	    break;
	}
	end = start;
    }
    free(chunk);
    if (end > 0) {
	Rb_AnalyzerError(a, "RUBICON ANALYZER SPOOL", "%s: cannot read "
		"back its temporary file of accesses: %s", a->cls->name,
		Tcl_ErrnoMsg(errno));
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * Finish --
 *	Once the trace is read: with a spool, finds the next accesses (for
 *	OPT), makes the caches at the capacities the working set gives and
 *	feeds them the spooled accesses in order.
 * Results: TCL_OK, or TCL_ERROR with an analyzer error.
 */
static int
Finish(Rb_Analyzer *a)
{
    CacheSimState *st = a->state;
    Access *chunk;
    size_t n, i;

    if (st->finished || !st->spool || st->failed) {
	st->finished = 1;
	return st->failed ? TCL_ERROR : TCL_OK;
    }
    st->finished = 1;
    if (fflush(st->spoolFile) != 0
	    || (st->needNext && NextAccesses(a) != TCL_OK)) {
	return TCL_ERROR;
    }
    MakeCaches(st);
    chunk = Rb_Alloc(SPOOL_CHUNK * sizeof(Access));
    rewind(st->spoolFile);
    while ((n = fread(chunk, sizeof(Access), SPOOL_CHUNK, st->spoolFile))
	    > 0) {
	for (i = 0; i < n; i++) {
	    if (i + PREFETCH_SLOT < n) {
		PrefetchSlots(st, chunk[i + PREFETCH_SLOT].hash);
	    }
	    if (i + PREFETCH_NODE < n) {
		PrefetchNodes(st, chunk[i + PREFETCH_NODE].hash);
	    }
	    if (st->sampleSize > 0
		    && (chunk[i].hash >> 32) >= st->threshold) {
		continue;
	    }
	    Feed(st, &chunk[i]);
	    st->fed++;
	    st->fedBytes += (uint64_t)chunk[i].bytes;
	}
	if (Rb_AnalyzerPastLimit(a)) {
	    st->failed = 1;
	    break;
	}
    }
    free(chunk);
    fclose(st->spoolFile);
    st->spoolFile = NULL;
    Rb_KeyTableFree(&st->seen);
    memset(&st->seen, 0, sizeof(st->seen));
    return st->failed ? TCL_ERROR : TCL_OK;
}

/*
 * CacheSimEnd --
 *	Sets HitRatioCurve (one row per policy and size, in -policy then
 *	-sizes order), BlockAccesses and, after a spool, WorkingSet.
 */
static int
CacheSimEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    CacheSimState *st = a->state;
    Rb_Attribute *curve;
    int sizeCol, bytesCol, hitsCol, ratioCol, byteRatioCol, policyCol = -1;
    int objects = st->keyIndex >= 0, c;
    const char *unit = !objects ? "blocks" : st->sizeIndex >= 0 ? "bytes"
	    : "objects";
    int sampled = st->spool && st->sampleSize > 0;
    double rate;

    (void)run;
    if (Finish(a) != TCL_OK) {
	return TCL_ERROR;
    }
    rate = sampled ? (double)st->threshold / (double)KEYHASH_SPACE : 1.0;
    curve = Rb_AttrCreate("HitRatioCurve", RB_ATTR_TABLE, "",
	    "hits and hit ratio of a cache of each size under the policy");
    sizeCol = Rb_AttrAddColumn(curve, "cacheSize", unit, 0);
    bytesCol = Rb_AttrAddColumn(curve, "cacheBytes", "bytes", 0);
    hitsCol = Rb_AttrAddColumn(curve, "hits", "", 0);
    ratioCol = Rb_AttrAddColumn(curve, "hitRatio", "", 0);
    byteRatioCol = Rb_AttrAddColumn(curve, "byteHitRatio", "", 0);
    if (st->npolicies > 1) {
	policyCol = Rb_AttrAddColumn(curve, "policy", "", 1);
    }
    for (c = 0; c < st->ncaches; c++) {
	const Cache *ca = &st->caches[c];
	int row = Rb_AttrAddRow(curve);
	double bytes = !objects ? (double)ca->size * (double)st->map.block
		: st->sizeIndex >= 0 ? (double)ca->size : 0.0;
	/* Sampled: the sample's caches stand for caches 1/rate as large
	 * over all accesses; their ratios are the sample's. */
	uint64_t n = sampled ? st->fed : st->accesses;
	uint64_t nb = sampled ? st->fedBytes : st->bytes;

	Rb_AttrSetNum(curve, row, sizeCol, (double)ca->size / rate);
	Rb_AttrSetNum(curve, row, bytesCol, bytes / rate);
	Rb_AttrSetNum(curve, row, hitsCol, (double)ca->hits / rate);
	Rb_AttrSetNum(curve, row, ratioCol, n
		? (double)ca->hits / (double)n : 0.0);
	Rb_AttrSetNum(curve, row, byteRatioCol, nb
		? (double)ca->hitBytes / (double)nb : 0.0);
	if (policyCol >= 0) {
	    Rb_AttrSetText(curve, row, policyCol,
		    policyNames[st->policies[c / st->nsizes]]);
	}
    }
    Rb_AnalyzerSet(a, curve);
    Rb_AnalyzerSet(a, Rb_AttrScalar("BlockAccesses", (double)st->accesses,
	    "", objects ? "requests (one per record with a key)"
	    : "block accesses (an I/O accesses each block it touches)"));
    if (st->spool) {
	Rb_AnalyzerSet(a, Rb_AttrScalar("WorkingSet",
		(double)st->workingSet / rate, unit, "distinct keys, weighed "
		"as the caches weigh them: what fractions of -sizes are of "
		"(sampled: the sample's over SampleRate)"));
	Rb_AnalyzerSet(a, Rb_AttrScalar("SampleRate", rate, "",
		"share of the key hash space simulated (1: every key)"));
    }
    return TCL_OK;
}

/*
 * CacheSimSerialize, CacheSimDeserialize, CacheSimMerge --
 *	A sweep (rubicon::run -sweep 1 under mpirun): every rank reads the
 *	whole trace and simulates its share of the caches (every N-th of
 *	them, from its rank); the results of each, with the access counts,
 *	travel to rank 0, which takes the caches it did not simulate from
 *	the rank that did.  No other split run is possible (mergeable is 0:
 *	RbMpiCheckSplit refuses it).
 */
static int
CacheSimSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    CacheSimState *st = a->state;
    int c;

    (void)run;
    if (Finish(a) != TCL_OK) {
	return TCL_ERROR;
    }
    Rb_BufPutInt(buf, 2);
    Rb_BufPutInt(buf, (int64_t)st->accesses);
    Rb_BufPutInt(buf, (int64_t)st->bytes);
    Rb_BufPutInt(buf, st->workingSet);
    Rb_BufPutInt(buf, (int64_t)st->threshold);
    Rb_BufPutInt(buf, (int64_t)st->fed);
    Rb_BufPutInt(buf, (int64_t)st->fedBytes);
    Rb_BufPutInt(buf, st->ncaches);
    for (c = 0; c < st->ncaches; c++) {
	Rb_BufPutInt(buf, st->mine[c]);
	if (st->mine[c]) {
	    Rb_BufPutInt(buf, st->caches[c].size);
	    Rb_BufPutInt(buf, (int64_t)st->caches[c].hits);
	    Rb_BufPutInt(buf, (int64_t)st->caches[c].hitBytes);
	}
    }
    return TCL_OK;
}

static int
CacheSimDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *buf)
{
    CacheSimState *st = a->state;
    int c;

    (void)run;
    if (Rb_BufGetInt(buf) != 2) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH",
		"%s: state of another format version", a->cls->name);
	return TCL_ERROR;
    }
    st->finished = 1;
    if (st->spoolFile != NULL) {
	fclose(st->spoolFile);
	st->spoolFile = NULL;
    }
    st->accesses = (uint64_t)Rb_BufGetInt(buf);
    st->bytes = (uint64_t)Rb_BufGetInt(buf);
    st->workingSet = Rb_BufGetInt(buf);
    st->threshold = (uint64_t)Rb_BufGetInt(buf);
    st->fed = (uint64_t)Rb_BufGetInt(buf);
    st->fedBytes = (uint64_t)Rb_BufGetInt(buf);
    if (Rb_BufGetInt(buf) != st->ncaches) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: another number "
		"of caches", a->cls->name);
	return TCL_ERROR;
    }
    for (c = 0; c < st->ncaches && !buf->bad; c++) {
	Cache *ca = &st->caches[c];

	if (st->mine[c]) {
	    FreeCacheContents(ca);
	}
	memset(ca, 0, sizeof(Cache));
	st->mine[c] = (unsigned char)Rb_BufGetInt(buf);
	if (st->mine[c]) {
	    InitCache(ca, st->policies[c / st->nsizes], Rb_BufGetInt(buf));
	    ca->hits = (uint64_t)Rb_BufGetInt(buf);
	    ca->hitBytes = (uint64_t)Rb_BufGetInt(buf);
	}
    }
    return TCL_OK;
}

static int
CacheSimMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    CacheSimState *st = a->state;
    const CacheSimState *os = other->state;
    int c;

    if (Finish(a) != TCL_OK) {
	return TCL_ERROR;
    }
    if (!RbMpiSweep() || os->accesses != st->accesses) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: only a sweep "
		"(every rank reading the whole trace) merges", a->cls->name);
	return TCL_ERROR;
    }
    for (c = 0; c < st->ncaches; c++) {
	if (os->mine[c] && !st->mine[c]) {
	    Cache *ca = &st->caches[c];

	    InitCache(ca, os->caches[c].policy, os->caches[c].size);
	    ca->hits = os->caches[c].hits;
	    ca->hitBytes = os->caches[c].hitBytes;
	    st->mine[c] = 1;
	}
    }
    return TCL_OK;
}

/*
 * CacheSimFree --
 *	Frees the caches, the spool and the device table.
 */
static void
CacheSimFree(Rb_Analyzer *a)
{
    CacheSimState *st = a->state;

    FreeCaches(st);
    RbBlockMapFree(&st->map);
    free(st->hashes);
    free(st->run);
    st->hashes = NULL;
    st->run = NULL;
    st->hashCap = 0;
}

/*
 * Rb_CacheSimCreate --
 *	An empty cache of blocks blocks under the replacement policy named
 *	policy (lru, fifo, clock, lfu, arc, s3fifo, sieve, 2q or slru, as
 *	CacheSimAnalyzer(n) describes them; opt needs the future and is
 *	refused), for a plugin to feed block accesses to with
 *	Rb_CacheSimAccess: the same simulation as CacheSimAnalyzer's.
 * Results: the cache, or NULL when the policy is none of those or blocks
 *	is outside 1 to 2**28.
 * Side effects: allocates; memory grows with the blocks held (40 to 60
 *	bytes each, ghosts included), up to blocks (ARC: twice as many).
 */
Rb_CacheSim *
Rb_CacheSimCreate(const char *policy, int64_t blocks)
{
    int k = PolicyIndex(policy);
    Cache *ca;

    if (k < 0 || k == POLICY_OPT || blocks < 1
	    || blocks > MAX_CACHE_BLOCKS) {
	return NULL;
    }
    ca = Rb_Alloc(sizeof(Cache));
    InitCache(ca, k, blocks);
    return ca;
}

/*
 * Rb_CacheSimAccess --
 *	Feeds one access of block to the cache: a hit updates the policy's
 *	state, a miss brings the block in (evicting as the policy says when
 *	the cache is full).
 * Results: 1 for a hit, 0 for a miss.
 * Side effects: changes the cache's contents.
 */
int
Rb_CacheSimAccess(Rb_CacheSim *sim, int64_t block)
{
    Access x;
    int hit;

    memset(&x, 0, sizeof(x));
    x.key = block;
    x.hash = Rb_HashKey(block);
    x.weight = x.bytes = 1;
    x.next = NEVER;
    if ((hit = CacheAccess(sim, &x)) != 0) {
	sim->hits++;
    }
    return hit;
}

/*
 * Rb_CacheSimFree --
 *	Frees a cache made by Rb_CacheSimCreate (NULL is ignored).
 * Results: none.
 * Side effects: frees its memory.
 */
void
Rb_CacheSimFree(Rb_CacheSim *sim)
{
    if (sim != NULL) {
	FreeCacheContents(sim);
	free(sim);
    }
}

/*
 * Not mergeable in an ordinary split run: what a cache holds depends on
 * every access before, in whichever shard.  The serialize hooks serve
 * sweeps only.
 */
const Rb_AnalyzerClass Rb_CacheSimAnalyzerClass = {
    .name = "CacheSimAnalyzer",
    .help = "exact simulation of an LRU, FIFO, CLOCK, LFU, ARC, S3-FIFO, "
	    "SIEVE, 2Q, SLRU or OPT cache of blocks or objects of each given "
	    "size: hit ratio by accesses and bytes",
    .stateSize = sizeof(CacheSimState),
    .options = cacheSimOptions,
    .attrs = cacheSimAttrs,
    .mergeable = 0,
    .perRecordState = 1,
    .init = CacheSimInit,
    .start = CacheSimStart,
    .batch = CacheSimBatch,
    .end = CacheSimEnd,
    .freeState = CacheSimFree,
    .serialize = CacheSimSerialize,
    .deserialize = CacheSimDeserialize,
    .merge = CacheSimMerge,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
