/*
 * distinctAnalyzer.c --
 *
 *	DistinctAnalyzer: how many distinct values a field takes; exact up
 *	to -limit values, then a HyperLogLog estimate (distinctSet.c).
 */

#include <stddef.h>
#include "analyzers.h"

typedef struct DistinctState {
    char *field;		/* -field */
    int64_t limit;		/* -limit */
    int index;
    Rb_DistinctSet set;
} DistinctState;

static const Rb_Option distinctOptions[] = {
    {"-field", RB_OPT_FIELD, offsetof(DistinctState, field), "pid",
	"field whose distinct values are counted"},
    {"-limit", RB_OPT_INT, offsetof(DistinctState, limit), "1000000",
	"values counted exactly before switching to an estimate"},
    {NULL}
};

static const char *const distinctAttrs[] = {
    "Distinct", "DistinctExact", NULL
};

/*
 * DistinctStart --
 *	Resolves -field (any type: text values are counted by their interned
 *	id) and empties the set.
 */
static int
DistinctStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    DistinctState *st = a->state;

    if (st->limit < 0) {
	return RbKitOptionError(a, NULL, "-limit must not be negative");
    }
    if (Rb_AnalyzerField(a, run, st->field, &st->index) != TCL_OK
	    || st->index < 0) {
	return TCL_ERROR;
    }
    RbDistinctReset(&st->set, st->limit);
    return TCL_OK;
}

/*
 * DistinctBatch --
 *	Adds the field's value of each selected record that has one.
 */
static void
DistinctBatch(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    DistinctState *st = a->state;
    const int64_t *col = b->col[st->index];
    int j;

    for (j = 0; j < nsel; j++) {
	if (col[sel[j]] != RB_ABSENT) {
	    RbDistinctAdd(&st->set, col[sel[j]]);
	}
    }
}

/*
 * DistinctEnd --
 *	Sets Distinct and DistinctExact.
 */
static int
DistinctEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    DistinctState *st = a->state;

    Rb_AnalyzerSet(a, Rb_AttrScalar("Distinct", RbDistinctCount(&st->set),
	    "", "number of distinct values of the field"));
    Rb_AnalyzerSet(a, Rb_AttrScalar("DistinctExact",
	    RbDistinctIsExact(&st->set), "",
	    "1 if Distinct is exact, 0 if a HyperLogLog estimate (0.8%)"));
    return TCL_OK;
}

/*
 * DistinctMerge --
 *	Adds the values of other (a shard's partial state) into a.
 */
static int
DistinctMerge(Rb_Analyzer *a, const Rb_Analyzer *other)
{
    DistinctState *st = a->state;
    const DistinctState *ost = other->state;

    RbDistinctMerge(&st->set, &ost->set);
    return TCL_OK;
}

/*
 * DistinctFree --
 *	Frees the set.
 */
static void
DistinctFree(Rb_Analyzer *a)
{
    DistinctState *st = a->state;

    RbDistinctFree(&st->set);
}


/*
 * DistinctSerialize, DistinctDeserialize --
 *	serialize and deserialize hooks: the partial state of a shard.
 */
static int
DistinctSerialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    DistinctState *st = a->state;

    if (!RbDistinctPut(b, &st->set, RbKitTextSchema(run, st->index))) {
	Rb_AnalyzerError(a, "RUBICON MERGE MISMATCH", "%s: more than -limit "
		"distinct text values cannot be merged across processes "
		"(raise -limit, or run in one process)", a->cls->name);
	return TCL_ERROR;
    }
    return TCL_OK;
}

static int
DistinctDeserialize(Rb_Analyzer *a, const Rb_RunInfo *run, Rb_Buf *b)
{
    DistinctState *st = a->state;

    RbDistinctGet(b, &st->set, RbKitTextSchema(run, st->index));
    return TCL_OK;
}

const Rb_AnalyzerClass Rb_DistinctAnalyzerClass = {
    .name = "DistinctAnalyzer",
    .help = "number of distinct values of a field (exact to -limit, then "
	    "HyperLogLog)",
    .stateSize = sizeof(DistinctState),
    .options = distinctOptions,
    .attrs = distinctAttrs,
    .mergeable = 1,
    .perRecordState = 1,
    .start = DistinctStart,
    .batch = DistinctBatch,
    .end = DistinctEnd,
    .merge = DistinctMerge,
    .serialize = DistinctSerialize,
    .deserialize = DistinctDeserialize,
    .freeState = DistinctFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
