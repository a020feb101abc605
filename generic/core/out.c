/*
 * out.c --
 *
 *	Safe report output: data is written to "path.tmp-PID" and renamed to
 *	path only when every write and the close succeeded, so a failed run
 *	never leaves a half-written report under the final name.  A process
 *	killed before renaming (SIGKILL, a crash) leaves its temporary file;
 *	the next run writing the same path removes it.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rbInt.h"

/*
 * RbOutRemoveStale --
 *	Removes the temporary files "path.tmp-PID" beside path whose process
 *	no longer exists (kill(PID, 0) fails with ESRCH).  Files of live
 *	processes, and any other name, are left alone.
 * Side effects: unlinks files in path's directory.
 */
void
RbOutRemoveStale(const char *path)
{
    char *dirCopy = Rb_Strdup(path), *baseCopy = Rb_Strdup(path);
    const char *dir = dirname(dirCopy), *base = basename(baseCopy);
    size_t n = strlen(base);
    struct dirent *e;
    DIR *d = opendir(dir);

    while (d != NULL && (e = readdir(d)) != NULL) {
	const char *digits = e->d_name + n + 5;
	char *end;
	long pid;

	if (strncmp(e->d_name, base, n) != 0
		|| strncmp(e->d_name + n, ".tmp-", 5) != 0
		|| !isdigit((unsigned char) *digits)) {
	    continue;
	}
	errno = 0;
	pid = strtol(digits, &end, 10);
	if (*end == '\0' && errno == 0 && pid > 0 && pid != (long) getpid()
		&& pid == (long) (pid_t) pid
		&& kill((pid_t) pid, 0) != 0 && errno == ESRCH) {
	    Tcl_DString stale;

	    Tcl_DStringInit(&stale);
	    Tcl_DStringAppend(&stale, dir, -1);
	    Tcl_DStringAppend(&stale, "/", 1);
	    Tcl_DStringAppend(&stale, e->d_name, -1);
	    unlink(Tcl_DStringValue(&stale));
	    Tcl_DStringFree(&stale);
	}
    }
    if (d != NULL) {
	closedir(d);
    }
    free(dirCopy);
    free(baseCopy);
}

/*
 * Rb_OutOpen --
 *	Opens a temporary file "path.tmp-PID" beside path ("-" is stdout),
 *	first removing those of dead processes (RbOutRemoveStale).
 * Results: TCL_OK with out ready for writes to out->fp, or TCL_ERROR in
 *	interp: RUBICON SAFE DENIED (Rb_SafeCheckWrite), or RUBICON OUTPUT
 *	OPEN naming path and the cause; out is then zeroed.
 * Side effects: creates the temporary file; unlinks stale ones; copies
 *	path into out, released by Rb_OutClose or Rb_OutAbort.
 */
int
Rb_OutOpen(Tcl_Interp *interp, const char *path, Rb_Out *out)
{
    size_t n;

    memset(out, 0, sizeof(*out));
    out->path = Rb_Strdup(path);
    if (strcmp(path, "-") == 0) {
	out->fp = stdout;
	return TCL_OK;
    }
    if (Rb_SafeCheckWrite(interp, path) != TCL_OK) {
	free(out->path);
	memset(out, 0, sizeof(*out));
	return TCL_ERROR;
    }
    RbOutRemoveStale(path);
    n = strlen(path) + 32;
    out->tmpPath = Rb_Alloc(n);
    snprintf(out->tmpPath, n, "%s.tmp-%ld", path, (long)getpid());
    out->fp = fopen(out->tmpPath, "w");
    if (out->fp == NULL) {
	int e = errno;

	Rb_SetInterpError(interp, "RUBICON OUTPUT OPEN",
		"cannot write report \"%s\": %s", path, strerror(e));
	free(out->tmpPath);
	free(out->path);
	memset(out, 0, sizeof(*out));
	return TCL_ERROR;
    }
    RbTempAdd(out->tmpPath);
    return TCL_OK;
}

/*
 * Rb_OutClose --
 *	Flushes and closes; renames the temporary file to its final name if
 *	nothing failed (out->failed unset and every write, flush and close
 *	succeeded), else removes it.  stdout is flushed, not closed.
 * Results: TCL_OK, or TCL_ERROR with RUBICON OUTPUT WRITE in interp
 *	naming path and the cause; TCL_ERROR with no message if out is not
 *	open.
 * Side effects: closes out->fp; renames or unlinks the temporary file;
 *	frees out's strings and zeroes it.
 */
int
Rb_OutClose(Tcl_Interp *interp, Rb_Out *out)
{
    int rc = TCL_OK, e = 0;

    if (out->fp == NULL) {
	return TCL_ERROR;
    }
    if (fflush(out->fp) != 0 || ferror(out->fp)) {
	e = errno ? errno : EIO;
	out->failed = 1;
    }
    if (out->fp != stdout) {
	if (fclose(out->fp) != 0 && !out->failed) {
	    e = errno;
	    out->failed = 1;
	}
	if (!out->failed && rename(out->tmpPath, out->path) != 0) {
	    e = errno;
	    out->failed = 1;
	}
	if (out->failed) {
	    unlink(out->tmpPath);
	}
    }
    if (out->failed) {
	rc = Rb_SetInterpError(interp, "RUBICON OUTPUT WRITE",
		"writing report \"%s\" failed: %s; nothing was left under "
		"that name", out->path, strerror(e));
    }
    RbTempForget(out->tmpPath);
    free(out->tmpPath);
    free(out->path);
    memset(out, 0, sizeof(*out));
    return rc;
}

/*
 * Rb_OutAbort --
 *	Abandons an output, as on an error while writing the report: nothing
 *	appears under path.
 * Results: none.
 * Side effects: closes and unlinks the temporary file (stdout is left
 *	open); frees out's strings and zeroes it.
 */
void
Rb_OutAbort(Rb_Out *out)
{
    if (out->fp != NULL && out->fp != stdout) {
	fclose(out->fp);
	unlink(out->tmpPath);
    }
    RbTempForget(out->tmpPath);
    free(out->tmpPath);
    free(out->path);
    memset(out, 0, sizeof(*out));
}
