/*
 * stackdist.c --
 *
 *	The hand-written C baseline of the benchmark's exact LRU row: what a
 *	competent engineer would write to get the LRU hit-ratio curve of an
 *	SRT v7 trace without Rubicon.  The LRU stack distance of an access
 *	is 1 plus the number of distinct other blocks accessed since the
 *	previous access to its block (Mattson et al., 1970); an access hits
 *	a cache of C blocks exactly when its distance is at most C.  Each
 *	block's latest access holds a 1 at its position in a Fenwick tree
 *	over access positions, so a distance is a difference of two prefix
 *	sums; when positions run out the live ones are renumbered 1..live in
 *	a tree of twice that size (plus 1024), so memory follows the
 *	distinct blocks, not the accesses.  Blocks are 4 KiB; an I/O
 *	accesses every block from offset/4096 to (offset+size-1)/4096 of its
 *	device (a zero-size I/O its first), in increasing order, each
 *	weighing the I/O's bytes that fall in it.
 *
 *	stackdist trace.srt
 *
 *	Output: a line "accesses A cold C distinct D", then one line per
 *	cache size 1, 2, 4 ... below D and D itself:
 *	    SIZE HITS HITRATIO BYTEHITRATIO
 *	(ratios with nine decimals), the rows of ReuseDistanceAnalyzer's
 *	HitRatioCurve.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC_LEN		88
#define BLOCK_RECS	8192
#define BLOCK		4096
#define MAX_IO_BLOCKS	65536

typedef struct Entry {
    uint64_t block;		/* block number + 1; 0 marks a free slot */
    uint32_t dev;
    uint32_t pos;		/* position of the latest access */
} Entry;

static Entry *table;		/* open addressing, linear probing */
static uint64_t tableCap, tableCount;
static int32_t *tree;		/* Fenwick tree, 1-based, treeCap entries */
static uint32_t *owner;		/* slot of the block at each position */
static uint64_t treeCap, next = 1;
static uint64_t *hits, *hitBytes, maxDistance;	/* by distance */
static uint64_t accesses, cold, totalBytes;

/*
 * Xmalloc --
 *	calloc that exits on failure.
 */
static void *
Xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);

    if (p == NULL) {
	perror("stackdist");
	exit(1);
    }
    return p;
}

/*
 * Be32 --
 *	The big-endian word at p.
 */
static inline uint32_t
Be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16)
	    | ((uint32_t)p[2] << 8) | p[3];
}

/*
 * Slot --
 *	The slot of (dev, block) in the table: its own, or the free one
 *	where it belongs.
 */
static inline uint64_t
Slot(uint32_t dev, uint64_t block)
{
    uint64_t h = (block * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)dev
	    * 0xC2B2AE3D27D4EB4FULL);

    h ^= h >> 29;
    for (h &= tableCap - 1; table[h].block != 0; h = (h + 1) & (tableCap - 1)) {
	if (table[h].block == block + 1 && table[h].dev == dev) {
	    break;
	}
    }
    return h;
}

/*
 * Grow --
 *	Doubles the table and re-slots every block; the owners follow.
 */
static void
Grow(void)
{
    Entry *old = table;
    uint64_t oldCap = tableCap, i, s;

    tableCap = oldCap ? 2 * oldCap : 1 << 16;
    table = Xcalloc(tableCap, sizeof(Entry));
    for (i = 0; i < oldCap; i++) {
	if (old[i].block != 0) {
	    s = Slot(old[i].dev, old[i].block - 1);
	    table[s] = old[i];
	    owner[table[s].pos - 1] = (uint32_t)s;
	}
    }
    free(old);
}

/*
 * TreeAdd, TreePrefix --
 *	Adds delta at pos; the sum over 1..pos.
 */
static inline void
TreeAdd(uint64_t pos, int delta)
{
    for (; pos <= treeCap; pos += pos & -pos) {
	tree[pos - 1] += delta;
    }
}

static inline int64_t
TreePrefix(uint64_t pos)
{
    int64_t sum = 0;

    for (; pos > 0; pos -= pos & -pos) {
	sum += tree[pos - 1];
    }
    return sum;
}

/*
 * Compact --
 *	Renumbers the live positions 1..live in a tree of 2 live + 1024
 *	entries, rebuilt in linear time.
 */
static void
Compact(void)
{
    uint64_t live = 0, pos, parent;

    for (pos = 1; pos < next; pos++) {
	uint32_t s = owner[pos - 1];

	if (s != UINT32_MAX && table[s].pos == pos) {
	    owner[live++] = s;
	    table[s].pos = (uint32_t)live;
	}
    }
    treeCap = 2 * live + 1024;
    free(tree);
    tree = Xcalloc(treeCap, sizeof(int32_t));
    owner = realloc(owner, treeCap * sizeof(uint32_t));
    if (owner == NULL) {
	perror("stackdist");
	exit(1);
    }
    for (pos = 1; pos <= treeCap; pos++) {
	tree[pos - 1] += pos <= live;
	parent = pos + (pos & -pos);
	if (parent <= treeCap) {
	    tree[parent - 1] += tree[pos - 1];
	}
    }
    next = live + 1;
}

/*
 * Access --
 *	One access to block of dev weighing bytes: counts its distance and
 *	moves it to the top of the stack.
 */
static void
Access(uint32_t dev, uint64_t block, uint64_t bytes)
{
    uint64_t s, d;

    if (next > treeCap) {
	Compact();
    }
    if (2 * (tableCount + 1) > tableCap) {
	Grow();
    }
    s = Slot(dev, block);
    accesses++;
    totalBytes += bytes;
    if (table[s].block == 0) {
	table[s].block = block + 1;
	table[s].dev = dev;
	tableCount++;
	cold++;
    } else {
	d = (uint64_t)(TreePrefix(next - 1) - TreePrefix(table[s].pos)) + 1;
	TreeAdd(table[s].pos, -1);
	owner[table[s].pos - 1] = UINT32_MAX;
	if (d > maxDistance) {
	    uint64_t n = 2 * d + 1024;

	    hits = realloc(hits, n * sizeof(uint64_t));
	    hitBytes = realloc(hitBytes, n * sizeof(uint64_t));
	    if (hits == NULL || hitBytes == NULL) {
		perror("stackdist");
		exit(1);
	    }
	    memset(hits + maxDistance + 1, 0,
		    (n - 1 - maxDistance) * sizeof(uint64_t));
	    memset(hitBytes + maxDistance + 1, 0,
		    (n - 1 - maxDistance) * sizeof(uint64_t));
	    maxDistance = n - 1;
	}
	hits[d]++;
	hitBytes[d] += bytes;
    }
    TreeAdd(next, 1);
    owner[next - 1] = (uint32_t)s;
    table[s].pos = (uint32_t)next++;
}

/*
 * Record --
 *	Every block access of the I/O at offset of size bytes on dev.
 */
static void
Record(uint32_t dev, uint64_t offset, uint64_t size)
{
    uint64_t lo = offset / BLOCK, last = offset + (size ? size - 1 : 0);
    uint64_t hi = last / BLOCK, b, n = hi - lo + 1;

    if (n > MAX_IO_BLOCKS) {
	n = MAX_IO_BLOCKS;
    }
    for (b = lo; b < lo + n; b++) {
	uint64_t start = b * BLOCK > offset ? b * BLOCK : offset;
	uint64_t end = (b + 1) * BLOCK < offset + size
		? (b + 1) * BLOCK : offset + size;

	Access(dev, b, end > start ? end - start : 0);
    }
}

/*
 * main --
 *	Reads the trace and prints the curve.
 */
int
main(int argc, char **argv)
{
    static unsigned char buf[BLOCK_RECS * REC_LEN];
    uint64_t records = 0, size, d, h = 0, hb = 0, distinct;
    size_t got, i;
    FILE *fp;
    int c;

    if (argc != 2) {
	fprintf(stderr, "usage: stackdist trace.srt\n");
	return 2;
    }
    if ((fp = fopen(argv[1], "rb")) == NULL) {
	perror(argv[1]);
	return 1;
    }
    while ((c = getc(fp)) != EOF && c != '\f') {
    }
    Grow();
    while ((got = fread(buf, REC_LEN, BLOCK_RECS, fp)) > 0) {
	for (i = 0; i < got; i++) {
	    const unsigned char *r = buf + i * REC_LEN;

	    if (Be32(r) != REC_LEN || Be32(r + 4) != 0x00070001) {
		fprintf(stderr, "stackdist: %s: record %llu is not a v7 I/O "
			"record\n", argv[1], (unsigned long long)records + 1);
		return 1;
	    }
	    records++;
	    Record(Be32(r + 32), ((uint64_t)Be32(r + 64) << 32)
		    | Be32(r + 68), Be32(r + 24));
	}
    }
    fclose(fp);

    distinct = tableCount;
    printf("accesses %llu cold %llu distinct %llu\n",
	    (unsigned long long)accesses, (unsigned long long)cold,
	    (unsigned long long)distinct);
    for (size = 1, d = 1; ; size = size * 2 < distinct ? size * 2 : distinct) {
	for (; d <= size && d <= maxDistance; d++) {
	    h += hits[d];
	    hb += hitBytes[d];
	}
	printf("%llu %llu %.9f %.9f\n", (unsigned long long)size,
		(unsigned long long)h, accesses ? (double)h / accesses : 0.0,
		totalBytes ? (double)hb / totalBytes : 0.0);
	if (size >= distinct) {
	    break;
	}
    }
    return 0;
}
