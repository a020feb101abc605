/*
 * analyzer.c --
 *
 *	Analyzer classes and instances: registration (which makes the class's
 *	Tcl command exist), the object command, the run-time hooks, and the
 *	dependency order of end calls for staged analysis.
 */

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include "engine.h"

static Tcl_ObjCmdProc AnalyzerObjCmd;

/*
 * CheckAnalyzer --
 *	The check of a configure: the class's init hook.
 */
static int
CheckAnalyzer(void *checkData, Tcl_Interp *interp)
{
    Rb_Analyzer *a = checkData;

    return a->cls->init(a, interp);
}

/*
 * RbAnalyzerCreate --
 *	Makes an instance: zeroed state, option defaults, the given options,
 *	then the class's init hook.
 * Results: the analyzer, or NULL with an error in the interpreter.
 */
Rb_Analyzer *
RbAnalyzerCreate(Tcl_Interp *interp, const Rb_AnalyzerClass *cls, int objc,
	Tcl_Obj *const objv[])
{
    static const Rb_Option coreOpts[] = {
	{"-prefix", RB_OPT_STRING, 0, NULL,
	 "prepended to the names of the Attributes it sets"},
	{NULL}
    };
    Rb_Analyzer *a = Rb_Alloc(sizeof(*a));
    AnalyzerPriv *priv = Rb_Alloc(sizeof(*priv));
    Rb_Engine *eng = RbEngineGet(interp);

    a->cls = cls;
    a->state = Rb_Alloc(cls->stateSize ? cls->stateSize : 1);
    a->prefix = NULL;
    a->engine = priv;
    priv->eng = eng;
    if (RbOptionsDefault(interp, cls->options, a->state) != TCL_OK
	    || RbOptionsConfigure(interp, cls->options, a->state, objc, objv,
		    coreOpts, &a->prefix, NULL, NULL) != TCL_OK
	    || (cls->init && cls->init(a, interp) != TCL_OK)) {
	RbAnalyzerDelete(a);
	return NULL;
    }
    if (a->prefix == NULL) {
	a->prefix = Rb_Strdup("");
    }
    eng->analyzers = Rb_ReallocArray(eng->analyzers, eng->nanalyzers + 1,
	    sizeof(Rb_Analyzer *));
    eng->analyzers[eng->nanalyzers++] = a;
    return a;
}

/*
 * RbAnalyzerDelete --
 *	Frees an analyzer, taking it out of its flow and of the engine.
 */
void
RbAnalyzerDelete(Rb_Analyzer *a)
{
    AnalyzerPriv *priv = a->engine;
    Rb_Engine *eng = priv->eng;
    int i;

    if (a->flow) {
	RbFlowRemoveAnalyzer(a->flow, a);
    }
    if (priv->node) {
	RbNodeFree(priv->node);
    }
    for (i = 0; i < eng->nanalyzers; i++) {
	if (eng->analyzers[i] == a) {
	    eng->analyzers[i] = eng->analyzers[--eng->nanalyzers];
	    break;
	}
    }
    /* Other analyzers that needed an attribute of a's flow keep working:
     * needs name flows, and flows outlive their analyzers. */
    if (a->cls->freeState) {
	a->cls->freeState(a);
    }
    RbOptionsFree(a->cls->options, a->state);
    for (i = 0; i < priv->nneeds; i++) {
	free(priv->needAttrs[i]);
    }
    free(priv->needAttrs);
    free(priv->needFlows);
    free(priv->errorMsg);
    free(priv->errorCode);
    free(priv);
    free(a->state);
    free(a->prefix);
    free(a->cmdName);
    free(a);
}

/*
 * Rb_AnalyzerSet --
 *	Stores an Attribute on the analyzer's Flow under the analyzer's
 *	-prefix followed by the Attribute's name, replacing one of that name.
 * Results: none.
 * Side effects: takes attr over: renames it, marks a as its producer and
 *	hands it to the Flow (which frees the one it replaces); frees it at
 *	once when a belongs to no Flow.
 */
void
Rb_AnalyzerSet(Rb_Analyzer *a, Rb_Attribute *attr)
{
    attr->producer = a;
    if (a->prefix && *a->prefix) {
	size_t n = strlen(a->prefix) + strlen(attr->name) + 1;
	char *name = Rb_Alloc(n);

	snprintf(name, n, "%s%s", a->prefix, attr->name);
	free(attr->name);
	attr->name = name;
    }
    if (a->flow == NULL) {
	Rb_AttrFree(attr);
	return;
    }
    RbFlowSetAttr(a->flow, attr);
}

/* Serializes the choice of the analyzer whose error stops a run. */
static pthread_mutex_t stopLock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Rb_AnalyzerError --
 *	Records an error raised in a hook; the engine turns it into a Tcl
 *	error "CMD: message" (CMD the analyzer's command, or its class's
 *	name) with -errorcode code after the hook returns.  Raised while
 *	records are flowing (a record or batch hook), it also stops the run
 *	at the end of the current batch, with the results marked partial.
 * Results: none.
 * Side effects: replaces any error a had recorded (message cut at 1023
 *	bytes); while reading, the first such error asks the engine to stop.
 */
void
Rb_AnalyzerError(Rb_Analyzer *a, const char *code, const char *fmt, ...)
{
    AnalyzerPriv *priv = a->engine;
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    free(priv->errorMsg);
    free(priv->errorCode);
    priv->errorMsg = Rb_Strdup(buf);
    priv->errorCode = Rb_Strdup(code);
    if (priv->eng->reading) {
	/* From a record or batch hook: stop at the end of this batch.
	 * Hooks may run on threads of their own (parallel.c): the first
	 * to fail is the one named. */
	pthread_mutex_lock(&stopLock);
	if (priv->eng->stoppedBy == NULL) {
	    priv->eng->stoppedBy = a;
	    priv->eng->cancel = 2;
	}
	pthread_mutex_unlock(&stopLock);
    }
}

/*
 * RbAnalyzerTakeError --
 *	Moves an error recorded by Rb_AnalyzerError into the interpreter.
 * Results: TCL_ERROR if there was one, else TCL_OK.
 */
int
RbAnalyzerTakeError(Tcl_Interp *interp, Rb_Analyzer *a)
{
    AnalyzerPriv *priv = a->engine;
    int rc;

    if (priv->errorMsg == NULL) {
	return TCL_OK;
    }
    rc = Rb_SetInterpError(interp, priv->errorCode, "%s: %s",
	    a->cmdName ? a->cmdName : a->cls->name, priv->errorMsg);
    free(priv->errorMsg);
    free(priv->errorCode);
    priv->errorMsg = priv->errorCode = NULL;
    return rc;
}

/*
 * Rb_AnalyzerField --
 *	Resolves a field name against the run's schema, noting it among
 *	those the analyzer reads (RbAnalyzerReads).
 * Results: TCL_OK with *index set, or TCL_ERROR with *index = -1 and an
 *	analyzer error RUBICON ANALYZER FIELD naming the field and listing
 *	the known fields.
 * Side effects: adds the field to those a reads; on error, as
 *	Rb_AnalyzerError.
 */
int
Rb_AnalyzerField(Rb_Analyzer *a, const Rb_RunInfo *run, const char *name,
	int *index)
{
    AnalyzerPriv *priv = a->engine;
    int f = Rb_SchemaFieldIndex(run->schema, name ? name : "");

    if (f < 0) {
	char *known = Rb_SchemaFieldList(run->schema);

	Rb_AnalyzerError(a, "RUBICON ANALYZER FIELD",
		"unknown field \"%s\"; known fields: %s", name ? name : "",
		known);
	free(known);
	*index = -1;
	return TCL_ERROR;
    }
    *index = f;
    priv->resolved |= f < 64 ? RB_FIELD_BIT(f) : RB_ALL_FIELDS;
    return TCL_OK;
}

/*
 * TypeNames --
 *	What values of the field types in the set types are, for a message:
 *	"integers", "text", "integers or text"; "numbers" for integers and
 *	fractions, and for any set of those when the field holds text.
 */
static const char *
TypeNames(unsigned types, Rb_FieldType got)
{
    static const char *const names[] = {
	"", "integers", "fractions", "numbers", "text", "integers or text",
	"fractions or text", "values"
    };
    unsigned numbers = RB_FT_BIT(RB_FT_INT) | RB_FT_BIT(RB_FT_DOUBLE);

    if (got == RB_FT_STRING && (types & ~numbers) == 0) {
	return "numbers";
    }
    return names[types & 7];
}

/*
 * Rb_AnalyzerTypedField --
 *	Resolves a field a's class reads as one of the field types in the
 *	set types (RB_FT_BIT of each): a double's bit pattern or a string's
 *	id read as an integer, or an integer compared with string ids, gives
 *	wrong numbers rather than an error.
 * Results: TCL_OK with *index set, or TCL_ERROR with *index = -1 and an
 *	analyzer error (RUBICON ANALYZER FIELD for an unknown field,
 *	RUBICON ANALYZER OPTION naming the class, field and its type).
 * Side effects: as Rb_AnalyzerField (the field counts as read even when
 *	its type is refused).
 */
int
Rb_AnalyzerTypedField(Rb_Analyzer *a, const Rb_RunInfo *run,
	const char *name, unsigned types, int *index)
{
    static const char *const holds[] = {"integers", "fractions", "text"};
    Rb_FieldType got;

    if (Rb_AnalyzerField(a, run, name, index) != TCL_OK) {
	return TCL_ERROR;
    }
    got = run->schema->fields[*index].type;
    if (types & RB_FT_BIT(got)) {
	return TCL_OK;
    }
    Rb_AnalyzerError(a, "RUBICON ANALYZER OPTION",
	    "%s: field \"%s\" holds %s, not %s", a->cls->name,
	    run->schema->fields[*index].name, holds[got],
	    TypeNames(types, got));
    *index = -1;
    return TCL_ERROR;
}

/*
 * RbAnalyzerReads --
 *	The fields a's hooks read, RB_FIELD_BIT of each: every field unless
 *	its class declares some, else those and the ones its start hook
 *	resolved with Rb_AnalyzerField (the fields its options name).  Valid
 *	after RbAnalyzerStartAll.
 */
uint64_t
RbAnalyzerReads(const Rb_Analyzer *a)
{
    const AnalyzerPriv *priv = a->engine;

    if (a->cls->fields == 0) {
	return RB_ALL_FIELDS;
    }
    return a->cls->fields | priv->resolved;
}

/*
 * Rb_AnalyzerNeeds --
 *	Declares that a reads attribute attrName of flow in its end hook, so
 *	the producer's end must run first.  A need that no analyzer of flow
 *	meets, or that closes a cycle, fails the run later (RUBICON DAG
 *	DEPENDENCY, RUBICON DAG CYCLE), not here.
 * Results: TCL_OK always.
 * Side effects: adds (flow, attrName) to a's needs unless already there.
 */
int
Rb_AnalyzerNeeds(Rb_Analyzer *a, Rb_Flow *flow, const char *attrName)
{
    AnalyzerPriv *priv = a->engine;
    int i;

    for (i = 0; i < priv->nneeds; i++) {
	if (priv->needFlows[i] == flow
		&& strcmp(priv->needAttrs[i], attrName) == 0) {
	    return TCL_OK;
	}
    }
    priv->needFlows = Rb_ReallocArray(priv->needFlows, priv->nneeds + 1,
	    sizeof(Rb_Flow *));
    priv->needAttrs = Rb_ReallocArray(priv->needAttrs, priv->nneeds + 1,
	    sizeof(char *));
    priv->needFlows[priv->nneeds] = flow;
    priv->needAttrs[priv->nneeds] = Rb_Strdup(attrName);
    priv->nneeds++;
    return TCL_OK;
}

/*
 * CheckIoFields --
 *	Checks that the run's schema has every I/O field a's class declares
 *	it reads by fixed index (its fields mask, RB_IO_SIZE and the like):
 *	the same name (or a field the name stands for, Rb_SchemaFieldIndex:
 *	the object schema's objectSize is "size"), type and unit at the same
 *	index, as in the I/O schema itself, a copy of it, or the object
 *	schema for op and size.  Field 0, the record time, is in every
 *	schema; a class that declares no fields is not checked.
 * Results: TCL_OK, or TCL_ERROR with RUBICON ANALYZER SCHEMA in interp
 *	naming the analyzer, its class, the field and the run's schema.
 */
static int
CheckIoFields(Tcl_Interp *interp, Rb_Analyzer *a, const Rb_RunInfo *run)
{
    const Rb_Schema *io = Rb_IoSchema(), *s = run->schema;
    uint64_t need = a->cls->fields & ~RB_FIELD_BIT(RB_IO_TIME);
    int f;

    if (s == io || need == 0) {
	return TCL_OK;
    }
    for (f = 1; f < RB_IO_NFIELDS; f++) {
	const Rb_Field *want = &io->fields[f], *got = &s->fields[f];
	char *known;

	if (!(need & RB_FIELD_BIT(f)) || (f < s->nfields
		&& Rb_SchemaFieldIndex(s, want->name) == f
		&& got->type == want->type && got->unit == want->unit)) {
	    continue;
	}
	known = Rb_SchemaFieldList(s);
	Rb_SetInterpError(interp, "RUBICON ANALYZER SCHEMA",
		"%s: %s reads the I/O field \"%s\" (field %d of schema io), "
		"which records of schema \"%s\" lack (its fields: %s); "
		"run it on block I/O traces", a->cmdName ? a->cmdName
		: a->cls->name, a->cls->name, want->name, f, s->name, known);
	free(known);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * RbAnalyzerStartAll --
 *	Checks that the run's records have the I/O fields a's class reads,
 *	then calls its start hook.
 */
int
RbAnalyzerStartAll(Tcl_Interp *interp, Rb_Analyzer *a, const Rb_RunInfo *run)
{
    AnalyzerPriv *priv = a->engine;

    priv->resolved = 0;
    priv->given = 0;
    priv->present = 0;
    priv->mergeFailed = 0;
    if (CheckIoFields(interp, a, run) != TCL_OK) {
	return TCL_ERROR;
    }
    if (a->cls->start && a->cls->start(a, run) != TCL_OK) {
	if (RbAnalyzerTakeError(interp, a) == TCL_OK) {
	    Rb_SetInterpError(interp, "RUBICON ANALYZER START",
		    "%s: failed to start", a->cmdName ? a->cmdName
		    : a->cls->name);
	}
	return TCL_ERROR;
    }
    return RbAnalyzerTakeError(interp, a);
}

/*
 * Producer --
 *	The analyzer of flow whose class declares attribute name (after its
 *	prefix), or NULL.
 */
static Rb_Analyzer *
Producer(Rb_Flow *flow, const char *name)
{
    int i;
    const char *const *p;

    for (i = 0; i < flow->nanalyzers; i++) {
	Rb_Analyzer *a = flow->analyzers[i];
	size_t pl = strlen(a->prefix);

	if (strncmp(name, a->prefix, pl) != 0) {
	    continue;
	}
	for (p = a->cls->attrs; p && *p; p++) {
	    if (Tcl_StringMatch(name + pl, *p)) {
		return a;
	    }
	}
    }
    return NULL;
}

/*
 * Visit --
 *	Depth-first step of the end-order sort: appends a after everything
 *	it needs. mark: 0 new, 1 on the current path, 2 done.
 * Results: TCL_OK, or TCL_ERROR naming the cycle.
 */
static int
Visit(Tcl_Interp *interp, Rb_Analyzer *a, Rb_Analyzer ***order, int *n,
	Tcl_DString *path)
{
    AnalyzerPriv *priv = a->engine;
    int i, rc, pathLen;

    if (priv->mark == 2) {
	return TCL_OK;
    }
    if (priv->mark == 1) {
	Tcl_DStringAppend(path, " -> ", -1);
	Tcl_DStringAppend(path, a->cmdName ? a->cmdName : a->cls->name, -1);
	return Rb_SetInterpError(interp, "RUBICON DAG CYCLE",
		"staged analysis has a cycle: %s", Tcl_DStringValue(path));
    }
    priv->mark = 1;
    pathLen = Tcl_DStringLength(path);
    if (pathLen) {
	Tcl_DStringAppend(path, " -> ", -1);
    }
    Tcl_DStringAppend(path, a->cmdName ? a->cmdName : a->cls->name, -1);
    for (i = 0; i < priv->nneeds; i++) {
	Rb_Analyzer *dep = Producer(priv->needFlows[i], priv->needAttrs[i]);

	if (dep == NULL) {
	    return Rb_SetInterpError(interp, "RUBICON DAG DEPENDENCY",
		    "%s needs attribute \"%s\" of flow \"%s\", which no "
		    "analyzer of that flow sets",
		    a->cmdName ? a->cmdName : a->cls->name,
		    priv->needAttrs[i], priv->needFlows[i]->name);
	}
	rc = Visit(interp, dep, order, n, path);
	if (rc != TCL_OK) {
	    return rc;
	}
    }
    priv->mark = 2;
    Tcl_DStringSetLength(path, pathLen);
    (*order)[(*n)++] = a;
    return TCL_OK;
}

/* While RbEndAnalyzers runs with a time limit: when ending stops. */
static int endDeadlineSet;
static Tcl_Time endDeadline;

/*
 * Rb_AnalyzerPastLimit --
 *	Whether the end deadline (RbEndDeadline) has passed while analyzers
 *	end: for loops in end and merge hooks that may run long.
 * Results: 1 with the analyzer error RUBICON SAFE LIMIT TIME recorded,
 *	or 0.
 * Side effects: as Rb_AnalyzerError when it returns 1.
 */
int
Rb_AnalyzerPastLimit(Rb_Analyzer *a)
{
    Tcl_Time now;

    if (!endDeadlineSet) {
	return 0;
    }
    Tcl_GetTime(&now);
    if (now.sec < endDeadline.sec || (now.sec == endDeadline.sec
	    && now.usec <= endDeadline.usec)) {
	return 0;
    }
    Rb_AnalyzerError(a, "RUBICON SAFE LIMIT TIME", "time limit reached "
	    "while ending: stopped before its results were complete");
    return 1;
}

/*
 * RbEndAnalyzers --
 *	Calls end on every analyzer of the given flows, and on analyzers of
 *	other flows they need, so that each runs after its producers.  With
 *	dryRun, only checks the order (cycles, missing producers).  Before
 *	each end, a time limit on interp is checked (RbEndCheckLimit): past
 *	it, the analyzers not ended yet are not.  An analyzer whose end
 *	fails has its Attributes marked partial, and the others still end;
 *	the first failure is the result.
 * Results: TCL_OK or TCL_ERROR.
 */
int
RbEndAnalyzers(Tcl_Interp *interp, Rb_Engine *eng, Rb_Flow **flows,
	int nflows, const Rb_RunInfo *run, int dryRun)
{
    Rb_Analyzer **order = Rb_AllocArray(eng->nanalyzers + 1,
	    sizeof(Rb_Analyzer *));
    Tcl_DString path;
    Tcl_Obj *firstErr = NULL, *firstOpts = NULL;
    int i, j, n = 0, rc = TCL_OK, ordered;

    for (i = 0; i < eng->nanalyzers; i++) {
	((AnalyzerPriv *)eng->analyzers[i]->engine)->mark = 0;
    }
    for (i = 0; i < nflows && rc == TCL_OK; i++) {
	for (j = 0; j < flows[i]->nanalyzers && rc == TCL_OK; j++) {
	    Tcl_DStringInit(&path);
	    rc = Visit(interp, flows[i]->analyzers[j], &order, &n, &path);
	    Tcl_DStringFree(&path);
	}
    }
    ordered = rc == TCL_OK;
    if (!dryRun) {
	double grace;

	endDeadlineSet = RbEndDeadline(interp, &endDeadline, &grace);
    }
    for (i = 0; i < n && !dryRun && ordered; i++) {
	Rb_Analyzer *a = order[i];
	int failed = 0;

	if (RbEndCheckLimit(interp) != TCL_OK) {
	    RbErrorKeep(interp, &firstErr, &firstOpts);
	    rc = TCL_ERROR;
	    break;
	}
	if (a->cls->end && a->cls->end(a, run) != TCL_OK) {
	    if (RbAnalyzerTakeError(interp, a) == TCL_OK) {
		Rb_SetInterpError(interp, "RUBICON ANALYZER END",
			"%s: failed at end of trace",
			a->cmdName ? a->cmdName : a->cls->name);
	    }
	    failed = 1;
	} else if (RbAnalyzerTakeError(interp, a) != TCL_OK) {
	    failed = 1;
	}
	if (failed) {
	    /* The others end on, so that what they computed is reported;
	     * the first failure is the run's. */
	    RbErrorKeep(interp, &firstErr, &firstOpts);
	    rc = TCL_ERROR;
	}
	if ((run->partial || failed) && a->flow) {
	    Tcl_HashSearch s;
	    Tcl_HashEntry *e;

	    for (e = Tcl_FirstHashEntry(&a->flow->attrs, &s); e;
		    e = Tcl_NextHashEntry(&s)) {
		Rb_Attribute *attr = Tcl_GetHashValue(e);

		if (attr->producer == a) {
		    attr->partial = 1;
		}
	    }
	}
    }
    RbErrorRaise(interp, &firstErr, &firstOpts);
    endDeadlineSet = 0;
    free(order);
    return rc;
}

/*
 * NothingSet --
 *	Whether every Attribute a set on its Flow is 0 or empty: scalars 0
 *	(or NaN), other kinds without rows, no text.
 */
static int
NothingSet(Rb_Analyzer *a)
{
    Tcl_HashSearch s;
    Tcl_HashEntry *e;
    int any = 0;

    for (e = Tcl_FirstHashEntry(&a->flow->attrs, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	Rb_Attribute *attr = Tcl_GetHashValue(e);

	if (attr->producer != a) {
	    continue;
	}
	any = 1;
	if (attr->kind == RB_ATTR_TEXT) {
	    if (attr->text && attr->text[0]) {
		return 0;
	    }
	} else if (attr->kind == RB_ATTR_SCALAR) {
	    if (attr->nrows > 0 && attr->ncols > 0 && !attr->cols[0].isText) {
		double v = Rb_AttrNum(attr, 0, 0);

		if (v == v && v != 0.0) {
		    return 0;
		}
	    }
	} else if (attr->nrows > 0) {
	    return 0;
	}
    }
    return any;
}

/*
 * RbAnalyzersBlind --
 *	After a run's end hooks: for each Analyzer of flows that was given
 *	records, found a field its class declares absent in every one of
 *	them, and set only zeros and empty Attributes, appends to notes
 *	"UtilizationAnalyzer in Flow all: startTime absent in every record
 *	it was given; its Attributes are all 0 or empty" (so a result of 0
 *	for want of a field is not taken for a measurement).  After a split
 *	run, rank 0 judges by the records it read itself.
 */
void
RbAnalyzersBlind(Rb_Flow **flows, int nflows, const Rb_RunInfo *run,
	Tcl_Obj *notes)
{
    int i, j, f;

    for (i = 0; i < nflows; i++) {
	for (j = 0; j < flows[i]->nanalyzers; j++) {
	    Rb_Analyzer *a = flows[i]->analyzers[j];
	    AnalyzerPriv *priv = a->engine;
	    uint64_t missing = a->cls->fields & ~RB_FIELD_BIT(RB_IO_TIME)
		    & ~priv->present;
	    Tcl_Obj *names;

	    if (priv->given == 0 || missing == 0 || !NothingSet(a)) {
		continue;
	    }
	    names = Tcl_NewObj();
	    for (f = 0; f < RB_IO_NFIELDS && f < run->schema->nfields; f++) {
		if (missing & RB_FIELD_BIT(f)) {
		    Tcl_AppendPrintfToObj(names, "%s%s",
			    Tcl_GetCharLength(names) ? ", " : "",
			    run->schema->fields[f].name);
		}
	    }
	    Tcl_ListObjAppendElement(NULL, notes, Tcl_ObjPrintf(
		    "%s in Flow %s: %s absent in every record it was given; "
		    "its Attributes are all 0 or empty", a->cls->name,
		    flows[i]->name, Tcl_GetString(names)));
	    Tcl_DecrRefCount(names);
	}
    }
}

/*
 * RbAnalyzerFromCmdInfo --
 *	The analyzer behind a command, or NULL if it is not one.
 */
Rb_Analyzer *
RbAnalyzerFromCmdInfo(const Tcl_CmdInfo *info)
{
    return info->objProc == AnalyzerObjCmd ? info->objClientData : NULL;
}

/*
 * AnalyzerObjCmd --
 *	The object command of an analyzer: configure, cget, flow,
 *	attributes (the names it sets), class, help, mergeable,
 *	perrecordstate (whether its memory grows with distinct keys or
 *	records), destroy.
 */
static int
AnalyzerObjCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    Rb_Analyzer *a = cd;
    static const char *const subs[] = {
	"attributes", "cget", "class", "configure", "destroy", "flow", "help",
	"mergeable", "perrecordstate", NULL
    };
    enum { SUB_ATTRS, SUB_CGET, SUB_CLASS, SUB_CONFIGURE, SUB_DESTROY,
	SUB_FLOW, SUB_HELP, SUB_MERGEABLE, SUB_PERRECORD };
    const char *const *p;
    Tcl_Obj *list;
    int idx;

    if (objc < 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "subcommand ?arg ...?");
	return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObj(interp, objv[1], subs, "subcommand", 0, &idx)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    switch (idx) {
    case SUB_ATTRS:
	list = Tcl_NewListObj(0, NULL);
	for (p = a->cls->attrs; p && *p; p++) {
	    Tcl_ListObjAppendElement(NULL, list,
		    Tcl_ObjPrintf("%s%s", a->prefix, *p));
	}
	Tcl_SetObjResult(interp, list);
	return TCL_OK;
    case SUB_CGET:
    case SUB_CONFIGURE: {
	static const Rb_Option coreOpts[] = {
	    {"-prefix", RB_OPT_STRING, offsetof(Rb_Analyzer, prefix), NULL,
	     NULL},
	    {NULL}
	};

	return RbOptionsCommand(interp, objc, objv, a->cls->options, a->state,
		coreOpts, a, a->cls->init ? CheckAnalyzer : NULL, a);
    }
    case SUB_CLASS:
	Tcl_SetObjResult(interp, Tcl_NewStringObj(a->cls->name, -1));
	return TCL_OK;
    case SUB_DESTROY:
	Tcl_DeleteCommandFromToken(interp, a->token);
	return TCL_OK;
    case SUB_FLOW:
	Tcl_SetObjResult(interp, Tcl_NewStringObj(a->flow && a->flow->node
		->cmdName ? a->flow->node->cmdName : "", -1));
	return TCL_OK;
    case SUB_HELP:
	Tcl_SetObjResult(interp, Tcl_NewStringObj(a->cls->help, -1));
	return TCL_OK;
    case SUB_MERGEABLE:
	Tcl_SetObjResult(interp, Tcl_NewBooleanObj(a->cls->mergeable));
	return TCL_OK;
    case SUB_PERRECORD:
	Tcl_SetObjResult(interp, Tcl_NewBooleanObj(a->cls->perRecordState));
	return TCL_OK;
    }
    return TCL_OK;
}

static void
AnalyzerDeleteProc(ClientData cd)
{
    RbAnalyzerDelete(cd);
}

/*
 * AnalyzerClassCmd --
 *	The class command: "BandwidthAnalyzer ?flow? ?-option value ...?"
 *	makes an instance with its own object command.  With a Flow first
 *	(the paper's form) the instance belongs to that Flow at once and
 *	sets its Attributes there.
 * Results: the new object command's name, or an error naming the class
 *	and what it expected.
 */
static int
AnalyzerClassCmd(ClientData cd, Tcl_Interp *interp, int objc,
	Tcl_Obj *const objv[])
{
    const Rb_AnalyzerClass *cls = cd;
    Rb_Flow *flow = NULL;
    Rb_Analyzer *a;
    int first = 1;

    if (objc > 1 && Tcl_GetString(objv[1])[0] != '-') {
	Tcl_CmdInfo info;

	if (Tcl_GetCommandInfo(interp, Tcl_GetString(objv[1]), &info)) {
	    flow = RbFlowFromCmdInfo(&info);
	}
	if (flow == NULL) {
	    return Rb_SetInterpError(interp, "RUBICON ANALYZER ARGS",
		    "%s: expected a Flow or an -option as first argument, "
		    "got \"%s\"; usage: %s ?flow? ?-option value ...?",
		    cls->name, Tcl_GetString(objv[1]), cls->name);
	}
	first = 2;
    }
    a = RbAnalyzerCreate(interp, cls, objc - first, objv + first);
    if (a == NULL) {
	const char *msg = Tcl_GetStringResult(interp);

	if (strncmp(msg, cls->name, strlen(cls->name)) != 0) {
	    Tcl_SetObjResult(interp, Tcl_ObjPrintf("%s: %s", cls->name, msg));
	}
	return TCL_ERROR;
    }
    a->token = RbEngineNewObject(interp, cls->name, AnalyzerObjCmd, a,
	    AnalyzerDeleteProc, &a->cmdName);
    if (flow != NULL && RbFlowAddAnalyzer(interp, flow, a) != TCL_OK) {
	Tcl_DeleteCommandFromToken(interp, a->token);
	return TCL_ERROR;
    }
    return TCL_OK;
}

/*
 * RbAnalyzerNode --
 *	The DAG node of an analyzer, made the first time a Mux, Filter or
 *	head names the analyzer.  It shares the analyzer's command name and
 *	lives as long as the analyzer.
 * Results: the node.
 */
Rb_Node *
RbAnalyzerNode(Rb_Analyzer *a)
{
    AnalyzerPriv *priv = a->engine;

    if (priv->node == NULL) {
	priv->node = RbNodeCreate(priv->eng, NODE_ANALYZER);
	priv->node->analyzer = a;
	priv->node->cmdName = Rb_Strdup(a->cmdName ? a->cmdName
		: a->cls->name);
    }
    return priv->node;
}

/*
 * RbAnalyzerPush --
 *	Hands the selected records of a batch to one analyzer: its batch
 *	hook if the class has one, else its record hook per record.
 */
void
RbAnalyzerPush(Rb_Analyzer *a, const Rb_Batch *b, const uint32_t *sel,
	int nsel)
{
    AnalyzerPriv *priv = a->engine;
    uint64_t unseen = a->cls->fields & ~RB_FIELD_BIT(RB_IO_TIME)
	    & ~priv->present;
    int k;

    /* Which declared fields these records hold (RbAnalyzersBlind): a
     * field is looked for only until a record has it. */
    priv->given += (uint64_t)nsel;
    while (unseen) {
	int f = __builtin_ctzll(unseen);

	unseen &= unseen - 1;
	if (f >= RB_IO_NFIELDS) {
	    continue;
	}
	for (k = 0; k < nsel; k++) {
	    if (b->col[f][sel[k]] != RB_ABSENT) {
		priv->present |= RB_FIELD_BIT(f);
		break;
	    }
	}
    }

    if (a->cls->batch) {
	a->cls->batch(a, b, sel, nsel);
    } else if (a->cls->record) {
	for (k = 0; k < nsel; k++) {
	    a->cls->record(a, b, (int)sel[k]);
	}
    }
}

/*
 * Rb_RegisterAnalyzer --
 *	Makes the class's command (in ::rubicon, exported) and lists it in
 *	rubicon::types.
 * Results: TCL_OK always.
 * Side effects: creates or replaces the command ::rubicon::NAME and
 *	imports it into the global namespace unless a global command of that
 *	name exists; replaces a class registered under the same name.  The
 *	class is kept by reference, not copied: it must outlive interp.
 */
int
Rb_RegisterAnalyzer(Tcl_Interp *interp, const Rb_AnalyzerClass *cls)
{
    return RbEngineRegister(interp, CLASS_ANALYZER, cls->name, cls->help,
	    AnalyzerClassCmd, cls);
}
