/*
 * refiner.c --
 *
 *	Observation-based refinement (Thereska 2007, ch. 6): the answers of
 *	an expectation model are corrected by what the system was seen to
 *	do.  The model's answers are given as seeds (a point in feature
 *	space and the model's value there); the seeded answer at a point is
 *	that of the nearest seed, features scaled by the seeds' range.  An
 *	incremental regression tree over the feature space holds the
 *	corrections: every observation goes to its leaf as a residual
 *	(observed minus seeded answer), and each leaf keeps a histogram of
 *	its residuals in RB_REFINE_BUCKETS buckets.  The fullest bucket is
 *	what the observations agree on: the leaf's correction is its mean
 *	residual and its count is the confidence.  A leaf whose observations
 *	disagree (fewer than 90% in the fullest bucket) is split where that
 *	best separates its residuals, so a region where the model is biased
 *	ends up in leaves of its own, and the answers elsewhere stay seeded.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

#define AGREEING 0.9		/* below this share in the mode: split */
#define MAX_DEPTH 40

typedef struct Node {
    struct Node *left, *right;	/* Both NULL in a leaf. */
    int feature;		/* Internal: x[feature] < threshold: left */
    double threshold;
    int nobs, cap;		/* Leaf: its observations */
    double *x;			/* [nobs * nf] */
    double *res;		/* [nobs] observed - seeded */
    int64_t count[RB_REFINE_BUCKETS];
    double sum[RB_REFINE_BUCKETS];
    int mode;			/* Fullest bucket, or -1 if no observation */
} Node;

struct Rb_Refiner {
    int nf;
    double tolerance;		/* Bucket width at least tolerance x scale */
    int minSplit;
    int nseeds, seedCap;
    double *seedX, *seedY;
    double *lo, *hi;		/* [nf] range of the seeds' features */
    double absSum;		/* Sum of |seed value| for the scale. */
    Node *root;
    int64_t observations;
};

/*
 * Rb_RefinerCreate --
 *	An empty refiner over nf features.
 */
Rb_Refiner *
Rb_RefinerCreate(int nf, double tolerance, int minSplit)
{
    Rb_Refiner *r = Rb_Alloc(sizeof(*r));

    r->nf = nf;
    r->tolerance = tolerance;
    r->minSplit = minSplit < 2 ? 2 : minSplit;
    r->lo = Rb_AllocArray(nf, sizeof(double));
    r->hi = Rb_AllocArray(nf, sizeof(double));
    r->root = Rb_Alloc(sizeof(Node));
    r->root->mode = -1;
    return r;
}

/*
 * Rb_RefinerFeatures --
 *	The number of features of a point.
 */
int
Rb_RefinerFeatures(const Rb_Refiner *r)
{
    return r->nf;
}

/*
 * Rb_RefinerSeed --
 *	Adds the model's answer y at point x.
 */
void
Rb_RefinerSeed(Rb_Refiner *r, const double *x, double y)
{
    int f;

    if (r->nseeds == r->seedCap) {
	r->seedCap = r->seedCap ? 2 * r->seedCap : 64;
	r->seedX = Rb_ReallocArray(r->seedX, (size_t)r->seedCap * r->nf,
		sizeof(double));
	r->seedY = Rb_ReallocArray(r->seedY, r->seedCap, sizeof(double));
    }
    for (f = 0; f < r->nf; f++) {
	if (r->nseeds == 0 || x[f] < r->lo[f]) {
	    r->lo[f] = x[f];
	}
	if (r->nseeds == 0 || x[f] > r->hi[f]) {
	    r->hi[f] = x[f];
	}
    }
    memcpy(r->seedX + r->nseeds * r->nf, x, r->nf * sizeof(double));
    r->seedY[r->nseeds++] = y;
    r->absSum += fabs(y);
}

/*
 * Rb_RefinerSeeded --
 *	The model's answer at x: the value of the nearest seed (0 if none).
 */
double
Rb_RefinerSeeded(const Rb_Refiner *r, const double *x)
{
    double best = INFINITY, y = 0;
    int s, f;

    for (s = 0; s < r->nseeds; s++) {
	const double *sx = r->seedX + s * r->nf;
	double d = 0;

	for (f = 0; f < r->nf; f++) {
	    double range = r->hi[f] - r->lo[f];
	    double t = (x[f] - sx[f]) / (range > 0 ? range : 1);

	    d += t * t;
	}
	if (d < best) {
	    best = d;
	    y = r->seedY[s];
	}
    }
    return y;
}

/*
 * LeafOf --
 *	The leaf x falls in.
 */
static Node *
LeafOf(const Rb_Refiner *r, const double *x)
{
    Node *n = r->root;

    while (n->left) {
	n = x[n->feature] < n->threshold ? n->left : n->right;
    }
    return n;
}

/*
 * BuildHistogram --
 *	Rebins a leaf's residuals into its buckets, each at least tolerance
 *	x scale wide (the mean |seed value|), so that residuals that close
 *	count as agreeing, and picks the fullest bucket; of equally full
 *	ones the one nearest no correction, as the model is the prior.
 */
static void
BuildHistogram(const Rb_Refiner *r, Node *n)
{
    double lo = INFINITY, hi = -INFINITY, width, scale;
    int i, b;

    memset(n->count, 0, sizeof(n->count));
    memset(n->sum, 0, sizeof(n->sum));
    n->mode = -1;
    if (n->nobs == 0) {
	return;
    }
    for (i = 0; i < n->nobs; i++) {
	lo = fmin(lo, n->res[i]);
	hi = fmax(hi, n->res[i]);
    }
    scale = r->nseeds ? r->absSum / r->nseeds : 1;
    width = fmax((hi - lo) / RB_REFINE_BUCKETS,
	    r->tolerance * (scale > 0 ? scale : 1));
    for (i = 0; i < n->nobs; i++) {
	b = (int) ((n->res[i] - lo) / width);
	b = b < RB_REFINE_BUCKETS ? b : RB_REFINE_BUCKETS - 1;
	n->count[b]++;
	n->sum[b] += n->res[i];
    }
    for (b = 0; b < RB_REFINE_BUCKETS; b++) {
	if (n->count[b] == 0) {
	    continue;
	}
	if (n->mode < 0 || n->count[b] > n->count[n->mode]
		|| (n->count[b] == n->count[n->mode]
		&& fabs(n->sum[b] / n->count[b])
		< fabs(n->sum[n->mode] / n->count[n->mode]))) {
	    n->mode = b;
	}
    }
}

/*
 * LeafAdd --
 *	Appends an observation (point x, residual res) to leaf n.
 */
static void
LeafAdd(const Rb_Refiner *r, Node *n, const double *x, double res)
{
    if (n->nobs == n->cap) {
	n->cap = n->cap ? 2 * n->cap : 16;
	n->x = Rb_ReallocArray(n->x, (size_t)n->cap * r->nf, sizeof(double));
	n->res = Rb_ReallocArray(n->res, n->cap, sizeof(double));
    }
    memcpy(n->x + n->nobs * r->nf, x, r->nf * sizeof(double));
    n->res[n->nobs++] = res;
}

typedef struct Ranked {
    double key, res;
} Ranked;

/*
 * CompareRanked --
 *	qsort order by key.
 */
static int
CompareRanked(const void *p, const void *q)
{
    double a = ((const Ranked *) p)->key, b = ((const Ranked *) q)->key;

    return (a > b) - (a < b);
}

/*
 * BestSplit --
 *	The feature and threshold (a midpoint between observed values)
 *	that minimize the summed squared deviation of the residuals on the
 *	two sides.
 * Results: that sum, or INFINITY when no split is possible.
 */
static double
BestSplit(const Rb_Refiner *r, const Node *n, int *feature,
	double *threshold)
{
    Ranked *v = Rb_AllocArray(n->nobs, sizeof(Ranked));
    double best = INFINITY, total = 0, total2 = 0;
    int f, i;

    for (i = 0; i < n->nobs; i++) {
	total += n->res[i];
	total2 += n->res[i] * n->res[i];
    }
    for (f = 0; f < r->nf; f++) {
	double s = 0, s2 = 0;

	for (i = 0; i < n->nobs; i++) {
	    v[i].key = n->x[i * r->nf + f];
	    v[i].res = n->res[i];
	}
	qsort(v, n->nobs, sizeof(Ranked), CompareRanked);
	for (i = 0; i < n->nobs - 1; i++) {
	    int nl = i + 1, nr = n->nobs - nl;
	    double sse;

	    s += v[i].res;
	    s2 += v[i].res * v[i].res;
	    if (v[i].key == v[i + 1].key) {
		continue;
	    }
	    sse = (s2 - s * s / nl) + ((total2 - s2) - (total - s)
		    * (total - s) / nr);
	    if (sse < best) {
		best = sse;
		*feature = f;
		*threshold = (v[i].key + v[i + 1].key) / 2;
	    }
	}
    }
    free(v);
    return best;
}

/*
 * MaybeSplit --
 *	Splits leaf n if its observations disagree and a split at least
 *	halves their squared deviation; then the same for the children.
 */
static void
MaybeSplit(const Rb_Refiner *r, Node *n, int depth)
{
    double total = 0, total2 = 0, sse, threshold = 0;
    int i, feature = 0;

    if (n->nobs < r->minSplit || depth >= MAX_DEPTH || n->mode < 0
	    || n->count[n->mode] >= AGREEING * n->nobs) {
	return;
    }
    for (i = 0; i < n->nobs; i++) {
	total += n->res[i];
	total2 += n->res[i] * n->res[i];
    }
    sse = BestSplit(r, n, &feature, &threshold);
    if (!(sse <= 0.5 * (total2 - total * total / n->nobs))) {
	return;
    }
    n->feature = feature;
    n->threshold = threshold;
    n->left = Rb_Alloc(sizeof(Node));
    n->right = Rb_Alloc(sizeof(Node));
    for (i = 0; i < n->nobs; i++) {
	const double *x = n->x + i * r->nf;

	LeafAdd(r, x[feature] < threshold ? n->left : n->right, x, n->res[i]);
    }
    free(n->x);
    free(n->res);
    n->x = n->res = NULL;
    n->nobs = n->cap = 0;
    BuildHistogram(r, n->left);
    BuildHistogram(r, n->right);
    MaybeSplit(r, n->left, depth + 1);
    MaybeSplit(r, n->right, depth + 1);
}

/*
 * Rb_RefinerObserve --
 *	Adds what was observed (y) at point x: its residual goes to its
 *	leaf, which may then split.
 */
void
Rb_RefinerObserve(Rb_Refiner *r, const double *x, double y)
{
    Node *n = LeafOf(r, x);
    int depth = 0;
    const Node *p;

    LeafAdd(r, n, x, y - Rb_RefinerSeeded(r, x));
    BuildHistogram(r, n);
    for (p = r->root; p->left; depth++) {
	p = x[p->feature] < p->threshold ? p->left : p->right;
    }
    MaybeSplit(r, n, depth);
    r->observations++;
}

/*
 * Rb_RefinerPredict --
 *	The refined answer at x: the seeded answer plus the correction its
 *	leaf's observations agree on.  Sets *seeded to the seeded answer,
 *	*confidence to the agreeing observations (0: none, the answer is
 *	the model's) and *observed to the leaf's observations.
 */
double
Rb_RefinerPredict(const Rb_Refiner *r, const double *x, double *seeded,
	int64_t *confidence, int64_t *observed)
{
    const Node *n = LeafOf(r, x);
    double s = Rb_RefinerSeeded(r, x);

    *seeded = s;
    *observed = n->nobs;
    if (n->mode < 0) {
	*confidence = 0;
	return s;
    }
    *confidence = n->count[n->mode];
    return s + n->sum[n->mode] / n->count[n->mode];
}

/*
 * CountLeaves --
 *	Leaves under n.
 */
static int
CountLeaves(const Node *n)
{
    return n->left ? CountLeaves(n->left) + CountLeaves(n->right) : 1;
}

/*
 * Rb_RefinerStats --
 *	Seeds, observations and leaves so far.
 */
void
Rb_RefinerStats(const Rb_Refiner *r, int64_t *seeds, int64_t *observations,
	int *leaves)
{
    *seeds = r->nseeds;
    *observations = r->observations;
    *leaves = CountLeaves(r->root);
}

/*
 * FreeNode --
 *	Frees n and what is under it.
 */
static void
FreeNode(Node *n)
{
    if (n->left) {
	FreeNode(n->left);
	FreeNode(n->right);
    }
    free(n->x);
    free(n->res);
    free(n);
}

/*
 * Rb_RefinerFree --
 *	Frees the tree and the seeds.
 */
void
Rb_RefinerFree(Rb_Refiner *r)
{
    FreeNode(r->root);
    free(r->seedX);
    free(r->seedY);
    free(r->lo);
    free(r->hi);
    free(r);
}
