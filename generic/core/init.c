/*
 * init.c --
 *
 *	Package initialization: the per-interpreter engine, the core
 *	commands (rubicon::types, rubicon::dag, rubicon::formats), every
 *	kit's classes, and the package's Tcl half.
 */

#include <string.h>
#include "engine.h"
#include "mpi.h"

#define ENGINE_KEY "rubicon::engine"

static void
EngineFree(ClientData cd, Tcl_Interp *interp)
{
    Rb_Engine *eng = cd;
    Tcl_HashSearch s;
    Tcl_HashEntry *e;

    for (e = Tcl_FirstHashEntry(&eng->classes, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	free(Tcl_GetHashValue(e));
    }
    Tcl_DeleteHashTable(&eng->classes);
    if (eng->safe) {
	RbSafeEnd();
    }
    if (eng->safeReads) {
	Tcl_DecrRefCount(eng->safeReads);
    }
    free(eng->safeWriteDir);
    free(eng->reporters);
    free(eng->analyzers);
    if (eng->lastRun) {
	Tcl_DecrRefCount(eng->lastRun);
    }
    free(eng);
}

/*
 * RbEngineGet --
 *	The interpreter's engine, made on first use.
 */
Rb_Engine *
RbEngineGet(Tcl_Interp *interp)
{
    Rb_Engine *eng = Tcl_GetAssocData(interp, ENGINE_KEY, NULL);

    if (eng == NULL) {
	eng = Rb_Alloc(sizeof(*eng));
	eng->interp = interp;
	Tcl_InitHashTable(&eng->classes, TCL_STRING_KEYS);
	Tcl_SetAssocData(interp, ENGINE_KEY, EngineFree, eng);
    }
    return eng;
}

/*
 * RbEngineNewName --
 *	A fresh object command name "::rubicon::obj::BASE<n>" (malloc'd).
 */
char *
RbEngineNewName(Rb_Engine *eng, const char *base)
{
    size_t n = strlen(base) + 40;
    char *name = Rb_Alloc(n);
    Tcl_CmdInfo info;

    do {
	snprintf(name, n, "::rubicon::obj::%s%d", base, ++eng->counter);
    } while (Tcl_GetCommandInfo(eng->interp, name, &info));
    return name;
}

/*
 * ImportGlobally --
 *	Exports ::rubicon::NAME and imports it into the global namespace, as
 *	the paper's configurations call classes unqualified; an existing
 *	global command of that name is left alone.
 */
static void
ImportGlobally(Tcl_Interp *interp, const char *name)
{
    Tcl_Namespace *ns = Tcl_FindNamespace(interp, "::rubicon", NULL, 0);
    Tcl_DString cmd;

    /* Through the C API, not a script: a script per class, compiled
     * each time, was a fifth of a run's start-up. */
    if (ns == NULL || Tcl_Export(interp, ns, name, 0) != TCL_OK) {
	Tcl_ResetResult(interp);
	return;
    }
    Tcl_DStringInit(&cmd);
    Tcl_DStringAppend(&cmd, "::", -1);
    Tcl_DStringAppend(&cmd, name, -1);
    if (Tcl_FindCommand(interp, Tcl_DStringValue(&cmd), NULL, 0) == NULL) {
	Tcl_DStringSetLength(&cmd, 0);
	Tcl_DStringAppend(&cmd, "::rubicon::", -1);
	Tcl_DStringAppend(&cmd, name, -1);
	if (Tcl_Import(interp, Tcl_GetGlobalNamespace(interp),
		Tcl_DStringValue(&cmd), 0) != TCL_OK) {
	    Tcl_ResetResult(interp);
	}
    }
    Tcl_DStringFree(&cmd);
}

/*
 * RbEngineNewObject --
 *	Gives a new object its command ::rubicon::obj::BASE<n>: stores the
 *	malloc'd name in *cmdName and sets the interpreter result to it.
 * Results: the command's token.
 */
Tcl_Command
RbEngineNewObject(Tcl_Interp *interp, const char *base, Tcl_ObjCmdProc *proc,
	ClientData cd, Tcl_CmdDeleteProc *deleteProc, char **cmdName)
{
    Tcl_Command token;

    *cmdName = RbEngineNewName(RbEngineGet(interp), base);
    token = Tcl_CreateObjCommand(interp, *cmdName, proc, cd, deleteProc);
    Tcl_SetObjResult(interp, Tcl_NewStringObj(*cmdName, -1));
    return token;
}

void
RbEngineAddClass(Rb_Engine *eng, ClassKind kind, const char *name,
	const char *help, const void *cls)
{
    int isNew;
    Tcl_HashEntry *e = Tcl_CreateHashEntry(&eng->classes, name, &isNew);
    ClassEntry *ce;

    if (!isNew) {
	free(Tcl_GetHashValue(e));
    }
    ce = Rb_Alloc(sizeof(*ce));
    ce->kind = kind;
    ce->name = name;
    ce->help = help;
    ce->cls = cls;
    Tcl_SetHashValue(e, ce);
    if (eng->deferImports) {
	eng->pending = Rb_ReallocArray(eng->pending, eng->npending + 1,
		sizeof(*eng->pending));
	eng->pending[eng->npending++] = name;
	return;
    }
    ImportGlobally(eng->interp, name);
}

/*
 * RbEngineImportPending --
 *	Imports the classes registered since imports were deferred
 *	(Rubicon_Init, and the program's loading of its plugins, set
 *	eng->deferImports), with auto_import set aside: Tcl_Import runs it first for each command, at a fifth of a
 *	run's start-up for the kit's classes, and it loads nothing for them
 *	(it looks for commands not yet defined, and these are).
 */
void
RbEngineImportPending(Rb_Engine *eng)
{
    Tcl_Interp *interp = eng->interp;
    int i, hidden = Tcl_FindCommand(interp, "::auto_import", NULL, 0) != NULL
	    && Tcl_Eval(interp, "rename ::auto_import "
		"::rubicon::obj::auto_import") == TCL_OK;

    for (i = 0; i < eng->npending; i++) {
	ImportGlobally(interp, eng->pending[i]);
    }
    if (hidden) {
	Tcl_Eval(interp, "rename ::rubicon::obj::auto_import ::auto_import");
    }
    Tcl_ResetResult(interp);
    free(eng->pending);
    eng->pending = NULL;
    eng->npending = 0;
    eng->deferImports = 0;
}

/*
 * RbEngineRegister --
 *	Makes a class's command ::rubicon::NAME (client data: the class) and
 *	lists it in rubicon::types; shared by Analyzer, Reporter and
 *	Transformer registration.
 */
int
RbEngineRegister(Tcl_Interp *interp, ClassKind kind, const char *name,
	const char *help, Tcl_ObjCmdProc *proc, const void *cls)
{
    Tcl_DString cmd;

    Tcl_DStringInit(&cmd);
    Tcl_DStringAppend(&cmd, "::rubicon::", -1);
    Tcl_DStringAppend(&cmd, name, -1);
    Tcl_CreateObjCommand(interp, Tcl_DStringValue(&cmd), proc,
	    (ClientData)cls, NULL);
    Tcl_DStringFree(&cmd);
    RbEngineAddClass(RbEngineGet(interp), kind, name, help, cls);
    return TCL_OK;
}

static int
CompareStr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * AtInteractiveTop --
 *	Whether the command running was typed at the top level of an
 *	interactive session (tcl_interactive set: tclsh or rubicon on a
 *	terminal), where its result is printed for a person to read.
 */
static int
AtInteractiveTop(Tcl_Interp *interp)
{
    const char *inter = Tcl_GetVar2(interp, "tcl_interactive", NULL,
	    TCL_GLOBAL_ONLY);
    int level = -1;

    if (inter == NULL || strcmp(inter, "1") != 0
	    || Tcl_Eval(interp, "::info level") != TCL_OK
	    || Tcl_GetIntFromObj(NULL, Tcl_GetObjResult(interp), &level)
		!= TCL_OK) {
	Tcl_ResetResult(interp);
	return 0;
    }
    Tcl_ResetResult(interp);
    return level == 0;
}

/*
 * OneElementPerLine --
 *	The same list written with a newline between its elements (a string
 *	that is still that list, element for element), so that a shell
 *	prints one element per line.  Frees list when it had no reference.
 */
static Tcl_Obj *
OneElementPerLine(Tcl_Obj *list)
{
    Tcl_Obj **elems, *text = Tcl_NewObj();
    int n, i;

    Tcl_IncrRefCount(list);
    Tcl_ListObjGetElements(NULL, list, &n, &elems);
    for (i = 0; i < n; i++) {
	/* A one-element list's string is the element quoted as a list
	 * element. */
	Tcl_Obj *one = Tcl_NewListObj(1, &elems[i]);

	Tcl_IncrRefCount(one);
	if (i > 0) {
	    Tcl_AppendToObj(text, "\n", 1);
	}
	Tcl_AppendObjToObj(text, one);
	Tcl_DecrRefCount(one);
    }
    Tcl_DecrRefCount(list);
    return text;
}

/*
 * TypesCmd --
 *	rubicon::types ?kind?: a list of {kind name help} for every class,
 *	sorted by kind then name; kind is analyzer, reporter, transformer,
 *	core or reader.
 */
static int
TypesCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const kinds[] = {
	"analyzer", "reporter", "transformer", "core", "reader", NULL
    };
    Rb_Engine *eng = RbEngineGet(interp);
    Tcl_HashSearch s;
    Tcl_HashEntry *e;
    const char **names;
    Tcl_Obj *list = Tcl_NewListObj(0, NULL);
    int want = -1, k, i, n = 0, nreaders;
    const Rb_ReaderClass *const *readers;

    if (objc > 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "?kind?");
	return TCL_ERROR;
    }
    if (objc == 2 && Tcl_GetIndexFromObj(interp, objv[1], kinds, "kind", 0,
	    &want) != TCL_OK) {
	return TCL_ERROR;
    }
    names = Rb_AllocArray(eng->classes.numEntries + 1, sizeof(char *));
    for (e = Tcl_FirstHashEntry(&eng->classes, &s); e;
	    e = Tcl_NextHashEntry(&s)) {
	names[n++] = Tcl_GetHashKey(&eng->classes, e);
    }
    qsort(names, n, sizeof(char *), CompareStr);
    for (k = 0; k < 4; k++) {
	if (want >= 0 && want != k) {
	    continue;
	}
	for (i = 0; i < n; i++) {
	    ClassEntry *ce = Tcl_GetHashValue(Tcl_FindHashEntry(
		    &eng->classes, names[i]));

	    if ((int)ce->kind == k) {
		Tcl_ListObjAppendElement(NULL, list, Tcl_NewListObj(3,
			(Tcl_Obj *[]){Tcl_NewStringObj(kinds[k], -1),
			Tcl_NewStringObj(ce->name, -1),
			Tcl_NewStringObj(ce->help, -1)}));
	    }
	}
    }
    free(names);
    if (want < 0 || want == 4) {
	readers = Rb_Readers(&nreaders);
	for (i = 0; i < nreaders; i++) {
	    Tcl_ListObjAppendElement(NULL, list, Tcl_NewListObj(3,
		    (Tcl_Obj *[]){Tcl_NewStringObj("reader", -1),
		    Tcl_NewStringObj(readers[i]->name, -1),
		    Tcl_NewStringObj(readers[i]->help, -1)}));
	}
    }
    if (AtInteractiveTop(interp)) {
	list = OneElementPerLine(list);
    }
    Tcl_SetObjResult(interp, list);
    return TCL_OK;
}

/*
 * DagCmd --
 *	rubicon::dag dot: the DAG from the head in Graphviz DOT.
 *	rubicon::dag head: the head node.
 */
static int
DagCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    static const char *const subs[] = {"dot", "head", NULL};
    Rb_Engine *eng = RbEngineGet(interp);
    int idx;

    if (objc != 2) {
	Tcl_WrongNumArgs(interp, 1, objv, "dot|head");
	return TCL_ERROR;
    }
    if (Tcl_GetIndexFromObj(interp, objv[1], subs, "subcommand", 0, &idx)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    if (idx == 0) {
	return RbDagDot(interp, eng);
    }
    Tcl_SetObjResult(interp, Tcl_NewStringObj(eng->head ? eng->head->cmdName
	    : "", -1));
    return TCL_OK;
}

/*
 * ImportPendingAfterError --
 *	RbEngineImportPending after a step of the package's loading failed,
 *	keeping the error (which it would reset) for the caller.
 * Results: TCL_ERROR.
 */
static int
ImportPendingAfterError(Rb_Engine *eng)
{
    Tcl_InterpState state = Tcl_SaveInterpState(eng->interp, TCL_ERROR);

    RbEngineImportPending(eng);
    return Tcl_RestoreInterpState(eng->interp, state);
}

/*
 * Rubicon_Init --
 *	Loads the package into an interpreter: the engine, every built-in
 *	class's command, rubicon::types and rubicon::dag, and the Tcl half
 *	(compatibility for "$obj.method", helpers).  The plugins are
 *	packages of their own, which pkgIndex.tcl loads after this.
 * Results: TCL_OK, or TCL_ERROR with the error in interp (one from the
 *	library script has "(in rubicon's library script)" in errorInfo).
 * Side effects: creates the engine and the commands in ::rubicon (the
 *	classes also imported globally); provides package rubicon with the
 *	stubs table as its client data; the first call in the process
 *	registers the built-in trace readers.
 */
int
Rubicon_Init(Tcl_Interp *interp)
{
    static int readersDone = 0;
    Rb_Engine *eng;

#ifdef USE_TCL_STUBS
    if (Tcl_InitStubs(interp, "8.6", 0) == NULL) {
	return TCL_ERROR;
    }
#endif
    eng = RbEngineGet(interp);
    Tcl_Eval(interp, "namespace eval ::rubicon::obj {}");
    eng->deferImports = 1;
    if (!readersDone) {
	RbReaderKitInit();
	readersDone = 1;
    }
    if (RbFlowInitCmds(interp) != TCL_OK
	    || RbNodeInitCmds(interp) != TCL_OK
	    || RbRunInitCmds(interp) != TCL_OK
	    || RbMpiInitCmds(interp) != TCL_OK
	    || RbIoCommandsInit(interp) != TCL_OK
	    || RbSafeInitCmds(interp) != TCL_OK
	    || RbAnalyzerKitInit(interp) != TCL_OK
	    || RbReporterKitInit(interp) != TCL_OK
	    || RbTraceReportInitCmds(interp) != TCL_OK
	    || RbTransformerKitInit(interp) != TCL_OK) {
	return ImportPendingAfterError(eng);
    }
    Tcl_CreateObjCommand(interp, "::rubicon::types", TypesCmd, NULL, NULL);
    Tcl_CreateObjCommand(interp, "::rubicon::dag", DagCmd, NULL, NULL);
    if (Tcl_Eval(interp, Rb_LibraryScript) != TCL_OK) {
	Tcl_AddErrorInfo(interp, "\n    (in rubicon's library script)");
	return ImportPendingAfterError(eng);
    }
    RbEngineImportPending(eng);
    return Tcl_PkgProvideEx(interp, "rubicon", RUBICON_VERSION,
	    (ClientData)RbStubsTable());
}

/*
 * Rubicon_SafeInit --
 *	Loads the package into a safe interpreter: the same commands exist;
 *	file access is what the master interpreter grants.
 * Results: as Rubicon_Init.
 * Side effects: as Rubicon_Init.
 */
int
Rubicon_SafeInit(Tcl_Interp *interp)
{
    return Rubicon_Init(interp);
}
