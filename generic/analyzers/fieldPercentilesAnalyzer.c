/*
 * fieldPercentilesAnalyzer.c --
 *
 *	FieldPercentilesAnalyzer: percentiles of any numeric field, within 1%
 *	in bounded memory (logarithmic buckets, logHist.c).
 */

#include <math.h>
#include <stddef.h>
#include "analyzers.h"

typedef struct FieldPercentilesState {
    char *field;		/* -field */
    int index;
    double scale;
    const char *unit;
    Rb_LogHist hist;
} FieldPercentilesState;

static const Rb_Option fieldPercentilesOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(FieldPercentilesState, field), "size",
	"numeric field whose percentiles are wanted"},
    {NULL}
};

static const char *const fieldPercentilesAttrs[] = {
    "FieldPercentiles", NULL
};

/*
 * FieldPercentilesStart --
 *	Resolves -field and empties the histogram.
 */
static int
FieldPercentilesStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    FieldPercentilesState *st = a->state;

    if (RbKitNumericField(a, run, st->field, &st->index) != TCL_OK) {
	return TCL_ERROR;
    }
    st->scale = RbKitFieldScale(run, st->index, &st->unit);
    Rb_LogHistReset(&st->hist);
    return TCL_OK;
}

/*
 * FieldPercentilesBatch --
 *	Counts the field's value of each selected record that has one.
 */
static void
FieldPercentilesBatch(Rb_Analyzer *a, const Rb_Batch *b,
	const uint32_t *sel, int nsel)
{
    FieldPercentilesState *st = a->state;
    int j;

    for (j = 0; j < nsel; j++) {
	Rb_LogHistAdd(&st->hist, Rb_FieldAsDouble(b, st->index, sel[j]));
    }
}

/*
 * FieldPercentilesEnd --
 *	Sets FieldPercentiles (no rows when no record had the field).
 */
static int
FieldPercentilesEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    FieldPercentilesState *st = a->state;

    Rb_AnalyzerSet(a, Rb_LogHistAttr(&st->hist, "FieldPercentiles",
	    st->unit, st->scale, "percentiles of the field (within 1%)"));
    return TCL_OK;
}

/*
 * FieldPercentilesMerge --
 *	Adds the buckets of other (a shard's partial state) into a.
 */
static int
FieldPercentilesMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    FieldPercentilesState *st = a->state;
    const FieldPercentilesState *ost = other->state;

    return Rb_LogHistMerge(a, &st->hist, &ost->hist);
}

/*
 * FieldPercentilesFree --
 *	Frees the buckets.
 */
static void
FieldPercentilesFree(Rb_Analyzer *a)
{
    FieldPercentilesState *st = a->state;

    Rb_LogHistFree(&st->hist);
}


/*
 * FieldPercentilesSerialize, FieldPercentilesDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
FieldPercentilesSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    FieldPercentilesState *st = a->state;

    Rb_LogHistPut(b, &st->hist);
    return TCL_OK;
}

static int
FieldPercentilesDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    FieldPercentilesState *st = a->state;

    Rb_LogHistGet(b, &st->hist);
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_FieldPercentilesAnalyzerClass = {
    .name = "FieldPercentilesAnalyzer",
    .help = "percentiles of any numeric field (within 1%)",
    .stateSize = sizeof(FieldPercentilesState),
    .options = fieldPercentilesOptions,
    .attrs = fieldPercentilesAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = FieldPercentilesStart,
    .batch = FieldPercentilesBatch,
    .end = FieldPercentilesEnd,
    .merge = FieldPercentilesMerge,
    .serialize = FieldPercentilesSerialize,
    .deserialize = FieldPercentilesDeserialize,
    .freeState = FieldPercentilesFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
