/*
 * observer.h --
 *
 *	Internals of the Observer plugin (Thereska's 2007 thesis): the
 *	queueing-network solvers, the buffer-cache, disk, network and CPU
 *	resource models, and the refinement tree.  The solvers and models
 *	are plain C over plain arrays so that unit tests call them without
 *	Tcl; the files named *Cmd.c bind them to Tcl commands.
 */

#ifndef OBSERVER_H
#define OBSERVER_H

#include <stdint.h>
#include "rubicon.h"

/* Registers the plugin's classes and commands in interp (init.c). */
int		RbObserverInit(Tcl_Interp *interp);

/*
 * A queueing network: nc service centers and nk workloads (classes).
 * Demands are seconds of service per job (visits x service time) and
 * are already divided by each center's speed.
 */

typedef struct Rb_QnNet {
    int nc, nk;
    const int *isDelay;		/* [nc] 1: delay (infinite server) */
    const double *demand;	/* [k * nc + c] */
    const int *isOpen;		/* [nk] 1: open, arrival rate lambda */
    const double *population;	/* [nk] closed: N (integral) */
    const double *think;	/* [nk] closed: Z */
    const double *lambda;	/* [nk] open: arrival rate */
    const char *const *centerNames;	/* [nc] for messages, or NULL */
    const char *const *workloadNames;	/* [nk] for messages, or NULL */
    const int *servers;		/* [nc] servers of a queueing center, or
				 * NULL for one each */
} Rb_QnNet;

#define RB_QN_DEMAND(net, k, c) ((net)->demand[(k) * (net)->nc + (c)])

typedef enum Rb_QnMethod {
    RB_QN_AUTO = 0,		/* exact when the state space is small */
    RB_QN_EXACT,
    RB_QN_APPROX		/* Bard-Schweitzer */
} Rb_QnMethod;

typedef struct Rb_QnResult {
    int nc, nk;
    Rb_QnMethod method;		/* The method used (never AUTO). */
    int iterations;		/* Approximate MVA iterations. */
    double *throughput;		/* [nk] jobs/s */
    double *response;		/* [nk] s, think time excluded */
    double *residence;		/* [k * nc + c] s per job at center c */
    double *queue;		/* [k * nc + c] mean jobs at c */
    double *utilization;	/* [nc] summed over workloads, per server */
    int bottleneck;		/* Center of highest utilization. */
} Rb_QnResult;

/* Asymptotic bounds for one workload (Lazowska et al. 1984, ch. 5). */
typedef struct Rb_QnBounds {
    double xUpper, xLower;	/* throughput, jobs/s */
    double rLower, rUpper;	/* response time, s (rUpper may be inf) */
    double nStar;		/* closed: knee (D + Z) / Dmax; open: 0 */
    double lambdaSat;		/* 1 / Dmax: saturating throughput */
    int bottleneck;		/* Center of largest demand per server. */
    int balanced;		/* 1: the balanced job bounds below hold */
    double bjbXUpper, bjbXLower;	/* ch. 5.4, single closed class */
    double bjbRLower, bjbRUpper;
    char whyNot[256];		/* balanced 0: why they are not defined */
} Rb_QnBounds;

int		RbQnSolve(const Rb_QnNet *net, Rb_QnMethod method,
		    double tolerance, Rb_QnResult *res, Rb_Error *err);
void		RbQnResultFree(Rb_QnResult *res);
void		RbQnBoundsFor(const Rb_QnNet *net, int k, Rb_QnBounds *b);
/* States exact MVA would visit: product of (N_k + 1) over closed k. */
double		RbQnStates(const Rb_QnNet *net);

/*
 * The buffer-cache model: LRU stack distances of an access sequence,
 * per workload (a partitioned cache) and shared, in one pass.
 */

typedef struct Rb_CacheCurve {
    int64_t accesses;
    int64_t cold;		/* First references: miss at every size. */
    int64_t maxDistance;
    int64_t *atDistance;	/* [maxDistance + 1]: accesses at d (d >= 1) */
} Rb_CacheCurve;

typedef struct Rb_CacheModel Rb_CacheModel;

Rb_CacheModel *	RbCacheModelCreate(int keepDistances);
/* The most entries (distinct blocks of the shared stack plus those of each
 * workload's) the model may hold; 0, the default, for no limit. */
void		RbCacheModelLimit(Rb_CacheModel *m, int64_t limit);
/* Feeds one access of block by workload w (0-based, grows on demand);
 * 0 (and nothing done) when it would exceed the limit, else 1. */
int		RbCacheModelAccess(Rb_CacheModel *m, int w, int64_t block);
int		RbCacheModelWorkloads(const Rb_CacheModel *m);
/* w = -1: the shared cache; else workload w alone (its partition). */
const Rb_CacheCurve *RbCacheModelCurve(const Rb_CacheModel *m, int w);
/* Hits of an LRU cache of size blocks, from a curve. */
int64_t		RbCacheCurveHits(const Rb_CacheCurve *c, int64_t size);
/* Distance of access i in the shared (w = -1) or own-partition stack;
 * 0 for a cold access.  Needs keepDistances. */
int64_t		RbCacheModelDistance(const Rb_CacheModel *m, int partitioned,
		    int64_t i);
int64_t		RbCacheModelLength(const Rb_CacheModel *m);
int		RbCacheModelWorkloadOf(const Rb_CacheModel *m, int64_t i);
int64_t		RbCacheModelBlockOf(const Rb_CacheModel *m, int64_t i);
void		RbCacheModelFree(Rb_CacheModel *m);
/* Split runs: a model (made without keepDistances) as bytes; rebuilt in
 * an empty model (0 when the bytes are not one); and a later shard's
 * model merged into m, its workload w being m's wmap[w] and its blocks
 * renamed by map (0 when m then holds more than its limit). */
void		RbCacheModelPut(Rb_Buf *b, const Rb_CacheModel *m);
int		RbCacheModelGet(Rb_Buf *b, Rb_CacheModel *m);
int		RbCacheModelMerge(Rb_CacheModel *m, const Rb_CacheModel *o,
		    int64_t (*map)(void *cd, int64_t block), void *cd,
		    const int *wmap);

/*
 * The disk model (Thereska 2007, section 5.2.2; disk.c).  A RUN is
 * requests of one operation each starting where the one before ended.
 */

typedef struct Rb_DiskParams {
    double seqRead, seqWrite;	/* s per sequential access */
    double randRead, randWrite;	/* s per random access */
    double quantum;		/* s of service per workload turn; 0: none */
    double prefetch;		/* blocks read ahead after a read: a read
				 * starting 0 to prefetch blocks past the
				 * last read's end continues its RUN */
} Rb_DiskParams;

typedef struct Rb_DiskCharge {
    int64_t seqReads, seqWrites, randReads, randWrites;
    double busy;		/* s of service */
} Rb_DiskCharge;

/* The head simulation: charges n accesses (workload, op, first block,
 * blocks); per workload into charge[] of nw entries.  Returns the total
 * busy time. */
double		RbDiskModelCharge(const Rb_DiskParams *p, int n,
		    const int *workload, const int *op, const int64_t *block,
		    const int64_t *len, int nw, Rb_DiskCharge *charge);
/* Equation (5.3): each request's service time from the RUNs of its
 * client's own sequence; sequential[i] is 1 for a RUN's non-first. */
void		RbDiskRequestService(const Rb_DiskParams *p, int n,
		    const int *client, const int *op, const int64_t *block,
		    const int64_t *len, int nc, double *service,
		    int *sequential);
/* Equation (5.4): the demand of a request of service time D' whose
 * client has quantum q of a round of total quanta. */
double		RbDiskQuantaDemand(double service, double quantum,
		    double total);
/* (5.4) inverted for nc clients (2 to RB_DISK_SOLVE_MAX): the positive
 * quanta giving each client (mean service service[c]) its target
 * demand.  Returns the number found (at most max), rows of nc quanta in
 * out by increasing total. */
#define RB_DISK_SOLVE_MAX 8
int		RbDiskQuantaSolve(int nc, const double *service,
		    const double *target, double *out, int max);

/*
 * Observation-based refinement: a model's answers (seeds) corrected by
 * observations through a regression tree whose leaves keep a histogram
 * of residuals; see refiner.c.
 */

#define RB_REFINE_BUCKETS 10

typedef struct Rb_Refiner Rb_Refiner;

Rb_Refiner *	RbRefinerCreate(int nfeatures, double tolerance,
		    int minSplit);
int		RbRefinerFeatures(const Rb_Refiner *r);
void		RbRefinerSeed(Rb_Refiner *r, const double *x, double y);
void		RbRefinerObserve(Rb_Refiner *r, const double *x, double y);
double		RbRefinerSeeded(const Rb_Refiner *r, const double *x);
double		RbRefinerPredict(const Rb_Refiner *r, const double *x,
		    double *seeded, int64_t *confidence, int64_t *observed);
/* Figure 6.5's spread of a prediction: the standard deviation of the
 * agreeing residuals of x's leaf and the least and greatest values
 * observed there, and the mean and standard deviation of all of them;
 * 0 when the leaf has no observation. */
int		RbRefinerSpread(const Rb_Refiner *r, const double *x,
		    double *stddev, double *min, double *max,
		    double *allMean, double *allStddev);
void		RbRefinerStats(const Rb_Refiner *r, int64_t *seeds,
		    int64_t *observations, int *leaves);
void		RbRefinerFree(Rb_Refiner *r);

/* How leaves split (Z-CART): the impurity a split must halve. */
typedef enum Rb_RefineCriterion {
    RB_REFINE_VARIANCE = 0,	/* squared deviation of the residuals */
    RB_REFINE_ENTROPY,		/* entropy of their histogram buckets */
    RB_REFINE_COST		/* least misprediction cost (RbRefinerSetCost) */
} Rb_RefineCriterion;

/* How a categorical feature splits: one category against the rest, or
 * the best subset against the rest (categories ordered by mean residual,
 * each prefix tried: optimal for the variance criterion). */
enum { RB_REFINE_ORDERED = 0, RB_REFINE_ONE = 1, RB_REFINE_SUBSET = 2 };

/* Before the first observation: the criterion, the deepest leaf (0: the
 * root only), the fewest observations a leaf may keep, and which
 * features are categories (categorical[f] RB_REFINE_ONE or
 * RB_REFINE_SUBSET; RB_REFINE_ORDERED for an ordered one). */
void		RbRefinerSetSplitting(Rb_Refiner *r,
		    Rb_RefineCriterion criterion, int maxDepth, int minLeaf,
		    const unsigned char *categorical);
/* What a split must gain: the share of the squared deviation it removes
 * (variance) or bits per observation (entropy); 0.5 unless set. */
void		RbRefinerSetGain(Rb_Refiner *r, double gain);
/* Cost-sensitive learning: predicting v where y was observed costs
 * over (v - y) above it and under (y - v) below; a leaf's correction is
 * then the one of least cost over its residuals (their under / (over +
 * under) quantile), and with RB_REFINE_COST splits minimize that cost. */
void		RbRefinerSetCost(Rb_Refiner *r, double over, double under);
/* The tree as a Tcl list: {leaf observations N correction C} or
 * {split feature F threshold T categorical 0|1 ?categories LIST? left
 * TREE right TREE}. */
Tcl_Obj *	RbRefinerTree(const Rb_Refiner *r);

Tcl_ObjCmdProc	RbObsModelCmd;
Tcl_ObjCmdProc	RbObsLawCmd;
Tcl_ObjCmdProc	RbObsCacheCmd;
Tcl_ObjCmdProc	RbObsDiskCmd;
Tcl_ObjCmdProc	RbObsNetworkCmd;
Tcl_ObjCmdProc	RbObsCpuCmd;
Tcl_ObjCmdProc	RbObsRefinerCmd;
Tcl_ObjCmdProc	RbObsMismatchCmd;
int		RbObsCacheAnalyzerInit(Tcl_Interp *interp);

#endif /* OBSERVER_H */
