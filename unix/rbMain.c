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
    Tcl_SetVar(interp, "tcl_rcFileName", "~/.rubiconrc", TCL_GLOBAL_ONLY);
    return TCL_OK;
}

/*
 * RunConfig --
 *	Runs a configuration script in batch mode. The script sees the trace
 *	files in ::argv; "rubicon::main" (library/main.tcl) does the work.
 * Results: the process exit status.
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
	if (RbMpiRank() == 0 && strncmp(codeStr, "RUBICON", 7) != 0
		&& strcmp(codeStr, "USAGE")) {
	    fprintf(stderr, "%s\n", Tcl_GetVar(interp, "errorInfo",
		    TCL_GLOBAL_ONLY));
	}
	Tcl_DecrRefCount(key);
	Tcl_DecrRefCount(opts);
	Tcl_DeleteInterp(interp);
	return 1;
    }
    Tcl_DeleteInterp(interp);
    return 0;
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
