/*
 * keyTable.c --
 *
 *	Open-addressing (linear probing) hash tables from int64 keys to
 *	fixed-size values, for the analyzers whose state is per device, per
 *	block or per key.  Removal shifts later entries back, so the table
 *	needs no tombstones and stays as small as its live keys.
 */

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "toolbox/toolbox.h"

/*
 * Rb_KeyTableInit --
 *	Makes t an empty table of values of valSize bytes (no allocation).
 * Results: none.
 * Side effects: none.
 */
void
Rb_KeyTableInit(Rb_KeyTable *t, size_t valSize)
{
    memset(t, 0, sizeof(*t));
    t->valSize = valSize;
}

/*
 * RbAllocHuge --
 *	Rb_ReallocArray(NULL, count, size) for an array read at random
 *	places (a hash table's): from HUGE_PAGE (2 MiB) on, aligned to it
 *	and, rounded up to a whole number of them, advised to the kernel as
 *	transparent huge pages (madvise MADV_HUGEPAGE; where the kernel
 *	has none, or huge pages are off, nothing changes).  A table of
 *	megabytes on 4 KiB pages misses the TLB on nearly every look-up, as
 *	well as the cache; on huge pages, only the cache.
 * Results: the array, its bytes not zeroed; free() releases it.
 * Side effects: allocates; Tcl_Panic on overflow or exhaustion.
 */
#define HUGE_PAGE ((size_t)2 << 20)

void *
RbAllocHuge(size_t count, size_t size)
{
    size_t n;
    void *p;

    if (__builtin_mul_overflow(count, size, &n) || n < HUGE_PAGE
	    || n > SIZE_MAX - HUGE_PAGE) {
	return Rb_ReallocArray(NULL, count, size);
    }
    n = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    if (posix_memalign(&p, HUGE_PAGE, n) != 0) {
	/* Memory is short: a plain allocation, which ends the process
	 * with a message if it fails too. */
	return Rb_Realloc(NULL, n);
    }
    (void)madvise(p, n, MADV_HUGEPAGE);
    return p;
}

/*
 * Allocate --
 *	Gives t cap empty slots (its old arrays must be saved or freed).
 */
static void
Allocate(Rb_KeyTable *t, uint64_t cap)
{
    t->cap = cap;
    t->keys = RbAllocHuge(cap, sizeof(int64_t));
    t->used = RbAllocHuge(cap, 1);
    t->vals = RbAllocHuge(cap, t->valSize);
    memset(t->keys, 0, cap * sizeof(int64_t));
    memset(t->used, 0, cap);
}

/*
 * HomeSlot --
 *	The slot where key's probe sequence starts.  The hash is salted by
 *	the table's size, so that the slot order of a table of one size is
 *	random in a table of another.  Keys copied in slot order (a merge
 *	of partial states, deserializing, Grow) would otherwise arrive in
 *	the order of their home slots in the smaller table they are copied
 *	into, piling up in ever longer clusters: quadratic (a merge of 10 M
 *	block keys into an empty set took minutes).  Two tables of one size
 *	share the hash, and a copy between them lands in order.
 */
const uint64_t rbKeyTableSalt[64] = {
    0x910a2dec89025cc1ull, 0x975835de1c9756ceull, 0x1d0b14e4db018fedull,
    0x6e73e372e2338acaull, 0x63033b0ca389c35aull, 0xbd64a5d9adefe000ull,
    0x63cbe1e459320dd7ull, 0x9e5651b0ef953636ull, 0xaeaf52febe706064ull,
    0x088712be8a582fcaull, 0x50f5647d2380309dull, 0x943ff9fc99de8f03ull,
    0xc4ca37b7f8ad8affull, 0x6aa9d61435dbe63eull, 0x875b9307abf55005ull,
    0x5de186dcba779207ull, 0x808475f02ee37363ull, 0x1120b3d00955f032ull,
    0xbc4075f2ef431a44ull, 0x362259904816818cull, 0x06ca0a95b7e825c7ull,
    0xc80de0f9d4d60e0aull, 0xe8d7da001b0181d6ull, 0xaac8c00000a81e44ull,
    0xa208c12cf0c7b709ull, 0xc3b7f4e80f554ddaull, 0x974e35325981068aull,
    0x905c768ad49f146cull, 0xbb7b49ab8801cf70ull, 0xa8ee577af2720dceull,
    0xd7599677879feaeaull, 0xeaeb7f27b54e2401ull, 0x2c0e0fedbe2218a8ull,
    0x89242d2dd9d4a40dull, 0x4d5cb825dfaab05bull, 0xe9b316290724ba1bull,
    0xc7ab56057c8da907ull, 0xeb01cfaf16b47eb0ull, 0xce6a57a6e3ccdeecull,
    0x369eae0b0ca19112ull, 0x118e846ea93bc949ull, 0xbdd732262feb6e95ull,
    0xba69ec90eb4fef88ull, 0xfb452912299a5453ull, 0xf7e9f3f88cc04ad6ull,
    0xbaee56f32e223007ull, 0x7bb3c45c597cdb85ull, 0x040a2076f607ff23ull,
    0x1c4a97a6edc2a958ull, 0xbb0802c412d354cbull, 0x5ddad83b4e874068ull,
    0xf9b44ecd07b4404aull, 0xc85e84f460206f76ull, 0xbc46b610e9d3f375ull,
    0x6e1351b2349f331cull, 0x9d189ecfff7b2147ull, 0x36057413850f2a31ull,
    0x7daf7bd7b0085fd2ull, 0x9691c38b30d2b83cull, 0xbb0af0f391997767ull,
    0x417ffd1301eaa631ull, 0x322f69afa8a70beaull, 0x8c741196acc47e35ull,
    0xd6967248fbe68cc3ull
};

static uint64_t
HomeSlot(const Rb_KeyTable *t, int64_t key)
{
    return RbKeyTableHome(t, key);
}

/*
 * Resize --
 *	Gives t cap slots (a power of two above its count) and rehashes it.
 */
static void
Resize(Rb_KeyTable *t, uint64_t cap)
{
    Rb_KeyTable old = *t;
    uint64_t i, h;

    Allocate(t, cap);
    for (i = 0; i < old.cap; i++) {
	if (!old.used[i]) {
	    continue;
	}
	for (h = HomeSlot(t, old.keys[i]); t->used[h];
		h = (h + 1) & (t->cap - 1)) {
	}
	t->used[h] = 1;
	t->keys[h] = old.keys[i];
	memcpy(Rb_KeyTableValue(t, h), Rb_KeyTableValue(&old, i),
		t->valSize);
    }
    free(old.keys);
    free(old.used);
    free(old.vals);
}

/*
 * Grow --
 *	Doubles the table (or makes its first 16 slots) and rehashes it.
 */
static void
Grow(Rb_KeyTable *t)
{
    Resize(t, t->cap ? t->cap * 2 : 16);
}

/*
 * RbKeyTableReserve --
 *	Makes room for n keys in all without growing again.  Before adding
 *	many keys taken in another table's slot order (deserializing,
 *	merging): into a table too small for them they would probe along
 *	ever longer clusters (quadratic; 10 M block keys took minutes).
 */
void
RbKeyTableReserve(Rb_KeyTable *t, uint64_t n)
{
    uint64_t cap = t->cap ? t->cap : 16;

    while (n * 4 > cap * 3) {
	cap *= 2;
    }
    if (cap != t->cap) {
	Resize(t, cap);
    }
}

/*
 * Rb_KeyTableFind --
 *	The value of key; when absent, a new zeroed value if create.
 * Results: the value, or NULL when key is absent and create is 0.
 * Side effects: may grow the table, moving every value.
 */
void *
Rb_KeyTableFind(Rb_KeyTable *t, int64_t key, int create)
{
    uint64_t h;

    if (create && (t->count + 1) * 4 > t->cap * 3) {
	Grow(t);
    }
    if (t->cap == 0) {
	return NULL;
    }
    for (h = HomeSlot(t, key); t->used[h]; h = (h + 1) & (t->cap - 1)) {
	if (t->keys[h] == key) {
	    return Rb_KeyTableValue(t, h);
	}
    }
    if (!create) {
	return NULL;
    }
    t->used[h] = 1;
    t->keys[h] = key;
    t->count++;
    memset(Rb_KeyTableValue(t, h), 0, t->valSize);
    return Rb_KeyTableValue(t, h);
}

/*
 * Rb_KeyTableFindLimited --
 *	The value of key, made (zeroed) when absent only while the table
 *	holds fewer than limit keys: for analyzers whose memory is bounded
 *	by a -limit.
 * Results: the value, or NULL when key is absent and the table is full.
 * Side effects: may grow the table, moving every value.
 */
void *
Rb_KeyTableFindLimited(Rb_KeyTable *t, int64_t key, int64_t limit)
{
    /* One probe sequence either way: below the limit, find-or-make. */
    return Rb_KeyTableFind(t, key, (int64_t)t->count < limit);
}

/*
 * Rb_KeyTableRemove --
 *	Removes key if present, moving back the entries after it in its
 *	cluster that would otherwise become unreachable.
 * Results: none.
 * Side effects: may move values within t.
 */
void
Rb_KeyTableRemove(Rb_KeyTable *t, int64_t key)
{
    uint64_t mask = t->cap - 1, hole, j, home;

    if (t->cap == 0) {
	return;
    }
    for (hole = HomeSlot(t, key); t->used[hole] && t->keys[hole] != key;
	    hole = (hole + 1) & mask) {
    }
    if (!t->used[hole]) {
	return;
    }
    for (j = (hole + 1) & mask; t->used[j]; j = (j + 1) & mask) {
	home = HomeSlot(t, t->keys[j]);
	/* Entry j may fill the hole unless its home lies cyclically in
	 * (hole, j]. */
	if (((j - home) & mask) >= ((j - hole) & mask)) {
	    t->keys[hole] = t->keys[j];
	    memcpy(Rb_KeyTableValue(t, hole), Rb_KeyTableValue(t, j),
		    t->valSize);
	    hole = j;
	}
    }
    t->used[hole] = 0;
    t->count--;
}

/*
 * Rb_KeyTableClear --
 *	Empties t, keeping its allocation.
 * Results: none.
 * Side effects: none.
 */
void
Rb_KeyTableClear(Rb_KeyTable *t)
{
    if (t->cap) {
	memset(t->used, 0, t->cap);
    }
    t->count = 0;
}

/*
 * CompareSlots --
 *	qsort_r order of slot numbers of the table t: by their keys.
 */
static int
CompareSlots(const void *p, const void *q, void *t)
{
    const int64_t *keys = ((const Rb_KeyTable *)t)->keys;
    int64_t k1 = keys[*(const uint64_t *)p];
    int64_t k2 = keys[*(const uint64_t *)q];

    return (k1 > k2) - (k1 < k2);
}

/*
 * Rb_KeyTableSortedSlots --
 *	The slots in use, in increasing key order (t->count of them).
 * Results: a malloc'd array the caller frees (may be NULL when t is empty).
 * Side effects: none.
 */
uint64_t *
Rb_KeyTableSortedSlots(const Rb_KeyTable *t)
{
    uint64_t *slots = Rb_AllocArray(t->count + 1, sizeof(uint64_t));
    uint64_t i, n = 0;

    for (i = 0; i < t->cap; i++) {
	if (t->used[i]) {
	    slots[n++] = i;
	}
    }
    qsort_r(slots, n, sizeof(uint64_t), CompareSlots, (void *)t);
    return slots;
}

/*
 * Rb_KeyTableFree --
 *	Frees the table's arrays.
 * Results: none.
 * Side effects: t is empty (and reusable) afterwards.
 */
void
Rb_KeyTableFree(Rb_KeyTable *t)
{
    free(t->keys);
    free(t->used);
    free(t->vals);
    Rb_KeyTableInit(t, t->valSize);
}
