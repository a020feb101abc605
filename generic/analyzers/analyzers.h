/*
 * analyzers.h --
 *
 *	The built-in Analyzer classes (one file each in this folder) and the
 *	small helpers they share.  Only rubicon.h is used: the kit is written
 *	against the same interface an outside plugin would use.
 */

#ifndef RB_ANALYZERS_H
#define RB_ANALYZERS_H

#include "rubicon.h"

extern const Rb_AnalyzerClass Rb_RateAnalyzerClass;
extern const Rb_AnalyzerClass Rb_BandwidthAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SizeAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ReadFractionAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SeqRunAnalyzerClass;
extern const Rb_AnalyzerClass Rb_SizeHistogramAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ResponseTimeAnalyzerClass;
extern const Rb_AnalyzerClass Rb_ShareAnalyzerClass;

#define RB_NS_PER_S 1e9

/* Helpers of the kit (kit.c). */
void *		Rb_KitRealloc(void *p, size_t n);
int		Rb_KitOptionError(Rb_Analyzer *a, Tcl_Interp *interp,
		    const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));

/*
 * Rb_SecondsBetween --
 *	to - from, in seconds.  Exact integer arithmetic when the difference
 *	fits in int64 (always, for real traces); a corrupt time cannot cause
 *	signed overflow.
 */
static inline double
Rb_SecondsBetween(int64_t from, int64_t to)
{
    int64_t ns;

    if (__builtin_sub_overflow(to, from, &ns)) {
	return ((double)to - (double)from) / RB_NS_PER_S;
    }
    return (double)ns / RB_NS_PER_S;
}

/*
 * Rb_RunTimesKnown --
 *	Whether the run has seen a record time yet (the engine starts with
 *	firstTime > lastTime).
 */
static inline int
Rb_RunTimesKnown(const Rb_RunInfo *run)
{
    return run->firstTime != RB_ABSENT && run->firstTime <= run->lastTime;
}

/*
 * Rb_RunSeconds --
 *	The run's duration, last record time minus first, in seconds; 0 when
 *	the run saw fewer than two distinct times.  Every per-device rate
 *	divides by this same duration so that the rates of a partition of the
 *	records add up to the rate of the whole.
 */
static inline double
Rb_RunSeconds(const Rb_RunInfo *run)
{
    if (!Rb_RunTimesKnown(run)) {
	return 0.0;
    }
    return Rb_SecondsBetween(run->firstTime, run->lastTime);
}

/*
 * Time bins (timeBins.c): sums of a quantity (I/Os, bytes) per interval
 * of trace time, for the RateSeries and BandwidthSeries attributes.  Bin
 * k covers [origin + k*interval, origin + (k+1)*interval).  The origin
 * is the run's first record time, so that the bins of every Flow line up
 * even when a Flow's first record comes late.  Memory grows with the
 * run's duration divided by the interval, not with the number of records,
 * and is capped at RB_MAX_TIME_BINS bins.
 */
#define RB_MAX_TIME_BINS ((int64_t)1 << 20)

typedef struct Rb_TimeBins {
    int64_t interval;		/* ns, > 0 */
    int64_t origin;		/* Start of bin 0 (when hasOrigin). */
    int hasOrigin;
    int64_t lo;			/* Bin index of sums[0]. */
    int64_t n;			/* Bins held. */
    int64_t cap;
    uint64_t *sums;
    const Rb_RunInfo *run;	/* The run given to start (see
				 * Rb_TimeBinsSetOrigin). */
} Rb_TimeBins;

void		Rb_TimeBinsStart(Rb_TimeBins *tb, int64_t interval,
		    const Rb_RunInfo *run);
void		Rb_TimeBinsSetOrigin(Rb_TimeBins *tb, int64_t t);
int		Rb_TimeBinsCover(Rb_TimeBins *tb, int64_t k);
int		Rb_TimeBinsMerge(Rb_Analyzer *a, Rb_TimeBins *tb,
		    const Rb_TimeBins *other);
Rb_Attribute *	Rb_TimeBinsSeries(const Rb_TimeBins *tb,
		    const Rb_RunInfo *run, const char *name,
		    const char *unit, const char *help);
void		Rb_TimeBinsFree(Rb_TimeBins *tb);

/*
 * The state of an analyzer that totals a quantity over the run and per
 * interval: RateAnalyzer (I/Os) and BandwidthAnalyzer (bytes) differ only
 * in what they add and what they call it, so these hooks serve both.
 */
typedef struct Rb_TotalState {
    int64_t interval;		/* -interval, ns */
    uint64_t total;
    Rb_TimeBins bins;
} Rb_TotalState;

int		Rb_TotalInit(Rb_Analyzer *a, Tcl_Interp *interp);
int		Rb_TotalStart(Rb_Analyzer *a, const Rb_RunInfo *run);
int		Rb_TotalMerge(Rb_Analyzer *a, const Rb_Analyzer *other);
void		Rb_TotalFree(Rb_Analyzer *a);

/*
 * Rb_FloorDiv --
 *	a / b rounded toward minus infinity (b > 0), so that times before the
 *	origin fall in negative bins rather than in bin 0.
 */
static inline int64_t
Rb_FloorDiv(int64_t a, int64_t b)
{
    int64_t q = a / b;

    return (a % b < 0) ? q - 1 : q;
}

/*
 * Rb_TimeBinOf --
 *	The bin of time t (origin set).
 * Results: 1 with *k set, or 0 when t is too far from the origin for
 *	int64 arithmetic (a corrupt time).
 */
static inline int
Rb_TimeBinOf(const Rb_TimeBins *tb, int64_t t, int64_t *k)
{
    int64_t ns;

    if (__builtin_sub_overflow(t, tb->origin, &ns)) {
	return 0;
    }
    *k = Rb_FloorDiv(ns, tb->interval);
    return 1;
}

/*
 * Rb_TimeBinsAdd --
 *	Adds v to the bin holding time t.  A time so far from the others that
 *	its bin would exceed RB_MAX_TIME_BINS is left out of the series (its
 *	value still counts in the analyzer's total).
 */
static inline void
Rb_TimeBinsAdd(Rb_TimeBins *tb, int64_t t, uint64_t v)
{
    int64_t k;

    if (!tb->hasOrigin) {
	Rb_TimeBinsSetOrigin(tb, t);
    }
    if (!Rb_TimeBinOf(tb, t, &k)) {
	return;
    }
    if ((k < tb->lo || k >= tb->lo + tb->n) && !Rb_TimeBinsCover(tb, k)) {
	return;
    }
    tb->sums[k - tb->lo] += v;
}

#endif /* RB_ANALYZERS_H */
