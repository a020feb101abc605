/*
 * flow.c --
 *
 *	Flows: named containers of Analyzers and the Attributes they set, and
 *	the Flow Tcl command ("Flow ?name? ?analyzer ...?") with its object
 *	subcommands (get, attributes, add, analyzers, ...).
 */

#include <string.h>
#include "engine.h"

/*
 * RbFlowCreate --
 *	Makes a Flow and its DAG node, without a Tcl command.
 */
Rb_Flow *
RbFlowCreate(Tcl_Interp *interp, const char *name)
{
    Rb_Flow *flow = Rb_Alloc(sizeof(*flow));
    Rb_Engine *eng = RbEngineGet(interp);

    flow->name = Rb_Strdup(name);
    flow->interp = interp;
    Tcl_InitHashTable(&flow->attrs, TCL_STRING_KEYS);
    Tcl_InitHashTable(&flow->aliases, TCL_STRING_KEYS);
    flow->node = RbNodeCreate(eng, NODE_FLOW);
    flow->node->flow = flow;
    return flow;
}

/*
 * The paper's Attribute names (its Figures 4 to 6 and Table 1), as
 * aliases of the Attributes the kit computes under its own names.
 */
static const struct { const char *alias, *name; } attrAliases[] = {
    {"IORate", "Rate"},
    {"Request Rate", "Rate"},
    {"RequestRate", "Rate"},
    {"AvRequestSize", "MeanSize"},
    {"Request Size", "MeanSize"},
    {"RequestSize", "MeanSize"},
    {"Read Proportion", "ReadFraction"},
    {"ReadProportion", "ReadFraction"},
};

/*
 * RbAttrCanonicalName --
 *	The kit's name for one of the paper's Attribute names.
 * Results: the kit's name, or NULL if name is no alias.
 */
const char *
RbAttrCanonicalName(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(attrAliases) / sizeof(attrAliases[0]); i++) {
	if (strcmp(attrAliases[i].alias, name) == 0) {
	    return attrAliases[i].name;
	}
    }
    return NULL;
}

/*
 * ClearAliases --
 *	Frees the alias views (each a copy of an Attribute's header with its
 *	own name, sharing the columns of the Attribute it shows).
 */
static void
ClearAliases(Rb_Flow *flow)
{
    Tcl_HashSearch search;
    Tcl_HashEntry *e;

    for (e = Tcl_FirstHashEntry(&flow->aliases, &search); e;
	    e = Tcl_NextHashEntry(&search)) {
	Rb_Attribute *view = Tcl_GetHashValue(e);

	free(view->name);
	free(view);
    }
    Tcl_DeleteHashTable(&flow->aliases);
    Tcl_InitHashTable(&flow->aliases, TCL_STRING_KEYS);
}

/*
 * RbFlowClearAttrs --
 *	Frees every Attribute of the flow (before a new run).
 */
void
RbFlowClearAttrs(Rb_Flow *flow)
{
    Tcl_HashSearch search;
    Tcl_HashEntry *e;

    ClearAliases(flow);
    for (e = Tcl_FirstHashEntry(&flow->attrs, &search); e;
	    e = Tcl_NextHashEntry(&search)) {
	Rb_AttrFree(Tcl_GetHashValue(e));
    }
    Tcl_DeleteHashTable(&flow->attrs);
    Tcl_InitHashTable(&flow->attrs, TCL_STRING_KEYS);
}

/*
 * RbFlowDelete --
 *	Frees a flow: its attributes, and its analyzers (deleting their
 *	commands, if any). Detaches its node from the DAG.
 */
void
RbFlowDelete(Rb_Flow *flow)
{
    Rb_Engine *eng = flow->node->eng;

    RbReporterRemoveFlow(eng, flow);
    while (flow->nanalyzers > 0) {
	Rb_Analyzer *a = flow->analyzers[flow->nanalyzers - 1];

	if (a->token) {
	    Tcl_DeleteCommandFromToken(flow->interp, a->token);
	} else {
	    RbAnalyzerDelete(a);
	}
    }
    free(flow->analyzers);
    RbFlowClearAttrs(flow);
    Tcl_DeleteHashTable(&flow->attrs);
    Tcl_DeleteHashTable(&flow->aliases);
    flow->node->flow = NULL;
    RbNodeFree(flow->node);
    free(flow->name);
    free(flow);
}

/*
 * RbFlowAddAnalyzer --
 *	Puts an analyzer into a flow. An analyzer belongs to one flow.
 */
int
RbFlowAddAnalyzer(Tcl_Interp *interp, Rb_Flow *flow, Rb_Analyzer *a)
{
    if (a->flow == flow) {
	return TCL_OK;
    }
    if (a->flow != NULL) {
	return Rb_SetInterpError(interp, "RUBICON FLOW ANALYZER",
		"analyzer %s already belongs to flow \"%s\"",
		a->cmdName ? a->cmdName : a->cls->name, a->flow->name);
    }
    flow->analyzers = Rb_ReallocArray(flow->analyzers, flow->nanalyzers + 1,
	    sizeof(Rb_Analyzer *));
    flow->analyzers[flow->nanalyzers++] = a;
    a->flow = flow;
    return TCL_OK;
}

/*
 * RbFlowRemoveAnalyzer --
 *	Takes an analyzer out of its flow (when the analyzer is deleted).
 */
void
RbFlowRemoveAnalyzer(Rb_Flow *flow, Rb_Analyzer *a)
{
    int i;

    for (i = 0; i < flow->nanalyzers; i++) {
	if (flow->analyzers[i] == a) {
	    memmove(&flow->analyzers[i], &flow->analyzers[i + 1],
		    (flow->nanalyzers - i - 1) * sizeof(Rb_Analyzer *));
	    flow->nanalyzers--;
	    break;
	}
    }
    a->flow = NULL;
}

/*
 * RbFlowStart --
 *	Clears the flow's attributes and starts each of its analyzers.
 */
int
RbFlowStart(Rb_Flow *flow, const Rb_RunInfo *run)
{
    int i;

    RbFlowClearAttrs(flow);
    flow->recordCount = 0;
    for (i = 0; i < flow->nanalyzers; i++) {
	if (RbAnalyzerStartAll(run->interp, flow->analyzers[i], run)
		!= TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}

/*
 * RbFlowPush --
 *	Hands the selected records of a batch to every analyzer: the batch
 *	hook if the class has one, else the record hook per record.
 */
void
RbFlowPush(Rb_Flow *flow, const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    RbFlowPushTo(flow, flow->analyzers, flow->nanalyzers, b, sel, nsel);
}

/*
 * RbFlowPushTo --
 *	RbFlowPush with the Flow's analyzers from ana[0 .. n) (a Mux's
 *	table keeps them in one array for all its Flows: muxTable.c).  The
 *	push has a number on this thread, RbFlowPushId (0 outside one):
 *	every analyzer of the push gets the same batch and selection,
 *	unchanged, so what one works out from them (groupBy.c's partition
 *	by key) holds for the next one of the same push.  A push within a
 *	push gets its own number and gives the outer one back at its end.
 */
static __thread uint64_t pushCount, pushCurrent;

void
RbFlowPushTo(Rb_Flow *flow, Rb_Analyzer *const *ana, int n,
	const Rb_Batch *b, const uint32_t *sel, int nsel)
{
    uint64_t outer = pushCurrent;
    int i;

    pushCurrent = ++pushCount;
    flow->recordCount += nsel;
    for (i = 0; i < n; i++) {
	RbAnalyzerPush(ana[i], b, sel, nsel);
    }
    pushCurrent = outer;
}

uint64_t
RbFlowPushId(void)
{
    return pushCurrent;
}

/*
 * RbFlowEnd --
 *	Ends the flow's analyzers in dependency order.
 */
int
RbFlowEnd(Rb_Flow *flow, const Rb_RunInfo *run)
{
    return RbEndAnalyzers(run->interp, flow->node->eng, &flow, 1, run, 0);
}

/*
 * RbFlowSetAttr --
 *	Stores an Attribute under its name, replacing one of the same name.
 */
void
RbFlowSetAttr(Rb_Flow *flow, Rb_Attribute *attr)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&flow->attrs, attr->name, &isNew);

    if (!isNew) {
	ClearAliases(flow);
	Rb_AttrFree(Tcl_GetHashValue(e));
    }
    Tcl_SetHashValue(e, attr);
}

/*
 * Rb_FlowGetAttr --
 *	The Attribute of the flow with that name, or under one of the
 *	paper's names (IORate, AvRequestSize, "Request Size" ...) the
 *	Attribute it stands for, shown under the name asked for.
 * Results: the Attribute, or NULL.  It is valid until the flow's
 *	Attributes are next set or cleared.
 * Side effects: makes an alias view the first time one is asked for.
 */
const Rb_Attribute *
Rb_FlowGetAttr(const Rb_Flow *constFlow, const char *name)
{
    Rb_Flow *flow = (Rb_Flow *)constFlow;
    Tcl_HashEntry *e = Tcl_FindHashEntry(&flow->attrs, name);
    const char *canonical;
    Rb_Attribute *view;
    int isNew;

    if (e != NULL || (e = Tcl_FindHashEntry(&flow->aliases, name)) != NULL) {
	return Tcl_GetHashValue(e);
    }
    if ((canonical = RbAttrCanonicalName(name)) == NULL
	    || (e = Tcl_FindHashEntry(&flow->attrs, canonical)) == NULL) {
	return NULL;
    }
    view = Rb_Alloc(sizeof(*view));
    *view = *(Rb_Attribute *)Tcl_GetHashValue(e);
    view->name = Rb_Strdup(name);
    e = Tcl_CreateHashEntry(&flow->aliases, name, &isNew);
    Tcl_SetHashValue(e, view);
    return view;
}

/*
 * Rb_FlowScratchCreate --
 *	Makes a Flow outside any DAG and without a command: somewhere for an
 *	Analyzer's end hook to set Attributes that its caller then reads
 *	(with Rb_FlowGetAttr) and turns into its own, as a grouped analyzer
 *	does for each value of its -by field.  Point a copy of the Analyzer
 *	structure's flow at it and call the hook on the copy.
 * Results: the Flow; free it with Rb_FlowScratchFree.
 * Side effects: none outside the new Flow.
 */
Rb_Flow *
Rb_FlowScratchCreate(Tcl_Interp *interp)
{
    Rb_Flow *flow = Rb_Alloc(sizeof(*flow));

    flow->name = Rb_Strdup("");
    flow->interp = interp;
    Tcl_InitHashTable(&flow->attrs, TCL_STRING_KEYS);
    Tcl_InitHashTable(&flow->aliases, TCL_STRING_KEYS);
    return flow;
}

/*
 * Rb_FlowScratchClear --
 *	Frees every Attribute set on a scratch Flow, for the next group.
 * Results: none.
 * Side effects: Attributes got from it before are freed.
 */
void
Rb_FlowScratchClear(Rb_Flow *flow)
{
    RbFlowClearAttrs(flow);
}

/*
 * Rb_FlowScratchFree --
 *	Frees a Flow made by Rb_FlowScratchCreate and its Attributes.
 * Results: none.
 * Side effects: flow is invalid afterwards.
 */
void
Rb_FlowScratchFree(Rb_Flow *flow)
{
    RbFlowClearAttrs(flow);
    Tcl_DeleteHashTable(&flow->attrs);
    Tcl_DeleteHashTable(&flow->aliases);
    free(flow->name);
    free(flow);
}

/*
 * Rb_FlowName --
 *	Gives a Flow's name: the one given at its creation ("Flow NAME"),
 *	or by "$flow configure -name" since.
 * Results: the name, owned by the Flow; valid until it is renamed or
 *	deleted.
 * Side effects: none.
 */
const char *
Rb_FlowName(const Rb_Flow *flow)
{
    return flow->name;
}

static int
CompareNames(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * RbFlowAttrNames --
 *	The flow's attribute names, sorted. The caller frees the array.
 */
const char **
RbFlowAttrNames(const Rb_Flow *flow, int *count)
{
    Tcl_HashSearch search;
    Tcl_HashEntry *e;
    const char **names = Rb_AllocArray(flow->attrs.numEntries + 1,
	    sizeof(char *));
    int n = 0;

    for (e = Tcl_FirstHashEntry((Tcl_HashTable *)&flow->attrs, &search); e;
	    e = Tcl_NextHashEntry(&search)) {
	names[n++] = Tcl_GetHashKey(&flow->attrs, e);
    }
    qsort(names, n, sizeof(char *), CompareNames);
    *count = n;
    return names;
}

static Tcl_ObjCmdProc FlowObjCmd;

/*
 * RbFlowFromCmdInfo --
 *	The Flow whose command's info this is, or NULL if the command is not
 *	a Flow's.
 */
Rb_Flow *
RbFlowFromCmdInfo(const Tcl_CmdInfo *info)
{
    return info->objProc == FlowObjCmd ? info->objClientData : NULL;
}

/*
 * Rb_FlowFromObj --
 *	Finds the Flow whose command obj names (as the interpreter resolves
 *	the name).
 * Results: the Flow, or NULL with a RUBICON FLOW UNKNOWN error in interp
 *	naming obj ("... is not a Flow").
 * Side effects: sets interp's result on error only.
 */
Rb_Flow *
Rb_FlowFromObj(Tcl_Interp *interp, Tcl_Obj *obj)
{
    Tcl_CmdInfo info;
    Rb_Flow *flow = NULL;

    if (Tcl_GetCommandInfo(interp, Tcl_GetString(obj), &info)) {
	flow = RbFlowFromCmdInfo(&info);
    }
    if (flow == NULL) {
	Rb_SetInterpError(interp, "RUBICON FLOW UNKNOWN",
		"\"%s\" is not a Flow", Tcl_GetString(obj));
	return NULL;
    }
    return flow;
}

/*
 * FlowAttrCmd --
 *	"$flow get NAME ?-column C?" (an Attribute, or one column of it, as
 *	a Tcl value) and "$flow info NAME" (its kind, unit, help, columns,
 *	partial flag and row count).
 * Results: TCL_OK with the value, or an error naming the flow, the name
 *	and the Attributes it has.
 */
static int
FlowAttrCmd(Tcl_Interp *interp, Rb_Flow *flow, int isInfo, int objc,
	Tcl_Obj *const objv[])
{
    const Rb_Attribute *attr;
    Tcl_Obj *list;
    const char **names;
    int i, n;

    if (objc != 3 && !(!isInfo && objc == 5)) {
	Tcl_WrongNumArgs(interp, 2, objv,
		!isInfo ? "name ?-column column?" : "name");
	return TCL_ERROR;
    }
    attr = Rb_FlowGetAttr(flow, Tcl_GetString(objv[2]));
    if (attr == NULL) {
	Tcl_DString known;

	Tcl_DStringInit(&known);
	names = RbFlowAttrNames(flow, &n);
	for (i = 0; i < n; i++) {
	    Tcl_DStringAppendElement(&known, names[i]);
	}
	free(names);
	Rb_SetInterpError(interp, "RUBICON ATTRIBUTE UNKNOWN",
		"flow \"%s\" has no attribute \"%s\"; it has: %s",
		flow->name, Tcl_GetString(objv[2]),
		n ? Tcl_DStringValue(&known) : "none (run it first?)");
	Tcl_DStringFree(&known);
	return TCL_ERROR;
    }
    if (isInfo) {
	Tcl_Obj *d = Tcl_NewDictObj(), *cols = Tcl_NewListObj(0, NULL);

	for (i = 0; i < attr->ncols; i++) {
	    Tcl_ListObjAppendElement(NULL, cols, Tcl_NewListObj(2,
		    (Tcl_Obj *[]){Tcl_NewStringObj(attr->cols[i].name, -1),
		    Tcl_NewStringObj(attr->cols[i].unit, -1)}));
	}
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("kind", -1),
		Tcl_NewStringObj(Rb_AttrKindName(attr->kind), -1));
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("unit", -1),
		Tcl_NewStringObj(attr->unit, -1));
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("help", -1),
		Tcl_NewStringObj(attr->help, -1));
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("columns", -1), cols);
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("partial", -1),
		Tcl_NewBooleanObj(attr->partial));
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("rows", -1),
		Tcl_NewIntObj(attr->nrows));
	Tcl_DictObjPut(NULL, d, Tcl_NewStringObj("elided", -1),
		Tcl_NewWideIntObj(attr->elided));
	Tcl_SetObjResult(interp, d);
	return TCL_OK;
    }
    if (objc == 5) {
	int c;

	if (strcmp(Tcl_GetString(objv[3]), "-column") != 0) {
	    Tcl_WrongNumArgs(interp, 2, objv, "name ?-column column?");
	    return TCL_ERROR;
	}
	c = Rb_AttrColumnIndex(attr, Tcl_GetString(objv[4]));
	if (c < 0) {
	    return Rb_SetInterpError(interp, "RUBICON ATTRIBUTE COLUMN",
		    "attribute \"%s\" has no column \"%s\"", attr->name,
		    Tcl_GetString(objv[4]));
	}
	list = Tcl_NewListObj(0, NULL);
	for (i = 0; i < attr->nrows; i++) {
	    Tcl_ListObjAppendElement(NULL, list, attr->cols[c].isText
		    ? Tcl_NewStringObj(attr->cols[c].text[i]
			    ? attr->cols[c].text[i] : "", -1)
		    : Tcl_NewDoubleObj(attr->cols[c].num[i]));
	}
	Tcl_SetObjResult(interp, list);
	return TCL_OK;
    }
    Tcl_SetObjResult(interp, Rb_AttrToObj(attr));
    return TCL_OK;
}

/*
 * FlowObjCmd --
 *	The object command of a Flow:
 *	    $flow get NAME ?-column C?    an Attribute as a Tcl value
 *	    $flow attributes              sorted attribute names
 *	    $flow info NAME               dict of kind, unit, help, columns
 *	    $flow add analyzer ...        adds analyzers
 *	    $flow analyzers               the analyzers' commands
 *	    $flow name / configure / cget -name
 *	    $flow records                 records seen in the last run
 *	    $flow destroy
 */
static int
FlowObjCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Rb_Flow *flow = cd;
    static const char *const subs[] = {
	"add", "analyzers", "attributes", "cget", "configure", "destroy",
	"get", "info", "name", "records", NULL
    };
    enum { SUB_ADD, SUB_ANALYZERS, SUB_ATTRIBUTES, SUB_CGET, SUB_CONFIGURE,
	SUB_DESTROY, SUB_GET, SUB_INFO, SUB_NAME, SUB_RECORDS };
    Tcl_Obj *list;
    const char **names;
    int idx, i, n;

    if (objc < 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "subcommand ?arg ...?");
	return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObj(interp, objv[1], subs, "subcommand", 0, &idx)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    switch (idx) {
    case SUB_ADD:
	for (i = 2; i < objc; i++) {
	    Tcl_CmdInfo info;
	    Rb_Analyzer *a;

	    if (!Tcl_GetCommandInfo(interp, Tcl_GetString(objv[i]), &info)
		    || info.deleteProc == NULL
		    || (a = RbAnalyzerFromCmdInfo(&info)) == NULL) {
		return Rb_SetInterpError(interp, "RUBICON FLOW ANALYZER",
			"\"%s\" is not an Analyzer", Tcl_GetString(objv[i]));
	    }
	    if (RbFlowAddAnalyzer(interp, flow, a) != TCL_OK) {
		return TCL_ERROR;
	    }
	}
	return TCL_OK;
    case SUB_ANALYZERS:
	list = Tcl_NewListObj(0, NULL);
	for (i = 0; i < flow->nanalyzers; i++) {
	    Tcl_ListObjAppendElement(NULL, list,
		    Tcl_NewStringObj(flow->analyzers[i]->cmdName, -1));
	}
	Tcl_SetObjResult(interp, list);
	return TCL_OK;
    case SUB_ATTRIBUTES:
	names = RbFlowAttrNames(flow, &n);
	list = Tcl_NewListObj(0, NULL);
	for (i = 0; i < n; i++) {
	    Tcl_ListObjAppendElement(NULL, list, Tcl_NewStringObj(names[i], -1));
	}
	free(names);
	Tcl_SetObjResult(interp, list);
	return TCL_OK;
    case SUB_CGET:
	if (objc != 3 || strcmp(Tcl_GetString(objv[2]), "-name") != 0) {
	    return Rb_SetInterpError(interp, "RUBICON OPTION UNKNOWN",
		    "usage: %s cget -name", Tcl_GetString(objv[0]));
	}
	/* FALLTHRU */
    case SUB_NAME:
	Tcl_SetObjResult(interp, Tcl_NewStringObj(flow->name, -1));
	return TCL_OK;
    case SUB_CONFIGURE:
	if (objc == 2) {
	    Tcl_SetObjResult(interp, Tcl_ObjPrintf("-name {%s}", flow->name));
	    return TCL_OK;
	}
	if (objc != 4 || strcmp(Tcl_GetString(objv[2]), "-name") != 0) {
	    return Rb_SetInterpError(interp, "RUBICON OPTION UNKNOWN",
		    "usage: %s configure -name NAME", Tcl_GetString(objv[0]));
	}
	free(flow->name);
	flow->name = Rb_Strdup(Tcl_GetString(objv[3]));
	return TCL_OK;
    case SUB_DESTROY:
	Tcl_DeleteCommandFromToken(interp, flow->node->token);
	return TCL_OK;
    case SUB_GET:
    case SUB_INFO:
	return FlowAttrCmd(interp, flow, idx == SUB_INFO, objc, objv);
    case SUB_RECORDS:
	Tcl_SetObjResult(interp, Tcl_NewWideIntObj((Tcl_WideInt)
		flow->recordCount));
	return TCL_OK;
    }
    return TCL_OK;
}

static void
FlowDeleteProc(ClientData cd)
{
    Rb_Flow *flow = cd;

    flow->node->token = NULL;
    RbFlowDelete(flow);
}

/*
 * FlowCmd --
 *	"Flow ?name? ?analyzer ...?": makes a Flow. Without a name the flow
 *	is named after its command.
 * Results: the new object command's name.
 */
static int
FlowCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Rb_Engine *eng = RbEngineGet(interp);
    Rb_Flow *flow;
    char *cmd = RbEngineNewName(eng, "flow");
    int first = 1, i;
    Tcl_CmdInfo info;

    if (objc > 1 && !(Tcl_GetCommandInfo(interp, Tcl_GetString(objv[1]),
	    &info) && RbAnalyzerFromCmdInfo(&info) != NULL)) {
	flow = RbFlowCreate(interp, Tcl_GetString(objv[1]));
	first = 2;
    } else {
	flow = RbFlowCreate(interp, strrchr(cmd, ':') + 1);
    }
    flow->node->cmdName = cmd;
    flow->node->token = Tcl_CreateObjCommand(interp, cmd, FlowObjCmd, flow,
	    FlowDeleteProc);
    for (i = first; i < objc; i++) {
	Rb_Analyzer *a;

	if (!Tcl_GetCommandInfo(interp, Tcl_GetString(objv[i]), &info)
		|| (a = RbAnalyzerFromCmdInfo(&info)) == NULL) {
	    Rb_SetInterpError(interp, "RUBICON FLOW ANALYZER",
		    "Flow: \"%s\" is not an Analyzer", Tcl_GetString(objv[i]));
	    Tcl_DeleteCommandFromToken(interp, flow->node->token);
	    return TCL_ERROR;
	}
	if (RbFlowAddAnalyzer(interp, flow, a) != TCL_OK) {
	    Tcl_DeleteCommandFromToken(interp, flow->node->token);
	    return TCL_ERROR;
	}
    }
    Tcl_SetObjResult(interp, Tcl_NewStringObj(cmd, -1));
    return TCL_OK;
}

int
RbFlowInitCmds(Tcl_Interp *interp)
{
    Rb_Engine *eng = RbEngineGet(interp);

    Tcl_CreateObjCommand(interp, "::rubicon::Flow", FlowCmd, NULL, NULL);
    RbEngineAddClass(eng, CLASS_CORE, "Flow",
	    "Flow ?name? ?analyzer ...?: a named group of Analyzers and "
	    "their Attributes", NULL);
    return TCL_OK;
}
