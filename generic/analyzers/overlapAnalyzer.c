/*
 * overlapAnalyzer.c --
 *
 *	OverlapAnalyzer: staged analysis across Flows.  At end of trace it
 *	reads the ON periods (OnOffAnalyzer's OnPeriods table) of its own
 *	Flow and of each Flow of -flows, and sets how long each of those was
 *	active at the same time as this one: whether two workloads' busy
 *	times coincide, as storage provisioning needs to know.
 */

#include <stdlib.h>
#include <string.h>
#include "analyzers.h"

typedef struct OverlapState {
    Tcl_Obj *flows;		/* -flows: list of Flows */
    char *attribute;		/* -attribute: the periods table's name */
    Rb_Flow **others;		/* Resolved at start. */
    int nothers;
} OverlapState;

static const Rb_Option overlapOptions[] = {
    {"-flows", RB_OPT_OBJ, offsetof(OverlapState, flows), NULL,
	"the other Flows (each with an OnOffAnalyzer)"},
    {"-attribute", RB_OPT_STRING, offsetof(OverlapState, attribute),
	"OnPeriods", "the ON-periods table in every Flow"},
    {NULL}
};

static const char *const overlapAttrs[] = {"Overlap", NULL};

/*
 * OverlapStart --
 *	Resolves -flows and declares the dependencies on every Flow's ON
 *	periods, so that the OnOffAnalyzers end first.
 * Results: TCL_OK, or TCL_ERROR when -flows is empty or names a non-Flow.
 */
static int
OverlapStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    OverlapState *st = a->state;
    Tcl_Obj **objv;
    int objc, k;

    if (st->flows == NULL || Tcl_ListObjGetElements(NULL, st->flows, &objc,
	    &objv) != TCL_OK || objc == 0) {
	return RbKitOptionError(a, NULL,
		"-flows must list the Flows to compare with");
    }
    st->others = Rb_ReallocArray(st->others, objc, sizeof(Rb_Flow *));
    st->nothers = 0;
    for (k = 0; k < objc; k++) {
	Rb_Flow *flow = Rb_FlowFromObj(run->interp, objv[k]);

	if (flow == NULL) {
	    return RbKitOptionError(a, NULL, "-flows: \"%s\" is not a Flow",
		    Tcl_GetString(objv[k]));
	}
	st->others[st->nothers++] = flow;
	Rb_AnalyzerNeeds(a, flow, st->attribute);
    }
    Rb_AnalyzerNeeds(a, a->flow, st->attribute);
    return TCL_OK;
}

/*
 * Periods --
 *	The start and end columns of a Flow's ON-periods table.
 * Results: the number of periods (rows), 0 when the table is missing
 *	or has no start and end columns.
 */
static int
Periods(const Rb_Flow *flow, const char *name, const double **start,
	const double **end)
{
    const Rb_Attribute *attr = Rb_FlowGetAttr(flow, name);
    int s, e;

    if (attr == NULL || (s = Rb_AttrColumnIndex(attr, "start")) < 0
	    || (e = Rb_AttrColumnIndex(attr, "end")) < 0
	    || attr->cols[s].isText || attr->cols[e].isText) {
	return 0;
    }
    *start = attr->cols[s].num;
    *end = attr->cols[e].num;
    return attr->nrows;
}

/*
 * Length --
 *	The total length of n periods.
 */
static double
Length(const double *start, const double *end, int n)
{
    double sum = 0;
    int k;

    for (k = 0; k < n; k++) {
	sum += end[k] - start[k];
    }
    return sum;
}

/*
 * Intersection --
 *	The total length of the intersection of two lists of disjoint
 *	periods, each in time order: one merge-like pass.
 */
static double
Intersection(const double *s1, const double *e1, int n1, const double *s2,
	const double *e2, int n2)
{
    double sum = 0;
    int i = 0, j = 0;

    while (i < n1 && j < n2) {
	double lo = s1[i] > s2[j] ? s1[i] : s2[j];
	double hi = e1[i] < e2[j] ? e1[i] : e2[j];

	if (hi > lo) {
	    sum += hi - lo;
	}
	if (e1[i] < e2[j]) {
	    i++;
	} else {
	    j++;
	}
    }
    return sum;
}

/*
 * OverlapEnd --
 *	Sets the table: for each other Flow, the time both were ON and that
 *	time as a fraction of this Flow's and of the other's ON time.
 */
static int
OverlapEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    OverlapState *st = a->state;
    Rb_Attribute *table = Rb_AttrCreate("Overlap", RB_ATTR_TABLE, "s",
	    "time this Flow was ON at the same time as each other Flow");
    const double *s1 = NULL, *e1 = NULL;
    int n1 = Periods(a->flow, st->attribute, &s1, &e1), k;
    double on1 = Length(s1, e1, n1);
    int flowCol, overlapCol, fracCol, ofFracCol;

    flowCol = Rb_AttrAddColumn(table, "flow", "", 1);
    overlapCol = Rb_AttrAddColumn(table, "overlap", "s", 0);
    fracCol = Rb_AttrAddColumn(table, "fraction", "", 0);
    ofFracCol = Rb_AttrAddColumn(table, "ofFraction", "", 0);
    for (k = 0; k < st->nothers; k++) {
	const double *s2 = NULL, *e2 = NULL;
	int n2 = Periods(st->others[k], st->attribute, &s2, &e2);
	double both = Intersection(s1, e1, n1, s2, e2, n2);
	double on2 = Length(s2, e2, n2);
	int row = Rb_AttrAddRow(table);

	Rb_AttrSetText(table, row, flowCol, Rb_FlowName(st->others[k]));
	Rb_AttrSetNum(table, row, overlapCol, both);
	Rb_AttrSetNum(table, row, fracCol, on1 > 0 ? both / on1 : 0.0);
	Rb_AttrSetNum(table, row, ofFracCol, on2 > 0 ? both / on2 : 0.0);
    }
    Rb_AnalyzerSet(a, table);
    return TCL_OK;
}

/*
 * OverlapFree --
 *	Frees the resolved Flow list (the Flows belong to the engine).
 */
static void
OverlapFree(Rb_Analyzer *a)
{
    OverlapState *st = a->state;

    free(st->others);
    st->others = NULL;
}

/*
 * Mergeable: it holds no partial state of its own; it reads the other
 * Flows' final Attributes at end, after the merge of theirs.
 */
const Rb_AnalyzerClass Rb_OverlapAnalyzerClass = {
    .name = "OverlapAnalyzer",
    .help = "staged: time overlap of this Flow's ON periods with other "
	    "Flows'",
    .stateSize = sizeof(OverlapState),
    .options = overlapOptions,
    .attrs = overlapAttrs,
    .mergeable = 1,
    .perRecordState = 0,
    .start = OverlapStart,
    .merge = RbKitStatelessMerge,
    .serialize = RbKitStatelessSerialize,
    .deserialize = RbKitStatelessDeserialize,
    .end = OverlapEnd,
    .freeState = OverlapFree,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
