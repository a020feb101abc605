/*
 * init.c --
 *
 *	The Observer plugin's initializer: creates the observer::
 *	commands (models, resource models) and registers its Analyzers,
 *	all through the public API.
 */

#include "observer.h"

/*
 * Rb_ObserverInit --
 *	Called by Rubicon_Init; replaces the core's weak default.
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
