/*
 * safe.c --
 *
 *	Safe mode ("rubicon -safe config.tcl trace..."): the configuration
 *	runs in a Tcl safe interpreter, and the engine, which opens files in
 *	C where Tcl's safe-interpreter rules do not reach, checks every trace
 *	it reads and every report it writes against what the parent allowed:
 *	the named traces, and one output directory.  The parent sets the
 *	limits with rubicon::_restrict right after loading the package; the
 *	command refuses a second call, so a configuration cannot lift them.
 *
 *	Memory is bounded for the whole process with RLIMIT_AS: an
 *	allocation past the limit fails, Tcl either returns an error (code
 *	TCL MEMORY, which the parent turns into RUBICON SAFE LIMIT MEMORY)
 *	or panics, and the panic procedure set here ends the program with
 *	the same message instead of an abort and a core dump.
 */

#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>
#include "engine.h"

#if !defined(__SANITIZE_ADDRESS__)
/* The -memlimit in force (MB), for the panic procedure's message. */
static Tcl_WideInt memLimitMB;

/*
 * AddressSpaceNow --
 *	The process's address space in bytes (Linux /proc/self/statm), or 0
 *	when it cannot be read.
 */
static unsigned long long
AddressSpaceNow(void)
{
    FILE *fp = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0;

    if (fp != NULL) {
	if (fscanf(fp, "%llu", &pages) != 1) {
	    pages = 0;
	}
	fclose(fp);
    }
    return pages * (unsigned long long) sysconf(_SC_PAGESIZE);
}

/*
 * SafePanic --
 *	The panic procedure in safe mode.  Tcl panics when an allocation
 *	fails, which under -memlimit means the configuration reached its
 *	limit: the program ends with status 1 and a message naming the
 *	limit, as an error of code RUBICON SAFE LIMIT MEMORY would.  Any
 *	other panic is a bug and aborts as before.
 * Results: does not return.
 */
static void
SafePanic(const char *format, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, format);
    vsnprintf(msg, sizeof(msg), format, ap);
    va_end(ap);
    fflush(stdout);
    if (strstr(msg, "alloc") != NULL || strstr(msg, "memory") != NULL
	    || strstr(msg, "max size for a Tcl value") != NULL) {
	fprintf(stderr, "rubicon: safe mode: memory limit reached "
		"(-memlimit %" TCL_LL_MODIFIER "d MB): %s\n", memLimitMB, msg);
	_exit(1);
    }
    fprintf(stderr, "%s\n", msg);
    abort();
}

#endif /* !__SANITIZE_ADDRESS__ */

/*
 * SetMemoryLimit --
 *	Caps the process's address space at its present size plus mb
 *	megabytes (soft and hard RLIMIT_AS, which programs it starts
 *	inherit) and installs SafePanic.  Under AddressSanitizer, which
 *	reserves terabytes of address space for its shadow memory, no cap
 *	is set.
 * Results: TCL_OK, or TCL_ERROR (RUBICON SAFE LIMIT) if setrlimit fails.
 */
static int
SetMemoryLimit(Tcl_Interp *interp, Tcl_WideInt mb)
{
#if defined(__SANITIZE_ADDRESS__)
    (void) interp;
    (void) mb;
    return TCL_OK;
#else
    struct rlimit rl;
    unsigned long long cap = AddressSpaceNow() + (unsigned long long) mb
	    * 1024 * 1024;

    if (getrlimit(RLIMIT_AS, &rl) != 0) {
	return Rb_SetInterpError(interp, "RUBICON SAFE LIMIT",
		"cannot read the memory limit: %s", strerror(errno));
    }
    if (rl.rlim_max == RLIM_INFINITY || cap < rl.rlim_max) {
	rl.rlim_max = cap;
    }
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_AS, &rl) != 0) {
	return Rb_SetInterpError(interp, "RUBICON SAFE LIMIT",
		"cannot set the memory limit: %s", strerror(errno));
    }
    memLimitMB = mb;
    Tcl_SetPanicProc(SafePanic);
    return TCL_OK;
#endif
}

/*
 * RestrictCmd --
 *	rubicon::_restrict -read PATHS -write DIR ?-memlimit MB?: enters
 *	safe mode; with -memlimit (MB > 0) also bounds the process's memory.
 */
static int
RestrictCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Rb_Engine *eng = RbEngineGet(interp);
    char real[PATH_MAX];
    Tcl_Obj *reads = NULL;
    const char *dir = NULL;
    Tcl_WideInt mb = 0;
    int i;

    if (eng->safe) {
	return Rb_SetInterpError(interp, "RUBICON SAFE DENIED",
		"safe mode is already in force and cannot be changed");
    }
    for (i = 1; i + 1 < objc; i += 2) {
	if (strcmp(Tcl_GetString(objv[i]), "-read") == 0) {
	    reads = objv[i + 1];
	} else if (strcmp(Tcl_GetString(objv[i]), "-write") == 0) {
	    dir = Tcl_GetString(objv[i + 1]);
	} else if (strcmp(Tcl_GetString(objv[i]), "-memlimit") == 0) {
	    if (Tcl_GetWideIntFromObj(interp, objv[i + 1], &mb) != TCL_OK) {
		return TCL_ERROR;
	    }
	} else {
	    break;
	}
    }
    if (reads == NULL || dir == NULL || i != objc) {
	Tcl_WrongNumArgs(interp, 1, objv,
		"-read paths -write directory ?-memlimit MB?");
	return TCL_ERROR;
    }
    if (realpath(dir, real) == NULL) {
	return Rb_SetInterpError(interp, "RUBICON SAFE DIRECTORY",
		"output directory \"%s\": %s", dir, strerror(errno));
    }
    if (mb > 0 && SetMemoryLimit(interp, mb) != TCL_OK) {
	return TCL_ERROR;
    }
    eng->safe = 1;
    eng->safeReads = Tcl_DuplicateObj(reads);
    Tcl_IncrRefCount(eng->safeReads);
    eng->safeWriteDir = Rb_Strdup(real);
    Tcl_GetTime(&eng->safeSince);
    return TCL_OK;
}

/*
 * RbSafeCheckRead --
 *	In safe mode, only the traces the parent named may be read.
 */
int
RbSafeCheckRead(Tcl_Interp *interp, const char *path)
{
    Rb_Engine *eng = RbEngineGet(interp);
    Tcl_Obj *p, *norm, **allowed;
    int n, i, ok = 0;

    if (!eng->safe) {
	return TCL_OK;
    }
    p = Tcl_NewStringObj(path, -1);
    Tcl_IncrRefCount(p);
    norm = Tcl_FSGetNormalizedPath(NULL, p);
    Tcl_ListObjGetElements(NULL, eng->safeReads, &n, &allowed);
    for (i = 0; norm && i < n && !ok; i++) {
	ok = strcmp(Tcl_GetString(norm), Tcl_GetString(allowed[i])) == 0;
    }
    Tcl_DecrRefCount(p);
    if (!ok) {
	return Rb_SetInterpError(interp, "RUBICON SAFE DENIED",
		"safe mode: \"%s\" is not one of the traces given on the "
		"command line", path);
    }
    return TCL_OK;
}

/*
 * ResolveDir --
 *	The real path of directory dir, which need not exist yet: the
 *	longest leading part that exists is resolved with realpath (symbolic
 *	links followed) and the missing components after it are appended.
 *	A missing "." is dropped; a missing ".." cannot be resolved without
 *	the directory it would climb out of, so it fails.
 * Results: 1 with the path in out (initialized here, free it in every
 *	case), or 0.
 */
static int
ResolveDir(const char *dir, Tcl_DString *out)
{
    Tcl_DString abs;
    char real[PATH_MAX], *s, *p, *comp;
    int cut, ok = 0;

    Tcl_DStringInit(out);
    Tcl_DStringInit(&abs);
    if (dir[0] != '/') {
	if (getcwd(real, sizeof(real)) == NULL) {
	    return 0;
	}
	Tcl_DStringAppend(&abs, real, -1);
	Tcl_DStringAppend(&abs, "/", 1);
    }
    s = Tcl_DStringAppend(&abs, dir, -1);
    /* Shorten to the last existing ancestor: s[0..cut) resolves. */
    for (cut = Tcl_DStringLength(&abs); cut > 0; ) {
	char save = s[cut];

	s[cut] = '\0';
	ok = realpath(s, real) != NULL;
	s[cut] = save;
	if (ok) {
	    break;
	}
	while (cut > 0 && s[--cut] != '/') {
	}
    }
    if (!ok) {
	strcpy(real, "/");
	ok = 1;
    }
    Tcl_DStringAppend(out, strcmp(real, "/") ? real : "", -1);
    for (p = s + cut; ok && *p; ) {
	while (*p == '/') {
	    p++;
	}
	for (comp = p; *p && *p != '/'; p++) {
	}
	if (p - comp == 2 && comp[0] == '.' && comp[1] == '.') {
	    ok = 0;
	} else if (p > comp && !(p - comp == 1 && comp[0] == '.')) {
	    Tcl_DStringAppend(out, "/", 1);
	    Tcl_DStringAppend(out, comp, p - comp);
	}
    }
    if (Tcl_DStringLength(out) == 0) {
	Tcl_DStringAppend(out, "/", 1);
    }
    Tcl_DStringFree(&abs);
    return ok;
}

/*
 * Rb_SafeCheckWrite --
 *	In safe mode, files may be written only inside the output directory:
 *	the real path of the file's directory (symbolic links resolved, and
 *	directories not made yet taken as they are named) must be the output
 *	directory or below it.  Callers that create directories check
 *	"DIR/." before the first mkdir, so nothing is made outside; the
 *	message then names DIR.  Outside safe mode every path is allowed.
 * Results: TCL_OK, or TCL_ERROR with code RUBICON SAFE DENIED in interp,
 *	naming path (DIR for "DIR/.") and the output directory.
 * Side effects: sets interp's result when it refuses; none otherwise.
 */
int
Rb_SafeCheckWrite(Tcl_Interp *interp, const char *path)
{
    Rb_Engine *eng = RbEngineGet(interp);
    Tcl_DString real;
    char *copy;
    size_t n;
    int ok;

    if (!eng->safe) {
	return TCL_OK;
    }
    copy = Rb_Strdup(path);
    ok = ResolveDir(dirname(copy), &real);
    free(copy);
    n = strlen(eng->safeWriteDir);
    ok = ok && strncmp(Tcl_DStringValue(&real), eng->safeWriteDir, n) == 0
	    && (Tcl_DStringValue(&real)[n] == '\0'
	    || Tcl_DStringValue(&real)[n] == '/');
    Tcl_DStringFree(&real);
    if (!ok) {
	n = strlen(path);
	if (n > 2 && strcmp(path + n - 2, "/.") == 0) {
	    n -= 2;
	}
	return Rb_SetInterpError(interp, "RUBICON SAFE DENIED",
		"safe mode: \"%.*s\" is outside the output directory \"%s\"",
		(int) n, path, eng->safeWriteDir);
    }
    return TCL_OK;
}

int
RbSafeInitCmds(Tcl_Interp *interp)
{
    Tcl_CreateObjCommand(interp, "::rubicon::_restrict", RestrictCmd, NULL,
	    NULL);
    return TCL_OK;
}
