/*
 * seriesAnalyzer.c --
 *
 *	SeriesAnalyzer: the volume and mix statistics per interval of trace
 *	time (I/O count and rate, bytes and bandwidth, read fraction by count
 *	and by bytes, mean request size, mean response time), each with its
 *	peak-to-mean ratio.  Each statistic is a ratio of sums per interval
 *	(bytes over I/Os, say), and each sum is an Rb_TimeBins (timeBins.c):
 *	memory grows with the run's duration over -interval, not with the
 *	records, and the state merges by adding the bins.
 *
 *	Percentiles per interval (responseTimeP<q>, sizeP<q>) keep one
 *	logarithmic histogram (logHist.c) per interval instead, on the same
 *	grid: within 1% of the exact order statistic, and merged by adding
 *	the histograms of the same interval.
 */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

/* The sums kept per interval, each over the selected records that have a
 * time and what the sum names. */
enum {
    SUM_IOS,			/* records */
    SUM_SIZED,			/* records with a size */
    SUM_BYTES,			/* their bytes */
    SUM_OPS,			/* reads and writes */
    SUM_READS,			/* reads */
    SUM_OPBYTES,		/* bytes of reads and writes */
    SUM_READBYTES,		/* bytes of reads */
    SUM_TIMED,			/* records with a response time */
    SUM_RESPONSE,		/* their response times, ns */
    NSUMS
};

#define SUM_BIT(s)	(1u << (s))

/* A statistic: its -stats name, the Attributes it sets, and the sums it
 * divides (den < 0: num per second of interval; den == NSUMS: num per
 * interval as it is). */
typedef struct Stat {
    const char *name;
    const char *series;
    const char *peak;
    const char *unit;
    const char *help;
    int num, den;
    double scale;		/* Applied to num / den. */
} Stat;

#define PER_SECOND	(-1)
#define AS_IS		NSUMS

static const Stat stats[] = {
    {"count", "IntervalCount", "IntervalCountPeakToMean", "",
	"I/Os in each interval", SUM_IOS, AS_IS, 1.0},
    {"rate", "IntervalRate", "IntervalRatePeakToMean", "IO/s",
	"I/Os per second in each interval", SUM_IOS, PER_SECOND, 1.0},
    {"bytes", "IntervalBytes", "IntervalBytesPeakToMean", "bytes",
	"bytes in each interval", SUM_BYTES, AS_IS, 1.0},
    {"bandwidth", "IntervalBandwidth", "IntervalBandwidthPeakToMean",
	"bytes/s", "bytes per second in each interval", SUM_BYTES,
	PER_SECOND, 1.0},
    {"readFraction", "IntervalReadFraction",
	"IntervalReadFractionPeakToMean", "",
	"fraction of the interval's I/Os that are reads", SUM_READS,
	SUM_OPS, 1.0},
    {"readByteFraction", "IntervalReadByteFraction",
	"IntervalReadByteFractionPeakToMean", "",
	"fraction of the interval's bytes that are read", SUM_READBYTES,
	SUM_OPBYTES, 1.0},
    {"meanSize", "IntervalMeanSize", "IntervalMeanSizePeakToMean", "bytes",
	"mean request size in each interval", SUM_BYTES, SUM_SIZED, 1.0},
    {"responseTime", "IntervalResponseTime",
	"IntervalResponseTimePeakToMean", "s",
	"mean response time (enqueue to completion) of the I/Os enqueued "
	"in each interval", SUM_RESPONSE, SUM_TIMED, 1.0 / RB_NS_PER_S},
};

#define NSTATS ((int)(sizeof(stats) / sizeof(stats[0])))

/* The quantities whose percentiles -stats may ask for per interval. */
enum {
    PCT_RESPONSE,		/* response time, ns */
    PCT_SIZE,			/* request size, bytes */
    NPCT_KINDS
};

static const struct {
    const char *stat;		/* -stats prefix, before P<q> */
    const char *series;		/* Attribute prefix, before P<q> */
    const char *unit;
    double scale;		/* Reported value per counted unit. */
    const char *help;
} pctKinds[NPCT_KINDS] = {
    {"responseTime", "IntervalResponseTime", "s", 1.0 / RB_NS_PER_S,
	"percentile of the response time (enqueue to completion, within "
	"1%) of the I/Os enqueued in each interval"},
    {"size", "IntervalSize", "bytes", 1.0,
	"percentile of the request size (within 1%) of the I/Os in each "
	"interval"},
};

#define MAX_PCT_STATS 16

/* A percentile statistic of -stats. */
typedef struct PctStat {
    int kind;			/* PCT_* */
    double q;			/* In (0, 100). */
    char series[64];		/* IntervalResponseTimeP99 ... */
} PctStat;

/* One logarithmic histogram per interval, for bins lo .. lo + n - 1 of
 * the grid of the count sum. */
typedef struct PctBins {
    int64_t lo, n, cap;
    Rb_LogHist *hist;
} PctBins;

typedef struct SeriesState {
    int64_t interval;		/* -interval, ns */
    Tcl_Obj *statsObj;		/* -stats */
    unsigned wanted;		/* Bit i: stats[i] is in -stats. */
    unsigned sums;		/* SUM_BIT of each sum they need. */
    PctStat pct[MAX_PCT_STATS];	/* Percentile statistics wanted. */
    int npct;
    unsigned pctKinds;		/* Bit k: histograms of kind k kept. */
    PctBins pbins[NPCT_KINDS];
    int sizeIndex, opIndex, finishIndex;
    Rb_TimeBins bins[NSUMS];
    int64_t response[RB_BATCH_SIZE];	/* Per batch record: its response
				 * time, or -1. */
    uint32_t sel[3][RB_BATCH_SIZE];	/* Sub-selections of a batch. */
} SeriesState;

static const Rb_Option seriesOptions[] = {
    {"-interval", RB_OPT_TIME, offsetof(SeriesState, interval), "10",
	"length of one interval"},
    {"-stats", RB_OPT_OBJ, offsetof(SeriesState, statsObj),
	"count rate bytes bandwidth readFraction readByteFraction meanSize "
	"responseTime", "statistics wanted per interval (also "
	"responseTimeP<q>, sizeP<q>: percentiles, 0 < q < 100)"},
    {NULL}
};

static const char *const seriesAttrs[] = {
    "IntervalCount", "IntervalCountPeakToMean",
    "IntervalRate", "IntervalRatePeakToMean",
    "IntervalBytes", "IntervalBytesPeakToMean",
    "IntervalBandwidth", "IntervalBandwidthPeakToMean",
    "IntervalReadFraction", "IntervalReadFractionPeakToMean",
    "IntervalReadByteFraction", "IntervalReadByteFractionPeakToMean",
    "IntervalMeanSize", "IntervalMeanSizePeakToMean",
    "IntervalResponseTime", "IntervalResponseTimePeakToMean",
    "IntervalResponseTimeP*", "IntervalSizeP*",
    NULL
};

/*
 * ParsePercentile --
 *	Whether name is a percentile statistic, <kind>P<q> with 0 < q < 100.
 * Results: 1 with *p filled, else 0.
 */
static int
ParsePercentile(const char *name, PctStat *p)
{
    int k;

    for (k = 0; k < NPCT_KINDS; k++) {
	size_t len = strlen(pctKinds[k].stat);
	char *end;
	double q;

	if (strncmp(name, pctKinds[k].stat, len) != 0 || name[len] != 'P'
		|| name[len + 1] == '\0') {
	    continue;
	}
	q = strtod(name + len + 1, &end);
	if (*end != '\0' || !(q > 0.0 && q < 100.0)) {
	    return 0;
	}
	p->kind = k;
	p->q = q;
	snprintf(p->series, sizeof(p->series), "%sP%g", pctKinds[k].series,
		q);
	return 1;
    }
    return 0;
}

/*
 * SeriesInit --
 *	Checks -interval and reads -stats into the bit sets of statistics
 *	and of the sums they need.
 * Results: TCL_OK or TCL_ERROR with a message in interp (or, from start,
 *	an analyzer error).
 */
static int
SeriesInit(Rb_Analyzer *a, Tcl_Interp *interp)
{
    SeriesState *st = a->state;
    Tcl_Obj **objv;
    int objc, i, k;

    if (st->interval <= 0) {
	return RbKitOptionError(a, interp,
		"-interval must be a positive time");
    }
    if (st->statsObj == NULL || Tcl_ListObjGetElements(NULL, st->statsObj,
	    &objc, &objv) != TCL_OK || objc == 0) {
	return RbKitOptionError(a, interp,
		"-stats must be a non-empty list of statistics");
    }
    st->wanted = 0;
    st->npct = 0;
    st->pctKinds = 0;
    st->sums = SUM_BIT(SUM_IOS);	/* The grid every series shows. */
    for (i = 0; i < objc; i++) {
	const char *name = Tcl_GetString(objv[i]);
	PctStat p;

	if (ParsePercentile(name, &p)) {
	    if (st->npct == MAX_PCT_STATS) {
		return RbKitOptionError(a, interp, "-stats may name at most "
			"%d percentile statistics", MAX_PCT_STATS);
	    }
	    st->pct[st->npct++] = p;
	    st->pctKinds |= 1u << p.kind;
	    /* The sums whose fields the percentile reads. */
	    st->sums |= p.kind == PCT_SIZE ? SUM_BIT(SUM_SIZED)
		    : SUM_BIT(SUM_TIMED) | SUM_BIT(SUM_RESPONSE);
	    continue;
	}
	for (k = 0; k < NSTATS && strcmp(stats[k].name, name) != 0; k++) {
	}
	if (k == NSTATS) {
	    return RbKitOptionError(a, interp, "unknown statistic \"%s\": "
		    "must be count, rate, bytes, bandwidth, readFraction, "
		    "readByteFraction, meanSize, responseTime, "
		    "responseTimeP<q> or sizeP<q> (0 < q < 100)", name);
	}
	st->wanted |= 1u << k;
	st->sums |= SUM_BIT(stats[k].num);
	if (stats[k].den >= 0 && stats[k].den < NSUMS) {
	    st->sums |= SUM_BIT(stats[k].den);
	}
    }
    return TCL_OK;
}

/*
 * PctBinsFree --
 *	Frees the histograms of pb and empties it.
 */
static void
PctBinsFree(PctBins *pb)
{
    int64_t j;

    for (j = 0; j < pb->n; j++) {
	Rb_LogHistFree(&pb->hist[j]);
    }
    free(pb->hist);
    memset(pb, 0, sizeof(*pb));
}

/*
 * SeriesStart --
 *	Checks the options again (configure may have changed them), resolves
 *	the fields the wanted sums read, and empties the bins.
 * Results: TCL_OK, or TCL_ERROR when an option or a field is bad.
 */
static int
SeriesStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SeriesState *st = a->state;
    int s;

    if (SeriesInit(a, NULL) != TCL_OK) {
	return TCL_ERROR;
    }
    st->sizeIndex = st->opIndex = st->finishIndex = -1;
    if ((st->sums & (SUM_BIT(SUM_SIZED) | SUM_BIT(SUM_BYTES)
	    | SUM_BIT(SUM_OPBYTES) | SUM_BIT(SUM_READBYTES)))
	    && RbKitIntegerField(a, run, "size", &st->sizeIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if ((st->sums & (SUM_BIT(SUM_OPS) | SUM_BIT(SUM_READS)
	    | SUM_BIT(SUM_OPBYTES) | SUM_BIT(SUM_READBYTES)))
	    && RbKitIntegerField(a, run, "op", &st->opIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if ((st->sums & (SUM_BIT(SUM_TIMED) | SUM_BIT(SUM_RESPONSE)))
	    && RbKitIntegerField(a, run, "finishTime", &st->finishIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    for (s = 0; s < NSUMS; s++) {
	Rb_TimeBinsStart(&st->bins[s], st->interval, run);
    }
    for (s = 0; s < NPCT_KINDS; s++) {
	PctBinsFree(&st->pbins[s]);
    }
    return TCL_OK;
}

/*
 * PctSlot --
 *	The histogram of interval k, the held range grown (with empty
 *	histograms) to include it.
 * Results: a pointer, or NULL when the range would pass
 *	RB_MAX_TIME_BINS intervals.
 */
static Rb_LogHist *
PctSlot(PctBins *pb, int64_t k)
{
    int64_t newLo, newHi, newN, shift, j;

    if (pb->n > 0 && k >= pb->lo && k < pb->lo + pb->n) {
	return &pb->hist[k - pb->lo];
    }
    newLo = pb->n == 0 || k < pb->lo ? k : pb->lo;
    newHi = pb->n == 0 || k > pb->lo + pb->n - 1 ? k : pb->lo + pb->n - 1;
    if ((uint64_t)newHi - (uint64_t)newLo >= (uint64_t)RB_MAX_TIME_BINS) {
	return NULL;
    }
    newN = newHi - newLo + 1;
    if (newN > pb->cap) {
	int64_t cap = pb->cap ? pb->cap : 16;

	while (cap < newN) {
	    cap *= 2;
	}
	pb->hist = Rb_Realloc(pb->hist, (size_t)cap * sizeof(Rb_LogHist));
	pb->cap = cap;
    }
    shift = pb->n == 0 ? 0 : pb->lo - newLo;
    if (shift > 0) {
	memmove(pb->hist + shift, pb->hist, (size_t)pb->n
		* sizeof(Rb_LogHist));
    }
    for (j = 0; j < newN; j++) {
	if (j < shift || j >= shift + pb->n) {
	    memset(&pb->hist[j], 0, sizeof(Rb_LogHist));
	    Rb_LogHistReset(&pb->hist[j]);
	}
    }
    pb->lo = newLo;
    pb->n = newN;
    return &pb->hist[k - pb->lo];
}

/*
 * PctAddColumn --
 *	Counts vals[i] of the records i = sel[0..n-1] (each known valid) in
 *	the histogram of its time's interval: a run of records in one
 *	interval at a time (RbLogHistAddMany), in order, as one at a time.
 */
static void
PctAddColumn(SeriesState *st, int kind, const int64_t *time,
	const int64_t *vals, const uint32_t *sel, int n)
{
    double v[256];
    Rb_LogHist *h = NULL;
    int64_t cur = 0, k;
    int j, m = 0, have = 0;

    for (j = 0; j < n; j++) {
	int i = (int)sel[j];

	if (time[i] == RB_ABSENT
		|| !Rb_TimeBinOf(&st->bins[SUM_IOS], time[i], &k)) {
	    continue;
	}
	if (!have || k != cur || m == (int)(sizeof(v) / sizeof(v[0]))) {
	    if (m > 0) {
		RbLogHistAddMany(h, v, m);
		m = 0;
	    }
	    if (!have || k != cur) {
		/* PctSlot may move the histograms: h is taken anew. */
		h = PctSlot(&st->pbins[kind], k);
		cur = k;
		have = 1;
	    }
	}
	if (h != NULL) {
	    v[m++] = (double)vals[i];
	}
    }
    if (m > 0) {
	RbLogHistAddMany(h, v, m);
    }
}

/*
 * SELECT --
 *	Sets out (an array) to the selected records, record i of the batch
 *	each, for which cond holds, and nout to how many; branch-free.
 */
#define SELECT(out, cond) do {						\
	nout = 0;							\
	for (j = 0; j < nsel; j++) {					\
	    int i = (int)sel[j];					\
	    (out)[nout] = (uint32_t)i;					\
	    nout += (cond);						\
	}								\
    } while (0)

/*
 * SeriesBatch --
 *	Adds the selected records to the wanted sums of their intervals.
 *	Every sum takes its origin from the first record with a time, so
 *	that all the sums share one grid.
 */
static void
SeriesBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    SeriesState *st = a->state;
    const int64_t *time = b->col[RB_IO_TIME];
    const int64_t *size = st->sizeIndex >= 0 ? b->col[st->sizeIndex] : NULL;
    const int64_t *op = st->opIndex >= 0 ? b->col[st->opIndex] : NULL;
    unsigned sums = st->sums;
    int j, s, nout, nsized = 0, nops = 0, nreads = 0;

    if (!st->bins[SUM_IOS].hasOrigin) {
	for (j = 0; j < nsel && time[sel[j]] == RB_ABSENT; j++) {
	}
	if (j == nsel) {
	    return;
	}
	for (s = 0; s < NSUMS; s++) {
	    Rb_TimeBinsSetOrigin(&st->bins[s], time[sel[j]]);
	}
    }
    Rb_TimeBinsAddColumn(&st->bins[SUM_IOS], time, NULL, sel, nsel);
    if (sums & SUM_BIT(SUM_SIZED)) {
	SELECT(st->sel[0], size[i] >= 0);
	nsized = nout;
	Rb_TimeBinsAddColumn(&st->bins[SUM_SIZED], time, NULL, st->sel[0],
		nsized);
    }
    if (sums & SUM_BIT(SUM_BYTES)) {
	Rb_TimeBinsAddColumn(&st->bins[SUM_BYTES], time, size, sel, nsel);
    }
    if (sums & (SUM_BIT(SUM_OPS) | SUM_BIT(SUM_OPBYTES))) {
	SELECT(st->sel[1], (op[i] == RB_OP_READ) | (op[i] == RB_OP_WRITE));
	nops = nout;
	if (sums & SUM_BIT(SUM_OPS)) {
	    Rb_TimeBinsAddColumn(&st->bins[SUM_OPS], time, NULL, st->sel[1],
		    nops);
	}
	if (sums & SUM_BIT(SUM_OPBYTES)) {
	    Rb_TimeBinsAddColumn(&st->bins[SUM_OPBYTES], time, size,
		    st->sel[1], nops);
	}
    }
    if (sums & (SUM_BIT(SUM_READS) | SUM_BIT(SUM_READBYTES))) {
	SELECT(st->sel[2], op[i] == RB_OP_READ);
	nreads = nout;
	if (sums & SUM_BIT(SUM_READS)) {
	    Rb_TimeBinsAddColumn(&st->bins[SUM_READS], time, NULL,
		    st->sel[2], nreads);
	}
	if (sums & SUM_BIT(SUM_READBYTES)) {
	    Rb_TimeBinsAddColumn(&st->bins[SUM_READBYTES], time, size,
		    st->sel[2], nreads);
	}
    }
    if (sums & SUM_BIT(SUM_RESPONSE)) {
	const int64_t *finish = b->col[st->finishIndex];

	/* A record missing either time, finished before it was enqueued,
	 * or with times too far apart for int64 (corrupt) has none. */
	for (j = 0; j < nsel; j++) {
	    int i = (int)sel[j];
	    int64_t ns;

	    st->response[i] = (time[i] == RB_ABSENT || finish[i] == RB_ABSENT
		    || finish[i] < time[i]
		    || __builtin_sub_overflow(finish[i], time[i], &ns))
		    ? -1 : ns;
	}
	SELECT(st->sel[0], st->response[i] >= 0);
	Rb_TimeBinsAddColumn(&st->bins[SUM_TIMED], time, NULL, st->sel[0],
		nout);
	Rb_TimeBinsAddColumn(&st->bins[SUM_RESPONSE], time, st->response,
		st->sel[0], nout);
	if (st->pctKinds & (1u << PCT_RESPONSE)) {
	    PctAddColumn(st, PCT_RESPONSE, time, st->response, st->sel[0],
		    nout);
	}
    }
    if (st->pctKinds & (1u << PCT_SIZE)) {
	SELECT(st->sel[1], size[i] != RB_ABSENT && size[i] >= 0);
	PctAddColumn(st, PCT_SIZE, time, size, st->sel[1], nout);
    }
}

/*
 * SetSeries --
 *	Sets a series Attribute of values (one per interval from start s,
 *	NaN where there is none) and its peak-to-mean ratio over the
 *	intervals that have a value (for an additive statistic, every
 *	interval: it reads 0 when empty).
 */
static void
SetSeries(Rb_Analyzer *a, const char *series, const char *unit,
	const char *help, const double *values, int64_t n, double start)
{
    SeriesState *st = a->state;
    double seconds = (double)st->interval / RB_NS_PER_S, peak = 0, sum = 0;
    int64_t j, counted = 0;
    Rb_Attribute *attr = Rb_AttrCreate(series, RB_ATTR_SERIES, unit, help);
    int timeCol = Rb_AttrAddColumn(attr, "time", "s", 0);
    int valueCol = Rb_AttrAddColumn(attr, "value", unit, 0);
    char name[96], peakHelp[200];

    for (j = 0; j < n; j++) {
	int row = Rb_AttrAddRow(attr);
	double v = values[j];

	Rb_AttrSetNum(attr, row, timeCol, start + (double)j * seconds);
	Rb_AttrSetNum(attr, row, valueCol, v);
	if (!isnan(v)) {
	    peak = counted == 0 || v > peak ? v : peak;
	    sum += v;
	    counted++;
	}
    }
    Rb_AnalyzerSet(a, attr);
    snprintf(name, sizeof(name), "%sPeakToMean", series);
    snprintf(peakHelp, sizeof(peakHelp), "highest %s value over its mean",
	    series);
    Rb_AnalyzerSet(a, Rb_AttrScalar(name, counted && sum > 0
	    ? peak / (sum / (double)counted) : 0.0, "", peakHelp));
}

/*
 * SetStat --
 *	Sets the series of statistic k and its peak-to-mean ratio.  An
 *	additive statistic (a sum, or a sum per second) has a value in every
 *	interval, 0 in an empty one; a ratio has none (NaN) where its
 *	denominator is 0.
 */
static void
SetStat(Rb_Analyzer *a, const Rb_RunInfo *run, int k)
{
    SeriesState *st = a->state;
    const Stat *stat = &stats[k];
    double seconds = (double)st->interval / RB_NS_PER_S, start = 0;
    double *num, *den = NULL;
    int64_t n, nd, j;

    num = Rb_TimeBinsValuesOn(&st->bins[stat->num], &st->bins[SUM_IOS],
	    run, &n, &start);
    if (stat->den >= 0 && stat->den < NSUMS) {
	den = Rb_TimeBinsValuesOn(&st->bins[stat->den], &st->bins[SUM_IOS],
		run, &nd, NULL);
    }
    for (j = 0; j < n; j++) {
	if (stat->den == PER_SECOND) {
	    num[j] = num[j] / seconds;
	} else if (den != NULL) {
	    num[j] = den[j] > 0 ? num[j] / den[j] * stat->scale : NAN;
	}
    }
    SetSeries(a, stat->series, stat->unit, stat->help, num, n, start);
    free(num);
    free(den);
}

/*
 * SetPercentile --
 *	Sets the series of percentile statistic p (NaN in an interval
 *	without a value of its quantity) and its peak-to-mean ratio.
 */
static void
SetPercentile(Rb_Analyzer *a, const Rb_RunInfo *run, const PctStat *p)
{
    SeriesState *st = a->state;
    const PctBins *pb = &st->pbins[p->kind];
    double start = 0, *values;
    int64_t kFirst = 0, n, k;
    char help[200];

    Rb_TimeBinsRange(&st->bins[SUM_IOS], run, &kFirst, &n, &start);
    values = Rb_Realloc(NULL, (size_t)(n + 1) * sizeof(double));
    for (k = kFirst; k < kFirst + n; k++) {
	const Rb_LogHist *h = k >= pb->lo && k < pb->lo + pb->n
		? &pb->hist[k - pb->lo] : NULL;

	values[k - kFirst] = h != NULL && h->moments.n > 0
		? Rb_LogHistPercentile(h, p->q) * pctKinds[p->kind].scale : NAN;
    }
    snprintf(help, sizeof(help), "%g-th %s", p->q, pctKinds[p->kind].help);
    SetSeries(a, p->series, pctKinds[p->kind].unit, help, values, n, start);
    free(values);
}

/*
 * SeriesEnd --
 *	Sets the series and peak-to-mean ratio of each wanted statistic.
 */
static int
SeriesEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    SeriesState *st = a->state;
    int k;

    for (k = 0; k < NSTATS; k++) {
	if (st->wanted & (1u << k)) {
	    SetStat(a, run, k);
	}
    }
    for (k = 0; k < st->npct; k++) {
	SetPercentile(a, run, &st->pct[k]);
    }
    return TCL_OK;
}

/*
 * SeriesMerge --
 *	Adds the bins of other (a shard's partial state) into a.
 * Results: TCL_ERROR when the statistics differ or the bins do not line
 *	up (see Rb_TimeBinsMerge).
 */
static int
SeriesMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    SeriesState *st = a->state;
    const SeriesState *ost = other->state;
    int64_t shift = 0, j;
    int s;

    if (st->sums != ost->sums || st->pctKinds != ost->pctKinds) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH",
		"cannot merge series of different statistics");
	return TCL_ERROR;
    }
    for (s = 0; s < NSUMS; s++) {
	if (Rb_TimeBinsMerge(a, &st->bins[s], &ost->bins[s]) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    if (!ost->bins[SUM_IOS].hasOrigin) {
	return TCL_OK;
    }
    /* The count sums merged, so the grids line up: other's interval k
     * is ours k + shift. */
    Rb_TimeBinOf(&st->bins[SUM_IOS], ost->bins[SUM_IOS].origin, &shift);
    for (s = 0; s < NPCT_KINDS; s++) {
	const PctBins *opb = &ost->pbins[s];

	for (j = 0; j < opb->n; j++) {
	    Rb_LogHist *h;

	    if (opb->hist[j].moments.n == 0) {
		continue;
	    }
	    if ((h = PctSlot(&st->pbins[s], opb->lo + j + shift)) == NULL) {
		Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH",
			"merged time series would exceed %lld intervals",
			(long long)RB_MAX_TIME_BINS);
		return TCL_ERROR;
	    }
	    Rb_LogHistMerge(a, h, &opb->hist[j]);
	}
    }
    return TCL_OK;
}

/*
 * SeriesFree --
 *	Frees the bins.
 */
static void
SeriesFree(Rb_Analyzer *a)
{
    SeriesState *st = a->state;
    int s;

    for (s = 0; s < NSUMS; s++) {
	Rb_TimeBinsFree(&st->bins[s]);
    }
    for (s = 0; s < NPCT_KINDS; s++) {
	PctBinsFree(&st->pbins[s]);
    }
}


/*
 * SeriesSerialize, SeriesDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
SeriesSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SeriesState *st = a->state;
    int64_t j;
    int s;

    Rb_BufPutInt(b, st->sums);
    for (s = 0; s < NSUMS; s++) {
	Rb_TimeBinsPut(b, &st->bins[s]);
    }
    for (s = 0; s < NPCT_KINDS; s++) {
	Rb_BufPutInt(b, st->pbins[s].lo);
	Rb_BufPutInt(b, st->pbins[s].n);
	for (j = 0; j < st->pbins[s].n; j++) {
	    Rb_LogHistPut(b, &st->pbins[s].hist[j]);
	}
    }
    return TCL_OK;
}

static int
SeriesDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SeriesState *st = a->state;
    int64_t lo, n, j;
    int s;

    st->sums = (unsigned)Rb_BufGetInt(b);
    for (s = 0; s < NSUMS; s++) {
	Rb_TimeBinsGet(b, &st->bins[s]);
    }
    for (s = 0; s < NPCT_KINDS && !b->bad; s++) {
	lo = Rb_BufGetInt(b);
	n = Rb_BufGetCount(b, 8);
	if (n > RB_MAX_TIME_BINS) {
	    b->bad = 1;
	}
	for (j = 0; j < n && !b->bad; j++) {
	    Rb_LogHist *h = PctSlot(&st->pbins[s], lo + j);

	    if (h == NULL) {
		b->bad = 1;
		break;
	    }
	    Rb_LogHistGet(b, h);
	}
    }
    return b->bad ? TCL_ERROR : TCL_OK;
}

/*
 * Mergeable: every statistic is a ratio of per-interval sums, and the
 * sums add (Rb_TimeBinsMerge).
 */
const Rb_AnalyzerClass Rb_SeriesAnalyzerClass = {
    .name = "SeriesAnalyzer",
    .help = "volume and mix per interval (count, rate, bytes, bandwidth, "
	    "read fractions, mean size, mean response time, response time "
	    "and size percentiles) with peak-to-mean ratios",
    .stateSize = sizeof(SeriesState),
    .options = seriesOptions,
    .attrs = seriesAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .init = SeriesInit,
    .start = SeriesStart,
    .batch = SeriesBatch,
    .end = SeriesEnd,
    .merge = SeriesMerge,
    .serialize = SeriesSerialize,
    .deserialize = SeriesDeserialize,
    .freeState = SeriesFree,
    /* And size, op and finishTime when the statistics need them (its
     * start hook resolves them). */
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
