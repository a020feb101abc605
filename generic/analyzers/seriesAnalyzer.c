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

typedef struct SeriesState {
    int64_t interval;		/* -interval, ns */
    Tcl_Obj *statsObj;		/* -stats */
    unsigned wanted;		/* Bit i: stats[i] is in -stats. */
    unsigned sums;		/* SUM_BIT of each sum they need. */
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
	"responseTime", "statistics wanted per interval"},
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
    NULL
};

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
	return Rb_KitOptionError(a, interp,
		"-interval must be a positive time");
    }
    if (st->statsObj == NULL || Tcl_ListObjGetElements(NULL, st->statsObj,
	    &objc, &objv) != TCL_OK || objc == 0) {
	return Rb_KitOptionError(a, interp,
		"-stats must be a non-empty list of statistics");
    }
    st->wanted = 0;
    st->sums = SUM_BIT(SUM_IOS);	/* The grid every series shows. */
    for (i = 0; i < objc; i++) {
	const char *name = Tcl_GetString(objv[i]);

	for (k = 0; k < NSTATS && strcmp(stats[k].name, name) != 0; k++) {
	}
	if (k == NSTATS) {
	    return Rb_KitOptionError(a, interp, "unknown statistic \"%s\": "
		    "must be count, rate, bytes, bandwidth, readFraction, "
		    "readByteFraction, meanSize or responseTime", name);
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
	    && Rb_KitIntegerField(a, run, "size", &st->sizeIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if ((st->sums & (SUM_BIT(SUM_OPS) | SUM_BIT(SUM_READS)
	    | SUM_BIT(SUM_OPBYTES) | SUM_BIT(SUM_READBYTES)))
	    && Rb_KitIntegerField(a, run, "op", &st->opIndex) != TCL_OK) {
	return TCL_ERROR;
    }
    if ((st->sums & (SUM_BIT(SUM_TIMED) | SUM_BIT(SUM_RESPONSE)))
	    && Rb_KitIntegerField(a, run, "finishTime", &st->finishIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    for (s = 0; s < NSUMS; s++) {
	Rb_TimeBinsStart(&st->bins[s], st->interval, run);
    }
    return TCL_OK;
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
    }
}

/*
 * SetStat --
 *	Sets the series of statistic k and its peak-to-mean ratio.  An
 *	additive statistic (a sum, or a sum per second) has a value in every
 *	interval, 0 in an empty one, and its peak-to-mean is over all of
 *	them; a ratio has none (NaN) where its denominator is 0, and its
 *	peak-to-mean is over the intervals that have one.
 */
static void
SetStat(Rb_Analyzer *a, const Rb_RunInfo *run, int k)
{
    SeriesState *st = a->state;
    const Stat *stat = &stats[k];
    double seconds = (double)st->interval / RB_NS_PER_S, start = 0;
    double *num, *den = NULL, peak = 0, sum = 0;
    int64_t n, nd, j, counted = 0;
    Rb_Attribute *attr = Rb_AttrCreate(stat->series, RB_ATTR_SERIES,
	    stat->unit, stat->help);
    int timeCol = Rb_AttrAddColumn(attr, "time", "s", 0);
    int valueCol = Rb_AttrAddColumn(attr, "value", stat->unit, 0);
    char help[200];

    num = Rb_TimeBinsValuesOn(&st->bins[stat->num], &st->bins[SUM_IOS],
	    run, &n, &start);
    if (stat->den >= 0 && stat->den < NSUMS) {
	den = Rb_TimeBinsValuesOn(&st->bins[stat->den], &st->bins[SUM_IOS],
		run, &nd, NULL);
    }
    for (j = 0; j < n; j++) {
	int row = Rb_AttrAddRow(attr);
	double v;

	if (stat->den == PER_SECOND) {
	    v = num[j] / seconds;
	} else if (den == NULL) {
	    v = num[j];
	} else {
	    v = den[j] > 0 ? num[j] / den[j] * stat->scale : NAN;
	}
	Rb_AttrSetNum(attr, row, timeCol, start + (double)j * seconds);
	Rb_AttrSetNum(attr, row, valueCol, v);
	if (!isnan(v)) {
	    peak = counted == 0 || v > peak ? v : peak;
	    sum += v;
	    counted++;
	}
    }
    free(num);
    free(den);
    Rb_AnalyzerSet(a, attr);
    snprintf(help, sizeof(help), "highest %s value over its mean",
	    stat->series);
    Rb_AnalyzerSet(a, Rb_AttrScalar(stat->peak, counted && sum > 0
	    ? peak / (sum / (double)counted) : 0.0, "", help));
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
    int s;

    if (st->sums != ost->sums) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH",
		"cannot merge series of different statistics");
	return TCL_ERROR;
    }
    for (s = 0; s < NSUMS; s++) {
	if (Rb_TimeBinsMerge(a, &st->bins[s], &ost->bins[s]) != TCL_OK) {
	    return TCL_ERROR;
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
}


/*
 * SeriesSerialize, SeriesDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
SeriesSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SeriesState *st = a->state;

    int s;

    Rb_BufPutInt(b, st->sums);
    for (s = 0; s < NSUMS; s++) {
	Rb_TimeBinsPut(b, &st->bins[s]);
    }
    return TCL_OK;
}

static int
SeriesDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    SeriesState *st = a->state;

    int s;

    st->sums = (unsigned)Rb_BufGetInt(b);
    for (s = 0; s < NSUMS; s++) {
	Rb_TimeBinsGet(b, &st->bins[s]);
    }
    return TCL_OK;
}

/*
 * Mergeable: every statistic is a ratio of per-interval sums, and the
 * sums add (Rb_TimeBinsMerge).
 */
const Rb_AnalyzerClass Rb_SeriesAnalyzerClass = {
    .name = "SeriesAnalyzer",
    .help = "volume and mix per interval (count, rate, bytes, bandwidth, "
	    "read fractions, mean size, mean response time) with "
	    "peak-to-mean ratios",
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
