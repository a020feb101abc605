/*
 * glue.h --
 *
 *	Loading a companion shared object of Rubicon's own (glue.c): the
 *	objects that alone link a big library (libmpi, libxlsxwriter), which
 *	the program and the library load only when a run needs it, so that
 *	every other run is spared linking it at start-up.
 */

#ifndef RB_GLUE_H
#define RB_GLUE_H

#include <tcl.h>

void *		RbGlueLoad(Tcl_Interp *interp, const char *lib,
		    const char *sym, Tcl_Obj **why);

#endif /* RB_GLUE_H */
