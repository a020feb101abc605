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
 *
 *	As the thesis's Z-CART, the split is chosen by information gain (the
 *	entropy of the residuals' histogram buckets, equations 6.1, 6.2; the
 *	command's default) or by variance reduction (the summed squared
 *	deviation of the residuals on the two sides), and
 *	taken when it halves the squared deviation or gains half a bit per
 *	observation; a categorical feature
 *	splits a subset of its categories from the rest, the best one found
 *	as Breiman et al. (1984, after Fisher 1958) show for the squared
 *	deviation: order the categories by their mean residual, and try
 *	each prefix of that order (or, as an option, one category against
 *	the rest); depth and the observations a leaf must keep are bounded.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "observer.h"

#define AGREEING 0.9		/* below this share in the mode: split */
#define MAX_DEPTH 40
#define MIN_GAIN 0.5		/* default: the share of the squared
				 * deviation a variance split must remove,
				 * or the bits per observation an entropy
				 * split must gain */

typedef struct Node {
    struct Node *left, *right;	/* Both NULL in a leaf. */
    int feature;		/* Internal: x[feature] < threshold (for a
				 * category, in cats) goes left */
    double threshold;
    int category;		/* The feature is categorical. */
    double *cats;		/* Category split: the categories that go
				 * left, increasing. */
    int ncats;
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
    Rb_RefineCriterion criterion;
    int maxDepth, minLeaf;
    double minGain;		/* -mingain */
    unsigned char *categorical;	/* [nf] RB_REFINE_* of each feature */
    double costOver, costUnder;	/* -cost; both 0: none */
};

/*
 * RbRefinerCreate --
 *	An empty refiner over nf features.
 */
Rb_Refiner *
RbRefinerCreate(int nf, double tolerance, int minSplit)
{
    Rb_Refiner *r = Rb_Alloc(sizeof(*r));

    r->nf = nf;
    r->tolerance = tolerance;
    r->minSplit = minSplit < 2 ? 2 : minSplit;
    r->lo = Rb_AllocArray(nf, sizeof(double));
    r->hi = Rb_AllocArray(nf, sizeof(double));
    r->root = Rb_Alloc(sizeof(Node));
    r->root->mode = -1;
    r->maxDepth = MAX_DEPTH;
    r->minLeaf = 1;
    r->minGain = MIN_GAIN;
    r->categorical = Rb_Alloc(nf);
    return r;
}

/*
 * RbRefinerSetSplitting --
 *	Sets how leaves split: criterion, the deepest a leaf may be (at most
 *	MAX_DEPTH), the fewest observations each side of a split must keep,
 *	and the categorical features (NULL: none).
 */
void
RbRefinerSetSplitting(Rb_Refiner *r, Rb_RefineCriterion criterion,
	int maxDepth, int minLeaf, const unsigned char *categorical)
{
    r->criterion = criterion;
    r->maxDepth = maxDepth < 0 ? 0 : maxDepth > MAX_DEPTH ? MAX_DEPTH
	    : maxDepth;
    r->minLeaf = minLeaf < 1 ? 1 : minLeaf;
    memset(r->categorical, 0, r->nf);
    if (categorical) {
	memcpy(r->categorical, categorical, r->nf);
    }
}

/*
 * CompareDouble --
 *	qsort and bsearch order of doubles.
 */
static int
CompareDouble(const void *p, const void *q)
{
    double a = *(const double *) p, b = *(const double *) q;

    return (a > b) - (a < b);
}

/*
 * RbRefinerSetGain --
 *	Sets what a split must gain to be taken: the share of the leaf's
 *	squared deviation it removes (variance), or the bits of entropy per
 *	observation (entropy).  Default 0.5 for both.
 */
void
RbRefinerSetGain(Rb_Refiner *r, double gain)
{
    r->minGain = gain;
}

/*
 * RbRefinerSetCost --
 *	Sets the misprediction cost per unit above and below what was
 *	observed (both positive), or none (both 0).
 */
void
RbRefinerSetCost(Rb_Refiner *r, double over, double under)
{
    r->costOver = over;
    r->costUnder = under;
}

/*
 * LeastCost --
 *	Of the m residuals in y (reordered): the correction of least total
 *	cost, the k-th smallest with k = ceil(m under / (over + under)),
 *	at least 1 -- the cost falls while more than over / (over + under)
 *	of the weight lies above the correction -- and that cost in *cost.
 */
static double
LeastCost(const Rb_Refiner *r, double *y, int m, double *cost)
{
    double tau = r->costUnder / (r->costOver + r->costUnder), v, c = 0;
    int k, i;

    if (m == 0) {
	*cost = 0;
	return 0;
    }
    qsort(y, m, sizeof(double), CompareDouble);
    k = (int) ceil(tau * m - 1e-12);
    k = k < 1 ? 1 : k > m ? m : k;
    v = y[k - 1];
    for (i = 0; i < m; i++) {
	c += y[i] > v ? r->costUnder * (y[i] - v) : r->costOver * (v - y[i]);
    }
    *cost = c;
    return v;
}

/*
 * GoesLeft --
 *	Whether x takes the left branch of internal node n.
 */
static int
GoesLeft(const Node *n, const double *x)
{
    return n->category ? bsearch(&x[n->feature], n->cats, n->ncats,
	    sizeof(double), CompareDouble) != NULL
	    : x[n->feature] < n->threshold;
}

/*
 * RbRefinerFeatures --
 *	The number of features of a point.
 */
int
RbRefinerFeatures(const Rb_Refiner *r)
{
    return r->nf;
}

/*
 * RbRefinerSeed --
 *	Adds the model's answer y at point x.
 */
void
RbRefinerSeed(Rb_Refiner *r, const double *x, double y)
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
 * RbRefinerSeeded --
 *	The model's answer at x: the value of the nearest seed (0 if none).
 */
double
RbRefinerSeeded(const Rb_Refiner *r, const double *x)
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
	n = GoesLeft(n, x) ? n->left : n->right;
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
/*
 * Buckets --
 *	The leaf's residual buckets: from its least residual lo, each
 *	width wide.
 */
static void
Buckets(const Rb_Refiner *r, const Node *n, double *lo, double *width)
{
    double hi = -INFINITY, scale;
    int i;

    *lo = INFINITY;
    for (i = 0; i < n->nobs; i++) {
	*lo = fmin(*lo, n->res[i]);
	hi = fmax(hi, n->res[i]);
    }
    scale = r->nseeds ? r->absSum / r->nseeds : 1;
    *width = fmax((hi - *lo) / RB_REFINE_BUCKETS,
	    r->tolerance * (scale > 0 ? scale : 1));
}

/*
 * BucketOf --
 *	The bucket of a residual, the last taking any beyond it.
 */
static int
BucketOf(double res, double lo, double width)
{
    int b = (int) ((res - lo) / width);

    return b < RB_REFINE_BUCKETS ? b : RB_REFINE_BUCKETS - 1;
}

static void
BuildHistogram(const Rb_Refiner *r, Node *n)
{
    double lo, width;
    int i, b;

    memset(n->count, 0, sizeof(n->count));
    memset(n->sum, 0, sizeof(n->sum));
    n->mode = -1;
    if (n->nobs == 0) {
	return;
    }
    Buckets(r, n, &lo, &width);
    for (i = 0; i < n->nobs; i++) {
	b = BucketOf(n->res[i], lo, width);
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
    int bucket;
    int obs;			/* The observation's index in its leaf */
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
 * Side --
 *	What a split needs to know of one side: the residuals' count, sum,
 *	sum of squares and bucket counts.
 */
typedef struct Side {
    int n;
    double s, s2;
    int count[RB_REFINE_BUCKETS];
} Side;

/*
 * SideAdd --
 *	Adds (sign 1) or removes (-1) an observation of one side.
 */
static void
SideAdd(Side *d, const Ranked *v, int sign)
{
    d->n += sign;
    d->s += sign * v->res;
    d->s2 += sign * v->res * v->res;
    d->count[v->bucket] += sign;
}

/*
 * Impurity --
 *	Of one side: its squared deviation, or n times the entropy (bits)
 *	of its buckets.
 */
static double
Impurity(const Rb_Refiner *r, const Side *d)
{
    double h = 0;
    int b;

    if (d->n == 0) {
	return 0;
    }
    if (r->criterion == RB_REFINE_VARIANCE) {
	return fmax(0, d->s2 - d->s * d->s / d->n);
    }
    for (b = 0; b < RB_REFINE_BUCKETS; b++) {
	if (d->count[b] > 0) {
	    double p = (double) d->count[b] / d->n;

	    h -= p * log2(p);
	}
    }
    return d->n * h;
}

/*
 * SideMerge --
 *	Adds (sign 1) or removes (-1) the observations of side e to d.
 */
static void
SideMerge(Side *d, const Side *e, int sign)
{
    int b;

    d->n += sign * e->n;
    d->s += sign * e->s;
    d->s2 += sign * e->s2;
    for (b = 0; b < RB_REFINE_BUCKETS; b++) {
	d->count[b] += sign * e->count[b];
    }
}

/*
 * Split --
 *	The best split found so far: its impurity, feature, threshold
 *	(ordered) or the categories that go left (cats, room for every
 *	observation's).
 */
typedef struct Split {
    double imp;
    int feature, category;
    double threshold;
    double *cats;
    int ncats;
} Split;

/*
 * Consider --
 *	Takes the split of sides left and right as the best if it is better
 *	and each side keeps at least minLeaf observations.
 */
static void
Consider(const Rb_Refiner *r, Split *best, const Side *left,
	const Side *right, int f, double threshold, const double *cats,
	int ncats)
{
    double imp;

    if (left->n < r->minLeaf || right->n < r->minLeaf) {
	return;
    }
    imp = Impurity(r, left) + Impurity(r, right);
    if (imp < best->imp) {
	best->imp = imp;
	best->feature = f;
	best->category = r->categorical[f] != 0;
	best->threshold = threshold;
	best->ncats = ncats;
	if (ncats > 0) {
	    memcpy(best->cats, cats, ncats * sizeof(double));
	    qsort(best->cats, ncats, sizeof(double), CompareDouble);
	}
    }
}

/*
 * Group --
 *	The observations of one category.
 */
typedef struct Group {
    double key, mean;
    Side side;
} Group;

/*
 * CompareGroups --
 *	qsort order by mean residual, then by category.
 */
static int
CompareGroups(const void *p, const void *q)
{
    const Group *a = p, *b = q;

    if (a->mean != b->mean) {
	return (a->mean > b->mean) - (a->mean < b->mean);
    }
    return (a->key > b->key) - (a->key < b->key);
}

/*
 * CategorySplits --
 *	The splits of categorical feature f, v sorted by category: one
 *	category against the rest (RB_REFINE_ONE), or (RB_REFINE_SUBSET)
 *	each prefix of the categories ordered by mean residual against the
 *	rest, among which the subset split of least squared deviation is
 *	(Breiman, Friedman, Olshen and Stone 1984; Fisher
 *	1958).  g and keys have room for n categories.
 */
static void
CategorySplits(const Rb_Refiner *r, const Ranked *v, int n, const Side *all,
	int f, Group *g, double *keys, Split *best)
{
    Side left, right;
    int ng = 0, i, k;

    for (i = 0; i < n; i++) {
	if (i == 0 || v[i].key != v[i - 1].key) {
	    memset(&g[ng], 0, sizeof(Group));
	    g[ng++].key = v[i].key;
	}
	SideAdd(&g[ng - 1].side, &v[i], 1);
    }
    for (k = 0; k < ng; k++) {
	g[k].mean = g[k].side.s / g[k].side.n;
    }
    if (r->categorical[f] == RB_REFINE_SUBSET) {
	qsort(g, ng, sizeof(Group), CompareGroups);
    }
    memset(&left, 0, sizeof(left));
    for (k = 0; k < ng - 1 || (k < ng && r->categorical[f]
	    != RB_REFINE_SUBSET); k++) {
	if (r->categorical[f] != RB_REFINE_SUBSET) {
	    memset(&left, 0, sizeof(left));
	}
	SideMerge(&left, &g[k].side, 1);
	right = *all;
	SideMerge(&right, &left, -1);
	keys[r->categorical[f] == RB_REFINE_SUBSET ? k : 0] = g[k].key;
	Consider(r, best, &left, &right, f, 0,
		r->categorical[f] == RB_REFINE_SUBSET ? keys : &g[k].key,
		r->categorical[f] == RB_REFINE_SUBSET ? k + 1 : 1);
    }
}

/*
 * RangeCost --
 *	The least cost of the residuals of v[a..b) and, when b2 > a2, of
 *	v[a2..b2) with them; scratch has room for every observation.
 */
static double
RangeCost(const Rb_Refiner *r, const Ranked *v, int a, int b, int a2,
	int b2, double *scratch)
{
    double cost;
    int m = 0, i;

    for (i = a; i < b; i++) {
	scratch[m++] = v[i].res;
    }
    for (i = a2; i < b2; i++) {
	scratch[m++] = v[i].res;
    }
    LeastCost(r, scratch, m, &cost);
    return cost;
}

/*
 * CostSplits --
 *	The cost criterion's splits of feature f, v sorted by it: for an
 *	ordered feature each midpoint, for a categorical one each category
 *	against the rest; each side's impurity is its least cost.  Quadratic
 *	in the leaf's observations (each side's residuals are sorted anew).
 */
static void
CostSplits(const Rb_Refiner *r, const Ranked *v, int n, int f,
	double *scratch, Split *best)
{
    int i, a;

    for (i = 0; i < n - 1; i++) {
	double imp;

	if (v[i].key == v[i + 1].key || i + 1 < r->minLeaf
		|| n - i - 1 < r->minLeaf || r->categorical[f]) {
	    continue;
	}
	imp = RangeCost(r, v, 0, i + 1, 0, 0, scratch)
		+ RangeCost(r, v, i + 1, n, 0, 0, scratch);
	if (imp < best->imp) {
	    best->imp = imp;
	    best->feature = f;
	    best->category = 0;
	    best->threshold = (v[i].key + v[i + 1].key) / 2;
	    best->ncats = 0;
	}
    }
    for (a = 0; r->categorical[f] && a < n; a = i) {
	double imp;

	for (i = a; i < n && v[i].key == v[a].key; i++) {
	}
	if (i - a < r->minLeaf || n - (i - a) < r->minLeaf) {
	    continue;
	}
	imp = RangeCost(r, v, a, i, 0, 0, scratch)
		+ RangeCost(r, v, 0, a, i, n, scratch);
	if (imp < best->imp) {
	    best->imp = imp;
	    best->feature = f;
	    best->category = 1;
	    best->threshold = v[a].key;
	    best->cats[0] = v[a].key;
	    best->ncats = 1;
	}
    }
}

/*
 * BestSplit --
 *	The feature and threshold (or left categories) that minimize the
 *	impurity of the two sides, each keeping at least minLeaf
 *	observations: for an ordered feature a midpoint between observed
 *	values, for a categorical one as CategorySplits says.  Sets *before
 *	to the leaf's own impurity.
 * Results: best->imp, the impurity after, INFINITY when no split is
 *	possible.
 */
static double
BestSplit(const Rb_Refiner *r, const Node *n, Split *best, double *before)
{
    Ranked *v = Rb_AllocArray(n->nobs, sizeof(Ranked));
    Group *g = Rb_AllocArray(n->nobs, sizeof(Group));
    double *keys = Rb_AllocArray(n->nobs, sizeof(double));
    double lo, width;
    Side all, left, right;
    int f, i;

    memset(&all, 0, sizeof(all));
    Buckets(r, n, &lo, &width);
    for (i = 0; i < n->nobs; i++) {
	v[i].obs = i;
	v[i].res = n->res[i];
	v[i].bucket = BucketOf(n->res[i], lo, width);
	SideAdd(&all, &v[i], 1);
    }
    *before = r->criterion == RB_REFINE_COST
	    ? RangeCost(r, v, 0, n->nobs, 0, 0, keys) : Impurity(r, &all);
    best->imp = INFINITY;
    for (f = 0; f < r->nf; f++) {
	/*
	 * The previous feature's sort reordered v: each entry's key is
	 * read from its own observation, not from position i.
	 */
	for (i = 0; i < n->nobs; i++) {
	    v[i].key = n->x[v[i].obs * r->nf + f];
	}
	qsort(v, n->nobs, sizeof(Ranked), CompareRanked);
	if (r->criterion == RB_REFINE_COST) {
	    CostSplits(r, v, n->nobs, f, keys, best);
	    continue;
	}
	if (r->categorical[f]) {
	    CategorySplits(r, v, n->nobs, &all, f, g, keys, best);
	    continue;
	}
	memset(&left, 0, sizeof(left));
	right = all;
	for (i = 0; i < n->nobs - 1; i++) {
	    SideAdd(&left, &v[i], 1);
	    SideAdd(&right, &v[i], -1);
	    if (v[i].key != v[i + 1].key) {
		Consider(r, best, &left, &right, f,
			(v[i].key + v[i + 1].key) / 2, NULL, 0);
	    }
	}
    }
    free(v);
    free(g);
    free(keys);
    return best->imp;
}

/*
 * MaybeSplit --
 *	Splits leaf n if its observations disagree and a split at least
 *	halves their squared deviation, or (entropy) gains at least half a
 *	bit per observation -- the residuals' spread within a bucket range
 *	stays in the children, so halving their entropy would ask more than
 *	separating two groups can give; then the same for the children.
 */
static void
MaybeSplit(const Rb_Refiner *r, Node *n, int depth)
{
    double after, before;
    Split best;
    int i;

    if (n->nobs < r->minSplit || depth >= r->maxDepth || n->mode < 0
	    || n->count[n->mode] >= AGREEING * n->nobs) {
	return;
    }
    memset(&best, 0, sizeof(best));
    best.cats = Rb_AllocArray(n->nobs, sizeof(double));
    after = BestSplit(r, n, &best, &before);
    if (r->criterion != RB_REFINE_ENTROPY
	    ? !(after <= (1 - r->minGain) * before)
	    : !((before - after) / n->nobs >= r->minGain)) {
	free(best.cats);
	return;
    }
    n->feature = best.feature;
    n->category = best.category;
    n->threshold = best.category ? best.cats[0] : best.threshold;
    n->ncats = best.ncats;
    n->cats = best.cats;
    n->left = Rb_Alloc(sizeof(Node));
    n->right = Rb_Alloc(sizeof(Node));
    for (i = 0; i < n->nobs; i++) {
	const double *x = n->x + i * r->nf;

	LeafAdd(r, GoesLeft(n, x) ? n->left : n->right, x, n->res[i]);
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
 * RbRefinerObserve --
 *	Adds what was observed (y) at point x: its residual goes to its
 *	leaf, which may then split.
 */
void
RbRefinerObserve(Rb_Refiner *r, const double *x, double y)
{
    Node *n = LeafOf(r, x);
    int depth = 0;
    const Node *p;

    LeafAdd(r, n, x, y - RbRefinerSeeded(r, x));
    BuildHistogram(r, n);
    for (p = r->root; p->left; depth++) {
	p = GoesLeft(p, x) ? p->left : p->right;
    }
    MaybeSplit(r, n, depth);
    r->observations++;
}

/*
 * Correction --
 *	A leaf's correction: the mean residual of its fullest bucket, or
 *	with a cost function the correction of least cost over all its
 *	residuals.
 */
static double
Correction(const Rb_Refiner *r, const Node *n)
{
    double *y, v, cost;

    if (n->mode < 0) {
	return 0;
    }
    if (r->costOver <= 0) {
	return n->sum[n->mode] / n->count[n->mode];
    }
    y = Rb_AllocArray(n->nobs, sizeof(double));
    memcpy(y, n->res, n->nobs * sizeof(double));
    v = LeastCost(r, y, n->nobs, &cost);
    free(y);
    return v;
}

/*
 * RbRefinerPredict --
 *	The refined answer at x: the seeded answer plus the correction its
 *	leaf's observations agree on.  Sets *seeded to the seeded answer,
 *	*confidence to the agreeing observations (0: none, the answer is
 *	the model's) and *observed to the leaf's observations.
 */
double
RbRefinerPredict(const Rb_Refiner *r, const double *x, double *seeded,
	int64_t *confidence, int64_t *observed)
{
    const Node *n = LeafOf(r, x);
    double s = RbRefinerSeeded(r, x);

    *seeded = s;
    *observed = n->nobs;
    if (n->mode < 0) {
	*confidence = 0;
	return s;
    }
    *confidence = n->count[n->mode];
    return s + Correction(r, n);
}

/*
 * RbRefinerSpread --
 *	What Figure 6.5 of the thesis shows with a prediction at x: the
 *	standard deviation of the residuals its leaf agrees on (the
 *	fullest bucket's), and the least and greatest values observed in
 *	that leaf (each observation's residual plus the seeded answer at
 *	its point); and what Figure 6.12 shows for a point the model never
 *	saw (a new switch type, in a model without that attribute): the
 *	mean and the standard deviation of every value observed in the
 *	leaf.  Returns 0, setting nothing, when the leaf has no
 *	observation.
 */
int
RbRefinerSpread(const Rb_Refiner *r, const double *x, double *stddev,
	double *min, double *max, double *allMean, double *allStddev)
{
    const Node *n = LeafOf(r, x);
    double lo, width, mean, ss = 0, m = 0, m2 = 0, d;
    int i;

    if (n->mode < 0) {
	return 0;
    }
    Buckets(r, n, &lo, &width);
    mean = n->sum[n->mode] / n->count[n->mode];
    *min = INFINITY;
    *max = -INFINITY;
    for (i = 0; i < n->nobs; i++) {
	double y = n->res[i] + RbRefinerSeeded(r, n->x + i * r->nf);

	if (BucketOf(n->res[i], lo, width) == n->mode) {
	    ss += (n->res[i] - mean) * (n->res[i] - mean);
	}
	*min = fmin(*min, y);
	*max = fmax(*max, y);
	/* Welford's update of the mean and squared deviations of every
	 * value, in the same pass (a seeded answer costs a scan). */
	d = y - m;
	m += d / (i + 1);
	m2 += d * (y - m);
    }
    *stddev = sqrt(ss / n->count[n->mode]);
    *allMean = m;
    *allStddev = sqrt(m2 / n->nobs);
    return 1;
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
 * RbRefinerStats --
 *	Seeds, observations and leaves so far.
 */
void
RbRefinerStats(const Rb_Refiner *r, int64_t *seeds, int64_t *observations,
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
    free(n->cats);
    free(n);
}

/*
 * RbRefinerFree --
 *	Frees the tree and the seeds.
 */
void
RbRefinerFree(Rb_Refiner *r)
{
    FreeNode(r->root);
    free(r->seedX);
    free(r->seedY);
    free(r->lo);
    free(r->hi);
    free(r->categorical);
    free(r);
}

/*
 * TreeObj --
 *	Node n as a Tcl list (see RbRefinerTree).
 */
static Tcl_Obj *
TreeObj(const Rb_Refiner *r, const Node *n)
{
    Tcl_Obj *o = Tcl_NewListObj(0, NULL);

#define ADD(v) Tcl_ListObjAppendElement(NULL, o, (v))
    if (n->left == NULL) {
	ADD(Tcl_NewStringObj("leaf", -1));
	ADD(Tcl_NewStringObj("observations", -1));
	ADD(Tcl_NewIntObj(n->nobs));
	ADD(Tcl_NewStringObj("correction", -1));
	ADD(Tcl_NewDoubleObj(Correction(r, n)));
	return o;
    }
    ADD(Tcl_NewStringObj("split", -1));
    ADD(Tcl_NewStringObj("feature", -1));
    ADD(Tcl_NewIntObj(n->feature));
    ADD(Tcl_NewStringObj("threshold", -1));
    ADD(Tcl_NewDoubleObj(n->threshold));
    ADD(Tcl_NewStringObj("categorical", -1));
    ADD(Tcl_NewIntObj(n->category));
    if (n->category) {
	Tcl_Obj *cats = Tcl_NewListObj(0, NULL);
	int i;

	for (i = 0; i < n->ncats; i++) {
	    Tcl_ListObjAppendElement(NULL, cats,
		    Tcl_NewDoubleObj(n->cats[i]));
	}
	ADD(Tcl_NewStringObj("categories", -1));
	ADD(cats);
    }
    ADD(Tcl_NewStringObj("left", -1));
    ADD(TreeObj(r, n->left));
    ADD(Tcl_NewStringObj("right", -1));
    ADD(TreeObj(r, n->right));
#undef ADD
    return o;
}

/*
 * RbRefinerTree --
 *	The tree as a Tcl list: {leaf observations N correction C} for a
 *	leaf, {split feature F threshold T categorical 0|1 ?categories C?
 *	left L right R} for a split (x[F] < T goes left, or for a category
 *	x[F] in the list C; T is then C's first).
 */
Tcl_Obj *
RbRefinerTree(const Rb_Refiner *r)
{
    return TreeObj(r, r->root);
}
