/*
 * responseTimeAnalyzer.c --
 *
 *	ResponseTimeAnalyzer: percentiles, mean and count of the time from
 *	one time field of an I/O to another (by default enqueue to completion,
 *	the response time; startTime to finishTime gives the service time,
 *	time to startTime the queueing time).
 *
 *	Percentiles are estimated within 1% in bounded memory by the
 *	logarithmic buckets of logHist.c; count, mean, minimum and maximum
 *	are exact.  With -percentiles 0 only these exact moments are kept
 *	(no buckets: a Flow that needs the mean alone, many keys of it).
 */

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

typedef struct ResponseTimeState {
    char *fromField;		/* -from */
    char *toField;		/* -to */
    int fromIndex, toIndex;	/* Resolved at start. */
    int percentiles;		/* -percentiles: 0 keeps hist.moments only */
    Rb_LogHist hist;		/* Durations in ns. */
} ResponseTimeState;

static const Rb_Option responseTimeOptions[] = {
    {"-from", RB_OPT_FIELD, offsetof(ResponseTimeState, fromField), "time",
	"time field where the measured interval begins"},
    {"-to", RB_OPT_FIELD, offsetof(ResponseTimeState, toField), "finishTime",
	"time field where the measured interval ends"},
    {"-percentiles", RB_OPT_BOOL, offsetof(ResponseTimeState, percentiles),
	"1", "keep the percentile buckets (0: mean and count alone, no "
	"ResponseTime)"},
    {NULL}
};

static const char *const responseTimeAttrs[] = {
    "ResponseTime", "MeanResponseTime", "ResponseTimeCount", NULL
};

/*
 * ResolveTimeField --
 *	Looks up a -from/-to field and checks that it holds a time in ns.
 * Results: TCL_OK with *index set, or TCL_ERROR with an analyzer error.
 */
static int
ResolveTimeField(Rb_Analyzer *a, const Rb_RunInfo *run, const char *name,
	int *index)
{
    const Rb_Field *f;

    *index = -1;
    if (Rb_AnalyzerField(a, run, name, index) < 0 || *index < 0) {
	return TCL_ERROR;
    }
    f = &run->schema->fields[*index];
    if (f->type != RB_FT_INT || f->unit != RB_UNIT_NS) {
	return RbKitOptionError(a, NULL,
		"field \"%s\" is not a time in nanoseconds", f->name);
    }
    return TCL_OK;
}

/*
 * ResponseTimeStart --
 *	Resolves the fields and empties the buckets for a new run.
 * Results: TCL_OK, or TCL_ERROR when a field is unknown or not a time.
 */
static int
ResponseTimeStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ResponseTimeState *st = a->state;

    if (ResolveTimeField(a, run, st->fromField, &st->fromIndex) != TCL_OK
	    || ResolveTimeField(a, run, st->toField, &st->toIndex)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    Rb_LogHistReset(&st->hist);
    return TCL_OK;
}

/*
 * AddDurations --
 *	Counts n durations: in the buckets and moments, or with -percentiles
 *	0 in the moments alone, a group at a time as RbLogHistAddMany adds
 *	them (so the moments are the same either way).
 */
static void
AddDurations(ResponseTimeState *st, const double *v, int n)
{
    int i;

    if (st->percentiles) {
	RbLogHistAddMany(&st->hist, v, n);
	return;
    }
    for (i = 0; i < n; i += RB_LOGHIST_CHUNK) {
	RbMomentsAddMany(&st->hist.moments, v + i,
		n - i < RB_LOGHIST_CHUNK ? n - i : RB_LOGHIST_CHUNK);
    }
}

/*
 * ResponseTimeBatch --
 *	Counts the duration of each selected I/O.  I/Os missing either time,
 *	whose end precedes their beginning, or whose times are too far apart
 *	for int64 (corrupt), are skipped.
 */
static void
ResponseTimeBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    ResponseTimeState *st = a->state;
    const int64_t *from = b->col[st->fromIndex];
    const int64_t *to = b->col[st->toIndex];
    double v[256];
    int j, n = 0;

    for (j = 0; j < nsel; j++) {
	int64_t t0 = from[sel[j]], t1 = to[sel[j]], ns;

	if (t0 == RB_ABSENT || t1 == RB_ABSENT || t1 < t0
		|| __builtin_sub_overflow(t1, t0, &ns)) {
	    continue;
	}
	v[n++] = (double)ns;
	if (n == (int)(sizeof(v) / sizeof(v[0]))) {
	    AddDurations(st, v, n);
	    n = 0;
	}
    }
    AddDurations(st, v, n);
}

/*
 * ResponseTimeEnd --
 *	Sets ResponseTime (no rows when nothing was measured; not with
 *	-percentiles 0), MeanResponseTime and ResponseTimeCount.
 */
static int
ResponseTimeEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ResponseTimeState *st = a->state;
    const Rb_Moments *m = &st->hist.moments;

    if (st->percentiles) {
	Rb_AnalyzerSet(a, Rb_LogHistAttr(&st->hist, "ResponseTime", "s",
		1.0 / RB_NS_PER_S,
		"percentiles of the response time (within 1%)"));
    }
    Rb_AnalyzerSet(a, Rb_AttrScalar("MeanResponseTime", m->n > 0
	    ? m->mean / RB_NS_PER_S : 0.0, "s",
	    "mean response time"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("ResponseTimeCount", (double)m->n,
	    "", "number of I/Os whose response time was measured"));
    return TCL_OK;
}

/*
 * ResponseTimeMerge --
 *	Adds the buckets of other (a shard's partial state) into a.
 */
static int
ResponseTimeMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    ResponseTimeState *st = a->state;
    const ResponseTimeState *ost = other->state;

    return Rb_LogHistMerge(a, &st->hist, &ost->hist);
}

/*
 * ResponseTimeFree --
 *	Frees the buckets.
 */
static void
ResponseTimeFree(Rb_Analyzer *a)
{
    ResponseTimeState *st = a->state;

    Rb_LogHistFree(&st->hist);
}


/*
 * ResponseTimeSerialize, ResponseTimeDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
ResponseTimeSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ResponseTimeState *st = a->state;

    Rb_LogHistPut(b, &st->hist);
    return TCL_OK;
}

static int
ResponseTimeDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    ResponseTimeState *st = a->state;

    Rb_LogHistGet(b, &st->hist);
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_ResponseTimeAnalyzerClass = {
    .name = "ResponseTimeAnalyzer",
    .help = "response time (or service or queue time) percentiles, "
	    "mean and count",
    .stateSize = sizeof(ResponseTimeState),
    .options = responseTimeOptions,
    .attrs = responseTimeAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = ResponseTimeStart,
    .batch = ResponseTimeBatch,
    .end = ResponseTimeEnd,
    .merge = ResponseTimeMerge,
    .serialize = ResponseTimeSerialize,
    .deserialize = ResponseTimeDeserialize,
    .freeState = ResponseTimeFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
