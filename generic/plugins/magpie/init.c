/*
 * init.c --
 *
 *	Rb_MagpieInit: registers the Magpie plugin's readers (once per
 *	process, as readers are process-wide), its analyzers and the
 *	magpie:: commands (in every interpreter).
 */

#include <pthread.h>
#include "plugins/magpie/magpie.h"

static pthread_once_t readersOnce = PTHREAD_ONCE_INIT;

/*
 * RegisterReaders --
 *	The event-log (text and CSV) and ftrace formats, and the records of
 *	a declared Magpie schema for "Filter -schema magpie:NAME".
 */
static void
RegisterReaders(void)
{
    Rb_RegisterReader(&MgEventLogReaderClass);
    Rb_RegisterReader(&MgCsvLogReaderClass);
    Rb_RegisterReader(&MgFtraceReaderClass);
    Rb_RegisterSchema("magpie", MgNamedRecordSchema);
}

/*
 * Rb_MagpieInit --
 *	Called from Rubicon_Init for each interpreter.
 * Results: TCL_OK, or TCL_ERROR if a class cannot be registered.
 */
int
Rb_MagpieInit(Tcl_Interp *interp)
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
