/*
 * objlru.c --
 *
 *	The hand-written C baseline of the benchmark's object-cache rows:
 *	what a competent engineer would write to simulate one LRU cache of
 *	objects of their own sizes over an oracleGeneral trace (libCacheSim's
 *	binary form, doc/oraclegeneral.n: 24-byte little-endian records of
 *	a time, an object id, its size and its next request) without
 *	Rubicon.  Each record is one request to its object, of its size in
 *	bytes (0 counts as 1); the cache holds
 *	at most CAPACITY bytes.  A hit moves the object to the head of a
 *	doubly linked list; a miss evicts from the tail until the object
 *	fits, then puts it at the head; an object larger than the cache is
 *	not admitted.  Objects live in an array of nodes found through an
 *	open-addressing hash table (linear probing, deletion by moving the
 *	following entries back), so memory follows the objects held.
 *
 *	objlru trace.oracleGeneral CAPACITY
 *
 *	Output: "requests R hits H hitbytes B".
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC_LEN		24
#define BLOCK_RECS	8192
#define NIL		UINT32_MAX

typedef struct Obj {
    uint64_t key;
    uint64_t size;
    uint32_t prev, next;
} Obj;

static Obj *objs;
static uint32_t nobjs, objCap, freeObj = NIL;
static uint32_t *slots;		/* object index + 1; 0 marks a free slot */
static uint64_t slotMask;
static uint32_t head = NIL, tail = NIL;
static uint64_t held, capacity;

static void *
Xrealloc(void *p, size_t size)
{
    if ((p = realloc(p, size)) == NULL) {
	fprintf(stderr, "objlru: out of memory\n");
	exit(1);
    }
    return p;
}

static uint64_t
Hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

/* Little-endian fields, written so that the compiler makes each one load. */
static uint32_t
Le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
	    | (uint32_t)p[3] << 24;
}

static uint64_t
Le64(const unsigned char *p)
{
    return (uint64_t)Le32(p) | (uint64_t)Le32(p + 4) << 32;
}

/*
 * Find --
 *	The slot of key, or the free slot where it would go.
 */
static uint64_t
Find(uint64_t key)
{
    uint64_t s = Hash(key) & slotMask;

    while (slots[s] != 0 && objs[slots[s] - 1].key != key) {
	s = (s + 1) & slotMask;
    }
    return s;
}

/*
 * Grow --
 *	Doubles the hash table (kept at most half full).
 */
static void
Grow(void)
{
    uint64_t oldCap = slotMask + 1, i;
    uint32_t *old = slots;

    slotMask = oldCap * 2 - 1;
    slots = calloc(slotMask + 1, sizeof(uint32_t));
    if (slots == NULL) {
	fprintf(stderr, "objlru: out of memory\n");
	exit(1);
    }
    for (i = 0; i < oldCap; i++) {
	if (old[i] != 0) {
	    slots[Find(objs[old[i] - 1].key)] = old[i];
	}
    }
    free(old);
}

/*
 * Remove --
 *	Takes key's slot out of the table, moving later entries of its
 *	probe run back into the hole.
 */
static void
Remove(uint64_t s)
{
    uint64_t j = s;

    slots[s] = 0;
    for (;;) {
	uint64_t home;

	j = (j + 1) & slotMask;
	if (slots[j] == 0) {
	    return;
	}
	home = Hash(objs[slots[j] - 1].key) & slotMask;
	if (((j - home) & slotMask) >= ((j - s) & slotMask)) {
	    slots[s] = slots[j];
	    slots[j] = 0;
	    s = j;
	}
    }
}

static void
Unlink(uint32_t o)
{
    if (objs[o].prev != NIL) {
	objs[objs[o].prev].next = objs[o].next;
    } else {
	head = objs[o].next;
    }
    if (objs[o].next != NIL) {
	objs[objs[o].next].prev = objs[o].prev;
    } else {
	tail = objs[o].prev;
    }
}

static void
PushHead(uint32_t o)
{
    objs[o].prev = NIL;
    objs[o].next = head;
    if (head != NIL) {
	objs[head].prev = o;
    } else {
	tail = o;
    }
    head = o;
}

/*
 * Request --
 *	One request; 1 for a hit.
 */
static int
Request(uint64_t key, uint64_t size)
{
    uint64_t s = Find(key);
    uint32_t o;

    if (slots[s] != 0) {
	o = slots[s] - 1;
	Unlink(o);
	PushHead(o);
	return 1;
    }
    if (size > capacity) {
	return 0;
    }
    while (held + size > capacity) {
	uint32_t victim = tail;

	Unlink(victim);
	held -= objs[victim].size;
	Remove(Find(objs[victim].key));
	objs[victim].next = freeObj;
	freeObj = victim;
    }
    if (freeObj != NIL) {
	o = freeObj;
	freeObj = objs[o].next;
    } else {
	if (nobjs == objCap) {
	    objCap = objCap ? 2 * objCap : 1024;
	    objs = Xrealloc(objs, objCap * sizeof(Obj));
	}
	o = nobjs++;
    }
    objs[o].key = key;
    objs[o].size = size;
    PushHead(o);
    held += size;
    s = Find(key);
    slots[s] = o + 1;
    if ((uint64_t)nobjs * 2 > slotMask + 1) {
	Grow();
    }
    return 0;
}

int
main(int argc, char **argv)
{
    static unsigned char buf[BLOCK_RECS * REC_LEN];
    uint64_t requests = 0, hits = 0, hitBytes = 0;
    size_t got, i;
    FILE *fp;

    if (argc != 3) {
	fprintf(stderr, "usage: objlru trace.oracleGeneral capacity-bytes\n");
	return 2;
    }
    capacity = strtoull(argv[2], NULL, 10);
    if ((fp = fopen(argv[1], "rb")) == NULL) {
	perror(argv[1]);
	return 1;
    }
    slotMask = 1023;
    slots = calloc(slotMask + 1, sizeof(uint32_t));
    while ((got = fread(buf, 1, sizeof(buf), fp)) > 0) {
	if (got % REC_LEN != 0) {
	    fprintf(stderr, "objlru: %s: the data end inside record %llu\n",
		    argv[1], (unsigned long long)(requests + got / REC_LEN
		    + 1));
	    return 1;
	}
	for (i = 0; i < got; i += REC_LEN) {
	    const unsigned char *r = buf + i;
	    uint64_t size = Le32(r + 12);

	    requests++;
	    size = size ? size : 1;
	    if (Request(Le64(r + 4), size)) {
		hits++;
		hitBytes += size;
	    }
	}
    }
    fclose(fp);
    printf("requests %llu hits %llu hitbytes %llu\n",
	    (unsigned long long)requests, (unsigned long long)hits,
	    (unsigned long long)hitBytes);
    return 0;
}
