/*
 * cacheSimAnalyzer.c --
 *
 *	CacheSimAnalyzer: an exact simulation of a block cache of each size
 *	of -sizes under one replacement policy (LRU, FIFO, CLOCK, LFU, ARC or
 *	S3-FIFO), fed every block access of the I/Os in order, giving the
 *	hit ratio by accesses and by bytes of each size.
 *
 *	Every policy keeps its blocks in nodes of one pool, linked into up
 *	to four lists (most recent at the head), with a key table from block
 *	to node; LFU orders its nodes in an indexed min-heap instead.  The
 *	rules of each policy, as published, are in CacheSimAnalyzer.n.
 */

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

enum { POLICY_LRU, POLICY_FIFO, POLICY_CLOCK, POLICY_LFU, POLICY_ARC,
    POLICY_S3FIFO };

static const char *const policyNames[] = {
    "lru", "fifo", "clock", "lfu", "arc", "s3fifo", NULL
};

/* The lists a node may be in: the cache's (T1, T2 of ARC; S, M of
 * S3-FIFO; one list for LRU, FIFO, CLOCK) and the ghosts (B1, B2; G). */
enum { LIST_T1, LIST_T2, LIST_B1, LIST_B2, NLISTS };
#define LIST_S LIST_T1
#define LIST_M LIST_T2
#define LIST_G LIST_B1

#define NIL (-1)

/* The most blocks one cache may hold (node numbers are int32). */
#define MAX_CACHE_BLOCKS ((int64_t)1 << 28)

typedef struct Node {
    int64_t key;
    int32_t prev, next;		/* In its list; NIL at the ends. */
    int32_t list;		/* LIST_*, or the heap position for LFU. */
    uint32_t freq;		/* CLOCK bit, S3-FIFO counter, LFU count. */
    uint64_t seq;		/* LFU: last access, for ties. */
} Node;

typedef struct List {
    int32_t head, tail;
    int64_t n;
} List;

typedef struct Rb_CacheSim {
    int policy;			/* POLICY_* */
    uint64_t seq;		/* Accesses so far (LFU's recency). */
    int64_t size;		/* Blocks. */
    int64_t small, main;	/* S3-FIFO: capacities of S and M (G's is
				 * main's). */
    double p;			/* ARC: target size of T1. */
    Node *nodes;
    int32_t nnodes, cap, freeNode;
    Rb_KeyTable index;		/* key -> int32 node */
    List lists[NLISTS];
    int32_t *heap;		/* LFU: nodes by (freq, seq), grown as
				 * blocks come in. */
    int64_t nheap, heapCap;
    uint64_t hits, hitBytes;
} Cache;

typedef struct CacheSimState {
    Rb_BlockMap map;		/* -field, -offsetField, -block */
    char *policyName;		/* -policy */
    Tcl_Obj *sizesObj;		/* -sizes */
    int policy;
    int ncaches;
    Cache *caches;
    uint64_t accesses, bytes;
} CacheSimState;

static const Rb_Option cacheSimOptions[] = {
    {"-policy", RB_OPT_STRING, offsetof(CacheSimState, policyName), "lru",
	"replacement policy: lru, fifo, clock, lfu, arc or s3fifo"},
    {"-sizes", RB_OPT_OBJ, offsetof(CacheSimState, sizesObj),
	"1000 10000 100000", "cache sizes in blocks, each simulated exactly"},
    {"-block", RB_OPT_INT, offsetof(CacheSimState, map.block), "4096",
	"block (cache line) size in bytes"},
    {"-field", RB_OPT_FIELD, offsetof(CacheSimState, map.deviceField),
	"deviceNo", "field naming the device"},
    {"-offsetField", RB_OPT_FIELD, offsetof(CacheSimState, map.offsetField),
	"devOffset", "field holding the offset in bytes"},
    {NULL}
};

static const char *const cacheSimAttrs[] = {
    "HitRatioCurve", "BlockAccesses", NULL
};

/*
 * ParseSizes --
 *	Reads -sizes.
 * Results: the number of sizes (> 0) with *sizes malloc'd (when sizes
 *	is not NULL), or -1 when the list is empty or holds something other
 *	than sizes from 1 to MAX_CACHE_BLOCKS.
 */
static int
ParseSizes(Tcl_Obj *obj, int64_t **sizes)
{
    Tcl_Obj **objv;
    Tcl_WideInt v;
    int objc, i;

    if (obj == NULL || Tcl_ListObjGetElements(NULL, obj, &objc, &objv)
	    != TCL_OK || objc == 0) {
	return -1;
    }
    for (i = 0; i < objc; i++) {
	if (Tcl_GetWideIntFromObj(NULL, objv[i], &v) != TCL_OK || v < 1
		|| v > MAX_CACHE_BLOCKS) {
	    return -1;
	}
    }
    if (sizes != NULL) {
	*sizes = Rb_Realloc(NULL, (size_t)objc * sizeof(int64_t));
	for (i = 0; i < objc; i++) {
	    Tcl_GetWideIntFromObj(NULL, objv[i], &v);
	    (*sizes)[i] = v;
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

/*
 * CacheSimInit --
 *	Checks -policy, -sizes and -block.
 */
static int
CacheSimInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    CacheSimState *st = a->state;
    const char *name = st->policyName ? st->policyName : "";
    int k = PolicyIndex(name);

    if (k < 0) {
	return RbKitOptionError(a, interp, "bad -policy \"%s\": must be "
		"lru, fifo, clock, lfu, arc or s3fifo", name);
    }
    st->policy = k;
    if (ParseSizes(st->sizesObj, NULL) < 0) {
	return RbKitOptionError(a, interp, "-sizes must be a non-empty "
		"list of cache sizes from 1 to %" PRId64 " blocks",
		MAX_CACHE_BLOCKS);
    }
    if (st->map.block <= 0) {
	return RbKitOptionError(a, interp,
		"-block must be a positive number of bytes");
    }
    return TCL_OK;
}

/*
 * InitCache, FreeCacheContents --
 *	An empty cache of size blocks under policy; the release of what a
 *	cache holds (not of the structure itself).
 */
static void
InitCache(Cache *ca, int policy, int64_t size)
{
    int l;

    memset(ca, 0, sizeof(Cache));
    ca->policy = policy;
    ca->size = size;
    ca->small = ca->size / 10 > 0 ? ca->size / 10 : 1;
    ca->main = ca->size - ca->small;
    ca->freeNode = NIL;
    Rb_KeyTableInit(&ca->index, sizeof(int32_t));
    for (l = 0; l < NLISTS; l++) {
	ca->lists[l].head = ca->lists[l].tail = NIL;
    }
}

static void
FreeCacheContents(Cache *ca)
{
    free(ca->nodes);
    free(ca->heap);
    Rb_KeyTableFree(&ca->index);
}

/*
 * FreeCaches --
 *	Frees every cache.
 */
static void
FreeCaches(CacheSimState *st)
{
    int c;

    for (c = 0; c < st->ncaches; c++) {
	FreeCacheContents(&st->caches[c]);
    }
    free(st->caches);
    st->caches = NULL;
    st->ncaches = 0;
}

/*
 * CacheSimStart --
 *	Checks the options and makes an empty cache of each size.
 */
static int
CacheSimStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    CacheSimState *st = a->state;
    int64_t *sizes = NULL;
    int c;

    if (CacheSimInit(a, NULL) != TCL_OK
	    || RbBlockMapStart(a, &st->map, run) != TCL_OK) {
	return TCL_ERROR;
    }
    FreeCaches(st);
    st->ncaches = ParseSizes(st->sizesObj, &sizes);
    st->caches = Rb_Realloc(NULL, (size_t)st->ncaches * sizeof(Cache));
    for (c = 0; c < st->ncaches; c++) {
	InitCache(&st->caches[c], st->policy, sizes[c]);
    }
    free(sizes);
    st->accesses = st->bytes = 0;
    return TCL_OK;
}

/*
 * NewNode, FreeNode --
 *	A node of the pool for key (listed nowhere, in the index), and its
 *	return to the pool (out of its list and the index).
 */
static int32_t
NewNode(Cache *ca, int64_t key)
{
    int32_t n;

    if (ca->freeNode != NIL) {
	n = ca->freeNode;
	ca->freeNode = ca->nodes[n].next;
    } else {
	if (ca->nnodes == ca->cap) {
	    ca->cap = ca->cap ? 2 * ca->cap : 64;
	    ca->nodes = Rb_Realloc(ca->nodes, (size_t)ca->cap
		    * sizeof(Node));
	}
	n = ca->nnodes++;
    }
    memset(&ca->nodes[n], 0, sizeof(Node));
    ca->nodes[n].key = key;
    ca->nodes[n].prev = ca->nodes[n].next = NIL;
    ca->nodes[n].list = NIL;
    *(int32_t *)Rb_KeyTableFind(&ca->index, key, 1) = n;
    return n;
}

static void
FreeNode(Cache *ca, int32_t n)
{
    Rb_KeyTableRemove(&ca->index, ca->nodes[n].key);
    ca->nodes[n].next = ca->freeNode;
    ca->freeNode = n;
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
}

/*
 * MoveHead --
 *	Moves node n to the head of list l.
 */
static void
MoveHead(Cache *ca, int32_t n, int l)
{
    Unlink(ca, n);
    PushHead(ca, n, l);
}

/*
 * DropTail --
 *	Removes the block at the tail of list l from the cache altogether.
 */
static void
DropTail(Cache *ca, int l)
{
    int32_t n = ca->lists[l].tail;

    Unlink(ca, n);
    FreeNode(ca, n);
}

/*
 * Lookup --
 *	The node of key, or NIL.
 */
static int32_t
Lookup(Cache *ca, int64_t key)
{
    int32_t *n = Rb_KeyTableFind(&ca->index, key, 0);

    return n != NULL ? *n : NIL;
}

/*
 * LfuLess, HeapSwap, SiftDown, SiftUp --
 *	The LFU heap: least frequently used first, the least recently used
 *	first among equals; each node's list field holds its heap position.
 */
static int
LfuLess(const Cache *ca, int32_t a, int32_t b)
{
    const Node *x = &ca->nodes[a], *y = &ca->nodes[b];

    return x->freq != y->freq ? x->freq < y->freq : x->seq < y->seq;
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

	if (l < ca->nheap && LfuLess(ca, ca->heap[l], ca->heap[m])) {
	    m = l;
	}
	if (r < ca->nheap && LfuLess(ca, ca->heap[r], ca->heap[m])) {
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
    while (i > 0 && LfuLess(ca, ca->heap[i], ca->heap[(i - 1) / 2])) {
	HeapSwap(ca, i, (i - 1) / 2);
	i = (i - 1) / 2;
    }
}

/*
 * AccessLfu --
 *	LFU: a hit counts one more use; a miss into a full cache evicts the
 *	block of fewest uses (the least recently used of them).
 * Results: 1 for a hit.
 */
static int
AccessLfu(Cache *ca, int64_t key, uint64_t seq)
{
    int32_t n = Lookup(ca, key);

    if (n != NIL) {
	ca->nodes[n].freq++;
	ca->nodes[n].seq = seq;
	SiftDown(ca, ca->nodes[n].list);
	return 1;
    }
    if (ca->nheap == ca->size) {
	int32_t victim = ca->heap[0];

	HeapSwap(ca, 0, --ca->nheap);
	SiftDown(ca, 0);
	FreeNode(ca, victim);
    }
    if (ca->nheap == ca->heapCap) {
	ca->heapCap = ca->heapCap ? 2 * ca->heapCap : 64;
	if (ca->heapCap > ca->size) {
	    ca->heapCap = ca->size;
	}
	ca->heap = Rb_Realloc(ca->heap, (size_t)ca->heapCap
		* sizeof(int32_t));
    }
    n = NewNode(ca, key);
    ca->nodes[n].freq = 1;
    ca->nodes[n].seq = seq;
    ca->heap[ca->nheap] = n;
    ca->nodes[n].list = (int32_t)ca->nheap;
    SiftUp(ca, ca->nheap++);
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
 *	from them, p adapts on ghost hits.
 * Results: 1 for a hit (in T1 or T2).
 */
static int
AccessArc(Cache *ca, int64_t key)
{
    int32_t n = Lookup(ca, key);
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
	MoveHead(ca, n, LIST_T2);
	return 0;
    }
    if (n != NIL) {
	double delta = b2->n >= b1->n ? 1.0 : (double)b1->n / (double)b2->n;

	ca->p = ca->p - delta > 0 ? ca->p - delta : 0.0;
	ArcReplace(ca, 1);
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
    PushHead(ca, NewNode(ca, key), LIST_T1);
    return 0;
}

/*
 * S3EvictMain, S3EvictSmall, AccessS3Fifo --
 *	S3-FIFO (Yang et al., SOSP 2023, Algorithm 1): a small FIFO S of a
 *	tenth of the cache, a main FIFO M of the rest, a ghost FIFO G of as
 *	many entries as M; a counter of uses, capped at 3, per block.
 */
static void
S3EvictMain(Cache *ca)
{
    while (ca->lists[LIST_M].n > 0) {
	int32_t t = ca->lists[LIST_M].tail;

	if (ca->nodes[t].freq > 0) {
	    ca->nodes[t].freq--;
	    MoveHead(ca, t, LIST_M);
	} else {
	    DropTail(ca, LIST_M);
	    return;
	}
    }
}

static void
S3EvictSmall(Cache *ca)
{
    while (ca->lists[LIST_S].n > 0) {
	int32_t t = ca->lists[LIST_S].tail;

	if (ca->nodes[t].freq > 1) {
	    ca->nodes[t].freq = 0;
	    MoveHead(ca, t, LIST_M);
	    if (ca->lists[LIST_M].n > ca->main) {
		S3EvictMain(ca);
	    }
	} else {
	    MoveHead(ca, t, LIST_G);
	    if (ca->lists[LIST_G].n > ca->main) {
		DropTail(ca, LIST_G);
	    }
	    return;
	}
    }
}

static int
AccessS3Fifo(Cache *ca, int64_t key)
{
    int32_t n = Lookup(ca, key);

    if (n != NIL && ca->nodes[n].list != LIST_G) {
	if (ca->nodes[n].freq < 3) {
	    ca->nodes[n].freq++;
	}
	return 1;
    }
    while (ca->lists[LIST_S].n + ca->lists[LIST_M].n >= ca->size) {
	if (ca->lists[LIST_S].n >= ca->small) {
	    S3EvictSmall(ca);
	} else {
	    S3EvictMain(ca);
	}
    }
    /* Evicting may have pushed the ghost of key out of G. */
    if (n != NIL && (n = Lookup(ca, key)) != NIL) {
	/* A ghost: its block goes straight to M. */
	ca->nodes[n].freq = 0;
	MoveHead(ca, n, LIST_M);
    } else {
	PushHead(ca, NewNode(ca, key), LIST_S);
    }
    return 0;
}

/*
 * AccessList --
 *	LRU, FIFO and CLOCK on one list, most recent insertion (LRU: most
 *	recent use) at the head.  LRU moves a hit to the head; FIFO leaves
 *	it; CLOCK sets its reference bit.  A miss into a full cache evicts
 *	the tail, CLOCK first giving a second chance to each tail block
 *	whose bit is set (bit cleared, moved to the head: the clock hand).
 * Results: 1 for a hit.
 */
static int
AccessList(Cache *ca, int policy, int64_t key)
{
    int32_t n = Lookup(ca, key), t;
    List *l = &ca->lists[0];

    if (n != NIL) {
	if (policy == POLICY_LRU) {
	    MoveHead(ca, n, 0);
	} else if (policy == POLICY_CLOCK) {
	    ca->nodes[n].freq = 1;
	}
	return 1;
    }
    if (l->n == ca->size) {
	while (policy == POLICY_CLOCK && ca->nodes[t = l->tail].freq) {
	    ca->nodes[t].freq = 0;
	    MoveHead(ca, t, 0);
	}
	DropTail(ca, 0);
    }
    PushHead(ca, NewNode(ca, key), 0);
    return 0;
}

/*
 * CacheAccess --
 *	One access of key to the cache, under its policy.
 * Results: 1 for a hit.
 */
static int
CacheAccess(Cache *ca, int64_t key)
{
    ca->seq++;
    switch (ca->policy) {
    case POLICY_LFU:
	return AccessLfu(ca, key, ca->seq);
    case POLICY_ARC:
	return AccessArc(ca, key);
    case POLICY_S3FIFO:
	return AccessS3Fifo(ca, key);
    default:
	return AccessList(ca, ca->policy, key);
    }
}

/*
 * CacheSimBatch --
 *	Feeds every block of each selected I/O, in order, to every cache.
 */
static void
CacheSimBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    CacheSimState *st = a->state;
    const int64_t *offset = b->col[st->map.offsetIndex];
    const int64_t *size = b->col[RB_IO_SIZE];
    int j, c;

    for (j = 0; j < nsel; j++) {
	int64_t first, count, k;

	if (!RbBlockRange(&st->map, b, sel[j], &first, &count)) {
	    continue;
	}
	for (k = 0; k < count; k++) {
	    uint64_t bytes = (uint64_t)RbBlockBytes(&st->map,
		    offset[sel[j]], size[sel[j]], k);

	    st->accesses++;
	    st->bytes += bytes;
	    for (c = 0; c < st->ncaches; c++) {
		Cache *ca = &st->caches[c];

		if (CacheAccess(ca, first + k)) {
		    ca->hits++;
		    ca->hitBytes += bytes;
		}
	    }
	}
    }
}

/*
 * CacheSimEnd --
 *	Sets HitRatioCurve (one row per size, in -sizes order) and
 *	BlockAccesses.
 */
static int
CacheSimEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    CacheSimState *st = a->state;
    Rb_Attribute *curve = Rb_AttrCreate("HitRatioCurve", RB_ATTR_TABLE, "",
	    "hits and hit ratio of a cache of each size under the policy");
    int sizeCol = Rb_AttrAddColumn(curve, "cacheSize", "blocks", 0);
    int bytesCol = Rb_AttrAddColumn(curve, "cacheBytes", "bytes", 0);
    int hitsCol = Rb_AttrAddColumn(curve, "hits", "", 0);
    int ratioCol = Rb_AttrAddColumn(curve, "hitRatio", "", 0);
    int byteRatioCol = Rb_AttrAddColumn(curve, "byteHitRatio", "", 0);
    int c;

    for (c = 0; c < st->ncaches; c++) {
	const Cache *ca = &st->caches[c];
	int row = Rb_AttrAddRow(curve);

	Rb_AttrSetNum(curve, row, sizeCol, (double)ca->size);
	Rb_AttrSetNum(curve, row, bytesCol,
		(double)ca->size * (double)st->map.block);
	Rb_AttrSetNum(curve, row, hitsCol, (double)ca->hits);
	Rb_AttrSetNum(curve, row, ratioCol, st->accesses
		? (double)ca->hits / (double)st->accesses : 0.0);
	Rb_AttrSetNum(curve, row, byteRatioCol, st->bytes
		? (double)ca->hitBytes / (double)st->bytes : 0.0);
    }
    Rb_AnalyzerSet(a, curve);
    Rb_AnalyzerSet(a, Rb_AttrScalar("BlockAccesses", (double)st->accesses,
	    "", "block accesses (an I/O accesses each block it touches)"));
    return TCL_OK;
}

/*
 * CacheSimFree --
 *	Frees the caches and the device table.
 */
static void
CacheSimFree(Rb_Analyzer *a)
{
    CacheSimState *st = a->state;

    FreeCaches(st);
    RbBlockMapFree(&st->map);
}

/*
 * Rb_CacheSimCreate --
 *	An empty cache of blocks blocks under the replacement policy named
 *	policy (lru, fifo, clock, lfu, arc or s3fifo, as CacheSimAnalyzer(n)
 *	describes them), for a plugin to feed block accesses to with
 *	Rb_CacheSimAccess: the same simulation as CacheSimAnalyzer's.
 * Results: the cache, or NULL when the policy is none of those or blocks
 *	is outside 1 to 2**28.
 * Side effects: allocates; memory grows with the blocks held (about 40
 *	bytes each, ghosts included), up to blocks (ARC: twice as many).
 */
Rb_CacheSim *
Rb_CacheSimCreate(const char *policy, int64_t blocks)
{
    int k = PolicyIndex(policy);
    Cache *ca;

    if (k < 0 || blocks < 1 || blocks > MAX_CACHE_BLOCKS) {
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
    int hit = CacheAccess(sim, block);

    if (hit) {
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
 * Not mergeable: what a cache holds depends on every access before, in
 * whichever shard.
 */
const Rb_AnalyzerClass Rb_CacheSimAnalyzerClass = {
    .name = "CacheSimAnalyzer",
    .help = "exact simulation of an LRU, FIFO, CLOCK, LFU, ARC or S3-FIFO "
	    "block cache of each given size: hit ratio by accesses and bytes",
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
    .fields = RB_FIELD_BIT(RB_IO_SIZE),
};
