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
 * Rb_ObserverInit --
 *	Registers the plugin in interp: called by Observer_Init.
 */
int
Rb_ObserverInit(Tcl_Interp *interp)
{
    static const struct {
	const char *name;
	Tcl_ObjCmdProc *proc;
    } cmds[] = {
	{"::observer::model", Rb_ObsModelCmd},
	{"::observer::law", Rb_ObsLawCmd},
	{"::observer::cache", Rb_ObsCacheCmd},
	{"::observer::disk", Rb_ObsDiskCmd},
	{"::observer::network", Rb_ObsNetworkCmd},
	{"::observer::cpu", Rb_ObsCpuCmd},
	{"::observer::refiner", Rb_ObsRefinerCmd},
	{"::observer::mismatch", Rb_ObsMismatchCmd},
    };
    size_t i;

    for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
	Tcl_CreateObjCommand(interp, cmds[i].name, cmds[i].proc, NULL, NULL);
    }
    return Rb_ObsCacheAnalyzerInit(interp);
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
    return Rubicon_InitPlugin(interp, "rubicon::observer", Rb_ObserverInit);
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
