/*
 * rbMain.c --
 *
 *	The rubicon program: "rubicon ?-format F? ?-onerror P? config.tcl
 *	?trace ...?" runs a configuration script with the traces in argv (a
 *	script that never calls rubicon::run gets one run over all traces
 *	after it finishes); with no arguments it is an interactive tclsh with
 *	the package loaded.  Under mpirun, Rubicon_Init joins the MPI job
 *	(generic/core/mpi.c) and every rank runs the same script; rank 0
 *	alone reports, so the other ranks print no errors (rank 0 prints
 *	the same one, or the one a failing rank sent it) unless rank 0 did
 *	not fail alike.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tcl.h>
#include "rubicon.h"
#include "core/mpi.h"
#include "core/engine.h"

/*
 * The four plugins are packages of their own (rubicon::magpie ...), found
 * beside the program in a build tree, in PREFIX/lib/tcltk/rubiconVERSION
 * or (the Debian package) PREFIX/lib/tcltk/TRIPLET/rubiconVERSION beside
 * PREFIX/bin, or on Tcl's own package path (Debian's tclsh
 * searches /usr/local/lib/tcltk and /usr/lib/tcltk).  An index found
 * beside the program is sourced at once (it sets "package ifneeded" with
 * $dir): left to "package unknown", the first require would source every
 * index on the path, tcllib's hundred and more among them, some 20 ms of
 * every run.
 */
static const char loadPlugins[] =
    "apply {{} {\n"
    "    set bin [file dirname [file normalize [info nameofexecutable]]]\n"
    "    set tcltk [file join [file dirname $bin] lib tcltk]\n"
    "    set lib [file join $tcltk rubicon" RUBICON_VERSION "]\n"
    "    set debian [file join $tcltk {" RB_MULTIARCH "} rubicon"
	RUBICON_VERSION "]\n"
    "    foreach dir [list $lib $debian $bin] {\n"
    "\tif {[file exists [file join $dir pkgIndex.tcl]]\n"
    "\t\t&& $dir ni $::auto_path} {\n"
    "\t    set ::auto_path [linsert $::auto_path 0 $dir]\n"
    "\t    source [file join $dir pkgIndex.tcl]\n"
    "\t}\n"
    "    }\n"
    "    foreach p {magpie stardust observer txmix} {\n"
    "\tpackage require rubicon::$p " RUBICON_VERSION "\n"
    "    }\n"
    "}}";

/*
 * AppInit --
 *	Makes the program's interpreter: Tcl, the rubicon package (linked
 *	in) and its four plugins (loaded).
 * Results: TCL_OK, or TCL_ERROR with the reason in interp.
 */
static int
AppInit(Tcl_Interp *interp)
{
    if (Tcl_Init(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    if (Rubicon_Init(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    Tcl_StaticPackage(interp, "Rubicon", Rubicon_Init, Rubicon_SafeInit);
    /* The plugins' classes are imported together (init.c). */
    RbEngineGet(interp)->deferImports = 1;
    if (Tcl_Eval(interp, loadPlugins) != TCL_OK) {
	/* Keep the error: importing resets the interp's result. */
	Tcl_InterpState state = Tcl_SaveInterpState(interp, TCL_ERROR);

	RbEngineImportPending(RbEngineGet(interp));
	return Tcl_RestoreInterpState(interp, state);
    }
    RbEngineImportPending(RbEngineGet(interp));
    Tcl_SetVar(interp, "tcl_rcFileName", "~/.rubiconrc", TCL_GLOBAL_ONLY);
    return TCL_OK;
}

/*
 * StatusAfter --
 *	The exit status of a batch run: 128 + the signal when SIGINT or
 *	SIGTERM stopped a run (130, 143, as a shell shows a process the
 *	signal killed; the reports were still written, marked partial),
 *	else status.
 */
static int
StatusAfter(Tcl_Interp *interp, int status)
{
    int sig = 0;

    if (Tcl_Eval(interp, "::rubicon::_signal") == TCL_OK
	    && Tcl_GetIntFromObj(NULL, Tcl_GetObjResult(interp), &sig) == TCL_OK
	    && sig > 0) {
	return 128 + sig;
    }
    return status;
}

/*
 * ShowStack --
 *	Whether a failed batch run prints the Tcl stack after its message:
 *	only for an error that may be a bug of the program's own Tcl code.
 *	Not for Rubicon's errors and usage errors, whose messages say it
 *	all; not for an error of the configuration (::rubicon::configFailed
 *	set, "file:line: message"), whose stack would show only the
 *	library's frames, nor in safe mode, which shows nothing of them;
 *	not for a failed write to a channel (POSIX codes: a full disk, a
 *	closed pipe on stdout), whose message names the channel.
 */
static int
ShowStack(Tcl_Interp *interp, const char *codeStr)
{
    return strncmp(codeStr, "RUBICON", 7) != 0 && strcmp(codeStr, "USAGE")
	    && strncmp(codeStr, "POSIX ", 6) != 0
	    && Tcl_GetVar(interp, "::rubicon::configFailed", TCL_GLOBAL_ONLY)
		== NULL;
}

/*
 * RunConfig --
 *	Runs a configuration script in batch mode. The script sees the trace
 *	files in ::argv; "rubicon::main" (library/main.tcl) does the work.
 * Results: the process exit status: 0, 1 on an error (2 when the
 *	configuration is not a script), 128 + the signal
 *	after an interrupted run.
 */
static int
RunConfig(int argc, char **argv)
{
    Tcl_Interp *interp = Tcl_CreateInterp();
    Tcl_Obj *args = Tcl_NewListObj(0, NULL);
    int i, rc;

    for (i = 1; i < argc; i++) {
	Tcl_ListObjAppendElement(NULL, args, Tcl_NewStringObj(argv[i], -1));
    }
    Tcl_SetVar2Ex(interp, "argv0", NULL, Tcl_NewStringObj(argv[0], -1),
	    TCL_GLOBAL_ONLY);
    if (AppInit(interp) != TCL_OK) {
	fprintf(stderr, "rubicon: %s\n", Tcl_GetStringResult(interp));
	return 2;
    }
    Tcl_IncrRefCount(args);
    rc = Tcl_EvalObjv(interp, 2, (Tcl_Obj *[]){
	    Tcl_NewStringObj("::rubicon::main", -1), args}, TCL_EVAL_GLOBAL);
    Tcl_DecrRefCount(args);
    if (rc != TCL_OK) {
	Tcl_Obj *opts = Tcl_GetReturnOptions(interp, rc);
	Tcl_Obj *key = Tcl_NewStringObj("-errorcode", -1), *code = NULL;
	const char *codeStr;
	int status;

	Tcl_IncrRefCount(opts);
	Tcl_IncrRefCount(key);
	Tcl_DictObjGet(NULL, opts, key, &code);
	codeStr = code ? Tcl_GetString(code) : "";
	if (RbMpiRank() == 0) {
	    fprintf(stderr, "rubicon: %s\n", Tcl_GetStringResult(interp));
	} else {
	    /* Every rank runs the same script, so rank 0 most likely fails
	     * alike, reports it and ends the job meanwhile.  If it does not
	     * (an error of this rank alone, rank 0 waiting for its share),
	     * this rank says so and ends the job. */
	    sleep(2);
	    fprintf(stderr, "rubicon: rank %d: %s\n", RbMpiRank(),
		    Tcl_GetStringResult(interp));
	    RbMpiAbort(1);
	}
	/* The message says what and where; the Tcl stack is for -debug or
	 * RUBICON_DEBUG (rubicon(n), ERRORS), or for an error that may be a
	 * bug of the program's own Tcl code (ShowStack).  A file that is not
	 * a script (a trace given as the configuration) is a usage error: 2. */
	status = strcmp(codeStr, "RUBICON CONFIG NOTSCRIPT") == 0 ? 2 : 1;
	if (RbMpiRank() == 0 && (ShowStack(interp, codeStr)
		|| (Tcl_Eval(interp, "::rubicon::debugging") == TCL_OK
		&& strcmp(Tcl_GetStringResult(interp), "1") == 0))) {
	    fprintf(stderr, "%s\n", Tcl_GetVar(interp, "errorInfo",
		    TCL_GLOBAL_ONLY));
	}
	Tcl_DecrRefCount(key);
	Tcl_DecrRefCount(opts);
	rc = StatusAfter(interp, status);
	Tcl_DeleteInterp(interp);
	return rc;
    }
    rc = StatusAfter(interp, 0);
    Tcl_DeleteInterp(interp);
    return rc;
}

int
main(int argc, char **argv)
{
    Tcl_FindExecutable(argv[0]);
    if (argc > 1 && strcmp(argv[1], "-i") != 0) {
	int status = RunConfig(argc, argv);

	Tcl_Finalize();
	return status;
    }
    Tcl_Main(1, argv, AppInit);
    return 0;
}
