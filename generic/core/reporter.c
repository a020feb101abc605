/*
 * reporter.c --
 *
 *	Reporter classes and instances. A Reporter is bound to Flows (and
 *	optionally Attribute names) and writes one format after every run.
 *	"ReporterLog $f1 $f2 -output bw.log", then "$rl configure -output x"
 *	or the paper's "$rl.setOutput x".
 */

#include <string.h>
#include "engine.h"


/*
 * SetAttrList --
 *	Sets the reporter's attribute-name filter from -attributes, a list
 *	already checked by CheckReporter.
 */
static void
SetAttrList(Rb_Reporter *r)
{
    Tcl_Obj **elems;
    int n = 0, i;

    if (r->attrList != NULL) {
	Tcl_ListObjGetElements(NULL, r->attrList, &n, &elems);
    }
    for (i = 0; i < r->nattrs; i++) {
	free(r->attrs[i]);
    }
    free(r->attrs);
    r->attrs = Rb_AllocArray(n + 1, sizeof(char *));
    for (i = 0; i < n; i++) {
	r->attrs[i] = Rb_Strdup(Tcl_GetString(elems[i]));
    }
    r->nattrs = n;
}

/*
 * CheckReporter --
 *	The check of a configure: -attributes must be a list, then the
 *	class's init hook.
 */
static int
CheckReporter(void *checkData, Tcl_Interp *interp)
{
    Rb_Reporter *r = checkData;
    int n;

    if (r->attrList != NULL
	    && Tcl_ListObjLength(NULL, r->attrList, &n) != TCL_OK) {
	return Rb_SetInterpError(interp, "RUBICON OPTION VALUE",
		"-attributes expects a list of attribute names, got \"%s\"",
		Tcl_GetString(r->attrList));
    }
    return r->cls->init ? r->cls->init(r, interp) : TCL_OK;
}

/*
 * Configure --
 *	Applies options, the class's and -output and -attributes, all or
 *	none (RbOptionsConfigure).
 */
static const Rb_Option reporterOpts[] = {
    {"-output", RB_OPT_STRING, offsetof(Rb_Reporter, output), NULL, NULL},
    {"-attributes", RB_OPT_OBJ, offsetof(Rb_Reporter, attrList), NULL, NULL},
    {NULL}
};

static int
Configure(Tcl_Interp *interp, Rb_Reporter *r, int objc, Tcl_Obj *const objv[])
{
    if (RbOptionsConfigure(interp, r->cls->options, r->state, objc, objv,
	    reporterOpts, r, CheckReporter, r) != TCL_OK) {
	return TCL_ERROR;
    }
    SetAttrList(r);
    return TCL_OK;
}

/*
 * RbReporterCreate --
 *	Makes a reporter bound to flows, with "-opt value" arguments.
 * Results: the reporter, or NULL with an error in the interpreter.
 */
Rb_Reporter *
RbReporterCreate(Tcl_Interp *interp, const Rb_ReporterClass *cls,
	int nflows, Rb_Flow **flows, int objc, Tcl_Obj *const objv[])
{
    Rb_Reporter *r = Rb_Alloc(sizeof(*r));
    Rb_Engine *eng = RbEngineGet(interp);

    r->cls = cls;
    r->interp = interp;
    r->state = Rb_Alloc(cls->stateSize ? cls->stateSize : 1);
    r->output = Rb_Strdup(cls->defaultOutput ? cls->defaultOutput : "-");
    r->flows = Rb_AllocArray(nflows + 1, sizeof(Rb_Flow *));
    memcpy(r->flows, flows, nflows * sizeof(Rb_Flow *));
    r->nflows = nflows;
    if (RbOptionsDefault(interp, cls->options, r->state) != TCL_OK
	    || Configure(interp, r, objc, objv) != TCL_OK) {
	RbReporterDelete(r);
	return NULL;
    }
    eng->reporters = Rb_ReallocArray(eng->reporters, eng->nreporters + 1,
	    sizeof(Rb_Reporter *));
    eng->reporters[eng->nreporters++] = r;
    return r;
}

/*
 * RbReporterDelete --
 *	Frees a reporter and takes it out of the engine.
 */
void
RbReporterDelete(Rb_Reporter *r)
{
    Rb_Engine *eng = RbEngineGet(r->interp);
    int i;

    for (i = 0; i < eng->nreporters; i++) {
	if (eng->reporters[i] == r) {
	    memmove(&eng->reporters[i], &eng->reporters[i + 1],
		    (eng->nreporters - i - 1) * sizeof(Rb_Reporter *));
	    eng->nreporters--;
	    break;
	}
    }
    if (r->cls->freeState) {
	r->cls->freeState(r);
    }
    RbOptionsFree(r->cls->options, r->state);
    for (i = 0; i < r->nattrs; i++) {
	free(r->attrs[i]);
    }
    free(r->attrs);
    if (r->attrList != NULL) {
	Tcl_DecrRefCount(r->attrList);
    }
    free(r->flows);
    free(r->state);
    free(r->output);
    free(r->cmdName);
    free(r);
}

/*
 * RbReporterRemoveFlow --
 *	Unbinds a flow that is being deleted from every reporter.
 */
void
RbReporterRemoveFlow(Rb_Engine *eng, Rb_Flow *flow)
{
    int i, j;

    for (i = 0; i < eng->nreporters; i++) {
	Rb_Reporter *r = eng->reporters[i];

	for (j = 0; j < r->nflows; j++) {
	    if (r->flows[j] == flow) {
		memmove(&r->flows[j], &r->flows[j + 1],
			(r->nflows - j - 1) * sizeof(Rb_Flow *));
		r->nflows--;
		j--;
	    }
	}
    }
}

/*
 * Rb_ReporterEach --
 *	Calls fn(r, flow, attr, cd) for each bound (flow, attribute): flows
 *	in binding order, attributes in the order of -attributes if given
 *	(a name the flow lacks is skipped), else every one by name.
 * Results: TCL_OK, or the first result of fn that is not TCL_OK (the
 *	walk stops there), or TCL_ERROR when a time limit has passed
 *	(RbEndCheckLimit, checked before each flow).
 * Side effects: those of fn; asking a flow for one of the paper's names
 *	makes its alias view (see Rb_FlowGetAttr).
 */
int
Rb_ReporterEach(Rb_Reporter *r, Rb_AttrVisitor *fn, void *cd)
{
    int i, j, n, rc;

    for (i = 0; i < r->nflows; i++) {
	Rb_Flow *flow = r->flows[i];

	if (RbEndCheckLimit(r->interp) != TCL_OK) {
	    return TCL_ERROR;
	}

	if (r->nattrs > 0) {
	    for (j = 0; j < r->nattrs; j++) {
		const Rb_Attribute *a = Rb_FlowGetAttr(flow, r->attrs[j]);

		if (a && (rc = fn(r, flow, a, cd)) != TCL_OK) {
		    return rc;
		}
	    }
	} else {
	    const char **names = RbFlowAttrNames(flow, &n);

	    for (j = 0; j < n; j++) {
		rc = fn(r, flow, Rb_FlowGetAttr(flow, names[j]), cd);
		if (rc != TCL_OK) {
		    free(names);
		    return rc;
		}
	    }
	    free(names);
	}
    }
    return TCL_OK;
}

/*
 * RbReporterWrite --
 *	Writes the report now.
 */
int
RbReporterWrite(Rb_Reporter *r, const Rb_RunInfo *run)
{
    return r->cls->write(r, run);
}

/*
 * RbReportersWrite --
 *	After a run: every reporter writes; all are tried even if one fails,
 *	unless a time limit has passed (RbEndCheckLimit, checked before
 *	each).
 * Results: TCL_OK, or the first failure's error.
 */
int
RbReportersWrite(Tcl_Interp *interp, Rb_Engine *eng, const Rb_RunInfo *run)
{
    Tcl_Obj *firstErr = NULL, *firstCode = NULL;
    int i;

    for (i = 0; i < eng->nreporters; i++) {
	if ((RbEndCheckLimit(interp) != TCL_OK
		|| RbReporterWrite(eng->reporters[i], run) != TCL_OK)
		&& firstErr == NULL) {
	    Tcl_Obj *opts = Tcl_GetReturnOptions(interp, TCL_ERROR);

	    firstErr = Tcl_GetObjResult(interp);
	    Tcl_IncrRefCount(firstErr);
	    firstCode = opts;
	    Tcl_IncrRefCount(firstCode);
	}
    }
    if (firstErr) {
	Tcl_SetObjResult(interp, firstErr);
	Tcl_SetReturnOptions(interp, firstCode);
	Tcl_DecrRefCount(firstErr);
	Tcl_DecrRefCount(firstCode);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * ReporterObjCmd --
 *	configure, cget, setOutput (the paper's form), write, flows, class,
 *	destroy.
 */
static int
ReporterObjCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    Rb_Reporter *r = cd;
    static const char *const subs[] = {
	"add", "cget", "class", "configure", "destroy", "flows", "setOutput",
	"write", NULL
    };
    enum { SUB_ADD, SUB_CGET, SUB_CLASS, SUB_CONFIGURE, SUB_DESTROY,
	SUB_FLOWS, SUB_SETOUTPUT, SUB_WRITE };
    Tcl_Obj *list;
    int idx, i;

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
	    Rb_Flow *flow = Rb_FlowFromObj(interp, objv[i]);

	    if (flow == NULL) {
		return TCL_ERROR;
	    }
	    r->flows = Rb_ReallocArray(r->flows, r->nflows + 1,
		    sizeof(Rb_Flow *));
	    r->flows[r->nflows++] = flow;
	}
	return TCL_OK;
    case SUB_CGET:
    case SUB_CONFIGURE:
	if (RbOptionsCommand(interp, objc, objv, r->cls->options, r->state,
		reporterOpts, r, CheckReporter, r) != TCL_OK) {
	    return TCL_ERROR;
	}
	if (idx == SUB_CONFIGURE && objc > 3) {
	    SetAttrList(r);
	}
	return TCL_OK;
    case SUB_CLASS:
	Tcl_SetObjResult(interp, Tcl_NewStringObj(r->cls->name, -1));
	return TCL_OK;
    case SUB_DESTROY:
	Tcl_DeleteCommandFromToken(interp, r->token);
	return TCL_OK;
    case SUB_FLOWS:
	list = Tcl_NewListObj(0, NULL);
	for (i = 0; i < r->nflows; i++) {
	    Tcl_ListObjAppendElement(NULL, list, Tcl_NewStringObj(
		    r->flows[i]->node->cmdName ? r->flows[i]->node->cmdName
		    : r->flows[i]->name, -1));
	}
	Tcl_SetObjResult(interp, list);
	return TCL_OK;
    case SUB_SETOUTPUT:
	if (objc != 3) {
	    Tcl_WrongNumArgs(interp, 2, objv, "path");
	    return TCL_ERROR;
	}
	free(r->output);
	r->output = Rb_Strdup(Tcl_GetString(objv[2]));
	return TCL_OK;
    case SUB_WRITE: {
	Rb_RunInfo run;
	int rc;

	RbRunInfoInit(&run, interp, Rb_IoSchema());
	rc = RbReporterWrite(r, &run);
	RbRunInfoFree(&run);
	return rc;
    }
    }
    return TCL_OK;
}

static void
ReporterDeleteProc(ClientData cd)
{
    RbReporterDelete(cd);
}

/*
 * FlowsOfArg --
 *	Appends the Flows an argument names (one Flow command, or a Tcl
 *	list of them) to *flows.
 * Results: 1 if every element is a Flow, else 0 with *flows unchanged.
 */
static int
FlowsOfArg(Tcl_Interp *interp, Tcl_Obj *arg, Rb_Flow ***flows, int *nflows)
{
    Tcl_Obj **elems;
    Tcl_CmdInfo info;
    int nel, j;

    if (Tcl_ListObjGetElements(NULL, arg, &nel, &elems) != TCL_OK
	    || nel == 0) {
	return 0;
    }
    for (j = 0; j < nel; j++) {
	if (!Tcl_GetCommandInfo(interp, Tcl_GetString(elems[j]), &info)
		|| RbFlowFromCmdInfo(&info) == NULL) {
	    return 0;
	}
    }
    *flows = Rb_ReallocArray(*flows, (size_t)*nflows + nel + 1,
	    sizeof(Rb_Flow *));
    for (j = 0; j < nel; j++) {
	Tcl_GetCommandInfo(interp, Tcl_GetString(elems[j]), &info);
	(*flows)[(*nflows)++] = RbFlowFromCmdInfo(&info);
    }
    return 1;
}

/*
 * FlowSets --
 *	1 if an Analyzer of the flow declares the Attribute name (or the
 *	one a paper's name stands for), 0 if none does, -1 if the flow has
 *	no Analyzers yet or one of them declares nothing (so nothing can be
 *	said before a run).
 */
static int
FlowSets(const Rb_Flow *flow, const char *name)
{
    const char *canonical = RbAttrCanonicalName(name);
    int i, unknown = flow->nanalyzers == 0;

    for (i = 0; i < flow->nanalyzers; i++) {
	const Rb_Analyzer *a = flow->analyzers[i];
	const char *const *p;
	size_t plen = strlen(a->prefix);

	if (a->cls->attrs == NULL) {
	    unknown = 1;
	    continue;
	}
	for (p = a->cls->attrs; *p; p++) {
	    if (strncmp(name, a->prefix, plen) == 0
		    && Tcl_StringMatch(name + plen, *p)) {
		return 1;
	    }
	    if (canonical && plen == 0 && strcmp(canonical, *p) == 0) {
		return 1;
	    }
	}
    }
    return unknown ? -1 : 0;
}

/*
 * CheckAttrNames --
 *	The paper's check of "ReporterX flows attributes": an Attribute name
 *	that no Analyzer of any of the flows sets is an error (a misspelt
 *	name would otherwise give an empty report); one that only some of
 *	the flows set is reported for those, with a warning on stderr naming
 *	the others.  Flows whose Analyzers are not all known yet are not
 *	judged.
 * Results: TCL_OK, or TCL_ERROR naming the reporter class, the Attribute
 *	and what the flows set.
 */
static int
CheckAttrNames(Tcl_Interp *interp, const Rb_ReporterClass *cls,
	Rb_Flow **flows, int nflows, Tcl_Obj *list)
{
    Tcl_Obj **names;
    int n, i, f, set, unknown;

    if (Tcl_ListObjGetElements(interp, list, &n, &names) != TCL_OK) {
	return TCL_ERROR;
    }
    for (i = 0; i < n; i++) {
	const char *name = Tcl_GetString(names[i]);
	Tcl_DString missing;

	Tcl_DStringInit(&missing);
	for (set = unknown = 0, f = 0; f < nflows; f++) {
	    int s = FlowSets(flows[f], name);

	    set |= s == 1;
	    unknown |= s < 0;
	    if (s == 0) {
		Tcl_DStringAppendElement(&missing, flows[f]->name);
	    }
	}
	if (!set && !unknown && nflows > 0) {
	    Tcl_DStringFree(&missing);
	    return Rb_SetInterpError(interp, "RUBICON REPORTER ATTRIBUTE",
		    "%s: no Analyzer of the flows given sets an Attribute "
		    "\"%s\" (BandwidthAnalyzer sets Bandwidth, RateAnalyzer "
		    "Rate or IORate, SizeAnalyzer MeanSize or AvRequestSize; "
		    "\"$analyzer attributes\" lists any Analyzer's)",
		    cls->name, name);
	}
	if (Tcl_DStringLength(&missing) > 0) {
	    Tcl_Channel err = Tcl_GetStdChannel(TCL_STDERR);

	    if (err != NULL) {
		Tcl_Obj *msg = Tcl_ObjPrintf("rubicon: warning: %s: no "
			"Analyzer of flow %s sets \"%s\", which the report "
			"leaves out there\n", cls->name,
			Tcl_DStringValue(&missing), name);

		Tcl_IncrRefCount(msg);
		Tcl_WriteObj(err, msg);
		Tcl_Flush(err);
		Tcl_DecrRefCount(msg);
	    }
	}
	Tcl_DStringFree(&missing);
    }
    return TCL_OK;
}

/*
 * ReporterClassCmd --
 *	"ReporterX ?flows? ?attributes? ?-option value ...?": the Flows (one
 *	or more arguments, each a Flow or a Tcl list of Flows, as the paper
 *	writes "$flow1 $flow2"), then optionally the list of Attribute names
 *	to report (the paper's second argument, "Bandwidth IORate"), then
 *	options.
 * Results: the new object command's name.
 */
static int
ReporterClassCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    const Rb_ReporterClass *cls = cd;
    Rb_Flow **flows = Rb_Alloc(sizeof(Rb_Flow *));
    int nflows = 0, i;
    Tcl_Obj *attrList = NULL;
    Rb_Reporter *r;

    for (i = 1; i < objc; i++) {
	const char *s = Tcl_GetString(objv[i]);

	if (s[0] == '-' && s[1] != '\0') {
	    break;
	}
	if (attrList == NULL && FlowsOfArg(interp, objv[i], &flows, &nflows)) {
	    continue;
	}
	if (attrList == NULL && nflows > 0) {
	    attrList = objv[i];
	    continue;
	}
	free(flows);
	return Rb_SetInterpError(interp, "RUBICON REPORTER ARGS",
		"%s: \"%s\" is not a Flow%s; usage: %s ?flows? ?attributes? "
		"?-option value ...?", cls->name, s, attrList
		? " (the Attribute list was already given)" : "", cls->name);
    }
    if (attrList != NULL
	    && CheckAttrNames(interp, cls, flows, nflows, attrList) != TCL_OK) {
	free(flows);
	return TCL_ERROR;
    }
    r = RbReporterCreate(interp, cls, nflows, flows, objc - i, objv + i);
    free(flows);
    if (r == NULL) {
	return TCL_ERROR;
    }
    if (attrList != NULL && r->attrList == NULL) {
	/* The paper's second argument, as -attributes (already checked to
	 * be a list by CheckAttrNames). */
	r->attrList = attrList;
	Tcl_IncrRefCount(attrList);
	SetAttrList(r);
    }
    r->token = RbEngineNewObject(interp, cls->name, ReporterObjCmd, r,
	    ReporterDeleteProc, &r->cmdName);
    return TCL_OK;
}

/*
 * Rb_RegisterReporter --
 *	Makes the class's command (in ::rubicon, exported) and lists it in
 *	rubicon::types.
 * Results: TCL_OK always.
 * Side effects: as Rb_RegisterAnalyzer: creates or replaces the command
 *	and imports it globally; the class is kept by reference.
 */
int
Rb_RegisterReporter(Tcl_Interp *interp, const Rb_ReporterClass *cls)
{
    return RbEngineRegister(interp, CLASS_REPORTER, cls->name, cls->help,
	    ReporterClassCmd, cls);
}
