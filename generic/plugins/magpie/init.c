/*
 * init.c --
 *
 *	RbMagpieInit: registers the Magpie plugin's readers (once per
 *	process, as readers are process-wide), its analyzers and the
 *	magpie:: commands (in every interpreter).
 */

#include <pthread.h>
/* Built as the package rubicon::magpie (libmagpie.so), this file holds its
 * copy of the stubs pointer: the plugin reaches Rubicon through the stubs
 * table only, as an outside plugin does. */
#define RUBICON_STUBS_IMPLEMENTATION
#include "plugins/magpie/magpie.h"

static pthread_once_t readersOnce = PTHREAD_ONCE_INIT;

/*
 * FreeSchemas --
 *	Tcl exit handler: releases the schemas the plugin holds for the life
 *	of the process (ftrace's, the discovered event-log ones, the
 *	declared Magpie ones), before Tcl_Finalize unloads the plugin and
 *	the only pointers to them with it.
 */
static void
FreeSchemas(ClientData cd)
{
    MgFtraceSchemaFree();
    MgEventLogSchemasFree();
    MgSchemaRegistryFree();
}

/*
 * RegisterReaders --
 *	The event-log (text and CSV) and ftrace formats, and the records of
 *	a declared Magpie schema for "Filter -schema magpie:NAME"; the exit
 *	handler that frees the schemas.
 */
static void
RegisterReaders(void)
{
    Tcl_CreateExitHandler(FreeSchemas, NULL);
    Rb_RegisterReader(&MgEventLogReaderClass);
    Rb_RegisterReader(&MgCsvLogReaderClass);
    Rb_RegisterReader(&MgFtraceReaderClass);
    Rb_RegisterSchema("magpie", MgNamedRecordSchema);
}

/*
 * RbMagpieInit --
 *	Registers the plugin in interp: called by Magpie_Init.
 * Results: TCL_OK, or TCL_ERROR if a class cannot be registered.
 */
int
RbMagpieInit(Tcl_Interp *interp)
{
    pthread_once(&readersOnce, RegisterReaders);
    if (Rb_RegisterAnalyzer(interp, &MgThreadCpuAnalyzerClass) != TCL_OK
	    || Rb_RegisterAnalyzer(interp, &MgParserAnalyzerClass)
	    != TCL_OK) {
	return TCL_ERROR;
    }
    if (MgSchemaInitCmds(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    if (MgCanonInitCmds(interp) != TCL_OK
	    || MgTimelineInitCmds(interp) != TCL_OK
	    || MgChromeInitCmds(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    return MgParserInitCmds(interp);
}

#ifdef USE_RUBICON_STUBS
/*
 * Magpie_Init --
 *	The entry of the package rubicon::magpie: binds to Tcl and Rubicon
 *	through their stubs tables and registers the plugin.  "package
 *	require rubicon" and the rubicon program load it by default.
 * Results: TCL_OK, or TCL_ERROR with the reason in interp.
 * Side effects: provides rubicon::magpie; creates its commands.
 */
int
Magpie_Init(Tcl_Interp *interp)
{
    return Rubicon_InitPlugin(interp, "rubicon::magpie", RbMagpieInit);
}

/*
 * Magpie_SafeInit --
 *	The same in a safe interpreter (rubicon -safe), whose file access
 *	the engine restricts.
 */
int
Magpie_SafeInit(Tcl_Interp *interp)
{
    return Magpie_Init(interp);
}
#endif /* USE_RUBICON_STUBS */
