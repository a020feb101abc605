/*
 * glue.c --
 *
 *	RbGlueLoad: finds and loads a companion shared object (glue.h), which
 *	is installed, and built, beside librubicon.so and the plugins.
 */

#include <dlfcn.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include "rubicon.h"
#include "glue.h"

/*
 * RbGlueLoad --
 *	Loads lib, looked for beside the object holding this code (the
 *	library, or the program in a build tree), beside the program, in
 *	PREFIX/lib/tcltk/rubiconVERSION and (the Debian package)
 *	PREFIX/lib/tcltk/TRIPLET/rubiconVERSION beside its bin, then in
 *	rubiconVERSION under each directory of interp's auto_path (where
 *	the program finds the plugins too); the first one found is loaded,
 *	with its symbols global (Open MPI's components expect libmpi's to
 *	be).
 * Results: the address of its symbol sym, or NULL with the reason in
 *	*why (a Tcl_Obj with a reference for the caller): the file that
 *	would not load and dlerror's words, or the directories looked in.
 */
void *
RbGlueLoad(Tcl_Interp *interp, const char *lib, const char *sym,
	Tcl_Obj **why)
{
    Dl_info info;
    char exe[PATH_MAX];
    Tcl_Obj *dirs = Tcl_NewListObj(0, NULL), *autoPath, **elems;
    int i, n;
    ssize_t len;
    const char *slash;

    Tcl_IncrRefCount(dirs);
    if (dladdr((void *)RbGlueLoad, &info) && info.dli_fname != NULL
	    && (slash = strrchr(info.dli_fname, '/')) != NULL) {
	Tcl_ListObjAppendElement(NULL, dirs, Tcl_NewStringObj(info.dli_fname,
		(int)(slash - info.dli_fname)));
    }
    Tcl_ListObjGetElements(NULL, dirs, &n, &elems);
    if ((len = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
	exe[len] = '\0';
	if ((slash = strrchr(exe, '/')) != NULL) {
	    exe[slash - exe] = '\0';
	    if (n == 0 || strcmp(Tcl_GetString(elems[0]), exe) != 0) {
		Tcl_ListObjAppendElement(NULL, dirs, Tcl_NewStringObj(exe, -1));
	    }
	    Tcl_ListObjAppendElement(NULL, dirs, Tcl_ObjPrintf(
		    "%s/../lib/tcltk/rubicon%s", exe, RUBICON_VERSION));
	    Tcl_ListObjAppendElement(NULL, dirs, Tcl_ObjPrintf(
		    "%s/../lib/tcltk/%s/rubicon%s", exe, RB_MULTIARCH,
		    RUBICON_VERSION));
	}
    }
    autoPath = interp ? Tcl_GetVar2Ex(interp, "auto_path", NULL,
	    TCL_GLOBAL_ONLY) : NULL;
    if (autoPath != NULL
	    && Tcl_ListObjGetElements(NULL, autoPath, &n, &elems) == TCL_OK) {
	for (i = 0; i < n; i++) {
	    Tcl_ListObjAppendElement(NULL, dirs, Tcl_ObjPrintf("%s/rubicon%s",
		    Tcl_GetString(elems[i]), RUBICON_VERSION));
	}
    }
    Tcl_ListObjGetElements(NULL, dirs, &n, &elems);
    for (i = 0; i < n; i++) {
	Tcl_Obj *path = Tcl_ObjPrintf("%s/%s", Tcl_GetString(elems[i]), lib);
	void *h, *addr = NULL;

	Tcl_IncrRefCount(path);
	if (access(Tcl_GetString(path), F_OK) != 0) {
	    Tcl_DecrRefCount(path);
	    continue;
	}
	h = dlopen(Tcl_GetString(path), RTLD_NOW | RTLD_GLOBAL);
	if (h != NULL && (addr = dlsym(h, sym)) != NULL) {
	    Tcl_DecrRefCount(path);
	    Tcl_DecrRefCount(dirs);
	    return addr;
	}
	*why = Tcl_ObjPrintf("%s: %s", Tcl_GetString(path), dlerror());
	Tcl_IncrRefCount(*why);
	Tcl_DecrRefCount(path);
	Tcl_DecrRefCount(dirs);
	return NULL;
    }
    *why = Tcl_ObjPrintf("%s not found in %s", lib, Tcl_GetString(dirs));
    Tcl_IncrRefCount(*why);
    Tcl_DecrRefCount(dirs);
    return NULL;
}
