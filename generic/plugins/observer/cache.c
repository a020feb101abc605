/*
 * cache.c --
 *
 *	The buffer-cache model: the LRU stack distance of every access
 *	(Mattson, Gecsei, Slutz and Traiger, 1970) gives the hit ratio of
 *	an LRU cache of every size in one pass, since an access hits a
 *	cache of C blocks exactly when its distance is at most C.  Two
 *	stacks are kept at once: one shared by all workloads (one cache
 *	for everybody) and one per workload (a partitioned cache, each
 *	workload in its own share).  With keepDistances every access's two
 *	distances are kept, so the miss sequence for any size or partition
 *	can be emitted afterwards.
 *
 *	A distance is counted in O(log n): the latest access of each block
 *	holds a 1 at its position in a Fenwick tree over positions, and the
 *	distinct blocks since position q are a prefix-sum difference.
 *
 *	Memory grows with the entries held: the distinct blocks of the
 *	shared stack plus those of each workload's stack.  A model given a
 *	limit refuses the access that would hold one entry more, so that a
 *	trace of a billion distinct blocks ends in an error, not in the
 *	machine running out of memory.  Stacks start small, so that a
 *	workload costs little beyond its entries.
 *
 *	Mergeable (a split run, RbCacheModelMerge): a later shard's reuses
 *	keep their distances, and its first touches of blocks, replayed in
 *	order onto the earlier shards' stack, get the distances one pass
 *	gives them (the distinct blocks since a block's last access are the
 *	later shard's blocks touched before, then the earlier stack's above
 *	it not among those); its stack, in its order, then goes on top.
 *	Each entry keeps the rank of its block's first access for that.
 */

#include <stdlib.h>
#include <string.h>
#include "observer.h"

/* Open-addressing map from a block to its last position (0: none) and
 * the rank of its first access in its stack. */
typedef struct PosMap {
    int64_t *keys, *vals, *firsts;
    size_t cap, used;
} PosMap;

typedef struct Stack {
    PosMap last;
    int32_t *tree;		/* Fenwick tree over positions 1..cap */
    int64_t cap, next;		/* next: the position of the next access */
    Rb_CacheCurve curve;
    int64_t curveCap;
} Stack;

struct Rb_CacheModel {
    Stack shared;
    Stack *own;			/* [nw] per-workload stacks */
    int nw;
    int ownIsShared;		/* Only workload 0 so far: own[0] would
				 * repeat the shared stack, so it is
				 * copied from it when another appears. */
    int keep;
    int64_t limit;		/* Most entries held; 0: no limit. */
    int64_t held;		/* Entries held, over every stack. */
    int64_t n, capAcc;
    int64_t *block;		/* with keep: per access */
    int32_t *workload;
    int64_t *sharedDist, *ownDist;
};

static uint64_t
Hash(int64_t k)
{
    uint64_t x = (uint64_t) k * 0x9E3779B97F4A7C15ULL;

    return x ^ (x >> 29);
}

/*
 * PosSlot --
 *	The slot of key in m (where it is, or where it would go).
 */
static size_t
PosSlot(const PosMap *m, int64_t key)
{
    size_t i = Hash(key) & (m->cap - 1);

    while (m->vals[i] != 0 && m->keys[i] != key) {
	i = (i + 1) & (m->cap - 1);
    }
    return i;
}

/*
 * PosSwap --
 *	Sets key's last position to pos; returns the previous one (0 if
 *	none, when rank is kept as its first access's).  Grows the map at
 *	half full.
 */
static int64_t
PosSwap(PosMap *m, int64_t key, int64_t pos, int64_t rank)
{
    size_t i;
    int64_t old;

    if (2 * (m->used + 1) > m->cap) {
	PosMap bigger = {NULL, NULL, NULL, m->cap ? m->cap * 2 : 16, 0};
	size_t j;

	bigger.keys = Rb_AllocArray(bigger.cap, sizeof(int64_t));
	bigger.vals = Rb_AllocArray(bigger.cap, sizeof(int64_t));
	bigger.firsts = Rb_AllocArray(bigger.cap, sizeof(int64_t));
	for (j = 0; j < m->cap; j++) {
	    if (m->vals[j] != 0) {
		size_t s = PosSlot(&bigger, m->keys[j]);

		bigger.keys[s] = m->keys[j];
		bigger.vals[s] = m->vals[j];
		bigger.firsts[s] = m->firsts[j];
		bigger.used++;
	    }
	}
	free(m->keys);
	free(m->vals);
	free(m->firsts);
	*m = bigger;
    }
    i = PosSlot(m, key);
    old = m->vals[i];
    if (old == 0) {
	m->keys[i] = key;
	m->firsts[i] = rank;
	m->used++;
    }
    m->vals[i] = pos;
    return old;
}

static void
TreeAdd(Stack *s, int64_t pos, int delta)
{
    for (; pos <= s->cap; pos += pos & -pos) {
	s->tree[pos - 1] += delta;
    }
}

static int64_t
TreePrefix(const Stack *s, int64_t pos)
{
    int64_t sum = 0;

    for (; pos > 0; pos -= pos & -pos) {
	sum += s->tree[pos - 1];
    }
    return sum;
}

/*
 * RebuildTree --
 *	Sets the tree to hold a 1 at each live position (those the map
 *	holds) and nothing else, in O(cap).
 */
static void
RebuildTree(Stack *s)
{
    int64_t p;
    size_t j;

    memset(s->tree, 0, s->cap * sizeof(int32_t));
    for (j = 0; j < s->last.cap; j++) {
	if (s->last.vals[j] != 0) {
	    s->tree[s->last.vals[j] - 1] = 1;
	}
    }
    for (p = 1; p <= s->cap; p++) {
	int64_t up = p + (p & -p);

	if (up <= s->cap) {
	    s->tree[up - 1] += s->tree[p - 1];
	}
    }
}

/*
 * GrowTree --
 *	Makes room for the next position.  While at least half the
 *	positions are dead (blocks accessed again later), the live ones
 *	are renumbered 1..live in order, which keeps distances and bounds
 *	the tree by twice the distinct blocks rather than the accesses;
 *	else the tree doubles.
 */
static void
GrowTree(Stack *s)
{
    int64_t live = (int64_t) s->last.used;

    if (s->cap > 0 && 2 * live <= s->cap) {
	int64_t *slotAt = Rb_AllocArray(s->cap, sizeof(int64_t)), p, next = 1;
	size_t j;

	for (p = 0; p < s->cap; p++) {
	    slotAt[p] = -1;
	}
	for (j = 0; j < s->last.cap; j++) {
	    if (s->last.vals[j] != 0) {
		slotAt[s->last.vals[j] - 1] = (int64_t) j;
	    }
	}
	for (p = 0; p < s->cap; p++) {
	    if (slotAt[p] >= 0) {
		s->last.vals[slotAt[p]] = next++;
	    }
	}
	free(slotAt);
	s->next = next;
    } else {
	s->cap = s->cap ? s->cap * 2 : 64;
	free(s->tree);
	s->tree = Rb_AllocArray(s->cap, sizeof(int32_t));
    }
    RebuildTree(s);
}

/*
 * CopyOf --
 *	A malloc'd copy of n bytes at src; NULL for none (an empty array's
 *	pointer may itself be NULL, which memcpy must not be given).
 */
static void *
CopyOf(const void *src, size_t n)
{
    void *dst;

    if (n == 0 || src == NULL) {
	return NULL;
    }
    dst = Rb_Alloc(n);
    memcpy(dst, src, n);
    return dst;
}

/*
 * StackCopy --
 *	Makes dst a deep copy of src (dst's old contents are not freed).
 */
static void
StackCopy(Stack *dst, const Stack *src)
{
    *dst = *src;
    dst->last.keys = CopyOf(src->last.keys, src->last.cap * sizeof(int64_t));
    dst->last.vals = CopyOf(src->last.vals, src->last.cap * sizeof(int64_t));
    dst->last.firsts = CopyOf(src->last.firsts,
	    src->last.cap * sizeof(int64_t));
    dst->tree = CopyOf(src->tree, src->cap * sizeof(int32_t));
    dst->curve.atDistance = CopyOf(src->curve.atDistance,
	    src->curveCap * sizeof(int64_t));
}

/*
 * StackPush --
 *	Puts block on top of stack s, a new entry with first-access rank
 *	`rank` if it was not held.
 * Results: its distance (1 + the distinct other blocks since its last
 *	access) or 0 if it was not held.
 */
static int64_t
StackPush(Stack *s, int64_t block, int64_t rank)
{
    int64_t pos, prev, d = 0;

    if (s->next == 0) {
	s->next = 1;		/* position 0 means "never accessed" */
    }
    if (s->next > s->cap) {
	GrowTree(s);
    }
    pos = s->next++;
    prev = PosSwap(&s->last, block, pos, rank);
    if (prev != 0) {
	d = TreePrefix(s, pos - 1) - TreePrefix(s, prev) + 1;
	TreeAdd(s, prev, -1);
    }
    TreeAdd(s, pos, 1);
    return d;
}

/*
 * CurveCount --
 *	Counts n accesses at distance d (0: cold) in stack s's curve.
 */
static void
CurveCount(Stack *s, int64_t d, int64_t n)
{
    s->curve.accesses += n;
    if (d == 0) {
	s->curve.cold += n;
	return;
    }
    if (d >= s->curveCap) {
	int64_t cap = s->curveCap ? s->curveCap : 64;

	while (cap <= d) {
	    cap *= 2;
	}
	s->curve.atDistance = Rb_ReallocArray(s->curve.atDistance, cap,
		sizeof(int64_t));
	memset(s->curve.atDistance + s->curveCap, 0,
		(cap - s->curveCap) * sizeof(int64_t));
	s->curveCap = cap;
    }
    s->curve.atDistance[d] += n;
    if (d > s->curve.maxDistance) {
	s->curve.maxDistance = d;
    }
}

/*
 * StackAccess --
 *	Pushes block onto stack s; returns its stack distance (1 + the
 *	distinct other blocks since its last access) or 0 if cold, and
 *	counts it in the stack's curve.
 */
static int64_t
StackAccess(Stack *s, int64_t block)
{
    int64_t d = StackPush(s, block, s->curve.accesses);

    CurveCount(s, d, 1);
    return d;
}

static void
StackFree(Stack *s)
{
    free(s->last.keys);
    free(s->last.vals);
    free(s->last.firsts);
    free(s->tree);
    free(s->curve.atDistance);
}

/*
 * RbCacheModelCreate --
 *	An empty model; with keepDistances it remembers every access and
 *	its distances for miss sequences.
 */
Rb_CacheModel *
RbCacheModelCreate(int keepDistances)
{
    Rb_CacheModel *m = Rb_Alloc(sizeof(*m));

    m->keep = keepDistances;
    return m;
}

/*
 * RbCacheModelLimit --
 *	Sets the most entries m may hold (0: no limit); see
 *	RbCacheModelAccess.
 */
void
RbCacheModelLimit(Rb_CacheModel *m, int64_t limit)
{
    m->limit = limit;
}

/*
 * StackHolds --
 *	Whether stack s holds block.
 */
static int
StackHolds(const Stack *s, int64_t block)
{
    return s->last.cap > 0 && s->last.vals[PosSlot(&s->last, block)] != 0;
}

/*
 * NewEntries --
 *	The entries an access to block by workload w would add: one in the
 *	shared stack if block is new there, and one in w's own stack if new
 *	there; the first access by a second workload also copies workload
 *	0's stack out of the shared one.
 */
static int64_t
NewEntries(const Rb_CacheModel *m, int w, int64_t block)
{
    int64_t add = !StackHolds(&m->shared, block);

    if (m->nw == 0 ? w == 0 : (m->ownIsShared && w == 0)) {
	return add;		/* w's stack is the shared one */
    }
    if (m->ownIsShared) {
	return add + (int64_t) m->shared.last.used + 1;
    }
    return add + (w >= m->nw || !StackHolds(&m->own[w], block));
}

/*
 * RbCacheModelAccess --
 *	One access to block by workload w (w >= 0), in both stacks.
 * Results: 1, or 0 (nothing done) when the access would make the model
 *	hold more entries than its limit.
 */
int
RbCacheModelAccess(Rb_CacheModel *m, int w, int64_t block)
{
    int64_t ds, dw, add = NewEntries(m, w, block);

    if (m->limit > 0 && m->held + add > m->limit) {
	return 0;
    }
    m->held += add;
    if (w >= m->nw) {
	m->own = Rb_ReallocArray(m->own, w + 1, sizeof(Stack));
	memset(m->own + m->nw, 0, (w + 1 - m->nw) * sizeof(Stack));
	if (m->nw == 0) {
	    m->ownIsShared = w == 0;
	}
	m->nw = w + 1;
    }
    if (w > 0 && m->ownIsShared) {
	StackCopy(&m->own[0], &m->shared);
	m->ownIsShared = 0;
    }
    ds = StackAccess(&m->shared, block);
    dw = m->ownIsShared ? ds : StackAccess(&m->own[w], block);
    if (m->keep) {
	if (m->n == m->capAcc) {
	    m->capAcc = m->capAcc ? m->capAcc * 2 : 4096;
	    m->block = Rb_ReallocArray(m->block, m->capAcc, sizeof(int64_t));
	    m->workload = Rb_ReallocArray(m->workload, m->capAcc,
		    sizeof(int32_t));
	    m->sharedDist = Rb_ReallocArray(m->sharedDist, m->capAcc,
		    sizeof(int64_t));
	    m->ownDist = Rb_ReallocArray(m->ownDist, m->capAcc,
		    sizeof(int64_t));
	}
	m->block[m->n] = block;
	m->workload[m->n] = w;
	m->sharedDist[m->n] = ds;
	m->ownDist[m->n] = dw;
    }
    m->n++;
    return 1;
}

int
RbCacheModelWorkloads(const Rb_CacheModel *m)
{
    return m->nw;
}

/*
 * RbCacheModelCurve --
 *	The distance histogram of the shared cache (w = -1) or of workload
 *	w's partition.
 */
const Rb_CacheCurve *
RbCacheModelCurve(const Rb_CacheModel *m, int w)
{
    return w < 0 || (w == 0 && m->ownIsShared) ? &m->shared.curve
	    : &m->own[w].curve;
}

/*
 * RbCacheCurveHits --
 *	Hits of an LRU cache of size blocks: accesses at distance <= size.
 */
int64_t
RbCacheCurveHits(const Rb_CacheCurve *c, int64_t size)
{
    int64_t d, hits = 0;

    for (d = 1; d <= size && d <= c->maxDistance; d++) {
	hits += c->atDistance[d];
    }
    return hits;
}

int64_t
RbCacheModelLength(const Rb_CacheModel *m)
{
    return m->n;
}

/*
 * RbCacheModelDistance, _WorkloadOf, _BlockOf --
 *	What was kept of access i (needs keepDistances).
 */
int64_t
RbCacheModelDistance(const Rb_CacheModel *m, int partitioned, int64_t i)
{
    return partitioned ? m->ownDist[i] : m->sharedDist[i];
}

int
RbCacheModelWorkloadOf(const Rb_CacheModel *m, int64_t i)
{
    return m->workload[i];
}

int64_t
RbCacheModelBlockOf(const Rb_CacheModel *m, int64_t i)
{
    return m->block[i];
}

void
RbCacheModelFree(Rb_CacheModel *m)
{
    int w;

    StackFree(&m->shared);
    for (w = 0; w < m->nw; w++) {
	StackFree(&m->own[w]);
    }
    free(m->own);
    free(m->block);
    free(m->workload);
    free(m->sharedDist);
    free(m->ownDist);
    free(m);
}

/* A stack's entry: its block, last position and first-access rank. */
typedef struct Entry {
    int64_t block, pos, first;
} Entry;

static int
CompareByPos(const void *p, const void *q)
{
    const Entry *x = p, *y = q;

    return (x->pos > y->pos) - (x->pos < y->pos);
}

static int
CompareByFirst(const void *p, const void *q)
{
    const Entry *x = p, *y = q;

    return (x->first > y->first) - (x->first < y->first);
}

/*
 * StackEntries --
 *	The entries of stack s (malloc'd, *n of them), sorted by cmp.
 */
static Entry *
StackEntries(const Stack *s, int64_t *n,
	int (*cmp)(const void *, const void *))
{
    Entry *e = Rb_AllocArray(s->last.used + 1, sizeof(Entry));
    size_t j;

    *n = 0;
    for (j = 0; j < s->last.cap; j++) {
	if (s->last.vals[j] != 0) {
	    e[*n].block = s->last.keys[j];
	    e[*n].pos = s->last.vals[j];
	    e[(*n)++].first = s->last.firsts[j];
	}
    }
    qsort(e, (size_t)*n, sizeof(Entry), cmp);
    return e;
}

/*
 * StackPut, StackGet --
 *	A stack as its curve (accesses, cold, the count at each distance)
 *	and its entries from the least recent: block and first-access rank.
 *	StackGet rebuilds it in an empty stack.
 */
static void
StackPut(Rb_Buf *b, const Stack *s)
{
    int64_t n, k, d;
    Entry *e = StackEntries(s, &n, CompareByPos);

    Rb_BufPutInt(b, s->curve.accesses);
    Rb_BufPutInt(b, s->curve.cold);
    Rb_BufPutInt(b, s->curve.maxDistance);
    for (d = 1; d <= s->curve.maxDistance; d++) {
	Rb_BufPutInt(b, s->curve.atDistance[d]);
    }
    Rb_BufPutInt(b, n);
    for (k = 0; k < n; k++) {
	Rb_BufPutInt(b, e[k].block);
	Rb_BufPutInt(b, e[k].first);
    }
    free(e);
}

static void
StackGet(Rb_Buf *b, Stack *s)
{
    int64_t accesses = Rb_BufGetInt(b), cold = Rb_BufGetInt(b);
    int64_t max = Rb_BufGetCount(b, 8), n, k, d;

    for (d = 1; d <= max && !b->bad; d++) {
	int64_t count = Rb_BufGetInt(b);

	if (count > 0) {
	    CurveCount(s, d, count);
	}
    }
    s->curve.accesses = accesses;
    s->curve.cold = cold;
    n = Rb_BufGetCount(b, 16);
    /* The k-th least recent at position k + 1, the tree built once. */
    s->cap = 64;
    while (s->cap < n + 1) {
	s->cap *= 2;
    }
    s->tree = Rb_AllocArray(s->cap, sizeof(int32_t));
    for (k = 0; k < n && !b->bad; k++) {
	int64_t block = Rb_BufGetInt(b);

	if (PosSwap(&s->last, block, k + 1, Rb_BufGetInt(b)) != 0) {
	    b->bad = 1;		/* a block twice: not what StackPut wrote */
	}
    }
    s->next = k + 1;
    RebuildTree(s);
}

/*
 * Held --
 *	The entries model m holds, over every stack.
 */
static int64_t
Held(const Rb_CacheModel *m)
{
    int64_t held = (int64_t)m->shared.last.used;
    int w;

    for (w = 0; !m->ownIsShared && w < m->nw; w++) {
	held += (int64_t)m->own[w].last.used;
    }
    return held;
}

/*
 * RbCacheModelPut --
 *	Appends model m (made without keepDistances) to b: its workloads,
 *	the shared stack and each workload's own.
 */
void
RbCacheModelPut(Rb_Buf *b, const Rb_CacheModel *m)
{
    int w;

    Rb_BufPutInt(b, m->nw);
    Rb_BufPutInt(b, m->ownIsShared);
    StackPut(b, &m->shared);
    for (w = 0; !m->ownIsShared && w < m->nw; w++) {
	StackPut(b, &m->own[w]);
    }
}

/*
 * RbCacheModelGet --
 *	Rebuilds in an empty model m what RbCacheModelPut wrote.
 * Results: 1, or 0 with b->bad set when the bytes are not a model.
 */
int
RbCacheModelGet(Rb_Buf *b, Rb_CacheModel *m)
{
    int64_t nw = Rb_BufGetCount(b, 24);
    int w;

    m->ownIsShared = (int)Rb_BufGetInt(b);
    if (m->ownIsShared != (nw == 1)) {
	b->bad = 1;
	return 0;
    }
    m->nw = (int)nw;
    m->own = Rb_AllocArray(nw + 1, sizeof(Stack));
    StackGet(b, &m->shared);
    for (w = 0; !m->ownIsShared && w < nw && !b->bad; w++) {
	StackGet(b, &m->own[w]);
    }
    m->held = Held(m);
    return !b->bad;
}

/*
 * StackMerge --
 *	Merges stack src, of accesses after dst's, into dst: src's first
 *	touches are replayed in order on dst (their distances counted, as
 *	one pass counts them), its blocks then pushed from its least recent
 *	so that its order is on top, and its reuses' distances added.
 *	Blocks are renamed by map (cd its data).
 */
static void
StackMerge(Stack *dst, const Stack *src, int64_t (*map)(void *, int64_t),
	void *cd)
{
    int64_t n, k, d;
    Entry *e = StackEntries(src, &n, CompareByFirst);

    for (k = 0; k < n; k++) {
	StackAccess(dst, map(cd, e[k].block));
    }
    qsort(e, (size_t)n, sizeof(Entry), CompareByPos);
    for (k = 0; k < n; k++) {
	StackPush(dst, map(cd, e[k].block), 0);
    }
    free(e);
    for (d = 1; d <= src->curve.maxDistance; d++) {
	if (src->curve.atDistance[d] > 0) {
	    CurveCount(dst, d, src->curve.atDistance[d]);
	}
    }
}

/*
 * RbCacheModelMerge --
 *	Merges model o, of the accesses after m's (a later shard of a split
 *	run), into m; o's workload w is m's wmap[w] and its blocks are
 *	renamed by map.  Neither may keep distances.
 * Results: 1, or 0 when m then holds more entries than its limit (one
 *	pass would have stopped there).
 */
int
RbCacheModelMerge(Rb_CacheModel *m, const Rb_CacheModel *o,
	int64_t (*map)(void *, int64_t), void *cd, const int *wmap)
{
    int nw = m->nw, w;

    for (w = 0; w < o->nw; w++) {
	nw = wmap[w] + 1 > nw ? wmap[w] + 1 : nw;
    }
    if (nw > m->nw) {
	m->own = Rb_ReallocArray(m->own, nw, sizeof(Stack));
	memset(m->own + m->nw, 0, (nw - m->nw) * sizeof(Stack));
    }
    if (nw > 1 && m->ownIsShared) {
	StackCopy(&m->own[0], &m->shared);
    }
    m->ownIsShared = nw == 1;
    m->nw = nw;
    StackMerge(&m->shared, &o->shared, map, cd);
    for (w = 0; !m->ownIsShared && w < o->nw; w++) {
	StackMerge(&m->own[wmap[w]], o->ownIsShared ? &o->shared : &o->own[w],
		map, cd);
    }
    m->held = Held(m);
    return m->limit == 0 || m->held <= m->limit;
}
