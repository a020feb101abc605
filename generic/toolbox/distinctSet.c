/*
 * distinctSet.c --
 *
 *	Distinct counts: exact in a key table while it holds at most `limit`
 *	values, then a HyperLogLog sketch (Flajolet et al. 2007) of
 *	2^RB_HLL_BITS one-byte registers, whose standard error is
 *	1.04 / sqrt(2^RB_HLL_BITS), about 0.8%, with the small-range
 *	(linear counting) correction.  Memory is at most the table of
 *	`limit` keys, then 16 KiB.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "toolbox/toolbox.h"

#define NREGISTERS ((size_t)1 << RB_HLL_BITS)

/*
 * RbDistinctReset --
 *	Empties d for a new run, exact up to limit values (limit <= 0: always
 *	estimate).
 */
void
RbDistinctReset(Rb_DistinctSet *d, int64_t limit)
{
    if (d->exact.valSize == 0) {
	Rb_KeyTableInit(&d->exact, 1);
    }
    Rb_KeyTableClear(&d->exact);
    free(d->registers);
    d->registers = NULL;
    d->limit = limit;
    free(d->devices);
    d->devices = NULL;
    d->ndevices = 0;
}

/*
 * RbDistinctOfBlocks --
 *	Makes d count block keys of m (RbBlockKey): exact as ever, but its
 *	sketch counts each block by its device's number and block number,
 *	not by the dense id m gave the device, so that the sketches of two
 *	shards merge whatever order they saw their devices in.
 */
void
RbDistinctOfBlocks(Rb_DistinctSet *d, const Rb_BlockMap *m)
{
    d->blocks = m;
}

/*
 * SketchKey --
 *	What the sketch hashes for value v: v itself, or for a block key
 *	its device number and block number mixed.
 */
static int64_t
SketchKey(Rb_DistinctSet *d, int64_t v)
{
    int64_t dev, blockNo;

    if (d->blocks == NULL) {
	return v;
    }
    if (d->ndevices != d->blocks->devices.count) {
	free(d->devices);
	d->devices = RbBlockMapDevices(d->blocks);
	d->ndevices = d->blocks->devices.count;
    }
    RbBlockOfKey(d->devices, v, &dev, &blockNo);
    return (int64_t)(Rb_HashKey(dev) ^ (uint64_t)blockNo);
}

/*
 * Sketch --
 *	Counts v in the HyperLogLog registers.
 */
static void
Sketch(unsigned char *registers, int64_t v)
{
    uint64_t h = Rb_HashKey(v);
    uint64_t j = h >> (64 - RB_HLL_BITS);
    uint64_t rest = h << RB_HLL_BITS;
    unsigned char rank = rest == 0 ? (unsigned char)(64 - RB_HLL_BITS + 1)
	    : (unsigned char)(__builtin_clzll(rest) + 1);

    if (rank > registers[j]) {
	registers[j] = rank;
    }
}

/*
 * SwitchToSketch --
 *	Moves the exact values into a new sketch and frees the table.
 */
static void
SwitchToSketch(Rb_DistinctSet *d)
{
    uint64_t i;

    d->registers = Rb_Realloc(NULL, NREGISTERS);
    memset(d->registers, 0, NREGISTERS);
    for (i = 0; i < d->exact.cap; i++) {
	if (d->exact.used[i]) {
	    Sketch(d->registers, SketchKey(d, d->exact.keys[i]));
	}
    }
    Rb_KeyTableFree(&d->exact);
}

/*
 * RbDistinctAdd --
 *	Counts v.
 */
void
RbDistinctAdd(Rb_DistinctSet *d, int64_t v)
{
    if (d->registers != NULL) {
	Sketch(d->registers, SketchKey(d, v));
	return;
    }
    Rb_KeyTableFind(&d->exact, v, 1);
    if ((int64_t)d->exact.count > d->limit) {
	SwitchToSketch(d);
    }
}

/*
 * RbDistinctCount --
 *	The exact count, or the HyperLogLog estimate once past the limit.
 */
double
RbDistinctCount(const Rb_DistinctSet *d)
{
    double m = (double)NREGISTERS, sum = 0.0, est;
    size_t j, zeros = 0;

    if (d->registers == NULL) {
	return (double)d->exact.count;
    }
    for (j = 0; j < NREGISTERS; j++) {
	sum += ldexp(1.0, -d->registers[j]);
	zeros += d->registers[j] == 0;
    }
    est = 0.7213 / (1.0 + 1.079 / m) * m * m / sum;
    if (est <= 2.5 * m && zeros > 0) {
	est = m * log(m / (double)zeros);
    }
    return est;
}

/*
 * RbDistinctIsExact --
 *	Whether the count is exact (still under the limit).
 */
int
RbDistinctIsExact(const Rb_DistinctSet *d)
{
    return d->registers == NULL;
}

/*
 * RbDistinctMerge --
 *	Adds the values of other into d: exact while the union fits under
 *	d's limit, else register-wise maxima of the two sketches.
 */
void
RbDistinctMerge(Rb_DistinctSet *d, const Rb_DistinctSet *other)
{
    uint64_t i;

    if (other->registers == NULL) {
	for (i = 0; i < other->exact.cap; i++) {
	    if (other->exact.used[i]) {
		RbDistinctAdd(d, other->exact.keys[i]);
	    }
	}
	return;
    }
    if (d->registers == NULL) {
	SwitchToSketch(d);
    }
    for (i = 0; i < NREGISTERS; i++) {
	if (other->registers[i] > d->registers[i]) {
	    d->registers[i] = other->registers[i];
	}
    }
}

/*
 * RbDistinctFree --
 *	Frees the table or the sketch.
 */
void
RbDistinctFree(Rb_DistinctSet *d)
{
    Rb_KeyTableFree(&d->exact);
    free(d->registers);
    free(d->devices);
    d->devices = NULL;
    d->ndevices = 0;
    d->registers = NULL;
}
