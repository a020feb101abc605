/*
 * shareAnalyzer.c --
 *
 *	ShareAnalyzer: staged analysis across Flows.  At end of trace it
 *	reads a scalar Attribute of its own Flow and the same (or another)
 *	Attribute of a reference Flow, and sets their ratio: e.g. a device's
 *	share of all bandwidth.  The engine runs the producers' end first.
 */

#include <math.h>
#include "analyzers.h"

typedef struct ShareState {
    char *attribute;		/* -attribute: name in this flow */
    Tcl_Obj *of;		/* -of: the reference Flow */
    char *ofAttribute;		/* -ofattribute: name there (default same) */
    Rb_Flow *ofFlow;
} ShareState;

static const Rb_Option shareOptions[] = {
    {"-attribute", RB_OPT_STRING, offsetof(ShareState, attribute), "Bytes",
     "scalar Attribute of this Flow (the numerator)"},
    {"-of", RB_OPT_OBJ, offsetof(ShareState, of), NULL,
     "the reference Flow (the denominator's Flow)"},
    {"-ofattribute", RB_OPT_STRING, offsetof(ShareState, ofAttribute), "",
     "scalar Attribute of the reference Flow (default: -attribute)"},
    {NULL}
};

static const char *const shareAttrs[] = {"Share", NULL};

/*
 * ShareStart --
 *	Resolves the reference flow and declares both dependencies, so that
 *	the analyzers setting them end first (a cycle is reported then).
 */
static int
ShareStart(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ShareState *s = a->state;
    const char *other = *s->ofAttribute ? s->ofAttribute : s->attribute;

    if (s->of == NULL) {
	Rb_AnalyzerError(a, "RUBICON ANALYZER OPTION",
		"-of must name the reference Flow");
	return TCL_ERROR;
    }
    s->ofFlow = Rb_FlowFromObj(run->interp, s->of);
    if (s->ofFlow == NULL) {
	Rb_AnalyzerError(a, "RUBICON ANALYZER OPTION",
		"-of \"%s\" is not a Flow", Tcl_GetString(s->of));
	return TCL_ERROR;
    }
    Rb_AnalyzerNeeds(a, a->flow, s->attribute);
    Rb_AnalyzerNeeds(a, s->ofFlow, other);
    return TCL_OK;
}

/*
 * ScalarValue --
 *	The value of a scalar Attribute, or NaN if absent or not scalar.
 */
static double
ScalarValue(const Rb_Flow *flow, const char *name)
{
    const Rb_Attribute *attr = Rb_FlowGetAttr(flow, name);

    if (attr == NULL || attr->nrows < 1 || attr->ncols < 1
	    || attr->cols[0].isText) {
	return NAN;
    }
    return attr->cols[0].num[0];
}

static int
ShareEnd(Rb_Analyzer *a, const Rb_RunInfo *run)
{
    ShareState *s = a->state;
    const char *other = *s->ofAttribute ? s->ofAttribute : s->attribute;
    double mine = ScalarValue(a->flow, s->attribute);
    double total = ScalarValue(s->ofFlow, other);

    Rb_AnalyzerSet(a, Rb_AttrScalar("Share", total != 0 ? mine / total
	    : NAN, "", "this Flow's attribute as a fraction of the "
	    "reference Flow's"));
    return TCL_OK;
}

/*
 * Mergeable: it holds no partial state of its own; it reads the two
 * Flows' final Attributes at end, after the merge of theirs.
 */
const Rb_AnalyzerClass Rb_ShareAnalyzerClass = {
    .name = "ShareAnalyzer",
    .help = "staged: a scalar Attribute as a fraction of another Flow's",
    .stateSize = sizeof(ShareState),
    .options = shareOptions,
    .attrs = shareAttrs,
    .mergeable = 1,
    .start = ShareStart,
    .merge = RbKitStatelessMerge,
    .serialize = RbKitStatelessSerialize,
    .deserialize = RbKitStatelessDeserialize,
    .end = ShareEnd,
    .fields = RB_FIELD_BIT(RB_IO_TIME),
};
