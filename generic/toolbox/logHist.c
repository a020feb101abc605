/*
 * logHist.c --
 *
 *	Percentiles of an unbounded stream in bounded memory.  Values are
 *	counted in logarithmic buckets by magnitude: bucket k holds
 *	(g^(k-1), g^k] with g = (1 + ALPHA) / (1 - ALPHA), and a percentile
 *	falling in bucket k is reported as 2 g^k / (g + 1), which is within
 *	a relative ALPHA of every value in the bucket.  The counts are exact,
 *	so the bucket holding the rank is exact and the reported value is
 *	within ALPHA (1%) of the exact order statistic.  Negative values are
 *	counted by magnitude in a second set of buckets and zeros apart.
 *	Memory grows with the range of magnitudes seen (about 115 buckets per
 *	factor of 10), never with the number of values.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "toolbox/toolbox.h"

/* The percentiles reported; 0 and 100 are the exact minimum and maximum. */
static const double reportedPercentiles[] = {
    0, 50, 90, 95, 99, 99.9, 100
};

/*
 * Gamma --
 *	The ratio g between consecutive bucket bounds.
 */
static double
Gamma(void)
{
    return (1.0 + RB_LOGHIST_ALPHA) / (1.0 - RB_LOGHIST_ALPHA);
}

/*
 * Rb_LogHistReset --
 *	Empties h for a new run, keeping its allocation (a zeroed struct is
 *	also an empty histogram).
 * Results: none.
 * Side effects: none.
 */
void
Rb_LogHistReset(Rb_LogHist *h)
{
    int s;

    Rb_MomentsReset(&h->moments);
    h->zeros = 0;
    for (s = 0; s < 2; s++) {
	h->bucket[s].lo = 0;
	h->bucket[s].n = 0;
    }
}

/*
 * BucketSlow --
 *	The bucket of a > 0 (finite): the ceiling of log(a) / log(g).  Here
 *	the quotient lies within +-2^63: a finite double's log is within
 *	+-745, over log(g) about 0.02.
 */
static int64_t
BucketSlow(double a)
{
    double q = log(a) / log(Gamma());
    int64_t k = (int64_t)q;

    return k + ((double)k < q);
}

/*
 * Most values need no arithmetic at all.  The positive normal doubles of
 * one exponent e fall in 1024 cells by their top 10 fraction bits, each
 * a relative 1/1024 wide or less against a bucket's 2%: a cell whose
 * smallest and largest doubles are in the same bucket has every double
 * between in it too (the bucket grows with the value), and most cells
 * are such.  A row of 1024 entries per exponent holds that bucket, or
 * CELL_SPLIT for the 35 or so cells a bucket bound cuts (a factor of 2
 * holds log 2 / log g = 34.7 bounds), worked out by BucketSlow when a
 * value of that exponent first comes and published atomically, so that
 * threads may race to make one and each reads a whole row.  Rows are of
 * 4 KiB, one per exponent at most (8 MiB if every one came), a few dozen
 * in use: the magnitudes a trace has.  They last as long as the process.
 */
#define CELL_SPLIT INT32_MIN
#define CELL_BITS 10

static int32_t *cellRows[2048];

/*
 * CellRow --
 *	Makes the row of exponent e (0 < e < 0x7ff).
 * Results: the row, or the one another thread published first.
 */
static int32_t *
CellRow(int e)
{
    int32_t *row = Rb_AllocArray(1 << CELL_BITS, sizeof(int32_t));
    int32_t *was = NULL;
    int i;

    for (i = 0; i < (1 << CELL_BITS); i++) {
	uint64_t lo = (uint64_t)e << 52 | (uint64_t)i << (52 - CELL_BITS);
	uint64_t hi = lo | (((uint64_t)1 << (52 - CELL_BITS)) - 1);
	double a, b;
	int64_t ka, kb;

	memcpy(&a, &lo, sizeof a);
	memcpy(&b, &hi, sizeof b);
	ka = BucketSlow(a);
	kb = BucketSlow(b);
	row[i] = ka == kb && ka > INT32_MIN && ka <= INT32_MAX
		? (int32_t)ka : CELL_SPLIT;
    }
    if (!__atomic_compare_exchange_n(&cellRows[e], &was, row, 0,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
	free(row);
	return was;
    }
    return row;
}

/*
 * BucketOf --
 *	BucketSlow(a) for a > 0 (finite), from its cell's entry when one
 *	bucket holds the cell.
 */
static inline __attribute__((always_inline)) int64_t
BucketOf(double a)
{
    uint64_t bits;
    int e;

    memcpy(&bits, &a, sizeof bits);
    e = (int)(bits >> 52);
    if (e != 0 && e != 0x7ff) {
	int32_t *row = __atomic_load_n(&cellRows[e], __ATOMIC_ACQUIRE), k;

	if (row == NULL) {
	    row = CellRow(e);
	}
	k = row[(bits >> (52 - CELL_BITS)) & ((1 << CELL_BITS) - 1)];
	if (k != CELL_SPLIT) {
	    return k;
	}
    }
    return BucketSlow(a);
}

/*
 * Side --
 *	The part of adding a finite v that needs no counter and no moment:
 *	a zero counted.
 * Results: the side of the buckets v is counted on (0 positive, 1
 *	negative) with *k its bucket, or NO_SIDE for a zero.
 */
#define NO_SIDE 2

static inline __attribute__((always_inline)) int
Side(Rb_LogHist *h, double v, int64_t *k)
{
    if (v == 0.0) {
	h->zeros++;
	return NO_SIDE;
    }
    *k = BucketOf(fabs(v));
    return v < 0;
}

/*
 * Rb_LogHistAdd --
 *	Counts v in its bucket and in the exact moments.  NaN and infinite
 *	values are ignored.
 * Results: none.
 * Side effects: may grow the buckets.
 */
void
Rb_LogHistAdd(Rb_LogHist *h, double v)
{
    uint64_t *slot;
    int64_t k;
    int side;

    if (!isfinite(v)) {
	return;
    }
    Rb_MomentsAdd(&h->moments, v);
    if ((side = Side(h, v, &k)) != NO_SIDE
	    && (slot = Rb_TimeBinsSlot(&h->bucket[side], k)) != NULL) {
	(*slot)++;
    }
}

/*
 * RbLogHistAddMany --
 *	Rb_LogHistAdd of v[0], ..., v[n-1] in turn, with the same counts
 *	(and the same moments up to rounding), a chunk at a time: each
 *	value's bucket, and the chunk's finite values into the moments as a
 *	group (RbMomentsAddMany); then the buckets counted, in order, so
 *	that one too far from the rest is dropped as it would be one at a
 *	time.
 */

void
RbLogHistAddMany(Rb_LogHist *h, const double *v, int n)
{
    int64_t k[RB_LOGHIST_CHUNK];
    double finite[RB_LOGHIST_CHUNK];
    unsigned char side[RB_LOGHIST_CHUNK];	/* 0, 1: bucket[side]; or NO_SIDE */
    int i, m, from, nf;

    for (from = 0; from < n; from += m) {
	m = n - from < RB_LOGHIST_CHUNK ? n - from : RB_LOGHIST_CHUNK;
	for (i = nf = 0; i < m; i++) {
	    double x = v[from + i];

	    if (!isfinite(x)) {
		side[i] = NO_SIDE;
		continue;
	    }
	    finite[nf++] = x;
	    side[i] = (unsigned char)Side(h, x, &k[i]);
	}
	RbMomentsAddMany(&h->moments, finite, nf);
	for (i = 0; i < m; i++) {
	    uint64_t *slot;

	    if (side[i] != NO_SIDE && (slot = Rb_TimeBinsSlot(
		    &h->bucket[side[i]], k[i])) != NULL) {
		(*slot)++;
	    }
	}
    }
}

/*
 * Rb_LogHistMerge --
 *	Adds the counts of other into h (the buckets are fixed, so the merge
 *	is exact).
 * Results: TCL_OK (the bucket grids always line up).
 * Side effects: may grow h's buckets.
 */
int
Rb_LogHistMerge(Rb_Analyzer *a, Rb_LogHist *h, const Rb_LogHist *other)
{
    int s;

    Rb_MomentsMerge(&h->moments, &other->moments);
    h->zeros += other->zeros;
    for (s = 0; s < 2; s++) {
	Rb_TimeBinsAddBins(&h->bucket[s], &other->bucket[s]);
    }
    return TCL_OK;
}

/*
 * BucketValue --
 *	The representative value of bucket k: within ALPHA of its range.
 */
static double
BucketValue(int64_t k)
{
    return 2.0 * pow(Gamma(), (double)k) / (Gamma() + 1.0);
}

/*
 * Rb_LogHistPercentile --
 *	The p-th percentile (nearest rank: the value of rank ceil(p/100 n),
 *	at least 1), within RB_LOGHIST_ALPHA of the exact order statistic and
 *	clamped to the exact [min, max]; 0 and 100 give the exact minimum
 *	and maximum.
 * Results: the value, NaN when nothing was counted.
 * Side effects: none.
 */
double
Rb_LogHistPercentile(const Rb_LogHist *h, double p)
{
    const Rb_TimeBins *neg = &h->bucket[1], *pos = &h->bucket[0];
    double exactRank = p / 100.0 * (double)h->moments.n, est = 0.0;
    /* Shave rounding noise so that 99.9% of 5000 is rank 4995, not 4996. */
    uint64_t rank = (uint64_t)ceil(exactRank - exactRank * 1e-12), seen = 0;
    int64_t j;

    if (h->moments.n == 0) {
	return NAN;
    }
    if (p <= 0.0) {
	return h->moments.min;
    }
    if (p >= 100.0) {
	return h->moments.max;
    }
    if (rank < 1) {
	rank = 1;
    }
    /* Negative values in increasing order: largest magnitude first. */
    for (j = neg->n - 1; j >= 0; j--) {
	seen += neg->sums[j];
	if (seen >= rank) {
	    est = -BucketValue(neg->lo + j);
	    goto clamp;
	}
    }
    seen += h->zeros;
    if (seen >= rank) {
	goto clamp;
    }
    for (j = 0; j < pos->n; j++) {
	seen += pos->sums[j];
	if (seen >= rank) {
	    est = BucketValue(pos->lo + j);
	    break;
	}
    }
  clamp:
    if (est < h->moments.min) {
	est = h->moments.min;
    }
    if (est > h->moments.max) {
	est = h->moments.max;
    }
    return est;
}

/*
 * Rb_LogHistAttr --
 *	A percentile table Attribute (columns p and value, the value
 *	multiplied by scale) at the 0, 50, 90, 95, 99, 99.9 and 100th
 *	percentiles; no rows when nothing was counted.
 * Results: a new Attribute (give it to Rb_AnalyzerSet).
 * Side effects: none.
 */
Rb_Attribute *
Rb_LogHistAttr(const Rb_LogHist *h, const char *name, const char *unit,
	double scale, const char *help)
{
    Rb_Attribute *attr = Rb_AttrCreate(name, RB_ATTR_PERCENTILES, unit,
	    help);
    int pCol = Rb_AttrAddColumn(attr, "p", "%", 0);
    int valueCol = Rb_AttrAddColumn(attr, "value", unit, 0);
    size_t i;

    for (i = 0; h->moments.n > 0 && i < sizeof(reportedPercentiles)
	    / sizeof(reportedPercentiles[0]); i++) {
	int row = Rb_AttrAddRow(attr);

	Rb_AttrSetNum(attr, row, pCol, reportedPercentiles[i]);
	Rb_AttrSetNum(attr, row, valueCol,
		Rb_LogHistPercentile(h, reportedPercentiles[i]) * scale);
    }
    return attr;
}

/*
 * Rb_LogHistFree --
 *	Frees the buckets.
 * Results: none.
 * Side effects: h is empty afterwards.
 */
void
Rb_LogHistFree(Rb_LogHist *h)
{
    Rb_TimeBinsFree(&h->bucket[0]);
    Rb_TimeBinsFree(&h->bucket[1]);
}
