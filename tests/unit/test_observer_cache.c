/*
 * test_observer_cache.c --
 *
 *	Unit tests of the Observer's buffer-cache model: the one-pass LRU
 *	stack-distance curve must equal a direct LRU simulation (written
 *	here, sharing no code with the model) at every size tested, for
 *	the shared cache and for each workload's partition, on synthetic
 *	sequences and on the real CloudPhysics vSCSI sample; and the models
 *	of a sequence's shards, merged as a split run merges them, must
 *	equal that simulation of the whole.
 */

#include <zlib.h>
#include "rbtest.h"
#include "plugins/observer/observer.h"

/*
 * LruHits --
 *	Hits of an LRU cache of size blocks over blocks[0..n): a doubly
 *	linked list, most recent first, and a Tcl hash table from block to
 *	list node; the tail is evicted when full.
 */
static int64_t
LruHits(const int64_t *blocks, int64_t n, int64_t size)
{
    typedef struct Node { struct Node *prev, *next; int64_t block; } Node;
    Tcl_HashTable where;
    Node *head = NULL, *tail = NULL, *nodes = calloc(n + 1, sizeof(Node));
    int64_t i, count = 0, hits = 0, used = 0;

    Tcl_InitHashTable(&where, TCL_ONE_WORD_KEYS);
    for (i = 0; i < n && size > 0; i++) {
	int isNew;
	Tcl_HashEntry *e = Tcl_CreateHashEntry(&where,
		(const char *) (intptr_t) blocks[i], &isNew);
	Node *x;

	if (!isNew) {
	    hits++;
	    x = Tcl_GetHashValue(e);
	    if (x == head) {
		continue;
	    }
	    x->prev->next = x->next;
	    if (x->next) {
		x->next->prev = x->prev;
	    } else {
		tail = x->prev;
	    }
	} else {
	    if (count == size) {
		Node *victim = tail;

		Tcl_DeleteHashEntry(Tcl_FindHashEntry(&where,
			(const char *) (intptr_t) victim->block));
		tail = victim->prev;
		if (tail) {
		    tail->next = NULL;
		} else {
		    head = NULL;
		}
		count--;
	    }
	    x = &nodes[used++];
	    x->block = blocks[i];
	    Tcl_SetHashValue(e, x);
	    count++;
	}
	x->prev = NULL;
	x->next = head;
	if (head) {
	    head->prev = x;
	} else {
	    tail = x;
	}
	head = x;
    }
    Tcl_DeleteHashTable(&where);
    free(nodes);
    return hits;
}

/*
 * CheckCurves --
 *	Feeds n accesses (workload w[i], block b[i]) to a model and checks
 *	its hits at each of sizes[] against LruHits, for the shared cache
 *	and each workload's partition; also that the kept distances give
 *	the same miss count.
 */
static void
CheckCurves(const int *w, const int64_t *b, int64_t n, int nw,
	const int64_t *sizes, int nsizes)
{
    Rb_CacheModel *m = RbCacheModelCreate(1);
    int64_t *sub = malloc(n * sizeof(int64_t));
    int64_t i, k;
    int j, s;

    for (i = 0; i < n; i++) {
	RbCacheModelAccess(m, w[i], b[i]);
    }
    ck_assert_int_eq(RbCacheModelWorkloads(m), nw);
    for (s = 0; s < nsizes; s++) {
	int64_t misses = 0;

	ck_assert_int_eq(RbCacheCurveHits(RbCacheModelCurve(m, -1),
		sizes[s]), LruHits(b, n, sizes[s]));
	for (i = 0; i < n; i++) {
	    int64_t d = RbCacheModelDistance(m, 0, i);

	    misses += d == 0 || d > sizes[s];
	}
	ck_assert_int_eq(misses, n - LruHits(b, n, sizes[s]));
	for (j = 0; j < nw; j++) {
	    for (i = k = 0; i < n; i++) {
		if (w[i] == j) {
		    sub[k++] = b[i];
		}
	    }
	    ck_assert_int_eq(RbCacheCurveHits(RbCacheModelCurve(m, j),
		    sizes[s]), LruHits(sub, k, sizes[s]));
	}
    }
    free(sub);
    RbCacheModelFree(m);
}

/*
 * By hand: A B C A B D A, one workload.  Distances: A B C cold, A 3
 * (B, C since), B 3 (C, A), D cold, A 3 (B, D).  Size 2: no hits; size
 * 3: three hits.
 */
START_TEST(cache_distances_by_hand)
{
    static const int64_t b[] = {1, 2, 3, 1, 2, 4, 1};
    static const int64_t want[] = {0, 0, 0, 3, 3, 0, 3};
    Rb_CacheModel *m = RbCacheModelCreate(1);
    const Rb_CacheCurve *c;
    int i;

    for (i = 0; i < 7; i++) {
	RbCacheModelAccess(m, 0, b[i]);
    }
    for (i = 0; i < 7; i++) {
	ck_assert_int_eq(RbCacheModelDistance(m, 0, i), want[i]);
    }
    c = RbCacheModelCurve(m, -1);
    ck_assert_int_eq(c->cold, 4);
    ck_assert_int_eq(RbCacheCurveHits(c, 2), 0);
    ck_assert_int_eq(RbCacheCurveHits(c, 3), 3);
    RbCacheModelFree(m);
}
END_TEST

static uint64_t
NextRandom(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/*
 * Three workloads over 50000 accesses: a skewed random mix, a looping
 * scan, and a workload that shares blocks with the first; the tree and
 * map grow several times on the way.
 */
START_TEST(cache_curve_equals_lru_synthetic)
{
    enum { N = 50000 };
    static const int64_t sizes[] = {0, 1, 2, 7, 64, 500, 1000, 1999, 2000,
	5000, 100000};
    int *w = malloc(N * sizeof(int));
    int64_t *b = malloc(N * sizeof(int64_t));
    uint64_t seed = 88172645463325252ULL;
    int64_t i;

    for (i = 0; i < N; i++) {
	uint64_t r = NextRandom(&seed);

	w[i] = (int) (r % 3);
	switch (w[i]) {
	case 0: b[i] = (int64_t) ((r >> 8) % 4000 * ((r >> 30) % 4000) / 4000);
	    break;
	case 1: b[i] = 1000000 + i / 3 % 1500; break;
	default: b[i] = (int64_t) ((r >> 8) % 3000); break;
	}
    }
    CheckCurves(w, b, N, 3, sizes, sizeof(sizes) / sizeof(sizes[0]));
    free(w);
    free(b);
}
END_TEST

/*
 * Workload 0 alone for 20000 accesses (its partition shares the shared
 * stack until then), then a second workload; 300 hot blocks re-accessed
 * 200000 times, so the position tree is renumbered many times.
 */
START_TEST(cache_curve_late_workload_and_renumbering)
{
    enum { N = 220000 };
    static const int64_t sizes[] = {1, 10, 150, 299, 300, 301, 5000};
    int *w = malloc(N * sizeof(int));
    int64_t *b = malloc(N * sizeof(int64_t));
    uint64_t seed = 2463534242ULL;
    int64_t i;

    for (i = 0; i < N; i++) {
	uint64_t r = NextRandom(&seed);

	w[i] = i < 20000 ? 0 : (int) (r % 2);
	b[i] = i < 5000 ? i : (int64_t) ((r >> 8) % 300);
    }
    CheckCurves(w, b, N, 2, sizes, sizeof(sizes) / sizeof(sizes[0]));
    free(w);
    free(b);
}
END_TEST

/*
 * The CloudPhysics vSCSI sample (version,time,op,size,lbn; lbn in
 * 512-byte sectors): every 4 KiB block an I/O touches is one access;
 * reads and writes are taken as two workloads sharing the cache.
 */
START_TEST(cache_curve_equals_lru_cloudphysics)
{
    static const int64_t sizes[] = {1, 16, 256, 1000, 4096, 10000, 30000,
	100000};
    const char *path = rbtest_data("cloudphysics/cloudphysics-vscsi-sample.csv.gz");
    gzFile fp = gzopen(path, "r");
    char line[256], op[8];
    long long version, t, reqSize, lbn;
    int64_t n = 0, cap = 1 << 20, blk;
    int *w = malloc(cap * sizeof(int));
    int64_t *b = malloc(cap * sizeof(int64_t));

    ck_assert_msg(fp != NULL, "cannot open %s", path);
    ck_assert_ptr_nonnull(gzgets(fp, line, sizeof(line)));
    while (gzgets(fp, line, sizeof(line))) {
	if (sscanf(line, "%lld,%lld,%7[^,],%lld,%lld", &version, &t, op,
		&reqSize, &lbn) != 5) {
	    continue;
	}
	for (blk = lbn * 512 / 4096; blk <= (lbn * 512 + (reqSize > 0
		? reqSize - 1 : 0)) / 4096 && n < cap; blk++) {
	    w[n] = strcmp(op, "28") == 0 ? 0 : 1;
	    b[n++] = blk;
	}
    }
    gzclose(fp);
    ck_assert_int_gt(n, 113000);
    CheckCurves(w, b, n, 2, sizes, sizeof(sizes) / sizeof(sizes[0]));
    free(w);
    free(b);
}
END_TEST

/* A shard's model and its workloads' values, local id -> value. */
typedef struct Part {
    Rb_CacheModel *m;
    int vals[8], nvals;
} Part;

static int64_t
SameBlock(void *cd, int64_t block)
{
    (void) cd;
    return block;
}

/*
 * LocalId --
 *	The id of workload value v in part p, numbered in order of first
 *	sight as ObserverCacheAnalyzer numbers them.
 */
static int
LocalId(Part *p, int v)
{
    int k;

    for (k = 0; k < p->nvals; k++) {
	if (p->vals[k] == v) {
	    return k;
	}
    }
    p->vals[p->nvals] = v;
    return p->nvals++;
}

/*
 * ShardModel --
 *	A model of accesses [from, to), sent through RbCacheModelPut and
 *	rebuilt by RbCacheModelGet as a split run sends it.
 */
static Part
ShardModel(const int *w, const int64_t *b, int64_t from, int64_t to)
{
    Part p = {RbCacheModelCreate(0), {0}, 0}, q;
    Rb_Buf buf = {NULL, 0, 0, 0, 0};
    int64_t i;

    for (i = from; i < to; i++) {
	ck_assert(RbCacheModelAccess(p.m, LocalId(&p, w[i]), b[i]));
    }
    RbCacheModelPut(&buf, p.m);
    q = p;
    q.m = RbCacheModelCreate(0);
    ck_assert(RbCacheModelGet(&buf, q.m));
    ck_assert(!buf.bad && buf.pos == buf.len);
    Rb_BufFree(&buf);
    RbCacheModelFree(p.m);
    return q;
}

/*
 * MergeParts --
 *	Merges part o (later accesses) into p, its workloads renamed by
 *	value; frees o.
 */
static void
MergeParts(Part *p, Part *o)
{
    int wmap[8], k;

    for (k = 0; k < o->nvals; k++) {
	wmap[k] = LocalId(p, o->vals[k]);
    }
    ck_assert(RbCacheModelMerge(p->m, o->m, SameBlock, NULL, wmap));
    RbCacheModelFree(o->m);
}

/*
 * CheckSplit --
 *	Cuts n accesses into four shards at the given points, builds each
 *	shard's model, and merges them as a split run's tree does ((0 1)
 *	(2 3)); checks the hits at each size against LruHits over all the
 *	accesses, shared and per workload (numbered in order of first sight).
 */
static void
CheckSplit(const int *w, const int64_t *b, int64_t n, const int64_t cut[3],
	const int64_t *sizes, int nsizes)
{
    int64_t bounds[5] = {0, cut[0], cut[1], cut[2], n};
    int64_t *sub = malloc((n + 1) * sizeof(int64_t)), i, k;
    Part parts[4];
    int j, s;

    for (j = 0; j < 4; j++) {
	parts[j] = ShardModel(w, b, bounds[j], bounds[j + 1]);
    }
    MergeParts(&parts[0], &parts[1]);
    MergeParts(&parts[2], &parts[3]);
    MergeParts(&parts[0], &parts[2]);
    ck_assert_int_eq(RbCacheModelCurve(parts[0].m, -1)->accesses, n);
    for (s = 0; s < nsizes; s++) {
	ck_assert_int_eq(RbCacheCurveHits(RbCacheModelCurve(parts[0].m, -1),
		sizes[s]), LruHits(b, n, sizes[s]));
	for (j = 0; j < parts[0].nvals; j++) {
	    for (i = k = 0; i < n; i++) {
		if (w[i] == parts[0].vals[j]) {
		    sub[k++] = b[i];
		}
	    }
	    ck_assert_int_eq(RbCacheCurveHits(RbCacheModelCurve(parts[0].m,
		    parts[0].nvals > 1 ? j : -1), sizes[s]),
		    LruHits(sub, k, sizes[s]));
	}
    }
    RbCacheModelFree(parts[0].m);
    free(sub);
}

/*
 * A split run's merge: shards of the synthetic mix (three workloads, a
 * workload first seen in a later shard, an empty shard, a shard of
 * workload 0 alone) merged give the hits of an LRU simulation of the
 * whole sequence.
 */
START_TEST(cache_merged_shards_equal_lru)
{
    enum { N = 30000 };
    static const int64_t sizes[] = {1, 2, 7, 64, 500, 1999, 2000, 5000,
	100000};
    static const int64_t cuts[][3] = {
	{7000, 15000, 22000}, {1, 2, 29999}, {0, 0, 16000},
	{12000, 12000, 20000}, {3000, 9000, 30000}
    };
    int *w = malloc(N * sizeof(int));
    int64_t *b = malloc(N * sizeof(int64_t));
    uint64_t seed = 88172645463325252ULL;
    int64_t i;
    size_t c;

    for (i = 0; i < N; i++) {
	uint64_t r = NextRandom(&seed);

	/* Workload 2 only from access 10000 on; 0 alone before 3000. */
	w[i] = i < 3000 ? 0 : (int) (r % (i < 10000 ? 2 : 3));
	switch (w[i]) {
	case 0: b[i] = (int64_t) ((r >> 8) % 4000 * ((r >> 30) % 4000) / 4000);
	    break;
	case 1: b[i] = 1000000 + i / 3 % 1500; break;
	default: b[i] = (int64_t) ((r >> 8) % 3000); break;
	}
    }
    for (c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
	CheckSplit(w, b, N, cuts[c], sizes, sizeof(sizes) / sizeof(sizes[0]));
    }
    /* One workload only: its partition is the shared stack throughout. */
    for (i = 0; i < N; i++) {
	w[i] = 4;
    }
    CheckSplit(w, b, N, cuts[0], sizes, sizeof(sizes) / sizeof(sizes[0]));
    free(w);
    free(b);
}
END_TEST

Suite *
rbtest_suite(void)
{
    Suite *s = suite_create("observer-cache");
    TCase *tc = tcase_create("cache");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cache_distances_by_hand);
    tcase_add_test(tc, cache_curve_equals_lru_synthetic);
    tcase_add_test(tc, cache_curve_late_workload_and_renumbering);
    tcase_add_test(tc, cache_curve_equals_lru_cloudphysics);
    tcase_add_test(tc, cache_merged_shards_equal_lru);
    suite_add_tcase(s, tc);
    return s;
}
