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
 *	Bytes written are bounded with -outlimit (RbSafeOutputTake, charged
 *	by every output stream of out.c and by the writers that bypass it),
 *	and time, besides the Tcl time limit the parent sets, by a watchdog
 *	thread that ends the process a few seconds past -timelimit when a
 *	system call blocks (an open of a FIFO with no writer) so that the
 *	interpreter never gets to check its limit.
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
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
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
 * The traces the parent named, normalized, for the readers that open
 * files a named trace implies (RbSafeCheckImpliedRead) and have no
 * interpreter at hand; NULL outside safe mode.  Set once per process.
 */
static Tcl_Obj *impliedReads;

/* Seconds the watchdog waits past -timelimit before ending the process. */
#define WATCHDOG_GRACE 5

/* The watchdog's limit, and its stop signal (RbSafeEnd). */
static double watchdogLimit;
static pthread_t watchdogMain;	/* the thread that started it */
static int watchdogRunning, watchdogStop;
static pthread_mutex_t watchdogLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watchdogWake;

/*
 * WatchdogFire --
 *	The watchdog's signal (SIGALRM), sent to the thread that started
 *	it: removes the temporary files being written (RbTempRemoveAll; the
 *	main thread blocks signals while it changes their list), says why
 *	and ends the process with status 1.  Reports already renamed onto
 *	their names stay.  Async-signal-safe.
 */
static void
WatchdogFire(int signum)
{
    char msg[160];
    int n;

    (void) signum;
    RbTempRemoveAll();
    n = snprintf(msg, sizeof(msg), "rubicon: safe mode: time limit reached "
	    "(-timelimit %g seconds): the configuration and its run were "
	    "stopped\n", watchdogLimit);
    if (n > 0 && write(STDERR_FILENO, msg, (size_t) n) < 0) {
	n = 0;
    }
    _exit(1);
}

/*
 * Watchdog --
 *	The thread behind -timelimit: waits until the limit, the grace
 *	given to ending a run (a tenth of the limit, at least 1 s:
 *	RbEndCheckLimit) and WATCHDOG_GRACE seconds more and, unless
 *	RbSafeEnd stopped it first (the safe interpreter is gone), signals
 *	the main thread (WatchdogFire), which removes its temporaries and
 *	ends the process with status 1 and the time limit's message: the
 *	interpreter's own limit did not stop the run, as when a system call
 *	blocks or one end hook runs long.
 */
static void *
Watchdog(void *arg)
{
    struct timespec until;
    double wait = watchdogLimit + (watchdogLimit / 10 > 1
	    ? watchdogLimit / 10 : 1) + WATCHDOG_GRACE;
    int stop = 0;

    (void) arg;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t) wait;
    until.tv_nsec += (long) ((wait - (double)(time_t) wait) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
	until.tv_sec++;
	until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&watchdogLock);
    while (!watchdogStop && pthread_cond_timedwait(&watchdogWake,
	    &watchdogLock, &until) != ETIMEDOUT) {
    }
    stop = watchdogStop;
    watchdogRunning = 0;
    pthread_mutex_unlock(&watchdogLock);
    if (stop) {
	return NULL;
    }
    if (pthread_kill(watchdogMain, SIGALRM) != 0) {
	WatchdogFire(SIGALRM);
    }
    /* The main thread ends the process; should it not, do it here. */
    sleep(2);
    WatchdogFire(SIGALRM);
    return NULL;
}

/*
 * StartWatchdog --
 *	Starts the -timelimit watchdog (a detached thread).
 * Results: TCL_OK, or TCL_ERROR (RUBICON SAFE LIMIT) if it cannot start.
 */
static int
StartWatchdog(Tcl_Interp *interp, double seconds)
{
    static int condMade;
    pthread_attr_t attr;
    pthread_t tid;
    int rc;

    pthread_mutex_lock(&watchdogLock);
    if (!condMade) {
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&watchdogWake, &ca);
	pthread_condattr_destroy(&ca);
	condMade = 1;
    }
    watchdogLimit = seconds;
    watchdogMain = pthread_self();
    {
	struct sigaction sa;
	sigset_t alrm;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = WatchdogFire;
	sigfillset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
    }
    watchdogStop = 0;
    watchdogRunning = 1;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    rc = pthread_create(&tid, &attr, Watchdog, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
	watchdogRunning = 0;
    }
    pthread_mutex_unlock(&watchdogLock);
    if (rc != 0) {
	return Rb_SetInterpError(interp, "RUBICON SAFE LIMIT",
		"cannot start the time limit's watchdog: %s", strerror(rc));
    }
    return TCL_OK;
}

/*
 * RbSafeEnd --
 *	The safe interpreter is being deleted: stops the watchdog, if any,
 *	and forgets the implied-read list, so that the process may go on
 *	(a test, an embedding) without safe mode's limits.
 */
void
RbSafeEnd(void)
{
    pthread_mutex_lock(&watchdogLock);
    if (watchdogRunning) {
	watchdogStop = 1;
	pthread_cond_signal(&watchdogWake);
    }
    pthread_mutex_unlock(&watchdogLock);
    if (impliedReads != NULL) {
	Tcl_DecrRefCount(impliedReads);
	impliedReads = NULL;
    }
}

/*
 * RestrictCmd --
 *	rubicon::_restrict -read PATHS -write DIR ?-memlimit MB?
 *	?-outlimit MB? ?-timelimit S?: enters safe mode; with -memlimit (MB
 *	> 0) also bounds the process's memory, with -outlimit the bytes its
 *	outputs may write, with -timelimit (S > 0) its time, by the watchdog
 *	(the parent sets the interpreter's own time limit).
 */
static int
RestrictCmd(ClientData cd, Tcl_Interp *interp, int objc, Tcl_Obj *const objv[])
{
    Rb_Engine *eng = RbEngineGet(interp);
    char real[PATH_MAX];
    Tcl_Obj *reads = NULL;
    const char *dir = NULL, *opt;
    Tcl_WideInt mb = 0, outMb = 0;
    double seconds = 0;
    int i;

    if (eng->safe) {
	return Rb_SetInterpError(interp, "RUBICON SAFE DENIED",
		"safe mode is already in force and cannot be changed");
    }
    for (i = 1; i + 1 < objc; i += 2) {
	opt = Tcl_GetString(objv[i]);
	if (strcmp(opt, "-read") == 0) {
	    reads = objv[i + 1];
	} else if (strcmp(opt, "-write") == 0) {
	    dir = Tcl_GetString(objv[i + 1]);
	} else if (strcmp(opt, "-memlimit") == 0) {
	    if (Tcl_GetWideIntFromObj(interp, objv[i + 1], &mb) != TCL_OK) {
		return TCL_ERROR;
	    }
	} else if (strcmp(opt, "-outlimit") == 0) {
	    if (Tcl_GetWideIntFromObj(interp, objv[i + 1], &outMb) != TCL_OK) {
		return TCL_ERROR;
	    }
	} else if (strcmp(opt, "-timelimit") == 0) {
	    if (Tcl_GetDoubleFromObj(interp, objv[i + 1], &seconds)
		    != TCL_OK) {
		return TCL_ERROR;
	    }
	} else {
	    break;
	}
    }
    if (reads == NULL || dir == NULL || i != objc) {
	Tcl_WrongNumArgs(interp, 1, objv, "-read paths -write directory "
		"?-memlimit MB? ?-outlimit MB? ?-timelimit seconds?");
	return TCL_ERROR;
    }
    if (realpath(dir, real) == NULL) {
	return Rb_SetInterpError(interp, "RUBICON SAFE DIRECTORY",
		"output directory \"%s\": %s", dir, strerror(errno));
    }
    if (mb > 0 && SetMemoryLimit(interp, mb) != TCL_OK) {
	return TCL_ERROR;
    }
    if (seconds > 0 && StartWatchdog(interp, seconds) != TCL_OK) {
	return TCL_ERROR;
    }
    eng->safe = 1;
    eng->safeReads = Tcl_DuplicateObj(reads);
    Tcl_IncrRefCount(eng->safeReads);
    eng->safeWriteDir = Rb_Strdup(real);
    Tcl_GetTime(&eng->safeSince);
    eng->outLimit = outMb > 0 ? (uint64_t) outMb * 1024 * 1024 : 0;
    if (impliedReads == NULL) {
	impliedReads = Tcl_DuplicateObj(reads);
	Tcl_IncrRefCount(impliedReads);
    }
    return TCL_OK;
}

/*
 * IsNamed --
 *	1 if path, normalized, is one of the normalized paths in list.
 */
static int
IsNamed(Tcl_Obj *list, const char *path)
{
    Tcl_Obj *p, *norm, **allowed;
    int n, i, ok = 0;

    /* Tcl would read a leading "~" as a home directory; the file opened
     * (by open(), in C) is "./~...". */
    p = Tcl_ObjPrintf("%s%s", path[0] == '~' ? "./" : "", path);
    Tcl_IncrRefCount(p);
    norm = Tcl_FSGetNormalizedPath(NULL, p);
    Tcl_ListObjGetElements(NULL, list, &n, &allowed);
    for (i = 0; norm && i < n && !ok; i++) {
	ok = strcmp(Tcl_GetString(norm), Tcl_GetString(allowed[i])) == 0;
    }
    Tcl_DecrRefCount(p);
    return ok;
}

/*
 * RbSafeCheckImpliedRead --
 *	In safe mode, a file a reader opens because a named trace implies
 *	it (a blktrace's per-CPU siblings) must have been named too: the
 *	same rule as for the named traces, applied without an interpreter.
 * Results: TCL_OK, or TCL_ERROR with RUBICON SAFE DENIED in err naming
 *	path.
 */
int
RbSafeCheckImpliedRead(const char *path, Rb_Error *err)
{
    if (impliedReads == NULL || IsNamed(impliedReads, path)) {
	return TCL_OK;
    }
    Rb_SetError(err, "RUBICON SAFE DENIED", "safe mode: \"%s\" is not one "
	    "of the traces given on the command line (name it too, or read "
	    "with -readeroptions {siblings 0})", path);
    return TCL_ERROR;
}

/*
 * Rb_SafeCheckRead --
 *	In safe mode, only the traces the parent named may be read: by
 *	rubicon::run, and by any command that reads a file by name
 *	(stardust::spans).
 * Results: TCL_OK (always outside safe mode), or TCL_ERROR with RUBICON
 *	SAFE DENIED in interp naming path.
 * Side effects: sets interp's result when it refuses.
 */
int
Rb_SafeCheckRead(Tcl_Interp *interp, const char *path)
{
    Rb_Engine *eng = RbEngineGet(interp);

    if (eng->safe && !IsNamed(eng->safeReads, path)) {
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
    char *copy, target[PATH_MAX];
    struct stat st;
    size_t n;
    int ok;

    if (!eng->safe) {
	return TCL_OK;
    }
    copy = Rb_Strdup(path);
    ok = ResolveDir(dirname(copy), &real);
    free(copy);
    if (ok && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
	/* A link is written through: where it leads must be inside too,
	 * and one leading nowhere (which a write would create) is
	 * refused. */
	Tcl_DStringFree(&real);
	Tcl_DStringInit(&real);
	copy = realpath(path, target);
	if (copy != NULL) {
	    copy = Rb_Strdup(target);
	    ok = ResolveDir(dirname(copy), &real);
	    free(copy);
	} else {
	    ok = 0;
	}
    }
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

/*
 * RbSafeOutputTake --
 *	Charges n bytes about to be written to eng's -outlimit.
 * Results: 1 if they fit (or there is no limit), else 0.
 * Side effects: adds n to the bytes written; marks the limit reached
 *	when they do not fit.
 */
int
RbSafeOutputTake(Rb_Engine *eng, uint64_t n)
{
    if (eng->outLimit == 0) {
	return 1;
    }
    if (n > eng->outLimit - eng->outWritten) {
	eng->outReached = 1;
	return 0;
    }
    eng->outWritten += n;
    return 1;
}

/*
 * RbSafeOutputReached --
 *	1 if a write was refused for interp's -outlimit, else 0.
 */
int
RbSafeOutputReached(Tcl_Interp *interp)
{
    return RbEngineGet(interp)->outReached;
}

/*
 * RbSafeOutputSetError --
 *	The error for an output stopped by eng's -outlimit.
 * Side effects: sets err (RUBICON SAFE LIMIT OUTPUT) naming path and the
 *	limit.
 */
void
RbSafeOutputSetError(Rb_Engine *eng, Rb_Error *err, const char *path)
{
    Rb_SetError(err, "RUBICON SAFE LIMIT OUTPUT", "safe mode: output limit "
	    "reached (-outlimit %llu MB): \"%s\" was not written",
	    (unsigned long long) (eng->outLimit / 1048576), path);
}

/*
 * RbSafeOutputError --
 *	RbSafeOutputSetError for interp's engine, into interp.
 * Results: TCL_ERROR.
 */
int
RbSafeOutputError(Tcl_Interp *interp, const char *path)
{
    Rb_Error err;

    RbSafeOutputSetError(RbEngineGet(interp), &err, path);
    return Rb_ErrorToInterp(interp, &err);
}

/*
 * Rb_SafeOutputLeft --
 *	How much more interp's outputs may write under safe mode's
 *	-outlimit.
 * Results: the bytes left, or -1 when there is no limit.
 * Side effects: none.
 */
Tcl_WideInt
Rb_SafeOutputLeft(Tcl_Interp *interp)
{
    Rb_Engine *eng = RbEngineGet(interp);

    return eng->outLimit == 0 ? -1
	    : (Tcl_WideInt) (eng->outLimit - eng->outWritten);
}

/*
 * Rb_SafeOutputCharge --
 *	Charges bytes that a writer wrote to path outside Rb_Out (a
 *	library writing by name: SQLite, gnuplot) to safe mode's -outlimit.
 * Results: TCL_OK, or TCL_ERROR with RUBICON SAFE LIMIT OUTPUT in interp
 *	when they pass the limit (the caller removes what it wrote).
 * Side effects: adds bytes to the total written, or marks the limit
 *	reached.
 */
int
Rb_SafeOutputCharge(Tcl_Interp *interp, const char *path, Tcl_WideInt bytes)
{
    if (bytes > 0 && !RbSafeOutputTake(RbEngineGet(interp),
	    (uint64_t) bytes)) {
	return RbSafeOutputError(interp, path);
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
