/*
 * kitSerialize.c --
 *
 *	The partial state of the kit's shared structures as bytes (Rb_Buf),
 *	for the serialize and deserialize hooks of a split run: counters,
 *	moments, time bins, logarithmic histograms, key tables and distinct
 *	sets.  Each Get restores what the matching Put wrote into a
 *	structure emptied by the class's start hook, and leaves buf->bad set
 *	when the bytes run short.
 */

#include <stdlib.h>
#include <string.h>
#include "toolbox/toolbox.h"

/*
 * RbKitPutCounters, RbKitGetCounters --
 *	n consecutive 64-bit counters (members of one struct, in order).
 */
void
RbKitPutCounters(Rb_Buf *b, const void *first, int n)
{
    const int64_t *v = first;
    int i;

    for (i = 0; i < n; i++) {
	Rb_BufPutInt(b, v[i]);
    }
}

void
RbKitGetCounters(Rb_Buf *b, void *first, int n)
{
    int64_t *v = first;
    int i;

    for (i = 0; i < n; i++) {
	v[i] = Rb_BufGetInt(b);
    }
}

/*
 * RbKitPut128, RbKitGet128 --
 *	A 128-bit integer (an exact sum) as its high and low 64 bits.
 */
void
RbKitPut128(Rb_Buf *b, Sum128 v)
{
    Rb_BufPutInt(b, (int64_t)(v >> 64));
    Rb_BufPutInt(b, (int64_t)(uint64_t)v);
}

Sum128
RbKitGet128(Rb_Buf *b)
{
    uint64_t hi = (uint64_t)Rb_BufGetInt(b);
    uint64_t lo = (uint64_t)Rb_BufGetInt(b);

    return (Sum128)(((unsigned __int128)hi << 64) | lo);
}

/*
 * Rb_MomentsPut --
 *	Writes m's count, sum, mean, squared deviations, minimum and maximum
 *	to b.
 * Results: none.
 * Side effects: appends to b.
 */
void
Rb_MomentsPut(Rb_Buf *b, const Rb_Moments *m)
{
    Rb_BufPutInt(b, (int64_t)m->n);
    Rb_BufPutDouble(b, m->sum);
    Rb_BufPutDouble(b, m->mean);
    Rb_BufPutDouble(b, m->m2);
    Rb_BufPutDouble(b, m->min);
    Rb_BufPutDouble(b, m->max);
}

/*
 * Rb_MomentsGet --
 *	Reads what Rb_MomentsPut wrote into m.
 * Results: none; a short buffer sets b->bad.
 * Side effects: replaces m.
 */
void
Rb_MomentsGet(Rb_Buf *b, Rb_Moments *m)
{
    m->n = (uint64_t)Rb_BufGetInt(b);
    m->sum = Rb_BufGetDouble(b);
    m->mean = Rb_BufGetDouble(b);
    m->m2 = Rb_BufGetDouble(b);
    m->min = Rb_BufGetDouble(b);
    m->max = Rb_BufGetDouble(b);
}

/*
 * Rb_TimeBinsPut --
 *	Writes tb's interval, origin and held bins to b, for a split run's
 *	partial state.
 * Results: none.
 * Side effects: appends to b.
 */
void
Rb_TimeBinsPut(Rb_Buf *b, const Rb_TimeBins *tb)
{
    int64_t k;

    Rb_BufPutInt(b, tb->interval);
    Rb_BufPutInt(b, tb->hasOrigin);
    Rb_BufPutInt(b, tb->origin);
    Rb_BufPutInt(b, tb->lo);
    Rb_BufPutInt(b, tb->n);
    for (k = 0; k < tb->n; k++) {
	Rb_BufPutInt(b, (int64_t)tb->sums[k]);
    }
}

/*
 * Rb_TimeBinsGet --
 *	Reads what Rb_TimeBinsPut wrote into tb, which its class's start
 *	hook started (the run it was given is kept).
 * Results: none; a short or corrupt buffer sets b->bad.
 * Side effects: replaces tb's bins; forgets the bin added to last.
 */
void
Rb_TimeBinsGet(Rb_Buf *b, Rb_TimeBins *tb)
{
    int64_t k, n;

    tb->interval = Rb_BufGetInt(b);
    tb->hasOrigin = (int)Rb_BufGetInt(b);
    tb->origin = Rb_BufGetInt(b);
    tb->lo = Rb_BufGetInt(b);
    n = Rb_BufGetCount(b, 8);
    if (n > RB_MAX_TIME_BINS) {
	b->bad = 1;
	n = 0;
    }
    if (n > tb->cap) {
	tb->sums = Rb_Realloc(tb->sums, (size_t)n * sizeof(uint64_t));
	tb->cap = n;
    }
    tb->n = n;
    for (k = 0; k < n; k++) {
	tb->sums[k] = (uint64_t)Rb_BufGetInt(b);
    }
    tb->curStart = tb->curEnd = 0;
}

/*
 * Rb_LogHistPut --
 *	Writes h's moments, zero count and buckets to b.
 * Results: none.
 * Side effects: appends to b.
 */
void
Rb_LogHistPut(Rb_Buf *b, const Rb_LogHist *h)
{
    Rb_MomentsPut(b, &h->moments);
    Rb_BufPutInt(b, (int64_t)h->zeros);
    Rb_TimeBinsPut(b, &h->bucket[0]);
    Rb_TimeBinsPut(b, &h->bucket[1]);
}

/*
 * Rb_LogHistGet --
 *	Reads what Rb_LogHistPut wrote into h, an empty histogram.
 * Results: none; a short or corrupt buffer sets b->bad.
 * Side effects: replaces h's counts.
 */
void
Rb_LogHistGet(Rb_Buf *b, Rb_LogHist *h)
{
    Rb_MomentsGet(b, &h->moments);
    h->zeros = (uint64_t)Rb_BufGetInt(b);
    Rb_TimeBinsGet(b, &h->bucket[0]);
    Rb_TimeBinsGet(b, &h->bucket[1]);
}

/*
 * RbKitPutKey, RbKitGetKey --
 *	A key: the integer, or for a text field (schema given) the string
 *	its id stands for, interned again on reading.
 */
void
RbKitPutKey(Rb_Buf *b, const Rb_Schema *textSchema, int64_t key)
{
    if (textSchema != NULL) {
	const char *s = Rb_SchemaString(textSchema, key);

	Rb_BufPutString(b, s ? s : "", s ? strlen(s) : 0);
    } else {
	Rb_BufPutInt(b, key);
    }
}

int64_t
RbKitGetKey(Rb_Buf *b, Rb_Schema *textSchema)
{
    if (textSchema != NULL) {
	size_t n;
	const char *s = Rb_BufGetString(b, &n);

	return s ? Rb_SchemaIntern(textSchema, s, n) : 0;
    }
    return Rb_BufGetInt(b);
}

/*
 * Rb_KeyTablePut --
 *	Writes t's value size, count, and every key and value to b: a key as
 *	the string it stands for when textSchema is given (a text field's
 *	ids differ between processes), else as the integer; a value as
 *	64-bit words when its size is a multiple of 8, else as bytes.
 *	Values must be plain data, without pointers.
 * Results: none.
 * Side effects: appends to b.
 */
void
Rb_KeyTablePut(Rb_Buf *b, const Rb_KeyTable *t, const Rb_Schema *textSchema)
{
    uint64_t i;

    Rb_BufPutInt(b, (int64_t)t->valSize);
    Rb_BufPutInt(b, (int64_t)t->count);
    for (i = 0; i < t->cap; i++) {
	const unsigned char *v;

	if (!t->used[i]) {
	    continue;
	}
	RbKitPutKey(b, textSchema, t->keys[i]);
	v = Rb_KeyTableValue(t, i);
	if (t->valSize % 8 == 0) {
	    RbKitPutCounters(b, v, (int)(t->valSize / 8));
	} else {
	    Rb_BufPutBytes(b, v, t->valSize);
	}
    }
}

/*
 * Rb_KeyTableGet --
 *	Reads what Rb_KeyTablePut wrote, adding each key and value to t (an
 *	empty table of the same value size; text keys interned again in
 *	textSchema).
 * Results: none; a short buffer or another value size sets b->bad.
 * Side effects: may grow t.
 */
void
Rb_KeyTableGet(Rb_Buf *b, Rb_KeyTable *t, Rb_Schema *textSchema)
{
    int64_t n, i;

    if ((size_t)Rb_BufGetInt(b) != t->valSize) {
	b->bad = 1;
	return;
    }
    n = Rb_BufGetCount(b, 8);
    if (!b->bad) {
	RbKeyTableReserve(t, t->count + (uint64_t)n);
    }
    for (i = 0; i < n && !b->bad; i++) {
	int64_t key = RbKitGetKey(b, textSchema);
	unsigned char *v = Rb_KeyTableFind(t, key, 1);

	if (t->valSize % 8 == 0) {
	    RbKitGetCounters(b, v, (int)(t->valSize / 8));
	} else {
	    const void *p = Rb_BufGetBytes(b, t->valSize);

	    if (p) {
		memcpy(v, p, t->valSize);
	    }
	}
    }
}

/*
 * RbDistinctPut, RbDistinctGet --
 *	The exact set, or the sketch's registers.  Values of a text field
 *	(textSchema given) travel as strings; their sketch hashes ids that
 *	another process numbers differently, so it cannot travel.
 * Results: RbDistinctPut: 1, or 0 for the sketch of a text field.
 */
int
RbDistinctPut(Rb_Buf *b, const Rb_DistinctSet *d,
	const Rb_Schema *textSchema)
{
    if (d->registers != NULL && textSchema != NULL) {
	return 0;
    }
    Rb_BufPutInt(b, d->registers != NULL);
    if (d->registers != NULL) {
	Rb_BufPutBytes(b, d->registers, (size_t)1 << RB_HLL_BITS);
    } else {
	Rb_KeyTablePut(b, &d->exact, textSchema);
    }
    return 1;
}

void
RbDistinctGet(Rb_Buf *b, Rb_DistinctSet *d, Rb_Schema *textSchema)
{
    if (Rb_BufGetInt(b)) {
	const void *p = Rb_BufGetBytes(b, (size_t)1 << RB_HLL_BITS);

	if (p) {
	    Rb_KeyTableFree(&d->exact);
	    d->registers = Rb_Realloc(d->registers,
		    (size_t)1 << RB_HLL_BITS);
	    memcpy(d->registers, p, (size_t)1 << RB_HLL_BITS);
	}
    } else {
	Rb_KeyTableGet(b, &d->exact, textSchema);
    }
}

/*
 * RbBlockMapPut, RbBlockMapGet --
 *	The devices of a block map in the order of their dense ids, and its
 *	skipped count.  Get gives them the same ids in an emptied map, so
 *	that the block keys that follow mean the same.
 */
void
RbBlockMapPut(Rb_Buf *b, const Rb_BlockMap *m)
{
    int64_t *devices = RbBlockMapDevices(m);
    uint64_t i;

    Rb_BufPutInt(b, (int64_t)m->skipped);
    Rb_BufPutInt(b, (int64_t)m->devices.count);
    for (i = 0; i < m->devices.count; i++) {
	Rb_BufPutInt(b, devices[i]);
    }
    free(devices);
}

void
RbBlockMapGet(Rb_Buf *b, Rb_BlockMap *m)
{
    int64_t n, i, key;

    m->skipped = (uint64_t)Rb_BufGetInt(b);
    n = Rb_BufGetCount(b, 8);
    for (i = 0; i < n; i++) {
	RbBlockKey(m, Rb_BufGetInt(b), 0, &key);
    }
}

/*
 * RbBlockMapAdopt --
 *	Before merging block keys of other (a later shard) into m's: gives
 *	other's devices ids in m in the order other first saw them, which
 *	is the numbering one pass over both shards gives.
 * Results: other's devices by id (malloc'd, for RbBlockRekey), or NULL
 *	when m would hold more than 2^15 devices.  *sameIds (if not NULL)
 *	says whether every device kept its id.
 */
int64_t *
RbBlockMapAdopt(Rb_BlockMap *m, const Rb_BlockMap *other, int *sameIds)
{
    int64_t *devices = RbBlockMapDevices(other), key;
    uint64_t i;
    int same = 1;

    for (i = 0; i < other->devices.count; i++) {
	if (!RbBlockKey(m, devices[i], 0, &key)) {
	    free(devices);
	    return NULL;
	}
	same &= (uint64_t)(key >> 48) == i;
    }
    m->skipped += other->skipped;
    if (sameIds != NULL) {
	*sameIds = same;
    }
    return devices;
}

/*
 * RbBlockRekey --
 *	The key in m of the block that key stands for in the shard whose
 *	devices RbBlockMapAdopt returned.
 */
int64_t
RbBlockRekey(Rb_BlockMap *m, const int64_t *devices, int64_t key)
{
    int64_t dev, blockNo, newKey = 0;

    RbBlockOfKey(devices, key, &dev, &blockNo);
    RbBlockKey(m, dev, blockNo, &newKey);
    return newKey;
}

/*
 * RbDistinctAddRekeyed --
 *	Adds to d the block keys of src, a set of the shard whose devices
 *	RbBlockMapAdopt returned, keyed again in m.
 * Results: 1, or 0 when src is a sketch of keys numbered otherwise than
 *	m's (sameIds 0), which cannot be keyed again, unless both sketches
 *	count (device, block) (RbDistinctOfBlocks).
 */
int
RbDistinctAddRekeyed(Rb_DistinctSet *d, const Rb_DistinctSet *src,
	Rb_BlockMap *m, const int64_t *devices, int sameIds)
{
    uint64_t i;

    if (!RbDistinctIsExact(src)) {
	if (!sameIds && !(d->blocks != NULL && src->blocks != NULL)) {
	    return 0;
	}
	RbDistinctMerge(d, src);
	return 1;
    }
    if (RbDistinctIsExact(d)) {
	uint64_t want = d->exact.count + src->exact.count;

	/* Past the limit it becomes a sketch anyway: no room beyond it. */
	RbKeyTableReserve(&d->exact, want < (uint64_t)d->limit + 1 ? want
		: (uint64_t)d->limit + 1);
    }
    for (i = 0; i < src->exact.cap; i++) {
	if (src->exact.used[i]) {
	    RbDistinctAdd(d, RbBlockRekey(m, devices, src->exact.keys[i]));
	}
    }
    return 1;
}

/*
 * RbTotalSerialize, RbTotalDeserialize --
 *	serialize and deserialize hooks of the analyzers whose state begins
 *	with an Rb_TotalState (Rate, Bandwidth, Dispersion, Hurst).
 */
int
RbTotalSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    Rb_TotalState *st = a->state;

    Rb_BufPutInt(b, (int64_t)st->total);
    Rb_TimeBinsPut(b, &st->bins);
    return TCL_OK;
}

int
RbTotalDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    Rb_TotalState *st = a->state;

    st->total = (uint64_t)Rb_BufGetInt(b);
    Rb_TimeBinsGet(b, &st->bins);
    return TCL_OK;
}

/*
 * RbKitStatelessSerialize, RbKitStatelessDeserialize,
 * RbKitStatelessMerge --
 *	The hooks of a staged analyzer that keeps no state while records
 *	flow (it reads other Attributes at end, after their merge): there
 *	is nothing to carry between ranks.
 */
int
RbKitStatelessSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    return TCL_OK;
}

int
RbKitStatelessDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    return TCL_OK;
}

int
RbKitStatelessMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    return TCL_OK;
}

/*
 * RbHeapPut, RbHeapGet --
 *	The items of a heap; Get pushes them onto h (emptied or not).
 */
void
RbHeapPut(Rb_Buf *b, const Rb_Heap *h)
{
    size_t i;

    Rb_BufPutInt(b, (int64_t)h->n);
    for (i = 0; i < h->n; i++) {
	Rb_BufPutInt(b, h->items[i].key);
	Rb_BufPutInt(b, h->items[i].value);
    }
}

void
RbHeapGet(Rb_Buf *b, Rb_Heap *h)
{
    int64_t n = Rb_BufGetCount(b, 16), i, key;

    for (i = 0; i < n; i++) {
	key = Rb_BufGetInt(b);
	RbHeapPush(h, key, Rb_BufGetInt(b));
    }
}

/*
 * RbKitPutPairs, RbKitGetPairs --
 *	n pairs of 64-bit integers (2n words, each as Rb_BufPutInt writes
 *	it); Get returns them in a malloc'd array (NULL for none) with *n
 *	set.  Written and read a block of words at a time: a shard's early
 *	arrivals run to millions of pairs.
 */
void
RbKitPutPairs(Rb_Buf *b, const int64_t *pairs, size_t n)
{
    unsigned char block[4096];
    size_t i, k = 0;
    int j;

    Rb_BufPutInt(b, (int64_t)n);
    for (i = 0; i < 2 * n; i++) {
	for (j = 0; j < 8; j++) {
	    block[k++] = (unsigned char)((uint64_t)pairs[i] >> (8 * j));
	}
	if (k == sizeof(block)) {
	    Rb_BufPutBytes(b, block, k);
	    k = 0;
	}
    }
    Rb_BufPutBytes(b, block, k);
}

int64_t *
RbKitGetPairs(Rb_Buf *b, size_t *n)
{
    int64_t count = Rb_BufGetCount(b, 16), *pairs = NULL;
    const unsigned char *c;
    size_t i;
    int j;

    *n = 0;
    if (count > 0 && (c = Rb_BufGetBytes(b, 16 * (size_t)count)) != NULL) {
	pairs = Rb_AllocArray(2 * (size_t)count, sizeof(int64_t));
	for (i = 0; i < 2 * (size_t)count; i++, c += 8) {
	    uint64_t v = 0;

	    for (j = 0; j < 8; j++) {
		v |= (uint64_t)c[j] << (8 * j);
	    }
	    pairs[i] = (int64_t)v;
	}
	*n = (size_t)count;
    }
    return pairs;
}

/*
 * PutVar, GetVar --
 *	A signed integer as zigzag LEB128 (1 to 10 bytes) at p, returning
 *	the byte after it; GetVar returns NULL when the bytes end first or
 *	run past 10.
 */
static unsigned char *
PutVar(unsigned char *p, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);

    while (u >= 0x80) {
	*p++ = (unsigned char)(u | 0x80);
	u >>= 7;
    }
    *p++ = (unsigned char)u;
    return p;
}

static const unsigned char *
GetVar(const unsigned char *p, const unsigned char *end, int64_t *v)
{
    uint64_t u = 0;
    int shift;

    for (shift = 0; p < end && shift < 70; shift += 7) {
	unsigned char c = *p++;

	u |= (uint64_t)(c & 0x7f) << shift;
	if (!(c & 0x80)) {
	    *v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	    return p;
	}
    }
    return NULL;
}

/*
 * RbKitPackedAppend, RbKitPackedClear, RbKitPackedFree --
 *	Appends the pair (x, y) (growing the bytes by doubling); empties
 *	the list (keeping its bytes); frees them.
 */
void
RbKitPackedAppend(RbKitPacked *l, int64_t x, int64_t y)
{
    if (l->in != NULL) {
	/* Read in place so far: the bytes become the list's own. */
	unsigned char *own = Rb_Alloc(l->len + 4096);

	memcpy(own, l->in, l->len);
	free(l->bytes);
	l->bytes = own;
	l->cap = l->len + 4096;
	l->in = NULL;
    }
    if (l->cap - l->len < 20) {
	l->cap = l->cap ? 2 * l->cap : 4096;
	l->bytes = Rb_Realloc(l->bytes, l->cap);
    }
    l->len = (size_t)(PutVar(PutVar(l->bytes + l->len,
	    (int64_t)((uint64_t)x - (uint64_t)l->lastX)),
	    (int64_t)((uint64_t)y - (uint64_t)x)) - l->bytes);
    l->lastX = x;
    l->n++;
}

void
RbKitPackedClear(RbKitPacked *l)
{
    l->in = NULL;
    l->len = l->n = 0;
    l->lastX = 0;
}

void
RbKitPackedFree(RbKitPacked *l)
{
    free(l->bytes);
    memset(l, 0, sizeof(*l));
}

/*
 * RbKitPackedPut, RbKitPackedGet --
 *	The list as its number of pairs, the last pair's x, its number of
 *	bytes and the bytes.  Get leaves the bytes in b (l->in, valid while
 *	b is); a short buffer sets b->bad.
 */
void
RbKitPackedPut(Rb_Buf *b, const RbKitPacked *l)
{
    Rb_BufPutInt(b, (int64_t)l->n);
    Rb_BufPutInt(b, l->lastX);
    Rb_BufPutInt(b, (int64_t)l->len);
    Rb_BufPutBytes(b, l->in ? l->in : l->bytes, l->len);
}

void
RbKitPackedGet(Rb_Buf *b, RbKitPacked *l)
{
    int64_t n = Rb_BufGetInt(b), lastX = Rb_BufGetInt(b);
    int64_t len = Rb_BufGetCount(b, 1);

    RbKitPackedClear(l);
    l->lastX = lastX;
    l->in = Rb_BufGetBytes(b, (size_t)len);
    if (l->in == NULL || n < 0 || (uint64_t)n > (uint64_t)len / 2) {
	b->bad = 1;
	l->in = NULL;
	return;
    }
    l->len = (size_t)len;
    l->n = (size_t)n;
}

/*
 * RbKitPackedBegin, RbKitPackedNext --
 *	Reads the pairs in order.
 * Results: Next gives 1 with the next pair in *x, *y; 0 after the last,
 *	or when the bytes end before it (a corrupt list).
 */
void
RbKitPackedBegin(const RbKitPacked *l, RbKitPackedIter *it)
{
    it->p = l->in ? l->in : l->bytes;
    it->end = it->p ? it->p + l->len : NULL;
    it->left = l->n;
    it->lastX = 0;
}

int
RbKitPackedNext(RbKitPackedIter *it, int64_t *x, int64_t *y)
{
    int64_t dx, dy;

    if (it->left == 0 || it->p == NULL
	    || (it->p = GetVar(it->p, it->end, &dx)) == NULL
	    || (it->p = GetVar(it->p, it->end, &dy)) == NULL) {
	return 0;
    }
    it->left--;
    *x = (int64_t)((uint64_t)it->lastX + (uint64_t)dx);
    *y = (int64_t)((uint64_t)*x + (uint64_t)dy);
    it->lastX = *x;
    return 1;
}

/*
 * RbKitAppendPair --
 *	Appends the pair (x, y) to a growable array of *n pairs with room
 *	for *cap (growing it by doubling, from first pairs).
 */
void
RbKitAppendPair(int64_t **pairs, size_t *n, size_t *cap, size_t first,
	int64_t x, int64_t y)
{
    if (*n == *cap) {
	*cap = *cap ? 2 * *cap : first;
	*pairs = Rb_ReallocArray(*pairs, 2 * *cap, sizeof(int64_t));
    }
    (*pairs)[2 * *n] = x;
    (*pairs)[2 * *n + 1] = y;
    (*n)++;
}
