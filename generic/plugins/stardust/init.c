/*
 * init.c --
 *
 *	Rb_StardustInit: registers the Stardust plugin in an interpreter --
 *	the activity-record readers (once per process), the analyzers and
 *	the stardust:: commands -- through the public API only.
 */

#include "plugins/stardust/stardust.h"

/*
 * Rb_StardustInit --
 *	Called by Rubicon_Init for every interpreter.  Readers are
 *	process-wide; registering one again replaces it with itself, but
 *	doing it once keeps the registry quiet.
 * Results: TCL_OK or TCL_ERROR with a message in interp.
 */
int
Rb_StardustInit(Tcl_Interp *interp)
{
    static int readersDone = 0;
    static Tcl_Mutex readersMutex __attribute__((unused));

    Tcl_MutexLock(&readersMutex);
    if (!readersDone) {
	Rb_RegisterReader(&Sd_BinaryReaderClass);
	Rb_RegisterReader(&Sd_TextReaderClass);
#ifdef HAVE_JANSSON
	Rb_RegisterReader(&Sd_ZipkinReaderClass);
#endif
	readersDone = 1;
    }
    Tcl_MutexUnlock(&readersMutex);
    if (Rb_RegisterAnalyzer(interp, &Sd_DemandAnalyzerClass) != TCL_OK
	    || Sd_TypesInitCmds(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    return TCL_OK;
}
