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
#include "analyzers.h"

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
 * Allocate --
 *	Gives t cap empty slots (its old arrays must be saved or freed).
 */
static void
Allocate(Rb_KeyTable *t, uint64_t cap)
{
    t->cap = cap;
    t->keys = Rb_AllocArray(cap, sizeof(int64_t));
    t->used = Rb_Realloc(NULL, cap);
    t->vals = Rb_Realloc(NULL, cap * t->valSize);
    memset(t->used, 0, cap);
}

/*
 * HomeSlot --
 *	The slot where key's probe sequence starts.
 */
static uint64_t
HomeSlot(const Rb_KeyTable *t, int64_t key)
{
    return Rb_HashKey(key) & (t->cap - 1);
}

/*
 * Grow --
 *	Doubles the table (or makes its first 16 slots) and rehashes it.
 */
static void
Grow(Rb_KeyTable *t)
{
    Rb_KeyTable old = *t;
    uint64_t i, h;

    Allocate(t, old.cap ? old.cap * 2 : 16);
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
