/*
 * init.c --
 *
 *	Loads the transaction-mix plugin: its commands, the TxMixAnalyzer
 *	and the ReporterTxmix, all through the public API.
 */

#include "plugins/txmix/txmix.h"

/*
 * Rb_TxmixInit --
 *	Called by Rubicon_Init; replaces the core's weak default.
 * Results: TCL_OK, or TCL_ERROR when a class fails to register.
 */
int
Rb_TxmixInit(Tcl_Interp *interp)
{
    if (Tcl_Eval(interp, "namespace eval ::txmix {}") != TCL_OK) {
	return TCL_ERROR;
    }
    if (Rb_TxmixCommandsInit(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    if (Rb_TxmixAnalyzerInit(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    return Rb_TxmixReporterInit(interp);
}
