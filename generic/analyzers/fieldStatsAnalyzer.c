/*
 * fieldStatsAnalyzer.c --
 *
 *	FieldStatsAnalyzer: count, sum, mean, minimum, maximum and standard
 *	deviation of any numeric field, named by -field, so that a simple
 *	statistic needs no C.
 */

#include <math.h>
#include <stddef.h>
#include "analyzers.h"

typedef struct FieldStatsState {
    char *field;		/* -field */
    int index;
    double scale;		/* 1e-9 for a time field (reported in s). */
    const char *unit;
    Rb_Moments moments;
} FieldStatsState;

static const Rb_Option fieldStatsOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(FieldStatsState, field), "size",
	"numeric field to summarize"},
    {NULL}
};

static const char *const fieldStatsAttrs[] = {
    "FieldCount", "FieldSum", "FieldMean", "FieldMin", "FieldMax",
    "FieldStddev", NULL
};

/*
 * FieldStatsStart --
 *	Resolves -field and resets the sums.
 */
static int
FieldStatsStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    FieldStatsState *st = a->state;

    if (RbKitNumericField(a, run, st->field, &st->index) != TCL_OK) {
	return TCL_ERROR;
    }
    st->scale = RbKitFieldScale(run, st->index, &st->unit);
    Rb_MomentsReset(&st->moments);
    return TCL_OK;
}

/*
 * FieldStatsBatch --
 *	Adds the field's value of each selected record that has one, 256 at
 *	a time (RbMomentsAddMany).
 */
static void
FieldStatsBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    FieldStatsState *st = a->state;
    double v[256];
    int j, n = 0;

    for (j = 0; j < nsel; j++) {
	double x = Rb_FieldAsDouble(b, st->index, sel[j]);

	if (!isnan(x)) {
	    v[n++] = x;
	    if (n == (int)(sizeof(v) / sizeof(v[0]))) {
		RbMomentsAddMany(&st->moments, v, n);
		n = 0;
	    }
	}
    }
    RbMomentsAddMany(&st->moments, v, n);
}

/*
 * FieldStatsEnd --
 *	Sets the six scalars (all 0 when no record had the field).
 */
static int
FieldStatsEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    FieldStatsState *st = a->state;
    const Rb_Moments *m = &st->moments;
    int any = m->n > 0;

    Rb_AnalyzerSet(a, Rb_AttrScalar("FieldCount", (double)m->n, "",
	    "number of records with a value in the field"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("FieldSum", m->sum * st->scale,
	    st->unit, "sum of the field's values"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("FieldMean", any ? m->mean * st->scale
	    : 0.0, st->unit, "mean of the field's values"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("FieldMin", any ? m->min * st->scale
	    : 0.0, st->unit, "smallest value of the field"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("FieldMax", any ? m->max * st->scale
	    : 0.0, st->unit, "largest value of the field"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("FieldStddev",
	    Rb_MomentsStddev(m) * st->scale, st->unit,
	    "population standard deviation of the field's values"));
    return TCL_OK;
}

/*
 * FieldStatsMerge --
 *	Adds the moments of other (a shard's partial state) into a.
 */
static int
FieldStatsMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    FieldStatsState *st = a->state;
    const FieldStatsState *ost = other->state;

    Rb_MomentsMerge(&st->moments, &ost->moments);
    return TCL_OK;
}


/*
 * FieldStatsSerialize, FieldStatsDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
FieldStatsSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    FieldStatsState *st = a->state;

    Rb_MomentsPut(b, &st->moments);
    return TCL_OK;
}

static int
FieldStatsDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    FieldStatsState *st = a->state;

    Rb_MomentsGet(b, &st->moments);
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_FieldStatsAnalyzerClass = {
    .name = "FieldStatsAnalyzer",
    .help = "count, sum, mean, min, max and standard deviation of any "
	    "numeric field",
    .stateSize = sizeof(FieldStatsState),
    .options = fieldStatsOptions,
    .attrs = fieldStatsAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = FieldStatsStart,
    .batch = FieldStatsBatch,
    .end = FieldStatsEnd,
    .merge = FieldStatsMerge,
    .serialize = FieldStatsSerialize,
    .deserialize = FieldStatsDeserialize,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
