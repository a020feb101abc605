/*
 * arrivalFitAnalyzer.c --
 *
 *	ArrivalFitAnalyzer: fits the times between arrivals (or the values of
 *	any numeric field) to the exponential, lognormal and Pareto
 *	distributions by maximum likelihood, and says which fits best by
 *	Akaike's information criterion.
 *
 *	The fits need only the count, the sum and minimum of the values and
 *	the sums of their logarithms and of their squares.  The sums are
 *	exact integers (the values in ns or the field's integers; the
 *	logarithms in fixed point, units of 2^-64), so that the sums of
 *	shards add to those of one pass exactly and a split run fits the
 *	same parameters bit for bit (a field of doubles sums in floating
 *	point).  The Kolmogorov-Smirnov
 *	distance of each fit is measured on the logarithmic buckets of
 *	logHist.c (bounds a factor (1 + ALPHA) / (1 - ALPHA) apart): the
 *	empirical distribution is exact at every bucket bound, so the
 *	distance found there is a lower bound of the true one, and the true
 *	one exceeds it by at most the fitted probability of one occupied
 *	bucket, reported beside it (ksBound).  Memory is bounded.
 */

#include <math.h>
#include <stddef.h>
#include <string.h>
#include "analyzers.h"

enum { FIT_EXP, FIT_LOGNORMAL, FIT_PARETO, NFITS };

/* The fixed point of the sums of logarithms: 2^64 units per unit, finer
 * than a double's last bit for any logarithm above 2^-11, so that the
 * sums are the exact sums of the doubles log() gives. */
#define LOG_UNIT 18446744073709551616.0L

static const char *const fitNames[NFITS] = {
    "exponential", "lognormal", "pareto"
};

typedef struct Fit {
    double p1, p2;		/* See FitDistributions. */
    int k;			/* Parameters, for the AIC. */
    double logLik;
} Fit;

typedef struct ArrivalFitState {
    char *field;		/* -field; "" for the times between
				 * arrivals */
    int index;			/* The field, or -1 for the gaps. */
    double scale;		/* To seconds for a time, else 1. */
    const char *unit;
    int64_t prev, first;	/* Gaps: last and first arrival, or
				 * RB_ABSENT (first for a split run). */
    uint64_t skipped;		/* Values not positive (or out of order). */
    int integers;		/* Values are integers (gaps in ns, an
				 * integer field): summed in rawSum. */
    Rb_LogHist values;		/* Positive values, scaled; its moments'
				 * sum serves a field of doubles. */
    Sum128 rawSum;		/* Sum of the unscaled integer values. */
    Sum128 logSum, logSqSum;	/* Sums of ln x and (ln x)^2, in units
				 * of 1 / LOG_UNIT (room for 2^43 values
				 * of any positive double). */
} ArrivalFitState;

static const Rb_Option arrivalFitOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(ArrivalFitState, field), "",
	"numeric field whose values are fitted; empty: the times between "
	"arrivals"},
    {NULL}
};

static const char *const arrivalFitAttrs[] = {
    "ArrivalFit", "ArrivalFitBest", "ArrivalFitCount", "ArrivalFitSkipped",
    NULL
};

/*
 * ArrivalFitStart --
 *	Resolves -field (numeric) and empties the sums for a new run.
 */
static int
ArrivalFitStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ArrivalFitState *st = a->state;

    st->index = -1;
    st->scale = 1.0 / RB_NS_PER_S;
    st->unit = "s";
    if (st->field != NULL && st->field[0] != '\0') {
	if (RbKitNumericField(a, run, st->field, &st->index) != TCL_OK) {
	    return TCL_ERROR;
	}
	st->scale = RbKitFieldScale(run, st->index, &st->unit);
    }
    st->integers = st->index < 0
	    || run->schema->fields[st->index].type == RB_FT_INT;
    st->prev = st->first = RB_ABSENT;
    st->skipped = 0;
    st->rawSum = st->logSum = st->logSqSum = 0;
    Rb_LogHistReset(&st->values);
    return TCL_OK;
}

/*
 * ShiftedBy --
 *	v * 2^s for a non-negative v, the bits below 1 dropped.
 */
static inline Sum128
ShiftedBy(Sum128 v, int s)
{
    if (s >= 0) {
	return v << s;
    }
    return s > -127 ? v >> -s : 0;
}

/*
 * AddLog --
 *	Adds lx and lx^2 to the fixed-point sums of logarithms.  A double
 *	is m 2^e with m an integer below 2^53, so lx 2^64 and lx^2 2^64 are
 *	the integers m and m^2 shifted: exact (to 2^-64), without the slow
 *	conversions of long doubles to 128-bit integers.  |lx| < 1024, so
 *	nothing overflows.
 */
static void
AddLog(ArrivalFitState *st, double lx)
{
    int e;
    Sum128 m = (int64_t)ldexp(frexp(fabs(lx), &e), 53);
    Sum128 one = ShiftedBy(m, e - 53 + 64);

    st->logSum += lx < 0 ? -one : one;
    st->logSqSum += ShiftedBy(m * m, 2 * (e - 53) + 64);
}

/*
 * AddValue --
 *	Counts the value raw (an integer, or the bits of a double when the
 *	values are not integers) if it is positive and finite, else counts
 *	it as skipped.
 */
static void
AddValue(ArrivalFitState *st, int64_t raw)
{
    union { int64_t i; double d; } u;
    double x;

    u.i = raw;
    x = (st->integers ? (double)raw : u.d) * st->scale;
    if (!(x > 0) || !isfinite(x)) {
	st->skipped++;
	return;
    }
    Rb_LogHistAdd(&st->values, x);
    AddLog(st, log(x));
    if (st->integers) {
	st->rawSum += raw;
    }
}

/*
 * AddGap --
 *	Counts the gap from arrival `from` to arrival `to` (ns); one that is
 *	negative (out of order) or zero is skipped.
 */
static void
AddGap(ArrivalFitState *st, int64_t from, int64_t to)
{
    int64_t gap;

    if (to < from || __builtin_sub_overflow(to, from, &gap)) {
	st->skipped++;
	return;
    }
    AddValue(st, gap);
}

/*
 * ArrivalFitBatch --
 *	Counts the gap before each selected record with a time, or the value
 *	of -field of each selected record that has one.
 */
static void
ArrivalFitBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ArrivalFitState *st = a->state;
    int j;

    if (st->index >= 0) {
	for (j = 0; j < nsel; j++) {
	    if (b->col[st->index][sel[j]] != RB_ABSENT) {
		AddValue(st, b->col[st->index][sel[j]]);
	    }
	}
	return;
    }
    for (j = 0; j < nsel; j++) {
	int64_t t = b->col[RB_IO_TIME][sel[j]];

	if (t == RB_ABSENT) {
	    continue;
	}
	if (st->first == RB_ABSENT) {
	    st->first = t;
	} else {
	    AddGap(st, st->prev, t);
	}
	st->prev = t;
    }
}

/*
 * FitDistributions --
 *	The maximum-likelihood fits of the n positive values of st:
 *	exponential (p1 the rate 1/mean, p2 the mean), lognormal (p1 and p2
 *	the mean and standard deviation of ln x) and Pareto with xmin the
 *	smallest value (p1 the exponent alpha, p2 xmin).  A fit that does
 *	not exist (fewer than two values, all equal) has NaN parameters and
 *	log-likelihood.
 */
static void
FitDistributions(const ArrivalFitState *st, Fit fits[NFITS])
{
    const Rb_Moments *m = &st->values.moments;
    long double sumLog = (long double)st->logSum / LOG_UNIT;
    double n = (double)m->n, mean = (double)(sumLog / n), lambda, var;
    double sum = st->integers ? (double)st->rawSum * st->scale : m->sum;
    long double s;
    int f;

    for (f = 0; f < NFITS; f++) {
	fits[f].p1 = fits[f].p2 = fits[f].logLik = NAN;
	fits[f].k = f == FIT_EXP ? 1 : 2;
    }
    if (m->n < 2 || !(m->max > m->min)) {
	return;
    }
    var = (double)((long double)st->logSqSum / LOG_UNIT / n
	    - sumLog / n * (sumLog / n));
    var = var > 0 ? var : 0.0;
    lambda = n / sum;
    fits[FIT_EXP].p1 = lambda;
    fits[FIT_EXP].p2 = sum / n;
    fits[FIT_EXP].logLik = n * log(lambda) - n;
    fits[FIT_LOGNORMAL].p1 = mean;
    fits[FIT_LOGNORMAL].p2 = sqrt(var);
    if (var > 0) {
	fits[FIT_LOGNORMAL].logLik = (double)(-sumLog
		- n / 2 * log(2 * M_PI * var) - n / 2);
    }
    /* The minimum's logarithm as AddValue took it: values equal to the
     * minimum cancel exactly. */
    s = sumLog - (long double)n * log(m->min);
    if (s > 0) {
	double alpha = (double)(n / s);

	fits[FIT_PARETO].p1 = alpha;
	fits[FIT_PARETO].p2 = m->min;
	fits[FIT_PARETO].logLik = (double)(n * log(alpha) - alpha * s
		- sumLog);
    }
}

/*
 * FitCdf --
 *	The fitted distribution function of fit f at x > 0.
 */
static double
FitCdf(int f, const Fit *fit, double x)
{
    switch (f) {
    case FIT_EXP:
	return -expm1(-fit->p1 * x);
    case FIT_LOGNORMAL:
	return 0.5 * erfc(-(log(x) - fit->p1) / (fit->p2 * M_SQRT2));
    default:
	return x < fit->p2 ? 0.0 : 1.0 - pow(fit->p2 / x, fit->p1);
    }
}

/*
 * KsDistance --
 *	The largest gap between the empirical distribution of the values
 *	and fit f over the bounds of the occupied buckets (exact there), and
 *	in *bound the largest fitted probability of one occupied bucket: the
 *	true distance lies between the result and the result plus *bound.
 */
static double
KsDistance(const ArrivalFitState *st, int f, const Fit *fit, double *bound)
{
    const Rb_TimeBins *pos = &st->values.bucket[0];
    double g = (1.0 + RB_LOGHIST_ALPHA) / (1.0 - RB_LOGHIST_ALPHA);
    double n = (double)st->values.moments.n, d = 0.0;
    uint64_t below = 0;
    int64_t j;

    *bound = 0.0;
    for (j = 0; j < pos->n; j++) {
	double lo, hi, fLo, fHi;

	if (pos->sums[j] == 0) {
	    continue;
	}
	lo = pow(g, (double)(pos->lo + j - 1));
	hi = pow(g, (double)(pos->lo + j));
	fLo = FitCdf(f, fit, lo);
	fHi = FitCdf(f, fit, hi);
	d = fmax(d, fabs((double)below / n - fLo));
	below += pos->sums[j];
	d = fmax(d, fabs((double)below / n - fHi));
	*bound = fmax(*bound, fHi - fLo);
    }
    return d;
}

/*
 * ArrivalFitEnd --
 *	Sets the table of fits (a row per distribution: parameters,
 *	log-likelihood, AIC, KS distance and its bound), the best fit by AIC
 *	("" when none exists), the count of values fitted and of skipped.
 */
static int
ArrivalFitEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ArrivalFitState *st = a->state;
    Rb_Attribute *t = Rb_AttrCreate("ArrivalFit", RB_ATTR_TABLE, "",
	    "maximum-likelihood fits: exponential, lognormal, Pareto");
    Fit fits[NFITS];
    double bestAic = INFINITY;
    const char *best = "";
    int f;

    FitDistributions(st, fits);
    Rb_AttrAddColumn(t, "distribution", "", 1);
    Rb_AttrAddColumn(t, "p1", "", 0);
    Rb_AttrAddColumn(t, "p2", "", 0);
    Rb_AttrAddColumn(t, "logLikelihood", "", 0);
    Rb_AttrAddColumn(t, "aic", "", 0);
    Rb_AttrAddColumn(t, "ks", "", 0);
    Rb_AttrAddColumn(t, "ksBound", "", 0);
    for (f = 0; f < NFITS; f++) {
	int row = Rb_AttrAddRow(t);
	double aic = 2.0 * fits[f].k - 2.0 * fits[f].logLik, bound = NAN;
	double ks = NAN;

	if (isfinite(fits[f].logLik)) {
	    ks = KsDistance(st, f, &fits[f], &bound);
	    if (aic < bestAic) {
		bestAic = aic;
		best = fitNames[f];
	    }
	}
	Rb_AttrSetText(t, row, 0, fitNames[f]);
	Rb_AttrSetNum(t, row, 1, fits[f].p1);
	Rb_AttrSetNum(t, row, 2, fits[f].p2);
	Rb_AttrSetNum(t, row, 3, fits[f].logLik);
	Rb_AttrSetNum(t, row, 4, aic);
	Rb_AttrSetNum(t, row, 5, ks);
	Rb_AttrSetNum(t, row, 6, bound);
    }
    Rb_AnalyzerSet(a, t);
    Rb_AnalyzerSet(a, Rb_AttrTextNew("ArrivalFitBest", best,
	    "the distribution with the smallest AIC"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ArrivalFitCount",
	    (double)st->values.moments.n, "", "values fitted"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ArrivalFitSkipped",
	    (double)st->skipped, "", "values left out: zero, negative or "
	    "out of time order"));
    return TCL_OK;
}

/*
 * ArrivalFitMerge --
 *	merge hook: other's records follow a's, so for the gaps the one
 *	from a's last arrival to other's first is counted first.
 */
static int
ArrivalFitMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ArrivalFitState *st = a->state;
    const ArrivalFitState *ost = other->state;

    if (st->index < 0 && ost->first != RB_ABSENT) {
	if (st->prev != RB_ABSENT) {
	    AddGap(st, st->prev, ost->first);
	}
	if (st->first == RB_ABSENT) {
	    st->first = ost->first;
	}
	st->prev = ost->prev;
    }
    st->skipped += ost->skipped;
    st->rawSum += ost->rawSum;
    st->logSum += ost->logSum;
    st->logSqSum += ost->logSqSum;
    return Rb_LogHistMerge(a, &st->values, &ost->values);
}

/*
 * ArrivalFitSerialize, ArrivalFitDeserialize --
 *	serialize and deserialize hooks: boundary arrivals, skipped count,
 *	the values' buckets and the moments of their logarithms.
 */
static int
ArrivalFitSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ArrivalFitState *st = a->state;

    RbKitPutCounters(b, &st->prev, 3);
    Rb_LogHistPut(b, &st->values);
    RbKitPut128(b, st->rawSum);
    RbKitPut128(b, st->logSum);
    RbKitPut128(b, st->logSqSum);
    return TCL_OK;
}

static int
ArrivalFitDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ArrivalFitState *st = a->state;

    RbKitGetCounters(b, &st->prev, 3);
    Rb_LogHistGet(b, &st->values);
    st->rawSum = RbKitGet128(b);
    st->logSum = RbKitGet128(b);
    st->logSqSum = RbKitGet128(b);
    return TCL_OK;
}

/*
 * ArrivalFitFree --
 *	Frees the buckets.
 */
static void
ArrivalFitFree(Rb_Analyzer *a)
{
    ArrivalFitState *st = a->state;

    Rb_LogHistFree(&st->values);
}

/*
 * Mergeable in time order: the gap across a shard boundary is counted at
 * the merge; buckets and integer sums add exactly.
 */
const Rb_AnalyzerClass Rb_ArrivalFitAnalyzerClass = {
    .name = "ArrivalFitAnalyzer",
    .help = "exponential, lognormal and Pareto fits of the times between "
	    "arrivals (or a field), best by AIC",
    .stateSize = sizeof(ArrivalFitState),
    .options = arrivalFitOptions,
    .attrs = arrivalFitAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = ArrivalFitStart,
    .batch = ArrivalFitBatch,
    .end = ArrivalFitEnd,
    .merge = ArrivalFitMerge,
    .serialize = ArrivalFitSerialize,
    .deserialize = ArrivalFitDeserialize,
    .freeState = ArrivalFitFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
