/*
 * init.c --
 *
 *	Loads the transaction-mix plugin: its commands, the TxMixAnalyzer
 *	and the ReporterTxmix, all through the public API.
 */

/* Built as the package rubicon::txmix (libtxmix.so), this file holds its
 * copy of the stubs pointer: the plugin reaches Rubicon through the stubs
 * table only, as an outside plugin does. */
#define RUBICON_STUBS_IMPLEMENTATION
#include "plugins/txmix/txmix.h"

/*
 * RbTxmixInit --
 *	Registers the plugin in interp: called by Txmix_Init.
 * Results: TCL_OK, or TCL_ERROR when a class fails to register.
 */
int
RbTxmixInit(Tcl_Interp *interp)
{
    if (Tcl_Eval(interp, "namespace eval ::txmix {}") != TCL_OK) {
	return TCL_ERROR;
    }
    if (RbTxmixCommandsInit(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    if (RbTxmixAnalyzerInit(interp) != TCL_OK) {
	return TCL_ERROR;
    }
    return RbTxmixReporterInit(interp);
}

#ifdef USE_RUBICON_STUBS
/*
 * Txmix_Init --
 *	The entry of the package rubicon::txmix: binds to Tcl and Rubicon
 *	through their stubs tables and registers the plugin.  "package
 *	require rubicon" and the rubicon program load it by default.
 * Results: TCL_OK, or TCL_ERROR with the reason in interp.
 * Side effects: provides rubicon::txmix; creates its commands.
 */
int
Txmix_Init(Tcl_Interp *interp)
{
    return Rubicon_InitPlugin(interp, "rubicon::txmix", RbTxmixInit);
}

/*
 * Txmix_SafeInit --
 *	The same in a safe interpreter (rubicon -safe), whose file access
 *	the engine restricts.
 */
int
Txmix_SafeInit(Tcl_Interp *interp)
{
    return Txmix_Init(interp);
}
#endif /* USE_RUBICON_STUBS */
