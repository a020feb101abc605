/*
 * init.c --
 *
 *	The Observer plugin's initializer: creates the observer::
 *	commands (models, resource models) and registers its Analyzers,
 *	all through the public API.
 */

/* Built as the package rubicon::observer (libobserver.so), this file holds its
 * copy of the stubs pointer: the plugin reaches Rubicon through the stubs
 * table only, as an outside plugin does. */
#define RUBICON_STUBS_IMPLEMENTATION
#include "observer.h"

/*
 * RbObserverInit --
 *	Registers the plugin in interp: called by Observer_Init.
 */
int
RbObserverInit(Tcl_Interp *interp)
{
    static const struct {
	const char *name;
	Tcl_ObjCmdProc *proc;
    } cmds[] = {
	{"::observer::model", RbObsModelCmd},
	{"::observer::law", RbObsLawCmd},
	{"::observer::cache", RbObsCacheCmd},
	{"::observer::disk", RbObsDiskCmd},
	{"::observer::network", RbObsNetworkCmd},
	{"::observer::cpu", RbObsCpuCmd},
	{"::observer::refiner", RbObsRefinerCmd},
	{"::observer::mismatch", RbObsMismatchCmd},
    };
    size_t i;

    for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
	Tcl_CreateObjCommand(interp, cmds[i].name, cmds[i].proc, NULL, NULL);
    }
    return RbObsCacheAnalyzerInit(interp);
}

#ifdef USE_RUBICON_STUBS
/*
 * Observer_Init --
 *	The entry of the package rubicon::observer: binds to Tcl and Rubicon
 *	through their stubs tables and registers the plugin.  "package
 *	require rubicon" and the rubicon program load it by default.
 * Results: TCL_OK, or TCL_ERROR with the reason in interp.
 * Side effects: provides rubicon::observer; creates its commands.
 */
int
Observer_Init(Tcl_Interp *interp)
{
    return Rubicon_InitPlugin(interp, "rubicon::observer", RbObserverInit);
}

/*
 * Observer_SafeInit --
 *	The same in a safe interpreter (rubicon -safe), whose file access
 *	the engine restricts.
 */
int
Observer_SafeInit(Tcl_Interp *interp)
{
    return Observer_Init(interp);
}
#endif /* USE_RUBICON_STUBS */
