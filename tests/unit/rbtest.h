/*
 * rbtest.h --
 *
 *	Shared scaffolding for the check unit tests.  A test file defines
 *	Suite *rbtest_suite(void) and includes this header, which supplies
 *	main().  rbtest_interp() gives an interpreter with the package
 *	initialized (the library is compiled against the Tcl stubs, so it
 *	must be initialized before any Rubicon function touches Tcl).
 */

#ifndef RBTEST_H
#define RBTEST_H

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "rubicon.h"

Suite *rbtest_suite(void);

static Tcl_Interp *rbtestInterp;

static inline Tcl_Interp *
rbtest_interp(void)
{
    if (rbtestInterp == NULL) {
	rbtestInterp = Tcl_CreateInterp();
	if (Rubicon_Init(rbtestInterp) != TCL_OK) {
	    fprintf(stderr, "Rubicon_Init: %s\n",
		    Tcl_GetStringResult(rbtestInterp));
	    abort();
	}
    }
    return rbtestInterp;
}

/* Path of a file under the shared data folder (RUBICON_SHARED or
 * ../shared relative to the repository root, where tests run). */
static inline const char *
rbtest_shared(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("RUBICON_SHARED");

    snprintf(buf, sizeof(buf), "%s/%s", root ? root : "../shared", rel);
    return buf;
}

int
main(void)
{
    SRunner *sr;
    int failed;

    Tcl_FindExecutable(NULL);
    rbtest_interp();
    sr = srunner_create(rbtest_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    Tcl_DeleteInterp(rbtestInterp);
    Tcl_Finalize();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* RBTEST_H */
