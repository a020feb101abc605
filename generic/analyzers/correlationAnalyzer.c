/*
 * correlationAnalyzer.c --
 *
 *	CorrelationAnalyzer: staged analysis across Flows.  At end of trace
 *	it reads a series Attribute (RateAnalyzer's RateSeries by default)
 *	of its own Flow and of the -of Flow and sets Pearson's correlation
 *	of their values, row by row: whether two workloads rise and fall
 *	together.
 */

#include <math.h>
#include <stdlib.h>
#include "analyzers.h"

typedef struct CorrelationState {
    Tcl_Obj *of;		/* -of: the other Flow */
    char *attribute;		/* -attribute: the series in both */
    Rb_Flow *ofFlow;
} CorrelationState;

static const Rb_Option correlationOptions[] = {
    {"-of", RB_OPT_OBJ, offsetof(CorrelationState, of), NULL,
	"the other Flow"},
    {"-attribute", RB_OPT_STRING, offsetof(CorrelationState, attribute),
	"RateSeries", "the series Attribute in both Flows"},
    {NULL}
};

static const char *const correlationAttrs[] = {"Correlation", NULL};

/*
 * CorrelationStart --
 *	Resolves -of and declares the dependencies on both series.
 * Results: TCL_OK, or TCL_ERROR when -of is missing or not a Flow.
 */
static int
CorrelationStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    CorrelationState *st = a->state;

    if (st->of == NULL) {
	return RbKitOptionError(a, NULL, "-of must name the other Flow");
    }
    st->ofFlow = Rb_FlowFromObj(run->interp, st->of);
    if (st->ofFlow == NULL) {
	return RbKitOptionError(a, NULL, "-of \"%s\" is not a Flow",
		Tcl_GetString(st->of));
    }
    Rb_AnalyzerNeeds(a, a->flow, st->attribute);
    Rb_AnalyzerNeeds(a, st->ofFlow, st->attribute);
    return TCL_OK;
}

/*
 * SeriesColumn --
 *	The time and value columns of a Flow's series Attribute.
 * Results: the number of rows, or -1 when the Attribute is missing or
 *	lacks numeric time and value columns.
 */
static int
SeriesColumn(const Rb_Flow *flow, const char *name, const double **time,
	const double **value)
{
    const Rb_Attribute *attr = Rb_FlowGetAttr(flow, name);
    int t, v;

    if (attr == NULL || (t = Rb_AttrColumnIndex(attr, "time")) < 0
	    || (v = Rb_AttrColumnIndex(attr, "value")) < 0
	    || attr->cols[t].isText || attr->cols[v].isText) {
	return -1;
    }
    *time = attr->cols[t].num;
    *value = attr->cols[v].num;
    return attr->nrows;
}

/*
 * CorrelationEnd --
 *	Sets the correlation of the two series.  They must have the same
 *	rows at the same times (the same -interval in both producers);
 *	anything else is an error rather than a misleading number.
 */
static int
CorrelationEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    CorrelationState *st = a->state;
    const double *t1 = NULL, *v1 = NULL, *t2 = NULL, *v2 = NULL;
    int n1 = SeriesColumn(a->flow, st->attribute, &t1, &v1);
    int n2 = SeriesColumn(st->ofFlow, st->attribute, &t2, &v2), k;

    if (n1 < 0 || n2 < 0) {
	Rb_AnalyzerError(a, "RUBICON ANALYZER INPUT", "%s: \"%s\" is not a "
		"series with time and value columns in both Flows",
		a->cls->name, st->attribute);
	return TCL_ERROR;
    }
    for (k = 0; k < n1 && n1 == n2; k++) {
	if (fabs(t1[k] - t2[k]) > 1e-9 * (1 + fabs(t1[k]))) {
	    break;
	}
    }
    if (n1 != n2 || k < n1) {
	Rb_AnalyzerError(a, "RUBICON ANALYZER INPUT", "%s: the \"%s\" series "
		"of the two Flows do not line up (give both the same "
		"-interval)", a->cls->name, st->attribute);
	return TCL_ERROR;
    }
    Rb_AnalyzerSet(a, Rb_AttrScalar("Correlation", RbPearson(v1, v2, n1),
	    "", "Pearson correlation of this Flow's series with the other "
	    "Flow's"));
    return TCL_OK;
}

/*
 * Mergeable: it holds no partial state of its own; it reads the two
 * Flows' final series at end, after the merge of theirs.
 */
const Rb_AnalyzerClass Rb_CorrelationAnalyzerClass = {
    .name = "CorrelationAnalyzer",
    .help = "staged: Pearson correlation of a series (RateSeries) with "
	    "another Flow's",
    .stateSize = sizeof(CorrelationState),
    .options = correlationOptions,
    .attrs = correlationAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = CorrelationStart,
    .merge = RbKitStatelessMerge,
    .serialize = RbKitStatelessSerialize,
    .deserialize = RbKitStatelessDeserialize,
    .end = CorrelationEnd,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
