/*
 * out.c --
 *
 *	Safe report output: data is written to "path.tmp-PID" and renamed to
 *	path only when every write and the close succeeded, so a failed run
 *	never leaves a half-written report under the final name.  A process
 *	killed before renaming (SIGKILL, a crash) leaves its temporary file;
 *	the next run writing the same path removes it.
 *
 *	A path that exists and is not a regular file (a device such as
 *	/dev/null, a FIFO, a symbolic link to one) and "-" (standard output)
 *	are written in place: renaming a file onto them would replace the
 *	device or the link.
 *
 *	In safe mode every byte written through here counts against the
 *	run's -outlimit (RbOutFdopen); a write past it fails, and the report
 *	fails with RUBICON SAFE LIMIT OUTPUT.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "engine.h"

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
 * RbOutInPlace --
 *	1 if path is written in place rather than through a temporary: "-"
 *	(standard output), or a path that exists and, links followed, is not
 *	a regular file (a device, a FIFO, a socket); else 0.
 */
int
RbOutInPlace(const char *path)
{
    struct stat st;

    return strcmp(path, "-") == 0
	    || (stat(path, &st) == 0 && !S_ISREG(st.st_mode)
	    && !S_ISDIR(st.st_mode));
}

/*
 * RbOutCreate --
 *	Opens path for writing the way every output is written: in place
 *	when RbOutInPlace says so (standard output is duplicated), otherwise
 *	as a fresh "path.tmp-PID" beside it, made after removing the
 *	temporaries of dead processes (RbOutRemoveStale) with O_EXCL and
 *	O_NOFOLLOW, so that a link planted under that name is not followed.
 * Results: a descriptor, or -1 with errno set; *tmpPath gets the
 *	temporary's name (free it) or NULL when path is written in place.
 * Side effects: creates the temporary file.
 */
int
RbOutCreate(const char *path, char **tmpPath)
{
    size_t n;
    int fd;

    *tmpPath = NULL;
    if (strcmp(path, "-") == 0) {
	fflush(stdout);
	return dup(STDOUT_FILENO);
    }
    if (RbOutInPlace(path)) {
	do {
	    fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	} while (fd < 0 && errno == EINTR);
	return fd;
    }
    RbOutRemoveStale(path);
    n = strlen(path) + 32;
    *tmpPath = Rb_Alloc(n);
    snprintf(*tmpPath, n, "%s.tmp-%ld", path, (long)getpid());
    unlink(*tmpPath);
    fd = open(*tmpPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW
	    | O_CLOEXEC, 0666);
    if (fd < 0) {
	int e = errno;

	free(*tmpPath);
	*tmpPath = NULL;
	errno = e;
    }
    return fd;
}

/*
 * Output counted against safe mode's -outlimit: a stdio stream over a
 * descriptor whose writes are charged to the engine first.
 */
typedef struct Counted {
    Rb_Engine *eng;
    int fd;
} Counted;

static ssize_t
CountedWrite(void *cookie, const char *buf, size_t n)
{
    Counted *c = cookie;
    size_t done = 0;

    if (!RbSafeOutputTake(c->eng, n)) {
	errno = EFBIG;
	return -1;
    }
    while (done < n) {
	ssize_t w = write(c->fd, buf + done, n - done);

	if (w < 0 && errno == EINTR) {
	    continue;
	}
	if (w <= 0) {
	    return done > 0 ? (ssize_t)done : -1;
	}
	done += (size_t)w;
    }
    return (ssize_t)done;
}

static int
CountedClose(void *cookie)
{
    Counted *c = cookie;
    int rc = close(c->fd);

    free(c);
    return rc;
}

/*
 * RbOutFdopen --
 *	A stream writing to descriptor fd, which it owns (fclose closes
 *	it).  When interp's engine has an output limit (safe mode's
 *	-outlimit), every byte is charged to it and a write past the limit
 *	fails with EFBIG.
 * Results: the stream, or NULL with errno set (fd is then closed).
 */
FILE *
RbOutFdopen(Tcl_Interp *interp, int fd)
{
    Rb_Engine *eng = interp ? RbEngineGet(interp) : NULL;
    FILE *fp;

    if (eng != NULL && eng->outLimit > 0) {
	static const cookie_io_functions_t io = {
	    NULL, CountedWrite, NULL, CountedClose
	};
	Counted *c = Rb_Alloc(sizeof(*c));

	c->eng = eng;
	c->fd = fd;
	fp = fopencookie(c, "w", io);
	if (fp == NULL) {
	    free(c);
	}
    } else {
	fp = fdopen(fd, "w");
    }
    if (fp == NULL) {
	int e = errno;

	close(fd);
	errno = e;
    }
    return fp;
}

/*
 * Rb_OutOpen --
 *	Opens path for a report: a temporary file "path.tmp-PID" beside it,
 *	or path itself when it is written in place (RbOutCreate: "-" is
 *	standard output, and a device or FIFO is never replaced).
 * Results: TCL_OK with out ready for writes to out->fp, or TCL_ERROR in
 *	interp: RUBICON SAFE DENIED (Rb_SafeCheckWrite), or RUBICON OUTPUT
 *	OPEN naming path and the cause; out is then zeroed.
 * Side effects: creates the temporary file; unlinks stale ones; copies
 *	path into out, released by Rb_OutClose or Rb_OutAbort.
 */
int
Rb_OutOpen(Tcl_Interp *interp, const char *path, Rb_Out *out)
{
    Rb_Engine *eng = RbEngineGet(interp);
    int fd;

    memset(out, 0, sizeof(*out));
    out->path = Rb_Strdup(path);
    if (strcmp(path, "-") == 0 && eng->outLimit == 0) {
	out->fp = stdout;
	return TCL_OK;
    }
    if (Rb_SafeCheckWrite(interp, path) != TCL_OK) {
	free(out->path);
	memset(out, 0, sizeof(*out));
	return TCL_ERROR;
    }
    fd = RbOutCreate(path, &out->tmpPath);
    out->fp = fd < 0 ? NULL : RbOutFdopen(interp, fd);
    if (out->fp == NULL) {
	int e = errno;

	if (out->tmpPath != NULL) {
	    unlink(out->tmpPath);
	}
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
 *	succeeded), else removes it.  A path written in place is closed (C's
 *	stdout is flushed, not closed).
 * Results: TCL_OK, or TCL_ERROR in interp naming path and the cause:
 *	RUBICON SAFE LIMIT OUTPUT when safe mode's -outlimit was reached,
 *	else RUBICON OUTPUT WRITE; TCL_ERROR with no message if out is not
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
	if (out->tmpPath != NULL && !out->failed
		&& rename(out->tmpPath, out->path) != 0) {
	    e = errno;
	    out->failed = 1;
	}
	if (out->tmpPath != NULL && out->failed) {
	    unlink(out->tmpPath);
	}
    }
    if (out->failed && RbSafeOutputReached(interp)) {
	rc = RbSafeOutputError(interp, out->path);
    } else if (out->failed) {
	rc = Rb_SetInterpError(interp, "RUBICON OUTPUT WRITE",
		"writing report \"%s\" failed: %s%s", out->path, strerror(e),
		out->tmpPath != NULL ? "; nothing was left under that name"
		: "");
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
 *	appears under path (a path written in place keeps what was written).
 * Results: none.
 * Side effects: closes and unlinks the temporary file (stdout is left
 *	open); frees out's strings and zeroes it.
 */
void
Rb_OutAbort(Rb_Out *out)
{
    if (out->fp != NULL && out->fp != stdout) {
	fclose(out->fp);
	if (out->tmpPath != NULL) {
	    unlink(out->tmpPath);
	}
    }
    RbTempForget(out->tmpPath);
    free(out->tmpPath);
    free(out->path);
    memset(out, 0, sizeof(*out));
}
