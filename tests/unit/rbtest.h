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

/* The unit tests link the plugins' code directly, instead of loading the
 * rubicon::NAME packages: they register them as those packages do. */
int	RbMagpieInit(Tcl_Interp *interp);
int	RbStardustInit(Tcl_Interp *interp);
int	RbObserverInit(Tcl_Interp *interp);
int	RbTxmixInit(Tcl_Interp *interp);

static inline Tcl_Interp *
rbtest_interp(void)
{
    if (rbtestInterp == NULL) {
	rbtestInterp = Tcl_CreateInterp();
	if (Rubicon_Init(rbtestInterp) != TCL_OK
		|| RbMagpieInit(rbtestInterp) != TCL_OK
		|| RbStardustInit(rbtestInterp) != TCL_OK
		|| RbObserverInit(rbtestInterp) != TCL_OK
		|| RbTxmixInit(rbtestInterp) != TCL_OK) {
	    fprintf(stderr, "Rubicon_Init: %s\n",
		    Tcl_GetStringResult(rbtestInterp));
	    abort();
	}
    }
    return rbtestInterp;
}

/* Path of a file under the repository's data folder (RUBICON_DATA, or
 * data/ relative to the repository root, where tests run). */
static inline const char *
rbtest_data(const char *rel)
{
    static char buf[4096];
    const char *root = getenv("RUBICON_DATA");

    snprintf(buf, sizeof(buf), "%s/%s", root ? root : "data", rel);
    return buf;
}

/*
 * A temporary directory per test suite, made in its setup and removed in
 * its teardown, with paths in it and whole-file writes (shared by the
 * reader tests).
 */
static inline char *
rbtest_tmpdir(void)
{
    static char dir[128];

    return dir;
}

static inline void
rbtest_tmpdir_make(const char *tag)
{
    char *dir = rbtest_tmpdir();

    snprintf(dir, 128, "/tmp/rbtest-%s-XXXXXX", tag);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static inline void
rbtest_tmpdir_remove(void)
{
    char cmd[256];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", rbtest_tmpdir());
    ck_assert_int_eq(system(cmd), 0);
}

/* Path of name in the suite's directory; valid for the next 3 calls. */
static inline const char *
rbtest_tmp(const char *name)
{
    static char buf[4][512];
    static int k;

    k = (k + 1) % 4;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", rbtest_tmpdir(), name);
    return buf[k];
}

static inline void
rbtest_write_file(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "wb");

    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(data, 1, n, fp), n);
    ck_assert_int_eq(fclose(fp), 0);
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
