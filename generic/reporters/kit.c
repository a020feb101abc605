/*
 * kit.c --
 *
 *	Registers the built-in Reporter classes, each defined in its own
 *	file of this folder.
 */

#include "core/rbInt.h"

extern const Rb_ReporterClass Rb_ReporterLogClass;
extern const Rb_ReporterClass Rb_ReporterCsvClass;
extern const Rb_ReporterClass Rb_ReporterJsonClass;
extern const Rb_ReporterClass Rb_ReporterGraphClass;
extern const Rb_ReporterClass Rb_ReporterWorkloadClass;
extern const Rb_ReporterClass Rb_ReporterHtmlClass;
#ifdef HAVE_XLSXWRITER
extern const Rb_ReporterClass Rb_ReporterSpreadsheetClass;
#endif

static const Rb_ReporterClass *const kitClasses[] = {
    &Rb_ReporterLogClass,
    &Rb_ReporterCsvClass,
    &Rb_ReporterJsonClass,
    &Rb_ReporterGraphClass,
    &Rb_ReporterWorkloadClass,
    &Rb_ReporterHtmlClass,
#ifdef HAVE_XLSXWRITER
    &Rb_ReporterSpreadsheetClass,
#endif
    NULL
};

/*
 * RbReporterKitInit --
 *	Registers every built-in Reporter, which creates its Tcl command.
 * Results: TCL_OK, or the first registration's error.
 */
int
RbReporterKitInit(Tcl_Interp *interp)
{
    int i;

    for (i = 0; kitClasses[i] != NULL; i++) {
	if (Rb_RegisterReporter(interp, kitClasses[i]) != TCL_OK) {
	    return TCL_ERROR;
	}
    }
    return TCL_OK;
}
